/*
 * The headless screen (targets/headless/, `ummsd --headless`) through what
 * a user has: org.umms.Display1 on the bus, ummsctl, and a shell client of
 * ummsd's compositor. Pixels are read back with Capture. Runs once per
 * renderer: --renderer=gles2 (Mesa llvmpipe, no GPU needed) or
 * --renderer=pixman (meson test headless, headless-pixman).
 *
 * The kiosk cases (tests/test-kiosk.c) run on this screen too; these are
 * the ones only it has: any mode, capture without writeback, and damage
 * tracking (nothing redrawn while nothing changes, a static UI uploaded
 * once while the video plays under it, partial updates repainting only
 * what changed and leaving every pixel of the screen right).
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "harness.h"
#include "image.h"
#include "shell.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

#define UI 0x3c5a78
#define RED 0xff0000
#define BLACK 0x000000

static const char *renderer = "pixman";

static void
start(struct umms_test *t, const char *mode, bool compositor)
{
	g_autofree char *r = g_strdup_printf("display.renderer=%s", renderer);
	g_autofree char *m = g_strdup_printf("display.mode=%s", mode);
	const char *const overrides[] = { "display.enabled=true", "display.headless=true", r, m,
		compositor ? "display.compositor=true" : "display.compositor=false",
		"display.input=false", NULL };
	umms_test_restart(t, overrides);
}

static struct umms_test_image *
capture(struct umms_test *t, const char *what, int width, int height)
{
	return umms_test_capture(t, what, width, height);
}

static char *
get_string(struct umms_test *t, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, DISPLAY, DISPLAY1, property);
	return g_variant_dup_string(v, NULL);
}

static void
set(struct umms_test *t, const char *property, GVariant *value)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY,
		"org.freedesktop.DBus.Properties", "Set",
		g_variant_new("(ssv)", DISPLAY1, property, value));
}

static uint64_t
stat_u64(struct umms_test *t, const char *key)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, DISPLAY, DISPLAY1, "RenderStats");
	uint64_t v = 0;
	g_assert_true(g_variant_lookup(stats, key, "t", &v));
	return v;
}

static void
wait_video_path(struct umms_test *t, const char *want)
{
	for (int i = 0; i < 200; i++) {
		g_autofree char *now = get_string(t, "VideoPath");
		if (strcmp(now, want) == 0)
			return;
		umms_test_sleep(25);
	}
	g_autofree char *now = get_string(t, "VideoPath");
	g_error("VideoPath never became \"%s\" (it is \"%s\")", want, now);
}

static void
test_display(struct umms_test *t, gconstpointer data)
{
	start(t, "640x360", false);
	/* Any mode is one; the renderer says what it is. */
	g_autofree char *mode = get_string(t, "CurrentMode");
	g_assert_cmpstr(mode, ==, "640x360@60.00");
	g_autoptr(GVariant) stats = umms_test_get(t->bus, DISPLAY, DISPLAY1, "RenderStats");
	const char *name = NULL;
	g_assert_true(g_variant_lookup(stats, "renderer", "&s", &name));
	g_assert_true(g_str_has_prefix(name, renderer));

	/* A player's first frame (red, 320x240: 4:3), letterboxed in 16:9. */
	g_autofree char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Pause", NULL);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	wait_video_path(t, "composited");
	struct umms_test_image *image = capture(t, "letterbox", 640, 360);
	umms_test_image_assert_rect(image, 80, 0, 480, 360, 1, RED, 12, "letterbox picture");
	umms_test_image_assert_pixel(image, 40, 180, BLACK, 4, "letterbox bar");
	umms_test_image_assert_pixel(image, 600, 180, BLACK, 4, "letterbox bar");
	umms_test_image_free(image);

	/* Fill, inside overscan margins: black margins, the picture everywhere else. */
	set(t, "Zoom", g_variant_new_string("fill"));
	set(t, "Margins", g_variant_new("(iiii)", 32, 18, 32, 18));
	image = capture(t, "fill-margins", 640, 360);
	umms_test_image_assert_rect(image, 32, 18, 576, 324, 1, RED, 12, "fill picture");
	umms_test_image_assert_pixel(image, 16, 180, BLACK, 4, "margin");
	umms_test_image_assert_pixel(image, 320, 9, BLACK, 4, "margin");
	umms_test_image_free(image);

	/* Another size, at once; modes it cannot be are refused by name. */
	r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "SetMode", g_variant_new("(s)", "800x450"));
	g_clear_pointer(&mode, g_free);
	mode = get_string(t, "CurrentMode");
	g_assert_cmpstr(mode, ==, "800x450@60.00");
	image = capture(t, "800x450", 800, 450);
	umms_test_image_assert_pixel(image, 400, 225, RED, 12, "800x450 picture");
	umms_test_image_free(image);
	g_autofree char *e1 = umms_test_call_error(t->bus, DISPLAY, DISPLAY1, "SetMode",
		g_variant_new("(s)", "big"), "org.umms.Error.NotSupported");
	g_autofree char *e2 = umms_test_call_error(t->bus, DISPLAY,
		"org.freedesktop.DBus.Properties", "Set", g_variant_new("(ssv)", DISPLAY1, "Margins",
		g_variant_new("(iiii)", 400, 0, 0, 0)), "org.umms.Error.InvalidArgument");

	/* Taken off: black, no video path. */
	r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer", g_variant_new("(o)", "/"));
	wait_video_path(t, "");
	image = capture(t, "off", 800, 450);
	umms_test_image_assert_pixel(image, 400, 225, BLACK, 4, "off");
	umms_test_image_free(image);
	/* A GPU renderer uploaded the frames it drew: copies; pixman read them in place. */
	g_autoptr(GVariant) copies = umms_test_get(t->bus, DISPLAY, DISPLAY1, "Copies");
	if (strcmp(renderer, "gles2") == 0)
		g_assert_cmpuint(g_variant_get_uint64(copies), >=, 1);
	else
		g_assert_cmpuint(g_variant_get_uint64(copies), ==, 0);
}

static void
test_damage(struct umms_test *t, gconstpointer data)
{
	start(t, "1024x768", true);
	struct shell *s = shell_connect();
	shell_map(s);
	const int hole[4] = { 100, 100, 320, 240 };
	shell_video(t, s, UMMS_CLIENT_BELOW, hole, UI, hole);
	wait_video_path(t, "composited");

	/* The video plays under a UI that does not change: the UI is uploaded once. */
	uint64_t uploads0 = stat_u64(t, "uploads"), redraws0 = stat_u64(t, "redraws");
	g_autoptr(GVariant) c = umms_test_get(t->bus, DISPLAY, DISPLAY1, "Copies");
	uint64_t copies0 = g_variant_get_uint64(c);
	umms_test_player_do(t->bus, s->player, "Play", NULL);
	umms_test_wait_position(t->bus, s->player, US(1.2), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, s->player, "Pause", NULL);
	/* Counted once the last frame before the pause is drawn: both counts from then. */
	umms_test_sleep(300);
	uint64_t uploads = stat_u64(t, "uploads") - uploads0;
	uint64_t redraws = stat_u64(t, "redraws") - redraws0;
	g_clear_pointer(&c, g_variant_unref);
	c = umms_test_get(t->bus, DISPLAY, DISPLAY1, "Copies");
	uint64_t copies = g_variant_get_uint64(c) - copies0;
	g_test_message("%s: %" G_GUINT64_FORMAT " redraws, %" G_GUINT64_FORMAT " uploads, %"
		G_GUINT64_FORMAT " of them video frames", renderer, redraws, uploads, copies);
	g_assert_cmpuint(redraws, >=, 10);     /* 25 fps for over a second */
	if (strcmp(renderer, "gles2") == 0) {
		/* Every upload is a video frame: none is the UI's. */
		g_assert_cmpuint(copies, >=, 10);
		g_assert_cmpuint(uploads, ==, copies);
	} else {
		g_assert_cmpuint(uploads, ==, 0);
	}
	struct umms_test_image *image = capture(t, "damage", 1024, 768);
	umms_test_image_assert_pixel(image, 20, 20, UI, 4, "damage: the UI");
	umms_test_image_free(image);

	/* Paused, and nothing else changes: nothing is drawn. */
	uint64_t still = stat_u64(t, "redraws");
	umms_test_sleep(500);
	g_assert_cmpuint(stat_u64(t, "redraws"), ==, still);
	shell_free(s);
}

/* ---- partial updates ---------------------------------------------------------- */

#define SQUARE 40
#define SQUARE_Y 150

struct scene {
	int square_x;   /* -1: none */
};

/* A pattern that differs from pixel to pixel, so that anything misplaced shows. */
static uint32_t
pattern(int x, int y)
{
	return 0xff000000u | (uint32_t)((x * 255 / 640) << 16) | (uint32_t)((y * 255 / 360) << 8) |
		(uint32_t)((x + y) % 2 ? 0x80 : 0x20);
}

static uint32_t
scene_pixel(int x, int y, const void *data)
{
	const struct scene *sc = data;
	if (sc->square_x >= 0 && x >= sc->square_x && x < sc->square_x + SQUARE &&
			y >= SQUARE_Y && y < SQUARE_Y + SQUARE)
		return 0xffffffffu;
	return pattern(x, y);
}

struct screen_want {
	ui_pixel_fn window;
	const void *data;
	int width, height;   /* the window's; black beyond */
};

static uint32_t
screen_pixel(int x, int y, const void *data)
{
	const struct screen_want *sw = data;
	return x < sw->width && y < sw->height ? sw->window(x, y, sw->data) & 0xffffff : BLACK;
}

/* Every pixel of the screen is what @want says (within the renderers' rounding). */
static void
assert_screen(struct umms_test *t, const char *what, ui_pixel_fn want, const void *data,
	int width, int height)
{
	struct umms_test_image *image = capture(t, what, 640, 360);
	struct screen_want sw = { want, data, width, height };
	umms_test_image_assert_each(image, screen_pixel, &sw, 4, what);
	umms_test_image_free(image);
}

/*
 * A window that changes a little at a time (a square moved, each commit
 * damaging only where it was and is): the screen shows exactly the
 * window, no trail left, while only the damage is repainted (and, by a
 * GPU renderer, uploaded). A window that shrinks leaves black where it
 * was; one unmapped leaves the screen black.
 */
static void
test_partial(struct umms_test *t, gconstpointer data)
{
	start(t, "640x360", true);
	struct shell *s = shell_connect();
	shell_map(s);
	g_assert_cmpint(s->width, ==, 640);
	g_assert_cmpint(s->height, ==, 360);
	struct scene sc = { .square_x = -1 };
	shell_paint(s, scene_pixel, &sc);
	assert_screen(t, "partial-start", scene_pixel, &sc, 640, 360);

	uint64_t redraws0 = stat_u64(t, "redraws"), pixels0 = stat_u64(t, "damaged-pixels");
	uint64_t bytes0 = stat_u64(t, "upload-bytes");
	const int steps = 8;
	for (int i = 0; i < steps; i++) {
		int was = sc.square_x;
		sc.square_x = 20 + i * 70;   /* further than its size: a trail would show */
		int damage[2][4] = {
			{ sc.square_x, SQUARE_Y, SQUARE, SQUARE },
			{ was, SQUARE_Y, SQUARE, SQUARE },
		};
		shell_paint_damage(s, scene_pixel, &sc, damage, was >= 0 ? 2 : 1);
		if (i == steps / 2)
			assert_screen(t, "partial-middle", scene_pixel, &sc, 640, 360);
	}
	uint64_t redraws = stat_u64(t, "redraws") - redraws0;
	uint64_t pixels = stat_u64(t, "damaged-pixels") - pixels0;
	uint64_t bytes = stat_u64(t, "upload-bytes") - bytes0;
	g_test_message("%s: %" G_GUINT64_FORMAT " redraws, %" G_GUINT64_FORMAT " pixels "
		"repainted, %" G_GUINT64_FORMAT " bytes uploaded", renderer, redraws, pixels, bytes);
	g_assert_cmpuint(redraws, >=, steps);
	/* Each redraw: the two squares' bounding box (110 x 40), not the 640 x 360 screen. */
	g_assert_cmpuint(pixels, <=, redraws * 110 * SQUARE);
	if (strcmp(renderer, "gles2") == 0) {
		g_assert_cmpuint(bytes, >, 0);
		g_assert_cmpuint(bytes, <=, (uint64_t)steps * 110 * SQUARE * 4);
	}
	assert_screen(t, "partial-moved", scene_pixel, &sc, 640, 360);

	/* Smaller: black where it was. */
	s->width = 320, s->height = 180;
	shell_paint(s, scene_pixel, &sc);
	assert_screen(t, "partial-shrunk", scene_pixel, &sc, 320, 180);
	/* Unmapped (no buffer): all black. */
	wl_surface_attach(s->surface, NULL, 0, 0);
	wl_surface_commit(s->surface);
	wl_display_roundtrip(s->display);
	assert_screen(t, "partial-unmapped", scene_pixel, &sc, 0, 0);
	shell_free(s);
}

static void
bind_subcompositor(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	if (strcmp(interface, wl_subcompositor_interface.name) == 0)
		*(struct wl_subcompositor **)data = wl_registry_bind(registry, name,
			&wl_subcompositor_interface, 1);
}

static void
no_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener subcompositor_listener = {
	.global = bind_subcompositor, .global_remove = no_remove,
};

/* A @size x @size wl_shm buffer of opaque @rgb. */
static struct wl_buffer *
flat_buffer(struct shell *s, int size, uint32_t rgb)
{
	int fd = memfd_create("square", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(fd, size * size * 4), ==, 0);
	uint32_t *p = mmap(NULL, (size_t)(size * size * 4), PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(p != MAP_FAILED);
	for (int i = 0; i < size * size; i++)
		p[i] = 0xff000000u | rgb;
	munmap(p, (size_t)(size * size * 4));
	struct wl_shm_pool *pool = wl_shm_create_pool(s->shm, fd, size * size * 4);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, size, size, size * 4,
		WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

/*
 * A subsurface (a white square) moved by its parent's commit, which damages
 * one pixel of its own: where the square was is repainted with the
 * window, only there (the two places), and the square shows where it is.
 */
static void
test_partial_subsurface(struct umms_test *t, gconstpointer data)
{
	start(t, "640x360", true);
	struct shell *s = shell_connect();
	struct wl_subcompositor *subcompositor = NULL;
	struct wl_registry *registry = wl_display_get_registry(s->display);
	wl_registry_add_listener(registry, &subcompositor_listener, &subcompositor);
	wl_display_roundtrip(s->display);
	g_assert_nonnull(subcompositor);
	shell_map(s);
	struct scene sc = { .square_x = -1 };
	shell_paint(s, scene_pixel, &sc);

	struct wl_surface *child = wl_compositor_create_surface(s->compositor);
	struct wl_subsurface *sub = wl_subcompositor_get_subsurface(subcompositor, child,
		s->surface);
	wl_subsurface_set_desync(sub);
	wl_subsurface_set_position(sub, 100, SQUARE_Y);
	struct wl_buffer *square = flat_buffer(s, SQUARE, 0xffffff);
	wl_surface_attach(child, square, 0, 0);
	wl_surface_damage_buffer(child, 0, 0, SQUARE, SQUARE);
	wl_surface_commit(child);
	const int pixel[1][4] = { { 0, 0, 1, 1 } };
	shell_paint_damage(s, scene_pixel, &sc, pixel, 1);
	sc.square_x = 100;
	assert_screen(t, "subsurface-placed", scene_pixel, &sc, 640, 360);

	uint64_t redraws0 = stat_u64(t, "redraws"), pixels0 = stat_u64(t, "damaged-pixels");
	wl_subsurface_set_position(sub, 300, SQUARE_Y);
	shell_paint_damage(s, scene_pixel, &(struct scene){ .square_x = -1 }, pixel, 1);
	sc.square_x = 300;
	assert_screen(t, "subsurface-moved", scene_pixel, &sc, 640, 360);
	uint64_t redraws = stat_u64(t, "redraws") - redraws0;
	uint64_t pixels = stat_u64(t, "damaged-pixels") - pixels0;
	g_test_message("%s: %" G_GUINT64_FORMAT " redraws, %" G_GUINT64_FORMAT " pixels",
		renderer, redraws, pixels);
	g_assert_cmpuint(redraws, >=, 1);
	/* The box of the pixel and both places: (0, 0) to (340, 190), not 640 x 360. */
	g_assert_cmpuint(pixels, <=, redraws * 340 * 190);

	wl_subsurface_destroy(sub);
	wl_surface_destroy(child);
	wl_buffer_destroy(square);
	shell_paint_damage(s, scene_pixel, &(struct scene){ .square_x = -1 }, pixel, 1);
	sc.square_x = -1;
	assert_screen(t, "subsurface-gone", scene_pixel, &sc, 640, 360);
	wl_subcompositor_destroy(subcompositor);
	wl_registry_destroy(registry);
	shell_free(s);
}

/*
 * The compositor offers zwp_linux_dmabuf_v1 with exactly the pairs the
 * renderer imports, or not at all when it imports none (gles2 without
 * EGL_EXT_image_dma_buf_import: llvmpipe surfaceless); the log says the same.
 */
static void
test_dmabuf_global(struct umms_test *t, gconstpointer data)
{
	start(t, "640x360", true);
	g_autoptr(GArray) want = shell_renderer_formats(renderer);
	struct shell *s = shell_connect();
	shell_sort_formats(s->dmabuf_formats);
	g_test_message("%s imports %u dma-buf format and modifier pairs; the compositor "
		"advertises %u%s", renderer, want->len, s->dmabuf_formats->len,
		s->dmabuf ? "" : " (no global)");
	if (strcmp(renderer, "pixman") == 0) {
		/* It maps linear dma-bufs and reads them in place: each format it reads. */
		g_assert_cmpuint(want->len, >=, 5);
		for (guint i = 0; i < want->len; i++)
			g_assert_cmpuint(g_array_index(want, struct umms_render_format, i).modifier,
				==, DRM_FORMAT_MOD_LINEAR);
	}
	if (want->len == 0) {
		g_assert_null(s->dmabuf);
	} else {
		g_assert_nonnull(s->dmabuf);
		g_assert_cmpuint(s->dmabuf_formats->len, ==, want->len);
		for (guint i = 0; i < want->len; i++) {
			const struct umms_render_format *w = &g_array_index(want,
				struct umms_render_format, i);
			const struct umms_render_format *got = &g_array_index(s->dmabuf_formats,
				struct umms_render_format, i);
			g_assert_cmphex(got->format, ==, w->format);
			g_assert_cmphex(got->modifier, ==, w->modifier);
		}
	}
	/* The screen's description agrees: "dma-buf import yes" only with the global. */
	g_autoptr(GVariant) stats = umms_test_get(t->bus, DISPLAY, DISPLAY1, "RenderStats");
	const char *name = NULL;
	g_assert_true(g_variant_lookup(stats, "renderer", "&s", &name));
	if (strcmp(renderer, "gles2") == 0)
		g_assert_nonnull(strstr(name, want->len ? "dma-buf import yes" :
			"dma-buf import no"));
	shell_free(s);
}

static void
test_ummsctl(struct umms_test *t, gconstpointer data)
{
	const char *ctl = umms_test_program("ummsctl");
	g_autofree char *shot = g_strdup_printf("%s/ummsctl.png", umms_test_tmpdir());
	g_autoptr(GError) error = NULL;
	/* No screen: said plainly. */
	g_autoptr(GSubprocess) p = g_subprocess_new(G_SUBPROCESS_FLAGS_STDERR_PIPE, &error, ctl,
		"capture", shot, NULL);
	g_assert_no_error(error);
	g_autofree char *err = NULL;
	g_subprocess_communicate_utf8(p, NULL, NULL, NULL, &err, &error);
	g_assert_no_error(error);
	g_assert_cmpint(g_subprocess_get_exit_status(p), ==, 1);
	g_assert_nonnull(strstr(err, "drives no screen"));

	/* The headless screen: play, show, capture, as the README says. */
	start(t, "640x480", false);
	g_autofree char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Pause", NULL);
	const char *steps[][4] = { { "-p", player, "show", NULL }, { "capture", shot, NULL } };
	for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
		g_clear_object(&p);
		const char *argv[6] = { ctl };
		for (int k = 0; steps[i][k]; k++)
			argv[k + 1] = steps[i][k];
		p = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, &error);
		g_assert_no_error(error);
		g_subprocess_wait_check(p, NULL, &error);
		g_assert_no_error(error);
		/* The paused player's frame is sent again for the screen: on it before capture. */
		if (i == 0)
			wait_video_path(t, "composited");
	}
	struct umms_test_image *image = umms_test_image_load(shot);
	umms_test_image_assert_pixel(image, 320, 240, RED, 12, "ummsctl capture");
	umms_test_image_free(image);
}

/* Runs ummsctl with @args; its exit status, stderr in @err if not NULL. */
static int
run_ctl(const char *const *args, char **err)
{
	const char *argv[12] = { umms_test_program("ummsctl") };
	for (int k = 0; args[k]; k++) {
		g_assert_cmpint(k, <, 10);
		argv[k + 1] = args[k];
	}
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) p = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
	g_assert_no_error(error);
	g_autofree char *text = NULL;
	g_subprocess_communicate_utf8(p, NULL, NULL, NULL, &text, &error);
	g_assert_no_error(error);
	if (err)
		*err = g_steal_pointer(&text);
	return g_subprocess_get_exit_status(p);
}

#define CTL(...) run_ctl((const char *const[]){ __VA_ARGS__, NULL }, NULL)

/* Captures until (x, y) is @rgb, at most 10 s; the last capture. */
static struct umms_test_image *
wait_pixel(struct umms_test *t, int x, int y, uint32_t rgb, const char *what)
{
	for (int i = 0; i < 200; i++) {
		struct umms_test_image *image = capture(t, what, 0, 0);
		if (umms_test_color_near(umms_test_image_pixel(image, x, y) & 0xffffff, rgb, 12))
			return image;
		umms_test_image_free(image);
		umms_test_sleep(50);
	}
	struct umms_test_image *image = capture(t, what, 0, 0);
	umms_test_image_assert_pixel(image, x, y, rgb, 12, what);
	return image;
}

#define MAGENTA 0xff00ff

/*
 * ummsctl place and unplace (Display1.PlacePlayer, UnplacePlayer) over a
 * shell client's magenta window: the video where it was put, clipped,
 * hidden, taken off; usage mistakes and unknown players named.
 */
static void
test_ummsctl_place(struct umms_test *t, gconstpointer data)
{
	start(t, "640x360", true);
	struct shell *s = shell_connect();
	shell_map(s);
	shell_draw(s, MAGENTA, NULL);
	g_autofree char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Pause", NULL);
	const char *n = strrchr(player, '/') + 1;

	/* Over the window at (100, 80), 320x180: red inside, magenta around. */
	g_assert_cmpint(CTL("place", n, "100", "80", "320", "180", "--over", "--z", "2"), ==, 0);
	shell_draw(s, MAGENTA, NULL);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "placed");
	umms_test_image_assert_pixel(image, 90, 170, MAGENTA, 12, "left of it");
	umms_test_image_assert_pixel(image, 260, 270, MAGENTA, 12, "below it");
	umms_test_image_free(image);

	/* Clipped to its left half. */
	g_assert_cmpint(CTL("place", player, "100", "80", "320", "180", "--over",
		"--clip", "100,80,160,180"), ==, 0);
	shell_draw(s, MAGENTA, NULL);
	image = wait_pixel(t, 340, 170, MAGENTA, "clipped");
	umms_test_image_assert_pixel(image, 240, 170, RED, 12, "inside the clip");
	umms_test_image_free(image);

	/* Hidden: the window only; placed again, shown; unplaced, gone at once. */
	g_assert_cmpint(CTL("place", n, "100", "80", "320", "180", "--over", "--hidden"), ==, 0);
	shell_draw(s, MAGENTA, NULL);
	umms_test_image_free(wait_pixel(t, 260, 170, MAGENTA, "hidden"));
	g_assert_cmpint(CTL("place", n, "100", "80", "320", "180", "--over"), ==, 0);
	shell_draw(s, MAGENTA, NULL);
	umms_test_image_free(wait_pixel(t, 260, 170, RED, "shown again"));
	g_assert_cmpint(CTL("unplace", n), ==, 0);
	image = capture(t, "unplaced", 0, 0);
	umms_test_image_assert_pixel(image, 260, 170, MAGENTA, 12, "unplaced");
	umms_test_image_free(image);

	/* Mistakes: usage (2) before the bus; ummsd's refusals by name (1). */
	g_assert_cmpint(CTL("place", n, "100", "80", "320"), ==, 2);
	g_assert_cmpint(CTL("place", n, "100", "80", "wide", "180"), ==, 2);
	g_assert_cmpint(CTL("place", n, "1", "2", "3", "4", "--clip", "1,2,3"), ==, 2);
	g_assert_cmpint(CTL("-p", n, "show", "--over"), ==, 2);
	g_autofree char *err = NULL;
	g_assert_cmpint(run_ctl((const char *const[]){ "place", "99", "1", "2", "3", "4", NULL },
		&err), ==, 1);
	g_assert_nonnull(strstr(err, "no such player"));
	g_free(g_steal_pointer(&err));
	g_assert_cmpint(run_ctl((const char *const[]){ "place", n, "0", "0", "-5", "4", NULL },
		&err), ==, 1);
	g_assert_nonnull(strstr(err, "org.umms.Error.InvalidArgument"));
	shell_free(s);
}

int
main(int argc, char *argv[])
{
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		renderer = option;
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/headless/display", test_display);
	UMMS_TEST_ADD("/headless/damage", test_damage);
	UMMS_TEST_ADD("/headless/partial", test_partial);
	UMMS_TEST_ADD("/headless/partial-subsurface", test_partial_subsurface);
	UMMS_TEST_ADD("/headless/dmabuf-global", test_dmabuf_global);
	UMMS_TEST_ADD("/headless/ummsctl", test_ummsctl);
	UMMS_TEST_ADD("/headless/ummsctl-place", test_ummsctl_place);
	return g_test_run();
}
