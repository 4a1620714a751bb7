/*
 * umms-embed: video as one part of an application's own UI, to read top to
 * bottom.
 *
 *   umms-embed [--seconds N] FILE-OR-URI
 *
 * The application draws a mock TV programme guide (header bar, time ruler,
 * channels, programmes) and shows the media, looping, in a rectangle of it
 * with a 4 px frame the application draws itself. Every second the rectangle
 * jumps to the next of four places and sizes, to show that the video stays
 * glued to the UI. It runs N seconds, or until the window is closed.
 *
 * Why the glue matters (users' complaint #1: "the video lags behind the
 * UI"): the application draws its frame, ummsd's frames come from another
 * process. If the video moved on its own clock, the screen would show the
 * frame at the new place around the video at the old one, or the reverse,
 * for a frame or more: the video visibly trails every animation. In
 * libumms-client's synchronized mode (the default) the new rectangle is
 * pending state of the application's surface, like its buffer: one
 * wl_surface_commit() puts both on screen in the same compositor frame.
 *
 * Unlike umms-play, which runs GLib's main loop with Wayland as event
 * sources, this program has its own poll() loop, as many applications and
 * toolkits do, and runs GLib's main context (where GDBus delivers replies)
 * from it. See "The main loop" below.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gio.h>
#include <wayland-client.h>

#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

#define SERVICE "org.umms.Service1"
#define PLAYER "org.umms.Player1"

/* The window has a fixed size; the guide is laid out for it. */
#define WIDTH 960
#define HEIGHT 600
#define FRAME 4 /* the frame around the video, drawn by us */

/* The four places the video visits in turn, 16:9 each (x, y, width, height). */
static const int places[4][4] = {
	{ 616, 96, 320, 180 },  /* the preview corner of the guide */
	{ 120, 120, 480, 270 }, /* large, over the schedule */
	{ 600, 380, 256, 144 }, /* small, lower right */
	{ 40, 300, 384, 216 },  /* lower left */
};

struct app {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	bool configured;
	int place;                     /* index in places[] */

	struct umms_client *umms;
	struct umms_client_video *video;
	GDBusConnection *bus;
	char *path;                    /* the player's D-Bus path, once ready */
	char *uri;

	bool running;
	int status;
};

static void
stop(struct app *app, int status)
{
	if (status)
		app->status = status;
	app->running = false;
}

/* ---- drawing the guide ------------------------------------------------------- */

/*
 * Colours, XRGB8888. The X byte is set to ff: compositors ignore it, but
 * some screenshot paths (weston's) copy it as alpha.
 */
#define BACKGROUND 0xff0f1620
#define HEADER 0xff1c2b3f
#define ACCENT 0xffe8772e
#define TEXT_DIM 0xff5b6b80            /* bars standing in for text */
#define TEXT_LIGHT 0xffc9d3df
#define ROW 0xff16202d
#define NOW_LINE 0xffd83a3a
#define FRAME_COLOR 0xffe8eef5
static const uint32_t genres[] = {
	0xff2f5d8a, /* news */
	0xff3c7d4a, /* sport */
	0xff6a4c93, /* film */
	0xffa07a28, /* children */
	0xff2a7f7f, /* documentary */
};

static void
fill(uint32_t *pixels, int x, int y, int width, int height, uint32_t color)
{
	int x1 = MIN(x + width, WIDTH), y1 = MIN(y + height, HEIGHT);
	for (int row = MAX(y, 0); row < y1; row++) {
		for (int col = MAX(x, 0); col < x1; col++)
			pixels[row * WIDTH + col] = color;
	}
}

/* A colour a bit lighter (for the "title" bars on a programme). */
static uint32_t
lighter(uint32_t color)
{
	uint32_t out = color & 0xff000000;
	for (int shift = 0; shift < 24; shift += 8) {
		uint32_t c = (color >> shift) & 0xff;
		out |= (c + (255 - c) / 3) << shift;
	}
	return out;
}

static void
draw_guide(uint32_t *pixels)
{
	fill(pixels, 0, 0, WIDTH, HEIGHT, BACKGROUND);

	/* The header: a logo, three menu entries, the clock on the right. */
	fill(pixels, 0, 0, WIDTH, 56, HEADER);
	fill(pixels, 16, 12, 32, 32, ACCENT);
	for (int i = 0; i < 3; i++)
		fill(pixels, 72 + i * 110, 24, 84, 8, i == 0 ? TEXT_LIGHT : TEXT_DIM);
	fill(pixels, WIDTH - 96, 22, 72, 12, TEXT_LIGHT);

	/* The time ruler: a tick each half hour (120 px). */
	for (int x = 104; x + 48 < WIDTH - 16; x += 120) {
		fill(pixels, x, 66, 2, 16, TEXT_DIM);
		fill(pixels, x + 8, 70, 40, 6, TEXT_DIM);
	}

	/* Eight channels: a logo cell, then the programmes in the channel's row. */
	static const int lengths[] = { 60, 90, 120, 150, 180, 240 };
	for (int channel = 0; channel < 8; channel++) {
		int y = 92 + channel * 63;
		fill(pixels, 16, y, 80, 58, ROW);
		fill(pixels, 38, y + 11, 36, 36, genres[(channel * 3 + 1) % 5]);
		int x = 104;
		for (int i = 0; x < WIDTH - 16; i++) {
			/* A fixed pseudo-random schedule: the same at every redraw. */
			int length = lengths[(channel * 7 + i * 3) % 6];
			int width = MIN(length, WIDTH - 16 - x) - 4;
			uint32_t color = genres[(channel * 5 + i * 2) % 5];
			fill(pixels, x, y, width, 58, color);
			fill(pixels, x + 8, y + 12, width * 3 / 5, 8, lighter(color));
			fill(pixels, x + 8, y + 30, width * 2 / 5, 6, lighter(lighter(color)));
			x += length;
		}
	}
	/* Now: a red line across the schedule. */
	fill(pixels, 104 + 290, 62, 2, HEIGHT - 62, NOW_LINE);
}

static void
buffer_release(void *data, struct wl_buffer *buffer)
{
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

/* The whole UI, with the frame just outside the video's rectangle @r. */
static void
draw(struct app *app, const int r[4])
{
	int stride = WIDTH * 4, size = stride * HEIGHT;
	int fd = memfd_create("umms-embed", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0) {
		fprintf(stderr, "umms-embed: no memory for the window: %s\n", strerror(errno));
		exit(1);
	}
	uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		fprintf(stderr, "umms-embed: cannot map the window: %s\n", strerror(errno));
		exit(1);
	}
	draw_guide(pixels);
	/* The frame: four bands around the rectangle; the video covers the inside. */
	fill(pixels, r[0] - FRAME, r[1] - FRAME, r[2] + 2 * FRAME, FRAME, FRAME_COLOR);
	fill(pixels, r[0] - FRAME, r[1] + r[3], r[2] + 2 * FRAME, FRAME, FRAME_COLOR);
	fill(pixels, r[0] - FRAME, r[1], FRAME, r[3], FRAME_COLOR);
	fill(pixels, r[0] + r[2], r[1], FRAME, r[3], FRAME_COLOR);
	munmap(pixels, (size_t)size);

	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, WIDTH, HEIGHT, stride,
		WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	wl_surface_attach(app->surface, buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, WIDTH, HEIGHT);
}

/*
 * The heart of the demo: the UI with the frame at the new place, the video's
 * new rectangle, and ONE commit of our surface that applies both. In
 * synchronized mode set_rect only records pending state; nothing moves on
 * screen until this commit, and then everything moves together.
 */
static void
move_video(struct app *app)
{
	const int *r = places[app->place];
	draw(app, r);
	umms_client_video_set_rect(app->video, r[0], r[1], r[2], r[3]);
	wl_surface_commit(app->surface);
}

/* Each second: the next place. */
static gboolean
next_place(gpointer data)
{
	struct app *app = data;
	if (app->configured) {
		app->place = (app->place + 1) % 4;
		move_video(app);
	}
	return G_SOURCE_CONTINUE;
}

static gboolean
time_is_up(gpointer data)
{
	stop(data, 0);
	return G_SOURCE_REMOVE;
}

/* ---- the window ------------------------------------------------------------------- */

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	if (!app->configured) {
		/* The first configure: now we may show the window, video included. */
		app->configured = true;
		move_video(app);
	} else {
		/* Later ones (focus, say) change nothing we draw: the ack needs a commit. */
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
	/* Our size whatever is suggested: the guide is laid out for WIDTH x HEIGHT. */
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	stop(data, 0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
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
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		app->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(app->wm_base, &wm_listener, app);
	}
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* ---- the player: D-Bus calls and the library's events ---------------------------- */

/*
 * Asynchronous calls, so the UI keeps moving while ummsd works. A call that
 * must wait for the previous one (Play after SetUri) is made from its reply;
 * @then names it. An error from ummsd ends the program.
 */
struct call {
	struct app *app;
	const char *then;
};

static void player_call(struct app *app, const char *method, GVariant *args, const char *then);

static void
call_done(GObject *bus, GAsyncResult *result, gpointer data)
{
	struct call *call = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (!reply) {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-embed: %s (%s)\n", error->message,
			name ? name : "no D-Bus error name");
		g_error_free(error);
		stop(call->app, 1);
	} else {
		g_variant_unref(reply);
		if (call->then)
			player_call(call->app, call->then, NULL, NULL);
	}
	g_free(call);
}

static void
player_call(struct app *app, const char *method, GVariant *args, const char *then)
{
	struct call *call = g_new(struct call, 1);
	*call = (struct call){ .app = app, .then = then };
	/* 30 s: SetUri replies once the media is open, slow on a network. */
	g_dbus_connection_call(app->bus, SERVICE, app->path, PLAYER, method, args, NULL,
		G_DBUS_CALL_FLAGS_NONE, 30000, NULL, call_done, call);
}

static void
video_ready(void *data, struct umms_client_video *video, const char *path)
{
	struct app *app = data;
	app->path = g_strdup(path);
	printf("player %s playing %s\n", path, app->uri);
	fflush(stdout);
	player_call(app, "SetUri", g_variant_new("(s)", app->uri), "Play");
}

static void
video_failed(void *data, struct umms_client_video *video, const char *reason)
{
	fprintf(stderr, "umms-embed: no player: %s\n", reason);
	stop(data, 1);
}

/* Looping: back to the start and play again. */
static void
video_end_of_stream(void *data, struct umms_client_video *video)
{
	struct app *app = data;
	player_call(app, "SetPosition", g_variant_new("(x)", (gint64)0), "Play");
}

static void
video_error(void *data, struct umms_client_video *video, const char *name, const char *message)
{
	fprintf(stderr, "umms-embed: playback failed: %s (%s)\n", message, name);
	stop(data, 1);
}

static const struct umms_client_video_listener video_listener = {
	.ready = video_ready,
	.failed = video_failed,
	.end_of_stream = video_end_of_stream,
	.error = video_error,
};

/* ---- the main loop ---------------------------------------------------------------- */

/*
 * One poll() over three kinds of fds: the compositor's, ummsd's, and those
 * GLib's main context wants (GDBus replies and our timers wake it). Each
 * turn:
 *  1. Wayland: dispatch what is already queued, announce a read
 *     (prepare_read), flush our requests;
 *  2. GLib: prepare its sources, ask for its fds and timeout (query);
 *  3. poll() them all;
 *  4. read Wayland events (or cancel the read) and dispatch them; let the
 *     library handle ummsd's socket; let GLib check and dispatch.
 * Nothing spins: poll() sleeps until a socket speaks or a GLib timer is due.
 */
static void
run(struct app *app)
{
	GMainContext *context = g_main_context_default();
	g_main_context_acquire(context);
	int capacity = 8;
	GPollFD *fds = g_new(GPollFD, capacity);
	while (app->running) {
		while (wl_display_prepare_read(app->display) != 0)
			wl_display_dispatch_pending(app->display);
		wl_display_flush(app->display);

		int priority, timeout, n;
		g_main_context_prepare(context, &priority);
		/* fds[0] and fds[1] are ours; GLib's go after them. */
		while ((n = g_main_context_query(context, priority, &timeout, fds + 2,
				capacity - 2)) > capacity - 2) {
			capacity = n + 2;
			fds = g_renew(GPollFD, fds, capacity);
		}
		fds[0] = (GPollFD){ .fd = wl_display_get_fd(app->display), .events = G_IO_IN };
		fds[1] = (GPollFD){ .fd = umms_client_get_fd(app->umms), .events = G_IO_IN };
		if (g_poll(fds, (guint)n + 2, timeout) < 0 && errno != EINTR) {
			wl_display_cancel_read(app->display);
			break;
		}

		if (fds[0].revents & G_IO_IN) {
			if (wl_display_read_events(app->display) < 0) {
				fprintf(stderr, "umms-embed: lost the compositor\n");
				stop(app, 1);
				break;
			}
		} else {
			wl_display_cancel_read(app->display);
		}
		wl_display_dispatch_pending(app->display);
		if (fds[1].revents && umms_client_dispatch(app->umms) < 0) {
			fprintf(stderr, "umms-embed: ummsd went away\n");
			stop(app, 1);
			break;
		}
		if (g_main_context_check(context, priority, fds + 2, n))
			g_main_context_dispatch(context);
	}
	g_free(fds);
	g_main_context_release(context);
}

int
main(int argc, char *argv[])
{
	struct app app = { .running = true };
	int seconds = 0;
	GOptionEntry options[] = {
		{ "seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Run N seconds (default: until closed)",
			"N" },
		{ NULL },
	};
	g_autoptr(GOptionContext) context = g_option_context_new("FILE-OR-URI");
	g_option_context_add_main_entries(context, options, NULL);
	GError *error = NULL;
	if (!g_option_context_parse(context, &argc, &argv, &error) || argc != 2) {
		fprintf(stderr, "umms-embed: %s\n", error ? error->message :
			"usage: umms-embed [OPTION...] FILE-OR-URI");
		return 2;
	}
	g_autoptr(GFile) file = g_file_new_for_commandline_arg(argv[1]);
	app.uri = g_file_get_uri(file);

	/* The session bus, where ummsd's players are. */
	app.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!app.bus) {
		fprintf(stderr, "umms-embed: no session bus: %s\n", error->message);
		return 1;
	}

	/* The compositor and our window, WIDTH x HEIGHT and not resizable. */
	app.display = wl_display_connect(NULL);
	if (!app.display) {
		fprintf(stderr, "umms-embed: no Wayland compositor: %s\n", strerror(errno));
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(app.display);
	if (!app.compositor || !app.shm || !app.wm_base) {
		fprintf(stderr, "umms-embed: the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n");
		return 1;
	}
	app.surface = wl_compositor_create_surface(app.compositor);
	app.xdg_surface = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(app.xdg_surface, &xdg_surface_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.xdg_surface);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, "umms-embed");
	xdg_toplevel_set_app_id(app.toplevel, "org.umms.Embed");
	xdg_toplevel_set_min_size(app.toplevel, WIDTH, HEIGHT);
	xdg_toplevel_set_max_size(app.toplevel, WIDTH, HEIGHT);
	wl_surface_commit(app.surface);

	/* ummsd, and a player of our own shown in our surface. */
	app.umms = umms_client_connect(app.display, NULL);
	if (!app.umms) {
		fprintf(stderr, "umms-embed: cannot reach ummsd's video socket: %s\n",
			strerror(errno));
		return 1;
	}
	app.video = umms_client_video_create(app.umms, app.surface, NULL);
	umms_client_video_set_listener(app.video, &video_listener, &app);

	g_timeout_add(1000, next_place, &app);
	if (seconds > 0)
		g_timeout_add_seconds((guint)seconds, time_is_up, &app);
	run(&app);

	/*
	 * Destroying the video destroys our player in ummsd too (exiting would
	 * do it as well); the rest goes with the process.
	 */
	umms_client_video_destroy(app.video);
	umms_client_disconnect(app.umms);
	wl_display_disconnect(app.display);
	return app.status;
}
