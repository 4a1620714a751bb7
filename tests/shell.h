/*
 * A shell client of ummsd's compositor (service/compositor/), for the tests
 * of a screen ummsd drives (test-kiosk on vkms or headless, test-headless):
 * a fullscreen xdg_toplevel drawn in wl_shm, each commit waited for until
 * it is on screen, and a player of its own placed in its surface through
 * libumms-client. Every failure fails the test.
 */
#ifndef UMMS_TESTS_SHELL_H
#define UMMS_TESTS_SHELL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>

#include "harness.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "renderer.h"
#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

struct shell {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_presentation *presentation;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	/* zwp_linux_dmabuf_v1 (version 3): its modifier events, umms_render_format each. */
	GArray *dmabuf_formats;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	int width, height;
	uint32_t configure_serial;
	bool frame_done, presented;
	struct umms_client *umms;
	struct umms_client_video *video;
	char *player;
};

/* The UI's pixel at (x, y): premultiplied ARGB8888. */
typedef uint32_t (*ui_pixel_fn)(int x, int y, const void *data);

/*
 * Connects to ummsd's socket (WAYLAND_DISPLAY=umms-0 in $XDG_RUNTIME_DIR);
 * dmabuf_formats holds what the compositor advertised once it returns.
 */
struct shell *shell_connect(void);
/*
 * The dma-buf format + modifier pairs (umms_render_format) a renderer made
 * here as ummsd makes the headless screen's ("gles2": surfaceless, "pixman")
 * imports, sorted; checked against what the compositor advertises.
 */
GArray *shell_renderer_formats(const char *renderer);
/* Sorts an array of umms_render_format, for comparing two. */
void shell_sort_formats(GArray *formats);
/* A toplevel, its first configure acknowledged: width and height set. */
void shell_map(struct shell *s);
/*
 * Attaches @buffer and commits, with whatever video geometry was set
 * since; returns once the commit is on screen (frame callback and
 * presentation feedback both answered), and destroys the buffer: the
 * screen keeps showing its pixels until the next attach.
 */
void shell_commit(struct shell *s, struct wl_buffer *buffer);
/* The same with wl_surface.damage_buffer of only @damage (x, y, width, height each). */
void shell_commit_damage(struct shell *s, struct wl_buffer *buffer, const int (*damage)[4],
	int n_damage);
/* Draws the UI (a pixel function over the whole surface) and commits it. */
void shell_paint(struct shell *s, ui_pixel_fn pixel, const void *data);
/* A whole new buffer of s->width x s->height, damaged only in @damage. */
void shell_paint_damage(struct shell *s, ui_pixel_fn pixel, const void *data,
	const int (*damage)[4], int n_damage);
/* The UI: @rgb (opaque) everywhere, a transparent hole at @hole unless NULL. */
void shell_draw(struct shell *s, uint32_t rgb, const int hole[4]);
/*
 * A player of the client's own placed at @rect with @stacking in the same
 * commit as a UI of @rgb with @hole, then opened (colors.mkv) and paused
 * on its first frame (red).
 */
void shell_video(struct umms_test *t, struct shell *s, enum umms_client_stacking stacking,
	const int rect[4], uint32_t rgb, const int hole[4]);
void shell_free(struct shell *s);

#endif
