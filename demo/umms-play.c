/*
 * umms-play: a video player window, to read top to bottom.
 *
 *   umms-play [--fullscreen] [--loop] [--screenshot-after SECONDS] FILE-OR-URI
 *
 * A Wayland toplevel window whose whole surface is the video (letterboxed,
 * black bars). Keys: space play/pause, Left/Right seek -5/+5 s, Up/Down
 * volume, f fullscreen, q or Escape quit. It exits when the window is closed
 * or at the end of the media (unless --loop). --screenshot-after takes a
 * screenshot of the screen (weston-screenshooter, or grim on wlroots
 * compositors) after SECONDS and exits.
 *
 * Two connections, two jobs:
 *
 *  - libumms-client (client/umms-client.h) shows the picture: it asks ummsd
 *    for a player over ummsd's own Wayland-style socket and puts its frames
 *    on subsurfaces of our window. The player belongs to that connection:
 *    when we exit, ummsd destroys it.
 *  - D-Bus (protocol/org.umms.Player1.xml) drives the player: SetUri, Play,
 *    Seek, Volume... at the object path the library hands us in `ready`.
 *
 * The program runs GLib's main loop (GDBus delivers its replies there), and
 * Wayland joins it as two event sources: one for the compositor's socket,
 * one for ummsd's. See "The main loop" below. Numbered comments (1. to 6.)
 * follow what happens in order; callbacks come before their users.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

#include "demo-keys.h"
#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

#define SERVICE "org.umms.Service1"
#define PLAYER "org.umms.Player1"
#define PROPERTIES "org.freedesktop.DBus.Properties"
#define SEEK_STEP (5 * G_USEC_PER_SEC) /* D-Bus times are microseconds */

struct app {
	/* The compositor's globals. */
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct demo_keys *keys;        /* NULL on a compositor without input (headless) */

	/* Our window. */
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	int width, height;             /* what is drawn now; 0 before the first configure */
	int pending_width, pending_height; /* from the last xdg_toplevel.configure */
	int windowed_width, windowed_height; /* our size when not fullscreen */
	bool fullscreen, pending_fullscreen;
	bool mapped;                   /* its first buffer, the whole window, was committed */

	/* The video and the player behind it. */
	struct umms_client *umms;
	struct umms_client_video *video;
	guint umms_watch;              /* ummsd's socket in the main loop; 0 once gone */
	GDBusConnection *bus;
	char *path;                    /* the player's D-Bus object path, once ready */
	char *uri;
	bool loop;
	double volume;                 /* read with the media's properties, then ours */

	GMainLoop *main_loop;
	int status;                    /* the exit status */
};

static void
quit(struct app *app, int status)
{
	if (status)
		app->status = status;
	g_main_loop_quit(app->main_loop);
}

/* ---- D-Bus: driving the player ---------------------------------------------- */

/*
 * Every call is asynchronous: the reply comes back through the main loop, so
 * the window keeps answering the compositor meanwhile (SetUri can take a
 * second). @done gets the reply; an error from ummsd ends the program here.
 */
typedef void (*reply_fn)(struct app *app, GVariant *reply);

struct call {
	struct app *app;
	const char *what;              /* the method, for error messages */
	reply_fn done;
};

static void
call_done(GObject *bus, GAsyncResult *result, gpointer data)
{
	struct call *call = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (!reply) {
		/* ummsd's errors have a name for programs and a message for people. */
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-play: %s: %s (%s)\n", call->what, error->message,
			name ? name : "no D-Bus error name");
		g_error_free(error);
		quit(call->app, 1);
	} else {
		if (call->done)
			call->done(call->app, reply);
		g_variant_unref(reply);
	}
	g_free(call);
}

static void
player_call(struct app *app, const char *iface, const char *method, GVariant *args,
	reply_fn done)
{
	struct call *call = g_new(struct call, 1);
	*call = (struct call){ .app = app, .what = method, .done = done };
	/* 30 s: SetUri replies once the media is open, slow on a network. */
	g_dbus_connection_call(app->bus, SERVICE, app->path, iface, method, args, NULL,
		G_DBUS_CALL_FLAGS_NONE, 30000, NULL, call_done, call);
}

/* 4. What ummsd found in the media, all properties at once (GetAll). */
static void
print_media(struct app *app, GVariant *reply)
{
	g_autoptr(GVariant) props = g_variant_get_child_value(reply, 0);
	const char *container = "?";
	g_variant_lookup(props, "Container", "&s", &container);
	g_variant_lookup(props, "Volume", "d", &app->volume);
	printf("playing %s (%s)\n", app->uri, container);
	g_autoptr(GVariant) tracks = g_variant_lookup_value(props, "VideoTracks", NULL);
	for (gsize i = 0; tracks && i < g_variant_n_children(tracks); i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		const char *codec = "?";
		int width = 0, height = 0;
		double framerate = 0;
		g_variant_lookup(track, "codec", "&s", &codec);
		g_variant_lookup(track, "width", "i", &width);
		g_variant_lookup(track, "height", "i", &height);
		g_variant_lookup(track, "framerate", "d", &framerate);
		printf("  video %zu: %s %dx%d %.2f fps\n", i, codec, width, height, framerate);
	}
	fflush(stdout);
}

/* 3. The media is open (SetUri replied): show what it is and play it. */
static void
uri_set(struct app *app, GVariant *reply)
{
	player_call(app, PROPERTIES, "GetAll", g_variant_new("(s)", PLAYER), print_media);
	player_call(app, PLAYER, "Play", NULL, NULL);
}

/* Space: read State, then ask for the other one. */
static void
toggle_with_state(struct app *app, GVariant *reply)
{
	g_autoptr(GVariant) state = NULL;
	g_variant_get(reply, "(v)", &state);
	bool playing = g_strcmp0(g_variant_get_string(state, NULL), "playing") == 0;
	player_call(app, PLAYER, playing ? "Pause" : "Play", NULL, NULL);
}

/* Up/Down: a property with write access is set through Properties.Set. */
static void
change_volume(struct app *app, double step)
{
	/* Volume is 0.0 to 1.0; ummsd refuses anything else. */
	app->volume = CLAMP(app->volume + step, 0.0, 1.0);
	player_call(app, PROPERTIES, "Set",
		g_variant_new("(ssv)", PLAYER, "Volume", g_variant_new_double(app->volume)), NULL);
	printf("volume %.1f\n", app->volume);
	fflush(stdout);
}

/* ---- libumms-client: the picture and the player's life ---------------------- */

/* 2. The player exists: open the media on it. */
static void
video_ready(void *data, struct umms_client_video *video, const char *path)
{
	struct app *app = data;
	app->path = g_strdup(path);
	printf("player %s\n", path);
	fflush(stdout);
	player_call(app, PLAYER, "SetUri", g_variant_new("(s)", app->uri), uri_set);
}

static void
video_failed(void *data, struct umms_client_video *video, const char *reason)
{
	fprintf(stderr, "umms-play: no player: %s\n", reason);
	quit(data, 1);
}

/*
 * The end, and playback errors, come both as D-Bus signals (Eos, Error) and
 * through the library; a program that shows the video has the library's at
 * hand, so it needs no signal subscription.
 */
static void
video_end_of_stream(void *data, struct umms_client_video *video)
{
	struct app *app = data;
	if (!app->loop) {
		quit(app, 0);
		return;
	}
	/* After Eos the player is "stopped", at position 0: Play starts over. */
	player_call(app, PLAYER, "Play", NULL, NULL);
}

static void
video_error(void *data, struct umms_client_video *video, const char *name, const char *message)
{
	fprintf(stderr, "umms-play: playback failed: %s (%s)\n", message, name);
	quit(data, 1);
}

static const struct umms_client_video_listener video_listener = {
	.ready = video_ready,
	.failed = video_failed,
	.end_of_stream = video_end_of_stream,
	.error = video_error,
};

/* ---- the window ---------------------------------------------------------------- */

static void
buffer_release(void *data, struct wl_buffer *buffer)
{
	/* A new buffer is made at each resize, so a released one is done with. */
	wl_buffer_destroy(buffer);
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

/*
 * The window's own pixels: all black. A new memfd is all zeros, and zero is
 * black in XRGB8888, so there is nothing to paint. The video's rectangle
 * covers the window and hides all of it (the library paints the letterbox
 * bars itself, and black before the first frame), so once the window is on
 * screen one pixel will do: a compositor that repaints whatever lies under
 * the video's damage (sway 1.7) then has no window-sized buffer to paint
 * with every frame. Not the first time: compositors place a new window by
 * the size of its first buffer (weston 10 counts no subsurface then).
 */
static void
draw(struct app *app)
{
	bool hidden = app->mapped &&
		umms_client_video_hides(app->video, 0, 0, app->width, app->height);
	int width = hidden ? 1 : app->width, height = hidden ? 1 : app->height;
	int stride = width * 4, size = stride * height;
	int fd = memfd_create("umms-play", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0) {
		fprintf(stderr, "umms-play: no memory for the window: %s\n", strerror(errno));
		exit(1);
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height,
		stride, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, NULL);
	wl_surface_attach(app->surface, buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, width, height);
}

/* xdg-shell sends the size (and states) first, then this to apply them. */
static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	/*
	 * 0x0 means "your choice": headless compositors send it first, and
	 * leaving fullscreen sends it to get the window size back.
	 */
	int width = app->pending_width, height = app->pending_height;
	if (width <= 0 || height <= 0) {
		width = app->windowed_width;
		height = app->windowed_height;
	}
	if (!app->pending_fullscreen) {
		/* Resized by the user (or the compositor): remember it. */
		app->windowed_width = width;
		app->windowed_height = height;
	}
	app->fullscreen = app->pending_fullscreen;
	if (width == app->width && height == app->height) {
		wl_surface_commit(app->surface);
		return;
	}
	/*
	 * The synchronized geometry rule: the new buffer and the new video
	 * rectangle are both pending state of our surface, and this one
	 * commit applies them together, so the picture never lags the window.
	 */
	app->width = width;
	app->height = height;
	umms_client_video_set_rect(app->video, 0, 0, app->width, app->height);
	draw(app);
	wl_surface_commit(app->surface);
	if (!app->mapped) {
		/* Placed by its whole size now: from here on, one pixel (see draw). */
		app->mapped = true;
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
	struct app *app = data;
	app->pending_width = width;
	app->pending_height = height;
	app->pending_fullscreen = false;
	uint32_t *state;
	wl_array_for_each(state, states) {
		if (*state == XDG_TOPLEVEL_STATE_FULLSCREEN)
			app->pending_fullscreen = true;
	}
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	quit(data, 0);
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

/* ---- the keyboard --------------------------------------------------------------- */

/* What each key does. */
static void
key_pressed(void *data, xkb_keysym_t sym)
{
	struct app *app = data;
	/* No player yet: nothing to do. */
	if (!app->path)
		return;
	switch (sym) {
	case XKB_KEY_space:
		player_call(app, PROPERTIES, "Get", g_variant_new("(ss)", PLAYER, "State"),
			toggle_with_state);
		break;
	case XKB_KEY_Left:
	case XKB_KEY_Right:
		/* Relative, in microseconds; ummsd clamps to the media. */
		player_call(app, PLAYER, "Seek",
			g_variant_new("(x)", (gint64)(sym == XKB_KEY_Left ? -SEEK_STEP : SEEK_STEP)),
			NULL);
		break;
	case XKB_KEY_Up:
	case XKB_KEY_Down:
		change_volume(app, sym == XKB_KEY_Up ? 0.1 : -0.1);
		break;
	case XKB_KEY_f:
		/* Only a request: the compositor answers with a configure, handled above. */
		if (app->fullscreen)
			xdg_toplevel_unset_fullscreen(app->toplevel);
		else
			xdg_toplevel_set_fullscreen(app->toplevel, NULL);
		break;
	case XKB_KEY_q:
	case XKB_KEY_Escape:
		quit(app, 0);
		break;
	}
}

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
	} else if (strcmp(interface, wl_seat_interface.name) == 0 && !app->keys) {
		/* The first seat only; a compositor without input has none at all. */
		app->keys = demo_keys_create(wl_registry_bind(registry, name, &wl_seat_interface,
			MIN(version, 5u)), key_pressed, app);
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

/* ---- the main loop ---------------------------------------------------------------- */

/*
 * GLib's main loop runs the program; the Wayland sockets are two of its
 * sources. The compositor's needs a custom GSource because libwayland
 * buffers in both directions:
 *  - before sleeping (prepare), our requests must be flushed out, and events
 *    already read into the queue (by a roundtrip, say) dispatched: their
 *    socket would not wake us again;
 *  - when the socket is readable, wl_display_dispatch() reads and runs them.
 * ummsd's socket is simpler: umms_client_dispatch() reads, runs and flushes
 * everything without blocking, so a plain fd watch does.
 */
struct wayland_source {
	GSource base;
	struct app *app;
	gpointer fd_tag;
};

static gboolean
wayland_prepare(GSource *base, int *timeout)
{
	struct wayland_source *source = (struct wayland_source *)base;
	struct wl_display *display = source->app->display;
	*timeout = -1;
	/* prepare_read fails when events wait in the queue: then dispatch now. */
	if (wl_display_prepare_read(display) != 0)
		return TRUE;
	wl_display_cancel_read(display);
	wl_display_flush(display);
	return FALSE;
}

static gboolean
wayland_check(GSource *base)
{
	struct wayland_source *source = (struct wayland_source *)base;
	return g_source_query_unix_fd(base, source->fd_tag) != 0;
}

static gboolean
wayland_dispatch(GSource *base, GSourceFunc callback, gpointer data)
{
	struct wayland_source *source = (struct wayland_source *)base;
	struct app *app = source->app;
	GIOCondition ready = g_source_query_unix_fd(base, source->fd_tag);
	/* Readable: read and dispatch (without blocking); else what is queued. */
	int ret = ready & G_IO_IN ? wl_display_dispatch(app->display) :
		wl_display_dispatch_pending(app->display);
	if (ret < 0 || (ready & (G_IO_ERR | G_IO_HUP))) {
		fprintf(stderr, "umms-play: lost the compositor\n");
		quit(app, 1);
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs wayland_source_funcs = {
	.prepare = wayland_prepare,
	.check = wayland_check,
	.dispatch = wayland_dispatch,
};

static gboolean
umms_readable(int fd, GIOCondition condition, gpointer data)
{
	struct app *app = data;
	if (umms_client_dispatch(app->umms) < 0) {
		fprintf(stderr, "umms-play: ummsd went away\n");
		quit(app, 1);
		app->umms_watch = 0;
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

/* --screenshot-after: the whole screen, into a PNG in the current folder. */
static gboolean
screenshot_time(gpointer data)
{
	/*
	 * weston's tool (weston must run with --debug), else wlroots' (grim).
	 * Waiting for it blocks our loop a moment: fine, we exit next.
	 */
	int wait_status;
	GError *error = NULL;
	if (!g_spawn_command_line_sync("sh -c 'weston-screenshooter 2>/dev/null || grim'", NULL, NULL,
			&wait_status, &error) || !g_spawn_check_wait_status(wait_status, &error)) {
		fprintf(stderr, "umms-play: no screenshot: %s\n", error->message);
		g_error_free(error);
		quit(data, 1);
	} else {
		printf("screenshot taken\n");
		quit(data, 0);
	}
	return G_SOURCE_REMOVE;
}

/* ---- main ---------------------------------------------------------------------------- */

int
main(int argc, char *argv[])
{
	struct app app = { .windowed_width = 960, .windowed_height = 540, .volume = 1.0 };
	gboolean fullscreen = FALSE, loop = FALSE;
	double screenshot_after = 0;
	GOptionEntry options[] = {
		{ "fullscreen", 0, 0, G_OPTION_ARG_NONE, &fullscreen, "Start fullscreen", NULL },
		{ "loop", 0, 0, G_OPTION_ARG_NONE, &loop, "Start over at the end", NULL },
		{ "screenshot-after", 0, 0, G_OPTION_ARG_DOUBLE, &screenshot_after,
			"Take a screenshot after SECONDS, then exit", "SECONDS" },
		{ NULL },
	};
	g_autoptr(GOptionContext) context = g_option_context_new("FILE-OR-URI");
	g_option_context_add_main_entries(context, options, NULL);
	GError *error = NULL;
	if (!g_option_context_parse(context, &argc, &argv, &error) || argc != 2) {
		fprintf(stderr, "umms-play: %s\n", error ? error->message :
			"usage: umms-play [OPTION...] FILE-OR-URI");
		return 2;
	}
	app.loop = loop;
	/* A file name (relative or not) becomes a file:// URI; a URI stays as it is. */
	g_autoptr(GFile) file = g_file_new_for_commandline_arg(argv[1]);
	app.uri = g_file_get_uri(file);

	/* 1. The session bus, the compositor, our window, ummsd. */
	app.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!app.bus) {
		fprintf(stderr, "umms-play: no session bus: %s\n", error->message);
		return 1;
	}
	app.display = wl_display_connect(NULL);
	if (!app.display) {
		fprintf(stderr, "umms-play: no Wayland compositor: %s\n", strerror(errno));
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(app.display);
	if (!app.compositor || !app.shm || !app.wm_base) {
		fprintf(stderr, "umms-play: the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n");
		return 1;
	}
	if (!app.keys)
		fprintf(stderr, "umms-play: no seat: the keys do nothing\n");

	app.surface = wl_compositor_create_surface(app.compositor);
	app.xdg_surface = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(app.xdg_surface, &xdg_surface_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.xdg_surface);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, "umms-play");
	xdg_toplevel_set_app_id(app.toplevel, "org.umms.Play");
	if (fullscreen)
		xdg_toplevel_set_fullscreen(app.toplevel, NULL);
	/* No buffer yet: this commit asks for the first configure. */
	wl_surface_commit(app.surface);

	app.umms = umms_client_connect(app.display, NULL);
	if (!app.umms) {
		fprintf(stderr, "umms-play: cannot reach ummsd's video socket: %s\n",
			strerror(errno));
		return 1;
	}
	/* A player of our own (NULL path); `ready` brings its D-Bus path. */
	app.video = umms_client_video_create(app.umms, app.surface, NULL);
	umms_client_video_set_listener(app.video, &video_listener, &app);

	/* 5. Run: everything from here happens in callbacks. */
	app.main_loop = g_main_loop_new(NULL, FALSE);
	struct wayland_source *source = (struct wayland_source *)g_source_new(
		&wayland_source_funcs, sizeof(*source));
	source->app = &app;
	source->fd_tag = g_source_add_unix_fd(&source->base, wl_display_get_fd(app.display),
		G_IO_IN | G_IO_ERR | G_IO_HUP);
	g_source_attach(&source->base, NULL);
	app.umms_watch = g_unix_fd_add(umms_client_get_fd(app.umms), G_IO_IN | G_IO_ERR | G_IO_HUP,
		umms_readable, &app);
	if (screenshot_after > 0)
		g_timeout_add((guint)(screenshot_after * 1000), screenshot_time, &app);
	g_main_loop_run(app.main_loop);

	/*
	 * 6. Done: destroying the video destroys our player in ummsd too
	 * (exiting would do it as well); the rest goes with the process.
	 */
	if (app.umms_watch)
		g_source_remove(app.umms_watch);
	g_source_destroy(&source->base);
	umms_client_video_destroy(app.video);
	umms_client_disconnect(app.umms);
	wl_display_disconnect(app.display);
	return app.status;
}
