/*
 * The recorder and the programme guide (service/guide/guide.h):
 * ScheduleProgramme, series rules, and programmes the broadcaster moves.
 * A job of a programme keeps its id and paddings (schedule-db.h); after
 * each change of the guide (an import, EIT updates) a scheduled one moves
 * to the programme's new times, a running one is extended to a later stop
 * (never cut short), and every series rule looks again for programmes to
 * record.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "error.h"
#include "log.h"
#include "recorder-private.h"

/* A rule schedules at most this many programmes at a time (a guide is hostile too). */
#define RULE_MAX_MATCHES 200
/* A file name made of a title: this many characters of it at most. */
#define NAME_MAX_CHARS 80

/* ---- what a programme is ------------------------------------------------------------- */

/*
 * What makes two airings the same episode: the title (case ignored) and
 * the episode number, else the title and the sub-title; "" when the guide
 * says neither (every airing is then an episode of its own).
 */
static char *
episode_key(const struct umms_guide_programme *p)
{
	g_autofree char *valid_title = g_utf8_make_valid(p->title ? p->title : "", -1);
	g_autofree char *title = g_utf8_casefold(valid_title, -1);
	if (p->episode && *p->episode) {
		g_autofree char *episode = g_utf8_make_valid(p->episode, -1);
		return g_strdup_printf("%s\x1f" "episode %s", title, episode);
	}
	if (p->sub_title && *p->sub_title) {
		g_autofree char *valid = g_utf8_make_valid(p->sub_title, -1);
		g_autofree char *sub_title = g_utf8_casefold(valid, -1);
		return g_strdup_printf("%s\x1f%s", title, sub_title);
	}
	return g_strdup("");
}

/* The title as a file name: letters, digits and a few marks kept, the rest "_". */
static char *
title_name(const char *title)
{
	g_autofree char *valid = g_utf8_make_valid(title && *title ? title : "programme", -1);
	GString *name = g_string_new(NULL);
	unsigned n = 0;
	for (const char *c = valid; *c && n < NAME_MAX_CHARS; c = g_utf8_next_char(c), n++) {
		gunichar u = g_utf8_get_char(c);
		if (g_unichar_isalnum(u) || (u < 0x80 && strchr(" -_,()'!&+", (int)u)))
			g_string_append_unichar(name, u);
		else
			g_string_append_c(name, '_');
	}
	/* No hidden file. */
	if (name->str[0] == '.' || name->str[0] == ' ')
		name->str[0] = '_';
	return g_string_free(name, FALSE);
}

static bool
destination_taken(struct umms_recorder *rec, const char *file)
{
	for (guint i = 0; i < rec->jobs->len; i++) {
		const struct job *j = rec->jobs->pdata[i];
		if (strcmp(j->destination, file) == 0)
			return true;
	}
	return g_file_test(file, G_FILE_TEST_EXISTS);
}

/* "TITLE 2026-12-06 2000.ts" in the first recording directory, its id added if that is taken. */
static char *
programme_destination(struct umms_recorder *rec, const struct umms_guide_programme *p)
{
	g_autofree char *title = title_name(p->title);
	g_autoptr(GDateTime) start = g_date_time_new_from_unix_local(p->start_us / G_USEC_PER_SEC);
	g_autofree char *when = start ? g_date_time_format(start, "%Y-%m-%d %H%M") :
		g_strdup("");
	char *name = g_strdup_printf("%s %s.ts", title, when);
	g_autofree char *file = g_build_filename(rec->dirs[0], name, NULL);
	if (!destination_taken(rec, file))
		return name;
	g_free(name);
	return g_strdup_printf("%s %s (%" G_GINT64_FORMAT ").ts", title, when, p->id);
}

/* ---- ScheduleProgramme ----------------------------------------------------------------- */

struct job *
recorder_schedule_programme(struct umms_recorder *rec, int64_t id, int64_t before_s,
	int64_t after_s, const char *destination, int64_t rule, GError **error)
{
	struct umms_guide_programme p;
	if (!rec->guide || !umms_guide_get_programme(rec->guide, id, &p)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no programme %" G_GINT64_FORMAT
			" in the guide", id);
		return NULL;
	}
	/* Copied: the channel's look-up ends the programme's strings. */
	g_autofree char *key = episode_key(&p);
	g_autofree char *title = g_strdup(p.title ? p.title : "");
	g_autofree char *name = destination ? g_strdup(destination) :
		programme_destination(rec, &p);
	int64_t start = p.start_us - before_s * G_USEC_PER_SEC;
	int64_t end = p.stop_us + after_s * G_USEC_PER_SEC;
	int64_t channel_id = p.channel;
	if (end <= g_get_real_time()) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE, "programme %" G_GINT64_FORMAT
			" (%s) is over", id, title);
		return NULL;
	}
	struct umms_guide_channel channel;
	if (!umms_guide_get_channel(rec->guide, channel_id, &channel) || !channel.uri ||
			!*channel.uri) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "programme %" G_GINT64_FORMAT
			" (%s): its channel has no URI to record", id, title);
		return NULL;
	}
	if (start <= 0 || end <= start) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "programme %"
			G_GINT64_FORMAT " has no time to record", id);
		return NULL;
	}
	g_autofree char *uri = g_strdup(channel.uri);
	struct job *j = recorder_add_job(rec, uri, name, start, end - start, error);
	if (!j)
		return NULL;
	j->programme = id;
	j->rule = rule;
	j->episode_key = g_steal_pointer(&key);
	j->padding_before_s = before_s;
	j->padding_after_s = after_s;
	j->channel = channel_id;
	j->title = g_steal_pointer(&title);
	recorder_save(j);
	umms_info("recording %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT " (%s)%s", j->id,
		id, j->title, rule ? ", for a series rule" : "");
	return j;
}

/* ---- programmes moved ------------------------------------------------------------------- */

static struct job *job_of_programme(struct umms_recorder *rec, int64_t programme);

struct moved_search {
	struct umms_recorder *rec;
	const struct job *j;
	char *title;               /* the job's, casefolded */
	int64_t was;               /* where the programme started */
	int64_t best, best_distance;
};

static bool
moved_cb(const struct umms_guide_programme *p, void *data)
{
	struct moved_search *m = data;
	g_autofree char *valid = g_utf8_make_valid(p->title ? p->title : "", -1);
	g_autofree char *title = g_utf8_casefold(valid, -1);
	if (strcmp(title, m->title) != 0)
		return true;
	if (m->j->episode_key && *m->j->episode_key) {
		g_autofree char *key = episode_key(p);
		if (strcmp(key, m->j->episode_key) != 0)
			return true;
	}
	int64_t distance = p->start_us > m->was ? p->start_us - m->was : m->was - p->start_us;
	if (distance < m->best_distance && !job_of_programme(m->rec, p->id)) {
		m->best = p->id;
		m->best_distance = distance;
	}
	return true;
}

/*
 * Programme ids are kept across EIT updates and re-imports of the same
 * programme, but an XMLTV file that moves one lists a new programme in
 * its place: the job takes the one on its channel with its title (and
 * episode) that starts nearest where it did, within MOVE_MAX_US.
 */
#define MOVE_MAX_US ((int64_t)6 * 3600 * G_USEC_PER_SEC)
static bool
find_moved(struct umms_recorder *rec, struct job *j)
{
	if (!j->channel || !j->title)
		return false;
	g_autofree char *valid = g_utf8_make_valid(j->title, -1);
	struct moved_search m = { .rec = rec, .j = j, .title = g_utf8_casefold(valid, -1),
		.was = j->start_us + j->padding_before_s * G_USEC_PER_SEC,
		.best_distance = G_MAXINT64 };
	umms_guide_for_each_programme(rec->guide, j->channel, m.was - MOVE_MAX_US,
		m.was + MOVE_MAX_US, moved_cb, &m);
	g_free(m.title);
	if (!m.best) {
		umms_debug("recording %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
			" is no longer in the guide", j->id, j->programme);
		return false;
	}
	umms_info("recording %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT " is now %"
		G_GINT64_FORMAT, j->id, j->programme, m.best);
	j->programme = m.best;
	recorder_save(j);
	umms_dbus_iface_changed(j->iface);
	return true;
}

static void
follow_programme(struct umms_recorder *rec, struct job *j)
{
	struct umms_guide_programme p;
	if (!umms_guide_get_programme(rec->guide, j->programme, &p) &&
			(!find_moved(rec, j) || !umms_guide_get_programme(rec->guide, j->programme, &p)))
		return;
	int64_t start = p.start_us - j->padding_before_s * G_USEC_PER_SEC;
	int64_t end = p.stop_us + j->padding_after_s * G_USEC_PER_SEC;
	int64_t old_end = j->start_us + j->duration_us;
	if (j->state == SCHEDULED && (start != j->start_us || end != old_end) && end > start) {
		umms_info("recording %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
			" moved by %+.0f s, %.0f s long now", j->id, j->programme,
			(double)(start - j->start_us) / 1e6, (double)(end - start) / 1e6);
		/* Opened ahead for the old time: it opens again for the new one. */
		if (j->running && j->begin)
			recorder_stop_unbegun(j);
		j->start_us = start;
		j->duration_us = end - start;
		recorder_save(j);
		umms_dbus_iface_changed(j->iface);
	} else if (j->state == RECORDING && end > old_end) {
		umms_info("recording %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
			" runs %.0f s longer: so does the recording", j->id, j->programme,
			(double)(end - old_end) / 1e6);
		j->duration_us = end - j->start_us;
		if (j->running)
			umms_recording_set_end(j->running, end + SCHEDULE_TAIL_US);
		recorder_save(j);
		umms_dbus_iface_changed(j->iface);
	}
}

/* ---- series rules ------------------------------------------------------------------------- */

struct rule_copy {
	int64_t id;
	char *title_pattern;       /* casefolded, or NULL: any */
	char *series_id;           /* or NULL: any */
	int64_t channel;
	bool new_only;
	int64_t before_s, after_s;
};

static void
rule_copy_free(gpointer data)
{
	struct rule_copy *r = data;
	g_free(r->title_pattern);
	g_free(r->series_id);
	g_free(r);
}

static void
copy_rule(const struct umms_series_rule *rule, void *data)
{
	struct rule_copy *r = g_new0(struct rule_copy, 1);
	r->id = rule->id;
	if (*rule->title) {
		g_autofree char *valid = g_utf8_make_valid(rule->title, -1);
		r->title_pattern = g_utf8_casefold(valid, -1);
	}
	r->series_id = *rule->series_id ? g_strdup(rule->series_id) : NULL;
	r->channel = rule->channel;
	r->new_only = rule->new_only;
	r->before_s = rule->padding_before_s;
	r->after_s = rule->padding_after_s;
	g_ptr_array_add(data, r);
}

struct matching {
	const struct rule_copy *rule;
	GArray *ids;               /* int64_t: the programmes it matches */
};

static bool
rule_matches(const struct rule_copy *rule, const struct umms_guide_programme *p)
{
	if (rule->series_id && (!p->series_id || strcmp(rule->series_id, p->series_id) != 0))
		return false;
	if (rule->title_pattern) {
		g_autofree char *valid = g_utf8_make_valid(p->title ? p->title : "", -1);
		g_autofree char *title = g_utf8_casefold(valid, -1);
		if (!g_pattern_match_simple(rule->title_pattern, title))
			return false;
	}
	return true;
}

static bool
match_cb(const struct umms_guide_programme *p, void *data)
{
	struct matching *m = data;
	if (rule_matches(m->rule, p))
		g_array_append_val(m->ids, p->id);
	return m->ids->len < RULE_MAX_MATCHES;
}

static struct job *
job_of_programme(struct umms_recorder *rec, int64_t programme)
{
	for (guint i = 0; i < rec->jobs->len; i++) {
		struct job *j = rec->jobs->pdata[i];
		if (j->programme == programme)
			return j;
	}
	return NULL;
}

/* An episode scheduled, being recorded or recorded already (failed or missed ones are not). */
static bool
episode_taken(struct umms_recorder *rec, const char *key)
{
	for (guint i = 0; i < rec->jobs->len; i++) {
		const struct job *j = rec->jobs->pdata[i];
		if (j->episode_key && strcmp(j->episode_key, key) == 0 && (j->state == SCHEDULED ||
				j->state == RECORDING || j->state == COMPLETED))
			return true;
	}
	return false;
}

static void
apply_rule(struct umms_recorder *rec, const struct rule_copy *rule, int64_t now)
{
	struct matching m = { .rule = rule, .ids = g_array_new(FALSE, FALSE, sizeof(int64_t)) };
	umms_guide_for_each_programme(rec->guide, rule->channel, now, -1, match_cb, &m);
	for (guint i = 0; i < m.ids->len; i++) {
		int64_t id = g_array_index(m.ids, int64_t, i);
		/* Scheduled once, whatever became of it (a cancelled one stays cancelled). */
		if (job_of_programme(rec, id))
			continue;
		struct umms_guide_programme p;
		if (!umms_guide_get_programme(rec->guide, id, &p))
			continue;
		if (rule->new_only && p.previously_shown) {
			umms_debug("series rule %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
				" is a repeat (previously shown)", rule->id, id);
			continue;
		}
		g_autofree char *key = episode_key(&p);
		if (rule->new_only && *key && episode_taken(rec, key)) {
			umms_debug("series rule %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
				" is an episode recorded or scheduled already", rule->id, id);
			continue;
		}
		g_autoptr(GError) error = NULL;
		if (!recorder_schedule_programme(rec, id, rule->before_s, rule->after_s, NULL,
				rule->id, &error))
			umms_warn("series rule %" G_GINT64_FORMAT ": programme %" G_GINT64_FORMAT
				" not scheduled: %s", rule->id, id, error->message);
	}
	g_array_unref(m.ids);
}

/* Moved programmes move their jobs; every rule looks again. */
static void
look_again(struct umms_recorder *rec)
{
	if (!rec->guide)
		return;
	for (guint i = 0; i < rec->jobs->len; i++) {
		struct job *j = rec->jobs->pdata[i];
		if (j->programme && (j->state == SCHEDULED || j->state == RECORDING))
			follow_programme(rec, j);
	}
	g_autoptr(GPtrArray) rules = g_ptr_array_new_with_free_func(rule_copy_free);
	g_autoptr(GError) error = NULL;
	if (!umms_schedule_db_for_each_rule(rec->db, copy_rule, rules, &error))
		umms_warn("series rules: %s", error->message);
	int64_t now = g_get_real_time();
	for (guint i = 0; i < rules->len; i++)
		apply_rule(rec, rules->pdata[i], now);
	recorder_arm_timer(rec);
	umms_dbus_iface_changed(rec->iface);
}

static void
on_guide_changed(struct wl_listener *listener, void *data)
{
	struct umms_recorder *rec = wl_container_of(listener, rec, guide_changed);
	look_again(rec);
}

/* ---- Recorder1's rule methods ---------------------------------------------------------- */

bool
recorder_add_rule(struct umms_recorder *rec, GVariant *dict, int64_t *id, GError **error)
{
	struct umms_series_rule rule = { .title = "", .series_id = "", .new_only = true };
	GVariantIter iter;
	const char *key;
	GVariant *value;
	guint32 before = 0, after = 0;
	g_variant_iter_init(&iter, dict);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (strcmp(key, "title") == 0 && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
			rule.title = g_variant_get_string(value, NULL);
		else if (strcmp(key, "series-id") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
			rule.series_id = g_variant_get_string(value, NULL);
		else if (strcmp(key, "channel") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_INT64))
			rule.channel = g_variant_get_int64(value);
		else if (strcmp(key, "new-episodes-only") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
			rule.new_only = g_variant_get_boolean(value);
		else if (strcmp(key, "padding-before") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
			before = g_variant_get_uint32(value);
		else if (strcmp(key, "padding-after") == 0 &&
				g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
			after = g_variant_get_uint32(value);
		else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown key \"%s\" of type %s (title: s, series-id: s, channel: x, "
				"new-episodes-only: b, padding-before: u, padding-after: u)", key,
				g_variant_get_type_string(value));
			g_variant_unref(value);
			return false;
		}
	}
	if (!*rule.title && !*rule.series_id) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a series rule needs a title or a series-id");
		return false;
	}
	/* A pattern of many stars costs its matcher backtracking on every title. */
	unsigned stars = 0;
	for (const char *c = rule.title; *c; c++)
		stars += *c == '*';
	if (strlen(rule.title) > 200 || stars > 8 || strlen(rule.series_id) > 1000 ||
			rule.channel < 0 || before > 4 * 3600 || after > 4 * 3600) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "title: 200 bytes and "
			"8 stars at most; series-id: 1000 bytes at most; paddings: 4 h at most");
		return false;
	}
	struct umms_guide_channel channel;
	if (rule.channel && (!rec->guide || !umms_guide_get_channel(rec->guide, rule.channel,
			&channel))) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no channel %" G_GINT64_FORMAT
			" in the guide", rule.channel);
		return false;
	}
	rule.padding_before_s = before;
	rule.padding_after_s = after;
	if (!umms_schedule_db_add_rule(rec->db, &rule, error))
		return false;
	*id = rule.id;
	umms_info("series rule %" G_GINT64_FORMAT ": title \"%s\", series \"%s\"", rule.id,
		rule.title, rule.series_id);
	look_again(rec);
	return true;
}

static void
list_rule(const struct umms_series_rule *rule, void *data)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", "id", g_variant_new_int64(rule->id));
	g_autofree char *title = g_utf8_make_valid(rule->title, -1);
	g_autofree char *series = g_utf8_make_valid(rule->series_id, -1);
	g_variant_builder_add(&b, "{sv}", "title", g_variant_new_string(title));
	g_variant_builder_add(&b, "{sv}", "series-id", g_variant_new_string(series));
	g_variant_builder_add(&b, "{sv}", "channel", g_variant_new_int64(rule->channel));
	g_variant_builder_add(&b, "{sv}", "new-episodes-only",
		g_variant_new_boolean(rule->new_only));
	g_variant_builder_add(&b, "{sv}", "padding-before",
		g_variant_new_uint32((guint32)rule->padding_before_s));
	g_variant_builder_add(&b, "{sv}", "padding-after",
		g_variant_new_uint32((guint32)rule->padding_after_s));
	g_variant_builder_add_value(data, g_variant_builder_end(&b));
}

GVariant *
recorder_list_rules(struct umms_recorder *rec, GError **error)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("aa{sv}"));
	if (!umms_schedule_db_for_each_rule(rec->db, list_rule, &b, error)) {
		g_variant_builder_clear(&b);
		return NULL;
	}
	return g_variant_builder_end(&b);
}

/* What the rule scheduled and did not start yet stays (Cancel or Delete them one by one). */
bool
recorder_remove_rule(struct umms_recorder *rec, int64_t id, GError **error)
{
	bool found = false;
	if (!umms_schedule_db_remove_rule(rec->db, id, &found, error))
		return false;
	if (!found) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no series rule %"
			G_GINT64_FORMAT, id);
		return false;
	}
	umms_info("series rule %" G_GINT64_FORMAT ": removed", id);
	return true;
}

/* ---- life --------------------------------------------------------------------------------- */

void
recorder_guide_init(struct umms_recorder *rec)
{
	if (!rec->guide)
		return;
	rec->guide_changed.notify = on_guide_changed;
	wl_signal_add(&umms_guide_get_events(rec->guide)->changed, &rec->guide_changed);
	/* The guide may have changed while ummsd was down: programmes moved, new episodes. */
	look_again(rec);
}

void
recorder_guide_finish(struct umms_recorder *rec)
{
	if (rec->guide && rec->guide_changed.notify)
		wl_list_remove(&rec->guide_changed.link);
	rec->guide_changed.notify = NULL;
}
