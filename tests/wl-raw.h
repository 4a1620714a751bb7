/*
 * A raw Wayland client of ummsd's socket (WAYLAND_DISPLAY=umms-0), for
 * tests of hostile clients (test-wl-fuzz.c): libwayland-client with the
 * globals bound, nothing it sends checked. Every proxy made through
 * track() is destroyed by raw_free(), which wl_display_disconnect() does
 * not do. Every failure fails the test.
 */
#ifndef UMMS_TESTS_WL_RAW_H
#define UMMS_TESTS_WL_RAW_H

#include <stddef.h>
#include <stdint.h>
#include <wayland-client.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "umms-video-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct raw {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct umms_video_manager_v1 *video;
	uint32_t configure_serial;
	GPtrArray *proxies;   /* every proxy made, freed with the connection */
};

/* Connects and binds the globals (dmabuf is NULL where ummsd offers none). */
struct raw *raw_connect(void);
/* Destroys the tracked proxies (no requests: the server may be gone) and disconnects. */
void raw_free(struct raw *c);
/* @proxy, a new object of @c, is destroyed by raw_free(); returns it. */
void *track(struct raw *c, void *proxy);
/* Before a destructor request, which frees @proxy itself. */
void untrack(struct raw *c, void *proxy);
/*
 * The connection must end within a second with @code on an object of
 * @interface (wl_display: its invalid_object, which libwayland-client
 * tells as EINVAL only; NULL: any error, or the server closing it).
 */
void expect_error(struct raw *c, const struct wl_interface *interface, uint32_t code,
	const char *what);
/* A round trip that must succeed. */
void expect_ok(struct raw *c, const char *what);
/* A fullscreen toplevel, its first configure acknowledged, nothing attached yet. */
struct wl_surface *raw_toplevel(struct raw *c, struct xdg_surface **xdg_out);
/* A memfd of @size bytes. */
int raw_memfd(size_t size);
/*
 * A pool of @size bytes (a memfd of @file bytes, closed unless @fd_out)
 * and one XRGB8888 buffer in it; the pool is kept, errors about the buffer
 * are posted on it.
 */
struct wl_buffer *shm_buffer(struct raw *c, int32_t size, size_t file, int32_t offset,
	int32_t width, int32_t height, int32_t stride, int *fd_out);

#endif
