/*
 * Imports (guide-import.h): the file opened and parsed on a thread, the
 * result applied here in one transaction, rows that already say the same
 * left alone.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dbus-iface.h"
#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"

/* Imports running at once (each holds a parsed file in memory). */
#define MAX_IMPORTS 2

static void
channel_free(struct guide_parsed_channel *c)
{
	g_free(c->key);
	g_free(c->number);
	g_free(c->name);
	g_strfreev(c->names);
	g_free(c->logo);
	g_free(c->groups);
	g_free(c->uri);
	g_free(c->xmltv_id);
	g_free(c->epg_name);
	g_free(c);
}

static void
programme_free(struct guide_parsed_programme *p)
{
	g_free(p->channel);
	g_free(p->title);
	g_free(p->sub_title);
	g_free(p->description);
	g_free(p->categories);
	g_free(p->episode);
	g_free(p->series_id);
	g_free(p->rating_system);
	g_free(p->rating);
	g_free(p);
}

void
guide_parsed_init(struct guide_parsed *parsed)
{
	*parsed = (struct guide_parsed){
		.channels = g_ptr_array_new_with_free_func((GDestroyNotify)channel_free),
		.programmes = g_ptr_array_new_with_free_func((GDestroyNotify)programme_free),
	};
}

void
guide_parsed_finish(struct guide_parsed *parsed)
{
	if (parsed->channels)
		g_ptr_array_unref(parsed->channels);
	if (parsed->programmes)
		g_ptr_array_unref(parsed->programmes);
	*parsed = (struct guide_parsed){ 0 };
}

int
guide_import_open(const char *path, uint64_t max_bytes, GError **error)
{
	if (!g_path_is_absolute(path)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: not an absolute path", path);
		return -1;
	}
	/* O_NONBLOCK: a FIFO must not hold the open; it is refused below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, err == ENOENT || err == ENOTDIR ?
			UMMS_ERROR_NOT_FOUND : err == EACCES || err == EPERM ?
			UMMS_ERROR_ACCESS_DENIED : UMMS_ERROR_FAILED, "%s: %s", path,
			g_strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: not a regular file", path);
		goto fail;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: %jd bytes, more than guide.max-import-size (%" G_GUINT64_FORMAT
			" bytes)", path, (intmax_t)st.st_size, max_bytes);
		goto fail;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	return -1;
}

/* Reads all of @fd (at most @max bytes) into a NUL-terminated buffer. */
static char *
read_all(int fd, uint64_t max, size_t *length, GError **error)
{
	GByteArray *buf = g_byte_array_new();
	uint8_t chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "reading: %s",
				g_strerror(errno));
			g_byte_array_unref(buf);
			return NULL;
		}
		if (n == 0)
			break;
		if (buf->len + (uint64_t)n > max) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"more than guide.max-import-size (%" G_GUINT64_FORMAT " bytes)", max);
			g_byte_array_unref(buf);
			return NULL;
		}
		g_byte_array_append(buf, chunk, (guint)n);
	}
	*length = buf->len;
	g_byte_array_append(buf, (const uint8_t *)"", 1);
	return (char *)g_byte_array_free(buf, false);
}

/* ---- the thread --------------------------------------------------------------------------- */

struct job {
	enum guide_import_kind kind;
	char *path;
	uint64_t max_bytes;
	GTimeZone *zone;
	struct guide_parsed parsed;
};

static void
job_free(struct job *job)
{
	g_free(job->path);
	g_time_zone_unref(job->zone);
	guide_parsed_finish(&job->parsed);
	g_free(job);
}

static bool
job_parse(struct job *job, GError **error)
{
	int fd = guide_import_open(job->path, job->max_bytes, error);
	if (fd < 0)
		return false;
	bool ok;
	if (job->kind == GUIDE_IMPORT_XMLTV) {
		ok = guide_xmltv_parse(fd, job->max_bytes, job->zone, &job->parsed, error);
	} else {
		size_t length = 0;
		g_autofree char *data = read_all(fd, job->max_bytes, &length, error);
		close(fd);
		ok = data && guide_m3u_parse(data, length, &job->parsed, error);
	}
	if (!ok)
		g_prefix_error(error, "%s: ", job->path);
	return ok;
}

static void
job_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	(void)source;
	(void)cancellable;
	GError *error = NULL;
	int64_t started = g_get_monotonic_time();
	bool ok = job_parse(data, &error);
	umms_info("guide: %s parsed in %.0f ms", ((struct job *)data)->path,
		(double)(g_get_monotonic_time() - started) / 1000.0);
	if (ok)
		g_task_return_boolean(task, true);
	else
		g_task_return_error(task, error);
}

/* ---- applying ----------------------------------------------------------------------------- */

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

static bool
apply_xmltv(struct umms_guide *guide, const char *path, struct guide_parsed *parsed,
	struct counts *counts, GError **error)
{
	g_autofree char *source = g_strdup_printf("xmltv:%s", path);
	g_autoptr(GHashTable) declared = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < parsed->channels->len; i++) {
		struct guide_parsed_channel *pc = parsed->channels->pdata[i];
		g_hash_table_insert(declared, pc->key, pc);
	}
	g_autoptr(GHashTable) map = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		g_free);
	g_autoptr(GHashTable) seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
		NULL);
	for (guint i = 0; i < parsed->channels->len; i++) {
		struct guide_parsed_channel *pc = parsed->channels->pdata[i];
		if (!resolve_channel(guide, source, map, pc, pc->key, counts, error))
			return false;
	}
	g_ptr_array_sort(parsed->programmes, by_channel_then_start);
	GPtrArray *ps = parsed->programmes;
	for (guint i = 0; i < ps->len; i++) {
		struct guide_parsed_programme *pp = ps->pdata[i];
		struct xmltv_channel *xc = resolve_channel(guide, source, map,
			g_hash_table_lookup(declared, pp->channel), pp->channel, counts, error);
		if (!xc)
			return false;
		int64_t stop = pp->stop_us;
		if (stop < 0 && i + 1 < ps->len &&
				strcmp(((struct guide_parsed_programme *)ps->pdata[i + 1])->channel,
				pp->channel) == 0)
			stop = ((struct guide_parsed_programme *)ps->pdata[i + 1])->start_us;
		if (stop <= pp->start_us) {
			/* The last of its channel without a stop, or one ending before it starts. */
			parsed->skipped++;
			continue;
		}
		if (!store_xmltv_programme(guide, xc, pp, stop, seen, counts, error))
			return false;
	}
	GHashTableIter iter;
	gpointer value;
	g_hash_table_iter_init(&iter, map);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		if (!drop_replaced(guide, value, seen, counts, error))
			return false;
	}
	return true;
}

static GVariant *
apply(struct umms_guide *guide, struct job *job, GError **error)
{
	struct counts counts = { 0 };
	int64_t started = g_get_monotonic_time();
	if (!guide_db_begin(guide, error))
		return NULL;
	bool ok = job->kind == GUIDE_IMPORT_M3U ?
		apply_m3u(guide, job->path, &job->parsed, &counts, error) :
		apply_xmltv(guide, job->path, &job->parsed, &counts, error);
	if (!ok) {
		guide_db_rollback(guide);
		return NULL;
	}
	if (!guide_db_commit(guide, error))
		return NULL;
	umms_info("guide: imported %s: %u channels, %u programmes (%u added, %u updated, %u "
		"removed, %u skipped, %u warnings) in %.0f ms", job->path, job->parsed.channels->len,
		job->parsed.programmes->len, counts.added, counts.updated, counts.removed,
		job->parsed.skipped, job->parsed.warnings,
		(double)(g_get_monotonic_time() - started) / 1000.0);
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "channels",
		g_variant_new_uint32(job->parsed.channels->len));
	if (job->kind == GUIDE_IMPORT_XMLTV) {
		g_variant_builder_add(&b, "{sv}", "programmes",
			g_variant_new_uint32(job->parsed.programmes->len));
		g_variant_builder_add(&b, "{sv}", "skipped",
			g_variant_new_uint32(job->parsed.skipped));
		g_variant_builder_add(&b, "{sv}", "warnings",
			g_variant_new_uint32(job->parsed.warnings));
		g_variant_builder_add(&b, "{sv}", "new-channels",
			g_variant_new_uint32(counts.new_channels));
	}
	g_variant_builder_add(&b, "{sv}", "added", g_variant_new_uint32(counts.added));
	g_variant_builder_add(&b, "{sv}", "updated", g_variant_new_uint32(counts.updated));
	g_variant_builder_add(&b, "{sv}", "removed", g_variant_new_uint32(counts.removed));
	return g_variant_builder_end(&b);
}

static struct job *
job_new(struct umms_guide *guide, enum guide_import_kind kind, const char *path)
{
	struct job *job = g_new0(struct job, 1);
	job->kind = kind;
	job->path = g_strdup(path);
	job->max_bytes = (uint64_t)guide->config->guide.max_import_size << 20;
	job->zone = g_time_zone_ref(guide->xmltv_zone);
	guide_parsed_init(&job->parsed);
	return job;
}

struct call {
	struct umms_guide *guide;
	GDBusMethodInvocation *invocation;
};

static void
job_done(GObject *source, GAsyncResult *result, gpointer data)
{
	(void)source;
	struct call *call = data;
	struct umms_guide *guide = call->guide;
	GTask *task = G_TASK(result);
	struct job *job = g_task_get_task_data(task);
	GError *error = NULL;
	if (g_cancellable_is_cancelled(g_task_get_cancellable(task))) {
		/* The guide is gone (ummsd stopping): nothing to apply it to. */
		g_dbus_method_invocation_return_dbus_error(call->invocation,
			umms_error_dbus_name(UMMS_ERROR_FAILED), "ummsd is stopping");
		g_free(call);
		return;
	}
	guide->imports--;
	GVariant *counts = NULL;
	if (g_task_propagate_boolean(task, &error))
		counts = apply(guide, job, &error);
	if (counts) {
		g_dbus_method_invocation_return_value(call->invocation,
			g_variant_new("(@a{sv})", counts));
	} else {
		umms_info("guide: import refused: %s", error->message);
		umms_dbus_return_error(call->invocation, error);
	}
	g_free(call);
}

void
guide_import_start(struct umms_guide *guide, enum guide_import_kind kind, const char *path,
	GDBusMethodInvocation *invocation)
{
	if (guide->imports >= MAX_IMPORTS) {
		umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%u imports are running already: try again when one is done", guide->imports));
		return;
	}
	guide->imports++;
	struct call *call = g_new0(struct call, 1);
	call->guide = guide;
	call->invocation = invocation;
	GTask *task = g_task_new(NULL, guide->cancellable, job_done, call);
	g_task_set_task_data(task, job_new(guide, kind, path), (GDestroyNotify)job_free);
	/* Cancelling the guide does not cut a parse short; it only drops its result. */
	g_task_set_return_on_cancel(task, false);
	g_task_run_in_thread(task, job_thread);
	g_object_unref(task);
}

bool
guide_import_file(struct umms_guide *guide, enum guide_import_kind kind, const char *path,
	GVariant **result, GError **error)
{
	struct job *job = job_new(guide, kind, path);
	GVariant *counts = job_parse(job, error) ? apply(guide, job, error) : NULL;
	job_free(job);
	if (!counts)
		return false;
	if (result)
		*result = g_variant_ref_sink(counts);
	else
		g_variant_unref(g_variant_ref_sink(counts));
	return true;
}
