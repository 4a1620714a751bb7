/* PNG files through libpng's simplified API (png.h). */
#include <png.h>
#include <string.h>

#include "error.h"
#include "png-write.h"

bool
umms_png_write_xrgb(const char *path, const void *pixels, int width, int height,
	uint32_t stride, GError **error)
{
	if (width <= 0 || height <= 0 || stride < (uint32_t)width * 4) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"PNG: a %dx%d picture with %u bytes a row", width, height, stride);
		return false;
	}
	/* XRGB8888 is B, G, R, X in memory: packed to B, G, R (the X byte is not alpha). */
	size_t row = (size_t)width * 3;
	uint8_t *bgr = g_try_malloc(row * (size_t)height);
	if (!bgr) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"PNG: no memory for a %dx%d picture", width, height);
		return false;
	}
	for (int y = 0; y < height; y++) {
		const uint8_t *in = (const uint8_t *)pixels + (size_t)y * stride;
		uint8_t *out = bgr + (size_t)y * row;
		for (int x = 0; x < width; x++, in += 4, out += 3)
			memcpy(out, in, 3);
	}
	png_image image = {
		.version = PNG_IMAGE_VERSION,
		.width = (png_uint_32)width,
		.height = (png_uint_32)height,
		.format = PNG_FORMAT_BGR,
		/* Fast: no filters, light compression. Captures are read by tests and people,
		 * and an emulated machine spent seconds on pngenc's default level. */
		.flags = PNG_IMAGE_FLAG_FAST,
	};
	bool ok = png_image_write_to_file(&image, path, 0, bgr, (png_int_32)row, NULL);
	g_free(bgr);
	if (!ok) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "PNG: %s: %s", path,
			image.message);
		png_image_free(&image);
	}
	return ok;
}
