/*
 * The engine's colour conversion (engines/gstreamer/gst-convert.c): the
 * same test pattern converted by it and by float arithmetic, every channel
 * within 2 or 3 steps of the exact colour (videoconvert's own is up to 5
 * off), for each 4:2:0 layout it takes, each matrix and range, even and odd
 * sizes, both outputs, BGRA opaque; a matrix libyuv lacks converted by
 * GStreamer's converter to videoconvert's very bytes; anything else passed
 * through byte for byte, or refused.
 */
#include <stdlib.h>
#include <string.h>
#include <gst/app/app.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "gst-convert.h"
#include "harness.h"

/* The one frame @pipeline (its appsink named "out") makes; its caps in @caps. */
static GstBuffer *
frame_of(const char *pipeline, GstCaps **caps)
{
	GError *error = NULL;
	GstElement *p = gst_parse_launch(pipeline, &error);
	g_assert_no_error(error);
	GstElement *out = gst_bin_get_by_name(GST_BIN(p), "out");
	g_assert_cmpint(gst_element_set_state(p, GST_STATE_PLAYING), !=, GST_STATE_CHANGE_FAILURE);
	GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(out), 10 * GST_SECOND);
	if (!sample) {
		GstMessage *m = gst_bus_pop_filtered(GST_ELEMENT_BUS(p), GST_MESSAGE_ERROR);
		GError *e = NULL;
		if (m)
			gst_message_parse_error(m, &e, NULL);
		g_error("%s: no frame (%s)", pipeline, e ? e->message : "no error posted");
	}
	GstBuffer *buffer = gst_buffer_ref(gst_sample_get_buffer(sample));
	*caps = gst_caps_ref(gst_sample_get_caps(sample));
	gst_sample_unref(sample);
	gst_element_set_state(p, GST_STATE_NULL);
	gst_object_unref(out);
	gst_object_unref(p);
	return buffer;
}

/*
 * How @rgb (BGRx or BGRA) differs from the exact conversion of @yuv, both
 * of @caps: the largest difference of a channel, and the share of channels
 * more than 2 apart (@beyond_2). Chroma is taken for the pixel pair and
 * line pair it covers, as libyuv and videoconvert's 4:2:0 paths take it.
 */
static int
max_difference(GstBuffer *yuv, GstCaps *yuv_caps, GstBuffer *rgb, GstCaps *rgb_caps,
	double *beyond_2)
{
	GstVideoInfo in, out;
	g_assert_true(gst_video_info_from_caps(&in, yuv_caps));
	g_assert_true(gst_video_info_from_caps(&out, rgb_caps));
	GstVideoFrame fi, fo;
	g_assert_true(gst_video_frame_map(&fi, &in, yuv, GST_MAP_READ));
	g_assert_true(gst_video_frame_map(&fo, &out, rgb, GST_MAP_READ));
	double kr, kb;
	g_assert_true(gst_video_color_matrix_get_Kr_Kb(in.colorimetry.matrix, &kr, &kb));
	gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
	gst_video_color_range_offsets(in.colorimetry.range, in.finfo, offset, scale);
	int worst = 0, width = GST_VIDEO_INFO_WIDTH(&in), height = GST_VIDEO_INFO_HEIGHT(&in);
	unsigned far = 0;
	for (int y = 0; y < height; y++) {
		const guint8 *row = (const guint8 *)GST_VIDEO_FRAME_PLANE_DATA(&fo, 0) +
			y * GST_VIDEO_FRAME_PLANE_STRIDE(&fo, 0);
		for (int x = 0; x < width; x++) {
			const guint8 *c[3];
			for (int k = 0; k < 3; k++) {
				int sub = k ? 1 : 0;
				c[k] = (const guint8 *)GST_VIDEO_FRAME_COMP_DATA(&fi, k) +
					(y >> sub) * GST_VIDEO_FRAME_COMP_STRIDE(&fi, k) +
					(x >> sub) * GST_VIDEO_FRAME_COMP_PSTRIDE(&fi, k);
			}
			double luma = (double)(*c[0] - offset[0]) / scale[0];
			double cb = (double)(*c[1] - offset[1]) / scale[1];
			double cr = (double)(*c[2] - offset[2]) / scale[2];
			double r = luma + 2 * (1 - kr) * cr, b = luma + 2 * (1 - kb) * cb;
			double g = (luma - kr * r - kb * b) / (1 - kr - kb);
			double want[3] = { b, g, r };  /* BGRx's bytes */
			for (int k = 0; k < 3; k++) {
				int exact = (int)(CLAMP(want[k], 0.0, 1.0) * 255 + 0.5);
				int d = abs(row[x * 4 + k] - exact);
				far += d > 2;
				worst = MAX(worst, d);
			}
		}
	}
	gst_video_frame_unmap(&fi);
	gst_video_frame_unmap(&fo);
	*beyond_2 = (double)far / (width * height * 3);
	return worst;
}

/* videotestsrc's SMPTE bars, moving, in @format, @colorimetry, @width x @height. */
static char *
source(const char *format, const char *colorimetry, int width, int height)
{
	return g_strdup_printf("videotestsrc num-buffers=1 pattern=smpte horizontal-speed=3 ! "
		"video/x-raw,format=%s,colorimetry=%s,width=%d,height=%d,framerate=25/1",
		format, colorimetry, width, height);
}

struct conversion {
	const char *format, *colorimetry, *out;
	int width, height;
	int tolerance;      /* steps a channel may be off the exact conversion; -1: videoconvert's */
};

static void
test_exact(gconstpointer data)
{
	const struct conversion *c = data;
	g_autofree char *src = source(c->format, c->colorimetry, c->width, c->height);
	g_autofree char *ours = g_strdup_printf("%s ! umms-convert ! video/x-raw,format=%s ! "
		"appsink name=out", src, c->out);
	g_autofree char *plain = g_strdup_printf("%s ! appsink name=out", src);
	g_autofree char *theirs = g_strdup_printf("%s ! videoconvert chroma-mode=none ! "
		"video/x-raw,format=%s ! appsink name=out", src, c->out);
	GstCaps *caps_ours, *caps_yuv, *caps_theirs;
	GstBuffer *rgb = frame_of(ours, &caps_ours), *yuv = frame_of(plain, &caps_yuv);
	GstBuffer *reference = frame_of(theirs, &caps_theirs);
	GstVideoInfo info;
	g_assert_true(gst_video_info_from_caps(&info, caps_ours));
	g_assert_cmpstr(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)), ==, c->out);
	g_assert_cmpint(GST_VIDEO_INFO_WIDTH(&info), ==, c->width);
	g_assert_cmpint(GST_VIDEO_INFO_HEIGHT(&info), ==, c->height);
	double beyond, beyond_theirs;
	int worst = max_difference(yuv, caps_yuv, rgb, caps_ours, &beyond);
	int worst_theirs = max_difference(yuv, caps_yuv, reference, caps_theirs, &beyond_theirs);
	g_test_message("%s %s %dx%d -> %s: at most %d from the exact colours, %.2f %% of the "
		"channels more than 2 (videoconvert: %d, %.2f %%)", c->format, c->colorimetry,
		c->width, c->height, c->out, worst, beyond * 100, worst_theirs, beyond_theirs * 100);
	if (strcmp(c->out, "BGRA") == 0) {
		GstMapInfo map;
		g_assert_true(gst_buffer_map(rgb, &map, GST_MAP_READ));
		for (gsize i = 3; i < map.size; i += 4)
			g_assert_cmpuint(map.data[i], ==, 255);
		gst_buffer_unmap(rgb, &map);
	}
	if (c->tolerance < 0) {
		/* GStreamer's converter: videoconvert's very bytes. */
		GstMapInfo map;
		g_assert_true(gst_buffer_map(reference, &map, GST_MAP_READ));
		g_assert_cmpint(gst_buffer_memcmp(rgb, 0, map.data, map.size), ==, 0);
		gst_buffer_unmap(reference, &map);
	} else {
		g_assert_cmpint(worst, <=, c->tolerance);
		g_assert_cmpfloat(beyond, <, 0.01);
	}
	gst_buffer_unref(rgb);
	gst_buffer_unref(yuv);
	gst_buffer_unref(reference);
	gst_caps_unref(caps_ours);
	gst_caps_unref(caps_yuv);
	gst_caps_unref(caps_theirs);
}

/* A format it does not convert, asked for as it is: the same bytes, the same caps. */
static void
test_passthrough(void)
{
	g_autofree char *src = source("Y444", "bt709", 64, 48);
	g_autofree char *ours = g_strdup_printf("%s ! umms-convert ! video/x-raw,format=Y444 ! "
		"appsink name=out", src);
	g_autofree char *plain = g_strdup_printf("%s ! appsink name=out", src);
	GstCaps *caps_ours, *caps_plain;
	GstBuffer *a = frame_of(ours, &caps_ours), *b = frame_of(plain, &caps_plain);
	g_assert_true(gst_caps_is_equal(caps_ours, caps_plain));
	GstMapInfo ma, mb;
	g_assert_true(gst_buffer_map(a, &ma, GST_MAP_READ));
	g_assert_true(gst_buffer_map(b, &mb, GST_MAP_READ));
	g_assert_cmpmem(ma.data, ma.size, mb.data, mb.size);
	gst_buffer_unmap(a, &ma);
	gst_buffer_unmap(b, &mb);
	gst_buffer_unref(a);
	gst_buffer_unref(b);
	gst_caps_unref(caps_ours);
	gst_caps_unref(caps_plain);
}

/* Formats it cannot make fail to negotiate rather than come out wrong. */
static void
test_refuses(void)
{
	GError *error = NULL;
	g_autofree char *src = source("Y444", "bt709", 64, 48);
	g_autofree char *launch = g_strdup_printf("%s ! umms-convert ! video/x-raw,format=BGRx ! "
		"fakesink", src);
	GstElement *p = gst_parse_launch(launch, &error);
	if (error) {
		/* Refused at link time. */
		g_assert_error(error, GST_PARSE_ERROR, GST_PARSE_ERROR_LINK);
		g_error_free(error);
		g_clear_object(&p);
		return;
	}
	/* Or when the first frame's caps come: an error, not a frame. */
	g_assert_cmpint(gst_element_set_state(p, GST_STATE_PLAYING), !=, GST_STATE_CHANGE_FAILURE);
	GstMessage *m = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(p), 10 * GST_SECOND,
		GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
	g_assert_nonnull(m);
	g_assert_cmpint(GST_MESSAGE_TYPE(m), ==, GST_MESSAGE_ERROR);
	gst_message_unref(m);
	gst_element_set_state(p, GST_STATE_NULL);
	gst_object_unref(p);
}

static const struct conversion conversions[] = {
	{ "I420", "bt709", "BGRx", 320, 180, 3 },
	{ "I420", "bt709", "BGRA", 320, 180, 3 },
	{ "I420", "bt601", "BGRx", 161, 91, 3 },
	{ "YV12", "bt601", "BGRx", 320, 180, 3 },
	{ "NV12", "bt709", "BGRx", 320, 180, 3 },
	{ "NV12", "bt709", "BGRx", 161, 91, 3 },
	{ "I420", "bt2020", "BGRx", 320, 180, 3 },
	{ "I420", "jpeg", "BGRx", 320, 180, 3 },        /* BT.601, full range */
	{ "I420", "1:3:5:1", "BGRx", 320, 180, 3 },     /* BT.709, full range */
	/* Not libyuv's: GStreamer's converter, as videoconvert converts. */
	{ "I420", "smpte240m", "BGRx", 320, 180, -1 },
};

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	gst_init(NULL, NULL);
	GstElement *probe = gst_convert_new(NULL);
	g_assert_true(gst_element_register(NULL, "umms-convert", GST_RANK_NONE,
		G_OBJECT_TYPE(probe)));
	gst_object_unref(gst_object_ref_sink(probe));
	for (size_t i = 0; i < G_N_ELEMENTS(conversions); i++) {
		const struct conversion *c = &conversions[i];
		g_autofree char *name = g_strdup_printf("/convert/%s-%s-%dx%d-%s", c->format,
			c->colorimetry, c->width, c->height, c->out);
		g_test_add_data_func(name, c, test_exact);
	}
	g_test_add_func("/convert/passthrough", test_passthrough);
	g_test_add_func("/convert/refuses", test_refuses);
	return g_test_run();
}
