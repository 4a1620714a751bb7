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
	" error TEXT NOT NULL DEFAULT '');"
	"CREATE TABLE IF NOT EXISTS series_rules ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" title TEXT NOT NULL DEFAULT '',"
	" series_id TEXT NOT NULL DEFAULT '',"
	" channel INTEGER NOT NULL DEFAULT 0,"
	" new_only INTEGER NOT NULL DEFAULT 1,"
	" padding_before_s INTEGER NOT NULL DEFAULT 0,"
	" padding_after_s INTEGER NOT NULL DEFAULT 0)";

/*
 * Columns later versions added to recordings: a database of an older
 * ummsd gets them (the guide's programme a recording is of, and so on).
 */
static const char *const added_columns[][2] = {
	{ "programme", "INTEGER NOT NULL DEFAULT 0" },
	{ "rule", "INTEGER NOT NULL DEFAULT 0" },
	{ "episode_key", "TEXT NOT NULL DEFAULT ''" },
	{ "padding_before_s", "INTEGER NOT NULL DEFAULT 0" },
	{ "padding_after_s", "INTEGER NOT NULL DEFAULT 0" },
	{ "channel", "INTEGER NOT NULL DEFAULT 0" },
	{ "title", "TEXT NOT NULL DEFAULT ''" },
	{ "rated_channel", "INTEGER NOT NULL DEFAULT 0" },
	{ "rating_system", "TEXT NOT NULL DEFAULT ''" },
	{ "rating", "TEXT NOT NULL DEFAULT ''" },
	{ "min_age", "INTEGER NOT NULL DEFAULT -1" },
};

static bool
fail(struct umms_schedule_db *db, const char *what, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "recordings database: %s: %s", what,
		db->db ? sqlite3_errmsg(db->db) : "cannot open");
	return false;
}

static bool
has_column(struct umms_schedule_db *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool found = false;
	if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM pragma_table_info('recordings') "
			"WHERE name = ?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return found;
}

static bool
migrate(struct umms_schedule_db *db, GError **error)
{
	for (size_t i = 0; i < G_N_ELEMENTS(added_columns); i++) {
		if (has_column(db, added_columns[i][0]))
			continue;
		g_autofree char *sql = g_strdup_printf("ALTER TABLE recordings ADD COLUMN %s %s",
			added_columns[i][0], added_columns[i][1]);
		if (sqlite3_exec(db->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return fail(db, "adding a column", error);
		umms_info("recordings database: added column %s", added_columns[i][0]);
	}
	return true;
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
	if (!migrate(db, error))
		goto fail;
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
	sqlite3_bind_int64(st, 9, row->programme);
	sqlite3_bind_int64(st, 10, row->rule);
	sqlite3_bind_text(st, 11, row->episode_key ? row->episode_key : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 12, row->padding_before_s);
	sqlite3_bind_int64(st, 13, row->padding_after_s);
	sqlite3_bind_int64(st, 14, row->channel);
	sqlite3_bind_text(st, 15, row->title ? row->title : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 16, row->rated_channel);
	sqlite3_bind_text(st, 17, row->rating_system ? row->rating_system : "", -1,
		SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 18, row->rating ? row->rating : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 19, row->min_age);
}

bool
umms_schedule_db_insert(struct umms_schedule_db *db, struct umms_schedule_row *row,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, "INSERT INTO recordings (uri, start_us, duration_us, "
			"destination, state, parts, bytes, error, programme, rule, episode_key, "
			"padding_before_s, padding_after_s, channel, title, rated_channel, "
			"rating_system, rating, min_age) "
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
		"duration_us = ?, destination = ?, state = ?, parts = ?, bytes = ?, error = ?, "
		"programme = ?, rule = ?, episode_key = ?, padding_before_s = ?, "
		"padding_after_s = ?, channel = ?, title = ?, rated_channel = ?, "
		"rating_system = ?, rating = ?, min_age = ? WHERE id = ?", -1, &st,
		NULL) == SQLITE_OK;
	if (ok) {
		bind_row(st, row);
		sqlite3_bind_int64(st, 20, row->id);
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
			"state, parts, bytes, error, programme, rule, episode_key, padding_before_s, "
			"padding_after_s, channel, title, rated_channel, rating_system, rating, "
			"min_age FROM recordings ORDER BY id", -1, &st, NULL) !=
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
			.programme = sqlite3_column_int64(st, 9),
			.rule = sqlite3_column_int64(st, 10),
			.episode_key = text(st, 11),
			.padding_before_s = sqlite3_column_int64(st, 12),
			.padding_after_s = sqlite3_column_int64(st, 13),
			.channel = sqlite3_column_int64(st, 14),
			.title = text(st, 15),
			.rated_channel = sqlite3_column_int64(st, 16),
			.rating_system = text(st, 17),
			.rating = text(st, 18),
			.min_age = sqlite3_column_int(st, 19),
		};
		fn(&row, data);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, "reading", error);
	return true;
}

/* ---- series rules ----------------------------------------------------------------- */

bool
umms_schedule_db_add_rule(struct umms_schedule_db *db, struct umms_series_rule *rule,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, "INSERT INTO series_rules (title, series_id, channel, "
			"new_only, padding_before_s, padding_after_s) VALUES (?, ?, ?, ?, ?, ?)", -1, &st,
			NULL) != SQLITE_OK)
		return fail(db, "insert a rule", error);
	sqlite3_bind_text(st, 1, rule->title ? rule->title : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, rule->series_id ? rule->series_id : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, rule->channel);
	sqlite3_bind_int(st, 4, rule->new_only);
	sqlite3_bind_int64(st, 5, rule->padding_before_s);
	sqlite3_bind_int64(st, 6, rule->padding_after_s);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok)
		return fail(db, "insert a rule", error);
	rule->id = sqlite3_last_insert_rowid(db->db);
	return true;
}

bool
umms_schedule_db_remove_rule(struct umms_schedule_db *db, int64_t id, bool *found,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	bool ok = sqlite3_prepare_v2(db->db, "DELETE FROM series_rules WHERE id = ?", -1, &st,
		NULL) == SQLITE_OK;
	if (ok) {
		sqlite3_bind_int64(st, 1, id);
		ok = sqlite3_step(st) == SQLITE_DONE;
	}
	sqlite3_finalize(st);
	*found = ok && sqlite3_changes(db->db) > 0;
	return ok || fail(db, "remove a rule", error);
}

bool
umms_schedule_db_for_each_rule(struct umms_schedule_db *db, umms_series_rule_fn fn,
	void *data, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->db, "SELECT id, title, series_id, channel, new_only, "
			"padding_before_s, padding_after_s FROM series_rules ORDER BY id", -1, &st,
			NULL) != SQLITE_OK)
		return fail(db, "reading the rules", error);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const struct umms_series_rule rule = {
			.id = sqlite3_column_int64(st, 0),
			.title = text(st, 1),
			.series_id = text(st, 2),
			.channel = sqlite3_column_int64(st, 3),
			.new_only = sqlite3_column_int(st, 4) != 0,
			.padding_before_s = sqlite3_column_int64(st, 5),
			.padding_after_s = sqlite3_column_int64(st, 6),
		};
		fn(&rule, data);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail(db, "reading the rules", error);
	return true;
}
