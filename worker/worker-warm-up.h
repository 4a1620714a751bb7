/*
 * A spare worker's warm-up: what a first SetUri would otherwise pay on its
 * way to the first frame, done while the worker waits as the spare, at
 * idle priority, after READY:
 * 1. the plugins of the demuxers, parsers and software decoders playbin
 *    autoplugs first (rank primary or above) for the common formats
 *    (worker-warm-up.c's list: libav, MP4, Matroska, MPEG-TS, Ogg...)
 *    and their classes, loaded one at a time;
 * 2. then a tiny clip built into the worker (warm-up/: 64×64 H.264 High
 *    in MP4, 3.6 kB, no sound) typefound, demuxed, parsed, decoded by
 *    avdec_h264 and converted to BGRx (the XRGB8888 clients take first)
 *    as the engine's converter converts (libyuv), in one go on the main
 *    loop (30 to 50 ms here): the once-per-process costs of a first
 *    picture (libav's codec tables and thread set-up, libyuv's CPU check,
 *    the libraries' pages and relocations, the elements' first
 *    negotiation) are paid here, not by the player's first frame (see
 *    bench/README.md). Software only: no device is opened before the
 *    sandbox;
 * 3. then 40 MB written into the malloc heap and freed, kept there for
 *    the first frame's decoder (worker-heap.h).
 * Stopped at the first OPEN or RECORD, which load what they still need
 * themselves. The clip runs in the main thread (no GStreamer task, none
 * of GLib's thread pools: a pool made before the sandbox gives its later
 * threads scheduler settings the sandbox refuses them); the decoder's own
 * threads end with it, and Landlock, refused in a process with more than
 * one thread (worker/landlock.h), is entered after umms_worker_warm_up_stop()
 * has seen the process with one thread again.
 */
#ifndef UMMS_WORKER_WARM_UP_H
#define UMMS_WORKER_WARM_UP_H

#include <stdbool.h>
#include <glib.h>

#include "worker-heap.h"

struct umms_worker_warm_up {
	GPtrArray *list;         /* element factories left to load */
	guint next;
	gint64 start;            /* µs, monotonic */
	GSource *source;         /* the idle source; NULL once done or stopped */
	bool played;             /* the clip was decoded and converted */
	bool threads_check;      /* the clip ran: threads to check at the next stop */
	bool clip_done;          /* played or not: the heap's turn */
	struct umms_worker_heap heap;
};

/*
 * Step 1 at once, in the calling thread (a fork server's, zygote.h): its
 * workers' warm-up then finds the plugins loaded. No thread is made.
 */
void umms_worker_warm_up_preload(void);
/* Starts on the default main context; @w zeroed before. */
void umms_worker_warm_up_start(struct umms_worker_warm_up *w);
/*
 * Stops (if running) and frees what is left; @w may be started again.
 * Returns once the process has one thread (or after a bound, said in
 * the log).
 */
void umms_worker_warm_up_stop(struct umms_worker_warm_up *w);

#endif
