/*
 * Videos placed relative to a client's window (issue 16: a browser's page),
 * through Display1.PlacePlayer, on the headless screen: a "browser" that is
 * a real Wayland client of ummsd's compositor (shell.c: a magenta page with
 * a transparent hole), players of ummsd, pixels read back with Capture.
 * Under the page (through its hole, even with its surface marked opaque),
 * over it, clipped, hidden, two stacked by z, latched to the page's commit,
 * the window chosen by the client's process id, gone with its player; and
 * named errors for bad requests. Runs once per renderer (--renderer=), and
 * with --kms on vkms in the test VM (meson test place-vm: one video on a
 * plane or composited by the KMS ladder, the others by the scene, pixels
 * by writeback).
 *
 * Started with --child-window, the binary is the second client of the
 * process-id case instead: a transparent window with a cyan band on top.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "image.h"
#include "shell.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

#define MAGENTA 0xff00ff
#define RED 0xff0000
#define GREEN 0x00ff00
#define CYAN 0x00ffff
#define BLACK 0x000000

/* The page's video element: (100, 80), 320x180. */
static const int BOX[4] = { 100, 80, 320, 180 };

static const char *renderer = "pixman";
static bool kms;             /* --kms: vkms in the test VM, else the headless screen */
static char *self_path;
/* The screen: 640x360 headless; vkms's 1024x768 (everything below fits in both). */
static int screen_w = 640, screen_h = 360;

static void
start(struct umms_test *t)
{
	g_autofree char *r = g_strdup_printf("display.renderer=%s", kms ? "auto" : renderer);
	g_autofree char *m = g_strdup_printf("display.mode=%dx%d", screen_w, screen_h);
	const char *const overrides[] = { "display.enabled=true", "display.compositor=true",
		"display.input=false", r, m, "engine.open-timeout=120000",
		"engine.answer-timeout=120000", kms ? NULL : "display.headless=true", NULL };
	umms_test_restart(t, overrides);
}

static struct umms_test_image *
capture(struct umms_test *t, const char *what)
{
	return umms_test_capture(t, what, 0, 0);
}

static bool
near(uint32_t a, uint32_t b, int tolerance)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int d = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);
		if (d > tolerance || d < -tolerance)
			return false;
	}
	return true;
}

/* Captures until (x, y) is @rgb (a frame on its way), at most 10 s; the last capture. */
static struct umms_test_image *
wait_pixel(struct umms_test *t, int x, int y, uint32_t rgb, const char *what)
{
	for (int i = 0; i < 200; i++) {
		struct umms_test_image *image = capture(t, what);
		if (near(umms_test_image_pixel(image, x, y) & 0xffffff, rgb, 12))
			return image;
		umms_test_image_free(image);
		umms_test_sleep(50);
	}
	struct umms_test_image *image = capture(t, what);
	umms_test_image_assert_pixel(image, x, y, rgb, 12, what);
	return image;
}

/* PlacePlayer with @options in GVariant text ("{'z': <1>}"). */
static void
place(struct umms_test *t, const char *player, double x, double y, double w, double h,
	const char *options)
{
	g_autofree char *text = g_strdup_printf("(objectpath '%s', (%f, %f, %f, %f), %s)",
		player, x, y, w, h, options ? options : "@a{sv} {}");
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "PlacePlayer",
		g_variant_new_parsed(text));
}

static char *
place_error(struct umms_test *t, const char *text, const char *name)
{
	return umms_test_call_error(t->bus, DISPLAY, DISPLAY1, "PlacePlayer",
		g_variant_new_parsed(text), name);
}

/* A player of colors.mkv paused on its first frame (red), or a second in (green). */
static char *
open_player(struct umms_test *t, bool green)
{
	char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Pause", NULL);
	if (green)
		umms_test_player_do(t->bus, player, "Seek", g_variant_new("(x)", US(1.5)));
	return player;
}

/* The browser: a mapped window, magenta with a transparent hole at @hole (NULL: none). */
static struct shell *
browser(const int hole[4])
{
	struct shell *s = shell_connect();
	shell_map(s);
	g_assert_cmpint(s->width, ==, screen_w);
	g_assert_cmpint(s->height, ==, screen_h);
	shell_draw(s, MAGENTA, hole);
	return s;
}

/* The video fills BOX (inside ±1 px) with @rgb, the page is magenta around it. */
static void
assert_in_box(const struct umms_test_image *image, const int box[4], uint32_t rgb,
	const char *what)
{
	umms_test_image_assert_rect(image, box[0], box[1], box[2], box[3], 1, rgb, 12, what);
	umms_test_image_assert_pixel(image, box[0] - 2, box[1] + box[3] / 2, MAGENTA, 12, what);
	umms_test_image_assert_pixel(image, box[0] + box[2] + 1, box[1] + box[3] / 2, MAGENTA,
		12, what);
	umms_test_image_assert_pixel(image, box[0] + box[2] / 2, box[1] - 2, MAGENTA, 12, what);
	umms_test_image_assert_pixel(image, box[0] + box[2] / 2, box[1] + box[3] + 1, MAGENTA,
		12, what);
}

#define FILL "'zoom': <'fill'>"

static void
test_under_over(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(BOX);
	g_autofree char *red = open_player(t, false);
	/* Under (the default), through the page's hole: applied with its next commit. */
	place(t, red, 100, 80, 320, 180, "{" FILL "}");
	shell_draw(s, MAGENTA, BOX);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "under");
	assert_in_box(image, BOX, RED, "under");
	umms_test_image_free(image);

	/* Over an opaque page: on top of it. CSS pixels × scale 2 are surface pixels. */
	place(t, red, 50, 40, 160, 90, "{" FILL ", 'over': <true>, 'scale': <2.0>}");
	shell_draw(s, MAGENTA, NULL);
	image = capture(t, "over");
	assert_in_box(image, BOX, RED, "over");
	umms_test_image_free(image);

	/* Clipped (an overflow:hidden box): nothing of it outside the clip. */
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>, "
		"'clip': <(100.0, 80.0, 160.0, 180.0)>}");
	shell_draw(s, MAGENTA, NULL);
	image = capture(t, "clipped");
	umms_test_image_assert_rect(image, 100, 80, 160, 180, 1, RED, 12, "inside the clip");
	umms_test_image_assert_rect(image, 262, 80, 158, 180, 1, MAGENTA, 12, "outside the clip");
	umms_test_image_free(image);

	/* Hidden (display:none): the page only; shown again where it was. */
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>, 'visible': <false>}");
	shell_draw(s, MAGENTA, NULL);
	image = capture(t, "hidden");
	umms_test_image_assert_rect(image, 100, 80, 320, 180, 0, MAGENTA, 12, "hidden");
	umms_test_image_free(image);
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>}");
	shell_draw(s, MAGENTA, NULL);
	image = wait_pixel(t, 260, 170, RED, "shown again");
	assert_in_box(image, BOX, RED, "shown again");
	umms_test_image_free(image);

	/* UnplacePlayer: off at once, no commit needed. */
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "UnplacePlayer",
		g_variant_new("(o)", red));
	image = capture(t, "unplaced");
	umms_test_image_assert_rect(image, 100, 80, 320, 180, 0, MAGENTA, 12, "unplaced");
	umms_test_image_free(image);
	shell_free(s);
}

/* A page whose surface says it is opaque still shows the video under its transparent pixels. */
static void
test_opaque_marked(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(BOX);
	struct wl_region *region = wl_compositor_create_region(s->compositor);
	wl_region_add(region, 0, 0, s->width, s->height);
	wl_surface_set_opaque_region(s->surface, region);
	wl_region_destroy(region);
	g_autofree char *red = open_player(t, false);
	place(t, red, 100, 80, 320, 180, "{" FILL "}");
	shell_draw(s, MAGENTA, BOX);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "opaque-marked");
	assert_in_box(image, BOX, RED, "opaque-marked");
	umms_test_image_free(image);
	shell_free(s);
}

/* Two overlapping videos: z decides which is on top, under the page and over it. */
static void
test_z_order(struct umms_test *t, gconstpointer data)
{
	start(t);
	const int hole[4] = { 40, 40, 560, 280 };
	struct shell *s = browser(hole);
	g_autofree char *red = open_player(t, false);
	g_autofree char *green = open_player(t, true);
	const char *sides[] = { "", "'over': <true>, " };
	for (int k = 0; k < 2; k++) {
		g_autofree char *a = g_strdup_printf("{" FILL ", %s'z': <1>}", sides[k]);
		g_autofree char *b = g_strdup_printf("{" FILL ", %s'z': <0>}", sides[k]);
		place(t, red, 100, 80, 320, 180, a);
		place(t, green, 200, 140, 320, 180, b);
		shell_draw(s, MAGENTA, hole);
		/* Red (z 1) over green (z 0) where they overlap. */
		struct umms_test_image *image = wait_pixel(t, 480, 280, GREEN, "z green");
		umms_test_image_free(image);
		/* Each player's first frame comes in its own time (seconds apart in the VM). */
		image = wait_pixel(t, 150, 100, RED, "z red alone");
		umms_test_image_assert_pixel(image, 480, 280, GREEN, 12, "z green alone");
		umms_test_image_assert_pixel(image, 300, 200, RED, 12, "z red over green");
		umms_test_image_free(image);
		/* The other way round. */
		g_autofree char *c = g_strdup_printf("{" FILL ", %s'z': <2>}", sides[k]);
		place(t, green, 200, 140, 320, 180, c);
		shell_draw(s, MAGENTA, hole);
		image = wait_pixel(t, 300, 200, GREEN, "z swapped");
		umms_test_image_assert_pixel(image, 150, 100, RED, 12, "z red alone");
		umms_test_image_assert_pixel(image, 300, 200, GREEN, 12, "z green over red");
		umms_test_image_assert_pixel(image, 480, 280, GREEN, 12, "z green alone");
		umms_test_image_free(image);
	}
	/* Equal z: the one placed later on top, and moving the other keeps it so. */
	place(t, red, 100, 80, 320, 180, "{" FILL "}");
	place(t, green, 200, 140, 320, 180, "{" FILL "}");
	shell_draw(s, MAGENTA, hole);
	struct umms_test_image *image = wait_pixel(t, 300, 200, GREEN, "equal z: later on top");
	umms_test_image_free(image);
	place(t, red, 120, 80, 320, 180, "{" FILL "}");
	shell_draw(s, MAGENTA, hole);
	image = wait_pixel(t, 130, 100, RED, "equal z: moved");
	umms_test_image_assert_pixel(image, 300, 200, GREEN, 12, "equal z: moved, still under");
	umms_test_image_free(image);
	shell_free(s);
}

/* The page moves its element and the video follows at the page's commit, not before. */
static void
test_latched(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(BOX);
	g_autofree char *red = open_player(t, false);
	place(t, red, 100, 80, 320, 180, "{" FILL "}");
	shell_draw(s, MAGENTA, BOX);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "before the move");
	umms_test_image_free(image);

	/* Placed 200 px to the right; the page has not committed its new frame yet. */
	const int moved[4] = { 300, 80, 320, 180 };
	int64_t t0 = g_get_monotonic_time();
	place(t, red, 300, 80, 320, 180, "{" FILL "}");
	image = capture(t, "placed, not committed");
	int64_t elapsed_ms = (g_get_monotonic_time() - t0) / 1000;
	g_test_message("placement to capture: %" G_GINT64_FORMAT " ms", elapsed_ms);
	if (elapsed_ms < 90) {
		/* Still where the page's last frame has it. */
		umms_test_image_assert_rect(image, 100, 80, 320, 180, 1, RED, 12, "not yet moved");
	}
	umms_test_image_free(image);
	/* The page's frame with the element moved: page and video move together. */
	shell_draw(s, MAGENTA, moved);
	image = capture(t, "moved with the commit");
	umms_test_image_assert_rect(image, 300, 80, 320, 180, 1, RED, 12, "moved video");
	umms_test_image_assert_rect(image, 100, 80, 190, 180, 1, MAGENTA, 12, "page left behind");
	umms_test_image_free(image);

	/* A page that does not commit: applied after 100 ms anyway. */
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>}");
	umms_test_sleep(250);
	image = capture(t, "no commit");
	umms_test_image_assert_rect(image, 100, 80, 320, 180, 1, RED, 12, "applied without commit");
	umms_test_image_free(image);
	shell_free(s);
}

/* The window is chosen by its client's process id; 0 is the newest window. */
static void
test_client_pid(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) child = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
		G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_path, "--child-window", NULL);
	g_assert_no_error(error);
	g_autoptr(GDataInputStream) out = g_data_input_stream_new(
		g_subprocess_get_stdout_pipe(child));
	g_autofree char *line = g_data_input_stream_read_line(out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(line, ==, "ready");
	pid_t child_pid = (pid_t)atoi(g_subprocess_get_identifier(child));

	g_autofree char *red = open_player(t, false);
	/* Over this process's window: under the child's newer one, its cyan band on top. */
	g_autofree char *mine = g_strdup_printf("{" FILL ", 'over': <true>, "
		"'client-pid': <uint32 %u>}", (unsigned)getpid());
	place(t, red, 100, 80, 320, 180, mine);
	umms_test_sleep(250);
	struct umms_test_image *image = wait_pixel(t, 260, 200, RED, "over the older window");
	umms_test_image_assert_pixel(image, 260, 100, CYAN, 12, "the newer window's band over it");
	umms_test_image_free(image);
	/* Over the child's window (by its pid, and as the newest): over the band too. */
	g_autofree char *theirs = g_strdup_printf("{" FILL ", 'over': <true>, "
		"'client-pid': <uint32 %u>}", (unsigned)child_pid);
	const char *options[] = { theirs, "{" FILL ", 'over': <true>}" };
	for (int i = 0; i < 2; i++) {
		place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>, 'visible': <false>}");
		umms_test_sleep(250);
		place(t, red, 100, 80, 320, 180, options[i]);
		umms_test_sleep(250);
		image = wait_pixel(t, 260, 100, RED, "over the newer window");
		umms_test_image_assert_rect(image, 100, 80, 320, 180, 1, RED, 12, "over both");
		umms_test_image_free(image);
	}
	/* No window of that process: NotFound. */
	g_autofree char *e = place_error(t, "(objectpath '/', (0.0, 0.0, 1.0, 1.0), "
		"{'client-pid': <uint32 1>})", "org.umms.Error.NotFound");
	g_autofree char *text = g_strdup_printf("(objectpath '%s', (0.0, 0.0, 1.0, 1.0), "
		"{'client-pid': <uint32 1>})", red);
	g_autofree char *e2 = place_error(t, text, "org.umms.Error.NotFound");
	g_output_stream_close(G_OUTPUT_STREAM(g_subprocess_get_stdin_pipe(child)), NULL, NULL);
	g_subprocess_wait_check(child, NULL, &error);
	g_assert_no_error(error);
	shell_free(s);
}

/* The player destroyed: its video off the screen with the next picture. */
static void
test_player_gone(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(NULL);
	g_autofree char *red = open_player(t, false);
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>}");
	shell_draw(s, MAGENTA, NULL);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "before");
	umms_test_image_free(image);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, "/org/umms", "org.umms.Manager1",
		"DestroyPlayer", g_variant_new("(o)", red));
	/*
	 * Gone from the very next picture (the placement goes with the player,
	 * not with a later commit or timer): the capture made right away shows
	 * the page only. Timed for the log; ASan and emulation make it slow.
	 */
	int64_t t0 = g_get_monotonic_time();
	image = capture(t, "destroyed");
	int64_t ms = (g_get_monotonic_time() - t0) / 1000;
	g_test_message("destroyed to captured without it: %" G_GINT64_FORMAT " ms", ms);
	umms_test_image_assert_rect(image, 100, 80, 320, 180, 0, MAGENTA, 12, "player gone");
	umms_test_image_free(image);
	shell_free(s);
}

/* Bad requests: named errors, ummsd still serving. */
static void
test_errors(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = browser(NULL);
	g_autofree char *red = open_player(t, false);
	const struct { double x, y, w, h; const char *options; } bad[] = {
		{ NAN, 0, 10, 10, NULL },
		{ 0, 0, INFINITY, 10, NULL },
		{ 1e9, 0, 10, 10, NULL },
		{ 0, 0, -5, 10, NULL },
		{ 0, 0, 10, 10, "{'clip': <(0.0, 0.0, 1e12, 1.0)>}" },
		{ 0, 0, 10, 10, "{'scale': <0.0>}" },
		{ 0, 0, 10000, 10, "{'scale': <16.0>}" },
		{ 0, 0, 10, 10, "{'z': <'top'>}" },
		{ 0, 0, 10, 10, "{'colour': <1>}" },
		{ 0, 0, 10, 10, "{'zoom': <'stretchy'>}" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		GVariant *options = g_variant_new_parsed(bad[i].options ? bad[i].options :
			"@a{sv} {}");
		g_autofree char *e = umms_test_call_error(t->bus, DISPLAY, DISPLAY1, "PlacePlayer",
			g_variant_new("(o(dddd)@a{sv})", red, bad[i].x, bad[i].y, bad[i].w, bad[i].h,
				options), "org.umms.Error.InvalidArgument");
	}
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "clip", g_variant_new("(dddd)", 0.0, 0.0, NAN, 1.0));
	g_autofree char *e0 = umms_test_call_error(t->bus, DISPLAY, DISPLAY1, "PlacePlayer",
		g_variant_new("(o(dddd)a{sv})", red, 0.0, 0.0, 1.0, 1.0, &b),
		"org.umms.Error.InvalidArgument");
	g_autofree char *e1 = place_error(t, "(objectpath '/org/umms/player/999', "
		"(0.0, 0.0, 1.0, 1.0), @a{sv} {})", "org.umms.Error.NotFound");
	g_autofree char *e2 = umms_test_call_error(t->bus, DISPLAY, DISPLAY1, "UnplacePlayer",
		g_variant_new("(o)", "/org/umms/player/999"), "org.umms.Error.NotFound");
	/* Still serving: a good placement shows. */
	place(t, red, 100, 80, 320, 180, "{" FILL ", 'over': <true>}");
	shell_draw(s, MAGENTA, NULL);
	struct umms_test_image *image = wait_pixel(t, 260, 170, RED, "after the errors");
	assert_in_box(image, BOX, RED, "after the errors");
	umms_test_image_free(image);
	shell_free(s);
}

/* ---- partial updates ---------------------------------------------------------- */

#define SQUARE 40
#define SQUARE_Y 290   /* under BOX */

struct page {
	int square_x;   /* -1: none */
};

/* The page: magenta, a hole at BOX, a white square; a pattern would hide nothing more. */
static uint32_t
page_pixel(int x, int y, const void *data)
{
	const struct page *pg = data;
	if (pg->square_x >= 0 && x >= pg->square_x && x < pg->square_x + SQUARE &&
			y >= SQUARE_Y && y < SQUARE_Y + SQUARE)
		return 0xffffffffu;
	if (x >= BOX[0] && x < BOX[0] + BOX[2] && y >= BOX[1] && y < BOX[1] + BOX[3])
		return 0;
	return 0xff000000u | MAGENTA;
}

/* Whether (x, y) is within 1 px of the border of @r (scaling blends there). */
static bool
on_edge(const int r[4], int x, int y)
{
	bool near_box = x >= r[0] - 1 && x <= r[0] + r[2] && y >= r[1] - 1 && y <= r[1] + r[3];
	bool inner = x > r[0] && x < r[0] + r[2] - 1 && y > r[1] && y < r[1] + r[3] - 1;
	return near_box && !inner;
}

struct page_want {
	const struct page *pg;
	const int *video;
};

/* The video (red) at its place, else the page, black through its hole. */
static uint32_t
screen_pixel(int x, int y, const void *data)
{
	const struct page_want *pw = data;
	const int *v = pw->video;
	if (on_edge(v, x, y) || on_edge(BOX, x, y))
		return UMMS_TEST_ANY_PIXEL;   /* scaling blends at the edges */
	if (x >= v[0] && x < v[0] + v[2] && y >= v[1] && y < v[1] + v[3])
		return RED;
	return page_pixel(x, y, pw->pg) & 0xffffff;
}

/* Every pixel of the screen: the page, and the video at @video. */
static void
assert_page(struct umms_test *t, const struct page *pg, const int video[4], const char *what)
{
	struct umms_test_image *image = capture(t, what);
	struct page_want pw = { pg, video };
	umms_test_image_assert_each(image, screen_pixel, &pw, 12, what);
	umms_test_image_free(image);
}

static uint64_t
damaged_pixels(struct umms_test *t)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, DISPLAY, DISPLAY1, "RenderStats");
	uint64_t v = 0;
	g_assert_true(g_variant_lookup(stats, "damaged-pixels", "t", &v));
	return v;
}

/*
 * @steps commits moving the square (each damaging only where it was and
 * is), the screen checked on the way and at the end; the pixels repainted.
 */
static uint64_t
animate(struct umms_test *t, struct shell *s, struct page *pg, const int video[4], int steps,
	const char *what)
{
	uint64_t pixels0 = damaged_pixels(t);
	for (int i = 0; i < steps; i++) {
		int was = pg->square_x;
		pg->square_x = 20 + (i % 8) * 70;   /* further than its size: a trail would show */
		int damage[2][4] = {
			{ pg->square_x, SQUARE_Y, SQUARE, SQUARE },
			{ was, SQUARE_Y, SQUARE, SQUARE },
		};
		shell_paint_damage(s, page_pixel, pg, damage, was >= 0 ? 2 : 1);
		if (i == 2 || i == 3) {
			g_autofree char *name = g_strdup_printf("%s-%d", what, i);
			assert_page(t, pg, video, name);
		}
	}
	assert_page(t, pg, video, what);
	uint64_t pixels = damaged_pixels(t) - pixels0;
	g_autoptr(GVariant) v = umms_test_get(t->bus, DISPLAY, DISPLAY1, "VideoPath");
	const char *path = g_variant_get_string(v, NULL);
	g_test_message("%s: %d steps, %" G_GUINT64_FORMAT " pixels repainted (video %s)", what,
		steps, pixels, path);
	/*
	 * Each step's two squares (110 x 40), twice at most for a buffer that
	 * missed one; a whole screen would be 230,400 (headless) or 786,432
	 * (KMS) a step. On KMS, the page's second buffer is still whole to
	 * repaint after the placement before (only the first was drawn since);
	 * composited with the video, the screen is repainted whole each step.
	 */
	uint64_t whole = kms ? (uint64_t)screen_w * screen_h : 0;
	if (!kms || strcmp(path, "composited") != 0)
		g_assert_cmpuint(pixels, <=, (uint64_t)steps * 2 * 110 * SQUARE + whole);
	return pixels;
}

/*
 * The page animates over a video in its hole, then under the video: the
 * screen shows exactly the page and the video, with no trail. On KMS the
 * video under the page is composited with it; over it, on a plane, the
 * page is drawn into two buffers in turn, each repainting what changed
 * since it was last drawn (buffer age): a buffer that missed a step would
 * show the square twice.
 */
static void
test_partial(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct page pg = { .square_x = -1 };
	struct shell *s = shell_connect();
	shell_map(s);
	shell_paint(s, page_pixel, &pg);
	g_autofree char *red = open_player(t, false);
	place(t, red, BOX[0], BOX[1], BOX[2], BOX[3], "{" FILL "}");
	umms_test_image_free(wait_pixel(t, 260, 170, RED, "partial-start"));
	assert_page(t, &pg, BOX, "partial-start");
	animate(t, s, &pg, BOX, 5, "partial-under");
	/* Over the page at its own size (320x240, clear of the square's row): a plane on KMS. */
	const int over[4] = { 300, 20, 320, 240 };
	place(t, red, over[0], over[1], over[2], over[3], "{'over': <true>}");
	umms_test_image_free(wait_pixel(t, 460, 140, RED, "partial-over"));
	uint64_t pixels = animate(t, s, &pg, over, 7, "partial-over");
	if (kms) {
		/* The video on its own plane: the page's buffers, each repainted in part. */
		g_autoptr(GVariant) v = umms_test_get(t->bus, DISPLAY, DISPLAY1, "VideoPath");
		g_assert_cmpstr(g_variant_get_string(v, NULL), ==, "overlay");
		g_assert_cmpuint(pixels, <, 2 * (uint64_t)screen_w * screen_h);
	}
	shell_free(s);
}

static uint32_t
band_pixel(int x, int y, const void *data)
{
	return y < 120 ? 0xff000000u | CYAN : 0;
}

/* --child-window: a second client's window, until stdin closes. */
static int
child_window(void)
{
	struct shell *s = shell_connect();
	shell_map(s);
	shell_paint(s, band_pixel, NULL);
	printf("ready\n");
	fflush(stdout);
	char buf[16];
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	shell_free(s);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc > 1 && strcmp(argv[1], "--child-window") == 0)
		return child_window();
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		renderer = option;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--kms") == 0) {
			kms = true;
			screen_w = 1024, screen_h = 768;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			argc--;
			break;
		}
	}
	self_path = g_canonicalize_filename(argv[0], NULL);
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/place/under-over", test_under_over);
	UMMS_TEST_ADD("/place/opaque-marked", test_opaque_marked);
	UMMS_TEST_ADD("/place/z-order", test_z_order);
	UMMS_TEST_ADD("/place/latched", test_latched);
	UMMS_TEST_ADD("/place/client-pid", test_client_pid);
	UMMS_TEST_ADD("/place/player-gone", test_player_gone);
	UMMS_TEST_ADD("/place/errors", test_errors);
	UMMS_TEST_ADD("/place/partial", test_partial);
	int rc = g_test_run();
	g_free(self_path);
	return rc;
}
