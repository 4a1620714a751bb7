/*
 * CEA-708 (DTVCC) closed captions as timed cues (cues.h).
 *
 * The cc_data a video carries with its pictures (CEA-708 cc_data or a
 * SMPTE 334-2 CDP, the framings of captions.h) holds, besides the 608
 * byte pairs, DTVCC packets: cc_type 3 starts one, cc_type 2 continues it
 * (a packet may span pictures). A packet's size is in its header, and its
 * 2-bit sequence number follows the packet before: a packet out of
 * sequence, cut short by a new start or a reset, or one whose service
 * blocks run past its end is ignored (the part past the fault).
 *
 * One caption service is decoded (service 1: the primary captions): its
 * eight windows (CEA-708-E 8.4), each with its row and column counts
 * (at most 15 x 42), anchor, visibility, priority, pen location, pen
 * style (italics and underline of SetPenAttributes) and pen foreground
 * colour (SetPenColor), filled by the G0 (ASCII,
 * 0x7F a music note), G1 (Latin-1), G2 and G3 characters, and moved
 * about by the C0 codes (BS, FF, CR: the window scrolls up at its last
 * row, HCR; ETX) and the C1 commands (CW0-7, CLW, DSW, HDW, TGW, DLW,
 * RST, SPA, SPC, SPL, DF0-7). Not kept: justify and print direction
 * (SetWindowAttributes), window and background colours, opacity (text
 * set transparent is drawn), borders, fonts and pen sizes, the delay commands
 * (DLY, DLC: run at once), the other services, P16 and the C2/C3 codes
 * (skipped by their lengths), the undefined G2/G3 characters and the CC
 * logo of G3 (none drawn).
 *
 * Each change of what the visible windows show becomes a text cue from
 * that picture's time on, as captions.h: the windows in priority order
 * (0 first), their rows with text a line each, as Pango markup (a pen
 * colour other than white as <span foreground="#RRGGBB">, each 2-bit
 * component scaled to 00, 55, AA, FF), ended by the next change; a seek
 * back adds no cue twice.
 *
 * The cue is placed (struct umms_cue_place) on a grid of 15 rows x 42
 * columns over the caption safe area, a cell 5 anchor units each way: a
 * window's anchor (vertical 0..74, horizontal 0..209; or, with the
 * relative bit, percent of the safe area) and anchor point (0..8,
 * top-left to bottom-right) with its row and column counts give the cell
 * of its top-left corner (rounded to the nearest, kept on the grid), each
 * line is at its row in the window and the column of its first character.
 * A window moved (redefined elsewhere) is a new cue. The horizontal
 * anchor is taken as 16:9's (0..209): a 4:3 picture's captions (0..159)
 * are drawn left of where their broadcaster put them (the decoder is not
 * told the picture's aspect); relative anchors are right on both.
 * Every byte is the stream's: sizes are checked. Not thread-safe: one
 * thread at a time.
 */
#ifndef UMMS_SERVICE_CAPTIONS708_H
#define UMMS_SERVICE_CAPTIONS708_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "captions.h"
#include "cues.h"

/* The primary caption service. */
#define UMMS_CAPTIONS708_PRIMARY 1

/* A window is at most this large; larger counts are cut. */
#define UMMS_CAPTIONS708_ROWS 15
#define UMMS_CAPTIONS708_COLUMNS 42

/* The grid the cues are placed on (struct umms_cue_place): 16:9's anchor cells. */
#define UMMS_CAPTIONS708_PLACE_ROWS 15
#define UMMS_CAPTIONS708_PLACE_COLUMNS 42

struct umms_captions708;

/* A decoder adding @service's (1..63) captions to @cues (a text list; a reference is kept). */
struct umms_captions708 *umms_captions708_create(struct umms_cues *cues, int service);
/* NULL is a no-op. */
void umms_captions708_destroy(struct umms_captions708 *captions);

/*
 * The caption data of the picture at @position µs (stream time), framed
 * as @format (608 framings carry none). Returns whether a DTVCC packet
 * completed with it held a block of the service (an empty one counts).
 */
bool umms_captions708_feed(struct umms_captions708 *captions, int64_t position,
	enum umms_caption_format format, const uint8_t *data, size_t size);

/* Whether @data holds DTVCC packet bytes at all (cc_valid, cc_type 2 or 3). */
bool umms_captions708_carried(enum umms_caption_format format, const uint8_t *data,
	size_t size);

/* A discontinuity (seek, flush): the packet under way and the windows forgotten, the cues kept. */
void umms_captions708_reset(struct umms_captions708 *captions);

#endif
