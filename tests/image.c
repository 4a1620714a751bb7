/* Screenshots and pictures for tests: see image.h. */
#include <stdio.h>
#include <string.h>
#include <png.h>

#include "harness.h"
#include "image.h"

struct umms_test_image {
	int width, height;
	uint8_t *rgb;          /* packed, width * 3 bytes a row */
};

bool
umms_test_color_near(uint32_t a, uint32_t b, int tolerance)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int diff = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);
		if (ABS(diff) > tolerance)
			return false;
	}
	return true;
}

struct umms_test_image *
umms_test_image_load_file(const char *path, GError **error)
{
	/* libpng's simplified API: any PNG (palette, grey, alpha, 16 bits) to packed RGB. */
	png_image png = { .version = PNG_IMAGE_VERSION };
	if (!png_image_begin_read_from_file(&png, path)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot decode %s: %s", path,
			png.message);
		return NULL;
	}
	/* RGBA, then the alpha dropped (not composited): the pixels as stored. */
	png.format = PNG_FORMAT_RGBA;
	if (png.width == 0 || png.height == 0 || png.width > 16384 || png.height > 16384) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot decode %s: %ux%u", path,
			png.width, png.height);
		png_image_free(&png);
		return NULL;
	}
	uint8_t *rgba = g_malloc(PNG_IMAGE_SIZE(png));
	if (!png_image_finish_read(&png, NULL, rgba, 0, NULL)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot decode %s: %s", path,
			png.message);
		png_image_free(&png);
		g_free(rgba);
		return NULL;
	}
	struct umms_test_image *image = g_new0(struct umms_test_image, 1);
	image->width = (int)png.width;
	image->height = (int)png.height;
	size_t n = (size_t)png.width * png.height;
	image->rgb = g_malloc(n * 3);
	for (size_t i = 0; i < n; i++)
		memcpy(image->rgb + i * 3, rgba + i * 4, 3);
	g_free(rgba);
	return image;
}

struct umms_test_image *
umms_test_image_load(const char *png_path)
{
	GError *error = NULL;
	struct umms_test_image *image = umms_test_image_load_file(png_path, &error);
	if (!image)
		g_error("%s", error->message);
	return image;
}

void
umms_test_image_free(struct umms_test_image *image)
{
	if (!image)
		return;
	g_free(image->rgb);
	g_free(image);
}

int
umms_test_image_width(const struct umms_test_image *image)
{
	return image->width;
}

int
umms_test_image_height(const struct umms_test_image *image)
{
	return image->height;
}

uint32_t
umms_test_image_pixel(const struct umms_test_image *image, int x, int y)
{
	if (x < 0 || y < 0 || x >= image->width || y >= image->height)
		g_error("pixel (%d,%d) is outside the %dx%d image", x, y, image->width,
			image->height);
	const uint8_t *p = image->rgb + ((size_t)y * image->width + x) * 3;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

bool
umms_test_image_save(const struct umms_test_image *image, const char *png_path)
{
	png_image png = {
		.version = PNG_IMAGE_VERSION,
		.width = (png_uint_32)image->width,
		.height = (png_uint_32)image->height,
		.format = PNG_FORMAT_RGB,
		.flags = PNG_IMAGE_FLAG_FAST,    /* diagnostics only: fast beats small */
	};
	bool ok = png_image_write_to_file(&png, png_path, 0, image->rgb, 0, NULL);
	if (!ok) {
		g_printerr("cannot save %s: %s\n", png_path, png.message);
		png_image_free(&png);
	}
	return ok;
}

/*
 * Saves @image as <scratch folder>-<what>.png beside the scratch folder (so
 * it outlives it); returns the path, or a note that saving failed.
 */
char *
umms_test_image_save_for_diagnosis(const struct umms_test_image *image, const char *what)
{
	const char *tmpdir = umms_test_tmpdir();
	g_autofree char *parent = tmpdir ? g_path_get_dirname(tmpdir) : g_strdup(g_get_tmp_dir());
	g_autofree char *base = tmpdir ? g_path_get_basename(tmpdir) : g_strdup("umms-test");
	g_autofree char *name = g_strdup(what && *what ? what : "image");
	for (char *c = name; *c; c++)
		if (!g_ascii_isalnum(*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	char *path = g_strdup_printf("%s/%s-%s.png", parent, base, name);
	if (!umms_test_image_save(image, path)) {
		g_free(path);
		return g_strdup("(could not save the image)");
	}
	g_printerr("# saved the image to %s\n", path);
	return path;
}

void
umms_test_image_assert_pixel(const struct umms_test_image *image, int x, int y, uint32_t rgb,
	int tolerance, const char *what)
{
	uint32_t found = umms_test_image_pixel(image, x, y);
	if (umms_test_color_near(found, rgb, tolerance))
		return;
	g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
	g_error("%s: pixel (%d,%d) is #%06x, expected #%06x (±%d per channel); image %dx%d "
		"saved to %s", what, x, y, found, rgb, tolerance, image->width, image->height,
		saved);
}

void
umms_test_image_assert_rect(const struct umms_test_image *image, int x, int y, int w, int h,
	int inset, uint32_t rgb, int tolerance, const char *what)
{
	if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > image->width ||
			y + h > image->height)
		g_error("%s: rectangle (%d,%d %dx%d) is not inside the %dx%d image", what, x, y,
			w, h, image->width, image->height);
	int x0 = x + inset, y0 = y + inset, x1 = x + w - inset, y1 = y + h - inset;
	if (inset < 0 || x0 >= x1 || y0 >= y1)
		g_error("%s: rectangle (%d,%d %dx%d) inset by %d has no pixels left", what, x, y,
			w, h, inset);
	unsigned bad = 0;
	int first_x = 0, first_y = 0;
	uint32_t first = 0;
	int min_x = x1, min_y = y1, max_x = x0, max_y = y0;
	for (int py = y0; py < y1; py++) {
		for (int px = x0; px < x1; px++) {
			uint32_t found = umms_test_image_pixel(image, px, py);
			if (umms_test_color_near(found, rgb, tolerance))
				continue;
			if (bad++ == 0) {
				first_x = px;
				first_y = py;
				first = found;
			}
			min_x = MIN(min_x, px);
			min_y = MIN(min_y, py);
			max_x = MAX(max_x, px);
			max_y = MAX(max_y, py);
		}
	}
	if (bad == 0)
		return;
	g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
	g_error("%s: %u of %u pixels of (%d,%d %dx%d) inset by %d are not #%06x (±%d per "
		"channel); the first, (%d,%d), is #%06x; the wrong ones lie within "
		"(%d,%d)-(%d,%d); image %dx%d saved to %s", what, bad,
		(unsigned)((x1 - x0) * (y1 - y0)), x, y, w, h, inset, rgb, tolerance, first_x,
		first_y, first, min_x, min_y, max_x, max_y, image->width, image->height, saved);
}

unsigned
umms_test_image_count(const struct umms_test_image *image, int x, int y, int w, int h,
	umms_test_pixel_match_fn match, const void *data)
{
	int x0 = MAX(x, 0), y0 = MAX(y, 0);
	int x1 = MIN(x + w, image->width), y1 = MIN(y + h, image->height);
	unsigned n = 0;
	for (int row = y0; row < y1; row++) {
		for (int col = x0; col < x1; col++)
			n += match(umms_test_image_pixel(image, col, row), data);
	}
	return n;
}

bool
umms_test_pixel_light(uint32_t rgb, const void *data)
{
	return (rgb >> 16 & 0xff) > 100 && (rgb >> 8 & 0xff) > 100;
}

void
umms_test_image_assert_each(const struct umms_test_image *image, umms_test_pixel_fn want,
	const void *data, int tolerance, const char *what)
{
	unsigned bad = 0;
	int first_x = 0, first_y = 0;
	uint32_t found = 0, expected = 0;
	for (int y = 0; y < image->height; y++) {
		for (int x = 0; x < image->width; x++) {
			uint32_t w = want(x, y, data);
			if (w == UMMS_TEST_ANY_PIXEL)
				continue;
			uint32_t g = umms_test_image_pixel(image, x, y);
			if (umms_test_color_near(g, w & 0xffffff, tolerance))
				continue;
			if (bad++ == 0)
				first_x = x, first_y = y, found = g, expected = w & 0xffffff;
		}
	}
	if (bad == 0)
		return;
	g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
	g_error("%s: %u pixels wrong (±%d per channel), the first at (%d,%d): #%06x, not "
		"#%06x; image %dx%d saved to %s", what, bad, tolerance, first_x, first_y, found,
		expected, image->width, image->height, saved);
}

struct umms_test_image *
umms_test_capture(struct umms_test *t, const char *what, int width, int height)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, "/org/umms/display/0",
		"org.umms.Display1", "Capture", g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	if (width)
		g_assert_cmpint(umms_test_image_width(image), ==, width);
	if (height)
		g_assert_cmpint(umms_test_image_height(image), ==, height);
	return image;
}
