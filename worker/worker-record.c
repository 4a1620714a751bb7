/*
 * A recording in an engine worker (worker-record.h): RECORD and
 * RECORD_STOP, the pipeline into the file ummsd passed.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "worker-record.h"

void
umms_worker_record_init(struct umms_worker_record *wr, void (*flowing)(void *data),
	void (*ended)(void *data, const char *error), void *data)
{
	*wr = (struct umms_worker_record){ .fd = -1,
		.handler = { .flowing = flowing, .ended = ended }, .data = data };
}

void
umms_worker_record_finish(struct umms_worker_record *wr)
{
	umms_gst_record_free(wr->pipeline);
	wr->pipeline = NULL;
	if (wr->fd >= 0)
		close(wr->fd);
	wr->fd = -1;
}

static bool
start(struct umms_worker_record *wr, struct umms_worker_sandbox *sb, int sock,
	const struct umms_ipc_message *message, struct umms_ipc_reader *r, bool *malformed,
	GError **error)
{
	g_autofree char *uri = umms_ipc_get_string(r);
	g_autofree char *mux = umms_ipc_get_string(r);
	/* The file to write, then what ummsd opened of a local @uri (worker.h). */
	if (!umms_ipc_reader_done(r) || !uri || message->n_fds < 1 || message->n_fds > 2 ||
			wr->started ||
			sb->entered || !umms_gst_record_mux_known(mux) || strcmp(mux, "hlssink2") == 0) {
		*malformed = true;
		return false;
	}
	wr->started = true;
	/* Remuxing only: no hardware decoder, so no device opened read-write. */
	sb->hardware = false;
	int media_fd = message->n_fds == 2 ? message->fds[1] : -1;
	if (!umms_worker_sandbox_enter(sb, sock, message->fds[0], uri, media_fd, error))
		return false;
	/* The message's own descriptor goes with it. */
	wr->fd = fcntl(message->fds[0], F_DUPFD_CLOEXEC, 3);
	if (wr->fd < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "dup: %s", g_strerror(errno));
		return false;
	}
	const struct umms_gst_record_target target = { .mux = mux, .fd = wr->fd };
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
	default:
		break;
	}
	*malformed = true;
	return false;
}
