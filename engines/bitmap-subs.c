/*
 * DVD and PGS subtitle decoders (bitmap-subs.h; the renderer: bitmap-render.c),
 * written from the formats as DVD-Video and the Blu-ray specification
 * describe them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bitmap-subs.h"

/* PGS: objects kept in an epoch, composition objects, RLE data kept for all objects. */
#define PGS_MAX_OBJECTS 64
#define PGS_MAX_PLACED 64
#define PGS_MAX_PALETTES 8
#define PGS_MAX_DATA (8 * 1024 * 1024)
/* DVD: control sequences read in one unit. */
#define DVD_MAX_SEQUENCES 64

struct pgs_object {
	unsigned id;
	int width, height;
	uint8_t *data;          /* RLE, as received */
	size_t length, expected;
	bool complete;
};

struct pgs_placed {
	unsigned object;
	int x, y;
	bool cropped;
	int crop_x, crop_y, crop_w, crop_h;
};

struct umms_bitmap_decoder {
	enum umms_bitmap_format format;
	/* DVD */
	uint32_t clut[16];      /* 0x00YYCrCb */
	bool own_palette;       /* from the private data: exact, CLUT events ignored */
	int dvd_width, dvd_height;
	GByteArray *pending;    /* a unit split over buffers, gathered (MPEG-PS) */
	int64_t pending_pts;
	/* PGS */
	int pgs_width, pgs_height;
	uint8_t palettes[PGS_MAX_PALETTES][256][4];   /* B, G, R, A premultiplied */
	struct pgs_object objects[PGS_MAX_OBJECTS];
	unsigned n_objects;
	size_t data_total;
	struct pgs_placed placed[PGS_MAX_PLACED];
	unsigned n_placed, palette_id;
	bool composition;       /* a PCS was read: END makes its cue */
	int64_t composition_pts;
};

/* ---- colours and images ---------------------------------------------------- */

static uint8_t
clamp8(int v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* BT.601 limited range Y, Cr, Cb and alpha to premultiplied B, G, R, A. */
static void
ycrcb_to_bgra(int y, int cr, int cb, int a, uint8_t out[4])
{
	int c = (y - 16) * 298, d = cb - 128, e = cr - 128;
	int r = clamp8((c + 409 * e + 128) >> 8);
	int g = clamp8((c - 100 * d - 208 * e + 128) >> 8);
	int b = clamp8((c + 516 * d + 128) >> 8);
	out[0] = (uint8_t)(b * a / 255);
	out[1] = (uint8_t)(g * a / 255);
	out[2] = (uint8_t)(r * a / 255);
	out[3] = (uint8_t)a;
}

static void
rgb_to_ycrcb(int r, int g, int b, uint32_t *out)
{
	int y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
	int cb = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
	int cr = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
	*out = (uint32_t)clamp8(y) << 16 | (uint32_t)clamp8(cr) << 8 | clamp8(cb);
}

static struct umms_bitmap *
bitmap_new(int width, int height, unsigned n_rects)
{
	struct umms_bitmap *bitmap = g_new0(struct umms_bitmap, 1);
	bitmap->refs = 1;
	bitmap->width = width;
	bitmap->height = height;
	bitmap->rects = n_rects ? g_new0(struct umms_bitmap_rect, n_rects) : NULL;
	return bitmap;
}

/* A transparent rect of a checked size (1..UMMS_BITMAP_MAX_SIDE) as the next of @bitmap's. */
static struct umms_bitmap_rect *
bitmap_add_rect(struct umms_bitmap *bitmap, int x, int y, int width, int height)
{
	struct umms_bitmap_rect *rect = &bitmap->rects[bitmap->n_rects++];
	rect->x = x;
	rect->y = y;
	rect->width = width;
	rect->height = height;
	rect->pixels = g_malloc0((size_t)width * (size_t)height * 4);
	return rect;
}

/*
 * @rect cut to its pixels that are not transparent (a unit's area is
 * mostly margin, and cues are kept for minutes); false when none is.
 */
static bool
rect_trim(struct umms_bitmap_rect *rect)
{
	int x0 = rect->width, y0 = rect->height, x1 = -1, y1 = -1;
	for (int y = 0; y < rect->height; y++) {
		const uint8_t *row = rect->pixels + (size_t)y * (size_t)rect->width * 4;
		for (int x = 0; x < rect->width; x++) {
			if (!row[x * 4 + 3])
				continue;
			x0 = MIN(x0, x);
			x1 = MAX(x1, x);
			y0 = MIN(y0, y);
			y1 = MAX(y1, y);
		}
	}
	if (x1 < 0)
		return false;
	int width = x1 - x0 + 1, height = y1 - y0 + 1;
	if (width == rect->width && height == rect->height)
		return true;
	uint8_t *pixels = g_malloc((size_t)width * (size_t)height * 4);
	for (int y = 0; y < height; y++)
		memcpy(pixels + (size_t)y * (size_t)width * 4, rect->pixels +
			((size_t)(y + y0) * (size_t)rect->width + (size_t)x0) * 4, (size_t)width * 4);
	g_free(rect->pixels);
	rect->pixels = pixels;
	rect->x += x0;
	rect->y += y0;
	rect->width = width;
	rect->height = height;
	return true;
}

/*
 * Its rects trimmed (the empty ones dropped), then its key: FNV-1a over
 * what the bitmap shows, so the same image again has the same key.
 */
static void
bitmap_seal(struct umms_bitmap *bitmap)
{
	unsigned kept = 0;
	for (unsigned r = 0; r < bitmap->n_rects; r++) {
		if (rect_trim(&bitmap->rects[r]))
			bitmap->rects[kept++] = bitmap->rects[r];
		else
			g_free(bitmap->rects[r].pixels);
	}
	bitmap->n_rects = kept;
	uint64_t hash = 0xcbf29ce484222325u;
	int head[3] = { bitmap->width, bitmap->height, (int)bitmap->n_rects };
	const uint8_t *bytes = (const uint8_t *)head;
	for (size_t i = 0; i < sizeof(head); i++)
		hash = (hash ^ bytes[i]) * 0x100000001b3u;
	for (unsigned r = 0; r < bitmap->n_rects; r++) {
		const struct umms_bitmap_rect *rect = &bitmap->rects[r];
		int place[4] = { rect->x, rect->y, rect->width, rect->height };
		bytes = (const uint8_t *)place;
		for (size_t i = 0; i < sizeof(place); i++)
			hash = (hash ^ bytes[i]) * 0x100000001b3u;
		size_t size = (size_t)rect->width * (size_t)rect->height * 4;
		for (size_t i = 0; i < size; i++)
			hash = (hash ^ rect->pixels[i]) * 0x100000001b3u;
	}
	snprintf(bitmap->key, sizeof(bitmap->key), "bitmap:%016" PRIx64, hash);
}

struct umms_bitmap *
umms_bitmap_ref(struct umms_bitmap *bitmap)
{
	g_atomic_int_inc(&bitmap->refs);
	return bitmap;
}

void
umms_bitmap_unref(struct umms_bitmap *bitmap)
{
	if (!bitmap || !g_atomic_int_dec_and_test(&bitmap->refs))
		return;
	for (unsigned i = 0; i < bitmap->n_rects; i++)
		g_free(bitmap->rects[i].pixels);
	g_free(bitmap->rects);
	g_free(bitmap);
}

/* ---- decoders --------------------------------------------------------------- */

struct umms_bitmap_decoder *
umms_bitmap_decoder_new(enum umms_bitmap_format format)
{
	struct umms_bitmap_decoder *decoder = g_new0(struct umms_bitmap_decoder, 1);
	decoder->format = format;
	/* Until a palette comes: a grey ramp, so a unit still shows. */
	for (int i = 0; i < 16; i++)
		rgb_to_ycrcb(i * 17, i * 17, i * 17, &decoder->clut[i]);
	return decoder;
}

static void
pgs_forget_objects(struct umms_bitmap_decoder *decoder)
{
	for (unsigned i = 0; i < decoder->n_objects; i++)
		g_free(decoder->objects[i].data);
	decoder->n_objects = 0;
	decoder->data_total = 0;
}

void
umms_bitmap_decoder_free(struct umms_bitmap_decoder *decoder)
{
	if (!decoder)
		return;
	pgs_forget_objects(decoder);
	if (decoder->pending)
		g_byte_array_unref(decoder->pending);
	g_free(decoder);
}

void
umms_bitmap_decoder_flush(struct umms_bitmap_decoder *decoder)
{
	g_clear_pointer(&decoder->pending, g_byte_array_unref);
	decoder->composition = false;
}

void
umms_bitmap_decoder_set_private(struct umms_bitmap_decoder *decoder, const uint8_t *data,
	size_t size)
{
	if (decoder->format != UMMS_BITMAP_DVD || !data || size > 64 * 1024)
		return;
	g_autofree char *text = g_strndup((const char *)data, size);
	g_auto(GStrv) lines = g_strsplit(text, "\n", 256);
	for (int i = 0; lines[i]; i++) {
		const char *line = lines[i];
		int w = 0, h = 0;
		if (sscanf(line, " size: %dx%d", &w, &h) == 2 && w >= 1 && h >= 1 &&
				w <= UMMS_BITMAP_MAX_SIDE && h <= UMMS_BITMAP_MAX_SIDE) {
			decoder->dvd_width = w;
			decoder->dvd_height = h;
		}
		const char *p = strstr(line, "palette:");
		if (!p)
			continue;
		p += strlen("palette:");
		uint32_t clut[16];
		int n = 0;
		while (n < 16) {
			while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\r')
				p++;
			char *end = NULL;
			unsigned long rgb = strtoul(p, &end, 16);
			if (end == p || rgb > 0xffffff)
				break;
			rgb_to_ycrcb((int)(rgb >> 16), (int)(rgb >> 8) & 0xff, (int)rgb & 0xff,
				&clut[n++]);
			p = end;
		}
		if (n == 16) {
			memcpy(decoder->clut, clut, sizeof(clut));
			decoder->own_palette = true;
		}
	}
}

void
umms_bitmap_decoder_set_clut(struct umms_bitmap_decoder *decoder, const uint32_t clut[16])
{
	if (decoder->own_palette)
		return;
	for (int i = 0; i < 16; i++)
		decoder->clut[i] = clut[i] & 0xffffff;
}

/* ---- DVD sub-picture units --------------------------------------------------- */

/* Nibbles from a field's lines, never past @end. */
struct nibbles {
	const uint8_t *data;
	size_t at, end;         /* in nibbles */
};

static bool
nibble(struct nibbles *n, unsigned *v)
{
	if (n->at >= n->end)
		return false;
	uint8_t byte = n->data[n->at / 2];
	*v = n->at % 2 ? byte & 0xf : byte >> 4;
	n->at++;
	return true;
}

/* One line of @width 2-bit pixels into @line; false when the data ran out. */
static bool
dvd_line(struct nibbles *n, uint8_t *line, int width)
{
	int x = 0;
	while (x < width) {
		unsigned code = 0, v;
		/* 1 to 4 nibbles: the more leading zero bits, the longer the code. */
		for (int i = 0; i < 4; i++) {
			if (!nibble(n, &v))
				return false;
			code = code << 4 | v;
			if (code >= 4u << (2 * i) || i == 3)
				break;
		}
		int run = (int)(code >> 2);
		if (run == 0 || run > width - x)
			run = width - x;   /* 0: to the line's end; longer: cut at it */
		memset(line + x, (int)(code & 3), (size_t)run);
		x += run;
	}
	n->at += n->at % 2;  /* lines are byte aligned */
	return true;
}

struct dvd_state {
	unsigned colour[4], contrast[4];
	int x1, x2, y1, y2;
	size_t fields[2];
	bool area, offsets;
};

static struct umms_bitmap *
dvd_image(struct umms_bitmap_decoder *decoder, const uint8_t *data, size_t size,
	const struct dvd_state *s)
{
	int width = s->x2 - s->x1 + 1, height = s->y2 - s->y1 + 1;
	if (!s->area || !s->offsets || width < 1 || height < 1 ||
			width > UMMS_BITMAP_MAX_SIDE || height > UMMS_BITMAP_MAX_SIDE ||
			s->fields[0] >= size || s->fields[1] >= size)
		return NULL;
	uint8_t colours[4][4];
	for (int i = 0; i < 4; i++) {
		uint32_t c = decoder->clut[s->colour[i] & 0xf];
		ycrcb_to_bgra((int)(c >> 16) & 0xff, (int)(c >> 8) & 0xff, (int)c & 0xff,
			(int)(s->contrast[i] & 0xf) * 17, colours[i]);
	}
	struct umms_bitmap *bitmap = bitmap_new(decoder->dvd_width, decoder->dvd_height, 1);
	struct umms_bitmap_rect *rect = bitmap_add_rect(bitmap, s->x1, s->y1, width, height);
	struct nibbles fields[2] = {
		{ data, s->fields[0] * 2, size * 2 },
		{ data, s->fields[1] * 2, size * 2 },
	};
	uint8_t *line = g_malloc((size_t)width);
	bool ran_out[2] = { false, false };
	for (int y = 0; y < height; y++) {
		int f = y & 1;
		memset(line, 0, (size_t)width);
		if (!ran_out[f] && !dvd_line(&fields[f], line, width))
			ran_out[f] = true;
		uint8_t *row = rect->pixels + (size_t)y * (size_t)width * 4;
		for (int x = 0; x < width; x++)
			memcpy(row + x * 4, colours[line[x]], 4);
	}
	g_free(line);
	bitmap_seal(bitmap);
	return bitmap;
}

static int64_t
dvd_delay_us(unsigned ticks)
{
	return (int64_t)ticks * 1024 * G_USEC_PER_SEC / 90000;
}

static bool
dvd_decode(struct umms_bitmap_decoder *decoder, const uint8_t *data, size_t size, int64_t pts,
	struct umms_bitmap_cue *out)
{
	if (size < 4)
		return false;
	size_t unit = MIN((size_t)(data[0] << 8 | data[1]), size);
	size_t at = (size_t)(data[2] << 8 | data[3]);
	struct dvd_state s = { .colour = { 0, 1, 2, 3 }, .contrast = { 0, 15, 15, 15 } };
	int64_t start = -1, end = -1;
	struct dvd_state shown = s;
	for (int n = 0; n < DVD_MAX_SEQUENCES && at >= 4 && at + 4 <= unit; n++) {
		unsigned delay = (unsigned)(data[at] << 8 | data[at + 1]);
		size_t next = (size_t)(data[at + 2] << 8 | data[at + 3]);
		size_t p = at + 4;
		bool done = false;
		while (!done && p < unit) {
			uint8_t command = data[p++];
			switch (command) {
			case 0x00:      /* FSTA_DSP: forced start */
			case 0x01:      /* STA_DSP */
				if (start < 0) {
					start = pts + dvd_delay_us(delay);
					shown = s;
				}
				break;
			case 0x02:      /* STP_DSP */
				if (start >= 0 && end < 0)
					end = pts + dvd_delay_us(delay);
				break;
			case 0x03:      /* SET_COLOR: pixel values 3, 2, 1, 0 */
			case 0x04:      /* SET_CONTR */
				if (p + 2 > unit) {
					done = true;
					break;
				}
				unsigned *to = command == 0x03 ? s.colour : s.contrast;
				to[3] = data[p] >> 4;
				to[2] = data[p] & 0xf;
				to[1] = data[p + 1] >> 4;
				to[0] = data[p + 1] & 0xf;
				p += 2;
				break;
			case 0x05:      /* SET_DAREA: x1, x2, y1, y2, 12 bits each */
				if (p + 6 > unit) {
					done = true;
					break;
				}
				s.x1 = data[p] << 4 | data[p + 1] >> 4;
				s.x2 = (data[p + 1] & 0xf) << 8 | data[p + 2];
				s.y1 = data[p + 3] << 4 | data[p + 4] >> 4;
				s.y2 = (data[p + 4] & 0xf) << 8 | data[p + 5];
				s.area = true;
				p += 6;
				break;
			case 0x06:      /* SET_DSPXA: where the top and bottom fields' lines start */
				if (p + 4 > unit) {
					done = true;
					break;
				}
				s.fields[0] = (size_t)(data[p] << 8 | data[p + 1]);
				s.fields[1] = (size_t)(data[p + 2] << 8 | data[p + 3]);
				s.offsets = true;
				p += 4;
				break;
			case 0x07:      /* CHG_COLCON: its own size, skipped */
				if (p + 2 > unit) {
					done = true;
					break;
				}
				p += (size_t)(data[p] << 8 | data[p + 1]);
				break;
			default:        /* 0xff: the end; anything else ends it too */
				done = true;
				break;
			}
		}
		if (next <= at)
			break;
		at = next;
	}
	if (start < 0)
		return false;
	struct umms_bitmap *bitmap = dvd_image(decoder, data, unit, &shown);
	if (!bitmap)
		return false;
	out->start = start;
	out->end = end > start ? end : -1;
	out->bitmap = bitmap;
	return true;
}

/* ---- PGS display sets ---------------------------------------------------------- */

static unsigned
be16(const uint8_t *p)
{
	return (unsigned)(p[0] << 8 | p[1]);
}

static void
pgs_pcs(struct umms_bitmap_decoder *decoder, const uint8_t *p, size_t size, int64_t pts)
{
	if (size < 11)
		return;
	int width = (int)be16(p), height = (int)be16(p + 2);
	unsigned state = p[7];
	if (width < 1 || height < 1 || width > UMMS_SUBPICTURE_MAX_SIDE ||
			height > UMMS_SUBPICTURE_MAX_SIDE)
		return;
	if (state & 0x80) {     /* epoch start: nothing kept from before */
		pgs_forget_objects(decoder);
		memset(decoder->palettes, 0, sizeof(decoder->palettes));
	}
	decoder->pgs_width = width;
	decoder->pgs_height = height;
	bool palette_only = p[8] & 0x80;
	decoder->palette_id = p[9];
	decoder->composition = true;
	decoder->composition_pts = pts;
	if (palette_only)
		return;   /* the same objects, another palette */
	unsigned n = p[10];
	size_t at = 11;
	decoder->n_placed = 0;
	for (unsigned i = 0; i < n && decoder->n_placed < PGS_MAX_PLACED; i++) {
		if (at + 8 > size)
			break;
		struct pgs_placed *placed = &decoder->placed[decoder->n_placed];
		placed->object = be16(p + at);
		placed->cropped = p[at + 3] & 0x80;
		placed->x = (int)be16(p + at + 4);
		placed->y = (int)be16(p + at + 6);
		at += 8;
		if (placed->cropped) {
			if (at + 8 > size)
				break;
			placed->crop_x = (int)be16(p + at);
			placed->crop_y = (int)be16(p + at + 2);
			placed->crop_w = (int)be16(p + at + 4);
			placed->crop_h = (int)be16(p + at + 6);
			at += 8;
		}
		decoder->n_placed++;
	}
}

static void
pgs_pds(struct umms_bitmap_decoder *decoder, const uint8_t *p, size_t size)
{
	if (size < 2 || p[0] >= PGS_MAX_PALETTES)
		return;
	uint8_t (*palette)[4] = decoder->palettes[p[0]];
	for (size_t at = 2; at + 5 <= size; at += 5)
		ycrcb_to_bgra(p[at + 1], p[at + 2], p[at + 3], p[at + 4], palette[p[at]]);
}

static struct pgs_object *
pgs_find(struct umms_bitmap_decoder *decoder, unsigned id)
{
	for (unsigned i = 0; i < decoder->n_objects; i++) {
		if (decoder->objects[i].id == id)
			return &decoder->objects[i];
	}
	return NULL;
}

static void
pgs_ods(struct umms_bitmap_decoder *decoder, const uint8_t *p, size_t size)
{
	if (size < 4)
		return;
	unsigned id = be16(p), sequence = p[3];
	struct pgs_object *object = pgs_find(decoder, id);
	p += 4;
	size -= 4;
	if (sequence & 0x80) {  /* the first of the object's segments */
		if (size < 7)
			return;
		size_t length = (size_t)p[0] << 16 | (size_t)p[1] << 8 | p[2];
		int width = (int)be16(p + 3), height = (int)be16(p + 5);
		if (!object) {
			if (decoder->n_objects == PGS_MAX_OBJECTS)
				return;
			object = &decoder->objects[decoder->n_objects++];
			memset(object, 0, sizeof(*object));
			object->id = id;
		}
		decoder->data_total -= object->expected;
		g_clear_pointer(&object->data, g_free);
		object->length = object->expected = 0;
		object->complete = false;
		object->width = object->height = 0;
		/* The length counts the width and height (4 bytes) before the RLE data. */
		if (width < 1 || height < 1 || width > UMMS_BITMAP_MAX_SIDE ||
				height > UMMS_BITMAP_MAX_SIDE || length < 4 ||
				length - 4 > PGS_MAX_DATA - decoder->data_total)
			return;
		object->width = width;
		object->height = height;
		object->expected = length - 4;
		decoder->data_total += object->expected;
		object->data = g_malloc(MAX(object->expected, 1));
		p += 7;
		size -= 7;
	}
	if (!object || !object->data || object->complete)
		return;
	size_t take = MIN(size, object->expected - object->length);
	memcpy(object->data + object->length, p, take);
	object->length += take;
	if ((sequence & 0x40) || object->length == object->expected)
		object->complete = true;
}

/* An object's 8-bit RLE lines into palette entries (@out: width × height). */
static void
pgs_rle(const struct pgs_object *object, uint8_t *out)
{
	const uint8_t *p = object->data;
	size_t at = 0, size = object->length;
	int x = 0, y = 0, w = object->width;
	while (at < size && y < object->height) {
		unsigned colour = p[at++], run = 1;
		if (colour == 0) {
			if (at >= size)
				break;
			unsigned flags = p[at++];
			if (flags == 0) {       /* the line's end */
				x = 0;
				y++;
				continue;
			}
			run = flags & 0x3f;
			if (flags & 0x40) {
				if (at >= size)
					break;
				run = run << 8 | p[at++];
			}
			colour = 0;
			if (flags & 0x80) {
				if (at >= size)
					break;
				colour = p[at++];
			}
		}
		unsigned room = (unsigned)(w - x);
		if (run > room)
			run = room;   /* runs past the line are cut at it */
		memset(out + (size_t)y * (size_t)w + (size_t)x, (int)colour, run);
		x += (int)run;
	}
}

static bool
pgs_end(struct umms_bitmap_decoder *decoder, struct umms_bitmap_cue *out)
{
	if (!decoder->composition)
		return false;
	decoder->composition = false;
	const uint8_t (*palette)[4] = decoder->palettes[decoder->palette_id % PGS_MAX_PALETTES];
	struct umms_bitmap *bitmap = bitmap_new(decoder->pgs_width, decoder->pgs_height,
		decoder->n_placed);
	for (unsigned i = 0; i < decoder->n_placed; i++) {
		const struct pgs_placed *placed = &decoder->placed[i];
		const struct pgs_object *object = pgs_find(decoder, placed->object);
		if (!object || !object->data || !object->complete)
			continue;
		int cx = 0, cy = 0, cw = object->width, ch = object->height;
		if (placed->cropped) {
			cx = MIN(placed->crop_x, object->width);
			cy = MIN(placed->crop_y, object->height);
			cw = MIN(placed->crop_w, object->width - cx);
			ch = MIN(placed->crop_h, object->height - cy);
		}
		if (cw < 1 || ch < 1)
			continue;
		uint8_t *indices = g_malloc0((size_t)object->width * (size_t)object->height);
		pgs_rle(object, indices);
		struct umms_bitmap_rect *rect = bitmap_add_rect(bitmap, placed->x, placed->y, cw, ch);
		for (int y = 0; y < ch; y++) {
			const uint8_t *src = indices + (size_t)(y + cy) * (size_t)object->width + cx;
			uint8_t *row = rect->pixels + (size_t)y * (size_t)cw * 4;
			for (int x = 0; x < cw; x++)
				memcpy(row + x * 4, palette[src[x]], 4);
		}
		g_free(indices);
	}
	bitmap_seal(bitmap);
	out->start = decoder->composition_pts;
	out->end = -1;
	out->bitmap = bitmap;
	return true;
}

static bool
pgs_decode(struct umms_bitmap_decoder *decoder, const uint8_t *data, size_t size, int64_t pts,
	struct umms_bitmap_cue *out)
{
	bool made = false;
	size_t at = 0;
	while (at + 3 <= size) {
		unsigned type = data[at];
		size_t length = be16(data + at + 1);
		at += 3;
		if (length > size - at)
			break;   /* truncated: what came before stands */
		const uint8_t *p = data + at;
		at += length;
		switch (type) {
		case 0x14:
			pgs_pds(decoder, p, length);
			break;
		case 0x15:
			pgs_ods(decoder, p, length);
			break;
		case 0x16:
			pgs_pcs(decoder, p, length, pts);
			break;
		case 0x80:
			if (!made)
				made = pgs_end(decoder, out);
			break;
		default:        /* WDS (windows: the objects' places say enough) and others */
			break;
		}
	}
	return made;
}

/*
 * A DVD unit may come in pieces (MPEG-PS packs): one shorter than the size
 * it starts with is gathered with the buffers after it, at its own time.
 */
static bool
dvd_gather(struct umms_bitmap_decoder *decoder, const uint8_t *data, size_t size, int64_t pts,
	struct umms_bitmap_cue *out)
{
	if (!decoder->pending) {
		size_t need = size >= 2 ? (size_t)(data[0] << 8 | data[1]) : 0;
		if (need <= size || need < 4)
			return dvd_decode(decoder, data, size, pts, out);
		decoder->pending = g_byte_array_sized_new((guint)need);
		decoder->pending_pts = pts;
	}
	GByteArray *pending = decoder->pending;
	size_t need = (size_t)(pending->len >= 2 ? pending->data[0] << 8 | pending->data[1] :
		data[0] << 8 | data[1]);
	g_byte_array_append(pending, data, (guint)MIN(size, need - pending->len));
	if (pending->len < need)
		return false;
	decoder->pending = NULL;
	bool made = dvd_decode(decoder, pending->data, pending->len, decoder->pending_pts, out);
	g_byte_array_unref(pending);
	return made;
}

bool
umms_bitmap_decoder_decode(struct umms_bitmap_decoder *decoder, const uint8_t *data,
	size_t size, int64_t pts, struct umms_bitmap_cue *out)
{
	if (!data)
		return false;
	return decoder->format == UMMS_BITMAP_DVD ? dvd_gather(decoder, data, size, pts, out) :
		pgs_decode(decoder, data, size, pts, out);
}
