/*
 * Video placements of ummsd's compositor (compositor.h): every way in
 * (umms_video_player_v1.place, double-buffered with the client's surface;
 * umms_compositor_place_in_toplevel for Display1.PlacePlayer and the web
 * bridge, latched to the toplevel's next commit unless it hides the
 * video, which goes at once) ends in set_placement(),
 * one placement per owner. From them the list of videos on screen is
 * computed in the UI area's pixels, sorted bottom first, and handed to the
 * display; the scene draws the ones the display does not show itself.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compositor-private.h"
#include "error.h"
#include "log.h"
#include "player.h"

/* How long a latched placement waits for its toplevel's commit. */
#define LATCH_MS 100

static bool
check_box(const char *what, double x, double y, double w, double h, GError **error)
{
	const double max = UMMS_PLACEMENT_MAX;
	if (!isfinite(x) || !isfinite(y) || !isfinite(w) || !isfinite(h) || fabs(x) > max ||
			fabs(y) > max || w < 0 || h < 0 || w > max || h > max) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s %g,%g %gx%g: coordinates within ±%g, sizes 0 to %g, finite", what, x, y,
			w, h, max, max);
		return false;
	}
	return true;
}

bool
umms_placement_check(const struct umms_placement *p, GError **error)
{
	if (!isfinite(p->scale) || p->scale <= 0 || p->scale > 16) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"scale %g: above 0, at most 16", p->scale);
		return false;
	}
	if ((unsigned)p->zoom > UMMS_LAYOUT_SCALE_ANAMORPHIC) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "zoom %d", p->zoom);
		return false;
	}
	if (!check_box("rectangle", p->x, p->y, p->width, p->height, error))
		return false;
	if (p->clipped && !check_box("clip", p->clip_x, p->clip_y, p->clip_width,
			p->clip_height, error))
		return false;
	/* And in surface pixels. */
	return check_box("rectangle × scale", p->x * p->scale, p->y * p->scale,
		p->width * p->scale, p->height * p->scale, error) &&
		(!p->clipped || check_box("clip × scale", p->clip_x * p->scale,
			p->clip_y * p->scale, p->clip_width * p->scale, p->clip_height * p->scale,
			error));
}

/* ---- the placements ------------------------------------------------------------ */

static void
placement_free(struct placement *pl)
{
	wl_list_remove(&pl->player_destroy.link);
	g_free(pl);
}

static void
remove_where(GPtrArray *array, void *owner, struct surface *surface, struct umms_player *player)
{
	for (guint i = array->len; i-- > 0;) {
		struct placement *pl = g_ptr_array_index(array, i);
		if ((owner && pl->owner == owner) || (surface && pl->surface == surface) ||
				(player && pl->player == player)) {
			placement_free(pl);
			g_ptr_array_remove_index(array, i);
		}
	}
}

static void
damage(struct umms_compositor *c)
{
	if (!c->destroying)
		compositor_scene_damage(c);
}

/* The player went: its placements, in effect or latched, with it. */
static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct placement *pl = wl_container_of(listener, pl, player_destroy);
	struct umms_compositor *c = pl->compositor;
	struct umms_player *player = pl->player;
	umms_debug("display: placement %p: its player gone", pl->owner);
	remove_where(c->placements, NULL, NULL, player);
	remove_where(c->latched, NULL, NULL, player);
	damage(c);
}

static struct placement *
placement_new(struct umms_compositor *c, void *owner, struct umms_player *player,
	struct surface *surface, const struct umms_placement *p)
{
	struct placement *pl = g_new0(struct placement, 1);
	pl->compositor = c;
	pl->owner = owner;
	pl->player = player;
	pl->surface = surface;
	pl->p = *p;
	pl->player_destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &pl->player_destroy);
	return pl;
}

/* The one way a placement takes effect: @owner's video is now @p relative to @surface. */
static void
set_placement(struct umms_compositor *c, void *owner, struct umms_player *player,
	struct surface *surface, const struct umms_placement *p)
{
	/* Moved, not placed anew: it keeps its place among videos of equal z. */
	uint64_t order = c->next_order;
	for (guint i = 0; i < c->placements->len; i++) {
		struct placement *was = g_ptr_array_index(c->placements, i);
		if (was->owner == owner)
			order = was->order;
	}
	if (order == c->next_order)
		c->next_order++;
	remove_where(c->placements, owner, NULL, NULL);
	struct placement *pl = placement_new(c, owner, player, surface, p);
	pl->order = order;
	g_ptr_array_add(c->placements, pl);
}

void
compositor_placement_apply(struct umms_compositor *c, struct surface *surface,
	const struct video_place *video)
{
	if (video->owner && video->player)
		set_placement(c, video->owner, video->player, surface, &video->p);
}

static void arm_latch(struct umms_compositor *c);

/* Latched placements of @surface (NULL: those past their deadline) take effect. */
static bool
apply_latched(struct umms_compositor *c, struct surface *surface, int64_t now_us)
{
	bool any = false;
	for (guint i = 0; i < c->latched->len;) {
		struct placement *pl = g_ptr_array_index(c->latched, i);
		if (surface ? pl->surface != surface : pl->deadline_us > now_us) {
			i++;
			continue;
		}
		g_ptr_array_remove_index(c->latched, i);
		set_placement(c, pl->owner, pl->player, pl->surface, &pl->p);
		placement_free(pl);
		any = true;
	}
	return any;
}

static gboolean
on_latch_timeout(gpointer data)
{
	struct umms_compositor *c = data;
	c->latch_timer = 0;
	if (apply_latched(c, NULL, g_get_monotonic_time() + 1000)) {
		umms_debug("display: a placement's toplevel did not commit within %d ms: applied",
			LATCH_MS);
		damage(c);
	}
	arm_latch(c);
	return G_SOURCE_REMOVE;
}

static void
arm_latch(struct umms_compositor *c)
{
	if (c->latch_timer || c->latched->len == 0)
		return;
	int64_t first = INT64_MAX;
	for (guint i = 0; i < c->latched->len; i++) {
		struct placement *pl = g_ptr_array_index(c->latched, i);
		first = MIN(first, pl->deadline_us);
	}
	int64_t ms = (first - g_get_monotonic_time() + 999) / 1000;
	c->latch_timer = g_timeout_add((guint)CLAMP(ms, 0, LATCH_MS), on_latch_timeout, c);
}

void
compositor_placement_committed(struct umms_compositor *c, struct surface *surface)
{
	if (!c->latched->len || !apply_latched(c, surface, 0))
		return;
	umms_debug("display: placements applied with their toplevel's commit");
	if (c->latched->len == 0 && c->latch_timer) {
		g_source_remove(c->latch_timer);
		c->latch_timer = 0;
	}
}

void
compositor_placement_surface_gone(struct umms_compositor *c, struct surface *surface)
{
	if (!c->placements)
		return;
	guint before = c->placements->len;
	remove_where(c->placements, NULL, surface, NULL);
	remove_where(c->latched, NULL, surface, NULL);
	if (c->placements->len != before) {
		umms_debug("display: placements of a surface gone: %u", before - c->placements->len);
		damage(c);
	}
}

bool
umms_compositor_place(struct umms_compositor *c, struct wl_resource *surface_resource,
	void *owner, struct umms_player *player, const struct umms_placement *placement,
	GError **error)
{
	struct surface *s = compositor_surface_from_resource(surface_resource);
	if (!s) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a surface of ummsd's compositor");
		return false;
	}
	if (!umms_placement_check(placement, error))
		return false;
	s->pending.video = (struct video_place){ .set = true, .owner = owner, .player = player,
		.p = *placement };
	return true;
}

/* The toplevel of the client with process id @pid (0: the newest), mapped. */
static struct toplevel *
find_toplevel(struct umms_compositor *c, pid_t pid)
{
	struct toplevel *t;
	wl_list_for_each_reverse(t, &c->toplevels, link) {
		if (!t->mapped)
			continue;
		if (pid == 0)
			return t;
		pid_t client_pid = 0;
		wl_client_get_credentials(wl_resource_get_client(t->surface->resource), &client_pid,
			NULL, NULL);
		if (client_pid == pid)
			return t;
	}
	return NULL;
}

bool
umms_compositor_place_in_toplevel(struct umms_compositor *c, void *owner,
	struct umms_player *player, pid_t pid, const struct umms_placement *placement,
	GError **error)
{
	if (!umms_placement_check(placement, error))
		return false;
	struct toplevel *t = find_toplevel(c, pid);
	if (!t) {
		if (pid)
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
				"no window of process %d on the screen", (int)pid);
		else
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
				"no window on the screen");
		return false;
	}
	const struct umms_placement *p = placement;
	umms_debug("display: placement %p asked: %s %g,%g %gx%g", owner,
		p->visible ? "shown" : "hidden", p->x, p->y, p->width, p->height);
	/* The newest request replaces one still waiting. */
	remove_where(c->latched, owner, NULL, NULL);
	if (!p->visible) {
		/*
		 * Hidden at once: the window is asked to stop showing it, and a
		 * video left on screen a frame too long is worse than one gone a
		 * frame early. Latched, it waited for a commit that may have come
		 * before the request (then up to LATCH_MS).
		 */
		set_placement(c, owner, player, t->surface, placement);
		damage(c);
		return true;
	}
	struct placement *pl = placement_new(c, owner, player, t->surface, placement);
	pl->deadline_us = g_get_monotonic_time() + LATCH_MS * 1000;
	g_ptr_array_add(c->latched, pl);
	arm_latch(c);
	return true;
}

void
umms_compositor_set_video_subtitles(struct umms_compositor *c, void *owner, bool shown)
{
	struct surface *s;
	wl_list_for_each(s, &c->surfaces, link) {
		if (s->pending.video.owner == owner)
			s->pending.video.p.subtitles = shown;
		if (s->cached.video.owner == owner)
			s->cached.video.p.subtitles = shown;
	}
	GPtrArray *arrays[] = { c->placements, c->latched };
	bool changed = false;
	for (size_t k = 0; k < G_N_ELEMENTS(arrays); k++) {
		for (guint i = 0; i < arrays[k]->len; i++) {
			struct placement *pl = g_ptr_array_index(arrays[k], i);
			if (pl->owner == owner && pl->p.subtitles != shown) {
				pl->p.subtitles = shown;
				changed = true;
			}
		}
	}
	if (changed)
		compositor_placement_update(c);
}

void
umms_compositor_unplace(struct umms_compositor *c, void *owner)
{
	struct surface *s;
	wl_list_for_each(s, &c->surfaces, link) {
		if (s->pending.video.owner == owner)
			s->pending.video.set = false, s->pending.video.owner = NULL;
		if (s->cached.video.owner == owner)
			s->cached.video.set = false, s->cached.video.owner = NULL;
	}
	remove_where(c->latched, owner, NULL, NULL);
	guint before = c->placements->len;
	remove_where(c->placements, owner, NULL, NULL);
	if (c->placements->len != before)
		damage(c);
}

/* ---- where the videos are ------------------------------------------------------ */

/*
 * The stacking index of @s's toplevel among the mapped ones, bottom 0; -1:
 * not shown. *@top: it is the top one.
 */
static int
layer_of(struct umms_compositor *c, struct surface *s, bool *top)
{
	*top = false;
	while (s && !s->toplevel)
		s = s->subsurface ? s->subsurface->parent : NULL;
	if (!s || !s->toplevel->mapped)
		return -1;
	int layer = -1, mapped = 0;
	struct toplevel *t;
	wl_list_for_each(t, &c->toplevels, link) {
		if (t == s->toplevel)
			layer = mapped;
		if (t->mapped)
			mapped++;
	}
	*top = layer >= 0 && layer == mapped - 1;
	return layer;
}

static int
compare_videos(const void *a, const void *b)
{
	const struct umms_compositor_video *x = a, *y = b;
	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	if (x->place.above_ui != y->place.above_ui)
		return x->place.above_ui ? 1 : -1;
	if (x->z != y->z)
		return x->z < y->z ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * @pl as a video in the UI area's pixels, into @out (zeroed: compared
 * with memcmp); hidden ones have no size.
 */
static void
locate(struct umms_compositor *c, const struct placement *pl, struct umms_compositor_video *out)
{
	const struct umms_placement *p = &pl->p;
	struct umms_compositor_video *v = out;
	v->owner = pl->owner, v->player = pl->player, v->z = p->z, v->order = pl->order;
	v->place.scale = p->zoom, v->place.above_ui = p->over;
	v->place.no_subtitles = !p->subtitles;
	v->layer = layer_of(c, pl->surface, &v->top_layer);
	int sx, sy;
	if (!p->visible || !compositor_surface_position(pl->surface, &sx, &sy))
		return;
	double k = p->scale;
	long x0 = lround(sx + p->x * k), y0 = lround(sy + p->y * k);
	long x1 = lround(sx + (p->x + p->width) * k), y1 = lround(sy + (p->y + p->height) * k);
	if (x1 <= x0 || y1 <= y0)
		return;
	long c0 = x0, d0 = y0, c1 = x1, d1 = y1;
	if (p->clipped) {
		c0 = MAX(x0, lround(sx + p->clip_x * k));
		d0 = MAX(y0, lround(sy + p->clip_y * k));
		c1 = MIN(x1, lround(sx + (p->clip_x + p->clip_width) * k));
		d1 = MIN(y1, lround(sy + (p->clip_y + p->clip_height) * k));
		if (c1 <= c0 || d1 <= d0)
			return;   /* clipped away */
	}
	v->place.x = (int)x0, v->place.y = (int)y0;
	v->place.width = (int)(x1 - x0), v->place.height = (int)(y1 - y0);
	v->clipped = c0 != x0 || d0 != y0 || c1 != x1 || d1 != y1;
	v->clip[0] = (int)c0, v->clip[1] = (int)d0;
	v->clip[2] = (int)(c1 - c0), v->clip[3] = (int)(d1 - d0);
}

void
compositor_placement_update(struct umms_compositor *c)
{
	if (!c->placements || c->destroying)
		return;
	GArray *now = g_array_sized_new(FALSE, TRUE, sizeof(struct umms_compositor_video),
		c->placements->len);
	g_array_set_size(now, c->placements->len);
	for (guint i = 0; i < c->placements->len; i++)
		locate(c, g_ptr_array_index(c->placements, i),
			&g_array_index(now, struct umms_compositor_video, i));
	/* Equal z: the order placed. */
	g_array_sort(now, compare_videos);
	bool same = c->videos_told && now->len == c->videos->len &&
		(now->len == 0 || memcmp(now->data, c->videos->data,
			now->len * sizeof(struct umms_compositor_video)) == 0);
	g_array_unref(c->videos);
	c->videos = now;
	if (same)
		return;
	c->whole = true;   /* composited videos moved: repainted whole (scene.c) */
	c->videos_told = true;
	c->hooks.videos_changed(c->hooks_data);
}

size_t
umms_compositor_get_videos(struct umms_compositor *c, const struct umms_compositor_video **videos)
{
	*videos = (const struct umms_compositor_video *)(void *)c->videos->data;
	return c->videos->len;
}

void
umms_compositor_damage_videos(struct umms_compositor *c)
{
	damage(c);
}

void
compositor_placement_draw(struct umms_compositor *c, int layer, bool over,
	struct umms_renderer *renderer, const struct umms_render_box *area)
{
	for (guint i = 0; i < c->videos->len; i++) {
		const struct umms_compositor_video *v =
			&g_array_index(c->videos, struct umms_compositor_video, i);
		if (v->layer == layer && v->place.above_ui == over && v->place.width > 0)
			c->hooks.draw_video(c->hooks_data, v, renderer, area);
	}
}

void
compositor_placement_init(struct umms_compositor *c)
{
	c->placements = g_ptr_array_new();
	c->latched = g_ptr_array_new();
	c->videos = g_array_new(FALSE, TRUE, sizeof(struct umms_compositor_video));
}

void
compositor_placement_finish(struct umms_compositor *c)
{
	if (!c->placements)
		return;
	if (c->latch_timer)
		g_source_remove(c->latch_timer);
	c->latch_timer = 0;
	for (guint i = 0; i < c->latched->len; i++)
		placement_free(g_ptr_array_index(c->latched, i));
	for (guint i = 0; i < c->placements->len; i++)
		placement_free(g_ptr_array_index(c->placements, i));
	g_clear_pointer(&c->latched, g_ptr_array_unref);
	g_clear_pointer(&c->placements, g_ptr_array_unref);
	g_clear_pointer(&c->videos, g_array_unref);
}
