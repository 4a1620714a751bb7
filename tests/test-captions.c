/*
 * The CEA-608 caption decoder (engines/captions.h) without a player: byte
 * pairs as a stream carries them, picture by picture, become the cues a
 * viewer would see (pop-on, roll-up, paint-on, special and extended
 * characters, styles), each from its picture's time to its erase; the
 * framings GStreamer's caption meta has; and hostile bytes.
 */
#include <string.h>
#include <glib.h>

#include "captions.h"
#include "cues.h"

#include "cue-check.h"

#define FRAME 40000 /* µs: 25 fps */

static uint8_t
odd(uint8_t c)
{
	c &= 0x7f;
	return __builtin_parity(c) ? c : (uint8_t)(c | 0x80);
}

struct feed {
	struct umms_cues *cues;
	struct umms_captions *captions;
	unsigned frame;
};

static void
feed_init(struct feed *f)
{
	f->cues = umms_cues_create_text();
	f->captions = umms_captions_create(f->cues);
	f->frame = 0;
}

static void
feed_finish(struct feed *f)
{
	umms_captions_destroy(f->captions);
	umms_cues_unref(f->cues);
}

/* One picture carrying one field-1 pair (7-bit bytes, parity added). */
static void
pair(struct feed *f, uint8_t a, uint8_t b)
{
	const uint8_t bytes[2] = { odd(a), odd(b) };
	g_assert_true(umms_captions_feed(f->captions, (int64_t)f->frame++ * FRAME,
		UMMS_CAPTION_608_RAW, bytes, 2));
}

/* A control code, sent twice as broadcasters do. */
static void
control(struct feed *f, uint8_t a, uint8_t b)
{
	pair(f, a, b);
	pair(f, a, b);
}

/* Characters, two a picture. */
static void
text(struct feed *f, const char *s)
{
	for (size_t i = 0; s[i]; i += 2) {
		pair(f, (uint8_t)s[i], (uint8_t)s[i + 1]);
		if (!s[i + 1])
			break;
	}
}

static void
padding(struct feed *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pair(f, 0, 0);
}

/* The cue's text (plain) at frame @n, "" when none; @markup: its markup instead. */
static char *
at(struct feed *f, unsigned n, bool markup)
{
	return cue_check_text(f->cues, (int64_t)n * FRAME, markup);
}

static void
assert_at(struct feed *f, unsigned n, const char *expected)
{
	g_autofree char *s = at(f, n, false);
	g_assert_cmpstr(s, ==, expected);
}

#define RCL 0x14, 0x20
#define EOC 0x14, 0x2f
#define EDM 0x14, 0x2c
#define CR 0x14, 0x2d
#define PAC15 0x14, 0x60
#define PAC14 0x14, 0x40

static void
pop_on_caption(struct feed *f, const char *s)
{
	control(f, RCL);
	control(f, PAC15);
	text(f, s);
	control(f, EOC);
}

static void
test_pop_on(void)
{
	struct feed f;
	feed_init(&f);
	padding(&f, 5);
	pop_on_caption(&f, "HELLO");  /* frames 5..13: EOC at 12 */
	padding(&f, 10);
	control(&f, EDM);               /* 24 */
	padding(&f, 5);
	assert_at(&f, 11, "");          /* loaded, not shown yet */
	assert_at(&f, 12, "HELLO");
	assert_at(&f, 23, "HELLO");
	assert_at(&f, 24, "");
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 1);

	/* Two rows; then another caption replacing them with no erase between. */
	control(&f, RCL);
	control(&f, PAC14);
	text(&f, "ONE");
	control(&f, PAC15);
	text(&f, "TWO");
	unsigned eoc = f.frame;
	control(&f, EOC);
	assert_at(&f, eoc - 1, "");
	assert_at(&f, eoc, "ONE\nTWO");
	/* Loaded into the screen the erase left blank. */
	pop_on_caption(&f, "THREE");
	assert_at(&f, f.frame - 3, "ONE\nTWO");
	assert_at(&f, f.frame - 2, "THREE");
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 3);
	feed_finish(&f);
}

static void
test_roll_up(void)
{
	struct feed f;
	feed_init(&f);
	control(&f, 0x14, 0x25);        /* RU2 */
	control(&f, PAC15);
	text(&f, "AB");                 /* frame 4: "AB" */
	assert_at(&f, 4, "AB");
	control(&f, CR);                /* 5 */
	text(&f, "CD");                 /* 7 */
	assert_at(&f, 7, "AB\nCD");
	control(&f, CR);
	text(&f, "EF");                 /* 10: two rows only */
	assert_at(&f, 10, "CD\nEF");
	/* Paint-on: characters show as they come. */
	control(&f, 0x14, 0x29);        /* RDC */
	control(&f, EDM);
	control(&f, PAC14);
	text(&f, "XY");                 /* 17 */
	assert_at(&f, 17, "XY");
	feed_finish(&f);
}

/* The place of the cue at frame @n (there must be one). */
static struct umms_cue_place
place_at(struct feed *f, unsigned n)
{
	GArray *active = cue_check_active(f->cues, (int64_t)n * FRAME);
	g_assert_cmpuint(active->len, ==, 1);
	struct umms_cue_place place = g_array_index(active, struct umms_cue, 0).place;
	g_array_unref(active);
	return place;
}

/*
 * Preamble address codes put rows where the captioner chose (row 1 at
 * the top, an indent), each row of the cue at its own row and column of
 * the 15 x 32 screen; their colours and mid-row codes' become Pango
 * spans; roll-up rows stay at their base row.
 */
static void
test_place_and_colour(void)
{
	struct feed f;
	feed_init(&f);
	control(&f, RCL);
	control(&f, 0x11, 0x54);        /* PAC: row 1, indent 8 */
	text(&f, "TOP");
	control(&f, 0x11, 0x62);        /* PAC: row 2, green */
	text(&f, "GREEN");
	control(&f, 0x10, 0x47);        /* PAC: row 11, cyan, underlined */
	text(&f, "A");
	control(&f, 0x11, 0x28);        /* mid-row: red (a space, in it) */
	text(&f, "B");
	control(&f, 0x11, 0x2e);        /* mid-row: italics, the colour kept */
	text(&f, "C");
	control(&f, 0x11, 0x20);        /* mid-row: white */
	text(&f, "D");
	unsigned eoc = f.frame;
	control(&f, EOC);
	g_autofree char *markup = at(&f, eoc, true);
	g_assert_cmpstr(markup, ==, "TOP\n"
		"<span foreground=\"#00FF00\">GREEN</span>\n"
		"<span foreground=\"#00FFFF\"><u>A</u></span>"
		"<span foreground=\"#FF0000\"> B</span>"
		"<span foreground=\"#FF0000\"><i> C</i></span> D");
	assert_at(&f, eoc, "TOP\nGREEN\nA B C D");
	struct umms_cue_place place = place_at(&f, eoc);
	g_assert_cmpuint(place.rows, ==, 15);
	g_assert_cmpuint(place.columns, ==, 32);
	g_assert_false(place.centred);
	g_assert_cmpuint(place.lines, ==, 3);
	g_assert_cmpuint(place.row[0], ==, 0);
	g_assert_cmpuint(place.column[0], ==, 8);
	g_assert_cmpuint(place.row[1], ==, 1);
	g_assert_cmpuint(place.column[1], ==, 0);
	g_assert_cmpuint(place.row[2], ==, 10);
	g_assert_cmpuint(place.column[2], ==, 0);

	/* The same text on another row is another caption: a new cue. */
	control(&f, RCL);
	control(&f, 0x14, 0x54);        /* PAC: row 14, indent 8 */
	text(&f, "TOP");
	eoc = f.frame;
	control(&f, EOC);
	place = place_at(&f, eoc);
	g_assert_cmpuint(place.lines, ==, 1);
	g_assert_cmpuint(place.row[0], ==, 13);
	g_assert_cmpuint(place.column[0], ==, 8);
	unsigned cues = umms_cues_count(f.cues);
	control(&f, RCL);
	control(&f, 0x11, 0x54);        /* row 1 again */
	text(&f, "TOP");
	eoc = f.frame;
	control(&f, EOC);
	g_assert_cmpuint(umms_cues_count(f.cues), ==, cues + 1);
	g_assert_cmpuint(place_at(&f, eoc).row[0], ==, 0);

	/* Roll-up: the rows at the base row the preamble gave, scrolled up from it. */
	control(&f, 0x14, 0x26);        /* RU3 */
	control(&f, 0x12, 0x40);        /* PAC: row 3, the base row */
	text(&f, "R1");
	control(&f, CR);
	text(&f, "R2");
	place = place_at(&f, f.frame - 1);
	g_assert_cmpuint(place.lines, ==, 2);
	g_assert_cmpuint(place.row[0], ==, 1);
	g_assert_cmpuint(place.row[1], ==, 2);
	feed_finish(&f);
}

static void
test_characters(void)
{
	struct feed f;
	feed_init(&f);
	control(&f, RCL);
	control(&f, 0x14, 0x6e);        /* PAC row 15, italics */
	text(&f, "a~");                 /* ñ is 0x7e */
	control(&f, 0x11, 0x37);        /* ♪ */
	text(&f, "A");
	control(&f, 0x12, 0x20);        /* Á replaces the A */
	control(&f, 0x11, 0x20);        /* mid-row: white, a space, italics off */
	text(&f, "<&");
	control(&f, EOC);
	g_autofree char *plain = at(&f, f.frame - 1, false);
	g_autofree char *markup = at(&f, f.frame - 1, true);
	g_assert_cmpstr(plain, ==, "añ♪Á <&");
	g_assert_cmpstr(markup, ==, "<i>añ♪Á</i> &lt;&amp;");
	feed_finish(&f);
}

static void
test_other_channel_and_parity(void)
{
	struct feed f;
	feed_init(&f);
	control(&f, RCL);
	control(&f, PAC15);
	text(&f, "OK");
	control(&f, 0x1c, 0x20);        /* CC2's RCL: what follows is CC2's */
	text(&f, "NO");
	control(&f, 0x14, 0x20);        /* CC1's again (RCL) */
	/* A character with its parity wrong: a block, as the standard says. */
	const uint8_t bad[2] = { odd('X'), (uint8_t)(odd('Y') ^ 0x80) };
	umms_captions_feed(f.captions, (int64_t)f.frame++ * FRAME, UMMS_CAPTION_608_RAW, bad, 2);
	/* A control code with its parity wrong: nothing. */
	const uint8_t bad_eoc[2] = { (uint8_t)(odd(0x14) ^ 0x80), odd(0x2f) };
	umms_captions_feed(f.captions, (int64_t)f.frame++ * FRAME, UMMS_CAPTION_608_RAW,
		bad_eoc, 2);
	assert_at(&f, f.frame - 1, "");
	control(&f, EOC);
	assert_at(&f, f.frame - 1, "OKX■");
	feed_finish(&f);
}

/*
 * A stretch played twice (a seek back) leaves one cue, with its end, on
 * view as far as it is seen again.
 */
static void
test_again(void)
{
	struct feed f;
	feed_init(&f);
	pop_on_caption(&f, "AGAIN");    /* EOC at 7 */
	padding(&f, 3);                 /* the last picture: 11 */
	umms_captions_reset(f.captions);  /* sought away */
	/* Known from 7 to where it was last seen. */
	assert_at(&f, 6, "");
	assert_at(&f, 7, "AGAIN");
	assert_at(&f, 10, "AGAIN");
	assert_at(&f, 11, "");
	f.frame = 0;
	pop_on_caption(&f, "AGAIN");
	/* Played again past where it was last seen, before its erase: on view. */
	padding(&f, 5);                 /* 12 */
	assert_at(&f, 12, "AGAIN");
	padding(&f, 5);
	control(&f, EDM);               /* 19 */
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 1);
	assert_at(&f, 18, "AGAIN");
	assert_at(&f, 19, "");
	/* Sought away early on a third pass: the end it is known to have stays. */
	f.frame = 0;
	pop_on_caption(&f, "AGAIN");
	padding(&f, 2);
	umms_captions_reset(f.captions);
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 1);
	assert_at(&f, 18, "AGAIN");
	assert_at(&f, 19, "");
	/* Pictures going back without a reset (a demuxer's jump): a new start too. */
	f.frame = 0;
	text(&f, "ZZ");
	assert_at(&f, 0, "");
	feed_finish(&f);
}

static void
test_framings(void)
{
	uint8_t pairs[2 * UMMS_CAPTIONS_MAX_PAIRS];
	/* cc_data: field 1 valid, field 2, field 1 not valid, a DTVCC packet. */
	const uint8_t cc_data[] = { 0xfc, 0x94, 0x20, 0xfd, 0x01, 0x02, 0xf8, 0x03, 0x04,
		0xff, 0x05, 0x06, 0xfc, 0xc1 };
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_708_CC_DATA, cc_data,
		sizeof(cc_data), pairs, UMMS_CAPTIONS_MAX_PAIRS), ==, 1);
	g_assert_cmpint(pairs[0], ==, 0x94);
	g_assert_cmpint(pairs[1], ==, 0x20);
	/* SMPTE 334-1: bit 7 of the first byte is field 1. */
	const uint8_t s334[] = { 0x00, 0x11, 0x12, 0x80, 0x13, 0x14, 0x80 };
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_608_S334_1A, s334, sizeof(s334),
		pairs, UMMS_CAPTIONS_MAX_PAIRS), ==, 1);
	g_assert_cmpint(pairs[0], ==, 0x13);
	/* CDP: header, time code, cc_data of 2; then lengths that lie. */
	uint8_t cdp[] = { 0x96, 0x69, 0, 0x4f, 0xc3, 0x00, 0x01,
		0x71, 0xc0, 0x80, 0x80, 0x80,
		0x72, 0xe2, 0xfc, 0x94, 0x2c, 0xfc, 0x80, 0x80,
		0x74, 0x00, 0x01, 0x00 };
	cdp[2] = sizeof(cdp);
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_708_CDP, cdp, sizeof(cdp), pairs,
		UMMS_CAPTIONS_MAX_PAIRS), ==, 2);
	g_assert_cmpint(pairs[1], ==, 0x2c);
	cdp[13] = 0xff;  /* cc_count 31, beyond the packet */
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_708_CDP, cdp, sizeof(cdp), pairs,
		UMMS_CAPTIONS_MAX_PAIRS), ==, 3);
	cdp[2] = 200;    /* a length beyond the buffer */
	umms_captions_field1(UMMS_CAPTION_708_CDP, cdp, 14, pairs, UMMS_CAPTIONS_MAX_PAIRS);
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_708_CDP, cdp, 6, pairs,
		UMMS_CAPTIONS_MAX_PAIRS), ==, 0);
	cdp[0] = 0;
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_708_CDP, cdp, sizeof(cdp), pairs,
		UMMS_CAPTIONS_MAX_PAIRS), ==, 0);
	/* More pairs than a picture may have: the first UMMS_CAPTIONS_MAX_PAIRS. */
	uint8_t many[1000];
	memset(many, 0x80, sizeof(many));
	g_assert_cmpuint(umms_captions_field1(UMMS_CAPTION_608_RAW, many, sizeof(many), pairs,
		UMMS_CAPTIONS_MAX_PAIRS), ==, UMMS_CAPTIONS_MAX_PAIRS);
	/* No field-1 data: not captions. */
	struct feed f;
	feed_init(&f);
	const uint8_t field2[] = { 0xfd, 0x80, 0x80 };
	g_assert_false(umms_captions_feed(f.captions, 0, UMMS_CAPTION_708_CC_DATA, field2, 3));
	g_assert_false(umms_captions_feed(f.captions, 0, UMMS_CAPTION_608_RAW, field2, 1));
	feed_finish(&f);
}

/* Random bytes in every framing: whatever comes, bounds hold (the sanitizer build says). */
static void
test_hostile(void)
{
	struct feed f;
	feed_init(&f);
	GRand *rand = g_rand_new_with_seed(608);
	uint8_t bytes[256];
	for (unsigned i = 0; i < 20000; i++) {
		size_t size = (size_t)g_rand_int_range(rand, 0, sizeof(bytes) + 1);
		for (size_t j = 0; j < size; j++)
			bytes[j] = (uint8_t)g_rand_int(rand);
		if (i % 4 == 3 && size >= 3) {
			bytes[0] = 0x96;
			bytes[1] = 0x69;
		}
		umms_captions_feed(f.captions, (int64_t)i * FRAME,
			(enum umms_caption_format)(i % 4), bytes, size);
		if (i % 1000 == 999)
			umms_captions_reset(f.captions);
	}
	g_rand_free(rand);
	/* The cues are text a renderer takes. */
	g_assert_cmpuint(umms_cues_count(f.cues), >, 0);
	struct umms_subpicture *s = umms_cues_render(f.cues, (int64_t)19999 * FRAME, 640, 360);
	umms_subpicture_unref(s);
	feed_finish(&f);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/captions/pop-on", test_pop_on);
	g_test_add_func("/captions/roll-up", test_roll_up);
	g_test_add_func("/captions/place-and-colour", test_place_and_colour);
	g_test_add_func("/captions/characters", test_characters);
	g_test_add_func("/captions/other-channel-and-parity", test_other_channel_and_parity);
	g_test_add_func("/captions/again", test_again);
	g_test_add_func("/captions/framings", test_framings);
	g_test_add_func("/captions/hostile", test_hostile);
	return g_test_run();
}
