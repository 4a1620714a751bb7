/*
 * The tests' Hardware-class H.264 decoder (hw-dec.h) as a GStreamer plugin
 * of its own (ummstesthw), for tests/test-hardware.c only: ranked above
 * avdec_h264, it would take every H.264 stream of any program whose
 * GST_PLUGIN_PATH named it. The test program and its engine workers load
 * it alike.
 */
#include <gst/gst.h>

#include "../hw-dec.h"

#define PACKAGE "umms-tests"

static gboolean
plugin_init(GstPlugin *plugin)
{
	return umms_test_hw_dec_register(plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, ummstesthw,
	"A hardware decoder without hardware (umms tests only)", plugin_init, "1.0", "LGPL",
	PACKAGE, "https://example.invalid/umms")
