/*
 * The entitlements' tables in ummsd's SQLite file ([recording] database,
 * beside the guide's and the recorder's, from a connection of their own):
 * one row per item, and one row of the highest wall-clock time seen.
 *
 * Items are few (ENTITLEMENT_MAX_ITEMS) and read whole at start; every
 * change is written through at once, so a play counted is kept even when
 * ummsd is killed right after.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <glib/gstdio.h>

#include "entitlement-private.h"
#include "error.h"
#include "log.h"

/*
 * NULL columns: no such limit. first_play 0: never played. The clock has
 * one row (id 0).
 */
static const char schema[] =
	"CREATE TABLE IF NOT EXISTS entitlements ("
	" item TEXT PRIMARY KEY NOT NULL,"
	" max_plays INTEGER, not_before INTEGER, not_after INTEGER, window INTEGER,"
	" revoked INTEGER NOT NULL DEFAULT 0,"
	" plays INTEGER NOT NULL DEFAULT 0,"
	" first_play INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS entitlement_clock ("
	" id INTEGER PRIMARY KEY CHECK (id = 0), high INTEGER NOT NULL);";

static bool
db_fail(struct umms_entitlement *entitlement, const char *what, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "entitlements database: %s: %s", what,
		entitlement->db ? sqlite3_errmsg(entitlement->db) : "cannot open");
	return false;
}

bool
entitlement_db_open(struct umms_entitlement *entitlement, const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "cannot make %s: %s", dir,
			g_strerror(errno));
		return false;
	}
	if (sqlite3_open_v2(path, &entitlement->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		return db_fail(entitlement, path, error);
	/* The guide and the recorder write the same file from their connections. */
	sqlite3_busy_timeout(entitlement->db, 5000);
	/*
	 * WAL and synchronous=NORMAL, as the guide's: a counted play is kept
	 * when ummsd is killed, and a check costs no fsync.
	 */
	if (sqlite3_exec(entitlement->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
			NULL, NULL, NULL) != SQLITE_OK)
		umms_warn("entitlements database %s: no WAL journal: %s", path,
			sqlite3_errmsg(entitlement->db));
	if (sqlite3_exec(entitlement->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(entitlement, "creating the tables", error);
	return true;
}

void
entitlement_db_close(struct umms_entitlement *entitlement)
{
	if (entitlement->db)
		sqlite3_close(entitlement->db);
	entitlement->db = NULL;
}

void
entitlement_item_free(struct entitlement_item *item)
{
	if (!item)
		return;
	g_free(item->item);
	g_free(item);
}

static int64_t
column_or_zero(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, i);
}

bool
entitlement_db_load(struct umms_entitlement *entitlement, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(entitlement->db, "SELECT item, max_plays, not_before, not_after,"
			" window, revoked, plays, first_play FROM entitlements", -1, &st, NULL) !=
			SQLITE_OK)
		return db_fail(entitlement, "reading the items", error);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		if (!text)
			continue;
		struct entitlement_item *item = g_new0(struct entitlement_item, 1);
		item->item = g_strdup(text);
		item->terms.max_plays = (uint32_t)CLAMP(column_or_zero(st, 1), 0, G_MAXUINT32);
		item->terms.not_before = column_or_zero(st, 2);
		item->terms.not_after = column_or_zero(st, 3);
		item->terms.window = (uint32_t)CLAMP(column_or_zero(st, 4), 0, G_MAXUINT32);
		item->revoked = sqlite3_column_int(st, 5) != 0;
		item->plays = (uint32_t)CLAMP(sqlite3_column_int64(st, 6), 0, G_MAXUINT32);
		item->first_play = sqlite3_column_int64(st, 7);
		g_hash_table_replace(entitlement->items, item->item, item);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(entitlement, "reading the items", error);

	if (sqlite3_prepare_v2(entitlement->db, "SELECT high FROM entitlement_clock WHERE id = 0",
			-1, &st, NULL) != SQLITE_OK)
		return db_fail(entitlement, "reading the clock", error);
	if (sqlite3_step(st) == SQLITE_ROW)
		entitlement->clock_high = entitlement->clock_stored = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	umms_info("entitlements: %u items, highest time seen %" G_GINT64_FORMAT,
		g_hash_table_size(entitlement->items), entitlement->clock_high);
	return true;
}

static void
bind_limit(sqlite3_stmt *st, int i, int64_t value)
{
	if (value)
		sqlite3_bind_int64(st, i, value);
	else
		sqlite3_bind_null(st, i);
}

bool
entitlement_db_store(struct umms_entitlement *entitlement, const struct entitlement_item *item,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(entitlement->db, "INSERT OR REPLACE INTO entitlements (item,"
			" max_plays, not_before, not_after, window, revoked, plays, first_play)"
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(entitlement, "storing an item", error);
	sqlite3_bind_text(st, 1, item->item, -1, SQLITE_STATIC);
	bind_limit(st, 2, item->terms.max_plays);
	bind_limit(st, 3, item->terms.not_before);
	bind_limit(st, 4, item->terms.not_after);
	bind_limit(st, 5, item->terms.window);
	sqlite3_bind_int(st, 6, item->revoked);
	sqlite3_bind_int64(st, 7, item->plays);
	sqlite3_bind_int64(st, 8, item->first_play);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(entitlement, "storing an item", error);
	return true;
}

bool
entitlement_db_store_clock(struct umms_entitlement *entitlement, int64_t high, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(entitlement->db, "INSERT OR REPLACE INTO entitlement_clock"
			" (id, high) VALUES (0, ?)", -1, &st, NULL) != SQLITE_OK)
		return db_fail(entitlement, "storing the clock", error);
	sqlite3_bind_int64(st, 1, high);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(entitlement, "storing the clock", error);
	return true;
}
