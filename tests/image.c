/* Screenshots and pictures for tests: see image.h. */
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "harness.h"
#include "image.h"

struct umms_test_image {
	int width, height;
	uint8_t *rgb;          /* packed, width * 3 bytes a row */
};

bool
umms_test_color_near(uint32_t a, uint32_t b, int tolerance)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int diff = (int)((a >> shift) & 0xff) - (int)((b >> shift) & 0xff);
		if (ABS(diff) > tolerance)
			return false;
	}
	return true;
}

/* A pipeline from a description with elements named src and sink; NULL with @error. */
static GstElement *
make_pipeline(const char *description, GstElement **src, GstElement **sink, GError **error)
{
	if (!gst_is_initialized())
		gst_init(NULL, NULL);
	GstElement *pipeline = gst_parse_launch_full(description, NULL,
		GST_PARSE_FLAG_FATAL_ERRORS, error);
	if (!pipeline)
		return NULL;
	*src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	*sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	/* The pipeline keeps them alive. */
	gst_object_unref(*src);
	gst_object_unref(*sink);
	return pipeline;
}

/* The error @pipeline posted (or that no picture came out) as "@what: ..." in @error. */
static void
pipeline_error(GstElement *pipeline, const char *what, GError **error)
{
	g_autoptr(GstBus) bus = gst_element_get_bus(pipeline);
	g_autoptr(GstMessage) message = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
	g_autoptr(GError) gst_error = NULL;
	if (message)
		gst_message_parse_error(message, &gst_error, NULL);
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", what,
		gst_error ? gst_error->message : "no picture came out");
}

struct umms_test_image *
umms_test_image_load_file(const char *path, GError **error)
{
	GstElement *src, *sink;
	GstElement *pipeline = make_pipeline("filesrc name=src ! pngdec ! videoconvert "
		"! appsink name=sink caps=video/x-raw,format=RGB sync=false", &src, &sink, error);
	if (!pipeline)
		return NULL;
	/* The whole file in one buffer: pngdec merges small ones over and over. */
	GStatBuf st;
	guint blocksize = g_stat(path, &st) == 0 && st.st_size > 0 ? (guint)st.st_size : 4096;
	g_object_set(src, "location", path, "blocksize", blocksize, NULL);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
	struct umms_test_image *image = NULL;
	GstVideoInfo info;
	GstVideoFrame frame;
	if (sample && gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
			gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample),
				GST_MAP_READ)) {
		image = g_new0(struct umms_test_image, 1);
		image->width = GST_VIDEO_INFO_WIDTH(&info);
		image->height = GST_VIDEO_INFO_HEIGHT(&info);
		image->rgb = g_malloc((size_t)image->width * image->height * 3);
		const uint8_t *data = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
		int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
		for (int y = 0; y < image->height; y++)
			memcpy(image->rgb + (size_t)y * image->width * 3,
				data + (size_t)y * stride, (size_t)image->width * 3);
		gst_video_frame_unmap(&frame);
	} else {
		g_autofree char *what = g_strdup_printf("cannot decode %s", path);
		pipeline_error(pipeline, what, error);
	}
	if (sample)
		gst_sample_unref(sample);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	return image;
}

struct umms_test_image *
umms_test_image_load(const char *png_path)
{
	GError *error = NULL;
	struct umms_test_image *image = umms_test_image_load_file(png_path, &error);
	if (!image)
		g_error("%s", error->message);
	return image;
}

void
umms_test_image_free(struct umms_test_image *image)
{
	if (!image)
		return;
	g_free(image->rgb);
	g_free(image);
}

int
umms_test_image_width(const struct umms_test_image *image)
{
	return image->width;
}

int
umms_test_image_height(const struct umms_test_image *image)
{
	return image->height;
}

uint32_t
umms_test_image_pixel(const struct umms_test_image *image, int x, int y)
{
	if (x < 0 || y < 0 || x >= image->width || y >= image->height)
		g_error("pixel (%d,%d) is outside the %dx%d image", x, y, image->width,
			image->height);
	const uint8_t *p = image->rgb + ((size_t)y * image->width + x) * 3;
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

bool
umms_test_image_save(const struct umms_test_image *image, const char *png_path)
{
	GError *error = NULL;
	GstElement *src, *sink;
	/* Diagnostics only: fast beats small. */
	GstElement *pipeline = make_pipeline("appsrc name=src format=time "
		"! pngenc compression-level=1 ! filesink name=sink", &src, &sink, &error);
	bool ok = false;
	if (pipeline) {
		GstVideoInfo info;
		gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGB, (guint)image->width,
			(guint)image->height);
		GstCaps *caps = gst_video_info_to_caps(&info);
		g_object_set(src, "caps", caps, NULL);
		gst_caps_unref(caps);
		g_object_set(sink, "location", png_path, NULL);
		GstBuffer *buffer = gst_buffer_new_allocate(NULL, info.size, NULL);
		GstVideoFrame frame;
		gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
		uint8_t *data = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
		int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
		for (int y = 0; y < image->height; y++)
			memcpy(data + (size_t)y * stride, image->rgb + (size_t)y * image->width * 3,
				(size_t)image->width * 3);
		gst_video_frame_unmap(&frame);
		GST_BUFFER_PTS(buffer) = 0;
		gst_element_set_state(pipeline, GST_STATE_PLAYING);
		gst_app_src_push_buffer(GST_APP_SRC(src), buffer);
		gst_app_src_end_of_stream(GST_APP_SRC(src));
		g_autoptr(GstBus) bus = gst_element_get_bus(pipeline);
		g_autoptr(GstMessage) message = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND,
			GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
		ok = message && GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
		if (message && !ok)
			gst_message_parse_error(message, &error, NULL);
		gst_element_set_state(pipeline, GST_STATE_NULL);
		gst_object_unref(pipeline);
	}
	if (!ok)
		g_printerr("cannot save %s: %s\n", png_path, error ? error->message : "timed out");
	g_clear_error(&error);
	return ok;
}

/*
 * Saves @image as <scratch folder>-<what>.png beside the scratch folder (so
 * it outlives it); returns the path, or a note that saving failed.
 */
char *
umms_test_image_save_for_diagnosis(const struct umms_test_image *image, const char *what)
{
	const char *tmpdir = umms_test_tmpdir();
	g_autofree char *parent = tmpdir ? g_path_get_dirname(tmpdir) : g_strdup(g_get_tmp_dir());
	g_autofree char *base = tmpdir ? g_path_get_basename(tmpdir) : g_strdup("umms-test");
	g_autofree char *name = g_strdup(what && *what ? what : "image");
	for (char *c = name; *c; c++)
		if (!g_ascii_isalnum(*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	char *path = g_strdup_printf("%s/%s-%s.png", parent, base, name);
	if (!umms_test_image_save(image, path)) {
		g_free(path);
		return g_strdup("(could not save the image)");
	}
	g_printerr("# saved the image to %s\n", path);
	return path;
}

void
umms_test_image_assert_pixel(const struct umms_test_image *image, int x, int y, uint32_t rgb,
	int tolerance, const char *what)
{
	uint32_t found = umms_test_image_pixel(image, x, y);
	if (umms_test_color_near(found, rgb, tolerance))
		return;
	g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
	g_error("%s: pixel (%d,%d) is #%06x, expected #%06x (±%d per channel); image %dx%d "
		"saved to %s", what, x, y, found, rgb, tolerance, image->width, image->height,
		saved);
}

void
umms_test_image_assert_rect(const struct umms_test_image *image, int x, int y, int w, int h,
	int inset, uint32_t rgb, int tolerance, const char *what)
{
	if (x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > image->width ||
			y + h > image->height)
		g_error("%s: rectangle (%d,%d %dx%d) is not inside the %dx%d image", what, x, y,
			w, h, image->width, image->height);
	int x0 = x + inset, y0 = y + inset, x1 = x + w - inset, y1 = y + h - inset;
	if (inset < 0 || x0 >= x1 || y0 >= y1)
		g_error("%s: rectangle (%d,%d %dx%d) inset by %d has no pixels left", what, x, y,
			w, h, inset);
	unsigned bad = 0;
	int first_x = 0, first_y = 0;
	uint32_t first = 0;
	int min_x = x1, min_y = y1, max_x = x0, max_y = y0;
	for (int py = y0; py < y1; py++) {
		for (int px = x0; px < x1; px++) {
			uint32_t found = umms_test_image_pixel(image, px, py);
			if (umms_test_color_near(found, rgb, tolerance))
				continue;
			if (bad++ == 0) {
				first_x = px;
				first_y = py;
				first = found;
			}
			min_x = MIN(min_x, px);
			min_y = MIN(min_y, py);
			max_x = MAX(max_x, px);
			max_y = MAX(max_y, py);
		}
	}
	if (bad == 0)
		return;
	g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
	g_error("%s: %u of %u pixels of (%d,%d %dx%d) inset by %d are not #%06x (±%d per "
		"channel); the first, (%d,%d), is #%06x; the wrong ones lie within "
		"(%d,%d)-(%d,%d); image %dx%d saved to %s", what, bad,
		(unsigned)((x1 - x0) * (y1 - y0)), x, y, w, h, inset, rgb, tolerance, first_x,
		first_y, first, min_x, min_y, max_x, max_y, image->width, image->height, saved);
}

struct umms_test_image *
umms_test_capture(struct umms_test *t, const char *what, int width, int height)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, "/org/umms/display/0",
		"org.umms.Display1", "Capture", g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	if (width)
		g_assert_cmpint(umms_test_image_width(image), ==, width);
	if (height)
		g_assert_cmpint(umms_test_image_height(image), ==, height);
	return image;
}
