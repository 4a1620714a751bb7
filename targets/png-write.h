/* Pictures as PNG files: screen captures (Display1.Capture), headless dumps. */
#ifndef UMMS_TARGETS_PNG_WRITE_H
#define UMMS_TARGETS_PNG_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

/*
 * Writes @width x @height XRGB8888 pixels (@stride bytes a row) to @path.
 * Encoded by libpng, fast (no filters, light compression).
 * NoResource without memory for it; InvalidArgument when @path cannot be
 * written.
 */
bool umms_png_write_xrgb(const char *path, const void *pixels, int width, int height,
	uint32_t stride, GError **error);

#endif
