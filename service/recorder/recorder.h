/*
 * org.umms.Recorder1 at /org/umms and the recordings it makes
 * (/org/umms/recording/N, org.umms.Recording1): recording.h writes each
 * one, destination.h keeps them inside the recording directories.
 *
 * Recordings start now (Record); schedules, their persistence across
 * restarts and time-shift are not built yet (issue 7 note).
 */
#ifndef UMMS_SERVICE_RECORDER_H
#define UMMS_SERVICE_RECORDER_H

#include <gio/gio.h>

#include "config.h"

struct umms_recorder;
struct wl_signal;

/* Exports Recorder1 on @connection. */
struct umms_recorder *umms_recorder_create(const struct umms_config *config,
	GDBusConnection *connection, GError **error);
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

#endif
