/*
 * DVB teletext subtitle pages (EN 300 472 PES payloads of EN 300 706
 * packets) read for what teletextdec's text loses: which page is the
 * stream's subtitle page, and where each row of a subtitle page is and in
 * what colour.
 *
 * teletextdec (gst-plugins-bad, libzvbi) gives a subtitle page as UTF-8
 * text, its boxed rows a line each, blank rows dropped: the row is lost.
 * Its Pango markup keeps every row and a colour per row, but leaks memory
 * for every character cell of every page (its colour table), so it is not
 * used. Instead the packets of the subtitle page are read here as they
 * go into teletextdec: each page's rows with boxed text (what a subtitle
 * page shows), top down, and the colour set before each row's first
 * letter. A page is complete at the next header of its magazine;
 * teletextdec tells pages in that order, so its next page with as many
 * lines is matched with the oldest complete page (umms_teletext_rows_take).
 * National characters, double height, mosaics and colours after a row's
 * first letter are teletextdec's business or not kept.
 *
 * Every byte is the stream's: sizes checked, Hamming errors and parity
 * errors make a byte count as not sent. Not thread-safe: one streaming
 * thread.
 */
#ifndef UMMS_SERVICE_TELETEXT_H
#define UMMS_SERVICE_TELETEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rows of a page that hold text: 1..23 (0 is the header, 24 and 25 not shown). */
#define UMMS_TELETEXT_TEXT_ROWS 23

/* A subtitle page as shown: its rows with boxed text, top down. */
struct umms_teletext_layout {
	unsigned n;
	uint8_t row[UMMS_TELETEXT_TEXT_ROWS];     /* 1..23 */
	uint8_t colour[UMMS_TELETEXT_TEXT_ROWS];  /* 0 black .. 7 white: teletext's colour codes */
};

/*
 * The first subtitle page (a header with C6, subtitle, set) a PES payload
 * (@data, @size bytes) has a header of: 100..899, else 0.
 */
int umms_teletext_find_subtitle_page(const uint8_t *data, size_t size);

struct umms_teletext_rows;

struct umms_teletext_rows *umms_teletext_rows_create(void);
/* NULL is a no-op. */
void umms_teletext_rows_destroy(struct umms_teletext_rows *rows);
/* A PES payload (@data, @size bytes) of the stream whose subtitle page is @page. */
void umms_teletext_rows_feed(struct umms_teletext_rows *rows, int page, const uint8_t *data,
	size_t size);
/*
 * The layout of the oldest complete page with @n rows in @layout (the
 * older ones with other counts dropped): false when there is none.
 */
bool umms_teletext_rows_take(struct umms_teletext_rows *rows, unsigned n,
	struct umms_teletext_layout *layout);
/* A discontinuity (a seek): pages begun and complete forgotten. */
void umms_teletext_rows_reset(struct umms_teletext_rows *rows);

/* A teletext colour code (0..7) as #RRGGBB. */
const char *umms_teletext_colour(unsigned colour);

#endif
