/*
 * A test-only element of class Hardware without hardware:
 * ummstesthwh264dec, avdec_h264 inside a bin of class
 * Codec/Decoder/Video/Hardware, ranked above avdec_h264 so decodebin tries
 * it first where the resource manager lets the player plug it. A plugin of
 * its own (hw-plugin/) on tests/test-hardware.c's GST_PLUGIN_PATH; a test
 * that wants it out of the way sets engine.disable-decoders=ummstesthwh264dec.
 */
#ifndef UMMS_TESTS_HW_DEC_H
#define UMMS_TESTS_HW_DEC_H

#include <stdbool.h>
#include <gst/gst.h>

#define UMMS_TEST_HW_DEC "ummstesthwh264dec"

/* Registers it with @plugin; false if GStreamer refused it. */
bool umms_test_hw_dec_register(GstPlugin *plugin);

#endif
