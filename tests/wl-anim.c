/*
 * wl-anim: a Wayland client that animates a small part of its window, as a
 * browser showing a spinner does (bench/screen-damage). An xdg_toplevel of
 * the size the compositor configures (or --size), a fixed pattern with a
 * square of --square pixels moving across it, one wl_shm frame per frame
 * callback, each committed with wl_surface.damage_buffer of only the
 * square's old and new places (--full: the whole buffer). Runs until
 * SIGTERM or --seconds, then prints "frames N" on stdout.
 *
 *   wl-anim [--size WxH] [--square N] [--step N] [--seconds S] [--full]
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "xdg-shell-client-protocol.h"

#define N_BUFFERS 3

struct buffer {
	struct wl_buffer *buffer;
	uint32_t *pixels;
	bool busy;
	int square_x;             /* where its square is; -1: not drawn yet */
};

static struct {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	int width, height, square, step;
	bool configured, full, frame_pending;
	struct buffer buffers[N_BUFFERS];
	int x, dir, shown_x;
	unsigned long frames;
} app = { .width = 1280, .height = 720, .square = 64, .step = 4, .dir = 1, .shown_x = -1 };

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = 1;
}

static void
die(const char *what)
{
	fprintf(stderr, "wl-anim: %s\n", what);
	exit(1);
}

static uint32_t
background(int x, int y)
{
	return 0xff000000u | (uint32_t)((x * 255 / app.width) << 16) |
		(uint32_t)((y * 255 / app.height) << 8) | 0x40;
}

static int
square_y(void)
{
	return (app.height - app.square) / 2;
}

static void
paint(struct buffer *b, int x0, int w, bool square)
{
	int y0 = square_y();
	for (int y = y0; y < y0 + app.square; y++)
		for (int x = x0; x < x0 + w; x++)
			b->pixels[(size_t)y * (size_t)app.width + (size_t)x] =
				square ? 0xffffffffu : background(x, y);
}

static void
buffer_release(void *data, struct wl_buffer *buffer)
{
	((struct buffer *)data)->busy = false;
}

static const struct wl_buffer_listener buffer_listener = { .release = buffer_release };

static void
make_buffers(void)
{
	size_t stride = (size_t)app.width * 4, size = stride * (size_t)app.height;
	int fd = memfd_create("wl-anim", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)(size * N_BUFFERS)) < 0)
		die("no memfd");
	uint8_t *map = mmap(NULL, size * N_BUFFERS, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("cannot map the buffers");
	struct wl_shm_pool *pool = wl_shm_create_pool(app.shm, fd, (int32_t)(size * N_BUFFERS));
	for (int i = 0; i < N_BUFFERS; i++) {
		struct buffer *b = &app.buffers[i];
		b->pixels = (uint32_t *)(void *)(map + size * (size_t)i);
		b->buffer = wl_shm_pool_create_buffer(pool, (int32_t)(size * (size_t)i), app.width,
			app.height, (int32_t)stride, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(b->buffer, &buffer_listener, b);
		for (int y = 0; y < app.height; y++)
			for (int x = 0; x < app.width; x++)
				b->pixels[(size_t)y * (size_t)app.width + (size_t)x] = background(x, y);
		b->square_x = -1;
	}
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void draw_frame(void);

static void
frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	wl_callback_destroy(callback);
	app.frame_pending = false;
	draw_frame();
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

static void
draw_frame(void)
{
	struct buffer *b = NULL;
	for (int i = 0; i < N_BUFFERS && !b; i++)
		if (!app.buffers[i].busy)
			b = &app.buffers[i];
	if (!b)
		die("no buffer released");
	int old = b->square_x;
	if (old >= 0)
		paint(b, old, app.square, false);
	paint(b, app.x, app.square, true);
	b->square_x = app.x;
	wl_surface_attach(app.surface, b->buffer, 0, 0);
	if (app.full || app.shown_x < 0) {
		wl_surface_damage_buffer(app.surface, 0, 0, INT32_MAX, INT32_MAX);
	} else {
		/* What the screen shows changed where the square was and is. */
		wl_surface_damage_buffer(app.surface, app.shown_x, square_y(), app.square,
			app.square);
		wl_surface_damage_buffer(app.surface, app.x, square_y(), app.square, app.square);
	}
	wl_callback_add_listener(wl_surface_frame(app.surface), &frame_listener, NULL);
	wl_surface_commit(app.surface);
	b->busy = true;
	app.frame_pending = true;
	app.shown_x = app.x;
	app.frames++;
	app.x += app.dir * app.step;
	if (app.x < 0 || app.x + app.square > app.width) {
		app.dir = -app.dir;
		app.x += 2 * app.dir * app.step;
	}
}

static void
wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_listener = { .ping = wm_ping };

static void
xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	xdg_surface_ack_configure(xdg, serial);
	app.configured = true;
}

static const struct xdg_surface_listener xdg_listener = { .configure = xdg_configure };

static void
top_configure(void *data, struct xdg_toplevel *top, int32_t width, int32_t height,
	struct wl_array *states)
{
	if (width > 0 && height > 0 && !app.buffers[0].buffer)
		app.width = width, app.height = height;
}

static void
top_close(void *data, struct xdg_toplevel *top)
{
	stop = 1;
}

static const struct xdg_toplevel_listener top_listener = {
	.configure = top_configure, .close = top_close,
};

static void
global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		app.compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		app.shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		app.wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = global, .global_remove = global_remove,
};

int
main(int argc, char *argv[])
{
	double seconds = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--full") == 0)
			app.full = true;
		else if (strcmp(a, "--size") == 0 && v && sscanf(v, "%dx%d", &app.width,
				&app.height) == 2)
			i++;
		else if (strcmp(a, "--square") == 0 && v)
			app.square = atoi(v), i++;
		else if (strcmp(a, "--step") == 0 && v)
			app.step = atoi(v), i++;
		else if (strcmp(a, "--seconds") == 0 && v)
			seconds = atof(v), i++;
		else
			die("usage: wl-anim [--size WxH] [--square N] [--step N] [--seconds S] "
				"[--full]");
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	struct wl_display *display = wl_display_connect(NULL);
	if (!display)
		die("cannot connect to the Wayland display");
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	if (!app.compositor || !app.shm || !app.wm_base)
		die("the compositor lacks wl_compositor, wl_shm or xdg_wm_base");
	xdg_wm_base_add_listener(app.wm_base, &wm_listener, NULL);
	app.surface = wl_compositor_create_surface(app.compositor);
	struct xdg_surface *xdg = xdg_wm_base_get_xdg_surface(app.wm_base, app.surface);
	xdg_surface_add_listener(xdg, &xdg_listener, NULL);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xdg);
	xdg_toplevel_add_listener(top, &top_listener, NULL);
	xdg_toplevel_set_title(top, "wl-anim");
	wl_surface_commit(app.surface);
	while (!app.configured)
		if (wl_display_dispatch(display) < 0)
			die("the connection broke");
	if (app.width < app.square || app.height < app.square || app.square < 1 || app.step < 1)
		die("the square does not fit the window");
	make_buffers();
	draw_frame();
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		if (wl_display_dispatch(display) < 0) {
			if (errno == EINTR)
				continue;
			die("the connection broke");
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (seconds > 0 && (double)(now.tv_sec - t0.tv_sec) +
				(double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
	}
	printf("frames %lu\n", app.frames);
	fflush(stdout);
	return 0;
}
