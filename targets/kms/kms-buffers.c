/*
 * Dumb buffers, frame framebuffers and composition (kms-buffers.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/udmabuf.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "error.h"
#include "frame-image.h"
#include "kms-buffers.h"
#include "log.h"
#include "png-write.h"

/* ---- dumb buffers -------------------------------------------------------- */

bool
kms_dumb_create(int fd, int width, int height, uint32_t format, struct kms_dumb *out,
	GError **error)
{
	*out = (struct kms_dumb){ .width = width, .height = height, .format = format };
	struct drm_mode_create_dumb create = { .width = (uint32_t)width,
		.height = (uint32_t)height, .bpp = 32 };
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
		goto fail;
	out->handle = create.handle;
	out->pitch = create.pitch;
	out->size = create.size;
	uint32_t handles[4] = { create.handle }, pitches[4] = { create.pitch }, offsets[4] = { 0 };
	if (drmModeAddFB2(fd, (uint32_t)width, (uint32_t)height, format, handles, pitches,
			offsets, &out->fb_id, 0) != 0)
		goto fail;
	struct drm_mode_map_dumb map = { .handle = create.handle };
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) != 0)
		goto fail;
	out->map = mmap(NULL, out->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		(off_t)map.offset);
	if (out->map == MAP_FAILED) {
		out->map = NULL;
		goto fail;
	}
	memset(out->map, 0, out->size);
	return true;
fail:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "a %dx%d display buffer: %s",
		width, height, g_strerror(errno));
	kms_dumb_destroy(fd, out);
	return false;
}

int
kms_dumb_export(int fd, struct kms_dumb *dumb)
{
	if (!dumb->exported && dumb->handle) {
		if (drmPrimeHandleToFD(fd, dumb->handle, DRM_CLOEXEC | DRM_RDWR,
				&dumb->prime_fd) != 0) {
			umms_warn("display: cannot export a display buffer: %s", g_strerror(errno));
			return -1;
		}
		dumb->exported = true;
	}
	return dumb->exported ? dumb->prime_fd : -1;
}

void
kms_dumb_destroy(int fd, struct kms_dumb *dumb)
{
	if (dumb->exported)
		close(dumb->prime_fd);
	if (dumb->map)
		munmap(dumb->map, dumb->size);
	if (dumb->fb_id)
		drmModeRmFB(fd, dumb->fb_id);
	if (dumb->handle) {
		struct drm_mode_destroy_dumb destroy = { .handle = dumb->handle };
		drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	}
	*dumb = (struct kms_dumb){ 0 };
}

/* ---- frames -------------------------------------------------------------- */

struct frame_fb {
	uint32_t fb_id;
	uint32_t handles[UMMS_FRAME_MAX_PLANES];
	bool copy;              /* pixels copied into @dumb each time */
	struct kms_dumb dumb;
	const uint8_t *map;     /* memfd frames: the whole fd, for reading */
	size_t map_size;
};

/* Subtitle framebuffers kept: the one on screen, the one flipping and the next. */
#define SUB_SLOTS 3

struct sub_fb {
	uint64_t serial;        /* 0: free */
	uint64_t used;          /* when last asked for, for eviction */
	struct kms_dumb dumb;
};

struct kms_frame_cache {
	int fd, udmabuf;
	GHashTable *by_memory;  /* memory_id -> struct frame_fb */
	uint64_t copies;
	bool said_copy;
	struct sub_fb subs[SUB_SLOTS];
	uint64_t clock;
	uint64_t sub_fbs;
};

/* Cached per piece of memory; the engine keeps a few. A bound keeps a stream change from piling up. */
#define CACHE_MAX 32

static void
frame_fb_free(struct kms_frame_cache *cache, struct frame_fb *fb)
{
	if (fb->fb_id && !fb->copy)
		drmModeRmFB(cache->fd, fb->fb_id);
	for (int i = 0; i < UMMS_FRAME_MAX_PLANES; i++) {
		if (!fb->handles[i])
			continue;
		for (int j = i + 1; j < UMMS_FRAME_MAX_PLANES; j++) {
			if (fb->handles[j] == fb->handles[i])
				fb->handles[j] = 0;
		}
		struct drm_gem_close close_req = { .handle = fb->handles[i] };
		drmIoctl(cache->fd, DRM_IOCTL_GEM_CLOSE, &close_req);
	}
	kms_dumb_destroy(cache->fd, &fb->dumb);
	if (fb->map)
		munmap((void *)fb->map, fb->map_size);
	g_free(fb);
}

struct kms_frame_cache *
kms_frame_cache_create(int drm_fd, int udmabuf)
{
	struct kms_frame_cache *cache = g_new0(struct kms_frame_cache, 1);
	cache->fd = drm_fd;
	cache->udmabuf = udmabuf;
	cache->by_memory = g_hash_table_new(g_int64_hash, g_int64_equal);
	return cache;
}

static void
cache_clear(struct kms_frame_cache *cache)
{
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, cache->by_memory);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		g_hash_table_iter_remove(&iter);
		frame_fb_free(cache, value);
		g_free(key);
	}
}

void
kms_frame_cache_destroy(struct kms_frame_cache *cache)
{
	if (!cache)
		return;
	cache_clear(cache);
	g_hash_table_unref(cache->by_memory);
	for (int i = 0; i < SUB_SLOTS; i++)
		kms_dumb_destroy(cache->fd, &cache->subs[i].dumb);
	if (cache->udmabuf >= 0)
		close(cache->udmabuf);
	g_free(cache);
}


/* A dma-buf of the frame's memfd, through udmabuf; -1 if it cannot. */
static int
memfd_to_dmabuf(struct kms_frame_cache *cache, int memfd, size_t size)
{
	if (cache->udmabuf < 0)
		return -1;
	struct udmabuf_create create = { .memfd = (uint32_t)memfd, .flags = UDMABUF_FLAGS_CLOEXEC,
		.offset = 0, .size = size };
	int fd = ioctl(cache->udmabuf, UDMABUF_CREATE, &create);
	if (fd < 0)
		umms_debug("udmabuf of a %zu-byte memfd: %s", size, g_strerror(errno));
	return fd;
}

static bool
import(struct kms_frame_cache *cache, struct umms_frame *frame, struct frame_fb *fb)
{
	uint32_t pitches[4] = { 0 }, offsets[4] = { 0 };
	uint64_t modifiers[4] = { 0 };
	for (int p = 0; p < frame->n_planes; p++) {
		int fd = frame->planes[p].fd;
		int dmabuf = -1;
		if (frame->kind == UMMS_FRAME_MEMFD) {
			if (p > 0) {
				fb->handles[p] = fb->handles[0];
			} else {
				dmabuf = memfd_to_dmabuf(cache, fd, fb->map_size);
				if (dmabuf < 0)
					return false;
				fd = dmabuf;
			}
		}
		if (!fb->handles[p] && drmPrimeFDToHandle(cache->fd, fd, &fb->handles[p]) != 0) {
			umms_debug("dma-buf import: %s", g_strerror(errno));
			if (dmabuf >= 0)
				close(dmabuf);
			return false;
		}
		if (dmabuf >= 0)
			close(dmabuf);   /* the handle keeps the memory */
		pitches[p] = frame->planes[p].stride;
		offsets[p] = frame->planes[p].offset;
		modifiers[p] = frame->modifier;
	}
	bool with_modifier = frame->kind == UMMS_FRAME_DMABUF &&
		frame->modifier != DRM_FORMAT_MOD_INVALID;
	if (drmModeAddFB2WithModifiers(cache->fd, (uint32_t)frame->width, (uint32_t)frame->height,
			umms_frame_drm_format(frame), fb->handles, pitches, offsets,
			with_modifier ? modifiers : NULL, &fb->fb_id,
			with_modifier ? DRM_MODE_FB_MODIFIERS : 0) != 0) {
		umms_debug("framebuffer of a %dx%d frame: %s", frame->width, frame->height,
			g_strerror(errno));
		fb->fb_id = 0;
		return false;
	}
	return true;
}

static struct frame_fb *
lookup(struct kms_frame_cache *cache, struct umms_frame *frame)
{
	struct frame_fb *fb = g_hash_table_lookup(cache->by_memory, &frame->memory_id);
	if (fb)
		return fb;
	if (g_hash_table_size(cache->by_memory) >= CACHE_MAX)
		cache_clear(cache);
	fb = g_new0(struct frame_fb, 1);
	if (frame->kind == UMMS_FRAME_MEMFD) {
		struct stat st;
		if (fstat(frame->planes[0].fd, &st) == 0 && st.st_size > 0) {
			void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
				frame->planes[0].fd, 0);
			if (map != MAP_FAILED) {
				fb->map = map;
				fb->map_size = (size_t)st.st_size;
			}
		}
	}
	gint64 *key = g_new(gint64, 1);
	*key = (gint64)frame->memory_id;
	g_hash_table_insert(cache->by_memory, key, fb);
	return fb;
}

const uint8_t *
kms_frame_cache_map(struct kms_frame_cache *cache, struct umms_frame *frame)
{
	return lookup(cache, frame)->map;
}

uint32_t
kms_frame_cache_fb(struct kms_frame_cache *cache, struct umms_frame *frame, bool *copied)
{
	struct frame_fb *fb = lookup(cache, frame);
	*copied = false;
	if (!fb->fb_id && !fb->copy && !import(cache, frame, fb)) {
		/* No zero-copy way: a dumb buffer to copy into, for RGB frames. */
		uint32_t format = umms_frame_drm_format(frame);
		if (!fb->map || frame->n_planes != 1 || (format != DRM_FORMAT_XRGB8888 &&
				format != DRM_FORMAT_ARGB8888))
			return 0;
		if (!kms_dumb_create(cache->fd, frame->width, frame->height, format, &fb->dumb,
				NULL))
			return 0;
		fb->copy = true;
		fb->fb_id = fb->dumb.fb_id;
		if (!cache->said_copy) {
			umms_info("display: frames cannot be scanned out as they are (no udmabuf): "
				"copying them, counted in copies");
			cache->said_copy = true;
		}
	}
	if (fb->copy) {
		const uint8_t *src = fb->map + frame->planes[0].offset;
		size_t row = (size_t)frame->width * 4;
		for (int y = 0; y < frame->height; y++)
			memcpy((uint8_t *)fb->dumb.map + (size_t)y * fb->dumb.pitch,
				src + (size_t)y * frame->planes[0].stride, row);
		cache->copies++;
		*copied = true;
	}
	return fb->fb_id;
}

uint64_t
kms_frame_cache_copies(struct kms_frame_cache *cache)
{
	return cache->copies;
}

uint32_t
kms_frame_cache_sub_fb(struct kms_frame_cache *cache, const struct umms_subpicture *subpicture)
{
	struct sub_fb *slot = NULL;
	cache->clock++;
	for (int i = 0; i < SUB_SLOTS; i++) {
		if (cache->subs[i].serial == subpicture->serial) {
			cache->subs[i].used = cache->clock;
			return cache->subs[i].dumb.fb_id;
		}
		if (!slot || cache->subs[i].used < slot->used)
			slot = &cache->subs[i];
	}
	const uint8_t *src = subpicture->data;
	if (!src || subpicture->stride < (uint32_t)subpicture->width * 4 ||
			subpicture->size < (size_t)subpicture->stride * (size_t)subpicture->height)
		return 0;
	/*
	 * A framebuffer no smaller than the device takes (vkms: 20x20; one
	 * line of a small video's captions is less): the image in its top-left
	 * corner, the plane's source rectangle only ever inside it.
	 */
	int width = subpicture->width, height = subpicture->height;
	drmModeRes *res = drmModeGetResources(cache->fd);
	if (res) {
		width = MAX(width, (int)res->min_width);
		height = MAX(height, (int)res->min_height);
		drmModeFreeResources(res);
	}
	struct kms_dumb *dumb = &slot->dumb;
	if (dumb->fb_id && (dumb->width != width || dumb->height != height))
		kms_dumb_destroy(cache->fd, dumb);
	slot->serial = 0;
	if (!dumb->fb_id) {
		g_autoptr(GError) error = NULL;
		if (!kms_dumb_create(cache->fd, width, height, DRM_FORMAT_ARGB8888, dumb,
				&error)) {
			umms_debug("display: subtitles: %s", error->message);
			return 0;
		}
	}
	size_t row = (size_t)subpicture->width * 4;
	for (int y = 0; y < subpicture->height; y++)
		memcpy((uint8_t *)dumb->map + (size_t)y * dumb->pitch,
			src + (size_t)y * subpicture->stride, row);
	slot->serial = subpicture->serial;
	slot->used = cache->clock;
	cache->sub_fbs++;
	return dumb->fb_id;
}

uint64_t
kms_frame_cache_sub_fbs(struct kms_frame_cache *cache)
{
	return cache->sub_fbs;
}

/* ---- PNG ------------------------------------------------------------------ */

bool
kms_dumb_write_png(const struct kms_dumb *dumb, const char *path, GError **error)
{
	return umms_png_write_xrgb(path, dumb->map, dumb->width, dumb->height, dumb->pitch, error);
}
