/*
 * ummsd as the compositor of a screen it drives (vkms in the test VM,
 * tests/vm/): a shell client connects to ummsd's socket, gets a
 * fullscreen window inside the overscan margins, draws its UI, and places
 * a player's video in its own surface through libumms-client (which finds
 * umms_video_v1 on the same connection and sends place). The test reads
 * the screen back through writeback (Display1.Capture) and checks pixels:
 * the UI where it was drawn, margins black, the video through the UI's
 * transparent hole (composited: vkms has no plane under the primary) or
 * over the UI (on an overlay plane), moving with the UI in one commit;
 * its subtitles drawn by the screen unless the application turns them off.
 * demo/umms-kiosk runs there too, on a file and on a channel of the
 * programme guide (kiosk-guide.c: now/next in its header).
 * Runs in the VM (meson test kiosk), and on any machine against the
 * headless screen (--headless=gles2 or --headless=pixman: meson test
 * kiosk-headless, kiosk-headless-pixman), where everything is composited
 * by that renderer and Capture reads its buffer. --renderer=gles2 makes
 * the VM's KMS screen compose with gles2 on vkms's GBM device instead of
 * pixman: not a registered test, /kiosk/hole fails there (Mesa's llvmpipe
 * swaps red and blue in some tiles; docs/config.md, [display] renderer).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wayland-client.h>

#include <drm_fourcc.h>

#include "harness.h"
#include "image.h"
#include "kiosk-tests.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "shell.h"
#include "umms-client.h"
#include "xdg-shell-client-protocol.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

/* --headless=RENDERER: the headless screen drawn by it; NULL: vkms in the VM. */
static const char *headless;
/* --renderer=RENDERER: what composes on vkms (display.renderer). */
static const char *kms_renderer = "auto";

/* ---- the screen ------------------------------------------------------------- */

void
kiosk_test_start(struct umms_test *t)
{
	g_autofree char *m = g_strdup_printf("display.margins=%d", M);
	g_autofree char *renderer = g_strdup_printf("display.renderer=%s",
		headless ? headless : kms_renderer);
	const char *const overrides[] = { "display.enabled=true", "display.compositor=true",
		"display.input=false", m, "engine.open-timeout=120000",
		"engine.answer-timeout=120000", renderer,
		/* No spare engine worker: its socket and pidfd would blur the fd counts. */
		"engine.spare-workers=0",
		headless ? "display.headless=true" : NULL, "display.mode=1024x768", NULL };
	umms_test_restart(t, overrides);
}

struct umms_test_image *
kiosk_test_capture(struct umms_test *t, const char *what)
{
	return umms_test_capture(t, what, W, H);
}

static char *
video_path(struct umms_test *t)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, DISPLAY, DISPLAY1, "VideoPath");
	return g_variant_dup_string(v, NULL);
}

/* Waits until the display shows a video by way of @rung. */
static void
wait_rung(struct umms_test *t, struct shell *s, const char *rung)
{
	for (int i = 0; i < 200; i++) {
		g_autofree char *now = video_path(t);
		if (strcmp(now, rung) == 0)
			return;
		wl_display_roundtrip(s->display);
		umms_test_sleep(50);
	}
	g_autofree char *now = video_path(t);
	g_error("the video never went %s (it is \"%s\")", rung, now);
}

/* (x, y, w, h) of the screen is @inside; one pixel beyond each edge is @outside. */
static void
assert_rect(const struct umms_test_image *image, int x, int y, int w, int h, uint32_t inside,
	uint32_t outside, const char *what)
{
	umms_test_image_assert_rect(image, x, y, w, h, 1, inside, 12, what);
	int out[][2] = { { x - 1, y + h / 2 }, { x + w, y + h / 2 }, { x + w / 2, y - 1 },
		{ x + w / 2, y + h } };
	for (size_t i = 0; i < G_N_ELEMENTS(out); i++)
		umms_test_image_assert_pixel(image, out[i][0], out[i][1], outside, 12, what);
}

/* ---- tests ------------------------------------------------------------------ */

static void
test_ui(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	/* Fullscreen inside the margins ummsd draws (vkms has no margin properties). */
	g_assert_cmpint(s->width, ==, W - 2 * M);
	g_assert_cmpint(s->height, ==, H - 2 * M);
	const int hole[4] = { 100, 100, 320, 240 };
	shell_draw(s, UI, hole);
	struct umms_test_image *image = kiosk_test_capture(t, "ui");
	/* The UI inside the margins, black margins, black through the hole (no video). */
	umms_test_image_assert_pixel(image, M, M, UI, 4, "ui");
	umms_test_image_assert_pixel(image, W - M - 1, H - M - 1, UI, 4, "ui");
	umms_test_image_assert_pixel(image, M - 1, H / 2, BLACK, 4, "ui margin");
	umms_test_image_assert_pixel(image, W - M, H / 2, BLACK, 4, "ui margin");
	assert_rect(image, M + 100, M + 100, 320, 240, BLACK, UI, "ui hole");
	umms_test_image_free(image);
	shell_free(s);
}

static void
test_hole(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	/* The video under the UI, seen through its hole: one commit for both. */
	const int hole[4] = { 100, 100, 320, 240 };
	shell_video(t, s, UMMS_CLIENT_BELOW, hole, UI, hole);
	/* vkms has no plane under its primary: the UI and the video are drawn together. */
	wait_rung(t, s, "composited");
	struct umms_test_image *image = kiosk_test_capture(t, "hole");
	assert_rect(image, M + 100, M + 100, 320, 240, RED, UI, "hole");
	umms_test_image_free(image);

	/* Moved, UI and video in the same commit: the old place is UI again. */
	const int moved[4] = { 500, 300, 320, 240 };
	umms_client_video_set_rect(s->video, moved[0], moved[1], moved[2], moved[3]);
	shell_draw(s, UI, moved);
	image = kiosk_test_capture(t, "hole-moved");
	assert_rect(image, M + 500, M + 300, 320, 240, RED, UI, "hole-moved");
	umms_test_image_assert_pixel(image, M + 260, M + 220, UI, 4, "hole-moved: the old place");
	umms_test_image_free(image);
	shell_free(s);
}

static void
test_above(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	/*
	 * Over the UI at its own size: vkms scans it out on an overlay plane, no
	 * copy. The headless screen composites it: gles2 uploads the frame (a
	 * copy, counted), pixman reads it where it is.
	 */
	shell_video(t, s, UMMS_CLIENT_ABOVE, (const int[4]){ 200, 150, 320, 240 }, UI, NULL);
	wait_rung(t, s, headless ? "composited" : "overlay");
	struct umms_test_image *image = kiosk_test_capture(t, "above");
	assert_rect(image, M + 200, M + 150, 320, 240, RED, UI, "above");
	umms_test_image_free(image);
	g_autoptr(GVariant) copies = umms_test_get(t->bus, DISPLAY, DISPLAY1, "Copies");
	if (headless && strcmp(headless, "gles2") == 0)
		g_assert_cmpuint(g_variant_get_uint64(copies), >=, 1);
	else
		g_assert_cmpuint(g_variant_get_uint64(copies), ==, 0);

	/* Hidden (a rectangle of no size): the UI alone. */
	umms_client_video_set_rect(s->video, 0, 0, 0, 0);
	shell_draw(s, UI, NULL);
	image = kiosk_test_capture(t, "above-hidden");
	umms_test_image_assert_pixel(image, M + 360, M + 270, UI, 4, "above-hidden");
	umms_test_image_free(image);
	shell_free(s);
}

static void
test_client_gone(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	unsigned fds = umms_test_fd_count();
	struct shell *s = shell_connect();
	shell_map(s);
	const int hole[4] = { 0, 0, 320, 240 };
	shell_video(t, s, UMMS_CLIENT_BELOW, hole, UI, hole);
	wait_rung(t, s, "composited");
	g_autofree char *player = g_strdup(s->player);
	/* Gone without a goodbye, mid-playback: the connection cut as a crash would. */
	umms_test_player_do(t->bus, player, "Play", NULL);
	shutdown(wl_display_get_fd(s->display), SHUT_RDWR);
	/* Its player (owned by the connection) goes with it, the screen goes black. */
	for (int i = 0; i < 100; i++) {
		g_autofree char *rung = video_path(t);
		if (!*rung)
			break;
		umms_test_sleep(50);
	}
	g_autofree char *rung = video_path(t);
	g_assert_cmpstr(rung, ==, "");
	struct umms_test_image *image = kiosk_test_capture(t, "gone");
	umms_test_image_assert_pixel(image, W / 2, H / 2, BLACK, 4, "gone");
	umms_test_image_assert_pixel(image, M + 100, M + 100, BLACK, 4, "gone");
	umms_test_image_free(image);
	g_autofree char *m = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
	shell_free(s);

	/* The next client is served. */
	s = shell_connect();
	shell_map(s);
	shell_draw(s, GREEN, NULL);
	image = kiosk_test_capture(t, "next");
	umms_test_image_assert_pixel(image, W / 2, H / 2, GREEN, 4, "next");
	umms_test_image_free(image);
	shell_free(s);
	/*
	 * Only in-process ummsd's descriptors count: nothing of the clients is
	 * left (the player's engine worker is reaped a moment after it goes).
	 */
	for (int i = 0; i < 40 && umms_test_fd_count() > fds + 2; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(umms_test_fd_count(), <=, fds + 2);
}

static void
test_errors(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *good = shell_connect();
	shell_map(good);
	shell_draw(good, UI, NULL);

	/* A buffer before the first configure is acknowledged: a protocol error, for it only. */
	struct shell *bad = shell_connect();
	bad->surface = wl_compositor_create_surface(bad->compositor);
	bad->xdg_surface = xdg_wm_base_get_xdg_surface(bad->wm_base, bad->surface);
	bad->toplevel = xdg_surface_get_toplevel(bad->xdg_surface);
	bad->width = bad->height = 16;
	int fd = memfd_create("bad", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(fd, 16 * 16 * 4), ==, 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(bad->shm, fd, 16 * 16 * 4);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, 16, 16, 64,
		WL_SHM_FORMAT_ARGB8888);
	close(fd);
	wl_surface_attach(bad->surface, buffer, 0, 0);
	wl_surface_commit(bad->surface);
	g_assert_cmpint(wl_display_roundtrip(bad->display), <, 0);
	const struct wl_interface *iface = NULL;
	uint32_t id = 0;
	uint32_t code = wl_display_get_protocol_error(bad->display, &iface, &id);
	g_test_message("protocol error %u on %s", code, iface ? iface->name : "?");
	g_assert_cmpstr(iface->name, ==, "xdg_surface");
	g_assert_cmpuint(code, ==, XDG_SURFACE_ERROR_UNCONFIGURED_BUFFER);
	wl_shm_pool_destroy(pool);
	wl_buffer_destroy(buffer);
	shell_free(bad);

	/* The good one goes on. */
	shell_draw(good, GREEN, NULL);
	struct umms_test_image *image = kiosk_test_capture(t, "after-error");
	umms_test_image_assert_pixel(image, W / 2, H / 2, GREEN, 4, "after-error");
	umms_test_image_free(image);
	shell_free(good);
}

/*
 * The alpha scene: a UI with translucency over the video and over black,
 * compared with a reference picture. Over the video's rectangle (a hole
 * at HOLE): white fading in from the left, alpha 0 to 255 (premultiplied);
 * in BAND (no video under it): green at alpha 128; elsewhere opaque UI.
 */
static const int ALPHA_HOLE[4] = { 100, 100, 320, 240 };
static const int ALPHA_BAND[4] = { 500, 100, 256, 100 };

static bool
in_rect(const int r[4], int x, int y)
{
	return x >= r[0] && x < r[0] + r[2] && y >= r[1] && y < r[1] + r[3];
}

static uint32_t
alpha_pixel(int x, int y, const void *data)
{
	if (in_rect(ALPHA_HOLE, x, y)) {
		uint32_t a = (uint32_t)((x - ALPHA_HOLE[0]) * 255 / (ALPHA_HOLE[2] - 1));
		return a << 24 | a << 16 | a << 8 | a;
	}
	if (in_rect(ALPHA_BAND, x, y))
		return 0x80u << 24 | 0x80u << 8;
	return 0xff000000u | UI;
}

/* What the screen must show at (x, y): red video under the fade, black under the band. */
static uint32_t
alpha_expected(int x, int y)
{
	if (x < M || y < M || x >= W - M || y >= H - M)
		return BLACK;
	int ux = x - M, uy = y - M;
	if (in_rect(ALPHA_HOLE, ux, uy)) {
		uint32_t a = (uint32_t)((ux - ALPHA_HOLE[0]) * 255 / (ALPHA_HOLE[2] - 1));
		/* white * a + red * (1 - a): red stays full, green and blue are a. */
		return 0xff0000u | a << 8 | a;
	}
	if (in_rect(ALPHA_BAND, ux, uy))
		return 0x80u << 8;
	return UI;
}

/*
 * The fuzz: 12 per channel where the video shows (H.264 red comes back from
 * YUV a few steps off, as in every test here), 3 elsewhere (the rounding of
 * a blend in 8 bits: GL and pixman round differently), and no pixel off.
 */
static int
alpha_fuzz(int x, int y)
{
	return in_rect(ALPHA_HOLE, x - M, y - M) ? 12 : 3;
}

static void
assert_alpha_scene(const struct umms_test_image *image, const struct umms_test_image *ref,
	const char *what)
{
	unsigned off = 0;
	int first_x = -1, first_y = -1;
	uint32_t first_got = 0, first_want = 0;
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			uint32_t got = umms_test_image_pixel(image, x, y);
			uint32_t want = ref ? umms_test_image_pixel(ref, x, y) : alpha_expected(x, y);
			if (!umms_test_color_near(got, want, alpha_fuzz(x, y))) {
				if (!off++)
					first_x = x, first_y = y, first_got = got, first_want = want;
			}
		}
	}
	if (off) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_error("%s: %u pixels beyond the fuzz, the first (%d, %d) #%06x, not #%06x (%s)",
			what, off, first_x, first_y, first_got, first_want, saved);
	}
}

static void
test_alpha(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	shell_video(t, s, UMMS_CLIENT_BELOW, ALPHA_HOLE, UI, ALPHA_HOLE);
	wait_rung(t, s, "composited");
	shell_paint(s, alpha_pixel, NULL);
	struct umms_test_image *image = kiosk_test_capture(t, "alpha");
	/* Against the formula, then against the reference picture (tests/data/). */
	assert_alpha_scene(image, NULL, "alpha (formula)");
	g_autofree char *path = g_build_filename(umms_test_source_root(), "tests", "data",
		"kiosk-alpha.png", NULL);
	if (umms_test_write_reference()) {
		g_assert_true(umms_test_image_save(image, path));
		g_test_message("wrote %s", path);
	}
	struct umms_test_image *ref = umms_test_image_load(path);
	assert_alpha_scene(image, ref, "alpha (reference)");
	umms_test_image_free(ref);
	umms_test_image_free(image);
	shell_free(s);
}

static void
test_dmabuf(struct umms_test *t, gconstpointer data)
{
	/*
	 * The UI in a dma-buf (a linear memfd, as udmabuf would make), where the
	 * compositor offers zwp_linux_dmabuf_v1 (its renderer imports dma-bufs):
	 * pixman maps it; a GPU renderer whose driver refuses this one reads it
	 * by mapping it instead: the picture, not black. A headless renderer
	 * that imports none (gles2 on llvmpipe surfaceless) gets no global.
	 */
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	if (headless) {
		g_autoptr(GArray) imported = shell_renderer_formats(headless);
		if (imported->len == 0) {
			g_assert_null(s->dmabuf);
			g_test_message("%s imports no dma-bufs: no zwp_linux_dmabuf_v1, as it "
				"should be", headless);
			shell_free(s);
			return;
		}
	}
	g_assert_nonnull(s->dmabuf);
	shell_map(s);
	int stride = s->width * 4, size = stride * s->height;
	int fd = memfd_create("kiosk-dmabuf", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(fd, size), ==, 0);
	uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(pixels != MAP_FAILED);
	for (int i = 0; i < s->width * s->height; i++)
		pixels[i] = 0xff000000u | GREEN;
	munmap(pixels, (size_t)size);
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(s->dmabuf);
	zwp_linux_buffer_params_v1_add(params, fd, 0, 0, (uint32_t)stride,
		(uint32_t)(DRM_FORMAT_MOD_LINEAR >> 32), (uint32_t)DRM_FORMAT_MOD_LINEAR);
	struct wl_buffer *buffer = zwp_linux_buffer_params_v1_create_immed(params, s->width,
		s->height, DRM_FORMAT_XRGB8888, 0);
	zwp_linux_buffer_params_v1_destroy(params);
	close(fd);
	shell_commit(s, buffer);
	struct umms_test_image *image = kiosk_test_capture(t, "dmabuf");
	umms_test_image_assert_rect(image, M, M, W - 2 * M, H - 2 * M, 0, GREEN, 4, "dmabuf");
	umms_test_image_assert_pixel(image, M - 1, H / 2, BLACK, 4, "dmabuf margin");
	umms_test_image_free(image);
	shell_free(s);
}

/* A line the demo prints, split in words; fails if it ends. */
char **
kiosk_test_demo_line(GDataInputStream *out)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *line = g_data_input_stream_read_line_utf8(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(line);
	g_test_message("umms-kiosk: %s", line);
	return g_strsplit(line, " ", -1);
}

/* One of colors.mkv's colours (it plays: any of them). */
void
kiosk_test_assert_video(const struct umms_test_image *image, int x, int y, const char *what)
{
	uint32_t p = umms_test_image_pixel(image, x, y);
	if (!umms_test_color_near(p, RED, 12) && !umms_test_color_near(p, GREEN, 12) &&
			!umms_test_color_near(p, 0x0000ff, 12) && !umms_test_color_near(p, 0xffffff, 12)) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_error("%s: (%d, %d) is #%06x, not the video (%s)", what, x, y, p, saved);
	}
}

GSubprocess *
kiosk_test_demo_spawn(const char *const *args, GDataInputStream **out)
{
	g_autofree char *demo = g_build_filename(umms_test_build_root(), "demo", "umms-kiosk",
		NULL);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY", "umms-0", TRUE);
	g_autoptr(GPtrArray) argv = g_ptr_array_new();
	g_ptr_array_add(argv, demo);
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, (gpointer)*a);
	g_ptr_array_add(argv, NULL);
	g_autoptr(GError) error = NULL;
	GSubprocess *kiosk = g_subprocess_launcher_spawnv(launcher,
		(const char *const *)argv->pdata, &error);
	g_assert_no_error(error);
	*out = g_data_input_stream_new(g_subprocess_get_stdout_pipe(kiosk));
	return kiosk;
}

static void
test_demo(struct umms_test *t, gconstpointer data)
{
	/* demo/umms-kiosk as a newcomer runs it on ummsd's screen, windowed then fullscreen. */
	kiosk_test_start(t);
	const char *const args[] = { "--cycle", "3", umms_test_clip("colors.mkv"), NULL };
	g_autoptr(GDataInputStream) out = NULL;
	g_autoptr(GSubprocess) kiosk = kiosk_test_demo_spawn(args, &out);
	g_autoptr(GError) error = NULL;

	g_auto(GStrv) windowed = kiosk_test_demo_line(out);
	g_assert_cmpstr(windowed[0], ==, "windowed");
	int x = atoi(windowed[1]), y = atoi(windowed[2]), w = atoi(windowed[3]);
	int h = atoi(windowed[4]);
	g_auto(GStrv) ready = kiosk_test_demo_line(out);
	g_assert_cmpstr(ready[0], ==, "ready");
	/* Its window is the screen inside the margins. */
	g_autofree char *size = g_strdup_printf("%dx%d", W - 2 * M, H - 2 * M);
	g_assert_cmpstr(ready[1], ==, size);
	struct umms_test_image *image = kiosk_test_capture(t, "demo-windowed");
	/* The menu's colours where the demo says they are; the video through the hole. */
	umms_test_image_assert_pixel(image, M + 2, M + 2, 0x3c5a78, 4, "demo header");
	umms_test_image_assert_pixel(image, M + (W - 2 * M) / 20 + 10,
		M + (H - 2 * M) / 5 + 10, 0xe0a030, 4, "demo selected item");
	umms_test_image_assert_pixel(image, M + x - 2, M + y + h / 2, 0xc8c8c8, 4, "demo frame");
	kiosk_test_assert_video(image, M + x + w / 2, M + y + h / 2, "demo windowed video");
	umms_test_image_free(image);

	g_auto(GStrv) full = kiosk_test_demo_line(out);
	g_assert_cmpstr(full[0], ==, "fullscreen");
	image = kiosk_test_capture(t, "demo-fullscreen");
	/*
	 * 4:3 letterboxed in the 960x704 area: 939x704 at x 10, over the UI,
	 * black bars at the sides (not the UI: the video's rectangle is the
	 * whole surface).
	 */
	kiosk_test_assert_video(image, M + 20, M + 2, "demo fullscreen video");
	kiosk_test_assert_video(image, W / 2, H / 2, "demo fullscreen video");
	kiosk_test_assert_video(image, W - M - 20, H - M - 3, "demo fullscreen video");
	umms_test_image_assert_pixel(image, M + 2, H / 2, BLACK, 4, "demo fullscreen bar");
	umms_test_image_assert_pixel(image, M - 1, H / 2, BLACK, 4, "demo margin");
	umms_test_image_free(image);

	/* Stopped as its session would stop it: a clean exit. */
	g_subprocess_send_signal(kiosk, SIGTERM);
	g_subprocess_wait(kiosk, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_successful(kiosk));
}

/*
 * Caption pixels in the rectangle @r of the screen: light ones (all
 * channels over 200: a text caption's white), or with @yellow red and
 * green over 200 and blue under 60 (vobsub.mkv's box).
 */
static unsigned
count_caption(struct umms_test *t, const int r[4], bool yellow, const char *what)
{
	struct umms_test_image *image = kiosk_test_capture(t, what);
	unsigned n = 0;
	for (int y = r[1]; y < r[1] + r[3]; y++) {
		for (int x = r[0]; x < r[0] + r[2]; x++) {
			uint32_t p = umms_test_image_pixel(image, x, y);
			unsigned red = p >> 16 & 0xff, green = p >> 8 & 0xff, blue = p & 0xff;
			n += red > 200 && green > 200 && (yellow ? blue < 60 : blue > 200);
		}
	}
	umms_test_image_free(image);
	return n;
}

/* Captures until the caption (@yellow: a bitmap's) shows in @r (@shown) or none of it does. */
static void
expect_caption(struct umms_test *t, struct shell *s, const int r[4], bool yellow, bool shown,
	const char *what)
{
	unsigned n = 0;
	for (int i = 0; i < 40; i++) {
		wl_display_roundtrip(s->display);
		n = count_caption(t, r, yellow, what);
		if (shown ? n >= 50 : n == 0) {
			g_test_message("%s: %u caption pixels", what, n);
			return;
		}
		umms_test_sleep(250);
	}
	g_error("%s: %u caption pixels in the video", what, n);
}

/*
 * Subtitles of a placed video: ummsd's screen draws them (on a plane of
 * their own in the VM) unless the application turns the images off
 * (umms_client_video_set_subtitles, umms_video_player_v1 set_subtitles)
 * to draw its own captions; on again, they are back.
 */
static void
test_subtitles(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	const int rect[4] = { 200, 150, 320, 240 };
	shell_video(t, s, UMMS_CLIENT_ABOVE, rect, UI, NULL);
	g_autofree char *srt = g_build_filename(umms_test_tmpdir(), "caption.srt", NULL);
	g_assert_true(g_file_set_contents(srt, "1\n00:00:00,000 --> 00:01:00,000\nWWWWWWWW\n",
		-1, NULL));
	umms_test_player_do(t->bus, s->player, "SetSubtitleUri", g_variant_new("(s)", srt));
	umms_test_player_do(t->bus, s->player, "SetPosition", g_variant_new("(x)", US(0.2)));
	const int video[4] = { M + rect[0], M + rect[1], rect[2], rect[3] };
	expect_caption(t, s, video, false, true, "caption");
	wait_rung(t, s, headless ? "composited" : "overlay");

	umms_client_video_set_subtitles(s->video, false, NULL);
	expect_caption(t, s, video, false, false, "caption-off");
	/* The picture is still there, under where the caption was. */
	struct umms_test_image *image = kiosk_test_capture(t, "caption-off-video");
	umms_test_image_assert_pixel(image, M + 360, M + 270, RED, 12, "caption-off-video");
	umms_test_image_free(image);

	umms_client_video_set_subtitles(s->video, true, NULL);
	expect_caption(t, s, video, false, true, "caption-on");
	shell_free(s);
}

/*
 * A DVD subtitle (vobsub.mkv's yellow box from 1 s to 2 s) is a subpicture
 * too, no longer blended into the picture: the application turns it off
 * for its view and on again, paused, and the picture under it stays.
 */
static void
test_bitmap_subtitles(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	const int rect[4] = { 200, 150, 320, 240 };
	shell_video(t, s, UMMS_CLIENT_ABOVE, rect, UI, NULL);
	g_autofree char *uri = umms_test_clip_uri("vobsub.mkv");
	umms_test_player_do(t->bus, s->player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, s->player, "Pause", NULL);
	umms_test_player_do(t->bus, s->player, "SetPosition", g_variant_new("(x)", US(1.5)));
	const int video[4] = { M + rect[0], M + rect[1], rect[2], rect[3] };
	expect_caption(t, s, video, true, true, "bitmap");
	umms_client_video_set_subtitles(s->video, false, NULL);
	expect_caption(t, s, video, true, false, "bitmap-off");
	umms_client_video_set_subtitles(s->video, true, NULL);
	expect_caption(t, s, video, true, true, "bitmap-on");
	shell_free(s);
}

int
main(int argc, char *argv[])
{
	headless = umms_test_take_option(&argc, argv, "--headless=");
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		kms_renderer = option;
	umms_test_init(&argc, &argv);
	if (!headless && access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM (meson test kiosk), "
			"or with --headless=gles2|pixman");
	UMMS_TEST_ADD("/kiosk/ui", test_ui);
	UMMS_TEST_ADD("/kiosk/hole", test_hole);
	UMMS_TEST_ADD("/kiosk/above", test_above);
	UMMS_TEST_ADD("/kiosk/alpha", test_alpha);
	UMMS_TEST_ADD("/kiosk/dmabuf", test_dmabuf);
	UMMS_TEST_ADD("/kiosk/client-gone", test_client_gone);
	UMMS_TEST_ADD("/kiosk/errors", test_errors);
	UMMS_TEST_ADD("/kiosk/demo", test_demo);
	UMMS_TEST_ADD("/kiosk/guide", kiosk_test_guide);
	UMMS_TEST_ADD("/kiosk/parental", kiosk_test_parental);
	UMMS_TEST_ADD("/kiosk/subtitles", test_subtitles);
	UMMS_TEST_ADD("/kiosk/bitmap-subtitles", test_bitmap_subtitles);
	/* Every test starts ummsd configured for it (start()). */
	umms_test_fixture_without_service();
	return g_test_run();
}
