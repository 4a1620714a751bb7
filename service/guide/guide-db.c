/*
 * The guide's tables in ummsd's SQLite file ([recording] database): its own
 * connection, the schema, the prepared statements and the writes that
 * leave a row alone when it already says the same (guide-private.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>

#include "error.h"
#include "guide-private.h"
#include "log.h"

/*
 * guide_search is an FTS5 index of the programmes' texts, rowid the
 * programme's id; unicode61 with remove_diacritics 2 makes "cafe" match
 * "Café". Rows go in from guide_db_store_programme, not from a trigger:
 * a trigger's statement savepoint makes FTS5 flush its pending terms at
 * every row (50,000 programmes: seconds instead of tenths). They go out
 * with their programme (the trigger: deletes are few and in bulk).
 */
static const char schema[] =
	"CREATE TABLE IF NOT EXISTS guide_channels ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" number TEXT, name TEXT NOT NULL, logo TEXT, groups TEXT,"
	" uri TEXT NOT NULL DEFAULT '', xmltv_id TEXT, epg_name TEXT,"
	" shift_minutes INTEGER NOT NULL DEFAULT 0, source TEXT,"
	" onid INTEGER NOT NULL DEFAULT -1, tsid INTEGER NOT NULL DEFAULT -1,"
	" sid INTEGER NOT NULL DEFAULT -1);"
	"CREATE INDEX IF NOT EXISTS guide_channels_uri ON guide_channels (uri);"
	"CREATE INDEX IF NOT EXISTS guide_channels_xmltv ON guide_channels (xmltv_id);"
	"CREATE INDEX IF NOT EXISTS guide_channels_dvb ON guide_channels (onid, tsid, sid);"
	"CREATE TABLE IF NOT EXISTS guide_programmes ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" channel INTEGER NOT NULL DEFAULT 0,"
	" start_us INTEGER NOT NULL, stop_us INTEGER NOT NULL,"
	" title TEXT NOT NULL, sub_title TEXT, description TEXT, categories TEXT,"
	" episode TEXT, series_id TEXT, rating_system TEXT, rating TEXT,"
	" min_age INTEGER NOT NULL DEFAULT -1,"
	" onid INTEGER NOT NULL DEFAULT -1, tsid INTEGER NOT NULL DEFAULT -1,"
	" sid INTEGER NOT NULL DEFAULT -1, event_id INTEGER NOT NULL DEFAULT -1,"
	" origin TEXT NOT NULL, previously_shown INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS guide_programmes_channel"
	" ON guide_programmes (channel, start_us, title);"
	"CREATE INDEX IF NOT EXISTS guide_programmes_start ON guide_programmes (start_us);"
	"CREATE INDEX IF NOT EXISTS guide_programmes_stop ON guide_programmes (stop_us);"
	"CREATE UNIQUE INDEX IF NOT EXISTS guide_programmes_event"
	" ON guide_programmes (onid, tsid, sid, event_id) WHERE event_id >= 0;"
	"CREATE TABLE IF NOT EXISTS guide_eit_versions ("
	" onid INTEGER, tsid INTEGER, sid INTEGER, table_id INTEGER, section INTEGER,"
	" version INTEGER NOT NULL, PRIMARY KEY (onid, tsid, sid, table_id, section));"
	"CREATE VIRTUAL TABLE IF NOT EXISTS guide_search USING fts5("
	" title, sub_title, description, tokenize='unicode61 remove_diacritics 2');"
	"CREATE TRIGGER IF NOT EXISTS guide_search_delete AFTER DELETE ON guide_programmes BEGIN"
	" DELETE FROM guide_search WHERE rowid = old.id; END;";

static const char *const stmt_sql[STMT_COUNT] = {
	[STMT_CHANNEL_BY_ID] = "SELECT " GUIDE_CHANNEL_COLUMNS ", epg_name"
		" FROM guide_channels WHERE id = ?",
	[STMT_CHANNEL_BY_URI] = "SELECT id FROM guide_channels WHERE uri = ? AND uri != ''"
		" ORDER BY id LIMIT 1",
	[STMT_CHANNEL_BY_DVB] = "SELECT id FROM guide_channels"
		" WHERE onid = ? AND tsid = ? AND sid = ? ORDER BY id LIMIT 1",
	[STMT_CHANNEL_BY_XMLTV_ID] = "SELECT id FROM guide_channels"
		" WHERE xmltv_id = ? AND uri = '' ORDER BY id LIMIT 1",
	[STMT_CHANNEL_INSERT] = "INSERT INTO guide_channels (number, name, logo, groups, uri,"
		" xmltv_id, shift_minutes, source, onid, tsid, sid, epg_name)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_CHANNEL_UPDATE] = "UPDATE guide_channels SET number = ?, name = ?, logo = ?,"
		" groups = ?, uri = ?, xmltv_id = ?, shift_minutes = ?, source = ?, onid = ?,"
		" tsid = ?, sid = ?, epg_name = ? WHERE id = ?",
	[STMT_PROGRAMME_BY_ID] = "SELECT " GUIDE_PROGRAMME_COLUMNS ", origin"
		" FROM guide_programmes WHERE id = ?",
	[STMT_PROGRAMME_BY_EVENT] = "SELECT id FROM guide_programmes"
		" WHERE onid = ? AND tsid = ? AND sid = ? AND event_id = ? AND event_id >= 0",
	[STMT_PROGRAMME_BY_KEY] = "SELECT id FROM guide_programmes"
		" WHERE channel = ? AND start_us = ? AND title = ? AND origin = 'xmltv' LIMIT 1",
	[STMT_PROGRAMME_INSERT] = "INSERT INTO guide_programmes (channel, start_us, stop_us,"
		" title, sub_title, description, categories, episode, series_id, rating_system,"
		" rating, min_age, onid, tsid, sid, event_id, origin, previously_shown)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_PROGRAMME_UPDATE] = "UPDATE guide_programmes SET channel = ?, start_us = ?,"
		" stop_us = ?, title = ?, sub_title = ?, description = ?, categories = ?,"
		" episode = ?, series_id = ?, rating_system = ?, rating = ?, min_age = ?, onid = ?,"
		" tsid = ?, sid = ?, event_id = ?, origin = ?, previously_shown = ? WHERE id = ?",
	[STMT_PROGRAMME_DELETE] = "DELETE FROM guide_programmes WHERE id = ?",
	[STMT_SEARCH_INSERT] = "INSERT INTO guide_search (rowid, title, sub_title, description)"
		" VALUES (?, ?, ?, ?)",
	[STMT_SEARCH_DELETE] = "DELETE FROM guide_search WHERE rowid = ?",
	[STMT_EIT_VERSION] = "SELECT version FROM guide_eit_versions"
		" WHERE onid = ? AND tsid = ? AND sid = ? AND table_id = ? AND section = ?",
	[STMT_EIT_VERSION_SET] = "INSERT OR REPLACE INTO guide_eit_versions"
		" (onid, tsid, sid, table_id, section, version) VALUES (?, ?, ?, ?, ?, ?)",
};

bool
guide_db_fail(struct umms_guide *guide, const char *what, GError **error)
{
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "guide database: %s: %s", what,
		guide->db ? sqlite3_errmsg(guide->db) : "cannot open");
	return false;
}

bool
guide_db_open(struct umms_guide *guide, const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "cannot make %s: %s", dir,
			g_strerror(errno));
		return false;
	}
	if (sqlite3_open_v2(path, &guide->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		return guide_db_fail(guide, path, error);
	/* The recorder writes the same file from its own connection. */
	sqlite3_busy_timeout(guide->db, 5000);
	/*
	 * WAL: the recorder's connection and this one read while the other
	 * writes. synchronous=NORMAL is durable across a crash of ummsd
	 * (not of the machine), enough for a guide that is imported again.
	 * A cache of 32 MiB holds the indexes an import of a week of a
	 * few hundred channels writes into.
	 */
	if (sqlite3_exec(guide->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
			" PRAGMA cache_size=-32768; PRAGMA temp_store=MEMORY;",
			NULL, NULL, NULL) != SQLITE_OK)
		umms_warn("guide database %s: no WAL journal: %s", path, sqlite3_errmsg(guide->db));
	if (sqlite3_exec(guide->db, schema, NULL, NULL, NULL) != SQLITE_OK)
		return guide_db_fail(guide, "creating the tables", error);
	for (int i = 0; i < STMT_COUNT; i++) {
		if (sqlite3_prepare_v3(guide->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				&guide->stmts[i], NULL) != SQLITE_OK)
			return guide_db_fail(guide, stmt_sql[i], error);
	}
	return true;
}

void
guide_db_close(struct umms_guide *guide)
{
	for (int i = 0; i < STMT_COUNT; i++)
		sqlite3_finalize(guide->stmts[i]);
	sqlite3_close(guide->db);
	guide->db = NULL;
}

sqlite3_stmt *
guide_db_stmt(struct umms_guide *guide, enum guide_stmt which)
{
	sqlite3_stmt *st = guide->stmts[which];
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

bool
guide_db_begin(struct umms_guide *guide, GError **error)
{
	if (sqlite3_exec(guide->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return guide_db_fail(guide, "begin", error);
	return true;
}

bool
guide_db_commit(struct umms_guide *guide, GError **error)
{
	if (sqlite3_exec(guide->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		guide_db_fail(guide, "commit", error);
		guide_db_rollback(guide);
		return false;
	}
	return true;
}

void
guide_db_rollback(struct umms_guide *guide)
{
	if (!sqlite3_get_autocommit(guide->db))
		sqlite3_exec(guide->db, "ROLLBACK", NULL, NULL, NULL);
}

static const char *
text_or_null(sqlite3_stmt *st, int column)
{
	return (const char *)sqlite3_column_text(st, column);
}

void
guide_db_read_programme(sqlite3_stmt *st, struct umms_guide_programme *out)
{
	*out = (struct umms_guide_programme){
		.id = sqlite3_column_int64(st, 0),
		.channel = sqlite3_column_int64(st, 1),
		.start_us = sqlite3_column_int64(st, 2),
		.stop_us = sqlite3_column_int64(st, 3),
		.title = text_or_null(st, 4),
		.sub_title = text_or_null(st, 5),
		.description = text_or_null(st, 6),
		.categories = text_or_null(st, 7),
		.episode = text_or_null(st, 8),
		.series_id = text_or_null(st, 9),
		.rating_system = text_or_null(st, 10),
		.rating = text_or_null(st, 11),
		.min_age = sqlite3_column_int(st, 12),
		.dvb = { sqlite3_column_int(st, 13), sqlite3_column_int(st, 14),
			sqlite3_column_int(st, 15) },
		.event_id = sqlite3_column_int(st, 16),
		.previously_shown = sqlite3_column_int(st, 17) != 0,
	};
	if (!out->title)
		out->title = "";
}

void
guide_db_read_channel(sqlite3_stmt *st, struct umms_guide_channel *out)
{
	*out = (struct umms_guide_channel){
		.id = sqlite3_column_int64(st, 0),
		.number = text_or_null(st, 1),
		.name = text_or_null(st, 2),
		.logo = text_or_null(st, 3),
		.groups = text_or_null(st, 4),
		.uri = text_or_null(st, 5),
		.xmltv_id = text_or_null(st, 6),
		.shift_minutes = sqlite3_column_int(st, 7),
		.source = text_or_null(st, 8),
		.dvb = { sqlite3_column_int(st, 9), sqlite3_column_int(st, 10),
			sqlite3_column_int(st, 11) },
	};
	if (!out->name)
		out->name = "";
	if (!out->uri)
		out->uri = "";
}

static void
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static bool
same(const char *a, const char *b)
{
	if (a && !*a)
		a = NULL;
	if (b && !*b)
		b = NULL;
	return g_strcmp0(a, b) == 0;
}

static int64_t
find_id(struct umms_guide *guide, sqlite3_stmt *st)
{
	int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return id;
}

/* Whether row @id (STMT_PROGRAMME_BY_ID) already says what @p says. */
static bool
programme_unchanged(struct umms_guide *guide, const struct umms_guide_programme *p,
	const char *origin)
{
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_PROGRAMME_BY_ID);
	sqlite3_bind_int64(st, 1, p->id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return false;
	}
	struct umms_guide_programme o;
	guide_db_read_programme(st, &o);
	bool unchanged = o.channel == p->channel && o.start_us == p->start_us &&
		o.stop_us == p->stop_us && same(o.title, p->title) &&
		same(o.sub_title, p->sub_title) && same(o.description, p->description) &&
		same(o.categories, p->categories) && same(o.episode, p->episode) &&
		same(o.series_id, p->series_id) && same(o.rating_system, p->rating_system) &&
		same(o.rating, p->rating) && o.min_age == p->min_age &&
		o.dvb.onid == p->dvb.onid && o.dvb.tsid == p->dvb.tsid &&
		o.dvb.sid == p->dvb.sid && o.event_id == p->event_id &&
		o.previously_shown == p->previously_shown && same(text_or_null(st, 18), origin);
	sqlite3_reset(st);
	return unchanged;
}

bool
guide_db_store_programme(struct umms_guide *guide, struct umms_guide_programme *p,
	const char *origin, bool *changed, GError **error)
{
	if (changed)
		*changed = false;
	if (p->id && programme_unchanged(guide, p, origin))
		return true;
	sqlite3_stmt *st = guide_db_stmt(guide, p->id ? STMT_PROGRAMME_UPDATE :
		STMT_PROGRAMME_INSERT);
	sqlite3_bind_int64(st, 1, p->channel);
	sqlite3_bind_int64(st, 2, p->start_us);
	sqlite3_bind_int64(st, 3, p->stop_us);
	sqlite3_bind_text(st, 4, p->title ? p->title : "", -1, SQLITE_TRANSIENT);
	bind_text(st, 5, p->sub_title);
	bind_text(st, 6, p->description);
	bind_text(st, 7, p->categories);
	bind_text(st, 8, p->episode);
	bind_text(st, 9, p->series_id);
	bind_text(st, 10, p->rating_system);
	bind_text(st, 11, p->rating);
	sqlite3_bind_int(st, 12, p->min_age);
	sqlite3_bind_int(st, 13, p->dvb.onid);
	sqlite3_bind_int(st, 14, p->dvb.tsid);
	sqlite3_bind_int(st, 15, p->dvb.sid);
	sqlite3_bind_int(st, 16, p->event_id);
	sqlite3_bind_text(st, 17, origin, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 18, p->previously_shown);
	if (p->id)
		sqlite3_bind_int64(st, 19, p->id);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_reset(st);
	if (!ok)
		return guide_db_fail(guide, "storing a programme", error);
	bool update = p->id != 0;
	if (!update)
		p->id = sqlite3_last_insert_rowid(guide->db);
	if (update) {
		st = guide_db_stmt(guide, STMT_SEARCH_DELETE);
		sqlite3_bind_int64(st, 1, p->id);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	if (ok) {
		st = guide_db_stmt(guide, STMT_SEARCH_INSERT);
		sqlite3_bind_int64(st, 1, p->id);
		sqlite3_bind_text(st, 2, p->title ? p->title : "", -1, SQLITE_TRANSIENT);
		bind_text(st, 3, p->sub_title);
		bind_text(st, 4, p->description);
		ok = sqlite3_step(st) == SQLITE_DONE;
		sqlite3_reset(st);
	}
	if (!ok)
		return guide_db_fail(guide, "indexing a programme for search", error);
	if (changed)
		*changed = true;
	return true;
}

static bool
channel_unchanged(struct umms_guide *guide, const struct umms_guide_channel *c,
	const char *epg_name)
{
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_ID);
	sqlite3_bind_int64(st, 1, c->id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return false;
	}
	struct umms_guide_channel o;
	guide_db_read_channel(st, &o);
	bool unchanged = same(o.number, c->number) && same(o.name, c->name) &&
		same(o.logo, c->logo) && same(o.groups, c->groups) && same(o.uri, c->uri) &&
		same(o.xmltv_id, c->xmltv_id) && o.shift_minutes == c->shift_minutes &&
		same(o.source, c->source) && o.dvb.onid == c->dvb.onid &&
		o.dvb.tsid == c->dvb.tsid && o.dvb.sid == c->dvb.sid &&
		same(text_or_null(st, 12), epg_name);
	sqlite3_reset(st);
	return unchanged;
}

bool
guide_db_store_channel(struct umms_guide *guide, struct umms_guide_channel *c,
	const char *epg_name, bool *changed, GError **error)
{
	if (changed)
		*changed = false;
	if (!c->id && c->dvb.sid >= 0) {
		sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_DVB);
		sqlite3_bind_int(st, 1, c->dvb.onid);
		sqlite3_bind_int(st, 2, c->dvb.tsid);
		sqlite3_bind_int(st, 3, c->dvb.sid);
		c->id = find_id(guide, st);
	}
	if (!c->id && c->uri && *c->uri) {
		sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_URI);
		sqlite3_bind_text(st, 1, c->uri, -1, SQLITE_TRANSIENT);
		c->id = find_id(guide, st);
	}
	/* A channel XMLTV named first (no URI) is taken over by the playlist that has one. */
	if (!c->id && c->xmltv_id && *c->xmltv_id) {
		sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_XMLTV_ID);
		sqlite3_bind_text(st, 1, c->xmltv_id, -1, SQLITE_TRANSIENT);
		c->id = find_id(guide, st);
	}
	if (c->id && channel_unchanged(guide, c, epg_name))
		return true;
	sqlite3_stmt *st = guide_db_stmt(guide, c->id ? STMT_CHANNEL_UPDATE : STMT_CHANNEL_INSERT);
	bind_text(st, 1, c->number);
	sqlite3_bind_text(st, 2, c->name ? c->name : "", -1, SQLITE_TRANSIENT);
	bind_text(st, 3, c->logo);
	bind_text(st, 4, c->groups);
	sqlite3_bind_text(st, 5, c->uri ? c->uri : "", -1, SQLITE_TRANSIENT);
	bind_text(st, 6, c->xmltv_id);
	sqlite3_bind_int(st, 7, c->shift_minutes);
	bind_text(st, 8, c->source);
	sqlite3_bind_int(st, 9, c->dvb.onid);
	sqlite3_bind_int(st, 10, c->dvb.tsid);
	sqlite3_bind_int(st, 11, c->dvb.sid);
	bind_text(st, 12, epg_name);
	if (c->id)
		sqlite3_bind_int64(st, 13, c->id);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_reset(st);
	if (!ok)
		return guide_db_fail(guide, "storing a channel", error);
	if (!c->id)
		c->id = sqlite3_last_insert_rowid(guide->db);
	if (changed)
		*changed = true;
	return true;
}

const char *
guide_hold(struct umms_guide *guide, const char *s)
{
	if (!s)
		return NULL;
	char *copy = g_strdup(s);
	g_ptr_array_add(guide->held, copy);
	return copy;
}

void
guide_release_held(struct umms_guide *guide)
{
	g_ptr_array_set_size(guide->held, 0);
}
