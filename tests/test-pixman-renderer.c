/*
 * The pixman renderer (renderers/pixman/) on its own: known colours read
 * back for every image format, matrix and range; boxes, clipping and
 * blending; dma-buf images and targets made from memfds (which map like
 * linear dma-bufs and refuse DMA_BUF_IOCTL_SYNC); refused modifiers; and
 * no fd or scratch growth over 10,000 draws.
 *
 * Tolerances per channel against the colour the test started from (its YUV
 * codes computed here, independently, with the BT.601/709/2020 equations):
 * RGB 8-bit ±3, RGB565 ±3 of what 5/6 bits hold, 8-bit YUV ±6, P010 ±3.
 */
#include <dirent.h>
#include <math.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <glib.h>

#include "pixman-renderer.h"

struct colour {
	uint8_t r, g, b;
};

static const struct colour colours[] = {
	{ 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, { 255, 255, 255 }, { 0, 0, 0 },
	{ 128, 128, 128 }, { 200, 40, 60 }, { 30, 160, 220 }, { 64, 128, 192 },
	{ 230, 180, 140 }, { 16, 16, 16 }, { 250, 250, 10 },
};

static const uint32_t yuv_formats[] = {
	DRM_FORMAT_NV12, DRM_FORMAT_YUV420, DRM_FORMAT_YUYV, DRM_FORMAT_P010,
};

static const uint32_t rgb_formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888, DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

/* ---- images ---------------------------------------------------------------- */

/* An image with all its planes in one block (padded rows, garbage in the
 * padding), drawn from memory or, copied into a memfd, as a dma-buf. */
struct test_image {
	struct umms_render_image img;
	uint8_t *block;
	size_t size;
	int memfd;
};

static void
plane_layout(uint32_t format, int w, int h, int *n, size_t row[3], size_t rows[3])
{
	int cw = (w + 1) / 2, ch = (h + 1) / 2;
	switch (format) {
	case DRM_FORMAT_NV12:
		*n = 2, row[0] = w, rows[0] = h, row[1] = 2 * cw, rows[1] = ch;
		break;
	case DRM_FORMAT_P010:
		*n = 2, row[0] = 2 * w, rows[0] = h, row[1] = 4 * cw, rows[1] = ch;
		break;
	case DRM_FORMAT_YUV420:
		*n = 3, row[0] = w, rows[0] = h, row[1] = row[2] = cw, rows[1] = rows[2] = ch;
		break;
	case DRM_FORMAT_YUYV:
		*n = 1, row[0] = 4 * cw, rows[0] = h;
		break;
	case DRM_FORMAT_RGB565:
		*n = 1, row[0] = 2 * w, rows[0] = h;
		break;
	default:
		*n = 1, row[0] = 4 * w, rows[0] = h;
	}
}

/* @pad bytes after each row (RGB565 with an odd width and pad 0 gives rows
 * that are not whole 32-bit words). */
static void
image_init(struct test_image *t, uint32_t format, int w, int h, size_t pad)
{
	int n;
	size_t row[3], rows[3], offset = 0;
	plane_layout(format, w, h, &n, row, rows);
	*t = (struct test_image){ .memfd = -1 };
	t->img = (struct umms_render_image){ .format = format, .width = w, .height = h,
		.n_planes = n, .modifier = DRM_FORMAT_MOD_LINEAR };
	for (int i = 0; i < n; i++) {
		t->img.planes[i].stride = (uint32_t)(row[i] + pad);
		t->img.planes[i].offset = (uint32_t)offset;
		t->img.planes[i].fd = -1;
		offset += (row[i] + pad) * rows[i];
	}
	t->size = offset;
	t->block = g_malloc(t->size);
	memset(t->block, 0xab, t->size);
	for (int i = 0; i < n; i++)
		t->img.planes[i].data = t->block + t->img.planes[i].offset;
}

/* The image as a dma-buf: the block copied into a memfd. */
static void
image_to_memfd(struct test_image *t, uint64_t modifier)
{
	t->memfd = memfd_create("test-pixman-renderer", MFD_CLOEXEC);
	g_assert_cmpint(t->memfd, >=, 0);
	g_assert_cmpint(write(t->memfd, t->block, t->size), ==, (ssize_t)t->size);
	t->img.dmabuf = true;
	t->img.modifier = modifier;
	for (int i = 0; i < t->img.n_planes; i++) {
		t->img.planes[i].fd = t->memfd;
		t->img.planes[i].data = NULL;
	}
}

static void
image_finish(struct test_image *t)
{
	if (t->memfd >= 0)
		close(t->memfd);
	g_free(t->block);
}

static uint8_t *
at(struct test_image *t, int plane, size_t x_bytes, int row)
{
	return t->block + t->img.planes[plane].offset + (size_t)row * t->img.planes[plane].stride
		+ x_bytes;
}

static void
put16(uint8_t *p, int v)
{
	p[0] = (uint8_t)(v & 0xff);
	p[1] = (uint8_t)(v >> 8);
}

/* The test's own RGB → YUV: E'Y = Kr R + Kg G + Kb B, E'Pb = (B - E'Y) / 2(1 - Kb),
 * E'Pr = (R - E'Y) / 2(1 - Kr); limited codes (16 + 219 E'Y)·2^(n-8) and
 * (128 + 224 E'P)·2^(n-8), full codes (2^n - 1) E'Y and 2^(n-1) + (2^n - 1) E'P. */
static void
rgb_to_yuv(struct colour c, enum umms_color_matrix m, enum umms_color_range range, int bits,
	int yuv[3])
{
	static const double kr_kb[][2] = { { 0.299, 0.114 }, { 0.2126, 0.0722 },
		{ 0.2627, 0.0593 } };
	double kr = kr_kb[m][0], kb = kr_kb[m][1];
	double r = c.r / 255.0, g = c.g / 255.0, b = c.b / 255.0;
	double y = kr * r + (1 - kr - kb) * g + kb * b;
	double p[2] = { (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr)) };
	double max = (1 << bits) - 1, scale = 1 << (bits - 8);
	if (range == UMMS_COLOR_RANGE_LIMITED) {
		yuv[0] = (int)lround((16 + 219 * y) * scale);
		for (int i = 0; i < 2; i++)
			yuv[1 + i] = (int)lround((128 + 224 * p[i]) * scale);
	} else {
		yuv[0] = (int)lround(max * y);
		for (int i = 0; i < 2; i++)
			yuv[1 + i] = (int)CLAMP(lround((1 << (bits - 1)) + max * p[i]), 0, max);
	}
}

/* Pixel (x, y) of @t in colour @c (chroma of the 2×2 block it is in). */
static void
image_put(struct test_image *t, int x, int y, struct colour c)
{
	const struct umms_render_image *img = &t->img;
	int yuv[3];
	rgb_to_yuv(c, img->matrix, img->range, img->format == DRM_FORMAT_P010 ? 10 : 8, yuv);
	uint8_t *p;
	switch (img->format) {
	case DRM_FORMAT_NV12:
		*at(t, 0, x, y) = (uint8_t)yuv[0];
		p = at(t, 1, (size_t)(x / 2) * 2, y / 2);
		p[0] = (uint8_t)yuv[1], p[1] = (uint8_t)yuv[2];
		break;
	case DRM_FORMAT_P010:
		put16(at(t, 0, 2 * (size_t)x, y), yuv[0] << 6);
		p = at(t, 1, (size_t)(x / 2) * 4, y / 2);
		put16(p, yuv[1] << 6), put16(p + 2, yuv[2] << 6);
		break;
	case DRM_FORMAT_YUV420:
		*at(t, 0, x, y) = (uint8_t)yuv[0];
		*at(t, 1, x / 2, y / 2) = (uint8_t)yuv[1];
		*at(t, 2, x / 2, y / 2) = (uint8_t)yuv[2];
		break;
	case DRM_FORMAT_YUYV:
		p = at(t, 0, (size_t)(x / 2) * 4, y);
		p[(x & 1) * 2] = (uint8_t)yuv[0], p[1] = (uint8_t)yuv[1], p[3] = (uint8_t)yuv[2];
		break;
	case DRM_FORMAT_RGB565:
		put16(at(t, 0, 2 * (size_t)x, y), (c.r >> 3) << 11 | (c.g >> 2) << 5 | c.b >> 3);
		break;
	default: {
		bool bgr = img->format == DRM_FORMAT_XBGR8888 || img->format == DRM_FORMAT_ABGR8888;
		p = at(t, 0, 4 * (size_t)x, y);          /* little-endian words */
		p[0] = bgr ? c.r : c.b, p[1] = c.g, p[2] = bgr ? c.b : c.r;
		p[3] = img->format == DRM_FORMAT_XRGB8888 || img->format == DRM_FORMAT_XBGR8888
			? 0x00 : 0xff;  /* X bytes of 0 must not count as alpha */
	}
	}
}

/* The colour a format can hold: RGB565 keeps 5/6 bits (pixman widens them
 * by repeating the top bits). */
static struct colour
held(uint32_t format, struct colour c)
{
	if (format != DRM_FORMAT_RGB565)
		return c;
	return (struct colour){ (uint8_t)((c.r & 0xf8) | c.r >> 5),
		(uint8_t)((c.g & 0xfc) | c.g >> 6), (uint8_t)((c.b & 0xf8) | c.b >> 5) };
}

/* ---- targets --------------------------------------------------------------- */

struct test_target {
	struct umms_render_target t;
	uint8_t *pixels;
};

static void
target_init(struct test_target *t, int w, int h)
{
	uint32_t stride = (uint32_t)w * 4 + 32;
	t->pixels = g_malloc0((size_t)stride * h);
	t->t = (struct umms_render_target){ .format = DRM_FORMAT_XRGB8888, .width = w,
		.height = h, .fd = -1, .data = t->pixels, .stride = stride };
}

static struct colour
target_get(const struct test_target *t, int x, int y)
{
	const uint8_t *p = t->pixels + (size_t)y * t->t.stride + 4 * (size_t)x;
	return (struct colour){ p[2], p[1], p[0] };
}

static int
colour_error(struct colour a, struct colour b)
{
	return MAX(MAX(ABS(a.r - b.r), ABS(a.g - b.g)), ABS(a.b - b.b));
}

/* Draws @img's @src to @dst of @t (cleared to @clear first) in one frame. */
static void
draw_one(struct umms_renderer *r, struct test_target *t, const struct umms_render_image *img,
	struct umms_render_box src, struct umms_render_box dst, uint32_t clear)
{
	GError *error = NULL;
	g_assert_true(umms_renderer_begin(r, &t->t, &error));
	g_assert_no_error(error);
	umms_renderer_clear(r, clear);
	g_assert_true(umms_renderer_can_draw(r, img));
	g_assert_true(umms_renderer_draw(r, img, &src, &dst, &error));
	g_assert_no_error(error);
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
}

#define BOX(w, h) ((struct umms_render_box){ 0, 0, (w), (h) })

/* ---- colours ---------------------------------------------------------------- */

/* Quadrants of four colours (split at even coordinates: chroma pairs stay
 * whole), read back 1:1 (every pixel) and scaled 2.5× (the middle of each
 * quadrant); the largest channel error. */
static int
check_quadrants(struct umms_renderer *r, struct test_image *t, size_t first)
{
	int w = t->img.width, h = t->img.height, err = 0;
	int sx = w / 4 * 2, sy = h / 4 * 2;
	struct colour q[4];
	for (int i = 0; i < 4; i++)
		q[i] = colours[(first + (size_t)i) % G_N_ELEMENTS(colours)];
#define QUADRANT(x, y) q[((y) >= sy) * 2 + ((x) >= sx)]
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			image_put(t, x, y, QUADRANT(x, y));
	if (t->memfd >= 0)
		g_assert_cmpint(pwrite(t->memfd, t->block, t->size, 0), ==, (ssize_t)t->size);
	struct test_target target;
	target_init(&target, w, h);
	draw_one(r, &target, &t->img, BOX(w, h), BOX(w, h), 0xff000000);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			struct colour want = held(t->img.format, QUADRANT(x, y));
			int e = colour_error(target_get(&target, x, y), want);
			err = MAX(err, e);
		}
	g_free(target.pixels);
	target_init(&target, w * 5 / 2, h * 5 / 2);
	draw_one(r, &target, &t->img, BOX(w, h), BOX(w * 2.5, h * 2.5), 0xff000000);
	for (int i = 0; i < 4; i++) {
		double x = i % 2 ? (sx + w) / 2.0 : sx / 2.0, y = i / 2 ? (sy + h) / 2.0 : sy / 2.0;
		struct colour got = target_get(&target, (int)(x * 2.5), (int)(y * 2.5));
		int e = colour_error(got, held(t->img.format, q[i]));
		err = MAX(err, e);
	}
#undef QUADRANT
	g_free(target.pixels);
	return err;
}

static void
test_rgb(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	for (size_t f = 0; f < G_N_ELEMENTS(rgb_formats); f++) {
		int max = 0;
		for (size_t c = 0; c < G_N_ELEMENTS(colours); c++) {
			struct test_image t;
			/* Odd widths; unpadded RGB565 rows (34 bytes) are copied. */
			size_t pad = c % 2 ? 0 : rgb_formats[f] == DRM_FORMAT_RGB565 ? 10 : 8;
			image_init(&t, rgb_formats[f], 17, 10, pad);
			int err = check_quadrants(r, &t, c);
			max = MAX(max, err);
			image_finish(&t);
		}
		g_test_message("%.4s: max error %d", (const char *)&rgb_formats[f], max);
		g_assert_cmpint(max, <=, 3);
	}
	/* RGB565 rows of 34 bytes (every other colour, two draws each): copied
	 * to aligned ones, and counted. */
	g_assert_cmpuint(umms_renderer_stats(r)->uploads, ==, G_N_ELEMENTS(colours) / 2 * 2);
	umms_renderer_destroy(r);
}

static void
test_yuv(void)
{
	static const char *const matrices[] = { "BT.601", "BT.709", "BT.2020" };
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	for (size_t f = 0; f < G_N_ELEMENTS(yuv_formats); f++) {
		int tolerance = yuv_formats[f] == DRM_FORMAT_P010 ? 3 : 6, max = 0;
		for (int m = UMMS_COLOR_BT601; m <= UMMS_COLOR_BT2020; m++)
			for (int range = 0; range < 2; range++) {
				int err = 0;
				for (size_t c = 0; c < G_N_ELEMENTS(colours); c++) {
					struct test_image t;
					image_init(&t, yuv_formats[f], 19, 11, c % 2 ? 0 : 6);
					t.img.matrix = (enum umms_color_matrix)m;
					t.img.range = (enum umms_color_range)range;
					int e = check_quadrants(r, &t, c);
					err = MAX(err, e);
					image_finish(&t);
				}
				g_test_message("%.4s %s %s: max error %d",
					(const char *)&yuv_formats[f], matrices[m],
					range ? "full" : "limited", err);
				max = MAX(max, err);
			}
		g_assert_cmpint(max, <=, tolerance);
	}
	umms_renderer_destroy(r);
}

/* ---- boxes and blending ------------------------------------------------------ */

static void
test_partial(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	struct test_image t;
	image_init(&t, DRM_FORMAT_XRGB8888, 8, 8, 0);
	struct colour c = { 200, 40, 60 }, clear = { 0x10, 0x20, 0x30 };
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			image_put(&t, x, y, c);
	struct test_target target;
	target_init(&target, 32, 24);
	/* Scaled into 10,6 12x8; then half a pixel over the top-left corner. */
	draw_one(r, &target, &t.img, BOX(8, 8), (struct umms_render_box){ 10, 6, 12, 8 },
		0xff102030);
	for (int y = 0; y < 24; y++)
		for (int x = 0; x < 32; x++) {
			bool inside = x >= 10 && x < 22 && y >= 6 && y < 14;
			g_assert_cmpint(colour_error(target_get(&target, x, y), inside ? c : clear),
				<=, inside ? 3 : 0);
		}
	draw_one(r, &target, &t.img, BOX(8, 8), (struct umms_render_box){ -4.5, -3.5, 10, 10 },
		0xff102030);
	for (int y = 0; y < 24; y++)
		for (int x = 0; x < 32; x++) {
			bool inside = x < 5 && y < 6;   /* centres inside, clipped */
			g_assert_cmpint(colour_error(target_get(&target, x, y), inside ? c : clear),
				<=, inside ? 3 : 0);
		}
	/* Fractional edges: the pixels whose centres are inside, x 3..7, y 3..7. */
	draw_one(r, &target, &t.img, BOX(8, 8), (struct umms_render_box){ 2.7, 3.4, 5, 4.2 },
		0xff102030);
	for (int y = 0; y < 24; y++)
		for (int x = 0; x < 32; x++) {
			bool inside = x >= 3 && x <= 7 && y >= 3 && y <= 7;
			g_assert_cmpint(colour_error(target_get(&target, x, y), inside ? c : clear),
				<=, inside ? 3 : 0);
		}
	/* Nothing visible: drawn (nothing), not an error. */
	draw_one(r, &target, &t.img, BOX(8, 8), (struct umms_render_box){ 40, 0, 8, 8 },
		0xff102030);
	g_assert_cmpint(colour_error(target_get(&target, 31, 0), clear), ==, 0);
	/* Empty or non-finite boxes are errors. */
	GError *error = NULL;
	g_assert_true(umms_renderer_begin(r, &target.t, &error));
	g_assert_false(umms_renderer_draw(r, &t.img, &BOX(8, 8), &BOX(0, 8), &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_false(umms_renderer_draw(r, &t.img, &BOX(NAN, 8), &BOX(8, 8), &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_INVALID);
	g_clear_error(&error);
	g_assert_true(umms_renderer_end(r, NULL));
	g_free(target.pixels);
	image_finish(&t);
	umms_renderer_destroy(r);
}

/* Bilinear when scaled or shifted by a fraction, exact copies 1:1. */
static void
test_filter(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	struct test_image t;
	image_init(&t, DRM_FORMAT_XRGB8888, 2, 1, 0);
	image_put(&t, 0, 0, (struct colour){ 0, 0, 0 });
	image_put(&t, 1, 0, (struct colour){ 255, 255, 255 });
	struct test_target target;
	target_init(&target, 8, 1);
	/* Pixel 3 samples x 0.875: 3/8 of the way from black to white. */
	draw_one(r, &target, &t.img, BOX(2, 1), BOX(8, 1), 0xff000000);
	g_assert_cmpint(ABS(target_get(&target, 3, 0).g - 96), <=, 3);
	g_assert_cmpint(ABS(target_get(&target, 4, 0).g - 159), <=, 3);
	g_assert_cmpint(target_get(&target, 0, 0).g, ==, 0);      /* padded edges */
	g_assert_cmpint(target_get(&target, 7, 0).g, ==, 255);
	/* Half a pixel along, 1:1: the two blended. */
	draw_one(r, &target, &t.img, (struct umms_render_box){ 0.5, 0, 1, 1 }, BOX(1, 1),
		0xff000000);
	g_assert_cmpint(ABS(target_get(&target, 0, 0).g - 128), <=, 3);
	/* Whole pixels along, 1:1: copied. */
	draw_one(r, &target, &t.img, (struct umms_render_box){ 0, 0, 1, 1 },
		(struct umms_render_box){ 5, 0, 1, 1 }, 0xffffffff);
	g_assert_cmpint(target_get(&target, 5, 0).g, ==, 0);
	g_assert_cmpint(target_get(&target, 4, 0).g, ==, 255);
	g_assert_cmpint(target_get(&target, 6, 0).g, ==, 255);
	g_free(target.pixels);
	image_finish(&t);
	umms_renderer_destroy(r);
}

static void
test_over(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	static const uint32_t formats[] = { DRM_FORMAT_ARGB8888, DRM_FORMAT_ABGR8888 };
	for (size_t f = 0; f < G_N_ELEMENTS(formats); f++) {
		struct test_image t;
		image_init(&t, formats[f], 4, 4, 0);
		/* Premultiplied red at half alpha: 0x80 red, alpha 0x80. */
		for (int y = 0; y < 4; y++)
			for (int x = 0; x < 4; x++) {
				uint8_t *p = at(&t, 0, 4 * (size_t)x, y);
				bool bgr = formats[f] == DRM_FORMAT_ABGR8888;
				p[0] = bgr ? 0x80 : 0, p[1] = 0, p[2] = bgr ? 0 : 0x80, p[3] = 0x80;
			}
		struct test_target target;
		target_init(&target, 8, 8);
		draw_one(r, &target, &t.img, BOX(4, 4), BOX(8, 8), 0xffffffff);
		/* 0x80 + 0xff·(1 - 0x80/0xff) = 0xff; 0xff·0x7f/0xff = 0x7f. */
		struct colour want = { 0xff, 0x7f, 0x7f };
		for (int y = 0; y < 8; y++)
			for (int x = 0; x < 8; x++)
				g_assert_cmpint(colour_error(target_get(&target, x, y), want),
					<=, 3);
		g_free(target.pixels);
		image_finish(&t);
	}
	umms_renderer_destroy(r);
}

/* ---- dma-bufs --------------------------------------------------------------- */

static void
test_dmabuf(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	/* NV12 with its UV plane at an offset that is no page boundary. */
	uint64_t modifiers[] = { DRM_FORMAT_MOD_LINEAR, DRM_FORMAT_MOD_INVALID };
	for (size_t i = 0; i < G_N_ELEMENTS(modifiers); i++) {
		struct test_image t;
		image_init(&t, DRM_FORMAT_NV12, 18, 10, 2);
		t.img.matrix = UMMS_COLOR_BT709;
		image_to_memfd(&t, modifiers[i]);
		g_assert_cmpint(check_quadrants(r, &t, 3), <=, 6);
		image_finish(&t);
	}
	/* A plane past the end of its dma-buf: refused, no crash. */
	struct test_image t;
	image_init(&t, DRM_FORMAT_XRGB8888, 8, 8, 0);
	image_to_memfd(&t, DRM_FORMAT_MOD_LINEAR);
	t.img.planes[0].offset = 4096;
	struct test_target target;
	target_init(&target, 8, 8);
	GError *error = NULL;
	g_assert_true(umms_renderer_begin(r, &target.t, &error));
	g_assert_false(umms_renderer_draw(r, &t.img, &BOX(8, 8), &BOX(8, 8), &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_INVALID);
	g_test_message("%s", error->message);
	g_clear_error(&error);
	g_assert_true(umms_renderer_end(r, NULL));
	image_finish(&t);

	/* A dma-buf target (a memfd at an offset), read back through a mapping. */
	int fd = memfd_create("test-pixman-target", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(fd, 4096 + 16 * 64), ==, 0);
	struct umms_render_target dt = { .format = DRM_FORMAT_ARGB8888, .width = 16, .height = 16,
		.dmabuf = true, .fd = fd, .modifier = DRM_FORMAT_MOD_LINEAR, .offset = 4096,
		.stride = 64 };
	image_init(&t, DRM_FORMAT_XRGB8888, 8, 8, 0);
	struct colour c = { 30, 160, 220 };
	for (int y = 0; y < 8; y++)
		for (int x = 0; x < 8; x++)
			image_put(&t, x, y, c);
	g_assert_true(umms_renderer_begin(r, &dt, &error));
	g_assert_no_error(error);
	umms_renderer_clear(r, 0x80402010);
	g_assert_true(umms_renderer_draw(r, &t.img, &BOX(8, 8), &BOX(8, 8), &error));
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
	uint8_t *map = mmap(NULL, 4096 + 16 * 64, PROT_READ, MAP_SHARED, fd, 0);
	g_assert_true(map != MAP_FAILED);
	const uint8_t *in = map + 4096 + 2 * 64 + 2 * 4, *out = map + 4096 + 12 * 64 + 12 * 4;
	g_assert_cmpint(colour_error((struct colour){ in[2], in[1], in[0] }, c), ==, 0);
	g_assert_cmpuint(in[3], ==, 0xff);
	g_assert_cmpuint(out[0] | out[1] << 8 | out[2] << 16 | (uint32_t)out[3] << 24, ==,
		0x80402010);
	munmap(map, 4096 + 16 * 64);
	/* A tiled target: begin() refuses it. */
	dt.modifier = I915_FORMAT_MOD_X_TILED;
	g_assert_false(umms_renderer_begin(r, &dt, &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_UNSUPPORTED);
	g_clear_error(&error);
	close(fd);
	image_finish(&t);
	g_free(target.pixels);
	const struct umms_renderer_stats *stats = umms_renderer_stats(r);
	g_assert_cmpuint(stats->imports, ==, 0);
	g_assert_cmpuint(stats->cached, ==, 0);
	umms_renderer_destroy(r);
}

static void
test_refused(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	struct test_image t;
	image_init(&t, DRM_FORMAT_XRGB8888, 8, 8, 0);
	image_to_memfd(&t, I915_FORMAT_MOD_Y_TILED);
	g_assert_false(umms_renderer_can_draw(r, &t.img));
	struct test_target target;
	target_init(&target, 8, 8);
	GError *error = NULL;
	g_assert_true(umms_renderer_begin(r, &target.t, &error));
	umms_renderer_clear(r, 0xff123456);
	uint8_t *before = g_memdup2(target.pixels, (size_t)target.t.stride * 8);
	g_assert_false(umms_renderer_draw(r, &t.img, &BOX(8, 8), &BOX(8, 8), &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_UNSUPPORTED);
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, "Y_TILED"));
	g_clear_error(&error);
	g_assert_true(umms_renderer_end(r, NULL));
	g_assert_cmpmem(before, (size_t)target.t.stride * 8, target.pixels,
		(size_t)target.t.stride * 8);
	/* A format it does not read, and a target format it does not write. */
	t.img.modifier = DRM_FORMAT_MOD_LINEAR;
	t.img.format = DRM_FORMAT_NV16;
	g_assert_false(umms_renderer_can_draw(r, &t.img));
	target.t.format = DRM_FORMAT_RGB565;
	g_assert_false(umms_renderer_begin(r, &target.t, &error));
	g_assert_error(error, UMMS_PIXMAN_RENDERER_ERROR, UMMS_PIXMAN_RENDERER_ERROR_UNSUPPORTED);
	g_clear_error(&error);
	g_free(before);
	g_free(target.pixels);
	image_finish(&t);
	umms_renderer_destroy(r);
}

/* ---- no growth ---------------------------------------------------------------- */

static int
count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	g_assert_nonnull(dir);
	int n = 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* Mappings of this test's memfds (the renderer maps dma-bufs per draw). */
static int
count_memfd_maps(void)
{
	char *maps = NULL;
	g_assert_true(g_file_get_contents("/proc/self/maps", &maps, NULL, NULL));
	int n = 0;
	for (const char *p = maps; (p = strstr(p, "memfd:test-pixman")); p++)
		n++;
	g_free(maps);
	return n;
}

static void
test_no_growth(void)
{
	struct umms_renderer *r = umms_pixman_renderer_create(NULL);
	struct test_image mem, dma;
	image_init(&mem, DRM_FORMAT_NV12, 64, 36, 0);
	image_init(&dma, DRM_FORMAT_NV12, 64, 36, 0);
	for (int y = 0; y < 36; y++)
		for (int x = 0; x < 64; x++)
			image_put(&mem, x, y, colours[(x / 8 + y / 6) % G_N_ELEMENTS(colours)]);
	memcpy(dma.block, mem.block, mem.size);
	image_to_memfd(&dma, DRM_FORMAT_MOD_LINEAR);
	struct test_target target;
	target_init(&target, 128, 72);
	int fds = count_fds();
	gint64 start = g_get_monotonic_time();
	for (int i = 0; i < 10000; i++) {
		g_assert_true(umms_renderer_begin(r, &target.t, NULL));
		umms_renderer_clear(r, 0xff000000);
		g_assert_true(umms_renderer_draw(r, i % 2 ? &dma.img : &mem.img, &BOX(64, 36),
			&BOX(128, 72), NULL));
		g_assert_true(umms_renderer_end(r, NULL));
	}
	double ms = (g_get_monotonic_time() - start) / 1000.0;
	g_test_message("10000 frames of NV12 64x36 to 128x72: %.0f ms (%.1f us a frame)", ms,
		ms * 1000 / 10000);
	g_assert_cmpint(count_fds(), ==, fds);
	g_assert_cmpint(count_memfd_maps(), ==, 0);
	g_assert_cmpuint(umms_pixman_renderer_scratch_allocations(r), ==, 1);
	const struct umms_renderer_stats *stats = umms_renderer_stats(r);
	g_assert_cmpuint(stats->frames, ==, 10000);
	g_assert_cmpuint(stats->uploads, ==, 10000);
	/* Another size reallocates once, and the first size once more. */
	struct test_image other;
	image_init(&other, DRM_FORMAT_YUYV, 32, 20, 0);
	const struct umms_render_image *order[] = { &other.img, &other.img, &mem.img };
	for (size_t i = 0; i < G_N_ELEMENTS(order); i++)
		draw_one(r, &target, order[i], BOX(order[i]->width, order[i]->height),
			BOX(128, 72), 0xff000000);
	g_assert_cmpuint(umms_pixman_renderer_scratch_allocations(r), ==, 3);
	umms_renderer_forget(r, 1);
	image_finish(&other);
	image_finish(&dma);
	image_finish(&mem);
	g_free(target.pixels);
	umms_renderer_destroy(r);
	g_assert_cmpint(count_fds(), ==, fds - 1);     /* the memfd closed */
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/pixman-renderer/rgb", test_rgb);
	g_test_add_func("/pixman-renderer/yuv", test_yuv);
	g_test_add_func("/pixman-renderer/partial", test_partial);
	g_test_add_func("/pixman-renderer/filter", test_filter);
	g_test_add_func("/pixman-renderer/over", test_over);
	g_test_add_func("/pixman-renderer/dmabuf", test_dmabuf);
	g_test_add_func("/pixman-renderer/refused", test_refused);
	g_test_add_func("/pixman-renderer/no-growth", test_no_growth);
	return g_test_run();
}
