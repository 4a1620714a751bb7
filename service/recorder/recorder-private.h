/*
 * Inside the recorder: what recorder.c (jobs: one recording scheduled or
 * made, its parts, its Recording1 object, the clock) and recorder-api.c
 * (Recorder1, the database at start) share.
 */
#ifndef UMMS_SERVICE_RECORDER_PRIVATE_H
#define UMMS_SERVICE_RECORDER_PRIVATE_H

#include <wayland-server-core.h>

#include "dbus-iface.h"
#include "recorder.h"
#include "recording.h"
#include "schedule-db.h"

#define RECORDER_PATH "/org/umms"
#define RECORDING_PREFIX "/org/umms/recording"
#define TICK_MS 1000

enum job_state { SCHEDULED, RECORDING, COMPLETED, FAILED, CANCELLED, MISSED, N_STATES };

extern const char *const job_states[N_STATES];

struct umms_recorder {
	const struct umms_config *config;
	GDBusConnection *connection;
	UmmsDbusIface *iface;
	char **dirs;               /* where recordings may be written, absolute */
	struct umms_schedule_db *db;
	GPtrArray *jobs;           /* struct job *, oldest first */
	GSource *tick;             /* while a job is scheduled */
	GSource *reap;             /* frees finished pipelines outside their own callbacks */
	GPtrArray *finished;       /* struct umms_recording * to free */
	struct umms_resource_service *resources; /* tuners for dvb:// recordings, or NULL */
	struct wl_signal eit;      /* the running recordings' EIT sections (recorder.h) */
};

/* A recording, scheduled or made, and its D-Bus face. */
struct job {
	struct umms_recorder *rec;
	int64_t id;
	char *path;
	char *uri, *destination;
	int64_t start_us, duration_us;
	enum job_state state;
	bool fixed_window;         /* ScheduleRecording: its parts end at start + duration */
	GPtrArray *parts;          /* char *: every file written, the first is destination */
	uint64_t bytes_done;       /* in parts finished */
	char *error;
	struct umms_recording *running;
	unsigned retries;          /* new parts after the part's engine worker died */
	GSource *retry;            /* the next such part, after a pause */
	struct umms_tuner_hold *tuner; /* a dvb:// part's tuner, while it records */
	struct wl_listener changed;
	struct wl_listener eit;    /* running's EIT, passed on as rec->eit */
	UmmsDbusIface *iface;
};

/* recorder.c */
void recorder_set_state(struct job *j, enum job_state state, const char *error);
/* Records into a new file part now, for what is left of the job's window. */
void recorder_start_part(struct job *j, int64_t now);
/* Starts the clock that starts scheduled jobs (wall clock, every second). */
void recorder_arm_tick(struct umms_recorder *rec);
/* A job and its exported object; NULL with @error. Not saved. */
struct job *recorder_job_new(struct umms_recorder *rec, int64_t id, const char *uri,
	const char *destination, int64_t start_us, int64_t duration_us, enum job_state state,
	GError **error);
void recorder_job_free(struct job *j);

#endif
