/*
 * org.umms.Display1 over the KMS target (display.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <string.h>

#include "compositor.h"
#include "dbus-iface.h"
#include "display-private.h"
#include "error.h"
#include "frame.h"
#include "headless.h"
#include "kms.h"
#include "log.h"
#include "manager.h"
#include "player.h"
#include "resources-service.h"
#include "session.h"
#include "umms-dbus.h"
#include "video-server.h"

#define DISPLAY_PATH "/org/umms/display/0"

/* The frame rate of the shown player's video, 0 if unknown. */
static double
player_fps(struct umms_player *player)
{
	if (!player || !player->engine)
		return 0;
	const struct umms_media_info *info = &player->engine->info;
	int current = info->current[UMMS_TRACK_VIDEO];
	GPtrArray *tracks = info->tracks[UMMS_TRACK_VIDEO];
	if (current < 0 || !tracks || (guint)current >= tracks->len)
		return 0;
	const struct umms_track *track = g_ptr_array_index(tracks, current);
	return track->fps_n > 0 && track->fps_d > 0 ? (double)track->fps_n / track->fps_d : 0;
}

/* Refresh-rate matching follows the shown player's frame rate, and ends with it. */
static void
update_refresh(struct umms_display *display)
{
	double fps = display->match_refresh ? player_fps(display->player) : 0;
	if (fps == display->fps)
		return;
	display->fps = fps;
	umms_screen_match_refresh(display->target, fps);
	umms_dbus_iface_changed(display->iface);
}

static void
on_player_changed(struct wl_listener *listener, void *data)
{
	struct umms_display *display = wl_container_of(listener, display, changed);
	update_refresh(display);
}

static void
on_presented(void *data, struct umms_frame *frame, bool shown, int64_t when_ns)
{
	struct umms_display *display = data;
	/*
	 * Reported to the player shown now: with none shown nobody is told; a
	 * frame of the previous player still in flight at a switch (one or
	 * two) is counted for the new one.
	 */
	if (display->player)
		umms_player_report_display(display->player, shown,
			shown ? when_ns - frame->present_ns : 0);
}

/*
 * The overlay plane the video is on is held by its player in the resource
 * manager (org.umms.Resources1 Planes), for as long as it is there.
 */
static void
update_plane(struct umms_display *display)
{
	struct umms_resource_service *resources = umms_manager_get_resources(display->manager);
	struct umms_player *want = g_strcmp0(display->last_rung, "overlay") == 0 ?
		display->player : NULL;
	if (want == display->plane_holder)
		return;
	if (display->plane_holder)
		umms_resource_service_release_for(resources, display->plane_holder, "plane");
	display->plane_holder = NULL;
	if (!want)
		return;
	g_autoptr(GError) error = NULL;
	if (umms_resource_service_acquire_for(resources, display->player, "plane", &error))
		display->plane_holder = display->player;
	else
		umms_info("display: the video's plane is not counted: %s", error->message);
}

static void
on_frame(struct wl_listener *listener, void *data)
{
	struct umms_display *display = wl_container_of(listener, display, frame);
	g_autoptr(GError) error = NULL;
	/* Kept for the scene, should this video move there (display-videos.c). */
	struct umms_frame *before = display->last_frame;
	display->last_frame = umms_frame_ref(data);
	if (before)
		umms_frame_unref(before);
	if (!umms_target_show(display->target, data, &error))
		umms_warn("%s", error->message);
	/*
	 * Only what a frame can change (the video's path, the copies): a
	 * comparison of every property, planes included, on each frame is
	 * work for nothing.
	 */
	const char *rung = umms_screen_get_rung(display->target);
	uint64_t copies = umms_screen_get_copies(display->target);
	if (g_strcmp0(rung, display->last_rung) != 0 || copies != display->last_copies) {
		display->last_rung = rung;
		display->last_copies = copies;
		update_plane(display);
		umms_dbus_iface_changed(display->iface);
	}
}

/*
 * Parental control blocked the player (player.h umms_player_set_blocked):
 * the frame on screen goes, as when nothing is shown (show(NULL): the
 * screen's background, black on KMS), until a frame comes again.
 */
static void
on_player_blocked(struct wl_listener *listener, void *data)
{
	struct umms_display *display = wl_container_of(listener, display, blocked);
	if (!display->player->blocked)
		return;
	g_clear_pointer(&display->last_frame, umms_frame_unref);
	g_autoptr(GError) error = NULL;
	if (!umms_target_show(display->target, NULL, &error))
		umms_warn("%s", error->message);
}

void
display_unset_player(struct umms_display *display)
{
	if (!display->player)
		return;
	wl_list_remove(&display->blocked.link);
	wl_list_remove(&display->frame.link);
	wl_list_remove(&display->destroy.link);
	wl_list_remove(&display->changed.link);
	/* Its frames still wanted where the scene draws it. */
	if (!display_scene_has(display, display->player))
		umms_player_set_video_output(display->player, false, NULL, 0, NULL);
	g_clear_pointer(&display->last_frame, umms_frame_unref);
	display->player = NULL;
	display->last_rung = NULL;
	update_plane(display);
	g_clear_pointer(&display->player_path, g_free);
	g_autoptr(GError) error = NULL;
	if (!umms_target_show(display->target, NULL, &error))
		umms_warn("%s", error->message);
	update_refresh(display);
	umms_dbus_iface_changed(display->iface);
}

static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct umms_display *display = wl_container_of(listener, display, destroy);
	if (display->full == display->player)
		display->full = NULL;
	display_unset_player(display);
}

bool
display_show_player(struct umms_display *display, struct umms_player *player, GError **error)
{
	if (player == display->player)
		return true;
	display_unset_player(display);
	const char *path = umms_manager_player_path(display->manager, player);
	const uint32_t *formats;
	int n_formats = umms_screen_get_video_formats(display->target, &formats);
	/* The screen scales frames itself: at the picture's size. */
	umms_player_set_video_size(player, 0, 0);
	if (!umms_player_set_video_output(player, true, formats, (size_t)n_formats, error))
		return false;
	display->player = player;
	display->player_path = g_strdup(path);
	display->frame.notify = on_frame;
	wl_signal_add(&player->events.frame, &display->frame);
	display->destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &display->destroy);
	display->changed.notify = on_player_changed;
	wl_signal_add(&player->events.changed, &display->changed);
	display->blocked.notify = on_player_blocked;
	wl_signal_add(&player->events.blocked, &display->blocked);
	update_refresh(display);
	umms_player_redraw(player);
	umms_info("display: showing %s", path);
	umms_dbus_iface_changed(display->iface);
	return true;
}

/* ShowPlayer: @path full screen, under the UI ("/": none); placed videos stay. */
static bool
set_player(struct umms_display *display, const char *path, GError **error)
{
	struct umms_player *player = NULL;
	if (strcmp(path, "/") != 0) {
		player = umms_manager_find_player(display->manager, path);
		if (!player) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no player %s", path);
			return false;
		}
	}
	struct umms_player *before = display->full;
	display->full = player;
	if (display_videos_update(display, error))
		return true;
	/* Not shown: what was there before stays. */
	display->full = before;
	display_videos_update(display, NULL);
	return false;
}

/* ---- D-Bus ------------------------------------------------------------------ */

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_display *display = data;
	GError *error = NULL;
	/* Every method takes a string or object path first. */
	g_autoptr(GVariant) child = g_variant_get_child_value(params, 0);
	const char *arg = g_variant_get_string(child, NULL);
	bool ok;
	if (strcmp(method, "PlacePlayer") == 0)
		ok = display_place_from_dbus(display, params, &error);
	else if (strcmp(method, "UnplacePlayer") == 0)
		ok = display_unplace_from_dbus(display, arg, &error);
	else if (strcmp(method, "ShowPlayer") == 0)
		ok = set_player(display, arg, &error);
	else if (strcmp(method, "SetMode") == 0)
		ok = umms_screen_set_mode(display->target, arg, &error);
	else if (strcmp(method, "Capture") == 0)
		ok = umms_screen_capture(display->target, arg, &error);
	else {
		ok = false;
		g_set_error(&error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no method %s", method);
	}
	umms_dbus_iface_changed(display->iface);
	umms_dbus_iface_flush_changes(display->iface);
	if (ok)
		g_dbus_method_invocation_return_value(invocation, NULL);
	else
		umms_dbus_return_error(invocation, error);
}

static GVariant *
get_property(void *data, const char *name, GError **error)
{
	struct umms_display *display = data;
	struct umms_target *t = display->target;
	if (strcmp(name, "Modes") == 0) {
		g_auto(GStrv) modes = umms_screen_list_modes(t);
		return g_variant_new_strv((const char *const *)modes, -1);
	}
	if (strcmp(name, "CurrentMode") == 0)
		return g_variant_new_take_string(umms_screen_current_mode(t));
	if (strcmp(name, "Margins") == 0) {
		int m[4];
		umms_screen_get_margins_px(t, m);
		return g_variant_new("(iiii)", m[0], m[1], m[2], m[3]);
	}
	if (strcmp(name, "Zoom") == 0)
		return g_variant_new_string(umms_screen_zoom_name(umms_screen_get_zoom(t)));
	if (strcmp(name, "Player") == 0)
		return g_variant_new_object_path(display->player_path ? display->player_path : "/");
	if (strcmp(name, "VideoPath") == 0)
		return g_variant_new_string(umms_screen_get_rung(t));
	if (strcmp(name, "Planes") == 0)
		return umms_screen_describe_planes(t);
	if (strcmp(name, "MatchRefresh") == 0)
		return g_variant_new_boolean(display->match_refresh);
	if (strcmp(name, "Copies") == 0)
		return g_variant_new_uint64(umms_screen_get_copies(t));
	if (strcmp(name, "RenderStats") == 0) {
		struct umms_screen_stats st;
		umms_screen_get_stats(t, &st);
		GVariantDict dict;
		g_variant_dict_init(&dict, NULL);
		g_variant_dict_insert(&dict, "renderer", "s", st.renderer);
		g_variant_dict_insert(&dict, "redraws", "t", st.redraws);
		g_variant_dict_insert(&dict, "uploads", "t", st.uploads);
		g_variant_dict_insert(&dict, "upload-bytes", "t", st.upload_bytes);
		g_variant_dict_insert(&dict, "damaged-pixels", "t", st.damaged_pixels);
		g_variant_dict_insert(&dict, "subpictures", "t", st.subpictures);
		return g_variant_dict_end(&dict);
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no property %s", name);
	return NULL;
}

static bool
set_property(void *data, const char *sender, const char *name, GVariant *value,
	GError **error)
{
	struct umms_display *display = data;
	if (strcmp(name, "Zoom") == 0) {
		enum umms_layout_scale zoom;
		if (!umms_screen_zoom_parse(g_variant_get_string(value, NULL), &zoom, error))
			return false;
		umms_screen_set_zoom(display->target, zoom);
	} else if (strcmp(name, "MatchRefresh") == 0) {
		display->match_refresh = g_variant_get_boolean(value);
		update_refresh(display);
	} else if (strcmp(name, "Margins") == 0) {
		struct umms_screen_margins m = { 0 };
		g_variant_get(value, "(iiii)", &m.left, &m.top, &m.right, &m.bottom);
		if (!umms_screen_check_margins(display->target, &m, error))
			return false;
		umms_screen_set_margins(display->target, &m);
	} else {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "%s is read-only", name);
		return false;
	}
	umms_dbus_iface_changed(display->iface);
	return true;
}

static const struct umms_dbus_iface_ops display_ops = {
	.method_call = method_call,
	.get_property = get_property,
	.set_property = set_property,
};

/* ---- life ------------------------------------------------------------------- */

static int
session_open(void *data, const char *path, GError **error)
{
	return umms_session_open_device(data, path, error);
}

static void
session_close(void *data, int fd)
{
	umms_session_close_device(data, fd);
}

static void
on_session_active(struct wl_listener *listener, void *data)
{
	struct umms_display *display = wl_container_of(listener, display, active);
	bool active = *(bool *)data;
	umms_info("display: %s", active ? "the seat is back: showing again" :
		"the seat went to another session: not showing until it is back");
	if (display->target)
		umms_kms_output_set_active(display->target, active);
}

static unsigned
count_overlays(struct umms_target *target)
{
	g_autoptr(GVariant) planes = umms_screen_describe_planes(target);
	unsigned overlays = 0;
	for (gsize i = 0; i < g_variant_n_children(planes); i++) {
		g_autoptr(GVariant) plane = g_variant_get_child_value(planes, i);
		const char *type = NULL;
		if (g_variant_lookup(plane, "type", "&s", &type) && strcmp(type, "overlay") == 0)
			overlays++;
	}
	return overlays;
}

/* The KMS screen, its devices opened in a session (libseat or directly). */
static bool
open_kms(struct umms_display *display, const struct umms_config *config,
	const struct umms_screen_margins *margins, enum umms_layout_scale zoom, GError **error)
{
	struct umms_kms_config kms = {
		.device = config->display.drm_device,
		.connector = config->display.connector,
		.mode = config->display.mode,
		.margins = *margins,
		.zoom = zoom,
		.renderer = config->display.renderer,
	};
	struct umms_session_config session = { .mode = config->display.session };
	display->session = umms_session_create(&session, error);
	if (!display->session)
		return false;
	display->active.notify = on_session_active;
	wl_signal_add(&display->session->events.active, &display->active);
	kms.opener = (struct umms_kms_opener){ session_open, session_close, display->session };
	display->target = umms_kms_output_create(&kms, error);
	return display->target != NULL;
}

struct umms_display *
umms_display_create(const struct umms_config *config, struct umms_manager *manager,
	GDBusConnection *connection, struct umms_video_server *video, GError **error)
{
	struct umms_screen_margins margins = { 0 };
	enum umms_layout_scale zoom = UMMS_LAYOUT_SCALE_LETTERBOX;
	if (config->display.margins &&
			!umms_screen_margins_parse(config->display.margins, &margins, error))
		return NULL;
	if (config->display.zoom && !umms_screen_zoom_parse(config->display.zoom, &zoom, error))
		return NULL;
	struct umms_display *display = g_new0(struct umms_display, 1);
	display->manager = manager;
	wl_list_init(&display->scene_videos);
	display->connection = g_object_ref(connection);
	if (config->display.headless) {
		struct umms_headless_config hc = {
			.mode = config->display.mode,
			.renderer = config->display.renderer,
			.margins = margins,
			.zoom = zoom,
		};
		display->target = umms_headless_create(&hc, error);
		if (!display->target)
			goto fail;
	} else if (!open_kms(display, config, &margins, zoom, error)) {
		goto fail;
	}
	display->match_refresh = config->display.match_refresh;
	/* Overlay planes are a resource players hold (Resources1 Planes). */
	umms_resource_service_set_planes(umms_manager_get_resources(manager),
		count_overlays(display->target));
	display->target->presented = on_presented;
	display->target->presented_data = display;
	if (config->display.compositor && video) {
		struct umms_compositor_config cc = {
			.input = config->display.input,
			.xkb_layout = config->display.keyboard_layout,
			.session = display->session,
		};
		display->compositor = umms_compositor_create(umms_video_server_get_display(video),
			display->target, &cc, &display_compositor_hooks, display, error);
		if (!display->compositor)
			goto fail;
		display->video = video;
		umms_video_server_set_compositor(video, display->compositor);
		umms_info("display: Wayland clients are served on %s",
			umms_video_server_socket(video));
	}
	display->iface = umms_dbus_iface_export(umms_display1_interface_info(), &display_ops,
		display, connection, DISPLAY_PATH, error);
	if (!display->iface)
		goto fail;
	return display;
fail:
	umms_display_destroy(display);
	return NULL;
}

void
umms_display_destroy(struct umms_display *display)
{
	if (!display)
		return;
	if (display->video)
		umms_video_server_set_compositor(display->video, NULL);
	umms_compositor_destroy(display->compositor);
	display->compositor = NULL;
	display_videos_finish(display);
	display->placed = false;
	display_unset_player(display);
	umms_dbus_iface_unexport(&display->iface);
	umms_target_destroy(display->target);
	if (display->session) {
		wl_list_remove(&display->active.link);
		umms_session_destroy(display->session);
	}
	g_object_unref(display->connection);
	g_free(display);
}
