/*
 * The CEA-708 (DTVCC) caption decoder (engines/captions708.h) without a
 * player: packets of service blocks built by hand as a stream carries
 * them in its pictures' cc_data, and the cues a viewer would see: windows
 * defined, shown, hidden, toggled, cleared and deleted, text, rows and
 * scrolling, styles, places (window anchors), pen colours, priorities, characters,
 * packets over several pictures, the CDP framing, a seek back; and
 * hostile bytes.
 */
#include <string.h>
#include <glib.h>

#include "captions708.h"
#include "cues.h"

#include "cue-check.h"

#define FRAME 40000 /* µs: 25 fps */

/* Commands (CEA-708-E 7.1.5, 8.10.5). */
#define CR 0x0d
#define HCR 0x0e
#define FF 0x0c
#define BS 0x08
#define CLW 0x88
#define DSW 0x89
#define HDW 0x8a
#define TGW 0x8b
#define DLW 0x8c
#define RST 0x8f
#define SPA 0x90
#define SPL 0x92
#define EXT1 0x10
/* DFn: visible?, priority, rows, columns; anchor 0, styles 1. */
#define DF(n, visible, priority, rows, columns) \
	(uint8_t)(0x98 + (n)), (uint8_t)(((visible) ? 0x20 : 0) | 0x08 | (priority)), 0, 0, \
	(uint8_t)((rows) - 1), (uint8_t)((columns) - 1), 0x09

struct feed {
	struct umms_cues *cues;
	struct umms_captions708 *captions;
	unsigned frame;
	unsigned sequence;
};

static void
feed_init(struct feed *f)
{
	f->cues = umms_cues_create_text();
	f->captions = umms_captions708_create(f->cues, UMMS_CAPTIONS708_PRIMARY);
	f->frame = 0;
	f->sequence = 0;
}

static void
feed_finish(struct feed *f)
{
	umms_captions708_destroy(f->captions);
	umms_cues_unref(f->cues);
}

/*
 * A DTVCC packet (its header byte first) holding one block of @service
 * with @n bytes, a null block to an even size; its size in bytes.
 */
static size_t
build_packet(uint8_t *out, unsigned sequence, int service, const uint8_t *data, size_t n)
{
	g_assert_cmpuint(n, <=, 31);
	size_t len = 1;
	if (service < 7) {
		out[len++] = (uint8_t)(service << 5 | n);
	} else {
		out[len++] = (uint8_t)(7 << 5 | n);
		out[len++] = (uint8_t)service;
	}
	memcpy(out + len, data, n);
	len += n;
	if (len % 2)
		out[len++] = 0;
	out[0] = (uint8_t)((sequence & 3) << 6 | (len / 2));
	return len;
}

/*
 * One picture's cc_data: a 608 padding pair, the packet bytes @bytes
 * (@n, even; @start: the first begins the packet), 0xFA 00 00 padding.
 */
static size_t
build_cc_data(uint8_t *out, const uint8_t *bytes, size_t n, bool start)
{
	size_t len = 0;
	out[len++] = 0xfc, out[len++] = 0x80, out[len++] = 0x80;
	for (size_t i = 0; i + 1 < n; i += 2) {
		out[len++] = i == 0 && start ? 0xff : 0xfe;
		out[len++] = bytes[i];
		out[len++] = bytes[i + 1];
	}
	for (int i = 0; i < 2; i++)
		out[len++] = 0xfa, out[len++] = 0, out[len++] = 0;
	return len;
}

/* One picture carrying the bytes (framed as cc_data); whether the decoder saw our service. */
static bool
picture(struct feed *f, const uint8_t *bytes, size_t n, bool start)
{
	uint8_t cc[3 * 80];
	size_t len = build_cc_data(cc, bytes, n, start);
	return umms_captions708_feed(f->captions, (int64_t)f->frame++ * FRAME,
		UMMS_CAPTION_708_CC_DATA, cc, len);
}

/* Service 1's block of @n bytes in a packet of its own, in one picture. */
static void
block(struct feed *f, const uint8_t *data, size_t n)
{
	uint8_t packet[128];
	size_t len = build_packet(packet, f->sequence++, 1, data, n);
	g_assert_true(picture(f, packet, len, true));
}

#define BLOCK(f, ...) block(f, (const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void
text(struct feed *f, const char *s)
{
	block(f, (const uint8_t *)s, strlen(s));
}

static void
padding(struct feed *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		g_assert_false(picture(f, NULL, 0, false));
}

/* The cue's plain text (or @markup) at frame @n, "" when none. */
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

/* The cue now (at the last picture fed). */
static void
assert_now(struct feed *f, const char *expected)
{
	assert_at(f, f->frame - 1, expected);
}

static void
test_windows(void)
{
	struct feed f;
	feed_init(&f);
	/* Defined hidden: its text is not shown. */
	BLOCK(&f, DF(0, false, 0, 1, 32));
	text(&f, "HELLO");
	assert_now(&f, "");
	unsigned shown = f.frame;
	BLOCK(&f, DSW, 0x01);
	assert_now(&f, "HELLO");
	padding(&f, 3);
	unsigned hidden = f.frame;
	BLOCK(&f, HDW, 0x01);
	assert_now(&f, "");
	/* The cue lasted from DSW's picture to HDW's. */
	assert_at(&f, shown - 1, "");
	assert_at(&f, shown, "HELLO");
	assert_at(&f, hidden - 1, "HELLO");
	assert_at(&f, hidden, "");
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 1);
	BLOCK(&f, TGW, 0x01);
	assert_now(&f, "HELLO");
	BLOCK(&f, TGW, 0x01);
	assert_now(&f, "");
	/* Bits of windows not defined change nothing. */
	BLOCK(&f, DSW, 0xff);
	assert_now(&f, "HELLO");
	BLOCK(&f, CLW, 0x01);
	assert_now(&f, "");
	/* Cleared: still visible, the pen where it was. */
	text(&f, "AGAIN");
	assert_now(&f, "AGAIN");
	BLOCK(&f, DLW, 0x01);
	assert_now(&f, "");
	/* Deleted: no window to write to, none to show. */
	text(&f, "LOST");
	BLOCK(&f, DSW, 0x01);
	assert_now(&f, "");
	/* Defined visible: shown as written; RST deletes every window. */
	BLOCK(&f, DF(3, true, 0, 2, 20), 'N', 'E', 'W');
	assert_now(&f, "NEW");
	BLOCK(&f, RST);
	assert_now(&f, "");
	feed_finish(&f);
}

static void
test_rows(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DF(0, true, 0, 2, 32), 'O', 'N', 'E', CR, 'T', 'W', 'O');
	assert_now(&f, "ONE\nTWO");
	/* CR on the last row: the text scrolls up (roll-up). */
	BLOCK(&f, CR, 'T', 'H', 'R', 'E', 'E');
	assert_now(&f, "TWO\nTHREE");
	/* HCR: the row again; BS takes the last character back. */
	BLOCK(&f, HCR, 'X', 'Y', BS);
	assert_now(&f, "TWO\nX");
	/* SPL: anywhere in the window (row 0, column 5). */
	BLOCK(&f, SPL, 0x00, 0x05, 'Z');
	assert_now(&f, "TWO  Z\nX");
	/* FF: cleared, the pen home. */
	BLOCK(&f, FF, 'H');
	assert_now(&f, "H");
	/* A row past the window is its last. */
	BLOCK(&f, SPL, 0x0e, 0x00, 'B');
	assert_now(&f, "H\nB");
	/* A column lock: text past the last column is lost. */
	BLOCK(&f, DF(1, true, 1, 1, 4), 'A', 'B', 'C', 'D', 'E', 'F');
	assert_now(&f, "H\nB\nABCD");
	feed_finish(&f);
}

static void
test_styles(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DF(0, true, 0, 1, 32), SPA, 0x05, 0x80, 'I', 'T', SPA, 0x05, 0x00, ' ',
		'U', 'P', SPA, 0x05, 0x40, 'U', 'N');
	g_autofree char *markup = at(&f, f.frame - 1, true);
	g_assert_cmpstr(markup, ==, "<i>IT</i> UP<u>UN</u>");
	assert_now(&f, "IT UPUN");
	/* Markup characters are escaped. */
	BLOCK(&f, FF, SPA, 0x05, 0x00, '<', '&', '>');
	g_autofree char *escaped = at(&f, f.frame - 1, true);
	g_assert_cmpstr(escaped, ==, "&lt;&amp;&gt;");
	/* A window defined again keeps its text; a pen style resets the pen. */
	BLOCK(&f, FF, SPA, 0x05, 0x80, 'A', DF(0, true, 0, 1, 32), 'B');
	g_autofree char *kept = at(&f, f.frame - 1, true);
	g_assert_cmpstr(kept, ==, "<i>A</i>B");
	feed_finish(&f);
}

/* DFn visible, priority 0, @rows x @columns anchored at @v, @h (@relative: percent), @point. */
#define DFA(n, rows, columns, relative, v, h, point) \
	(uint8_t)(0x98 + (n)), 0x28, (uint8_t)(((relative) ? 0x80 : 0) | (v)), (uint8_t)(h), \
	(uint8_t)((point) << 4 | ((rows) - 1)), (uint8_t)((columns) - 1), 0x09

/* The one cue now: its markup and place. */
static char *
cue_now(struct feed *f, struct umms_cue_place *place)
{
	GArray *active = cue_check_active(f->cues, (int64_t)(f->frame - 1) * FRAME);
	g_assert_cmpuint(active->len, ==, 1);
	const struct umms_cue *cue = &g_array_index(active, struct umms_cue, 0);
	*place = cue->place;
	char *markup = g_strdup(cue->markup);
	g_array_unref(active);
	return markup;
}

/* The cue now: its lines at (@row, @column), one under the other, on the 15 x 42 grid. */
static void
assert_placed(struct feed *f, const char *expected, unsigned lines, unsigned row,
	unsigned column)
{
	struct umms_cue_place place;
	g_autofree char *markup = cue_now(f, &place);
	g_assert_cmpstr(markup, ==, expected);
	g_assert_cmpuint(place.rows, ==, 15);
	g_assert_cmpuint(place.columns, ==, 42);
	g_assert_false(place.centred);
	g_assert_cmpuint(place.lines, ==, lines);
	for (unsigned i = 0; i < lines; i++) {
		g_assert_cmpuint(place.row[i], ==, row + i);
		g_assert_cmpuint(place.column[i], ==, column);
	}
}

/*
 * A window's anchor and anchor point give its top-left cell (5 anchor
 * units a cell, 75 x 210 over the safe area), its lines their rows under it.
 */
static void
test_anchors(void)
{
	static const struct {
		bool relative;
		unsigned v, h, point, rows, columns;
		unsigned row, column;
	} cases[] = {
		{ false, 0, 0, 0, 2, 10, 0, 0 },         /* top-left at the corner */
		{ false, 74, 104, 7, 2, 20, 13, 11 },    /* bottom-centre: rows 13-14, 11..30 */
		{ false, 74, 209, 8, 1, 32, 14, 10 },    /* bottom-right: 10..41 */
		{ false, 37, 104, 4, 3, 10, 6, 16 },     /* centre: rows 6-8, 16..25 */
		{ false, 0, 209, 2, 2, 8, 0, 34 },       /* top-right */
		{ false, 37, 0, 3, 1, 8, 7, 0 },         /* middle-left */
		{ false, 20, 50, 0, 2, 8, 4, 10 },       /* units to the nearest cell */
		{ false, 22, 52, 0, 2, 8, 4, 10 },
		{ false, 23, 53, 0, 2, 8, 5, 11 },
		{ true, 50, 50, 4, 1, 10, 7, 16 },       /* relative: the middle */
		{ true, 99, 50, 7, 2, 20, 13, 11 },      /* relative: bottom-centre */
		{ true, 0, 99, 2, 1, 10, 0, 31 },        /* relative: top-right (99 %) */
		{ false, 127, 255, 0, 3, 32, 12, 10 },   /* past the safe area: kept on the grid */
		{ false, 0, 0, 8, 2, 10, 0, 0 },         /* above and left of it too */
		{ false, 0, 0, 15, 1, 10, 0, 0 },        /* an undefined point: top-left */
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		struct feed f;
		feed_init(&f);
		g_test_message("case %zu", i);
		uint8_t df[] = { DFA(0, cases[i].rows, cases[i].columns, cases[i].relative,
			cases[i].v, cases[i].h, cases[i].point) };
		block(&f, df, sizeof(df));
		/* Text on every row, the first character at column 0. */
		for (unsigned r = 0; r < cases[i].rows; r++)
			BLOCK(&f, SPL, (uint8_t)r, 0x00, 'A', 'B');
		g_autoptr(GString) expected = g_string_new("AB");
		for (unsigned r = 1; r < cases[i].rows; r++)
			g_string_append(expected, "\nAB");
		assert_placed(&f, expected->str, cases[i].rows, cases[i].row, cases[i].column);
		feed_finish(&f);
	}
}

/* A line's column is its first character's; windows each at their place; blank rows none. */
static void
test_lines(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DFA(1, 3, 20, false, 74, 104, 7), SPL, 0x02, 0x04, 'L', 'O', 'W');
	assert_placed(&f, "LOW", 1, 14, 15);
	/* Window 0 at the top (priority 0 too, a lower id): its line first. */
	BLOCK(&f, 0x98, 0x20, 0x00, 0x00, 0x00, 0x09, 0x09, ' ', 'T', 'O', 'P');
	struct umms_cue_place place;
	g_autofree char *markup = cue_now(&f, &place);
	g_assert_cmpstr(markup, ==, "TOP\nLOW");
	g_assert_cmpuint(place.lines, ==, 2);
	g_assert_cmpuint(place.row[0], ==, 0);
	g_assert_cmpuint(place.column[0], ==, 1);
	g_assert_cmpuint(place.row[1], ==, 14);
	g_assert_cmpuint(place.column[1], ==, 15);
	feed_finish(&f);
}

/* A window redefined elsewhere: the same text at another place is another cue. */
static void
test_moved(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DFA(0, 1, 10, false, 0, 0, 0), 'H', 'I');
	unsigned first = f.frame - 1;
	assert_placed(&f, "HI", 1, 0, 0);
	padding(&f, 2);
	BLOCK(&f, DFA(0, 1, 10, false, 74, 104, 7));
	unsigned moved = f.frame - 1;
	assert_placed(&f, "HI", 1, 14, 16);
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 2);
	assert_at(&f, first, "HI");
	assert_at(&f, moved - 1, "HI");
	assert_at(&f, moved, "HI");
	/* Defined again at the same place: the same cue. */
	BLOCK(&f, DFA(0, 1, 10, false, 74, 104, 7));
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 2);
	feed_finish(&f);
}

/* SetPenColor's foreground (2 bits each of R, G, B) as #RRGGBB; white unstyled. */
static void
test_colours(void)
{
	struct feed f;
	feed_init(&f);
	/* SPC: red on black; white; orange (2 1 0); blue, opacity bits ignored. */
	BLOCK(&f, DF(0, true, 0, 1, 32), 0x91, 0x30, 0x00, 0x00, 'R', 'E', 'D',
		0x91, 0x3f, 0x00, 0x00, 'W', 0x91, 0x24, 0x00, 0x00, 'O',
		0x91, 0xc3, 0x00, 0x00, 'B');
	g_autofree char *markup = at(&f, f.frame - 1, true);
	g_assert_cmpstr(markup, ==, "<span foreground=\"#FF0000\">RED</span>W"
		"<span foreground=\"#AA5500\">O</span><span foreground=\"#0000FF\">B</span>");
	assert_now(&f, "REDWOB");
	/* With italics: the colour outside; a space between runs of one colour joins them. */
	BLOCK(&f, FF, 0x91, 0x19, 0x00, 0x00, SPA, 0x05, 0x80, 'G', ' ', 'G');
	g_autofree char *italic = at(&f, f.frame - 1, true);
	g_assert_cmpstr(italic, ==, "<span foreground=\"#55AA55\"><i>G G</i></span>");
	/* A pen style in a redefinition resets the colour; 0 keeps it. */
	BLOCK(&f, FF, SPA, 0x05, 0x00, 0x91, 0x30, 0x00, 0x00, 'A', DF(0, true, 0, 1, 32), 'B');
	g_autofree char *reset = at(&f, f.frame - 1, true);
	g_assert_cmpstr(reset, ==, "<span foreground=\"#FF0000\">A</span>B");
	BLOCK(&f, FF, 0x91, 0x30, 0x00, 0x00, 'A', 0x98, 0x28, 0, 0, 0x00, 0x1f, 0x00, 'B');
	g_autofree char *kept = at(&f, f.frame - 1, true);
	g_assert_cmpstr(kept, ==, "<span foreground=\"#FF0000\">AB</span>");
	feed_finish(&f);
}

static void
test_priority(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DF(0, true, 3, 1, 32), 'L', 'O', 'W');
	BLOCK(&f, DF(5, true, 0, 1, 32), 'T', 'O', 'P');
	assert_now(&f, "TOP\nLOW");
	/* CWn: text into another defined window; an undefined one is not chosen. */
	BLOCK(&f, 0x80, '!', 0x82, '?');
	assert_now(&f, "TOP\nLOW!?");
	feed_finish(&f);
}

static void
test_characters(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DF(0, true, 0, 1, 42));
	BLOCK(&f, 0x7f, 0xe9, 0xa3,               /* ♪, G1 é £ */
		EXT1, 0x25, EXT1, 0x39, EXT1, 0x7d,   /* G2 … ™ ─ */
		EXT1, 0x22,                           /* G2, undefined: nothing */
		EXT1, 0xa0,                           /* G3: the CC logo, not drawn */
		EXT1, 0x05, 'A',                      /* C2, no argument */
		EXT1, 0x10, 0x41, 0x42, 'B');         /* C2, two arguments skipped */
	BLOCK(&f, EXT1, 0x85, 1, 2, 3, 4, 'C',    /* C3, four */
		EXT1, 0x90, 0x02, 0x41, 0x41, 'D',    /* C3, variable: two */
		0x18, 0x41, 0x41, 'E',                /* P16 skipped */
		0x11, 0x41, 0x03, 0x00, 'F',          /* C0 with one argument, ETX, NUL */
		0x93, 'G');                           /* C1 reserved */
	assert_now(&f, "\u266a\u00e9\u00a3\u2026\u2122\u2500ABCDEFG");
	feed_finish(&f);
}

/* A packet over three pictures: shown with the picture that completes it. */
static void
test_split(void)
{
	struct feed f;
	feed_init(&f);
	uint8_t data[] = { DF(0, true, 0, 1, 32), 'S', 'P', 'L', 'I', 'T' };
	uint8_t packet[128];
	size_t len = build_packet(packet, f.sequence++, 1, data, sizeof(data));
	g_assert_cmpuint(len, ==, 14);
	g_assert_false(picture(&f, packet, 4, true));
	assert_now(&f, "");
	g_assert_false(picture(&f, packet + 4, 6, false));
	assert_now(&f, "");
	g_assert_true(picture(&f, packet + 10, 4, false));
	assert_now(&f, "SPLIT");
	/* Another service's blocks are not ours. */
	uint8_t other[] = { FF, 'N', 'O' };
	len = build_packet(packet, f.sequence++, 2, other, sizeof(other));
	g_assert_false(picture(&f, packet, len, true));
	len = build_packet(packet, f.sequence++, 9, other, sizeof(other));
	g_assert_false(picture(&f, packet, len, true));
	assert_now(&f, "SPLIT");
	feed_finish(&f);
}

/* A caption played again after a seek back: one cue, its end known. */
static void
test_again(void)
{
	struct feed f;
	feed_init(&f);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			umms_captions708_reset(f.captions);
		f.frame = 10;
		BLOCK(&f, DF(0, true, 0, 1, 32), 'O', 'N', 'C', 'E');
		padding(&f, 10);
		BLOCK(&f, DLW, 0x01);
		padding(&f, 2);
	}
	g_assert_cmpuint(umms_cues_count(f.cues), ==, 1);
	assert_at(&f, 9, "");
	assert_at(&f, 10, "ONCE");
	assert_at(&f, 20, "ONCE");
	assert_at(&f, 21, "");
	/* Sought back into it (its window is not known again yet): the list still has it whole. */
	umms_captions708_reset(f.captions);
	f.frame = 15;
	padding(&f, 1);
	assert_at(&f, 15, "ONCE");
	feed_finish(&f);
}

/* The same block in a SMPTE 334-2 CDP. */
static void
test_cdp(void)
{
	struct feed f;
	feed_init(&f);
	uint8_t data[] = { DF(0, true, 0, 1, 32), 'C', 'D', 'P' };
	uint8_t packet[128], cc[3 * 40];
	size_t len = build_packet(packet, 0, 1, data, sizeof(data));
	size_t cc_len = build_cc_data(cc, packet, len, true);
	uint8_t cdp[256] = { 0x96, 0x69, 0, 0x3f, 0x43, 0x00, 0x01, 0x72,
		(uint8_t)(0xe0 | cc_len / 3) };
	memcpy(cdp + 9, cc, cc_len);
	size_t cdp_len = 9 + cc_len + 4;
	cdp[9 + cc_len] = 0x74;
	cdp[2] = (uint8_t)cdp_len;
	g_assert_true(umms_captions708_carried(UMMS_CAPTION_708_CDP, cdp, cdp_len));
	g_assert_true(umms_captions708_feed(f.captions, 0, UMMS_CAPTION_708_CDP, cdp, cdp_len));
	assert_at(&f, 0, "CDP");
	/* 608 framings carry no DTVCC data. */
	g_assert_false(umms_captions708_carried(UMMS_CAPTION_608_S334_1A, cc, cc_len));
	g_assert_false(umms_captions708_feed(f.captions, FRAME, UMMS_CAPTION_608_RAW, cc, cc_len));
	uint8_t padding_only[] = { 0xfc, 0x80, 0x80, 0xfa, 0, 0 };
	g_assert_false(umms_captions708_carried(UMMS_CAPTION_708_CC_DATA, padding_only, 6));
	feed_finish(&f);
}

static void
test_hostile(void)
{
	struct feed f;
	feed_init(&f);
	BLOCK(&f, DF(0, true, 0, 1, 32), 'O', 'K');
	assert_now(&f, "OK");
	/* Out of sequence (1 expected): ignored; the next follows it. */
	f.sequence = 2;
	uint8_t packet[128];
	size_t len = build_packet(packet, f.sequence++, 1, (const uint8_t[]){ 'X' }, 1);
	g_assert_false(picture(&f, packet, len, true));
	assert_now(&f, "OK");
	BLOCK(&f, 'Y');
	assert_now(&f, "OKY");
	/* Cut short by the next start: dropped; the next follows it. */
	len = build_packet(packet, f.sequence++, 1, (const uint8_t[]){ 'A', 'B', 'C', 'D', 'E' }, 5);
	g_assert_false(picture(&f, packet, 4, true));
	BLOCK(&f, 'Z');
	assert_now(&f, "OKYZ");
	/* Data without a start, a start with cc_valid off: nothing. */
	const uint8_t stray[] = { 0xfe, 0x21, 0x41, 0xfb, 0x02, 0x21, 0xfa, 0x41, 0x41 };
	g_assert_false(umms_captions708_feed(f.captions, (int64_t)f.frame++ * FRAME,
		UMMS_CAPTION_708_CC_DATA, stray, sizeof(stray)));
	assert_now(&f, "OKYZ");
	/* A block longer than its packet: not decoded. */
	const uint8_t over[] = { (uint8_t)((f.sequence++ & 3) << 6 | 2), 0x3f, 'Q', 'Q' };
	g_assert_false(picture(&f, over, sizeof(over), true));
	assert_now(&f, "OKYZ");
	/* A command cut short by its block's end: the block ends there. */
	BLOCK(&f, 'W', DF(1, true, 0, 1, 32));
	BLOCK(&f, 0x97, 0, 0);
	assert_now(&f, "OKYZW");
	/* Counts too large: 15 rows, 42 columns at most. */
	BLOCK(&f, RST, 0x98, 0x20, 0, 0, 0x0f, 0x3f, 0, SPL, 0x0f, 0x3f, 'R');
	assert_now(&f, "R");
	BLOCK(&f, FF);
	for (int i = 0; i < 3; i++)
		text(&f, "0123456789012345678901234567890");
	g_autofree char *row = at(&f, f.frame - 1, false);
	g_assert_cmpuint(strlen(row), ==, 42);
	for (int i = 0; i < 20; i++)
		BLOCK(&f, CR, 'L');
	/* Random bytes: no crash, no cue past a window's size. */
	GRand *rand = g_rand_new_with_seed(708);
	for (int i = 0; i < 20000; i++) {
		uint8_t cc[3 * 32];
		size_t n = (size_t)g_rand_int_range(rand, 0, sizeof(cc) + 1);
		for (size_t j = 0; j < n; j++)
			cc[j] = (uint8_t)g_rand_int(rand);
		/* Mostly well-formed triplets, so packets complete. */
		for (size_t j = 0; j + 2 < n; j += 3)
			cc[j] = (cc[j] & 0x07) | 0xfc;
		if ((i & 1) == 0 && n >= 2)
			cc[0] = 0x96, cc[1] = 0x69;
		umms_captions708_feed(f.captions, (int64_t)f.frame++ * FRAME,
			(i & 1) ? UMMS_CAPTION_708_CC_DATA : UMMS_CAPTION_708_CDP, cc, n);
	}
	g_rand_free(rand);
	g_assert_cmpuint(umms_cues_count(f.cues), >, 0);
	feed_finish(&f);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/captions708/windows", test_windows);
	g_test_add_func("/captions708/rows", test_rows);
	g_test_add_func("/captions708/styles", test_styles);
	g_test_add_func("/captions708/anchors", test_anchors);
	g_test_add_func("/captions708/lines", test_lines);
	g_test_add_func("/captions708/moved", test_moved);
	g_test_add_func("/captions708/colours", test_colours);
	g_test_add_func("/captions708/priority", test_priority);
	g_test_add_func("/captions708/characters", test_characters);
	g_test_add_func("/captions708/split", test_split);
	g_test_add_func("/captions708/again", test_again);
	g_test_add_func("/captions708/cdp", test_cdp);
	g_test_add_func("/captions708/hostile", test_hostile);
	return g_test_run();
}
