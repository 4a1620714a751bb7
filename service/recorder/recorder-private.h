/*
 * Inside the recorder: what recorder.c (jobs: one recording scheduled or
 * made, its parts, its Recording1 object, the clock) and recorder-api.c
 * (Recorder1, the database at start) share.
 */
#ifndef UMMS_SERVICE_RECORDER_PRIVATE_H
#define UMMS_SERVICE_RECORDER_PRIVATE_H

#include <wayland-server-core.h>

#include "dbus-iface.h"
#include "guide.h"
#include "recorder.h"
#include "recording.h"
#include "schedule-db.h"

#define RECORDER_PATH "/org/umms"
#define RECORDING_PREFIX "/org/umms/recording"

/*
 * A part opened ahead of its start ends this much after its window: what
 * was broadcast just before the end is still in the network and the
 * demuxer then, and the file should hold it.
 */
#define SCHEDULE_TAIL_US (G_USEC_PER_SEC / 2)

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
	struct umms_resource_service *resources; /* tuners for dvb:// recordings, or NULL */
	struct wl_signal eit;      /* the running recordings' EIT sections (recorder.h) */
	struct umms_guide *guide;  /* the programme guide (borrowed), or NULL */
	struct wl_listener guide_changed;
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
	GSource *begin;            /* a part opened ahead: its start, when State turns */
	struct wl_listener changed;
	struct wl_listener eit;    /* running's EIT, passed on as rec->eit */
	UmmsDbusIface *iface;
	/* Of the guide's (recorder-guide.c): 0 and NULL for a URI recorded as such. */
	int64_t programme;         /* the programme recorded; its moves move the job */
	int64_t rule;              /* the series rule that scheduled it */
	char *episode_key;         /* the same episode as another's ("" none) */
	int64_t padding_before_s, padding_after_s;
	int64_t channel;           /* the programme's channel and title */
	char *title;
	/* Parental control (recorder-rating.c): what it recorded, for its playback. */
	int64_t rated_channel;     /* the guide's channel of its URI, 0: none */
	char *rating_system, *rating; /* the highest rating it covered, NULL: none */
	int min_age;               /* that rating's age, -1: none */
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
/* Saves @j's row (its state and what it records). */
void recorder_save(struct job *j);
/* Its part opened ahead and not begun stops, its empty file removed (j->begin set). */
void recorder_stop_unbegun(struct job *j);

/*
 * recorder-rating.c: the guide's channel of @j's URI and the highest rating
 * of the programmes its window covered so far (now, while it records),
 * into @j (saved by the caller).
 */
void recorder_rate(struct job *j);

/* recorder-api.c: a new job, saved; started now (@start 0) or scheduled. */
struct job *recorder_add_job(struct umms_recorder *rec, const char *uri_text,
	const char *destination, int64_t start, int64_t duration, GError **error);

/* recorder-guide.c: ScheduleProgramme and series rules. */
void recorder_guide_init(struct umms_recorder *rec);
void recorder_guide_finish(struct umms_recorder *rec);
/*
 * A recording of programme @programme from its start less @before_s to its
 * stop and @after_s, into @destination (NULL: named after it); NULL with
 * @error: NotFound (no such programme), InvalidState (it is over),
 * NotSupported (its channel has no URI).
 */
struct job *recorder_schedule_programme(struct umms_recorder *rec, int64_t programme,
	int64_t before_s, int64_t after_s, const char *destination, int64_t rule, GError **error);
/* AddSeriesRule's dictionary, evaluated at once; its id in @id. */
bool recorder_add_rule(struct umms_recorder *rec, GVariant *dict, int64_t *id,
	GError **error);
/* ListSeriesRules: aa{sv}. */
GVariant *recorder_list_rules(struct umms_recorder *rec, GError **error);
bool recorder_remove_rule(struct umms_recorder *rec, int64_t id, GError **error);

#endif
