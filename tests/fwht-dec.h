/*
 * A test-only software decoder for FWHT, vicodec's format (Linux's virtual
 * V4L2 codec): GStreamer has none, and a player that loses vicodec's
 * hardware decoder must go on in software. ummsfwhtdec is a GstVideoDecoder
 * of class Codec/Decoder/Video (not Hardware) for parsed video/x-fwht
 * (tests/fwht-parse.c frames the stream), ranked below v4l2fwhtdec. It
 * decodes the RGB streams vicodec makes of RGB frames (3 or 4 planes, full
 * size, I- and P-frames) to BGRx, and refuses any other.
 */
#ifndef UMMS_TESTS_FWHT_DEC_H
#define UMMS_TESTS_FWHT_DEC_H

#include <stdbool.h>
#include <gst/gst.h>

#define UMMS_TEST_FWHT_DEC "ummsfwhtdec"

/*
 * Registers ummsfwhtdec with @plugin (the tests' plugin, media-plugin/;
 * NULL: in this process only), after gst_init; false if refused.
 */
bool umms_test_fwht_dec_register(GstPlugin *plugin);

#endif
