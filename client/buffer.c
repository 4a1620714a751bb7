/*
 * Frame memory from ummsd, imported into the compositor once: memfd as a
 * wl_shm buffer, dma-buf through zwp_linux_dmabuf_v1 (non-immediate create:
 * a refused import is copied into shared memory instead). Each show is
 * attached, reported back (presentation feedback) and released to ummsd
 * when the compositor releases it.
 *
 * A picture cut by the layout (crop to fill, a clipped "none", a source
 * crop) is attached as a wl_shm buffer starting at the cut, not as the whole
 * frame with a viewport source offset: wlroots 0.15's pixman renderer (sway
 * 1.7 without a GPU) ignores viewport source offsets. Still no copy: those
 * views are more wl_buffers on the same memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client-private.h"

#define MAX_PLANES 4
/* The whole frame, and up to two cuts of it (one on screen, one coming). */
#define MAX_VIEWS 3
/* Presentation feedback outstanding before the oldest is given up on. */
#define MAX_FEEDBACKS 16

/* One wl_buffer on a frame's memory. */
struct buffer_view {
	struct client_buffer *owner;
	struct wl_buffer *wl;
	int x, y, width, height;    /* the part of the frame it covers */
	bool held;                  /* attached, not released by the compositor yet */
};

struct client_buffer {
	struct umms_video_buffer_v1 *proxy;
	struct umms_client_video *video;
	uint32_t kind, format;
	int width, height;
	uint64_t modifier;
	int n_planes;
	int fds[MAX_PLANES];
	uint32_t offsets[MAX_PLANES], strides[MAX_PLANES];
	struct buffer_view views[MAX_VIEWS]; /* [0]: the whole frame, once imported */
	struct wl_shm_pool *pool;   /* memfd frames: where cuts come from */
	bool refused;               /* dma-buf import refused: copied into shm */
	struct wl_buffer *copy;     /* shared-memory stand-in for a refused dma-buf */
	void *copy_data;
	size_t copy_size;
	bool retired;
	unsigned holds;             /* views the compositor holds */
	unsigned shows;             /* shows not released to ummsd yet */
	struct wl_list link;        /* umms_client_video.buffers */
};

struct feedback {
	struct umms_client_video *video; /* NULL once the video is gone */
	struct wp_presentation_feedback *proxy;
	uint32_t serial;
	struct wl_list link;             /* umms_client_video.feedbacks */
};

static void
flush_umms(struct client_buffer *buffer)
{
	if (buffer->video)
		wl_display_flush(buffer->video->client->umms);
}

static void
maybe_forget(struct client_buffer *buffer)
{
	if (buffer->retired && buffer->holds == 0 && buffer->shows == 0)
		client_buffer_destroy(buffer);
}

static void
wl_buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct buffer_view *view = data;
	struct client_buffer *buffer = view->owner;
	if (!view->held)
		return;
	view->held = false;
	/* The show is over once no view of the frame is on screen. */
	if (--buffer->holds > 0)
		return;
	for (; buffer->shows > 0; buffer->shows--)
		umms_video_buffer_v1_release(buffer->proxy);
	flush_umms(buffer);
	maybe_forget(buffer);
}

static const struct wl_buffer_listener wl_buffer_listener = { .release = wl_buffer_release };

/* The compositor has the memory; our copies of the fds are no longer needed. */
static void
close_fds(struct client_buffer *buffer)
{
	for (int p = 0; p < buffer->n_planes; p++) {
		if (buffer->fds[p] >= 0)
			close(buffer->fds[p]);
		buffer->fds[p] = -1;
	}
}

/* The compositor's buffer for the whole frame, imported. */
static void
set_whole(struct client_buffer *buffer, struct wl_buffer *wl_buffer)
{
	struct buffer_view *view = &buffer->views[0];
	view->wl = wl_buffer;
	view->width = buffer->width;
	view->height = buffer->height;
	wl_buffer_add_listener(wl_buffer, &wl_buffer_listener, view);
}

static void
import_memfd(struct client_buffer *buffer)
{
	struct umms_client *client = buffer->video->client;
	struct stat st;
	if (buffer->n_planes < 1 || fstat(buffer->fds[0], &st) < 0 || st.st_size <= 0)
		return;
	buffer->pool = wl_shm_create_pool(client->shm, buffer->fds[0], (int32_t)st.st_size);
	set_whole(buffer, wl_shm_pool_create_buffer(buffer->pool, (int32_t)buffer->offsets[0],
		buffer->width, buffer->height, (int32_t)buffer->strides[0], buffer->format));
	close_fds(buffer);
}

static void
dmabuf_created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *wl_buffer)
{
	struct client_buffer *buffer = data;
	set_whole(buffer, wl_buffer);
	zwp_linux_buffer_params_v1_destroy(params);
	close_fds(buffer);
}

static void
dmabuf_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	struct client_buffer *buffer = data;
	/* Shown by copying into shared memory from now on (see copy_to_shm). */
	buffer->refused = true;
	zwp_linux_buffer_params_v1_destroy(params);
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = dmabuf_created,
	.failed = dmabuf_failed,
};

static void
import_dmabuf(struct client_buffer *buffer)
{
	struct umms_client *client = buffer->video->client;
	if (!client->dmabuf) {
		buffer->refused = true;
		return;
	}
	struct zwp_linux_buffer_params_v1 *params =
		zwp_linux_dmabuf_v1_create_params(client->dmabuf);
	for (int p = 0; p < buffer->n_planes; p++)
		zwp_linux_buffer_params_v1_add(params, buffer->fds[p], (uint32_t)p,
			buffer->offsets[p], buffer->strides[p], (uint32_t)(buffer->modifier >> 32),
			(uint32_t)buffer->modifier);
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, buffer);
	zwp_linux_buffer_params_v1_create(params, buffer->width, buffer->height,
		buffer->format, 0);
}

static void
proxy_plane(void *data, struct umms_video_buffer_v1 *proxy, int32_t fd, uint32_t offset,
	uint32_t stride)
{
	struct client_buffer *buffer = data;
	if (buffer->n_planes >= MAX_PLANES) {
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
	struct client_buffer *buffer = data;
	/* ummsd as compositor shows the video itself: nothing to import. */
	if (!buffer->video || buffer->video->client->direct)
		return;
	if (buffer->kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF)
		import_dmabuf(buffer);
	else
		import_memfd(buffer);
}

static void
proxy_retired(void *data, struct umms_video_buffer_v1 *proxy)
{
	struct client_buffer *buffer = data;
	buffer->retired = true;
	maybe_forget(buffer);
}

static const struct umms_video_buffer_v1_listener proxy_listener = {
	.plane = proxy_plane,
	.done = proxy_done,
	.retired = proxy_retired,
};

struct client_buffer *
client_buffer_create(struct umms_client_video *video, struct umms_video_buffer_v1 *proxy,
	uint32_t kind, uint32_t format, int width, int height, uint64_t modifier)
{
	struct client_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		abort();
	buffer->proxy = proxy;
	buffer->video = video;
	buffer->kind = kind;
	buffer->format = format;
	buffer->width = width;
	buffer->height = height;
	buffer->modifier = modifier;
	for (int p = 0; p < MAX_PLANES; p++)
		buffer->fds[p] = -1;
	for (int v = 0; v < MAX_VIEWS; v++)
		buffer->views[v].owner = buffer;
	wl_list_insert(&video->buffers, &buffer->link);
	umms_video_buffer_v1_add_listener(proxy, &proxy_listener, buffer);
	return buffer;
}

void
client_buffer_destroy(struct client_buffer *buffer)
{
	if (buffer->video && buffer->video->current == buffer)
		buffer->video->current = NULL;
	wl_list_remove(&buffer->link);
	close_fds(buffer);
	for (int v = 0; v < MAX_VIEWS; v++) {
		if (buffer->views[v].wl)
			wl_buffer_destroy(buffer->views[v].wl);
	}
	if (buffer->pool)
		wl_shm_pool_destroy(buffer->pool);
	if (buffer->copy) {
		wl_buffer_destroy(buffer->copy);
		munmap(buffer->copy_data, buffer->copy_size);
	}
	/* Releases, on ummsd's side, shows still attached. */
	umms_video_buffer_v1_destroy(buffer->proxy);
	flush_umms(buffer);
	free(buffer);
}

void
client_buffers_destroy_all(struct umms_client_video *video)
{
	struct client_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &video->buffers, link)
		client_buffer_destroy(buffer);
}

static void
feedback_sync_output(void *data, struct wp_presentation_feedback *proxy, struct wl_output *output)
{
}

static void
feedback_presented(void *data, struct wp_presentation_feedback *proxy, uint32_t tv_sec_hi,
	uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
	uint32_t flags)
{
	struct feedback *feedback = data;
	struct umms_client_video *video = feedback->video;
	wl_list_remove(&feedback->link);
	if (video)
		video->n_feedbacks--;
	if (video && video->player) {
		video->counts.presented++;
		/* umms_video_v1 speaks CLOCK_MONOTONIC; the compositor may not. */
		int64_t when = (int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec);
		clockid_t clock = video->client->presentation_clock;
		if (clock != CLOCK_MONOTONIC) {
			struct timespec theirs, ours;
			clock_gettime(clock, &theirs);
			clock_gettime(CLOCK_MONOTONIC, &ours);
			when += (ours.tv_sec - theirs.tv_sec) * 1000000000LL + (ours.tv_nsec - theirs.tv_nsec);
		}
		uint64_t seconds = (uint64_t)when / 1000000000;
		/* wp_presentation's kinds share their bits with umms_video_v1's flags. */
		umms_video_player_v1_presented(video->player, feedback->serial,
			(uint32_t)(seconds >> 32), (uint32_t)seconds,
			(uint32_t)((uint64_t)when % 1000000000), refresh, flags);
		wl_display_flush(video->client->umms);
	}
	wp_presentation_feedback_destroy(proxy);
	free(feedback);
}

static void
feedback_discarded(void *data, struct wp_presentation_feedback *proxy)
{
	struct feedback *feedback = data;
	struct umms_client_video *video = feedback->video;
	wl_list_remove(&feedback->link);
	if (video)
		video->n_feedbacks--;
	if (video && video->player) {
		video->counts.discarded++;
		umms_video_player_v1_discarded(video->player, feedback->serial);
		wl_display_flush(video->client->umms);
	}
	wp_presentation_feedback_destroy(proxy);
	free(feedback);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

void
client_buffer_skip(struct client_buffer *buffer, uint32_t serial)
{
	struct umms_client_video *video = buffer->video;
	umms_video_buffer_v1_release(buffer->proxy);
	if (video && video->player) {
		video->counts.discarded++;
		umms_video_player_v1_discarded(video->player, serial);
	}
	flush_umms(buffer);
}

/*
 * A dma-buf the compositor refused: read it (linear, one plane) into shared
 * memory of ours. A copy, the one this library ever makes.
 */
static struct wl_buffer *
copy_to_shm(struct client_buffer *buffer)
{
	if (buffer->n_planes != 1 || buffer->modifier != 0)
		return NULL;
	size_t size = (size_t)buffer->strides[0] * (size_t)buffer->height;
	if (!buffer->copy) {
		int fd = memfd_create("umms-client-copy", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		buffer->copy_data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (buffer->copy_data == MAP_FAILED) {
			buffer->copy_data = NULL;
			close(fd);
			return NULL;
		}
		buffer->copy_size = size;
		/* wl_shm names the two oldest formats differently from DRM. */
		uint32_t format = buffer->format == WL_SHM_FORMAT_XRGB8888 ? buffer->format :
			buffer->format == 0x34325258 ? WL_SHM_FORMAT_XRGB8888 :
			buffer->format == 0x34325241 ? WL_SHM_FORMAT_ARGB8888 : buffer->format;
		struct wl_shm_pool *pool = wl_shm_create_pool(buffer->video->client->shm, fd,
			(int32_t)size);
		buffer->copy = wl_shm_pool_create_buffer(pool, 0, buffer->width, buffer->height,
			(int32_t)buffer->strides[0], format);
		wl_shm_pool_destroy(pool);
		close(fd);
	}
	void *source = mmap(NULL, size + buffer->offsets[0], PROT_READ, MAP_SHARED,
		buffer->fds[0], 0);
	if (source == MAP_FAILED)
		return NULL;
	memcpy(buffer->copy_data, (char *)source + buffer->offsets[0], size);
	munmap(source, size + buffer->offsets[0]);
	return buffer->copy;
}

/* Bytes per pixel of the shared-memory formats a cut can start anywhere in; 0 for others. */
static int
cut_bpp(uint32_t format)
{
	switch (format) {
	case WL_SHM_FORMAT_ARGB8888:
	case WL_SHM_FORMAT_XRGB8888:
	case WL_SHM_FORMAT_ABGR8888:
	case WL_SHM_FORMAT_XBGR8888:
	case WL_SHM_FORMAT_RGBA8888:
	case WL_SHM_FORMAT_RGBX8888:
	case WL_SHM_FORMAT_BGRA8888:
	case WL_SHM_FORMAT_BGRX8888:
		return 4;
	default:
		return 0;
	}
}

/* A view of the part (x, y, width, height) of a memfd frame; NULL if none can be had now. */
static struct buffer_view *
cut_view(struct client_buffer *buffer, int x, int y, int width, int height)
{
	int bpp = cut_bpp(buffer->format);
	if (!buffer->pool || bpp == 0)
		return NULL;
	struct buffer_view *free_view = NULL;
	for (int v = 1; v < MAX_VIEWS; v++) {
		struct buffer_view *view = &buffer->views[v];
		if (view->wl && view->x == x && view->y == y && view->width == width &&
				view->height == height)
			return view;
		if (!free_view && !view->held)
			free_view = view;
	}
	if (!free_view)
		return NULL;
	if (free_view->wl)
		wl_buffer_destroy(free_view->wl);
	int64_t offset = (int64_t)buffer->offsets[0] + (int64_t)y * buffer->strides[0] +
		(int64_t)x * bpp;
	free_view->wl = wl_shm_pool_create_buffer(buffer->pool, (int32_t)offset, width, height,
		(int32_t)buffer->strides[0], buffer->format);
	wl_buffer_add_listener(free_view->wl, &wl_buffer_listener, free_view);
	free_view->x = x;
	free_view->y = y;
	free_view->width = width;
	free_view->height = height;
	return free_view;
}

/*
 * Attaches the part of the frame the video's layout shows and sets the
 * picture's viewport source to match. False, with nothing done, if the
 * frame is not imported or the layout is for a frame of another shape.
 */
static bool
attach_picture(struct client_buffer *buffer)
{
	struct umms_client_video *video = buffer->video;
	const struct umms_layout *l = &video->layout;
	struct buffer_view *view = &buffer->views[0];
	if (!view->wl || !l->visible || l->src_x < 0 || l->src_y < 0 ||
			l->src_x + l->src_width > buffer->width + 0.01 ||
			l->src_y + l->src_height > buffer->height + 0.01)
		return false;
	double sx = l->src_x, sy = l->src_y;
	int x0 = (int)floor(sx + 0.01), y0 = (int)floor(sy + 0.01);
	int x1 = MIN_I(buffer->width, (int)ceil(sx + l->src_width - 0.01));
	int y1 = MIN_I(buffer->height, (int)ceil(sy + l->src_height - 0.01));
	if (x0 > 0 || y0 > 0 || x1 < buffer->width || y1 < buffer->height) {
		struct buffer_view *cut = cut_view(buffer, x0, y0, x1 - x0, y1 - y0);
		if (cut) {
			view = cut;
			sx -= x0;
			sy -= y0;
		}
	}
	wl_surface_attach(video->video_surface, view->wl, 0, 0);
	wp_viewport_set_source(video->video_viewport, wl_fixed_from_double(fmax(sx, 0)),
		wl_fixed_from_double(fmax(sy, 0)), wl_fixed_from_double(l->src_width),
		wl_fixed_from_double(l->src_height));
	if (!view->held) {
		view->held = true;
		buffer->holds++;
	}
	return true;
}

bool
client_buffer_reattach(struct client_buffer *buffer)
{
	/* Only while shown: a released frame's memory may hold another picture by now. */
	if (buffer->holds == 0)
		return false;
	return attach_picture(buffer);
}

void
client_buffer_show(struct client_buffer *buffer, uint32_t serial)
{
	struct umms_client_video *video = buffer->video;
	if (!video->video_surface || !video->in.width || !video->have_geometry) {
		/* Nowhere to show it. */
		client_buffer_skip(buffer, serial);
		return;
	}
	if (attach_picture(buffer)) {
		buffer->shows++;
		video->current = buffer;
	} else {
		struct wl_buffer *copy = buffer->refused ? copy_to_shm(buffer) : NULL;
		if (!copy) {
			/* Nothing to show it with. */
			client_buffer_skip(buffer, serial);
			return;
		}
		const struct umms_layout *l = &video->layout;
		wl_surface_attach(video->video_surface, copy, 0, 0);
		wp_viewport_set_source(video->video_viewport, wl_fixed_from_double(l->src_x),
			wl_fixed_from_double(l->src_y), wl_fixed_from_double(l->src_width),
			wl_fixed_from_double(l->src_height));
		/* ummsd's memory was read already: give it back now. */
		umms_video_buffer_v1_release(buffer->proxy);
	}
	wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX, INT32_MAX);
	if (video->client->presentation) {
		if (video->n_feedbacks >= MAX_FEEDBACKS) {
			/* A compositor that never answers: stop waiting for the oldest. */
			struct feedback *oldest = wl_container_of(video->feedbacks.prev, oldest, link);
			wl_list_remove(&oldest->link);
			wp_presentation_feedback_destroy(oldest->proxy);
			free(oldest);
			video->n_feedbacks--;
			video->counts.unanswered++;
		}
		struct feedback *feedback = calloc(1, sizeof(*feedback));
		if (!feedback)
			abort();
		feedback->video = video;
		feedback->serial = serial;
		feedback->proxy = wp_presentation_feedback(video->client->presentation,
			video->video_surface);
		wp_presentation_feedback_add_listener(feedback->proxy, &feedback_listener, feedback);
		wl_list_insert(&video->feedbacks, &feedback->link);
		video->n_feedbacks++;
	}
	wl_surface_commit(video->video_surface);
	video->counts.committed++;
}

void
client_feedbacks_orphan(struct umms_client_video *video)
{
	/* Nobody wants the answers any more: drop the requests. */
	struct feedback *feedback, *tmp;
	wl_list_for_each_safe(feedback, tmp, &video->feedbacks, link) {
		wl_list_remove(&feedback->link);
		wp_presentation_feedback_destroy(feedback->proxy);
		free(feedback);
	}
	video->n_feedbacks = 0;
}
