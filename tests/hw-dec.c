/* A hardware decoder that is avdec_h264, for tests (hw-dec.h). */
#include "hw-dec.h"

typedef struct {
	GstBin parent;
} UmmsTestHwDec;

typedef struct {
	GstBinClass parent_class;
} UmmsTestHwDecClass;

static GType umms_test_hw_dec_get_type(void);
G_DEFINE_TYPE(UmmsTestHwDec, umms_test_hw_dec, GST_TYPE_BIN)

static GstStaticPadTemplate hw_sink = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-h264, alignment=(string)au, "
		"stream-format=(string){ avc, byte-stream }"));
static GstStaticPadTemplate hw_src = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw"));

static void
umms_test_hw_dec_init(UmmsTestHwDec *self)
{
	GstElement *decoder = gst_element_factory_make("avdec_h264", NULL);
	if (!decoder) {
		GST_ELEMENT_ERROR(self, CORE, MISSING_PLUGIN, ("no avdec_h264"), (NULL));
		return;
	}
	gst_bin_add(GST_BIN(self), decoder);
	GstElementClass *klass = GST_ELEMENT_GET_CLASS(self);
	static const char *const names[] = { "sink", "src" };
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GstPad *target = gst_element_get_static_pad(decoder, names[i]);
		GstPad *ghost = gst_ghost_pad_new_from_template(names[i], target,
			gst_element_class_get_pad_template(klass, names[i]));
		gst_element_add_pad(GST_ELEMENT(self), ghost);
		gst_object_unref(target);
	}
}

static void
umms_test_hw_dec_class_init(UmmsTestHwDecClass *klass)
{
	GstElementClass *element = GST_ELEMENT_CLASS(klass);
	gst_element_class_add_static_pad_template(element, &hw_sink);
	gst_element_class_add_static_pad_template(element, &hw_src);
	gst_element_class_set_static_metadata(element, "Test hardware H.264 decoder",
		"Codec/Decoder/Video/Hardware", "avdec_h264 in the class of a hardware decoder",
		"umms tests");
}

bool
umms_test_hw_dec_register(GstPlugin *plugin)
{
	/* Above avdec_h264 (primary): decodebin tries it first. */
	return gst_element_register(plugin, UMMS_TEST_HW_DEC, GST_RANK_PRIMARY + 10,
		umms_test_hw_dec_get_type());
}
