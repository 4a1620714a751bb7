/*
 * Closed captions (CEA-608, channel CC1) as timed cues (cues.h); CEA-708
 * (DTVCC) has its own decoder (captions708.h), fed the same bytes, sharing
 * the framings and the cue handling below.
 *
 * A decoder of the caption bytes a video carries with its pictures (line
 * 21 data, in H.264/MPEG-2 user data as CEA-708 cc_data, SMPTE 334 or raw
 * pairs): the field-1 byte pairs of each picture, in presentation order,
 * drive the CEA-608 caption modes (pop-on, roll-up, paint-on) of CC1 over
 * a 15 x 32 screen, and each change of what that screen shows becomes a
 * text cue from that picture's time on: its rows as Pango markup, a line
 * each, ended by the next change (an erase, a new caption). A caption
 * still shown when the data stops lasts until the next cue.
 *
 * One cue per screen, placed per row (struct umms_cue_place on the 15 x 32
 * grid): each line at its row (a preamble address code's, or a roll-up's
 * from its base row up) and the column of its first character (the
 * preamble's indent, tab offsets, leading spaces), so rows far apart stay
 * apart and rows of one caption keep their own indents. Colours of
 * preamble and mid-row codes become <span foreground> (white, green, blue,
 * cyan, red, yellow, magenta; white is left unnamed), italics <i>,
 * underline <u>; a mid-row code's space takes its new style. Background
 * attributes and black text are not kept.
 *
 * Cues already in the list are not added again (umms_cues_add_placed), so
 * playing a stretch twice (a seek back) leaves one cue per caption, and a
 * seek back into a caption finds it. After a seek, umms_captions_reset:
 * the 608 state is no longer the stream's until the next caption is sent
 * whole (a pop-on caption's text comes before the picture it shows at).
 *
 * Every byte is the stream's: sizes are checked, bytes with a wrong parity
 * and codes of other channels are ignored. Not thread-safe: one thread at
 * a time (the engine holds its lock).
 */
#ifndef UMMS_SERVICE_CAPTIONS_H
#define UMMS_SERVICE_CAPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "cues.h"

/* How a picture's caption bytes are framed (GStreamer's GstVideoCaptionType). */
enum umms_caption_format {
	UMMS_CAPTION_608_RAW,      /* byte pairs of field 1 */
	UMMS_CAPTION_608_S334_1A,  /* triplets: field flag (bit 7: field 1), two bytes */
	UMMS_CAPTION_708_CC_DATA,  /* cc_data triplets: marker, valid, type; two bytes */
	UMMS_CAPTION_708_CDP,      /* SMPTE 334-2 caption distribution packet */
};

/* More field-1 pairs than this in one picture are not looked at. */
#define UMMS_CAPTIONS_MAX_PAIRS 64

struct umms_captions;

/* A decoder adding CC1's captions to @cues (a text list; a reference is kept). */
struct umms_captions *umms_captions_create(struct umms_cues *cues);
/* NULL is a no-op. */
void umms_captions_destroy(struct umms_captions *captions);

/*
 * Field 1's byte pairs (parity bits included) in @data (@size bytes framed
 * as @format), at most @max: their count, written to @pairs (2 bytes each).
 */
size_t umms_captions_field1(enum umms_caption_format format, const uint8_t *data, size_t size,
	uint8_t *pairs, size_t max);

/*
 * The caption data of the picture at @position µs (stream time). Returns
 * whether it held field-1 pairs at all (padding counts: the stream carries
 * captions).
 */
bool umms_captions_feed(struct umms_captions *captions, int64_t position,
	enum umms_caption_format format, const uint8_t *data, size_t size);

/* A discontinuity (seek, flush): the screen and modes forgotten, the cues kept. */
void umms_captions_reset(struct umms_captions *captions);

/*
 * The cc_data triplets (marker and cc_valid bits, cc_type; two bytes) in
 * @data framed as @format (CEA-708 cc_data or a CDP's cc_data section;
 * none in the 608 framings): *@triplets points into @data; their count.
 */
size_t umms_captions_cc_data(enum umms_caption_format format, const uint8_t *data, size_t size,
	const uint8_t **triplets);

/* ---- shared by the 608 and 708 decoders (captions708.h) ------------------ */

/* The foreground colours of CEA-608's preamble address and mid-row codes, in their order. */
enum umms_caption_colour {
	UMMS_CAPTION_WHITE,
	UMMS_CAPTION_GREEN,
	UMMS_CAPTION_BLUE,
	UMMS_CAPTION_CYAN,
	UMMS_CAPTION_RED,
	UMMS_CAPTION_YELLOW,
	UMMS_CAPTION_MAGENTA,
	UMMS_CAPTION_COLOURS,
	UMMS_CAPTION_RGB = 0x80,        /* the cell's rgb (708's pen colours) */
};

/* A character cell of a caption screen or window. */
struct umms_caption_cell {
	gunichar ch;            /* 0: empty */
	bool italic, underline;
	uint8_t colour;         /* enum umms_caption_colour */
	uint32_t rgb;           /* with UMMS_CAPTION_RGB: 0xRRGGBB */
};

/*
 * @cells' text from the first to the last character that is not blank, as
 * Pango markup (a run of cells alike: <span foreground> for a colour other
 * than white, "#RRGGBB" for UMMS_CAPTION_RGB, outside <i> and <u>), appended to @out after a new line when
 * @out is not empty. With @place (NULL: none), the line's cell is noted
 * there: @row, and the column of its first character (a line past
 * UMMS_CUE_PLACE_LINES has none). Returns false (nothing appended) for a
 * blank row.
 */
bool umms_captions_append_row(GString *out, const struct umms_caption_cell *cells, size_t n,
	struct umms_cue_place *place, uint8_t row);

/* What a decoder shows, as a cue in its list. */
struct umms_caption_cue {
	struct umms_cues *cues;
	char *markup;           /* on view, NULL: none */
	struct umms_cue_place place;    /* its lines' places; rows 0: none */
	int64_t start;          /* µs, since when */
	int64_t forgotten;      /* when old cues were last forgotten */
};

/*
 * What is on view at @position (the markup, taken; NULL nothing; at
 * @place, NULL or one with 0 rows: none): when it changed (its text or
 * its place), the cue before ends there and a new one starts. Then, as a
 * cue seen again after a seek back is known only up to where it was last
 * seen, the one on view is known to last past @position.
 */
void umms_caption_cue_show(struct umms_caption_cue *cue, int64_t position, char *markup,
	const struct umms_cue_place *place);
/* A discontinuity after the picture at @last (-1 none): the cue on view ends there. */
void umms_caption_cue_cut(struct umms_caption_cue *cue, int64_t last);

#endif
