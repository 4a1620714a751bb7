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
#include <unistd.h>

#include "client-private.h"

/* Presentation feedback outstanding before the oldest is given up on. */
#define MAX_FEEDBACKS 16
/*
 * Frames asked about, none answered, before the compositor is taken for
 * one that never answers; then only the frames whose count is a power of
 * two from FEEDBACK_PROBE on ask again (feedback_wanted()).
 */
#define FEEDBACK_SILENT MAX_FEEDBACKS
#define FEEDBACK_PROBE 256u

struct feedback {
	struct umms_client_video *video; /* NULL once the video is gone */
	struct wp_presentation_feedback *proxy;
	uint32_t serial;
	bool copied;                     /* shown from a copy of ours (a refused dma-buf) */
	struct wl_list link;             /* umms_client_video.feedbacks */
};

static void
wl_buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct buffer_view *view = data;
	struct client_buffer *buffer = view->owner;
	if (!view->held)
		return;
	view->held = false;
	/* The show is over once no view of the frame is on screen. */
	if (buffer->base.holds == 1)
		umms_core_buffer_release(&buffer->base, UINT32_MAX);
	umms_core_buffer_drop(&buffer->base);
}

static const struct wl_buffer_listener wl_buffer_listener = { .release = wl_buffer_release };

/* The compositor's buffer for the whole frame, imported. */
static void
set_whole(struct client_buffer *buffer, struct wl_buffer *wl_buffer)
{
	struct buffer_view *view = &buffer->views[0];
	view->wl = wl_buffer;
	view->width = buffer->base.width;
	view->height = buffer->base.height;
	wl_buffer_add_listener(wl_buffer, &wl_buffer_listener, view);
}

static void
import_memfd(struct client_buffer *buffer)
{
	struct umms_core_buffer *base = &buffer->base;
	struct umms_client *client = buffer->video->client;
	/* The core checked the planes against this size. */
	if (base->size == 0 || base->size > INT32_MAX)
		return;
	buffer->pool = wl_shm_create_pool(client->shm, base->fds[0], (int32_t)base->size);
	set_whole(buffer, wl_shm_pool_create_buffer(buffer->pool, (int32_t)base->offsets[0],
		base->width, base->height, (int32_t)base->strides[0], base->format));
	umms_core_buffer_close_fds(base);
}

/* The import was answered: a show that waited for it goes on now. */
static void
show_waiting(struct client_buffer *buffer)
{
	struct umms_client_video *video = buffer->video;
	if (video->waiting != buffer)
		return;
	video->waiting = NULL;
	client_buffer_show(buffer, video->waiting_serial);
}

static void
dmabuf_created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *wl_buffer)
{
	struct client_buffer *buffer = data;
	set_whole(buffer, wl_buffer);
	zwp_linux_buffer_params_v1_destroy(params);
	buffer->params = NULL;
	umms_core_buffer_close_fds(&buffer->base);
	show_waiting(buffer);
}

static void
dmabuf_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	struct client_buffer *buffer = data;
	/* Shown by copying into shared memory from now on (see copy_to_shm). */
	buffer->refused = true;
	zwp_linux_buffer_params_v1_destroy(params);
	buffer->params = NULL;
	show_waiting(buffer);
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = dmabuf_created,
	.failed = dmabuf_failed,
};

/* The dma-buf's fds go to the compositor as they came: no copy. */
static void
import_dmabuf(struct client_buffer *buffer)
{
	struct umms_core_buffer *base = &buffer->base;
	struct umms_client *client = buffer->video->client;
	if (!client->dmabuf) {
		buffer->refused = true;
		return;
	}
	struct zwp_linux_buffer_params_v1 *params =
		zwp_linux_dmabuf_v1_create_params(client->dmabuf);
	for (int p = 0; p < base->n_planes; p++)
		zwp_linux_buffer_params_v1_add(params, base->fds[p], (uint32_t)p,
			base->offsets[p], base->strides[p], (uint32_t)(base->modifier >> 32),
			(uint32_t)base->modifier);
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, buffer);
	buffer->params = params;
	zwp_linux_buffer_params_v1_create(params, base->width, base->height, base->format, 0);
}

void
client_buffer_import(struct umms_core_video *core, struct umms_core_buffer *base)
{
	struct client_buffer *buffer = (struct client_buffer *)base;
	buffer->video = core->data;
	for (int v = 0; v < CLIENT_MAX_VIEWS; v++)
		buffer->views[v].owner = buffer;
	if (base->kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF)
		import_dmabuf(buffer);
	else
		import_memfd(buffer);
}

void
client_buffer_free(struct umms_core_video *core, struct umms_core_buffer *base)
{
	struct client_buffer *buffer = (struct client_buffer *)base;
	struct umms_client_video *video = core->data;
	if (video->current == buffer)
		video->current = NULL;
	/* Only when the video goes: a waiting show keeps its buffer otherwise. */
	if (video->waiting == buffer)
		video->waiting = NULL;
	/* Gone before the compositor answered the import: no answer may reach it now. */
	if (buffer->params)
		zwp_linux_buffer_params_v1_destroy(buffer->params);
	for (int v = 0; v < CLIENT_MAX_VIEWS; v++) {
		if (buffer->views[v].wl)
			wl_buffer_destroy(buffer->views[v].wl);
	}
	if (buffer->pool)
		wl_shm_pool_destroy(buffer->pool);
	if (buffer->copy) {
		wl_buffer_destroy(buffer->copy);
		munmap(buffer->copy_data, buffer->copy_size);
	}
	free(buffer);
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
		video->client->feedback_heard = true;
	if (video && video->core) {
		video->n_feedbacks--;
		video->counts.presented++;
		/* umms_video_v1 speaks CLOCK_MONOTONIC; the compositor may not. */
		int64_t when = umms_core_to_monotonic(video->client->presentation_clock,
			(int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec));
		/*
		 * wp_presentation's kinds share their bits with umms_video_v1's
		 * flags; a frame shown from our copy was not read in place.
		 */
		if (feedback->copied && umms_video_manager_v1_get_version(
				video->client->core.manager) >= 3)
			flags = (flags & ~UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_ZERO_COPY) |
				UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_COPIED;
		video->presented_flags = flags;
		umms_core_video_presented(video->core, feedback->serial, when, refresh, flags);
	} else if (video) {
		video->n_feedbacks--;
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
	if (video) {
		video->n_feedbacks--;
		video->client->feedback_heard = true;
	}
	if (video && video->core) {
		video->counts.discarded++;
		umms_core_video_discarded(video->core, feedback->serial);
	}
	wp_presentation_feedback_destroy(proxy);
	free(feedback);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

/*
 * Whether to ask the compositor about the frame being committed. A
 * compositor that never answers may also never forget the question:
 * wlroots 0.15's headless backend (sway 1.7's) signals a frame presented
 * before it counts the commit, so no feedback ever matches its frame, and
 * each stays on the output's present signal, which every repaint walks,
 * after its client has gone. Asked each frame, sway's own CPU for the
 * same round of 3 players grew 0.31 to 0.57 s over six rounds (mpv's
 * likewise), and a round of 14 players left 4,200 behind. So once the
 * first FEEDBACK_SILENT frames of a connection got no answer, a frame asks
 * only when the count since is a power of two, from FEEDBACK_PROBE on: a
 * compositor that starts to answer (a new output) is heard again, and one
 * that never does keeps a few dozen in a day.
 */
static bool
feedback_wanted(struct umms_client *client)
{
	if (!client->presentation)
		return false;
	if (client->feedback_heard)
		return true;
	unsigned n = ++client->feedback_unheard;
	return n <= FEEDBACK_SILENT || (n >= FEEDBACK_PROBE && (n & (n - 1)) == 0);
}

void
client_buffer_skip(struct client_buffer *buffer, uint32_t serial)
{
	struct umms_core_video *core = buffer->base.video;
	struct umms_client_video *video = core->data;
	video->counts.discarded++;
	umms_core_video_skip(core, &buffer->base, serial);
}

/*
 * A dma-buf the compositor refused: read it (linear, one plane) into shared
 * memory of ours. A copy, the one this library ever makes.
 */
static struct wl_buffer *
copy_to_shm(struct client_buffer *buffer)
{
	struct umms_core_buffer *base = &buffer->base;
	if (base->n_planes != 1 || base->modifier != 0 || base->fds[0] < 0)
		return NULL;
	size_t size = (size_t)base->strides[0] * (size_t)base->height;
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
		uint32_t format = base->format == WL_SHM_FORMAT_XRGB8888 ? base->format :
			base->format == 0x34325258 ? WL_SHM_FORMAT_XRGB8888 :
			base->format == 0x34325241 ? WL_SHM_FORMAT_ARGB8888 : base->format;
		struct wl_shm_pool *pool = wl_shm_create_pool(buffer->video->client->shm, fd,
			(int32_t)size);
		buffer->copy = wl_shm_pool_create_buffer(pool, 0, base->width, base->height,
			(int32_t)base->strides[0], format);
		wl_shm_pool_destroy(pool);
		close(fd);
	}
	void *source = mmap(NULL, size + base->offsets[0], PROT_READ, MAP_SHARED, base->fds[0], 0);
	if (source == MAP_FAILED)
		return NULL;
	memcpy(buffer->copy_data, (char *)source + base->offsets[0], size);
	munmap(source, size + base->offsets[0]);
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
	struct umms_core_buffer *base = &buffer->base;
	int bpp = cut_bpp(base->format);
	if (!buffer->pool || bpp == 0)
		return NULL;
	struct buffer_view *free_view = NULL;
	for (int v = 1; v < CLIENT_MAX_VIEWS; v++) {
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
	int64_t offset = (int64_t)base->offsets[0] + (int64_t)y * base->strides[0] +
		(int64_t)x * bpp;
	free_view->wl = wl_shm_pool_create_buffer(buffer->pool, (int32_t)offset, width, height,
		(int32_t)base->strides[0], base->format);
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
	int width = buffer->base.width, height = buffer->base.height;
	if (!view->wl || !l->visible || l->src_x < 0 || l->src_y < 0 ||
			l->src_x + l->src_width > width + 0.01 ||
			l->src_y + l->src_height > height + 0.01)
		return false;
	double sx = l->src_x, sy = l->src_y;
	int x0 = (int)floor(sx + 0.01), y0 = (int)floor(sy + 0.01);
	int x1 = MIN_I(width, (int)ceil(sx + l->src_width - 0.01));
	int y1 = MIN_I(height, (int)ceil(sy + l->src_height - 0.01));
	if (x0 > 0 || y0 > 0 || x1 < width || y1 < height) {
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
		umms_core_buffer_hold(&buffer->base);
	}
	return true;
}

/*
 * Whether a frame of @format (memfd: wl_shm's code; dma-buf: DRM's) covers
 * what lies under it. Only formats known to have no alpha: a picture with
 * alpha is blended, and an unknown format is taken as one.
 */
static bool
format_opaque(uint32_t format)
{
	/* wl_shm's codes are DRM's but for the first two; XRGB8888 is either. */
	if (format == 0x34325258)
		return true;
	switch (format) {
	case WL_SHM_FORMAT_XRGB8888:
	case WL_SHM_FORMAT_XBGR8888:
	case WL_SHM_FORMAT_RGBX8888:
	case WL_SHM_FORMAT_BGRX8888:
	case WL_SHM_FORMAT_XRGB2101010:
	case WL_SHM_FORMAT_XBGR2101010:
	case WL_SHM_FORMAT_RGB888:
	case WL_SHM_FORMAT_BGR888:
	case WL_SHM_FORMAT_RGB565:
	case WL_SHM_FORMAT_NV12:
	case WL_SHM_FORMAT_NV21:
	case WL_SHM_FORMAT_NV16:
	case WL_SHM_FORMAT_P010:
	case WL_SHM_FORMAT_P012:
	case WL_SHM_FORMAT_P016:
	case WL_SHM_FORMAT_YUV420:
	case WL_SHM_FORMAT_YVU420:
	case WL_SHM_FORMAT_YUV422:
	case WL_SHM_FORMAT_YUV444:
	case WL_SHM_FORMAT_YUYV:
	case WL_SHM_FORMAT_UYVY:
		return true;
	default:
		return false;
	}
}

/*
 * Tells the compositor the picture hides what is under it (the
 * application's window), or no longer does, when that changes: weston then
 * does not paint the window under the video with every frame. The bars
 * follow (client_video_size_bars).
 */
static void
mark_opaque(struct umms_client_video *video, bool opaque)
{
	if (opaque == video->opaque)
		return;
	struct wl_region *region = NULL;
	if (opaque) {
		region = wl_compositor_create_region(video->client->compositor);
		/* The compositor clips it to the surface, whatever its size. */
		wl_region_add(region, 0, 0, INT32_MAX, INT32_MAX);
	}
	wl_surface_set_opaque_region(video->video_surface, region);
	if (region)
		wl_region_destroy(region);
	video->opaque = opaque;
	/* The bars hide under an opaque picture only; with alpha, they show through it. */
	if (video->bg_attached) {
		client_video_size_bars(video);
		wl_surface_commit(video->bg_surface);
	}
}

bool
client_buffer_reattach(struct client_buffer *buffer)
{
	/* Only while shown: a released frame's memory may hold another picture by now. */
	if (buffer->base.holds == 0)
		return false;
	return attach_picture(buffer);
}

void
client_buffer_show(struct client_buffer *buffer, uint32_t serial)
{
	struct umms_client_video *video = buffer->video;
	if (video->waiting) {
		/* This one is newer: the one waiting for its import never shows. */
		struct client_buffer *replaced = video->waiting;
		video->waiting = NULL;
		client_buffer_skip(replaced, video->waiting_serial);
	}
	if (!video->video_surface || !video->in.width || !video->have_geometry) {
		/* Nowhere to show it. */
		client_buffer_skip(buffer, serial);
		return;
	}
	/* The show (counted by the core) is released when the compositor lets the frame go. */
	bool copied = false;
	if (attach_picture(buffer)) {
		video->current = buffer;
	} else if (buffer->params) {
		/* The compositor has not answered the import yet: shown when it does. */
		video->waiting = buffer;
		video->waiting_serial = serial;
		return;
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
		copied = true;
		umms_core_buffer_release(&buffer->base, 1);
	}
	wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX, INT32_MAX);
	mark_opaque(video, format_opaque(buffer->base.format));
	if (feedback_wanted(video->client)) {
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
		feedback->copied = copied;
		feedback->proxy = wp_presentation_feedback(video->client->presentation,
			video->video_surface);
		wp_presentation_feedback_add_listener(feedback->proxy, &feedback_listener, feedback);
		wl_list_insert(&video->feedbacks, &feedback->link);
		video->n_feedbacks++;
	} else if (video->client->presentation) {
		/* Not asked, as the compositor answers nothing: unanswered all the same. */
		video->counts.unanswered++;
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
