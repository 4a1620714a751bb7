/*
 * ummsfwhtdec (fwht-dec.c), the test-only software FWHT decoder, on frames
 * built here by hand from the format's description, where no vicodec is:
 * flat blocks, a repeated block, the first horizontal Walsh function, a
 * raw plane, a predicted frame over the one before (clamped), and frames
 * that lie (short, oversized, a run past its block, a YUV stream) dropped
 * while the stream goes on. The VM's vicodec test compares
 * it with vicodec's own decoder on a real clip.
 *
 * And the test-only parser (fwht-parse.c) on the same frames in one byte
 * stream: cut at each header, a frame without the I-frame flag marked a
 * delta unit, whatever the other flags say.
 */
#include <string.h>
#include <gst/app/app.h>
#include <gst/gst.h>

#include "fwht-dec.h"
#include "fwht-parse.h"

#define W 16
#define H 8

/* Header flags (see fwht-dec.c). */
#define RGB_FLAGS (2u << 16 | 2u << 19 | 1u << 7 | 1u << 8) /* 3 planes, RGB, full size */
#define I_FRAME (1u << 10)
#define RAW(i) (1u << (4 + (i)))

static void
put16(GByteArray *a, unsigned v)
{
	guint8 b[2] = { (guint8)(v >> 8), (guint8)v };
	g_byte_array_append(a, b, 2);
}

static void
put32(GByteArray *a, guint32 v)
{
	put16(a, v >> 16);
	put16(a, v & 0xffff);
}

/* A coefficient word: @zeros before a 12-bit signed @value. */
static unsigned
coeff(int zeros, int value)
{
	return ((unsigned)value & 0xfffu) << 4 | (unsigned)zeros;
}

#define END_OF_BLOCK 0x000fu
#define PREDICTED 0x8000u
#define REPEAT(n) ((unsigned)(n) << 1)

/* A frame: the header, then @data (the planes). @size_bias lies about the size. */
static GstBuffer *
frame(guint32 flags, guint32 width, guint32 height, GByteArray *data, int size_bias)
{
	GByteArray *a = g_byte_array_new();
	put32(a, 0x4f4f4f4f);
	put32(a, 0xffffffff);
	put32(a, 3);
	put32(a, width);
	put32(a, height);
	put32(a, flags);
	for (int i = 0; i < 4; i++)
		put32(a, 0);
	put32(a, (guint32)((int)data->len + size_bias));
	g_byte_array_append(a, data->data, data->len);
	g_byte_array_unref(data);
	gsize len = a->len;
	return gst_buffer_new_wrapped(g_byte_array_free(a, FALSE), len);
}

/* One flat block of @value, intra: its mean is 64 x (value - 128), scaled by 4 (>> 2). */
static void
flat_block(GByteArray *a, unsigned head, int value)
{
	put16(a, head);
	put16(a, coeff(0, 16 * (value - 128)));
	put16(a, END_OF_BLOCK);
}

static void
raw_plane(GByteArray *a, int base)
{
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			guint8 v = (guint8)(base + 10 * x + y);
			g_byte_array_append(a, &v, 1);
		}
	}
}

/* The I-frame: G 200 everywhere, B raw, R left: 178 | 78 (one AC coefficient), right: 10. */
static GstBuffer *
intra_frame(void)
{
	GByteArray *a = g_byte_array_new();
	flat_block(a, REPEAT(1), 200);
	raw_plane(a, 0);
	/* The first horizontal Walsh function (raster index 1) at 3200 / 64 = 50, scaled by 4. */
	put16(a, 0);
	put16(a, coeff(1, 800));
	put16(a, END_OF_BLOCK);
	flat_block(a, 0, 10);
	return frame(RGB_FLAGS | I_FRAME | RAW(1), W, H, a, 0);
}

/* The P-frame: G +10 (210) left and +60 (255, clamped) right; B flat 50 (intra); R raw. */
static GstBuffer *
predicted_frame(void)
{
	GByteArray *a = g_byte_array_new();
	/* A predicted block's mean is scaled by 8: a difference of d is 8 x d. */
	put16(a, PREDICTED);
	put16(a, coeff(0, 80));
	put16(a, END_OF_BLOCK);
	put16(a, PREDICTED);
	put16(a, coeff(0, 480));
	put16(a, END_OF_BLOCK);
	flat_block(a, REPEAT(1), 50);
	raw_plane(a, 5);
	return frame(RGB_FLAGS | RAW(2), W, H, a, 0);
}

/* What a pixel of the frame must be: 0xRRGGBB. */
typedef guint32 (*expected_fn)(int x, int y);

static guint32
intra_pixel(int x, int y)
{
	guint32 r = x < 4 ? 178 : x < 8 ? 78 : 10;
	guint32 b = (guint32)(10 * x + y) & 0xff;
	return r << 16 | 200u << 8 | b;
}

static guint32
predicted_pixel(int x, int y)
{
	guint32 r = (guint32)(5 + 10 * x + y) & 0xff;
	guint32 g = x < 8 ? 210 : 255;
	return r << 16 | g << 8 | 50u;
}

static void
assert_frame(GstSample *sample, expected_fn expected, const char *what)
{
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstMapInfo map;
	g_assert_true(gst_buffer_map(buffer, &map, GST_MAP_READ));
	g_assert_cmpuint(map.size, ==, W * H * 4);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			const guint8 *p = map.data + (y * W + x) * 4;
			guint32 got = (guint32)p[2] << 16 | (guint32)p[1] << 8 | p[0];
			if (got != expected(x, y))
				g_error("%s: %06x at %d,%d, not %06x", what, got, x, y,
					expected(x, y));
		}
	}
	gst_buffer_unmap(buffer, &map);
}

/* Frames that lie, each dropped. */
static GstBuffer *
bad_frame(int which)
{
	GByteArray *a = g_byte_array_new();
	switch (which) {
	case 0: /* the size says more than there is */
		flat_block(a, REPEAT(1), 1);
		return frame(RGB_FLAGS | I_FRAME, W, H, a, 2);
	case 1: /* the data ends inside the first plane */
		flat_block(a, 0, 1);
		return frame(RGB_FLAGS | I_FRAME, W, H, a, 0);
	case 2: /* runs of zeros past the end of a block */
		put16(a, 0);
		for (int i = 0; i < 5; i++)
			put16(a, coeff(14, 1));
		return frame(RGB_FLAGS | I_FRAME, W, H, a, 0);
	case 3: /* a huge picture */
		flat_block(a, 0, 1);
		return frame(RGB_FLAGS | I_FRAME, 1u << 30, H, a, 0);
	case 4: /* YUV 4:2:0 */
		flat_block(a, 0, 1);
		return frame(2u << 16 | 1u << 19 | I_FRAME, W, H, a, 0);
	default: { /* no more than a header's first bytes */
		g_byte_array_append(a, (const guint8 *)"\x4f\x4f\x4f\x4f", 4);
		gsize len = a->len;
		return gst_buffer_new_wrapped(g_byte_array_free(a, FALSE), len);
	}
	}
}

#define BAD_FRAMES 6

static void
test_decode(void)
{
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch("appsrc name=src format=time caps=\"video/x-fwht,"
		"parsed=(boolean)true,width=16,height=8,framerate=10/1\" ! " UMMS_TEST_FWHT_DEC
		" name=dec max-errors=-1 ! appsink name=sink sync=false", &error);
	g_assert_no_error(error);
	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	/* A good frame, the bad ones, the P-frame (predicted from the last good one), again. */
	GstBuffer *buffers[3 + BAD_FRAMES];
	int n = 0;
	buffers[n++] = intra_frame();
	for (int i = 0; i < BAD_FRAMES; i++)
		buffers[n++] = bad_frame(i);
	buffers[n++] = predicted_frame();
	buffers[n++] = intra_frame();
	for (int i = 0; i < n; i++) {
		GST_BUFFER_PTS(buffers[i]) = (GstClockTime)i * GST_SECOND / 10;
		GST_BUFFER_DURATION(buffers[i]) = GST_SECOND / 10;
		g_assert_cmpint(gst_app_src_push_buffer(GST_APP_SRC(src), buffers[i]), ==,
			GST_FLOW_OK);
	}
	gst_app_src_end_of_stream(GST_APP_SRC(src));
	static const expected_fn expected[] = { intra_pixel, predicted_pixel, intra_pixel };
	static const char *const names[] = { "I-frame", "P-frame", "I-frame again" };
	for (size_t i = 0; i < G_N_ELEMENTS(expected); i++) {
		GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
			10 * GST_SECOND);
		if (!sample)
			g_error("no %s from the decoder", names[i]);
		assert_frame(sample, expected[i], names[i]);
		gst_sample_unref(sample);
	}
	g_assert_null(gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND));
	g_assert_true(gst_app_sink_is_eos(GST_APP_SINK(sink)));
	/* Each bad frame dropped (a QoS message says so), no error. */
	GstBus *bus = gst_element_get_bus(pipeline);
	unsigned dropped = 0;
	GstMessage *message;
	while ((message = gst_bus_pop_filtered(bus, GST_MESSAGE_QOS | GST_MESSAGE_ERROR))) {
		if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
			g_autoptr(GError) e = NULL;
			g_autofree char *debug = NULL;
			gst_message_parse_error(message, &e, &debug);
			g_error("error: %s (%s)", e->message, debug);
		}
		dropped++;
		gst_message_unref(message);
	}
	g_assert_cmpuint(dropped, ==, BAD_FRAMES);
	gst_object_unref(bus);
	gst_object_unref(src);
	gst_object_unref(sink);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

/* Header flags the parser must not take for the I-frame flag. */
#define INTERLACED 1u

static void
test_parse(void)
{
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch("appsrc name=src caps=video/x-fwht ! "
		"ummsfwhtparse ! appsink name=sink sync=false", &error);
	g_assert_no_error(error);
	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	/* I, P, I with bit 0 set, P with bit 0 set: one stream, pushed in 7-byte pieces. */
	GByteArray *one = g_byte_array_new();
	GstBuffer *frames[] = { intra_frame(), predicted_frame(), NULL, NULL };
	GByteArray *data = g_byte_array_new();
	flat_block(data, REPEAT(1), 90);
	flat_block(data, REPEAT(1), 90);
	flat_block(data, REPEAT(1), 90);
	frames[2] = frame(RGB_FLAGS | I_FRAME | INTERLACED, W, H, data, 0);
	data = g_byte_array_new();
	flat_block(data, REPEAT(1), 90);
	flat_block(data, REPEAT(1), 90);
	flat_block(data, REPEAT(1), 90);
	frames[3] = frame(RGB_FLAGS | INTERLACED, W, H, data, 0);
	gsize sizes[G_N_ELEMENTS(frames)];
	for (size_t i = 0; i < G_N_ELEMENTS(frames); i++) {
		sizes[i] = gst_buffer_get_size(frames[i]);
		GstMapInfo map;
		g_assert_true(gst_buffer_map(frames[i], &map, GST_MAP_READ));
		g_byte_array_append(one, map.data, (guint)map.size);
		gst_buffer_unmap(frames[i], &map);
		gst_buffer_unref(frames[i]);
	}
	for (guint at = 0; at < one->len; at += 7) {
		guint n = MIN(7u, one->len - at);
		GstBuffer *piece = gst_buffer_new_memdup(one->data + at, n);
		g_assert_cmpint(gst_app_src_push_buffer(GST_APP_SRC(src), piece), ==, GST_FLOW_OK);
	}
	g_byte_array_unref(one);
	gst_app_src_end_of_stream(GST_APP_SRC(src));
	static const bool delta[] = { false, true, false, true };
	for (size_t i = 0; i < G_N_ELEMENTS(delta); i++) {
		GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
			10 * GST_SECOND);
		if (!sample)
			g_error("frame %zu not parsed", i);
		GstBuffer *buffer = gst_sample_get_buffer(sample);
		g_test_message("frame %zu: %zu bytes, delta %d", i, gst_buffer_get_size(buffer),
			GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT));
		g_assert_cmpuint(gst_buffer_get_size(buffer), ==, sizes[i]);
		g_assert_cmpint(GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT), ==,
			delta[i]);
		gst_sample_unref(sample);
	}
	g_assert_null(gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND));
	g_assert_true(gst_app_sink_is_eos(GST_APP_SINK(sink)));
	gst_object_unref(src);
	gst_object_unref(sink);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	gst_init(NULL, NULL);
	g_assert_true(umms_test_fwht_dec_register(NULL));
	g_assert_true(umms_test_fwht_register(NULL));
	g_test_add_func("/fwht-dec/decode", test_decode);
	g_test_add_func("/fwht-dec/parse", test_parse);
	return g_test_run();
}
