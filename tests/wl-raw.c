/*
 * A raw Wayland client of ummsd's socket for tests of hostile clients
 * (wl-raw.h): globals bound, every proxy kept so that it can be freed,
 * protocol errors expected within a second.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <glib.h>

#include "wl-raw.h"

/* @proxy (a new object of @c) is destroyed by raw_free(), unless untracked. */
void *
track(struct raw *c, void *proxy)
{
	if (proxy)
		g_ptr_array_add(c->proxies, proxy);
	return proxy;
}

/* Before a destructor request, which frees @proxy itself. */
void
untrack(struct raw *c, void *proxy)
{
	g_ptr_array_remove_fast(c->proxies, proxy);
}

static void
global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct raw *c = data;
	const struct wl_interface *known[] = {
		&wl_compositor_interface, &wl_subcompositor_interface, &wl_shm_interface,
		&xdg_wm_base_interface, &zwp_linux_dmabuf_v1_interface,
		&umms_video_manager_v1_interface,
	};
	void **slots[] = {
		(void **)&c->compositor, (void **)&c->subcompositor, (void **)&c->shm,
		(void **)&c->wm_base, (void **)&c->dmabuf, (void **)&c->video,
	};
	const uint32_t versions[] = { 4, 1, 1, MIN(version, 6), 3, 4 };
	for (size_t i = 0; i < G_N_ELEMENTS(known); i++) {
		if (strcmp(interface, known[i]->name) == 0)
			*slots[i] = track(c, wl_registry_bind(registry, name, known[i],
				versions[i]));
	}
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

struct raw *
raw_connect(void)
{
	struct raw *c = g_new0(struct raw, 1);
	c->proxies = g_ptr_array_new();
	c->display = wl_display_connect("umms-0");
	g_assert_nonnull(c->display);
	struct wl_registry *registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(registry, &registry_listener, c);
	g_assert_cmpint(wl_display_roundtrip(c->display), >=, 0);
	wl_registry_destroy(registry);
	g_assert_nonnull(c->compositor);
	g_assert_nonnull(c->subcompositor);
	g_assert_nonnull(c->shm);
	g_assert_nonnull(c->wm_base);
	g_assert_nonnull(c->video);
	return c;
}

/* Its proxies are destroyed here, without requests: the server may be gone already. */
void
raw_free(struct raw *c)
{
	for (guint i = 0; i < c->proxies->len; i++)
		wl_proxy_destroy(c->proxies->pdata[i]);
	g_ptr_array_free(c->proxies, TRUE);
	wl_display_disconnect(c->display);
	g_free(c);
}

/*
 * The connection must end, within a second, with @code on an object of
 * @interface (NULL: any error, or the server closing it).
 */
void
expect_error(struct raw *c, const struct wl_interface *interface, uint32_t code,
	const char *what)
{
	gint64 end = g_get_monotonic_time() + G_USEC_PER_SEC;
	while (wl_display_get_error(c->display) == 0 && g_get_monotonic_time() < end) {
		if (wl_display_roundtrip(c->display) >= 0)
			g_usleep(5000);
	}
	int err = wl_display_get_error(c->display);
	if (err == 0)
		g_error("%s: no protocol error within 1 s", what);
	if (!interface)
		return;
	if (interface == &wl_display_interface) {
		/* libwayland-client reports wl_display's own errors as errno only. */
		g_assert_cmpint(code, ==, WL_DISPLAY_ERROR_INVALID_OBJECT);
		if (err != EINVAL)
			g_error("%s: %s, not wl_display.invalid_object", what, g_strerror(err));
		return;
	}
	const struct wl_interface *got = NULL;
	uint32_t id = 0;
	uint32_t got_code = wl_display_get_protocol_error(c->display, &got, &id);
	if (err != EPROTO || !got)
		g_error("%s: connection failed (%s), not a protocol error of %s", what,
			g_strerror(err), interface->name);
	if (strcmp(got->name, interface->name) != 0 || got_code != code)
		g_error("%s: error %u on %s@%u, not %u on %s", what, got_code, got->name, id, code,
			interface->name);
	g_test_message("%s: error %u on %s", what, got_code, got->name);
}

void
expect_ok(struct raw *c, const char *what)
{
	if (wl_display_roundtrip(c->display) < 0)
		g_error("%s: the connection failed: %s", what, g_strerror(wl_display_get_error(
			c->display)));
}

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	((struct raw *)data)->configure_serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = { xdg_surface_configure };

static void
toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *s)
{
}

static void
toplevel_close(void *data, struct xdg_toplevel *t)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	toplevel_configure, toplevel_close,
};

static void
wm_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_listener = { wm_ping };

/* A fullscreen toplevel, its first configure acknowledged, nothing attached yet. */
struct wl_surface *
raw_toplevel(struct raw *c, struct xdg_surface **xdg_out)
{
	xdg_wm_base_add_listener(c->wm_base, &wm_listener, c);
	struct wl_surface *surface = track(c, wl_compositor_create_surface(c->compositor));
	struct xdg_surface *xdg = track(c, xdg_wm_base_get_xdg_surface(c->wm_base, surface));
	xdg_surface_add_listener(xdg, &xdg_surface_listener, c);
	struct xdg_toplevel *toplevel = track(c, xdg_surface_get_toplevel(xdg));
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, c);
	c->configure_serial = 0;
	wl_surface_commit(surface);
	while (!c->configure_serial)
		g_assert_cmpint(wl_display_dispatch(c->display), >=, 0);
	xdg_surface_ack_configure(xdg, c->configure_serial);
	if (xdg_out)
		*xdg_out = xdg;
	return surface;
}

int
raw_memfd(size_t size)
{
	int fd = memfd_create("wl-fuzz", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	return fd;
}

/* A pool of @size bytes (a memfd of @file bytes) and one buffer in it; the pool is kept. */
struct wl_buffer *
shm_buffer(struct raw *c, int32_t size, size_t file, int32_t offset, int32_t width,
	int32_t height, int32_t stride, int *fd_out)
{
	int fd = raw_memfd(file);
	struct wl_shm_pool *pool = track(c, wl_shm_create_pool(c->shm, fd, size));
	struct wl_buffer *buffer = track(c, wl_shm_pool_create_buffer(pool, offset, width, height,
		stride, WL_SHM_FORMAT_XRGB8888));
	/* The pool stays: errors about the buffer are posted on it. */
	if (fd_out)
		*fd_out = fd;
	else
		close(fd);
	return buffer;
}

