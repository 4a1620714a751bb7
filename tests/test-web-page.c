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
 *   moved on and on by a CSS animation and by a scroll (the video within 3
 *   of the page's frames of it in every capture), the page zoomed,
 *   visibility:hidden, clipped by an overflow:hidden box, hidden by
 *   display:none, shown, removed: the video follows, is cut, goes (its
 *   player kept), comes back, goes with its player.
 * - The browser killed, or the page gone to another: its video and its
 *   player go. Two videos of a page stack in their z order.
 * - Gone means gone within 100 ms: from the event to the first frame
 *   drawn without the video, by ummsd's debug log (display scope, the
 *   log's monotonic times), and the page sends the hiding place within
 *   one animation frame (the page's own notes, GET /note).
 * - Chromium (opaque windows), its page zoomed to 200 % (devicePixelRatio
 *   2): the video over the page, at the box in screen pixels (CSS × 2);
 *   full screen by a user's gesture (DevTools' Runtime.evaluate, tests/
 *   devtools.c): the whole screen, letterboxed, then back in its box.
 *
 * The clip is colors.mkv paused on its first frame: red, 320x240, so in
 * the 320x180 box it is letterboxed to x 140..380 with black bars.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "browser.h"
#include "devtools.h"
#include "harness.h"
#include "image.h"
#include "log.h"
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

/* Issue 16: gone from the screen within this long; following within so many page frames. */
#define GONE_MS 100
#define FOLLOW_FRAMES 3
/* place.html's glide and scroll-glide: 100 px a second. */
#define GLIDE_PX_PER_MS 0.1
/* Unhurried: the page has done a step by then (it polls every 50 ms). */
#define SETTLE_MS 1500

static struct pages *pages;
static unsigned web_port;
static char *log_path;   /* ummsd's log (display at debug): when things happened */

static void
start(struct umms_test *t)
{
	web_port = umms_test_free_tcp_port();
	g_autofree char *port = g_strdup_printf("web.port=%u", web_port);
	g_autofree char *origins = g_strdup_printf("web.origins=%s", pages_origin(pages));
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=960x540", "display.compositor=true",
		"display.input=false", port, origins, "web.token=" TOKEN, "log.scopes=display=debug,player=debug,engine=debug",
		NULL };
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

/* ---- when: ummsd's log --------------------------------------------------------------- */

/* Where ummsd's log ends now: what comes after is newer. */
static size_t
log_mark(void)
{
	struct stat st;
	g_assert_cmpint(stat(log_path, &st), ==, 0);
	return (size_t)st.st_size;
}

/*
 * The time (ms of CLOCK_MONOTONIC, as g_get_monotonic_time) of the first
 * line from @*at with any of @needles (NULL-ended) in it; *@at moves past
 * that line. -1: none.
 */
static gint64
log_find(const char *log, size_t *at, const char *const *needles)
{
	const char *first = NULL;
	for (const char *const *n = needles; *n; n++) {
		const char *p = strstr(log + *at, *n);
		if (p && (!first || p < first))
			first = p;
	}
	if (!first)
		return -1;
	const char *line = first;
	while (line > log + *at && line[-1] != '\n')
		line--;
	long sec = 0, ms = 0;
	if (sscanf(line, "%ld.%ld", &sec, &ms) != 2)
		g_error("not a line of ummsd's log: %.80s", line);
	const char *end = strchr(first, '\n');
	*at = end ? (size_t)(end + 1 - log) : strlen(log);
	return (gint64)sec * 1000 + ms;
}

/*
 * Milliseconds from @event (a time, or the first line after @mark with one
 * of @events) to the first frame the screen drew without the video: the
 * first frame after the list of videos on screen became @left long
 * (service/display-videos.c, targets/headless/headless.c).
 */
static gint64
gone_ms(size_t mark, gint64 event, const char *const *events, unsigned left, const char *what)
{
	g_autofree char *log = NULL;
	g_assert_true(g_file_get_contents(log_path, &log, NULL, NULL));
	size_t at = mark;
	if (events) {
		event = log_find(log, &at, events);
		if (event < 0)
			g_error("%s: no \"%s\" in ummsd's log", what, events[0]);
	}
	g_autofree char *list = g_strdup_printf("videos placed on screen: %u\n", left);
	const char *const lists[] = { list, NULL };
	gint64 listed = log_find(log, &at, lists);
	const char *const frames[] = { " drawn\n", NULL };
	gint64 drawn = listed < 0 ? -1 : log_find(log, &at, frames);
	if (drawn < 0)
		g_error("%s: no frame drawn with %u videos in ummsd's log", what, left);
	g_test_message("%s: gone from the screen %" G_GINT64_FORMAT " ms after the event "
		"(%" G_GINT64_FORMAT " ms to the list of videos without it)", what, drawn - event,
		listed - event);
	return drawn - event;
}

/* The page's note @name (place.html): {"a":N,"b":M}, the numbers of @a and @b. */
static void
take_note(const char *name, const char *a, double *av, const char *b, double *bv)
{
	g_autofree char *note = NULL;
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!(note = pages_take_note(pages, name))) {
		if (g_get_monotonic_time() > end)
			g_error("the page sent no note %s", name);
		umms_test_sleep(20);
	}
	g_autofree char *fa = g_strdup_printf("\"%s\":", a), *fb = g_strdup_printf("\"%s\":", b);
	const char *pa = strstr(note, fa), *pb = strstr(note, fb);
	if (!pa || !pb)
		g_error("the page's note %s: %s", name, note);
	*av = g_ascii_strtod(pa + strlen(fa), NULL);
	*bv = g_ascii_strtod(pb + strlen(fb), NULL);
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

static bool
is_red(uint32_t rgb)
{
	return (rgb >> 16) > 200 && ((rgb >> 8) & 0xff) < 60 && (rgb & 0xff) < 60;
}

/*
 * Along row @y: where the page's hole (the first pixel not magenta) and
 * the picture (red, 40 px in: letterboxed) begin; *@offset the video's
 * from the hole (seen while under 40 px either way).
 */
static bool
offset_across(const struct umms_test_image *image, int y, int *hole_at, int *offset)
{
	int hole = -1;
	for (int x = 0; x < W; x++) {
		uint32_t rgb = umms_test_image_pixel(image, x, y);
		if (hole < 0 && !umms_test_color_near(rgb, MAGENTA, 40))
			hole = x;
		if (hole >= 0 && is_red(rgb)) {
			*offset = x - 40 - hole;
			*hole_at = hole;
			return true;
		}
	}
	return false;
}

/*
 * Down column @x (the element without its caption, the picture its full
 * height): a video lower than the hole leaves a gap at its top, a higher
 * one at its bottom; *@offset how much lower (negative: higher).
 */
static bool
offset_down(const struct umms_test_image *image, int x, int *hole_at, int *offset)
{
	int hole = -1, top = -1, bottom = -1, end = -1;
	for (int y = 0; y < H && end < 0; y++) {
		uint32_t rgb = umms_test_image_pixel(image, x, y);
		bool magenta = umms_test_color_near(rgb, MAGENTA, 40);
		if (hole < 0 && !magenta)
			hole = y;
		else if (hole >= 0 && top < 0 && is_red(rgb))
			top = y;
		else if (top >= 0 && bottom < 0 && !is_red(rgb))
			bottom = y;
		if (hole >= 0 && y > hole && magenta)
			end = y;
	}
	if (hole < 0 || top < 0 || bottom < 0 || end < 0)
		return false;
	*offset = top > hole + 1 ? top - hole : bottom - end;
	*hole_at = hole;
	return true;
}

/*
 * The page's step @name moves the element 100 px a second, on and on:
 * in each of several captures the video is where the page's hole for it
 * is, give or take FOLLOW_FRAMES of the page's frames and 2 px of
 * rounding. The page's frames are as long as it measured them over the
 * last 120 (the captures' time): the 90th percentile, as a frame of the
 * browser slowed by the load moves the hole that much at once. Seen
 * within 38 px (the bars beside the picture), so that is the most allowed.
 */
static void
follow(struct umms_test *t, const char *name, bool down, int at)
{
	step(name);
	umms_test_sleep(SETTLE_MS);
	g_free(pages_take_note(pages, "interval"));
	int offsets[8], holes[8], worst = 0, lowest = W, highest = 0;
	struct umms_test_image *images[G_N_ELEMENTS(offsets)];
	for (size_t i = 0; i < G_N_ELEMENTS(offsets); i++) {
		images[i] = browser_capture(t, name, W, H);
		if (!(down ? offset_down : offset_across)(images[i], at, &holes[i], &offsets[i])) {
			g_autofree char *saved = umms_test_image_save_for_diagnosis(images[i], name);
			g_error("%s: no hole or no video on the %s at %d (%s)", name,
				down ? "column" : "row", at, saved);
		}
		if (abs(offsets[i]) > abs(offsets[worst]))
			worst = (int)i;
		lowest = MIN(lowest, holes[i]), highest = MAX(highest, holes[i]);
		umms_test_sleep(100);
	}
	double median = 0, p90 = 0;
	take_note("interval", "median", &median, "p90", &p90);
	double tolerance = MIN(FOLLOW_FRAMES * p90 * GLIDE_PX_PER_MS + 2, 38);
	GString *list = g_string_new(NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(offsets); i++)
		g_string_append_printf(list, " %d@%d", offsets[i], holes[i]);
	g_test_message("%s: the video from the page's hole (offset@hole), px:%s; the page's "
		"frames %.1f ms (90th percentile %.1f), so within %.1f px", name, list->str, median,
		p90, tolerance);
	g_string_free(list, TRUE);
	if (abs(offsets[worst]) > tolerance) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(images[worst], name);
		g_error("%s: the video %d px from the page's hole, over %.1f (%s)", name,
			offsets[worst], tolerance, saved);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(offsets); i++)
		umms_test_image_free(images[i]);
	g_assert_cmpfloat(median, >, 0);
	/* It moved while the screen was looked at: not a still page passing. */
	g_assert_cmpint(highest - lowest, >=, 20);
}

/* Hides the video by the page's step @name: gone within GONE_MS; the page's part timed too. */
static void
gone_by_step(struct umms_test *t, const char *name)
{
	size_t mark = log_mark();
	step(name);
	/* No capture meanwhile: a capture draws a frame early. */
	umms_test_sleep(SETTLE_MS);
	g_autofree char *what = g_strdup_printf("cog-%s", name);
	struct umms_test_image *image = browser_wait_screen(t, W, H, no_video, NULL,
		STEP_TIMEOUT_MS, what);
	umms_test_image_free(image);
	double ms = 0, frames = 0;
	take_note(name, "ms", &ms, "frames", &frames);
	g_test_message("%s: the page sent the hiding place %.1f ms, %.0f animation frames "
		"after it hid the element", name, ms, frames);
	g_assert_cmpfloat(frames, <=, 1);
	const char *const hidden[] = { "asked: hidden", NULL };
	g_assert_cmpint(gone_ms(mark, 0, hidden, 0, what), <=, GONE_MS);
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
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);

	/* Moved 200 px right: the video follows. */
	step("move");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-moved"));

	/* Moved on and on by a CSS animation, by a scroll: it keeps to the element. */
	follow(t, "glide", false, 150);
	step("still");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-glided"));
	follow(t, "scroll-glide", true, 300 + 160);
	step("still");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-scrolled"));

	/* The page zoomed 1.25: the box at (375,100) 400x225, the picture 300 wide in it. */
	step("zoom");
	static const struct screen_point zoomed[] = {
		{ 575, 200, RED }, { 430, 200, RED }, { 720, 200, RED }, { 400, 200, BLACK },
		{ 750, 200, BLACK }, { 575, 315, WHITE }, { 372, 200, MAGENTA },
		{ 778, 200, MAGENTA }, { 575, 97, MAGENTA }, { 575, 328, MAGENTA }, { -1, -1, 0 },
	};
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, zoomed,
		STEP_TIMEOUT_MS, "cog-zoomed");
	umms_test_image_assert_rect(image, 425, 100, 300, 200, 1, RED, 16, "cog-zoomed");
	umms_test_image_free(image);
	step("unzoom");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-unzoomed"));

	/* visibility: hidden hides it, its player kept. */
	step("invisible");
	image = browser_wait_screen(t, W, H, no_video, NULL, STEP_TIMEOUT_MS, "cog-invisible");
	umms_test_image_free(image);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);
	step("show");
	umms_test_image_free(wait_box(t, 300, STEP_TIMEOUT_MS, "cog-visible"));

	/* In a 160x180 overflow:hidden box at (100,80): nothing of it outside. */
	step("clip");
	static const struct screen_point clipped[] = {
		{ 200, 150, RED }, { 300, 150, MAGENTA }, { 400, 150, MAGENTA }, { -1, -1, 0 },
	};
	image = browser_wait_screen(t, W, H, screen_points_match, clipped, STEP_TIMEOUT_MS,
		"cog-clipped");
	umms_test_image_assert_rect(image, 140, 80, 120, 160, 1, RED, 16, "cog-clipped inside");
	umms_test_image_assert_rect(image, 262, 80, 200, 180, 0, MAGENTA, 16,
		"cog-clipped outside");
	umms_test_image_free(image);

	/* display: none hides it within GONE_MS, its player kept; shown again, it is back. */
	gone_by_step(t, "hide");
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);
	step("show");
	image = browser_wait_screen(t, W, H, screen_points_match, clipped, STEP_TIMEOUT_MS,
		"cog-shown");
	umms_test_image_free(image);

	/* Taken out of the page: the video goes within GONE_MS, and its player with it. */
	gone_by_step(t, "remove");
	umms_test_wait_players(t->bus, 0, 5000);
	browser_free(b);
}

static void
test_killed(struct umms_test *t, gconstpointer data)
{
	struct browser *b = cog_placed(t, "killed-placed");
	size_t mark = log_mark();
	/* Killed outright, as a crash: SIGTERM would time cog's own way out too. */
	gint64 killed = g_get_monotonic_time() / 1000;
	g_assert_cmpint(kill(-browser_pid(b), SIGKILL), ==, 0);
	browser_kill(b);
	/* Its socket closed with it: its player released, nothing of it shown. */
	umms_test_wait_players(t->bus, 0, 5000);
	struct umms_test_image *image = browser_wait_screen(t, W, H, no_video, NULL, 5000,
		"killed-gone");
	umms_test_image_free(image);
	/* Gone within GONE_MS of the kill (the window's end or the bridge's, whichever first). */
	g_assert_cmpint(gone_ms(mark, killed, NULL, 0, "killed-gone"), <=, GONE_MS);
	browser_free(b);
}

/* Two videos: at (100,80) red, z 0; at (260,170) green (the clip 1.5 s in), z 1. */
static bool
is_green(uint32_t rgb)
{
	return (rgb >> 16) < 60 && ((rgb >> 8) & 0xff) > 200 && (rgb & 0xff) < 60;
}

/* @data: NULL, the green one over the red; else the red over the green. */
static bool
stacked(const struct umms_test_image *image, const void *data)
{
	bool red_up = data != NULL;
	/* Each alone, and where they overlap (x 300..380, y 170..240 of the pictures). */
	if (!is_red(umms_test_image_pixel(image, 200, 150)) ||
			!is_green(umms_test_image_pixel(image, 450, 300)))
		return false;
	uint32_t overlap = umms_test_image_pixel(image, 340, 200);
	/* The one on top shows its bar left of its picture, over the other's picture. */
	uint32_t green_bar = umms_test_image_pixel(image, 280, 200);
	uint32_t red_bar = umms_test_image_pixel(image, 400, 200);
	if (red_up)
		return is_red(overlap) && is_red(green_bar) &&
			umms_test_color_near(red_bar, BLACK, 16);
	return is_green(overlap) && is_green(red_bar) &&
		umms_test_color_near(green_bar, BLACK, 16);
}

/*
 * Two of the page's videos overlapping stack in their z order, and swap
 * when the page swaps it; the page navigates away: its elements' players
 * go with it, and the videos.
 */
static void
test_navigate(struct umms_test *t, gconstpointer data)
{
	struct browser *b = cog_placed(t, "navigate-placed");
	step("second");
	struct umms_test_image *image = browser_wait_screen(t, W, H, stacked, NULL,
		STEP_TIMEOUT_MS, "two-green-over");
	umms_test_image_free(image);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 2);
	step("swap-z");
	image = browser_wait_screen(t, W, H, stacked, "red", STEP_TIMEOUT_MS, "two-red-over");
	umms_test_image_free(image);

	size_t mark = log_mark();
	step("navigate");
	static const struct screen_point next_page[] = {
		{ 260, 150, MAGENTA }, { 480, 270, MAGENTA }, { -1, -1, 0 },
	};
	image = browser_wait_screen(t, W, H, screen_points_match, next_page, STEP_TIMEOUT_MS,
		"navigated");
	g_assert_true(no_video(image, NULL));
	umms_test_image_free(image);
	umms_test_wait_players(t->bus, 0, 5000);
	/* From the first sign of the page going (a hidden place, a player closed). */
	const char *const going[] = { "asked: hidden", "its player gone", NULL };
	g_assert_cmpint(gone_ms(mark, 0, going, 0, "navigated"), <=, GONE_MS);
	browser_free(b);
}

/*
 * devicePixelRatio 2: the box (100,80) 320x180 CSS pixels is (200,160)
 * 640x360 on the screen, the picture 480x360 at x 280..760.
 */
static const struct screen_point scaled[] = {
	{ 520, 250, RED }, { 284, 164, RED }, { 756, 476, RED }, { 196, 250, MAGENTA },
	{ 844, 250, MAGENTA }, { 520, 156, MAGENTA }, { 520, 524, MAGENTA }, { -1, -1, 0 },
};

/* Full screen: the picture 720x540 at x 120..840, the page's black backdrop beside it. */
static const struct screen_point full[] = {
	{ 480, 270, RED }, { 124, 270, RED }, { 836, 270, RED }, { 480, 2, RED }, { 480, 537, RED },
	{ 60, 270, BLACK }, { 900, 270, BLACK }, { -1, -1, 0 },
};

static void
assert_scaled(struct umms_test *t, unsigned timeout_ms, const char *what)
{
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, scaled,
		timeout_ms, what);
	umms_test_image_assert_rect(image, 280, 160, 480, 360, 1, RED, 16, what);
	umms_test_image_assert_pixel(image, 197, 250, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, 842, 250, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, 520, 158, MAGENTA, 16, what);
	umms_test_image_assert_pixel(image, 520, 521, MAGENTA, 16, what);
	umms_test_image_free(image);
}

/*
 * One Chromium, zoomed to 200 % (devicePixelRatio 2), driven as a user
 * would through DevTools: the video at the box in screen pixels, full
 * screen (a user's gesture) and back.
 */
static void
test_chromium(struct umms_test *t, gconstpointer data)
{
	start(t);
	step("none");
	/* Chromium paints its window opaque: the video goes over it, the caption under. */
	g_autofree char *url = page_url("&over=1");
	unsigned port = umms_test_free_tcp_port();
	g_autofree char *debug = g_strdup_printf("--remote-debugging-port=%u", port);
	/* Zoomed to 200 % (the level is log base 1.2 of the factor): devicePixelRatio 2. */
	g_autofree char *profile = g_strdup_printf("%s/zoomed", umms_test_tmpdir());
	g_autofree char *prefs = g_build_filename(profile, "Default", NULL);
	g_assert_cmpint(g_mkdir_with_parents(prefs, 0700), ==, 0);
	g_autofree char *file = g_build_filename(prefs, "Preferences", NULL);
	g_assert_true(g_file_set_contents(file, "{\"partition\":{\"default_zoom_level\":"
		"{\"x\":3.8017840169239308}}}", -1, NULL));
	/* After browser.c's own --user-data-dir: Chromium takes the last. */
	g_autofree char *dir = g_strdup_printf("--user-data-dir=%s", profile);
	const char *const args[] = { debug, dir, NULL };
	struct browser *b = browser_start(BROWSER_CHROMIUM, url, args);
	assert_scaled(t, PAGE_TIMEOUT_MS, "chromium-scaled");
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);
	struct devtools *dt = devtools_connect(port, pages_origin(pages), STEP_TIMEOUT_MS);
	/* Zoom is in the ratio (as a screen's scale would be): the viewport 480x270 CSS pixels. */
	g_autofree char *ratio = devtools_evaluate(dt, "devicePixelRatio + ' ' + innerWidth + 'x' +"
		" innerHeight", STEP_TIMEOUT_MS);
	g_test_message("Chromium zoomed 200 %%: devicePixelRatio and viewport %s", ratio);
	g_assert_cmpstr(ratio, ==, "\"2 480x270\"");

	/* As a click would: requestFullscreen needs the user's gesture. */
	g_autofree char *in = devtools_evaluate(dt, "document.getElementById('video')"
		".requestFullscreen().then(() => document.fullscreenElement.id)", STEP_TIMEOUT_MS);
	g_assert_cmpstr(in, ==, "\"video\"");
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match, full,
		STEP_TIMEOUT_MS, "chromium-fullscreen");
	/* Across the middle (the page's caption is at the bottom, under the bars). */
	umms_test_image_assert_rect(image, 120, 0, 720, 540, 1, RED, 16, "fullscreen video");
	umms_test_image_assert_rect(image, 0, 0, 120, 500, 1, BLACK, 16, "fullscreen left bar");
	umms_test_image_assert_rect(image, 840, 0, 120, 500, 1, BLACK, 16, "fullscreen right bar");
	umms_test_image_free(image);
	g_autofree char *out = devtools_evaluate(dt, "document.exitFullscreen()"
		".then(() => String(document.fullscreenElement))", STEP_TIMEOUT_MS);
	g_assert_cmpstr(out, ==, "\"null\"");
	assert_scaled(t, STEP_TIMEOUT_MS, "chromium-unfullscreen");

	devtools_free(dt);
	browser_kill(b);
	umms_test_wait_players(t->bus, 0, 5000);
	browser_free(b);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	umms_test_fixture_without_service();
	pages = pages_start();
	/* ummsd's log, for when things happened: printed if a test fails. */
	int fd = g_file_open_tmp("umms-web-page-XXXXXX.log", &log_path, NULL);
	g_assert_cmpint(fd, >=, 0);
	FILE *log = fdopen(fd, "w");
	g_assert_nonnull(log);
	umms_log_set_stream(log);
	umms_test_log_on_failure(log_path);
	UMMS_TEST_ADD("/web-page/cog", test_cog);
	UMMS_TEST_ADD("/web-page/killed", test_killed);
	UMMS_TEST_ADD("/web-page/navigate", test_navigate);
	UMMS_TEST_ADD("/web-page/chromium", test_chromium);
	int status = g_test_run();
	pages_stop(pages);
	umms_log_set_stream(NULL);
	fclose(log);
	unlink(log_path);
	g_free(log_path);
	return status;
}
