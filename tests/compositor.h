/*
 * A real headless Wayland compositor for tests, screenshots of it, and
 * pixel assertions on them: "this colour is at this place on screen".
 *
 * umms_test_compositor_start() runs sway (wlroots headless backend, pixman
 * renderer) or weston (headless backend, pixman, desktop-shell; or its DRM
 * backend with GL in the KMS test VM) with one
 * output of the given size, filled with UMMS_TEST_COMPOSITOR_BACKGROUND, and
 * returns once a client can connect and a screenshot shows that background
 * over the whole output at the requested size. The compositor's stdout and
 * stderr go to a log in umms_test_tmpdir(); every failure (g_error) quotes
 * its tail. The compositor dies with the test program.
 *
 * Screenshots are taken with grim (sway) or weston-screenshooter (weston,
 * which is why weston runs with --debug) and decoded with GStreamer.
 * Requires umms_test_init() (scratch folder, gst_init).
 */
#ifndef UMMS_TESTS_COMPOSITOR_H
#define UMMS_TESTS_COMPOSITOR_H

#include <stdbool.h>
#include <stdint.h>

#include "image.h"

/* The colour of every output pixel no window covers, 0xRRGGBB, both compositors. */
#define UMMS_TEST_COMPOSITOR_BACKGROUND 0x336699u

enum umms_test_compositor_kind {
	UMMS_TEST_SWAY,
	UMMS_TEST_WESTON,
	/*
	 * weston on the KMS device (the test VM's vkms, tests/vm/): its DRM
	 * backend and GL renderer (Mesa's llvmpipe through GBM), which offers
	 * zwp_linux_dmabuf_v1. As root, on VT 2 (its direct launcher: no
	 * logind in the VM), without input devices; the output has the
	 * connector's preferred mode, which @width and @height must be.
	 */
	UMMS_TEST_WESTON_DRM,
};

struct umms_test_compositor;

/*
 * Starts @kind with one @width x @height output (0 for either: 1280x720);
 * fails the test with the compositor's log if it is not up within 10 s
 * (120 s for UMMS_TEST_WESTON_DRM).
 * sway: windows get no borders or title bars (default_border none) and are
 * tiled over the whole output; its first xdg_toplevel configure is 0x0.
 * weston: no panel, no startup fade, no screen lock.
 */
struct umms_test_compositor *umms_test_compositor_start(enum umms_test_compositor_kind kind,
	int width, int height);
/*
 * SIGTERM, waits (SIGKILL after 5 s), removes its runtime folder. Fails the
 * test if the compositor had already exited. NULL does nothing.
 */
void umms_test_compositor_stop(struct umms_test_compositor *compositor);
/* Absolute path of its Wayland socket, for WAYLAND_DISPLAY or wl_display_connect(). */
const char *umms_test_compositor_display(struct umms_test_compositor *compositor);
/* "sway" or "weston", for messages. */
const char *umms_test_compositor_name(struct umms_test_compositor *compositor);
/* The whole output, now; fails the test if the screenshot tool fails. */
struct umms_test_image *umms_test_compositor_screenshot(struct umms_test_compositor *compositor);

#endif
