/*
 * The renderers (renderers/renderer.h): the same cases over each of them.
 *
 * Tolerances, per channel, between a pixel read back and the colour the
 * test computed itself (the YUV codes are made here from RGB with the
 * H.273 equations, written independently of the renderers):
 * - RGB 8-bit formats: ±3 (bilinear scaling of flat areas, rounding);
 * - RGB565: ±8 (5 and 6 bits per channel);
 * - 8-bit YUV (NV12, YUV420, YUYV): ±6 (codes rounded to 8 bits, then
 *   converted back);
 * - P010: ±4 (10-bit codes);
 * - alpha (OVER of premultiplied ARGB8888): ±3.
 * Outside a drawn box the clear colour stays exact.
 *
 * The gles2 renderer runs on Mesa (llvmpipe through the surfaceless EGL
 * platform needs no GPU): if it cannot be created the gles2 cases fail.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <glib.h>

#include "renderer.h"
#include "renderer-list.h"
#include "gles2.h"
#include "renderer-dmabuf.h"
#include "pixman-renderer.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#define TOL_RGB 3
#define TOL_RGB565 8
#define TOL_YUV8 6
#define TOL_P010 4
#define TOL_ALPHA 3

#define IMG_W 64
#define IMG_H 48
#define DST_W 128
#define DST_H 96

static const uint8_t left_rgb[3] = { 200, 40, 60 };
static const uint8_t right_rgb[3] = { 30, 160, 220 };

static struct umms_renderer *
create(const struct renderer_entry *entry)
{
	GError *error = NULL;
	struct umms_renderer *r = entry->create(&error);
	if (!r) {
		g_test_message("%s renderer: %s", entry->name, error->message);
		g_error_free(error);
		g_test_fail();
		return NULL;
	}
	const char *desc = umms_gles2_renderer_describe(r);
	if (desc)
		g_test_message("%s", desc);
	return r;
}

/* Memory targets */

struct target {
	struct umms_render_target t;
	uint32_t *pixels;
};

static void
target_init(struct target *target, int width, int height, uint32_t pad)
{
	uint32_t stride = (uint32_t)width * 4 + pad;
	target->pixels = g_malloc0(stride * (size_t)height);
	target->t = (struct umms_render_target){
		.format = DRM_FORMAT_XRGB8888,
		.width = width, .height = height,
		.fd = -1,
		.data = target->pixels,
		.stride = stride,
	};
}

static uint32_t
target_pixel(const struct target *target, int x, int y)
{
	return target->pixels[(size_t)y * (target->t.stride / 4) + (size_t)x];
}

/* Largest channel difference of an XRGB8888 pixel from @rgb. */
static int
pixel_error(uint32_t c, const uint8_t rgb[3])
{
	int got[3] = { (int)(c >> 16) & 0xff, (int)(c >> 8) & 0xff, (int)c & 0xff };
	int err = 0;
	for (int i = 0; i < 3; i++)
		err = MAX(err, ABS(got[i] - rgb[i]));
	return err;
}

/* Colours: the test's own RGB → YUV (ITU-T H.273 quantisation). */

static void
rgb_to_yuv(const uint8_t rgb[3], enum umms_color_matrix matrix, enum umms_color_range range,
	int bits, int out[3])
{
	static const double k[][2] = {
		[UMMS_COLOR_BT601] = { 0.299, 0.114 },
		[UMMS_COLOR_BT709] = { 0.2126, 0.0722 },
		[UMMS_COLOR_BT2020] = { 0.2627, 0.0593 },
	};
	double kr = k[matrix][0], kb = k[matrix][1], kg = 1.0 - kr - kb;
	double red = rgb[0] / 255.0, green = rgb[1] / 255.0, blue = rgb[2] / 255.0;
	double y = kr * red + kg * green + kb * blue;
	double pb = (blue - y) / (2.0 * (1.0 - kb));
	double pr = (red - y) / (2.0 * (1.0 - kr));
	double max = (1 << bits) - 1, scale = 1 << (bits - 8);
	if (range == UMMS_COLOR_RANGE_FULL) {
		out[0] = (int)lround(max * y);
		out[1] = (int)lround(max * pb + (1 << (bits - 1)));
		out[2] = (int)lround(max * pr + (1 << (bits - 1)));
	} else {
		out[0] = (int)lround((219.0 * y + 16.0) * scale);
		out[1] = (int)lround((224.0 * pb + 128.0) * scale);
		out[2] = (int)lround((224.0 * pr + 128.0) * scale);
	}
	for (int i = 0; i < 3; i++)
		out[i] = CLAMP(out[i], 0, (int)max);
}

/* Images in memory: left half one colour, right half the other. */

struct image {
	struct umms_render_image img;
	uint8_t *planes[3];
};

static void
put16(uint8_t *p, int v)
{
	p[0] = (uint8_t)(v & 0xff);
	p[1] = (uint8_t)(v >> 8);
}

static void
image_fill(struct image *image, uint32_t format, enum umms_color_matrix matrix,
	enum umms_color_range range, uint8_t alpha)
{
	int w = IMG_W, h = IMG_H, cw = w / 2, ch = h / 2;
	struct umms_render_image *img = &image->img;
	*img = (struct umms_render_image){
		.format = format, .modifier = DRM_FORMAT_MOD_LINEAR,
		.width = w, .height = h, .matrix = matrix, .range = range,
	};
	int yuv[2][3];
	rgb_to_yuv(left_rgb, matrix, range, format == DRM_FORMAT_P010 ? 10 : 8, yuv[0]);
	rgb_to_yuv(right_rgb, matrix, range, format == DRM_FORMAT_P010 ? 10 : 8, yuv[1]);
	/* Strides padded past the row: renderers must honour them. */
	int n = 1;
	uint32_t strides[3] = { 0 };
	int heights[3] = { h, h, h };
	switch (format) {
	case DRM_FORMAT_RGB565: strides[0] = (uint32_t)w * 2 + 8; break;
	case DRM_FORMAT_NV12:
		n = 2, strides[0] = (uint32_t)w + 8, strides[1] = (uint32_t)w + 8, heights[1] = ch;
		break;
	case DRM_FORMAT_YUV420:
		n = 3, strides[0] = (uint32_t)w + 4, strides[1] = strides[2] = (uint32_t)cw + 4;
		heights[1] = heights[2] = ch;
		break;
	case DRM_FORMAT_YUYV: strides[0] = (uint32_t)w * 2 + 8; break;
	case DRM_FORMAT_P010:
		n = 2, strides[0] = (uint32_t)w * 2 + 8, strides[1] = (uint32_t)w * 2 + 8;
		heights[1] = ch;
		break;
	default: strides[0] = (uint32_t)w * 4 + 12; break;
	}
	img->n_planes = n;
	for (int i = 0; i < n; i++) {
		image->planes[i] = g_malloc0(strides[i] * (size_t)heights[i]);
		img->planes[i] = (struct umms_render_plane){
			.fd = -1, .data = image->planes[i], .stride = strides[i],
		};
	}
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			int side = x >= w / 2;
			const uint8_t *c = side ? right_rgb : left_rgb;
			const int *v = yuv[side];
			uint8_t *p0 = image->planes[0] + (size_t)y * strides[0];
			uint8_t a = alpha;
			switch (format) {
			case DRM_FORMAT_XRGB8888: case DRM_FORMAT_ARGB8888:
			case DRM_FORMAT_XBGR8888: case DRM_FORMAT_ABGR8888: {
				/* Premultiplied; X bytes zero, which must not matter. */
				bool bgr = format == DRM_FORMAT_XRGB8888 || format == DRM_FORMAT_ARGB8888;
				uint8_t *p = p0 + x * 4;
				for (int i = 0; i < 3; i++)
					p[bgr ? 2 - i : i] = (uint8_t)(c[i] * a / 255);
				p[3] = format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_ABGR8888 ? a : 0;
				break;
			}
			case DRM_FORMAT_RGB565:
				put16(p0 + x * 2, ((c[0] >> 3) << 11) | ((c[1] >> 2) << 5) | (c[2] >> 3));
				break;
			case DRM_FORMAT_NV12:
			case DRM_FORMAT_YUV420:
				p0[x] = (uint8_t)v[0];
				break;
			case DRM_FORMAT_YUYV:
				p0[x * 2] = (uint8_t)v[0];
				p0[x * 2 + 1] = (uint8_t)(x % 2 ? v[2] : v[1]);
				break;
			case DRM_FORMAT_P010:
				put16(p0 + x * 2, v[0] << 6);
				break;
			}
			if (x % 2 || y % 2 || y / 2 >= ch)
				continue;
			int cx = x / 2, cy = y / 2;
			if (format == DRM_FORMAT_NV12) {
				uint8_t *p = image->planes[1] + (size_t)cy * strides[1] + cx * 2;
				p[0] = (uint8_t)v[1], p[1] = (uint8_t)v[2];
			} else if (format == DRM_FORMAT_YUV420) {
				image->planes[1][(size_t)cy * strides[1] + cx] = (uint8_t)v[1];
				image->planes[2][(size_t)cy * strides[2] + cx] = (uint8_t)v[2];
			} else if (format == DRM_FORMAT_P010) {
				uint8_t *p = image->planes[1] + (size_t)cy * strides[1] + cx * 4;
				put16(p, v[1] << 6);
				put16(p + 2, v[2] << 6);
			}
		}
	}
}

static void
image_finish(struct image *image)
{
	for (int i = 0; i < 3; i++)
		g_clear_pointer(&image->planes[i], g_free);
}

static bool is_yuv(uint32_t format);

static int
tolerance(uint32_t format)
{
	if (format == DRM_FORMAT_RGB565 || format == DRM_FORMAT_P010)
		return format == DRM_FORMAT_RGB565 ? TOL_RGB565 : TOL_P010;
	return is_yuv(format) ? TOL_YUV8 : TOL_RGB;
}

/* Draws @img scaled over the whole target; the largest error at the centres
 * of both halves (away from the edge between them). */
static int
draw_halves(struct umms_renderer *r, const struct umms_render_image *img, uint32_t pad,
	GError **error)
{
	struct target target;
	target_init(&target, DST_W, DST_H, pad);
	int err = -1;
	struct umms_render_box src = { 0, 0, img->width, img->height };
	struct umms_render_box dst = { 0, 0, DST_W, DST_H };
	if (!umms_renderer_begin(r, &target.t, error))
		goto out;
	umms_renderer_clear(r, 0xff000000);
	bool drawn = umms_renderer_draw(r, img, &src, &dst, error);
	if (!umms_renderer_end(r, drawn ? error : NULL) || !drawn)
		goto out;
	err = 0;
	static const int points[][2] = { { 8, 8 }, { 32, 48 }, { 50, 88 } };
	for (size_t i = 0; i < G_N_ELEMENTS(points); i++) {
		int x = points[i][0], y = points[i][1];
		err = MAX(err, pixel_error(target_pixel(&target, x, y), left_rgb));
		err = MAX(err, pixel_error(target_pixel(&target, DST_W - 1 - x, y), right_rgb));
	}
out:
	g_free(target.pixels);
	return err;
}

static const uint32_t all_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565, DRM_FORMAT_NV12, DRM_FORMAT_YUV420, DRM_FORMAT_YUYV, DRM_FORMAT_P010,
};

static bool
is_yuv(uint32_t format)
{
	return format == DRM_FORMAT_NV12 || format == DRM_FORMAT_YUV420 ||
		format == DRM_FORMAT_YUYV || format == DRM_FORMAT_P010;
}

static void
test_colors(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	if (!r)
		return;
	for (size_t f = 0; f < G_N_ELEMENTS(all_formats); f++) {
		uint32_t format = all_formats[f];
		int n_matrices = is_yuv(format) ? 3 : 1, n_ranges = is_yuv(format) ? 2 : 1;
		int worst = 0;
		bool drawable = true;
		for (int m = 0; m < n_matrices && drawable; m++) {
			for (int g = 0; g < n_ranges && drawable; g++) {
				struct image image = { 0 };
				image_fill(&image, format, m, g, 255);
				drawable = umms_renderer_can_draw(r, &image.img);
				if (drawable) {
					GError *error = NULL;
					int err = draw_halves(r, &image.img, (m + g) % 2 ? 20 : 0,
						&error);
					g_assert_no_error(error);
					if (err > tolerance(format))
						g_test_message("%.4s matrix %d range %d: error %d",
							(const char *)&format, m, g, err);
					g_assert_cmpint(err, <=, tolerance(format));
					worst = MAX(worst, err);
				}
				image_finish(&image);
			}
		}
		g_test_message("%s %.4s: %s, max error %d (tolerance %d)", entry->name,
			(const char *)&format, drawable ? "drawn" : "cannot draw", worst,
			tolerance(format));
	}
	/* What the gles2 renderer promises: every format. */
	if (strcmp(entry->name, "gles2") == 0) {
		for (size_t f = 0; f < G_N_ELEMENTS(all_formats); f++) {
			struct image image = { 0 };
			image_fill(&image, all_formats[f], UMMS_COLOR_BT709, 0, 255);
			g_assert_true(umms_renderer_can_draw(r, &image.img));
			image_finish(&image);
		}
	}
	g_assert_cmpuint(umms_renderer_stats(r)->uploads, >, 0);
	umms_renderer_destroy(r);
}

static void
test_clear_box(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	if (!r)
		return;
	struct image image = { 0 };
	image_fill(&image, DRM_FORMAT_XRGB8888, 0, 0, 255);
	struct target target;
	target_init(&target, DST_W, DST_H, 0);
	GError *error = NULL;
	const uint32_t clear = 0xff123456;
	/* A fractional box, and one mostly off the target (clipped). */
	struct umms_render_box src = { 0.5, 0.5, 31.0, 47.0 };
	struct umms_render_box dst = { 20.0, 10.0, 50.0, 40.0 };
	struct umms_render_box off_src = { 32, 0, 32, 48 };
	struct umms_render_box off_dst = { -40.0, 80.0, 60.0, 60.0 };
	g_assert_true(umms_renderer_begin(r, &target.t, &error));
	g_assert_no_error(error);
	umms_renderer_clear(r, clear);
	g_assert_true(umms_renderer_draw(r, &image.img, &src, &dst, &error));
	g_assert_true(umms_renderer_draw(r, &image.img, &off_src, &off_dst, &error));
	g_assert_no_error(error);
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
	int inside = 0;
	for (int y = 0; y < DST_H; y++) {
		for (int x = 0; x < DST_W; x++) {
			uint32_t c = target_pixel(&target, x, y) & 0xffffff;
			bool in_box = x >= 20 && x < 70 && y >= 10 && y < 50;
			bool in_off = x < 20 && y >= 80;
			bool edge = x == 19 || x == 70 || y == 9 || y == 50 ||
				(x == 20 && y >= 79) || y == 79;
			if (!in_box && !in_off && !edge) {
				if (c != (clear & 0xffffff))
					g_test_message("(%d,%d) is %06x", x, y, c);
				g_assert_cmphex(c, ==, clear & 0xffffff);
			} else if (in_box && x > 21 && x < 68 && y > 11 && y < 48) {
				g_assert_cmpint(pixel_error(c, left_rgb), <=, TOL_RGB);
				inside++;
			} else if (in_off && x < 18 && y > 81) {
				g_assert_cmpint(pixel_error(c, right_rgb), <=, TOL_RGB);
			}
		}
	}
	g_assert_cmpint(inside, >, 1000);
	g_free(target.pixels);
	image_finish(&image);
	umms_renderer_destroy(r);
}

static void
test_alpha(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	if (!r)
		return;
	const uint8_t a = 128;
	struct image below = { 0 }, above = { 0 };
	image_fill(&below, DRM_FORMAT_XRGB8888, 0, 0, 255);
	image_fill(&above, DRM_FORMAT_ARGB8888, 0, 0, a);
	struct target target;
	target_init(&target, DST_W, DST_H, 0);
	GError *error = NULL;
	/* Above: mirrored, so each half lies over the other colour. */
	struct umms_render_box src = { 0, 0, IMG_W, IMG_H };
	struct umms_render_box src_left = { 0, 0, IMG_W / 2, IMG_H };
	struct umms_render_box dst_right = { DST_W / 2, 0, DST_W / 2, DST_H };
	g_assert_true(umms_renderer_begin(r, &target.t, &error));
	umms_renderer_clear(r, 0xff000000);
	struct umms_render_box dst = { 0, 0, DST_W, DST_H };
	g_assert_true(umms_renderer_draw(r, &below.img, &src, &dst, &error));
	g_assert_true(umms_renderer_draw(r, &above.img, &src_left, &dst_right, &error));
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
	/* OVER with premultiplied source: out = src + dst × (1 − a). */
	uint8_t want[3];
	for (int i = 0; i < 3; i++) {
		double premul = (double)(left_rgb[i] * a / 255);
		want[i] = (uint8_t)lround(premul + right_rgb[i] * (1.0 - a / 255.0));
	}
	int err = pixel_error(target_pixel(&target, 96, 48), want);
	g_test_message("%s alpha: %06x for %02x%02x%02x, error %d", entry->name,
		target_pixel(&target, 96, 48) & 0xffffff, want[0], want[1], want[2], err);
	g_assert_cmpint(err, <=, TOL_ALPHA);
	g_assert_cmpint(pixel_error(target_pixel(&target, 32, 48), left_rgb), <=, TOL_RGB);
	g_free(target.pixels);
	image_finish(&below);
	image_finish(&above);
	umms_renderer_destroy(r);
}

static unsigned
count_fds(void)
{
	unsigned n = 0;
	DIR *dir = opendir("/proc/self/fd");
	g_assert_nonnull(dir);
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* @image's memory planes as dma-bufs: @image becomes a dma-buf image. */
static void
image_to_dmabuf(struct image *image, struct test_dmabuf bufs[3])
{
	struct umms_render_image *img = &image->img;
	int w = img->width, h = img->height, cw = w / 2, ch = h / 2;
	const GLenum R8 = 0x8229, RG8 = 0x822B;
	struct view { GLenum internal, format; int w, h, bpp; } views[3];
	switch (img->format) {
	case DRM_FORMAT_NV12:
		views[0] = (struct view){ R8, GL_RED_EXT, w, h, 1 };
		views[1] = (struct view){ RG8, GL_RG_EXT, cw, ch, 2 };
		break;
	case DRM_FORMAT_YUV420:
		views[0] = (struct view){ R8, GL_RED_EXT, w, h, 1 };
		views[1] = views[2] = (struct view){ R8, GL_RED_EXT, cw, ch, 1 };
		break;
	case DRM_FORMAT_YUYV:
		views[0] = (struct view){ GL_RGBA, GL_RGBA, cw, h, 4 };
		break;
	case DRM_FORMAT_P010:
		views[0] = (struct view){ RG8, GL_RG_EXT, w, h, 2 };
		views[1] = (struct view){ GL_RGBA, GL_RGBA, cw, ch, 4 };
		break;
	default:
		views[0] = (struct view){ GL_RGBA, GL_RGBA, w, h, 4 };
		break;
	}
	for (int i = 0; i < img->n_planes; i++) {
		struct umms_render_plane *p = &img->planes[i];
		g_assert_true(test_dmabuf_make(&bufs[i], views[i].internal, views[i].format,
			views[i].w, views[i].h, p->data, (int)p->stride / views[i].bpp));
		*p = bufs[i].image.planes[0];
	}
	img->dmabuf = true;
	img->modifier = bufs[0].modifier;
}

static void
test_dmabuf(gconstpointer data)
{
	struct umms_renderer *(*create_fn)(GError **) = data;
	GError *error = NULL;
	struct umms_renderer *r = create_fn(&error);
	g_assert_no_error(error);
	/* Registered only where it can run (main): missing pieces are a failure here. */
	if (!umms_gles2_renderer_has_dmabuf(r) || !test_dmabuf_available() || !gl_es3()) {
		umms_renderer_destroy(r);
		g_error("dma-buf import or export (or GLES 3) missing on %s",
			create_fn == create_gles2_gbm ? VM_CARD : "the surfaceless display");
	}
	unsigned fds_before = count_fds();

	/* Every format from dma-bufs, colours as from memory. */
	static const struct { uint32_t format; enum umms_color_matrix m; enum umms_color_range g; }
	cases[] = {
		{ DRM_FORMAT_ABGR8888, 0, 0 },
		{ DRM_FORMAT_NV12, UMMS_COLOR_BT709, UMMS_COLOR_RANGE_LIMITED },
		{ DRM_FORMAT_NV12, UMMS_COLOR_BT601, UMMS_COLOR_RANGE_FULL },
		{ DRM_FORMAT_YUV420, UMMS_COLOR_BT601, UMMS_COLOR_RANGE_FULL },
		{ DRM_FORMAT_YUYV, UMMS_COLOR_BT709, UMMS_COLOR_RANGE_LIMITED },
		{ DRM_FORMAT_P010, UMMS_COLOR_BT2020, UMMS_COLOR_RANGE_LIMITED },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct image image = { 0 };
		struct test_dmabuf bufs[3];
		image_fill(&image, cases[i].format, cases[i].m, cases[i].g, 255);
		image_to_dmabuf(&image, bufs);
		image.img.id = 100 + i;
		g_assert_true(umms_renderer_can_draw(r, &image.img));
		/* What it imports is what it says it imports (a compositor advertises it). */
		if (image.img.modifier == DRM_FORMAT_MOD_LINEAR)
			g_assert_true(umms_renderer_imports(r, cases[i].format, image.img.modifier));
		uint64_t imports = umms_renderer_stats(r)->imports;
		int err = draw_halves(r, &image.img, 0, &error);
		g_assert_no_error(error);
		int err2 = draw_halves(r, &image.img, 0, &error);
		g_assert_no_error(error);
		g_test_message("dma-buf %.4s: max error %d", (const char *)&cases[i].format,
			MAX(err, err2));
		g_assert_cmpint(MAX(err, err2), >=, 0);
		g_assert_cmpint(MAX(err, err2), <=, tolerance(cases[i].format));
		/* Imported once for both draws, held until forgotten. */
		g_assert_cmpuint(umms_renderer_stats(r)->imports, ==, imports + 1);
		g_assert_cmpuint(umms_renderer_stats(r)->cached, ==, 1);
		umms_renderer_forget(r, image.img.id);
		g_assert_cmpuint(umms_renderer_stats(r)->cached, ==, 0);
		for (int p = 0; p < image.img.n_planes; p++)
			test_dmabuf_finish(&bufs[p]);
		image_finish(&image);
	}

	/* A dma-buf target, read back by drawing it as an image. */
	struct test_dmabuf tbuf;
	uint32_t *zero = g_malloc0(DST_W * DST_H * 4);
	g_assert_true(test_dmabuf_make(&tbuf, GL_RGBA, GL_RGBA, DST_W, DST_H, zero, 0));
	g_free(zero);
	struct umms_render_target dt = {
		.format = DRM_FORMAT_XRGB8888, .width = DST_W, .height = DST_H,
		.dmabuf = true, .fd = tbuf.fd, .modifier = tbuf.modifier,
		.offset = tbuf.offset, .stride = tbuf.stride, .id = 900,
	};
	struct image src = { 0 };
	image_fill(&src, DRM_FORMAT_XRGB8888, 0, 0, 255);
	g_assert_true(umms_renderer_begin(r, &dt, &error));
	g_assert_no_error(error);
	umms_renderer_clear(r, 0xff000000);
	g_assert_true(umms_renderer_draw(r, &src.img, NULL, NULL, &error));
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
	struct umms_render_image back = tbuf.image;
	back.format = DRM_FORMAT_XRGB8888;
	int err = draw_halves(r, &back, 0, &error);
	g_assert_no_error(error);
	g_test_message("dma-buf target: max error %d", err);
	g_assert_cmpint(err, >=, 0);
	g_assert_cmpint(err, <=, TOL_RGB);
	umms_renderer_forget(r, 900);
	image_finish(&src);

	/* Bad dma-bufs: refused with an error, nothing drawn (no black). */
	int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	g_assert_cmpint(null_fd, >=, 0);
	struct umms_render_image bad[3];
	bad[0] = tbuf.image;
	bad[0].modifier = fourcc_mod_code(NONE, 0x123456);  /* no driver has it */
	bad[1] = tbuf.image;
	bad[1].planes[0].fd = null_fd;                      /* not a dma-buf */
	bad[2] = tbuf.image;
	bad[2].planes[0].offset = 1u << 30;                 /* past its end */
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		bad[i].id = 700 + i;
		struct target target;
		target_init(&target, 32, 32, 0);
		g_assert_true(umms_renderer_begin(r, &target.t, &error));
		umms_renderer_clear(r, 0xff123456);
		g_assert_false(umms_renderer_draw(r, &bad[i], NULL, NULL, &error));
		g_assert_nonnull(error);
		g_test_message("bad dma-buf %zu: %s", i, error->message);
		g_clear_error(&error);
		g_assert_true(umms_renderer_end(r, &error));
		g_assert_no_error(error);
		for (int p = 0; p < 32 * 32; p++)
			g_assert_cmphex(target.pixels[p] & 0xffffff, ==, 0x123456);
		g_assert_cmpuint(umms_renderer_stats(r)->cached, ==, 0);
		g_free(target.pixels);
	}
	close(null_fd);
	test_dmabuf_finish(&tbuf);
	g_assert_cmpuint(umms_renderer_stats(r)->cached, ==, 0);
	umms_renderer_destroy(r);
	g_assert_cmpuint(count_fds(), <=, fds_before);
}

static void
test_endurance(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	if (!r)
		return;
	enum { FRAMES = 10000, SLOTS = 4, SIZE = 16 };
	bool gles2 = umms_gles2_renderer_describe(r) != NULL;
	/* Small memory images in 4 slots, ids renewed (the old one forgotten)
	 * every 100 frames; on gles2 also dma-buf ones where they can be made. */
	uint32_t pixels[SLOTS][SIZE * SIZE];
	struct umms_render_image images[SLOTS];
	struct test_dmabuf bufs[SLOTS];
	bool dmabuf = gles2 && test_dmabuf_available();
	for (int s = 0; s < SLOTS; s++) {
		for (int i = 0; i < SIZE * SIZE; i++)
			pixels[s][i] = 0xff000000u | (uint32_t)(s * 0x403020);
		images[s] = (struct umms_render_image){
			.format = DRM_FORMAT_XRGB8888, .width = SIZE, .height = SIZE,
			.n_planes = 1, .id = (uint64_t)s + 1,
			.planes[0] = { .fd = -1, .data = pixels[s], .stride = SIZE * 4 },
		};
		if (dmabuf)
			g_assert_true(test_dmabuf_make(&bufs[s], GL_RGBA, GL_RGBA, SIZE, SIZE, pixels[s], 0));
	}
	uint64_t next_id = SLOTS + 1;
	uint32_t out[32 * 32];
	struct umms_render_target target = {
		.format = DRM_FORMAT_XRGB8888, .width = 32, .height = 32,
		.fd = -1, .data = out, .stride = 32 * 4,
	};
	unsigned fds_then = 0, objects_then = 0;
	gint64 start = g_get_monotonic_time();
	GError *error = NULL;
	for (int frame = 0; frame < FRAMES; frame++) {
		if (frame % 100 == 99) {
			int s = (frame / 100) % SLOTS;
			umms_renderer_forget(r, images[s].id);
			images[s].id = next_id++;
		}
		g_assert_true(umms_renderer_begin(r, &target, &error));
		umms_renderer_clear(r, 0xff000000);
		int s = frame % SLOTS;
		struct umms_render_box src = { 0, 0, SIZE, SIZE }, dst = { 0, 0, 32, 32 };
		g_assert_true(umms_renderer_draw(r, &images[s], &src, &dst, &error));
		if (dmabuf) {
			struct umms_render_image img = bufs[s].image;
			img.id = images[s].id + 1000000;
			if (frame % 100 == 99)
				umms_renderer_forget(r, images[(s + 1) % SLOTS].id + 1000000);
			struct umms_render_box half = { 8, 8, 16, 16 };
			g_assert_true(umms_renderer_draw(r, &img, &src, &half, &error));
		}
		g_assert_true(umms_renderer_end(r, &error));
		g_assert_no_error(error);
		g_assert_cmpuint(umms_renderer_stats(r)->cached, <=, 2 * SLOTS + 2);
		if (frame == 100) {
			fds_then = count_fds();
			objects_then = umms_gles2_renderer_gl_objects(r);
		}
	}
	double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	const struct umms_renderer_stats *st = umms_renderer_stats(r);
	g_test_message("%s: %d frames in %.2f s (%s dma-buf), cached %u, imports %" G_GUINT64_FORMAT
		", uploads %" G_GUINT64_FORMAT ", fds %u -> %u, GL objects %u -> %u", entry->name,
		FRAMES, seconds, dmabuf ? "with" : "without", st->cached, st->imports, st->uploads,
		fds_then, count_fds(), objects_then, umms_gles2_renderer_gl_objects(r));
	g_assert_cmpuint(st->frames, ==, FRAMES);
	g_assert_cmpuint(count_fds(), <=, fds_then);
	g_assert_cmpuint(umms_gles2_renderer_gl_objects(r), <=, objects_then);
	if (dmabuf)
		g_assert_cmpuint(st->imports, <=, 2 * FRAMES / 100 + SLOTS + 2);
	for (int s = 0; s < SLOTS && dmabuf; s++)
		test_dmabuf_finish(&bufs[s]);
	umms_renderer_destroy(r);
	if (gles2)
		g_assert_cmpuint(count_fds(), <=, fds_then);
}

/*
 * dmabuf_formats(): every pair listed passes can_draw() for a dma-buf of
 * that layout; pixman lists each format it reads, linear (it maps them);
 * gles2 lists none without EGL's dma-buf import.
 */
static void
test_dmabuf_formats(gconstpointer data)
{
	struct umms_renderer *r = create(data);
	if (!r)
		return;
	const struct umms_render_format *pairs = NULL;
	size_t n = umms_renderer_dmabuf_formats(r, &pairs);
	g_test_message("%s imports %zu dma-buf format and modifier pairs", r->impl->name, n);
	if (strcmp(r->impl->name, "pixman") == 0)
		g_assert_cmpuint(n, ==, G_N_ELEMENTS(all_formats));
	else if (!umms_gles2_renderer_has_dmabuf(r))
		g_assert_cmpuint(n, ==, 0);
	int fd = memfd_create("dmabuf-formats", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	for (size_t i = 0; i < n; i++) {
		g_assert_cmphex(pairs[i].modifier, !=, DRM_FORMAT_MOD_INVALID);
		struct umms_render_image image = { .format = pairs[i].format,
			.modifier = pairs[i].modifier, .width = 16, .height = 16, .dmabuf = true };
		image.n_planes = pairs[i].format == DRM_FORMAT_YUV420 ? 3 :
			pairs[i].format == DRM_FORMAT_NV12 || pairs[i].format == DRM_FORMAT_P010 ? 2 : 1;
		for (int p = 0; p < image.n_planes; p++)
			image.planes[p] = (struct umms_render_plane){ .fd = fd, .stride = 64 };
		g_assert_true(umms_renderer_can_draw(r, &image));
		g_assert_true(umms_renderer_imports(r, pairs[i].format, pairs[i].modifier));
	}
	close(fd);
	umms_renderer_destroy(r);
}

int
main(int argc, char **argv)
{
	static const struct { const char *name; GTestDataFunc func; } cases[] = {
		{ "colors", test_colors }, { "clear-box", test_clear_box },
		{ "alpha", test_alpha }, { "endurance", test_endurance },
		{ "dmabuf-formats", test_dmabuf_formats },
	};
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(renderers); i++) {
		for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
			char *path = g_strdup_printf("/renderer/%s/%s", renderers[i].name,
				cases[c].name);
			g_test_add_data_func(path, &renderers[i], cases[c].func);
			g_free(path);
		}
	}
	/*
	 * dma-buf import needs Mesa's dma-buf EGL extensions: on a GBM device
	 * (the KMS test VM runs this program as renderer-vm), or a surfaceless
	 * display that has them. Where neither is there, the case is not run
	 * (and says so), rather than reported as passing.
	 */
	if (access(VM_CARD, F_OK) == 0) {
		g_test_add_data_func("/renderer/gles2/dmabuf", (gconstpointer)create_gles2_gbm,
			test_dmabuf);
	} else {
		GError *error = NULL;
		struct umms_renderer *r = create_gles2(&error);
		bool can = r && umms_gles2_renderer_has_dmabuf(r) && test_dmabuf_available() &&
			gl_es3();
		umms_renderer_destroy(r);
		g_clear_error(&error);
		if (can)
			g_test_add_data_func("/renderer/gles2/dmabuf", (gconstpointer)create_gles2,
				test_dmabuf);
		else
			g_printerr("# /renderer/gles2/dmabuf: not here (no dma-buf EGL extensions on "
				"the surfaceless display); it runs in the VM (meson test renderer-vm)\n");
	}
	return g_test_run();
}
