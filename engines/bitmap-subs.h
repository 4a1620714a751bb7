/*
 * Bitmap subtitles: DVD sub-pictures (VobSub) and Blu-ray presentation
 * graphics (PGS) decoded into images, and images drawn into subpictures.
 *
 * A decoder takes a stream's units one at a time, in order (a DVD
 * sub-picture unit or a piece of one, or a PGS display set or part of one:
 * segments without the "PG" header, as Matroska and GStreamer carry them), and tells what
 * each shows as a bitmap cue: from when to when, and its images (rects of
 * premultiplied ARGB pixels placed on a reference picture).
 *
 * DVD: a unit is RLE coded lines of 2-bit pixels, the top field's then
 * the bottom field's, and control sequences (each after a delay from the
 * unit's time) that set the four pixel values' colours (entries of a
 * 16-colour palette) and contrasts, the display area and where each
 * field's lines start, and start and stop the display. The palette comes
 * from the track's private data (VobSub's idx text: "palette:" RGB, and
 * its "size:", the reference picture) or a CLUT of Y, Cr, Cb entries.
 * Without a "size:", positions are the picture's own pixels.
 *
 * PGS: segments PCS (composition: reference size, state, palette, objects
 * and where they go, cropped or not), WDS (windows), PDS (palette: Y, Cr,
 * Cb, alpha), ODS (object: 8-bit RLE, its data spread over as many
 * segments as it needs), END (the display set is complete: its cue). An
 * epoch start forgets objects and palettes; a display set lasts until the
 * next one (its cue has no end), and one without objects clears the screen.
 *
 * Every byte is hostile: sizes are checked, RLE runs are cut at their
 * line, images are at most UMMS_BITMAP_MAX_SIDE a side, and what does not
 * decode is dropped (a unit gives no cue).
 *
 * Decoders are not thread-safe (one per stream, on its streaming thread);
 * bitmaps are immutable once made and reference counted (atomically).
 */
#ifndef UMMS_SERVICE_BITMAP_SUBS_H
#define UMMS_SERVICE_BITMAP_SUBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "subpicture.h"

/* An image or a reference picture is at most this many pixels a side. */
#define UMMS_BITMAP_MAX_SIDE 4096

enum umms_bitmap_format {
	UMMS_BITMAP_DVD,
	UMMS_BITMAP_PGS,
};

struct umms_bitmap_rect {
	int x, y, width, height;        /* on the reference picture; trimmed to what shows */
	uint8_t *pixels;                /* width × height × 4 bytes: B, G, R, A, premultiplied */
};

struct umms_bitmap {
	gint refs;
	int width, height;              /* the reference picture; 0: the picture's own pixels */
	unsigned n_rects;               /* 0: nothing shown (a PGS display set that clears) */
	struct umms_bitmap_rect *rects;
	char key[24];                   /* "bitmap:" and a hash of all of it: the same image */
};

struct umms_bitmap_cue {
	int64_t start, end;             /* µs; end -1: until the next cue */
	struct umms_bitmap *bitmap;     /* a reference */
};

struct umms_bitmap_decoder;

struct umms_bitmap_decoder *umms_bitmap_decoder_new(enum umms_bitmap_format format);
/* NULL is a no-op. */
void umms_bitmap_decoder_free(struct umms_bitmap_decoder *decoder);
/*
 * The stream was flushed (a seek): a DVD unit still in pieces and a PGS
 * display set not complete are dropped; palettes and PGS objects stay.
 */
void umms_bitmap_decoder_flush(struct umms_bitmap_decoder *decoder);
/* DVD: the track's private data (VobSub idx text: "size:", "palette:"); others ignore it. */
void umms_bitmap_decoder_set_private(struct umms_bitmap_decoder *decoder, const uint8_t *data,
	size_t size);
/*
 * DVD: the 16 palette entries as 0x00YYCrCb (the dvd-spu-clut-change
 * event's). Ignored where the private data gave a palette: that one is
 * exact (RGB), the event matroskademux makes of it is not.
 */
void umms_bitmap_decoder_set_clut(struct umms_bitmap_decoder *decoder, const uint32_t clut[16]);
/*
 * Decodes @size bytes of the stream at @pts µs. True with @out (a new
 * reference in out->bitmap) when they complete a cue; false when they
 * show nothing, do not decode, or a PGS display set is not complete yet.
 */
bool umms_bitmap_decoder_decode(struct umms_bitmap_decoder *decoder, const uint8_t *data,
	size_t size, int64_t pts, struct umms_bitmap_cue *out);

struct umms_bitmap *umms_bitmap_ref(struct umms_bitmap *bitmap);
/* NULL is a no-op. */
void umms_bitmap_unref(struct umms_bitmap *bitmap);

/*
 * @bitmaps (@n of them, drawn in order, each over the one before) scaled
 * from their reference pictures to a @width x @height picture: a sealed
 * subpicture of the area they cover inside it, or NULL when they cover
 * none (or the size is not 1..UMMS_SUBPICTURE_MAX_SIDE).
 */
struct umms_subpicture *umms_bitmap_render(struct umms_bitmap *const *bitmaps, unsigned n,
	int width, int height);

#endif
