#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-iface.h"
#include "engine-proxy.h"
#include "error.h"
#include "log.h"
#include "player-dbus.h"
#include "timeshift.h"
#include "umms-dbus.h"

struct umms_player_dbus {
	struct umms_player *player;
	GDBusObjectManagerServer *manager;
	GDBusObjectSkeleton *object;
	UmmsDbusIface *iface;
	struct wl_listener changed, seeked, eos, error, resource, cue, blocked;
};

void
umms_player_dbus_reply(const GError *error, void *data)
{
	GDBusMethodInvocation *invocation = data;
	if (error)
		umms_dbus_return_error(invocation, g_error_copy(error));
	else
		g_dbus_method_invocation_return_value(invocation, NULL);
}

/* Replies after the state the request produced has been signalled. */
static void
reply_after_changes(const GError *error, void *data)
{
	GDBusMethodInvocation *invocation = data;
	GDBusInterfaceSkeleton *skeleton = G_DBUS_INTERFACE_SKELETON(
		g_object_get_data(G_OBJECT(invocation), "umms-iface"));
	if (skeleton)
		umms_dbus_iface_flush_changes(UMMS_DBUS_IFACE(skeleton));
	umms_player_dbus_reply(error, invocation);
}

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_player_dbus *dbus = data;
	struct umms_player *player = dbus->player;
	GError *error = NULL;
	bool ok;

	/* The reply waits for the iface to flush; keep it reachable. */
	g_object_set_data_full(G_OBJECT(invocation), "umms-iface",
		g_object_ref(dbus->iface), g_object_unref);
	umms_player_done_fn done = reply_after_changes;

	if (strcmp(method, "SetUri") == 0) {
		const char *uri;
		g_variant_get(params, "(&s)", &uri);
		ok = umms_player_set_uri(player, uri, done, invocation, &error);
	} else if (strcmp(method, "Play") == 0) {
		ok = umms_player_play(player, done, invocation, &error);
	} else if (strcmp(method, "Pause") == 0) {
		ok = umms_player_pause(player, done, invocation, &error);
	} else if (strcmp(method, "Stop") == 0) {
		ok = umms_player_stop(player, done, invocation, &error);
	} else if (strcmp(method, "Seek") == 0) {
		gint64 offset;
		g_variant_get(params, "(x)", &offset);
		ok = umms_player_seek(player, offset, done, invocation, &error);
	} else if (strcmp(method, "SetPosition") == 0) {
		gint64 position;
		g_variant_get(params, "(x)", &position);
		ok = umms_player_set_position(player, position, done, invocation, &error);
	} else if (strcmp(method, "StepFrame") == 0) {
		gint32 frames;
		g_variant_get(params, "(i)", &frames);
		ok = umms_player_step(player, frames, done, invocation, &error);
	} else if (strcmp(method, "SelectTrack") == 0) {
		const char *kind;
		gint32 index;
		g_variant_get(params, "(&si)", &kind, &index);
		ok = umms_player_select_track(player, kind, index, done, invocation, &error);
	} else if (strcmp(method, "SetSubtitleUri") == 0) {
		const char *uri;
		g_variant_get(params, "(&s)", &uri);
		ok = umms_player_set_subtitle_uri(player, uri, done, invocation, &error);
	} else {
		/* The introspection data lets nothing else through. */
		g_assert_not_reached();
	}
	if (!ok)
		umms_dbus_return_error(invocation, error);
}

static GVariant *
stats_variant(struct umms_player *player)
{
	struct umms_engine_stats stats;
	umms_player_get_stats(player, &stats);
	GVariantDict dict;
	g_variant_dict_init(&dict, NULL);
	g_variant_dict_insert(&dict, "frames-decoded", "t", stats.decoded);
	g_variant_dict_insert(&dict, "frames-presented", "t", stats.presented);
	g_variant_dict_insert(&dict, "frames-dropped", "t", stats.dropped);
	g_variant_dict_insert(&dict, "copies", "t", stats.copies);
	g_variant_dict_insert(&dict, "frames-dmabuf", "t", stats.dmabuf);
	g_variant_dict_insert(&dict, "frames-displayed", "t", player->frames_displayed);
	g_variant_dict_insert(&dict, "frames-discarded", "t", player->frames_discarded);
	g_variant_dict_insert(&dict, "display-latency", "x", player->display_latency_ns / 1000);
	g_variant_dict_insert(&dict, "engine-pid", "t",
		(guint64)umms_engine_proxy_pid(player->engine));
	g_variant_dict_insert(&dict, "timeshift-pid", "t",
		(guint64)umms_timeshift_engine_pid(player->timeshift));
	g_variant_dict_insert(&dict, "audio-buffers", "t", stats.audio_buffers);
	g_variant_dict_insert(&dict, "audio-bytes", "t", stats.audio_bytes);
	return g_variant_dict_end(&dict);
}

static GVariant *
get_property(void *data, const char *name, GError **error)
{
	struct umms_player_dbus *dbus = data;
	struct umms_player *player = dbus->player;
	const struct umms_media_info *info = umms_player_get_info(player);

	if (strcmp(name, "Uri") == 0)
		return g_variant_new_string(player->uri ? player->uri : "");
	if (strcmp(name, "State") == 0)
		return g_variant_new_string(umms_player_state_name(player->state));
	if (strcmp(name, "Position") == 0)
		return g_variant_new_int64(umms_player_get_position(player));
	if (strcmp(name, "Duration") == 0)
		return g_variant_new_int64(info->duration);
	if (strcmp(name, "Rate") == 0)
		return g_variant_new_double(player->rate);
	if (strcmp(name, "Volume") == 0)
		return g_variant_new_double(player->volume);
	if (strcmp(name, "Mute") == 0)
		return g_variant_new_boolean(player->mute);
	if (strcmp(name, "Seekable") == 0)
		return g_variant_new_boolean(umms_player_seekable(player));
	if (strcmp(name, "IsLive") == 0)
		return g_variant_new_boolean(info->live || umms_timeshift_enabled(player->timeshift));
	if (strcmp(name, "HasVideo") == 0)
		return g_variant_new_boolean(info->tracks[UMMS_TRACK_VIDEO]->len > 0);
	if (strcmp(name, "HasAudio") == 0)
		return g_variant_new_boolean(info->tracks[UMMS_TRACK_AUDIO]->len > 0);
	if (strcmp(name, "CanFullscreen") == 0)
		return g_variant_new_boolean(umms_player_has_video(player));
	if (strcmp(name, "Container") == 0)
		return g_variant_new_string(info->container ? info->container : "");
	if (strcmp(name, "VideoTracks") == 0)
		return umms_media_info_tracks_variant(info, UMMS_TRACK_VIDEO);
	if (strcmp(name, "AudioTracks") == 0)
		return umms_media_info_tracks_variant(info, UMMS_TRACK_AUDIO);
	if (strcmp(name, "SubtitleTracks") == 0)
		return umms_media_info_tracks_variant(info, UMMS_TRACK_SUBTITLE);
	if (strcmp(name, "CurrentVideo") == 0)
		return g_variant_new_int32(info->current[UMMS_TRACK_VIDEO]);
	if (strcmp(name, "CurrentAudio") == 0)
		return g_variant_new_int32(info->current[UMMS_TRACK_AUDIO]);
	if (strcmp(name, "CurrentSubtitle") == 0)
		return g_variant_new_int32(info->current[UMMS_TRACK_SUBTITLE]);
	if (strcmp(name, "BufferingPercent") == 0)
		return g_variant_new_int32(info->buffering);
	if (strcmp(name, "Metadata") == 0)
		return g_variant_ref(info->metadata);
	if (strcmp(name, "Decoder") == 0)
		return g_variant_new_take_string(umms_player_describe_decoder(player));
	if (strcmp(name, "Stats") == 0)
		return stats_variant(player);
	if (strcmp(name, "Blocked") == 0)
		return g_variant_new_boolean(player->blocked);
	if (strcmp(name, "BlockReason") == 0)
		return g_variant_new_string(player->block_reason ? player->block_reason : "");
	if (strcmp(name, "BlockRating") == 0)
		return g_variant_new_string(player->block_rating ? player->block_rating : "");
	if (strcmp(name, "Priority") == 0)
		return g_variant_new_string(umms_priority_name(player->priority));
	if (strcmp(name, "Attended") == 0)
		return g_variant_new_boolean(player->attended);
	if (strcmp(name, "Engine") == 0)
		return g_variant_new_string(umms_player_engine_name(player));
	if (strcmp(name, "TimeshiftEnabled") == 0)
		return g_variant_new_boolean(umms_timeshift_enabled(player->timeshift));
	if (strcmp(name, "SubtitleDelay") == 0)
		return g_variant_new_int64(player->subtitle_delay);
	if (strcmp(name, "TimeshiftWindow") == 0) {
		int64_t start = -1, end = -1;
		if (!umms_timeshift_get_window(player->timeshift, &start, &end))
			start = end = -1;
		return g_variant_new("(xx)", (gint64)start, (gint64)end);
	}

	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
	return NULL;
}

static bool
set_property(void *data, const char *sender, const char *name, GVariant *value,
	GError **error)
{
	struct umms_player_dbus *dbus = data;
	if (strcmp(name, "Rate") == 0)
		return umms_player_set_rate(dbus->player, g_variant_get_double(value), error);
	if (strcmp(name, "Volume") == 0)
		return umms_player_set_volume(dbus->player, g_variant_get_double(value), error);
	if (strcmp(name, "Mute") == 0) {
		umms_player_set_mute(dbus->player, g_variant_get_boolean(value));
		return true;
	}
	if (strcmp(name, "TimeshiftEnabled") == 0)
		return umms_timeshift_set(dbus->player->timeshift, g_variant_get_boolean(value), error);
	if (strcmp(name, "SubtitleDelay") == 0)
		return umms_player_set_subtitle_delay(dbus->player, g_variant_get_int64(value),
			error);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "property %s is read-only", name);
	return false;
}

static const struct umms_dbus_iface_ops player_ops = {
	.method_call = method_call,
	.get_property = get_property,
	.set_property = set_property,
};

static void
on_changed(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, changed);
	umms_dbus_iface_changed(dbus->iface);
}

static void
on_seeked(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, seeked);
	const int64_t *position = data;
	umms_dbus_iface_emit(dbus->iface, "Seeked", g_variant_new("(x)", *position));
}

static void
on_eos(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, eos);
	umms_dbus_iface_emit(dbus->iface, "Eos", NULL);
}

static void
on_error(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, error);
	const GError *error = data;
	umms_dbus_iface_emit(dbus->iface, "Error", g_variant_new("(ss)",
		umms_error_dbus_name_of(error), error->message));
}

static void
on_resource(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, resource);
	const struct umms_player_resource_event *event = data;
	umms_dbus_iface_emit(dbus->iface, event->lost ? "ResourceLost" : "ResourceRestored",
		g_variant_new("(s)", event->kind));
	umms_dbus_iface_changed(dbus->iface);
}

static void
on_blocked(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, blocked);
	struct umms_player *player = dbus->player;
	if (player->blocked)
		umms_dbus_iface_emit(dbus->iface, "ContentBlocked", g_variant_new("(ss)",
			player->block_reason, player->block_rating ? player->block_rating : ""));
	else
		umms_dbus_iface_emit(dbus->iface, "ContentAllowed", NULL);
}

static void
on_cue(struct wl_listener *listener, void *data)
{
	struct umms_player_dbus *dbus = wl_container_of(listener, dbus, cue);
	const struct umms_subtitle_cue *cue = data;
	umms_dbus_iface_emit(dbus->iface, "SubtitleCue", g_variant_new("(xxsss)", cue->start,
		cue->end, cue->text, cue->markup, cue->format));
}

struct umms_player_dbus *
umms_player_dbus_create(struct umms_player *player, GDBusObjectManagerServer *manager,
	const char *path)
{
	struct umms_player_dbus *dbus = g_new0(struct umms_player_dbus, 1);
	dbus->player = player;
	dbus->manager = g_object_ref(manager);
	dbus->iface = umms_dbus_iface_new(umms_player1_interface_info(), &player_ops, dbus);
	dbus->object = g_dbus_object_skeleton_new(path);
	g_dbus_object_skeleton_add_interface(dbus->object, G_DBUS_INTERFACE_SKELETON(dbus->iface));

	dbus->changed.notify = on_changed;
	wl_signal_add(&player->events.changed, &dbus->changed);
	dbus->seeked.notify = on_seeked;
	wl_signal_add(&player->events.seeked, &dbus->seeked);
	dbus->eos.notify = on_eos;
	wl_signal_add(&player->events.eos, &dbus->eos);
	dbus->error.notify = on_error;
	wl_signal_add(&player->events.error, &dbus->error);
	dbus->resource.notify = on_resource;
	wl_signal_add(&player->events.resource, &dbus->resource);
	dbus->cue.notify = on_cue;
	wl_signal_add(&player->events.subtitle_cue, &dbus->cue);
	dbus->blocked.notify = on_blocked;
	wl_signal_add(&player->events.blocked, &dbus->blocked);

	g_dbus_object_manager_server_export(manager, dbus->object);
	return dbus;
}

void
umms_player_dbus_destroy(struct umms_player_dbus *dbus)
{
	if (!dbus)
		return;
	wl_list_remove(&dbus->changed.link);
	wl_list_remove(&dbus->seeked.link);
	wl_list_remove(&dbus->eos.link);
	wl_list_remove(&dbus->resource.link);
	wl_list_remove(&dbus->cue.link);
	wl_list_remove(&dbus->blocked.link);
	wl_list_remove(&dbus->error.link);
	umms_dbus_iface_retire(dbus->iface, dbus->manager,
		g_dbus_object_get_object_path(G_DBUS_OBJECT(dbus->object)));
	g_object_unref(dbus->object);
	g_object_unref(dbus->manager);
	g_free(dbus);
}
