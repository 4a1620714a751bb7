/* The worker's malloc heap (worker-heap.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "worker-heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <glib.h>

#include "log.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#if defined(__SANITIZE_ADDRESS__)
#define HEAP_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEAP_OWN_ALLOCATOR 1
#endif
#endif

/* Blocks below this come from the heap (glibc's largest threshold: 32 MB). */
#define MMAP_THRESHOLD (32u << 20)
/* Free memory the heap keeps before it gives some back. */
#define TRIM_THRESHOLD (128u << 20)
/* Each of the UMMS_WORKER_HEAP_BLOCKS blocks a spare writes into its heap ahead. */
#define WARM_BLOCK (4u << 20)

void
umms_worker_heap_setup(void)
{
#ifndef HEAP_OWN_ALLOCATOR
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
#endif
}

/*
 * Pages in @block, then writes each: madvise(MADV_POPULATE_WRITE) (Linux
 * 5.14) maps them all in one call, where a write per page takes a page
 * fault each (~12 µs here); but on this VM (Firecracker) a page so
 * populated was still slow at its first write from user space later
 * (64 MB used afterwards: 100 ms populated, 35 ms written, 190 ms
 * untouched), so each is written too: 110 ms for 64 MB, against 200
 * written alone (not measured on other machines).
 */
static void
populate(char *block, size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)block + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)block + size) & ~(uintptr_t)(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_POPULATE_WRITE);
	for (size_t offset = 0; offset < size; offset += page)
		((volatile char *)block)[offset] = 0;
}

static long
faults(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_minflt + usage.ru_majflt;
}

void
umms_worker_heap_warm_stop(struct umms_worker_heap *h)
{
	/* Back into the heap's free top, which keeps it (TRIM_THRESHOLD). */
	for (unsigned i = h->next; i > 0; i--)
		free(h->blocks[i - 1]);
	*h = (struct umms_worker_heap){ 0 };
}

bool
umms_worker_heap_warm_step(struct umms_worker_heap *h)
{
#ifdef HEAP_OWN_ALLOCATOR
	h->done = true;
#endif
	if (h->done)
		return true;
	if (h->next == 0) {
		h->start = g_get_monotonic_time();
		h->faults = faults();
	}
	void *block = malloc(WARM_BLOCK);
	if (block)
		populate(block, WARM_BLOCK);
	h->blocks[h->next++] = block;
	if (h->next < UMMS_WORKER_HEAP_BLOCKS)
		return false;
	gint64 start = h->start;
	long before = h->faults;
	umms_worker_heap_warm_stop(h);
	h->done = true;
	umms_debug("worker: %u MB of heap written in %.1f ms (%ld page faults)",
		(UMMS_WORKER_HEAP_BLOCKS * WARM_BLOCK) >> 20,
		(double)(g_get_monotonic_time() - start) / 1000, faults() - before);
	return true;
}

void
umms_worker_heap_trim(void)
{
#ifndef HEAP_OWN_ALLOCATOR
	gint64 start = g_get_monotonic_time();
	struct mallinfo2 before = mallinfo2();
	malloc_trim(0);
	struct mallinfo2 after = mallinfo2();
	umms_debug("worker: heap trimmed in %.1f ms: %zu of %zu kB free before, %zu kB in the "
		"heap after", (double)(g_get_monotonic_time() - start) / 1000, before.fordblks >> 10,
		before.arena >> 10, after.arena >> 10);
#endif
}
