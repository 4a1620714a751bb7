/* What the guide's test files share (guide-tests.h). */
#include <string.h>

#include "guide-tests.h"

char *
guide_test_write(const char *name, const char *content, gssize length)
{
	char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	GError *error = NULL;
	g_file_set_contents(path, content, length, &error);
	g_assert_no_error(error);
	return path;
}

/* A service with a database of this test's own, reading local XMLTV times in London. */
void
guide_test_fresh(struct umms_test *t, const char *name, const char *extra)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	const char *const overrides[] = { db, "guide.xmltv-timezone=Europe/London", extra, NULL };
	umms_test_restart(t, overrides);
}

GVariant *
guide_test_import(struct umms_test *t, const char *method, const char *path)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, method,
		g_variant_new("(s)", path));
	GVariant *result = NULL;
	g_variant_get(r, "(@a{sv})", &result);
	g_autofree char *text = g_variant_print(result, false);
	g_test_message("%s %s: %s", method, path, text);
	return result;
}

guint32
guide_test_count(GVariant *result, const char *key)
{
	guint32 v = 0;
	g_assert_true(g_variant_lookup(result, key, "u", &v));
	return v;
}

GVariant *
guide_test_channels(struct umms_test *t)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ListChannels",
		NULL);
	return g_variant_get_child_value(r, 0);
}

/* The channel named @name in @list (aa{sv}); fails if none. */
GVariant *
guide_test_channel_named(GVariant *list, const char *name)
{
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		GVariant *c = g_variant_get_child_value(list, i);
		const char *n;
		if (g_variant_lookup(c, "name", "&s", &n) && strcmp(n, name) == 0)
			return c;
		g_variant_unref(c);
	}
	g_error("no channel named \"%s\"", name);
}

int64_t
guide_test_id(GVariant *dict)
{
	int64_t id = 0;
	g_assert_true(g_variant_lookup(dict, "id", "x", &id));
	return id;
}

char *
guide_test_joined(GVariant *dict, const char *key)
{
	g_autofree const char **items = NULL;
	if (!g_variant_lookup(dict, key, "^a&s", &items))
		return g_strdup("");
	return g_strjoinv("|", (char **)items);
}

/* GetNowNext(@channel, @at): the titles "now/next" ("-" for none); ids in @now_id, @next_id. */
char *
guide_test_now_next(struct umms_test *t, int64_t channel, int64_t at, int64_t *now_id,
	int64_t *next_id)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetNowNext",
		g_variant_new("(xx)", channel, at));
	g_autoptr(GVariant) now = g_variant_get_child_value(r, 0);
	g_autoptr(GVariant) next = g_variant_get_child_value(r, 1);
	const char *a = "-", *b = "-";
	g_variant_lookup(now, "title", "&s", &a);
	g_variant_lookup(next, "title", "&s", &b);
	if (now_id)
		*now_id = g_variant_n_children(now) ? guide_test_id(now) : 0;
	if (next_id)
		*next_id = g_variant_n_children(next) ? guide_test_id(next) : 0;
	return g_strdup_printf("%s/%s", a, b);
}

GVariant *
guide_test_schedule(struct umms_test *t, int64_t channel, int64_t from, int64_t to)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetSchedule",
		g_variant_new("(xxx)", channel, from, to));
	return g_variant_get_child_value(r, 0);
}

int64_t
guide_test_utc(int year, int month, int day, int hour, int minute, int second)
{
	g_autoptr(GDateTime) dt = g_date_time_new_utc(year, month, day, hour, minute, second);
	return g_date_time_to_unix(dt) * G_TIME_SPAN_SECOND;
}
