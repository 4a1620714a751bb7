/*
 * Parental control's tables in ummsd's SQLite file ([recording] database),
 * on a connection of its own. The file holds the PIN's hash, so it is
 * made readable by its owner only (0600, with its -wal and -shm files).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "error.h"
#include "log.h"
#include "parental-private.h"

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS parental_settings ("
	" key TEXT PRIMARY KEY, value);"
	"CREATE TABLE IF NOT EXISTS parental_thresholds ("
	" scheme TEXT PRIMARY KEY, age INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS parental_locked_channels ("
	" channel INTEGER PRIMARY KEY);";

static bool
db_fail(struct umms_parental *parental, const char *what, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "parental database: %s: %s", what,
		parental->db ? sqlite3_errmsg(parental->db) : "cannot open");
	return false;
}

/* The file and SQLite's files beside it (those there now; it makes them with its mode). */
static bool
restrict_mode(const char *path, GError **error)
{
	const char *const suffixes[] = { "", "-wal", "-shm", "-journal" };
	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		g_autofree char *file = g_strconcat(path, suffixes[i], NULL);
		if (g_chmod(file, 0600) != 0 && (i == 0 || errno != ENOENT)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"parental database: cannot make %s mode 0600: %s", file,
				g_strerror(errno));
			return false;
		}
	}
	return true;
}

bool
parental_db_open(struct umms_parental *parental, const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "cannot make %s: %s", dir,
			g_strerror(errno));
		return false;
	}
	if (sqlite3_open_v2(path, &parental->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		return db_fail(parental, path, error);
	/* The guide and the recorder write the same file from their connections. */
	sqlite3_busy_timeout(parental->db, 5000);
	/*
	 * synchronous=FULL on this connection: a wrong PIN counted must
	 * survive a crash of the machine too, or a guesser could cut power
	 * between tries. Writes here are few.
	 */
	if (sqlite3_exec(parental->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
			NULL, NULL, NULL) != SQLITE_OK)
		umms_warn("parental database %s: no WAL journal: %s", path,
			sqlite3_errmsg(parental->db));
	if (sqlite3_exec(parental->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(parental, "creating the tables", error);
	return restrict_mode(path, error);
}

void
parental_db_close(struct umms_parental *parental)
{
	sqlite3_close(parental->db);
	parental->db = NULL;
}

static bool
load_settings(struct umms_parental *parental, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(parental->db, "SELECT key, value FROM parental_settings", -1, &st,
			NULL) != SQLITE_OK)
		return db_fail(parental, "settings", error);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		sqlite3_int64 v = sqlite3_column_int64(st, 1);
		if (!key)
			continue;
		if (strcmp(key, "enabled") == 0)
			parental->enabled = v != 0;
		else if (strcmp(key, "block-unrated") == 0)
			parental->block_unrated = v != 0;
		else if (strcmp(key, "wrong-pins") == 0)
			parental->pin.wrong = (unsigned)CLAMP(v, 0, G_MAXINT);
		else if (strcmp(key, "locked-until") == 0)
			parental->pin.locked_until_us = v;
		else if (strcmp(key, "lockouts") == 0)
			parental->pin.lockouts = (unsigned)CLAMP(v, 0, 64);
		else if (strcmp(key, "pin-hash") == 0 && sqlite3_column_type(st, 1) == SQLITE_TEXT)
			parental->pin.hash = g_strdup((const char *)sqlite3_column_text(st, 1));
	}
	return sqlite3_finalize(st) == SQLITE_OK || db_fail(parental, "settings", error);
}

bool
parental_db_load(struct umms_parental *parental, GError **error)
{
	if (!load_settings(parental, error))
		return false;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(parental->db, "SELECT scheme, age FROM parental_thresholds", -1,
			&st, NULL) != SQLITE_OK)
		return db_fail(parental, "thresholds", error);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *scheme = (const char *)sqlite3_column_text(st, 0);
		int age = sqlite3_column_int(st, 1);
		if (scheme && parental_scheme_valid(scheme) && age >= 0 && age <= PARENTAL_MAX_AGE)
			g_hash_table_replace(parental->thresholds, g_strdup(scheme),
				GINT_TO_POINTER(age + 1));
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(parental->db, "SELECT channel FROM parental_locked_channels", -1,
			&st, NULL) != SQLITE_OK)
		return db_fail(parental, "locked channels", error);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t *channel = g_new(int64_t, 1);
		*channel = sqlite3_column_int64(st, 0);
		g_hash_table_add(parental->locked, channel);
	}
	sqlite3_finalize(st);
	return true;
}

static bool
set_value(struct umms_parental *parental, const char *key, sqlite3_int64 value,
	const char *text, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(parental->db, "INSERT OR REPLACE INTO parental_settings (key, value)"
			" VALUES (?, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(parental, key, error);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 2, value);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok || db_fail(parental, key, error);
}

bool
parental_db_set_flag(struct umms_parental *parental, const char *key, bool value,
	GError **error)
{
	return set_value(parental, key, value, NULL, error);
}

bool
parental_db_set_threshold(struct umms_parental *parental, const char *scheme, int age,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	const char *sql = age < 0 ? "DELETE FROM parental_thresholds WHERE scheme = ?" :
		"INSERT OR REPLACE INTO parental_thresholds (scheme, age) VALUES (?, ?)";
	if (sqlite3_prepare_v2(parental->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(parental, "thresholds", error);
	sqlite3_bind_text(st, 1, scheme, -1, SQLITE_STATIC);
	if (age >= 0)
		sqlite3_bind_int(st, 2, age);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok || db_fail(parental, "thresholds", error);
}

bool
parental_db_lock_channel(struct umms_parental *parental, int64_t channel, bool locked,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	const char *sql = locked ?
		"INSERT OR IGNORE INTO parental_locked_channels (channel) VALUES (?)" :
		"DELETE FROM parental_locked_channels WHERE channel = ?";
	if (sqlite3_prepare_v2(parental->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(parental, "locked channels", error);
	sqlite3_bind_int64(st, 1, channel);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok || db_fail(parental, "locked channels", error);
}

/* The PIN's hash and its counts, in one transaction. */
bool
parental_db_save_pin(struct umms_parental *parental, GError **error)
{
	const struct parental_pin_state *pin = &parental->pin;
	if (sqlite3_exec(parental->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(parental, "saving the PIN state", error);
	bool ok = (!pin->hash || set_value(parental, "pin-hash", 0, pin->hash, error)) &&
		set_value(parental, "wrong-pins", pin->wrong, NULL, error) &&
		set_value(parental, "locked-until", pin->locked_until_us, NULL, error) &&
		set_value(parental, "lockouts", pin->lockouts, NULL, error);
	if (!ok) {
		sqlite3_exec(parental->db, "ROLLBACK", NULL, NULL, NULL);
		return false;
	}
	if (sqlite3_exec(parental->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(parental, "saving the PIN state", error);
		sqlite3_exec(parental->db, "ROLLBACK", NULL, NULL, NULL);
		return false;
	}
	return true;
}
