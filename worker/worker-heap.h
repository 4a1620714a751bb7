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
 * 2. a spare, after its warm-up clip, grows that heap by 64 MB, populated,
 *    and frees it again (umms_worker_heap_warm()): what the decoder's
 *    threads (their frames, libav's per-thread contexts, the copies of
 *    the first frames) take from OPEN to the first 1080p H.264 frame
 *    (~56 MB measured) is then there, written, when they ask for it.
 * Not under AddressSanitizer, whose allocator is its own.
 */
#ifndef UMMS_WORKER_HEAP_H
#define UMMS_WORKER_HEAP_H

/* Before any thread is made. */
void umms_worker_heap_setup(void);
/* Grows the heap by its warm size, written, and frees it; logs what it took. */
void umms_worker_heap_warm(void);

#endif
