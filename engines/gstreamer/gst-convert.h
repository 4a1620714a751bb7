/*
 * The GStreamer engine's colour conversion (gst-convert.c), in front of
 * its video sink: planar and semi-planar 4:2:0 YUV (I420, YV12, NV12) in
 * system memory, with or without the overlay composition meta, becomes
 * BGRx or BGRA with libyuv, within 2 steps of the exact colours for the
 * BT.601, BT.709 and BT.2020 matrices in either range; GStreamer's own
 * converter converts another matrix. Caps it does not convert (other
 * formats, dma-buf and other memory) pass through unchanged, or fail to
 * negotiate if downstream wants them converted: playbin's videoconvert,
 * upstream of it, converts those.
 */
#ifndef UMMS_GST_CONVERT_H
#define UMMS_GST_CONVERT_H

#include <stdbool.h>
#include <gst/gst.h>

/* A new converter element named @name (NULL: GStreamer names it), floating. */
GstElement *gst_convert_new(const char *name);
/*
 * Converts @buffer (@caps) to BGRx once, as the element would, and throws
 * the picture away: a spare's warm-up. False if the element would not
 * convert these caps with libyuv.
 */
bool gst_convert_warm_up(GstBuffer *buffer, GstCaps *caps);

#endif
