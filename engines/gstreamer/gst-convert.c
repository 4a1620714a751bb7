/*
 * The colour conversion in front of the video sink (gst-convert.h). Why
 * ours: GStreamer 1.22's videoconvert converts 4:2:0 to BGRx with ORC
 * programs of SSE width, 1,920x1,080, 250 frames, in 0.50 s of CPU and up
 * to 5 steps off the exact colours; libyuv (AVX2) in 0.11 s, and with U
 * made up for its blue factor (u_fix()) within 2 (test convert). Metas
 * without tags, or tagged video or colorspace only, ride along (the
 * subtitles' overlay composition, the cue placement).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/video/video.h>
#include <libyuv/convert_argb.h>

#include "gst-private.h"
#include "log.h"

/* How libyuv converts a stream's frames. */
struct yuv {
	const struct YuvConstants *matrix;  /* NULL: libyuv has not its matrix */
	/* U corrected for libyuv's blue (u_fix()), into @scratch, when @fix_u. */
	bool fix_u;
	guint8 u_table[256];
	guint8 *scratch;
	gsize scratch_size;
};

typedef struct {
	GstVideoFilter parent;
	struct yuv yuv;
	GstVideoConverter *converter;       /* where libyuv has not the matrix */
} UmmsConvert;

typedef struct {
	GstVideoFilterClass parent_class;
} UmmsConvertClass;

static GType umms_convert_get_type(void);
G_DEFINE_TYPE(UmmsConvert, umms_convert, GST_TYPE_VIDEO_FILTER)

static const GstVideoFormat yuv_formats[] = {
	GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12,
};
static const GstVideoFormat rgb_formats[] = { GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_BGRA };

static bool
format_in(const char *name, const GstVideoFormat *formats, size_t n)
{
	GstVideoFormat format = name ? gst_video_format_from_string(name) : GST_VIDEO_FORMAT_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		if (formats[i] == format)
			return true;
	}
	return false;
}

/* System memory, with or without the overlay composition meta: what libyuv reads and writes. */
static bool
features_ours(GstCapsFeatures *features)
{
	if (!features || gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
		return true;
	for (guint i = 0; i < gst_caps_features_get_size(features); i++) {
		const char *name = gst_caps_features_get_nth(features, i);
		if (strcmp(name, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY) != 0 &&
				strcmp(name, GST_CAPS_FEATURE_META_GST_VIDEO_OVERLAY_COMPOSITION) != 0)
			return false;
	}
	return true;
}

/* @s with each of @formats, the colour fields dropped (they differ between YUV and RGB). */
static void
append_as(GstCaps *out, const GstStructure *s, GstCapsFeatures *features,
	const GstVideoFormat *formats, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		GstStructure *copy = gst_structure_copy(s);
		gst_structure_set(copy, "format", G_TYPE_STRING,
			gst_video_format_to_string(formats[i]), NULL);
		gst_structure_remove_fields(copy, "colorimetry", "chroma-site", NULL);
		gst_caps_append_structure_full(out, copy,
			features ? gst_caps_features_copy(features) : NULL);
	}
}

/*
 * Towards the sink (@direction GST_PAD_SINK: @caps are our input): 4:2:0
 * YUV becomes BGRx or BGRA, first, or stays as it is. Towards the source:
 * BGRx or BGRA may come from those, or as they are. Anything else: as it is.
 */
static GstCaps *
convert_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
	GstCaps *filter)
{
	GstCaps *out = gst_caps_new_empty();
	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		const GstStructure *s = gst_caps_get_structure(caps, i);
		GstCapsFeatures *features = gst_caps_get_features(caps, i);
		const char *format = gst_structure_get_string(s, "format");
		bool ours = features_ours(features) && gst_structure_has_name(s, "video/x-raw");
		if (ours && direction == GST_PAD_SINK &&
				format_in(format, yuv_formats, G_N_ELEMENTS(yuv_formats)))
			append_as(out, s, features, rgb_formats, G_N_ELEMENTS(rgb_formats));
		gst_caps_append_structure_full(out, gst_structure_copy(s),
			features ? gst_caps_features_copy(features) : NULL);
		if (ours && direction == GST_PAD_SRC &&
				format_in(format, rgb_formats, G_N_ELEMENTS(rgb_formats)))
			append_as(out, s, features, yuv_formats, G_N_ELEMENTS(yuv_formats));
	}
	if (filter) {
		GstCaps *both = gst_caps_intersect_full(filter, out, GST_CAPS_INTERSECT_FIRST);
		gst_caps_unref(out);
		out = both;
	}
	return out;
}

/* libyuv's constants for @info's matrix and range; NULL if it has none. */
static const struct YuvConstants *
matrix_for(const GstVideoInfo *info)
{
	bool full = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
	switch (info->colorimetry.matrix) {
	case GST_VIDEO_COLOR_MATRIX_BT601:
		return full ? &kYuvJPEGConstants : &kYuvI601Constants;
	case GST_VIDEO_COLOR_MATRIX_BT709:
		return full ? &kYuvF709Constants : &kYuvH709Constants;
	case GST_VIDEO_COLOR_MATRIX_BT2020:
		return full ? &kYuvV2020Constants : &kYuv2020Constants;
	default:
		return NULL;
	}
}

/*
 * libyuv multiplies U by a signed byte in 64ths for blue, so a factor above
 * 2 is cut to 2: for limited range BT.709 (2.112) blue came out up to 12
 * steps off in saturated colours, BT.2020 (2.142) 13, BT.601 (2.018) 2.
 * U is scaled by the rest beforehand (its plane is a quarter of the
 * picture); green, which takes a fifth of U, moves by a step at most.
 */
static void
u_fix(struct yuv *self, const GstVideoInfo *in)
{
	double kr, kb, blue = 2.0;
	/* Limited range stretches 224 steps of U over 255. */
	if (in->colorimetry.range != GST_VIDEO_COLOR_RANGE_0_255 &&
			gst_video_color_matrix_get_Kr_Kb(in->colorimetry.matrix, &kr, &kb))
		blue = 2.0 * (1 - kb) * 255 / 224;
	self->fix_u = blue > 2.0;
	for (int u = 0; u < 256; u++) {
		double v = 128 + (u - 128) * blue / 2.0 + 0.5;
		self->u_table[u] = (guint8)CLAMP(v, 0, 255);
	}
}

/* @src's chroma (@rows of @width bytes, @stride apart) with U corrected, in @self's scratch. */
static const guint8 *
u_fixed(struct yuv *self, const guint8 *src, int stride, int width, int rows, int step)
{
	gsize size = (gsize)width * (gsize)rows;
	if (self->scratch_size < size) {
		g_free(self->scratch);
		self->scratch = g_malloc(size);
		self->scratch_size = size;
	}
	for (int y = 0; y < rows; y++) {
		const guint8 *row = src + (gsize)y * (gsize)stride;
		guint8 *out = self->scratch + (gsize)y * (gsize)width;
		/* U through the table; V, between U's in NV12, as it is. */
		for (int x = 0; x < width; x += step) {
			out[x] = self->u_table[row[x]];
			if (step == 2 && x + 1 < width)
				out[x + 1] = row[x + 1];
		}
	}
	return self->scratch;
}

static void
yuv_init(struct yuv *self, const GstVideoInfo *in)
{
	self->matrix = matrix_for(in);
	u_fix(self, in);
}

static gboolean
convert_set_info(GstVideoFilter *filter, GstCaps *incaps, GstVideoInfo *in, GstCaps *outcaps,
	GstVideoInfo *out)
{
	UmmsConvert *self = (UmmsConvert *)filter;
	g_clear_pointer(&self->converter, gst_video_converter_free);
	self->yuv.matrix = NULL;
	if (gst_video_info_is_equal(in, out)) {
		gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(filter), TRUE);
		return TRUE;
	}
	gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(filter), FALSE);
	/* Only what transform_caps() offers: 4:2:0 in, BGRx or BGRA out, the same size. */
	if (!format_in(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(in)), yuv_formats,
			G_N_ELEMENTS(yuv_formats)) ||
			!format_in(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out)), rgb_formats,
				G_N_ELEMENTS(rgb_formats)) ||
			in->width != out->width || in->height != out->height ||
			in->interlace_mode != out->interlace_mode)
		return FALSE;
	yuv_init(&self->yuv, in);
	if (!self->yuv.matrix) {
		/* One thread, as playbin's videoconvert converts. */
		GstStructure *config = gst_structure_new("umms-convert",
			GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1, NULL);
		self->converter = gst_video_converter_new(in, out, config);
		if (!self->converter)
			return FALSE;
	}
	umms_debug("video converted %s -> %s by %s", gst_video_format_to_string(in->finfo->format),
		gst_video_format_to_string(out->finfo->format),
		self->yuv.matrix ? "libyuv" : "GStreamer's converter (a matrix libyuv lacks)");
	return TRUE;
}

/* @in (4:2:0) into @out (BGRx or BGRA) with @self's matrix; libyuv's status (0: done). */
static int
yuv_convert(struct yuv *self, const GstVideoFrame *in, GstVideoFrame *out)
{
	int width = GST_VIDEO_FRAME_WIDTH(in), height = GST_VIDEO_FRAME_HEIGHT(in);
	uint8_t *dst = GST_VIDEO_FRAME_PLANE_DATA(out, 0);
	int dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE(out, 0);
	const uint8_t *y = GST_VIDEO_FRAME_COMP_DATA(in, GST_VIDEO_COMP_Y);
	int y_stride = GST_VIDEO_FRAME_COMP_STRIDE(in, GST_VIDEO_COMP_Y);
	int chroma_width = (width + 1) / 2, chroma_rows = (height + 1) / 2;
	const guint8 *u = GST_VIDEO_FRAME_COMP_DATA(in, GST_VIDEO_COMP_U);
	int u_stride = GST_VIDEO_FRAME_COMP_STRIDE(in, GST_VIDEO_COMP_U);
	if (GST_VIDEO_FRAME_FORMAT(in) == GST_VIDEO_FORMAT_NV12) {
		/* U and V interleaved: every other byte is U. */
		if (self->fix_u) {
			u = u_fixed(self, u, u_stride, chroma_width * 2, chroma_rows, 2);
			u_stride = chroma_width * 2;
		}
		return NV12ToARGBMatrix(y, y_stride, u, u_stride, dst, dst_stride, self->matrix,
			width, height);
	}
	if (self->fix_u) {
		u = u_fixed(self, u, u_stride, chroma_width, chroma_rows, 1);
		u_stride = chroma_width;
	}
	return I420ToARGBMatrix(y, y_stride, u, u_stride,
		GST_VIDEO_FRAME_COMP_DATA(in, GST_VIDEO_COMP_V),
		GST_VIDEO_FRAME_COMP_STRIDE(in, GST_VIDEO_COMP_V), dst, dst_stride, self->matrix,
		width, height);
}

static GstFlowReturn
convert_transform_frame(GstVideoFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
	UmmsConvert *self = (UmmsConvert *)filter;
	if (self->converter) {
		gst_video_converter_frame(self->converter, in, out);
		return GST_FLOW_OK;
	}
	if (yuv_convert(&self->yuv, in, out) != 0) {
		GST_ELEMENT_ERROR(filter, STREAM, FORMAT, (NULL),
			("libyuv could not convert a %dx%d frame", GST_VIDEO_FRAME_WIDTH(in),
			GST_VIDEO_FRAME_HEIGHT(in)));
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

/* As videoconvert: metas of no size or orientation (overlays, our cue placement). */
static gboolean
convert_transform_meta(GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
	GstBuffer *inbuf)
{
	const char *const *tags = gst_meta_api_type_get_tags(meta->info->api);
	for (; tags && *tags; tags++) {
		if (strcmp(*tags, GST_META_TAG_VIDEO_STR) != 0 &&
				strcmp(*tags, GST_META_TAG_VIDEO_COLORSPACE_STR) != 0)
			return FALSE;
	}
	return TRUE;
}

static void
convert_finalize(GObject *object)
{
	UmmsConvert *self = (UmmsConvert *)object;
	g_clear_pointer(&self->converter, gst_video_converter_free);
	g_free(self->yuv.scratch);
	G_OBJECT_CLASS(umms_convert_parent_class)->finalize(object);
}

static void
umms_convert_class_init(UmmsConvertClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = convert_finalize;
	GstElementClass *element = GST_ELEMENT_CLASS(klass);
	gst_element_class_set_static_metadata(element, "umms colour conversion",
		"Filter/Converter/Video", "4:2:0 YUV to BGRx or BGRA with libyuv, others as they are",
		"umms");
	GstCaps *any = gst_caps_from_string("video/x-raw(ANY)");
	gst_element_class_add_pad_template(element,
		gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, any));
	gst_element_class_add_pad_template(element,
		gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, any));
	gst_caps_unref(any);
	GstBaseTransformClass *trans = GST_BASE_TRANSFORM_CLASS(klass);
	trans->transform_caps = convert_transform_caps;
	trans->transform_meta = convert_transform_meta;
	trans->passthrough_on_same_caps = TRUE;
	GstVideoFilterClass *filter = GST_VIDEO_FILTER_CLASS(klass);
	filter->set_info = convert_set_info;
	filter->transform_frame = convert_transform_frame;
}

static void
umms_convert_init(UmmsConvert *self)
{
}

GstElement *
gst_convert_new(const char *name)
{
	return g_object_new(umms_convert_get_type(), "name", name, NULL);
}

bool
gst_convert_warm_up(GstBuffer *buffer, GstCaps *caps)
{
	GstVideoInfo in, out;
	if (!caps || !gst_video_info_from_caps(&in, caps) ||
			!format_in(gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&in)), yuv_formats,
				G_N_ELEMENTS(yuv_formats)))
		return false;
	struct yuv yuv = { 0 };
	yuv_init(&yuv, &in);
	if (!yuv.matrix)
		return false;
	gst_video_info_set_format(&out, GST_VIDEO_FORMAT_BGRx, (guint)GST_VIDEO_INFO_WIDTH(&in),
		(guint)GST_VIDEO_INFO_HEIGHT(&in));
	GstBuffer *target = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&out), NULL);
	GstVideoFrame src, dest;
	bool ok = false;
	if (gst_video_frame_map(&src, &in, buffer, GST_MAP_READ)) {
		if (gst_video_frame_map(&dest, &out, target, GST_MAP_WRITE)) {
			ok = yuv_convert(&yuv, &src, &dest) == 0;
			gst_video_frame_unmap(&dest);
		}
		gst_video_frame_unmap(&src);
	}
	gst_buffer_unref(target);
	g_free(yuv.scratch);
	return ok;
}
