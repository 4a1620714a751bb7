/*
 * A parsed import applied to the guide's tables (guide-import.h), in
 * steps from the main loop, each step its own transaction: a week of
 * hundreds of channels must not hold the main loop (players' calls, the
 * recorder's timers, the screen) for seconds, nor hold the database's
 * write lock against the recorder's connection for long. Between steps
 * the guide is read and written as usual; a database failure midway keeps
 * the steps before it.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"

/* Programmes per step: about 40 ms under the sanitizers. */
#define STEP_PROGRAMMES 500

struct counts {
	unsigned added, updated, removed; /* M3U: channels; XMLTV: programmes */
	unsigned new_channels;            /* XMLTV: channels it was the first to name */
};

static bool
exec_ids(struct umms_guide *guide, const char *sql, const char *text, GArray *out,
	GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, sql, -1, &st, NULL) != SQLITE_OK)
		return guide_db_fail(guide, "import", error);
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		g_array_append_val(out, id);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE || guide_db_fail(guide, "import", error);
}

static bool
delete_row(struct umms_guide *guide, const char *sql, int64_t id, GError **error)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, sql, -1, &st, NULL) != SQLITE_OK)
		return guide_db_fail(guide, "import", error);
	sqlite3_bind_int64(st, 1, id);
	bool ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok || guide_db_fail(guide, "import", error);
}

static bool
apply_m3u(struct umms_guide *guide, const char *path, struct guide_parsed *parsed,
	struct counts *counts, GError **error)
{
	g_autofree char *source = g_strdup_printf("m3u:%s", path);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		NULL);
	for (guint i = 0; i < parsed->channels->len; i++) {
		struct guide_parsed_channel *pc = parsed->channels->pdata[i];
		struct umms_guide_channel c = {
			.number = pc->number, .name = pc->name, .logo = pc->logo,
			.groups = pc->groups, .uri = pc->uri, .xmltv_id = pc->xmltv_id,
			.shift_minutes = pc->shift_minutes, .source = source,
			.dvb = { -1, -1, -1 },
		};
		bool changed;
		bool existed;
		/* The same URI twice in one playlist: the first entry is the channel. */
		sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_URI);
		sqlite3_bind_text(st, 1, pc->uri, -1, SQLITE_TRANSIENT);
		existed = sqlite3_step(st) == SQLITE_ROW;
		int64_t existing = existed ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_reset(st);
		if (existed && g_hash_table_contains(seen, &existing))
			continue;
		if (!guide_db_store_channel(guide, &c, pc->epg_name, &changed, error))
			return false;
		if (changed) {
			if (existed)
				counts->updated++;
			else
				counts->added++;
			guide_touch(guide, c.id);
		}
		g_hash_table_add(seen, g_memdup2(&c.id, sizeof(c.id)));
	}
	g_autoptr(GArray) mine = g_array_new(false, false, sizeof(int64_t));
	if (!exec_ids(guide, "SELECT id FROM guide_channels WHERE source = ?", source, mine,
			error))
		return false;
	for (guint i = 0; i < mine->len; i++) {
		int64_t id = g_array_index(mine, int64_t, i);
		if (g_hash_table_contains(seen, &id))
			continue;
		if (!delete_row(guide, "DELETE FROM guide_programmes WHERE channel = ?", id, error) ||
				!delete_row(guide, "DELETE FROM guide_channels WHERE id = ?", id, error))
			return false;
		g_hash_table_remove(guide->now_next, &id);
		counts->removed++;
		guide_touch(guide, 0);
	}
	return true;
}

/* ---- XMLTV -------------------------------------------------------------------------------- */

struct xmltv_channel {
	int64_t id;
	int shift_minutes;
	int64_t first_start, last_start; /* of this file's programmes there */
};

static int64_t
match_channel(struct umms_guide *guide, const char *key, char *const *names)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	if (sqlite3_prepare_v2(guide->db, "SELECT id FROM guide_channels WHERE xmltv_id = ?"
			" ORDER BY uri = '', id LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	for (char *const *name = names; !id && name && *name; name++) {
		st = NULL;
		if (sqlite3_prepare_v2(guide->db, "SELECT id FROM guide_channels WHERE"
				" (epg_name = ?1 COLLATE NOCASE OR name = ?1 COLLATE NOCASE)"
				" AND (xmltv_id IS NULL OR xmltv_id = '') ORDER BY uri = '', id LIMIT 1",
				-1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, *name, -1, SQLITE_TRANSIENT);
			if (sqlite3_step(st) == SQLITE_ROW)
				id = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
	}
	return id;
}

static struct xmltv_channel *
resolve_channel(struct umms_guide *guide, const char *source, GHashTable *map,
	const struct guide_parsed_channel *pc, const char *key, struct counts *counts,
	GError **error)
{
	struct xmltv_channel *xc = g_hash_table_lookup(map, key);
	if (xc)
		return xc;
	xc = g_new0(struct xmltv_channel, 1);
	xc->first_start = INT64_MAX;
	xc->last_start = INT64_MIN;
	xc->id = match_channel(guide, key, pc ? pc->names : NULL);
	if (!xc->id) {
		/* A channel only XMLTV knows: no URI to play, but its guide. */
		struct umms_guide_channel c = {
			.name = pc && pc->name ? pc->name : key,
			.logo = pc ? pc->logo : NULL,
			.uri = "",
			.xmltv_id = key,
			.source = source,
			.dvb = { -1, -1, -1 },
		};
		if (!guide_db_store_channel(guide, &c, NULL, NULL, error)) {
			g_free(xc);
			return NULL;
		}
		xc->id = c.id;
		counts->new_channels++;
		guide_touch(guide, c.id);
	}
	struct umms_guide_channel c;
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_CHANNEL_BY_ID);
	sqlite3_bind_int64(st, 1, xc->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		guide_db_read_channel(st, &c);
		xc->shift_minutes = c.shift_minutes;
	}
	sqlite3_reset(st);
	g_hash_table_insert(map, g_strdup(key), xc);
	return xc;
}

static int
by_channel_then_start(gconstpointer a, gconstpointer b)
{
	const struct guide_parsed_programme *pa = *(void *const *)a, *pb = *(void *const *)b;
	int c = strcmp(pa->channel, pb->channel);
	if (c)
		return c;
	return pa->start_us < pb->start_us ? -1 : pa->start_us > pb->start_us;
}

static bool
store_xmltv_programme(struct umms_guide *guide, struct xmltv_channel *xc,
	const struct guide_parsed_programme *pp, int64_t stop_us, GHashTable *seen,
	struct counts *counts, GError **error)
{
	int64_t shift = (int64_t)xc->shift_minutes * 60 * G_TIME_SPAN_SECOND;
	struct umms_guide_programme p = {
		.channel = xc->id,
		.start_us = pp->start_us + shift,
		.stop_us = stop_us + shift,
		.title = pp->title,
		.sub_title = pp->sub_title,
		.description = pp->description,
		.categories = pp->categories,
		.episode = pp->episode,
		.series_id = pp->series_id,
		.rating_system = pp->rating_system,
		.rating = pp->rating,
		.min_age = pp->min_age,
		.dvb = { -1, -1, -1 },
		.event_id = -1,
		.previously_shown = pp->previously_shown,
	};
	sqlite3_stmt *st = guide_db_stmt(guide, STMT_PROGRAMME_BY_KEY);
	sqlite3_bind_int64(st, 1, p.channel);
	sqlite3_bind_int64(st, 2, p.start_us);
	sqlite3_bind_text(st, 3, p.title, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		p.id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	/* The same programme twice in one file: the first counts. */
	if (p.id && g_hash_table_contains(seen, &p.id))
		return true;
	bool existed = p.id != 0, changed;
	if (!guide_db_store_programme(guide, &p, "xmltv", &changed, error))
		return false;
	if (changed) {
		if (existed)
			counts->updated++;
		else
			counts->added++;
		guide_touch(guide, xc->id);
	}
	g_hash_table_add(seen, g_memdup2(&p.id, sizeof(p.id)));
	xc->first_start = MIN(xc->first_start, p.start_us);
	xc->last_start = MAX(xc->last_start, p.start_us);
	return true;
}

/* XMLTV programmes of @xc between this file's first and last start there that it no longer has. */
static bool
drop_replaced(struct umms_guide *guide, struct xmltv_channel *xc, GHashTable *seen,
	struct counts *counts, GError **error)
{
	if (xc->first_start > xc->last_start)
		return true;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT id FROM guide_programmes WHERE channel = ?"
			" AND origin = 'xmltv' AND start_us >= ? AND start_us <= ?", -1, &st,
			NULL) != SQLITE_OK)
		return guide_db_fail(guide, "import", error);
	sqlite3_bind_int64(st, 1, xc->id);
	sqlite3_bind_int64(st, 2, xc->first_start);
	sqlite3_bind_int64(st, 3, xc->last_start);
	g_autoptr(GArray) gone = g_array_new(false, false, sizeof(int64_t));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (!g_hash_table_contains(seen, &id))
			g_array_append_val(gone, id);
	}
	sqlite3_finalize(st);
	for (guint i = 0; i < gone->len; i++) {
		if (!delete_row(guide, "DELETE FROM guide_programmes WHERE id = ?",
				g_array_index(gone, int64_t, i), error))
			return false;
		counts->removed++;
		guide_touch(guide, xc->id);
	}
	return true;
}

enum phase {
	PHASE_CHANNELS,
	PHASE_PROGRAMMES,
	PHASE_REPLACED,
	PHASE_DONE,
};

struct guide_apply {
	struct umms_guide *guide;
	enum guide_import_kind kind;
	char *path;
	char *source;                /* "xmltv:PATH" */
	struct guide_parsed *parsed;
	struct counts counts;
	enum phase phase;
	guint next;                  /* the next programme */
	GHashTable *declared;        /* XMLTV channel id → struct guide_parsed_channel * */
	GHashTable *map;             /* XMLTV channel id → struct xmltv_channel * */
	GHashTable *seen;            /* programme ids this file has */
	int64_t busy_us;             /* in steps, for the log */
};

struct guide_apply *
guide_apply_new(struct umms_guide *guide, enum guide_import_kind kind, const char *path,
	struct guide_parsed *parsed)
{
	struct guide_apply *apply = g_new0(struct guide_apply, 1);
	apply->guide = guide;
	apply->kind = kind;
	apply->path = g_strdup(path);
	apply->source = g_strdup_printf("xmltv:%s", path);
	apply->parsed = parsed;
	apply->declared = g_hash_table_new(g_str_hash, g_str_equal);
	apply->map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	apply->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	return apply;
}

void
guide_apply_free(struct guide_apply *apply)
{
	if (!apply)
		return;
	g_hash_table_unref(apply->declared);
	g_hash_table_unref(apply->map);
	g_hash_table_unref(apply->seen);
	g_free(apply->source);
	g_free(apply->path);
	g_free(apply);
}

static bool
xmltv_channels(struct guide_apply *apply, GError **error)
{
	struct guide_parsed *parsed = apply->parsed;
	for (guint i = 0; i < parsed->channels->len; i++) {
		struct guide_parsed_channel *pc = parsed->channels->pdata[i];
		g_hash_table_insert(apply->declared, pc->key, pc);
	}
	for (guint i = 0; i < parsed->channels->len; i++) {
		struct guide_parsed_channel *pc = parsed->channels->pdata[i];
		if (!resolve_channel(apply->guide, apply->source, apply->map, pc, pc->key,
				&apply->counts, error))
			return false;
	}
	g_ptr_array_sort(parsed->programmes, by_channel_then_start);
	return true;
}

static bool
xmltv_programmes(struct guide_apply *apply, GError **error)
{
	struct umms_guide *guide = apply->guide;
	GPtrArray *ps = apply->parsed->programmes;
	guint end = MIN(ps->len, apply->next + STEP_PROGRAMMES);
	for (guint i = apply->next; i < end; i++) {
		struct guide_parsed_programme *pp = ps->pdata[i];
		struct xmltv_channel *xc = resolve_channel(guide, apply->source, apply->map,
			g_hash_table_lookup(apply->declared, pp->channel), pp->channel,
			&apply->counts, error);
		if (!xc)
			return false;
		int64_t stop = pp->stop_us;
		if (stop < 0 && i + 1 < ps->len &&
				strcmp(((struct guide_parsed_programme *)ps->pdata[i + 1])->channel,
				pp->channel) == 0)
			stop = ((struct guide_parsed_programme *)ps->pdata[i + 1])->start_us;
		if (stop <= pp->start_us) {
			/* The last of its channel without a stop, or one ending before it starts. */
			apply->parsed->skipped++;
			continue;
		}
		if (!store_xmltv_programme(guide, xc, pp, stop, apply->seen, &apply->counts, error))
			return false;
	}
	apply->next = end;
	return true;
}

static bool
xmltv_replaced(struct guide_apply *apply, GError **error)
{
	GHashTableIter iter;
	gpointer value;
	g_hash_table_iter_init(&iter, apply->map);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		if (!drop_replaced(apply->guide, value, apply->seen, &apply->counts, error))
			return false;
	}
	return true;
}

static bool
step(struct guide_apply *apply, GError **error)
{
	if (apply->kind == GUIDE_IMPORT_M3U) {
		apply->phase = PHASE_DONE;
		return apply_m3u(apply->guide, apply->path, apply->parsed, &apply->counts, error);
	}
	switch (apply->phase) {
	case PHASE_CHANNELS:
		apply->phase = PHASE_PROGRAMMES;
		return xmltv_channels(apply, error);
	case PHASE_PROGRAMMES:
		if (!xmltv_programmes(apply, error))
			return false;
		if (apply->next >= apply->parsed->programmes->len)
			apply->phase = PHASE_REPLACED;
		return true;
	case PHASE_REPLACED:
		apply->phase = PHASE_DONE;
		return xmltv_replaced(apply, error);
	case PHASE_DONE:
		break;
	}
	return true;
}

enum guide_apply_status
guide_apply_step(struct guide_apply *apply, GError **error)
{
	int64_t started = g_get_monotonic_time();
	struct umms_guide *guide = apply->guide;
	if (!guide_db_begin(guide, error))
		return GUIDE_APPLY_FAILED;
	if (!step(apply, error)) {
		guide_db_rollback(guide);
		return GUIDE_APPLY_FAILED;
	}
	if (!guide_db_commit(guide, error))
		return GUIDE_APPLY_FAILED;
	apply->busy_us += g_get_monotonic_time() - started;
	if (apply->phase != PHASE_DONE)
		return GUIDE_APPLY_MORE;
	umms_info("guide: imported %s: %u channels, %u programmes (%u added, %u updated, %u "
		"removed, %u skipped, %u warnings) in steps of %.0f ms in all", apply->path,
		apply->parsed->channels->len, apply->parsed->programmes->len, apply->counts.added,
		apply->counts.updated, apply->counts.removed, apply->parsed->skipped,
		apply->parsed->warnings, (double)apply->busy_us / 1000.0);
	return GUIDE_APPLY_DONE;
}

GVariant *
guide_apply_result(struct guide_apply *apply)
{
	struct guide_parsed *parsed = apply->parsed;
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "channels", g_variant_new_uint32(parsed->channels->len));
	if (apply->kind == GUIDE_IMPORT_XMLTV) {
		g_variant_builder_add(&b, "{sv}", "programmes",
			g_variant_new_uint32(parsed->programmes->len));
		g_variant_builder_add(&b, "{sv}", "skipped", g_variant_new_uint32(parsed->skipped));
		g_variant_builder_add(&b, "{sv}", "warnings", g_variant_new_uint32(parsed->warnings));
		g_variant_builder_add(&b, "{sv}", "new-channels",
			g_variant_new_uint32(apply->counts.new_channels));
	}
	g_variant_builder_add(&b, "{sv}", "added", g_variant_new_uint32(apply->counts.added));
	g_variant_builder_add(&b, "{sv}", "updated", g_variant_new_uint32(apply->counts.updated));
	g_variant_builder_add(&b, "{sv}", "removed", g_variant_new_uint32(apply->counts.removed));
	return g_variant_builder_end(&b);
}
