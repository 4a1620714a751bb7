/*
 * Test-only DVD SPU and PGS writers (spu-gen.h), from the formats as
 * DVD-Video and the Blu-ray specification describe them.
 */
#include "spu-gen.h"

/* Bytes (or nibbles) into a bounded buffer; any overflow sticks. */
struct writer {
	uint8_t *data;
	size_t room, at;
	bool half;       /* a nibble is pending in data[at] */
	bool overflow;
};

static void
put8(struct writer *w, unsigned v)
{
	if (w->at >= w->room) {
		w->overflow = true;
		return;
	}
	w->data[w->at++] = (uint8_t)v;
}

static void
put16(struct writer *w, unsigned v)
{
	put8(w, v >> 8);
	put8(w, v);
}

static void
put24(struct writer *w, unsigned v)
{
	put8(w, v >> 16);
	put16(w, v);
}

/* Writes @v at @at (already written), big-endian. */
static void
patch16(struct writer *w, size_t at, unsigned v)
{
	if (at + 2 > w->at)
		return;
	w->data[at] = (uint8_t)(v >> 8);
	w->data[at + 1] = (uint8_t)v;
}

static void
patch24(struct writer *w, size_t at, unsigned v)
{
	if (at + 3 > w->at)
		return;
	w->data[at] = (uint8_t)(v >> 16);
	patch16(w, at + 1, v);
}

static void
put_nibble(struct writer *w, unsigned v)
{
	if (w->half) {
		w->data[w->at - 1] |= (uint8_t)(v & 0xf);
		w->half = false;
		return;
	}
	put8(w, (v & 0xf) << 4);
	w->half = !w->overflow;
}

/* ---- DVD sub-picture units ------------------------------------------------ */

/* A run of @n (1..255) pixels of value @c in the DVD's nibble codes. */
static void
dvd_run(struct writer *w, unsigned n, unsigned c)
{
	unsigned code = n << 2 | c;
	int nibbles = n < 4 ? 1 : n < 16 ? 2 : n < 64 ? 3 : 4;
	for (int i = nibbles - 1; i >= 0; i--)
		put_nibble(w, code >> (4 * i));
}

/* A run of any length, in pieces of at most 255. */
static void
dvd_runs(struct writer *w, unsigned n, unsigned c)
{
	while (n > 0) {
		unsigned piece = n > 255 ? 255 : n;
		dvd_run(w, piece, c);
		n -= piece;
	}
}

/* Line @row of the area: margin, box, margin; byte aligned at its end. */
static void
dvd_line(struct writer *w, const struct spu_box *box, unsigned row)
{
	unsigned m = box->margin;
	if (row < m || row >= m + box->height) {
		dvd_runs(w, box->width + 2 * m, 0);
	} else {
		dvd_runs(w, m, 0);
		dvd_runs(w, box->width, 1);
		dvd_runs(w, m, 0);
	}
	w->half = false;
}

enum {
	DVD_STA_DSP = 0x01,
	DVD_STP_DSP = 0x02,
	DVD_SET_COLOR = 0x03,
	DVD_SET_CONTR = 0x04,
	DVD_SET_DAREA = 0x05,
	DVD_SET_DSPXA = 0x06,
	DVD_CMD_END = 0xff,
};

size_t
spu_dvd_write(uint8_t *out, size_t room, const struct spu_box *box, unsigned colour,
	unsigned duration_ms)
{
	struct writer w = { out, room < 0xffff ? room : 0xffff, 0, false, false };
	unsigned area_w = box->width + 2 * box->margin, area_h = box->height + 2 * box->margin;
	unsigned x1 = box->x - box->margin, y1 = box->y - box->margin;
	if (box->x < box->margin || box->y < box->margin || area_w == 0 || area_h == 0 ||
			x1 + area_w > 0xfff || y1 + area_h > 0xfff)
		return 0;
	put16(&w, 0);   /* the unit's size */
	put16(&w, 0);   /* where its control sequences start */
	size_t top = w.at;
	for (unsigned row = 0; row < area_h; row += 2)
		dvd_line(&w, box, row);
	size_t bottom = w.at;
	for (unsigned row = 1; row < area_h; row += 2)
		dvd_line(&w, box, row);

	/* Shown at once: colours, contrast, area, where the fields are. */
	size_t first = w.at;
	put16(&w, 0);
	put16(&w, 0);   /* the next sequence */
	put8(&w, DVD_SET_COLOR);
	put16(&w, (colour & 0xf) << 4);   /* pixel values 3, 2, 1, 0 */
	put8(&w, DVD_SET_CONTR);
	put16(&w, 0x00f0);                /* 1 opaque, 0 transparent */
	put8(&w, DVD_SET_DAREA);
	unsigned x2 = x1 + area_w - 1, y2 = y1 + area_h - 1;
	put24(&w, x1 << 12 | x2);
	put24(&w, y1 << 12 | y2);
	put8(&w, DVD_SET_DSPXA);
	put16(&w, (unsigned)top);
	put16(&w, (unsigned)bottom);
	put8(&w, DVD_STA_DSP);
	put8(&w, DVD_CMD_END);

	/* Hidden @duration_ms later (delays count in 1024/90000 s); the last points at itself. */
	size_t last = w.at;
	put16(&w, (unsigned)((uint64_t)duration_ms * 90 / 1024));
	put16(&w, (unsigned)last);
	put8(&w, DVD_STP_DSP);
	put8(&w, DVD_CMD_END);
	if (w.overflow || w.at > 0xffff)
		return 0;
	patch16(&w, 0, (unsigned)w.at);
	patch16(&w, 2, (unsigned)first);
	patch16(&w, first + 2, (unsigned)last);
	return w.at;
}

/* ---- PGS display sets ----------------------------------------------------- */

enum {
	PGS_PDS = 0x14,
	PGS_ODS = 0x15,
	PGS_PCS = 0x16,
	PGS_WDS = 0x17,
	PGS_END = 0x80,
};

/* Starts a segment of @type; returns where its size goes. */
static size_t
pgs_segment(struct writer *w, unsigned type)
{
	put8(w, type);
	size_t at = w->at;
	put16(w, 0);
	return at;
}

static void
pgs_segment_end(struct writer *w, size_t size_at)
{
	patch16(w, size_at, (unsigned)(w->at - size_at - 2));
}

/* A run of @n (1..16383) pixels of palette entry @c in PGS codes. */
static void
pgs_run(struct writer *w, unsigned n, unsigned c)
{
	if (c != 0 && n <= 2) {
		for (unsigned i = 0; i < n; i++)
			put8(w, c);
		return;
	}
	put8(w, 0);
	unsigned flags = (c != 0 ? 0x80 : 0) | (n >= 64 ? 0x40 : 0);
	if (n >= 64) {
		put8(w, flags | n >> 8);
		put8(w, n & 0xff);
	} else {
		put8(w, flags | n);
	}
	if (c != 0)
		put8(w, c);
}

static void
pgs_runs(struct writer *w, unsigned n, unsigned c)
{
	while (n > 0) {
		unsigned piece = n > 16383 ? 16383 : n;
		pgs_run(w, piece, c);
		n -= piece;
	}
}

/* The object: margin and box; palette entry 1 is the box, 0 transparent. */
static void
pgs_object(struct writer *w, const struct spu_box *box)
{
	unsigned m = box->margin, area_w = box->width + 2 * m, area_h = box->height + 2 * m;
	size_t size_at = pgs_segment(w, PGS_ODS);
	put16(w, 0);      /* object id */
	put8(w, 0);       /* version */
	put8(w, 0xc0);    /* first and last in sequence */
	size_t length_at = w->at;
	put24(w, 0);      /* the object's data length, width and height included */
	put16(w, area_w);
	put16(w, area_h);
	for (unsigned row = 0; row < area_h; row++) {
		if (row < m || row >= m + box->height) {
			pgs_runs(w, area_w, 0);
		} else {
			pgs_runs(w, m, 0);
			pgs_runs(w, box->width, 1);
			pgs_runs(w, m, 0);
		}
		put16(w, 0);  /* end of line */
	}
	patch24(w, length_at, (unsigned)(w->at - length_at - 3));
	pgs_segment_end(w, size_at);
}

size_t
spu_pgs_write(uint8_t *out, size_t room, unsigned video_width, unsigned video_height,
	unsigned number, const struct spu_box *box, const uint8_t ycrcb[3])
{
	struct writer w = { out, room, 0, false, false };
	unsigned x = 0, y = 0, area_w = 0, area_h = 0;
	if (box) {
		if (box->x < box->margin || box->y < box->margin)
			return 0;
		x = box->x - box->margin;
		y = box->y - box->margin;
		area_w = box->width + 2 * box->margin;
		area_h = box->height + 2 * box->margin;
		if (x + area_w > video_width || y + area_h > video_height)
			return 0;
	}

	size_t at = pgs_segment(&w, PGS_PCS);
	put16(&w, video_width);
	put16(&w, video_height);
	put8(&w, 0x10);                 /* frame rate code */
	put16(&w, number);
	put8(&w, box ? 0x80 : 0x00);    /* epoch start, or a normal case */
	put8(&w, 0);                    /* no palette update only */
	put8(&w, 0);                    /* palette id */
	put8(&w, box ? 1 : 0);          /* composition objects */
	if (box) {
		put16(&w, 0);           /* object id */
		put8(&w, 0);            /* window id */
		put8(&w, 0);            /* not cropped, not forced */
		put16(&w, x);
		put16(&w, y);
	}
	pgs_segment_end(&w, at);

	at = pgs_segment(&w, PGS_WDS);
	put8(&w, 1);
	put8(&w, 0);                    /* window id */
	put16(&w, x);
	put16(&w, y);
	put16(&w, area_w);
	put16(&w, area_h);
	pgs_segment_end(&w, at);

	if (box) {
		at = pgs_segment(&w, PGS_PDS);
		put8(&w, 0);            /* palette id */
		put8(&w, 0);            /* version */
		/* Entry 0 transparent black, entry 1 the box: id, Y, Cr, Cb, alpha. */
		put8(&w, 0);
		put8(&w, 16);
		put8(&w, 128);
		put8(&w, 128);
		put8(&w, 0);
		put8(&w, 1);
		put8(&w, ycrcb[0]);
		put8(&w, ycrcb[1]);
		put8(&w, ycrcb[2]);
		put8(&w, 255);
		pgs_segment_end(&w, at);
		pgs_object(&w, box);
	}

	at = pgs_segment(&w, PGS_END);
	pgs_segment_end(&w, at);
	return w.overflow ? 0 : w.at;
}
