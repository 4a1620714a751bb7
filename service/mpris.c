#define UMMS_LOG_SCOPE UMMS_SCOPE_MPRIS

#include <string.h>

#include "dbus-guard.h"
#include "dbus-iface.h"
#include "error.h"
#include "log.h"
#include "mpris-dbus.h"
#include "mpris.h"
#include "player-dbus.h"

#define MPRIS_PATH "/org/mpris/MediaPlayer2"
#define MAX_RATE 64.0

struct umms_mpris {
	struct umms_player *player;
	char *player_path;
	char *bus_name;
	GCancellable *cancellable;
	GDBusConnection *connection;
	struct umms_dbus_guard *guard; /* sizes of arguments only */
	guint owner_id;
	UmmsDbusIface *root;
	UmmsDbusIface *control;
	struct wl_listener changed, seeked;
};

static const char *const uri_schemes[] = {
	"file", "http", "https", "rtsp", "rtp", "udp", NULL,
};

static const char *const mime_types[] = {
	"video/mp4", "video/x-matroska", "video/webm", "video/mp2t", "video/ogg",
	"video/quicktime", "audio/mpeg", "audio/ogg", "audio/flac", "audio/x-wav", NULL,
};

static void
root_method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_mpris *mpris = data;
	if (strcmp(method, "Quit") == 0)
		umms_player_release(mpris->player);
	/* Raise: there is no window to raise. */
	g_dbus_method_invocation_return_value(invocation, NULL);
}

static GVariant *
root_get_property(void *data, const char *name, GError **error)
{
	struct umms_mpris *mpris = data;
	if (strcmp(name, "CanQuit") == 0)
		return g_variant_new_boolean(TRUE);
	if (strcmp(name, "CanRaise") == 0 || strcmp(name, "HasTrackList") == 0)
		return g_variant_new_boolean(FALSE);
	if (strcmp(name, "Identity") == 0)
		return g_variant_new_take_string(g_strdup_printf("umms player %u", mpris->player->id));
	if (strcmp(name, "SupportedUriSchemes") == 0)
		return g_variant_new_strv(uri_schemes, -1);
	if (strcmp(name, "SupportedMimeTypes") == 0)
		return g_variant_new_strv(mime_types, -1);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops root_ops = {
	.method_call = root_method_call,
	.get_property = root_get_property,
};

static char *
track_id(struct umms_mpris *mpris)
{
	return g_strdup_printf("%s/track/%u", mpris->player_path, mpris->player->track_serial);
}

/* OpenUri: open, then play. */
static void
opened_cb(const GError *error, void *data)
{
	GDBusMethodInvocation *invocation = data;
	struct umms_mpris *mpris = g_object_get_data(G_OBJECT(invocation), "umms-mpris");
	GError *play_error = NULL;
	if (!error && mpris &&
			umms_player_play(mpris->player, umms_player_dbus_reply, invocation, &play_error))
		return;
	umms_player_dbus_reply(error ? error : play_error, invocation);
	g_clear_error(&play_error);
}

static void
control_method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_mpris *mpris = data;
	struct umms_player *player = mpris->player;
	umms_player_done_fn done = umms_player_dbus_reply;
	GError *error = NULL;
	bool ok = true;

	if (strcmp(method, "Play") == 0) {
		ok = umms_player_play(player, done, invocation, &error);
	} else if (strcmp(method, "Pause") == 0) {
		ok = umms_player_pause(player, done, invocation, &error);
	} else if (strcmp(method, "PlayPause") == 0) {
		ok = player->state == UMMS_PLAYER_PLAYING ?
			umms_player_pause(player, done, invocation, &error) :
			umms_player_play(player, done, invocation, &error);
	} else if (strcmp(method, "Stop") == 0) {
		ok = umms_player_stop(player, done, invocation, &error);
	} else if (strcmp(method, "Seek") == 0) {
		gint64 offset;
		g_variant_get(params, "(x)", &offset);
		ok = umms_player_seek(player, offset, done, invocation, &error);
	} else if (strcmp(method, "SetPosition") == 0) {
		const char *track;
		gint64 position;
		g_variant_get(params, "(&ox)", &track, &position);
		g_autofree char *current = track_id(mpris);
		/* The specification asks to ignore positions for another track. */
		if (strcmp(track, current) != 0)
			g_dbus_method_invocation_return_value(invocation, NULL);
		else
			ok = umms_player_set_position(player, position, done, invocation, &error);
	} else if (strcmp(method, "OpenUri") == 0) {
		const char *uri;
		g_variant_get(params, "(&s)", &uri);
		g_object_set_data(G_OBJECT(invocation), "umms-mpris", mpris);
		ok = umms_player_set_uri(player, uri, opened_cb, invocation, &error);
	} else {
		/* Next, Previous: a player holds one media. */
		g_dbus_method_invocation_return_value(invocation, NULL);
	}
	if (!ok)
		umms_dbus_return_error(invocation, error);
}

static void
add_list(GVariantDict *dict, const char *key, GVariant *metadata, const char *tag)
{
	const char *value;
	if (g_variant_lookup(metadata, tag, "&s", &value)) {
		const char *list[] = { value, NULL };
		g_variant_dict_insert_value(dict, key, g_variant_new_strv(list, -1));
	}
}

static GVariant *
metadata_variant(struct umms_mpris *mpris)
{
	struct umms_player *player = mpris->player;
	const struct umms_media_info *info = umms_player_get_info(player);
	GVariantDict dict;
	g_variant_dict_init(&dict, NULL);
	g_autofree char *id = track_id(mpris);
	g_variant_dict_insert(&dict, "mpris:trackid", "o", id);
	if (!player->uri)
		return g_variant_dict_end(&dict);
	if (info->duration >= 0)
		g_variant_dict_insert(&dict, "mpris:length", "x", info->duration);
	g_variant_dict_insert(&dict, "xesam:url", "s", player->uri);
	const char *text;
	if (g_variant_lookup(info->metadata, "title", "&s", &text)) {
		g_variant_dict_insert(&dict, "xesam:title", "s", text);
	} else {
		g_autofree char *base = g_path_get_basename(player->uri);
		g_autofree char *unescaped = g_uri_unescape_string(base, NULL);
		g_variant_dict_insert(&dict, "xesam:title", "s", unescaped ? unescaped : base);
	}
	if (g_variant_lookup(info->metadata, "album", "&s", &text))
		g_variant_dict_insert(&dict, "xesam:album", "s", text);
	add_list(&dict, "xesam:artist", info->metadata, "artist");
	add_list(&dict, "xesam:albumArtist", info->metadata, "album-artist");
	add_list(&dict, "xesam:genre", info->metadata, "genre");
	add_list(&dict, "xesam:comment", info->metadata, "comment");
	guint32 number;
	if (g_variant_lookup(info->metadata, "track-number", "u", &number))
		g_variant_dict_insert(&dict, "xesam:trackNumber", "i", (gint32)number);
	return g_variant_dict_end(&dict);
}

static GVariant *
control_get_property(void *data, const char *name, GError **error)
{
	struct umms_mpris *mpris = data;
	struct umms_player *player = mpris->player;
	bool open = player->uri != NULL;

	if (strcmp(name, "PlaybackStatus") == 0) {
		static const char *const status[] = {
			[UMMS_PLAYER_STOPPED] = "Stopped",
			[UMMS_PLAYER_PAUSED] = "Paused",
			[UMMS_PLAYER_PLAYING] = "Playing",
		};
		return g_variant_new_string(status[player->state]);
	}
	if (strcmp(name, "Rate") == 0)
		return g_variant_new_double(player->rate);
	if (strcmp(name, "Metadata") == 0)
		return metadata_variant(mpris);
	if (strcmp(name, "Volume") == 0)
		return g_variant_new_double(player->volume);
	if (strcmp(name, "Position") == 0)
		return g_variant_new_int64(umms_player_get_position(player));
	if (strcmp(name, "MinimumRate") == 0)
		return g_variant_new_double(-MAX_RATE);
	if (strcmp(name, "MaximumRate") == 0)
		return g_variant_new_double(MAX_RATE);
	if (strcmp(name, "CanGoNext") == 0 || strcmp(name, "CanGoPrevious") == 0)
		return g_variant_new_boolean(FALSE);
	if (strcmp(name, "CanPlay") == 0 || strcmp(name, "CanPause") == 0)
		return g_variant_new_boolean(open);
	if (strcmp(name, "CanSeek") == 0)
		return g_variant_new_boolean(umms_player_seekable(player));
	if (strcmp(name, "CanControl") == 0)
		return g_variant_new_boolean(TRUE);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
	return NULL;
}

static bool
control_set_property(void *data, const char *sender, const char *name, GVariant *value,
	GError **error)
{
	struct umms_mpris *mpris = data;
	if (strcmp(name, "Rate") == 0)
		return umms_player_set_rate(mpris->player, g_variant_get_double(value), error);
	if (strcmp(name, "Volume") == 0) {
		/* MPRIS clamps where org.umms.Player1 refuses. */
		double volume = CLAMP(g_variant_get_double(value), 0.0, 1.0);
		return umms_player_set_volume(mpris->player, volume, error);
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "property %s is read-only", name);
	return false;
}

static const struct umms_dbus_iface_ops control_ops = {
	.method_call = control_method_call,
	.get_property = control_get_property,
	.set_property = control_set_property,
};

static void
on_changed(struct wl_listener *listener, void *data)
{
	struct umms_mpris *mpris = wl_container_of(listener, mpris, changed);
	umms_dbus_iface_changed(mpris->control);
}

static void
on_seeked(struct wl_listener *listener, void *data)
{
	struct umms_mpris *mpris = wl_container_of(listener, mpris, seeked);
	umms_dbus_iface_emit(mpris->control, "Seeked", g_variant_new("(x)", *(const int64_t *)data));
}

static void
connected_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(GError) error = NULL;
	GDBusConnection *connection = g_dbus_connection_new_for_address_finish(result, &error);
	if (!connection) {
		if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			umms_warn("MPRIS for player %u: no bus connection: %s",
				((struct umms_mpris *)data)->player->id, error->message);
		return;
	}
	struct umms_mpris *mpris = data;
	mpris->connection = connection;
	GDBusInterfaceInfo *const none[] = { NULL };
	mpris->guard = umms_dbus_guard_install(connection, none, mpris->player->config);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(mpris->root),
			connection, MPRIS_PATH, &error) ||
			!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(mpris->control),
			connection, MPRIS_PATH, &error)) {
		umms_warn("MPRIS for player %u: %s", mpris->player->id, error->message);
		return;
	}
	mpris->owner_id = g_bus_own_name_on_connection(connection, mpris->bus_name,
		G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, NULL, NULL, NULL, NULL);
	umms_debug("player %u is %s", mpris->player->id, mpris->bus_name);
}

struct umms_mpris *
umms_mpris_create(struct umms_player *player, const char *player_path, const char *bus_address)
{
	struct umms_mpris *mpris = g_new0(struct umms_mpris, 1);
	mpris->player = player;
	mpris->player_path = g_strdup(player_path);
	mpris->bus_name = g_strdup_printf("org.mpris.MediaPlayer2.umms.player%u", player->id);
	mpris->root = umms_dbus_iface_new(mpris_media_player2_interface_info(), &root_ops, mpris);
	mpris->control = umms_dbus_iface_new(mpris_media_player2_player_interface_info(),
		&control_ops, mpris);
	mpris->changed.notify = on_changed;
	wl_signal_add(&player->events.changed, &mpris->changed);
	mpris->seeked.notify = on_seeked;
	wl_signal_add(&player->events.seeked, &mpris->seeked);

	/* The callback outlives nothing: destroy cancels it first. */
	mpris->cancellable = g_cancellable_new();
	g_dbus_connection_new_for_address(bus_address,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
		NULL, mpris->cancellable, connected_cb, mpris);
	return mpris;
}

static gboolean
close_cb(gpointer data)
{
	g_dbus_connection_close(data, NULL, NULL, NULL);
	return G_SOURCE_REMOVE;
}

void
umms_mpris_destroy(struct umms_mpris *mpris)
{
	if (!mpris)
		return;
	g_cancellable_cancel(mpris->cancellable);
	wl_list_remove(&mpris->changed.link);
	wl_list_remove(&mpris->seeked.link);
	if (mpris->owner_id)
		g_bus_unown_name(mpris->owner_id);
	/* Unexported a little later, when calls already queued have run. */
	umms_dbus_iface_retire(mpris->root, NULL, NULL);
	umms_dbus_iface_retire(mpris->control, NULL, NULL);
	if (mpris->connection) {
		umms_dbus_guard_remove(mpris->guard);
		/* After those calls are answered (NotFound), not before. */
		GSource *idle = g_idle_source_new();
		g_source_set_priority(idle, G_PRIORITY_LOW);
		g_source_set_callback(idle, close_cb, mpris->connection, g_object_unref);
		g_source_attach(idle, g_main_context_get_thread_default());
		g_source_unref(idle);
	}
	g_object_unref(mpris->cancellable);
	g_free(mpris->player_path);
	g_free(mpris->bus_name);
	g_free(mpris);
}
