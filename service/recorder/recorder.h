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
struct wl_signal;

struct umms_guide;

/*
 * Exports Recorder1 on @connection. @guide (kept by the caller until this
 * is destroyed; NULL: none): the programmes ScheduleProgramme and series
 * rules record, whose changes they follow.
 */
struct umms_recorder *umms_recorder_create(const struct umms_config *config,
	GDBusConnection *connection, struct umms_guide *guide, GError **error);
struct umms_resource_service;
/* Where dvb:// recordings take their tuners (NULL: they fail with NoResource). */
void umms_recorder_set_resources(struct umms_recorder *recorder,
	struct umms_resource_service *resources);
/* Stops every recording (what was written stays). NULL: no-op. */
void umms_recorder_destroy(struct umms_recorder *recorder);
/* An EIT section a running recording read (eit.h), and what it records. */
struct umms_eit;
struct umms_recorder_eit {
	const char *uri;
	const struct umms_eit *eit;
};
/*
 * Emitted for each EIT section a running recording reads (data: const
 * struct umms_recorder_eit *), for the programme guide.
 */
struct wl_signal *umms_recorder_get_eit_signal(struct umms_recorder *recorder);

/*
 * What a recording recorded, for parental control: the guide's channel
 * whose URI it recorded and the highest rating of the programmes it
 * covered, stored with it as it was made (recorder-rating.c).
 */
struct umms_recorder_rating {
	int64_t channel;         /* 0: its URI was no channel of the guide */
	char *rating_system;     /* NULL: no rated programme (g_free) */
	char *rating;            /* (g_free) */
	int min_age;             /* -1: none known */
};
/*
 * The rating of the recording that wrote the file @path (one of its
 * parts, an absolute path). False: no recording of this recorder wrote it.
 */
bool umms_recorder_find_rating(struct umms_recorder *recorder, const char *path,
	struct umms_recorder_rating *out);
void umms_recorder_rating_clear(struct umms_recorder_rating *rating);

#endif
