/*
 * Surfaces: wl_compositor, wl_surface, wl_region, wl_subcompositor and
 * wl_subsurface (compositor-private.h).
 *
 * Damage (damage, damage_buffer) is kept as one bounding box per commit,
 * for the scene to upload and repaint only that (scene.c).
 *
 * Deliberate simplifications, each harmless to a kiosk's clients: opaque
 * and input regions are ignored, buffer transforms other
 * than normal are ignored, and subsurface restacking (place_above/below)
 * applies at once rather than with the parent's commit.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "compositor-private.h"
#include "dmabuf.h"
#include "log.h"

#define COMPOSITOR_VERSION 4

/* wl_subcompositor.bad_parent: in wayland's XML from 1.22 on, older headers lack it. */
#define SUBCOMPOSITOR_ERROR_BAD_PARENT 1

struct wl_resource *
compositor_resource_create(struct wl_client *client, const struct wl_interface *interface,
	int version, uint32_t id, const void *impl, void *data, wl_resource_destroy_func_t destroy)
{
	struct wl_resource *resource = wl_resource_create(client, interface, version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(resource, impl, data, destroy);
	return resource;
}

/* ---- state ------------------------------------------------------------------ */

static void
drop_kept(struct surface *s)
{
	g_clear_pointer(&s->kept.data, g_free);
}

/* The shown buffer is going: its pixels stay on screen until the next attach. */
static void
keep_contents(struct surface *s, struct wl_resource *buffer)
{
	drop_kept(s);
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
	if (!shm)
		return;   /* a dma-buf: its fds go with it (left: rare for clients) */
	s->kept.format = wl_shm_buffer_get_format(shm);
	s->kept.width = wl_shm_buffer_get_width(shm);
	s->kept.height = wl_shm_buffer_get_height(shm);
	s->kept.stride = wl_shm_buffer_get_stride(shm);
	wl_shm_buffer_begin_access(shm);
	s->kept.data = g_memdup2(wl_shm_buffer_get_data(shm),
		(gsize)s->kept.stride * (gsize)s->kept.height);
	wl_shm_buffer_end_access(shm);
}

bool
compositor_surface_has_content(const struct surface *s)
{
	return s->current.buffer || s->kept.data;
}

static void
state_buffer_destroyed(struct wl_listener *listener, void *data)
{
	struct surface_state *state = wl_container_of(listener, state, buffer_destroy);
	if (state->owner)
		keep_contents(state->owner, state->buffer);
	state->buffer = NULL;
	wl_list_remove(&state->buffer_destroy.link);
	wl_list_init(&state->buffer_destroy.link);
}

static void
state_set_buffer(struct surface_state *state, struct wl_resource *buffer)
{
	wl_list_remove(&state->buffer_destroy.link);
	wl_list_init(&state->buffer_destroy.link);
	state->buffer = buffer;
	if (buffer)
		wl_resource_add_destroy_listener(buffer, &state->buffer_destroy);
}

void
compositor_state_init(struct surface_state *state)
{
	memset(state, 0, sizeof(*state));
	state->buffer_destroy.notify = state_buffer_destroyed;
	wl_list_init(&state->buffer_destroy.link);
	state->scale = 1;
	state->src_w = -1;
	state->dst_w = -1;
	wl_list_init(&state->frames);
	wl_list_init(&state->feedbacks);
}

void
compositor_state_finish(struct surface_state *state)
{
	wl_list_remove(&state->buffer_destroy.link);
	wl_list_init(&state->buffer_destroy.link);
	struct wl_resource *frame, *tmp;
	wl_resource_for_each_safe(frame, tmp, &state->frames)
		wl_resource_destroy(frame);
	struct feedback *fb, *fb_tmp;
	wl_list_for_each_safe(fb, fb_tmp, &state->feedbacks, link)
		compositor_feedback_discard(fb);
}

/* Moves what @from set into @to; @from is left empty. */
static void
state_merge(struct surface_state *to, struct surface_state *from)
{
	if (from->committed & STATE_BUFFER) {
		state_set_buffer(to, from->buffer);
		to->dx += from->dx;
		to->dy += from->dy;
	}
	if (from->committed & STATE_VIEWPORT_SRC) {
		to->src_x = from->src_x, to->src_y = from->src_y;
		to->src_w = from->src_w, to->src_h = from->src_h;
	}
	if (from->committed & STATE_VIEWPORT_DST)
		to->dst_w = from->dst_w, to->dst_h = from->dst_h;
	if (from->committed & STATE_SCALE)
		to->scale = from->scale;
	to->committed |= from->committed;
	wl_list_insert_list(to->frames.prev, &from->frames);
	wl_list_init(&from->frames);
	wl_list_insert_list(to->feedbacks.prev, &from->feedbacks);
	wl_list_init(&from->feedbacks);
	if (from->video.set)
		to->video = from->video;
	from->video.set = false;
	int32_t *b = from->buffer_damage, *sd = from->surface_damage;
	compositor_box_add(to->buffer_damage, b[0], b[1], b[2], b[3]);
	compositor_box_add(to->surface_damage, sd[0], sd[1], sd[2], sd[3]);
	memset(from->buffer_damage, 0, sizeof(from->buffer_damage));
	memset(from->surface_damage, 0, sizeof(from->surface_damage));
	from->committed = 0;
	state_set_buffer(from, NULL);
	from->dx = from->dy = 0;
}

/* ---- regions ---------------------------------------------------------------- */

static void
resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
region_add(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
	int32_t width, int32_t height)
{
}

static const struct wl_region_interface region_impl = {
	.destroy = resource_destroy,
	.add = region_add,
	.subtract = region_add,
};

/* ---- surfaces --------------------------------------------------------------- */

static const struct wl_surface_interface surface_impl;

struct surface *
compositor_surface_from_resource(struct wl_resource *resource)
{
	if (!resource || !wl_resource_instance_of(resource, &wl_surface_interface, &surface_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

/* Bytes a pixel of a wl_shm format takes; 0 for a format the scene does not read. */
static int
shm_bytes_per_pixel(uint32_t format)
{
	switch (format) {
	case WL_SHM_FORMAT_ARGB8888:
	case WL_SHM_FORMAT_XRGB8888:
	case WL_SHM_FORMAT_ABGR8888:
	case WL_SHM_FORMAT_XBGR8888:
		return 4;
	case WL_SHM_FORMAT_RGB565:
		return 2;
	default:
		return 0;
	}
}

/*
 * libwayland checks a wl_shm buffer against its pool with stride >= width
 * only: a row of width * bytes per pixel may run past stride, and the last
 * one past the pool, where the renderers read it whole. Refused here, with
 * wl_surface.invalid_size, before anything reads it.
 */
static bool
shm_buffer_check(struct wl_resource *surface, struct wl_resource *buffer)
{
	struct wl_shm_buffer *shm = wl_shm_buffer_get(buffer);
	if (!shm)
		return true;
	uint32_t format = wl_shm_buffer_get_format(shm);
	int bpp = shm_bytes_per_pixel(format);
	int32_t width = wl_shm_buffer_get_width(shm), stride = wl_shm_buffer_get_stride(shm);
	if (bpp == 0) {
		wl_resource_post_error(surface, WL_SURFACE_ERROR_INVALID_SIZE,
			"wl_buffer@%u: wl_shm format 0x%08x is not drawn here",
			wl_resource_get_id(buffer), format);
		return false;
	}
	if (width <= 0 || stride <= 0 || (int64_t)width * bpp > stride) {
		wl_resource_post_error(surface, WL_SURFACE_ERROR_INVALID_SIZE,
			"wl_buffer@%u: stride %d is under width %d x %d bytes a pixel",
			wl_resource_get_id(buffer), stride, width, bpp);
		return false;
	}
	return true;
}

static void
surface_attach(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *buffer, int32_t x, int32_t y)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (buffer && !shm_buffer_check(resource, buffer))
		return;
	state_set_buffer(&s->pending, buffer);
	s->pending.dx = x, s->pending.dy = y;
	s->pending.committed |= STATE_BUFFER;
}

/* A client's rectangle, bounded (any int32 is accepted: INT32_MAX means "all"). */
static void
add_damage(int32_t box[4], int32_t x, int32_t y, int32_t width, int32_t height)
{
	if (width <= 0 || height <= 0)
		return;
	const int64_t limit = INT32_C(1) << 24;
	int64_t x1 = (int64_t)x + width, y1 = (int64_t)y + height;
	compositor_box_add(box, (int32_t)CLAMP(x, -limit, limit), (int32_t)CLAMP(y, -limit, limit),
		(int32_t)CLAMP(x1, -limit, limit), (int32_t)CLAMP(y1, -limit, limit));
}

static void
surface_damage(struct wl_client *client, struct wl_resource *resource, int32_t x, int32_t y,
	int32_t width, int32_t height)
{
	struct surface *s = wl_resource_get_user_data(resource);
	add_damage(s->pending.surface_damage, x, y, width, height);
	s->pending.committed |= STATE_DAMAGE;
}

static void
surface_damage_buffer(struct wl_client *client, struct wl_resource *resource, int32_t x,
	int32_t y, int32_t width, int32_t height)
{
	struct surface *s = wl_resource_get_user_data(resource);
	add_damage(s->pending.buffer_damage, x, y, width, height);
	s->pending.committed |= STATE_DAMAGE;
}

static void
callback_unlink(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void
surface_frame(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct surface *s = wl_resource_get_user_data(resource);
	struct wl_resource *callback = compositor_resource_create(client, &wl_callback_interface,
		1, id, NULL, NULL, callback_unlink);
	if (callback)
		wl_list_insert(s->pending.frames.prev, wl_resource_get_link(callback));
}

static void
surface_set_region(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *region)
{
	/* Opaque and input regions: every surface takes input, opacity comes from the format. */
}

static bool
effectively_sync(const struct surface *s)
{
	for (; s && s->subsurface; s = s->subsurface->parent) {
		if (s->subsurface->sync)
			return true;
	}
	return false;
}

static void
buffer_size(struct wl_resource *buffer, int *width, int *height)
{
	*width = *height = 0;
	struct wl_shm_buffer *shm = buffer ? wl_shm_buffer_get(buffer) : NULL;
	struct umms_dmabuf_buffer *dma = buffer ? umms_dmabuf_buffer_from_resource(buffer) : NULL;
	if (shm) {
		*width = wl_shm_buffer_get_width(shm);
		*height = wl_shm_buffer_get_height(shm);
	} else if (dma) {
		*width = dma->width;
		*height = dma->height;
	}
}

static void apply_children(struct surface *s);

/* @from (pending or cached) becomes the surface's current state. */
static void
surface_apply(struct surface *s, struct surface_state *from)
{
	struct umms_compositor *c = s->compositor;
	struct wl_resource *old = s->current.buffer;
	bool new_buffer = from->committed & STATE_BUFFER;
	if (new_buffer && from->buffer != old && old)
		wl_buffer_send_release(old);
	/* Feedback for content replaced before it was drawn is discarded. */
	if (new_buffer) {
		struct feedback *fb, *tmp;
		wl_list_for_each_safe(fb, tmp, &s->current.feedbacks, link)
			compositor_feedback_discard(fb);
	}
	struct video_place video = from->video;
	bool changed = from->committed & (STATE_BUFFER | STATE_DAMAGE);
	if (changed)
		s->content_serial++;
	/* The size of what was shown, its buffer destroyed since or not. */
	int old_bw, old_bh;
	buffer_size(s->current.buffer, &old_bw, &old_bh);
	if (!s->current.buffer && s->kept.data)
		old_bw = s->kept.width, old_bh = s->kept.height;
	if (new_buffer)
		drop_kept(s);
	state_merge(&s->current, from);
	s->current.committed = 0;

	int bw, bh;
	buffer_size(s->current.buffer, &bw, &bh);
	if (changed)
		compositor_surface_add_damage(s, bw != old_bw || bh != old_bh);
	if (!s->current.buffer && s->kept.data) {
		/* Its buffer was destroyed while shown: a commit without one keeps its pixels. */
		bw = s->kept.width, bh = s->kept.height;
	}
	int32_t scale = s->current.scale > 0 ? s->current.scale : 1;
	if (!compositor_surface_has_content(s)) {
		s->width = s->height = 0;
	} else if (s->current.dst_w > 0) {
		s->width = s->current.dst_w, s->height = s->current.dst_h;
	} else if (s->current.src_w >= 0) {
		s->width = (int)s->current.src_w, s->height = (int)s->current.src_h;
	} else {
		s->width = bw / scale, s->height = bh / scale;
	}
	if (s->viewport && !compositor_viewport_check(s))
		return;
	if (video.set)
		compositor_placement_apply(c, s, &video);
	compositor_placement_committed(c, s);
	apply_children(s);
	if (s->toplevel)
		compositor_toplevel_committed(s->toplevel);
}

static void
apply_list(struct wl_list *list)
{
	struct subsurface *sub;
	wl_list_for_each(sub, list, link) {
		if (sub->position_pending) {
			sub->x = sub->pending_x, sub->y = sub->pending_y;
			sub->position_pending = false;
		}
		if (sub->surface->has_cache && effectively_sync(sub->surface)) {
			sub->surface->has_cache = false;
			surface_apply(sub->surface, &sub->surface->cached);
		}
	}
}

/* A parent's commit: its subsurfaces' positions, and the states synchronized ones cached. */
static void
apply_children(struct surface *s)
{
	apply_list(&s->below);
	apply_list(&s->above);
}

static void
surface_commit(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s->pending.committed & STATE_SCALE && s->pending.scale < 1) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE,
			"buffer scale %d", s->pending.scale);
		return;
	}
	if (!compositor_shell_check_commit(s))
		return;
	if (effectively_sync(s)) {
		state_merge(&s->cached, &s->pending);
		s->has_cache = true;
		return;
	}
	if (s->has_cache) {
		state_merge(&s->cached, &s->pending);
		s->has_cache = false;
		surface_apply(s, &s->cached);
	} else {
		surface_apply(s, &s->pending);
	}
	compositor_scene_damage_commit(s->compositor);
}

static void
surface_set_buffer_transform(struct wl_client *client, struct wl_resource *resource,
	int32_t transform)
{
	if (transform < 0 || transform > WL_OUTPUT_TRANSFORM_FLIPPED_270)
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_TRANSFORM,
			"transform %d", transform);
	/* Only normal is drawn as meant: the output is never rotated. */
}

static void
surface_set_buffer_scale(struct wl_client *client, struct wl_resource *resource, int32_t scale)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (scale < 1) {
		wl_resource_post_error(resource, WL_SURFACE_ERROR_INVALID_SCALE, "buffer scale %d",
			scale);
		return;
	}
	s->pending.scale = scale;
	s->pending.committed |= STATE_SCALE;
}

static const struct wl_surface_interface surface_impl = {
	.destroy = resource_destroy,
	.attach = surface_attach,
	.damage = surface_damage,
	.frame = surface_frame,
	.set_opaque_region = surface_set_region,
	.set_input_region = surface_set_region,
	.commit = surface_commit,
	.set_buffer_transform = surface_set_buffer_transform,
	.set_buffer_scale = surface_set_buffer_scale,
	.damage_buffer = surface_damage_buffer,
};

static void
surface_resource_destroy(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	wl_signal_emit_mutable(&s->events.destroy, s);
	compositor_placement_surface_gone(s->compositor, s);
	if (s->current.buffer)
		wl_buffer_send_release(s->current.buffer);
	compositor_state_finish(&s->pending);
	compositor_state_finish(&s->cached);
	compositor_state_finish(&s->current);
	drop_kept(s);
	compositor_scene_damage(s->compositor);
	wl_list_remove(&s->link);
	free(s);
}

bool
compositor_surface_set_role(struct surface *surface, const char *role,
	struct wl_resource *error_resource, uint32_t error_code)
{
	if (surface->role && strcmp(surface->role, role) != 0) {
		wl_resource_post_error(error_resource, error_code,
			"wl_surface@%u already has the role %s", wl_resource_get_id(surface->resource),
			surface->role);
		return false;
	}
	surface->role = role;
	return true;
}

bool
compositor_surface_position(struct surface *surface, int *x, int *y)
{
	*x = *y = 0;
	for (struct surface *s = surface; s; s = s->subsurface ? s->subsurface->parent : NULL) {
		if (s->toplevel)
			return s->toplevel->mapped;
		if (!s->subsurface || !s->subsurface->parent)
			return false;
		*x += s->subsurface->x;
		*y += s->subsurface->y;
	}
	return false;
}

static void
compositor_create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_compositor *c = wl_resource_get_user_data(resource);
	struct surface *s = calloc(1, sizeof(*s));
	if (!s) {
		wl_client_post_no_memory(client);
		return;
	}
	static uint64_t next_image_id;
	s->image_id = ++next_image_id;
	s->drawn_serial = UINT64_MAX;   /* never drawn */
	s->resource = wl_resource_create(client, &wl_surface_interface,
		wl_resource_get_version(resource), id);
	if (!s->resource) {
		free(s);
		wl_client_post_no_memory(client);
		return;
	}
	s->compositor = c;
	compositor_state_init(&s->pending);
	compositor_state_init(&s->cached);
	compositor_state_init(&s->current);
	s->current.owner = s;
	wl_list_init(&s->below);
	wl_list_init(&s->above);
	wl_signal_init(&s->events.destroy);
	wl_list_insert(&c->surfaces, &s->link);
	wl_resource_set_implementation(s->resource, &surface_impl, s, surface_resource_destroy);
}

static void
compositor_create_region(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	compositor_resource_create(client, &wl_region_interface,
		1, id, &region_impl, NULL, NULL);
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_create_surface,
	.create_region = compositor_create_region,
};

static void
compositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	compositor_resource_create(client, &wl_compositor_interface,
		(int)version, id, &compositor_impl, data, NULL);
}

/* ---- subsurfaces ------------------------------------------------------------ */

static void
subsurface_unlink(struct subsurface *sub)
{
	if (!sub->parent)
		return;
	wl_list_remove(&sub->link);
	wl_list_remove(&sub->parent_destroy.link);
	sub->parent = NULL;
}

static void
subsurface_set_position(struct wl_client *client, struct wl_resource *resource, int32_t x,
	int32_t y)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	if (!sub)
		return;
	sub->pending_x = x, sub->pending_y = y;
	sub->position_pending = true;
}

/* The list and place that "just above/below @sibling" means; NULL after an error. */
static struct wl_list *
restack_anchor(struct wl_resource *resource, struct subsurface *sub,
	struct wl_resource *sibling_resource, bool above)
{
	struct surface *sibling = compositor_surface_from_resource(sibling_resource);
	struct surface *parent = sub->parent;
	if (sibling == parent)
		return above ? &parent->above : parent->below.prev;
	if (!sibling || !sibling->subsurface || sibling->subsurface->parent != parent ||
			sibling == sub->surface) {
		wl_resource_post_error(resource, WL_SUBSURFACE_ERROR_BAD_SURFACE,
			"wl_surface@%u is not a sibling", sibling ? wl_resource_get_id(sibling->resource)
			: 0);
		return NULL;
	}
	return above ? &sibling->subsurface->link : sibling->subsurface->link.prev;
}

static void
subsurface_restack(struct wl_resource *resource, struct wl_resource *sibling, bool above)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	if (!sub || !sub->parent)
		return;
	/* Unlink first: the anchor may be our own neighbour. */
	wl_list_remove(&sub->link);
	wl_list_init(&sub->link);
	struct wl_list *anchor = restack_anchor(resource, sub, sibling, above);
	if (!anchor) {
		wl_list_insert(sub->parent->above.prev, &sub->link);
		return;
	}
	wl_list_insert(anchor, &sub->link);
	compositor_scene_damage(sub->surface->compositor);
}

static void
subsurface_place_above(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *sibling)
{
	subsurface_restack(resource, sibling, true);
}

static void
subsurface_place_below(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *sibling)
{
	subsurface_restack(resource, sibling, false);
}

static void
subsurface_set_sync(struct wl_client *client, struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	if (sub)
		sub->sync = true;
}

static void
subsurface_set_desync(struct wl_client *client, struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	if (!sub || !sub->sync)
		return;
	sub->sync = false;
	/* Cached state is applied as if committed now. */
	if (sub->surface->has_cache && !effectively_sync(sub->surface)) {
		sub->surface->has_cache = false;
		surface_apply(sub->surface, &sub->surface->cached);
		compositor_scene_damage(sub->surface->compositor);
	}
}

static const struct wl_subsurface_interface subsurface_impl = {
	.destroy = resource_destroy,
	.set_position = subsurface_set_position,
	.place_above = subsurface_place_above,
	.place_below = subsurface_place_below,
	.set_sync = subsurface_set_sync,
	.set_desync = subsurface_set_desync,
};

static void
subsurface_parent_destroyed(struct wl_listener *listener, void *data)
{
	struct subsurface *sub = wl_container_of(listener, sub, parent_destroy);
	subsurface_unlink(sub);
}

static void
subsurface_resource_destroy(struct wl_resource *resource)
{
	struct subsurface *sub = wl_resource_get_user_data(resource);
	if (!sub)
		return;
	subsurface_unlink(sub);
	if (sub->surface) {
		wl_list_remove(&sub->surface_destroy.link);
		sub->surface->subsurface = NULL;
		compositor_scene_damage(sub->surface->compositor);
	}
	free(sub);
}

static void
subsurface_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct subsurface *sub = wl_container_of(listener, sub, surface_destroy);
	/* The object stays until the client destroys it, inert. */
	subsurface_unlink(sub);
	wl_list_remove(&sub->surface_destroy.link);
	sub->surface->subsurface = NULL;
	sub->surface = NULL;
	wl_resource_set_user_data(sub->resource, NULL);
	free(sub);
}

static void
subcompositor_get_subsurface(struct wl_client *client, struct wl_resource *resource,
	uint32_t id, struct wl_resource *surface_resource, struct wl_resource *parent_resource)
{
	struct surface *surface = wl_resource_get_user_data(surface_resource);
	struct surface *parent = wl_resource_get_user_data(parent_resource);
	if (surface->subsurface) {
		wl_resource_post_error(resource, WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE,
			"wl_surface@%u is already a subsurface", wl_resource_get_id(surface_resource));
		return;
	}
	for (struct surface *p = parent; p; p = p->subsurface ? p->subsurface->parent : NULL) {
		if (p == surface) {
			wl_resource_post_error(resource, SUBCOMPOSITOR_ERROR_BAD_PARENT,
				"wl_surface@%u cannot be its own ancestor",
				wl_resource_get_id(surface_resource));
			return;
		}
	}
	if (!compositor_surface_set_role(surface, "wl_subsurface", resource,
			WL_SUBCOMPOSITOR_ERROR_BAD_SURFACE))
		return;
	struct subsurface *sub = calloc(1, sizeof(*sub));
	if (!sub) {
		wl_client_post_no_memory(client);
		return;
	}
	sub->resource = wl_resource_create(client, &wl_subsurface_interface, 1, id);
	if (!sub->resource) {
		free(sub);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(sub->resource, &subsurface_impl, sub,
		subsurface_resource_destroy);
	sub->surface = surface;
	sub->parent = parent;
	sub->sync = true;
	surface->subsurface = sub;
	wl_list_insert(parent->above.prev, &sub->link);
	sub->parent_destroy.notify = subsurface_parent_destroyed;
	wl_signal_add(&parent->events.destroy, &sub->parent_destroy);
	sub->surface_destroy.notify = subsurface_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &sub->surface_destroy);
}

static const struct wl_subcompositor_interface subcompositor_impl = {
	.destroy = resource_destroy,
	.get_subsurface = subcompositor_get_subsurface,
};

static void
subcompositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	compositor_resource_create(client, &wl_subcompositor_interface,
		(int)version, id, &subcompositor_impl, data, NULL);
}

bool
compositor_surface_init(struct umms_compositor *c)
{
	c->compositor = wl_global_create(c->display, &wl_compositor_interface, COMPOSITOR_VERSION,
		c, compositor_bind);
	c->subcompositor = wl_global_create(c->display, &wl_subcompositor_interface, 1, c,
		subcompositor_bind);
	return c->compositor && c->subcompositor;
}
