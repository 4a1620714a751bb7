/*
 * A recording in an engine worker (worker-record.h): RECORD and
 * RECORD_STOP, the pipeline into the file ummsd passed, or for a ring
 * into the files ummsd passes one by one as hlssink2 asks (RING_FILE).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "worker-record.h"

/* How long the streaming thread waits for a file of ummsd's; then the ring fails. */
#define RING_WAIT_US (10 * G_USEC_PER_SEC)

void
umms_worker_record_init(struct umms_worker_record *wr, void (*flowing)(void *data),
	void (*ended)(void *data, const char *error),
	void (*eit)(void *data, const struct umms_eit *eit), void *data)
{
	*wr = (struct umms_worker_record){ .fd = -1, .sock = -1, .got_fd = -1,
		.handler = { .flowing = flowing, .ended = ended, .eit = eit }, .data = data };
	g_mutex_init(&wr->lock);
	g_cond_init(&wr->answered);
}

/* Main loop: the pipeline stops; a streaming thread waiting for a file gives up. */
static void
ring_cancel(void *data)
{
	struct umms_worker_record *wr = data;
	g_mutex_lock(&wr->lock);
	wr->closing = true;
	wr->waiting = false;
	g_cond_broadcast(&wr->answered);
	g_mutex_unlock(&wr->lock);
}

void
umms_worker_record_finish(struct umms_worker_record *wr)
{
	ring_cancel(wr);
	umms_gst_record_free(wr->pipeline);
	wr->pipeline = NULL;
	if (wr->fd >= 0)
		close(wr->fd);
	wr->fd = -1;
	if (wr->got_fd >= 0)
		close(wr->got_fd);
	wr->got_fd = -1;
	g_mutex_clear(&wr->lock);
	g_cond_clear(&wr->answered);
}

/* Any thread: one message to ummsd (a datagram: sends from threads do not mix). */
static bool
ring_send(struct umms_worker_record *wr, uint32_t type, bool with_index, uint32_t index)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	if (with_index)
		umms_ipc_put_u32(&w, index);
	g_autoptr(GError) error = NULL;
	bool sent = umms_ipc_send(wr->sock, type, 0, &w, false, &error);
	umms_ipc_writer_finish(&w);
	if (!sent)
		umms_debug("worker: the ring's request did not go: %s", error->message);
	return sent;
}

/* Streaming thread: a file of ummsd's for @index (RING_WANT, then RING_FILE), or -1. */
static int
ring_want(struct umms_worker_record *wr, uint32_t index)
{
	g_mutex_lock(&wr->lock);
	bool closing = wr->closing;
	wr->asked = index;
	wr->waiting = !closing;
	wr->got = false;
	g_mutex_unlock(&wr->lock);
	if (closing)
		return -1;
	if (!ring_send(wr, UMMS_IPC_RING_WANT, true, index))
		return -1;
	gint64 until = g_get_monotonic_time() + RING_WAIT_US;
	g_mutex_lock(&wr->lock);
	while (wr->waiting && !wr->got)
		if (!g_cond_wait_until(&wr->answered, &wr->lock, until))
			break;
	int fd = wr->got ? wr->got_fd : -1;
	if (!wr->got)
		umms_warn("worker: no file for the ring's %u from ummsd", index);
	wr->got_fd = -1;
	wr->waiting = wr->got = false;
	g_mutex_unlock(&wr->lock);
	return fd;
}

static int
ring_fragment(void *data, unsigned index)
{
	return ring_want(data, index);
}

static bool
ring_playlist(void *data, const char *text, size_t length)
{
	struct umms_worker_record *wr = data;
	int fd = ring_want(wr, UMMS_IPC_RING_PLAYLIST);
	if (fd < 0)
		return false;
	bool ok = true;
	while (ok && length > 0) {
		ssize_t n = write(fd, text, length);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok) {
			text += n;
			length -= (size_t)n;
		}
	}
	if (close(fd) != 0)
		ok = false;
	return ok && ring_send(wr, UMMS_IPC_RING_DONE, false, 0);
}

static void
ring_remove(void *data, unsigned index)
{
	ring_send(data, UMMS_IPC_RING_DELETE, true, index);
}

/* Main loop: ummsd's answer to the streaming thread's RING_WANT. */
static bool
ring_file(struct umms_worker_record *wr, const struct umms_ipc_message *message,
	struct umms_ipc_reader *r)
{
	uint32_t index = umms_ipc_get_u32(r);
	if (!umms_ipc_reader_done(r) || !wr->pipeline || wr->sock < 0 || message->n_fds > 1)
		return false;
	int fd = message->n_fds == 1 ? fcntl(message->fds[0], F_DUPFD_CLOEXEC, 3) : -1;
	g_mutex_lock(&wr->lock);
	if (wr->waiting && !wr->got && wr->asked == index) {
		wr->got = true;
		wr->got_fd = fd;
		fd = -1;
		g_cond_broadcast(&wr->answered);
	}
	g_mutex_unlock(&wr->lock);
	/* Late (the thread gave up) or not asked: not used. */
	if (fd >= 0)
		close(fd);
	return true;
}

static bool
start(struct umms_worker_record *wr, struct umms_worker_sandbox *sb, int sock,
	const struct umms_ipc_message *message, struct umms_ipc_reader *r, bool *malformed,
	GError **error)
{
	g_autofree char *uri = umms_ipc_get_string(r);
	g_autofree char *mux = umms_ipc_get_string(r);
	bool ring = mux && strcmp(mux, "hlssink2") == 0;
	uint32_t segment_s = ring ? umms_ipc_get_u32(r) : 0;
	uint32_t n_segments = ring ? umms_ipc_get_u32(r) : 0;
	/* A file's: when it begins (0: now), the source opened ahead of it. */
	int64_t start_us = ring ? 0 : umms_ipc_get_i64(r);
	/*
	 * The file to write (a ring: none, its files come one by one), then
	 * what ummsd opened of a local @uri (worker.h).
	 */
	int files = ring ? 0 : 1;
	if (!umms_ipc_reader_done(r) || !uri || message->n_fds < files ||
			message->n_fds > files + 1 || wr->started || sb->entered ||
			!umms_gst_record_mux_known(mux) || (ring && (segment_s < 1 || segment_s > 3600 ||
			n_segments < 1 || n_segments > 100000)) || start_us < 0) {
		*malformed = true;
		return false;
	}
	wr->started = true;
	/* Remuxing only: no hardware decoder, so no device opened read-write. */
	sb->hardware = false;
	int media_fd = message->n_fds > files ? message->fds[files] : -1;
	if (!umms_worker_sandbox_enter(sb, sock, ring ? -1 : message->fds[0], uri, media_fd,
			error))
		return false;
	if (ring) {
		wr->sock = sock;
		wr->ring_io = (struct umms_gst_record_ring_io){ .fragment = ring_fragment,
			.playlist = ring_playlist, .remove = ring_remove, .cancel = ring_cancel,
			.data = wr };
		const struct umms_gst_record_target target = { .mux = mux, .fd = -1,
			.segment_s = segment_s, .n_segments = n_segments, .ring_io = &wr->ring_io };
		wr->pipeline = umms_gst_record_start(0, uri, &target, &wr->handler, wr->data, error);
		return wr->pipeline != NULL;
	}
	/* The message's own descriptor goes with it. */
	wr->fd = fcntl(message->fds[0], F_DUPFD_CLOEXEC, 3);
	if (wr->fd < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "dup: %s", g_strerror(errno));
		return false;
	}
	const struct umms_gst_record_target target = { .mux = mux, .fd = wr->fd,
		.start_us = start_us };
	wr->pipeline = umms_gst_record_start(0, uri, &target, &wr->handler, wr->data, error);
	return wr->pipeline != NULL;
}

bool
umms_worker_record_handle(struct umms_worker_record *wr, struct umms_worker_sandbox *sb,
	int sock, const struct umms_ipc_message *message, struct umms_ipc_reader *r,
	bool *malformed, GError **error)
{
	switch (message->header.type) {
	case UMMS_IPC_RECORD:
		return start(wr, sb, sock, message, r, malformed, error);
	case UMMS_IPC_RECORD_STOP:
		if (!umms_ipc_reader_done(r) || !wr->pipeline)
			break;
		umms_gst_record_eos(wr->pipeline);
		return true;
	case UMMS_IPC_RING_FILE:
		if (!ring_file(wr, message, r))
			break;
		return true;
	default:
		break;
	}
	*malformed = true;
	return false;
}
