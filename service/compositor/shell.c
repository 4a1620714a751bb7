/*
 * The shell of ummsd's compositor (compositor-private.h): xdg_wm_base with
 * every toplevel fullscreen (kiosk style, the newest on top and focused),
 * wl_output, wp_viewporter and wp_presentation.
 *
 * Popups are not shown: a popup is dismissed (popup_done) as soon as it is
 * made, which clients handle as a user clicking away.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <stdlib.h>
#include <string.h>
#include <wayland-server-protocol.h>

#include "compositor-private.h"
#include "log.h"
#include "presentation-time-protocol.h"
#include "seat.h"
#include "viewporter-protocol.h"
#include "xdg-shell-protocol.h"

#define WM_BASE_VERSION 3
#define OUTPUT_VERSION 4

static void
resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

/* ---- xdg_positioner: accepted, unused (popups are dismissed) ---------------- */

static void positioner_set_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h) {}
static void positioner_set_rect(struct wl_client *c, struct wl_resource *r, int32_t x, int32_t y,
	int32_t w, int32_t h) {}
static void positioner_set_u32(struct wl_client *c, struct wl_resource *r, uint32_t v) {}
static void positioner_set_offset(struct wl_client *c, struct wl_resource *r, int32_t x,
	int32_t y) {}
static void positioner_set_reactive(struct wl_client *c, struct wl_resource *r) {}
static void positioner_set_parent_configure(struct wl_client *c, struct wl_resource *r,
	uint32_t serial) {}

static const struct xdg_positioner_interface positioner_impl = {
	.destroy = resource_destroy,
	.set_size = positioner_set_size,
	.set_anchor_rect = positioner_set_rect,
	.set_anchor = positioner_set_u32,
	.set_gravity = positioner_set_u32,
	.set_constraint_adjustment = positioner_set_u32,
	.set_offset = positioner_set_offset,
	.set_reactive = positioner_set_reactive,
	.set_parent_size = positioner_set_offset,
	.set_parent_configure = positioner_set_parent_configure,
};

/* ---- toplevels -------------------------------------------------------------- */

static struct toplevel *
newest_mapped(struct umms_compositor *c)
{
	struct toplevel *t;
	wl_list_for_each_reverse(t, &c->toplevels, link) {
		if (t->mapped)
			return t;
	}
	return NULL;
}

static void
update_focus(struct umms_compositor *c)
{
	struct toplevel *t = newest_mapped(c);
	if (c->seat)
		umms_seat_set_keyboard_focus(c->seat, t ? t->surface->resource : NULL);
}

static void
toplevel_configure(struct toplevel *t)
{
	struct umms_compositor *c = t->surface->compositor;
	struct wl_array states;
	wl_array_init(&states);
	uint32_t *state = wl_array_add(&states, sizeof(uint32_t) * 2);
	if (state) {
		state[0] = XDG_TOPLEVEL_STATE_FULLSCREEN;
		state[1] = XDG_TOPLEVEL_STATE_ACTIVATED;
	}
	xdg_toplevel_send_configure(t->resource, c->width, c->height, &states);
	wl_array_release(&states);
	t->configure_serial = wl_display_next_serial(c->display);
	xdg_surface_send_configure(t->xdg_surface, t->configure_serial);
	t->sent_w = c->width, t->sent_h = c->height;
}

void
compositor_toplevel_committed(struct toplevel *t)
{
	struct umms_compositor *c = t->surface->compositor;
	if (!t->resource)
		return;
	if (!t->configure_serial) {
		/* The initial commit: the client waits for its size. */
		toplevel_configure(t);
		return;
	}
	bool mapped = compositor_surface_has_content(t->surface);
	if (mapped != t->mapped) {
		t->mapped = mapped;
		c->whole = true;
		umms_info("display: %s window of %s", mapped ? "showing" : "hiding",
			t->surface->role);
		update_focus(c);
	}
}

void
compositor_shell_resize(struct umms_compositor *c)
{
	struct toplevel *t;
	wl_list_for_each(t, &c->toplevels, link) {
		if (t->resource && t->configure_serial &&
				(t->sent_w != c->width || t->sent_h != c->height))
			toplevel_configure(t);
	}
	struct wl_resource *output;
	wl_resource_for_each(output, &c->outputs) {
		wl_output_send_mode(output, WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED,
			c->width, c->height, umms_screen_get_refresh_mhz(c->screen));
		if (wl_resource_get_version(output) >= 2)
			wl_output_send_done(output);
	}
}

static void
toplevel_unmap(struct toplevel *t)
{
	struct umms_compositor *c = t->surface ? t->surface->compositor : NULL;
	if (t->resource) {
		wl_resource_set_user_data(t->resource, NULL);
		t->resource = NULL;
	}
	if (t->surface)
		t->surface->toplevel = NULL;
	wl_list_remove(&t->link);
	wl_list_init(&t->link);
	if (c) {
		update_focus(c);
		compositor_scene_damage(c);
	}
}

static void
toplevel_resource_destroy(struct wl_resource *resource)
{
	struct toplevel *t = wl_resource_get_user_data(resource);
	if (t) {
		t->resource = NULL;
		toplevel_unmap(t);
		t->mapped = false;
	}
}

static void toplevel_set_parent(struct wl_client *c, struct wl_resource *r, struct wl_resource *p) {}
static void toplevel_set_string(struct wl_client *c, struct wl_resource *r, const char *s) {}
static void toplevel_show_window_menu(struct wl_client *c, struct wl_resource *r,
	struct wl_resource *seat, uint32_t serial, int32_t x, int32_t y) {}
static void toplevel_move(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
	uint32_t serial) {}
static void toplevel_resize(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
	uint32_t serial, uint32_t edges) {}
static void toplevel_set_size(struct wl_client *c, struct wl_resource *r, int32_t w, int32_t h) {}
static void toplevel_state(struct wl_client *c, struct wl_resource *r) {}
static void toplevel_set_fullscreen(struct wl_client *c, struct wl_resource *r,
	struct wl_resource *output) {}

/* Every window is fullscreen already: the state requests change nothing. */
static const struct xdg_toplevel_interface toplevel_impl = {
	.destroy = resource_destroy,
	.set_parent = toplevel_set_parent,
	.set_title = toplevel_set_string,
	.set_app_id = toplevel_set_string,
	.show_window_menu = toplevel_show_window_menu,
	.move = toplevel_move,
	.resize = toplevel_resize,
	.set_max_size = toplevel_set_size,
	.set_min_size = toplevel_set_size,
	.set_maximized = toplevel_state,
	.unset_maximized = toplevel_state,
	.set_fullscreen = toplevel_set_fullscreen,
	.unset_fullscreen = toplevel_state,
	.set_minimized = toplevel_state,
};

/* ---- xdg_surface ------------------------------------------------------------ */

struct xdg_surface {
	struct wl_resource *resource;
	struct surface *surface;
	struct wl_listener surface_destroy;
	struct toplevel toplevel;
	bool has_role_object;
};

static void
xdg_surface_get_toplevel(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct xdg_surface *x = wl_resource_get_user_data(resource);
	if (!x->surface) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_DEFUNCT_SURFACES,
			"the wl_surface is gone");
		return;
	}
	if (x->has_role_object || !compositor_surface_set_role(x->surface, "xdg_toplevel",
			resource, XDG_WM_BASE_ERROR_ROLE)) {
		if (x->has_role_object)
			wl_resource_post_error(resource, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
				"xdg_surface already has a role object");
		return;
	}
	struct toplevel *t = &x->toplevel;
	t->resource = wl_resource_create(client, &xdg_toplevel_interface,
		wl_resource_get_version(resource), id);
	if (!t->resource) {
		wl_client_post_no_memory(client);
		return;
	}
	x->has_role_object = true;
	t->surface = x->surface;
	t->xdg_surface = resource;
	x->surface->toplevel = t;
	wl_list_insert(x->surface->compositor->toplevels.prev, &t->link);
	wl_resource_set_implementation(t->resource, &toplevel_impl, t, toplevel_resource_destroy);
}

static void
popup_grab(struct wl_client *c, struct wl_resource *r, struct wl_resource *seat,
	uint32_t serial) {}
static void
popup_reposition(struct wl_client *c, struct wl_resource *r, struct wl_resource *positioner,
	uint32_t token) {}

static const struct xdg_popup_interface popup_impl = {
	.destroy = resource_destroy,
	.grab = popup_grab,
	.reposition = popup_reposition,
};

static void
xdg_surface_get_popup(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	struct wl_resource *parent, struct wl_resource *positioner)
{
	struct xdg_surface *x = wl_resource_get_user_data(resource);
	if (!x->surface || !compositor_surface_set_role(x->surface, "xdg_popup", resource,
			XDG_WM_BASE_ERROR_ROLE))
		return;
	struct wl_resource *popup = compositor_resource_create(client, &xdg_popup_interface,
		wl_resource_get_version(resource), id, &popup_impl, NULL, NULL);
	if (popup)
		xdg_popup_send_popup_done(popup);
}

static void
xdg_surface_set_window_geometry(struct wl_client *client, struct wl_resource *resource,
	int32_t x, int32_t y, int32_t width, int32_t height)
{
	if (width <= 0 || height <= 0)
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SIZE,
			"window geometry %dx%d", width, height);
}

static void
xdg_surface_ack_configure(struct wl_client *client, struct wl_resource *resource,
	uint32_t serial)
{
	struct xdg_surface *x = wl_resource_get_user_data(resource);
	struct toplevel *t = &x->toplevel;
	if (!x->has_role_object) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_NOT_CONSTRUCTED,
			"ack_configure before get_toplevel");
		return;
	}
	/*
	 * Sent serials grow (modulo 2^32): only one from the last acked to the
	 * last sent can name a configure; older ones were acked or superseded.
	 */
	uint32_t since = t->configured ? t->acked_serial : t->configure_serial;
	if (!t->configure_serial || t->configure_serial - serial > t->configure_serial - since) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_INVALID_SERIAL,
			"serial %u was never sent (last %u)", serial, t->configure_serial);
		return;
	}
	t->acked_serial = serial;
	t->configured = true;
}

static const struct xdg_surface_interface xdg_surface_impl = {
	.destroy = resource_destroy,
	.get_toplevel = xdg_surface_get_toplevel,
	.get_popup = xdg_surface_get_popup,
	.set_window_geometry = xdg_surface_set_window_geometry,
	.ack_configure = xdg_surface_ack_configure,
};

static void
xdg_surface_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct xdg_surface *x = wl_container_of(listener, x, surface_destroy);
	wl_list_remove(&x->surface_destroy.link);
	wl_list_init(&x->surface_destroy.link);
	if (x->has_role_object && x->toplevel.surface) {
		x->toplevel.mapped = false;
		toplevel_unmap(&x->toplevel);
		x->toplevel.surface = NULL;
	}
	x->surface = NULL;
}

static void
xdg_surface_resource_destroy(struct wl_resource *resource)
{
	struct xdg_surface *x = wl_resource_get_user_data(resource);
	if (x->toplevel.resource)
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_DEFUNCT_ROLE_OBJECT,
			"xdg_surface destroyed before its xdg_toplevel");
	if (x->has_role_object && x->toplevel.surface) {
		x->toplevel.mapped = false;
		toplevel_unmap(&x->toplevel);
	}
	wl_list_remove(&x->surface_destroy.link);
	free(x);
}

/* Commits of a surface whose toplevel is not configured yet must not carry a buffer. */
static bool
check_unconfigured(struct xdg_surface *x)
{
	return !(x->has_role_object && !x->toplevel.configured && x->surface &&
		x->surface->pending.buffer);
}

/* ---- xdg_wm_base ------------------------------------------------------------ */

static void
wm_base_create_positioner(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	compositor_resource_create(client, &xdg_positioner_interface,
		wl_resource_get_version(resource), id, &positioner_impl, NULL, NULL);
}

static void
wm_base_get_xdg_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	struct wl_resource *surface_resource)
{
	struct surface *surface = compositor_surface_from_resource(surface_resource);
	if (surface->current.buffer || surface->pending.buffer) {
		wl_resource_post_error(resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
			"wl_surface@%u already has a buffer", wl_resource_get_id(surface_resource));
		return;
	}
	if (surface->role && strcmp(surface->role, "xdg_toplevel") != 0 &&
			strcmp(surface->role, "xdg_popup") != 0) {
		wl_resource_post_error(resource, XDG_WM_BASE_ERROR_ROLE,
			"wl_surface@%u already has the role %s", wl_resource_get_id(surface_resource),
			surface->role);
		return;
	}
	struct xdg_surface *x = calloc(1, sizeof(*x));
	if (!x) {
		wl_client_post_no_memory(client);
		return;
	}
	x->resource = wl_resource_create(client, &xdg_surface_interface,
		wl_resource_get_version(resource), id);
	if (!x->resource) {
		free(x);
		wl_client_post_no_memory(client);
		return;
	}
	x->surface = surface;
	wl_list_init(&x->toplevel.link);
	x->surface_destroy.notify = xdg_surface_surface_destroyed;
	wl_signal_add(&surface->events.destroy, &x->surface_destroy);
	wl_resource_set_implementation(x->resource, &xdg_surface_impl, x,
		xdg_surface_resource_destroy);
}

static void
wm_base_pong(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
}

static const struct xdg_wm_base_interface wm_base_impl = {
	.destroy = resource_destroy,
	.create_positioner = wm_base_create_positioner,
	.get_xdg_surface = wm_base_get_xdg_surface,
	.pong = wm_base_pong,
};

static void
wm_base_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	compositor_resource_create(client, &xdg_wm_base_interface,
		(int)version, id, &wm_base_impl, data, NULL);
}

/* Called by surface.c's commit through the toplevel: see compositor_toplevel_committed. */
bool
compositor_shell_check_commit(struct surface *surface)
{
	if (!surface->toplevel)
		return true;
	struct xdg_surface *x = wl_container_of(surface->toplevel, x, toplevel);
	if (check_unconfigured(x))
		return true;
	wl_resource_post_error(x->resource, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
		"a buffer before the first configure was acknowledged");
	return false;
}

/* ---- wl_output -------------------------------------------------------------- */

static void
output_release(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_output_interface output_impl = {
	.release = output_release,
};

static void
output_unlink(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void
output_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct umms_compositor *c = data;
	struct wl_resource *resource = compositor_resource_create(client, &wl_output_interface,
		(int)version, id, &output_impl, c, output_unlink);
	if (!resource)
		return;
	wl_list_insert(&c->outputs, wl_resource_get_link(resource));
	wl_output_send_geometry(resource, 0, 0, 0, 0, WL_OUTPUT_SUBPIXEL_UNKNOWN, "umms",
		"KMS", WL_OUTPUT_TRANSFORM_NORMAL);
	wl_output_send_mode(resource, WL_OUTPUT_MODE_CURRENT | WL_OUTPUT_MODE_PREFERRED,
		c->width, c->height, umms_screen_get_refresh_mhz(c->screen));
	if (version >= 2)
		wl_output_send_scale(resource, 1);
	if (version >= 4) {
		wl_output_send_name(resource, "UMMS-1");
		wl_output_send_description(resource, "the screen ummsd drives");
	}
	if (version >= 2)
		wl_output_send_done(resource);
}

/* ---- wp_viewporter ---------------------------------------------------------- */

static struct surface *
viewport_surface(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (!s)
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_NO_SURFACE,
			"the wl_surface is gone");
	return s;
}

static void
viewport_destroy(struct wl_client *client, struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (s) {
		s->pending.src_w = -1;
		s->pending.dst_w = -1;
		s->pending.committed |= STATE_VIEWPORT_SRC | STATE_VIEWPORT_DST;
	}
	wl_resource_destroy(resource);
}

static void
viewport_set_source(struct wl_client *client, struct wl_resource *resource, wl_fixed_t x,
	wl_fixed_t y, wl_fixed_t width, wl_fixed_t height)
{
	struct surface *s = viewport_surface(resource);
	if (!s)
		return;
	double v[4] = { wl_fixed_to_double(x), wl_fixed_to_double(y),
		wl_fixed_to_double(width), wl_fixed_to_double(height) };
	bool unset = v[0] == -1 && v[1] == -1 && v[2] == -1 && v[3] == -1;
	if (!unset && (v[0] < 0 || v[1] < 0 || v[2] <= 0 || v[3] <= 0)) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE,
			"source %g,%g %gx%g", v[0], v[1], v[2], v[3]);
		return;
	}
	s->pending.src_x = v[0], s->pending.src_y = v[1];
	s->pending.src_w = unset ? -1 : v[2], s->pending.src_h = v[3];
	s->pending.committed |= STATE_VIEWPORT_SRC;
}

static void
viewport_set_destination(struct wl_client *client, struct wl_resource *resource, int32_t width,
	int32_t height)
{
	struct surface *s = viewport_surface(resource);
	if (!s)
		return;
	bool unset = width == -1 && height == -1;
	if (!unset && (width <= 0 || height <= 0)) {
		wl_resource_post_error(resource, WP_VIEWPORT_ERROR_BAD_VALUE, "destination %dx%d",
			width, height);
		return;
	}
	s->pending.dst_w = unset ? -1 : width, s->pending.dst_h = height;
	s->pending.committed |= STATE_VIEWPORT_DST;
}

static const struct wp_viewport_interface viewport_impl = {
	.destroy = viewport_destroy,
	.set_source = viewport_set_source,
	.set_destination = viewport_set_destination,
};

static void
viewport_surface_destroyed(struct wl_listener *listener, void *data)
{
	struct surface *s = data;
	wl_list_remove(&listener->link);
	free(listener);
	if (s->viewport)
		wl_resource_set_user_data(s->viewport, NULL);
	s->viewport = NULL;
}

static void
viewport_resource_destroy(struct wl_resource *resource)
{
	struct surface *s = wl_resource_get_user_data(resource);
	if (!s)
		return;
	s->viewport = NULL;
	struct wl_listener *l = wl_signal_get(&s->events.destroy, viewport_surface_destroyed);
	if (l) {
		wl_list_remove(&l->link);
		free(l);
	}
}

bool
compositor_viewport_check(struct surface *s)
{
	const struct surface_state *st = &s->current;
	if (!st->buffer || st->src_w < 0)
		return true;
	int bw = 0, bh = 0;
	struct wl_shm_buffer *shm = wl_shm_buffer_get(st->buffer);
	if (shm)
		bw = wl_shm_buffer_get_width(shm), bh = wl_shm_buffer_get_height(shm);
	int32_t scale = st->scale > 0 ? st->scale : 1;
	if (shm && (st->src_x + st->src_w > (double)bw / scale ||
			st->src_y + st->src_h > (double)bh / scale)) {
		wl_resource_post_error(s->viewport, WP_VIEWPORT_ERROR_OUT_OF_BUFFER,
			"source %g,%g %gx%g outside the %dx%d buffer", st->src_x, st->src_y, st->src_w,
			st->src_h, bw / scale, bh / scale);
		return false;
	}
	return true;
}

static void
viewporter_get_viewport(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	struct wl_resource *surface_resource)
{
	struct surface *s = compositor_surface_from_resource(surface_resource);
	if (s->viewport) {
		wl_resource_post_error(resource, WP_VIEWPORTER_ERROR_VIEWPORT_EXISTS,
			"wl_surface@%u has a viewport", wl_resource_get_id(surface_resource));
		return;
	}
	struct wl_listener *l = calloc(1, sizeof(*l));
	struct wl_resource *viewport = l ? wl_resource_create(client, &wp_viewport_interface, 1,
		id) : NULL;
	if (!viewport) {
		free(l);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(viewport, &viewport_impl, s, viewport_resource_destroy);
	s->viewport = viewport;
	l->notify = viewport_surface_destroyed;
	wl_signal_add(&s->events.destroy, l);
}

static const struct wp_viewporter_interface viewporter_impl = {
	.destroy = resource_destroy,
	.get_viewport = viewporter_get_viewport,
};

static void
viewporter_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	compositor_resource_create(client, &wp_viewporter_interface,
		(int)version, id, &viewporter_impl, data, NULL);
}

/* ---- wp_presentation -------------------------------------------------------- */

static void
feedback_resource_destroy(struct wl_resource *resource)
{
	struct feedback *fb = wl_resource_get_user_data(resource);
	wl_list_remove(&fb->link);
	free(fb);
}

void
compositor_feedback_discard(struct feedback *fb)
{
	wp_presentation_feedback_send_discarded(fb->resource);
	wl_resource_destroy(fb->resource);
}

static void
presentation_feedback(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *surface_resource, uint32_t id)
{
	struct surface *s = compositor_surface_from_resource(surface_resource);
	struct feedback *fb = calloc(1, sizeof(*fb));
	if (!fb || !(fb->resource = wl_resource_create(client, &wp_presentation_feedback_interface,
			1, id))) {
		free(fb);
		wl_client_post_no_memory(client);
		return;
	}
	fb->surface = s;
	wl_resource_set_implementation(fb->resource, NULL, fb, feedback_resource_destroy);
	wl_list_insert(s->pending.feedbacks.prev, &fb->link);
}

static const struct wp_presentation_interface presentation_impl = {
	.destroy = resource_destroy,
	.feedback = presentation_feedback,
};

static void
presentation_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = compositor_resource_create(client, &wp_presentation_interface,
		(int)version, id, &presentation_impl, data, NULL);
	if (resource)
		wp_presentation_send_clock_id(resource, CLOCK_MONOTONIC);
}

/* ---- globals ---------------------------------------------------------------- */

bool
compositor_shell_init(struct umms_compositor *c)
{
	c->wm_base = wl_global_create(c->display, &xdg_wm_base_interface, WM_BASE_VERSION, c,
		wm_base_bind);
	c->output = wl_global_create(c->display, &wl_output_interface, OUTPUT_VERSION, c,
		output_bind);
	c->viewporter = wl_global_create(c->display, &wp_viewporter_interface, 1, c,
		viewporter_bind);
	c->presentation = wl_global_create(c->display, &wp_presentation_interface, 1, c,
		presentation_bind);
	return c->wm_base && c->output && c->viewporter && c->presentation;
}

void
compositor_shell_finish(struct umms_compositor *c)
{
	struct wl_global **globals[] = { &c->wm_base, &c->output, &c->viewporter,
		&c->presentation };
	for (size_t i = 0; i < G_N_ELEMENTS(globals); i++) {
		if (*globals[i])
			wl_global_destroy(*globals[i]);
		*globals[i] = NULL;
	}
}
