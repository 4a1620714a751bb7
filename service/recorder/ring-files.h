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
	struct umms_gst_record_ring_io io;   /* io.data: this */
	int dir;                             /* the folder, O_PATH */
};

/* @dir exists (timeshift.c makes it); NULL with @error if it cannot be opened. */
struct umms_ring_files *umms_ring_files_open(const char *dir, GError **error);
/* NULL is fine; after the pipeline that uses it stopped. */
void umms_ring_files_close(struct umms_ring_files *files);

#endif
