/*
 * Pictures for tests: screenshots and PNGs as packed RGB, and assertions on
 * their pixels that save the picture beside the scratch folder on failure.
 */
#ifndef UMMS_TESTS_IMAGE_H
#define UMMS_TESTS_IMAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

/* A screenshot or a loaded PNG: packed 8-bit RGB. */
struct umms_test;
struct umms_test_image;

/* Whether 0xRRGGBB colours @a and @b are within @tolerance on every channel. */
bool umms_test_color_near(uint32_t a, uint32_t b, int tolerance);

/* Decodes a PNG (any format libpng reads); NULL with @error. */
struct umms_test_image *umms_test_image_load_file(const char *png_path, GError **error);
/* Decodes a PNG (any format libpng reads); fails the test if it cannot. */
struct umms_test_image *umms_test_image_load(const char *png_path);
/* NULL does nothing. */
void umms_test_image_free(struct umms_test_image *image);
int umms_test_image_width(const struct umms_test_image *image);
int umms_test_image_height(const struct umms_test_image *image);
/* 0xRRGGBB; fails the test if (x, y) is outside the image. */
uint32_t umms_test_image_pixel(const struct umms_test_image *image, int x, int y);
/* Writes it as PNG; false (and a message on stderr) if it cannot. */
bool umms_test_image_save(const struct umms_test_image *image, const char *png_path);

/*
 * Asserts the pixel at (x, y) is within @tolerance per channel of @rgb
 * (0xRRGGBB). On failure the image is saved beside the test's scratch
 * folder as <scratch folder>-<what>.png, and the test fails naming @what,
 * the position, the expected and the found colour, and the file.
 */
void umms_test_image_assert_pixel(const struct umms_test_image *image, int x, int y,
	uint32_t rgb, int tolerance, const char *what);
/*
 * Asserts every pixel of the rectangle (x, y, w, h) shrunk by @inset on each
 * side is within @tolerance of @rgb; the rectangle must lie inside the image
 * and keep at least one pixel. Fails like umms_test_image_assert_pixel(),
 * with the first wrong pixel (in reading order), how many are wrong and
 * the box around them.
 */
void umms_test_image_assert_rect(const struct umms_test_image *image, int x, int y, int w,
	int h, int inset, uint32_t rgb, int tolerance, const char *what);

/* The 0xRRGGBB expected at (x, y), or UMMS_TEST_ANY_PIXEL where any will do. */
typedef uint32_t (*umms_test_pixel_fn)(int x, int y, const void *data);
#define UMMS_TEST_ANY_PIXEL 0xffffffffu
/*
 * Asserts every pixel of @image is within @tolerance of what @want says
 * (a whole picture: no trail, nothing missing). Fails like
 * umms_test_image_assert_pixel(), with how many are wrong and the first.
 */
void umms_test_image_assert_each(const struct umms_test_image *image, umms_test_pixel_fn want,
	const void *data, int tolerance, const char *what);

/* Whether the 0xRRGGBB pixel @rgb is one a count looks for. */
typedef bool (*umms_test_pixel_match_fn)(uint32_t rgb, const void *data);
/*
 * How many pixels of the rectangle (x, y, w, h), clipped to @image, @match
 * says yes to.
 */
unsigned umms_test_image_count(const struct umms_test_image *image, int x, int y, int w,
	int h, umms_test_pixel_match_fn match, const void *data);
/*
 * A match: red and green both over 100, as a subtitle's white or yellow
 * is and the dark blue picture of the subtitle clips (subs.mkv) is not.
 */
bool umms_test_pixel_light(uint32_t rgb, const void *data);

/*
 * What ummsd's screen (/org/umms/display/0) shows now, by Display1.Capture
 * into the test's scratch folder as @what.png; with @width and @height not
 * 0, its size is asserted.
 */
struct umms_test_image *umms_test_capture(struct umms_test *t, const char *what, int width,
	int height);

/*
 * Saves @image as <scratch folder>-<what>.png beside the scratch folder (so
 * it outlives it); returns the path, or a note that saving failed.
 */
char *umms_test_image_save_for_diagnosis(const struct umms_test_image *image, const char *what);

#endif
