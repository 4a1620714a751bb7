/*
 * A live IPTV channel for the tests: H.264 (and AAC) in MPEG-TS to
 * udp://127.0.0.1:PORT, with an EIT carousel spliced into the muxer's
 * output (one EIT packet after every third buffer, in a datagram of its
 * own), whose sections the test changes while it runs.
 */
#ifndef UMMS_TESTS_EIT_LIVE_H
#define UMMS_TESTS_EIT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>
#include <gst/gst.h>

struct eit_live {
	GMutex lock;
	GByteArray *packets;     /* the carousel, whole TS packets (lock) */
	size_t next;             /* its next packet (lock) */
	unsigned cc;             /* PID 0x12's continuity counter (lock) */
	unsigned buffers;        /* the muxer's buffers seen (its streaming thread) */
	GstElement *pipeline;
	char *uri;               /* udp://127.0.0.1:PORT */
};

/* Starts the stream, @packets going round (empty: no EIT yet); with AAC if @audio. */
void eit_live_start(struct eit_live *live, const GByteArray *packets, bool audio);
/* From now on @packets go round instead, from their first. */
void eit_live_set(struct eit_live *live, const GByteArray *packets);
void eit_live_stop(struct eit_live *live);

#endif
