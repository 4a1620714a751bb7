/*
 * The scene of ummsd's compositor (compositor.h): the toplevels' surface
 * trees drawn with the screen's renderer (renderers/renderer.h) into its
 * buffer when the screen asks (umms_screen_ui_impl), frame callbacks and
 * presentation feedback answered when what was drawn reached the screen;
 * the videos placed under and over each toplevel drawn with it (placement.c).
 *
 * Damage: a surface's commit repaints only what it changed (its buffer
 * damage, or its old and new place when it moved or was resized), uploaded
 * only in that part (renderer.h damage); anything else (a window mapped or
 * unmapped, a subsurface made or restacked, videos placed) repaints the
 * whole UI area.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <errno.h>
#include <linux/dma-buf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wayland-server-protocol.h>

#include "compositor-private.h"
#include "dmabuf.h"
#include "error.h"
#include "log.h"
#include "presentation-time-protocol.h"
#include "renderer.h"
#include "seat.h"

/* ---- drawing ---------------------------------------------------------------- */

/* The DRM formats the scene reads from client dma-bufs when it maps them (linear). */
static const uint32_t readable_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

static uint32_t
shm_drm_format(uint32_t format)
{
	/* wl_shm: fourccs, except the two oldest codes. */
	return format == WL_SHM_FORMAT_ARGB8888 ? DRM_FORMAT_ARGB8888 :
		format == WL_SHM_FORMAT_XRGB8888 ? DRM_FORMAT_XRGB8888 : format;
}

/* Surface images are told apart from video frames in the renderer's import cache. */
#define SURFACE_IMAGE_ID (UINT64_C(1) << 63)

struct draw_ctx {
	struct umms_compositor *c;
	struct umms_renderer *r;
	struct umms_render_box area;   /* the UI area in buffer pixels: nothing drawn past it */
	bool culled;                   /* the last draw_image() was all outside the area */
};

/*
 * Draws @image for surface @s at (x, y) of the UI area, scaled as its
 * viewport says, clipped to the area (the source cut in proportion).
 */
static bool
draw_image(struct draw_ctx *d, const struct surface *s, const struct umms_render_image *image,
	int x, int y, GError **error)
{
	const struct surface_state *st = &s->current;
	int32_t scale = st->scale > 0 ? st->scale : 1;
	struct umms_render_box src = { 0, 0, image->width, image->height };
	if (st->src_w >= 0)
		src = (struct umms_render_box){ st->src_x * scale, st->src_y * scale,
			st->src_w * scale, st->src_h * scale };
	d->culled = true;
	if (s->width <= 0 || s->height <= 0 || src.width <= 0 || src.height <= 0)
		return true;
	struct umms_render_box dst = { d->area.x + x, d->area.y + y, s->width, s->height };
	double fx = src.width / dst.width, fy = src.height / dst.height;
	double x0 = MAX(dst.x, d->area.x), y0 = MAX(dst.y, d->area.y);
	double x1 = MIN(dst.x + dst.width, d->area.x + d->area.width);
	double y1 = MIN(dst.y + dst.height, d->area.y + d->area.height);
	if (x1 <= x0 || y1 <= y0)
		return true;
	d->culled = false;
	src.x += (x0 - dst.x) * fx, src.y += (y0 - dst.y) * fy;
	src.width = (x1 - x0) * fx, src.height = (y1 - y0) * fy;
	dst = (struct umms_render_box){ x0, y0, x1 - x0, y1 - y0 };
	return umms_renderer_draw(d->r, image, &src, &dst, error);
}

/*
 * A client's dma-buf: imported by the renderer where it can; else (or when
 * the import fails) mapped and read as memory, so a refused import never
 * shows as black. Linear single-plane RGB only for the mapped way.
 */
static void
draw_dmabuf(struct draw_ctx *d, struct umms_dmabuf_buffer *buf, const struct surface *s,
	int x, int y)
{
	struct umms_render_image image = {
		.format = buf->format, .modifier = buf->modifier,
		.width = buf->width, .height = buf->height, .dmabuf = true,
		.n_planes = buf->n_planes, .id = 0,
	};
	for (int i = 0; i < buf->n_planes && i < UMMS_RENDER_MAX_PLANES; i++)
		image.planes[i] = (struct umms_render_plane){ .fd = buf->fds[i], .data = NULL,
			.offset = buf->offsets[i], .stride = buf->strides[i] };
	g_autoptr(GError) error = NULL;
	if (umms_renderer_can_draw(d->r, &image) && draw_image(d, s, &image, x, y, &error))
		return;
	if (error && !d->c->said_dmabuf_fallback) {
		umms_info("display: %s: reading clients' dma-bufs by mapping them instead",
			error->message);
		d->c->said_dmabuf_fallback = true;
	}
	bool linear = buf->modifier == DRM_FORMAT_MOD_LINEAR ||
		buf->modifier == DRM_FORMAT_MOD_INVALID;
	bool readable = false;
	for (size_t i = 0; i < G_N_ELEMENTS(readable_formats); i++)
		readable |= readable_formats[i] == buf->format;
	if (!readable || !linear || buf->n_planes != 1)
		return;
	int bpp = buf->format == DRM_FORMAT_RGB565 ? 2 : 4;
	if ((uint64_t)buf->width * (uint64_t)bpp > buf->strides[0]) {
		umms_debug("display: a client's dma-buf: stride %u under width %d", buf->strides[0],
			buf->width);
		return;
	}
	size_t size = buf->offsets[0] + (size_t)buf->strides[0] * (size_t)buf->height;
	/* Checked at creation, but a memfd sent as a dma-buf may have shrunk since. */
	off_t have = lseek(buf->fds[0], 0, SEEK_END);
	lseek(buf->fds[0], 0, SEEK_SET);   /* the client shares this file position */
	if (have < 0 || (uint64_t)have < size) {
		umms_debug("display: a client's dma-buf is %jd bytes, under the %zu it needs",
			(intmax_t)have, size);
		return;
	}
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	bool is_dmabuf = ioctl(buf->fds[0], DMA_BUF_IOCTL_SYNC, &sync) == 0;
	void *map = NULL, *copy = NULL;
	if (is_dmabuf) {
		/* A real dma-buf keeps its size: mapped. */
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, buf->fds[0], 0);
		if (map == MAP_FAILED) {
			umms_debug("display: cannot map a client's dma-buf: %s", g_strerror(errno));
			goto end;
		}
	} else {
		/*
		 * Any other file (a memfd) can be shrunk by its client while read:
		 * copied with pread, which stops short where a mapping would SIGBUS.
		 */
		copy = g_try_malloc0(size);
		if (!copy)
			return;
		ssize_t n = pread(buf->fds[0], copy, size, 0);
		if (n < 0 || (size_t)n < size) {
			umms_debug("display: a client's buffer file shrank under the %zu bytes read",
				size);
			g_free(copy);
			return;
		}
	}
	const uint8_t *base = is_dmabuf ? map : copy;
	image.dmabuf = false;
	image.modifier = DRM_FORMAT_MOD_LINEAR;
	image.planes[0] = (struct umms_render_plane){ .fd = -1,
		.data = base + buf->offsets[0], .stride = buf->strides[0] };
	g_clear_error(&error);
	if (!draw_image(d, s, &image, x, y, &error))
		umms_debug("display: a client's dma-buf: %s", error->message);
	g_free(copy);
	if (map)
		munmap(map, size);
end:
	if (is_dmabuf) {
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		ioctl(buf->fds[0], DMA_BUF_IOCTL_SYNC, &sync);
	}
}

/*
 * A surface's pixels in memory (a wl_shm buffer, or what was kept of one).
 * Damage tracking, the part that costs: a surface whose pixels did not
 * change since it was last drawn is not uploaded again by a GPU renderer
 * (unchanged), only drawn from what it kept; one that changed in part has
 * only that part uploaded (damage).
 */
static bool
draw_pixels(struct draw_ctx *d, struct surface *s, uint32_t shm_format, int width, int height,
	const void *data, int stride, int x, int y)
{
	const int32_t *b = s->damage;
	struct umms_render_box damage = { b[0], b[1], b[2] - b[0], b[3] - b[1] };
	bool partial = !s->damage_all && b[2] > b[0] && b[3] > b[1];
	struct umms_render_image image = {
		.format = shm_drm_format(shm_format),
		.modifier = DRM_FORMAT_MOD_LINEAR,
		.width = width, .height = height, .n_planes = 1,
		.planes[0] = { .fd = -1, .data = data, .stride = (uint32_t)stride },
		.id = SURFACE_IMAGE_ID | s->image_id,
		.unchanged = s->drawn_serial == s->content_serial,
	};
	if (!image.unchanged && partial)
		image.damage = &damage;
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_can_draw(d->r, &image))
		umms_debug("display: cannot draw a %.4s shm buffer", (const char *)&image.format);
	else if (!draw_image(d, s, &image, x, y, &error))
		umms_debug("display: %s", error->message);
	else
		return !d->culled;   /* culled: nothing uploaded, its damage kept for later */
	return false;
}

static void
draw_buffer(struct draw_ctx *d, struct surface *s, int x, int y)
{
	struct wl_resource *buffer = s->current.buffer;
	struct wl_shm_buffer *shm = buffer ? wl_shm_buffer_get(buffer) : NULL;
	struct umms_dmabuf_buffer *dma = buffer ? umms_dmabuf_buffer_from_resource(buffer) : NULL;
	bool drawn = true;
	if (shm) {
		wl_shm_buffer_begin_access(shm);
		drawn = draw_pixels(d, s, wl_shm_buffer_get_format(shm),
			wl_shm_buffer_get_width(shm), wl_shm_buffer_get_height(shm),
			wl_shm_buffer_get_data(shm), wl_shm_buffer_get_stride(shm), x, y);
		wl_shm_buffer_end_access(shm);
	} else if (dma) {
		draw_dmabuf(d, dma, s, x, y);
	} else if (!buffer && s->kept.data) {
		/* Its client destroyed the buffer still shown: the pixels kept of it. */
		drawn = draw_pixels(d, s, s->kept.format, s->kept.width, s->kept.height,
			s->kept.data, s->kept.stride, x, y);
	}
	if (drawn) {
		/* Not drawn: uploaded whole next time. */
		s->drawn_serial = s->content_serial;
		memset(s->damage, 0, sizeof(s->damage));
		s->damage_all = false;
	}
}

/* @s's place on the target (x0, y0, x1, y1), clipped to the UI area; none without content. */
static void
surface_box(const struct umms_render_box *area, const struct surface *s, int x, int y,
	int32_t box[4])
{
	memset(box, 0, 4 * sizeof(box[0]));
	if (!compositor_surface_has_content(s) || s->width <= 0 || s->height <= 0)
		return;
	int64_t ax0 = (int64_t)area->x, ay0 = (int64_t)area->y;
	int64_t ax1 = ax0 + (int64_t)area->width, ay1 = ay0 + (int64_t)area->height;
	int64_t x0 = MAX(ax0 + x, ax0), y0 = MAX(ay0 + y, ay0);
	int64_t x1 = MIN(ax0 + x + s->width, ax1), y1 = MIN(ay0 + y + s->height, ay1);
	if (x1 > x0 && y1 > y0) {
		box[0] = (int32_t)x0, box[1] = (int32_t)y0;
		box[2] = (int32_t)x1, box[3] = (int32_t)y1;
	}
}

/* @s and its subsurfaces are not on screen any more. */
static void
forget_drawn(struct surface *s)
{
	memset(s->drawn_box, 0, sizeof(s->drawn_box));
	struct subsurface *sub;
	wl_list_for_each(sub, &s->below, link)
		forget_drawn(sub->surface);
	wl_list_for_each(sub, &s->above, link)
		forget_drawn(sub->surface);
}

static void draw_tree(struct draw_ctx *d, struct surface *s, int x, int y);

static void
draw_children(struct draw_ctx *d, struct wl_list *list, int x, int y)
{
	struct subsurface *sub;
	wl_list_for_each(sub, list, link)
		draw_tree(d, sub->surface, x + sub->x, y + sub->y);
}

/* Draws @s and its subsurfaces; their frame callbacks and feedback now wait for the flip. */
static void
draw_tree(struct draw_ctx *d, struct surface *s, int x, int y)
{
	struct umms_compositor *c = d->c;
	if (!compositor_surface_has_content(s)) {
		forget_drawn(s);
		return;
	}
	surface_box(&d->area, s, x, y, s->drawn_box);
	draw_children(d, &s->below, x, y);
	draw_buffer(d, s, x, y);
	draw_children(d, &s->above, x, y);
	wl_list_insert_list(c->frames_drawn.prev, &s->current.frames);
	wl_list_init(&s->current.frames);
	wl_list_insert_list(c->feedbacks_drawn.prev, &s->current.feedbacks);
	wl_list_init(&s->current.feedbacks);
}

static void
ui_draw(void *data, struct umms_renderer *renderer, const struct umms_render_box *area)
{
	struct draw_ctx d = { .c = data, .r = renderer, .area = *area };
	struct toplevel *t;
	int layer = 0;
	d.c->whole = false;
	/* Each toplevel with the videos placed under and over it (placement.c). */
	wl_list_for_each(t, &d.c->toplevels, link) {
		if (!t->mapped)
			continue;
		compositor_placement_draw(d.c, layer, false, renderer, area);
		draw_tree(&d, t->surface, 0, 0);
		compositor_placement_draw(d.c, layer, true, renderer, area);
		layer++;
	}
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

/* ---- what changed ----------------------------------------------------------- */

/*
 * Adds what @s and its subsurfaces changed since drawn to @box (target
 * pixels, x0, y0, x1, y1): both places where one moved, appeared or went,
 * else its damage mapped from buffer pixels (all of it when scaled by a
 * viewport, the filter's pixel around it when by a buffer scale).
 */
static void
damage_tree(const struct umms_render_box *area, struct surface *s, int x, int y, bool shown,
	int32_t box[4])
{
	int32_t now[4] = { 0 };
	if (shown)
		surface_box(area, s, x, y, now);
	int32_t *was = s->drawn_box;
	if (memcmp(now, was, sizeof(now)) != 0) {
		compositor_box_add(box, was[0], was[1], was[2], was[3]);
		compositor_box_add(box, now[0], now[1], now[2], now[3]);
	} else if (now[2] > now[0] && s->drawn_serial != s->content_serial) {
		const struct surface_state *st = &s->current;
		int32_t k = st->scale > 0 ? st->scale : 1;
		const int32_t *b = s->damage;
		if (s->damage_all || st->src_w >= 0 || st->dst_w > 0 || b[2] <= b[0]) {
			compositor_box_add(box, now[0], now[1], now[2], now[3]);
		} else {
			int64_t ox = (int64_t)area->x + x, oy = (int64_t)area->y + y;
			int64_t m = k > 1 ? 1 : 0;
			int64_t x0 = MAX(ox + b[0] / k - m, now[0]);
			int64_t y0 = MAX(oy + b[1] / k - m, now[1]);
			int64_t x1 = MIN(ox + (b[2] + k - 1) / k + m, now[2]);
			int64_t y1 = MIN(oy + (b[3] + k - 1) / k + m, now[3]);
			if (x1 > x0 && y1 > y0)
				compositor_box_add(box, (int32_t)x0, (int32_t)y0, (int32_t)x1,
					(int32_t)y1);
		}
	}
	bool children = shown && compositor_surface_has_content(s);
	struct subsurface *sub;
	wl_list_for_each(sub, &s->below, link)
		damage_tree(area, sub->surface, x + sub->x, y + sub->y, children, box);
	wl_list_for_each(sub, &s->above, link)
		damage_tree(area, sub->surface, x + sub->x, y + sub->y, children, box);
}

static int32_t
scaled(int32_t v, int64_t k)
{
	const int64_t limit = INT32_C(1) << 30;
	return (int32_t)CLAMP(v * k, -limit, limit);
}

/*
 * The commit's damage (now in s->current) added to what changed since the
 * surface was drawn, in buffer pixels; all of it for a new size, a viewport
 * (its surface damage is not mapped back), or a new buffer without damage.
 */
void
compositor_surface_add_damage(struct surface *s, bool resized)
{
	struct surface_state *st = &s->current;
	int32_t *b = st->buffer_damage, *sd = st->surface_damage;
	bool none = b[2] <= b[0] && sd[2] <= sd[0];
	bool viewport = st->src_w >= 0 || st->dst_w > 0;
	if (resized || none || (viewport && sd[2] > sd[0])) {
		s->damage_all = true;
	} else {
		int64_t k = st->scale > 0 ? st->scale : 1;
		compositor_box_add(s->damage, b[0], b[1], b[2], b[3]);
		if (sd[2] > sd[0])
			compositor_box_add(s->damage, scaled(sd[0], k), scaled(sd[1], k),
				scaled(sd[2], k), scaled(sd[3], k));
	}
	memset(st->buffer_damage, 0, sizeof(st->buffer_damage));
	memset(st->surface_damage, 0, sizeof(st->surface_damage));
}

/* Nothing to draw: frame callbacks and feedback answered with the next vblank all the same. */
static void
collect_frames(struct umms_compositor *c, struct surface *s)
{
	if (!compositor_surface_has_content(s))
		return;
	struct subsurface *sub;
	wl_list_for_each(sub, &s->below, link)
		collect_frames(c, sub->surface);
	wl_list_for_each(sub, &s->above, link)
		collect_frames(c, sub->surface);
	wl_list_insert_list(c->frames_drawn.prev, &s->current.frames);
	wl_list_init(&s->current.frames);
	wl_list_insert_list(c->feedbacks_drawn.prev, &s->current.feedbacks);
	wl_list_init(&s->current.feedbacks);
}

static bool
ui_damage(void *data, const struct umms_render_box *area, struct umms_render_box *out)
{
	struct umms_compositor *c = data;
	if (c->whole)
		return false;
	int32_t box[4] = { 0 };
	struct toplevel *t;
	wl_list_for_each(t, &c->toplevels, link) {
		if (t->mapped)
			damage_tree(area, t->surface, 0, 0, true, box);
	}
	if (box[2] <= box[0] || box[3] <= box[1]) {
		wl_list_for_each(t, &c->toplevels, link) {
			if (t->mapped)
				collect_frames(c, t->surface);
		}
		*out = (struct umms_render_box){ 0, 0, 0, 0 };
		return true;
	}
	*out = (struct umms_render_box){ box[0], box[1], box[2] - box[0], box[3] - box[1] };
	return true;
}

void
compositor_box_add(int32_t box[4], int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
	if (x1 <= x0 || y1 <= y0)
		return;
	if (box[2] <= box[0] || box[3] <= box[1]) {
		box[0] = x0, box[1] = y0, box[2] = x1, box[3] = y1;
		return;
	}
	box[0] = MIN(box[0], x0), box[1] = MIN(box[1], y0);
	box[2] = MAX(box[2], x1), box[3] = MAX(box[3], y1);
}

const struct umms_screen_ui_impl compositor_ui_impl = {
	.draw = ui_draw,
	.presented = ui_presented,
	.resized = ui_resized,
	.damage = ui_damage,
};

/* ---- damage ----------------------------------------------------------------- */

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
compositor_scene_damage_commit(struct umms_compositor *c)
{
	if (c->destroying)
		return;
	compositor_placement_update(c);
	umms_screen_damage_ui(c->screen, any_mapped(c) || c->videos->len > 0);
}

void
compositor_scene_damage(struct umms_compositor *c)
{
	if (c->destroying)
		return;
	c->whole = true;
	compositor_placement_update(c);
	umms_screen_damage_ui(c->screen, any_mapped(c) || c->videos->len > 0);
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
	if (compositor_surface_has_content(s) && px >= x && py >= y && px < x + s->width && py < y + s->height) {
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

/*
 * linux-dmabuf feedback: the pairs the screen's renderer imports (the scene
 * draws every client buffer with it), those overlay planes also scan out
 * first. No global where the renderer imports none: a client then sends
 * wl_shm, which every renderer reads, instead of dma-bufs drawn only by
 * mapping them (a copy for a GPU renderer) or not at all.
 */
static bool
make_dmabuf(struct umms_compositor *c, GError **error)
{
	struct umms_renderer *r = umms_screen_get_renderer(c->screen);
	const struct umms_render_format *imported = NULL;
	size_t n_imported = r ? umms_renderer_dmabuf_formats(r, &imported) : 0;
	if (n_imported == 0) {
		umms_info("display: no zwp_linux_dmabuf_v1: the renderer imports no dma-bufs");
		return true;
	}
	dev_t device = umms_screen_get_device(c->screen);
	uint32_t *overlay = NULL;
	int n_overlay = umms_screen_get_overlay_formats(c->screen, &overlay);
	struct umms_dmabuf_format *formats = g_new0(struct umms_dmabuf_format, 2 * n_imported);
	size_t n_scanout = 0;
	for (size_t i = 0; i < n_imported; i++) {
		for (int k = 0; k < n_overlay; k++) {
			if (overlay[k] == imported[i].format &&
					imported[i].modifier == DRM_FORMAT_MOD_LINEAR)
				formats[n_scanout++] = (struct umms_dmabuf_format){
					imported[i].format, imported[i].modifier };
		}
	}
	for (size_t i = 0; i < n_imported; i++)
		formats[n_scanout + i] = (struct umms_dmabuf_format){ imported[i].format,
			imported[i].modifier };
	struct umms_dmabuf_tranche tranches[] = {
		{ .device = device, .scanout = true, .formats = formats, .n_formats = n_scanout },
		{ .device = device, .scanout = false, .formats = formats + n_scanout,
			.n_formats = n_imported },
	};
	struct umms_dmabuf_feedback feedback = {
		.main_device = device,
		.tranches = n_scanout ? tranches : tranches + 1,
		.n_tranches = n_scanout ? 2 : 1,
	};
	c->dmabuf = umms_dmabuf_create(c->display, &feedback, error);
	if (c->dmabuf)
		umms_info("display: zwp_linux_dmabuf_v1 with the %zu format and modifier pairs "
			"the renderer imports (%zu of them on overlay planes)", n_imported,
			n_scanout);
	g_free(formats);
	g_free(overlay);
	return c->dmabuf != NULL;
}

struct umms_compositor *
umms_compositor_create(struct wl_display *display, struct umms_target *screen,
	const struct umms_compositor_config *config, const struct umms_compositor_hooks *hooks,
	void *data, GError **error)
{
	struct umms_compositor *c = g_new0(struct umms_compositor, 1);
	c->display = display;
	c->screen = screen;
	c->hooks = *hooks;
	c->hooks_data = data;
	wl_list_init(&c->surfaces);
	wl_list_init(&c->toplevels);
	wl_list_init(&c->outputs);
	wl_list_init(&c->frames_drawn);
	wl_list_init(&c->feedbacks_drawn);
	int a[4];
	umms_screen_get_ui_area(screen, a);
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
	compositor_placement_init(c);
	umms_screen_set_ui(screen, &compositor_ui_impl, c);
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
	if (c->screen)
		umms_screen_set_ui(c->screen, NULL, NULL);
	compositor_placement_finish(c);
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
