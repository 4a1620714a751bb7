/*
 * EIT sections out of the MPEG-TS going into a demuxer, for the programme
 * guide (eit.h decodes them). tsdemux 1.22 reads PID 0x12 but posts
 * nothing of it (only tsparse posts sections, and it would have to be put
 * into decodebin's chain), so a buffer probe on the demuxer's input feeds
 * a reader of ours; the player's playbin (gst-support.c, at tsdemux) and
 * a recording's parsebin (gst-record.c, at its input) watch that way.
 *
 * Sections cross from the streaming threads to the main context the
 * gst_eit was made on, at most GST_EIT_MAX_PENDING waiting (more are read
 * again at their next repetition).
 */
#ifndef UMMS_ENGINES_GST_EIT_H
#define UMMS_ENGINES_GST_EIT_H

#include <gst/gst.h>

#include "eit.h"

#define GST_EIT_MAX_PENDING 256

struct gst_eit;

/* Called in the thread-default main context of the creator's thread. */
typedef void (*gst_eit_fn)(const struct umms_eit *eit, void *data);

struct gst_eit *gst_eit_new(gst_eit_fn fn, void *data);
/* @fn is not called again; the probes still in place go quiet. NULL: no-op. */
void gst_eit_close(struct gst_eit *eit);
/* Reads every buffer through @pad (the MPEG-TS into a demuxer), any thread. */
void gst_eit_watch_pad(struct gst_eit *eit, GstPad *pad);

#endif
