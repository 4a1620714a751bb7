/*
 * The programme guide (guide.h): its life, what EIT and scans put in, what
 * readers get out, and the emission of changes: `changed` once per burst,
 * `now_next` (and Guide1.ProgrammeChanged) for each channel whose
 * now/next differs from what was last said, checked after each change and
 * at every programme boundary.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>
#include <libxml/parser.h>

#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"
#include "source.h"

/* Programmes that ended longer ago than this go at start. */
#define KEEP_ENDED_US (14 * G_TIME_SPAN_DAY)
/* The boundary timer wakes at least this often (the clock may jump). */
#define MAX_BOUNDARY_WAIT_MS (3600 * 1000)

static void flush(struct umms_guide *guide);

/* ---- now/next ----------------------------------------------------------------------------- */

/* @p's strings held until the next call into the guide (guide.h). */
static void
hold_programme(struct umms_guide *guide, struct umms_guide_programme *p)
{
	p->title = guide_hold(guide, p->title);
	p->sub_title = guide_hold(guide, p->sub_title);
	p->description = guide_hold(guide, p->description);
	p->categories = guide_hold(guide, p->categories);
	p->episode = guide_hold(guide, p->episode);
	p->series_id = guide_hold(guide, p->series_id);
	p->rating_system = guide_hold(guide, p->rating_system);
	p->rating = guide_hold(guide, p->rating);
}

bool
guide_now_next(struct umms_guide *guide, int64_t channel, int64_t at_us,
	struct umms_guide_programme *now, bool *have_now,
	struct umms_guide_programme *next, bool *have_next)
{
	static const char now_sql[] = "SELECT " GUIDE_PROGRAMME_COLUMNS " FROM guide_programmes"
		" WHERE channel = ? AND start_us <= ? AND stop_us > ?"
		" ORDER BY start_us DESC, id LIMIT 1";
	static const char next_sql[] = "SELECT " GUIDE_PROGRAMME_COLUMNS " FROM guide_programmes"
		" WHERE channel = ? AND start_us > ? ORDER BY start_us, id LIMIT 1";
	*have_now = *have_next = false;
	guide_release_held(guide);
	const char *sql[2] = { now_sql, next_sql };
	struct umms_guide_programme *out[2] = { now, next };
	bool *have[2] = { have_now, have_next };
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(guide->db, sql[i], -1, &st, NULL) != SQLITE_OK) {
			umms_warn("guide: now/next: %s", sqlite3_errmsg(guide->db));
			return false;
		}
		sqlite3_bind_int64(st, 1, channel);
		sqlite3_bind_int64(st, 2, at_us);
		if (i == 0)
			sqlite3_bind_int64(st, 3, at_us);
		if (sqlite3_step(st) == SQLITE_ROW) {
			struct umms_guide_programme *p = out[i];
			guide_db_read_programme(st, p);
			hold_programme(guide, p);
			*have[i] = true;
		}
		sqlite3_finalize(st);
	}
	return *have_now || *have_next;
}

static char *
now_next_signature(struct umms_guide *guide, int64_t channel, int64_t *now_id, int64_t *next_id)
{
	struct umms_guide_programme now, next;
	bool have_now, have_next;
	guide_now_next(guide, channel, g_get_real_time(), &now, &have_now, &next, &have_next);
	*now_id = have_now ? now.id : 0;
	*next_id = have_next ? next.id : 0;
	GString *s = g_string_new(NULL);
	if (have_now)
		g_string_append_printf(s, "%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%"
			G_GINT64_FORMAT ":%s:%s:%s", now.id, now.start_us, now.stop_us, now.title,
			now.sub_title ? now.sub_title : "", now.episode ? now.episode : "");
	g_string_append_c(s, '|');
	if (have_next)
		g_string_append_printf(s, "%" G_GINT64_FORMAT ":%" G_GINT64_FORMAT ":%"
			G_GINT64_FORMAT ":%s:%s:%s", next.id, next.start_us, next.stop_us,
			next.title, next.sub_title ? next.sub_title : "",
			next.episode ? next.episode : "");
	return g_string_free(s, false);
}

/* Compares @channel's now/next with what was last said; @emit: say it if it differs. */
static void
check_channel(struct umms_guide *guide, int64_t channel, bool emit)
{
	int64_t now_id, next_id;
	char *signature = now_next_signature(guide, channel, &now_id, &next_id);
	const char *old = g_hash_table_lookup(guide->now_next, &channel);
	if (old && strcmp(old, signature) == 0) {
		g_free(signature);
		return;
	}
	if (!old && strcmp(signature, "|") == 0 && !emit) {
		g_free(signature);
		return;
	}
	bool was_known = old != NULL;
	g_hash_table_insert(guide->now_next, g_memdup2(&channel, sizeof(channel)), signature);
	if (!emit || (!was_known && strcmp(signature, "|") == 0))
		return;
	umms_debug("guide: channel %" G_GINT64_FORMAT ": now %" G_GINT64_FORMAT ", next %"
		G_GINT64_FORMAT, channel, now_id, next_id);
	guide_dbus_programme_changed(guide->dbus, channel, now_id, next_id);
	wl_signal_emit_mutable(&guide->events.now_next, &channel);
}

static GArray *
all_channels(struct umms_guide *guide)
{
	GArray *ids = g_array_new(false, false, sizeof(int64_t));
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT id FROM guide_channels ORDER BY id", -1, &st,
			NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			g_array_append_val(ids, id);
		}
	}
	sqlite3_finalize(st);
	return ids;
}

static void schedule_boundary(struct umms_guide *guide);

static gboolean
boundary_cb(gpointer data)
{
	struct umms_guide *guide = data;
	umms_source_forget(&guide->boundary);
	guide->dirty_all = true;
	flush(guide);
	return G_SOURCE_REMOVE;
}

static void
schedule_boundary(struct umms_guide *guide)
{
	umms_source_clear(&guide->boundary);
	int64_t now = g_get_real_time();
	sqlite3_stmt *st = NULL;
	int64_t next = 0;
	if (sqlite3_prepare_v2(guide->db, "SELECT min((SELECT min(start_us) FROM guide_programmes"
			" WHERE start_us > ?1), (SELECT min(stop_us) FROM guide_programmes"
			" WHERE stop_us > ?1))", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, now);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			next = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (!next)
		return;
	int64_t wait_ms = (next - now) / 1000 + 1;
	guide->boundary = umms_source_timeout((unsigned)MIN(wait_ms, MAX_BOUNDARY_WAIT_MS),
		boundary_cb, guide);
}

static void
flush(struct umms_guide *guide)
{
	umms_source_clear(&guide->flush_idle);
	if (guide->content_changed) {
		guide->content_changed = false;
		wl_signal_emit_mutable(&guide->events.changed, NULL);
	}
	if (guide->dirty_all) {
		g_autoptr(GArray) ids = all_channels(guide);
		for (guint i = 0; i < ids->len; i++)
			check_channel(guide, g_array_index(ids, int64_t, i), true);
	} else {
		GHashTableIter iter;
		gpointer key;
		g_hash_table_iter_init(&iter, guide->dirty);
		while (g_hash_table_iter_next(&iter, &key, NULL))
			check_channel(guide, *(int64_t *)key, true);
	}
	guide->dirty_all = false;
	g_hash_table_remove_all(guide->dirty);
	schedule_boundary(guide);
}

static gboolean
flush_cb(gpointer data)
{
	struct umms_guide *guide = data;
	umms_source_forget(&guide->flush_idle);
	flush(guide);
	return G_SOURCE_REMOVE;
}

void
guide_touch(struct umms_guide *guide, int64_t channel)
{
	guide->content_changed = true;
	if (channel == 0)
		guide->dirty_all = true;
	else
		g_hash_table_add(guide->dirty, g_memdup2(&channel, sizeof(channel)));
	if (!guide->flush_idle)
		guide->flush_idle = umms_source_idle(flush_cb, guide);
}

/* ---- writers ------------------------------------------------------------------------------ */

/* Programmes EIT put before a channel named their service now belong to it. */
static bool
adopt_programmes(struct umms_guide *guide, const struct umms_guide_channel *c, GError **error)
{
	if (c->dvb.sid < 0)
		return true;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "UPDATE guide_programmes SET channel = ?"
			" WHERE channel = 0 AND onid = ? AND tsid = ? AND sid = ?", -1, &st,
			NULL) != SQLITE_OK)
		return guide_db_fail(guide, "adopting programmes", error);
	sqlite3_bind_int64(st, 1, c->id);
	sqlite3_bind_int(st, 2, c->dvb.onid);
	sqlite3_bind_int(st, 3, c->dvb.tsid);
	sqlite3_bind_int(st, 4, c->dvb.sid);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!ok)
		return guide_db_fail(guide, "adopting programmes", error);
	if (sqlite3_changes(guide->db) > 0)
		guide_touch(guide, c->id);
	return true;
}

bool
umms_guide_put_channel(struct umms_guide *guide, struct umms_guide_channel *channel,
	GError **error)
{
	if (!channel->name || !*channel->name) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "a channel needs a name");
		return false;
	}
	if (!g_utf8_validate(channel->name, -1, NULL) ||
			(channel->uri && !g_utf8_validate(channel->uri, -1, NULL))) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a channel's name and URI must be UTF-8");
		return false;
	}
	if (!guide_db_begin(guide, error))
		return false;
	bool changed;
	if (!guide_db_store_channel(guide, channel, NULL, &changed, error) ||
			!adopt_programmes(guide, channel, error)) {
		guide_db_rollback(guide);
		return false;
	}
	if (!guide_db_commit(guide, error))
		return false;
	if (changed)
		guide_touch(guide, channel->id);
	return true;
}

bool
umms_guide_link_service(struct umms_guide *guide, const char *uri,
	const struct umms_guide_dvb_ids *dvb, int64_t *channel, GError **error)
{
	int64_t unused;
	if (!channel)
		channel = &unused;
	*channel = 0;
	if (!uri || !*uri || dvb->sid < 0)
		return true;
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_URI);
	sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
	int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	struct umms_guide_channel c;
	if (!id || !umms_guide_get_channel(guide, id, &c))
		return true;
	*channel = id;
	if (c.dvb.sid >= 0) {
		if (c.dvb.onid != dvb->onid || c.dvb.tsid != dvb->tsid || c.dvb.sid != dvb->sid)
			umms_debug("guide: %s is service %d/%d/%d already, not %d/%d/%d", uri,
				c.dvb.onid, c.dvb.tsid, c.dvb.sid, dvb->onid, dvb->tsid, dvb->sid);
		return true;
	}
	c.dvb = *dvb;
	return umms_guide_put_channel(guide, &c, error);
}

static int64_t
channel_of_service(struct umms_guide *guide, const struct umms_guide_dvb_ids *dvb)
{
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_DVB);
	sqlite3_bind_int(st, 1, dvb->onid);
	sqlite3_bind_int(st, 2, dvb->tsid);
	sqlite3_bind_int(st, 3, dvb->sid);
	int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return id;
}

/*
 * EIT programmes of the same service overlapping @p's time under another
 * event id: the broadcaster replaced them.
 */
static bool
drop_replaced(struct umms_guide *guide, const struct umms_guide_programme *p, GHashTable *kept,
	bool *changed, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT id FROM guide_programmes WHERE origin = 'eit'"
			" AND onid = ? AND tsid = ? AND sid = ? AND event_id != ?"
			" AND start_us < ? AND stop_us > ?", -1, &st, NULL) != SQLITE_OK)
		return guide_db_fail(guide, "EIT", error);
	sqlite3_bind_int(st, 1, p->dvb.onid);
	sqlite3_bind_int(st, 2, p->dvb.tsid);
	sqlite3_bind_int(st, 3, p->dvb.sid);
	sqlite3_bind_int(st, 4, p->event_id);
	sqlite3_bind_int64(st, 5, p->stop_us);
	sqlite3_bind_int64(st, 6, p->start_us);
	g_autoptr(GArray) ids = g_array_new(false, false, sizeof(int64_t));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (!g_hash_table_contains(kept, &id))
			g_array_append_val(ids, id);
	}
	sqlite3_finalize(st);
	for (guint i = 0; i < ids->len; i++) {
		sqlite3_stmt *del = guide_db_stmt(guide, STMT_PROGRAMME_DELETE);
		sqlite3_bind_int64(del, 1, g_array_index(ids, int64_t, i));
		bool ok = sqlite3_step(del) == SQLITE_DONE;
		sqlite3_reset(del);
		if (!ok)
			return guide_db_fail(guide, "EIT", error);
		*changed = true;
	}
	return true;
}

static bool
store_eit_event(struct umms_guide *guide, const struct umms_guide_eit *eit,
	const struct umms_guide_eit_event *e, int64_t channel, GHashTable *kept, bool *changed,
	GError **error)
{
	g_autofree char *title = guide_clean_text(e->title, (size_t)-1);
	g_autofree char *sub_title = guide_clean_text(e->sub_title, (size_t)-1);
	g_autofree char *description = guide_clean_text(e->description, (size_t)-1);
	g_autofree char *categories = guide_clean_text(e->categories, (size_t)-1);
	g_autofree char *series_id = guide_clean_text(e->series_id, (size_t)-1);
	g_autofree char *episode = guide_clean_text(e->episode, (size_t)-1);
	g_autofree char *rating = e->rating_raw >= 0 ? g_strdup_printf("%d", e->rating_raw) :
		NULL;
	g_autofree char *system = NULL;
	if (e->rating_raw >= 0) {
		g_autofree char *country = guide_clean_text(e->rating_country, 3);
		system = country ? g_strdup_printf("DVB:%s", country) : g_strdup("DVB");
	}
	struct umms_guide_programme p = {
		.channel = channel,
		.start_us = e->start_us,
		.stop_us = e->start_us + MAX(e->duration_us, 0),
		.title = title ? title : "",
		.sub_title = sub_title,
		.description = description,
		.categories = categories,
		.episode = episode,
		.series_id = series_id,
		.rating_system = system,
		.rating = rating,
		.min_age = e->min_age,
		.dvb = eit->dvb,
		.event_id = e->event_id,
	};
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_PROGRAMME_BY_EVENT);
	sqlite3_bind_int(st, 1, eit->dvb.onid);
	sqlite3_bind_int(st, 2, eit->dvb.tsid);
	sqlite3_bind_int(st, 3, eit->dvb.sid);
	sqlite3_bind_int(st, 4, e->event_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		p.id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	bool stored;
	if (!guide_db_store_programme(guide, &p, "eit", &stored, error))
		return false;
	g_hash_table_add(kept, g_memdup2(&p.id, sizeof(p.id)));
	*changed |= stored;
	return drop_replaced(guide, &p, kept, changed, error);
}

bool
umms_guide_put_eit(struct umms_guide *guide, const struct umms_guide_eit *eit, GError **error)
{
	if (eit->dvb.sid < 0 || eit->version < 0 || eit->version > 31 || eit->n_events > 4096) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"EIT section: service %d, version %d, %zu events: out of range",
			eit->dvb.sid, eit->version, eit->n_events);
		return false;
	}
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_EIT_VERSION);
	sqlite3_bind_int(st, 1, eit->dvb.onid);
	sqlite3_bind_int(st, 2, eit->dvb.tsid);
	sqlite3_bind_int(st, 3, eit->dvb.sid);
	sqlite3_bind_int(st, 4, eit->table_id);
	sqlite3_bind_int(st, 5, eit->section_number);
	bool seen = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == eit->version;
	sqlite3_reset(st);
	if (seen)
		return true;
	if (!guide_db_begin(guide, error))
		return false;
	int64_t channel = channel_of_service(guide, &eit->dvb);
	g_autoptr(GHashTable) kept = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		NULL);
	bool changed = false;
	for (size_t i = 0; i < eit->n_events; i++) {
		const struct umms_guide_eit_event *e = &eit->events[i];
		if (e->event_id < 0 || e->event_id > 0xffff || !e->title)
			continue;
		if (!store_eit_event(guide, eit, e, channel, kept, &changed, error))
			goto fail;
	}
	st = guide_db_stmt(guide, STMT_EIT_VERSION_SET);
	sqlite3_bind_int(st, 1, eit->dvb.onid);
	sqlite3_bind_int(st, 2, eit->dvb.tsid);
	sqlite3_bind_int(st, 3, eit->dvb.sid);
	sqlite3_bind_int(st, 4, eit->table_id);
	sqlite3_bind_int(st, 5, eit->section_number);
	sqlite3_bind_int(st, 6, eit->version);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_reset(st);
	if (!ok) {
		guide_db_fail(guide, "EIT version", error);
		goto fail;
	}
	if (!guide_db_commit(guide, error))
		return false;
	if (changed)
		guide_touch(guide, channel);
	return true;
fail:
	guide_db_rollback(guide);
	return false;
}

/* ---- readers ------------------------------------------------------------------------------ */

bool
umms_guide_get_programme(struct umms_guide *guide, int64_t id, struct umms_guide_programme *out)
{
	guide_release_held(guide);
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_PROGRAMME_BY_ID);
	sqlite3_bind_int64(st, 1, id);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		guide_db_read_programme(st, out);
		hold_programme(guide, out);
	}
	sqlite3_reset(st);
	return found;
}

bool
umms_guide_get_channel(struct umms_guide *guide, int64_t id, struct umms_guide_channel *out)
{
	guide_release_held(guide);
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_ID);
	sqlite3_bind_int64(st, 1, id);
	bool found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		guide_db_read_channel(st, out);
		out->number = guide_hold(guide, out->number);
		out->name = guide_hold(guide, out->name);
		out->logo = guide_hold(guide, out->logo);
		out->groups = guide_hold(guide, out->groups);
		out->uri = guide_hold(guide, out->uri);
		out->xmltv_id = guide_hold(guide, out->xmltv_id);
		out->source = guide_hold(guide, out->source);
	}
	sqlite3_reset(st);
	return found;
}

int64_t
umms_guide_find_channel_by_uri(struct umms_guide *guide, const char *uri)
{
	if (!uri || !*uri)
		return 0;
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_URI);
	sqlite3_bind_text(st, 1, uri, -1, SQLITE_TRANSIENT);
	int64_t id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return id;
}

bool
umms_guide_programme_at(struct umms_guide *guide, int64_t channel, int64_t at_us,
	struct umms_guide_programme *out, int64_t *next_start_us)
{
	struct umms_guide_programme next;
	bool have_now = false, have_next = false;
	guide_now_next(guide, channel, at_us, out, &have_now, &next, &have_next);
	if (next_start_us)
		*next_start_us = have_next ? next.start_us : -1;
	return have_now;
}

void
umms_guide_for_each_programme(struct umms_guide *guide, int64_t channel, int64_t from_us,
	int64_t to_us, umms_guide_programme_fn fn, void *data)
{
	/* Its own statement: @fn may call into the guide, even here again. */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT " GUIDE_PROGRAMME_COLUMNS
			" FROM guide_programmes WHERE (?1 = 0 OR channel = ?1) AND start_us >= ?2"
			" AND (?3 < 0 OR start_us < ?3) ORDER BY start_us, id", -1, &st,
			NULL) != SQLITE_OK) {
		umms_warn("guide: %s", sqlite3_errmsg(guide->db));
		return;
	}
	sqlite3_bind_int64(st, 1, channel);
	sqlite3_bind_int64(st, 2, from_us);
	sqlite3_bind_int64(st, 3, to_us);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct umms_guide_programme p;
		guide_db_read_programme(st, &p);
		if (!fn(&p, data))
			break;
	}
	sqlite3_finalize(st);
}

struct umms_guide_events *
umms_guide_get_events(struct umms_guide *guide)
{
	return &guide->events;
}

/* ---- life --------------------------------------------------------------------------------- */

static void
forget_ended(struct umms_guide *guide)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "DELETE FROM guide_programmes WHERE stop_us < ?", -1,
			&st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, g_get_real_time() - KEEP_ENDED_US);
		if (sqlite3_step(st) != SQLITE_DONE)
			umms_warn("guide: forgetting old programmes: %s", sqlite3_errmsg(guide->db));
	}
	sqlite3_finalize(st);
}

struct umms_guide *
umms_guide_create(const struct umms_config *config, GDBusConnection *connection,
	GError **error)
{
	struct umms_guide *guide = g_new0(struct umms_guide, 1);
	guide->config = config;
	guide->connection = g_object_ref(connection);
	guide->held = g_ptr_array_new_with_free_func(g_free);
	guide->now_next = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	guide->dirty = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	wl_signal_init(&guide->events.changed);
	wl_signal_init(&guide->events.now_next);
	guide->cancellable = g_cancellable_new();
	/* Before any import thread parses (libxml2's global state). */
	xmlInitParser();
	const char *zone = config->guide.xmltv_timezone;
	if (zone && *zone) {
		guide->xmltv_zone = g_time_zone_new_identifier(zone);
		if (!guide->xmltv_zone) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"guide.xmltv-timezone: unknown time zone \"%s\"", zone);
			goto fail;
		}
	} else {
		guide->xmltv_zone = g_time_zone_new_local();
	}
	g_autofree char *db = config->recording.database ? g_strdup(config->recording.database) :
		g_build_filename(g_get_user_state_dir(), "umms", "umms.db", NULL);
	if (!guide_db_open(guide, db, error))
		goto fail;
	forget_ended(guide);
	/* What now/next is at start is known, not news. */
	g_autoptr(GArray) ids = all_channels(guide);
	for (guint i = 0; i < ids->len; i++)
		check_channel(guide, g_array_index(ids, int64_t, i), false);
	schedule_boundary(guide);
	guide->dbus = guide_dbus_create(guide, error);
	if (!guide->dbus)
		goto fail;
	return guide;
fail:
	umms_guide_destroy(guide);
	return NULL;
}

void
umms_guide_destroy(struct umms_guide *guide)
{
	if (!guide)
		return;
	if (guide->cancellable) {
		g_cancellable_cancel(guide->cancellable);
		g_object_unref(guide->cancellable);
	}
	guide_import_finish(guide);
	guide_dbus_destroy(guide->dbus);
	umms_source_clear(&guide->flush_idle);
	umms_source_clear(&guide->boundary);
	guide_db_close(guide);
	if (guide->xmltv_zone)
		g_time_zone_unref(guide->xmltv_zone);
	g_hash_table_unref(guide->now_next);
	g_hash_table_unref(guide->dirty);
	g_ptr_array_unref(guide->held);
	g_object_unref(guide->connection);
	g_free(guide);
}
