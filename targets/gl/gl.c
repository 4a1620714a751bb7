/*
 * libumms-client-gl: a player's frames from the umms_video_v1 core
 * (client/core/core.h: the connection, buffers, the due-frame queue) to
 * the application's GL context. Dispatch receives shows into the queue;
 * update takes the newest due one, imports or uploads it, and answers
 * ummsd for every frame. Contract: umms-gl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gl-private.h"

/* ---- buffers ------------------------------------------------------------------ */

static void
buffer_free(struct umms_gl *gl, struct gl_buffer *buffer)
{
	gl_buffer_unimport(gl, buffer);
	free(buffer);
}

/*
 * The core forgot @base. Its textures and EGLImages need the application's
 * context: without it (from dispatch or update) they wait in gl->dead for
 * the next update or destroy.
 */
static void
buffer_destroy(struct umms_core_video *video, struct umms_core_buffer *base)
{
	struct umms_gl *gl = video->data;
	struct gl_buffer *buffer = (struct gl_buffer *)base;
	if (gl->on_screen == buffer)
		gl->on_screen = NULL;
	if (gl->frame_buffer == buffer) {
		/* Its textures go with it: there is no frame to draw any more. */
		gl->frame_buffer = NULL;
		gl->have_frame = false;
	}
	if (buffer->map)
		munmap(buffer->map, buffer->map_size);
	buffer->map = NULL;
	if (!gl->context && buffer->n_images > 0) {
		wl_list_insert(&gl->dead, &buffer->base.link);
		return;
	}
	buffer_free(gl, buffer);
}

/* Context current: the GL objects of buffers that went during dispatch. */
static void
bury_dead(struct umms_gl *gl)
{
	struct gl_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &gl->dead, base.link) {
		wl_list_remove(&buffer->base.link);
		buffer_free(gl, buffer);
	}
}

static void
buffer_ready(struct umms_core_video *video, struct umms_core_buffer *base)
{
	struct gl_buffer *buffer = (struct gl_buffer *)base;
	if (base->kind != UMMS_VIDEO_BUFFER_V1_KIND_MEMFD || base->size == 0)
		return;
	/* Memory frames share one fd for every plane: map it once, keep the mapping. */
	void *map = mmap(NULL, base->size, PROT_READ, MAP_SHARED, base->fds[0], 0);
	if (map != MAP_FAILED) {
		buffer->map = map;
		buffer->map_size = base->size;
	} else {
		fprintf(stderr, "umms-gl: cannot map a %dx%d frame buffer of ummsd: %s\n",
			base->width, base->height, strerror(errno));
	}
	umms_core_buffer_close_fds(base);
}

/* ---- the player's events --------------------------------------------------------- */

static void
video_show(struct umms_core_video *video, struct umms_core_buffer *buffer, uint32_t serial,
	int64_t due_ns)
{
	struct umms_gl *gl = video->data;
	umms_core_queue_push(&gl->queue, buffer, serial, due_ns);
}

static void
video_path(struct umms_core_video *video, const char *path)
{
	struct umms_gl *gl = video->data;
	if (gl->listener && gl->listener->ready)
		gl->listener->ready(gl->data, gl, path);
}

static void
video_failed(struct umms_core_video *video, const char *reason)
{
	struct umms_gl *gl = video->data;
	if (gl->listener && gl->listener->failed)
		gl->listener->failed(gl->data, gl, reason);
}

static void
video_geometry(struct umms_core_video *video)
{
	struct umms_gl *gl = video->data;
	const struct umms_core_geometry *g = &video->geometry;
	if (gl->listener && gl->listener->size)
		gl->listener->size(gl->data, gl,
			(int)((double)g->crop_width * g->par_n / g->par_d + 0.5), g->crop_height);
}

static void
video_end_of_stream(struct umms_core_video *video)
{
	struct umms_gl *gl = video->data;
	if (gl->listener && gl->listener->end_of_stream)
		gl->listener->end_of_stream(gl->data, gl);
}

static void retire_frame(struct umms_gl *gl);

/* Parental control blocked the player: no frame of it stands, none queued is shown. */
static void
video_clear(struct umms_core_video *video)
{
	struct umms_gl *gl = video->data;
	umms_core_queue_clear(&gl->queue);
	retire_frame(gl);
	gl->have_frame = false;
	gl->frame_buffer = NULL;
	gl_subtitles_update(gl, NULL);
}

static void
video_error(struct umms_core_video *video, const char *name, const char *message)
{
	struct umms_gl *gl = video->data;
	/* The player is gone (the core forgot our shows): the last frame taken stays usable. */
	if (strcmp(name, "org.umms.Error.NotFound") == 0)
		umms_core_queue_clear(&gl->queue);
	if (gl->listener && gl->listener->error)
		gl->listener->error(gl->data, gl, name, message);
}

static const struct umms_core_video_impl video_impl = {
	.buffer_size = sizeof(struct gl_buffer),
	.path = video_path,
	.failed = video_failed,
	.geometry = video_geometry,
	.buffer_ready = buffer_ready,
	.show = video_show,
	.buffer_destroy = buffer_destroy,
	.end_of_stream = video_end_of_stream,
	.clear = video_clear,
	.error = video_error,
	.cue = gl_video_cue,
};

/* ---- the connection ---------------------------------------------------------------- */

/* The wl_shm formats to ask for, ours first (ummsd picks by its own order). */
static void
announce_shm(struct umms_gl *gl)
{
	struct umms_video_manager_v1 *manager = gl->core.manager;
	if (gl->flags & UMMS_GL_I420) {
		umms_video_manager_v1_shm_format(manager, WL_SHM_FORMAT_YUV420);
		return;
	}
	if (!(gl->flags & UMMS_GL_YUV)) {
		umms_video_manager_v1_shm_format(manager, WL_SHM_FORMAT_XRGB8888);
		umms_video_manager_v1_shm_format(manager, WL_SHM_FORMAT_ARGB8888);
	}
	umms_video_manager_v1_shm_format(manager, WL_SHM_FORMAT_NV12);
	umms_video_manager_v1_shm_format(manager, WL_SHM_FORMAT_YUV420);
}

struct umms_gl *
umms_gl_create(const char *name, const char *player_path, uint32_t flags,
	const struct umms_gl_listener *listener, void *data)
{
	struct umms_gl *gl = calloc(1, sizeof(*gl));
	if (!gl)
		abort();
	gl->flags = flags;
	gl->listener = listener;
	gl->data = data;
	gl->sub_images = true;
	wl_list_init(&gl->dead);
	/*
	 * Version 3: presented's copied flag, which uploads are reported with;
	 * 4 where ummsd has it: subtitles.
	 */
	if (!umms_core_connect(&gl->core, name, 3, 5)) {
		int saved = errno;
		free(gl);
		errno = saved;
		return NULL;
	}
	announce_shm(gl);
	gl_announce_dmabuf(gl);
	gl->video = umms_core_video_create(&gl->core, player_path, &video_impl, gl);
	if (!gl->video)
		abort();
	gl->queue.video = gl->video;
	return gl;
}

void
umms_gl_destroy(struct umms_gl *gl)
{
	if (!gl)
		return;
	/* A frame taken and never answered did not reach the screen as far as we know. */
	if (gl->have_frame && !gl->answered)
		umms_core_video_discarded(gl->video, gl->frame.serial);
	gl->context = true;
	umms_core_video_destroy(gl->video);
	bury_dead(gl);
	gl_textures_finish(gl);
	gl_subtitles_finish(gl);
	umms_core_finish(&gl->core);
	free(gl);
}

int
umms_gl_get_fd(struct umms_gl *gl)
{
	return wl_display_get_fd(gl->core.display);
}

int
umms_gl_dispatch(struct umms_gl *gl)
{
	return umms_core_dispatch(&gl->core);
}

int
umms_gl_roundtrip(struct umms_gl *gl)
{
	return wl_display_roundtrip(gl->core.display) < 0 ? -1 : 0;
}

const char *
umms_gl_get_path(struct umms_gl *gl)
{
	return gl->video->path;
}

/* ---- frames ------------------------------------------------------------------------ */

/* Sends presented for the frame taken last, unless it was answered already. */
static void
answer_presented(struct umms_gl *gl, int64_t when_ns)
{
	if (!gl->have_frame || gl->answered)
		return;
	gl->answered = true;
	uint32_t flags = gl->frame.dmabuf ? UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_ZERO_COPY :
		UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_COPIED;
	umms_core_video_presented(gl->video, gl->frame.serial, when_ns, 0, flags);
}

/* The frame on screen is replaced: answer it if nobody did, let its memory go. */
static void
retire_frame(struct umms_gl *gl)
{
	if (gl->have_frame && !gl->answered) {
		gl->answered = true;
		umms_core_video_discarded(gl->video, gl->frame.serial);
	}
	struct gl_buffer *held = gl->on_screen;
	gl->on_screen = NULL;
	if (held) {
		umms_core_buffer_release(&held->base, 1);
		umms_core_buffer_drop(&held->base);
	}
}

const struct umms_gl_frame *
umms_gl_update(struct umms_gl *gl, int64_t target_ns)
{
	if (!gl->gl_probed)
		gl_probe(gl);
	bury_dead(gl);
	if (target_ns == 0)
		target_ns = umms_core_now_ns();
	/* The newest frame due by then; the ones before it are too late. */
	struct umms_core_show taken;
	if (!umms_core_queue_take(&gl->queue, target_ns, &taken))
		return gl->have_frame ? &gl->frame : NULL;
	struct gl_buffer *buffer = (struct gl_buffer *)taken.buffer;
	const struct umms_core_geometry *g = &taken.geometry;
	struct gl_show show = {
		.buffer = buffer, .serial = taken.serial, .due_ns = taken.due_ns,
		.crop_x = g->crop_x, .crop_y = g->crop_y,
		.crop_width = g->crop_width, .crop_height = g->crop_height,
		.par_n = g->par_n, .par_d = g->par_d,
	};
	bool dmabuf = buffer->base.kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF;
	/* The memory target's textures are about to change: answer for the old frame first. */
	retire_frame(gl);
	bool ok = dmabuf ? gl_import(gl, &show) : gl_upload(gl, &show);
	if (!ok) {
		/* Nothing to show it with: the frame before it (if any) is gone too. */
		gl->have_frame = false;
		gl->frame_buffer = NULL;
		umms_core_subpicture_unref(taken.subpicture);
		umms_core_video_skip(gl->video, &buffer->base, show.serial);
		return NULL;
	}
	/* Its subtitles: uploaded only when they changed. */
	gl_subtitles_update(gl, taken.subpicture);
	umms_core_subpicture_unref(taken.subpicture);
	gl->have_frame = true;
	gl->answered = false;
	gl->frame_buffer = dmabuf ? buffer : NULL;
	if (dmabuf) {
		/* Read in place, no copy: held until another frame replaces it. */
		gl->on_screen = buffer;
		umms_core_buffer_hold(&buffer->base);
	} else {
		/* Copied: ummsd has its memory back at once. */
		gl->counts.uploaded++;
		umms_core_buffer_release(&buffer->base, 1);
	}
	if (!(gl->flags & UMMS_GL_MANUAL_PRESENTED))
		answer_presented(gl, target_ns);
	umms_core_flush(&gl->core);
	return &gl->frame;
}

void
umms_gl_presented(struct umms_gl *gl, int64_t when_ns)
{
	answer_presented(gl, when_ns);
}

void
umms_gl_get_counts(struct umms_gl *gl, struct umms_gl_counts *counts)
{
	const struct umms_core_counts *core = &gl->video->counts;
	*counts = gl->counts;
	counts->received = (unsigned)core->received;
	counts->presented = (unsigned)core->presented;
	counts->discarded = (unsigned)core->discarded;
	counts->buffers = core->buffers;
}
