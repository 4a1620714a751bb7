/*
 * Timed subtitle cues and their rendering into subpictures (subpicture.h).
 *
 * A cue list holds the cues of one subtitle stream, either text (Pango
 * markup, what GStreamer's subparse makes of SRT, WebVTT, SAMI…) or
 * SSA/ASS (the script read by libass, which keeps its styles). It answers
 * two questions for a position on the media's timeline: which cues are
 * active (for Player1.SubtitleCue), and what they look like over a picture
 * of a given size (umms_cues_render).
 *
 * Rendering happens once per change: while the same cues are active on a
 * picture of the same size (and, for SSA/ASS, libass says nothing moved),
 * umms_cues_render returns the same subpicture, whose serial is unchanged,
 * so targets need not draw or upload it again.
 *
 * Text cues: Pango markup drawn white (where the markup names no colour)
 * with a dark outline, a font size_permille of the picture's height. A cue
 * without a place (struct umms_cue_place) is centred, wrapped to nine
 * tenths of the width, the last line margin_permille of the height above
 * the bottom (a placement that leaves room for a UI at the bottom asks for
 * more); the cues without one active together are drawn as one block, a
 * line each. A cue with a place has each of its lines at a cell of a grid
 * over the caption safe area (the middle 80 % of the picture's width and
 * height, as CEA-608/708 define it): a broadcast caption where its
 * broadcaster put it (at the top, to leave burnt-in text visible). A line
 * starts at its cell's top, or under the line before it (when that one's
 * row is not below its own) where the font is taller than a row; a placed cue that would reach into the bottom margin
 * is moved up, but never above the picture's top, and one too wide for
 * its column is moved left.
 * SSA/ASS: libass draws the script at the picture's size, its styles
 * (colours, fonts, alignment, positions) honoured.
 *
 * Cue lists are reference counted (atomically) and every function may be
 * called from any thread: the engine's streaming thread renders, the main
 * loop adds cues and reads them.
 */
#ifndef UMMS_SERVICE_CUES_H
#define UMMS_SERVICE_CUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "subpicture.h"

/* Scripts and subtitle files larger than this are refused. */
#define UMMS_CUES_MAX_FILE (16 * 1024 * 1024)

struct umms_cues;
struct umms_bitmap;

/* Lines of a placed cue that have a cell of their own; more go under the last. */
#define UMMS_CUE_PLACE_LINES 24

/*
 * Where a text cue's lines are drawn: line i (its markup split at
 * newlines; the producer closes its tags on every line) at row row[i] of
 * @rows, left edge at column column[i] of @columns, or, @centred, centred
 * on the picture's width (column ignored). rows 0: no place, drawn as text
 * cues always were. Zero it before filling it in: places are compared
 * whole.
 */
struct umms_cue_place {
	uint8_t rows, columns;  /* the grid, 1..255 each; 0 0: none */
	uint8_t lines;          /* lines with a cell: 0..UMMS_CUE_PLACE_LINES */
	bool centred;
	uint8_t row[UMMS_CUE_PLACE_LINES];      /* 0..rows-1 */
	uint8_t column[UMMS_CUE_PLACE_LINES];   /* 0..columns-1 */
};

struct umms_cue {
	int64_t start, end;     /* µs on the stream's timeline; end -1: until the next cue */
	char *markup;           /* Pango markup (text), or the SSA/ASS event text */
	char *plain;            /* the same without styling */
	struct umms_cue_place place;  /* text cues: rows 0 none */
	bool bitmap;            /* an image (bitmap-subs.h): markup is its key, plain "" */
};

struct umms_cue_style {
	int size_permille;      /* font size, ‰ of the picture's height: 1..500 */
	int margin_permille;    /* bottom margin, ‰ of the picture's height: 0..900 */
};

/* Defaults: 50 ‰ (54 pixels at 1080 lines), 50 ‰ margin. */
void umms_cue_style_init(struct umms_cue_style *style);

/* An empty list of text cues, filled with umms_cues_add. */
struct umms_cues *umms_cues_create_text(void);
/*
 * An SSA/ASS script (@size bytes, at most UMMS_CUES_MAX_FILE) and its
 * cues; NULL with InvalidArgument when libass finds no script in it.
 */
struct umms_cues *umms_cues_create_ass(const char *data, size_t size, GError **error);
struct umms_cues *umms_cues_ref(struct umms_cues *cues);
/* NULL is a no-op. */
void umms_cues_unref(struct umms_cues *cues);

bool umms_cues_is_ass(struct umms_cues *cues);
/*
 * Adds a bitmap cue (a DVD or PGS image, bitmap-subs.h; a reference is
 * taken): the list is one of bitmaps from then on, drawn by scaling the
 * active cues' images from their reference picture to the picture's size.
 * Its markup is the image's key: the same image at the same time (sent
 * again after a seek) is not added again. One of no rects (a PGS display
 * set that clears) only ends the one before.
 */
void umms_cues_add_bitmap(struct umms_cues *cues, int64_t start, int64_t end,
	struct umms_bitmap *bitmap);
bool umms_cues_is_bitmap(struct umms_cues *cues);
/*
 * Adds a text cue (Pango markup; text that is not valid markup is shown as
 * it is). Cues may come in any order; one already there (the same times
 * and text: a stream sent again after a seek) is not added again.
 */
void umms_cues_add(struct umms_cues *cues, int64_t start, int64_t end, const char *markup);
/*
 * The same with a place (NULL, or one with 0 rows: none; one out of its
 * ranges is clamped into them): a cue is the one already there only with
 * the same place too.
 */
void umms_cues_add_placed(struct umms_cues *cues, int64_t start, int64_t end, const char *markup,
	const struct umms_cue_place *place);
/*
 * Adding a cue without an end (-1) that is known with one adds nothing.
 * umms_cues_end gives the text cue that starts at @start with @markup (as
 * added: valid markup) its end, where the end was not known when it was
 * added (a caption, until erased) or was earlier; @end <= @start removes it.
 */
void umms_cues_end(struct umms_cues *cues, int64_t start, const char *markup, int64_t end);
/* umms_cues_end of the cue added with @place (NULL none). */
void umms_cues_end_placed(struct umms_cues *cues, int64_t start, const char *markup,
	const struct umms_cue_place *place, int64_t end);
/*
 * The text cue that starts at @start with @markup, where it has an end,
 * lasts at least until @until: a caption known only to where it was last
 * seen before a seek reaches as far as it is seen again. One without an
 * end keeps none.
 */
void umms_cues_reach(struct umms_cues *cues, int64_t start, const char *markup, int64_t until);
/* umms_cues_reach of the cue added with @place (NULL none). */
void umms_cues_reach_placed(struct umms_cues *cues, int64_t start, const char *markup,
	const struct umms_cue_place *place, int64_t until);
/* Forgets text cues that ended before @position µs (a stream's old cues). */
void umms_cues_forget_before(struct umms_cues *cues, int64_t position);
unsigned umms_cues_count(struct umms_cues *cues);

/*
 * The cues active at @position µs (start <= position < end), by start,
 * as copies in @out (struct umms_cue, cleared with umms_cue_clear).
 */
void umms_cues_active(struct umms_cues *cues, int64_t position, GArray *out);
/*
 * The same, with the cues that started after @since and ended before
 * @position too: those a player passed between two frames (frames dropped
 * late), so each cue is told once even when none of its frames was shown.
 * @since < 0: only the active ones.
 */
void umms_cues_passed(struct umms_cues *cues, int64_t since, int64_t position, GArray *out);
void umms_cue_clear(struct umms_cue *cue);

void umms_cues_set_style(struct umms_cues *cues, const struct umms_cue_style *style);
/*
 * The active cues at @position µs drawn for a picture of @width x @height
 * pixels: a new reference, or NULL when nothing is to be shown (or the
 * picture size is not 1..UMMS_SUBPICTURE_MAX_SIDE).
 */
struct umms_subpicture *umms_cues_render(struct umms_cues *cues, int64_t position, int width,
	int height);

#endif
