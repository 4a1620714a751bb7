/*
 * ummsfwhtdec: FWHT decoded in software (fwht-dec.h), written from the
 * format's description in Linux's vicodec driver (codec-fwht.h).
 *
 * A frame is a 44-byte header (two magic words, then big-endian version,
 * width, height, flags, four colour fields and the size of the data after
 * it) and its planes, one after the other: for an RGB stream G, B, R and
 * an alpha plane we do not need. A plane is stored raw (a flag says so) or
 * as 8x8 blocks, left to right and top to bottom over the size rounded up
 * to 8, as big-endian 16-bit words: a block's first word says whether it
 * is predicted (bit 15, a difference from the same block of the frame
 * before) and how many times the next blocks repeat it (bits 1 to 12);
 * then its coefficients in anti-diagonal order, each word a 12-bit signed
 * value (top) after a run of zeros (bottom 4 bits; 15 ends the block with
 * zeros). Each coefficient is scaled back by a power of two that grows
 * towards the high frequencies, the block goes through the inverse
 * sequency-ordered Walsh-Hadamard transform, divided by 64, and is offset
 * by 128 (intra) or added to the reference (predicted), clamped to 0..255.
 */
#include <string.h>
#include <gst/video/video.h>

#include "fwht-dec.h"

#define HEADER_SIZE 44u
#define MAGIC1 0x4f4f4f4fu
#define MAGIC2 0xffffffffu
#define MAX_SIDE 4096u /* vicodec's largest is 4096x2160; a lying header costs 100 MB at most */

/* Header flags. */
#define RAW_PLANE(i) (1u << (4 + (i))) /* G, B, R stored as they are */
#define FULL_HEIGHT (1u << 7)           /* no chroma subsampling (RGB streams) */
#define FULL_WIDTH (1u << 8)
#define I_FRAME (1u << 10)
#define COMPONENTS(flags) ((((flags) >> 16) & 7u) + 1)
#define PIXENC(flags) (((flags) >> 19) & 3u)
#define PIXENC_RGB 2u

/* A block's first word. */
#define BLOCK_PREDICTED 0x8000u
#define BLOCK_REPEATS(word) (((word) >> 1) & 0xfffu)
#define RUN_TO_END 15u

/* sequency-ordered Walsh functions, walsh[k][n]: +1 or -1, k sign changes in a row. */
static int walsh[8][8];
/* Coefficient order: i-th coefficient of a block at raster index scan[i]. */
static unsigned char scan[64];

static void
tables_init(void)
{
	for (int k = 0; k < 8; k++) {
		/* k's Gray code, its bits reversed (3 bits), against the sample's index. */
		int gray = k ^ (k >> 1);
		int reversed = ((gray & 1) << 2) | (gray & 2) | ((gray >> 2) & 1);
		for (int n = 0; n < 8; n++)
			walsh[k][n] = __builtin_parity((unsigned)(reversed & n)) ? -1 : 1;
	}
	/* Anti-diagonals x + y = d, each from its right end (largest x) down. */
	int i = 0;
	for (int d = 0; d <= 14; d++) {
		for (int x = MIN(d, 7); x >= MAX(0, d - 7); x--)
			scan[i++] = (unsigned char)((d - x) * 8 + x);
	}
}

/*
 * log2 of the scale of coefficient (x, y), from x + y: intra blocks keep
 * more of the high frequencies than predicted ones.
 */
static int
scale_shift(int x, int y, bool predicted)
{
	int d = x + y;
	if (!predicted)
		return d <= 8 ? 2 : d == 9 ? 3 : d <= 13 ? 6 : 8;
	return d <= 9 ? 3 : d <= 11 ? 6 : d <= 13 ? 9 : 10;
}

/* The plane data: big-endian 16-bit words. */
struct words {
	const guint8 *data;
	gsize count, at;
};

static bool
next_word(struct words *in, unsigned *word)
{
	if (in->at >= in->count)
		return false;
	*word = (unsigned)in->data[2 * in->at] << 8 | in->data[2 * in->at + 1];
	in->at++;
	return true;
}

/* One block's header word and its 64 coefficients (raster order, not scaled). */
static bool
read_block(struct words *in, unsigned *head, int coeffs[64], const char **why)
{
	if (!next_word(in, head)) {
		*why = "the data ends inside a plane";
		return false;
	}
	memset(coeffs, 0, 64 * sizeof(*coeffs));
	for (unsigned i = 0; i < 64;) {
		unsigned word;
		if (!next_word(in, &word)) {
			*why = "the data ends inside a block";
			return false;
		}
		unsigned run = word & 0xf;
		if (run == RUN_TO_END)
			break;
		if (i + run >= 64) {
			*why = "a run of zeros goes past the end of its block";
			return false;
		}
		i += run;
		int value = (int)(word >> 4);
		coeffs[scan[i++]] = value >= 0x800 ? value - 0x1000 : value;
	}
	return true;
}

static int
floor_div64(int v)
{
	return v >= 0 ? v / 64 : -((63 - v) / 64);
}

/* Coefficients to samples (before the offset or the reference is added). */
static void
block_samples(int coeffs[64], bool predicted, int out[64])
{
	bool flat = true;
	for (int i = 0; i < 64; i++) {
		coeffs[i] *= 1 << scale_shift(i % 8, i / 8, predicted);
		flat = flat && (i == 0 || coeffs[i] == 0);
	}
	int offset = predicted ? 0 : 128;
	if (flat) {
		/* Only the mean: the same sample everywhere (most blocks). */
		int v = floor_div64(coeffs[0]) + offset;
		for (int i = 0; i < 64; i++)
			out[i] = v;
		return;
	}
	int rows[64];
	for (int y = 0; y < 8; y++) {
		for (int x = 0; x < 8; x++) {
			int sum = 0;
			for (int k = 0; k < 8; k++)
				sum += walsh[x][k] * coeffs[y * 8 + k];
			rows[y * 8 + x] = sum;
		}
	}
	for (int x = 0; x < 8; x++) {
		for (int y = 0; y < 8; y++) {
			int sum = 0;
			for (int k = 0; k < 8; k++)
				sum += walsh[y][k] * rows[k * 8 + x];
			out[y * 8 + x] = floor_div64(sum) + offset;
		}
	}
}

/* One plane of @w x @h (multiples of 8) into @plane; @ref: the frame before's. */
static bool
decode_plane(struct words *in, const guint8 *ref, guint8 *plane, unsigned w, unsigned h,
	bool raw, const char **why)
{
	if (raw) {
		gsize bytes = (gsize)w * h;
		if ((in->count - in->at) * 2 < bytes) {
			*why = "the data ends inside a raw plane";
			return false;
		}
		memcpy(plane, in->data + 2 * in->at, bytes);
		in->at += bytes / 2;
		return true;
	}
	int coeffs[64], samples[64];
	unsigned head = 0, repeats = 0;
	for (unsigned by = 0; by < h; by += 8) {
		for (unsigned bx = 0; bx < w; bx += 8) {
			if (repeats > 0) {
				repeats--;
			} else {
				if (!read_block(in, &head, coeffs, why))
					return false;
				block_samples(coeffs, head & BLOCK_PREDICTED, samples);
				repeats = BLOCK_REPEATS(head);
			}
			for (unsigned y = 0; y < 8; y++) {
				gsize at = (gsize)(by + y) * w + bx;
				for (unsigned x = 0; x < 8; x++) {
					int v = samples[y * 8 + x];
					if (head & BLOCK_PREDICTED)
						v += ref[at + x];
					plane[at + x] = (guint8)CLAMP(v, 0, 255);
				}
			}
		}
	}
	return true;
}

typedef struct {
	GstVideoDecoder parent;
	GstVideoCodecState *input;
	unsigned width, height; /* the picture's */
	unsigned coded_w, coded_h;
	guint8 *planes[3]; /* G, B, R of the last frame: the next one's reference */
	guint8 *next[3];   /* the frame being decoded, the reference once it is whole */
	bool negotiated;
} UmmsFwhtDec;

typedef struct {
	GstVideoDecoderClass parent_class;
} UmmsFwhtDecClass;

static GType umms_fwht_dec_get_type(void);
G_DEFINE_TYPE(UmmsFwhtDec, umms_fwht_dec, GST_TYPE_VIDEO_DECODER)

static guint32
read_be32(const guint8 *data)
{
	return (guint32)data[0] << 24 | (guint32)data[1] << 16 | (guint32)data[2] << 8 | data[3];
}

static void
planes_free(UmmsFwhtDec *self)
{
	for (int i = 0; i < 3; i++) {
		g_clear_pointer(&self->planes[i], g_free);
		g_clear_pointer(&self->next[i], g_free);
	}
	self->width = self->height = 0;
}

/* The frame in @data into the planes; NULL, or why not. */
static const char *
decode(UmmsFwhtDec *self, const guint8 *data, gsize size)
{
	if (size < HEADER_SIZE || read_be32(data) != MAGIC1 || read_be32(data + 4) != MAGIC2)
		return "no FWHT header";
	guint32 version = read_be32(data + 8), width = read_be32(data + 12);
	guint32 height = read_be32(data + 16), flags = read_be32(data + 20);
	guint32 length = read_be32(data + 40);
	if (version < 2 || version > 3)
		return "an FWHT version other than 2 or 3";
	if (width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE)
		return "a picture size out of range";
	if (length > size - HEADER_SIZE)
		return "a frame shorter than its header says";
	unsigned components = COMPONENTS(flags);
	if (PIXENC(flags) != PIXENC_RGB || components < 3 || !(flags & FULL_WIDTH) ||
			!(flags & FULL_HEIGHT))
		return "not an RGB stream (only those are decoded here)";
	if (width != self->width || height != self->height) {
		planes_free(self);
		self->width = width;
		self->height = height;
		self->coded_w = (width + 7) / 8 * 8;
		self->coded_h = (height + 7) / 8 * 8;
		/* A predicted frame first (after a seek) is predicted from black. */
		for (int i = 0; i < 3; i++) {
			self->planes[i] = g_malloc0((gsize)self->coded_w * self->coded_h);
			self->next[i] = g_malloc0((gsize)self->coded_w * self->coded_h);
		}
		self->negotiated = false;
	}
	struct words in = { .data = data + HEADER_SIZE, .count = length / 2 };
	const char *why = NULL;
	for (int i = 0; i < 3; i++) {
		if (!decode_plane(&in, self->planes[i], self->next[i], self->coded_w,
				self->coded_h, flags & RAW_PLANE(i), &why))
			return why;
	}
	/* Whole: the reference of the next frame (a bad frame leaves the one before). */
	for (int i = 0; i < 3; i++) {
		guint8 *done = self->next[i];
		self->next[i] = self->planes[i];
		self->planes[i] = done;
	}
	return NULL;
}

static gboolean
fwht_dec_set_format(GstVideoDecoder *decoder, GstVideoCodecState *state)
{
	UmmsFwhtDec *self = (UmmsFwhtDec *)decoder;
	g_clear_pointer(&self->input, gst_video_codec_state_unref);
	self->input = gst_video_codec_state_ref(state);
	self->negotiated = false;
	return TRUE;
}

static GstFlowReturn
output(UmmsFwhtDec *self, GstVideoCodecFrame *frame)
{
	GstVideoDecoder *decoder = GST_VIDEO_DECODER(self);
	if (!self->negotiated) {
		GstVideoCodecState *out = gst_video_decoder_set_output_state(decoder,
			GST_VIDEO_FORMAT_BGRx, self->width, self->height, self->input);
		gst_video_codec_state_unref(out);
		if (!gst_video_decoder_negotiate(decoder)) {
			gst_video_decoder_drop_frame(decoder, frame);
			return GST_FLOW_NOT_NEGOTIATED;
		}
		self->negotiated = true;
	}
	GstFlowReturn ret = gst_video_decoder_allocate_output_frame(decoder, frame);
	if (ret != GST_FLOW_OK) {
		gst_video_decoder_drop_frame(decoder, frame);
		return ret;
	}
	GstVideoCodecState *state = gst_video_decoder_get_output_state(decoder);
	GstVideoFrame video;
	bool mapped = gst_video_frame_map(&video, &state->info, frame->output_buffer,
		GST_MAP_WRITE);
	gst_video_codec_state_unref(state);
	if (!mapped) {
		gst_video_decoder_drop_frame(decoder, frame);
		return GST_FLOW_ERROR;
	}
	guint8 *pixels = GST_VIDEO_FRAME_PLANE_DATA(&video, 0);
	int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&video, 0);
	for (unsigned y = 0; y < self->height; y++) {
		guint8 *to = pixels + (gsize)y * (gsize)stride;
		gsize at = (gsize)y * self->coded_w;
		const guint8 *g = self->planes[0] + at, *b = self->planes[1] + at;
		const guint8 *r = self->planes[2] + at;
		for (unsigned x = 0; x < self->width; x++, to += 4) {
			/* B, G, R, x in memory: one little-endian word. */
			guint32 pixel = GUINT32_TO_LE(0xff000000u | (guint32)r[x] << 16 |
				(guint32)g[x] << 8 | b[x]);
			memcpy(to, &pixel, 4);
		}
	}
	gst_video_frame_unmap(&video);
	return gst_video_decoder_finish_frame(decoder, frame);
}

static GstFlowReturn
fwht_dec_handle_frame(GstVideoDecoder *decoder, GstVideoCodecFrame *frame)
{
	UmmsFwhtDec *self = (UmmsFwhtDec *)decoder;
	GstMapInfo map;
	if (!gst_buffer_map(frame->input_buffer, &map, GST_MAP_READ)) {
		gst_video_decoder_drop_frame(decoder, frame);
		return GST_FLOW_ERROR;
	}
	const char *why = decode(self, map.data, map.size);
	gst_buffer_unmap(frame->input_buffer, &map);
	if (why) {
		/* Counted against max-errors: a bad frame is dropped, too many end the stream. */
		GstFlowReturn ret = GST_FLOW_OK;
		GST_VIDEO_DECODER_ERROR(decoder, 1, STREAM, DECODE, ("Cannot decode an FWHT frame"),
			("%s", why), ret);
		gst_video_decoder_drop_frame(decoder, frame);
		return ret;
	}
	return output(self, frame);
}

static gboolean
fwht_dec_stop(GstVideoDecoder *decoder)
{
	UmmsFwhtDec *self = (UmmsFwhtDec *)decoder;
	planes_free(self);
	g_clear_pointer(&self->input, gst_video_codec_state_unref);
	self->negotiated = false;
	return TRUE;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-fwht, parsed = (boolean) true"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw, format = (string) BGRx"));

static void
umms_fwht_dec_class_init(UmmsFwhtDecClass *klass)
{
	GstElementClass *element = GST_ELEMENT_CLASS(klass);
	GstVideoDecoderClass *decoder = GST_VIDEO_DECODER_CLASS(klass);
	gst_element_class_add_static_pad_template(element, &sink_template);
	gst_element_class_add_static_pad_template(element, &src_template);
	gst_element_class_set_static_metadata(element, "FWHT decoder (umms tests)",
		"Codec/Decoder/Video", "Decodes vicodec's RGB FWHT streams in software", "umms");
	decoder->set_format = fwht_dec_set_format;
	decoder->handle_frame = fwht_dec_handle_frame;
	decoder->stop = fwht_dec_stop;
	tables_init();
}

static void
umms_fwht_dec_init(UmmsFwhtDec *self)
{
	gst_video_decoder_set_packetized(GST_VIDEO_DECODER(self), TRUE);
}

bool
umms_test_fwht_dec_register(GstPlugin *plugin)
{
	/* Below v4l2fwhtdec (primary + 1): decodebin tries the hardware first where allowed. */
	return gst_element_register(plugin, UMMS_TEST_FWHT_DEC, GST_RANK_PRIMARY,
		umms_fwht_dec_get_type());
}
