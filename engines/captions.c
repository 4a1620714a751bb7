#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <glib.h>

#include "captions.h"
#include "log.h"

/* The caption screen: 15 rows of 32 columns. */
#define ROWS 15
#define COLUMNS 32

/*
 * Cues are kept this long behind the newest, so a seek back finds them:
 * roll-up captions make a cue per pair of characters (thousands in ten
 * minutes), and every picture looks through the list. Old ones are
 * forgotten every FORGET_US of the stream.
 */
#define KEEP_US ((int64_t)10 * 60 * G_USEC_PER_SEC)
#define FORGET_US ((int64_t)10 * G_USEC_PER_SEC)

/* The colours of enum umms_caption_colour. */
static const char *const colours[UMMS_CAPTION_COLOURS] = {
	"#FFFFFF", "#00FF00", "#0000FF", "#00FFFF", "#FF0000", "#FFFF00", "#FF00FF",
};
#define WHITE UMMS_CAPTION_WHITE

struct screen {
	struct umms_caption_cell cells[ROWS][COLUMNS];
};

enum mode {
	MODE_NONE,              /* nothing asked for yet: characters go nowhere */
	MODE_POP_ON,            /* into the hidden screen, shown by EOC */
	MODE_PAINT_ON,          /* straight onto the shown screen */
	MODE_ROLL_UP,           /* onto the shown screen's bottom rows, scrolled by CR */
	MODE_TEXT,              /* the text service: not captions */
};

struct umms_captions {
	struct umms_cues *cues;
	struct screen screens[2];
	int shown;              /* index of the screen on view */
	enum mode mode;
	int depth;              /* roll-up rows */
	int row, column;        /* the cursor */
	bool italic, underline;
	uint8_t colour;
	bool ours;              /* the last control code was CC1's: characters are ours */
	uint8_t last_control[2];/* the control code just run, 0 0: none (its repeat is skipped) */

	struct umms_caption_cue cue;
	int64_t position;       /* of the last picture fed */
};

/* ---- character sets ------------------------------------------------------ */

/* The basic set is ASCII but for these. */
static gunichar
basic_char(uint8_t c)
{
	switch (c) {
	case 0x2a: return 0x00e1;       /* á */
	case 0x5c: return 0x00e9;       /* é */
	case 0x5e: return 0x00ed;       /* í */
	case 0x5f: return 0x00f3;       /* ó */
	case 0x60: return 0x00fa;       /* ú */
	case 0x7b: return 0x00e7;       /* ç */
	case 0x7c: return 0x00f7;       /* ÷ */
	case 0x7d: return 0x00d1;       /* Ñ */
	case 0x7e: return 0x00f1;       /* ñ */
	case 0x7f: return 0x25a0;       /* ■ */
	default: return c;
	}
}

/* 0x11 0x30..0x3f; 0x39 is the transparent space (0 here: an empty cell). */
static const gunichar special_chars[16] = {
	0x00ae, 0x00b0, 0x00bd, 0x00bf, 0x2122, 0x00a2, 0x00a3, 0x266a,
	0x00e0, 0x0000, 0x00e8, 0x00e2, 0x00ea, 0x00ee, 0x00f4, 0x00fb,
};

/* 0x12 0x20..0x3f (Spanish, French, miscellaneous) and 0x13 (Portuguese, German, Danish). */
static const gunichar extended_chars[2][32] = {
	{ 0x00c1, 0x00c9, 0x00d3, 0x00da, 0x00dc, 0x00fc, 0x2018, 0x00a1,
	  0x002a, 0x0027, 0x2014, 0x00a9, 0x2120, 0x2022, 0x201c, 0x201d,
	  0x00c0, 0x00c2, 0x00c7, 0x00c8, 0x00ca, 0x00cb, 0x00eb, 0x00ce,
	  0x00cf, 0x00ef, 0x00d4, 0x00d9, 0x00f9, 0x00db, 0x00ab, 0x00bb },
	{ 0x00c3, 0x00e3, 0x00cd, 0x00cc, 0x00ec, 0x00d2, 0x00f2, 0x00d5,
	  0x00f5, 0x007b, 0x007d, 0x005c, 0x005e, 0x005f, 0x007c, 0x007e,
	  0x00c4, 0x00e4, 0x00d6, 0x00f6, 0x00df, 0x00a5, 0x00a4, 0x00a6,
	  0x00c5, 0x00e5, 0x00d8, 0x00f8, 0x250c, 0x2510, 0x2514, 0x2518 },
};

/* ---- the screens --------------------------------------------------------- */

static struct screen *
shown_screen(struct umms_captions *captions)
{
	return &captions->screens[captions->shown];
}

/* Where characters go in the mode: NULL nowhere. */
static struct screen *
target_screen(struct umms_captions *captions)
{
	switch (captions->mode) {
	case MODE_POP_ON:
		return &captions->screens[!captions->shown];
	case MODE_PAINT_ON:
	case MODE_ROLL_UP:
		return shown_screen(captions);
	case MODE_NONE:
	case MODE_TEXT:
		break;
	}
	return NULL;
}

static void
clear_row(struct screen *screen, int row)
{
	memset(screen->cells[row], 0, sizeof(screen->cells[row]));
}

static void
clear_screen(struct screen *screen)
{
	memset(screen, 0, sizeof(*screen));
}

static void
put_char(struct umms_captions *captions, gunichar ch)
{
	struct screen *screen = target_screen(captions);
	if (!screen || !captions->ours)
		return;
	struct umms_caption_cell *cell = &screen->cells[captions->row][captions->column];
	cell->ch = ch;
	cell->italic = captions->italic;
	cell->underline = captions->underline;
	cell->colour = captions->colour;
	if (captions->column < COLUMNS - 1)
		captions->column++;
}

/* Roll-up: the window is the @depth rows ending at the cursor's row; the rest is clear. */
static void
clip_window(struct umms_captions *captions)
{
	struct screen *screen = shown_screen(captions);
	for (int r = 0; r < ROWS; r++) {
		if (r > captions->row || r <= captions->row - captions->depth)
			clear_row(screen, r);
	}
}

static void
carriage_return(struct umms_captions *captions)
{
	if (captions->mode != MODE_ROLL_UP)
		return;
	struct screen *screen = shown_screen(captions);
	int top = MAX(0, captions->row - captions->depth + 1);
	for (int r = top; r < captions->row; r++)
		memcpy(screen->cells[r], screen->cells[r + 1], sizeof(screen->cells[r]));
	clear_row(screen, captions->row);
	captions->column = 0;
	clip_window(captions);
}

static void
roll_up(struct umms_captions *captions, int depth)
{
	if (captions->mode != MODE_ROLL_UP) {
		clear_screen(&captions->screens[0]);
		clear_screen(&captions->screens[1]);
		captions->row = ROWS - 1;
		captions->column = 0;
	}
	captions->mode = MODE_ROLL_UP;
	captions->depth = depth;
	captions->row = MAX(captions->row, depth - 1);
	clip_window(captions);
}

/* ---- control codes ------------------------------------------------------- */

/* Miscellaneous control codes (0x14 0x20..0x2f on field 1). */
static void
misc_control(struct umms_captions *captions, uint8_t code)
{
	struct screen *screen;
	switch (code) {
	case 0x20: /* RCL: resume caption loading */
		captions->mode = MODE_POP_ON;
		break;
	case 0x21: /* BS: backspace */
		if ((screen = target_screen(captions)) && captions->column > 0) {
			captions->column--;
			memset(&screen->cells[captions->row][captions->column], 0,
				sizeof(struct umms_caption_cell));
		}
		break;
	case 0x24: /* DER: delete to end of row */
		if ((screen = target_screen(captions)))
			memset(&screen->cells[captions->row][captions->column], 0,
				sizeof(struct umms_caption_cell) * (size_t)(COLUMNS - captions->column));
		break;
	case 0x25: /* RU2, RU3, RU4: roll-up captions */
	case 0x26:
	case 0x27:
		roll_up(captions, code - 0x25 + 2);
		break;
	case 0x29: /* RDC: resume direct captioning */
		captions->mode = MODE_PAINT_ON;
		break;
	case 0x2a: /* TR, RTD: the text service */
	case 0x2b:
		captions->mode = MODE_TEXT;
		break;
	case 0x2c: /* EDM: erase displayed memory */
		clear_screen(shown_screen(captions));
		break;
	case 0x2d: /* CR */
		carriage_return(captions);
		break;
	case 0x2e: /* ENM: erase non-displayed memory */
		clear_screen(&captions->screens[!captions->shown]);
		break;
	case 0x2f: /* EOC: end of caption, the hidden screen shown */
		captions->shown = !captions->shown;
		captions->mode = MODE_POP_ON;
		break;
	default: /* AOF, AON, FON: nothing to show */
		break;
	}
}

/* Preamble address codes: rows of (first byte & 7, second byte's 0x20 bit); 0 none. */
static const int pac_rows[8][2] = {
	{ 11, 0 }, { 1, 2 }, { 3, 4 }, { 12, 13 }, { 14, 15 }, { 5, 6 }, { 7, 8 }, { 9, 10 },
};

static void
preamble(struct umms_captions *captions, uint8_t c1, uint8_t c2)
{
	int row = pac_rows[c1 & 7][(c2 & 0x20) ? 1 : 0] - 1;
	if (row < 0)
		return;
	/* Attributes: a colour (0..6), italics (7) or an indent (8..15), and underline. */
	unsigned attribute = c2 & 0x1f;
	captions->underline = attribute & 1;
	captions->italic = attribute == 0x0e || attribute == 0x0f;
	captions->colour = attribute < 0x0e ? (uint8_t)(attribute >> 1) : WHITE;
	int column = attribute >= 0x10 ? (int)((attribute - 0x10) >> 1) * 4 : 0;
	if (captions->mode == MODE_ROLL_UP) {
		/* The window moves to the row, with what it shows. */
		row = MAX(row, captions->depth - 1);
		if (row != captions->row) {
			struct screen *screen = shown_screen(captions);
			struct screen moved = { 0 };
			for (int i = 0; i < captions->depth; i++) {
				int from = captions->row - i, to = row - i;
				if (from >= 0 && to >= 0)
					memcpy(moved.cells[to], screen->cells[from],
						sizeof(moved.cells[to]));
			}
			*screen = moved;
			captions->row = row;
		}
	}
	captions->row = row;
	captions->column = column;
}

static void
control(struct umms_captions *captions, uint8_t c1, uint8_t c2)
{
	/* The second channel's codes (CC2): its characters are not ours either. */
	captions->ours = !(c1 & 0x08);
	if (!captions->ours)
		return;
	c1 &= 0x17;
	if (c2 >= 0x40) {
		preamble(captions, c1, c2);
	} else if (c1 == 0x14 && c2 >= 0x20 && c2 <= 0x2f) {
		misc_control(captions, c2);
	} else if (c1 == 0x17 && c2 >= 0x21 && c2 <= 0x23) {
		/* Tab offsets. */
		captions->column = MIN(captions->column + c2 - 0x20, COLUMNS - 1);
	} else if (c1 == 0x11 && c2 >= 0x20 && c2 <= 0x2f) {
		/* Mid-row codes: a colour (italics off) or italics, shown as a space. */
		captions->underline = c2 & 1;
		captions->italic = (c2 & 0x0e) == 0x0e;
		if (!captions->italic)
			captions->colour = (uint8_t)((c2 & 0x0e) >> 1);
		put_char(captions, ' ');
	} else if (c1 == 0x11 && c2 >= 0x30 && c2 <= 0x3f) {
		gunichar ch = special_chars[c2 - 0x30];
		if (ch)
			put_char(captions, ch);
		else if (target_screen(captions) && captions->column < COLUMNS - 1)
			captions->column++;
	} else if ((c1 == 0x12 || c1 == 0x13) && c2 >= 0x20 && c2 <= 0x3f) {
		/* Extended characters replace the basic one sent before them for older decoders. */
		if (target_screen(captions) && captions->column > 0)
			captions->column--;
		put_char(captions, extended_chars[c1 - 0x12][c2 - 0x20]);
	}
	/* Background attributes and black text (0x10, 0x17 0x2d..0x2f): not kept. */
}

/* A byte without its odd parity bit, or -1 when the parity is wrong. */
static int
strip_parity(uint8_t byte)
{
	return __builtin_parity(byte) ? byte & 0x7f : -1;
}

static void
decode_pair(struct umms_captions *captions, uint8_t b1, uint8_t b2)
{
	int c1 = strip_parity(b1), c2 = strip_parity(b2);
	if (c1 < 0)
		return;
	if (c1 >= 0x10 && c1 <= 0x1f) {
		if (c2 < 0x20)
			return;
		/* Control codes come twice: the repeat is not run again. */
		bool repeat = captions->last_control[0] == c1 && captions->last_control[1] == c2;
		captions->last_control[0] = repeat ? 0 : (uint8_t)c1;
		captions->last_control[1] = repeat ? 0 : (uint8_t)c2;
		if (!repeat)
			control(captions, (uint8_t)c1, (uint8_t)c2);
		return;
	}
	captions->last_control[0] = captions->last_control[1] = 0;
	if (c1 < 0x20)
		return;  /* padding, or XDS (field 2's) */
	put_char(captions, basic_char((uint8_t)c1));
	if (c2 >= 0x20)
		put_char(captions, basic_char((uint8_t)c2));
	else if (c2 < 0)
		put_char(captions, 0x25a0);  /* a character lost: a block, as the standard says */
}

/* ---- what is shown, as a cue ---------------------------------------------- */

static void
append_char(GString *out, gunichar ch)
{
	switch (ch) {
	case '&': g_string_append(out, "&amp;"); break;
	case '<': g_string_append(out, "&lt;"); break;
	case '>': g_string_append(out, "&gt;"); break;
	default: g_string_append_unichar(out, ch); break;
	}
}

/* A run of cells with one style as Pango markup: colour outside, then italics, underline. */
static void
append_run(GString *out, const struct umms_caption_cell *cells, size_t from, size_t to)
{
	const struct umms_caption_cell *style = &cells[from];
	bool rgb = style->ch && style->colour == UMMS_CAPTION_RGB;
	bool coloured = rgb ||
		(style->ch && style->colour != WHITE && style->colour < UMMS_CAPTION_COLOURS);
	bool italic = style->ch && style->italic, underline = style->ch && style->underline;
	if (rgb)
		g_string_append_printf(out, "<span foreground=\"#%06X\">",
			(unsigned)(style->rgb & 0xffffff));
	else if (coloured)
		g_string_append_printf(out, "<span foreground=\"%s\">", colours[style->colour]);
	if (italic)
		g_string_append(out, "<i>");
	if (underline)
		g_string_append(out, "<u>");
	for (size_t c = from; c < to; c++)
		append_char(out, cells[c].ch ? cells[c].ch : ' ');
	if (underline)
		g_string_append(out, "</u>");
	if (italic)
		g_string_append(out, "</i>");
	if (coloured)
		g_string_append(out, "</span>");
}

/* Cells drawn alike: an empty one has no style. */
static bool
same_style(const struct umms_caption_cell *a, const struct umms_caption_cell *b)
{
	struct umms_caption_cell x = *a, y = *b;
	if (!x.ch)
		x = (struct umms_caption_cell){ 0 };
	if (!y.ch)
		y = (struct umms_caption_cell){ 0 };
	if (x.colour >= UMMS_CAPTION_COLOURS && x.colour != UMMS_CAPTION_RGB)
		x.colour = WHITE;
	if (y.colour >= UMMS_CAPTION_COLOURS && y.colour != UMMS_CAPTION_RGB)
		y.colour = WHITE;
	if (x.colour != UMMS_CAPTION_RGB)
		x.rgb = 0;
	if (y.colour != UMMS_CAPTION_RGB)
		y.rgb = 0;
	return x.italic == y.italic && x.underline == y.underline && x.colour == y.colour &&
		(x.rgb & 0xffffff) == (y.rgb & 0xffffff);
}

bool
umms_captions_append_row(GString *out, const struct umms_caption_cell *cells, size_t n,
	struct umms_cue_place *place, uint8_t row)
{
	size_t first = 0, last = n;
	while (first < n && (!cells[first].ch || cells[first].ch == ' '))
		first++;
	if (first >= n)
		return false;
	while (last > first + 1 && (!cells[last - 1].ch || cells[last - 1].ch == ' '))
		last--;
	if (out->len)
		g_string_append_c(out, '\n');
	if (place && place->lines < UMMS_CUE_PLACE_LINES) {
		place->row[place->lines] = row;
		place->column[place->lines] = (uint8_t)MIN(first, 255);
		place->lines++;
	}
	size_t from = first;
	for (size_t c = first + 1; c <= last; c++) {
		if (c < last && same_style(&cells[from], &cells[c]))
			continue;
		append_run(out, cells, from, c);
		from = c;
	}
	return true;
}

/*
 * The screen's rows with text, a line each, as Pango markup (NULL when
 * blank), and in @place each line's row and the column of its first
 * character: a caption where the caption provider put it.
 */
static char *
screen_markup(const struct screen *screen, struct umms_cue_place *place)
{
	GString *out = g_string_new(NULL);
	memset(place, 0, sizeof(*place));
	for (int r = 0; r < ROWS; r++)
		umms_captions_append_row(out, screen->cells[r], COLUMNS, place, (uint8_t)r);
	if (!out->len) {
		g_string_free(out, TRUE);
		return NULL;
	}
	place->rows = ROWS;
	place->columns = COLUMNS;
	return g_string_free(out, FALSE);
}

void
umms_caption_cue_show(struct umms_caption_cue *cue, int64_t position, char *markup,
	const struct umms_cue_place *place)
{
	struct umms_cue_place at = { 0 };
	if (markup && place && place->rows)
		at = *place;
	if (g_strcmp0(markup, cue->markup) == 0 &&
			(!markup || memcmp(&at, &cue->place, sizeof(at)) == 0)) {
		g_free(markup);
	} else {
		if (cue->markup)
			umms_cues_end_placed(cue->cues, cue->start, cue->markup, &cue->place,
				position);
		g_free(cue->markup);
		cue->markup = markup;
		cue->place = at;
		cue->start = position;
		if (markup) {
			if (position < cue->forgotten || position - cue->forgotten > FORGET_US) {
				umms_cues_forget_before(cue->cues, position - KEEP_US);
				cue->forgotten = position;
			}
			umms_cues_add_placed(cue->cues, position, -1, markup, &cue->place);
		}
	}
	/*
	 * Seen again after a seek back, a caption known only to where it was
	 * last seen (umms_caption_cue_cut) is on view with this picture too.
	 */
	if (cue->markup)
		umms_cues_reach_placed(cue->cues, cue->start, cue->markup, &cue->place,
			position + 1);
}

void
umms_caption_cue_cut(struct umms_caption_cue *cue, int64_t last)
{
	/*
	 * A caption on view stays in the list from where it began to where
	 * it was last seen (a later pass over its end extends it).
	 */
	if (cue->markup && last > cue->start)
		umms_cues_end_placed(cue->cues, cue->start, cue->markup, &cue->place, last);
	g_clear_pointer(&cue->markup, g_free);
	memset(&cue->place, 0, sizeof(cue->place));
}

/* ---- bytes in -------------------------------------------------------------- */

size_t
umms_captions_field1(enum umms_caption_format format, const uint8_t *data, size_t size,
	uint8_t *pairs, size_t max)
{
	size_t n = 0;
	switch (format) {
	case UMMS_CAPTION_608_RAW:
		for (size_t i = 0; i + 1 < size && n < max; i += 2, n++)
			memcpy(pairs + 2 * n, data + i, 2);
		return n;
	case UMMS_CAPTION_608_S334_1A:
		for (size_t i = 0; i + 2 < size && n < max; i += 3) {
			if (data[i] & 0x80)
				memcpy(pairs + 2 * n++, data + i + 1, 2);
		}
		return n;
	case UMMS_CAPTION_708_CC_DATA:
		for (size_t i = 0; i + 2 < size && n < max; i += 3) {
			/* cc_valid, cc_type 0: NTSC field 1. */
			if ((data[i] & 0x07) == 0x04)
				memcpy(pairs + 2 * n++, data + i + 1, 2);
		}
		return n;
	case UMMS_CAPTION_708_CDP: {
		const uint8_t *triplets;
		size_t count = umms_captions_cc_data(format, data, size, &triplets);
		return umms_captions_field1(UMMS_CAPTION_708_CC_DATA, triplets, count * 3,
			pairs, max);
	}
	}
	return 0;
}

size_t
umms_captions_cc_data(enum umms_caption_format format, const uint8_t *data, size_t size,
	const uint8_t **triplets)
{
	*triplets = data;
	switch (format) {
	case UMMS_CAPTION_608_RAW:
	case UMMS_CAPTION_608_S334_1A:
		return 0;
	case UMMS_CAPTION_708_CC_DATA:
		return size / 3;
	case UMMS_CAPTION_708_CDP: {
		/* Header: 0x96 0x69, length, frame rate, flags, sequence (2). */
		if (size < 7 || data[0] != 0x96 || data[1] != 0x69)
			return 0;
		size = MIN(size, (size_t)data[2]);
		uint8_t flags = data[4];
		size_t i = 7;
		if ((flags & 0x80) && i < size && data[i] == 0x71)
			i += 5;  /* the time code section */
		if (!(flags & 0x40) || i + 2 > size || data[i] != 0x72)
			return 0;
		size_t count = data[i + 1] & 0x1f;
		i += 2;
		*triplets = data + i;
		return MIN(count, (size - i) / 3);
	}
	}
	return 0;
}

struct umms_captions *
umms_captions_create(struct umms_cues *cues)
{
	struct umms_captions *captions = g_new0(struct umms_captions, 1);
	captions->cue.cues = umms_cues_ref(cues);
	captions->position = -1;
	umms_captions_reset(captions);
	return captions;
}

void
umms_captions_destroy(struct umms_captions *captions)
{
	if (!captions)
		return;
	umms_cues_unref(captions->cue.cues);
	g_free(captions->cue.markup);
	g_free(captions);
}

bool
umms_captions_feed(struct umms_captions *captions, int64_t position,
	enum umms_caption_format format, const uint8_t *data, size_t size)
{
	uint8_t pairs[2 * UMMS_CAPTIONS_MAX_PAIRS];
	size_t n = umms_captions_field1(format, data, size, pairs, UMMS_CAPTIONS_MAX_PAIRS);
	if (n == 0 || position < 0)
		return n > 0;
	/* Pictures going back in time without a reset: a new start. */
	if (position < captions->position)
		umms_captions_reset(captions);
	captions->position = position;
	for (size_t i = 0; i < n; i++)
		decode_pair(captions, pairs[2 * i], pairs[2 * i + 1]);
	/* One change per picture: what shows when it is on screen. */
	struct umms_cue_place place;
	char *markup = screen_markup(shown_screen(captions), &place);
	umms_caption_cue_show(&captions->cue, position, markup, &place);
	return true;
}

void
umms_captions_reset(struct umms_captions *captions)
{
	umms_caption_cue_cut(&captions->cue, captions->position);
	clear_screen(&captions->screens[0]);
	clear_screen(&captions->screens[1]);
	captions->shown = 0;
	captions->mode = MODE_NONE;
	captions->depth = 2;
	captions->row = ROWS - 1;
	captions->column = 0;
	captions->italic = captions->underline = false;
	captions->colour = WHITE;
	captions->ours = true;
	captions->last_control[0] = captions->last_control[1] = 0;
	captions->position = -1;
}
