/*
 * The memfd memory frames are made in (gst-video.c offers it upstream in
 * the ALLOCATION query): whole pages, sealed against shrinking, populated
 * at once, each numbered so clients hear of it once.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>

#include "gst-private.h"
#include "log.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

typedef struct {
	GstFdAllocator parent;
} UmmsMemfdAllocator;

typedef struct {
	GstFdAllocatorClass parent_class;
} UmmsMemfdAllocatorClass;

static GType umms_memfd_allocator_get_type(void);
G_DEFINE_TYPE(UmmsMemfdAllocator, umms_memfd_allocator, GST_TYPE_FD_ALLOCATOR)

static GQuark
memory_id_quark(void)
{
	static GQuark quark;
	if (!quark)
		quark = g_quark_from_static_string("umms-memory-id");
	return quark;
}

/* A number for each piece of memory, so clients hear of it once. */
uint64_t
gst_memfd_memory_id(GstMemory *memory)
{
	static gsize next_id;
	gpointer id = gst_mini_object_get_qdata(GST_MINI_OBJECT(memory), memory_id_quark());
	if (!id) {
		id = GSIZE_TO_POINTER((gsize)g_atomic_pointer_add(&next_id, 1) + 1);
		gst_mini_object_set_qdata(GST_MINI_OBJECT(memory), memory_id_quark(), id, NULL);
	}
	return (uint64_t)GPOINTER_TO_SIZE(id);
}

static GstMemory *
memfd_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
	gsize align = params->align | gst_memory_alignment;
	/* Whole pages: /dev/udmabuf (the KMS output's zero-copy path) takes only those. */
	gsize page = (gsize)sysconf(_SC_PAGESIZE);
	gsize total = (size + params->prefix + params->padding + align + page - 1) / page * page;
	int fd = memfd_create("umms-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		umms_warn("memfd_create: %s", strerror(errno));
		return NULL;
	}
	/*
	 * Sealed against shrinking: a client that truncated it would make
	 * ummsd fault reading it; udmabuf requires the seal too.
	 */
	if (ftruncate(fd, (off_t)total) < 0 || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		umms_warn("memfd of %" G_GSIZE_FORMAT " bytes: %s", total, strerror(errno));
		close(fd);
		return NULL;
	}
	/* The memory owns (and closes) the fd; it stays mapped while it lives. */
	GstMemory *memory = gst_fd_allocator_alloc(allocator, fd, total,
		GST_FD_MEMORY_FLAG_KEEP_MAPPED);
	if (!memory)
		return NULL;
	/*
	 * Its pages in one call (Linux 5.14; refused before, then faulted in
	 * one at a time as before): a frame is about to be written into all
	 * of it. On the 2-core VM, 8 MB (1080p BGRx) took 31 ms to write page
	 * fault by page fault, 4 + 16 ms populated first (bench/README.md).
	 */
	GstMapInfo info;
	if (gst_memory_map(memory, &info, GST_MAP_WRITE)) {
		madvise(info.data, info.maxsize, MADV_POPULATE_WRITE);
		gst_memory_unmap(memory, &info);
	}
	gst_memory_resize(memory, (gssize)params->prefix, size);
	gst_memfd_memory_id(memory);
	return memory;
}

static void
umms_memfd_allocator_class_init(UmmsMemfdAllocatorClass *klass)
{
	GST_ALLOCATOR_CLASS(klass)->alloc = memfd_alloc;
}

static void
umms_memfd_allocator_init(UmmsMemfdAllocator *self)
{
	GST_OBJECT_FLAG_UNSET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *
gst_memfd_allocator_new(void)
{
	return g_object_new(umms_memfd_allocator_get_type(), NULL);
}
