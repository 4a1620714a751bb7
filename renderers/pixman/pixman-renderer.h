/*
 * The pixman renderer: struct umms_renderer_impl (renderers/renderer.h) on
 * the CPU, for machines without EGL.
 *
 * - Targets: XRGB8888 or ARGB8888, in memory (@data is the first pixel;
 *   @offset is ignored) or a linear dma-buf (DRM_FORMAT_MOD_LINEAR), which
 *   begin() maps and brackets with DMA_BUF_IOCTL_SYNC until end(). Any other
 *   target makes begin() fail with an error saying why.
 * - Images: XRGB8888, ARGB8888, XBGR8888, ABGR8888 and RGB565 are read in
 *   place. NV12, YUV420, YUYV and P010 are converted on the CPU (integer
 *   fixed point, the image's own matrix and range; chroma of the nearest
 *   sample) into a scratch buffer the renderer keeps across frames and
 *   reallocates only when the image size changes; each conversion is a copy
 *   and counted in stats()->uploads. So is an RGB image whose stride or
 *   address is not a multiple of 4 (pixman reads 32-bit words; RGB565 of an
 *   odd width, packed), copied into the scratch buffer first.
 * - dma-buf images are mapped for the draw only (DMA_BUF_IOCTL_SYNC around
 *   the read of each plane; a file that refuses the ioctl, like a memfd, is
 *   read anyway); a plane past the end of its dma-buf is an error.
 *   They must be linear: DRM_FORMAT_MOD_LINEAR, or DRM_FORMAT_MOD_INVALID
 *   taken as linear. can_draw() is false for any other modifier and draw()
 *   fails naming it.
 * - Images are 1 to 32768 pixels a side.
 * - draw() samples bilinear unless the box is copied 1:1 at a whole-pixel
 *   offset (nearest then), pads the image's edges, and covers the target
 *   pixels whose centres lie inside @dst. It fails with
 *   UMMS_PIXMAN_RENDERER_ERROR_INVALID for empty or non-finite boxes.
 * - Nothing is imported or cached besides the scratch buffer: stats()
 *   imports and cached stay 0 and forget() does nothing.
 * - DRM fourccs are little-endian words: pixman's a8r8g8b8 and friends on
 *   little-endian machines, their byte-swapped twins (b8g8r8a8…) on
 *   big-endian ones, where RGB565 images are refused (no pixman twin).
 *
 * Errors are in the UMMS_PIXMAN_RENDERER_ERROR domain.
 */
#ifndef UMMS_RENDERERS_PIXMAN_RENDERER_H
#define UMMS_RENDERERS_PIXMAN_RENDERER_H

#include <glib.h>

#include "renderer.h"

#define UMMS_PIXMAN_RENDERER_ERROR (umms_pixman_renderer_error_quark())

enum umms_pixman_renderer_error {
	/* A format, modifier or layout this renderer does not read or write. */
	UMMS_PIXMAN_RENDERER_ERROR_UNSUPPORTED,
	/* Boxes, sizes, strides or planes that make no sense. */
	UMMS_PIXMAN_RENDERER_ERROR_INVALID,
	/* A dma-buf that could not be mapped. */
	UMMS_PIXMAN_RENDERER_ERROR_MAP,
};

GQuark umms_pixman_renderer_error_quark(void);

/* A new pixman renderer; destroy it with umms_renderer_destroy(). Never fails
 * today (@error is for the contract's sake). */
struct umms_renderer *umms_pixman_renderer_create(GError **error);

/* How many times @r (a pixman renderer) has (re)allocated its scratch buffer:
 * once per change of the converted image's size, never per frame. */
unsigned umms_pixman_renderer_scratch_allocations(struct umms_renderer *r);

#endif
