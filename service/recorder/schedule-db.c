/* Recordings in SQLite (schedule-db.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <sqlite3.h>
#include <glib/gstdio.h>

#include "error.h"
#include "log.h"
#include "schedule-db.h"

struct umms_schedule_db {
	sqlite3 *db;
};

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS recordings ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" uri TEXT NOT NULL,"
	" start_us INTEGER NOT NULL,"
	" duration_us INTEGER NOT NULL,"
	" destination TEXT NOT NULL,"
	" state TEXT NOT NULL,"
	" parts TEXT NOT NULL DEFAULT '',"
	" bytes INTEGER NOT NULL DEFAULT 0,"
	" error TEXT NOT NULL DEFAULT '')";

static bool
fail(struct umms_schedule_db *db, const char *what, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "recordings database: %s: %s", what,
		db->db ? sqlite3_errmsg(db->db) : "cannot open");
	return false;
}

struct umms_schedule_db *
umms_schedule_db_open(const char *path, GError **error)
{
	struct umms_schedule_db *db = g_new0(struct umms_schedule_db, 1);
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "cannot make %s: %s", dir,
			g_strerror(errno));
		goto fail;
	}
	if (sqlite3_open_v2(path, &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		fail(db, path, error);
		goto fail;
	}
	/* Another ummsd (a restart racing the old one) waits a little instead of failing. */
	sqlite3_busy_timeout(db->db, 2000);
	if (sqlite3_exec(db->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		fail(db, "creating the table", error);
		goto fail;
	}
	return db;
fail:
	umms_schedule_db_close(db);
	return NULL;
}

void
umms_schedule_db_close(struct umms_schedule_db *db)
{
	if (!db)
		return;
	sqlite3_close(db->db);
	g_free(db);
}

static void
bind_row(sqlite3_stmt *st, const struct umms_schedule_row *row)
{
	sqlite3_bind_text(st, 1, row->uri, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, row->start_us);
	sqlite3_bind_int64(st, 3, row->duration_us);
	sqlite3_bind_text(st, 4, row->destination, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, row->state, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, row->parts ? row->parts : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)row->bytes);
	sqlite3_bind_text(st, 8, row->error ? row->error : "", -1, SQLITE_TRANSIENT);
}

bool
umms_schedule_db_insert(struct umms_schedule_db *db, struct umms_schedule_row *row,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, "INSERT INTO recordings (uri, start_us, duration_us, "
			"destination, state, parts, bytes, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			-1, &st, NULL) != SQLITE_OK)
		return fail(db, "insert", error);
	bind_row(st, row);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok)
		return fail(db, "insert", error);
	row->id = sqlite3_last_insert_rowid(db->db);
	return true;
}

void
umms_schedule_db_update(struct umms_schedule_db *db, const struct umms_schedule_row *row)
{
	sqlite3_stmt *st = NULL;
	bool ok = sqlite3_prepare_v2(db->db, "UPDATE recordings SET uri = ?, start_us = ?, "
		"duration_us = ?, destination = ?, state = ?, parts = ?, bytes = ?, error = ? "
		"WHERE id = ?", -1, &st, NULL) == SQLITE_OK;
	if (ok) {
		bind_row(st, row);
		sqlite3_bind_int64(st, 9, row->id);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	sqlite3_finalize(st);
	if (!ok)
		umms_warn("recordings database: cannot save recording %" G_GINT64_FORMAT ": %s",
			row->id, sqlite3_errmsg(db->db));
}

bool
umms_schedule_db_delete(struct umms_schedule_db *db, int64_t id, GError **error)
{
	sqlite3_stmt *st = NULL;
	bool ok = sqlite3_prepare_v2(db->db, "DELETE FROM recordings WHERE id = ?", -1, &st,
		NULL) == SQLITE_OK;
	if (ok) {
		sqlite3_bind_int64(st, 1, id);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	sqlite3_finalize(st);
	return ok || fail(db, "delete", error);
}

static const char *
text(sqlite3_stmt *st, int column)
{
	const unsigned char *t = sqlite3_column_text(st, column);
	return t ? (const char *)t : "";
}

bool
umms_schedule_db_load(struct umms_schedule_db *db, umms_schedule_row_fn fn, void *data,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, "SELECT id, uri, start_us, duration_us, destination, "
			"state, parts, bytes, error FROM recordings ORDER BY id", -1, &st, NULL) !=
			SQLITE_OK)
		return fail(db, "reading", error);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct umms_schedule_row row = {
			.id = sqlite3_column_int64(st, 0),
			.uri = text(st, 1),
			.start_us = sqlite3_column_int64(st, 2),
			.duration_us = sqlite3_column_int64(st, 3),
			.destination = text(st, 4),
			.state = text(st, 5),
			.parts = text(st, 6),
			.bytes = (uint64_t)sqlite3_column_int64(st, 7),
			.error = text(st, 8),
		};
		fn(&row, data);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, "reading", error);
	return true;
}
