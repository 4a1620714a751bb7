/* PNG files through GStreamer (png.h). */
#include <string.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "error.h"
#include "png.h"

bool
umms_png_write_xrgb(const char *path, const void *pixels, int width, int height,
	uint32_t stride, GError **error)
{
	GstVideoInfo info;
	gst_video_info_set_format(&info, GST_VIDEO_FORMAT_BGRx, (guint)width, (guint)height);
	GstBuffer *buffer = gst_buffer_new_allocate(NULL, (gsize)width * 4 * (gsize)height, NULL);
	GstMapInfo map;
	gst_buffer_map(buffer, &map, GST_MAP_WRITE);
	for (int y = 0; y < height; y++)
		memcpy(map.data + (size_t)y * (size_t)width * 4,
			(const uint8_t *)pixels + (size_t)y * stride, (size_t)width * 4);
	gst_buffer_unmap(buffer, &map);
	GstCaps *caps = gst_video_info_to_caps(&info);
	GstSample *sample = gst_sample_new(buffer, caps, NULL, NULL);
	GstCaps *png_caps = gst_caps_new_empty_simple("image/png");
	GError *err = NULL;
	GstSample *png = gst_video_convert_sample(sample, png_caps, GST_SECOND * 5, &err);
	gst_caps_unref(png_caps);
	gst_sample_unref(sample);
	gst_caps_unref(caps);
	gst_buffer_unref(buffer);
	if (!png) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "PNG encoding: %s",
			err ? err->message : "no encoder");
		g_clear_error(&err);
		return false;
	}
	GstBuffer *bytes = gst_sample_get_buffer(png);
	gst_buffer_map(bytes, &map, GST_MAP_READ);
	bool ok = g_file_set_contents(path, (const char *)map.data, (gssize)map.size, &err);
	gst_buffer_unmap(bytes, &map);
	gst_sample_unref(png);
	if (!ok) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "%s", err->message);
		g_clear_error(&err);
	}
	return ok;
}
