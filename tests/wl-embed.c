/*
 * wl-embed: the application the compositor tests drive. A toplevel window of
 * a solid UI colour, with a frame drawn around a rectangle and a umms player
 * embedded in it through libumms-client.
 *
 *   wl-embed [--size WxH] [--rect X,Y,W,H] [--scale letterbox|fill|crop|none]
 *            [--player PATH] [--desync] [--below] [--crop X,Y,W,H] [--ui-delay MS]
 *            [--umms SOCKET] [--scaled-frames]
 *
 * Prints "window WxH drawn WxH" with each drawing of its own (a 1x1 buffer
 * where the video hides the window: umms_client_video_hides), "path
 * /org/umms/player/N" once the player exists, "frame N" after
 * the Nth frame committed to the video's surface (with what the compositor
 * said of them so far: headless sway says nothing), "size WxH" when the
 * picture's shape changes (with --scaled-frames, umms_client_video_set_scaled_frames,
 * the frames' size), "presented N flags 0xF"
 * when the compositor's count of frames shown grows (F: how the newest was
 * shown, umms_client_video_get_presented_flags), then reads commands on
 * stdin:
 *   rect X Y W H    move the video and redraw the frame around it, one commit;
 *                   with --ui-delay, says "moving" once the video's part is
 *                   sent and draws the frame MS later (a slow application)
 *   scale MODE      change the scale mode
 *   subtitles       answered "subtitles N received, N refused, N copied, N
 *                   attached" (umms_client_video_get_subtitle_counts)
 *   subtitles off   hide the subtitles (umms_client_video_set_subtitles)
 *   quit
 * Each command but subtitles is answered "ok" once committed.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <wayland-client.h>

#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

#define UI_COLOR 0xff808080u    /* the window */
#define FRAME_COLOR 0xffffff00u /* the frame around the video, 4 px wide */
#define FRAME 4

struct app {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct wl_buffer *buffer;   /* the UI's newest */
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	int width, height;
	int pending_width, pending_height; /* from the last xdg_toplevel.configure */
	bool configured;
	int rect[4];
	struct umms_client *client;
	struct umms_client_video *video;
	unsigned frames_reported;
	unsigned presented_reported;
	int ui_delay_ms;
	bool running;
};

static void
wm_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_listener = { .ping = wm_ping };

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct app *app = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		app->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(app->wm_base, &wm_listener, app);
	}
}

static void
registry_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_remove,
};

static void
buffer_release(void *data, struct wl_buffer *buffer)
{
	struct app *app = data;
	if (app->buffer == buffer)
		app->buffer = NULL;
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

/*
 * The UI: its colour everywhere, the frame just outside the video rectangle.
 * Where the video hides the whole window, one pixel: sway 1.7 would paint a
 * window-sized buffer under the video with every frame.
 */
static void
draw(struct app *app)
{
	bool hidden = umms_client_video_hides(app->video, 0, 0, app->width, app->height);
	int w = hidden ? 1 : app->width, h = hidden ? 1 : app->height;
	int stride = w * 4, size = stride * h;
	int fd = memfd_create("wl-embed", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0)
		exit(1);
	uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int x0 = app->rect[0] - FRAME, y0 = app->rect[1] - FRAME;
	int x1 = app->rect[0] + app->rect[2] + FRAME, y1 = app->rect[1] + app->rect[3] + FRAME;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			bool frame = x >= x0 && x < x1 && y >= y0 && y < y1 &&
				!(x >= app->rect[0] && x < x1 - FRAME && y >= app->rect[1] && y < y1 - FRAME);
			pixels[y * w + x] = frame ? FRAME_COLOR : UI_COLOR;
		}
	}
	munmap(pixels, (size_t)size);
	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h,
		stride, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, app);
	/* The one on screen is released when this one replaces it. */
	app->buffer = buffer;
	wl_surface_attach(app->surface, buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, w, h);
	printf("window %dx%d drawn %dx%d\n", app->width, app->height, w, h);
	fflush(stdout);
}

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	bool resize = app->pending_width > 0 && app->pending_height > 0 &&
		(app->pending_width != app->width || app->pending_height != app->height);
	if (resize) {
		app->width = app->pending_width;
		app->height = app->pending_height;
	}
	if (!app->configured || resize) {
		app->configured = true;
		draw(app);
		wl_surface_commit(app->surface);
	}
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	/*
	 * The size the compositor asks for, as a real application must take
	 * it: sway 1.7 damages the subsurfaces of a window smaller than its
	 * tile at the wrong place. 0x0 (weston, sway's first): --size.
	 */
	struct app *app = data;
	app->pending_width = width;
	app->pending_height = height;
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	((struct app *)data)->running = false;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void
video_ready(void *data, struct umms_client_video *video, const char *path)
{
	printf("path %s\n", path);
	fflush(stdout);
}

static void
video_failed(void *data, struct umms_client_video *video, const char *reason)
{
	printf("failed %s\n", reason);
	fflush(stdout);
	exit(1);
}

static void
video_size(void *data, struct umms_client_video *video, int width, int height)
{
	printf("size %dx%d\n", width, height);
	fflush(stdout);
}

static void
video_eos(void *data, struct umms_client_video *video)
{
	printf("eos\n");
	fflush(stdout);
}

static void
video_error(void *data, struct umms_client_video *video, const char *name, const char *message)
{
	printf("error %s %s\n", name, message);
	fflush(stdout);
}

static const struct umms_client_video_listener video_listener = {
	.ready = video_ready,
	.failed = video_failed,
	.size = video_size,
	.end_of_stream = video_eos,
	.error = video_error,
};

static bool
parse_scale(const char *text, enum umms_client_scale *scale)
{
	static const char *const names[] = { "letterbox", "fill", "crop", "none" };
	for (int i = 0; i < 4; i++) {
		if (strcmp(text, names[i]) == 0) {
			*scale = (enum umms_client_scale)i;
			return true;
		}
	}
	return false;
}

static void
report_frames(struct app *app)
{
	struct umms_client_video_counts counts;
	umms_client_video_get_counts(app->video, &counts);
	while (app->frames_reported < counts.committed) {
		printf("frame %u (%u presented, %u discarded, %u unanswered)\n",
			++app->frames_reported, counts.presented, counts.discarded, counts.unanswered);
		fflush(stdout);
	}
	if (app->presented_reported != counts.presented) {
		app->presented_reported = counts.presented;
		printf("presented %u flags 0x%x\n", counts.presented,
			umms_client_video_get_presented_flags(app->video));
		fflush(stdout);
	}
}

static void
command(struct app *app, char *line)
{
	int x, y, w, h;
	char mode[32];
	enum umms_client_scale scale;
	if (sscanf(line, "rect %d %d %d %d", &x, &y, &w, &h) == 4) {
		app->rect[0] = x;
		app->rect[1] = y;
		app->rect[2] = w;
		app->rect[3] = h;
		umms_client_video_set_rect(app->video, x, y, w, h);
		if (app->ui_delay_ms > 0) {
			/* A slow UI: the video's new place is sent, the UI follows later. */
			wl_display_flush(app->display);
			printf("moving\n");
			fflush(stdout);
			usleep((useconds_t)app->ui_delay_ms * 1000);
		}
		/* In sync mode, the video's new place lands with this commit of the UI. */
		draw(app);
		wl_surface_commit(app->surface);
	} else if (sscanf(line, "scale %31s", mode) == 1 && parse_scale(mode, &scale)) {
		umms_client_video_set_scale(app->video, scale);
		wl_surface_commit(app->surface);
	} else if (strncmp(line, "subtitles off", 13) == 0) {
		umms_client_video_set_subtitles(app->video, false, NULL);
	} else if (strncmp(line, "subtitles", 9) == 0) {
		struct umms_client_subtitle_counts counts;
		umms_client_video_get_subtitle_counts(app->video, &counts);
		printf("subtitles %u received, %u refused, %u copied, %u attached\n",
			counts.received, counts.refused, counts.copied, counts.attached);
		fflush(stdout);
		return;
	} else if (strncmp(line, "quit", 4) == 0) {
		app->running = false;
		return;
	} else {
		printf("? %s", line);
		fflush(stdout);
		return;
	}
	wl_display_flush(app->display);
	printf("ok\n");
	fflush(stdout);
}

int
main(int argc, char *argv[])
{
	struct app app = { .width = 640, .height = 360, .rect = { 40, 40, 320, 180 }, .running = true };
	enum umms_client_scale scale = UMMS_CLIENT_SCALE_LETTERBOX;
	const char *player = NULL, *umms = NULL;
	bool desync = false, below = false, scaled_frames = false;
	int crop[4] = { 0, 0, 0, 0 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
			sscanf(argv[++i], "%dx%d", &app.width, &app.height);
		else if (strcmp(argv[i], "--rect") == 0 && i + 1 < argc)
			sscanf(argv[++i], "%d,%d,%d,%d", &app.rect[0], &app.rect[1], &app.rect[2],
				&app.rect[3]);
		else if (strcmp(argv[i], "--crop") == 0 && i + 1 < argc)
			sscanf(argv[++i], "%d,%d,%d,%d", &crop[0], &crop[1], &crop[2], &crop[3]);
		else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc && parse_scale(argv[i + 1], &scale))
			i++;
		else if (strcmp(argv[i], "--player") == 0 && i + 1 < argc)
			player = argv[++i];
		else if (strcmp(argv[i], "--umms") == 0 && i + 1 < argc)
			umms = argv[++i];   /* ummsd's socket, or a test's stand-in */
		else if (strcmp(argv[i], "--desync") == 0)
			desync = true;
		else if (strcmp(argv[i], "--below") == 0)
			below = true;
		else if (strcmp(argv[i], "--scaled-frames") == 0)
			scaled_frames = true;
		else if (strcmp(argv[i], "--ui-delay") == 0 && i + 1 < argc)
			app.ui_delay_ms = atoi(argv[++i]);
		else {
			fprintf(stderr, "wl-embed: bad argument %s\n", argv[i]);
			return 2;
		}
	}

	app.display = wl_display_connect(NULL);
	if (!app.display) {
		fprintf(stderr, "wl-embed: no compositor: %s\n", strerror(errno));
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(app.display);
	if (!app.compositor || !app.shm || !app.wm_base) {
		fprintf(stderr, "wl-embed: compositor lacks wl_compositor, wl_shm or xdg_wm_base\n");
		return 1;
	}
	app.surface = wl_compositor_create_surface(app.compositor);
	app.xdg_surface = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(app.xdg_surface, &xdg_surface_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.xdg_surface);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, "wl-embed");
	wl_surface_commit(app.surface);

	app.client = umms_client_connect(app.display, umms);
	if (!app.client) {
		fprintf(stderr, "wl-embed: cannot reach ummsd: %s\n", strerror(errno));
		return 1;
	}
	app.video = umms_client_video_create(app.client, app.surface, player);
	umms_client_video_set_listener(app.video, &video_listener, &app);
	umms_client_video_set_scaled_frames(app.video, scaled_frames);
	umms_client_video_set_scale(app.video, scale);
	umms_client_video_set_sync(app.video, !desync);
	if (below)
		umms_client_video_set_stacking(app.video, UMMS_CLIENT_BELOW);
	if (crop[2] > 0)
		umms_client_video_set_source_crop(app.video, crop[0], crop[1], crop[2], crop[3]);
	while (!app.configured && wl_display_dispatch(app.display) >= 0)
		;
	umms_client_video_set_rect(app.video, app.rect[0], app.rect[1], app.rect[2], app.rect[3]);
	if (umms_client_video_hides(app.video, 0, 0, app.width, app.height))
		draw(&app);
	wl_surface_commit(app.surface);
	wl_display_flush(app.display);

	/*
	 * Unbuffered: a line fgets() left in stdio's buffer would wait for the
	 * next wake-up, and nothing wakes this loop but its descriptors.
	 */
	setvbuf(stdin, NULL, _IONBF, 0);
	char line[256];
	while (app.running) {
		struct pollfd fds[3] = {
			{ .fd = wl_display_get_fd(app.display), .events = POLLIN },
			{ .fd = umms_client_get_fd(app.client), .events = POLLIN },
			{ .fd = STDIN_FILENO, .events = POLLIN },
		};
		while (wl_display_prepare_read(app.display) != 0)
			wl_display_dispatch_pending(app.display);
		/* What the socket did not take goes when it can: POLLOUT, not a timeout. */
		if (wl_display_flush(app.display) < 0 && errno == EAGAIN)
			fds[0].events |= POLLOUT;
		/* No timeout: an application that waits for nothing wakes for nothing. */
		if (poll(fds, 3, -1) < 0 && errno != EINTR) {
			wl_display_cancel_read(app.display);
			break;
		}
		if (fds[0].revents & POLLIN) {
			if (wl_display_read_events(app.display) < 0)
				break;
		} else {
			wl_display_cancel_read(app.display);
		}
		wl_display_dispatch_pending(app.display);
		if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (umms_client_dispatch(app.client) < 0) {
				fprintf(stderr, "wl-embed: ummsd went away\n");
				break;
			}
		}
		report_frames(&app);
		if (fds[2].revents & (POLLIN | POLLHUP)) {
			if (!fgets(line, sizeof(line), stdin))
				break;
			command(&app, line);
		}
	}
	umms_client_video_destroy(app.video);
	umms_client_disconnect(app.client);
	xdg_toplevel_destroy(app.toplevel);
	xdg_surface_destroy(app.xdg_surface);
	wl_surface_destroy(app.surface);
	if (app.buffer)
		wl_buffer_destroy(app.buffer);
	xdg_wm_base_destroy(app.wm_base);
	wl_shm_destroy(app.shm);
	wl_compositor_destroy(app.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(app.display);
	return 0;
}
