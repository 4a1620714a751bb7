/*
 * Subtitle tracks a stream carries (text, SSA/ASS, DVB, DVD, PGS), on the
 * headless screen (targets/headless/): what a viewer sees, read back with
 * Display1.Capture. The clips show one dark blue picture
 * (tests/gen-clips-subs.c, tests/gen-clips-bitmap.c), 320x240 on a 640x480
 * screen (2x); subtitles belong in its lower part, the subtitle area, and
 * nowhere else. Closed captions and teletext are test-captions-screen.c's;
 * the helpers both share are subtitles-screen.c's. Runs once per renderer,
 * like test-headless.c.
 */
#include "subtitles-screen.h"

/* subs.mkv's text track: "WWWWWWWW" from 1 s to 2 s, "MMMMMMMM" from 3 s to 3.5 s. */
static void
test_text(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = subs_show(t, "subs.mkv", false);
	subs_assert_kinds(t, p, (const char *const[]){ "text", "ass", NULL });
	/* The first track is shown unless asked otherwise. */
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	subs_expect(t, "text-before", SUBS_WHITE, 0);

	/* Sought into a cue: it shows at once; out of it: gone. */
	subs_seek(t, p, 1.5);
	subs_expect(t, "text-in-cue", SUBS_WHITE, 20);
	subs_seek(t, p, 2.5);
	subs_expect(t, "text-after-cue", SUBS_WHITE, 0);
	subs_seek(t, p, 3.2);
	subs_expect(t, "text-second-cue", SUBS_WHITE, 20);
	subs_seek(t, p, 1.2);
	subs_expect(t, "text-back-in-cue", SUBS_WHITE, 20);
	subs_seek(t, p, 3.2);
	subs_expect(t, "text-second-again", SUBS_WHITE, 20);

	/* Off while paused: gone from the screen; on again: back. */
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "text-off", SUBS_WHITE, 0);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "text-on", SUBS_WHITE, 20);

	/*
	 * Played through a cue (paused in it, then past it before the next at
	 * 3 s): it comes and goes on time, rendered once.
	 */
	uint64_t drawn = 0;
	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		subs_seek(t, p, 0.5);
		subs_expect(t, "text-rewound", SUBS_WHITE, 0);
		uint64_t before = subs_subpictures(t);
		if (!subs_play_into(t, p, 1.4, 2.0))
			continue;
		subs_expect(t, "text-playing", SUBS_WHITE, 20);
		if (!subs_play_into(t, p, 2.3, 3.0))
			continue;
		subs_expect(t, "text-played-out", SUBS_WHITE, 0);
		drawn = subs_subpictures(t) - before;
		played = true;
	}
	g_assert_true(played);
	g_test_message("%s: %" G_GUINT64_FORMAT " subtitle images for a cue of 25 frames",
		subs_renderer, drawn);
	g_assert_cmpuint(drawn, >=, 1);
	g_assert_cmpuint(drawn, <=, 2);

	/*
	 * At rate 2 the cue still comes and goes with the picture (the clip
	 * ends at 4 s; at its end the rate goes back to 1, so it is set anew).
	 */
	played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		subs_seek(t, p, 2.5);
		GError *error = NULL;
		g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(2.0), &error));
		if (!subs_play_into(t, p, 3.15, 3.5))
			continue;
		subs_expect(t, "text-rate-2", SUBS_WHITE, 20);
		if (!subs_play_into(t, p, 3.7, 4.0))
			continue;
		subs_expect(t, "text-rate-2-after", SUBS_WHITE, 0);
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
	g_autofree char *p = subs_show(t, "subs.mkv", false);
	subs_seek(t, p, 1.5);
	subs_expect(t, "delay-before", SUBS_WHITE, 20);
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	subs_expect(t, "delay-moved-away", SUBS_WHITE, 0);
	subs_seek(t, p, 0.5);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(1.7), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	subs_expect(t, "delay-not-yet", SUBS_WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(2.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), <, US(2.9));
	subs_expect(t, "delay-moved-here", SUBS_WHITE, 20);
	uint64_t redraws = subs_render_stat(t, "redraws"), images = subs_subpictures(t);
	umms_test_sleep(1500);
	g_assert_cmpuint(subs_render_stat(t, "redraws"), ==, redraws);
	g_assert_cmpuint(subs_subpictures(t), ==, images);
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
	g_autofree char *p = subs_show(t, "subs.mkv", false);
	set_delay(t, p, 1.0);
	subs_seek(t, p, 2.5);
	subs_expect(t, "delay-seek-in", SUBS_WHITE, 20);
	subs_seek(t, p, 3.2);
	subs_expect(t, "delay-seek-out", SUBS_WHITE, 0);
	subs_seek(t, p, 2.1);
	subs_expect(t, "delay-seek-start", SUBS_WHITE, 20);

	set_delay(t, p, -0.7);
	subs_expect(t, "delay-earlier-out", SUBS_WHITE, 0);
	subs_seek(t, p, 2.5);
	subs_expect(t, "delay-earlier-in", SUBS_WHITE, 20);
	subs_seek(t, p, 0.5);
	subs_expect(t, "delay-earlier-first", SUBS_WHITE, 20);
	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		subs_seek(t, p, 1.5);
		subs_expect(t, "delay-earlier-between", SUBS_WHITE, 0);
		played = subs_play_into(t, p, 2.4, 2.75);
	}
	g_assert_true(played);
	subs_expect(t, "delay-earlier-played", SUBS_WHITE, 20);

	/* Changed while paused at 2.5 s: the cue due there now, at once. */
	subs_seek(t, p, 2.5);
	set_delay(t, p, 0);
	subs_expect(t, "delay-paused-none", SUBS_WHITE, 0);
	set_delay(t, p, 1.0);
	subs_expect(t, "delay-paused-later", SUBS_WHITE, 20);
	set_delay(t, p, 0.2);
	subs_expect(t, "delay-paused-none-again", SUBS_WHITE, 0);
	set_delay(t, p, -0.7);
	subs_expect(t, "delay-paused-earlier", SUBS_WHITE, 20);
}

/* subs.mkv's SSA/ASS track: "REDRED" in pure red (its style) from 1 s to 2 s. */
static void
test_ass(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = subs_show(t, "subs.mkv", false);
	subs_select_subtitle(t, p, 1);
	subs_seek(t, p, 1.5);
	subs_expect(t, "ass-in-cue", SUBS_RED, 200);
	subs_expect(t, "ass-no-white", SUBS_WHITE, 0);
	subs_seek(t, p, 2.5);
	subs_expect(t, "ass-after-cue", SUBS_RED, 0);
	subs_seek(t, p, 1.2);
	subs_expect(t, "ass-again", SUBS_RED, 200);
	/* 1 s later, sought behind the key frame that follows its start: shown all the same. */
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	subs_seek(t, p, 2.5);
	subs_expect(t, "ass-delayed", SUBS_RED, 200);
	subs_seek(t, p, 3.2);
	subs_expect(t, "ass-delayed-after", SUBS_RED, 0);
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "ass-off", SUBS_RED, 0);
}

/* dvbsub.ts: an opaque green box 128x48 at 96,160 from about 1 s to 2 s. */
static void
test_dvb(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = subs_show(t, "dvbsub.ts", true);
	subs_assert_kinds(t, p, (const char *const[]){ "bitmap", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	/* Paused inside the page (played past it: again from the start; it cannot seek). */
	bool in = false;
	for (int i = 0; i < SUBS_TRIES && !in; i++) {
		if (i > 0)
			umms_test_player_do(t->bus, p, "Stop", NULL);
		in = subs_play_into(t, p, 1.5, 1.9);
	}
	g_assert_true(in);
	/* 2x on screen: 256x96, less the edges scaling blends. */
	subs_expect(t, "dvb-in-cue", SUBS_GREEN, 200 * 80);
	g_autofree char *path = g_strdup_printf("%s/dvb-box.png", umms_test_tmpdir());
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	umms_test_image_assert_rect(image, 2 * 96, 2 * 160, 2 * 128, 2 * 48, 4, 0x00ff00, 40,
		"the DVB subtitle's box");
	umms_test_image_free(image);
	/* Off and on again while paused. */
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "dvb-off", SUBS_GREEN, 0);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "dvb-on", SUBS_GREEN, 200 * 80);
	/* Its page ends with the cue (played to the end of the clip: again). */
	bool after = false;
	for (int i = 0; i < SUBS_TRIES && !after; i++) {
		if (i > 0)
			umms_test_player_do(t->bus, p, "Stop", NULL);
		after = subs_play_into(t, p, 2.8, 4.0);
	}
	g_assert_true(after);
	subs_expect(t, "dvb-after", SUBS_GREEN, 0);
}

/* A bitmap subtitle clip: its box in the picture's pixels (2x on screen). */
struct bitmap_clip {
	const char *clip, *codec;
	enum subs_colour colour;
	int x, y, w, h;
};

/* vobsub.mkv: an opaque yellow 96x40 box at 64,160 from 1 s to 2 s (a DVD sub-picture). */
static const struct bitmap_clip vobsub_clip = {
	"vobsub.mkv", "dvdsub", SUBS_YELLOW, 64, 160, 96, 40,
};
/* pgs.mkv: an opaque magenta 96x48 box at 176,152 from 1 s to 2 s (Blu-ray graphics). */
static const struct bitmap_clip pgs_clip = {
	"pgs.mkv", "pgs", SUBS_MAGENTA, 176, 152, 96, 48,
};

/*
 * Waits for @c->colour in the subtitle area, then checks it fills the box
 * (less 4 screen pixels at each edge, which scaling blends with the
 * picture) and is nowhere outside it (more than 4 pixels away).
 */
static void
expect_box(struct umms_test *t, const char *what, const struct bitmap_clip *c)
{
	int x0 = 2 * c->x, y0 = 2 * c->y, x1 = 2 * (c->x + c->w), y1 = 2 * (c->y + c->h);
	subs_expect(t, what, c->colour, (x1 - x0 - 8) * (y1 - y0 - 8));
	g_autofree char *path = g_strdup_printf("%s/%s-box.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	int inside = 0, outside = 0;
	for (int y = 0; y < SUBS_SCREEN_H; y++) {
		for (int x = 0; x < SUBS_SCREEN_W; x++) {
			bool in = subs_is(umms_test_image_pixel(image, x, y), c->colour);
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
	g_autofree char *p = subs_show(t, c->clip, false);
	subs_assert_kinds(t, p, (const char *const[]){ "bitmap", NULL });
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER, "SubtitleTracks");
	g_autoptr(GVariant) track = g_variant_get_child_value(tracks, 0);
	const char *codec = NULL;
	g_assert_true(g_variant_lookup(track, "codec", "&s", &codec));
	g_assert_cmpstr(codec, ==, c->codec);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	subs_expect(t, step(c, "before"), c->colour, 0);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);

	/* A subpicture over the frame (counted when drawn), not pixels inside it. */
	uint64_t images = subs_subpictures(t);
	subs_seek(t, p, 1.5);
	expect_box(t, step(c, "in-cue"), c);
	g_assert_cmpuint(subs_subpictures(t), >, images);
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

	subs_seek(t, p, 2.5);
	subs_expect(t, step(c, "after-cue"), c->colour, 0);
	subs_seek(t, p, 1.2);
	expect_box(t, step(c, "sought-back"), c);

	/*
	 * Off and on while paused: the subpicture goes and comes without a
	 * seek (the first Seeked after is the one asked for, to 1.3 s).
	 */
	umms_test_signals_clear(signals);
	subs_select_subtitle(t, p, -1);
	subs_expect(t, step(c, "off"), c->colour, 0);
	subs_seek(t, p, 1.3);
	g_autoptr(GVariant) sought = umms_test_signals_wait(signals, "Seeked", 5000);
	int64_t to = 0;
	g_variant_get(sought, "(x)", &to);
	g_assert_cmpint(to, ==, US(1.3));
	subs_expect(t, step(c, "off-sought"), c->colour, 0);
	subs_select_subtitle(t, p, 0);
	expect_box(t, step(c, "on"), c);

	/* The subtitle delay moves it: 1 s later, it is not there yet at 1.3 s. */
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(US(1)),
		NULL));
	subs_expect(t, step(c, "delayed-away"), c->colour, 0);
	subs_seek(t, p, 2.5);
	expect_box(t, step(c, "delayed-here"), c);
	g_assert_true(umms_test_set(t->bus, p, "SubtitleDelay", g_variant_new_int64(0), NULL));
	subs_expect(t, step(c, "undelayed"), c->colour, 0);
	umms_test_signals_free(signals);

	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		subs_seek(t, p, 0.5);
		subs_expect(t, step(c, "rewound"), c->colour, 0);
		if (!subs_play_into(t, p, 1.4, 2.0))
			continue;
		expect_box(t, step(c, "playing"), c);
		if (!subs_play_into(t, p, 2.3, 3.0))
			continue;
		subs_expect(t, step(c, "played-out"), c->colour, 0);
		played = true;
	}
	g_assert_true(played);
}

int
main(int argc, char *argv[])
{
	const char *option = umms_test_take_option(&argc, argv, "--renderer=");
	if (option)
		subs_renderer = option;
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/subtitles/text", test_text);
	UMMS_TEST_ADD("/subtitles/ass", test_ass);
	UMMS_TEST_ADD("/subtitles/delay", test_delay);
	UMMS_TEST_ADD("/subtitles/delay-seek", test_delay_seek);
	UMMS_TEST_ADD("/subtitles/dvb", test_dvb);
	g_test_add("/subtitles/vobsub", struct umms_test, &vobsub_clip, umms_test_setup,
		test_bitmap, umms_test_teardown);
	g_test_add("/subtitles/pgs", struct umms_test, &pgs_clip, umms_test_setup,
		test_bitmap, umms_test_teardown);
	return g_test_run();
}
