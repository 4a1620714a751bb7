/* org.umms.Guide1 on /org/umms (protocol/org.umms.Guide1.xml). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-iface.h"
#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"
#include "umms-dbus.h"

#define MAX_SCHEDULE 10000
#define MAX_SEARCH 200
#define MAX_SEARCH_WORDS 16
#define MAX_WORD_BYTES 128

struct guide_dbus {
	struct umms_guide *guide;
	UmmsDbusIface *iface;
};

static void
add_string(GVariantBuilder *b, const char *key, const char *value)
{
	if (value && *value)
		g_variant_builder_add(b, "{sv}", key, g_variant_new_string(value));
}

static void
add_list(GVariantBuilder *b, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	g_auto(GStrv) parts = g_strsplit(value, ";", -1);
	GVariantBuilder list;
	g_variant_builder_init(&list, G_VARIANT_TYPE("as"));
	for (char **p = parts; *p; p++) {
		if (**p)
			g_variant_builder_add(&list, "s", *p);
	}
	g_variant_builder_add(b, "{sv}", key, g_variant_builder_end(&list));
}

static void
add_dvb(GVariantBuilder *b, const struct umms_guide_dvb_ids *dvb)
{
	if (dvb->sid >= 0)
		g_variant_builder_add(b, "{sv}", "dvb-ids",
			g_variant_new("(iii)", dvb->onid, dvb->tsid, dvb->sid));
}

GVariant *
guide_programme_variant(const struct umms_guide_programme *p)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "id", g_variant_new_int64(p->id));
	g_variant_builder_add(&b, "{sv}", "channel", g_variant_new_int64(p->channel));
	g_variant_builder_add(&b, "{sv}", "start", g_variant_new_int64(p->start_us));
	g_variant_builder_add(&b, "{sv}", "stop", g_variant_new_int64(p->stop_us));
	g_variant_builder_add(&b, "{sv}", "title", g_variant_new_string(p->title ? p->title : ""));
	add_string(&b, "sub-title", p->sub_title);
	add_string(&b, "description", p->description);
	add_list(&b, "categories", p->categories);
	add_string(&b, "episode", p->episode);
	add_string(&b, "series-id", p->series_id);
	add_string(&b, "rating-system", p->rating_system);
	add_string(&b, "rating", p->rating);
	if (p->min_age >= 0)
		g_variant_builder_add(&b, "{sv}", "min-age", g_variant_new_int32(p->min_age));
	if (p->event_id >= 0)
		g_variant_builder_add(&b, "{sv}", "event-id", g_variant_new_int32(p->event_id));
	if (p->previously_shown)
		g_variant_builder_add(&b, "{sv}", "previously-shown", g_variant_new_boolean(TRUE));
	add_dvb(&b, &p->dvb);
	return g_variant_builder_end(&b);
}

static GVariant *
channel_variant(const struct umms_guide_channel *c)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "id", g_variant_new_int64(c->id));
	g_variant_builder_add(&b, "{sv}", "name", g_variant_new_string(c->name ? c->name : ""));
	g_variant_builder_add(&b, "{sv}", "uri", g_variant_new_string(c->uri ? c->uri : ""));
	add_string(&b, "number", c->number);
	add_string(&b, "logo", c->logo);
	add_list(&b, "groups", c->groups);
	add_string(&b, "xmltv-id", c->xmltv_id);
	if (c->shift_minutes)
		g_variant_builder_add(&b, "{sv}", "shift-minutes",
			g_variant_new_int32(c->shift_minutes));
	add_string(&b, "source", c->source);
	add_dvb(&b, &c->dvb);
	return g_variant_builder_end(&b);
}

static GVariant *
empty_dict(void)
{
	return g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0);
}

static void
list_channels(struct umms_guide *guide, GDBusMethodInvocation *invocation)
{
	sqlite3_stmt *st = NULL;
	/* Numbered channels first, by number as a number ("2" before "10"). */
	if (sqlite3_prepare_v2(guide->db, "SELECT " GUIDE_CHANNEL_COLUMNS " FROM guide_channels"
			" ORDER BY number IS NULL, CAST(number AS REAL), number, name, id", -1, &st,
			NULL) != SQLITE_OK) {
		GError *error = NULL;
		guide_db_fail(guide, "channels", &error);
		umms_dbus_return_error(invocation, error);
		return;
	}
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("aa{sv}"));
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct umms_guide_channel c;
		guide_db_read_channel(st, &c);
		g_variant_builder_add_value(&b, channel_variant(&c));
	}
	sqlite3_finalize(st);
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(aa{sv})", &b));
}

static bool
need_channel(struct umms_guide *guide, int64_t id, GDBusMethodInvocation *invocation,
	struct umms_guide_channel *out)
{
	if (umms_guide_get_channel(guide, id, out))
		return true;
	umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
		"no such channel: %" G_GINT64_FORMAT, id));
	return false;
}

static void
get_now_next(struct umms_guide *guide, GVariant *params, GDBusMethodInvocation *invocation)
{
	int64_t channel, at;
	g_variant_get(params, "(xx)", &channel, &at);
	struct umms_guide_channel c;
	if (!need_channel(guide, channel, invocation, &c))
		return;
	struct umms_guide_programme now, next;
	bool have_now, have_next;
	guide_now_next(guide, channel, at ? at : g_get_real_time(), &now, &have_now, &next,
		&have_next);
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(@a{sv}@a{sv})",
		have_now ? guide_programme_variant(&now) : empty_dict(),
		have_next ? guide_programme_variant(&next) : empty_dict()));
}

static void
get_schedule(struct umms_guide *guide, GVariant *params, GDBusMethodInvocation *invocation)
{
	int64_t channel, from, to;
	g_variant_get(params, "(xxx)", &channel, &from, &to);
	struct umms_guide_channel c;
	if (!need_channel(guide, channel, invocation, &c))
		return;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT " GUIDE_PROGRAMME_COLUMNS
			" FROM guide_programmes WHERE channel = ? AND stop_us > ? AND start_us < ?"
			" ORDER BY start_us, id LIMIT ?", -1, &st, NULL) != SQLITE_OK) {
		GError *error = NULL;
		guide_db_fail(guide, "schedule", &error);
		umms_dbus_return_error(invocation, error);
		return;
	}
	sqlite3_bind_int64(st, 1, channel);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, to);
	sqlite3_bind_int(st, 4, MAX_SCHEDULE);
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("aa{sv}"));
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct umms_guide_programme p;
		guide_db_read_programme(st, &p);
		g_variant_builder_add_value(&b, guide_programme_variant(&p));
	}
	sqlite3_finalize(st);
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(aa{sv})", &b));
}

/*
 * An FTS5 query from words a person typed: each word quoted (so nothing in
 * it is FTS syntax) and a prefix, all of them required.
 */
static char *
fts_query(const char *words, GError **error)
{
	GString *q = g_string_new(NULL);
	unsigned n = 0;
	const char *p = words;
	while (*p) {
		gunichar c = g_utf8_get_char(p);
		if (!g_unichar_isalnum(c) && !g_unichar_ismark(c)) {
			p = g_utf8_next_char(p);
			continue;
		}
		if (++n > MAX_SEARCH_WORDS)
			break;
		g_string_append(q, n > 1 ? " \"" : "\"");
		const char *word = p;
		while (*p) {
			c = g_utf8_get_char(p);
			if (!g_unichar_isalnum(c) && !g_unichar_ismark(c))
				break;
			const char *end = g_utf8_next_char(p);
			/* A longer word is searched by its start. */
			if (end - word <= MAX_WORD_BYTES)
				g_string_append_len(q, p, end - p);
			p = end;
		}
		g_string_append(q, "\"*");
	}
	if (n == 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"nothing to search for: no word in \"%s\"", words);
		g_string_free(q, true);
		return NULL;
	}
	return g_string_free(q, false);
}

static void
search(struct umms_guide *guide, GVariant *params, GDBusMethodInvocation *invocation)
{
	const char *words;
	g_variant_get(params, "(&s)", &words);
	GError *error = NULL;
	g_autofree char *query = fts_query(words, &error);
	if (!query) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(guide->db, "SELECT " GUIDE_PROGRAMME_COLUMNS
			" FROM guide_programmes WHERE id IN (SELECT rowid FROM guide_search"
			" WHERE guide_search MATCH ?) ORDER BY stop_us <= ?, start_us, id LIMIT ?", -1,
			&st, NULL) != SQLITE_OK) {
		guide_db_fail(guide, "search", &error);
		umms_dbus_return_error(invocation, error);
		return;
	}
	sqlite3_bind_text(st, 1, query, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, g_get_real_time());
	sqlite3_bind_int(st, 3, MAX_SEARCH);
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("aa{sv}"));
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct umms_guide_programme p;
		guide_db_read_programme(st, &p);
		g_variant_builder_add_value(&b, guide_programme_variant(&p));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		g_variant_builder_clear(&b);
		guide_db_fail(guide, "search", &error);
		umms_dbus_return_error(invocation, error);
		return;
	}
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(aa{sv})", &b));
}

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct guide_dbus *dbus = data;
	struct umms_guide *guide = dbus->guide;
	(void)sender;
	if (strcmp(method, "ImportM3U") == 0 || strcmp(method, "ImportXMLTV") == 0) {
		const char *path;
		g_variant_get(params, "(&s)", &path);
		guide_import_start(guide, strcmp(method, "ImportM3U") == 0 ? GUIDE_IMPORT_M3U :
			GUIDE_IMPORT_XMLTV, path, invocation);
	} else if (strcmp(method, "ListChannels") == 0) {
		list_channels(guide, invocation);
	} else if (strcmp(method, "GetChannel") == 0) {
		int64_t id;
		g_variant_get(params, "(x)", &id);
		struct umms_guide_channel c;
		if (need_channel(guide, id, invocation, &c))
			g_dbus_method_invocation_return_value(invocation,
				g_variant_new("(@a{sv})", channel_variant(&c)));
	} else if (strcmp(method, "GetNowNext") == 0) {
		get_now_next(guide, params, invocation);
	} else if (strcmp(method, "GetSchedule") == 0) {
		get_schedule(guide, params, invocation);
	} else if (strcmp(method, "Search") == 0) {
		search(guide, params, invocation);
	} else if (strcmp(method, "GetProgramme") == 0) {
		int64_t id;
		g_variant_get(params, "(x)", &id);
		struct umms_guide_programme p;
		if (umms_guide_get_programme(guide, id, &p))
			g_dbus_method_invocation_return_value(invocation,
				g_variant_new("(@a{sv})", guide_programme_variant(&p)));
		else
			umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR,
				UMMS_ERROR_NOT_FOUND, "no such programme: %" G_GINT64_FORMAT, id));
	} else {
		g_assert_not_reached();
	}
}

static const struct umms_dbus_iface_ops guide_ops = {
	.method_call = method_call,
};

struct guide_dbus *
guide_dbus_create(struct umms_guide *guide, GError **error)
{
	struct guide_dbus *dbus = g_new0(struct guide_dbus, 1);
	dbus->guide = guide;
	dbus->iface = umms_dbus_iface_export(umms_guide1_interface_info(), &guide_ops, dbus,
		guide->connection, "/org/umms", error);
	if (!dbus->iface) {
		guide_dbus_destroy(dbus);
		return NULL;
	}
	return dbus;
}

void
guide_dbus_destroy(struct guide_dbus *dbus)
{
	if (!dbus)
		return;
	umms_dbus_iface_unexport(&dbus->iface);
	g_free(dbus);
}

void
guide_dbus_programme_changed(struct guide_dbus *dbus, int64_t channel, int64_t now_id,
	int64_t next_id)
{
	if (dbus)
		umms_dbus_iface_emit(dbus->iface, "ProgrammeChanged",
			g_variant_new("(xxx)", channel, now_id, next_id));
}
