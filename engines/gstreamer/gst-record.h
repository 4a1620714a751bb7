/*
 * A remux pipeline for recordings (issue 15 moved it out of ummsd's own
 * code so that an engine worker runs it too): urisourcebin ! parsebin !
 * (queue ! parser !) muxer ! sink, no decoder. The sink is an fd handed
 * over (fdsink: whoever runs this need not create files), a path
 * (filesink), or for a ring hlssink2, which muxes and cuts its segments
 * itself. Streams the muxer cannot carry are left out, and the log says
 * which, but for a ring's audio: decoded and encoded again (MPEG-1 Layer
 * II, else AAC), so that a DVB channel's SMPTE 302M, which no muxer of
 * GStreamer 1.22 takes, is heard time-shifted too. Matroska is written a
 * cluster a second at most and MPEG-TS packet by packet, with no buffer
 * in between: a process killed mid-way leaves a file that plays up to its
 * last second.
 *
 * Runs on the thread-default main context's bus watch; the handler is
 * called from it, once: the source ended (after umms_gst_record_eos too)
 * or something failed.
 */
#ifndef UMMS_ENGINES_GST_RECORD_H
#define UMMS_ENGINES_GST_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct umms_gst_record;
struct umms_eit;

struct umms_gst_record_handler {
	/* Optional: the first data reached the file (not for a ring). */
	void (*flowing)(void *data);
	/* @error NULL: the end of the stream reached the file. */
	void (*ended)(void *data, const char *error);
	/*
	 * Optional: an EIT section of the MPEG-TS recorded (eit.h), once per
	 * version, from the main loop (gst-eit.h: read on tsdemux's input).
	 */
	void (*eit)(void *data, const struct umms_eit *eit);
};

/*
 * A ring's files through whoever owns them (hlssink2 opening and deleting
 * nothing by name; ring-files.h in ummsd): any thread, one call at a time.
 */
#define UMMS_GST_RING_PREFIX "seg"    /* a segment: this, five digits, then */
#define UMMS_GST_RING_SUFFIX ".ts"
struct umms_gst_record_ring_io {
	/* A descriptor open for writing segment @index, taken over; -1: none (the ring fails). */
	int (*fragment)(void *data, unsigned index);
	/* The playlist, whole, to replace the last one; false if it could not (the ring fails). */
	bool (*playlist)(void *data, const char *text, size_t length);
	/* Segment @index left the ring: it may go. */
	void (*remove)(void *data, unsigned index);
	/*
	 * Optional, main loop: the pipeline is stopping; a call above waiting
	 * for an answer from the main loop gives up (-1, false) now.
	 */
	void (*cancel)(void *data);
	void *data;
};

struct umms_gst_record_target {
	const char *mux;         /* "matroskamux", "mpegtsmux" or "hlssink2" */
	int fd;                  /* >= 0: written there (borrowed, not closed) */
	const char *path;        /* fd < 0, not a ring: the file */
	/*
	 * > 0, not a ring: a scheduled start, µs since 1970 (wall clock): the
	 * source is opened now and the file begins at the key frame at or
	 * before then (gst-record-gate.h); 0: the file begins with the source.
	 */
	int64_t start_us;
	/* hlssink2 only: */
	const char *ring_dir;
	const char *playlist;
	unsigned segment_s, n_segments;
	/* Its files through this (then ring_dir and playlist unused); NULL: hlssink2's own. */
	const struct umms_gst_record_ring_io *ring_io;
};

/* Whether @mux is one of the muxers above. */
bool umms_gst_record_mux_known(const char *mux);
/* Started and PLAYING; NULL with @error. */
struct umms_gst_record *umms_gst_record_start(unsigned id, const char *uri,
	const struct umms_gst_record_target *target, const struct umms_gst_record_handler *handler,
	void *data, GError **error);
/* Ends the stream: the file is closed properly, then ended() is called. */
void umms_gst_record_eos(struct umms_gst_record *record);
/* Stops the pipeline now (what is written stays); no call to the handler after. */
void umms_gst_record_stop(struct umms_gst_record *record);
/* Stops at once (what is written stays); no call to the handler after. */
void umms_gst_record_free(struct umms_gst_record *record);

#endif
