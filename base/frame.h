/*
 * A decoded video frame on its way to whoever shows it.
 *
 * Engines make frames; the video server (service/video/) hands them to
 * clients. A frame names memory a client can map without copying: a memfd
 * (shared memory, every plane in one fd) or dma-bufs (one fd per plane).
 * The same memory comes back again and again with new contents; memory_id
 * says which, so a client is told about each piece of memory once.
 *
 * Frames are reference counted and touched on the main loop only; the last
 * unref gives the memory back to the engine.
 */
#ifndef UMMS_SERVICE_FRAME_H
#define UMMS_SERVICE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UMMS_FRAME_MAX_PLANES 4

struct umms_subpicture;

enum umms_frame_kind {
	UMMS_FRAME_MEMFD,
	UMMS_FRAME_DMABUF,
};

struct umms_frame_plane {
	int fd;            /* owned by the frame's memory; dup to keep */
	uint32_t offset;
	uint32_t stride;
};

struct umms_frame {
	int refs;
	enum umms_frame_kind kind;
	uint32_t format;   /* memfd: wl_shm.format; dmabuf: DRM fourcc */
	int width, height; /* of the buffer */
	int crop_x, crop_y, crop_width, crop_height; /* the picture inside it */
	unsigned par_n, par_d;
	uint64_t modifier; /* dmabuf only */
	int n_planes;
	struct umms_frame_plane planes[UMMS_FRAME_MAX_PLANES];
	uint64_t memory_id; /* the same for every frame in the same memory */
	int64_t present_ns; /* CLOCK_MONOTONIC time it is due on screen */
	int64_t position;   /* µs into the media */
	/*
	 * The subtitles to draw over this frame's picture (subpicture.h), or
	 * NULL for none: a reference the frame holds and the last unref drops.
	 */
	struct umms_subpicture *subpicture;

	/* The engine's: returns the memory. Called by the last unref. */
	void (*destroy)(struct umms_frame *frame);
};

/* A dma-buf layout a consumer imports: a DRM fourcc and a modifier. */
struct umms_frame_dmabuf_format {
	uint32_t format;
	uint64_t modifier;
};

/* DRM_FORMAT_MOD_LINEAR and DRM_FORMAT_MOD_INVALID (the implicit layout). */
#define UMMS_FRAME_MOD_LINEAR 0ull
#define UMMS_FRAME_MOD_INVALID 0x00ffffffffffffffull

/*
 * Whether a dma-buf of @format and @modifier is one of the @n in @list:
 * the same pair, or a linear buffer where the list has the format with the
 * implicit modifier (an importer that knows no modifiers takes the
 * driver's default layout, and linear buffers as such).
 */
bool umms_frame_dmabuf_format_in(const struct umms_frame_dmabuf_format *list, size_t n,
	uint32_t format, uint64_t modifier);

struct umms_frame *umms_frame_ref(struct umms_frame *frame);
void umms_frame_unref(struct umms_frame *frame);

/* The same frame shape (size, crop, pixel aspect)? */
bool umms_frame_same_geometry(const struct umms_frame *a, const struct umms_frame *b);

#endif
