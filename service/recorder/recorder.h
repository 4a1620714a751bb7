/*
 * org.umms.Recorder1 at /org/umms and the recordings it makes
 * (/org/umms/recording/N, org.umms.Recording1): recording.h writes each
 * one, destination.h keeps them inside the recording directories.
 *
 * Recordings start now (Record), at a time (ScheduleRecording: kept
 * across restarts, the source opened ahead so the file begins at the
 * start), or for a programme of the guide and by series rules
 * (recorder-guide.c); time-shift rings for players (timeshift.h).
 */
#ifndef UMMS_SERVICE_RECORDER_H
#define UMMS_SERVICE_RECORDER_H

#include <gio/gio.h>

#include "config.h"

struct umms_recorder;

struct umms_guide;

/*
 * Exports Recorder1 on @connection. @guide (kept by the caller until this
 * is destroyed; NULL: none): the programmes ScheduleProgramme and series
 * rules record, whose changes they follow.
 */
struct umms_recorder *umms_recorder_create(const struct umms_config *config,
	GDBusConnection *connection, struct umms_guide *guide, GError **error);
/* Stops every recording (what was written stays). NULL: no-op. */
void umms_recorder_destroy(struct umms_recorder *recorder);

#endif
