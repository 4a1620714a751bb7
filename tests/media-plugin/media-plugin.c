/*
 * The tests' GStreamer plugin of media elements (ummstestmedia), loaded
 * from GST_PLUGIN_PATH by the test programs that name its folder and by the
 * engine workers their ummsd starts, so that a worker plugs what the test
 * program itself would:
 *
 *   ummsdmabufsrc  raw video in dma-buf memory (dmabuf-src.h)
 *   umms-fwht      a typefinder of raw FWHT streams, and
 *   ummsfwhtparse  their parser (fwht-parse.h)
 *   ummsfwhtdec    FWHT decoded in software (fwht-dec.h)
 *
 * (The Hardware-class H.264 decoder of tests/test-hardware.c is a plugin of
 * its own, hw-plugin/.)
 */
#include <gst/gst.h>

#include "../dmabuf-src.h"
#include "../fwht-dec.h"
#include "../fwht-parse.h"

#define PACKAGE "umms-tests"

static gboolean
plugin_init(GstPlugin *plugin)
{
	return umms_test_dmabuf_src_register(plugin) && umms_test_fwht_register(plugin) &&
		umms_test_fwht_dec_register(plugin);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, ummstestmedia,
	"Media elements of the umms tests only", plugin_init, "1.0", "LGPL", PACKAGE,
	"https://example.invalid/umms")
