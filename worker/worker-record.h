/*
 * An engine worker that records instead of playing (ipc.h: RECORD): the
 * remux pipeline (engines/gstreamer/gst-record.h) into the file ummsd
 * created and passed, inside the sandbox (network only for a network URI,
 * no device, no file it could create itself).
 */
#ifndef UMMS_WORKER_WORKER_RECORD_H
#define UMMS_WORKER_WORKER_RECORD_H

#include <stdbool.h>
#include <glib.h>

#include "gst-record.h"
#include "ipc.h"
#include "worker-sandbox.h"

struct umms_worker_record {
	bool started;            /* RECORD taken: this worker records, nothing else */
	int fd;                  /* the file, or -1 */
	struct umms_gst_record *pipeline;
	struct umms_gst_record_handler handler;
	void *data;
	/*
	 * A ring's (hlssink2): its files asked of ummsd by the streaming
	 * thread (RING_WANT), which waits under @lock for RING_FILE.
	 */
	int sock;
	struct umms_gst_record_ring_io ring_io;
	GMutex lock;
	GCond answered;
	uint32_t asked;          /* the number waited for */
	bool waiting, got;
	bool closing;            /* finishing: no more asked */
	int got_fd;
};

/*
 * @flowing: the first data reached the file; @ended: the file is complete
 * (@error NULL) or the pipeline failed; @eit: an EIT section of the
 * MPEG-TS recorded (gst-record.h).
 */
void umms_worker_record_init(struct umms_worker_record *wr, void (*flowing)(void *data),
	void (*ended)(void *data, const char *error),
	void (*eit)(void *data, const struct umms_eit *eit), void *data);
void umms_worker_record_finish(struct umms_worker_record *wr);
/*
 * RECORD (enters the sandbox keeping @sock and the file), RECORD_STOP or
 * a ring's RING_FILE.
 * False with *malformed, or with @error when the recording cannot start.
 */
bool umms_worker_record_handle(struct umms_worker_record *wr, struct umms_worker_sandbox *sb,
	int sock, const struct umms_ipc_message *message, struct umms_ipc_reader *r,
	bool *malformed, GError **error);

#endif
