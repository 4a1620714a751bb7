/*
 * ummsctl's commands about what ummsd shares out among players: hardware
 * units (org.umms.Resources1) and recordings (org.umms.Recorder1).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ummsctl.h"

#define ROOT_PATH "/org/umms"
#define RECORDER_IFACE "org.umms.Recorder1"
#define RECORDING_IFACE "org.umms.Recording1"

int
umms_ctl_resources(GDBusConnection *bus)
{
	static const char *const names[] = { "Decoders", "Captures", "Planes", "Tuners",
		"VaApi" };
	GVariant *values[G_N_ELEMENTS(names)] = { NULL };
	GError *error = NULL;
	int status = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(names) && status == 0; i++) {
		values[i] = umms_ctl_get_property(bus, ROOT_PATH, "org.umms.Resources1", names[i],
			&error);
		if (!values[i])
			status = umms_ctl_report(error);
	}
	if (status == 0)
		umms_ctl_print_resources(values[0], values[1], values[2], values[3],
			g_variant_get_string(values[4], NULL));
	for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
		if (values[i])
			g_variant_unref(values[i]);
	}
	return status;
}

/* Calls a Recorder1 method that returns a recording, and prints its path. */
static int
call_recorder(GDBusConnection *bus, const char *method, GVariant *params)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, SERVICE_NAME, ROOT_PATH,
		RECORDER_IFACE, method, params, G_VARIANT_TYPE("(o)"), G_DBUS_CALL_FLAGS_NONE,
		CALL_TIMEOUT_MS, NULL, &error);
	if (!reply)
		return umms_ctl_report(error);
	const char *path;
	g_variant_get(reply, "(&o)", &path);
	printf("%s\n", path);
	return 0;
}

int
umms_ctl_record(GDBusConnection *bus, const char *arg, const char *destination,
	const char *seconds)
{
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	if (seconds) {
		double s;
		if (!umms_ctl_parse_double(seconds, &s) || s <= 0) {
			g_variant_dict_clear(&options);
			fprintf(stderr, "ummsctl: record: \"%s\" is not a number of seconds\n", seconds);
			return 2;
		}
		g_variant_dict_insert(&options, "duration", "x", (gint64)llround(s * 1e6));
	}
	g_autofree char *uri = umms_ctl_to_uri(arg);
	return call_recorder(bus, "Record", g_variant_new("(ss@a{sv})", uri, destination,
		g_variant_dict_end(&options)));
}

/* "+SECONDS" (from now), or a local date and time "2026-12-03T20:00[:SS]"; µs since 1970. */
static bool
parse_start(const char *text, gint64 *us)
{
	if (text[0] == '+') {
		double s;
		if (!umms_ctl_parse_double(text + 1, &s) || s < 0)
			return false;
		*us = g_get_real_time() + (gint64)llround(s * 1e6);
		return true;
	}
	g_autoptr(GTimeZone) local = g_time_zone_new_local();
	g_autoptr(GDateTime) when = g_date_time_new_from_iso8601(text, local);
	if (!when)
		return false;
	*us = g_date_time_to_unix(when) * G_USEC_PER_SEC + g_date_time_get_microsecond(when);
	return true;
}

int
umms_ctl_schedule(GDBusConnection *bus, const char *arg, const char *destination,
	const char *start_text, const char *duration_text)
{
	gint64 start, duration;
	bool relative;
	if (!parse_start(start_text, &start)) {
		fprintf(stderr, "ummsctl: schedule: start \"%s\": +SECONDS or a date and time, "
			"2026-12-03T20:00\n", start_text);
		return 2;
	}
	if (!umms_ctl_parse_seek(duration_text, &duration, &relative) || relative ||
			duration <= 0) {
		fprintf(stderr, "ummsctl: schedule: duration \"%s\": seconds, M:SS or H:MM:SS\n",
			duration_text);
		return 2;
	}
	g_autofree char *uri = umms_ctl_to_uri(arg);
	return call_recorder(bus, "ScheduleRecording", g_variant_new("(sxxs@a{sv})", uri, start,
		duration, destination, g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
}

/* A property of recording @path, or NULL. */
static GVariant *
recording_get(GDBusConnection *bus, const char *path, const char *name)
{
	return umms_ctl_get_property(bus, path, RECORDING_IFACE, name, NULL);
}

int
umms_ctl_recordings(GDBusConnection *bus)
{
	GError *error = NULL;
	g_autoptr(GVariant) list = umms_ctl_get_property(bus, ROOT_PATH, RECORDER_IFACE,
		"Recordings", &error);
	if (!list)
		return umms_ctl_report(error);
	if (g_variant_n_children(list) == 0) {
		printf("(no recordings)\n");
		return 0;
	}
	gint64 now = g_get_real_time();
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		const char *path;
		g_variant_get_child(list, i, "&o", &path);
		g_autoptr(GVariant) state = recording_get(bus, path, "State");
		g_autoptr(GVariant) bytes = recording_get(bus, path, "BytesWritten");
		g_autoptr(GVariant) file = recording_get(bus, path, "Destination");
		g_autoptr(GVariant) start = recording_get(bus, path, "Start");
		g_autoptr(GVariant) duration = recording_get(bus, path, "Duration");
		g_autoptr(GVariant) why = recording_get(bus, path, "Error");
		if (!state || !bytes || !file || !start || !duration || !why)
			continue;   /* gone meanwhile */
		const char *st = g_variant_get_string(state, NULL);
		gint64 elapsed = now - g_variant_get_int64(start);
		gint64 total = g_variant_get_int64(duration);
		g_autofree char *size = g_format_size(g_variant_get_uint64(bytes));
		g_autofree char *took = umms_ctl_format_time(elapsed, false);
		printf("%s  %-9s %9s  %s\n", path, st, size, g_variant_get_string(file, NULL));
		if (g_strcmp0(st, "scheduled") == 0) {
			g_autoptr(GDateTime) when = g_date_time_new_from_unix_local(
				g_variant_get_int64(start) / G_USEC_PER_SEC);
			g_autofree char *at = g_date_time_format(when, "%Y-%m-%d %H:%M:%S");
			g_autofree char *length = umms_ctl_format_time(total, false);
			printf("    at %s for %s\n", at, length);
		} else if (g_strcmp0(st, "recording") == 0) {
			/* A bar when the length is known, else the time so far. */
			if (total > 0) {
				double done = CLAMP((double)elapsed / (double)total, 0, 1);
				int filled = (int)(done * 30);
				g_autofree char *left = umms_ctl_format_time(total - elapsed, false);
				printf("    [%.*s%*s] %3.0f%%  %s left\n", filled,
					"##############################", 30 - filled, "", done * 100, left);
			} else {
				printf("    recording for %s, until the source ends\n", took);
			}
		} else if (*g_variant_get_string(why, NULL)) {
			printf("    %s\n", g_variant_get_string(why, NULL));
		}
	}
	return 0;
}

int
umms_ctl_delete_recording(GDBusConnection *bus, const char *which)
{
	/* A number (as `ummsctl recordings` lists them), or the object's path. */
	g_autofree char *path = g_ascii_isdigit(which[0]) ?
		g_strdup_printf("%s/recording/%s", ROOT_PATH, which) : g_strdup(which);
	if (!g_variant_is_object_path(path)) {
		fprintf(stderr, "ummsctl: delete-recording: \"%s\" is no recording (a number, or "
			"a path as `ummsctl recordings` lists them)\n", which);
		return 2;
	}
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, SERVICE_NAME, path,
		RECORDING_IFACE, "Delete", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS,
		NULL, &error);
	return reply ? 0 : umms_ctl_report(error);
}
