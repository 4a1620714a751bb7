/*
 * Hostile Wayland clients of ummsd's compositor and video socket (issue
 * 15): wl_shm buffers whose strides, offsets and sizes are off by one
 * each way, a pipe for a pool, a memfd shrunk under its pool, xdg_shell
 * misuse, subsurface cycles, umms_video_v1 requests out of order or out
 * of range, linux-dmabuf params with bad planes, raw bytes with bad object
 * ids, connections over video.max-clients, then a seeded random phase.
 *
 * ummsd runs in this process on the headless screen (--renderer=gles2 or
 * pixman): a crash of the service is a crash of the test. Each hostile
 * client must get its protocol error (or be disconnected) within a second;
 * after each case a well-behaved shell client (shell.h) paints the screen
 * and Display1.Capture must show its colour, so the service still serves.
 *
 * The random phase runs RANDOM_RUNS sequences; UMMS_TEST_LONG (any value)
 * makes it LONG_RUNS, for a campaign by hand. UMMS_TEST_SEED sets the seed
 * (printed, so that a failing run can be repeated). The raw client is
 * wl-raw.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <wayland-client.h>

#include "harness.h"
#include "image.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "shell.h"
#include "umms-video-v1-client-protocol.h"
#include "wl-raw.h"
#include "xdg-shell-client-protocol.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"
#define MODE_W 640
#define MODE_H 360
#define MAX_CLIENTS 12
#define RANDOM_RUNS 300
#define LONG_RUNS 20000
/* wl_subcompositor.bad_parent (wayland 1.22's XML; older headers lack the name). */
#define SUBCOMPOSITOR_BAD_PARENT 1

static const char *renderer = "pixman";

/* ---- the service, and a client that behaves -------------------------------- */

static void
start(struct umms_test *t, gconstpointer data)
{
	umms_test_setup(t, data);
	g_autofree char *r = g_strdup_printf("display.renderer=%s", renderer);
	g_autofree char *m = g_strdup_printf("display.mode=%dx%d", MODE_W, MODE_H);
	g_autofree char *max = g_strdup_printf("video.max-clients=%d", MAX_CLIENTS);
	const char *const overrides[] = { "display.enabled=true", "display.headless=true", r, m,
		"display.compositor=true", "display.input=false", max, NULL };
	umms_test_restart(t, overrides);
}

/* A new client paints the screen @rgb: Capture must show it, so the service serves. */
static void
assert_serves(struct umms_test *t, uint32_t rgb, const char *what)
{
	struct shell *s = shell_connect();
	shell_map(s);
	shell_draw(s, rgb, NULL);
	g_autofree char *path = g_strdup_printf("%s/after-%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	umms_test_image_assert_pixel(image, MODE_W / 2, MODE_H / 2, rgb, 4, what);
	umms_test_image_free(image);
	shell_free(s);
}

/* Each case: a fresh raw client abuses the service, then a good one is served. */
typedef void (*abuse_fn)(struct raw *c);

static void
run_case(struct umms_test *t, abuse_fn abuse, const char *what)
{
	struct raw *c = raw_connect();
	abuse(c);
	raw_free(c);
	static uint32_t colour = 0x204060;
	colour = (colour + 0x1f2f3f) & 0xffffff;
	assert_serves(t, colour, what);
}

/* ---- wl_shm ---------------------------------------------------------------- */

#define BW 1920
#define BH 16

/* The crash of issue 15: stride 4096 for 1920 pixels of 4 bytes, which libwayland lets by. */
static void
shm_stride_under_row(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	struct wl_buffer *buffer = shm_buffer(c, 4096 * BH, 4096 * BH, 0, BW, BH, 4096, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_error(c, &wl_surface_interface, WL_SURFACE_ERROR_INVALID_SIZE, "stride < width*4");
}

/* stride = width, the least libwayland lets by: rows read 3 widths past the pool. */
static void
shm_stride_is_width(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	struct wl_buffer *buffer = shm_buffer(c, 8192 * 4, 8192 * 4, 0, 8192, 4, 8192, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_error(c, &wl_surface_interface, WL_SURFACE_ERROR_INVALID_SIZE, "stride = width");
}

static void
shm_stride_one_under(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	int32_t stride = BW * 4 - 1;
	struct wl_buffer *buffer = shm_buffer(c, stride * BH, stride * BH, 0, BW, BH, stride, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_error(c, &wl_surface_interface, WL_SURFACE_ERROR_INVALID_SIZE,
		"stride width*4 - 1");
}

/* Exactly the row, exactly the pool: fine, and drawn. */
static void
shm_exact(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	int32_t stride = BW * 4, size = stride * BH + 64;
	struct wl_buffer *buffer = shm_buffer(c, size, (size_t)size, 64, BW, BH, stride, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_ok(c, "exact stride and pool end");
	g_usleep(50000);
	expect_ok(c, "exact stride and pool end, drawn");
}

static void
shm_offset_one_over(struct raw *c)
{
	int32_t stride = BW * 4, size = stride * BH + 64;
	shm_buffer(c, size, (size_t)size, 65, BW, BH, stride, NULL);
	expect_error(c, &wl_shm_pool_interface, WL_SHM_ERROR_INVALID_STRIDE,
		"offset one past the pool");
}

static void
shm_bad_sizes(struct raw *c)
{
	static const int32_t cases[][4] = {   /* offset, width, height, stride */
		{ -1, 16, 16, 64 }, { 0, 0, 16, 64 }, { 0, 16, 0, 64 }, { 0, -16, 16, 64 },
		{ 0, 16, -16, 64 }, { 0, 16, 16, -64 }, { 0, 16, INT32_MAX, 64 },
		{ 0, INT32_MAX, 1, INT32_MAX }, { INT32_MAX, 1, 1, 4 }, { 0, 16, 16, 15 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct raw *one = raw_connect();
		const int32_t *b = cases[i];
		shm_buffer(one, 4096, 4096, b[0], b[1], b[2], b[3], NULL);
		g_autofree char *what = g_strdup_printf("buffer %d,%d,%d,%d", cases[i][0],
			cases[i][1], cases[i][2], cases[i][3]);
		expect_error(one, &wl_shm_pool_interface, WL_SHM_ERROR_INVALID_STRIDE, what);
		raw_free(one);
	}
	/* And on @c: pools of no size, a negative one, and shrinking one. */
	int fd = raw_memfd(4096);
	track(c, wl_shm_create_pool(c->shm, fd, 0));
	expect_error(c, &wl_shm_interface, WL_SHM_ERROR_INVALID_STRIDE, "pool of size 0");
	struct raw *neg = raw_connect();
	track(neg, wl_shm_create_pool(neg->shm, fd, -4096));
	expect_error(neg, &wl_shm_interface, WL_SHM_ERROR_INVALID_STRIDE, "pool of size -4096");
	raw_free(neg);
	struct raw *shrink = raw_connect();
	struct wl_shm_pool *pool = track(shrink, wl_shm_create_pool(shrink->shm, fd, 4096));
	wl_shm_pool_resize(pool, 4095);
	expect_error(shrink, &wl_shm_pool_interface, WL_SHM_ERROR_INVALID_FD, "pool shrunk");
	raw_free(shrink);
	close(fd);
}

static void
shm_pipe(struct raw *c)
{
	int p[2];
	g_assert_cmpint(pipe2(p, O_CLOEXEC), ==, 0);
	track(c, wl_shm_create_pool(c->shm, p[0], 4096));
	expect_error(c, &wl_shm_interface, WL_SHM_ERROR_INVALID_FD, "pool on a pipe");
	close(p[0]);
	close(p[1]);
}

/* A memfd shrunk to nothing after its pool was made, then its buffer shown. */
static void
shm_shrunk(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	int fd;
	int32_t stride = 256 * 4;
	struct wl_buffer *buffer = shm_buffer(c, stride * 256, (size_t)stride * 256, 0, 256, 256,
		stride, &fd);
	expect_ok(c, "pool made");
	g_assert_cmpint(ftruncate(fd, 0), ==, 0);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	/* libwayland's SIGBUS guard (begin_access) turns the read into this error. */
	expect_error(c, &wl_buffer_interface, WL_SHM_ERROR_INVALID_FD, "memfd shrunk");
	close(fd);
}

/* A pool resized past the end of its file: the buffer lies where nothing is. */
static void
shm_resized_past_file(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	int fd = raw_memfd(4096);
	struct wl_shm_pool *pool = track(c, wl_shm_create_pool(c->shm, fd, 4096));
	wl_shm_pool_resize(pool, 4096 + 64 * 64 * 4);
	struct wl_buffer *buffer = track(c, wl_shm_pool_create_buffer(pool, 4096, 64, 64, 256,
		WL_SHM_FORMAT_XRGB8888));
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_error(c, &wl_buffer_interface, WL_SHM_ERROR_INVALID_FD, "pool past its file");
	close(fd);
}

/* ---- xdg_shell and subsurfaces --------------------------------------------- */

static void
xdg_wrong_serial(struct raw *c)
{
	struct xdg_surface *xdg;
	raw_toplevel(c, &xdg);
	xdg_surface_ack_configure(xdg, c->configure_serial + 1000);
	expect_error(c, &xdg_surface_interface, XDG_SURFACE_ERROR_INVALID_SERIAL, "wrong serial");
}

static void
xdg_buffer_before_configure(struct raw *c)
{
	struct wl_surface *surface = track(c, wl_compositor_create_surface(c->compositor));
	struct xdg_surface *xdg = track(c, xdg_wm_base_get_xdg_surface(c->wm_base, surface));
	track(c, xdg_surface_get_toplevel(xdg));
	struct wl_buffer *buffer = shm_buffer(c, 64 * 64 * 4, 64 * 64 * 4, 0, 64, 64, 256, NULL);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_error(c, &xdg_surface_interface, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER,
		"buffer before configure");
}

static void
xdg_surface_destroyed_first(struct raw *c)
{
	struct xdg_surface *xdg;
	raw_toplevel(c, &xdg);
	untrack(c, xdg);
	xdg_surface_destroy(xdg);
	expect_error(c, NULL, 0, "xdg_surface destroyed before its toplevel");
}

static void
xdg_role_again(struct raw *c)
{
	struct xdg_surface *xdg;
	raw_toplevel(c, &xdg);
	track(c, xdg_surface_get_toplevel(xdg));
	expect_error(c, &xdg_surface_interface, XDG_SURFACE_ERROR_ALREADY_CONSTRUCTED,
		"second toplevel");
}

static void
xdg_subsurface_role(struct raw *c)
{
	struct wl_surface *parent = track(c, wl_compositor_create_surface(c->compositor));
	struct wl_surface *child = track(c, wl_compositor_create_surface(c->compositor));
	track(c, wl_subcompositor_get_subsurface(c->subcompositor, child, parent));
	track(c, xdg_wm_base_get_xdg_surface(c->wm_base, child));
	expect_error(c, &xdg_wm_base_interface, XDG_WM_BASE_ERROR_ROLE,
		"subsurface made xdg_surface");
}

static void
subsurface_own_parent(struct raw *c)
{
	struct wl_surface *a = track(c, wl_compositor_create_surface(c->compositor));
	track(c, wl_subcompositor_get_subsurface(c->subcompositor, a, a));
	expect_error(c, &wl_subcompositor_interface, SUBCOMPOSITOR_BAD_PARENT, "own parent");
}

static void
subsurface_cycle(struct raw *c)
{
	struct wl_surface *a = track(c, wl_compositor_create_surface(c->compositor));
	struct wl_surface *b = track(c, wl_compositor_create_surface(c->compositor));
	struct wl_surface *d = track(c, wl_compositor_create_surface(c->compositor));
	track(c, wl_subcompositor_get_subsurface(c->subcompositor, a, b));
	track(c, wl_subcompositor_get_subsurface(c->subcompositor, b, d));
	track(c, wl_subcompositor_get_subsurface(c->subcompositor, d, a));
	expect_error(c, &wl_subcompositor_interface, SUBCOMPOSITOR_BAD_PARENT,
		"a child of b child of d child of a");
}

/* ---- umms_video_v1 ----------------------------------------------------------- */

static void
video_unknown_serial(struct raw *c)
{
	struct umms_video_player_v1 *player = track(c,
		umms_video_manager_v1_create_player(c->video));
	umms_video_player_v1_presented(player, 12345, 0, 1, 0, 0, 0);
	expect_error(c, &umms_video_player_v1_interface, UMMS_VIDEO_PLAYER_V1_ERROR_UNKNOWN_SERIAL,
		"presented, never shown");
	struct raw *d = raw_connect();
	player = track(d, umms_video_manager_v1_create_player(d->video));
	umms_video_player_v1_discarded(player, 0);
	expect_error(d, &umms_video_player_v1_interface, UMMS_VIDEO_PLAYER_V1_ERROR_UNKNOWN_SERIAL,
		"discarded, never shown");
	raw_free(d);
}

static void
video_format_after_attach(struct raw *c)
{
	/* A path of nearly the largest message, of no player: failed, not an error. */
	char *path = g_malloc(3900);
	memset(path, '/', 3899);
	path[3899] = '\0';
	track(c, umms_video_manager_v1_attach(c->video, path));
	g_free(path);
	expect_ok(c, "attach to a huge path");
	umms_video_manager_v1_shm_format(c->video, WL_SHM_FORMAT_XRGB8888);
	expect_error(c, &umms_video_manager_v1_interface, UMMS_VIDEO_MANAGER_V1_ERROR_ATTACHED,
		"shm_format after attach");
}

static void
video_bad_place(struct raw *c)
{
	struct wl_surface *surface = raw_toplevel(c, NULL);
	struct umms_video_player_v1 *player = track(c,
		umms_video_manager_v1_create_player(c->video));
	umms_video_player_v1_place(player, surface, 0, 0, 64, 64, 77, 0);
	expect_error(c, &umms_video_player_v1_interface, UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE,
		"place with scale 77");
	struct raw *d = raw_connect();
	player = track(d, umms_video_manager_v1_create_player(d->video));
	umms_video_player_v1_set_subtitles(player, 0x80000000u);
	expect_error(d, &umms_video_player_v1_interface, UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE,
		"set_subtitles with unknown bits");
	raw_free(d);
}

/* Bytes libwayland-client would never send: an object that does not exist, a short header. */
static void
raw_bytes(struct raw *c)
{
	wl_display_flush(c->display);
	uint32_t bad_object[] = { 9999, (8u << 16) | 0 };
	g_assert_cmpint(send(wl_display_get_fd(c->display), bad_object, sizeof(bad_object),
		MSG_NOSIGNAL), ==, sizeof(bad_object));
	expect_error(c, &wl_display_interface, WL_DISPLAY_ERROR_INVALID_OBJECT, "object 9999");
	struct raw *d = raw_connect();
	wl_display_flush(d->display);
	/* wl_compositor.create_surface (opcode 0) with a new id far out of sequence. */
	uint32_t compositor = wl_proxy_get_id((struct wl_proxy *)d->compositor);
	uint32_t bad_id[] = { compositor, (12u << 16) | 0, 0xfe000000u };
	g_assert_cmpint(send(wl_display_get_fd(d->display), bad_id, sizeof(bad_id), MSG_NOSIGNAL),
		==, sizeof(bad_id));
	expect_error(d, NULL, 0, "new id out of sequence");
	raw_free(d);
	struct raw *e = raw_connect();
	wl_display_flush(e->display);
	uint32_t short_header[] = { 1, (4u << 16) | 0 };
	g_assert_cmpint(send(wl_display_get_fd(e->display), short_header, sizeof(short_header),
		MSG_NOSIGNAL), ==, sizeof(short_header));
	expect_error(e, NULL, 0, "message shorter than its header");
	raw_free(e);
}

/* ---- linux-dmabuf -------------------------------------------------------------- */

/*
 * Whether @c has zwp_linux_dmabuf_v1: only where this renderer imports
 * dma-bufs (pixman; gles2 on llvmpipe surfaceless imports none), which is
 * checked here, so that a missing global is not taken for a passed case.
 */
static bool
has_dmabuf(struct raw *c)
{
	g_autoptr(GArray) formats = shell_renderer_formats(renderer);
	g_assert_cmpuint(formats->len > 0, ==, c->dmabuf != NULL);
	if (!c->dmabuf)
		g_test_message("%s imports no dma-bufs: no zwp_linux_dmabuf_v1 to abuse", renderer);
	return c->dmabuf != NULL;
}

static void
dmabuf_bad_params(struct raw *c)
{
	if (!has_dmabuf(c))
		return;
	int fd = raw_memfd(64 * 64 * 4);
	struct zwp_linux_buffer_params_v1 *p = track(c,
		zwp_linux_dmabuf_v1_create_params(c->dmabuf));
	zwp_linux_buffer_params_v1_add(p, fd, 7, 0, 256, 0, 0);
	expect_error(c, &zwp_linux_buffer_params_v1_interface,
		ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX, "plane 7");
	static const struct { int32_t w, h; uint32_t offset, stride, code; const char *what; }
	cases[] = {
		{ 64, 64, 0, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET, "plane set twice" },
		{ 0, 64, 0, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS, "width 0" },
		{ 64, -1, 0, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_DIMENSIONS, "height -1" },
		{ 64, 64, 1, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS, "one byte past" },
		{ 64, 65, 0, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS, "one row past" },
		{ 64, 64, UINT32_MAX, 256, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_OUT_OF_BOUNDS,
			"offset 2^32-1" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct raw *d = raw_connect();
		p = track(d, zwp_linux_dmabuf_v1_create_params(d->dmabuf));
		zwp_linux_buffer_params_v1_add(p, fd, 0, cases[i].offset, cases[i].stride, 0, 0);
		if (i == 0)
			zwp_linux_buffer_params_v1_add(p, fd, 0, 0, 256, 0, 0);
		else
			track(d, zwp_linux_buffer_params_v1_create_immed(p, cases[i].w, cases[i].h,
				DRM_FORMAT_XRGB8888, 0));
		expect_error(d, &zwp_linux_buffer_params_v1_interface, cases[i].code, cases[i].what);
		raw_free(d);
	}
	struct raw *d = raw_connect();
	p = track(d, zwp_linux_dmabuf_v1_create_params(d->dmabuf));
	track(d, zwp_linux_buffer_params_v1_create_immed(p, 64, 64, DRM_FORMAT_XRGB8888, 0));
	expect_error(d, &zwp_linux_buffer_params_v1_interface,
		ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INCOMPLETE, "no planes");
	raw_free(d);
	close(fd);
}

/* A memfd sent as a linear dma-buf, then shrunk before it is drawn: not read past its end. */
static void
dmabuf_shrunk(struct raw *c)
{
	if (!has_dmabuf(c))
		return;
	struct wl_surface *surface = raw_toplevel(c, NULL);
	int fd = raw_memfd(64 * 64 * 4);
	struct zwp_linux_buffer_params_v1 *p = track(c,
		zwp_linux_dmabuf_v1_create_params(c->dmabuf));
	zwp_linux_buffer_params_v1_add(p, fd, 0, 0, 256, 0, 0);
	struct wl_buffer *buffer = track(c, zwp_linux_buffer_params_v1_create_immed(p, 64, 64,
		DRM_FORMAT_XRGB8888, 0));
	expect_ok(c, "memfd dma-buf made");
	g_assert_cmpint(ftruncate(fd, 0), ==, 0);
	wl_surface_attach(surface, buffer, 0, 0);
	wl_surface_commit(surface);
	expect_ok(c, "shrunk dma-buf committed");
	g_usleep(100000);
	expect_ok(c, "shrunk dma-buf drawn");
	close(fd);
}

/* ---- the tests --------------------------------------------------------------- */

static const struct { const char *name; abuse_fn fn; } cases[] = {
	{ "shm-stride-under-row", shm_stride_under_row },
	{ "shm-stride-is-width", shm_stride_is_width },
	{ "shm-stride-one-under", shm_stride_one_under },
	{ "shm-exact", shm_exact },
	{ "shm-offset-one-over", shm_offset_one_over },
	{ "shm-bad-sizes", shm_bad_sizes },
	{ "shm-pipe", shm_pipe },
	{ "shm-shrunk", shm_shrunk },
	{ "shm-resized-past-file", shm_resized_past_file },
	{ "xdg-wrong-serial", xdg_wrong_serial },
	{ "xdg-buffer-before-configure", xdg_buffer_before_configure },
	{ "xdg-surface-destroyed-first", xdg_surface_destroyed_first },
	{ "xdg-role-again", xdg_role_again },
	{ "xdg-subsurface-role", xdg_subsurface_role },
	{ "subsurface-own-parent", subsurface_own_parent },
	{ "subsurface-cycle", subsurface_cycle },
	{ "video-unknown-serial", video_unknown_serial },
	{ "video-format-after-attach", video_format_after_attach },
	{ "video-bad-place", video_bad_place },
	{ "raw-bytes", raw_bytes },
	{ "dmabuf-bad-params", dmabuf_bad_params },
	{ "dmabuf-shrunk", dmabuf_shrunk },
};

static void
test_cases(struct umms_test *t, gconstpointer data)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_test_message("case %s", cases[i].name);
		run_case(t, cases[i].fn, cases[i].name);
	}
}

/* Connections over video.max-clients are closed; one closed lets the next in. */
static void
test_max_clients(struct umms_test *t, gconstpointer data)
{
	struct raw *held[MAX_CLIENTS];
	for (int i = 0; i < MAX_CLIENTS; i++)
		held[i] = raw_connect();
	struct wl_display *over = wl_display_connect("umms-0");
	g_assert_nonnull(over);
	g_assert_cmpint(wl_display_roundtrip(over), <, 0);
	wl_display_disconnect(over);
	raw_free(held[0]);
	/* The server notices that one went at its next dispatch. */
	for (int i = 1; i < MAX_CLIENTS; i++)
		expect_ok(held[i], "a client under the limit");
	g_usleep(50000);
	assert_serves(t, 0x408020, "max-clients");
	for (int i = 1; i < MAX_CLIENTS; i++)
		raw_free(held[i]);
}

/* ---- random sequences --------------------------------------------------------- */

static void
random_sequence(GRand *g)
{
	struct raw *c = raw_connect();
	struct wl_surface *surfaces[4] = { NULL };
	struct wl_buffer *buffers[4] = { NULL };
	/* Often a mapped toplevel first, so that what is attached to it gets drawn. */
	if (g_rand_boolean(g))
		surfaces[0] = raw_toplevel(c, NULL);
	int n = g_rand_int_range(g, 1, 12);
	for (int i = 0; i < n && wl_display_get_error(c->display) == 0; i++) {
		int k = g_rand_int_range(g, 0, 4);
		switch (g_rand_int_range(g, 0, 12)) {
		case 0:
			surfaces[k] = track(c, wl_compositor_create_surface(c->compositor));
			break;
		case 1: {
			int32_t w = g_rand_int_range(g, -2, 80), h = g_rand_int_range(g, -2, 80);
			int32_t stride = g_rand_int_range(g, -4, 330);
			int32_t size = g_rand_int_range(g, -1, 40000);
			int32_t offset = g_rand_int_range(g, -2, 200);
			size_t file = (size_t)g_rand_int_range(g, 1, 40000);
			buffers[k] = shm_buffer(c, size, file, offset, w, h, stride, NULL);
			break;
		}
		case 2:
			if (surfaces[k])
				wl_surface_attach(surfaces[k], buffers[g_rand_int_range(g, 0, 4)],
					g_rand_int_range(g, -5, 5), g_rand_int_range(g, -5, 5));
			break;
		case 3:
			if (surfaces[k])
				wl_surface_commit(surfaces[k]);
			break;
		case 4: {
			struct wl_surface *p = surfaces[g_rand_int_range(g, 0, 4)];
			if (surfaces[k] && p)
				track(c, wl_subcompositor_get_subsurface(c->subcompositor,
					surfaces[k], p));
			break;
		}
		case 5:
			if (surfaces[k]) {
				struct xdg_surface *x = track(c,
					xdg_wm_base_get_xdg_surface(c->wm_base, surfaces[k]));
				if (g_rand_boolean(g))
					track(c, xdg_surface_get_toplevel(x));
				if (g_rand_boolean(g))
					xdg_surface_ack_configure(x, g_rand_int(g));
			}
			break;
		case 6:
			if (surfaces[k]) {
				untrack(c, surfaces[k]);
				wl_surface_destroy(surfaces[k]);
				surfaces[k] = NULL;
			}
			break;
		case 7:
			if (buffers[k]) {
				untrack(c, buffers[k]);
				wl_buffer_destroy(buffers[k]);
				buffers[k] = NULL;
			}
			break;
		case 8:
			if (surfaces[k])
				wl_surface_set_buffer_scale(surfaces[k], g_rand_int_range(g, -1, 4));
			break;
		case 9: {
			struct umms_video_player_v1 *p = track(c,
				umms_video_manager_v1_create_player(c->video));
			if (g_rand_boolean(g))
				umms_video_player_v1_presented(p, g_rand_int(g), 0, 0, 0, 0, 0);
			if (surfaces[k] && g_rand_boolean(g))
				umms_video_player_v1_place(p, surfaces[k], g_rand_int(g),
					g_rand_int(g), g_rand_int_range(g, -5, 5000),
					g_rand_int_range(g, -5, 5000), g_rand_int_range(g, 0, 7),
					g_rand_int_range(g, 0, 3));
			break;
		}
		case 10: {
			/* Garbage on the wire. */
			wl_display_flush(c->display);
			uint32_t words[6];
			for (size_t w = 0; w < G_N_ELEMENTS(words); w++)
				words[w] = g_rand_int(g);
			if (g_rand_boolean(g))   /* a real object, often */
				words[0] = (uint32_t)g_rand_int_range(g, 1, 12);
			words[1] = (words[1] & 0xffff) | (uint32_t)(g_rand_int_range(g, 0, 7) * 4)
				<< 16;
			send(wl_display_get_fd(c->display), words, sizeof(words), MSG_NOSIGNAL);
			break;
		}
		case 11: {
			/* A dma-buf of a memfd, planes and sizes at random, maybe shrunk after. */
			if (!c->dmabuf)
				break;
			int fd = raw_memfd((size_t)g_rand_int_range(g, 1, 40000));
			struct zwp_linux_buffer_params_v1 *p = track(c,
				zwp_linux_dmabuf_v1_create_params(c->dmabuf));
			int planes = g_rand_int_range(g, 0, 3);
			for (int j = 0; j < planes; j++)
				zwp_linux_buffer_params_v1_add(p, fd,
					(uint32_t)g_rand_int_range(g, 0, 5),
					(uint32_t)g_rand_int_range(g, 0, 300),
					(uint32_t)g_rand_int_range(g, 0, 330), 0, 0);
			buffers[k] = track(c, zwp_linux_buffer_params_v1_create_immed(p,
				g_rand_int_range(g, -2, 80), g_rand_int_range(g, -2, 80),
				g_rand_boolean(g) ? DRM_FORMAT_XRGB8888 : g_rand_int(g), 0));
			if (g_rand_boolean(g)) {
				wl_display_roundtrip(c->display);   /* made first, then shrunk */
				g_assert_cmpint(ftruncate(fd, g_rand_int_range(g, 0, 4096)),
					==, 0);
			}
			close(fd);
			break;
		}
		}
		if (g_rand_int_range(g, 0, 4) == 0)
			wl_display_roundtrip(c->display);
	}
	/* Now and then a frame of the screen (60 Hz) passes: what was committed is drawn. */
	if (g_rand_int_range(g, 0, 8) == 0)
		g_usleep(20000);
	wl_display_roundtrip(c->display);
	raw_free(c);
}

static void
test_random(struct umms_test *t, gconstpointer data)
{
	guint32 seed = umms_test_seed();
	unsigned runs = umms_test_long() ? LONG_RUNS : RANDOM_RUNS;
	g_test_message("seed %u (UMMS_TEST_SEED=%u repeats it), %u sequences", seed, seed, runs);
	g_autoptr(GRand) rand = g_rand_new_with_seed(seed);
	for (unsigned i = 0; i < runs; i++)
		random_sequence(rand);
	assert_serves(t, 0x20a040, "random");
}

int
main(int argc, char **argv)
{
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		renderer = option;
	umms_test_init(&argc, &argv);
	g_test_add("/wl-fuzz/cases", struct umms_test, NULL, start, test_cases, umms_test_teardown);
	g_test_add("/wl-fuzz/max-clients", struct umms_test, NULL, start, test_max_clients,
		umms_test_teardown);
	g_test_add("/wl-fuzz/random", struct umms_test, NULL, start, test_random,
		umms_test_teardown);
	return g_test_run();
}
