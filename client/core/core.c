/*
 * The umms_video_v1 core: the connection to ummsd and one player's events
 * (core.h). Buffers are in core-buffer.c, the due-frame queue in
 * core-queue.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "socket-name.h"

/* ---- the connection ---------------------------------------------------------- */

struct bind_request {
	struct umms_core *core;
	uint32_t min_version, max_version;
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct bind_request *request = data;
	if (strcmp(interface, umms_video_manager_v1_interface.name) != 0 ||
			version < request->min_version || request->core->manager)
		return;
	request->core->manager = wl_registry_bind(registry, name, &umms_video_manager_v1_interface,
		version < request->max_version ? version : request->max_version);
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

bool
umms_core_connect(struct umms_core *core, const char *name, uint32_t min_version,
	uint32_t max_version)
{
	*core = (struct umms_core){ .own_display = true };
	core->display = wl_display_connect(umms_socket_name(name));
	if (!core->display)
		return false;
	struct bind_request request = { core, min_version, max_version };
	struct wl_registry *registry = wl_display_get_registry(core->display);
	wl_registry_add_listener(registry, &registry_listener, &request);
	int ret = wl_display_roundtrip(core->display);
	wl_registry_destroy(registry);
	if (ret >= 0 && core->manager)
		return true;
	int saved = ret < 0 ? errno : EPROTONOSUPPORT;
	umms_core_finish(core);
	errno = saved;
	return false;
}

void
umms_core_init_direct(struct umms_core *core, struct wl_display *display,
	struct umms_video_manager_v1 *manager)
{
	*core = (struct umms_core){ .display = display, .manager = manager };
}

void
umms_core_finish(struct umms_core *core)
{
	if (core->manager)
		umms_video_manager_v1_destroy(core->manager);
	core->manager = NULL;
	if (core->display) {
		if (core->own_display)
			wl_display_disconnect(core->display);
		else
			wl_display_flush(core->display);
	}
	core->display = NULL;
}

int
umms_core_dispatch(struct umms_core *core)
{
	struct wl_display *display = core->display;
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
	/* Answers sent from the handlers (discarded frames, releases) go out now. */
	return wl_display_flush(display) < 0 && errno != EAGAIN ? -1 : 0;
}

void
umms_core_flush(struct umms_core *core)
{
	wl_display_flush(core->display);
}

/* ---- time ------------------------------------------------------------------------ */

int64_t
umms_core_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
umms_core_to_monotonic(clockid_t clock, int64_t when_ns)
{
	if (clock == CLOCK_MONOTONIC)
		return when_ns;
	struct timespec theirs, ours;
	clock_gettime(clock, &theirs);
	clock_gettime(CLOCK_MONOTONIC, &ours);
	return when_ns + (ours.tv_sec - theirs.tv_sec) * 1000000000LL +
		(ours.tv_nsec - theirs.tv_nsec);
}

static int64_t
split_ns(uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec)
{
	return (int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec);
}

/* ---- the player's events ----------------------------------------------------------- */

static void
player_path(void *data, struct umms_video_player_v1 *player, const char *path)
{
	struct umms_core_video *video = data;
	free(video->path);
	video->path = strdup(path);
	if (video->impl->path)
		video->impl->path(video, path);
}

static void
player_failed(void *data, struct umms_video_player_v1 *player, const char *reason)
{
	struct umms_core_video *video = data;
	video->gone = true;
	if (video->impl->failed)
		video->impl->failed(video, reason);
}

static void
player_geometry(void *data, struct umms_video_player_v1 *player, int32_t width, int32_t height,
	int32_t crop_x, int32_t crop_y, int32_t crop_width, int32_t crop_height, uint32_t par_n,
	uint32_t par_d)
{
	struct umms_core_video *video = data;
	video->geometry = (struct umms_core_geometry){
		.width = width, .height = height,
		.crop_x = crop_x, .crop_y = crop_y, .crop_width = crop_width,
		.crop_height = crop_height,
		.par_n = par_n ? par_n : 1, .par_d = par_d ? par_d : 1,
	};
	video->have_geometry = true;
	if (video->impl->geometry)
		video->impl->geometry(video);
}

static void
player_buffer(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *id,
	uint32_t kind, uint32_t format, int32_t width, int32_t height, uint32_t modifier_hi,
	uint32_t modifier_lo)
{
	umms_core_buffer_create(data, id, kind, format, width, height,
		(uint64_t)modifier_hi << 32 | modifier_lo);
}

static void
player_show(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *proxy,
	uint32_t serial, uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec)
{
	struct umms_core_video *video = data;
	struct umms_core_buffer *buffer = proxy ? umms_video_buffer_v1_get_user_data(proxy) : NULL;
	if (!buffer)
		return;
	buffer->shows++;
	video->counts.received++;
	/* Memory that failed its checks is never read: the frame is lost, said so. */
	if (!buffer->valid || !video->impl->show) {
		umms_core_video_skip(video, buffer, serial);
		return;
	}
	video->impl->show(video, buffer, serial, split_ns(tv_sec_hi, tv_sec_lo, tv_nsec));
}

static void
player_end_of_stream(void *data, struct umms_video_player_v1 *player)
{
	struct umms_core_video *video = data;
	if (video->impl->end_of_stream)
		video->impl->end_of_stream(video);
}

static void
player_clear(void *data, struct umms_video_player_v1 *player)
{
	struct umms_core_video *video = data;
	if (video->impl->clear)
		video->impl->clear(video);
}

static void
player_error(void *data, struct umms_video_player_v1 *player, const char *name,
	const char *message)
{
	struct umms_core_video *video = data;
	if (strcmp(name, "org.umms.Error.NotFound") == 0) {
		/*
		 * The player was destroyed: ummsd took back every show we held,
		 * so none may be released now (a release without a show is a
		 * protocol error). No more frames come.
		 */
		video->gone = true;
		struct umms_core_buffer *buffer;
		wl_list_for_each(buffer, &video->buffers, link)
			buffer->shows = 0;
	}
	if (video->impl->error)
		video->impl->error(video, name, message);
}

static void
player_subpicture(void *data, struct umms_video_player_v1 *player, int32_t fd, uint32_t serial,
	int32_t x, int32_t y, int32_t width, int32_t height, uint32_t stride,
	int32_t picture_width, int32_t picture_height)
{
	umms_core_video_set_subpicture(data, fd, serial, x, y, width, height, stride,
		picture_width, picture_height);
}

static void
player_subpicture_clear(void *data, struct umms_video_player_v1 *player)
{
	umms_core_video_set_subpicture(data, -1, 0, 0, 0, 0, 0, 0, 0, 0);
}

static void
player_cue(void *data, struct umms_video_player_v1 *player, const char *text)
{
	struct umms_core_video *video = data;
	if (video->impl->cue)
		video->impl->cue(video, text);
}

static const struct umms_video_player_v1_listener player_listener = {
	.path = player_path,
	.failed = player_failed,
	.geometry = player_geometry,
	.buffer = player_buffer,
	.show = player_show,
	.end_of_stream = player_end_of_stream,
	.clear = player_clear,
	.error = player_error,
	.subpicture = player_subpicture,
	.subpicture_clear = player_subpicture_clear,
	.cue = player_cue,
};

/* ---- the player ------------------------------------------------------------------ */

struct umms_core_video *
umms_core_video_create(struct umms_core *core, const char *player_path,
	const struct umms_core_video_impl *impl, void *data)
{
	struct umms_core_video *video = calloc(1, sizeof(*video));
	if (!video)
		return NULL;
	video->core = core;
	video->impl = impl;
	video->data = data;
	video->geometry.par_n = video->geometry.par_d = 1;
	wl_list_init(&video->buffers);
	if (player_path)
		video->player = umms_video_manager_v1_attach(core->manager, player_path);
	else
		video->player = umms_video_manager_v1_create_player(core->manager);
	umms_video_player_v1_add_listener(video->player, &player_listener, video);
	umms_core_flush(core);
	return video;
}

void
umms_core_video_destroy(struct umms_core_video *video)
{
	if (!video)
		return;
	struct umms_core_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &video->buffers, link)
		umms_core_buffer_destroy(buffer);
	/* Releases, on ummsd's side, every show still held. */
	umms_video_player_v1_destroy(video->player);
	umms_core_flush(video->core);
	umms_core_subpicture_unref(video->subpicture);
	free(video->path);
	free(video);
}

void
umms_core_video_presented(struct umms_core_video *video, uint32_t serial, int64_t when_ns,
	uint32_t refresh_ns, uint32_t flags)
{
	video->counts.presented++;
	uint64_t seconds = (uint64_t)when_ns / 1000000000;
	umms_video_player_v1_presented(video->player, serial, (uint32_t)(seconds >> 32),
		(uint32_t)seconds, (uint32_t)((uint64_t)when_ns % 1000000000), refresh_ns, flags);
	umms_core_flush(video->core);
}

void
umms_core_video_discarded(struct umms_core_video *video, uint32_t serial)
{
	video->counts.discarded++;
	umms_video_player_v1_discarded(video->player, serial);
	umms_core_flush(video->core);
}

void
umms_core_video_skip(struct umms_core_video *video, struct umms_core_buffer *buffer,
	uint32_t serial)
{
	umms_core_video_discarded(video, serial);
	umms_core_buffer_release(buffer, 1);
}

void
umms_core_video_set_size(struct umms_core_video *video, int width, int height)
{
	if (umms_video_player_v1_get_version(video->player) <
			UMMS_VIDEO_PLAYER_V1_SET_SIZE_SINCE_VERSION)
		return;
	umms_video_player_v1_set_size(video->player, width, height);
	umms_core_flush(video->core);
}

void
umms_core_video_set_subtitles(struct umms_core_video *video, uint32_t subtitles)
{
	if (umms_video_player_v1_get_version(video->player) <
			UMMS_VIDEO_PLAYER_V1_SET_SUBTITLES_SINCE_VERSION)
		return;
	if (!(subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE))
		umms_core_video_set_subpicture(video, -1, 0, 0, 0, 0, 0, 0, 0, 0);
	umms_video_player_v1_set_subtitles(video->player, subtitles);
	umms_core_flush(video->core);
}
