/*
 * A web page plays through umms (issue 16), end to end, as a user runs it:
 * a real browser on ummsd's headless screen loads a page (tests/web/
 * place.html) that uses <umms-video> (web/umms-video.js); the element talks
 * to ummsd's web bridge (service/web/) over a WebSocket, and ummsd places
 * the video under the browser's window at the element's box
 * (service/compositor/placement.c). Pixels by Display1.Capture.
 *
 * - cog with a transparent page: the video in the element's box, the
 *   page's magenta around it, the page's caption over it; the element moved,
 *   clipped by an overflow:hidden box, hidden by display:none, shown,
 *   removed: the video follows, is cut, goes (its player kept), comes
 *   back, goes with its player.
 * - The browser killed, or the page gone to another: its video and its
 *   player go.
 * - Chromium (opaque windows): the video over the page, at the box.
 *
 * The clip is colors.mkv paused on its first frame: red, 320x240, so in
 * the 320x180 box it is letterboxed to x 140..380 with black bars.
 */
#include <string.h>

#include "browser.h"
#include "harness.h"
#include "image.h"
#include "sources.h"

#define W 960
#define H 540

#define MAGENTA 0xff00ff
#define RED 0xff0000
#define BLACK 0x000000
#define WHITE 0xffffff

#define TOKEN "a-token-for-the-page-tests"
#define PAGE_TIMEOUT_MS 90000
#define STEP_TIMEOUT_MS 20000

static struct pages *pages;
static unsigned web_port;

static void
start(struct umms_test *t)
{
	web_port = umms_test_free_tcp_port();
	g_autofree char *port = g_strdup_printf("web.port=%u", web_port);
	g_autofree char *origins = g_strdup_printf("web.origins=%s", pages_origin(pages));
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=960x540", "display.compositor=true",
		"display.input=false", port, origins, "web.token=" TOKEN, NULL };
	umms_test_restart(t, overrides);
}

/* place.html's address: the bridge, the clip, and @more ("&over=1"). */
static char *
page_url(const char *more)
{
	g_autofree char *clip = umms_test_clip_uri("colors.mkv");
	g_autofree char *src = g_uri_escape_string(clip, NULL, FALSE);
	g_autofree char *page = pages_url(pages, "/place.html");
	return g_strdup_printf("%s#port=%u&token=%s&src=%s%s", page, web_port, TOKEN, src,
		more ? more : "");
}

static unsigned
player_count(struct umms_test *t)
{
	g_autoptr(GVariant) value = umms_test_get(t->bus, UMMS_ROOT, UMMS_MANAGER, "Players");
	return (unsigned)g_variant_n_children(value);
}

static void
wait_players(struct umms_test *t, unsigned n, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (player_count(t) != n) {
		if (g_get_monotonic_time() > end)
			g_error("%u players, not %u", player_count(t), n);
		umms_test_sleep(20);
	}
}

/* The page's next step (place.html polls /step). */
static void
step(const char *name)
{
	pages_add(pages, "/step", name);
}

/* The element at (x, 80) 320x180: the picture, its bars, the caption, magenta around. */
static void
points_at(struct screen_point *p, int x)
{
	const struct screen_point points[] = {
		{ x + 160, 150, RED },         /* the picture's middle */
		{ x + 45, 150, RED },          /* its left edge (x + 40) */
		{ x + 20, 150, BLACK },        /* the bar left of it */
		{ x + 160, 250, WHITE },       /* the page's caption over the video */
		{ x - 3, 150, MAGENTA },       /* the page left of the box */
		{ x + 160, 77, MAGENTA },      /* above it */
		{ x + 323, 150, MAGENTA },     /* right of it */
		{ -1, -1, 0 },
	};
	memcpy(p, points, sizeof(points));
}

static void
assert_box(const struct umms_test_image *image, int x, const char *what)
{
	/* Within a pixel: the picture fills x+40..x+280, 80..240 (the caption below). */
	umms_test_image_assert_rect(image, x + 40, 80, 240, 160, 1, RED, 16, what);
	umms_test_image_assert_rect(image, x, 80, 40, 160, 1, BLACK, 16, what);
	umms_test_image_assert_rect(image, x, 240, 320, 20, 1, WHITE, 16, what);
	umms_test_image_assert_pixel(image, x - 2, 150, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, x + 321, 150, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, x + 160, 78, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, x + 160, 261, MAGENTA, 16, what);
}

/* No red anywhere on a grid over the screen. */
static bool
no_video(const struct umms_test_image *image, const void *data)
{
	for (int y = 4; y < H; y += 8) {
		for (int x = 4; x < W; x += 8) {
			uint32_t rgb = umms_test_image_pixel(image, x, y);
			if ((rgb >> 16) > 200 && ((rgb >> 8) & 0xff) < 60 && (rgb & 0xff) < 60)
				return false;
		}
	}
	return true;
}

static struct umms_test_image *
wait_box(struct umms_test *t, int x, unsigned timeout_ms, const char *what)
{
	struct screen_point points[8];
	points_at(points, x);
	gint64 begun = g_get_monotonic_time();
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, points,
		timeout_ms, what);
	g_test_message("%s: on screen %.0f ms after it was asked", what,
		(g_get_monotonic_time() - begun) / 1e3);
	assert_box(image, x, what);
	return image;
}

/*
 * A fresh ummsd, and cog with a transparent background on place.html: once
 * its video shows at the element's box (100,80), under the page.
 */
static struct browser *
cog_placed(struct umms_test *t, const char *what)
{
	start(t);
	step("none");
	g_autofree char *url = page_url(NULL);
	const char *const args[] = { "--bg-color=#00000000", NULL };
	struct browser *b = browser_start(BROWSER_COG, url, args);
	umms_test_image_free(wait_box(t, 100, PAGE_TIMEOUT_MS, what));
	return b;
}

static void
test_cog(struct umms_test *t, gconstpointer data)
{
	/* At the element's box, under the page: its caption drawn over the video. */
	struct browser *b = cog_placed(t, "cog-placed");
	g_assert_cmpuint(player_count(t), ==, 1);

	/* Moved 200 px right: the video follows. */
	step("move");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-moved"));

	/* In a 160x180 overflow:hidden box at (100,80): nothing of it outside. */
	step("clip");
	static const struct screen_point clipped[] = {
		{ 200, 150, RED }, { 300, 150, MAGENTA }, { 400, 150, MAGENTA }, { -1, -1, 0 },
	};
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, clipped,
		STEP_TIMEOUT_MS, "cog-clipped");
	umms_test_image_assert_rect(image, 140, 80, 120, 160, 1, RED, 16, "cog-clipped inside");
	umms_test_image_assert_rect(image, 262, 80, 200, 180, 0, MAGENTA, 16,
		"cog-clipped outside");
	umms_test_image_free(image);

	/* display: none hides it, its player kept; shown again, it is back. */
	step("hide");
	image = browser_wait_screen(t, W, H, no_video, NULL, STEP_TIMEOUT_MS, "cog-hidden");
	umms_test_image_free(image);
	g_assert_cmpuint(player_count(t), ==, 1);
	step("show");
	image = browser_wait_screen(t, W, H, screen_points_match, clipped, STEP_TIMEOUT_MS,
		"cog-shown");
	umms_test_image_free(image);

	/* Taken out of the page: the video goes, and its player with it. */
	step("remove");
	gint64 begun = g_get_monotonic_time();
	image = browser_wait_screen(t, W, H, no_video, NULL, STEP_TIMEOUT_MS, "cog-removed");
	g_test_message("removed: off screen %.0f ms after it was asked",
		(g_get_monotonic_time() - begun) / 1e3);
	umms_test_image_free(image);
	wait_players(t, 0, 5000);
	browser_free(b);
}

static void
test_killed(struct umms_test *t, gconstpointer data)
{
	struct browser *b = cog_placed(t, "killed-placed");
	browser_kill(b);
	/* Its socket closed with it: its player released, nothing of it shown. */
	wait_players(t, 0, 5000);
	struct umms_test_image *image = browser_wait_screen(t, W, H, no_video, NULL, 5000,
		"killed-gone");
	umms_test_image_free(image);
	browser_free(b);
}

/* The page navigates away: its element's player goes with it, and the video. */
static void
test_navigate(struct umms_test *t, gconstpointer data)
{
	struct browser *b = cog_placed(t, "navigate-placed");
	step("navigate");
	static const struct screen_point next_page[] = {
		{ 260, 150, MAGENTA }, { 480, 270, MAGENTA }, { -1, -1, 0 },
	};
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match,
		next_page, STEP_TIMEOUT_MS, "navigated");
	g_assert_true(no_video(image, NULL));
	umms_test_image_free(image);
	wait_players(t, 0, 5000);
	browser_free(b);
}

static void
test_chromium(struct umms_test *t, gconstpointer data)
{
	start(t);
	step("none");
	/* Chromium paints its window opaque: the video goes over it, the caption under. */
	g_autofree char *url = page_url("&over=1");
	struct browser *b = browser_start(BROWSER_CHROMIUM, url, NULL);
	static const struct screen_point over[] = {
		{ 260, 150, RED }, { 260, 250, RED }, { 97, 150, MAGENTA }, { 423, 150, MAGENTA },
		{ 260, 77, MAGENTA }, { 260, 263, MAGENTA }, { -1, -1, 0 },
	};
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, over,
		PAGE_TIMEOUT_MS, "chromium-over");
	umms_test_image_assert_rect(image, 140, 80, 240, 180, 1, RED, 16, "chromium-over video");
	umms_test_image_assert_pixel(image, 98, 150, MAGENTA, 16, "chromium-over left");
	umms_test_image_assert_pixel(image, 422, 150, MAGENTA, 16, "chromium-over right");
	umms_test_image_free(image);
	g_assert_cmpuint(player_count(t), ==, 1);
	browser_kill(b);
	wait_players(t, 0, 5000);
	browser_free(b);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	umms_test_fixture_without_service();
	pages = pages_start();
	UMMS_TEST_ADD("/web-page/cog", test_cog);
	UMMS_TEST_ADD("/web-page/killed", test_killed);
	UMMS_TEST_ADD("/web-page/navigate", test_navigate);
	UMMS_TEST_ADD("/web-page/chromium-over", test_chromium);
	int status = g_test_run();
	pages_stop(pages);
	return status;
}
