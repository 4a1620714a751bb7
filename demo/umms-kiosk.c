/*
 * umms-kiosk: a TV shell, to read top to bottom: a fullscreen menu UI with
 * the video in a window of it, or over all of it.
 *
 *   umms-kiosk [--cycle SECONDS] [--seconds N] FILE-OR-URI
 *   umms-kiosk [--cycle SECONDS] [--seconds N] --channel NUMBER-OR-ID
 *
 * With --channel it plays a channel of ummsd's programme guide (found by
 * its number, else its id: ummsctl channels lists them) and shows what
 * the channel shows now and next in its header (kiosk-guide.c).
 *
 * On a machine with a screen and no display server, ummsd drives the screen
 * itself and is the Wayland compositor of the shell too:
 *
 *   ummsd --drm &
 *   umms-kiosk FILE
 *
 * It connects to $WAYLAND_DISPLAY, or when that is unset to ummsd's socket
 * ($UMMS_DISPLAY, else "umms-0": ummsd driving a screen). The same code runs
 * on any compositor: libumms-client uses subsurfaces on weston or sway, and
 * on ummsd's own it places the video server-side.
 *
 * The UI, drawn in ARGB8888 with fixed colours (tests check pixels; the
 * window is W x H, from the compositor, 1024x768 if it does not say):
 *
 *   background          0xff1d2a3a  dark blue, everywhere else
 *   header bar          0xff3c5a78  the top H/10, with a logo block 0xff8fb8de
 *   menu items          0xff2e4660  4 on the left: x from W/20, W*0.3 wide, H/10
 *                                   high, from y = H/5 down, H/40 apart
 *   the selected item   0xffe0a030  amber
 *   the video's frame   0xffc8c8c8  4 px around the video window
 *   now/next text       0xffffffff  white (antialiased onto the header) with
 *                                   --channel, only in the header's text
 *                                   area: right of the logo, x from
 *                                   W/40 + 2*(H/20) + W/40 to W - W/40, the
 *                                   header's height; two lines, "Now" and
 *                                   "Next", each start-stop (local) title
 *
 * The video, looping, letterboxed, in one of two modes:
 *
 *   windowed    at x = W*0.4, y = H*0.2, W*0.55 x H*0.55 (rounded down),
 *               UNDER our surface, whose pixels there are fully transparent
 *               (0x00000000, "the hole"): the video shows through it.
 *   fullscreen  the whole surface, ABOVE our pixels: the video covers the UI
 *               (still drawn underneath), so on ummsd's compositor it can go
 *               on an overlay plane over the UI.
 *
 * Keys (remote controls appear as keyboards too): Up/Down move the menu's
 * selection, Return or f toggles windowed/fullscreen, space pauses or plays,
 * q or Escape quits (SIGTERM too). --cycle S toggles by itself every S
 * seconds (from "ready" on); --seconds N exits after N seconds.
 *
 * What it prints (tests read these lines, each flushed at once):
 *
 *   windowed X Y W H     the video rectangle, in surface coordinates,
 *   fullscreen 0 0 W H   once the commit that changed the mode (or the size)
 *                        is on screen (its frame callback came);
 *   ready WxH            once, when the first UI frame is on screen and the
 *                        player plays;
 *   now-next CHANNEL NOW | NEXT
 *                        with --channel: each time new now/next is on
 *                        screen (CHANNEL is its id in the guide, NOW and
 *                        NEXT the titles, empty for none);
 *   blocked ..., pin N, allowed, ...   the PIN prompt (kiosk-pin.h), drawn
 *                        in the video's window while ummsd blocks the video.
 *
 * Exit status 0, or 1 with a line "umms-kiosk: ..." on stderr when the
 * compositor, the session bus or ummsd is missing, playback fails, or
 * the guide has no such channel ("umms-kiosk: no channel ...").
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
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
#include "kiosk-guide.h"
#include "kiosk-pin.h"
#include "socket-name.h"
#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

#define SERVICE "org.umms.Service1"
#define PLAYER "org.umms.Player1"

#define BACKGROUND 0xff1d2a3a
#define HEADER 0xff3c5a78
#define LOGO 0xff8fb8de
#define ITEM 0xff2e4660
#define SELECTED 0xffe0a030
#define FRAME_COLOR 0xffc8c8c8
#define HOLE 0x00000000
#define FRAME 4         /* the frame's width, in pixels */
#define ITEMS 4

struct app {
	/* The compositor's globals. */
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct demo_keys *keys;        /* NULL on a compositor without input */

	/* Our window and what it shows. */
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	int width, height;             /* 0 before the first configure */
	int pending_width, pending_height;
	int window[4];                 /* the video window (x, y, width, height) */
	bool fullscreen;               /* the video's mode, not the toplevel's */
	int selected;                  /* the menu item */
	bool presented, playing, announced_ready;
	GPtrArray *buffers;            /* our wl_buffers the compositor still holds */
	GPtrArray *frames;             /* struct shown: commits not on screen yet */

	/* The video and the player behind it. */
	struct umms_client *umms;
	struct umms_client_video *video;
	GDBusConnection *bus;
	char *path;                    /* the player's D-Bus path, once ready */
	char *uri;
	bool paused;
	int cycle;                     /* --cycle: seconds between toggles, 0: never */

	/* --channel: the guide's now/next, in the header. */
	struct kiosk_guide *guide;
	char *guide_line;              /* "now-next ...", to print once it is drawn */
	struct kiosk_pin *pin;         /* the PIN prompt while ummsd blocks the video */
	char *pin_line;

	bool running;
	int status;
};

/* Something needed is missing: say what, exit 1 (leak checkers see main's memory). */
static _Noreturn void G_GNUC_PRINTF(1, 2)
fail(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	fputs("umms-kiosk: ", stderr);
	vfprintf(stderr, format, args);
	fputc('\n', stderr);
	va_end(args);
	exit(1);
}

static void
stop(struct app *app, int status)
{
	if (status)
		app->status = status;
	app->running = false;
}

/* ---- drawing the shell ------------------------------------------------------------ */

static void
fill(struct app *app, uint32_t *pixels, int x, int y, int width, int height, uint32_t color)
{
	int x1 = MIN(x + width, app->width), y1 = MIN(y + height, app->height);
	for (int row = MAX(y, 0); row < y1; row++) {
		for (int col = MAX(x, 0); col < x1; col++)
			pixels[row * app->width + col] = color;
	}
}

static void
buffer_release(void *data, struct wl_buffer *buffer)
{
	/* A new buffer is made for each frame, so a released one is done with. */
	struct app *app = data;
	g_ptr_array_remove(app->buffers, buffer); /* destroys it */
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

/* The whole UI into a new buffer, attached to our surface (not committed). */
static void
draw(struct app *app)
{
	int w = app->width, h = app->height, stride = w * 4, size = stride * h;
	int fd = memfd_create("umms-kiosk", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, size) < 0)
		fail("no memory for the window: %s", strerror(errno));
	uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED)
		fail("cannot map the window: %s", strerror(errno));
	fill(app, pixels, 0, 0, w, h, BACKGROUND);
	fill(app, pixels, 0, 0, w, h / 10, HEADER);
	fill(app, pixels, w / 40, h / 40, h / 20 * 2, h / 20, LOGO);
	/* Now/next, in white, right of the logo (kiosk-guide.c draws it). */
	if (app->guide) {
		int text_x = w / 40 + h / 20 * 2 + w / 40;
		kiosk_guide_draw(app->guide, pixels, stride, text_x, 0, w - w / 40 - text_x,
			h / 10);
	}

	/* The menu, from the height of the video window down. */
	for (int i = 0; i < ITEMS; i++) {
		fill(app, pixels, w / 20, h / 5 + i * (h / 10 + h / 40), w * 3 / 10, h / 10,
			i == app->selected ? SELECTED : ITEM);
	}

	/*
	 * Windowed: the frame, and the hole the video shows through. Full
	 * screen: nothing; the video covers it all, this is what is under it.
	 */
	if (!app->fullscreen) {
		const int *r = app->window;
		fill(app, pixels, r[0] - FRAME, r[1] - FRAME, r[2] + 2 * FRAME, r[3] + 2 * FRAME,
			FRAME_COLOR);
		fill(app, pixels, r[0], r[1], r[2], r[3], HOLE);
		kiosk_pin_draw(app->pin, pixels, stride, r[0], r[1], r[2], r[3]);
	}
	munmap(pixels, (size_t)size);

	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, stride,
		WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	wl_buffer_add_listener(buffer, &buffer_listener, app);
	g_ptr_array_add(app->buffers, buffer);
	wl_surface_attach(app->surface, buffer, 0, 0);
	wl_surface_damage_buffer(app->surface, 0, 0, w, h);
}

/* ---- frames: putting UI and video on screen together ------------------------------ */

/* A commit that changed what the screen shows, and the line that says what. */
struct shown {
	struct app *app;
	struct wl_callback *callback;  /* the commit's frame callback */
	char *line;                    /* "windowed X Y W H", "now-next ..." */
};

static void
shown_free(gpointer data)
{
	struct shown *shown = data;
	wl_callback_destroy(shown->callback);
	g_free(shown->line);
	g_free(shown);
}

static gboolean cycle_tick(gpointer data);

static void
maybe_ready(struct app *app)
{
	if (app->announced_ready || !app->presented || !app->playing)
		return;
	app->announced_ready = true;
	printf("ready %dx%d\n", app->width, app->height);
	fflush(stdout);
	/* --cycle counts from here, so that every mode is seen with the video playing. */
	if (app->cycle > 0)
		g_timeout_add_seconds((guint)app->cycle, cycle_tick, app);
}

/* The compositor has shown the commit: say what it shows. */
static void
frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct shown *shown = data;
	struct app *app = shown->app;
	printf("%s\n", shown->line);
	fflush(stdout);
	app->presented = true;
	maybe_ready(app);
	g_ptr_array_remove(app->frames, shown); /* frees it */
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

/* @line (taken) is printed once the next commit is on screen. */
static void
say_when_shown(struct app *app, char *line)
{
	struct shown *shown = g_new(struct shown, 1);
	*shown = (struct shown){ .app = app, .line = line,
		.callback = wl_surface_frame(app->surface) };
	wl_callback_add_listener(shown->callback, &frame_listener, shown);
	g_ptr_array_add(app->frames, shown);
}

/*
 * The heart of the demo. The video's rectangle and stacking, and the UI
 * drawn for them (the hole and the frame, or none), are all pending state
 * of our surface: libumms-client holds set_rect and set_stacking until our
 * next commit (synchronized subsurfaces on weston or sway, place on ummsd's
 * compositor), and ONE commit puts all of it on screen in the same frame:
 * never the hole at the new place with the video at the old one.
 *
 * @announce: the mode or size changed; print the line once it is shown.
 */
static void
present(struct app *app, bool announce)
{
	int full[4] = { 0, 0, app->width, app->height };
	const int *r = app->fullscreen ? full : app->window;
	umms_client_video_set_stacking(app->video,
		app->fullscreen ? UMMS_CLIENT_ABOVE : UMMS_CLIENT_BELOW);
	umms_client_video_set_rect(app->video, r[0], r[1], r[2], r[3]);
	draw(app);
	if (announce) {
		say_when_shown(app, g_strdup_printf("%s %d %d %d %d",
			app->fullscreen ? "fullscreen" : "windowed", r[0], r[1], r[2], r[3]));
	}
	/* New now/next drawn (kiosk-guide.c): its line too, once on screen. */
	if (app->guide_line)
		say_when_shown(app, g_steal_pointer(&app->guide_line));
	if (app->pin_line)
		say_when_shown(app, g_steal_pointer(&app->pin_line));
	wl_surface_commit(app->surface);
}

static void
toggle(struct app *app)
{
	if (!app->width)
		return;
	app->fullscreen = !app->fullscreen;
	present(app, true);
}

static gboolean
cycle_tick(gpointer data)
{
	toggle(data);
	return G_SOURCE_CONTINUE;
}

static gboolean
time_is_up(gpointer data)
{
	stop(data, 0);
	return G_SOURCE_REMOVE;
}

static gboolean
terminated(gpointer data)
{
	stop(data, 0);
	return G_SOURCE_CONTINUE;   /* removed at the end of main */
}

/* ---- the player: D-Bus calls and the library's events ---------------------------- */

/*
 * Asynchronous calls, so the UI keeps answering while ummsd works. @then
 * runs with the reply (Play after SetUri); an error from ummsd ends the
 * program.
 */
struct call {
	struct app *app;
	const char *method;
	void (*then)(struct app *app);
};

static void
call_done(GObject *bus, GAsyncResult *result, gpointer data)
{
	struct call *call = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (!reply) {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-kiosk: %s: %s (%s)\n", call->method, error->message,
			name ? name : "no D-Bus error name");
		g_error_free(error);
		stop(call->app, 1);
	} else {
		g_variant_unref(reply);
		if (call->then)
			call->then(call->app);
	}
	g_free(call);
}

static void
player_call(struct app *app, const char *method, GVariant *args, void (*then)(struct app *))
{
	struct call *call = g_new(struct call, 1);
	*call = (struct call){ .app = app, .method = method, .then = then };
	/* 30 s: SetUri replies once the media is open, slow on a network. */
	g_dbus_connection_call(app->bus, SERVICE, app->path, PLAYER, method, args, NULL,
		G_DBUS_CALL_FLAGS_NONE, 30000, NULL, call_done, call);
}

/* Play replied: the player plays (ummsd replies once it does). */
static void
playing(struct app *app)
{
	app->playing = true;
	maybe_ready(app);
}

static void
play(struct app *app)
{
	player_call(app, "Play", NULL, playing);
}

static void
play_or_pause(struct app *app)
{
	if (!app->path)
		return;
	app->paused = !app->paused;
	player_call(app, app->paused ? "Pause" : "Play", NULL, NULL);
}

/* kiosk-pin.c: the prompt changed; up, it needs the video's window (windowed). */
static void
pin_changed(void *data, char *line)
{
	struct app *app = data;
	g_free(app->pin_line);
	app->pin_line = line;
	bool windowed = kiosk_pin_active(app->pin) && app->fullscreen;
	app->fullscreen = app->fullscreen && !windowed;
	if (app->width && app->running)
		present(app, windowed);
}

static void
video_ready(void *data, struct umms_client_video *video, const char *path)
{
	struct app *app = data;
	app->path = g_strdup(path);
	app->pin = kiosk_pin_create(app->bus, path, pin_changed, app);
	player_call(app, "SetUri", g_variant_new("(s)", app->uri), play);
}

static void
video_failed(void *data, struct umms_client_video *video, const char *reason)
{
	fprintf(stderr, "umms-kiosk: no player: %s\n", reason);
	stop(data, 1);
}

/* Looping: back to the start and play again (unless paused meanwhile). */
static void
video_end_of_stream(void *data, struct umms_client_video *video)
{
	struct app *app = data;
	player_call(app, "SetPosition", g_variant_new("(x)", (gint64)0),
		app->paused ? NULL : play);
}

static void
video_error(void *data, struct umms_client_video *video, const char *name, const char *message)
{
	fprintf(stderr, "umms-kiosk: playback failed: %s (%s)\n", message, name);
	stop(data, 1);
}

static const struct umms_client_video_listener video_listener = {
	.ready = video_ready,
	.failed = video_failed,
	.end_of_stream = video_end_of_stream,
	.error = video_error,
};

/* ---- the guide: now/next in the header ------------------------------------------- */

/* kiosk-guide.c has new now/next: draw it (once we have a window), say so once shown. */
static void
guide_changed(void *data, char *line)
{
	struct app *app = data;
	g_free(app->guide_line);
	app->guide_line = line;
	if (app->width && app->running)
		present(app, false);
}

/* ---- the window ------------------------------------------------------------------- */

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	/* 0x0 is "your choice": headless compositors say it. */
	int w = app->pending_width > 0 ? app->pending_width : 1024;
	int h = app->pending_height > 0 ? app->pending_height : 768;
	if (w == app->width && h == app->height) {
		wl_surface_commit(app->surface); /* the ack needs a commit */
		return;
	}
	/* A new size: the video window's place, computed once for it. */
	app->width = w;
	app->height = h;
	/*
	 * Our window is our surface, whatever the video's subsurfaces do. Else
	 * weston 10 takes their bounding box, with a moved one's new position
	 * but old size: moving the video from full screen to the window makes
	 * a box larger than the screen, a protocol error when fullscreen.
	 */
	xdg_surface_set_window_geometry(app->xdg_surface, 0, 0, w, h);
	app->window[0] = w * 40 / 100;
	app->window[1] = h * 20 / 100;
	app->window[2] = w * 55 / 100;
	app->window[3] = h * 55 / 100;
	present(app, true);
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

/* ---- keys ------------------------------------------------------------------------- */

static void
key_pressed(void *data, xkb_keysym_t sym)
{
	struct app *app = data;
	if (kiosk_pin_key(app->pin, sym))
		return;
	switch (sym) {
	case XKB_KEY_Up:
	case XKB_KEY_Down:
		/* Only the UI changes: no line to print. */
		app->selected = (app->selected + (sym == XKB_KEY_Up ? ITEMS - 1 : 1)) % ITEMS;
		if (app->width)
			present(app, false);
		break;
	case XKB_KEY_Return:
	case XKB_KEY_KP_Enter:
	case XKB_KEY_f:
		toggle(app);
		break;
	case XKB_KEY_space:
		play_or_pause(app);
		break;
	case XKB_KEY_q:
	case XKB_KEY_Escape:
		stop(app, 0);
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
		app->keys = demo_keys_create(wl_registry_bind(registry, name, &wl_seat_interface,
			MIN(version, 4u)), key_pressed, app);
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
 * One poll() over the compositor's socket, ummsd's, and the fds of GLib's
 * main context (GDBus replies, our timers), as in umms-embed (which says
 * each step): dispatch what Wayland has queued and flush, let GLib
 * prepare, poll everything, then read and dispatch each side.
 */
static bool
lost_compositor(struct app *app)
{
	/* A protocol error (libwayland printed it) or a closed socket. */
	fprintf(stderr, "umms-kiosk: lost the compositor: %s\n",
		strerror(wl_display_get_error(app->display)));
	stop(app, 1);
	return false;
}

/* Dispatches what is queued until libwayland lets us read; false if the connection died. */
static bool
prepare_read(struct app *app)
{
	while (wl_display_prepare_read(app->display) != 0) {
		if (wl_display_dispatch_pending(app->display) < 0)
			return lost_compositor(app);
	}
	return true;
}

static void
run(struct app *app)
{
	GMainContext *context = g_main_context_default();
	g_main_context_acquire(context);
	int capacity = 8;
	GPollFD *fds = g_new(GPollFD, capacity);
	while (app->running) {
		if (!prepare_read(app))
			break;
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

		if (fds[0].revents & (G_IO_IN | G_IO_ERR | G_IO_HUP)) {
			if (wl_display_read_events(app->display) < 0) {
				lost_compositor(app);
				break;
			}
		} else {
			wl_display_cancel_read(app->display);
		}
		if (wl_display_dispatch_pending(app->display) < 0) {
			lost_compositor(app);
			break;
		}
		if (fds[1].revents && umms_client_dispatch(app->umms) < 0) {
			fprintf(stderr, "umms-kiosk: ummsd went away\n");
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
	struct app app = {
		.running = true,
		.buffers = g_ptr_array_new_with_free_func((GDestroyNotify)wl_buffer_destroy),
		.frames = g_ptr_array_new_with_free_func(shown_free),
	};
	int seconds = 0;
	g_autofree char *channel = NULL;
	GOptionEntry options[] = {
		{ "channel", 0, 0, G_OPTION_ARG_STRING, &channel,
			"Play a channel of the guide and show its now/next", "NUMBER-OR-ID" },
		{ "cycle", 0, 0, G_OPTION_ARG_INT, &app.cycle,
			"Toggle windowed/fullscreen every SECONDS", "SECONDS" },
		{ "seconds", 0, 0, G_OPTION_ARG_INT, &seconds, "Exit after N seconds", "N" },
		{ NULL },
	};
	g_autoptr(GOptionContext) context = g_option_context_new("FILE-OR-URI");
	g_option_context_add_main_entries(context, options, NULL);
	GError *error = NULL;
	if (!g_option_context_parse(context, &argc, &argv, &error) || argc != (channel ? 1 : 2)) {
		fprintf(stderr, "umms-kiosk: %s\n", error ? error->message :
			"usage: umms-kiosk [--cycle SECONDS] [--seconds N] "
			"FILE-OR-URI | --channel NUMBER-OR-ID");
		return 2;
	}
	app.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!app.bus)
		fail("no session bus: %s", error->message);

	if (channel) {
		/* A channel of the guide: its stream, and now/next as it changes. */
		app.guide = kiosk_guide_create(app.bus, channel, guide_changed, &app, &error);
		if (!app.guide && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
			fail("%s", error->message);      /* "no channel ..." */
		if (!app.guide) {
			g_dbus_error_strip_remote_error(error);
			fail("cannot ask the guide (is ummsd running?): %s", error->message);
		}
		if (!*kiosk_guide_uri(app.guide))
			fail("channel %s (%s) has no stream", channel, kiosk_guide_name(app.guide));
		app.uri = g_strdup(kiosk_guide_uri(app.guide));
	} else {
		/* A file name (relative or not) becomes a file:// URI; a URI stays as it is. */
		g_autoptr(GFile) file = g_file_new_for_commandline_arg(argv[1]);
		app.uri = g_file_get_uri(file);
	}

	/* The compositor: $WAYLAND_DISPLAY, else ummsd's own (ummsd --drm). */
	const char *socket = umms_compositor_socket_name();
	app.display = wl_display_connect(socket);
	if (!app.display) {
		fail("no Wayland compositor at %s (is ummsd --drm running?): %s", socket,
			strerror(errno));
	}
	struct wl_registry *registry = wl_display_get_registry(app.display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(app.display);
	if (!app.compositor || !app.shm || !app.wm_base)
		fail("%s lacks wl_compositor, wl_shm or xdg_wm_base", socket);

	/* One fullscreen toplevel; the first configure brings its size. */
	app.surface = wl_compositor_create_surface(app.compositor);
	app.xdg_surface = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(app.xdg_surface, &xdg_surface_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.xdg_surface);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, "umms-kiosk");
	xdg_toplevel_set_app_id(app.toplevel, "org.umms.Kiosk");
	xdg_toplevel_set_fullscreen(app.toplevel, NULL);
	wl_surface_commit(app.surface);

	/* ummsd, and a player of our own shown in our surface, letterboxed. */
	app.umms = umms_client_connect(app.display, NULL);
	if (!app.umms)
		fail("cannot reach ummsd (is it running?): %s", strerror(errno));
	app.video = umms_client_video_create(app.umms, app.surface, NULL);
	umms_client_video_set_listener(app.video, &video_listener, &app);
	umms_client_video_set_scale(app.video, UMMS_CLIENT_SCALE_LETTERBOX);

	if (seconds > 0)
		g_timeout_add_seconds((guint)seconds, time_is_up, &app);
	/* Stopped by its session (systemd, a test): cleanly, as q does. */
	guint sigterm = g_unix_signal_add(SIGTERM, terminated, &app);
	run(&app);
	g_source_remove(sigterm);

	/*
	 * Destroying the video destroys our player in ummsd too. The rest is
	 * freed as well, so that sanitizer builds can check for leaks.
	 */
	kiosk_guide_destroy(app.guide);
	g_free(app.guide_line);
	kiosk_pin_destroy(app.pin);
	g_free(app.pin_line);
	umms_client_video_destroy(app.video);
	umms_client_disconnect(app.umms);
	g_ptr_array_free(app.frames, TRUE);
	g_ptr_array_free(app.buffers, TRUE);
	xdg_toplevel_destroy(app.toplevel);
	xdg_surface_destroy(app.xdg_surface);
	wl_surface_destroy(app.surface);
	demo_keys_destroy(app.keys);
	xdg_wm_base_destroy(app.wm_base);
	wl_shm_destroy(app.shm);
	wl_compositor_destroy(app.compositor);
	wl_registry_destroy(registry);
	wl_display_disconnect(app.display);
	g_free(app.path);
	g_free(app.uri);
	g_object_unref(app.bus);
	return app.status;
}
