/*
 * A renderer: draws images (decoded video frames, client buffers) into a
 * target buffer. One folder per renderer (renderers/gles2/, renderers/pixman/),
 * each with one `static const struct umms_renderer_impl` and a create
 * function; users hold a `struct umms_renderer *` and call the inline
 * wrappers below.
 *
 * Used by ummsd's compositor and the KMS composition rung (a scene of UI
 * surfaces and video into the primary plane's buffer), by the headless
 * target (frames to PNG), and by tests. Knows nothing of ummsd: images are
 * described here, not as service frames.
 *
 * Contract for every implementation:
 * - begin() starts a frame into @target; draw() calls follow, in stacking
 *   order (later over earlier, OVER with the image's alpha when its format
 *   has one, SRC otherwise); end() finishes it: when end() returns true
 *   the target's memory holds the pixels (mapped targets) or the GPU work
 *   is flushed with a fence the caller may wait on (dma-buf targets).
 *   draw() outside begin()/end() is a programming error.
 * - Images are referenced, not copied, for the duration of draw() only,
 *   unless the renderer caches an import of their memory: it may keep
 *   GPU objects (EGLImages, textures) keyed by @id until forget(@id) or
 *   destroy(). Callers must call forget() before the memory behind an id
 *   is freed or reused for another size or format.
 * - draw() fails (false, @error set, nothing drawn) for an image it cannot
 *   read (format, modifier, import refused): the caller then falls back
 *   (another renderer, a copy) and says so; it never draws garbage or
 *   black silently. can_draw() answers the same question before drawing.
 * - YUV images are converted with their own matrix and range. Every
 *   renderer must give the same pixels within the tolerance documented in
 *   tests/test-renderer.c.
 * - Memory (non dma-buf) images that a GPU renderer must upload are a
 *   copy: stats()->uploads counts them, so Stats can report copies. An
 *   image marked unchanged whose upload the renderer kept is not uploaded
 *   again.
 * - dmabuf_formats() lists the dma-buf images draw() imports, as DRM
 *   fourcc + modifier pairs (DRM_FORMAT_MOD_LINEAR, …; never
 *   DRM_FORMAT_MOD_INVALID), fixed from create() to destroy() and owned by
 *   the renderer. "Imports" means reads the dma-buf itself, with no copy the
 *   caller must make: an EGLImage (gles2), or a mapping of a linear buffer
 *   read in place (pixman). None (0) when it cannot import dma-bufs at all.
 *   can_draw() of a dma-buf image with a listed pair is true where its size
 *   and planes are right; draw() may still fail for one buffer (the driver
 *   refuses it), and the caller falls back as for any draw failure. A
 *   compositor advertises these pairs (zwp_linux_dmabuf_v1) and no others.
 * - destroy() releases every object at once; no GL objects, fds or memory
 *   may grow with the number of frames drawn.
 * - Damage (optional; NULL everywhere means today's whole repaint):
 *   an image's @damage (memory images with an id, not unchanged) is the
 *   one rectangle of image pixels that changed since the last draw of
 *   that id: a GPU renderer that kept an upload of the id at the same size
 *   and format uploads only that rectangle into it (stats()->upload_bytes
 *   counts what it copied); one that kept nothing uploads the whole image.
 *   Pixels outside @damage must be those of the last draw of the id.
 *   A target's @damage is the one rectangle of target pixels to repaint:
 *   clear() and draw() change no pixel outside it, and for a memory
 *   target only its rows are written back at end(). The caller promises
 *   that outside it the target holds what should stay: for a memory
 *   target, the renderer's last frame into the same memory (the gles2
 *   renderer repaints whole when the memory or size differs from its last
 *   frame's); for a dma-buf target the caller accounts for the buffer's
 *   age (a buffer two frames old needs the previous frame's damage too).
 */
#ifndef UMMS_RENDERERS_RENDERER_H
#define UMMS_RENDERERS_RENDERER_H

#include <stdbool.h>
#include <stdint.h>
#include <drm_fourcc.h>
#include <glib.h>

#define UMMS_RENDER_MAX_PLANES 4

enum umms_color_matrix {
	UMMS_COLOR_BT601,
	UMMS_COLOR_BT709,
	UMMS_COLOR_BT2020,
};

enum umms_color_range {
	UMMS_COLOR_RANGE_LIMITED,  /* Y 16–235, UV 16–240 (8 bits; scaled for 10) */
	UMMS_COLOR_RANGE_FULL,
};

struct umms_render_plane {
	int fd;              /* dma-buf images: the plane's dma-buf; else -1 */
	const void *data;    /* memory images: the plane's first byte (mapped); else NULL */
	uint32_t offset;     /* dma-buf images: from the start of fd */
	uint32_t stride;
};

/* Pixels to draw: a video frame or a client's buffer. */
struct umms_render_image {
	uint32_t format;     /* DRM fourcc: XRGB8888, ARGB8888, XBGR8888, ABGR8888, RGB565,
	                      * NV12, P010, YUV420, YUYV (what each renderer takes: can_draw) */
	uint64_t modifier;   /* dma-buf images (DRM_FORMAT_MOD_LINEAR, …) */
	int width, height;
	bool dmabuf;
	int n_planes;
	struct umms_render_plane planes[UMMS_RENDER_MAX_PLANES];
	enum umms_color_matrix matrix;   /* YUV only */
	enum umms_color_range range;     /* YUV only */
	uint64_t id;         /* the memory's identity, for import caches; 0: do not cache */
	/*
	 * Memory images with an id: the pixels are the same as at the last
	 * draw of this id (damage tracking: a static UI). A renderer that kept
	 * an upload of them may draw it without uploading again (not counted).
	 */
	bool unchanged;
	/* Memory images with an id, not unchanged: what changed (see above); NULL: all. */
	const struct umms_render_box *damage;
};

/* A rectangle in image pixels (source, may be fractional) or target pixels. */
struct umms_render_box {
	double x, y, width, height;
};

/* Where a frame is drawn: memory the caller can read, or a dma-buf (KMS, GBM). */
struct umms_render_target {
	uint32_t format;     /* DRM fourcc: XRGB8888 or ARGB8888 */
	int width, height;
	bool dmabuf;
	int fd;              /* dma-buf targets */
	uint64_t modifier;
	void *data;          /* memory targets: written at end() */
	uint32_t offset, stride;
	uint64_t id;         /* for the renderer's cache of target imports; 0: none */
	/* The rectangle to repaint, whole pixels (see above); NULL: the whole target. */
	const struct umms_render_box *damage;
};

struct umms_renderer_stats {
	uint64_t frames;     /* end()s */
	uint64_t uploads;    /* memory images uploaded (copies), whole or damaged part */
	uint64_t upload_bytes;  /* bytes those uploads copied (a damaged part: its bytes) */
	uint64_t imports;    /* dma-buf imports made (cache misses) */
	unsigned cached;     /* imports held now */
};

/* A dma-buf layout a renderer imports (dmabuf_formats). */
struct umms_render_format {
	uint32_t format;     /* DRM fourcc */
	uint64_t modifier;
};

struct umms_renderer;

struct umms_renderer_impl {
	const char *name;
	bool (*can_draw)(struct umms_renderer *r, const struct umms_render_image *image);
	bool (*begin)(struct umms_renderer *r, const struct umms_render_target *target,
		GError **error);
	/* Fills the whole target with 0xAARRGGBB (SRC). */
	void (*clear)(struct umms_renderer *r, uint32_t argb);
	/* @src of @image scaled (bilinear) into @dst of the target, clipped to it. */
	bool (*draw)(struct umms_renderer *r, const struct umms_render_image *image,
		const struct umms_render_box *src, const struct umms_render_box *dst,
		GError **error);
	bool (*end)(struct umms_renderer *r, GError **error);
	void (*forget)(struct umms_renderer *r, uint64_t id);
	const struct umms_renderer_stats *(*stats)(struct umms_renderer *r);
	/* The pairs in *@formats (the renderer's, fixed); how many (0: no dma-buf import). */
	size_t (*dmabuf_formats)(struct umms_renderer *r,
		const struct umms_render_format **formats);
	void (*destroy)(struct umms_renderer *r);
};

struct umms_renderer {
	const struct umms_renderer_impl *impl;
};

static inline bool
umms_renderer_can_draw(struct umms_renderer *r, const struct umms_render_image *image)
{
	return r->impl->can_draw(r, image);
}

static inline bool
umms_renderer_begin(struct umms_renderer *r, const struct umms_render_target *target,
	GError **error)
{
	return r->impl->begin(r, target, error);
}

static inline void
umms_renderer_clear(struct umms_renderer *r, uint32_t argb)
{
	r->impl->clear(r, argb);
}

static inline bool
umms_renderer_draw(struct umms_renderer *r, const struct umms_render_image *image,
	const struct umms_render_box *src, const struct umms_render_box *dst, GError **error)
{
	return r->impl->draw(r, image, src, dst, error);
}

static inline bool
umms_renderer_end(struct umms_renderer *r, GError **error)
{
	return r->impl->end(r, error);
}

static inline void
umms_renderer_forget(struct umms_renderer *r, uint64_t id)
{
	r->impl->forget(r, id);
}

static inline const struct umms_renderer_stats *
umms_renderer_stats(struct umms_renderer *r)
{
	return r->impl->stats(r);
}

static inline size_t
umms_renderer_dmabuf_formats(struct umms_renderer *r, const struct umms_render_format **formats)
{
	return r->impl->dmabuf_formats(r, formats);
}

/* Whether @format with @modifier is one of the renderer's dmabuf_formats(). */
static inline bool
umms_renderer_imports(struct umms_renderer *r, uint32_t format, uint64_t modifier)
{
	const struct umms_render_format *formats = NULL;
	size_t n = umms_renderer_dmabuf_formats(r, &formats);
	for (size_t i = 0; i < n; i++)
		if (formats[i].format == format && formats[i].modifier == modifier)
			return true;
	return false;
}

/*
 * Fills @box of the target with opaque 0xRRGGBB: a one-pixel image drawn
 * scaled, which every renderer takes (XRGB8888, SRC).
 */
static inline bool
umms_renderer_fill(struct umms_renderer *r, const struct umms_render_box *box, uint32_t rgb)
{
	const uint32_t pixel = 0xff000000u | rgb;
	struct umms_render_image image = { .format = DRM_FORMAT_XRGB8888,
		.modifier = DRM_FORMAT_MOD_LINEAR, .width = 1, .height = 1, .n_planes = 1,
		.planes[0] = { .fd = -1, .data = &pixel, .stride = 4 } };
	struct umms_render_box one = { 0, 0, 1, 1 };
	return umms_renderer_draw(r, &image, &one, box, NULL);
}

static inline void
umms_renderer_destroy(struct umms_renderer *r)
{
	if (r)
		r->impl->destroy(r);
}

#endif
