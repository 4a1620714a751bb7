/*
 * Buffers of the KMS output: dumb buffers it draws into (black background,
 * composition, writeback), and framebuffers for the engine's frames.
 *
 * A frame becomes a framebuffer without a copy when it can: a dma-buf
 * frame is imported as it is; a memfd frame becomes a dma-buf through
 * /dev/udmabuf (the memfd is sealed against shrinking by the engine, as
 * udmabuf requires). When neither works, the frame is copied into a dumb
 * buffer and counted. Framebuffers are cached by the frame's memory_id:
 * the engine cycles through a few pieces of memory.
 */
#ifndef UMMS_TARGETS_KMS_BUFFERS_H
#define UMMS_TARGETS_KMS_BUFFERS_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "frame.h"
#include "layout.h"
#include "subpicture.h"

struct kms_dumb {
	uint32_t handle, fb_id, pitch;
	int width, height;
	uint32_t format;     /* DRM fourcc, 32 bits per pixel */
	void *map;
	size_t size;
	bool exported;       /* prime_fd is its dma-buf (kms_dumb_export) */
	int prime_fd;
};

bool kms_dumb_create(int fd, int width, int height, uint32_t format, struct kms_dumb *out,
	GError **error);
void kms_dumb_destroy(int fd, struct kms_dumb *dumb);
/* The buffer as a dma-buf (for a GL renderer to draw into), exported once; -1 on failure. */
int kms_dumb_export(int fd, struct kms_dumb *dumb);

struct kms_frame_cache;

/* @udmabuf: an open /dev/udmabuf, or -1 (owned by the cache). */
struct kms_frame_cache *kms_frame_cache_create(int drm_fd, int udmabuf);
void kms_frame_cache_destroy(struct kms_frame_cache *cache);

/*
 * A framebuffer scanning out @frame; 0 if none can be made. *copied says
 * whether the pixels had to be copied (counted in the cache's copies).
 */
uint32_t kms_frame_cache_fb(struct kms_frame_cache *cache, struct umms_frame *frame,
	bool *copied);
/* The frame's first plane, mapped for reading; NULL for dma-buf frames. */
const uint8_t *kms_frame_cache_map(struct kms_frame_cache *cache, struct umms_frame *frame);
uint64_t kms_frame_cache_copies(struct kms_frame_cache *cache);

/*
 * Subtitles (a frame's subpicture, base/subpicture.h) as an ARGB8888
 * framebuffer for a plane of their own: copied once per serial into a
 * dumb buffer (udmabuf refuses a memfd sealed against writes, as
 * subpictures are, and wants whole pages), kept for the next frames that
 * carry the same serial; 0 if none can be made. The few last ones are
 * kept, so the one on screen is never destroyed under the next commit.
 */
uint32_t kms_frame_cache_sub_fb(struct kms_frame_cache *cache,
	const struct umms_subpicture *subpicture);
/* Subtitle framebuffers made (one per serial shown on a plane). */
uint64_t kms_frame_cache_sub_fbs(struct kms_frame_cache *cache);

/* Writes the dumb buffer (XRGB8888) as PNG. */
bool kms_dumb_write_png(const struct kms_dumb *dumb, const char *path, GError **error);

#endif
