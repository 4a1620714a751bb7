/*
 * A GStreamer plugin for tests/test-preload.c only: one element of class
 * Codec/Decoder/Video/Hardware, for caps no media has, in a plugin that is
 * slow to load, as nvcodec is while it sets up CUDA. When
 * UMMS_TEST_PLUGIN_GATE names a file, loading the plugin waits until that
 * file exists (at most a minute), so that the test decides when the load
 * ends; without it (the registry scan) it loads at once.
 */
#include <gst/gst.h>

#define PACKAGE "umms-tests"

typedef struct {
	GstElement parent;
} UmmsTestSlowDec;

typedef struct {
	GstElementClass parent_class;
} UmmsTestSlowDecClass;

GType umms_test_slow_dec_get_type(void);

G_DEFINE_TYPE(UmmsTestSlowDec, umms_test_slow_dec, GST_TYPE_ELEMENT)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-umms-test-slow"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw"));

static void
umms_test_slow_dec_class_init(UmmsTestSlowDecClass *klass)
{
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	gst_element_class_set_static_metadata(element_class, "umms test slow decoder",
		"Codec/Decoder/Video/Hardware", "Decodes nothing; its plugin is slow to load",
		"umms");
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);
}

static void
umms_test_slow_dec_init(UmmsTestSlowDec *self)
{
}

static gboolean
plugin_init(GstPlugin *plugin)
{
	const char *gate = g_getenv("UMMS_TEST_PLUGIN_GATE");
	for (int i = 0; gate && i < 6000 && !g_file_test(gate, G_FILE_TEST_EXISTS); i++)
		g_usleep(10000);
	return gst_element_register(plugin, "ummstestslowdec", GST_RANK_NONE,
		umms_test_slow_dec_get_type());
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, ummstestslow,
	"A hardware decoder plugin slow to load (umms tests)", plugin_init, "1.0", "LGPL",
	"umms", "https://example.invalid/umms")
