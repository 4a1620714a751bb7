/*
 * A scheduled recording's start (gst-record.h: a target's start_us): the
 * source is opened ahead of the start and each stream waits at the output
 * of its queue; at the start the file begins at the video key frame that
 * arrived last at or before it (older data of every stream dropped), so
 * its first picture is the start or a little before it, never after.
 *
 * Times are when a buffer reached the queue: for a live source that is
 * when it was broadcast, give or take the demuxer's delay. The start is
 * taken from the wall clock when the gate is made, then kept on the
 * monotonic clock, which nobody sets.
 * The queue leaks its oldest data past the time to the start and a few
 * seconds more (a key frame's distance), so a long lead holds no more than
 * that in memory.
 */
#ifndef UMMS_ENGINES_GST_RECORD_GATE_H
#define UMMS_ENGINES_GST_RECORD_GATE_H

#include <stdbool.h>
#include <stdint.h>
#include <gst/gst.h>

struct umms_gst_record_gate;

/* A gate that opens at @start_us (µs since 1970, wall clock). */
struct umms_gst_record_gate *umms_gst_record_gate_new(int64_t start_us);
/*
 * Streaming thread (as a stream is linked): the stream through @queue
 * waits at the gate; @video: its key frames set where the file begins.
 */
void umms_gst_record_gate_add(struct umms_gst_record_gate *gate, GstElement *queue,
	bool video);
/*
 * Any thread: opens it now (the stream ends or the pipeline stops before
 * the start); what waits goes on, from the last key frame seen.
 */
void umms_gst_record_gate_open(struct umms_gst_record_gate *gate);
/* Drops the caller's reference (the streams keep theirs until their pads go). NULL: no-op. */
void umms_gst_record_gate_unref(struct umms_gst_record_gate *gate);

#endif
