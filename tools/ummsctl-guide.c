/*
 * ummsctl's commands about the programme guide (org.umms.Guide1):
 * channels, guide, search, import-m3u, import-xmltv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ummsctl.h"

#define ROOT_PATH "/org/umms"
#define GUIDE_IFACE "org.umms.Guide1"
/* An import of a big XMLTV file takes seconds; under a debugger, more. */
#define IMPORT_TIMEOUT_MS 300000

static GVariant *
call_guide(struct ctl *ctl, const char *method, GVariant *params, const char *reply_type,
	int timeout_ms, GError **error)
{
	return g_dbus_connection_call_sync(ctl->bus, SERVICE_NAME, ROOT_PATH, GUIDE_IFACE,
		method, params, G_VARIANT_TYPE(reply_type), G_DBUS_CALL_FLAGS_NONE, timeout_ms,
		NULL, error);
}

static const char *
lookup_string(GVariant *dict, const char *key)
{
	const char *s = "";
	g_variant_lookup(dict, key, "&s", &s);
	return s;
}

static int64_t
lookup_x(GVariant *dict, const char *key)
{
	int64_t v = 0;
	g_variant_lookup(dict, key, "x", &v);
	return v;
}

static char *
groups_text(GVariant *dict)
{
	g_autofree const char **groups = NULL;
	if (!g_variant_lookup(dict, "groups", "^a&s", &groups) || !groups[0])
		return g_strdup("");
	return g_strjoinv(";", (char **)groups);
}

/* µs since 1970 as local "%Y-%m-%d %H:%M" (@with_date) or "%H:%M". */
static char *
local_time(int64_t us, bool with_date)
{
	g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc(us / G_USEC_PER_SEC);
	if (!utc)
		return g_strdup("?");
	g_autoptr(GDateTime) local = g_date_time_to_local(utc);
	return g_date_time_format(local, with_date ? "%Y-%m-%d %H:%M" : "%H:%M");
}

/* "Title: Sub-title (S2E5)". */
static char *
programme_text(GVariant *p)
{
	GString *s = g_string_new(lookup_string(p, "title"));
	const char *sub = lookup_string(p, "sub-title");
	const char *episode = lookup_string(p, "episode");
	if (*sub)
		g_string_append_printf(s, ": %s", sub);
	if (*episode)
		g_string_append_printf(s, " (%s)", episode);
	return g_string_free(s, false);
}

static GVariant *
list_channels(struct ctl *ctl, GError **error)
{
	GVariant *reply = call_guide(ctl, "ListChannels", NULL, "(aa{sv})", CALL_TIMEOUT_MS,
		error);
	if (!reply)
		return NULL;
	GVariant *list = g_variant_get_child_value(reply, 0);
	g_variant_unref(reply);
	return list;
}

static int
cmd_channels(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_autoptr(GVariant) list = list_channels(ctl, &error);
	if (!list)
		return umms_ctl_report(error);
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		g_autoptr(GVariant) c = g_variant_get_child_value(list, i);
		g_autofree char *groups = groups_text(c);
		printf("%4" G_GINT64_FORMAT "  %5s  %-32s  %-20s  %s\n", lookup_x(c, "id"),
			lookup_string(c, "number"), lookup_string(c, "name"), groups,
			lookup_string(c, "uri"));
	}
	return STATUS_OK;
}

/* The channel @which names: its id, number or name (case ignored). NULL: none. */
static GVariant *
find_channel(GVariant *list, const char *which)
{
	char *end;
	int64_t id = g_ascii_strtoll(which, &end, 10);
	bool numeric = *which && !*end;
	for (int pass = 0; pass < 3; pass++) {
		for (gsize i = 0; i < g_variant_n_children(list); i++) {
			GVariant *c = g_variant_get_child_value(list, i);
			bool match = pass == 0 ? strcmp(lookup_string(c, "number"), which) == 0 :
				pass == 1 ? g_ascii_strcasecmp(lookup_string(c, "name"), which) == 0 :
				numeric && lookup_x(c, "id") == id;
			if (match)
				return c;
			g_variant_unref(c);
		}
	}
	return NULL;
}

static void
print_now_next(struct ctl *ctl, GVariant *channel)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = call_guide(ctl, "GetNowNext",
		g_variant_new("(xx)", lookup_x(channel, "id"), (int64_t)0), "(a{sv}a{sv})",
		CALL_TIMEOUT_MS, &error);
	printf("%5s  %s\n", lookup_string(channel, "number"), lookup_string(channel, "name"));
	if (!reply) {
		printf("       (%s)\n", error->message);
		g_error_free(error);
		return;
	}
	const char *label[2] = { "now ", "next" };
	for (gsize i = 0; i < 2; i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(reply, i);
		if (!g_variant_n_children(p))
			continue;
		g_autofree char *start = local_time(lookup_x(p, "start"), false);
		g_autofree char *stop = local_time(lookup_x(p, "stop"), false);
		g_autofree char *text = programme_text(p);
		printf("       %s %s–%s  %s\n", label[i], start, stop, text);
	}
}

static int
cmd_guide(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_autoptr(GVariant) list = list_channels(ctl, &error);
	if (!list)
		return umms_ctl_report(error);
	if (n_args == 0) {
		for (gsize i = 0; i < g_variant_n_children(list); i++) {
			g_autoptr(GVariant) c = g_variant_get_child_value(list, i);
			print_now_next(ctl, c);
		}
		return STATUS_OK;
	}
	g_autoptr(GVariant) channel = find_channel(list, args[0]);
	if (!channel)
		return umms_ctl_fail("no channel \"%s\" (ummsctl channels lists them)", args[0]);
	/* What is on from now, for a day. */
	int64_t now = g_get_real_time();
	g_autoptr(GVariant) reply = call_guide(ctl, "GetSchedule",
		g_variant_new("(xxx)", lookup_x(channel, "id"), now, now + G_TIME_SPAN_DAY),
		"(aa{sv})", CALL_TIMEOUT_MS, &error);
	if (!reply)
		return umms_ctl_report(error);
	g_autoptr(GVariant) programmes = g_variant_get_child_value(reply, 0);
	printf("%s  %s\n", lookup_string(channel, "number"), lookup_string(channel, "name"));
	for (gsize i = 0; i < g_variant_n_children(programmes); i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(programmes, i);
		g_autofree char *start = local_time(lookup_x(p, "start"), true);
		g_autofree char *stop = local_time(lookup_x(p, "stop"), false);
		g_autofree char *text = programme_text(p);
		printf("%6" G_GINT64_FORMAT "  %s–%s  %s\n", lookup_x(p, "id"), start, stop, text);
	}
	return STATUS_OK;
}

static int
cmd_search(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_autofree char *words = g_strjoinv(" ", args);
	g_autoptr(GVariant) reply = call_guide(ctl, "Search", g_variant_new("(s)", words),
		"(aa{sv})", CALL_TIMEOUT_MS, &error);
	if (!reply)
		return umms_ctl_report(error);
	g_autoptr(GVariant) list = list_channels(ctl, &error);
	if (!list)
		return umms_ctl_report(error);
	g_autoptr(GVariant) programmes = g_variant_get_child_value(reply, 0);
	for (gsize i = 0; i < g_variant_n_children(programmes); i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(programmes, i);
		g_autofree char *id = g_strdup_printf("%" G_GINT64_FORMAT, lookup_x(p, "channel"));
		g_autoptr(GVariant) channel = find_channel(list, id);
		g_autofree char *start = local_time(lookup_x(p, "start"), true);
		g_autofree char *text = programme_text(p);
		printf("%6" G_GINT64_FORMAT "  %s  %-20s  %s\n", lookup_x(p, "id"), start,
			channel ? lookup_string(channel, "name") : "", text);
	}
	return STATUS_OK;
}

static int
import(struct ctl *ctl, const char *method, const char *file)
{
	/* ummsd reads the file: give it a path that means the same to it. */
	g_autofree char *path = g_canonicalize_filename(file, NULL);
	GError *error = NULL;
	g_autoptr(GVariant) reply = call_guide(ctl, method, g_variant_new("(s)", path),
		"(a{sv})", IMPORT_TIMEOUT_MS, &error);
	if (!reply)
		return umms_ctl_report(error);
	g_autoptr(GVariant) result = g_variant_get_child_value(reply, 0);
	static const char *const keys[] = { "channels", "new-channels", "programmes", "added",
		"updated", "removed", "skipped", "warnings" };
	const char *sep = "";
	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
		guint32 v;
		if (g_variant_lookup(result, keys[i], "u", &v)) {
			printf("%s%s %u", sep, keys[i], v);
			sep = ", ";
		}
	}
	printf("\n");
	return STATUS_OK;
}

static int
cmd_import_m3u(struct ctl *ctl, char **args, int n_args)
{
	return import(ctl, "ImportM3U", args[0]);
}

static int
cmd_import_xmltv(struct ctl *ctl, char **args, int n_args)
{
	return import(ctl, "ImportXMLTV", args[0]);
}

const struct umms_ctl_command umms_ctl_guide_commands[] = {
	{ "channels", "", 0, 0, false, cmd_channels },
	{ "guide", "[CHANNEL]", 0, 1, false, cmd_guide },
	{ "search", "WORDS", 1, 64, false, cmd_search },
	{ "import-m3u", "FILE", 1, 1, false, cmd_import_m3u },
	{ "import-xmltv", "FILE", 1, 1, false, cmd_import_xmltv },
	{ NULL },
};
