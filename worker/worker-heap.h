/*
 * The worker's malloc heap, kept as a long-lived process keeps its own
 * (issue 15, bench/first-frame).
 *
 * A fresh process has nothing to reuse: glibc serves every block of 128 kB
 * or more with a new mmap, gives each thread that allocates an arena of its
 * own (64 MB of fresh address space), and every page of those is faulted in
 * when first written. Between OPEN and the first 1080p frame a worker took
 * ~12,000 page faults (~10 µs each on the 2-core VM: ~100 ms of CPU, the
 * whole gap to in-process); ummsd, long-lived, had long raised its mmap
 * threshold and kept freed memory in its arenas, and took ~9,000 (a third
 * of them the frame's memfd, which both pay). Here the worker
 * 1. serves blocks below 32 MB (a 4K frame) from its heap, keeps freed
 *    memory up to 128 MB in it, and has one arena, the main heap, for all
 *    its threads (umms_worker_heap_setup(), first thing in main());
 * 2. a spare, after its warm-up clip, grows that heap by 40 MB, written,
 *    and frees it again (umms_worker_heap_warm_step()): what the decoder
 *    (its frames, libav's contexts, the copies of the first frames) takes
 *    from OPEN to the first 1080p H.264 frame is then there, written, when
 *    it asks for it. 56 MB measured with a decoding thread per core and
 *    three frames queued after the decoder, 64 MB written then; ~38 MB
 *    with one thread and one frame queued (2026-12-07: 40 MB written, the
 *    first frame took 4,166 page faults, as with 64, in 16 ms instead of
 *    27, and 24 MB less stays written in an idle spare).
 * 3. once the media has played a while (UMMS_WORKER_HEAP_SETTLE_MS),
 *    gives back what the heap holds free (umms_worker_heap_trim()): what
 *    the warm-up wrote beyond the decoder's needs (~10 MB of a 1080p
 *    H.264 stream's 48 in the heap; 32 of 70 when 64 MB were written).
 * Not under AddressSanitizer, whose allocator is its own.
 */
#ifndef UMMS_WORKER_HEAP_H
#define UMMS_WORKER_HEAP_H

#include <stdbool.h>
#include <glib.h>

/* 40 MB in blocks of 4 MB (below the mmap threshold: from the heap). */
#define UMMS_WORKER_HEAP_BLOCKS 10

/* The warming of a spare's heap, a block at a time; zeroed before the first step. */
struct umms_worker_heap {
	void *blocks[UMMS_WORKER_HEAP_BLOCKS];
	unsigned next;
	gint64 start;            /* µs, monotonic, at the first step */
	long faults;             /* the process's page faults then */
	bool done;
};

/* How long a media plays before its worker's heap is trimmed. */
#define UMMS_WORKER_HEAP_SETTLE_MS 2000

/* Before any thread is made. */
void umms_worker_heap_setup(void);
/* Gives the heap's free memory back to the system (malloc_trim), logs how much. */
void umms_worker_heap_trim(void);
/*
 * Writes the next block (~7 ms, so that an OPEN waits no longer on the
 * main loop); after the last frees them all back into the heap, logs what
 * it took and returns true (and true from then on).
 */
bool umms_worker_heap_warm_step(struct umms_worker_heap *h);
/* Frees what was written so far (it stays in the heap); @h may start again. */
void umms_worker_heap_warm_stop(struct umms_worker_heap *h);

#endif
