/*
 * Frames from an engine worker (engine-proxy-private.h): checked against
 * their fds, the fds kept once per piece of memory, given back on the last
 * unref.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <wayland-util.h>

#include "engine-proxy-private.h"
#include "subpicture.h"

#define MAX_SIDE 16384
#define MAX_CACHED_MEMORY 64

struct proxy_frame {
	struct umms_frame base;
	struct proxy_link *link;
	struct proxy_memory *memory;
	uint64_t frame_id;
};

static void
memory_free(gpointer data)
{
	struct proxy_memory *memory = data;
	for (int i = 0; i < memory->n_planes; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= memory->fds[j] == memory->fds[i];
		if (!seen && memory->fds[i] >= 0)
			close(memory->fds[i]);
	}
	g_free(memory);
}

struct proxy_link *
umms_proxy_link_new(struct umms_worker_process *process)
{
	struct proxy_link *link = g_new0(struct proxy_link, 1);
	link->refs = 1;
	link->process = process;
	link->number = umms_worker_process_number(process);
	link->memory = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, memory_free);
	return link;
}

void
umms_proxy_link_unref(struct proxy_link *link)
{
	if (!link || --link->refs > 0)
		return;
	g_hash_table_destroy(link->memory);
	umms_subpicture_unref(link->subpicture);
	umms_worker_process_unref(link->process);
	g_free(link);
}

static void
frame_destroy(struct umms_frame *base)
{
	struct proxy_frame *frame = wl_container_of(base, frame, base);
	struct proxy_link *link = frame->link;
	frame->memory->live--;
	if (umms_worker_process_alive(link->process)) {
		struct umms_ipc_writer w;
		umms_ipc_writer_init(&w);
		umms_ipc_put_u64(&w, frame->frame_id);
		umms_worker_process_send(link->process, UMMS_IPC_RELEASE, 0, &w);
		umms_ipc_writer_finish(&w);
	}
	umms_proxy_link_unref(link);
	g_free(frame);
}

/*
 * How many bytes @fd holds for good: a memfd's size once sealed against
 * shrinking (0 unsealed), a dma-buf's size (UINT64_MAX for one that cannot
 * say: trusted).
 */
static uint64_t
fd_held(int fd, enum umms_frame_kind kind)
{
	if (kind == UMMS_FRAME_MEMFD) {
		struct stat st;
		int seals = fcntl(fd, F_GET_SEALS);
		if (seals < 0 || !(seals & F_SEAL_SHRINK) || fstat(fd, &st) != 0 || st.st_size < 0)
			return 0;
		return (uint64_t)st.st_size;
	}
	off_t end = lseek(fd, 0, SEEK_END);
	return end < 0 ? UINT64_MAX : (uint64_t)end;
}

static bool
frame_geometry_ok(const struct umms_ipc_frame *f)
{
	return f->width >= 1 && f->height >= 1 && f->width <= MAX_SIDE && f->height <= MAX_SIDE &&
		f->crop_x >= 0 && f->crop_y >= 0 && f->crop_width >= 1 && f->crop_height >= 1 &&
		f->crop_x <= f->width - f->crop_width && f->crop_y <= f->height - f->crop_height &&
		f->par_n >= 1 && f->par_d >= 1;
}

/*
 * A frame from the worker's message, or NULL when anything in it is off
 * (the caller kills the worker). Takes the fds it keeps out of @message.
 */
struct umms_frame *
umms_proxy_frame_from_message(struct proxy_link *link, struct umms_ipc_message *message)
{
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message->payload, message->header.length);
	struct umms_ipc_frame f;
	if (!umms_ipc_get_frame(&r, message->n_fds, &f) || !umms_ipc_reader_done(&r) ||
			!frame_geometry_ok(&f))
		return NULL;
	struct proxy_memory *memory = g_hash_table_lookup(link->memory, &f.memory_id);
	if (memory && memory->n_planes != (int)f.n_planes)
		return NULL;
	uint64_t held[UMMS_FRAME_MAX_PLANES] = { 0 };
	for (uint32_t i = 0; i < f.n_planes; i++) {
		/* Chroma planes have at most the picture's rows. */
		uint64_t rows = i == 0 ? (uint64_t)f.height : ((uint64_t)f.height + 1) / 2;
		uint64_t size = (uint64_t)f.planes[i].offset + (uint64_t)f.planes[i].stride * rows;
		if (f.planes[i].stride == 0)
			return NULL;
		/* Memory seen before is asked again only for more than it held then. */
		held[i] = memory ? memory->held[i] : 0;
		if (held[i] < size)
			held[i] = fd_held(memory ? memory->fds[i] : message->fds[f.planes[i].fd_index],
				f.kind);
		if (held[i] < size)
			return NULL;
		if (memory)
			memory->held[i] = held[i];
	}
	struct umms_subpicture *subpicture = NULL;
	if (f.has_subpicture) {
		if (link->subpicture && link->subpicture_serial == f.subpicture.serial) {
			subpicture = umms_subpicture_ref(link->subpicture);
		} else {
			g_autoptr(GError) error = NULL;
			int fd = message->fds[f.subpicture.fd_index];
			bool shared = false;
			for (uint32_t i = 0; i < f.n_planes; i++)
				shared |= f.planes[i].fd_index == f.subpicture.fd_index;
			subpicture = shared ? NULL : umms_subpicture_adopt(fd, f.subpicture.stride,
				f.subpicture.x, f.subpicture.y, f.subpicture.width, f.subpicture.height,
				f.subpicture.picture_width, f.subpicture.picture_height, &error);
			if (!subpicture)
				return NULL;
			message->fds[f.subpicture.fd_index] = -1;
			umms_subpicture_unref(link->subpicture);
			link->subpicture = umms_subpicture_ref(subpicture);
			link->subpicture_serial = f.subpicture.serial;
		}
	}
	if (!memory) {
		if (g_hash_table_size(link->memory) >= MAX_CACHED_MEMORY) {
			GHashTableIter iter;
			gpointer value;
			g_hash_table_iter_init(&iter, link->memory);
			while (g_hash_table_iter_next(&iter, NULL, &value)) {
				if (((struct proxy_memory *)value)->live == 0)
					g_hash_table_iter_remove(&iter);
			}
		}
		memory = g_new0(struct proxy_memory, 1);
		memory->id = f.memory_id;
		memory->n_planes = (int)f.n_planes;
		for (uint32_t i = 0; i < f.n_planes; i++) {
			memory->fds[i] = message->fds[f.planes[i].fd_index];
			memory->held[i] = held[i];
		}
		for (uint32_t i = 0; i < f.n_planes; i++)
			message->fds[f.planes[i].fd_index] = -1;
		g_hash_table_insert(link->memory, &memory->id, memory);
	}
	struct proxy_frame *frame = g_new0(struct proxy_frame, 1);
	frame->base.refs = 1;
	frame->base.kind = (enum umms_frame_kind)f.kind;
	frame->base.format = f.format;
	frame->base.width = f.width;
	frame->base.height = f.height;
	frame->base.crop_x = f.crop_x;
	frame->base.crop_y = f.crop_y;
	frame->base.crop_width = f.crop_width;
	frame->base.crop_height = f.crop_height;
	frame->base.par_n = f.par_n;
	frame->base.par_d = f.par_d;
	frame->base.modifier = f.modifier;
	frame->base.n_planes = (int)f.n_planes;
	for (uint32_t i = 0; i < f.n_planes; i++) {
		frame->base.planes[i].fd = memory->fds[i];
		frame->base.planes[i].offset = f.planes[i].offset;
		frame->base.planes[i].stride = f.planes[i].stride;
	}
	/* Unique across workers: the worker's number above its own ids. */
	frame->base.memory_id = (link->number << 40) | (f.memory_id & ((1ull << 40) - 1));
	frame->base.present_ns = f.present_ns;
	frame->base.position = f.position;
	frame->base.subpicture = subpicture;
	frame->base.destroy = frame_destroy;
	frame->link = link;
	link->refs++;
	frame->memory = memory;
	memory->live++;
	frame->frame_id = f.frame_id;
	return &frame->base;
}
