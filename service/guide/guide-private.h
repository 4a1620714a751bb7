/*
 * What the guide's files share: the object, its SQLite tables
 * (guide-db.c), the emission of changes (guide.c), Guide1 (guide-dbus.c)
 * and the importers (guide-m3u.c, guide-xmltv.c, applied by
 * guide-import.c).
 */
#ifndef UMMS_SERVICE_GUIDE_PRIVATE_H
#define UMMS_SERVICE_GUIDE_PRIVATE_H

#include <sqlite3.h>

#include "guide.h"

/* Text longer than this (a title, a description) is cut at a character boundary. */
#define GUIDE_MAX_TEXT 16384

enum guide_stmt {
	STMT_CHANNEL_BY_ID,
	STMT_CHANNEL_BY_URI,
	STMT_CHANNEL_BY_DVB,
	STMT_CHANNEL_BY_XMLTV_ID,
	STMT_CHANNEL_INSERT,
	STMT_CHANNEL_UPDATE,
	STMT_PROGRAMME_BY_ID,
	STMT_PROGRAMME_BY_EVENT,
	STMT_PROGRAMME_BY_KEY,
	STMT_PROGRAMME_INSERT,
	STMT_PROGRAMME_UPDATE,
	STMT_PROGRAMME_DELETE,
	STMT_SEARCH_INSERT,
	STMT_SEARCH_DELETE,
	STMT_EIT_VERSION,
	STMT_EIT_VERSION_SET,
	STMT_COUNT,
};

struct guide_dbus;

struct umms_guide {
	const struct umms_config *config;
	GDBusConnection *connection;
	sqlite3 *db;
	sqlite3_stmt *stmts[STMT_COUNT];
	struct umms_guide_events events;
	GPtrArray *held;           /* strings the last getter handed out */
	GTimeZone *xmltv_zone;     /* offset-less XMLTV times are read in it */
	/* Change emission (guide.c). */
	GHashTable *now_next;      /* channel id (int64_t *) → its now/next signature */
	GHashTable *dirty;         /* channel ids whose now/next may have changed */
	bool dirty_all;
	bool content_changed;
	GSource *flush_idle;
	GSource *boundary;         /* at the next programme start or stop */
	struct guide_dbus *dbus;
	unsigned imports;          /* parsing or waiting to be applied (guide-import.c) */
	GQueue pending;            /* parsed imports, applied in order */
	GSource *apply_idle;       /* applies the first of them, a step at a time */
	GCancellable *cancellable; /* cancelled when the guide goes: imports' results dropped */
};

/* ---- guide-db.c ----------------------------------------------------------------------- */

bool guide_db_open(struct umms_guide *guide, const char *path, GError **error);
void guide_db_close(struct umms_guide *guide);
bool guide_db_begin(struct umms_guide *guide, GError **error);
bool guide_db_commit(struct umms_guide *guide, GError **error);
void guide_db_rollback(struct umms_guide *guide);
bool guide_db_fail(struct umms_guide *guide, const char *what, GError **error);
/* Prepared statement @which, reset and unbound. */
sqlite3_stmt *guide_db_stmt(struct umms_guide *guide, enum guide_stmt which);

/* Column list and reader of a programme row (SELECT GUIDE_PROGRAMME_COLUMNS FROM …). */
#define GUIDE_PROGRAMME_COLUMNS "id, channel, start_us, stop_us, title, sub_title, " \
	"description, categories, episode, series_id, rating_system, rating, min_age, onid, " \
	"tsid, sid, event_id, previously_shown"
#define GUIDE_CHANNEL_COLUMNS "id, number, name, logo, groups, uri, xmltv_id, " \
	"shift_minutes, source, onid, tsid, sid"
void guide_db_read_programme(sqlite3_stmt *st, struct umms_guide_programme *out);
void guide_db_read_channel(sqlite3_stmt *st, struct umms_guide_channel *out);

/*
 * Writes @p (id 0: inserts, setting it) unless the row already says the
 * same; @changed (may be NULL) tells whether a row was written. @origin
 * "xmltv" or "eit".
 */
bool guide_db_store_programme(struct umms_guide *guide, struct umms_guide_programme *p,
	const char *origin, bool *changed, GError **error);
/* The same for a channel; @epg_name (may be NULL): another name XMLTV may call it by. */
bool guide_db_store_channel(struct umms_guide *guide, struct umms_guide_channel *c,
	const char *epg_name, bool *changed, GError **error);

/* Copies @s so that it lives until the next getter (guide->held). */
const char *guide_hold(struct umms_guide *guide, const char *s);
void guide_release_held(struct umms_guide *guide);

/* ---- guide.c -------------------------------------------------------------------------- */

/* Content changed; channel @channel's now/next may have (0: any channel's). */
void guide_touch(struct umms_guide *guide, int64_t channel);
/* now (start <= @at < stop) and next (first start > @at) of @channel; false: none. */
bool guide_now_next(struct umms_guide *guide, int64_t channel, int64_t at_us,
	struct umms_guide_programme *now, bool *have_now,
	struct umms_guide_programme *next, bool *have_next);

/* ---- guide-dbus.c --------------------------------------------------------------------- */

struct guide_dbus *guide_dbus_create(struct umms_guide *guide, GError **error);
void guide_dbus_destroy(struct guide_dbus *dbus);
/* A programme as Guide1 gives it (a{sv}, floating). */
GVariant *guide_programme_variant(const struct umms_guide_programme *p);
/* ProgrammeChanged(channel, now, next). */
void guide_dbus_programme_changed(struct guide_dbus *dbus, int64_t channel, int64_t now_id,
	int64_t next_id);

/* ---- helpers shared by the importers -------------------------------------------------- */

/* @s cut to GUIDE_MAX_TEXT bytes, valid UTF-8, trimmed; NULL for NULL or empty. */
char *guide_clean_text(const char *s, size_t length);
/*
 * "S2E5" from XMLTV's xmltv_ns ("1.4.0/2": zero-based) or onscreen
 * ("S02E05", "2x05", "Season 2 Episode 5") form; NULL when neither says.
 */
char *guide_episode_from_xmltv_ns(const char *ns);
char *guide_episode_from_onscreen(const char *text);

#endif
