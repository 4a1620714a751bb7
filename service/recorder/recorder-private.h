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

enum job_state { SCHEDULED, RECORDING, COMPLETED, FAILED, CANCELLED, MISSED, N_STATES };

extern const char *const job_states[N_STATES];

struct umms_recorder {
	const struct umms_config *config;
	GDBusConnection *connection;
	UmmsDbusIface *iface;
	char **dirs;               /* where recordings may be written, absolute */
	struct umms_schedule_db *db;
	GPtrArray *jobs;           /* struct job *, oldest first */
	int timer_fd;              /* timerfd on the wall clock: the next job's time */
	GSource *timer;
	GSource *reap;             /* frees finished pipelines outside their own callbacks */
	GPtrArray *finished;       /* struct umms_recording * to free */
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
	GSource *begin;            /* a part opened ahead: its start, when State turns */
	struct wl_listener changed;
	UmmsDbusIface *iface;
};

/* recorder.c */
void recorder_set_state(struct job *j, enum job_state state, const char *error);
/*
 * Records into a new file part now, for what is left of the job's window;
 * @at_us > 0: the source opened now, the file begins then (a scheduled
 * start, [recording] schedule-lead ahead).
 */
void recorder_start_part(struct job *j, int64_t now, int64_t at_us);
/* The timer that starts scheduled jobs (recorder.c). */
bool recorder_timer_init(struct umms_recorder *rec, GError **error);
void recorder_timer_finish(struct umms_recorder *rec);
/* Sets it again for the next scheduled job (after a job was added, moved or ended). */
void recorder_arm_timer(struct umms_recorder *rec);
/* A job and its exported object; NULL with @error. Not saved. */
struct job *recorder_job_new(struct umms_recorder *rec, int64_t id, const char *uri,
	const char *destination, int64_t start_us, int64_t duration_us, enum job_state state,
	GError **error);
void recorder_job_free(struct job *j);

#endif
