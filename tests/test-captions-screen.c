/*
 * Captions broadcast with the picture, on the headless screen
 * (targets/headless/): closed captions carried in the video (CEA-608,
 * CEA-708) and DVB teletext subtitle pages, as a viewer sees them, read
 * back with Display1.Capture. The clips show one dark blue picture
 * (tests/gen-clips*.c), 320x240 on a 640x480 screen (2x); captions go
 * where the broadcaster put them (in the subtitle area at the bottom, or
 * at the top) and nowhere else. Subtitle tracks are
 * test-subtitles-screen.c's; the helpers both share are
 * subtitles-screen.c's. Runs once per renderer, like test-headless.c.
 */
#include "subtitles-screen.h"

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
	const int w = SUBS_SCREEN_W, h = SUBS_SCREEN_H, area = SUBS_AREA_Y, top = SUBS_TOP_Y;
	for (int i = 0; i < 40; i++) {
		g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
		g_autoptr(GVariant) r = umms_test_call_ok(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1,
			"Capture", g_variant_new("(s)", path));
		struct umms_test_image *image = umms_test_image_load(path);
		white = subs_count_box(image, CC708_BOTTOM_X0, area, CC708_BOTTOM_X1, h,
			SUBS_WHITE);
		left = subs_count_box(image, CC708_BOTTOM_X0, area, 200, h, SUBS_WHITE);
		red = subs_count_box(image, CC708_TOP_X0, 0, CC708_TOP_X1, top, SUBS_RED);
		elsewhere = subs_count_box(image, 0, 0, CC708_TOP_X0, top, SUBS_NOT_BLUE) +
			subs_count_box(image, CC708_TOP_X1, 0, w, top, SUBS_NOT_BLUE) +
			subs_count(image, top, area, SUBS_NOT_BLUE) +
			subs_count_box(image, 0, area, CC708_BOTTOM_X0, h, SUBS_NOT_BLUE) +
			subs_count_box(image, CC708_BOTTOM_X1, area, w, h, SUBS_NOT_BLUE);
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

/*
 * cc608.mkv: CEA-608 captions in the H.264 stream (CC1, pop-on): "CAPTION"
 * from 1.0 s to 2.0 s on row 15, white, drawn in the subtitle area;
 * "LATER" from 3.0 s to 3.48 s on row 1, green, drawn green at the top.
 */
static void
test_cc608(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = subs_show(t, "cc608.mkv", false);
	/* Found in the first picture; off until chosen. */
	subs_assert_kinds(t, p, (const char *const[]){ "cc", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "cc-before", SUBS_WHITE, 0);

	/* Played through the first caption: it comes at its time and goes at its erase. */
	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		if (i > 0) {
			subs_seek(t, p, 0.5);
			subs_expect(t, "cc-before-again", SUBS_WHITE, 0);
		}
		if (!subs_play_into(t, p, 1.4, 2.0))
			continue;
		subs_expect(t, "cc-shown", SUBS_WHITE, 20);
		if (!subs_play_into(t, p, 2.3, 3.0))
			continue;
		subs_expect(t, "cc-erased", SUBS_WHITE, 0);
		played = true;
	}
	g_assert_true(played);

	/* Sought back into it: shown again; out of it: gone; the choice stands. */
	subs_seek(t, p, 1.5);
	subs_expect(t, "cc-sought-back", SUBS_WHITE, 20);
	subs_seek(t, p, 0.5);
	subs_expect(t, "cc-sought-before", SUBS_WHITE, 0);
	subs_seek(t, p, 1.2);
	subs_expect(t, "cc-sought-again", SUBS_WHITE, 20);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	/* Off and on again while paused. */
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "cc-off", SUBS_WHITE, 0);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "cc-on", SUBS_WHITE, 20);
	subs_seek(t, p, 2.5);
	subs_expect(t, "cc-after", SUBS_WHITE, 0);

	/* The second caption where its preamble puts it, at the top, in its colour. */
	played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		if (i > 0)
			subs_seek(t, p, 2.5);
		if (!subs_play_into(t, p, 3.1, 3.45))
			continue;
		subs_expect_top(t, "cc-top-green", SUBS_GREEN, 20);
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
	g_autofree char *p = subs_show(t, "cc708.mkv", false);
	/* Both found in the first picture: 608, then 708; off until chosen. */
	for (int i = 0; i < 100; i++) {
		g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER,
			"SubtitleTracks");
		if (g_variant_n_children(tracks) >= 2)
			break;
		umms_test_sleep(50);
	}
	subs_assert_kinds(t, p, (const char *const[]){ "cc", "cc", NULL });
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER, "SubtitleTracks");
	g_autoptr(GVariant) second = g_variant_get_child_value(tracks, 1);
	const char *codec = NULL;
	g_assert_true(g_variant_lookup(second, "codec", "&s", &codec));
	g_assert_cmpstr(codec, ==, "cea708");
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	subs_select_subtitle(t, p, 1);
	subs_expect(t, "cc708-before", SUBS_WHITE, 0);

	/* Played through: not in the 608 caption's time, shown at its own, gone at its erase. */
	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		if (i > 0) {
			subs_seek(t, p, 0.5);
			subs_expect(t, "cc708-before-again", SUBS_WHITE, 0);
		}
		if (!subs_play_into(t, p, 1.4, 2.0))
			continue;
		subs_expect(t, "cc708-not-608s", SUBS_WHITE, 0);
		if (!subs_play_into(t, p, 2.5, 3.1))
			continue;
		expect708(t, "cc708-shown");
		if (!subs_play_into(t, p, 3.4, 4.0))
			continue;
		subs_expect(t, "cc708-erased", SUBS_WHITE, 0);
		played = true;
	}
	g_assert_true(played);

	/* Sought back into it: shown again; out of it: gone; the choice stands. */
	subs_seek(t, p, 2.6);
	expect708(t, "cc708-sought-back");
	subs_seek(t, p, 1.5);
	subs_expect(t, "cc708-sought-before", SUBS_WHITE, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 1);
	/* Off, then the 608 track: its caption, not this one. */
	subs_seek(t, p, 2.6);
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "cc708-off", SUBS_WHITE, 0);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "cc708-608-track", SUBS_WHITE, 0);
	subs_seek(t, p, 1.5);
	subs_expect(t, "cc708-608-caption", SUBS_WHITE, 20);
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
	g_autofree char *p = subs_show(t, "teletext.ts", false);
	subs_assert_kinds(t, p, (const char *const[]){ "teletext", NULL });
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	int64_t origin = umms_test_get_int64(t->bus, p, "Position");
	subs_expect(t, "teletext-before", SUBS_WHITE, 0);
	/* Played past page 100 into the subtitle: it shows, in the subtitle area. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(1.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	subs_expect(t, "teletext-in-cue", SUBS_WHITE, 20);
	/* Off and on again while paused. */
	subs_select_subtitle(t, p, -1);
	subs_expect(t, "teletext-off", SUBS_WHITE, 0);
	subs_select_subtitle(t, p, 0);
	subs_expect(t, "teletext-on", SUBS_WHITE, 20);
	/* Its blank page takes it off. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(2.4), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	subs_expect(t, "teletext-after", SUBS_WHITE, 0);
	/* Sought back before page 100 and played again: the subtitle page, again. */
	subs_seek(t, p, (double)(origin + US(0.2)) / G_USEC_PER_SEC);
	subs_expect(t, "teletext-rewound", SUBS_WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(0.8), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	subs_expect(t, "teletext-not-page-100", SUBS_WHITE, 0);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, origin + US(1.5), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	subs_expect(t, "teletext-again", SUBS_WHITE, 20);
	/* Its pages once seen are known: sought into one while paused, shown at once. */
	subs_seek(t, p, (double)(origin + US(2.5)) / G_USEC_PER_SEC);
	subs_expect(t, "teletext-sought-out", SUBS_WHITE, 0);
	subs_seek(t, p, (double)(origin + US(1.2)) / G_USEC_PER_SEC);
	subs_expect(t, "teletext-sought-in", SUBS_WHITE, 20);
	/* The choice survives seeking: off stays off, on stays on the teletext track. */
	subs_select_subtitle(t, p, -1);
	subs_seek(t, p, (double)(origin + US(1.4)) / G_USEC_PER_SEC);
	subs_expect(t, "teletext-off-sought", SUBS_WHITE, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	subs_select_subtitle(t, p, 0);
	subs_seek(t, p, (double)(origin + US(1.3)) / G_USEC_PER_SEC);
	subs_expect(t, "teletext-on-sought", SUBS_WHITE, 20);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	/* The subtitle on row 1 at the top, in its colour. */
	bool played = false;
	for (int i = 0; i < SUBS_TRIES && !played; i++) {
		subs_seek(t, p, (double)(origin + US(2.5)) / G_USEC_PER_SEC);
		if (!subs_play_into(t, p, (double)(origin + US(3.15)) / G_USEC_PER_SEC,
				(double)(origin + US(3.45)) / G_USEC_PER_SEC))
			continue;
		subs_expect_top(t, "teletext-top-green", SUBS_GREEN, 20);
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
	UMMS_TEST_ADD("/captions/cc608", test_cc608);
	UMMS_TEST_ADD("/captions/cc708", test_cc708);
	UMMS_TEST_ADD("/captions/teletext", test_teletext);
	return g_test_run();
}
