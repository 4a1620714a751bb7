/*
 * libumms-client-gl: the connection to ummsd, the buffers and shows it
 * sends, and the queue of frames between dispatch (which receives them) and
 * update (which takes the newest due one and answers ummsd for every
 * frame). Contract: umms-gl.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "gl-private.h"
#include "socket-name.h"

static int64_t
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
flush(struct umms_gl *gl)
{
	wl_display_flush(gl->display);
}

/* ---- buffers ------------------------------------------------------------------ */

static void
close_fds(struct gl_buffer *buffer)
{
	for (int p = 0; p < buffer->n_planes; p++) {
		if (buffer->fds[p] >= 0)
			close(buffer->fds[p]);
		buffer->fds[p] = -1;
	}
}

/*
 * Forgets @buffer. Its textures and EGLImages need the application's
 * context: without it (@context false, from dispatch) they wait in
 * gl->dead for the next update or destroy.
 */
static void
buffer_destroy(struct gl_buffer *buffer, bool context)
{
	struct umms_gl *gl = buffer->gl;
	if (gl->on_screen == buffer)
		gl->on_screen = NULL;
	if (gl->frame_buffer == buffer) {
		/* Its textures go with it: there is no frame to draw any more. */
		gl->frame_buffer = NULL;
		gl->have_frame = false;
	}
	close_fds(buffer);
	if (buffer->map)
		munmap(buffer->map, buffer->map_size);
	buffer->map = NULL;
	wl_list_remove(&buffer->link);
	/* Releases, on ummsd's side, the shows not released yet. */
	umms_video_buffer_v1_destroy(buffer->proxy);
	buffer->proxy = NULL;
	gl->counts.buffers--;
	if (!context && buffer->n_images > 0) {
		wl_list_insert(&gl->dead, &buffer->link);
		return;
	}
	gl_buffer_unimport(gl, buffer);
	free(buffer);
}

/* Context current: the GL objects of buffers that went during dispatch. */
static void
bury_dead(struct umms_gl *gl)
{
	struct gl_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &gl->dead, link) {
		wl_list_remove(&buffer->link);
		gl_buffer_unimport(gl, buffer);
		free(buffer);
	}
}

static void
maybe_forget(struct gl_buffer *buffer)
{
	/* From dispatch (retired) or update (released): either way, no GL here. */
	if (buffer->retired && buffer->shows == 0 && buffer->gl->on_screen != buffer)
		buffer_destroy(buffer, false);
}

/* One show of @buffer is over: ummsd may reuse the memory. */
static void
release_show(struct gl_buffer *buffer)
{
	if (buffer->shows == 0)
		return;
	buffer->shows--;
	umms_video_buffer_v1_release(buffer->proxy);
	maybe_forget(buffer);
}

static void
buffer_plane(void *data, struct umms_video_buffer_v1 *proxy, int32_t fd, uint32_t offset,
	uint32_t stride)
{
	struct gl_buffer *buffer = data;
	if (buffer->n_planes >= GL_MAX_PLANES) {
		close(fd);
		return;
	}
	buffer->fds[buffer->n_planes] = fd;
	buffer->offsets[buffer->n_planes] = offset;
	buffer->strides[buffer->n_planes] = stride;
	buffer->n_planes++;
}

static void
buffer_done(void *data, struct umms_video_buffer_v1 *proxy)
{
	struct gl_buffer *buffer = data;
	if (buffer->kind != UMMS_VIDEO_BUFFER_V1_KIND_MEMFD || buffer->n_planes < 1)
		return;
	/* Memory frames share one fd for every plane: map it once, keep the mapping. */
	off_t size = lseek(buffer->fds[0], 0, SEEK_END);
	if (size > 0) {
		void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, buffer->fds[0], 0);
		if (map != MAP_FAILED) {
			buffer->map = map;
			buffer->map_size = (size_t)size;
		}
	}
	if (!buffer->map)
		fprintf(stderr, "umms-gl: cannot map a %dx%d frame buffer of ummsd: %s\n",
			buffer->width, buffer->height, strerror(errno));
	close_fds(buffer);
}

static void
buffer_retired(void *data, struct umms_video_buffer_v1 *proxy)
{
	struct gl_buffer *buffer = data;
	buffer->retired = true;
	maybe_forget(buffer);
}

static const struct umms_video_buffer_v1_listener buffer_listener = {
	.plane = buffer_plane,
	.done = buffer_done,
	.retired = buffer_retired,
};

/* ---- the frame queue ------------------------------------------------------------ */

/* A show that will never reach the screen. */
static void
discard_show(struct umms_gl *gl, const struct gl_show *show)
{
	if (gl->player)
		umms_video_player_v1_discarded(gl->player, show->serial);
	gl->counts.discarded++;
	release_show(show->buffer);
}

static void
drop_pending(struct umms_gl *gl, int index)
{
	discard_show(gl, &gl->pending[index]);
	memmove(&gl->pending[index], &gl->pending[index + 1],
		(size_t)(gl->n_pending - index - 1) * sizeof(gl->pending[0]));
	gl->n_pending--;
}

/* Sends presented for the frame taken last, unless it was answered already. */
static void
answer_presented(struct umms_gl *gl, int64_t when_ns)
{
	if (!gl->have_frame || gl->answered)
		return;
	gl->answered = true;
	gl->counts.presented++;
	if (!gl->player)
		return;
	uint64_t seconds = (uint64_t)when_ns / 1000000000;
	uint32_t flags = gl->frame.dmabuf ? UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_ZERO_COPY :
		UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_COPIED;
	umms_video_player_v1_presented(gl->player, gl->frame.serial, (uint32_t)(seconds >> 32),
		(uint32_t)seconds, (uint32_t)((uint64_t)when_ns % 1000000000), 0, flags);
}

static void
player_show(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *proxy,
	uint32_t serial, uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec)
{
	struct umms_gl *gl = data;
	struct gl_buffer *buffer = proxy ? umms_video_buffer_v1_get_user_data(proxy) : NULL;
	if (!buffer)
		return;
	buffer->shows++;
	gl->counts.received++;
	struct gl_show show = {
		.buffer = buffer,
		.serial = serial,
		.due_ns = (int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec),
		.crop_x = gl->crop_x, .crop_y = gl->crop_y,
		.crop_width = gl->crop_width, .crop_height = gl->crop_height,
		.par_n = gl->par_n, .par_d = gl->par_d,
	};
	if (gl->n_pending == GL_MAX_PENDING)
		drop_pending(gl, 0);
	gl->pending[gl->n_pending++] = show;
	/*
	 * A frame due by now supersedes the ones that came before it: no
	 * update can take those any more. Answer them at once, so that an
	 * application that draws rarely does not hold ummsd's memory (ummsd
	 * would skip frames meanwhile). Frames not due yet wait.
	 */
	int64_t now = now_ns();
	int newest_due = -1;
	for (int i = 0; i < gl->n_pending; i++) {
		if (gl->pending[i].due_ns <= now)
			newest_due = i;
	}
	for (int i = newest_due - 1; i >= 0; i--)
		drop_pending(gl, i);
}

static void
player_path(void *data, struct umms_video_player_v1 *player, const char *path)
{
	struct umms_gl *gl = data;
	free(gl->path);
	gl->path = strdup(path);
	if (gl->listener && gl->listener->ready)
		gl->listener->ready(gl->data, gl, path);
}

static void
player_failed(void *data, struct umms_video_player_v1 *player, const char *reason)
{
	struct umms_gl *gl = data;
	gl->gone = true;
	if (gl->listener && gl->listener->failed)
		gl->listener->failed(gl->data, gl, reason);
}

static void
player_geometry(void *data, struct umms_video_player_v1 *player, int32_t width, int32_t height,
	int32_t crop_x, int32_t crop_y, int32_t crop_width, int32_t crop_height, uint32_t par_n,
	uint32_t par_d)
{
	struct umms_gl *gl = data;
	gl->crop_x = crop_x;
	gl->crop_y = crop_y;
	gl->crop_width = crop_width;
	gl->crop_height = crop_height;
	gl->par_n = par_n ? par_n : 1;
	gl->par_d = par_d ? par_d : 1;
	if (gl->listener && gl->listener->size)
		gl->listener->size(gl->data, gl,
			(int)((double)crop_width * gl->par_n / gl->par_d + 0.5), crop_height);
}

static void
player_buffer(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *id,
	uint32_t kind, uint32_t format, int32_t width, int32_t height, uint32_t modifier_hi,
	uint32_t modifier_lo)
{
	struct umms_gl *gl = data;
	struct gl_buffer *buffer = calloc(1, sizeof(*buffer));
	if (!buffer)
		abort();
	buffer->gl = gl;
	buffer->proxy = id;
	buffer->kind = kind;
	buffer->format = format;
	buffer->width = width;
	buffer->height = height;
	buffer->modifier = (uint64_t)modifier_hi << 32 | modifier_lo;
	for (int p = 0; p < GL_MAX_PLANES; p++)
		buffer->fds[p] = -1;
	wl_list_insert(&gl->buffers, &buffer->link);
	gl->counts.buffers++;
	umms_video_buffer_v1_add_listener(id, &buffer_listener, buffer);
}

static void
player_end_of_stream(void *data, struct umms_video_player_v1 *player)
{
	struct umms_gl *gl = data;
	if (gl->listener && gl->listener->end_of_stream)
		gl->listener->end_of_stream(gl->data, gl);
}

/*
 * The player was destroyed: ummsd took back every show we held, so none
 * may be released now (a release without a show is a protocol error).
 * No more frames come; the last one taken stays usable.
 */
static void
forget_shows(struct umms_gl *gl)
{
	gl->gone = true;
	gl->n_pending = 0;
	gl->on_screen = NULL;
	struct gl_buffer *buffer;
	wl_list_for_each(buffer, &gl->buffers, link)
		buffer->shows = 0;
}

static void
player_error(void *data, struct umms_video_player_v1 *player, const char *name,
	const char *message)
{
	struct umms_gl *gl = data;
	if (strcmp(name, "org.umms.Error.NotFound") == 0)
		forget_shows(gl);
	if (gl->listener && gl->listener->error)
		gl->listener->error(gl->data, gl, name, message);
}

static const struct umms_video_player_v1_listener player_listener = {
	.path = player_path,
	.failed = player_failed,
	.geometry = player_geometry,
	.buffer = player_buffer,
	.show = player_show,
	.end_of_stream = player_end_of_stream,
	.error = player_error,
};

/* ---- the connection ---------------------------------------------------------------- */

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	struct umms_gl *gl = data;
	/* Version 3: presented's copied flag, which uploads are reported with. */
	if (strcmp(interface, umms_video_manager_v1_interface.name) == 0 && version >= 3)
		gl->manager = wl_registry_bind(registry, name, &umms_video_manager_v1_interface, 3);
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* The wl_shm formats to ask for, ours first (ummsd picks by its own order). */
static void
announce_shm(struct umms_gl *gl)
{
	if (gl->flags & UMMS_GL_I420) {
		umms_video_manager_v1_shm_format(gl->manager, WL_SHM_FORMAT_YUV420);
		return;
	}
	if (!(gl->flags & UMMS_GL_YUV)) {
		umms_video_manager_v1_shm_format(gl->manager, WL_SHM_FORMAT_XRGB8888);
		umms_video_manager_v1_shm_format(gl->manager, WL_SHM_FORMAT_ARGB8888);
	}
	umms_video_manager_v1_shm_format(gl->manager, WL_SHM_FORMAT_NV12);
	umms_video_manager_v1_shm_format(gl->manager, WL_SHM_FORMAT_YUV420);
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
	gl->par_n = gl->par_d = 1;
	wl_list_init(&gl->buffers);
	wl_list_init(&gl->dead);

	gl->display = wl_display_connect(umms_socket_name(name));
	if (!gl->display)
		goto err;
	struct wl_registry *registry = wl_display_get_registry(gl->display);
	wl_registry_add_listener(registry, &registry_listener, gl);
	int ret = wl_display_roundtrip(gl->display);
	wl_registry_destroy(registry);
	if (ret < 0)
		goto err;
	if (!gl->manager) {
		errno = EPROTONOSUPPORT;
		goto err;
	}
	announce_shm(gl);
	gl_announce_dmabuf(gl);
	if (player_path)
		gl->player = umms_video_manager_v1_attach(gl->manager, player_path);
	else
		gl->player = umms_video_manager_v1_create_player(gl->manager);
	umms_video_player_v1_add_listener(gl->player, &player_listener, gl);
	flush(gl);
	return gl;

err: {
	int saved = errno;
	if (gl->manager)
		umms_video_manager_v1_destroy(gl->manager);
	if (gl->display)
		wl_display_disconnect(gl->display);
	free(gl);
	errno = saved;
	return NULL;
}
}

void
umms_gl_destroy(struct umms_gl *gl)
{
	if (!gl)
		return;
	/* A frame taken and never answered did not reach the screen as far as we know. */
	if (gl->have_frame && !gl->answered && gl->player)
		umms_video_player_v1_discarded(gl->player, gl->frame.serial);
	gl->on_screen = NULL;
	struct gl_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &gl->buffers, link)
		buffer_destroy(buffer, true);
	bury_dead(gl);
	gl_textures_finish(gl);
	if (gl->player)
		umms_video_player_v1_destroy(gl->player);
	if (gl->manager)
		umms_video_manager_v1_destroy(gl->manager);
	flush(gl);
	wl_display_disconnect(gl->display);
	free(gl->path);
	free(gl);
}

int
umms_gl_get_fd(struct umms_gl *gl)
{
	return wl_display_get_fd(gl->display);
}

int
umms_gl_dispatch(struct umms_gl *gl)
{
	struct wl_display *display = gl->display;
	while (wl_display_prepare_read(display) != 0) {
		if (wl_display_dispatch_pending(display) < 0)
			return -1;
	}
	if (wl_display_flush(display) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(display);
		return -1;
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	if (poll(&pfd, 1, 0) > 0) {
		if (wl_display_read_events(display) < 0)
			return -1;
	} else {
		wl_display_cancel_read(display);
	}
	if (wl_display_dispatch_pending(display) < 0)
		return -1;
	/* Answers sent from the handlers (discarded frames) go out now. */
	return wl_display_flush(display) < 0 && errno != EAGAIN ? -1 : 0;
}

int
umms_gl_roundtrip(struct umms_gl *gl)
{
	return wl_display_roundtrip(gl->display) < 0 ? -1 : 0;
}

const char *
umms_gl_get_path(struct umms_gl *gl)
{
	return gl->path;
}

/* The frame on screen is replaced: answer it if nobody did, let its memory go. */
static void
retire_frame(struct umms_gl *gl)
{
	if (gl->have_frame && !gl->answered) {
		gl->answered = true;
		if (gl->player)
			umms_video_player_v1_discarded(gl->player, gl->frame.serial);
		gl->counts.discarded++;
	}
	struct gl_buffer *held = gl->on_screen;
	gl->on_screen = NULL;
	if (held)
		release_show(held);
}

const struct umms_gl_frame *
umms_gl_update(struct umms_gl *gl, int64_t target_ns)
{
	if (!gl->gl_probed)
		gl_probe(gl);
	bury_dead(gl);
	if (target_ns == 0)
		target_ns = now_ns();
	/* The newest frame due by then; the ones before it are too late. */
	int take = -1;
	for (int i = 0; i < gl->n_pending; i++) {
		if (gl->pending[i].due_ns <= target_ns)
			take = i;
	}
	if (take < 0)
		return gl->have_frame ? &gl->frame : NULL;
	for (int i = 0; i < take; i++)
		discard_show(gl, &gl->pending[i]);
	struct gl_show show = gl->pending[take];
	memmove(&gl->pending[0], &gl->pending[take + 1],
		(size_t)(gl->n_pending - take - 1) * sizeof(gl->pending[0]));
	gl->n_pending -= take + 1;

	struct gl_buffer *buffer = show.buffer;
	bool dmabuf = buffer->kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF;
	/* The memory target's textures are about to change: answer for the old frame first. */
	retire_frame(gl);
	bool ok = dmabuf ? gl_import(gl, &show) : gl_upload(gl, &show);
	if (!ok) {
		/* Nothing to show it with: the frame before it (if any) is gone too. */
		gl->have_frame = false;
		gl->frame_buffer = NULL;
		discard_show(gl, &show);
		flush(gl);
		return NULL;
	}
	gl->have_frame = true;
	gl->answered = false;
	gl->frame_buffer = dmabuf ? buffer : NULL;
	if (dmabuf) {
		/* Read in place: held until another frame replaces it. */
		gl->on_screen = buffer;
	} else {
		/* Copied: ummsd has its memory back at once. */
		gl->counts.uploaded++;
		release_show(buffer);
	}
	if (!(gl->flags & UMMS_GL_MANUAL_PRESENTED))
		answer_presented(gl, target_ns);
	flush(gl);
	return &gl->frame;
}

void
umms_gl_presented(struct umms_gl *gl, int64_t when_ns)
{
	answer_presented(gl, when_ns);
	flush(gl);
}

void
umms_gl_get_counts(struct umms_gl *gl, struct umms_gl_counts *counts)
{
	*counts = gl->counts;
}
