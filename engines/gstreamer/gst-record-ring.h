/*
 * hlssink2 writing a ring through its owner (gst-record.h:
 * struct umms_gst_record_ring_io) rather than by file names: its
 * segments are named UMMS_GST_RING_PREFIX, five digits, then
 * UMMS_GST_RING_SUFFIX (gst-record.h), and listed so in the playlist,
 * beside it.
 */
#ifndef UMMS_ENGINES_GST_RECORD_RING_H
#define UMMS_ENGINES_GST_RECORD_RING_H

#include <gst/gst.h>

#include "gst-record.h"

/* @io must outlive @hlssink2's streaming (the pipeline set to NULL). */
void umms_gst_record_ring_connect(GstElement *hlssink2, const struct umms_gst_record_ring_io *io);

#endif
