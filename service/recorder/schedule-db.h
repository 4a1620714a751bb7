/*
 * Recordings kept across restarts of ummsd: one SQLite table in
 * $XDG_STATE_HOME/umms/umms.db ([recording] database), a row per
 * recording, scheduled or made, updated at every change of state, and the
 * series rules (table series_rules). What
 * ummsd does with them at start (start, resume, mark missed) is the
 * recorder's (recorder.c).
 */
#ifndef UMMS_SERVICE_SCHEDULE_DB_H
#define UMMS_SERVICE_SCHEDULE_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct umms_schedule_db;

struct umms_schedule_row {
	int64_t id;                /* the row's, and the object's /org/umms/recording/ID */
	const char *uri;
	int64_t start_us;          /* wall clock, µs since 1970 */
	int64_t duration_us;       /* -1: until the source ends */
	const char *destination;   /* the first file, resolved */
	const char *state;         /* "scheduled", "recording", "completed", … */
	const char *parts;         /* every file written, separated by newlines */
	uint64_t bytes;
	const char *error;         /* "" when none */
	int64_t programme;         /* the guide's programme it records (guide.h), 0: none */
	int64_t rule;              /* the series rule that scheduled it, 0: none */
	const char *episode_key;   /* what makes it the same episode as another, "": none */
	int64_t padding_before_s, padding_after_s; /* around the programme's times */
	int64_t channel;           /* the programme's channel, and */
	const char *title;         /* its title: where to look for it once it moved */
	/*
	 * Parental control (recorder-rating.c): the guide's channel whose URI
	 * it records (0: none), and the highest rating of the programmes it
	 * covered ("" and -1: none known).
	 */
	int64_t rated_channel;
	const char *rating_system, *rating;
	int min_age;
};

/* Opens (creating the folder, the file and the table) @path. NULL with @error. */
struct umms_schedule_db *umms_schedule_db_open(const char *path, GError **error);
void umms_schedule_db_close(struct umms_schedule_db *db);

/* A new row (its id set in @row); false with @error. */
bool umms_schedule_db_insert(struct umms_schedule_db *db, struct umms_schedule_row *row,
	GError **error);
/* Writes @row over the row of its id; failures are logged (the recording goes on). */
void umms_schedule_db_update(struct umms_schedule_db *db, const struct umms_schedule_row *row);
/* Forgets recording @id. */
bool umms_schedule_db_delete(struct umms_schedule_db *db, int64_t id, GError **error);

typedef void (*umms_schedule_row_fn)(const struct umms_schedule_row *row, void *data);
/* Every row, oldest first. */
bool umms_schedule_db_load(struct umms_schedule_db *db, umms_schedule_row_fn fn, void *data,
	GError **error);

/*
 * A series rule (org.umms.Recorder1 AddSeriesRule): the guide's
 * programmes it records, kept in table series_rules of the same file.
 */
struct umms_series_rule {
	int64_t id;
	const char *title;         /* a title pattern (* and ?, case ignored), "": any */
	const char *series_id;     /* the guide's series id, "": any */
	int64_t channel;           /* the guide's channel id, 0: any */
	bool new_only;             /* an episode recorded or scheduled already is not again */
	int64_t padding_before_s, padding_after_s;
};

/* A new rule (its id set in @rule); false with @error. */
bool umms_schedule_db_add_rule(struct umms_schedule_db *db, struct umms_series_rule *rule,
	GError **error);
/* Forgets rule @id (*@found: it was there); false with @error. */
bool umms_schedule_db_remove_rule(struct umms_schedule_db *db, int64_t id, bool *found,
	GError **error);
typedef void (*umms_series_rule_fn)(const struct umms_series_rule *rule, void *data);
/* Every rule, oldest first (strings valid during the call). */
bool umms_schedule_db_for_each_rule(struct umms_schedule_db *db, umms_series_rule_fn fn,
	void *data, GError **error);

#endif
