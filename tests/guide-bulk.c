/*
 * 50 XMLTV channels × 1,000 programmes, in a real ummsd of its own: all
 * imported, the service answering meanwhile, a second import changing
 * nothing, searches among them timed (test-guide.c registers it).
 */
#include <signal.h>
#include <string.h>

#include "guide-tests.h"

struct changes {
	unsigned count;
};

static void
on_programme_changed(GDBusConnection *c, const char *sender, const char *path,
	const char *iface, const char *signal, GVariant *params, gpointer data)
{
	(void)c, (void)sender, (void)path, (void)iface, (void)signal, (void)params;
	((struct changes *)data)->count++;
}

static char *
bulk_xmltv(int64_t base_us)
{
	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<tv>\n");
	for (int c = 0; c < 50; c++)
		g_string_append_printf(x, "<channel id=\"ch%d.test\"><display-name>Channel %d"
			"</display-name><icon src=\"http://logo/%d.png\"/></channel>\n", c, c, c);
	for (int c = 0; c < 50; c++) {
		for (int i = 0; i < 1000; i++) {
			g_autoptr(GDateTime) start = g_date_time_new_from_unix_utc(
				(base_us / G_TIME_SPAN_SECOND) + (int64_t)i * 1800);
			g_autoptr(GDateTime) stop = g_date_time_add_minutes(start, 30);
			g_autofree char *a = g_date_time_format(start, "%Y%m%d%H%M%S +0000");
			g_autofree char *b = g_date_time_format(stop, "%Y%m%d%H%M%S +0000");
			/* Channel 0 gives no stops: each ends where the next starts. */
			g_string_append_printf(x, "<programme start=\"%s\"%s%s%s channel=\"ch%d.test\">"
				"<title>Show %d.%d</title><sub-title>Part %d</sub-title>"
				"<desc>Programme %d of channel %d, with words.</desc>"
				"<category>Drama</category><category>Series</category>"
				"<episode-num system=\"xmltv_ns\">1.%d.0/2</episode-num>"
				"<rating system=\"FSK\"><value>12</value></rating></programme>\n",
				a, c ? " stop=\"" : "", c ? b : "", c ? "\"" : "", c, c, i, i, i, c,
				i % 20);
		}
	}
	g_string_append(x, "</tv>\n");
	return g_string_free(x, false);
}

/*
 * In a real ummsd of its own: 50,000 programmes through libxml2 and SQLite
 * are millions of mallocs, and the slow unwind of each (the tests' ASan
 * options, for whole leak stacks) would take minutes. This ummsd unwinds
 * fast and does not check for leaks; the other cases run the same code
 * in-process with leaks checked.
 */
static GSubprocess *
bulk_ummsd(struct umms_test *t)
{
	umms_test_service_stop(t->service);
	t->service = NULL;
	g_autofree char *db = g_strdup_printf("recording.database=%s/bulk.db", umms_test_tmpdir());
	const char *const args[] = { "--set", db, "--set", "log.scopes=core=info", NULL };
	const char *const env[] = {
		"ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:fast_unwind_on_malloc=1", NULL };
	GSubprocess *ummsd = umms_test_spawn_ummsd_env(args, env, G_SUBPROCESS_FLAGS_NONE);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	return ummsd;
}

static void
import_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result,
		&error);
	g_assert_no_error(error);
	*(GVariant **)data = reply;
}

/* ImportXMLTV(@path), calling GetChannel meanwhile: @slowest, its longest answer (ms). */
static GVariant *
import_answering(struct umms_test *t, const char *path, double *slowest)
{
	GVariant *reply = NULL;
	g_dbus_connection_call(t->bus, UMMS_NAME, UMMS_ROOT, GUIDE1, "ImportXMLTV",
		g_variant_new("(s)", path), G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE,
		120000, NULL, import_done, &reply);
	g_autoptr(GDBusConnection) other = umms_test_connect();
	while (!reply) {
		int64_t t0 = g_get_monotonic_time();
		g_autoptr(GVariant) r = umms_test_call_ok(other, UMMS_ROOT, GUIDE1, "GetChannel",
			g_variant_new("(x)", (int64_t)1));
		*slowest = MAX(*slowest, (double)(g_get_monotonic_time() - t0) / 1000.0);
		umms_test_sleep(100);
	}
	GVariant *result = NULL;
	g_variant_get(reply, "(@a{sv})", &result);
	g_variant_unref(reply);
	return result;
}

void
guide_test_xmltv_bulk(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autoptr(GSubprocess) ummsd = bulk_ummsd(t);
	/* Half the channels known by tvg-id, half by tvg-name (= XMLTV display-name). */
	GString *m3u = g_string_new("#EXTM3U\n");
	for (int c = 0; c < 50; c++) {
		if (c < 25)
			g_string_append_printf(m3u, "#EXTINF:-1 tvg-id=\"ch%d.test\",Channel %d HD\n", c,
				c);
		else
			g_string_append_printf(m3u, "#EXTINF:-1 tvg-name=\"Channel %d\",Channel %d, HD\n",
				c, c);
		g_string_append_printf(m3u, "http://example.com/%d.ts\n", c);
	}
	g_autofree char *m3u_path = guide_test_write("bulk.m3u", m3u->str, -1);
	g_string_free(m3u, true);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportM3U", m3u_path);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 50);

	/* Starting 10 h ago, 30 min each: now and next exist on every channel. */
	int64_t base = (g_get_real_time() / G_TIME_SPAN_HOUR - 10) * G_TIME_SPAN_HOUR;
	g_autofree char *xml = bulk_xmltv(base);
	g_autofree char *path = guide_test_write("bulk.xml", xml, -1);
	struct changes changes = { 0 };
	guint sub = g_dbus_connection_signal_subscribe(t->bus, NULL, GUIDE1, "ProgrammeChanged",
		UMMS_ROOT, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_programme_changed, &changes, NULL);
	int64_t started = g_get_monotonic_time();
	double slowest = 0;
	g_autoptr(GVariant) first = import_answering(t, path, &slowest);
	g_test_message("50 × 1000 programmes (%zu bytes) imported in %.2f s; meanwhile "
		"GetChannel answered within %.0f ms", strlen(xml),
		(double)(g_get_monotonic_time() - started) / 1e6, slowest);
	/* The main loop is not held for the import (it was for seconds in one go). */
	g_assert_cmpfloat(slowest, <, 1000);
	g_assert_cmpuint(guide_test_count(first, "channels"), ==, 50);
	g_assert_cmpuint(guide_test_count(first, "programmes"), ==, 50000);
	/* Channel 0's last programme has no stop and nothing after it. */
	g_assert_cmpuint(guide_test_count(first, "skipped"), ==, 1);
	g_assert_cmpuint(guide_test_count(first, "added"), ==, 49999);
	g_assert_cmpuint(guide_test_count(first, "new-channels"), ==, 0);
	g_autoptr(GVariant) list = guide_test_channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 50);

	g_autoptr(GVariant) ch0 = guide_test_channel_named(list, "Channel 0 HD");
	g_autoptr(GVariant) ch30 = guide_test_channel_named(list, "Channel 30, HD");
	g_autoptr(GVariant) all0 = guide_test_schedule(t, guide_test_id(ch0), 0, INT64_MAX);
	g_autoptr(GVariant) all30 = guide_test_schedule(t, guide_test_id(ch30), 0, INT64_MAX);
	g_assert_cmpuint(g_variant_n_children(all0), ==, 999);
	g_assert_cmpuint(g_variant_n_children(all30), ==, 1000);
	/* A missing stop is the next start. */
	g_autoptr(GVariant) p0 = g_variant_get_child_value(all0, 0);
	g_autoptr(GVariant) p1 = g_variant_get_child_value(all0, 1);
	int64_t stop0, start1;
	g_assert_true(g_variant_lookup(p0, "stop", "x", &stop0));
	g_assert_true(g_variant_lookup(p1, "start", "x", &start1));
	g_assert_cmpint(stop0, ==, start1);
	g_assert_cmpint(start1, ==, base + 30 * G_TIME_SPAN_MINUTE);

	/* Every field of one programme. */
	g_autoptr(GVariant) p = g_variant_get_child_value(all30, 4);
	const char *s;
	g_assert_true(g_variant_lookup(p, "title", "&s", &s));
	g_assert_cmpstr(s, ==, "Show 30.4");
	g_assert_true(g_variant_lookup(p, "sub-title", "&s", &s));
	g_assert_cmpstr(s, ==, "Part 4");
	g_assert_true(g_variant_lookup(p, "episode", "&s", &s));
	g_assert_cmpstr(s, ==, "S2E5");
	g_assert_true(g_variant_lookup(p, "rating-system", "&s", &s));
	g_assert_cmpstr(s, ==, "FSK");
	g_assert_true(g_variant_lookup(p, "rating", "&s", &s));
	g_assert_cmpstr(s, ==, "12");
	int32_t age = 0;
	g_assert_true(g_variant_lookup(p, "min-age", "i", &age));
	g_assert_cmpint(age, ==, 12);
	g_autofree char *categories = guide_test_joined(p, "categories");
	g_assert_cmpstr(categories, ==, "Drama|Series");
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetProgramme",
		g_variant_new("(x)", guide_test_id(p)));

	/* The first import changed now/next of every channel: said once each. */
	for (int i = 0; i < 100 && changes.count < 50; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(changes.count, ==, 50);
	int64_t now_id, next_id;
	int64_t at = g_get_real_time();
	int index = (int)((at - base) / (30 * G_TIME_SPAN_MINUTE));
	g_autofree char *before = guide_test_now_next(t, guide_test_id(ch30), at, &now_id, &next_id);
	g_autofree char *expected = g_strdup_printf("Show 30.%d/Show 30.%d", index, index + 1);
	g_assert_cmpstr(before, ==, expected);

	/* The same file again: nothing written, nothing said, the same ids. */
	changes.count = 0;
	g_autoptr(GVariant) second = guide_test_import(t, "ImportXMLTV", path);
	g_assert_cmpuint(guide_test_count(second, "added") + guide_test_count(second, "updated") +
		guide_test_count(second, "removed"), ==, 0);
	umms_test_sleep(1000);
	g_assert_cmpuint(changes.count, ==, 0);
	int64_t now_id2, next_id2;
	g_autofree char *after = guide_test_now_next(t, guide_test_id(ch30), at, &now_id2, &next_id2);
	g_assert_cmpstr(after, ==, before);
	g_assert_cmpint(now_id2, ==, now_id);
	g_assert_cmpint(next_id2, ==, next_id);
	g_dbus_connection_signal_unsubscribe(t->bus, sub);

	/* Search among 50,000 (timed for the report; the bound is in bench, not here). */
	static const char *const queries[] = { "words", "programme 999 channel 49", "show 30" };
	for (size_t i = 0; i < G_N_ELEMENTS(queries); i++) {
		int64_t t0 = g_get_monotonic_time();
		g_autoptr(GVariant) found = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "Search",
			g_variant_new("(s)", queries[i]));
		g_autoptr(GVariant) hits = g_variant_get_child_value(found, 0);
		g_test_message("Search(\"%s\"): %zu hits in %.1f ms", queries[i],
			g_variant_n_children(hits), (double)(g_get_monotonic_time() - t0) / 1000.0);
		g_assert_cmpuint(g_variant_n_children(hits), >, 0);
	}

	g_subprocess_send_signal(ummsd, SIGTERM);
	GError *error = NULL;
	g_assert_true(g_subprocess_wait_check(ummsd, NULL, &error));
	g_assert_no_error(error);
	umms_test_wait_name(t->bus, UMMS_NAME, false);
}
