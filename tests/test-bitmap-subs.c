/*
 * The DVD and PGS subtitle decoders and the bitmap renderer
 * (engines/bitmap-subs.h) on units the tests' own writers make
 * (spu-gen.c): the box where the unit puts it, in its colour, the margin
 * around it transparent, at its times; an object spread over several
 * segments and display sets split over several buffers; then hostile
 * units (every truncation, runs past their line, huge sizes, 20,000
 * random mutations of each format): no crash, no sanitizer report, never
 * an image larger than allowed.
 */
#include <string.h>
#include <glib.h>

#include "bitmap-subs.h"
#include "cues.h"
#include "spu-gen.h"
#include "subpicture.h"

#define US G_USEC_PER_SEC

static const char idx[] =
	"# VobSub index file, v7 (do not modify this line!)\n"
	"size: 320x240\n"
	"palette: 000000, ffff00, 808080, ffffff, 000000, 000000, 000000, 000000, "
	"000000, 000000, 000000, 000000, 000000, 000000, 000000, 000000\n";
/* BT.601 limited range magenta: Y, Cr, Cb. */
static const uint8_t magenta[3] = { 106, 222, 202 };

static const uint8_t *
rect_pixel(const struct umms_bitmap_rect *rect, int x, int y)
{
	return rect->pixels + ((size_t)y * (size_t)rect->width + (size_t)x) * 4;
}

/* @rect is the box of @box, all of it @bgr, opaque (the transparent margin trimmed). */
static void
assert_box(const struct umms_bitmap_rect *rect, const struct spu_box *box, const int bgr[3])
{
	g_assert_cmpint(rect->x, ==, (int)box->x);
	g_assert_cmpint(rect->y, ==, (int)box->y);
	g_assert_cmpint(rect->width, ==, (int)box->width);
	g_assert_cmpint(rect->height, ==, (int)box->height);
	int inside = 0;
	for (int y = 0; y < rect->height; y++) {
		for (int x = 0; x < rect->width; x++) {
			const uint8_t *p = rect_pixel(rect, x, y);
			inside += p[3] == 255 && ABS(p[0] - bgr[0]) <= 3 &&
				ABS(p[1] - bgr[1]) <= 3 && ABS(p[2] - bgr[2]) <= 3;
		}
	}
	g_assert_cmpint(inside, ==, (int)(box->width * box->height));
}

static void
test_dvd(void)
{
	const struct spu_box box = { 40, 100, 50, 21, 3 };
	uint8_t unit[8192];
	size_t size = spu_dvd_write(unit, sizeof(unit), &box, 1, 1000);
	g_assert_cmpuint(size, >, 0);
	struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
	umms_bitmap_decoder_set_private(decoder, (const uint8_t *)idx, sizeof(idx) - 1);
	struct umms_bitmap_cue cue = { 0 };
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 5 * US, &cue));
	g_assert_cmpint(cue.start, ==, 5 * US);
	/* 1000 ms in whole ticks of 1024/90000 s: 87 ticks, 989.9 ms. */
	g_assert_cmpint(cue.end, ==, 5 * US + (int64_t)87 * 1024 * US / 90000);
	g_assert_cmpint(cue.bitmap->width, ==, 320);
	g_assert_cmpint(cue.bitmap->height, ==, 240);
	g_assert_cmpuint(cue.bitmap->n_rects, ==, 1);
	assert_box(&cue.bitmap->rects[0], &box, (const int[]){ 0, 255, 255 });

	/* Drawn for a picture twice the size: the box at twice its place. */
	struct umms_subpicture *s = umms_bitmap_render(&cue.bitmap, 1, 640, 480);
	g_assert_nonnull(s);
	g_assert_cmpint(s->x, ==, 2 * (int)box.x);
	g_assert_cmpint(s->y, ==, 2 * (int)box.y);
	g_assert_cmpint(s->width, ==, 2 * (int)box.width);
	g_assert_cmpint(s->height, ==, 2 * (int)box.height);
	g_assert_cmpint(s->picture_width, ==, 640);
	for (int y = 0; y < s->height; y++) {
		for (int x = 0; x < s->width; x++) {
			const uint8_t *p = (const uint8_t *)s->data + (size_t)y * s->stride +
				(size_t)x * 4;
			g_assert_cmpint(p[3], ==, 255);
			g_assert_cmpint(p[1], >=, 252);
			g_assert_cmpint(p[0], <=, 3);
		}
	}
	umms_subpicture_unref(s);

	/* The same unit again: the same key. A CLUT does not override the idx palette. */
	struct umms_bitmap_cue again = { 0 };
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 5 * US, &again));
	g_assert_cmpstr(again.bitmap->key, ==, cue.bitmap->key);
	umms_bitmap_unref(again.bitmap);
	uint32_t clut[16] = { 0x108080, 0xeb8080 };
	umms_bitmap_decoder_set_clut(decoder, clut);
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 5 * US, &again));
	g_assert_cmpstr(again.bitmap->key, ==, cue.bitmap->key);
	umms_bitmap_unref(again.bitmap);
	umms_bitmap_decoder_free(decoder);

	/* Without one, the CLUT's colours (Y, Cr, Cb: white), where the grey ramp was. */
	decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 5 * US, &again));
	assert_box(&again.bitmap->rects[0], &box, (const int[]){ 17, 17, 17 });
	umms_bitmap_unref(again.bitmap);
	umms_bitmap_decoder_set_clut(decoder, clut);
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 5 * US, &again));
	assert_box(&again.bitmap->rects[0], &box, (const int[]){ 255, 255, 255 });
	umms_bitmap_unref(again.bitmap);
	umms_bitmap_decoder_free(decoder);

	/* In two pieces (MPEG-PS packs): one cue, at the first piece's time. */
	decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
	umms_bitmap_decoder_set_private(decoder, (const uint8_t *)idx, sizeof(idx) - 1);
	g_assert_false(umms_bitmap_decoder_decode(decoder, unit, size / 3, 9 * US, &again));
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit + size / 3, size - size / 3,
		9 * US + US / 10, &again));
	g_assert_cmpint(again.start, ==, 9 * US);
	g_assert_cmpstr(again.bitmap->key, ==, cue.bitmap->key);
	umms_bitmap_unref(again.bitmap);
	umms_bitmap_unref(cue.bitmap);
	umms_bitmap_decoder_free(decoder);

	/* A flush (a seek) drops the piece: the next whole unit is its own. */
	decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
	g_assert_false(umms_bitmap_decoder_decode(decoder, unit, size / 3, 9 * US, &again));
	umms_bitmap_decoder_flush(decoder);
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 2 * US, &again));
	g_assert_cmpint(again.start, ==, 2 * US);
	umms_bitmap_unref(again.bitmap);
	umms_bitmap_decoder_free(decoder);

	/* Without a size in the private data: the picture's own pixels. */
	decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
	g_assert_true(umms_bitmap_decoder_decode(decoder, unit, size, 0, &cue));
	g_assert_cmpint(cue.bitmap->width, ==, 0);
	s = umms_bitmap_render(&cue.bitmap, 1, 640, 480);
	g_assert_cmpint(s->x, ==, (int)box.x);
	g_assert_cmpint(s->width, ==, (int)box.width);
	umms_subpicture_unref(s);
	umms_bitmap_unref(cue.bitmap);
	umms_bitmap_decoder_free(decoder);
}

/* ---- PGS -------------------------------------------------------------------- */

/*
 * @set with its one ODS split into @parts segments (into @out): the first
 * with the object's size, the last marked last. Returns the new size.
 */
static size_t
split_ods(const uint8_t *set, size_t size, unsigned parts, uint8_t *out, size_t room)
{
	size_t at = 0, o = 0;
	while (at + 3 <= size) {
		size_t length = (size_t)(set[at + 1] << 8 | set[at + 2]);
		const uint8_t *p = set + at + 3;
		if (set[at] != 0x15) {
			g_assert_cmpuint(o + 3 + length, <=, room);
			memcpy(out + o, set + at, 3 + length);
			o += 3 + length;
			at += 3 + length;
			continue;
		}
		/* id (2), version, sequence flags, then length (3), width, height and RLE. */
		size_t data = length - 4, head = 4;
		size_t piece = (data + parts - 1) / parts;
		for (unsigned i = 0; i < parts; i++) {
			size_t from = i * piece, n = MIN(piece, data - MIN(from, data));
			g_assert_cmpuint(o + 3 + head + n, <=, room);
			out[o] = 0x15;
			out[o + 1] = (uint8_t)((head + n) >> 8);
			out[o + 2] = (uint8_t)(head + n);
			memcpy(out + o + 3, p, 3);
			out[o + 6] = (uint8_t)((i == 0 ? 0x80 : 0) | (i == parts - 1 ? 0x40 : 0));
			memcpy(out + o + 7, p + 4 + from, n);
			o += 3 + head + n;
		}
		at += 3 + length;
	}
	return o;
}

static void
test_pgs(void)
{
	const struct spu_box box = { 100, 150, 70, 33, 2 };
	uint8_t set[16384], split[16384];
	size_t size = spu_pgs_write(set, sizeof(set), 320, 240, 0, &box, magenta);
	g_assert_cmpuint(size, >, 0);
	struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_PGS);
	struct umms_bitmap_cue cue = { 0 };
	g_assert_true(umms_bitmap_decoder_decode(decoder, set, size, 3 * US, &cue));
	g_assert_cmpint(cue.start, ==, 3 * US);
	g_assert_cmpint(cue.end, ==, -1);
	g_assert_cmpint(cue.bitmap->width, ==, 320);
	g_assert_cmpint(cue.bitmap->height, ==, 240);
	g_assert_cmpuint(cue.bitmap->n_rects, ==, 1);
	assert_box(&cue.bitmap->rects[0], &box, (const int[]){ 255, 0, 255 });

	/* The object in 5 segments, the display set in two buffers: the same image. */
	size_t n = split_ods(set, size, 5, split, sizeof(split));
	g_assert_cmpuint(n, >, size);
	struct umms_bitmap_decoder *other = umms_bitmap_decoder_new(UMMS_BITMAP_PGS);
	struct umms_bitmap_cue parts = { 0 };
	size_t half = 0;
	while (half < n / 2)   /* a segment boundary about halfway */
		half += 3 + (size_t)(split[half + 1] << 8 | split[half + 2]);
	g_assert_false(umms_bitmap_decoder_decode(other, split, half, 7 * US, &parts));
	g_assert_true(umms_bitmap_decoder_decode(other, split + half, n - half, 7 * US + 1, &parts));
	g_assert_cmpint(parts.start, ==, 7 * US);
	g_assert_cmpstr(parts.bitmap->key, ==, cue.bitmap->key);
	umms_bitmap_unref(parts.bitmap);
	umms_bitmap_decoder_free(other);

	/* The display set that clears: a cue of nothing, which draws nothing. */
	size = spu_pgs_write(set, sizeof(set), 320, 240, 1, NULL, NULL);
	struct umms_bitmap_cue clear = { 0 };
	g_assert_true(umms_bitmap_decoder_decode(decoder, set, size, 4 * US, &clear));
	g_assert_cmpuint(clear.bitmap->n_rects, ==, 0);
	g_assert_null(umms_bitmap_render(&clear.bitmap, 1, 640, 480));

	/* In a cue list: shown from its time until the next, once per change. */
	struct umms_cues *cues = umms_cues_create_text();
	umms_cues_add_bitmap(cues, cue.start, cue.end, cue.bitmap);
	umms_cues_add_bitmap(cues, clear.start, clear.end, clear.bitmap);
	umms_cues_add_bitmap(cues, cue.start, cue.end, cue.bitmap);   /* sent again: once */
	g_assert_true(umms_cues_is_bitmap(cues));
	g_assert_cmpuint(umms_cues_count(cues), ==, 2);
	g_assert_null(umms_cues_render(cues, 2 * US, 640, 480));
	struct umms_subpicture *a = umms_cues_render(cues, 3 * US, 640, 480);
	struct umms_subpicture *b = umms_cues_render(cues, 3 * US + US / 2, 640, 480);
	g_assert_nonnull(a);
	g_assert_true(a == b);
	g_assert_cmpint(a->x, ==, 2 * (int)box.x);
	g_assert_cmpint(a->y, ==, 2 * (int)box.y);
	g_assert_null(umms_cues_render(cues, 4 * US, 640, 480));
	GArray *active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, 3 * US, active);
	g_assert_cmpuint(active->len, ==, 1);
	struct umms_cue *c = &g_array_index(active, struct umms_cue, 0);
	g_assert_true(c->bitmap);
	g_assert_cmpstr(c->plain, ==, "");
	g_assert_cmpint(c->end, ==, 4 * US);
	g_array_unref(active);
	umms_subpicture_unref(a);
	umms_subpicture_unref(b);
	umms_cues_unref(cues);
	umms_bitmap_unref(clear.bitmap);
	umms_bitmap_unref(cue.bitmap);
	umms_bitmap_decoder_free(decoder);
}

/* ---- hostile units ------------------------------------------------------------ */

/* Decodes @data; a cue's images are within bounds and draw. Whether it made one. */
static bool
decode_any(struct umms_bitmap_decoder *decoder, const uint8_t *data, size_t size)
{
	struct umms_bitmap_cue cue = { 0 };
	if (!umms_bitmap_decoder_decode(decoder, data, size, US, &cue))
		return false;
	for (unsigned i = 0; i < cue.bitmap->n_rects; i++) {
		g_assert_cmpint(cue.bitmap->rects[i].width, <=, UMMS_BITMAP_MAX_SIDE);
		g_assert_cmpint(cue.bitmap->rects[i].height, <=, UMMS_BITMAP_MAX_SIDE);
	}
	umms_subpicture_unref(umms_bitmap_render(&cue.bitmap, 1, 64, 48));
	umms_bitmap_unref(cue.bitmap);
	return true;
}

static void
test_truncated(void)
{
	const struct spu_box box = { 20, 20, 30, 10, 2 };
	uint8_t unit[8192];
	size_t size = spu_dvd_write(unit, sizeof(unit), &box, 1, 500);
	for (size_t n = 0; n <= size; n++) {
		/* A copy of exactly @n bytes: ASan sees any read past it. */
		uint8_t *copy = g_memdup2(unit, MAX(n, 1));
		struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
		decode_any(decoder, copy, n);   /* a first piece: kept for the rest */
		umms_bitmap_decoder_free(decoder);
		/* Its size said to be @n: decoded as it is. */
		if (n >= 2) {
			copy[0] = (uint8_t)(n >> 8);
			copy[1] = (uint8_t)n;
		}
		decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
		decode_any(decoder, copy, n);
		umms_bitmap_decoder_free(decoder);
		g_free(copy);
	}
	size = spu_pgs_write(unit, sizeof(unit), 320, 240, 0, &box, magenta);
	for (size_t n = 0; n <= size; n++) {
		uint8_t *copy = g_memdup2(unit, MAX(n, 1));
		struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_PGS);
		decode_any(decoder, copy, n);
		umms_bitmap_decoder_free(decoder);
		g_free(copy);
	}
}

/* Runs past the line, lines past the image, sizes past the limits. */
static void
test_overruns(void)
{
	/* DVD: an area wider than its lines, fields pointing at the control data. */
	const struct spu_box box = { 20, 20, 30, 10, 2 };
	uint8_t unit[8192];
	size_t size = spu_dvd_write(unit, sizeof(unit), &box, 1, 500);
	size_t control = (size_t)(unit[2] << 8 | unit[3]);
	for (size_t at = control; at + 7 <= size; at++) {
		if (unit[at] != 0x05)
			continue;
		uint8_t wide[8192];
		memcpy(wide, unit, size);
		wide[at + 1] = 0x0f;    /* x2 = 4095, y2 = 4095 */
		wide[at + 2] = 0xff;
		wide[at + 4] = 0x0f;
		wide[at + 5] = 0xff;
		struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
		struct umms_bitmap_cue cue = { 0 };
		g_assert_true(umms_bitmap_decoder_decode(decoder, wide, size, 0, &cue));
		/* The lines ran out: the rest is transparent, trimmed off. */
		const struct umms_bitmap_rect *rect = &cue.bitmap->rects[0];
		g_assert_cmpint(rect->width, <=, UMMS_BITMAP_MAX_SIDE);
		g_assert_cmpint(rect->height, <, 100);
		umms_bitmap_unref(cue.bitmap);
		umms_bitmap_decoder_free(decoder);
		break;
	}

	/* PGS: the object narrower than its runs, then an object of 65535 a side. */
	uint8_t set[8192];
	size = spu_pgs_write(set, sizeof(set), 320, 240, 0, &box, magenta);
	size_t at = 0;
	while (at + 3 <= size && set[at] != 0x15)
		at += 3 + (size_t)(set[at + 1] << 8 | set[at + 2]);
	g_assert_cmpuint(at + 14, <, size);
	uint8_t narrow[8192];
	memcpy(narrow, set, size);
	narrow[at + 10] = 0;
	narrow[at + 11] = 5;    /* width 5: every run of the box is longer */
	struct umms_bitmap_decoder *decoder = umms_bitmap_decoder_new(UMMS_BITMAP_PGS);
	struct umms_bitmap_cue cue = { 0 };
	g_assert_true(umms_bitmap_decoder_decode(decoder, narrow, size, 0, &cue));
	/* Each line: the margin's 2 pixels, then the box cut at the line's end. */
	g_assert_cmpuint(cue.bitmap->n_rects, ==, 1);
	g_assert_cmpint(cue.bitmap->rects[0].x, ==, (int)(box.x - box.margin) + 2);
	g_assert_cmpint(cue.bitmap->rects[0].width, ==, 3);
	umms_bitmap_unref(cue.bitmap);
	umms_bitmap_decoder_free(decoder);

	memcpy(narrow, set, size);
	memset(narrow + at + 10, 0xff, 4);      /* 65535 x 65535: refused */
	decoder = umms_bitmap_decoder_new(UMMS_BITMAP_PGS);
	g_assert_true(umms_bitmap_decoder_decode(decoder, narrow, size, 0, &cue));
	g_assert_cmpuint(cue.bitmap->n_rects, ==, 0);
	umms_bitmap_unref(cue.bitmap);
	memcpy(narrow, set, size);
	memset(narrow + at + 7, 0xff, 3);       /* 16 MiB of data announced: refused */
	g_assert_true(umms_bitmap_decoder_decode(decoder, narrow, size, 0, &cue));
	g_assert_cmpuint(cue.bitmap->n_rects, ==, 0);
	umms_bitmap_unref(cue.bitmap);
	umms_bitmap_decoder_free(decoder);
}

static void
mutate(uint8_t *data, size_t size)
{
	int n = g_test_rand_int_range(1, 9);
	for (int i = 0; i < n; i++) {
		size_t at = (size_t)g_test_rand_int_range(0, (gint32)size);
		data[at] = g_test_rand_int_range(0, 4) == 0 ? (uint8_t)g_test_rand_int_range(0, 256) :
			(uint8_t)(data[at] ^ (1u << g_test_rand_int_range(0, 8)));
	}
}

static void
test_mutations(void)
{
	const struct spu_box box = { 20, 20, 30, 10, 2 };
	uint8_t dvd[8192], pgs[8192], copy[8192];
	size_t dvd_size = spu_dvd_write(dvd, sizeof(dvd), &box, 1, 500);
	size_t pgs_size = spu_pgs_write(pgs, sizeof(pgs), 320, 240, 0, &box, magenta);
	unsigned made[2] = { 0, 0 };
	struct umms_bitmap_decoder *decoders[2] = {
		umms_bitmap_decoder_new(UMMS_BITMAP_DVD),
		umms_bitmap_decoder_new(UMMS_BITMAP_PGS),
	};
	for (int i = 0; i < 40000; i++) {   /* 20,000 of each */
		bool is_pgs = i % 2;
		size_t size = is_pgs ? pgs_size : dvd_size;
		memcpy(copy, is_pgs ? pgs : dvd, size);
		mutate(copy, size);
		if (g_test_rand_int_range(0, 8) == 0)
			size = (size_t)g_test_rand_int_range(0, (gint32)size);
		/* Mostly a DVD unit's size as it is: one larger waits for more pieces. */
		if (!is_pgs && size >= 2 && g_test_rand_int_range(0, 4) != 0) {
			copy[0] = (uint8_t)(size >> 8);
			copy[1] = (uint8_t)size;
		}
		/* Exactly @size bytes on the heap: a read past them is reported. */
		uint8_t *heap = g_memdup2(copy, MAX(size, 1));
		/*
		 * PGS: the same decoder throughout (its state carries over from
		 * set to set). DVD: a new one for each unit, or one that waits
		 * for more pieces would take the units after it as those.
		 */
		if (!is_pgs) {
			umms_bitmap_decoder_free(decoders[0]);
			decoders[0] = umms_bitmap_decoder_new(UMMS_BITMAP_DVD);
		}
		made[is_pgs] += decode_any(decoders[is_pgs], heap, size);
		g_free(heap);
	}
	/* Most mutated units still decode to something: the decoders were exercised. */
	g_test_message("cues from 20,000 mutated units: DVD %u, PGS %u", made[0], made[1]);
	g_assert_cmpuint(made[0], >, 5000);
	g_assert_cmpuint(made[1], >, 5000);
	umms_bitmap_decoder_free(decoders[0]);
	umms_bitmap_decoder_free(decoders[1]);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/bitmap-subs/dvd", test_dvd);
	g_test_add_func("/bitmap-subs/pgs", test_pgs);
	g_test_add_func("/bitmap-subs/truncated", test_truncated);
	g_test_add_func("/bitmap-subs/overruns", test_overruns);
	g_test_add_func("/bitmap-subs/mutations", test_mutations);
	return g_test_run();
}
