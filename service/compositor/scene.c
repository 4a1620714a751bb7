/*
 * The scene of ummsd's compositor (compositor.h): the toplevels' surface
 * trees drawn with pixman into the primary plane's buffer when the KMS
 * output asks (umms_kms_ui_impl), frame callbacks and presentation
 * feedback answered at the page flip that showed them, and the video
 * placements of umms_video_player_v1.place handed to the display.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <wayland-server-protocol.h>

#include "compositor-private.h"
#include "dmabuf.h"
#include "error.h"
#include "log.h"
#include "presentation-time-protocol.h"
#include "seat.h"

/* ---- drawing ---------------------------------------------------------------- */

static pixman_format_code_t
shm_pixman_format(uint32_t format)
{
	switch (format) {
	case WL_SHM_FORMAT_ARGB8888: return PIXMAN_a8r8g8b8;
	case WL_SHM_FORMAT_XRGB8888: return PIXMAN_x8r8g8b8;
	case WL_SHM_FORMAT_ABGR8888: return PIXMAN_a8b8g8r8;
	case WL_SHM_FORMAT_XBGR8888: return PIXMAN_x8b8g8r8;
	case WL_SHM_FORMAT_RGB565: return PIXMAN_r5g6b5;
	default: return 0;
	}
}

static pixman_format_code_t
drm_pixman_format(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_ARGB8888: return PIXMAN_a8r8g8b8;
	case DRM_FORMAT_XRGB8888: return PIXMAN_x8r8g8b8;
	case DRM_FORMAT_ABGR8888: return PIXMAN_a8b8g8r8;
	case DRM_FORMAT_XBGR8888: return PIXMAN_x8b8g8r8;
	case DRM_FORMAT_RGB565: return PIXMAN_r5g6b5;
	default: return 0;
	}
}

/* The DRM formats the scene reads from client dma-bufs (linear, mapped by the CPU). */
static const uint32_t readable_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

/* Composites @src (@bw x @bh) for surface @s at (x, y) of @dst, scaled as its viewport says. */
static void
composite(pixman_image_t *dst, pixman_image_t *src, const struct surface *s, int bw, int bh,
	int x, int y)
{
	const struct surface_state *st = &s->current;
	int32_t scale = st->scale > 0 ? st->scale : 1;
	double sx = 0, sy = 0, sw = bw, sh = bh;
	if (st->src_w >= 0) {
		sx = st->src_x * scale, sy = st->src_y * scale;
		sw = st->src_w * scale, sh = st->src_h * scale;
	}
	if (s->width <= 0 || s->height <= 0)
		return;
	struct pixman_f_transform ft;
	pixman_f_transform_init_scale(&ft, sw / s->width, sh / s->height);
	pixman_f_transform_translate(&ft, NULL, sx, sy);
	struct pixman_transform t;
	pixman_transform_from_pixman_f_transform(&t, &ft);
	pixman_image_set_transform(src, &t);
	bool scaled = sw != s->width || sh != s->height;
	pixman_image_set_filter(src, scaled ? PIXMAN_FILTER_BILINEAR : PIXMAN_FILTER_NEAREST,
		NULL, 0);
	pixman_image_composite32(PIXMAN_OP_OVER, src, NULL, dst, 0, 0, 0, 0, x, y, s->width,
		s->height);
}

static void
draw_dmabuf(pixman_image_t *dst, struct umms_dmabuf_buffer *buf, const struct surface *s,
	int x, int y)
{
	pixman_format_code_t format = drm_pixman_format(buf->format);
	bool linear = buf->modifier == DRM_FORMAT_MOD_LINEAR ||
		buf->modifier == DRM_FORMAT_MOD_INVALID;
	if (!format || !linear || buf->n_planes != 1)
		return;
	size_t size = buf->offsets[0] + (size_t)buf->strides[0] * (size_t)buf->height;
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, buf->fds[0], 0);
	if (map == MAP_FAILED) {
		umms_debug("display: cannot map a client's dma-buf: %s", g_strerror(errno));
		return;
	}
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	ioctl(buf->fds[0], DMA_BUF_IOCTL_SYNC, &sync);
	pixman_image_t *src = pixman_image_create_bits_no_clear(format, buf->width, buf->height,
		(uint32_t *)(void *)((uint8_t *)map + buf->offsets[0]), (int)buf->strides[0]);
	if (src) {
		composite(dst, src, s, buf->width, buf->height, x, y);
		pixman_image_unref(src);
	}
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
	ioctl(buf->fds[0], DMA_BUF_IOCTL_SYNC, &sync);
	munmap(map, size);
}

static void
draw_buffer(pixman_image_t *dst, const struct surface *s, int x, int y)
{
	struct wl_resource *buffer = s->current.buffer;
	struct wl_shm_buffer *shm = buffer ? wl_shm_buffer_get(buffer) : NULL;
	if (shm) {
		pixman_format_code_t format = shm_pixman_format(wl_shm_buffer_get_format(shm));
		if (!format)
			return;
		int bw = wl_shm_buffer_get_width(shm), bh = wl_shm_buffer_get_height(shm);
		wl_shm_buffer_begin_access(shm);
		pixman_image_t *src = pixman_image_create_bits_no_clear(format, bw, bh,
			wl_shm_buffer_get_data(shm), wl_shm_buffer_get_stride(shm));
		if (src) {
			composite(dst, src, s, bw, bh, x, y);
			pixman_image_unref(src);
		}
		wl_shm_buffer_end_access(shm);
		return;
	}
	struct umms_dmabuf_buffer *dma = buffer ? umms_dmabuf_buffer_from_resource(buffer) : NULL;
	if (dma)
		draw_dmabuf(dst, dma, s, x, y);
}

static void draw_tree(struct umms_compositor *c, pixman_image_t *dst, struct surface *s, int x,
	int y);

static void
draw_children(struct umms_compositor *c, pixman_image_t *dst, struct wl_list *list, int x, int y)
{
	struct subsurface *sub;
	wl_list_for_each(sub, list, link)
		draw_tree(c, dst, sub->surface, x + sub->x, y + sub->y);
}

/* Draws @s and its subsurfaces; their frame callbacks and feedback now wait for the flip. */
static void
draw_tree(struct umms_compositor *c, pixman_image_t *dst, struct surface *s, int x, int y)
{
	if (!s->current.buffer)
		return;
	draw_children(c, dst, &s->below, x, y);
	draw_buffer(dst, s, x, y);
	draw_children(c, dst, &s->above, x, y);
	wl_list_insert_list(c->frames_drawn.prev, &s->current.frames);
	wl_list_init(&s->current.frames);
	wl_list_insert_list(c->feedbacks_drawn.prev, &s->current.feedbacks);
	wl_list_init(&s->current.feedbacks);
}

static void
ui_draw(void *data, pixman_image_t *dst, int x, int y)
{
	struct umms_compositor *c = data;
	/* Nothing past the UI's area: margins stay black. */
	pixman_region32_t clip;
	pixman_region32_init_rect(&clip, x, y, (unsigned)c->width, (unsigned)c->height);
	pixman_image_set_clip_region32(dst, &clip);
	struct toplevel *t;
	wl_list_for_each(t, &c->toplevels, link) {
		if (t->mapped)
			draw_tree(c, dst, t->surface, x, y);
	}
	pixman_image_set_clip_region32(dst, NULL);
	pixman_region32_fini(&clip);
}

static void
ui_presented(void *data, int64_t when_ns, uint32_t refresh_ns, uint64_t seq)
{
	struct umms_compositor *c = data;
	struct wl_resource *callback, *tmp;
	wl_resource_for_each_safe(callback, tmp, &c->frames_drawn) {
		wl_callback_send_done(callback, (uint32_t)(when_ns / 1000000));
		wl_resource_destroy(callback);
	}
	uint64_t sec = (uint64_t)(when_ns / 1000000000);
	uint32_t nsec = (uint32_t)(when_ns % 1000000000);
	struct feedback *fb, *fb_tmp;
	wl_list_for_each_safe(fb, fb_tmp, &c->feedbacks_drawn, link) {
		struct wl_client *client = wl_resource_get_client(fb->resource);
		struct wl_resource *output;
		wl_resource_for_each(output, &c->outputs) {
			if (wl_resource_get_client(output) == client)
				wp_presentation_feedback_send_sync_output(fb->resource, output);
		}
		wp_presentation_feedback_send_presented(fb->resource, (uint32_t)(sec >> 32),
			(uint32_t)sec, nsec, refresh_ns, (uint32_t)(seq >> 32), (uint32_t)seq,
			WP_PRESENTATION_FEEDBACK_KIND_VSYNC | WP_PRESENTATION_FEEDBACK_KIND_HW_CLOCK |
			WP_PRESENTATION_FEEDBACK_KIND_HW_COMPLETION);
		wl_resource_destroy(fb->resource);
	}
}

static void
ui_resized(void *data, int width, int height)
{
	struct umms_compositor *c = data;
	if (width == c->width && height == c->height)
		return;
	c->width = width, c->height = height;
	if (c->seat)
		umms_seat_set_output_size(c->seat, width, height);
	compositor_shell_resize(c);
	compositor_scene_damage(c);
}

const struct umms_kms_ui_impl compositor_ui_impl = {
	.draw = ui_draw,
	.presented = ui_presented,
	.resized = ui_resized,
};

/* ---- video placements ------------------------------------------------------- */

/* Tells the display where the placed video is now, if that changed. */
static void
update_video(struct umms_compositor *c)
{
	if (!c->video_surface)
		return;
	struct video_place *v = &c->video;
	int x, y;
	bool shown = compositor_surface_position(c->video_surface, &x, &y);
	struct umms_kms_video_place place = {
		.x = x + v->x, .y = y + v->y,
		.width = shown ? v->width : 0, .height = shown ? v->height : 0,
		.scale = v->scale, .above_ui = v->above,
	};
	if (c->video_sent && memcmp(&place, &c->video_last, sizeof(place)) == 0)
		return;
	c->video_last = place;
	c->video_sent = true;
	c->hooks.place_video(c->hooks_data, v->player, &place);
}

static void
end_video(struct umms_compositor *c)
{
	if (!c->video_surface)
		return;
	struct umms_player *player = c->video.player;
	c->video_surface = NULL;
	c->video_sent = false;
	memset(&c->video, 0, sizeof(c->video));
	c->hooks.place_video(c->hooks_data, player, NULL);
}

void
compositor_scene_apply_video(struct umms_compositor *c, struct surface *surface,
	const struct video_place *video)
{
	if (c->video_surface && c->video.player != video->player)
		end_video(c);
	c->video = *video;
	c->video.set = false;
	c->video_surface = surface;
}

void
compositor_scene_surface_gone(struct umms_compositor *c, struct surface *surface)
{
	if (c->video_surface == surface)
		end_video(c);
}

static bool
any_mapped(struct umms_compositor *c)
{
	struct toplevel *t;
	wl_list_for_each(t, &c->toplevels, link) {
		if (t->mapped)
			return true;
	}
	return false;
}

void
compositor_scene_damage(struct umms_compositor *c)
{
	if (c->destroying)
		return;
	update_video(c);
	umms_kms_output_damage_ui(c->kms, any_mapped(c));
}

bool
umms_compositor_place(struct umms_compositor *c, struct wl_resource *surface_resource,
	void *owner, struct umms_player *player, int x, int y, int width, int height,
	enum umms_layout_scale scale, bool above, GError **error)
{
	struct surface *s = compositor_surface_from_resource(surface_resource);
	if (!s) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a surface of ummsd's compositor");
		return false;
	}
	s->pending.video = (struct video_place){ .set = true, .owner = owner, .player = player,
		.x = x, .y = y, .width = width, .height = height, .scale = scale, .above = above };
	return true;
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
	if (c->video_surface && c->video.owner == owner)
		end_video(c);
}

/* ---- input ------------------------------------------------------------------ */

static struct wl_resource *
tree_at(struct surface *s, int x, int y, double px, double py, double *sx, double *sy)
{
	struct subsurface *sub;
	wl_list_for_each_reverse(sub, &s->above, link) {
		struct wl_resource *r = tree_at(sub->surface, x + sub->x, y + sub->y, px, py, sx, sy);
		if (r)
			return r;
	}
	if (s->current.buffer && px >= x && py >= y && px < x + s->width && py < y + s->height) {
		*sx = px - x, *sy = py - y;
		return s->resource;
	}
	wl_list_for_each_reverse(sub, &s->below, link) {
		struct wl_resource *r = tree_at(sub->surface, x + sub->x, y + sub->y, px, py, sx, sy);
		if (r)
			return r;
	}
	return NULL;
}

static struct wl_resource *
surface_at(void *data, double x, double y, double *sx, double *sy)
{
	struct umms_compositor *c = data;
	struct toplevel *t;
	wl_list_for_each_reverse(t, &c->toplevels, link) {
		if (t->mapped)
			return tree_at(t->surface, 0, 0, x, y, sx, sy);
	}
	return NULL;
}

static const struct umms_seat_hooks seat_hooks = { .surface_at = surface_at };

/* ---- the compositor --------------------------------------------------------- */

/* linux-dmabuf feedback: what the video planes scan out, then what the scene reads. */
static bool
make_dmabuf(struct umms_compositor *c, GError **error)
{
	dev_t device = umms_kms_output_get_device(c->kms);
	uint32_t *scanout = NULL;
	int n_scanout = umms_kms_output_get_overlay_formats(c->kms, &scanout);
	struct umms_dmabuf_format *formats = g_new0(struct umms_dmabuf_format,
		(size_t)n_scanout + G_N_ELEMENTS(readable_formats));
	for (int i = 0; i < n_scanout; i++)
		formats[i] = (struct umms_dmabuf_format){ scanout[i], DRM_FORMAT_MOD_LINEAR };
	for (size_t i = 0; i < G_N_ELEMENTS(readable_formats); i++)
		formats[n_scanout + (int)i] = (struct umms_dmabuf_format){ readable_formats[i],
			DRM_FORMAT_MOD_LINEAR };
	struct umms_dmabuf_tranche tranches[] = {
		{ .device = device, .scanout = true, .formats = formats,
			.n_formats = (size_t)n_scanout },
		{ .device = device, .scanout = false, .formats = formats + n_scanout,
			.n_formats = G_N_ELEMENTS(readable_formats) },
	};
	struct umms_dmabuf_feedback feedback = {
		.main_device = device,
		.tranches = n_scanout ? tranches : tranches + 1,
		.n_tranches = n_scanout ? 2 : 1,
	};
	c->dmabuf = umms_dmabuf_create(c->display, &feedback, error);
	g_free(formats);
	g_free(scanout);
	return c->dmabuf != NULL;
}

struct umms_compositor *
umms_compositor_create(struct wl_display *display, struct umms_target *kms,
	const struct umms_compositor_config *config, const struct umms_compositor_hooks *hooks,
	void *data, GError **error)
{
	struct umms_compositor *c = g_new0(struct umms_compositor, 1);
	c->display = display;
	c->kms = kms;
	c->hooks = *hooks;
	c->hooks_data = data;
	wl_list_init(&c->surfaces);
	wl_list_init(&c->toplevels);
	wl_list_init(&c->outputs);
	wl_list_init(&c->frames_drawn);
	wl_list_init(&c->feedbacks_drawn);
	int a[4];
	umms_kms_output_get_ui_area(kms, a);
	c->width = a[2], c->height = a[3];
	if (!compositor_surface_init(c) || !compositor_shell_init(c)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "display: cannot make globals");
		goto fail;
	}
	if (wl_display_init_shm(display) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "display: cannot offer wl_shm");
		goto fail;
	}
	if (!make_dmabuf(c, error))
		goto fail;
	struct umms_seat_config seat_config = {
		.name = config->seat && *config->seat ? config->seat : "seat0",
		.xkb_layout = config->xkb_layout,
		.input = config->input,
		.session = config->session,
	};
	c->seat = umms_seat_create(display, &seat_config, &seat_hooks, c, error);
	if (!c->seat)
		goto fail;
	umms_seat_set_output_size(c->seat, c->width, c->height);
	umms_kms_output_set_ui(kms, &compositor_ui_impl, c);
	return c;
fail:
	umms_compositor_destroy(c);
	return NULL;
}

void
umms_compositor_destroy(struct umms_compositor *c)
{
	if (!c)
		return;
	c->destroying = true;
	if (c->kms)
		umms_kms_output_set_ui(c->kms, NULL, NULL);
	umms_seat_destroy(c->seat);
	umms_dmabuf_destroy(c->dmabuf);
	compositor_shell_finish(c);
	if (c->compositor)
		wl_global_destroy(c->compositor);
	if (c->subcompositor)
		wl_global_destroy(c->subcompositor);
	/*
	 * The screen is going (ummsd stops): the clients that made surfaces go
	 * with it, since their objects point at us.
	 */
	while (!wl_list_empty(&c->surfaces)) {
		struct surface *s = wl_container_of(c->surfaces.next, s, link);
		wl_client_destroy(wl_resource_get_client(s->resource));
	}
	g_free(c);
}
