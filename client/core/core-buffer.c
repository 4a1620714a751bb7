/*
 * Frame memory ummsd announced (core.h): its planes, checked against the
 * size of their memory before any library reads or imports them, its
 * shows released, and the buffer forgotten once ummsd retired it and
 * nothing holds it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define FOURCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | \
	((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define MOD_LINEAR 0ULL
#define MOD_INVALID 0x00ffffffffffffffULL

/* Bytes per unit (a pixel, or a horizontal pair where hsub is 2) and subsampling. */
struct plane_layout {
	uint8_t cpp, hsub, vsub;
};

struct format_layout {
	uint32_t format;
	int n_planes;
	struct plane_layout planes[3];
};

/* wl_shm's two oldest codes and DRM fourccs (the rest are the same in both). */
static const struct format_layout layouts[] = {
	{ 0, 1, { { 4, 1, 1 } } },                                       /* wl_shm ARGB8888 */
	{ 1, 1, { { 4, 1, 1 } } },                                       /* wl_shm XRGB8888 */
	{ FOURCC('X', 'R', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('A', 'R', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('X', 'B', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('A', 'B', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('B', 'X', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('B', 'A', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('R', 'X', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('R', 'A', '2', '4'), 1, { { 4, 1, 1 } } },
	{ FOURCC('R', 'G', '1', '6'), 1, { { 2, 1, 1 } } },
	{ FOURCC('N', 'V', '1', '2'), 2, { { 1, 1, 1 }, { 2, 2, 2 } } },
	{ FOURCC('Y', 'U', '1', '2'), 3, { { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } } },
	{ FOURCC('Y', 'U', 'Y', 'V'), 1, { { 4, 2, 1 } } },
	{ FOURCC('P', '0', '1', '0'), 2, { { 2, 1, 1 }, { 4, 2, 2 } } },
};

static const struct format_layout *
layout_of(uint32_t format)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].format == format)
			return &layouts[i];
	}
	return NULL;
}

bool
umms_core_plane_size(uint32_t format, int p, int width, int height, size_t *row_bytes,
	size_t *rows)
{
	const struct format_layout *layout = layout_of(format);
	if (!layout || p < 0 || p >= layout->n_planes || width <= 0 || height <= 0)
		return false;
	const struct plane_layout *plane = &layout->planes[p];
	*row_bytes = (size_t)((width + plane->hsub - 1) / plane->hsub) * plane->cpp;
	*rows = (size_t)((height + plane->vsub - 1) / plane->vsub);
	return true;
}

/* Where the memory behind @fd ends (memfd and dma-buf both answer); 0 if it cannot be told. */
static size_t
fd_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);
	return end > 0 ? (size_t)end : 0;
}

/*
 * Whether every plane lies inside its memory, for the layouts we know
 * (linear ones: a tiled layout's extent is the driver's to check). A
 * mistake or a lie of the server must not make us read past a mapping or
 * hand the compositor a buffer it would kill our connection for.
 */
static bool
planes_fit(struct umms_core_buffer *buffer, const char **why, int *bad_plane)
{
	*bad_plane = 0;
	if (buffer->width <= 0 || buffer->height <= 0 || buffer->width > 32768 ||
			buffer->height > 32768) {
		*why = "has no usable size";
		return false;
	}
	if (buffer->n_planes < 1) {
		*why = "has no planes";
		return false;
	}
	const struct format_layout *layout = layout_of(buffer->format);
	bool linear = buffer->kind == UMMS_VIDEO_BUFFER_V1_KIND_MEMFD ||
		buffer->modifier == MOD_LINEAR || buffer->modifier == MOD_INVALID;
	if (layout && linear && buffer->n_planes < layout->n_planes) {
		*why = "has fewer planes than its format";
		return false;
	}
	for (int p = 0; p < buffer->n_planes; p++) {
		*bad_plane = p;
		size_t size = fd_size(buffer->fds[p]);
		if (p == 0)
			buffer->size = size;
		if (buffer->fds[p] < 0) {
			*why = "has a plane without memory";
			return false;
		}
		if (size == 0)
			continue;
		size_t row_bytes, rows;
		if (!layout || !linear || p >= layout->n_planes ||
				!umms_core_plane_size(buffer->format, p, buffer->width,
				buffer->height, &row_bytes, &rows)) {
			if (buffer->offsets[p] >= size) {
				*why = "starts a plane past the end of its memory";
				return false;
			}
			continue;
		}
		if (buffer->strides[p] < row_bytes) {
			*why = "has a plane whose stride is shorter than a row";
			return false;
		}
		if ((uint64_t)buffer->offsets[p] + (uint64_t)buffer->strides[p] * (rows - 1) +
				row_bytes > size) {
			*why = "has a plane past the end of its memory";
			return false;
		}
	}
	return true;
}

static void
proxy_plane(void *data, struct umms_video_buffer_v1 *proxy, int32_t fd, uint32_t offset,
	uint32_t stride)
{
	struct umms_core_buffer *buffer = data;
	if (buffer->n_planes >= UMMS_CORE_MAX_PLANES) {
		close(fd);
		return;
	}
	buffer->fds[buffer->n_planes] = fd;
	buffer->offsets[buffer->n_planes] = offset;
	buffer->strides[buffer->n_planes] = stride;
	buffer->n_planes++;
}

static void
proxy_done(void *data, struct umms_video_buffer_v1 *proxy)
{
	struct umms_core_buffer *buffer = data;
	struct umms_core_video *video = buffer->video;
	const char *why = NULL;
	int plane = 0;
	buffer->valid = planes_fit(buffer, &why, &plane);
	if (!buffer->valid) {
		fprintf(stderr, "umms: ummsd sent a %dx%d frame buffer (format %#x, %d planes) "
			"that %s (plane %d): its frames are discarded\n", buffer->width,
			buffer->height, buffer->format, buffer->n_planes, why, plane);
		umms_core_buffer_close_fds(buffer);
		return;
	}
	if (video->impl->buffer_ready)
		video->impl->buffer_ready(video, buffer);
}

static void maybe_forget(struct umms_core_buffer *buffer);

static void
proxy_retired(void *data, struct umms_video_buffer_v1 *proxy)
{
	struct umms_core_buffer *buffer = data;
	buffer->retired = true;
	maybe_forget(buffer);
}

static const struct umms_video_buffer_v1_listener proxy_listener = {
	.plane = proxy_plane,
	.done = proxy_done,
	.retired = proxy_retired,
};

struct umms_core_buffer *
umms_core_buffer_create(struct umms_core_video *video, struct umms_video_buffer_v1 *proxy,
	uint32_t kind, uint32_t format, int width, int height, uint64_t modifier)
{
	struct umms_core_buffer *buffer = calloc(1, video->impl->buffer_size);
	if (!buffer)
		abort();
	buffer->video = video;
	buffer->proxy = proxy;
	buffer->kind = kind;
	buffer->format = format;
	buffer->width = width;
	buffer->height = height;
	buffer->modifier = modifier;
	for (int p = 0; p < UMMS_CORE_MAX_PLANES; p++)
		buffer->fds[p] = -1;
	wl_list_insert(&video->buffers, &buffer->link);
	video->counts.buffers++;
	umms_video_buffer_v1_add_listener(proxy, &proxy_listener, buffer);
	return buffer;
}

void
umms_core_buffer_destroy(struct umms_core_buffer *buffer)
{
	struct umms_core_video *video = buffer->video;
	wl_list_remove(&buffer->link);
	wl_list_init(&buffer->link);
	umms_core_buffer_close_fds(buffer);
	/* Releases, on ummsd's side, the shows not released yet. */
	umms_video_buffer_v1_destroy(buffer->proxy);
	buffer->proxy = NULL;
	video->counts.buffers--;
	umms_core_flush(video->core);
	video->impl->buffer_destroy(video, buffer);
}

static void
maybe_forget(struct umms_core_buffer *buffer)
{
	if (buffer->retired && buffer->shows == 0 && buffer->holds == 0)
		umms_core_buffer_destroy(buffer);
}

void
umms_core_buffer_close_fds(struct umms_core_buffer *buffer)
{
	for (int p = 0; p < buffer->n_planes; p++) {
		if (buffer->fds[p] >= 0)
			close(buffer->fds[p]);
		buffer->fds[p] = -1;
	}
}

void
umms_core_buffer_release(struct umms_core_buffer *buffer, unsigned n)
{
	for (; n > 0 && buffer->shows > 0; n--, buffer->shows--)
		umms_video_buffer_v1_release(buffer->proxy);
	umms_core_flush(buffer->video->core);
	maybe_forget(buffer);
}

void
umms_core_buffer_hold(struct umms_core_buffer *buffer)
{
	buffer->holds++;
}

void
umms_core_buffer_drop(struct umms_core_buffer *buffer)
{
	if (buffer->holds > 0)
		buffer->holds--;
	maybe_forget(buffer);
}
