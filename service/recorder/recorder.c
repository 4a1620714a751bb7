/*
 * org.umms.Recorder1 and the Recording1 objects (recorder.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>
#include <gst/gst.h>

#include "dbus-iface.h"
#include "destination.h"
#include "error.h"
#include "log.h"
#include "recorder.h"
#include "recording.h"
#include "umms-dbus.h"

#define RECORDER_PATH "/org/umms"
#define RECORDING_PREFIX "/org/umms/recording"

struct umms_recorder {
	const struct umms_config *config;
	GDBusConnection *connection;
	UmmsDbusIface *iface;
	char **dirs;               /* where recordings may be written, absolute */
	GPtrArray *entries;        /* struct entry *, oldest first */
	unsigned next_id;
};

/* A recording and its D-Bus face. */
struct entry {
	struct umms_recorder *recorder;
	struct umms_recording *recording;
	char *path;
	UmmsDbusIface *iface;
	struct wl_listener changed;
};

/* ---- Recording1 ------------------------------------------------------------------- */

static void
recording_method(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct entry *e = data;
	if (strcmp(method, "Cancel") == 0) {
		umms_recording_cancel(e->recording);
		g_dbus_method_invocation_return_value(invocation, NULL);
		return;
	}
	g_dbus_method_invocation_return_error(invocation, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
		"no method %s", method);
}

static GVariant *
recording_property(void *data, const char *name, GError **error)
{
	struct entry *e = data;
	struct umms_recording *r = e->recording;
	if (strcmp(name, "Uri") == 0)
		return g_variant_new_string(r->uri);
	if (strcmp(name, "Start") == 0)
		return g_variant_new_int64(r->start_us);
	if (strcmp(name, "Duration") == 0)
		return g_variant_new_int64(r->duration_us);
	if (strcmp(name, "Destination") == 0)
		return g_variant_new_string(r->path);
	if (strcmp(name, "State") == 0)
		return g_variant_new_string(umms_recording_state_name(r->state));
	if (strcmp(name, "BytesWritten") == 0)
		return g_variant_new_uint64(r->bytes_written);
	if (strcmp(name, "Error") == 0)
		return g_variant_new_string(r->error ? r->error : "");
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops recording_ops = {
	.method_call = recording_method,
	.get_property = recording_property,
};

static void
on_recording_changed(struct wl_listener *listener, void *data)
{
	struct entry *e = wl_container_of(listener, e, changed);
	umms_dbus_iface_changed(e->iface);
}

static void
entry_free(struct entry *e)
{
	wl_list_remove(&e->changed.link);
	umms_dbus_iface_detach(e->iface);
	if (g_dbus_interface_skeleton_get_connection(G_DBUS_INTERFACE_SKELETON(e->iface)))
		g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(e->iface));
	g_object_unref(e->iface);
	umms_recording_destroy(e->recording);
	g_free(e->path);
	g_free(e);
}

/* ---- Recorder1 --------------------------------------------------------------------- */

static bool
parse_options(GVariant *options, int64_t *duration, GError **error)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;
	*duration = -1;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (strcmp(key, "duration") == 0 && g_variant_is_of_type(value, G_VARIANT_TYPE_INT64)) {
			*duration = g_variant_get_int64(value);
			if (*duration <= 0) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"duration %" G_GINT64_FORMAT ": more than 0 µs", *duration);
				return false;
			}
		} else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown option \"%s\" of type %s (duration: x)", key,
				g_variant_get_type_string(value));
			return false;
		}
	}
	return true;
}

static const char *
record(struct umms_recorder *rec, GVariant *params, GError **error)
{
	const char *uri, *destination;
	g_autoptr(GVariant) options = NULL;
	g_variant_get(params, "(&s&s@a{sv})", &uri, &destination, &options);
	int64_t duration;
	if (!parse_options(options, &duration, error))
		return NULL;
	/* An absolute path is a file. */
	g_autofree char *file_uri = g_path_is_absolute(uri) ? gst_filename_to_uri(uri, NULL) : NULL;
	if (file_uri)
		uri = file_uri;
	if (!gst_uri_is_valid(uri)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"\"%s\" is not a URI", uri);
		return NULL;
	}
	g_autofree char *protocol = gst_uri_get_protocol(uri);
	if (!gst_uri_protocol_is_supported(GST_URI_SRC, protocol)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"nothing here reads %s URIs", protocol);
		return NULL;
	}
	g_autofree char *target = umms_destination_resolve((const char *const *)rec->dirs,
		destination, error);
	if (!target)
		return NULL;
	unsigned id = ++rec->next_id;
	struct umms_recording *recording = umms_recording_start(id, uri, target, duration, error);
	if (!recording)
		return NULL;
	struct entry *e = g_new0(struct entry, 1);
	e->recorder = rec;
	e->recording = recording;
	e->path = g_strdup_printf(RECORDING_PREFIX "/%u", id);
	e->changed.notify = on_recording_changed;
	wl_signal_add(&recording->events.changed, &e->changed);
	e->iface = umms_dbus_iface_new(umms_recording1_interface_info(), &recording_ops, e);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(e->iface),
			rec->connection, e->path, error)) {
		entry_free(e);
		return NULL;
	}
	g_ptr_array_add(rec->entries, e);
	umms_dbus_iface_changed(rec->iface);
	return e->path;
}

static void
recorder_method(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_recorder *rec = data;
	GError *error = NULL;
	if (strcmp(method, "Record") == 0) {
		const char *path = record(rec, params, &error);
		if (path) {
			umms_dbus_iface_flush_changes(rec->iface);
			g_dbus_method_invocation_return_value(invocation,
				g_variant_new("(o)", path));
			return;
		}
	} else {
		g_set_error(&error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no method %s", method);
	}
	umms_dbus_return_error(invocation, error);
}

static GVariant *
recorder_property(void *data, const char *name, GError **error)
{
	struct umms_recorder *rec = data;
	if (strcmp(name, "Recordings") == 0) {
		GVariantBuilder b;
		g_variant_builder_init(&b, G_VARIANT_TYPE("ao"));
		for (guint i = 0; i < rec->entries->len; i++) {
			struct entry *e = rec->entries->pdata[i];
			g_variant_builder_add(&b, "o", e->path);
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

/* ---- life -------------------------------------------------------------------------- */

struct umms_recorder *
umms_recorder_create(const struct umms_config *config, GDBusConnection *connection,
	GError **error)
{
	struct umms_recorder *rec = g_new0(struct umms_recorder, 1);
	rec->config = config;
	rec->connection = g_object_ref(connection);
	rec->entries = g_ptr_array_new();
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
	rec->iface = umms_dbus_iface_new(umms_recorder1_interface_info(), &recorder_ops, rec);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(rec->iface), connection,
			RECORDER_PATH, error)) {
		umms_recorder_destroy(rec);
		return NULL;
	}
	return rec;
}

void
umms_recorder_destroy(struct umms_recorder *rec)
{
	if (!rec)
		return;
	for (guint i = 0; i < rec->entries->len; i++)
		entry_free(rec->entries->pdata[i]);
	g_ptr_array_unref(rec->entries);
	if (rec->iface) {
		umms_dbus_iface_detach(rec->iface);
		if (g_dbus_interface_skeleton_get_connection(G_DBUS_INTERFACE_SKELETON(rec->iface)))
			g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(rec->iface));
		g_object_unref(rec->iface);
	}
	g_strfreev(rec->dirs);
	g_object_unref(rec->connection);
	g_free(rec);
}
