/*
 * org.umms.Recorder1 (recorder.h): Record, ScheduleRecording,
 * ScheduleProgramme and the series rules' methods (recorder-guide.c does
 * their work), and the recordings kept in the database taken up again at
 * start.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>
#include <gst/gst.h>

#include "destination.h"
#include "error.h"
#include "log.h"
#include "recorder-private.h"
#include "resources-service.h"
#include "source.h"
#include "umms-dbus.h"

static bool
parse_options(GVariant *options, int64_t *duration, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (duration && strcmp(key, "duration") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_INT64)) {
			*duration = g_variant_get_int64(value);
		} else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown option \"%s\" of type %s%s", key, g_variant_get_type_string(value),
				duration ? " (duration: x)" : "");
			g_variant_unref(value);
			return false;
		}
	}
	return true;
}

/* A URI (an absolute path taken as a file) something here can read. */
static char *
check_uri(const char *text, GError **error)
{
	g_autofree char *uri = g_path_is_absolute(text) ? gst_filename_to_uri(text, NULL) :
		g_strdup(text);
	if (!uri || !gst_uri_is_valid(uri)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "\"%s\" is not a URI",
			text);
		return NULL;
	}
	g_autofree char *protocol = gst_uri_get_protocol(uri);
	if (!gst_uri_protocol_is_supported(GST_URI_SRC, protocol)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"nothing here reads %s URIs", protocol);
		return NULL;
	}
	return g_steal_pointer(&uri);
}

/*
 * Broadcast (dvb://) recordings take a tuner each: one more than there are
 * at any moment of [@start, @end) is refused, naming those it overlaps.
 */
static bool
check_tuners(struct umms_recorder *rec, const char *uri, int64_t start, int64_t end,
	GError **error)
{
	if (!g_str_has_prefix(uri, "dvb://"))
		return true;
	/* The DVB frontends found, and those [resources] tuners adds. */
	unsigned tuners = rec->config->resources.tuners +
		(rec->resources ? umms_resource_service_tuners(rec->resources) : 0);
	g_autoptr(GString) overlapping = g_string_new(NULL);
	unsigned n = 0;
	for (guint i = 0; i < rec->jobs->len; i++) {
		struct job *j = rec->jobs->pdata[i];
		int64_t j_end = j->duration_us < 0 ? G_MAXINT64 : j->start_us + j->duration_us;
		if ((j->state != SCHEDULED && j->state != RECORDING) ||
				!g_str_has_prefix(j->uri, "dvb://") || j_end <= start || j->start_us >= end)
			continue;
		g_string_append_printf(overlapping, "%s%s (%s)", n ? ", " : "", j->path, j->uri);
		n++;
	}
	if (n < tuners)
		return true;
	if (tuners == 0)
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"no tuner on this machine ([resources] tuners)");
	else
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"no free tuner then: %u of %u taken by %s", n, tuners, overlapping->str);
	return false;
}

/* A new job, saved; started now (@start 0) or scheduled. */
struct job *
recorder_add_job(struct umms_recorder *rec, const char *uri_text, const char *destination,
	int64_t start, int64_t duration, GError **error)
{
	g_autofree char *uri = check_uri(uri_text, error);
	if (!uri)
		return NULL;
	g_autofree char *file = umms_destination_resolve((const char *const *)rec->dirs,
		destination, error);
	if (!file)
		return NULL;
	int64_t now = g_get_real_time();
	bool scheduled = start > 0;
	int64_t begin = scheduled ? start : now;
	if (duration > 0 && duration > G_MAXINT64 - begin) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"duration %" G_GINT64_FORMAT " µs: the recording would end after the clock's "
			"last microsecond", duration);
		return NULL;
	}
	if (!check_tuners(rec, uri, begin, duration > 0 ? begin + duration : G_MAXINT64, error))
		return NULL;
	struct umms_schedule_row row = { .min_age = -1, .uri = uri, .start_us = begin,
		.duration_us = duration,
		.destination = file, .state = scheduled ? "scheduled" : "recording" };
	if (!umms_schedule_db_insert(rec->db, &row, error))
		return NULL;
	struct job *j = recorder_job_new(rec, row.id, uri, file, begin, duration,
		SCHEDULED, error);
	if (!j)
		return NULL;
	j->fixed_window = scheduled;
	if (scheduled) {
		recorder_set_state(j, SCHEDULED, NULL);
		recorder_arm_timer(rec);
		umms_info("recording %" G_GINT64_FORMAT ": %s scheduled in %.0f s for %.0f s",
			j->id, uri, (double)(begin - now) / 1e6, (double)duration / 1e6);
	} else {
		recorder_start_part(j, now, 0);
	}
	return j;
}

/* Around a programme, at most: a film that overruns by hours is no padding's business. */
#define MAX_PADDING_S (4 * 3600)

static bool
parse_programme_options(GVariant *options, const char **destination, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (strcmp(key, "destination") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
			/* A string of @options, which outlives the call. */
			*destination = g_variant_get_string(value, NULL);
		} else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown option \"%s\" of type %s (destination: s)", key,
				g_variant_get_type_string(value));
			g_variant_unref(value);
			return false;
		}
	}
	return true;
}

/* AddSeriesRule, ListSeriesRules, RemoveSeriesRule. */
static void
rules_method(struct umms_recorder *rec, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	GError *error = NULL;
	GVariant *reply = NULL;
	if (strcmp(method, "AddSeriesRule") == 0) {
		g_autoptr(GVariant) dict = g_variant_get_child_value(params, 0);
		int64_t id;
		if (recorder_add_rule(rec, dict, &id, &error))
			reply = g_variant_new("(x)", id);
	} else if (strcmp(method, "ListSeriesRules") == 0) {
		GVariant *rules = recorder_list_rules(rec, &error);
		if (rules)
			reply = g_variant_new_tuple(&rules, 1);
	} else if (strcmp(method, "RemoveSeriesRule") == 0) {
		gint64 id;
		g_variant_get(params, "(x)", &id);
		if (recorder_remove_rule(rec, id, &error))
			reply = g_variant_new("()");
	} else {
		g_set_error(&error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no method %s", method);
	}
	if (!reply) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	umms_dbus_iface_flush_changes(rec->iface);
	g_dbus_method_invocation_return_value(invocation, reply);
}

static void
recorder_method(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_recorder *rec = data;
	GError *error = NULL;
	struct job *j = NULL;
	if (strcmp(method, "Record") == 0) {
		const char *uri, *destination;
		g_autoptr(GVariant) options = NULL;
		g_variant_get(params, "(&s&s@a{sv})", &uri, &destination, &options);
		int64_t duration = -1;
		if (parse_options(options, &duration, &error)) {
			if (duration == 0 || duration < -1)
				g_set_error(&error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"duration %" G_GINT64_FORMAT ": more than 0 µs", duration);
			else
				j = recorder_add_job(rec, uri, destination, 0, duration, &error);
		}
	} else if (strcmp(method, "ScheduleRecording") == 0) {
		const char *uri, *destination;
		gint64 start, duration;
		g_autoptr(GVariant) options = NULL;
		g_variant_get(params, "(&sxx&s@a{sv})", &uri, &start, &duration, &destination,
			&options);
		if (!parse_options(options, NULL, &error)) {
		} else if (start <= 0 || duration <= 0) {
			g_set_error(&error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"start %" G_GINT64_FORMAT " and duration %" G_GINT64_FORMAT ": both "
				"more than 0 µs", start, duration);
		} else if (duration <= G_MAXINT64 - start && start + duration <= g_get_real_time()) {
			g_set_error(&error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"that recording would have ended already");
		} else {
			j = recorder_add_job(rec, uri, destination, start, duration, &error);
		}
	} else if (strcmp(method, "ScheduleProgramme") == 0) {
		gint64 programme;
		guint32 before, after;
		g_autoptr(GVariant) options = NULL;
		g_variant_get(params, "(xuu@a{sv})", &programme, &before, &after, &options);
		const char *destination = NULL;
		if (!parse_programme_options(options, &destination, &error)) {
		} else if (before > MAX_PADDING_S || after > MAX_PADDING_S) {
			g_set_error(&error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"padding %u and %u s: %u at most", before, after, MAX_PADDING_S);
		} else {
			j = recorder_schedule_programme(rec, programme, before, after, destination, 0,
				&error);
		}
	} else {
		rules_method(rec, method, params, invocation);
		return;
	}
	if (!j) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	umms_dbus_iface_flush_changes(rec->iface);
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", j->path));
}

static GVariant *
recorder_property(void *data, const char *name, GError **error)
{
	struct umms_recorder *rec = data;
	if (strcmp(name, "Recordings") == 0) {
		GVariantBuilder b;
		g_variant_builder_init(&b, G_VARIANT_TYPE("ao"));
		for (guint i = 0; i < rec->jobs->len; i++) {
			struct job *j = rec->jobs->pdata[i];
			g_variant_builder_add(&b, "o", j->path);
		}
		return g_variant_builder_end(&b);
	}
	if (strcmp(name, "Directories") == 0)
		return g_variant_new_strv((const char *const *)rec->dirs, -1);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops recorder_ops = {
	.method_call = recorder_method,
	.get_property = recorder_property,
};

/* ---- taken up again at start ---------------------------------------------------------- */

static void
load_row(const struct umms_schedule_row *row, void *data)
{
	struct umms_recorder *rec = data;
	enum job_state state = COMPLETED;
	for (int i = 0; i < N_STATES; i++) {
		if (strcmp(row->state, job_states[i]) == 0)
			state = (enum job_state)i;
	}
	g_autoptr(GError) error = NULL;
	struct job *j = recorder_job_new(rec, row->id, row->uri, row->destination, row->start_us,
		row->duration_us, state, &error);
	if (!j) {
		umms_warn("recording %" G_GINT64_FORMAT ": %s", row->id, error->message);
		return;
	}
	/*
	 * Still scheduled: a file opened ahead of the start, before ummsd
	 * stopped, holds nothing; the start writes over it.
	 */
	g_auto(GStrv) parts = g_strsplit(state == SCHEDULED ? "" : row->parts, "\n", -1);
	for (char **p = parts; *p; p++) {
		if (**p)
			g_ptr_array_add(j->parts, g_strdup(*p));
	}
	j->bytes_done = row->bytes;
	j->error = *row->error ? g_strdup(row->error) : NULL;
	j->programme = row->programme;
	j->rule = row->rule;
	j->episode_key = g_strdup(row->episode_key);
	j->padding_before_s = row->padding_before_s;
	j->padding_after_s = row->padding_after_s;
	j->channel = row->channel;
	j->title = *row->title ? g_strdup(row->title) : NULL;
	j->rated_channel = row->rated_channel;
	j->rating_system = *row->rating_system ? g_strdup(row->rating_system) : NULL;
	j->rating = *row->rating ? g_strdup(row->rating) : NULL;
	j->min_age = row->min_age;
	int64_t now = g_get_real_time();
	if (state == SCHEDULED) {
		j->fixed_window = true;
	} else if (state == RECORDING) {
		/* ummsd stopped during it: a new part for what is left, or done. */
		bool left = j->duration_us < 0 || now < j->start_us + j->duration_us;
		g_autofree char *note = g_strdup_printf("interrupted: ummsd stopped during it%s",
			left ? "; resumed into a new part" : "");
		umms_info("recording %" G_GINT64_FORMAT ": %s", j->id, note);
		g_free(j->error);
		j->error = g_steal_pointer(&note);
		if (left)
			recorder_start_part(j, now, 0);
		else
			recorder_set_state(j, COMPLETED, NULL);
	}
}

/* ---- life --------------------------------------------------------------------------------- */

void
umms_recorder_set_resources(struct umms_recorder *rec, struct umms_resource_service *resources)
{
	rec->resources = resources;
}

struct wl_signal *
umms_recorder_get_eit_signal(struct umms_recorder *rec)
{
	return &rec->eit;
}

struct umms_recorder *
umms_recorder_create(const struct umms_config *config, GDBusConnection *connection,
	struct umms_guide *guide, GError **error)
{
	struct umms_recorder *rec = g_new0(struct umms_recorder, 1);
	rec->config = config;
	rec->guide = guide;
	rec->timer_fd = -1;
	rec->connection = g_object_ref(connection);
	rec->jobs = g_ptr_array_new();
	rec->finished = g_ptr_array_new_with_free_func((GDestroyNotify)umms_recording_destroy);
	wl_signal_init(&rec->eit);
	g_autoptr(GStrvBuilder) dirs = g_strv_builder_new();
	for (char **dir = config->recording.directories; dir && *dir; dir++) {
		if (g_path_is_absolute(*dir))
			g_strv_builder_add(dirs, *dir);
		else
			umms_warn("recording.directories: %s is not absolute: left out", *dir);
	}
	if (!config->recording.directories || !config->recording.directories[0]) {
		g_autofree char *dir = g_build_filename(g_get_user_data_dir(), "umms", "recordings",
			NULL);
		g_strv_builder_add(dirs, dir);
	}
	rec->dirs = g_strv_builder_end(dirs);
	g_autofree char *db = config->recording.database ? g_strdup(config->recording.database) :
		g_build_filename(g_get_user_state_dir(), "umms", "umms.db", NULL);
	rec->db = umms_schedule_db_open(db, error);
	if (!rec->db)
		goto fail;
	rec->iface = umms_dbus_iface_export(umms_recorder1_interface_info(), &recorder_ops, rec,
		connection, "/org/umms", error);
	if (!rec->iface)
		goto fail;
	if (!recorder_timer_init(rec, error))
		goto fail;
	if (!umms_schedule_db_load(rec->db, load_row, rec, error))
		goto fail;
	recorder_arm_timer(rec);
	recorder_guide_init(rec);
	return rec;
fail:
	umms_recorder_destroy(rec);
	return NULL;
}

void
umms_recorder_destroy(struct umms_recorder *rec)
{
	if (!rec)
		return;
	recorder_guide_finish(rec);
	recorder_timer_finish(rec);
	umms_source_clear(&rec->reap);
	for (guint i = 0; i < rec->jobs->len; i++)
		recorder_job_free(rec->jobs->pdata[i]);
	g_ptr_array_unref(rec->jobs);
	g_ptr_array_unref(rec->finished);
	umms_dbus_iface_unexport(&rec->iface);
	umms_schedule_db_close(rec->db);
	g_strfreev(rec->dirs);
	g_object_unref(rec->connection);
	g_free(rec);
}
