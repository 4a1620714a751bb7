/*
 * The compositor's zwp_linux_dmabuf_v1 (service/compositor/dmabuf.c) as a
 * client sees it: a real wl_display on a socket and real libwayland-client
 * connections in the same thread, the server dispatched between client
 * reads (wl-loop.h). Feedback (main device, the mapped format table,
 * tranches), the events older versions get, buffers made with create and
 * create_immed as the compositor sees them, each protocol error by its code,
 * and that nothing a client leaves behind keeps a file descriptor open.
 */
#include <drm_fourcc.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <wayland-client.h>
#include <wayland-server.h>

#include "dmabuf.h"
#include "error.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "wl-loop.h"

#define W 64
#define H 32
#define STRIDE (W * 4)
#define X_TILED I915_FORMAT_MOD_X_TILED
#define LIN DRM_FORMAT_MOD_LINEAR
#define XR24 DRM_FORMAT_XRGB8888

static const struct umms_dmabuf_format scanout_formats[] = {
	{ XR24, LIN },
	{ DRM_FORMAT_ARGB8888, LIN },
};
/* XRGB8888 linear again: the table holds it once, both tranches point at it. */
static const struct umms_dmabuf_format render_formats[] = {
	{ XR24, LIN },
	{ DRM_FORMAT_NV12, LIN },
	{ XR24, X_TILED },
};
static const struct umms_dmabuf_tranche the_tranches[] = {
	{ .device = 0xe200, .scanout = true, .formats = scanout_formats, .n_formats = 2 },
	{ .device = 0xe280, .scanout = false, .formats = render_formats, .n_formats = 3 },
};
static const struct umms_dmabuf_feedback the_feedback = {
	.main_device = 0xe280, .tranches = the_tranches, .n_tranches = 2,
};
/* As the tests below write it (X-tiled is 0x0100000000000001). */
#define THE_TABLE " XR24:0 AR24:0 NV12:0 XR24:100000000000001"
#define THE_TRANCHES "e200 scanout XR24:0 AR24:0; e280 XR24:0 NV12:0 XR24:100000000000001; "

/* " XR24:0": a format and its modifier (hexadecimal). */
static void
append_format(GString *text, uint32_t format, uint64_t modifier)
{
	char fourcc[5] = { 0 };
	memcpy(fourcc, &format, 4);
	g_string_append_printf(text, " %s:%" PRIx64, fourcc, modifier);
}

/* ---- the server: the module under test on an in-process display (wl-loop.h) ---- */

struct server {
	struct umms_wl_loop wl;
	struct umms_dmabuf *dmabuf;
	struct wl_global *compositor;
};

/* Just enough wl_compositor for get_surface_feedback to have a surface (never used). */
static void
create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	wl_resource_create(client, &wl_surface_interface, 1, id);
}

static const struct wl_compositor_interface compositor_impl = { .create_surface = create_surface };

static void
bind_compositor(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface, 1, id);
	wl_resource_set_implementation(resource, &compositor_impl, NULL, NULL);
}

static struct server *
server_start(void)
{
	struct server *server = g_new0(struct server, 1);
	umms_wl_loop_start(&server->wl);
	server->compositor = wl_global_create(server->wl.display, &wl_compositor_interface, 1,
		NULL, bind_compositor);
	GError *error = NULL;
	server->dmabuf = umms_dmabuf_create(server->wl.display, &the_feedback, &error);
	g_assert_no_error(error);
	g_assert_nonnull(server->dmabuf);
	return server;
}

static void
server_stop(struct server *server)
{
	umms_dmabuf_destroy(server->dmabuf);
	umms_wl_loop_stop(&server->wl);
	g_free(server);
}

/* ---- clients, dispatched in turn with the server -------------------------- */

struct client {
	struct umms_wl_conn conn;
	struct wl_registry *registry;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct wl_compositor *compositor;
	uint32_t version;
	GString *legacy;        /* format (" XR24") and modifier (" XR24:0") events */
};

static bool
roundtrip(struct client *client)
{
	return umms_wl_conn_roundtrip(&client->conn);
}

static void
legacy_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format)
{
	struct client *client = data;
	char fourcc[5] = { 0 };
	memcpy(fourcc, &format, 4);
	g_string_append_printf(client->legacy, " %s", fourcc);
}

static void
legacy_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format,
	uint32_t hi, uint32_t lo)
{
	struct client *client = data;
	append_format(client->legacy, format, ((uint64_t)hi << 32) | lo);
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = legacy_format,
	.modifier = legacy_modifier,
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	struct client *client = data;
	if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0) {
		g_assert_cmpuint(version, ==, 4);
		client->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface,
			client->version);
		zwp_linux_dmabuf_v1_add_listener(client->dmabuf, &dmabuf_listener, client);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		client->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
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

static struct client *
client_connect(struct server *server, uint32_t version)
{
	struct client *client = g_new0(struct client, 1);
	client->version = version;
	client->legacy = g_string_new(NULL);
	umms_wl_conn_open(&client->conn, &server->wl);
	client->registry = wl_display_get_registry(client->conn.display);
	wl_registry_add_listener(client->registry, &registry_listener, client);
	g_assert_true(roundtrip(client));
	g_assert_nonnull(client->dmabuf);
	g_assert_true(roundtrip(client));   /* the events of the bind */
	return client;
}

/* Disconnects (proxies are freed with the display) and waits for the server to let go. */
static void
client_disconnect(struct client *client)
{
	if (client->dmabuf)
		zwp_linux_dmabuf_v1_destroy(client->dmabuf);
	if (client->compositor)
		wl_compositor_destroy(client->compositor);
	wl_registry_destroy(client->registry);
	umms_wl_conn_close(&client->conn);
	g_string_free(client->legacy, TRUE);
	g_free(client);
}

/* The server's view of a client's wl_buffer. */
static struct umms_dmabuf_buffer *
server_buffer(struct client *client, struct wl_buffer *buffer)
{
	struct wl_resource *resource = umms_wl_conn_resource(&client->conn, buffer);
	g_assert_nonnull(resource);
	return umms_dmabuf_buffer_from_resource(resource);
}

/* Expects the connection to have ended with zwp_linux_buffer_params_v1 error @code. */
static void
assert_params_error(struct client *client, uint32_t code)
{
	umms_wl_conn_assert_error(&client->conn, &zwp_linux_buffer_params_v1_interface, code);
}

static int
make_memfd(size_t size)
{
	int fd = memfd_create("test-dmabuf", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	return fd;
}

/* ---- feedback as a client receives it, as text ------------------------------ */

struct feedback_seen {
	struct zwp_linux_dmabuf_feedback_v1 *feedback;
	dev_t main_device;
	struct umms_dmabuf_format table[8];     /* read from the mapped table */
	unsigned n_table;
	bool table_sealed;
	GString *receiving;
	GString *tranches;      /* "e200 scanout XR24:0; e280 NV12:0; " as of the last done */
	int dones;
};

static dev_t
array_device(struct wl_array *array)
{
	dev_t device;
	g_assert_cmpuint(array->size, ==, sizeof(device));
	memcpy(&device, array->data, sizeof(device));
	return device;
}

static void
fb_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	struct feedback_seen *seen = data;
	seen->dones++;
	g_string_assign(seen->tranches, seen->receiving->str);
	g_string_truncate(seen->receiving, 0);
}

static void
fb_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback, int32_t fd,
	uint32_t size)
{
	struct feedback_seen *seen = data;
	g_assert_cmpuint(size % 16, ==, 0);
	g_assert_cmpuint(size / 16, <=, G_N_ELEMENTS(seen->table));
	int seals = fcntl(fd, F_GET_SEALS);
	seen->table_sealed = seals >= 0 && (seals & F_SEAL_WRITE) && (seals & F_SEAL_SHRINK) &&
		(seals & F_SEAL_GROW);
	/* As the protocol tells clients to: read-only, private. */
	const uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	g_assert_true(map != MAP_FAILED);
	close(fd);
	seen->n_table = size / 16;
	for (unsigned i = 0; i < seen->n_table; i++) {
		memcpy(&seen->table[i].format, map + 16 * i, 4);
		memcpy(&seen->table[i].modifier, map + 16 * i + 8, 8);
	}
	munmap((void *)map, size);
}

static void
fb_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback, struct wl_array *device)
{
	((struct feedback_seen *)data)->main_device = array_device(device);
}

static void
fb_tranche_target_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
	struct wl_array *device)
{
	struct feedback_seen *seen = data;
	g_string_append_printf(seen->receiving, "%jx", (uintmax_t)array_device(device));
}

static void
fb_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback, uint32_t flags)
{
	struct feedback_seen *seen = data;
	if (flags & ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT)
		g_string_append(seen->receiving, " scanout");
}

/* Indices resolved in the table. */
static void
fb_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback,
	struct wl_array *indices)
{
	struct feedback_seen *seen = data;
	const uint16_t *index;
	wl_array_for_each(index, indices) {
		g_assert_cmpuint(*index, <, seen->n_table);
		append_format(seen->receiving, seen->table[*index].format,
			seen->table[*index].modifier);
	}
}

static void
fb_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	g_string_append(((struct feedback_seen *)data)->receiving, "; ");
}

static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_listener = {
	.done = fb_done,
	.format_table = fb_format_table,
	.main_device = fb_main_device,
	.tranche_done = fb_tranche_done,
	.tranche_target_device = fb_tranche_target_device,
	.tranche_formats = fb_tranche_formats,
	.tranche_flags = fb_tranche_flags,
};

static void
feedback_watch(struct feedback_seen *seen, struct zwp_linux_dmabuf_feedback_v1 *feedback)
{
	memset(seen, 0, sizeof(*seen));
	seen->feedback = feedback;
	seen->receiving = g_string_new(NULL);
	seen->tranches = g_string_new(NULL);
	zwp_linux_dmabuf_feedback_v1_add_listener(feedback, &feedback_listener, seen);
}

static void
feedback_unwatch(struct feedback_seen *seen)
{
	if (seen->feedback)
		zwp_linux_dmabuf_feedback_v1_destroy(seen->feedback);
	g_string_free(seen->receiving, TRUE);
	g_string_free(seen->tranches, TRUE);
}

/* The feedback as of the last done: the table, sealed, and the tranches in it. */
static void
assert_feedback(const struct feedback_seen *seen, dev_t main_device, const char *table,
	const char *tranches)
{
	g_assert_cmpint(seen->dones, >=, 1);
	g_assert_true(seen->table_sealed);
	g_assert_cmpuint(seen->main_device, ==, main_device);
	g_autoptr(GString) text = g_string_new(NULL);
	for (unsigned i = 0; i < seen->n_table; i++)
		append_format(text, seen->table[i].format, seen->table[i].modifier);
	g_assert_cmpstr(text->str, ==, table);
	g_assert_cmpstr(seen->tranches->str, ==, tranches);
}

/* A params object whose created/failed land in @made. */
struct made {
	struct wl_buffer *buffer;
	bool failed;
};

static void
params_created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer)
{
	((struct made *)data)->buffer = buffer;
}

static void
params_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	((struct made *)data)->failed = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_listener = {
	.created = params_created,
	.failed = params_failed,
};

static struct zwp_linux_buffer_params_v1 *
params_new(struct client *client, struct made *made)
{
	struct zwp_linux_buffer_params_v1 *params =
		zwp_linux_dmabuf_v1_create_params(client->dmabuf);
	memset(made, 0, sizeof(*made));
	zwp_linux_buffer_params_v1_add_listener(params, &params_listener, made);
	return params;
}

static void
params_add(struct zwp_linux_buffer_params_v1 *params, int fd, uint32_t plane, uint32_t offset,
	uint32_t stride, uint64_t modifier)
{
	zwp_linux_buffer_params_v1_add(params, fd, plane, offset, stride,
		(uint32_t)(modifier >> 32), (uint32_t)modifier);
}

/* An XRGB8888 W×H buffer made with `create`; NULL if it `failed`. */
static struct wl_buffer *
make_buffer(struct client *client, int fd, uint64_t modifier, uint32_t flags)
{
	struct made made;
	struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
	params_add(params, fd, 0, 0, STRIDE, modifier);
	zwp_linux_buffer_params_v1_create(params, W, H, XR24, flags);
	g_assert_true(roundtrip(client));
	zwp_linux_buffer_params_v1_destroy(params);
	g_assert_true(made.failed != (made.buffer != NULL));
	return made.buffer;
}

static void
test_feedback(void)
{
	struct server *server = server_start();
	struct client *client = client_connect(server, 4);
	struct feedback_seen by_default, by_surface;
	feedback_watch(&by_default, zwp_linux_dmabuf_v1_get_default_feedback(client->dmabuf));
	struct wl_surface *surface = wl_compositor_create_surface(client->compositor);
	feedback_watch(&by_surface,
		zwp_linux_dmabuf_v1_get_surface_feedback(client->dmabuf, surface));
	g_assert_true(roundtrip(client));

	/* XRGB8888 linear is in the table once, for both tranches. */
	assert_feedback(&by_default, 0xe280, THE_TABLE, THE_TRANCHES);
	/* A surface gets the default feedback for now. */
	assert_feedback(&by_surface, 0xe280, THE_TABLE, THE_TRANCHES);
	/* Version 4 gets feedback only, never the deprecated events. */
	g_assert_cmpstr(client->legacy->str, ==, "");

	/* The planes changed: NV12 scans out now, nothing else is taken. Every object hears it. */
	static const struct umms_dmabuf_format nv12[] = { { DRM_FORMAT_NV12, LIN } };
	static const struct umms_dmabuf_tranche one = {
		.device = 0xe200, .scanout = true, .formats = nv12, .n_formats = 1,
	};
	static const struct umms_dmabuf_feedback next = {
		.main_device = 0xe200, .tranches = &one, .n_tranches = 1,
	};
	GError *error = NULL;
	g_assert_true(umms_dmabuf_set_feedback(server->dmabuf, &next, &error));
	g_assert_no_error(error);
	g_assert_true(roundtrip(client));
	assert_feedback(&by_default, 0xe200, " NV12:0", "e200 scanout NV12:0; ");
	assert_feedback(&by_surface, 0xe200, " NV12:0", "e200 scanout NV12:0; ");
	g_assert_cmpint(by_default.dones + by_surface.dones, ==, 4);

	/* Feedback without tranches or formats is refused; what is in force stays, unsent. */
	static const struct umms_dmabuf_tranche no_formats = { .device = 0xe200 };
	const struct umms_dmabuf_feedback bad[] = {
		{ .main_device = 0xe200 },
		{ .main_device = 0xe200, .tranches = &no_formats, .n_tranches = 1 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_assert_null(umms_dmabuf_create(server->wl.display, &bad[i], &error));
		g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
		g_clear_error(&error);
		g_assert_false(umms_dmabuf_set_feedback(server->dmabuf, &bad[i], &error));
		g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
		g_clear_error(&error);
	}
	umms_dmabuf_destroy(NULL);
	g_assert_true(roundtrip(client));
	g_assert_cmpint(by_default.dones, ==, 2);

	/* Buffers are checked against the table in force: XRGB8888 is gone from it. */
	int fd = make_memfd(STRIDE * H);
	struct made made;
	struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
	params_add(params, fd, 0, 0, STRIDE, LIN);
	zwp_linux_buffer_params_v1_create(params, W, H, XR24, 0);
	assert_params_error(client, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT);
	close(fd);

	zwp_linux_buffer_params_v1_destroy(params);
	feedback_unwatch(&by_default);
	feedback_unwatch(&by_surface);
	wl_proxy_destroy((struct wl_proxy *)surface);   /* no request: it has no implementation */
	client_disconnect(client);
	server_stop(server);
}

static void
test_legacy_versions(void)
{
	struct server *server = server_start();
	/* Version 3: one modifier event per row of the table; version 2 each format once. */
	struct client *v3 = client_connect(server, 3);
	g_assert_cmpstr(v3->legacy->str, ==, THE_TABLE);
	struct client *v2 = client_connect(server, 2);
	g_assert_cmpstr(v2->legacy->str, ==, " XR24 AR24 NV12");

	/* An advertised tiled modifier takes one plane; version 2 never heard of modifiers. */
	int fd = make_memfd(STRIDE * H);
	struct wl_buffer *tiled = make_buffer(v3, fd, X_TILED, 0);
	g_assert_nonnull(tiled);
	g_assert_cmpuint(server_buffer(v3, tiled)->modifier, ==, X_TILED);
	struct wl_buffer *implicit = make_buffer(v2, fd, DRM_FORMAT_MOD_INVALID, 0);
	g_assert_nonnull(implicit);
	close(fd);

	wl_buffer_destroy(tiled);
	wl_buffer_destroy(implicit);
	client_disconnect(v3);
	client_disconnect(v2);
	server_stop(server);
}

/* ---- buffers ----------------------------------------------------------------- */

static int buffers_destroyed;

static void
buffer_destroyed(struct wl_listener *listener, void *data)
{
	struct umms_dmabuf_buffer *buffer = data;
	/* Listeners come first: the fds are still open. */
	for (int i = 0; i < buffer->n_planes; i++)
		g_assert_cmpint(fcntl(buffer->fds[i], F_GETFD), !=, -1);
	buffers_destroyed++;
	wl_list_remove(&listener->link);
	g_free(listener);
}

static void
watch_buffer(struct umms_dmabuf_buffer *buffer)
{
	struct wl_listener *listener = g_new0(struct wl_listener, 1);
	listener->notify = buffer_destroyed;
	wl_signal_add(&buffer->events.destroy, listener);
}

static void
test_buffers(void)
{
	struct server *server = server_start();
	unsigned fds_before = umms_wl_loop_fd_count();
	struct client *client = client_connect(server, 4);

	/* create: a `created` event with the wl_buffer. */
	int fd = make_memfd(STRIDE * H);
	struct wl_buffer *created = make_buffer(client, fd, LIN,
		ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT);
	g_assert_nonnull(created);

	struct umms_dmabuf_buffer *buffer = server_buffer(client, created);
	g_assert_nonnull(buffer);
	g_assert_cmpint(buffer->width, ==, W);
	g_assert_cmpint(buffer->height, ==, H);
	g_assert_cmpuint(buffer->format, ==, XR24);
	g_assert_cmpuint(buffer->modifier, ==, LIN);
	g_assert_cmpuint(buffer->flags, ==, ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT);
	g_assert_cmpint(buffer->n_planes, ==, 1);
	g_assert_cmpuint(buffer->offsets[0], ==, 0);
	g_assert_cmpuint(buffer->strides[0], ==, STRIDE);
	g_assert_cmpint(buffer->fds[0], >=, 0);
	g_assert_cmpint(buffer->fds[1], ==, -1);
	g_assert_true(buffer->resource == umms_wl_conn_resource(&client->conn, created));

	/* create_immed: NV12 in one memfd, planes added in any order. */
	int nv12 = make_memfd(W * H * 3 / 2);
	struct made made;
	struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
	params_add(params, nv12, 1, W * H, W, LIN);
	params_add(params, nv12, 0, 0, W, LIN);
	struct wl_buffer *immed = zwp_linux_buffer_params_v1_create_immed(params, W, H,
		DRM_FORMAT_NV12, 0);
	g_assert_true(roundtrip(client));
	zwp_linux_buffer_params_v1_destroy(params);
	g_assert_false(made.failed);
	struct umms_dmabuf_buffer *planar = server_buffer(client, immed);
	g_assert_nonnull(planar);
	g_assert_cmpuint(planar->format, ==, DRM_FORMAT_NV12);
	g_assert_cmpint(planar->n_planes, ==, 2);
	g_assert_cmpuint(planar->offsets[0], ==, 0);
	g_assert_cmpuint(planar->offsets[1], ==, W * H);
	g_assert_cmpuint(planar->strides[1], ==, W);
	g_assert_cmpint(planar->fds[0], !=, planar->fds[1]);

	/* Other resources are not dma-buf buffers. */
	g_assert_null(umms_dmabuf_buffer_from_resource(NULL));
	g_assert_null(umms_dmabuf_buffer_from_resource(umms_wl_conn_resource(&client->conn,
		client->dmabuf)));

	/* Trouble that is not the client's fault (flags unknown here) is `failed`. */
	g_assert_null(make_buffer(client, fd, LIN, 0x100));

	/* wl_buffer.destroy (the client is still there): events.destroy, then the fds go. */
	buffers_destroyed = 0;
	watch_buffer(buffer);
	watch_buffer(planar);
	wl_buffer_destroy(created);
	wl_buffer_destroy(immed);
	g_assert_true(roundtrip(client));
	g_assert_cmpint(buffers_destroyed, ==, 2);

	close(fd);
	close(nv12);
	client_disconnect(client);
	g_assert_cmpuint(umms_wl_loop_fd_count(), ==, fds_before);
	server_stop(server);
}

struct error_case {
	const char *what;
	uint32_t code;
	struct { uint32_t index, offset, stride; uint64_t modifier; } planes[2];
	int n_planes;
	uint32_t format;
	int32_t width, height;
	uint32_t flags;
	const char *then;       /* after the adds: c create, i create_immed, a add plane 1 */
};

#define E(name) ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_##name
#define ONE_PLANE { { 0, 0, STRIDE, LIN } }, 1

static const struct error_case error_cases[] = {
	{ "plane index over 3", E(PLANE_IDX), { { 4, 0, STRIDE, LIN } }, 1, XR24, W, H, 0, "" },
	{ "plane set twice", E(PLANE_SET), { { 0, 0, STRIDE, LIN }, { 0, 0, STRIDE, LIN } }, 2,
		XR24, W, H, 0, "" },
	{ "plane 1 without plane 0", E(INCOMPLETE), { { 1, 0, STRIDE, LIN } }, 1, XR24, W, H, 0, "c" },
	{ "NV12 with one plane", E(INCOMPLETE), ONE_PLANE, DRM_FORMAT_NV12, W, H, 0, "c" },
	{ "a format not advertised", E(INVALID_FORMAT), ONE_PLANE, DRM_FORMAT_ABGR8888, W, H, 0, "c" },
	{ "a modifier not advertised for the format", E(INVALID_FORMAT),
		{ { 0, 0, STRIDE, X_TILED } }, 1, DRM_FORMAT_ARGB8888, W, H, 0, "c" },
	{ "planes with different modifiers", E(INVALID_FORMAT),
		{ { 0, 0, STRIDE, LIN }, { 1, 0, STRIDE, X_TILED } }, 2, DRM_FORMAT_NV12, W, H, 0, "" },
	{ "width 0", E(INVALID_DIMENSIONS), ONE_PLANE, XR24, 0, H, 0, "c" },
	{ "negative height, immediately", E(INVALID_DIMENSIONS), ONE_PLANE, XR24, W, -H, 0, "i" },
	{ "one row past the end", E(OUT_OF_BOUNDS), ONE_PLANE, XR24, W, H + 1, 0, "c" },
	{ "an offset past the end", E(OUT_OF_BOUNDS), { { 0, 4096, STRIDE, LIN } }, 1,
		XR24, W, H, 0, "c" },
	{ "offset + stride overflowing", E(OUT_OF_BOUNDS), { { 0, 0xfffff000u, 0x2000, LIN } }, 1,
		XR24, W, 1, 0, "c" },
	{ "create twice", E(ALREADY_USED), ONE_PLANE, XR24, W, H, 0, "cc" },
	{ "add after create", E(ALREADY_USED), ONE_PLANE, XR24, W, H, 0, "ca" },
	/* Not a client bug, but create_immed has no `failed` to answer with. */
	{ "unknown flags, immediately", E(INVALID_WL_BUFFER), ONE_PLANE, XR24, W, H, 0x100, "i" },
};

static void
test_errors(void)
{
	struct server *server = server_start();
	struct client *bystander = client_connect(server, 4);
	unsigned fds_before = umms_wl_loop_fd_count();
	for (size_t i = 0; i < G_N_ELEMENTS(error_cases); i++) {
		const struct error_case *c = &error_cases[i];
		g_test_message("%s", c->what);
		struct client *client = client_connect(server, 4);
		int fd = make_memfd(STRIDE * H);
		struct made made;
		struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
		for (int j = 0; j < c->n_planes; j++)
			params_add(params, fd, c->planes[j].index, c->planes[j].offset,
				c->planes[j].stride, c->planes[j].modifier);
		for (const char *then = c->then; *then; then++) {
			if (*then == 'c')
				zwp_linux_buffer_params_v1_create(params, c->width, c->height,
					c->format, c->flags);
			/* `created` is dispatched (and its wl_buffer freed below) before the error. */
			if (*then == 'c' && then[1])
				g_assert_true(roundtrip(client));
			else if (*then == 'i')
				wl_buffer_destroy(zwp_linux_buffer_params_v1_create_immed(params,
					c->width, c->height, c->format, c->flags));
			else
				params_add(params, fd, 1, 0, STRIDE, LIN);
		}
		assert_params_error(client, c->code);
		close(fd);
		zwp_linux_buffer_params_v1_destroy(params);
		if (made.buffer)
			wl_buffer_destroy(made.buffer);
		client_disconnect(client);
		/* Whatever the erring client sent went with it. */
		g_assert_cmpuint(umms_wl_loop_fd_count(), ==, fds_before);
	}
	/* The server still serves the client that did nothing wrong. */
	int fd = make_memfd(STRIDE * H);
	struct wl_buffer *buffer = make_buffer(bystander, fd, LIN, 0);
	g_assert_nonnull(buffer);
	close(fd);
	wl_buffer_destroy(buffer);
	client_disconnect(bystander);
	server_stop(server);
}

/* A client that goes with live buffers and half-made params leaves no fd open. */
static void
test_disconnect(void)
{
	struct server *server = server_start();
	unsigned fds_before = umms_wl_loop_fd_count();
	struct client *client = client_connect(server, 4);
	int fd = make_memfd(STRIDE * H);
	struct wl_buffer *created = make_buffer(client, fd, LIN, 0);
	g_assert_nonnull(created);
	struct made made;
	struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
	params_add(params, fd, 0, 0, STRIDE, LIN);
	struct wl_buffer *immed = zwp_linux_buffer_params_v1_create_immed(params, W, H, XR24, 0);
	struct zwp_linux_buffer_params_v1 *pending = params_new(client, &made);
	params_add(pending, fd, 0, 0, STRIDE, LIN);
	struct feedback_seen seen;
	feedback_watch(&seen, zwp_linux_dmabuf_v1_get_default_feedback(client->dmabuf));
	g_assert_true(roundtrip(client));
	close(fd);
	g_assert_cmpuint(umms_wl_loop_fd_count(), >, fds_before);

	buffers_destroyed = 0;
	watch_buffer(server_buffer(client, created));
	watch_buffer(server_buffer(client, immed));
	/* The client frees its proxies but sends no destroy request. */
	wl_proxy_destroy((struct wl_proxy *)created);
	wl_proxy_destroy((struct wl_proxy *)immed);
	wl_proxy_destroy((struct wl_proxy *)params);
	wl_proxy_destroy((struct wl_proxy *)pending);
	wl_proxy_destroy((struct wl_proxy *)seen.feedback);
	seen.feedback = NULL;
	feedback_unwatch(&seen);
	client_disconnect(client);
	g_assert_cmpint(buffers_destroyed, ==, 2);
	g_assert_cmpuint(umms_wl_loop_fd_count(), ==, fds_before);
	server_stop(server);
}

/* The global goes while a client holds its objects: they stay, inert; buffers stay whole. */
static void
test_global_gone(void)
{
	struct server *server = server_start();
	struct client *client = client_connect(server, 4);
	int fd = make_memfd(STRIDE * H);
	struct wl_buffer *buffer = make_buffer(client, fd, LIN, 0);
	struct made made;
	struct zwp_linux_buffer_params_v1 *params = params_new(client, &made);
	params_add(params, fd, 0, 0, STRIDE, LIN);
	struct feedback_seen seen;
	feedback_watch(&seen, zwp_linux_dmabuf_v1_get_default_feedback(client->dmabuf));
	g_assert_true(roundtrip(client));

	umms_dmabuf_destroy(server->dmabuf);
	server->dmabuf = NULL;
	zwp_linux_buffer_params_v1_create(params, W, H, XR24, 0);
	g_assert_true(roundtrip(client));
	g_assert_true(made.failed);
	g_assert_null(make_buffer(client, fd, LIN, 0));
	struct feedback_seen late;
	feedback_watch(&late, zwp_linux_dmabuf_v1_get_default_feedback(client->dmabuf));
	g_assert_true(roundtrip(client));
	g_assert_cmpint(late.dones + seen.dones, ==, 1);
	g_assert_nonnull(server_buffer(client, buffer));

	close(fd);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_destroy(buffer);
	feedback_unwatch(&late);
	feedback_unwatch(&seen);
	client_disconnect(client);
	server_stop(server);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	/* wl_display_add_socket_auto and wl_display_connect meet in a folder of our own. */
	g_autofree char *runtime = g_dir_make_tmp("umms-test-dmabuf-XXXXXX", NULL);
	g_assert_nonnull(runtime);
	g_setenv("XDG_RUNTIME_DIR", runtime, TRUE);

	g_test_add_func("/dmabuf/feedback", test_feedback);
	g_test_add_func("/dmabuf/legacy-versions", test_legacy_versions);
	g_test_add_func("/dmabuf/buffers", test_buffers);
	g_test_add_func("/dmabuf/errors", test_errors);
	g_test_add_func("/dmabuf/disconnect", test_disconnect);
	g_test_add_func("/dmabuf/global-gone", test_global_gone);
	int result = g_test_run();
	g_rmdir(runtime);
	return result;
}
