/*
 * Test-only writers of the two bitmap subtitle formats dvdspu decodes,
 * since no GStreamer element encodes either: a DVD sub-picture unit
 * (VobSub) and a Blu-ray presentation graphics display set (PGS). Each
 * draws one box of one colour; the pixels around it, in its area, are
 * transparent.
 */
#ifndef UMMS_TESTS_SPU_GEN_H
#define UMMS_TESTS_SPU_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A box: where it is in the picture, and the transparent margin drawn around it. */
struct spu_box {
	unsigned x, y, width, height;
	unsigned margin;
};

/*
 * A DVD sub-picture unit (into @out, @room bytes; its size, 0 if it does
 * not fit) showing @box from its time for @duration_ms: pixel value 1,
 * opaque, is colour @colour (0..15) of the stream's palette; value 0, the
 * margin, is transparent. Lines are RLE coded, the top field's (even
 * lines) first, then the bottom field's.
 */
size_t spu_dvd_write(uint8_t *out, size_t room, const struct spu_box *box, unsigned colour,
	unsigned duration_ms);

/*
 * A PGS display set (into @out, @room bytes; its size, 0 if it does not
 * fit) for a @video_width x @video_height picture, composition @number:
 * @box opaque in the colour Y, Cr, Cb @ycrcb (@box NULL: the display set
 * that takes what shows off the screen).
 */
size_t spu_pgs_write(uint8_t *out, size_t room, unsigned video_width, unsigned video_height,
	unsigned number, const struct spu_box *box, const uint8_t ycrcb[3]);

#endif
