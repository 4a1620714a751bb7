/*
 * What the vicodec tests (test-vicodec.c, test-vicodec-software.c) share:
 * vkms's screen, the clip of videotestsrc's bars that vicodec encodes,
 * ummsd restarted on the screen, and the bars checked in a capture of it.
 * In the KMS test VM only.
 */
#ifndef UMMS_TESTS_VICODEC_UTIL_H
#define UMMS_TESTS_VICODEC_UTIL_H

#include <stdint.h>

#include "harness.h"

/*
 * vkms's preferred mode; the clip at 1:1 in its middle (vkms cannot scale),
 * and no smaller than vicodec takes (640x360).
 */
#define UMMS_TEST_VICODEC_SCREEN_W 1024
#define UMMS_TEST_VICODEC_SCREEN_H 768
#define UMMS_TEST_VICODEC_CLIP_W 640
#define UMMS_TEST_VICODEC_CLIP_H 480

/* videotestsrc's smpte100: seven bars of 100% colour, left to right. */
#define UMMS_TEST_VICODEC_N_BARS 7
extern const uint32_t umms_test_vicodec_bars[UMMS_TEST_VICODEC_N_BARS];

/*
 * The clip, @seconds made by vicodec's encoder (umms_test_fwht_make_clip)
 * in the test's folder: raw FWHT frames, as v4l2fwhtenc writes them. g_free.
 */
char *umms_test_vicodec_make_clip(int seconds);

/*
 * ummsd restarted on the screen, without Wayland video, with long engine
 * timeouts (emulation is slow), and @settings (space separated).
 */
void umms_test_vicodec_restart(struct umms_test *t, const char *settings);

/* A property of org.umms.Display1. */
GVariant *umms_test_vicodec_display_get(struct umms_test *t, const char *property);

/*
 * Captures the screen (asserted of vkms's size) and checks the bars: the
 * picture's @w x @h at (@x0, @y0) on the screen, black around it.
 */
void umms_test_vicodec_assert_bars(struct umms_test *t, const char *what, int x0, int y0, int w,
	int h);

#endif
