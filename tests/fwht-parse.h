/*
 * A test-only GStreamer plugin for raw FWHT streams (vicodec's format): a
 * typefinder and a parser, so decodebin plugs v4l2fwhtdec on a file
 * v4l2fwhtenc wrote. Part of the tests' GStreamer plugin (media-plugin/),
 * so that engine workers plug it as the test program does.
 */
#ifndef UMMS_TESTS_FWHT_PARSE_H
#define UMMS_TESTS_FWHT_PARSE_H

#include <stdbool.h>
#include <gst/gst.h>

/* The frame rate the parser gives a raw stream (it carries none). */
#define UMMS_TEST_FWHT_FPS 10

/*
 * Registers the typefinder and ummsfwhtparse with @plugin (NULL: in this
 * process only); false if GStreamer refused them.
 */
bool umms_test_fwht_register(GstPlugin *plugin);

/*
 * Fails the test unless the typefinder, ummsfwhtparse and ummsfwhtdec are
 * in GStreamer's registry: the tests' plugin, whose folder the program's
 * GST_PLUGIN_PATH names so that its engine workers have them too. After
 * gst_init.
 */
void umms_test_fwht_require(void);

/*
 * videotestsrc's smpte100 bars, @seconds at UMMS_TEST_FWHT_FPS and
 * @width x @height (BGRx), encoded by vicodec (v4l2fwhtenc) into a raw FWHT
 * file at @path; fails the test if it cannot. In the KMS test VM only.
 */
void umms_test_fwht_make_clip(const char *path, int width, int height, int seconds);

/*
 * Every warning fatal but one: GStreamer 1.22's v4l2fwhtdec warns that the
 * frames vicodec never answered were "left undrained after CMD_STOP" (see
 * fwht-parse.c). After umms_test_init(), in place of its fatal warnings.
 */
void umms_test_fwht_log_undrained(void);

#endif
