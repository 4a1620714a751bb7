/*
 * The videos placed on ummsd's screen (display-private.h): from the
 * compositor's list (compositor.h), one is shown by the screen itself
 * (umms_screen_place_video: a KMS plane where it can) and the compositor's
 * scene draws the others with the UI, in their stacking order, from the
 * newest frame of each player kept here. Display1.PlacePlayer and
 * umms_display_place go in through umms_compositor_place_in_toplevel, the
 * same path as umms_video_player_v1.place.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "display-private.h"
#include "error.h"
#include "frame-image.h"
#include "log.h"
#include "manager.h"
#include "player.h"
#include "renderer.h"

/* A player whose video the scene draws (not the screen's own). */
struct scene_video {
	struct umms_display *display;
	struct umms_player *player;
	struct wl_listener on_frame, destroy;
	struct wl_listener blocked; /* parental control: the frame goes */
	struct umms_frame *frame;  /* its newest, NULL: none yet */
	bool reported;             /* frame was reported shown */
	bool keep;
	struct wl_list link;       /* umms_display.scene_videos */
};

static struct scene_video *
find_scene_video(struct umms_display *display, struct umms_player *player)
{
	struct scene_video *sv;
	wl_list_for_each(sv, &display->scene_videos, link) {
		if (sv->player == player)
			return sv;
	}
	return NULL;
}

static void
scene_video_free(struct scene_video *sv, bool output_off)
{
	wl_list_remove(&sv->link);
	wl_list_remove(&sv->on_frame.link);
	wl_list_remove(&sv->destroy.link);
	wl_list_remove(&sv->blocked.link);
	if (sv->frame) {
		if (!sv->reported)
			umms_player_report_display(sv->player, false, 0);
		umms_frame_unref(sv->frame);
	}
	if (output_off)
		umms_player_set_video_output(sv->player, false, NULL, 0, NULL);
	g_free(sv);
}

static void
on_scene_frame(struct wl_listener *listener, void *data)
{
	struct scene_video *sv = wl_container_of(listener, sv, on_frame);
	if (sv->frame) {
		if (!sv->reported)
			umms_player_report_display(sv->player, false, 0);
		umms_frame_unref(sv->frame);
	}
	sv->frame = umms_frame_ref(data);
	sv->reported = false;
	if (sv->display->compositor)
		umms_compositor_damage_videos(sv->display->compositor);
}

/* Blocked (player.h umms_player_set_blocked): the scene draws nothing of it till its next frame. */
static void
on_scene_blocked(struct wl_listener *listener, void *data)
{
	struct scene_video *sv = wl_container_of(listener, sv, blocked);
	if (!sv->player->blocked || !sv->frame)
		return;
	if (!sv->reported)
		umms_player_report_display(sv->player, false, 0);
	g_clear_pointer(&sv->frame, umms_frame_unref);
	sv->reported = true;
	if (sv->display->compositor)
		umms_compositor_damage_videos(sv->display->compositor);
}

static void
on_scene_destroy(struct wl_listener *listener, void *data)
{
	struct scene_video *sv = wl_container_of(listener, sv, destroy);
	/* The compositor drops its placements by itself (its own listener). */
	scene_video_free(sv, false);
}

bool
display_scene_has(struct umms_display *display, struct umms_player *player)
{
	return find_scene_video(display, player) != NULL;
}

/*
 * The scene draws @player from now on, from @seed until its next frame
 * (the screen's last one when the video moves from the screen to the
 * scene: no black between), its frames asked for unless they already come.
 */
static bool
scene_video_add(struct umms_display *display, struct umms_player *player,
	struct umms_frame *seed, bool want_output, GError **error)
{
	if (want_output) {
		const uint32_t *formats;
		int n_formats = umms_screen_get_video_formats(display->target, &formats);
		/* The screen scales frames itself: at the picture's size. */
		umms_player_set_video_size(player, 0, 0);
		if (!umms_player_set_video_output(player, true, formats, (size_t)n_formats, error))
			return false;
	}
	struct scene_video *sv = g_new0(struct scene_video, 1);
	sv->display = display;
	sv->player = player;
	sv->keep = true;
	sv->frame = seed && !player->blocked ? umms_frame_ref(seed) : NULL;
	sv->reported = true;   /* the screen reported it */
	sv->on_frame.notify = on_scene_frame;
	wl_signal_add(&player->events.frame, &sv->on_frame);
	sv->destroy.notify = on_scene_destroy;
	wl_signal_add(&player->events.destroy, &sv->destroy);
	sv->blocked.notify = on_scene_blocked;
	wl_signal_add(&player->events.blocked, &sv->blocked);
	wl_list_insert(&display->scene_videos, &sv->link);
	if (want_output)
		umms_player_redraw(player);
	return true;
}

/*
 * The placement the screen shows itself (under or over the whole UI): the
 * bottom one when it is under the bottom window, else the top one when it
 * is over the top window, so stacking holds; unclipped (a plane cannot clip).
 */
static const struct umms_compositor_video *
pick_primary(const struct umms_compositor_video *v, size_t n)
{
	if (n == 0)
		return NULL;
	const struct umms_compositor_video *pick = NULL;
	if (!v[0].place.above_ui && v[0].layer <= 0)
		pick = &v[0];
	else if (v[n - 1].place.above_ui && v[n - 1].top_layer)
		pick = &v[n - 1];
	return pick && !pick->clipped ? pick : NULL;
}

bool
display_videos_update(struct umms_display *display, GError **error)
{
	const struct umms_compositor_video *v = NULL;
	size_t n = display->compositor ? umms_compositor_get_videos(display->compositor, &v) : 0;
	size_t shown = 0;
	for (size_t i = 0; i < n; i++)
		shown += v[i].place.width > 0;
	/* The tests time what the screen shows against this line (test-web-page). */
	umms_debug("display: videos placed on screen: %zu", shown);
	const struct umms_compositor_video *primary = display->full ? NULL : pick_primary(v, n);
	struct umms_player *want = display->full ? display->full :
		primary ? primary->player : NULL;
	display->primary_owner = primary ? primary->owner : NULL;

	bool in_list = false;   /* the screen's video now is still placed */
	struct scene_video *sv, *tmp;
	wl_list_for_each(sv, &display->scene_videos, link)
		sv->keep = false;
	for (size_t i = 0; i < n; i++) {
		if (v[i].player == display->player)
			in_list = true;
		if (v[i].player != want && (sv = find_scene_video(display, v[i].player)))
			sv->keep = true;
	}
	/* A video the scene drew that the screen shows now: its last frame at once. */
	struct umms_frame *promoted = NULL;
	wl_list_for_each_safe(sv, tmp, &display->scene_videos, link) {
		if (sv->keep)
			continue;
		if (sv->player == want && sv->frame && want != display->player)
			promoted = umms_frame_ref(sv->frame);
		scene_video_free(sv, sv->player != want);
	}
	/* The screen's video moves to the scene: its frames keep coming, its last one drawn. */
	struct umms_player *old = display->player;
	if (old && old != want && in_list && !find_scene_video(display, old)) {
		g_autoptr(GError) e = NULL;
		if (!scene_video_add(display, old, display->last_frame, false, &e))
			umms_warn("display: a placed video: %s", e->message);
	}

	bool ok = true;
	if (!want) {
		display->placed = false;
		display_unset_player(display);
		umms_screen_place_video(display->target, NULL);
	} else {
		ok = display_show_player(display, want, error);
		if (ok) {
			display->placed = primary != NULL;
			umms_screen_place_video(display->target, primary ? &primary->place : NULL);
			g_autoptr(GError) e = NULL;
			if (promoted && !umms_target_show(display->target, promoted, &e))
				umms_warn("display: %s", e->message);
		}
	}
	if (promoted)
		umms_frame_unref(promoted);

	for (size_t i = 0; i < n; i++) {
		if (v[i].player == want || find_scene_video(display, v[i].player))
			continue;
		g_autoptr(GError) e = NULL;
		if (!scene_video_add(display, v[i].player, NULL, true, &e))
			umms_warn("display: a placed video: %s", e->message);
	}
	return ok;
}

static void
on_videos_changed(void *data)
{
	g_autoptr(GError) error = NULL;
	if (!display_videos_update(data, &error))
		umms_warn("display: %s", error->message);
}

/* @src of an image at @dst, both cut to @clip in proportion; false if nothing is left. */
static bool
clip_boxes(struct umms_render_box *src, struct umms_render_box *dst,
	const struct umms_render_box *clip)
{
	if (dst->width <= 0 || dst->height <= 0)
		return false;
	double fx = src->width / dst->width, fy = src->height / dst->height;
	double x0 = MAX(dst->x, clip->x), y0 = MAX(dst->y, clip->y);
	double x1 = MIN(dst->x + dst->width, clip->x + clip->width);
	double y1 = MIN(dst->y + dst->height, clip->y + clip->height);
	if (x1 <= x0 || y1 <= y0)
		return false;
	src->x += (x0 - dst->x) * fx, src->y += (y0 - dst->y) * fy;
	src->width = (x1 - x0) * fx, src->height = (y1 - y0) * fy;
	*dst = (struct umms_render_box){ x0, y0, x1 - x0, y1 - y0 };
	return true;
}

static void
draw_frame(struct umms_renderer *r, const struct umms_frame *frame, const struct umms_layout *l,
	const struct umms_render_box *clip, bool subtitles)
{
	struct umms_render_box src = { l->src_x, l->src_y, l->src_width, l->src_height };
	struct umms_render_box dst = { l->video_x, l->video_y, l->video_width, l->video_height };
	if (!clip_boxes(&src, &dst, clip))
		return;
	/* A memfd frame is mapped for the draw; a dma-buf one imported by the renderer. */
	void *map = NULL;
	size_t size = 0;
	if (frame->kind == UMMS_FRAME_MEMFD) {
		off_t end = lseek(frame->planes[0].fd, 0, SEEK_END);
		if (end <= 0)
			return;
		size = (size_t)end;
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, frame->planes[0].fd, 0);
		if (map == MAP_FAILED)
			return;
	}
	struct umms_render_image image;
	umms_frame_render_image(frame, map, &image);
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_can_draw(r, &image) ||
			!umms_renderer_draw(r, &image, &src, &dst, &error))
		umms_debug("display: cannot draw a placed %.4s frame: %s",
			(const char *)&image.format, error ? error->message : "format not taken");
	struct umms_layout_overlay at;
	if (subtitles && umms_frame_place_subpicture(frame, l, &at)) {
		umms_subpicture_render_image(frame->subpicture, &image);
		src = (struct umms_render_box){ at.src_x, at.src_y, at.src_width, at.src_height };
		dst = (struct umms_render_box){ at.x, at.y, at.width, at.height };
		g_clear_error(&error);
		if (clip_boxes(&src, &dst, clip) &&
				!umms_renderer_draw(r, &image, &src, &dst, &error))
			umms_debug("display: cannot draw subtitles: %s", error->message);
	}
	if (map)
		munmap(map, size);
}

static void
on_draw_video(void *data, const struct umms_compositor_video *video,
	struct umms_renderer *renderer, const struct umms_render_box *area)
{
	struct umms_display *display = data;
	if (video->owner == display->primary_owner || video->player == display->player)
		return;   /* the screen's own */
	struct scene_video *sv = find_scene_video(display, video->player);
	struct umms_render_box clip = { area->x + video->clip[0], area->y + video->clip[1],
		video->clip[2], video->clip[3] };
	/* Black where the picture leaves bars, as the screen's own video on a plane. */
	umms_renderer_fill(renderer, &clip, 0);
	if (!sv || !sv->frame)
		return;
	int a[4] = { (int)area->x, (int)area->y, (int)area->width, (int)area->height };
	struct umms_layout l;
	umms_frame_layout(sv->frame, a, video->place.scale, &video->place, &l);
	if (!l.visible)
		return;
	draw_frame(renderer, sv->frame, &l, &clip, !video->place.no_subtitles);
	if (!sv->reported) {
		umms_player_report_display(sv->player, true, 0);
		sv->reported = true;
	}
}

const struct umms_compositor_hooks display_compositor_hooks = {
	.videos_changed = on_videos_changed,
	.draw_video = on_draw_video,
};

void
display_videos_finish(struct umms_display *display)
{
	while (!wl_list_empty(&display->scene_videos)) {
		struct scene_video *sv = wl_container_of(display->scene_videos.next, sv, link);
		scene_video_free(sv, true);
	}
	display->full = NULL;
	display->primary_owner = NULL;
}

/* ---- placing ------------------------------------------------------------------ */

bool
umms_display_place(struct umms_display *display, struct umms_player *player, pid_t client_pid,
	const struct umms_placement *placement, GError **error)
{
	if (!display->compositor) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"ummsd is not this screen's compositor ([display] compositor)");
		return false;
	}
	/* The player is its own placement's owner: placing it again moves it. */
	return umms_compositor_place_in_toplevel(display->compositor, player, player, client_pid,
		placement, error);
}

void
umms_display_unplace(struct umms_display *display, struct umms_player *player)
{
	if (display->compositor)
		umms_compositor_unplace(display->compositor, player);
}

static bool
bad_option(const char *key, const char *type, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"option \"%s\": unknown, or not of type %s", key, type);
	return false;
}

bool
display_place_from_dbus(struct umms_display *display, GVariant *params, GError **error)
{
	const char *path;
	g_autoptr(GVariantIter) options = NULL;
	struct umms_placement p = { .visible = true, .scale = 1,
		.zoom = UMMS_LAYOUT_SCALE_LETTERBOX, .subtitles = true };
	g_variant_get(params, "(&o(dddd)a{sv})", &path, &p.x, &p.y, &p.width, &p.height,
		&options);
	uint32_t pid = 0;
	const char *key;
	GVariant *v;
	while (g_variant_iter_next(options, "{&sv}", &key, &v)) {
		g_autoptr(GVariant) value = v;
		if (strcmp(key, "clip") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE("(dddd)")))
				return bad_option(key, "(dddd)", error);
			g_variant_get(value, "(dddd)", &p.clip_x, &p.clip_y, &p.clip_width,
				&p.clip_height);
			p.clipped = true;
		} else if (strcmp(key, "z") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_INT32))
				return bad_option(key, "i", error);
			p.z = g_variant_get_int32(value);
		} else if (strcmp(key, "over") == 0 || strcmp(key, "visible") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
				return bad_option(key, "b", error);
			*(key[0] == 'o' ? &p.over : &p.visible) = g_variant_get_boolean(value);
		} else if (strcmp(key, "scale") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_DOUBLE))
				return bad_option(key, "d", error);
			p.scale = g_variant_get_double(value);
		} else if (strcmp(key, "client-pid") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
				return bad_option(key, "u", error);
			pid = g_variant_get_uint32(value);
		} else if (strcmp(key, "zoom") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
				return bad_option(key, "s", error);
			const char *zoom = g_variant_get_string(value, NULL);
			if (!umms_screen_zoom_parse(zoom, &p.zoom, error))
				return false;
		} else {
			return bad_option(key, "(none)", error);
		}
	}
	if (pid > INT32_MAX) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "client-pid %u", pid);
		return false;
	}
	struct umms_player *player = umms_manager_find_player(display->manager, path);
	if (!player) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no player %s", path);
		return false;
	}
	return umms_display_place(display, player, (pid_t)pid, &p, error);
}

bool
display_unplace_from_dbus(struct umms_display *display, const char *path, GError **error)
{
	struct umms_player *player = umms_manager_find_player(display->manager, path);
	if (!player) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no player %s", path);
		return false;
	}
	umms_display_unplace(display, player);
	return true;
}
