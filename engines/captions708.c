#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <glib.h>

#include "captions708.h"
#include "log.h"

#define ROWS UMMS_CAPTIONS708_ROWS
#define COLUMNS UMMS_CAPTIONS708_COLUMNS
#define WINDOWS 8

/*
 * Where windows go: anchors count 5 units a cell, 75 down the safe area
 * and 210 across (16:9's; 4:3's 160 are not told apart: see the header).
 */
#define ANCHOR_CELL 5
#define ANCHOR_HEIGHT (UMMS_CAPTIONS708_PLACE_ROWS * ANCHOR_CELL)
#define ANCHOR_WIDTH (UMMS_CAPTIONS708_PLACE_COLUMNS * ANCHOR_CELL)

/* A DTVCC packet is at most 128 bytes, its header byte included. */
#define PACKET_MAX 128

struct window {
	bool defined, visible;
	int priority;           /* 0: the highest */
	int rows, columns;      /* 1..ROWS, 1..COLUMNS */
	bool column_lock;       /* off: text past the last column widens it (to COLUMNS) */
	int row, column;        /* the pen: row < rows, column <= columns */
	bool italic, underline; /* the pen's */
	uint8_t colour;         /* the pen's: WHITE, or UMMS_CAPTION_RGB and rgb */
	uint32_t rgb;
	bool relative;          /* the anchor in percent of the safe area */
	int anchor_v, anchor_h; /* units (5 a cell), or percent */
	int anchor_point;       /* 0..8: top-left, top-centre, ... bottom-right */
	struct umms_caption_cell cells[ROWS][COLUMNS];
};

struct umms_captions708 {
	struct umms_caption_cue cue;
	int service;
	struct window windows[WINDOWS];
	int current;            /* the window text goes to, -1: none */

	uint8_t packet[PACKET_MAX]; /* the packet under way, without its header */
	size_t packet_len;
	size_t packet_size;     /* its data bytes; 0: none under way */
	int packet_sequence;
	int last_sequence;      /* of the last packet decoded, -1: none yet */

	int64_t position;       /* of the last picture fed */
};

/* ---- characters ----------------------------------------------------------- */

/* G2 (after EXT1): the characters defined, 0 for the rest. */
static gunichar
g2_char(uint8_t c)
{
	switch (c) {
	case 0x20: return ' ';          /* TSP: transparent space */
	case 0x21: return 0x00a0;       /* NBTSP */
	case 0x25: return 0x2026;       /* … */
	case 0x2a: return 0x0160;       /* Š */
	case 0x2c: return 0x0152;       /* Œ */
	case 0x30: return 0x2588;       /* █ */
	case 0x31: return 0x2018;       /* ‘ */
	case 0x32: return 0x2019;       /* ’ */
	case 0x33: return 0x201c;       /* “ */
	case 0x34: return 0x201d;       /* ” */
	case 0x35: return 0x2022;       /* • */
	case 0x39: return 0x2122;       /* ™ */
	case 0x3a: return 0x0161;       /* š */
	case 0x3c: return 0x0153;       /* œ */
	case 0x3d: return 0x2120;       /* ℠ */
	case 0x3f: return 0x0178;       /* Ÿ */
	case 0x76: return 0x215b;       /* ⅛ */
	case 0x77: return 0x215c;       /* ⅜ */
	case 0x78: return 0x215d;       /* ⅝ */
	case 0x79: return 0x215e;       /* ⅞ */
	case 0x7a: return 0x2502;       /* │ */
	case 0x7b: return 0x2510;       /* ┐ */
	case 0x7c: return 0x2514;       /* └ */
	case 0x7d: return 0x2500;       /* ─ */
	case 0x7e: return 0x2518;       /* ┘ */
	case 0x7f: return 0x250c;       /* ┌ */
	default: return 0;
	}
}

/* ---- windows -------------------------------------------------------------- */

static struct window *
current_window(struct umms_captions708 *captions)
{
	if (captions->current < 0)
		return NULL;
	struct window *window = &captions->windows[captions->current];
	return window->defined ? window : NULL;
}

static void
clear_window(struct window *window)
{
	memset(window->cells, 0, sizeof(window->cells));
}

static void
put_char(struct umms_captions708 *captions, gunichar ch)
{
	struct window *window = current_window(captions);
	if (!window)
		return;
	if (window->column >= window->columns) {
		if (window->column_lock || window->columns >= COLUMNS)
			return;
		window->columns = window->column + 1;
	}
	struct umms_caption_cell *cell = &window->cells[window->row][window->column];
	cell->ch = ch;
	cell->italic = window->italic;
	cell->underline = window->underline;
	cell->colour = window->colour;
	cell->rgb = window->rgb;
	window->column++;
}

/* CR: the pen to the next row's start; past the last row, the text scrolls up. */
static void
carriage_return(struct window *window)
{
	window->column = 0;
	if (window->row + 1 < window->rows) {
		window->row++;
		return;
	}
	memmove(window->cells[0], window->cells[1],
		sizeof(window->cells[0]) * (size_t)(window->rows - 1));
	memset(window->cells[window->rows - 1], 0, sizeof(window->cells[0]));
}

static void
c0(struct umms_captions708 *captions, uint8_t code)
{
	struct window *window = current_window(captions);
	if (!window)
		return;
	switch (code) {
	case 0x08: /* BS */
		if (window->column > 0) {
			window->column--;
			memset(&window->cells[window->row][window->column], 0,
				sizeof(struct umms_caption_cell));
		}
		break;
	case 0x0c: /* FF: the window cleared, the pen home */
		clear_window(window);
		window->row = window->column = 0;
		break;
	case 0x0d: /* CR */
		carriage_return(window);
		break;
	case 0x0e: /* HCR: the pen's row cleared, the pen to its start */
		memset(window->cells[window->row], 0, sizeof(window->cells[0]));
		window->column = 0;
		break;
	default: /* NUL, ETX, reserved */
		break;
	}
}

/* DF0-7: a window defined (or its attributes changed), and made current. */
static void
define_window(struct umms_captions708 *captions, int id, const uint8_t *p)
{
	struct window *window = &captions->windows[id];
	bool fresh = !window->defined;
	if (fresh) {
		memset(window, 0, sizeof(*window));
		window->defined = true;
	}
	window->visible = p[0] & 0x20;
	window->column_lock = p[0] & 0x08;
	window->priority = p[0] & 0x07;
	window->relative = p[1] & 0x80;
	window->anchor_v = p[1] & 0x7f;
	window->anchor_h = p[2];
	window->anchor_point = p[3] >> 4;
	int rows = MIN((p[3] & 0x0f) + 1, ROWS);
	int columns = MIN((p[4] & 0x3f) + 1, COLUMNS);
	/* A smaller window: what is outside it is gone. */
	for (int r = 0; r < ROWS; r++) {
		for (int c = 0; c < COLUMNS; c++) {
			if (r >= rows || c >= columns)
				memset(&window->cells[r][c], 0, sizeof(window->cells[r][c]));
		}
	}
	window->rows = rows;
	window->columns = columns;
	window->row = MIN(window->row, rows - 1);
	window->column = MIN(window->column, columns);
	/* The predefined pen styles are upright, not underlined; 0 keeps an existing window's. */
	if (fresh || (p[5] & 0x07)) {
		window->italic = window->underline = false;
		window->colour = UMMS_CAPTION_WHITE;
		window->rgb = 0;
	}
	captions->current = id;
}

/* CLW, DSW, HDW, TGW, DLW: what they do to each window of @bitmap. */
static void
windows_command(struct umms_captions708 *captions, uint8_t code, uint8_t bitmap)
{
	for (int id = 0; id < WINDOWS; id++) {
		struct window *window = &captions->windows[id];
		if (!(bitmap & (1u << id)) || !window->defined)
			continue;
		switch (code) {
		case 0x88: /* CLW */
			clear_window(window);
			break;
		case 0x89: /* DSW */
			window->visible = true;
			break;
		case 0x8a: /* HDW */
			window->visible = false;
			break;
		case 0x8b: /* TGW */
			window->visible = !window->visible;
			break;
		case 0x8c: /* DLW */
			memset(window, 0, sizeof(*window));
			if (captions->current == id)
				captions->current = -1;
			break;
		default:
			break;
		}
	}
}

static void
delete_all(struct umms_captions708 *captions)
{
	memset(captions->windows, 0, sizeof(captions->windows));
	captions->current = -1;
}

/* SPC's foreground byte: white (3 3 3) as the default, others as RGB. */
static void
pen_colour(struct window *window, uint8_t fg)
{
	unsigned r = (fg >> 4) & 3, g = (fg >> 2) & 3, b = fg & 3;
	if (r == 3 && g == 3 && b == 3) {
		window->colour = UMMS_CAPTION_WHITE;
		window->rgb = 0;
		return;
	}
	window->colour = UMMS_CAPTION_RGB;
	window->rgb = (uint32_t)(r * 0x55) << 16 | (uint32_t)(g * 0x55) << 8 | b * 0x55;
}

static void
c1(struct umms_captions708 *captions, const uint8_t *p)
{
	uint8_t code = p[0];
	struct window *window;
	if (code <= 0x87) {
		/* CW0-7: an undefined window is not made current. */
		if (captions->windows[code - 0x80].defined)
			captions->current = code - 0x80;
	} else if (code <= 0x8c) {
		windows_command(captions, code, p[1]);
	} else if (code == 0x8f) {
		/* RST */
		delete_all(captions);
	} else if (code == 0x90) {
		/* SPA: pen size, offset, text tag, font and edge are not kept. */
		if ((window = current_window(captions))) {
			window->italic = p[2] & 0x80;
			window->underline = p[2] & 0x40;
		}
	} else if (code == 0x91) {
		/* SPC: the foreground's colour; its opacity and the background not kept. */
		if ((window = current_window(captions)))
			pen_colour(window, p[1]);
	} else if (code == 0x92) {
		/* SPL */
		if ((window = current_window(captions))) {
			window->row = MIN(p[1] & 0x0f, window->rows - 1);
			window->column = MIN(p[2] & 0x3f, window->columns - 1);
		}
	} else if (code >= 0x98) {
		define_window(captions, code - 0x98, p + 1);
	}
	/* DLY, DLC (run at once), SWA and the reserved codes: not kept. */
}

/* The EXT1 code @p[1] (G2, G3; C2, C3 skipped). */
static void
extended(struct umms_captions708 *captions, const uint8_t *p)
{
	if (p[1] >= 0x20 && p[1] <= 0x7f) {
		gunichar ch = g2_char(p[1]);
		if (ch)
			put_char(captions, ch);
	}
	/* G3: only the CC logo, which no font has. */
}

/* The length of the code at @p (@n bytes left), its arguments with it; 0: cut short. */
static size_t
code_length(const uint8_t *p, size_t n)
{
	uint8_t code = p[0];
	size_t length;
	if (code == 0x10) {
		/* EXT1 and the extended code. */
		if (n < 2)
			return 0;
		uint8_t ext = p[1];
		if (ext <= 0x1f)
			length = 2 + ext / 8;         /* C2: 0, 1, 2 or 3 more bytes */
		else if (ext <= 0x7f || ext >= 0xa0)
			length = 2;                   /* G2, G3 */
		else if (ext <= 0x87)
			length = 6;                   /* C3: 4 more bytes */
		else if (ext <= 0x8f)
			length = 7;                   /* C3: 5 more */
		else if (n >= 3)
			length = 3 + (p[2] & 0x3f);   /* C3: a length byte, the rest */
		else
			return 0;
	} else if (code < 0x10) {
		length = 1;
	} else if (code < 0x18) {
		length = 2;
	} else if (code < 0x20) {
		length = 3;                           /* P16 and the rest: two more */
	} else if (code < 0x80 || code >= 0xa0) {
		length = 1;
	} else {
		/* C1: the command's parameters. */
		static const uint8_t c1_lengths[32] = {
			1, 1, 1, 1, 1, 1, 1, 1,       /* CW0-7 */
			2, 2, 2, 2, 2, 2, 1, 1,       /* CLW DSW HDW TGW DLW DLY DLC RST */
			3, 4, 3, 1, 1, 1, 1, 5,       /* SPA SPC SPL, reserved, SWA */
			7, 7, 7, 7, 7, 7, 7, 7,       /* DF0-7 */
		};
		length = c1_lengths[code - 0x80];
	}
	return length <= n ? length : 0;
}

/* A service block of ours: its codes, one by one; one cut short ends it. */
static void
decode_block(struct umms_captions708 *captions, const uint8_t *p, size_t n)
{
	size_t i = 0, length;
	while (i < n && (length = code_length(p + i, n - i)) > 0) {
		uint8_t code = p[i];
		if (code == 0x10)
			extended(captions, p + i);
		else if (code < 0x20)
			c0(captions, code);       /* P16 (0x18) skipped: no 16-bit characters */
		else if (code == 0x7f)
			put_char(captions, 0x266a);   /* ♪ */
		else if (code < 0x80)
			put_char(captions, code);
		else if (code < 0xa0)
			c1(captions, p + i);
		else
			put_char(captions, code); /* G1: Latin-1 */
		i += length;
	}
}

/* ---- packets -------------------------------------------------------------- */

/* A whole packet's service blocks; whether one was ours. */
static bool
decode_packet(struct umms_captions708 *captions, const uint8_t *p, size_t n)
{
	bool ours = false;
	size_t i = 0;
	while (i < n) {
		int service = p[i] >> 5;
		size_t size = p[i] & 0x1f;
		i++;
		if (service == 0)
			break;          /* the null block: padding to the end */
		if (service == 7) {
			/* The extended header: services 7 to 63. */
			if (i >= n)
				break;
			service = p[i++] & 0x3f;
			if (service < 7)
				break;
		}
		if (size > n - i)
			break;          /* past the packet's end: the rest is not trusted */
		if (service == captions->service) {
			ours = true;
			decode_block(captions, p + i, size);
		}
		i += size;
	}
	return ours;
}

/* The packet under way is whole: decoded when it follows the last one. */
static bool
finish_packet(struct umms_captions708 *captions)
{
	int sequence = captions->packet_sequence, last = captions->last_sequence;
	/* Out of sequence (a packet lost): this one is not trusted, the next is. */
	captions->last_sequence = sequence;
	size_t n = captions->packet_len;
	captions->packet_size = captions->packet_len = 0;
	if (last >= 0 && sequence != ((last + 1) & 3)) {
		umms_debug("CEA-708: packet %d after %d ignored", sequence, last);
		return false;
	}
	return decode_packet(captions, captions->packet, n);
}

static void
packet_byte(struct umms_captions708 *captions, uint8_t byte)
{
	if (captions->packet_len < captions->packet_size)
		captions->packet[captions->packet_len++] = byte;
}

/* One cc_data triplet; whether it completed a packet with a block of ours. */
static bool
triplet(struct umms_captions708 *captions, const uint8_t *t)
{
	if (!(t[0] & 0x04) || (t[0] & 0x03) < 2)
		return false;   /* not valid, or 608 */
	if ((t[0] & 0x03) == 3) {
		/* DTVCC_PACKET_START: a packet cut short by it is dropped (the next follows it). */
		if (captions->packet_size)
			captions->last_sequence = captions->packet_sequence;
		unsigned size_code = t[1] & 0x3f;
		captions->packet_sequence = t[1] >> 6;
		captions->packet_size = (size_code ? size_code * 2 : PACKET_MAX) - 1;
		captions->packet_len = 0;
		packet_byte(captions, t[2]);
	} else {
		if (!captions->packet_size)
			return false;   /* data without a start */
		packet_byte(captions, t[1]);
		packet_byte(captions, t[2]);
	}
	if (captions->packet_len < captions->packet_size)
		return false;
	return finish_packet(captions);
}

/* ---- what is shown, as a cue ---------------------------------------------- */

/* Anchor units to cells, rounded to the nearest. */
static int
cells_of(int units)
{
	return units >= 0 ? (units + ANCHOR_CELL / 2) / ANCHOR_CELL :
		-((-units + ANCHOR_CELL / 2) / ANCHOR_CELL);
}

/* The cell of @window's top-left corner, kept on the grid. */
static void
window_origin(const struct window *window, int *top, int *left)
{
	int v = window->anchor_v, h = window->anchor_h;
	if (window->relative) {
		v = MIN(v, 100) * ANCHOR_HEIGHT / 100;
		h = MIN(h, 100) * ANCHOR_WIDTH / 100;
	}
	/* The anchor point: 0..2 along the top, 3..5 the middle, 6..8 the bottom. */
	int point = window->anchor_point <= 8 ? window->anchor_point : 0;
	v -= (point / 3) * window->rows * ANCHOR_CELL / 2;
	h -= (point % 3) * window->columns * ANCHOR_CELL / 2;
	*top = CLAMP(cells_of(v), 0, UMMS_CAPTIONS708_PLACE_ROWS - window->rows);
	*left = CLAMP(cells_of(h), 0, MAX(UMMS_CAPTIONS708_PLACE_COLUMNS - window->columns, 0));
}

/*
 * The visible windows' rows with text, by priority, a line each, each
 * line's cell in @place; NULL when blank.
 */
static char *
markup(const struct umms_captions708 *captions, struct umms_cue_place *place)
{
	memset(place, 0, sizeof(*place));
	place->rows = UMMS_CAPTIONS708_PLACE_ROWS;
	place->columns = UMMS_CAPTIONS708_PLACE_COLUMNS;
	GString *out = g_string_new(NULL);
	for (int priority = 0; priority < WINDOWS; priority++) {
		for (int id = 0; id < WINDOWS; id++) {
			const struct window *window = &captions->windows[id];
			if (!window->defined || !window->visible || window->priority != priority)
				continue;
			int top, left;
			window_origin(window, &top, &left);
			for (int r = 0; r < window->rows; r++) {
				uint8_t lines = place->lines, row = (uint8_t)(top + r);
				if (!umms_captions_append_row(out, window->cells[r],
						(size_t)window->columns, place, row) ||
						place->lines == lines)
					continue;
				int column = left + place->column[lines];
				place->column[lines] = (uint8_t)MIN(column,
					UMMS_CAPTIONS708_PLACE_COLUMNS - 1);
			}
		}
	}
	if (!out->len) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

/* ---- bytes in ------------------------------------------------------------- */

struct umms_captions708 *
umms_captions708_create(struct umms_cues *cues, int service)
{
	struct umms_captions708 *captions = g_new0(struct umms_captions708, 1);
	captions->cue.cues = umms_cues_ref(cues);
	captions->service = service;
	captions->position = -1;
	umms_captions708_reset(captions);
	return captions;
}

void
umms_captions708_destroy(struct umms_captions708 *captions)
{
	if (!captions)
		return;
	umms_cues_unref(captions->cue.cues);
	g_free(captions->cue.markup);
	g_free(captions);
}

bool
umms_captions708_carried(enum umms_caption_format format, const uint8_t *data, size_t size)
{
	const uint8_t *triplets;
	size_t n = umms_captions_cc_data(format, data, size, &triplets);
	for (size_t i = 0; i < n; i++) {
		if ((triplets[3 * i] & 0x04) && (triplets[3 * i] & 0x03) >= 2)
			return true;
	}
	return false;
}

bool
umms_captions708_feed(struct umms_captions708 *captions, int64_t position,
	enum umms_caption_format format, const uint8_t *data, size_t size)
{
	const uint8_t *triplets;
	size_t n = umms_captions_cc_data(format, data, size, &triplets);
	if (n == 0 || position < 0)
		return false;
	/* Pictures going back in time without a reset: a new start. */
	if (position < captions->position)
		umms_captions708_reset(captions);
	captions->position = position;
	bool ours = false;
	for (size_t i = 0; i < n; i++)
		ours |= triplet(captions, triplets + 3 * i);
	/* One change per picture: what shows when it is on screen. */
	struct umms_cue_place place;
	char *shown = markup(captions, &place);
	umms_caption_cue_show(&captions->cue, position, shown, &place);
	return ours;
}

void
umms_captions708_reset(struct umms_captions708 *captions)
{
	umms_caption_cue_cut(&captions->cue, captions->position);
	delete_all(captions);
	captions->packet_size = captions->packet_len = 0;
	captions->last_sequence = -1;
	captions->position = -1;
}
