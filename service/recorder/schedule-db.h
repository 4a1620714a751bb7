/*
 * Recordings kept across restarts of ummsd: one SQLite table in
 * $XDG_STATE_HOME/umms/umms.db ([recording] database), a row per
 * recording, scheduled or made, updated at every change of state. What
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

#endif
