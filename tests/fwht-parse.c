/*
 * A test-only GStreamer plugin for raw FWHT streams, the format of vicodec
 * (Linux's virtual V4L2 codec): what v4l2fwhtenc writes to a file, with no
 * container. GStreamer 1.22 has neither a typefinder nor a parser for it,
 * so decodebin could not plug v4l2fwhtdec on such a file.
 *
 * Each frame is a header (vicodec's struct fwht_cframe_hdr: two magic
 * words, then big-endian version, width, height, flags, colour fields and
 * the size of the compressed data after the header) and its data. The
 * typefinder knows the stream by the magic; the parser cuts it into frames
 * and says video/x-fwht with the header's size and a fixed frame rate
 * (the stream carries none), as v4l2fwhtdec takes it.
 */
#include <stdlib.h>
#include <string.h>
#include <gst/base/base.h>

#include "fwht-parse.h"

#define HEADER_SIZE 44u /* 11 32-bit words */
#define MAGIC1 0x4f4f4f4fu
#define MAGIC2 0xffffffffu
/*
 * Header flags (V4L2_FWHT_FL_* in linux/v4l2-controls.h): vicodec sets
 * I_FRAME on a frame coded by itself; one without it is predicted from the
 * one before. (Bit 0 is IS_INTERLACED; FWHT_FRAME_PCODED in vicodec's
 * codec-fwht.h is the encoder's own return value, not a header flag.)
 */
#define FLAG_I_FRAME (1u << 10)
#define MAX_FRAME (64u << 20)

/* Byte by byte: headers in the stream need not be aligned. */
static guint32
read_be32(const guint8 *data)
{
	return (guint32)data[0] << 24 | (guint32)data[1] << 16 | (guint32)data[2] << 8 | data[3];
}

static bool
is_header(const guint8 *data)
{
	return read_be32(data) == MAGIC1 && read_be32(data + 4) == MAGIC2;
}

static void
fwht_typefind(GstTypeFind *find, gpointer data)
{
	const guint8 *header = gst_type_find_peek(find, 0, HEADER_SIZE);
	if (!header || !is_header(header))
		return;
	guint32 width = read_be32(header + 12);
	guint32 height = read_be32(header + 16);
	if (width == 0 || height == 0)
		return;
	gst_type_find_suggest_simple(find, GST_TYPE_FIND_MAXIMUM, "video/x-fwht",
		"width", G_TYPE_INT, (int)width, "height", G_TYPE_INT, (int)height, NULL);
}

typedef struct {
	GstBaseParse parent;
	guint32 width, height;
} UmmsFwhtParse;

typedef struct {
	GstBaseParseClass parent_class;
} UmmsFwhtParseClass;

static GType umms_fwht_parse_get_type(void);
G_DEFINE_TYPE(UmmsFwhtParse, umms_fwht_parse, GST_TYPE_BASE_PARSE)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-fwht"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-fwht, parsed = (boolean) true"));

static gboolean
fwht_parse_start(GstBaseParse *parse)
{
	UmmsFwhtParse *self = (UmmsFwhtParse *)parse;
	self->width = self->height = 0;
	gst_base_parse_set_min_frame_size(parse, HEADER_SIZE);
	gst_base_parse_set_frame_rate(parse, UMMS_TEST_FWHT_FPS, 1, 0, 0);
	gst_base_parse_set_syncable(parse, TRUE);
	return TRUE;
}

static GstFlowReturn
fwht_parse_handle_frame(GstBaseParse *parse, GstBaseParseFrame *frame, gint *skip)
{
	UmmsFwhtParse *self = (UmmsFwhtParse *)parse;
	GstMapInfo map;
	if (!gst_buffer_map(frame->buffer, &map, GST_MAP_READ))
		return GST_FLOW_ERROR;
	GstFlowReturn ret = GST_FLOW_OK;
	/* Not at a header: skip to the next one that may start. */
	gsize at = 0;
	while (at + 8 <= map.size && !is_header(map.data + at))
		at++;
	if (at > 0) {
		*skip = (gint)at;
		goto out;
	}
	if (map.size < HEADER_SIZE)
		goto out;
	guint32 width = read_be32(map.data + 12);
	guint32 height = read_be32(map.data + 16);
	guint32 flags = read_be32(map.data + 20);
	guint32 size = read_be32(map.data + 40);
	if (size > MAX_FRAME || width == 0 || height == 0) {
		*skip = 1;
		goto out;
	}
	if (map.size < HEADER_SIZE + size) {
		gst_base_parse_set_min_frame_size(parse, HEADER_SIZE + size);
		goto out;
	}
	gst_base_parse_set_min_frame_size(parse, HEADER_SIZE);
	if (width != self->width || height != self->height) {
		self->width = width;
		self->height = height;
		GstCaps *caps = gst_caps_new_simple("video/x-fwht", "parsed", G_TYPE_BOOLEAN, TRUE,
			"width", G_TYPE_INT, (int)width, "height", G_TYPE_INT, (int)height,
			"framerate", GST_TYPE_FRACTION, UMMS_TEST_FWHT_FPS, 1, NULL);
		gst_pad_set_caps(GST_BASE_PARSE_SRC_PAD(parse), caps);
		gst_caps_unref(caps);
	}
	if (!(flags & FLAG_I_FRAME))
		GST_BUFFER_FLAG_SET(frame->buffer, GST_BUFFER_FLAG_DELTA_UNIT);
	else
		GST_BUFFER_FLAG_UNSET(frame->buffer, GST_BUFFER_FLAG_DELTA_UNIT);
	gst_buffer_unmap(frame->buffer, &map);
	return gst_base_parse_finish_frame(parse, frame, (gint)(HEADER_SIZE + size));
out:
	gst_buffer_unmap(frame->buffer, &map);
	return ret;
}

static void
umms_fwht_parse_class_init(UmmsFwhtParseClass *klass)
{
	GstElementClass *element = GST_ELEMENT_CLASS(klass);
	GstBaseParseClass *parse = GST_BASE_PARSE_CLASS(klass);
	gst_element_class_add_static_pad_template(element, &sink_template);
	gst_element_class_add_static_pad_template(element, &src_template);
	gst_element_class_set_static_metadata(element, "FWHT parser (umms tests)",
		"Codec/Parser/Video", "Frames a raw vicodec FWHT stream", "umms");
	parse->start = fwht_parse_start;
	parse->handle_frame = fwht_parse_handle_frame;
}

static void
umms_fwht_parse_init(UmmsFwhtParse *self)
{
}

bool
umms_test_fwht_register(GstPlugin *plugin)
{
	GstCaps *caps = gst_caps_new_empty_simple("video/x-fwht");
	gboolean ok = gst_type_find_register(plugin, "umms-fwht", GST_RANK_PRIMARY, fwht_typefind,
		"fwht", caps, NULL, NULL);
	gst_caps_unref(caps);
	/* Above v4l2fwhtdec (primary + 1): decodebin frames the stream first. */
	return ok && gst_element_register(plugin, "ummsfwhtparse", GST_RANK_PRIMARY + 2,
		umms_fwht_parse_get_type());
}

void
umms_test_fwht_require(void)
{
	static const char *const names[] = { "umms-fwht", "ummsfwhtparse", "ummsfwhtdec" };
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GstPluginFeature *feature = gst_registry_lookup_feature(gst_registry_get(),
			names[i]);
		if (!feature)
			g_error("no %s in GStreamer's registry: GST_PLUGIN_PATH does not name "
				"tests/media-plugin of the build", names[i]);
		gst_object_unref(feature);
	}
}

void
umms_test_fwht_make_clip(const char *path, int width, int height, int seconds)
{
	g_autofree char *description = g_strdup_printf("videotestsrc num-buffers=%d "
		"pattern=smpte100 ! video/x-raw,format=BGRx,width=%d,height=%d,framerate=%d/1 ! "
		"v4l2fwhtenc ! filesink location=%s", seconds * UMMS_TEST_FWHT_FPS, width, height,
		UMMS_TEST_FWHT_FPS, path);
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *message = gst_bus_timed_pop_filtered(bus, 120 * GST_SECOND,
		GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	g_assert_nonnull(message);
	if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
		g_autoptr(GError) failure = NULL;
		g_autofree char *debug = NULL;
		gst_message_parse_error(message, &failure, &debug);
		g_error("encoding the clip with vicodec: %s (%s)", failure->message, debug);
	}
	gst_message_unref(message);
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

/*
 * vicodec answers the frames queued before its first source change with no
 * picture (the stream's first frames are not shown), and GStreamer 1.22's
 * v4l2 decoder warns of them when it drains, when it stops before the end
 * ("initial frames were not dequeued") or, when it runs behind (two
 * decoding at once, a loaded machine), as frames older than the one
 * vicodec gives back ("Too old frames"): a known fault of the virtual
 * driver, not ours. GStreamer logs it structured, which
 * g_test_log_set_fatal_handler() cannot let through; so warnings are taken
 * out of the always-fatal levels and this writer makes every other one
 * fatal, as g_test_init() had.
 */
static GLogWriterOutput
log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	GLogWriterOutput out = g_log_writer_default(level, fields, n_fields, data);
	if (!(level & G_LOG_LEVEL_WARNING))
		return out;
	const char *message = "";
	for (gsize i = 0; i < n_fields; i++) {
		if (strcmp(fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
			message = fields[i].value;
	}
	static const char *const known[] = { "left undrained after CMD_STOP",
		"initial frames were not dequeued", "Too old frames" };
	bool allowed = false;
	for (size_t i = 0; i < G_N_ELEMENTS(known); i++)
		allowed = allowed || strstr(message, known[i]);
	if (!strstr(message, "v4l2fwhtdec") || !allowed)
		abort();
	return out;
}

void
umms_test_fwht_log_undrained(void)
{
	g_log_set_always_fatal(G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
	g_log_set_writer_func(log_writer, NULL, NULL);
}
