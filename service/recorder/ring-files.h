/*
 * A time-shift ring's files, made and deleted by ummsd (issue 15): the
 * pipeline writing the ring (gst-record.h, hlssink2) gets a descriptor per
 * segment, hands over its playlist, and asks for deletions, all by segment
 * number, so that it opens nothing by name; whatever it asks, only
 * segNNNNN.ts and the playlist in the ring's own folder are touched.
 */
#ifndef UMMS_SERVICE_RING_FILES_H
#define UMMS_SERVICE_RING_FILES_H

#include <glib.h>

#include "gst-record.h"

struct umms_ring_files {
	struct umms_gst_record_ring_io io;   /* io.data: this; for a pipeline in ummsd */
	int dir;                             /* the folder, O_PATH */
	bool broken;                         /* a playlist could not be written: no more files */
};

/* umms_ring_files_want's number for the next playlist. */
#define UMMS_RING_FILES_PLAYLIST 0xffffffffu

/* @dir exists (timeshift.c makes it); NULL with @error if it cannot be opened. */
struct umms_ring_files *umms_ring_files_open(const char *dir, GError **error);
/*
 * For a pipeline elsewhere (an engine worker), the same by number: a
 * descriptor open for writing segment @index or the next playlist (-1
 * for a number out of range, or once broken); the next playlist, written,
 * replaces the last (false: it could not, and the ring is broken); segment
 * @index deleted.
 */
int umms_ring_files_want(struct umms_ring_files *files, unsigned index);
bool umms_ring_files_publish(struct umms_ring_files *files);
void umms_ring_files_remove(struct umms_ring_files *files, unsigned index);
/*
 * A ring worker's RING_WANT (answered RING_FILE), RING_DONE or
 * RING_DELETE (ipc.h); false: malformed.
 */
struct umms_worker_process;
struct umms_ipc_message;
bool umms_ring_files_handle(struct umms_ring_files *files, struct umms_worker_process *process,
	const struct umms_ipc_message *message);
/* NULL is fine; after the pipeline that uses it stopped. */
void umms_ring_files_close(struct umms_ring_files *files);

#endif
