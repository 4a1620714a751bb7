/*
 * The headless screen (headless.h): frames and the UI composited with a
 * renderer into memory at a virtual vblank.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "frame-image.h"
#include "frame.h"
#include "gles2.h"
#include "headless.h"
#include "log.h"
#include "pixman-renderer.h"
#include "png-write.h"
#include "renderer.h"

#define DEFAULT_WIDTH 1280
#define DEFAULT_HEIGHT 720
#define DEFAULT_REFRESH_MHZ 60000
#define MAX_MAPS 16

/* A memfd frame's memory, mapped once and kept while the engine cycles through it. */
struct mapping {
	void *data;
	size_t size;
};

struct headless {
	struct umms_target base;
	struct umms_renderer *renderer;
	char *description;
	int width, height;
	int refresh_mhz, base_refresh_mhz;
	uint32_t *pixels;          /* XRGB8888, width * height */
	struct umms_screen_margins margins;
	enum umms_layout_scale zoom;
	struct umms_frame *shown, *waiting;
	bool waiting_set;          /* waiting holds the next thing to show (NULL: none) */
	bool dirty;                /* draw at the next vblank */
	bool whole;                /* that draw repaints all: not only the UI's damage */
	uint64_t damaged_pixels;   /* repainted, over all draws */
	GSource *vblank;
	int64_t epoch_ns;          /* vblank k is at epoch_ns + k * period */
	uint64_t seq;
	GHashTable *maps;          /* memory_id → struct mapping */
	struct umms_frame geometry;  /* of the frames the maps belong to */
	uint64_t copies;
	uint64_t redraws;
	uint64_t subpicture_id;    /* image id of the subpicture drawn last, 0 none */
	uint64_t subpictures;      /* new subpictures drawn */
	bool said_fallback;
	const struct umms_screen_ui_impl *ui;
	void *ui_data;
	bool ui_visible;
	bool placed;
	struct umms_screen_video_place place;
};

static const struct umms_target_impl headless_impl;

static struct headless *
headless(struct umms_target *target)
{
	g_assert(target->impl == &headless_impl);
	return (struct headless *)target;
}

/* ---- geometry ------------------------------------------------------------------- */

static bool
parse_mode(const char *text, int *width, int *height, int *refresh_mhz, GError **error)
{
	int w = 0, h = 0;
	double hz = 60;
	char tail;
	int n = sscanf(text, "%dx%d@%lf%c", &w, &h, &hz, &tail);
	if (n != 2 && n != 3)
		goto bad;
	if (n == 2 && sscanf(text, "%dx%d%c", &w, &h, &tail) != 2)
		goto bad;
	if (w < 16 || h < 16 || w > 8192 || h > 8192 || hz < 1 || hz > 480)
		goto bad;
	*width = w, *height = h;
	*refresh_mhz = (int)(hz * 1000 + 0.5);
	return true;
bad:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
		"mode \"%s\": the headless screen takes WIDTHxHEIGHT or WIDTHxHEIGHT@HZ "
		"(16 to 8192 pixels, 1 to 480 Hz)", text);
	return false;
}

static void
area(const struct headless *h, int a[4])
{
	int m[4];
	umms_screen_margins_px(&h->margins, h->width, h->height, m);
	a[0] = m[0], a[1] = m[1], a[2] = h->width - m[0] - m[2], a[3] = h->height - m[1] - m[3];
}

static bool
video_hidden(const struct headless *h)
{
	return h->placed && (h->place.width <= 0 || h->place.height <= 0);
}

static void
layout(const struct headless *h, const struct umms_frame *frame, struct umms_layout *out)
{
	int a[4];
	area(h, a);
	umms_frame_layout(frame, a, h->zoom, h->placed ? &h->place : NULL, out);
}

/* ---- frames' memory ------------------------------------------------------------- */

static void
mapping_free(gpointer data)
{
	struct mapping *m = data;
	munmap(m->data, m->size);
	g_free(m);
}

/* The frame's memfd mapped (kept per memory_id); NULL for dma-buf frames or on failure. */
static const uint8_t *
map_frame(struct headless *h, const struct umms_frame *frame)
{
	if (frame->kind != UMMS_FRAME_MEMFD)
		return NULL;
	/* New memory for another shape: the engine's old pool is gone. */
	if (!umms_frame_same_geometry(frame, &h->geometry) || frame->format != h->geometry.format ||
			g_hash_table_size(h->maps) >= MAX_MAPS) {
		g_hash_table_remove_all(h->maps);
		h->geometry = *frame;
		h->geometry.refs = 0;
	}
	struct mapping *m = g_hash_table_lookup(h->maps, &frame->memory_id);
	if (m)
		return m->data;
	off_t size = lseek(frame->planes[0].fd, 0, SEEK_END);
	if (size <= 0)
		return NULL;
	void *data = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, frame->planes[0].fd, 0);
	if (data == MAP_FAILED) {
		umms_warn("display: cannot map a frame: %s", g_strerror(errno));
		return NULL;
	}
	m = g_new0(struct mapping, 1);
	m->data = data, m->size = (size_t)size;
	uint64_t *key = g_new(uint64_t, 1);
	*key = frame->memory_id;
	g_hash_table_insert(h->maps, key, m);
	return data;
}

/*
 * A dma-buf frame the renderer could not import, read through mappings of
 * its planes instead (linear buffers), so it never shows black. A copy.
 */
static bool
draw_mapped_dmabuf(struct headless *h, const struct umms_frame *frame,
	const struct umms_render_box *src, const struct umms_render_box *dst, GError **error)
{
	if (frame->modifier != DRM_FORMAT_MOD_LINEAR && frame->modifier != DRM_FORMAT_MOD_INVALID) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"a tiled dma-buf frame the renderer cannot import");
		return false;
	}
	struct umms_render_image image;
	umms_frame_render_image(frame, NULL, &image);
	image.dmabuf = false;
	image.modifier = DRM_FORMAT_MOD_LINEAR;
	image.id = 0;
	void *maps[UMMS_FRAME_MAX_PLANES] = { 0 };
	size_t sizes[UMMS_FRAME_MAX_PLANES] = { 0 };
	bool ok = true;
	for (int i = 0; i < frame->n_planes && ok; i++) {
		off_t size = lseek(frame->planes[i].fd, 0, SEEK_END);
		void *data = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED,
			frame->planes[i].fd, 0) : MAP_FAILED;
		if (data == MAP_FAILED) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"a dma-buf frame can neither be imported nor mapped");
			ok = false;
			break;
		}
		maps[i] = data, sizes[i] = (size_t)size;
		image.planes[i].fd = -1;
		image.planes[i].data = (const uint8_t *)data + frame->planes[i].offset;
		image.planes[i].offset = 0;
	}
	if (ok)
		ok = umms_renderer_draw(h->renderer, &image, src, dst, error);
	for (int i = 0; i < frame->n_planes; i++) {
		if (maps[i])
			munmap(maps[i], sizes[i]);
	}
	if (ok)
		h->copies++;
	return ok;
}

/* ---- drawing ---------------------------------------------------------------------- */

/* The frame's subtitles over its picture, placed and scaled with it. */
static void
draw_subpicture(struct headless *h, const struct umms_frame *frame, const struct umms_layout *l)
{
	struct umms_layout_overlay at;
	if ((h->placed && h->place.no_subtitles) || !umms_frame_place_subpicture(frame, l, &at))
		return;
	struct umms_render_image image;
	umms_subpicture_render_image(frame->subpicture, &image);
	if (image.id != h->subpicture_id) {
		/* Another rendering: the last one's upload is of no more use. */
		if (h->subpicture_id)
			umms_renderer_forget(h->renderer, h->subpicture_id);
		h->subpicture_id = image.id;
		h->subpictures++;
	}
	struct umms_render_box src = { at.src_x, at.src_y, at.src_width, at.src_height };
	struct umms_render_box dst = { at.x, at.y, at.width, at.height };
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_draw(h->renderer, &image, &src, &dst, &error))
		umms_warn("display: cannot draw subtitles: %s", error->message);
}

static void
draw_video(struct headless *h)
{
	struct umms_frame *frame = h->shown;
	if (!frame || video_hidden(h))
		return;
	struct umms_layout l;
	layout(h, frame, &l);
	if (!l.visible || l.video_width <= 0 || l.video_height <= 0)
		return;
	struct umms_render_box src = { l.src_x, l.src_y, l.src_width, l.src_height };
	struct umms_render_box dst = { l.video_x, l.video_y, l.video_width, l.video_height };
	struct umms_render_image image;
	umms_frame_render_image(frame, map_frame(h, frame), &image);
	if (!image.dmabuf && !image.planes[0].data)
		return;
	uint64_t uploads = umms_renderer_stats(h->renderer)->uploads;
	g_autoptr(GError) error = NULL;
	if (umms_renderer_can_draw(h->renderer, &image) &&
			umms_renderer_draw(h->renderer, &image, &src, &dst, &error)) {
		h->copies += umms_renderer_stats(h->renderer)->uploads - uploads;
		draw_subpicture(h, frame, &l);
		return;
	}
	if (image.dmabuf) {
		if (!h->said_fallback) {
			umms_info("display: %s: reading dma-buf frames by mapping them (a copy)",
				error ? error->message : "the renderer cannot import them");
			h->said_fallback = true;
		}
		g_clear_error(&error);
		if (draw_mapped_dmabuf(h, frame, &src, &dst, &error)) {
			draw_subpicture(h, frame, &l);
			return;
		}
	}
	umms_warn("display: cannot draw a %.4s frame: %s", (const char *)&image.format,
		error ? error->message : "format not taken");
}

static void
draw_ui(struct headless *h)
{
	if (!h->ui || !h->ui_visible)
		return;
	int a[4];
	area(h, a);
	struct umms_render_box box = { a[0], a[1], a[2], a[3] };
	h->ui->draw(h->ui_data, h->renderer, &box);
	if (h->placed && h->place.above_ui && !video_hidden(h) && h->shown) {
		/* Black where the picture over the UI leaves bars, as on a plane. */
		struct umms_render_box r = { a[0] + h->place.x, a[1] + h->place.y, h->place.width,
			h->place.height };
		umms_renderer_fill(h->renderer, &r, 0);
	}
}

/*
 * What the draw repaints: all of the screen after a change of its own (a
 * video frame, a mode, margins, zoom, placement), else what the UI says
 * changed (false: all). An empty box: nothing.
 */
static bool
damage(struct headless *h, struct umms_render_box *box)
{
	if (h->whole || !h->ui || !h->ui->damage)
		return false;
	if (!h->ui_visible) {
		*box = (struct umms_render_box){ 0, 0, 0, 0 };
		return true;
	}
	int a[4];
	area(h, a);
	struct umms_render_box ui_area = { a[0], a[1], a[2], a[3] };
	return h->ui->damage(h->ui_data, &ui_area, box);
}

static void
draw(struct headless *h)
{
	struct umms_render_box box;
	bool partial = damage(h, &box);
	h->whole = false;
	if (partial && !(box.width > 0 && box.height > 0))
		return;   /* nothing changed: nothing repainted */
	struct umms_render_target target = { .format = DRM_FORMAT_XRGB8888,
		.width = h->width, .height = h->height, .fd = -1, .data = h->pixels,
		.stride = (uint32_t)h->width * 4, .damage = partial ? &box : NULL };
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_begin(h->renderer, &target, &error)) {
		umms_warn("display: %s", error->message);
		return;
	}
	umms_renderer_clear(h->renderer, 0xff000000);
	h->redraws++;
	h->damaged_pixels += partial ? (uint64_t)(box.width * box.height) :
		(uint64_t)h->width * (uint64_t)h->height;
	bool above = h->placed && h->place.above_ui;
	if (above)
		draw_ui(h);
	draw_video(h);
	if (!above)
		draw_ui(h);
	if (!umms_renderer_end(h->renderer, &error))
		umms_warn("display: %s", error->message);
	/* The tests time what the screen shows against this line (test-web-page). */
	umms_debug("display: frame %" PRIu64 " drawn", h->seq);
}

/* ---- the virtual vblank ------------------------------------------------------------- */

static int64_t
period_ns(const struct headless *h)
{
	return (int64_t)(1000000000000.0 / h->refresh_mhz);
}

static bool
pending(const struct headless *h)
{
	return h->waiting_set || h->dirty;
}

/* Wakes at the next vblank if there is something to draw. */
static void
arm(struct headless *h)
{
	if (!pending(h) || g_source_get_ready_time(h->vblank) >= 0)
		return;
	int64_t now = g_get_monotonic_time() * 1000;
	int64_t p = period_ns(h);
	int64_t k = (now - h->epoch_ns) / p + 1;
	g_source_set_ready_time(h->vblank, (h->epoch_ns + k * p + 999) / 1000);
}

static void
report(struct headless *h, struct umms_frame *frame, bool shown, int64_t when)
{
	if (h->base.presented)
		h->base.presented(h->base.presented_data, frame, shown, when);
}

struct vblank_source {
	GSource base;
	struct headless *h;
};

static gboolean
vblank_dispatch(GSource *source, GSourceFunc callback, gpointer data)
{
	struct headless *h = ((struct vblank_source *)source)->h;
	g_source_set_ready_time(source, -1);
	int64_t now = g_get_monotonic_time() * 1000;
	int64_t p = period_ns(h);
	int64_t when = h->epoch_ns + (now - h->epoch_ns) / p * p;
	h->seq = (uint64_t)((when - h->epoch_ns) / p);
	struct umms_frame *old = NULL;
	bool new_frame = h->waiting_set;
	if (new_frame) {
		old = h->shown;
		h->shown = h->waiting;
		h->waiting = NULL;
		h->waiting_set = false;
	}
	h->dirty = false;
	draw(h);
	if (old)
		umms_frame_unref(old);
	if (new_frame && h->shown)
		report(h, h->shown, true, when);
	if (h->ui)
		h->ui->presented(h->ui_data, when, (uint32_t)p, h->seq);
	arm(h);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs vblank_funcs = { .dispatch = vblank_dispatch };

static void
redraw(struct headless *h)
{
	h->dirty = true;
	h->whole = true;
	arm(h);
}

/* ---- the target ---------------------------------------------------------------------- */

static bool
headless_show(struct umms_target *target, struct umms_frame *frame, GError **error)
{
	struct headless *h = headless(target);
	if (h->waiting_set && h->waiting) {
		struct umms_frame *replaced = h->waiting;
		h->waiting = NULL;
		report(h, replaced, false, 0);
		umms_frame_unref(replaced);
	}
	h->waiting = frame ? umms_frame_ref(frame) : NULL;
	h->waiting_set = true;
	h->whole = true;
	arm(h);
	return true;
}

static void
headless_destroy(struct umms_target *target)
{
	struct headless *h = headless(target);
	if (h->vblank) {
		g_source_destroy(h->vblank);
		g_source_unref(h->vblank);
	}
	if (h->waiting)
		umms_frame_unref(h->waiting);
	if (h->shown)
		umms_frame_unref(h->shown);
	if (h->maps)
		g_hash_table_destroy(h->maps);
	umms_renderer_destroy(h->renderer);
	g_free(h->description);
	g_free(h->pixels);
	g_free(h);
}

/* ---- the screen ---------------------------------------------------------------------- */

static char *
current_mode(struct umms_target *t)
{
	struct headless *h = headless(t);
	return g_strdup_printf("%dx%d@%.2f", h->width, h->height, h->refresh_mhz / 1000.0);
}

static char **
list_modes(struct umms_target *t)
{
	char **modes = g_new0(char *, 2);
	modes[0] = current_mode(t);
	return modes;
}

static void
resized(struct headless *h)
{
	if (h->ui && h->ui->resized) {
		int a[4];
		area(h, a);
		h->ui->resized(h->ui_data, a[2], a[3]);
	}
	redraw(h);
}

static bool
set_mode(struct umms_target *t, const char *mode, GError **error)
{
	struct headless *h = headless(t);
	int w, hh, mhz;
	if (!parse_mode(mode, &w, &hh, &mhz, error))
		return false;
	if (!umms_screen_margins_check(&h->margins, w, hh, error))
		return false;
	if (w != h->width || hh != h->height) {
		g_free(h->pixels);
		h->pixels = g_new0(uint32_t, (size_t)w * (size_t)hh);
		h->width = w, h->height = hh;
	}
	h->refresh_mhz = h->base_refresh_mhz = mhz;
	umms_info("display: headless mode %dx%d@%.2f", w, hh, mhz / 1000.0);
	resized(h);
	return true;
}

/* Any rate will do here: a multiple of the frame rate of at least 48 Hz. */
static void
match_refresh(struct umms_target *t, double fps)
{
	struct headless *h = headless(t);
	int mhz = h->base_refresh_mhz;
	if (fps > 0) {
		int n = 1;
		while (fps * n < 48)
			n++;
		mhz = (int)(fps * n * 1000 + 0.5);
	}
	if (mhz != h->refresh_mhz)
		umms_info("display: headless refresh %.3f Hz", mhz / 1000.0);
	h->refresh_mhz = mhz;
}

static int
get_refresh_mhz(struct umms_target *t)
{
	return headless(t)->refresh_mhz;
}

static bool
check_margins(struct umms_target *t, const struct umms_screen_margins *m, GError **error)
{
	struct headless *h = headless(t);
	return umms_screen_margins_check(m, h->width, h->height, error);
}

static void
set_margins(struct umms_target *t, const struct umms_screen_margins *m)
{
	struct headless *h = headless(t);
	h->margins = *m;
	resized(h);
}

static void
get_margins_px(struct umms_target *t, int px[4])
{
	struct headless *h = headless(t);
	umms_screen_margins_px(&h->margins, h->width, h->height, px);
}

static void
set_zoom(struct umms_target *t, enum umms_layout_scale zoom)
{
	struct headless *h = headless(t);
	h->zoom = zoom;
	redraw(h);
}

static enum umms_layout_scale
get_zoom(struct umms_target *t)
{
	return headless(t)->zoom;
}

static void
place_video(struct umms_target *t, const struct umms_screen_video_place *place)
{
	struct headless *h = headless(t);
	h->placed = place != NULL;
	if (place)
		h->place = *place;
	redraw(h);
}

static int
get_video_formats(struct umms_target *t, const uint32_t **formats)
{
	/*
	 * wl_shm codes. A GPU renderer converts YUV itself, so the engine need
	 * not: YUV only (the engine prefers XRGB8888 whenever it is offered),
	 * I420 first, what software decoders make. pixman converts no faster
	 * than GStreamer, so RGB it is.
	 */
	static const uint32_t gpu[] = { DRM_FORMAT_YUV420, DRM_FORMAT_NV12 };
	static const uint32_t cpu[] = { 1 };
	struct headless *h = headless(t);
	bool gles2 = umms_gles2_renderer_describe(h->renderer) != NULL;
	*formats = gles2 ? gpu : cpu;
	return gles2 ? (int)G_N_ELEMENTS(gpu) : (int)G_N_ELEMENTS(cpu);
}

static void
set_ui(struct umms_target *t, const struct umms_screen_ui_impl *impl, void *data)
{
	struct headless *h = headless(t);
	h->ui = impl;
	h->ui_data = data;
	h->ui_visible = false;
	resized(h);
}

static void
damage_ui(struct umms_target *t, bool visible)
{
	struct headless *h = headless(t);
	if (visible != h->ui_visible)
		h->whole = true;
	h->ui_visible = visible;
	/* Otherwise what changed is asked of the UI at the draw (damage()). */
	h->dirty = true;
	arm(h);
}

static void
get_ui_area(struct umms_target *t, int a[4])
{
	area(headless(t), a);
}

static dev_t
get_device(struct umms_target *t)
{
	return 0;
}

static int
get_overlay_formats(struct umms_target *t, uint32_t **formats)
{
	*formats = NULL;
	return 0;
}

static struct umms_renderer *
get_renderer(struct umms_target *t)
{
	return headless(t)->renderer;
}

static GVariant *
describe_planes(struct umms_target *t)
{
	return g_variant_new_array(G_VARIANT_TYPE("a{sv}"), NULL, 0);
}

static const char *
get_rung(struct umms_target *t)
{
	struct headless *h = headless(t);
	return h->shown && !video_hidden(h) ? "composited" : "";
}

static uint64_t
get_copies(struct umms_target *t)
{
	return headless(t)->copies;
}

static bool
capture(struct umms_target *t, const char *path, GError **error)
{
	struct headless *h = headless(t);
	/* What the next vblank would show, if something is waiting: a capture sees the latest. */
	if (pending(h)) {
		g_source_set_ready_time(h->vblank, -1);
		vblank_dispatch(h->vblank, NULL, h);
	}
	return umms_png_write_xrgb(path, h->pixels, h->width, h->height, (uint32_t)h->width * 4,
		error);
}

static void
get_stats(struct umms_target *t, struct umms_screen_stats *stats)
{
	struct headless *h = headless(t);
	*stats = (struct umms_screen_stats){ .renderer = h->description, .redraws = h->redraws,
		.uploads = umms_renderer_stats(h->renderer)->uploads, .subpictures = h->subpictures,
		.upload_bytes = umms_renderer_stats(h->renderer)->upload_bytes,
		.damaged_pixels = h->damaged_pixels };
}

static const struct umms_screen_impl headless_screen_impl = {
	.list_modes = list_modes,
	.current_mode = current_mode,
	.set_mode = set_mode,
	.match_refresh = match_refresh,
	.get_refresh_mhz = get_refresh_mhz,
	.check_margins = check_margins,
	.set_margins = set_margins,
	.get_margins_px = get_margins_px,
	.set_zoom = set_zoom,
	.get_zoom = get_zoom,
	.place_video = place_video,
	.get_video_formats = get_video_formats,
	.set_ui = set_ui,
	.damage_ui = damage_ui,
	.get_ui_area = get_ui_area,
	.get_device = get_device,
	.get_overlay_formats = get_overlay_formats,
	.get_renderer = get_renderer,
	.describe_planes = describe_planes,
	.get_rung = get_rung,
	.get_copies = get_copies,
	.capture = capture,
	.get_stats = get_stats,
};

static const struct umms_target_impl headless_impl = {
	.name = "headless",
	.screen = &headless_screen_impl,
	.show = headless_show,
	.destroy = headless_destroy,
};

/* ---- life ------------------------------------------------------------------------------ */

static struct umms_renderer *
make_renderer(const char *name, char **description, GError **error)
{
	bool automatic = !name || !*name || strcmp(name, "auto") == 0;
	if (automatic || strcmp(name, "gles2") == 0) {
		g_autoptr(GError) gl_error = NULL;
		struct umms_renderer *r = umms_gles2_renderer_create(NULL, &gl_error);
		if (r) {
			*description = g_strdup_printf("gles2 (%s)", umms_gles2_renderer_describe(r));
			return r;
		}
		if (!automatic) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"display.renderer=gles2: %s", gl_error->message);
			return NULL;
		}
		umms_info("display: no GL (%s): drawing with pixman", gl_error->message);
	} else if (strcmp(name, "pixman") != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"display.renderer \"%s\": expected auto, gles2 or pixman", name);
		return NULL;
	}
	*description = g_strdup("pixman");
	return umms_pixman_renderer_create(error);
}

struct umms_target *
umms_headless_create(const struct umms_headless_config *config, GError **error)
{
	struct headless *h = g_new0(struct headless, 1);
	h->base.impl = &headless_impl;
	h->margins = config->margins;
	h->zoom = config->zoom;
	h->width = DEFAULT_WIDTH, h->height = DEFAULT_HEIGHT;
	h->refresh_mhz = DEFAULT_REFRESH_MHZ;
	if (config->mode && *config->mode &&
			!parse_mode(config->mode, &h->width, &h->height, &h->refresh_mhz, error))
		goto fail;
	h->base_refresh_mhz = h->refresh_mhz;
	if (!umms_screen_margins_check(&h->margins, h->width, h->height, error))
		goto fail;
	h->renderer = make_renderer(config->renderer, &h->description, error);
	if (!h->renderer)
		goto fail;
	h->pixels = g_new0(uint32_t, (size_t)h->width * (size_t)h->height);
	h->maps = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, mapping_free);
	h->epoch_ns = g_get_monotonic_time() * 1000;
	h->vblank = g_source_new(&vblank_funcs, sizeof(struct vblank_source));
	((struct vblank_source *)h->vblank)->h = h;
	g_source_set_name(h->vblank, "umms headless vblank");
	g_source_set_ready_time(h->vblank, -1);
	g_source_attach(h->vblank, g_main_context_get_thread_default());
	/* Black until something shows, as a screen lit at start. */
	h->dirty = true;
	h->whole = true;
	arm(h);
	umms_info("display: headless %dx%d@%.2f, drawn by %s", h->width, h->height,
		h->refresh_mhz / 1000.0, h->description);
	return &h->base;
fail:
	headless_destroy(&h->base);
	return NULL;
}

const char *
umms_headless_describe(struct umms_target *target)
{
	return headless(target)->description;
}
