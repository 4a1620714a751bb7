/*
 * A test-only GStreamer source of raw video in dma-buf memory, as a
 * hardware decoder's frames come: memfds wrapped by GStreamer's dma-buf
 * allocator (gst_is_dmabuf_memory() is true of them), so ummsd hands them
 * on as dma-buf without a device. For umms-dmabuf:// URIs; part of the
 * tests' GStreamer plugin (media-plugin/), played in engine workers.
 */
#ifndef UMMS_TESTS_DMABUF_SRC_H
#define UMMS_TESTS_DMABUF_SRC_H

#include <stdbool.h>
#include <gst/gst.h>

/* The frames: BGRx (XRGB8888), UMMS_TEST_DMABUF_W x _H, 10 a second, 10 s. */
#define UMMS_TEST_DMABUF_URI "umms-dmabuf://bars"
#define UMMS_TEST_DMABUF_W 64
#define UMMS_TEST_DMABUF_H 48
/* Every pixel of every frame, 0xRRGGBB. */
#define UMMS_TEST_DMABUF_RGB 0x2080e0u

/* Registers ummsdmabufsrc with @plugin; false if GStreamer refused it. */
bool umms_test_dmabuf_src_register(GstPlugin *plugin);

#endif
