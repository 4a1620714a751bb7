/*
 * Subtitles a stream carries, on the headless screen (targets/headless/):
 * what a viewer sees, read back with Display1.Capture. The clips show one
 * dark blue picture (tests/gen-clips-subs.c), 320x240 on a 640x480 screen
 * (2x); subtitles belong in its lower part, the subtitle area, and nowhere
 * else; closed captions carried in the video (CEA-608, CEA-708) likewise. Runs once
 * per renderer, like test-headless.c.
 */
#include <string.h>

#include "harness.h"
#include "image.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

#define SCREEN_W 640
#define SCREEN_H 480
/* The subtitle area: the picture's rows from 150 of 240 down (on screen: 2x). */
#define AREA_Y 300
/* The top of the picture: its rows down to 80 of 240, where a caption placed on top goes. */
#define TOP_Y 160

static const char *renderer = "pixman";

enum colour { WHITE, RED, GREEN, YELLOW, MAGENTA, NOT_BLUE };

static bool
is(uint32_t rgb, enum colour c)
{
	int r = (int)(rgb >> 16 & 0xff), g = (int)(rgb >> 8 & 0xff), b = (int)(rgb & 0xff);
	switch (c) {
	case WHITE:
		return r > 120 && g > 120 && b > 120;
	case RED:
		return r > 170 && g < 80 && b < 80;
	case GREEN:
		return g > 170 && r < 80 && b < 80;
	case YELLOW:
		return r > 170 && g > 120 && b < 80;
	case MAGENTA:
		return r > 170 && g < 80 && b > 170;
	case NOT_BLUE:
		/* The picture is about 0, 0, 128. */
		return r > 40 || g > 40 || b < 90 || b > 170;
	}
	return false;
}

/* Pixels of @c in the screen's rectangle @x0, @y0 to @x1, @y1 (not included). */
static int
count_box(const struct umms_test_image *image, int x0, int y0, int x1, int y1, enum colour c)
{
	int n = 0;
	for (int y = y0; y < y1; y++) {
		for (int x = x0; x < x1; x++)
			n += is(umms_test_image_pixel(image, x, y), c);
	}
	return n;
}

static int
count(const struct umms_test_image *image, int y0, int y1, enum colour c)
{
	return count_box(image, 0, y0, SCREEN_W, y1, c);
}

struct look {
	int area;     /* pixels of the colour in the subtitle area */
	int outside;  /* pixels that are not the picture's blue above it */
	int top;      /* pixels of the colour at the top */
	int below;    /* pixels that are not the picture's blue in the subtitle area */
};

static struct look
look(struct umms_test *t, const char *what, enum colour c, bool save)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	g_assert_cmpint(umms_test_image_width(image), ==, SCREEN_W);
	g_assert_cmpint(umms_test_image_height(image), ==, SCREEN_H);
	struct look l = { count(image, AREA_Y, SCREEN_H, c), count(image, 0, AREA_Y, NOT_BLUE),
		count(image, 0, TOP_Y, c), count(image, AREA_Y, SCREEN_H, NOT_BLUE) };
	if (save) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_test_message("%s: %d subtitle pixels, %d off the picture above the subtitle "
			"area (%s)", what, l.area, l.outside, saved);
	}
	umms_test_image_free(image);
	return l;
}

/*
 * Waits (frames reach the screen at its next vblank) until the subtitle
 * area shows at least @min pixels of @c (@min 0: none at all), then checks
 * nothing but the picture is above it.
 */
static void
expect(struct umms_test *t, const char *what, enum colour c, int min)
{
	struct look l = { 0, 0 };
	for (int i = 0; i < 40; i++) {
		bool last = i == 39;
		l = look(t, what, c, last);
		if ((min > 0 ? l.area >= min : l.area == 0) && l.outside == 0)
			break;
		if (l.outside > 0)
			look(t, what, c, true);
		umms_test_sleep(50);
	}
	g_test_message("%s: %d subtitle pixels", what, l.area);
	if (min > 0)
		g_assert_cmpint(l.area, >=, min);
	else
		g_assert_cmpint(l.area, ==, 0);
	g_assert_cmpint(l.outside, ==, 0);
}

/*
 * Waits until the top of the picture shows at least @min pixels of @c
 * (a caption placed there), then checks nothing but the picture is in
 * the subtitle area, where captions without a place go.
 */
static void
expect_top(struct umms_test *t, const char *what, enum colour c, int min)
{
	struct look l = { 0, 0, 0, 0 };
	for (int i = 0; i < 40; i++) {
		l = look(t, what, c, i == 39);
		if (l.top >= min && l.below == 0)
			break;
		umms_test_sleep(50);
	}
	g_test_message("%s: %d caption pixels at the top", what, l.top);
	g_assert_cmpint(l.top, >=, min);
	g_assert_cmpint(l.below, ==, 0);
}

/*
 * cc708.mkv's windows on screen (the 320 x 240 picture at 2x; the caption
 * safe area 64..576 x 48..432, 15 rows x 42 columns of 12.2 x 25.6):
 * "DTVCC ONE" from column 5 on row 14 (x 125 on), "TOP" from column 16 on
 * row 0 (x 259 on). The boxes leave room for the font's width and outline.
 */
#define CC708_BOTTOM_X0 100
#define CC708_BOTTOM_X1 360
#define CC708_TOP_X0 220
#define CC708_TOP_X1 400

/*
 * Waits until cc708.mkv's two windows show, each in its box, the bottom
 * one's left of the centre (a centred line has nothing in x 100..200),
 * and nothing but the picture elsewhere.
 */
static void
expect708(struct umms_test *t, const char *what)
{
	int white = 0, left = 0, red = 0, elsewhere = 0;
	for (int i = 0; i < 40; i++) {
		g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
		g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
			g_variant_new("(s)", path));
		struct umms_test_image *image = umms_test_image_load(path);
		white = count_box(image, CC708_BOTTOM_X0, AREA_Y, CC708_BOTTOM_X1, SCREEN_H, WHITE);
		left = count_box(image, CC708_BOTTOM_X0, AREA_Y, 200, SCREEN_H, WHITE);
		red = count_box(image, CC708_TOP_X0, 0, CC708_TOP_X1, TOP_Y, RED);
		elsewhere = count_box(image, 0, 0, CC708_TOP_X0, TOP_Y, NOT_BLUE) +
			count_box(image, CC708_TOP_X1, 0, SCREEN_W, TOP_Y, NOT_BLUE) +
			count(image, TOP_Y, AREA_Y, NOT_BLUE) +
			count_box(image, 0, AREA_Y, CC708_BOTTOM_X0, SCREEN_H, NOT_BLUE) +
			count_box(image, CC708_BOTTOM_X1, AREA_Y, SCREEN_W, SCREEN_H, NOT_BLUE);
		if (i == 39)
			g_free(umms_test_image_save_for_diagnosis(image, what));
		umms_test_image_free(image);
		if (white >= 20 && left >= 20 && red >= 20 && elsewhere == 0)
			break;
		umms_test_sleep(50);
	}
	g_test_message("%s: %d white at the bottom (%d left), %d red at the top, %d elsewhere",
		what, white, left, red, elsewhere);
	g_assert_cmpint(white, >=, 20);
	g_assert_cmpint(left, >=, 20);
	g_assert_cmpint(red, >=, 20);
	g_assert_cmpint(elsewhere, ==, 0);
}

/* A counter of RenderStats: "subpictures" (images drawn) or "redraws" (screens drawn). */
static uint64_t
render_stat(struct umms_test *t, const char *name)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, DISPLAY, DISPLAY1, "RenderStats");
	uint64_t v = 0;
	g_assert_true(g_variant_lookup(stats, name, "t", &v));
	return v;
}

static uint64_t
subpictures(struct umms_test *t)
{
	return render_stat(t, "subpictures");
}

/* Paused, on screen; @play: played instead (from 0), for media not seekable yet. */
static char *
show(struct umms_test *t, const char *clip, bool play)
{
	g_autofree char *r = g_strdup_printf("display.renderer=%s", renderer);
	const char *const overrides[] = { "display.enabled=true", "display.headless=true", r,
		"display.mode=640x480", "display.compositor=false", "display.input=false", NULL };
	umms_test_restart(t, overrides);
	char *player = umms_test_open(t->bus, clip);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	g_autoptr(GVariant) v = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	if (play)
		umms_test_player_do(t->bus, player, "Play", NULL);
	/* Sanitizer builds on a busy machine take seconds to start an MPEG-TS playing. */
	for (int i = 0; i < 400; i++) {
		g_autoptr(GVariant) path = umms_test_get(t->bus, DISPLAY, DISPLAY1, "VideoPath");
		if (strcmp(g_variant_get_string(path, NULL), "composited") == 0)
			return player;
		umms_test_sleep(50);
	}
	g_error("the player's video never reached the screen");
}

static void
seek(struct umms_test *t, const char *player, double seconds)
{
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)", US(seconds)));
}

/*
 * Plays on from where the player is until Position reaches @from s and
 * pauses there; true if it stopped short of @until s. A busy machine may
 * see the position too late and pause past @until, or past the end (then
 * it stopped): the caller starts over from a seek, what it checks is
 * judged by where the picture stands, never by how long it took.
 */
static bool
play_into(struct umms_test *t, const char *player, double from, double until)
{
	umms_test_player_do(t->bus, player, "Play", NULL);
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	for (;;) {
		g_autofree char *state = umms_test_get_string(t->bus, player, "State");
		if (strcmp(state, "stopped") == 0) {
			g_test_message("played to the end, not paused at %.2f s", from);
			return false;
		}
		int64_t seen = umms_test_get_int64(t->bus, player, "Position");
		if (seen >= US(from)) {
			g_test_message("at %.3f s: pause", seen / 1e6);
			break;
		}
		if (g_get_monotonic_time() > end)
			g_error("%s never played up to %.2f s", player, from);
		umms_test_sleep(10);
	}
	umms_test_player_do(t->bus, player, "Pause", NULL);
	int64_t at = umms_test_get_int64(t->bus, player, "Position");
	bool in = at >= US(from) && at < US(until);
	if (!in)
		g_test_message("paused at %.3f s, not between %.2f s and %.2f s: again",
			at / 1e6, from, until);
	return in;
}

/* Attempts at pausing inside a stretch of a few tenths of a second. */
#define TRIES 10

static void
select_subtitle(struct umms_test *t, const char *player, int index)
{
	umms_test_player_do(t->bus, player, "SelectTrack", g_variant_new("(si)", "subtitle", index));
	g_assert_cmpint(umms_test_get_int32(t->bus, player, "CurrentSubtitle"), ==, index);
}

/* SubtitleTracks' kinds, in order: @kinds is NULL-terminated. */
static void
assert_kinds(struct umms_test *t, const char *player, const char *const *kinds)
{
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, player, UMMS_PLAYER, "SubtitleTracks");
	gsize n = g_variant_n_children(tracks);
	g_assert_cmpuint(n, ==, g_strv_length((char **)kinds));
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		const char *kind = NULL;
		g_assert_true(g_variant_lookup(track, "kind", "&s", &kind));
		g_assert_cmpstr(kind, ==, kinds[i]);
	}
}

/* subs.mkv's text track: "WWWWWWWW" from 1 s to 2 s, "MMMMMMMM" from 3 s to 3.5 s. */
static void
test_text(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "subs.mkv", false);
	assert_kinds(t, p, (const char *const[]){ "text", "ass", NULL });
	/* The first track is shown unless asked otherwise. */
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	expect(t, "text-before", WHITE, 0);

	/* Sought into a cue: it shows at once; out of it: gone. */
	seek(t, p, 1.5);
	expect(t, "text-in-cue", WHITE, 20);
	seek(t, p, 2.5);
	expect(t, "text-after-cue", WHITE, 0);
	seek(t, p, 3.2);
	expect(t, "text-second-cue", WHITE, 20);
	seek(t, p, 1.2);
	expect(t, "text-back-in-cue", WHITE, 20);
	seek(t, p, 3.2);
	expect(t, "text-second-again", WHITE, 20);

	/* Off while paused: gone from the screen; on again: back. */
	select_subtitle(t, p, -1);
	expect(t, "text-off", WHITE, 0);
	select_subtitle(t, p, 0);
	expect(t, "text-on", WHITE, 20);

	/*
	 * Played through a cue (paused in it, then past it before the next at
	 * 3 s): it comes and goes on time, rendered once.
	 */
	uint64_t drawn = 0;
	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		seek(t, p, 0.5);
		expect(t, "text-rewound", WHITE, 0);
		uint64_t before = subpictures(t);
		if (!play_into(t, p, 1.4, 2.0))
			continue;
		expect(t, "text-playing", WHITE, 20);
		if (!play_into(t, p, 2.3, 3.0))
			continue;
		expect(t, "text-played-out", WHITE, 0);
		drawn = subpictures(t) - before;
		played = true;
	}
	g_assert_true(played);
	g_test_message("%s: %" G_GUINT64_FORMAT " subtitle images for a cue of 25 frames",
		renderer, drawn);
	g_assert_cmpuint(drawn, >=, 1);
	g_assert_cmpuint(drawn, <=, 2);

	/*
	 * At rate 2 the cue still comes and goes with the picture (the clip
	 * ends at 4 s; at its end the rate goes back to 1, so it is set anew).
	 */
	played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		seek(t, p, 2.5);
		GError *error = NULL;
		g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(2.0), &error));
		if (!play_into(t, p, 3.15, 3.5))
			continue;
		expect(t, "text-rate-2", WHITE, 20);
		if (!play_into(t, p, 3.7, 4.0))
			continue;
		expect(t, "text-rate-2-after", WHITE, 0);
		played = true;
	}
	g_assert_true(played);

	/* Frames still come in the engine's memory: subtitles cost no copy. */
	g_autoptr(GVariant) stats = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	uint64_t copies = 1;
	g_assert_true(g_variant_lookup(stats, "copies", "t", &copies));
	g_assert_cmpuint(copies, ==, 0);
}

/*
 * SubtitleDelay moves the picture's subtitles: 1 s later, "WWWWWWWW" (1 s
 * to 2 s) goes at once from where the picture stands in it, and played
 * through, shows from 2 s to 3 s. Paused under it, the screen is not
 * drawn again: an unchanged cue costs no redraw.
 */
static void
test_delay(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "subs.mkv", false);
	seek(t, p, 1.5);
	expect(t, "delay-before", WHITE, 20);
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	expect(t, "delay-moved-away", WHITE, 0);
	seek(t, p, 0.5);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(1.7), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	expect(t, "delay-not-yet", WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(2.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), <, US(2.9));
	expect(t, "delay-moved-here", WHITE, 20);
	uint64_t redraws = render_stat(t, "redraws"), images = subpictures(t);
	umms_test_sleep(1500);
	g_assert_cmpuint(render_stat(t, "redraws"), ==, redraws);
	g_assert_cmpuint(subpictures(t), ==, images);
}

static void
set_delay(struct umms_test *t, const char *player, double seconds)
{
	g_assert_true(umms_test_set(t->bus, player, "SubtitleDelay",
		g_variant_new_int64(US(seconds)), NULL));
}

/*
 * subs.mkv has a key frame each second, and after a seek the demuxer sends
 * the cues from the one before the target on: with a delay, the cue due
 * at the target may start before that. 1 s later, at 2.5 s (1.5 s of the
 * media, behind the key frame at 2 s), "WWWWWWWW" (1 s to 2 s) shows; 0.7 s
 * earlier, "MMMMMMMM" (3 s to 3.5 s) shows from 2.3 s to 2.8 s, sought
 * into, played into, and changed to while paused.
 */
static void
test_delay_seek(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "subs.mkv", false);
	set_delay(t, p, 1.0);
	seek(t, p, 2.5);
	expect(t, "delay-seek-in", WHITE, 20);
	seek(t, p, 3.2);
	expect(t, "delay-seek-out", WHITE, 0);
	seek(t, p, 2.1);
	expect(t, "delay-seek-start", WHITE, 20);

	set_delay(t, p, -0.7);
	expect(t, "delay-earlier-out", WHITE, 0);
	seek(t, p, 2.5);
	expect(t, "delay-earlier-in", WHITE, 20);
	seek(t, p, 0.5);
	expect(t, "delay-earlier-first", WHITE, 20);
	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		seek(t, p, 1.5);
		expect(t, "delay-earlier-between", WHITE, 0);
		played = play_into(t, p, 2.4, 2.75);
	}
	g_assert_true(played);
	expect(t, "delay-earlier-played", WHITE, 20);

	/* Changed while paused at 2.5 s: the cue due there now, at once. */
	seek(t, p, 2.5);
	set_delay(t, p, 0);
	expect(t, "delay-paused-none", WHITE, 0);
	set_delay(t, p, 1.0);
	expect(t, "delay-paused-later", WHITE, 20);
	set_delay(t, p, 0.2);
	expect(t, "delay-paused-none-again", WHITE, 0);
	set_delay(t, p, -0.7);
	expect(t, "delay-paused-earlier", WHITE, 20);
}

/* subs.mkv's SSA/ASS track: "REDRED" in pure red (its style) from 1 s to 2 s. */
static void
test_ass(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "subs.mkv", false);
	select_subtitle(t, p, 1);
	seek(t, p, 1.5);
	expect(t, "ass-in-cue", RED, 200);
	expect(t, "ass-no-white", WHITE, 0);
	seek(t, p, 2.5);
	expect(t, "ass-after-cue", RED, 0);
	seek(t, p, 1.2);
	expect(t, "ass-again", RED, 200);
	/* 1 s later, sought behind the key frame that follows its start: shown all the same. */
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	seek(t, p, 2.5);
	expect(t, "ass-delayed", RED, 200);
	seek(t, p, 3.2);
	expect(t, "ass-delayed-after", RED, 0);
	select_subtitle(t, p, -1);
	expect(t, "ass-off", RED, 0);
}

/* dvbsub.ts: an opaque green box 128x48 at 96,160 from about 1 s to 2 s. */
static void
test_dvb(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "dvbsub.ts", true);
	assert_kinds(t, p, (const char *const[]){ "bitmap", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	/* Paused inside the page (played past it: again from the start; it cannot seek). */
	bool in = false;
	for (int i = 0; i < TRIES && !in; i++) {
		if (i > 0)
			umms_test_player_do(t->bus, p, "Stop", NULL);
		in = play_into(t, p, 1.5, 1.9);
	}
	g_assert_true(in);
	/* 2x on screen: 256x96, less the edges scaling blends. */
	expect(t, "dvb-in-cue", GREEN, 200 * 80);
	g_autofree char *path = g_strdup_printf("%s/dvb-box.png", umms_test_tmpdir());
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	umms_test_image_assert_rect(image, 2 * 96, 2 * 160, 2 * 128, 2 * 48, 4, 0x00ff00, 40,
		"the DVB subtitle's box");
	umms_test_image_free(image);
	/* Off and on again while paused. */
	select_subtitle(t, p, -1);
	expect(t, "dvb-off", GREEN, 0);
	select_subtitle(t, p, 0);
	expect(t, "dvb-on", GREEN, 200 * 80);
	/* Its page ends with the cue (played to the end of the clip: again). */
	bool after = false;
	for (int i = 0; i < TRIES && !after; i++) {
		if (i > 0)
			umms_test_player_do(t->bus, p, "Stop", NULL);
		after = play_into(t, p, 2.8, 4.0);
	}
	g_assert_true(after);
	expect(t, "dvb-after", GREEN, 0);
}

/*
 * cc608.mkv: CEA-608 captions in the H.264 stream (CC1, pop-on): "CAPTION"
 * from 1.0 s to 2.0 s on row 15, white, drawn in the subtitle area;
 * "LATER" from 3.0 s to 3.48 s on row 1, green, drawn green at the top.
 */
static void
test_cc608(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "cc608.mkv", false);
	/* Found in the first picture; off until chosen. */
	assert_kinds(t, p, (const char *const[]){ "cc", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	select_subtitle(t, p, 0);
	expect(t, "cc-before", WHITE, 0);

	/* Played through the first caption: it comes at its time and goes at its erase. */
	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		if (i > 0) {
			seek(t, p, 0.5);
			expect(t, "cc-before-again", WHITE, 0);
		}
		if (!play_into(t, p, 1.4, 2.0))
			continue;
		expect(t, "cc-shown", WHITE, 20);
		if (!play_into(t, p, 2.3, 3.0))
			continue;
		expect(t, "cc-erased", WHITE, 0);
		played = true;
	}
	g_assert_true(played);

	/* Sought back into it: shown again; out of it: gone; the choice stands. */
	seek(t, p, 1.5);
	expect(t, "cc-sought-back", WHITE, 20);
	seek(t, p, 0.5);
	expect(t, "cc-sought-before", WHITE, 0);
	seek(t, p, 1.2);
	expect(t, "cc-sought-again", WHITE, 20);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	/* Off and on again while paused. */
	select_subtitle(t, p, -1);
	expect(t, "cc-off", WHITE, 0);
	select_subtitle(t, p, 0);
	expect(t, "cc-on", WHITE, 20);
	seek(t, p, 2.5);
	expect(t, "cc-after", WHITE, 0);

	/* The second caption where its preamble puts it, at the top, in its colour. */
	played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		if (i > 0)
			seek(t, p, 2.5);
		if (!play_into(t, p, 3.1, 3.45))
			continue;
		expect_top(t, "cc-top-green", GREEN, 20);
		played = true;
	}
	g_assert_true(played);
}

/*
 * cc708.mkv: CEA-608 captions as cc608.mkv's and, beside them, CEA-708
 * service 1 from 2.2 s to 3.2 s: "DTVCC ONE" in a window anchored
 * bottom-centre, drawn white at the bottom left of the centre (its
 * window's columns), and "TOP" in red in one anchored top-centre.
 */
static void
test_cc708(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "cc708.mkv", false);
	/* Both found in the first picture: 608, then 708; off until chosen. */
	for (int i = 0; i < 100; i++) {
		g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER,
			"SubtitleTracks");
		if (g_variant_n_children(tracks) >= 2)
			break;
		umms_test_sleep(50);
	}
	assert_kinds(t, p, (const char *const[]){ "cc", "cc", NULL });
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER, "SubtitleTracks");
	g_autoptr(GVariant) second = g_variant_get_child_value(tracks, 1);
	const char *codec = NULL;
	g_assert_true(g_variant_lookup(second, "codec", "&s", &codec));
	g_assert_cmpstr(codec, ==, "cea708");
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	select_subtitle(t, p, 1);
	expect(t, "cc708-before", WHITE, 0);

	/* Played through: not in the 608 caption's time, shown at its own, gone at its erase. */
	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		if (i > 0) {
			seek(t, p, 0.5);
			expect(t, "cc708-before-again", WHITE, 0);
		}
		if (!play_into(t, p, 1.4, 2.0))
			continue;
		expect(t, "cc708-not-608s", WHITE, 0);
		if (!play_into(t, p, 2.5, 3.1))
			continue;
		expect708(t, "cc708-shown");
		if (!play_into(t, p, 3.4, 4.0))
			continue;
		expect(t, "cc708-erased", WHITE, 0);
		played = true;
	}
	g_assert_true(played);

	/* Sought back into it: shown again; out of it: gone; the choice stands. */
	seek(t, p, 2.6);
	expect708(t, "cc708-sought-back");
	seek(t, p, 1.5);
	expect(t, "cc708-sought-before", WHITE, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 1);
	/* Off, then the 608 track: its caption, not this one. */
	seek(t, p, 2.6);
	select_subtitle(t, p, -1);
	expect(t, "cc708-off", WHITE, 0);
	select_subtitle(t, p, 0);
	expect(t, "cc708-608-track", WHITE, 0);
	seek(t, p, 1.5);
	expect(t, "cc708-608-caption", WHITE, 20);
}

/*
 * teletext.ts: subtitle page 888 says "TELETEXT ONE" / "SECOND LINE" from
 * about 1 s to 2 s (of its timeline, which starts at 0.125 s), drawn
 * white from its cues like a subtitle file's, in the subtitle area (its
 * rows, 19 and 21, are at the bottom); "<b>TELETEXT</b> TWO" from about
 * 3 s to 3.48 s on row 1, in green: drawn green at the top. Page 100 and
 * subtitle page 889 (not the one its PMT names), beside it, are never
 * shown.
 */
static void
test_teletext(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = show(t, "teletext.ts", false);
	assert_kinds(t, p, (const char *const[]){ "teletext", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	int64_t origin = umms_test_get_int64(t->bus, p, "Position");
	expect(t, "teletext-before", WHITE, 0);
	/* Played past page 100 into the subtitle: it shows, in the subtitle area. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(1.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	expect(t, "teletext-in-cue", WHITE, 20);
	/* Off and on again while paused. */
	select_subtitle(t, p, -1);
	expect(t, "teletext-off", WHITE, 0);
	select_subtitle(t, p, 0);
	expect(t, "teletext-on", WHITE, 20);
	/* Its blank page takes it off. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(2.4), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	expect(t, "teletext-after", WHITE, 0);
	/* Sought back before page 100 and played again: the subtitle page, again. */
	seek(t, p, (double)(origin + US(0.2)) / G_USEC_PER_SEC);
	expect(t, "teletext-rewound", WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(0.8), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	expect(t, "teletext-not-page-100", WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(1.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	expect(t, "teletext-again", WHITE, 20);
	/* Its pages once seen are known: sought into one while paused, shown at once. */
	seek(t, p, (double)(origin + US(2.5)) / G_USEC_PER_SEC);
	expect(t, "teletext-sought-out", WHITE, 0);
	seek(t, p, (double)(origin + US(1.2)) / G_USEC_PER_SEC);
	expect(t, "teletext-sought-in", WHITE, 20);
	/* The choice survives seeking: off stays off, on stays on the teletext track. */
	select_subtitle(t, p, -1);
	seek(t, p, (double)(origin + US(1.4)) / G_USEC_PER_SEC);
	expect(t, "teletext-off-sought", WHITE, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	select_subtitle(t, p, 0);
	seek(t, p, (double)(origin + US(1.3)) / G_USEC_PER_SEC);
	expect(t, "teletext-on-sought", WHITE, 20);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	/* The subtitle on row 1 at the top, in its colour. */
	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		seek(t, p, (double)(origin + US(2.5)) / G_USEC_PER_SEC);
		if (!play_into(t, p, (double)(origin + US(3.15)) / G_USEC_PER_SEC,
				(double)(origin + US(3.45)) / G_USEC_PER_SEC))
			continue;
		expect_top(t, "teletext-top-green", GREEN, 20);
		played = true;
	}
	g_assert_true(played);
}

/* A bitmap subtitle clip: its box in the picture's pixels (2x on screen). */
struct bitmap_clip {
	const char *clip, *codec;
	enum colour colour;
	int x, y, w, h;
};

/* vobsub.mkv: an opaque yellow 96x40 box at 64,160 from 1 s to 2 s (a DVD sub-picture). */
static const struct bitmap_clip vobsub_clip = { "vobsub.mkv", "dvdsub", YELLOW, 64, 160, 96, 40 };
/* pgs.mkv: an opaque magenta 96x48 box at 176,152 from 1 s to 2 s (Blu-ray graphics). */
static const struct bitmap_clip pgs_clip = { "pgs.mkv", "pgs", MAGENTA, 176, 152, 96, 48 };

/*
 * Waits for @c->colour in the subtitle area, then checks it fills the box
 * (less 4 screen pixels at each edge, which scaling blends with the
 * picture) and is nowhere outside it (more than 4 pixels away).
 */
static void
expect_box(struct umms_test *t, const char *what, const struct bitmap_clip *c)
{
	int x0 = 2 * c->x, y0 = 2 * c->y, x1 = 2 * (c->x + c->w), y1 = 2 * (c->y + c->h);
	expect(t, what, c->colour, (x1 - x0 - 8) * (y1 - y0 - 8));
	g_autofree char *path = g_strdup_printf("%s/%s-box.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	int inside = 0, outside = 0;
	for (int y = 0; y < SCREEN_H; y++) {
		for (int x = 0; x < SCREEN_W; x++) {
			bool in = is(umms_test_image_pixel(image, x, y), c->colour);
			if (x >= x0 + 4 && x < x1 - 4 && y >= y0 + 4 && y < y1 - 4)
				inside += in;
			else if (x < x0 - 4 || x >= x1 + 4 || y < y0 - 4 || y >= y1 + 4)
				outside += in;
		}
	}
	if (inside != (x1 - x0 - 8) * (y1 - y0 - 8) || outside != 0) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_test_message("%s: %d pixels of the box's colour inside it, %d outside (%s)",
			what, inside, outside, saved);
	}
	umms_test_image_free(image);
	g_assert_cmpint(inside, ==, (x1 - x0 - 8) * (y1 - y0 - 8));
	g_assert_cmpint(outside, ==, 0);
}

/* What a capture of @c is called: "<codec>-<name>" (one at a time). */
static const char *
step(const struct bitmap_clip *c, const char *name)
{
	static char what[64];
	g_snprintf(what, sizeof(what), "%s-%s", c->codec, name);
	return what;
}

/*
 * A bitmap subtitle track (@data: struct bitmap_clip): listed with its
 * codec, shown by default; its box at its time, where the stream puts it,
 * scaled with the picture, as a subpicture, told as a cue of times only;
 * gone after its end; again after a seek back; off and on while paused,
 * without a seek; moved by the subtitle delay; played through, it comes
 * and goes on time.
 */
static void
test_bitmap(struct umms_test *t, gconstpointer data)
{
	const struct bitmap_clip *c = data;
	g_autofree char *p = show(t, c->clip, false);
	assert_kinds(t, p, (const char *const[]){ "bitmap", NULL });
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER, "SubtitleTracks");
	g_autoptr(GVariant) track = g_variant_get_child_value(tracks, 0);
	const char *codec = NULL;
	g_assert_true(g_variant_lookup(track, "codec", "&s", &codec));
	g_assert_cmpstr(codec, ==, c->codec);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	expect(t, step(c, "before"), c->colour, 0);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);

	/* A subpicture over the frame (counted when drawn), not pixels inside it. */
	uint64_t images = subpictures(t);
	seek(t, p, 1.5);
	expect_box(t, step(c, "in-cue"), c);
	g_assert_cmpuint(subpictures(t), >, images);
	/* Told as a cue of times only: 1 s to 2 s (DVD: in whole ticks, 989.9 ms). */
	g_autoptr(GVariant) cue = umms_test_signals_wait(signals, "SubtitleCue", 5000);
	int64_t start = 0, end = 0;
	const char *text = NULL, *format = NULL;
	g_variant_get(cue, "(xx&s&s&s)", &start, &end, &text, NULL, &format);
	g_assert_cmpstr(format, ==, "bitmap");
	g_assert_cmpstr(text, ==, "");
	g_assert_cmpint(start, ==, US(1));
	g_assert_cmpint(end, >, US(1.95));
	g_assert_cmpint(end, <=, US(2));

	seek(t, p, 2.5);
	expect(t, step(c, "after-cue"), c->colour, 0);
	seek(t, p, 1.2);
	expect_box(t, step(c, "sought-back"), c);

	/*
	 * Off and on while paused: the subpicture goes and comes without a
	 * seek (the first Seeked after is the one asked for, to 1.3 s).
	 */
	umms_test_signals_clear(signals);
	select_subtitle(t, p, -1);
	expect(t, step(c, "off"), c->colour, 0);
	seek(t, p, 1.3);
	g_autoptr(GVariant) sought = umms_test_signals_wait(signals, "Seeked", 5000);
	int64_t to = 0;
	g_variant_get(sought, "(x)", &to);
	g_assert_cmpint(to, ==, US(1.3));
	expect(t, step(c, "off-sought"), c->colour, 0);
	select_subtitle(t, p, 0);
	expect_box(t, step(c, "on"), c);

	/* The subtitle delay moves it: 1 s later, it is not there yet at 1.3 s. */
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	expect(t, step(c, "delayed-away"), c->colour, 0);
	seek(t, p, 2.5);
	expect_box(t, step(c, "delayed-here"), c);
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(0), NULL));
	expect(t, step(c, "undelayed"), c->colour, 0);
	umms_test_signals_free(signals);

	bool played = false;
	for (int i = 0; i < TRIES && !played; i++) {
		seek(t, p, 0.5);
		expect(t, step(c, "rewound"), c->colour, 0);
		if (!play_into(t, p, 1.4, 2.0))
			continue;
		expect_box(t, step(c, "playing"), c);
		if (!play_into(t, p, 2.3, 3.0))
			continue;
		expect(t, step(c, "played-out"), c->colour, 0);
		played = true;
	}
	g_assert_true(played);
}

int
main(int argc, char *argv[])
{
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		renderer = option;
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/subtitles/text", test_text);
	UMMS_TEST_ADD("/subtitles/ass", test_ass);
	UMMS_TEST_ADD("/subtitles/delay", test_delay);
	UMMS_TEST_ADD("/subtitles/delay-seek", test_delay_seek);
	UMMS_TEST_ADD("/subtitles/dvb", test_dvb);
	UMMS_TEST_ADD("/subtitles/cc608", test_cc608);
	UMMS_TEST_ADD("/subtitles/cc708", test_cc708);
	UMMS_TEST_ADD("/subtitles/teletext", test_teletext);
	g_test_add("/subtitles/vobsub", struct umms_test, &vobsub_clip, umms_test_setup,
		test_bitmap, umms_test_teardown);
	g_test_add("/subtitles/pgs", struct umms_test, &pgs_clip, umms_test_setup,
		test_bitmap, umms_test_teardown);
	return g_test_run();
}
