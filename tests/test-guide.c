/*
 * The programme guide (service/guide/) through org.umms.Guide1 on the bus,
 * with M3U and XMLTV files the test writes itself: names with commas,
 * several groups, 50 channels × 1,000 programmes imported twice (the second
 * time changing nothing), offsets and local times, both DST changes of
 * 2025 in Europe/London, a declared ISO-8859-1 file, accent-blind search
 * and bad input refused by name. EIT through the C API (guide.h).
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "guide-eit.h"
#include "harness.h"
#include "log.h"

#define GUIDE1 "org.umms.Guide1"

static char *
write_file(const char *name, const char *content, gssize length)
{
	char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	GError *error = NULL;
	g_file_set_contents(path, content, length, &error);
	g_assert_no_error(error);
	return path;
}

/* A service with a database of this test's own, reading local XMLTV times in London. */
static void
fresh(struct umms_test *t, const char *name, const char *extra)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	const char *const overrides[] = { db, "guide.xmltv-timezone=Europe/London", extra, NULL };
	umms_test_restart(t, overrides);
}

static GVariant *
import(struct umms_test *t, const char *method, const char *path)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, method,
		g_variant_new("(s)", path));
	GVariant *result = NULL;
	g_variant_get(r, "(@a{sv})", &result);
	g_autofree char *text = g_variant_print(result, false);
	g_test_message("%s %s: %s", method, path, text);
	return result;
}

static guint32
count(GVariant *result, const char *key)
{
	guint32 v = 0;
	g_assert_true(g_variant_lookup(result, key, "u", &v));
	return v;
}

static GVariant *
channels(struct umms_test *t)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ListChannels",
		NULL);
	return g_variant_get_child_value(r, 0);
}

/* The channel named @name in @list (aa{sv}); fails if none. */
static GVariant *
channel_named(GVariant *list, const char *name)
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

static int64_t
id_of(GVariant *dict)
{
	int64_t id = 0;
	g_assert_true(g_variant_lookup(dict, "id", "x", &id));
	return id;
}

static char *
joined(GVariant *dict, const char *key)
{
	g_autofree const char **items = NULL;
	if (!g_variant_lookup(dict, key, "^a&s", &items))
		return g_strdup("");
	return g_strjoinv("|", (char **)items);
}

/* GetNowNext(@channel, @at): the titles "now/next" ("-" for none); ids in @now_id, @next_id. */
static char *
now_next(struct umms_test *t, int64_t channel, int64_t at, int64_t *now_id, int64_t *next_id)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetNowNext",
		g_variant_new("(xx)", channel, at));
	g_autoptr(GVariant) now = g_variant_get_child_value(r, 0);
	g_autoptr(GVariant) next = g_variant_get_child_value(r, 1);
	const char *a = "-", *b = "-";
	g_variant_lookup(now, "title", "&s", &a);
	g_variant_lookup(next, "title", "&s", &b);
	if (now_id)
		*now_id = g_variant_n_children(now) ? id_of(now) : 0;
	if (next_id)
		*next_id = g_variant_n_children(next) ? id_of(next) : 0;
	return g_strdup_printf("%s/%s", a, b);
}

static GVariant *
schedule(struct umms_test *t, int64_t channel, int64_t from, int64_t to)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetSchedule",
		g_variant_new("(xxx)", channel, from, to));
	return g_variant_get_child_value(r, 0);
}

static int64_t
utc_us(int year, int month, int day, int hour, int minute, int second)
{
	g_autoptr(GDateTime) dt = g_date_time_new_utc(year, month, day, hour, minute, second);
	return g_date_time_to_unix(dt) * G_TIME_SPAN_SECOND;
}

/* ---- M3U ------------------------------------------------------------------------------------ */

static const char playlist[] =
	"#EXTM3U x-tvg-url=\"http://example.com/epg.xml\"\n"
	"#EXTINF:-1 tvg-id=\"news.uk\" tvg-name=\"News, Weather\" tvg-chno=\"2\" "
	"tvg-logo=\"http://logo/news.png\" group-title=\"News;UK\",News, Weather and Sport\n"
	"http://example.com/news.m3u8\n"
	"#EXTINF:-1 tvg-name=\"Films\" group-title=\"Movies\" tvg-shift=\"-1\",Films, 24/7\n"
	"#EXTVLCOPT:http-user-agent=x\n"
	"\n"
	"udp://239.0.0.1:1234\n"
	"#EXTINF:0 tvg-chno=10,Plain\n"
	"#EXTGRP:Extra\n"
	"rtp://239.0.0.2:5000\n"
	"http://example.com/orphan-without-extinf\n";

static void
test_m3u(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "m3u", NULL);
	g_autofree char *path = write_file("list.m3u", playlist, -1);
	g_autoptr(GVariant) r = import(t, "ImportM3U", path);
	g_assert_cmpuint(count(r, "channels"), ==, 3);
	g_assert_cmpuint(count(r, "added"), ==, 3);
	g_autoptr(GVariant) list = channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 3);

	g_autoptr(GVariant) news = channel_named(list, "News, Weather and Sport");
	const char *s;
	g_assert_true(g_variant_lookup(news, "uri", "&s", &s));
	g_assert_cmpstr(s, ==, "http://example.com/news.m3u8");
	g_assert_true(g_variant_lookup(news, "number", "&s", &s));
	g_assert_cmpstr(s, ==, "2");
	g_assert_true(g_variant_lookup(news, "xmltv-id", "&s", &s));
	g_assert_cmpstr(s, ==, "news.uk");
	g_assert_true(g_variant_lookup(news, "logo", "&s", &s));
	g_assert_cmpstr(s, ==, "http://logo/news.png");
	g_autofree char *groups = joined(news, "groups");
	g_assert_cmpstr(groups, ==, "News|UK");

	g_autoptr(GVariant) films = channel_named(list, "Films, 24/7");
	g_assert_true(g_variant_lookup(films, "uri", "&s", &s));
	g_assert_cmpstr(s, ==, "udp://239.0.0.1:1234");
	int32_t shift = 0;
	g_assert_true(g_variant_lookup(films, "shift-minutes", "i", &shift));
	g_assert_cmpint(shift, ==, -60);

	g_autoptr(GVariant) plain = channel_named(list, "Plain");
	g_autofree char *plain_groups = joined(plain, "groups");
	g_assert_cmpstr(plain_groups, ==, "Extra");
	g_assert_true(g_variant_lookup(plain, "number", "&s", &s));
	g_assert_cmpstr(s, ==, "10");
	/* By number: 2, 10, then the unnumbered. */
	g_autoptr(GVariant) first = g_variant_get_child_value(list, 0);
	g_assert_cmpint(id_of(first), ==, id_of(news));

	/* Again: nothing changes, ids stay. */
	g_autoptr(GVariant) again = import(t, "ImportM3U", path);
	g_assert_cmpuint(count(again, "added") + count(again, "updated") +
		count(again, "removed"), ==, 0);
	g_autoptr(GVariant) list2 = channels(t);
	g_autoptr(GVariant) news2 = channel_named(list2, "News, Weather and Sport");
	g_assert_cmpint(id_of(news2), ==, id_of(news));

	/* A playlist without Plain: it goes, the others keep their ids. */
	g_autofree char *shorter = g_strndup(playlist, strstr(playlist, "#EXTINF:0") - playlist);
	g_autofree char *path2 = write_file("list.m3u", shorter, -1);
	g_autoptr(GVariant) third = import(t, "ImportM3U", path2);
	g_assert_cmpuint(count(third, "removed"), ==, 1);
	g_autoptr(GVariant) list3 = channels(t);
	g_assert_cmpuint(g_variant_n_children(list3), ==, 2);
	g_autoptr(GVariant) films3 = channel_named(list3, "Films, 24/7");
	g_assert_cmpint(id_of(films3), ==, id_of(films));
}

/* ---- XMLTV, 50 × 1,000 ---------------------------------------------------------------------- */

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

static void
test_xmltv_bulk(struct umms_test *t, gconstpointer data)
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
	g_autofree char *m3u_path = write_file("bulk.m3u", m3u->str, -1);
	g_string_free(m3u, true);
	g_autoptr(GVariant) r = import(t, "ImportM3U", m3u_path);
	g_assert_cmpuint(count(r, "added"), ==, 50);

	/* Starting 10 h ago, 30 min each: now and next exist on every channel. */
	int64_t base = (g_get_real_time() / G_TIME_SPAN_HOUR - 10) * G_TIME_SPAN_HOUR;
	g_autofree char *xml = bulk_xmltv(base);
	g_autofree char *path = write_file("bulk.xml", xml, -1);
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
	g_assert_cmpuint(count(first, "channels"), ==, 50);
	g_assert_cmpuint(count(first, "programmes"), ==, 50000);
	/* Channel 0's last programme has no stop and nothing after it. */
	g_assert_cmpuint(count(first, "skipped"), ==, 1);
	g_assert_cmpuint(count(first, "added"), ==, 49999);
	g_assert_cmpuint(count(first, "new-channels"), ==, 0);
	g_autoptr(GVariant) list = channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 50);

	g_autoptr(GVariant) ch0 = channel_named(list, "Channel 0 HD");
	g_autoptr(GVariant) ch30 = channel_named(list, "Channel 30, HD");
	g_autoptr(GVariant) all0 = schedule(t, id_of(ch0), 0, INT64_MAX);
	g_autoptr(GVariant) all30 = schedule(t, id_of(ch30), 0, INT64_MAX);
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
	g_autofree char *categories = joined(p, "categories");
	g_assert_cmpstr(categories, ==, "Drama|Series");
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetProgramme",
		g_variant_new("(x)", id_of(p)));

	/* The first import changed now/next of every channel: said once each. */
	for (int i = 0; i < 100 && changes.count < 50; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(changes.count, ==, 50);
	int64_t now_id, next_id;
	int64_t at = g_get_real_time();
	int index = (int)((at - base) / (30 * G_TIME_SPAN_MINUTE));
	g_autofree char *before = now_next(t, id_of(ch30), at, &now_id, &next_id);
	g_autofree char *expected = g_strdup_printf("Show 30.%d/Show 30.%d", index, index + 1);
	g_assert_cmpstr(before, ==, expected);

	/* The same file again: nothing written, nothing said, the same ids. */
	changes.count = 0;
	g_autoptr(GVariant) second = import(t, "ImportXMLTV", path);
	g_assert_cmpuint(count(second, "added") + count(second, "updated") +
		count(second, "removed"), ==, 0);
	umms_test_sleep(1000);
	g_assert_cmpuint(changes.count, ==, 0);
	int64_t now_id2, next_id2;
	g_autofree char *after = now_next(t, id_of(ch30), at, &now_id2, &next_id2);
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

/* ---- times ---------------------------------------------------------------------------------- */

static void
test_offsets(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "offsets", NULL);
	/* One instant, 12:00 UTC on 15 January 2025 (London is on GMT), said three ways. */
	static const char xml[] =
		"<?xml version=\"1.0\"?><tv>"
		"<channel id=\"a\"><display-name>A</display-name></channel>"
		"<channel id=\"b\"><display-name>B</display-name></channel>"
		"<channel id=\"c\"><display-name>C</display-name></channel>"
		"<programme channel=\"a\" start=\"20250115120000 +0000\" stop=\"20250115130000 +0000\">"
		"<title>Zero</title></programme>"
		"<programme channel=\"b\" start=\"20250115130000 +0100\" stop=\"20250115140000 +0100\">"
		"<title>Plus one</title></programme>"
		"<programme channel=\"c\" start=\"20250115120000\" stop=\"20250115130000\">"
		"<title>Local</title></programme></tv>";
	g_autofree char *path = write_file("offsets.xml", xml, -1);
	g_autoptr(GVariant) r = import(t, "ImportXMLTV", path);
	g_assert_cmpuint(count(r, "added"), ==, 3);
	/* Channels only XMLTV names. */
	g_assert_cmpuint(count(r, "new-channels"), ==, 3);
	g_autoptr(GVariant) list = channels(t);
	const char *names[] = { "A", "B", "C" };
	for (int i = 0; i < 3; i++) {
		g_autoptr(GVariant) c = channel_named(list, names[i]);
		g_autoptr(GVariant) all = schedule(t, id_of(c), 0, INT64_MAX);
		g_assert_cmpuint(g_variant_n_children(all), ==, 1);
		g_autoptr(GVariant) p = g_variant_get_child_value(all, 0);
		int64_t start, stop;
		g_assert_true(g_variant_lookup(p, "start", "x", &start));
		g_assert_true(g_variant_lookup(p, "stop", "x", &stop));
		g_assert_cmpint(start, ==, utc_us(2025, 1, 15, 12, 0, 0));
		g_assert_cmpint(stop, ==, utc_us(2025, 1, 15, 13, 0, 0));
		/* A channel only XMLTV names: no URI. */
		const char *uri;
		g_assert_true(g_variant_lookup(c, "uri", "&s", &uri));
		g_assert_cmpstr(uri, ==, "");
	}
}

static char *
read_log(FILE *log)
{
	fflush(log);
	long n = ftell(log);
	char *text = g_malloc0((gsize)n + 1);
	rewind(log);
	g_assert_cmpuint(fread(text, 1, (size_t)n, log), ==, (size_t)n);
	return text;
}

static void
test_dst(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "dst", NULL);
	/*
	 * Europe/London local times, no offsets. 30 March 2025: 01:00 GMT
	 * becomes 02:00 BST. 26 October 2025: 02:00 BST becomes 01:00 GMT,
	 * so 01:00–02:00 comes twice.
	 */
	static const char xml[] =
		"<?xml version=\"1.0\"?><tv>"
		"<channel id=\"uk\"><display-name>London</display-name></channel>"
		"<programme channel=\"uk\" start=\"20250330000000\"><title>Before</title></programme>"
		"<programme channel=\"uk\" start=\"20250330020000\"><title>After</title></programme>"
		"<programme channel=\"uk\" start=\"20250330030000\" stop=\"20250330040000\">"
		"<title>Later</title></programme>"
		"<programme channel=\"uk\" start=\"20251026003000\"><title>Late</title></programme>"
		"<programme channel=\"uk\" start=\"20251026010000\"><title>First one</title>"
		"</programme>"
		"<programme channel=\"uk\" start=\"20251026010000\"><title>Second one</title>"
		"</programme>"
		"<programme channel=\"uk\" start=\"20251026020000\" stop=\"20251026030000\">"
		"<title>Two</title></programme>"
		"<channel id=\"gap\"><display-name>Gap</display-name></channel>"
		"<programme channel=\"gap\" start=\"20250330013000\" stop=\"20250330030000\">"
		"<title>In the gap</title></programme>"
		"</tv>";
	g_autofree char *path = write_file("dst.xml", xml, -1);
	FILE *log = tmpfile();
	umms_log_set_stream(log);
	g_autoptr(GVariant) r = import(t, "ImportXMLTV", path);
	umms_log_set_stream(NULL);
	g_autofree char *logged = read_log(log);
	fclose(log);
	g_test_message("log: %s", logged);
	/* 01:00 twice (two programmes), 01:30 in the gap. */
	g_assert_cmpuint(count(r, "warnings"), ==, 3);
	g_assert_nonnull(strstr(logged, "occurs twice"));
	g_assert_nonnull(strstr(logged, "does not exist"));
	g_assert_cmpuint(count(r, "added"), ==, 8);

	g_autoptr(GVariant) list = channels(t);
	g_autoptr(GVariant) uk = channel_named(list, "London");
	int64_t id = id_of(uk);
	g_autofree char *a = now_next(t, id, utc_us(2025, 3, 30, 0, 59, 30), NULL, NULL);
	g_assert_cmpstr(a, ==, "Before/After");
	g_autofree char *b = now_next(t, id, utc_us(2025, 3, 30, 1, 0, 30), NULL, NULL);
	g_assert_cmpstr(b, ==, "After/Later");

	/* October: both 01:00s, an hour apart in UTC. */
	g_autoptr(GVariant) oct = schedule(t, id, utc_us(2025, 10, 25, 0, 0, 0),
		utc_us(2025, 10, 27, 0, 0, 0));
	g_assert_cmpuint(g_variant_n_children(oct), ==, 4);
	const char *titles[] = { "Late", "First one", "Second one", "Two" };
	const int64_t starts[] = { utc_us(2025, 10, 25, 23, 30, 0), utc_us(2025, 10, 26, 0, 0, 0),
		utc_us(2025, 10, 26, 1, 0, 0), utc_us(2025, 10, 26, 2, 0, 0) };
	for (int i = 0; i < 4; i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(oct, (gsize)i);
		const char *title;
		int64_t start;
		g_assert_true(g_variant_lookup(p, "title", "&s", &title));
		g_assert_true(g_variant_lookup(p, "start", "x", &start));
		g_assert_cmpstr(title, ==, titles[i]);
		g_assert_cmpint(start, ==, starts[i]);
	}
	/* 01:30 on 30 March does not exist: read as 02:30 BST, 01:30 UTC. */
	g_autoptr(GVariant) gap = channel_named(list, "Gap");
	g_autoptr(GVariant) gs = schedule(t, id_of(gap), 0, INT64_MAX);
	g_autoptr(GVariant) gp = g_variant_get_child_value(gs, 0);
	int64_t start;
	g_assert_true(g_variant_lookup(gp, "start", "x", &start));
	g_assert_cmpint(start, ==, utc_us(2025, 3, 30, 1, 30, 0));
}

/* ---- encodings and search ------------------------------------------------------------------- */

static void
test_latin1_search(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "latin1", NULL);
	/* "Café" and "Crème" in ISO-8859-1 bytes. */
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tv>"
		"<channel id=\"fr\"><display-name>T\xe9l\xe9</display-name></channel>"
		"<programme channel=\"fr\" start=\"20300101100000 +0000\" stop=\"20300101110000 +0000\">"
		"<title>Le Caf\xe9 du coin</title><desc>Cr\xe8me br\xfbl\xe9" "e</desc></programme>"
		"<programme channel=\"fr\" start=\"20300101110000 +0000\" stop=\"20300101120000 +0000\">"
		"<title>Autre chose</title></programme></tv>";
	g_autofree char *path = write_file("latin1.xml", xml, -1);
	g_autoptr(GVariant) r = import(t, "ImportXMLTV", path);
	g_assert_cmpuint(count(r, "added"), ==, 2);
	g_autoptr(GVariant) list = channels(t);
	g_autoptr(GVariant) tele = channel_named(list, "Télé");

	int64_t started = g_get_monotonic_time();
	g_autoptr(GVariant) found = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", "cafe"));
	g_test_message("Search(\"cafe\") answered in %.1f ms",
		(double)(g_get_monotonic_time() - started) / 1000.0);
	g_autoptr(GVariant) hits = g_variant_get_child_value(found, 0);
	g_assert_cmpuint(g_variant_n_children(hits), ==, 1);
	g_autoptr(GVariant) hit = g_variant_get_child_value(hits, 0);
	const char *title;
	g_assert_true(g_variant_lookup(hit, "title", "&s", &title));
	g_assert_cmpstr(title, ==, "Le Café du coin");
	int64_t channel;
	g_assert_true(g_variant_lookup(hit, "channel", "x", &channel));
	g_assert_cmpint(channel, ==, id_of(tele));
	/* Words in the description, accents and case ignored, a word's start enough. */
	g_autoptr(GVariant) f2 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", "CREME brul"));
	g_autoptr(GVariant) h2 = g_variant_get_child_value(f2, 0);
	g_assert_cmpuint(g_variant_n_children(h2), ==, 1);
	/* FTS syntax in the words is only words. */
	g_autoptr(GVariant) f3 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", "\"caf* OR NEAR(x"));
	g_autoptr(GVariant) h3 = g_variant_get_child_value(f3, 0);
	g_assert_cmpuint(g_variant_n_children(h3), ==, 0);
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void
expect_error(struct umms_test *t, const char *method, const char *path, const char *name)
{
	g_autofree char *msg = umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, method,
		g_variant_new("(s)", path), name);
	g_test_message("%s %s: %s", method, path, msg);
}

static void
test_bad_input(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "bad", "guide.max-import-size=1");
	g_autofree char *missing = g_build_filename(umms_test_tmpdir(), "missing.xml", NULL);
	expect_error(t, "ImportXMLTV", missing, "org.umms.Error.NotFound");
	expect_error(t, "ImportM3U", missing, "org.umms.Error.NotFound");
	expect_error(t, "ImportXMLTV", "relative.xml", "org.umms.Error.InvalidArgument");
	expect_error(t, "ImportXMLTV", umms_test_tmpdir(), "org.umms.Error.InvalidArgument");
	g_autofree char *text = write_file("text.xml", "this is not XML at all\n", -1);
	expect_error(t, "ImportXMLTV", text, "org.umms.Error.InvalidArgument");
	expect_error(t, "ImportM3U", text, "org.umms.Error.InvalidArgument");
	g_autofree char *html = write_file("page.xml", "<html><body/></html>", -1);
	expect_error(t, "ImportXMLTV", html, "org.umms.Error.InvalidArgument");
	g_autofree char *cut = write_file("cut.xml", "<tv><channel id=\"x\"><display-", -1);
	expect_error(t, "ImportXMLTV", cut, "org.umms.Error.InvalidArgument");
	/* 2 MiB, over max-import-size=1 (MiB). */
	g_autofree char *big_text = g_strnfill(2 << 20, ' ');
	memcpy(big_text, "<tv>", 4);
	g_autofree char *big = write_file("big.xml", big_text, -1);
	expect_error(t, "ImportXMLTV", big, "org.umms.Error.InvalidArgument");
	memcpy(big_text, "#EXTM3U\n", 8);
	g_autofree char *big_m3u = write_file("big.m3u", big_text, -1);
	expect_error(t, "ImportM3U", big_m3u, "org.umms.Error.InvalidArgument");
	/* Entities: ten levels of ten (a billion laughs), refused. */
	GString *laughs = g_string_new("<?xml version=\"1.0\"?><!DOCTYPE tv [<!ENTITY l0 \"ha\">");
	for (int i = 1; i < 10; i++) {
		g_string_append_printf(laughs, "<!ENTITY l%d \"", i);
		for (int j = 0; j < 10; j++)
			g_string_append_printf(laughs, "&l%d;", i - 1);
		g_string_append(laughs, "\">");
	}
	g_string_append(laughs, "]><tv><programme channel=\"x\" start=\"20300101000000 +0000\""
		" stop=\"20300101010000 +0000\"><title>&l9;</title></programme></tv>");
	g_autofree char *bomb = write_file("laughs.xml", laughs->str, -1);
	g_string_free(laughs, true);
	expect_error(t, "ImportXMLTV", bomb, "org.umms.Error.InvalidArgument");
	/* An external entity is not read: the programme has no title and is left out. */
	static const char external[] = "<?xml version=\"1.0\"?><!DOCTYPE tv ["
		"<!ENTITY secret SYSTEM \"file:///etc/passwd\">]><tv>"
		"<programme channel=\"x\" start=\"20300101000000 +0000\""
		" stop=\"20300101010000 +0000\"><title>&secret;</title></programme></tv>";
	g_autofree char *xxe = write_file("external.xml", external, -1);
	g_autoptr(GVariant) xr = import(t, "ImportXMLTV", xxe);
	g_assert_cmpuint(count(xr, "added"), ==, 0);
	g_assert_cmpuint(count(xr, "skipped"), ==, 1);
	/* A failed import changed nothing; the guide still answers. */
	g_autoptr(GVariant) list = channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 0);
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "GetProgramme",
		g_variant_new("(x)", (int64_t)12345), "org.umms.Error.NotFound"));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "GetNowNext",
		g_variant_new("(xx)", (int64_t)12345, (int64_t)0), "org.umms.Error.NotFound"));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", " ;-) "), "org.umms.Error.InvalidArgument"));
	static const char good[] = "<tv><programme channel=\"x\" start=\"20300101000000 +0000\""
		" stop=\"20300101010000 +0000\"><title>Fine</title></programme></tv>";
	g_autofree char *ok = write_file("ok.xml", good, -1);
	g_autoptr(GVariant) r = import(t, "ImportXMLTV", ok);
	g_assert_cmpuint(count(r, "added"), ==, 1);
	g_assert_cmpuint(count(r, "new-channels"), ==, 1);
}

/* ---- ProgrammeChanged at a boundary, ummsctl ---------------------------------------------- */

static char *
xmltv_time(int64_t us)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(us / G_TIME_SPAN_SECOND);
	return g_date_time_format(dt, "%Y%m%d%H%M%S +0000");
}

struct last_change {
	unsigned count;
	int64_t channel, now, next;
	int64_t at;
};

static void
on_change(GDBusConnection *c, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	(void)c, (void)sender, (void)path, (void)iface, (void)signal;
	struct last_change *last = data;
	g_variant_get(params, "(xxx)", &last->channel, &last->now, &last->next);
	last->at = g_get_real_time();
	last->count++;
}

static void
wait_changes(struct last_change *last, unsigned count, unsigned ms)
{
	for (unsigned waited = 0; last->count < count && waited < ms; waited += 20)
		umms_test_sleep(20);
	g_assert_cmpuint(last->count, ==, count);
}

static void
test_boundary(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "boundary", NULL);
	int64_t now = g_get_real_time() / G_TIME_SPAN_SECOND * G_TIME_SPAN_SECOND;
	int64_t edge = now + 3 * G_TIME_SPAN_SECOND;
	g_autofree char *a = xmltv_time(now - 60 * G_TIME_SPAN_SECOND);
	g_autofree char *b = xmltv_time(edge);
	g_autofree char *c = xmltv_time(edge + 120 * G_TIME_SPAN_SECOND);
	g_autofree char *xml = g_strdup_printf("<tv><channel id=\"k\"><display-name>Clock"
		"</display-name></channel>"
		"<programme channel=\"k\" start=\"%s\" stop=\"%s\"><title>Ending</title></programme>"
		"<programme channel=\"k\" start=\"%s\" stop=\"%s\"><title>Starting</title>"
		"</programme></tv>", a, b, b, c);
	g_autofree char *path = write_file("boundary.xml", xml, -1);
	struct last_change last = { 0 };
	guint sub = g_dbus_connection_signal_subscribe(t->bus, NULL, GUIDE1, "ProgrammeChanged",
		UMMS_ROOT, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_change, &last, NULL);
	g_autoptr(GVariant) r = import(t, "ImportXMLTV", path);
	g_assert_cmpuint(count(r, "added"), ==, 2);
	/* The import: now Ending, next Starting. */
	wait_changes(&last, 1, 5000);
	int64_t ending = last.now, starting = last.next;
	g_assert_cmpint(ending, !=, 0);
	g_assert_cmpint(starting, !=, 0);
	/* At the boundary, by the timer: now Starting, nothing next. */
	wait_changes(&last, 2, 8000);
	g_assert_cmpint(last.now, ==, starting);
	g_assert_cmpint(last.next, ==, 0);
	g_assert_cmpint(last.at, >=, edge);
	g_test_message("ProgrammeChanged %.0f ms after the boundary",
		(double)(last.at - edge) / 1000.0);
	g_assert_cmpint(last.at - edge, <, 2 * G_TIME_SPAN_SECOND);
	g_dbus_connection_signal_unsubscribe(t->bus, sub);
}

static void
test_ummsctl(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "ctl", NULL);
	g_autofree char *m3u = write_file("ctl.m3u", playlist, -1);
	int64_t now = g_get_real_time();
	g_autofree char *a = xmltv_time(now - 600 * G_TIME_SPAN_SECOND);
	g_autofree char *b = xmltv_time(now + 600 * G_TIME_SPAN_SECOND);
	g_autofree char *c = xmltv_time(now + 1800 * G_TIME_SPAN_SECOND);
	g_autofree char *xml = g_strdup_printf("<tv><channel id=\"news.uk\"><display-name>News"
		"</display-name></channel>"
		"<programme channel=\"news.uk\" start=\"%s\" stop=\"%s\"><title>Le Café</title>"
		"<episode-num system=\"onscreen\">S03E07</episode-num></programme>"
		"<programme channel=\"news.uk\" start=\"%s\" stop=\"%s\"><title>Weather</title>"
		"</programme></tv>", a, b, b, c);
	g_autofree char *xmltv = write_file("ctl.xml", xml, -1);
	g_autofree char *out1 = umms_test_ummsctl("import-m3u", m3u, NULL);
	g_assert_nonnull(strstr(out1, "channels 3"));
	g_autofree char *out2 = umms_test_ummsctl("import-xmltv", xmltv, NULL);
	g_assert_nonnull(strstr(out2, "added 2"));
	g_autofree char *channels_out = umms_test_ummsctl("channels", NULL);
	g_test_message("channels:\n%s", channels_out);
	g_assert_nonnull(strstr(channels_out, "News, Weather and Sport"));
	g_assert_nonnull(strstr(channels_out, "News;UK"));
	g_autofree char *guide_out = umms_test_ummsctl("guide", NULL);
	g_test_message("guide:\n%s", guide_out);
	g_assert_nonnull(strstr(guide_out, "now "));
	g_assert_nonnull(strstr(guide_out, "Le Café (S3E7)"));
	g_autofree char *one = umms_test_ummsctl("guide", "2", NULL);
	g_test_message("guide 2:\n%s", one);
	g_assert_nonnull(strstr(one, "Weather"));
	g_autofree char *found = umms_test_ummsctl("search", "cafe", NULL);
	g_test_message("search cafe:\n%s", found);
	g_assert_nonnull(strstr(found, "Le Café"));
	g_assert_nonnull(strstr(found, "News, Weather and Sport"));
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/guide/m3u", test_m3u);
	UMMS_TEST_ADD("/guide/xmltv-bulk", test_xmltv_bulk);
	UMMS_TEST_ADD("/guide/offsets", test_offsets);
	UMMS_TEST_ADD("/guide/dst", test_dst);
	UMMS_TEST_ADD("/guide/latin1-search", test_latin1_search);
	UMMS_TEST_ADD("/guide/bad-input", test_bad_input);
	UMMS_TEST_ADD("/guide/eit", umms_test_guide_eit);
	UMMS_TEST_ADD("/guide/boundary", test_boundary);
	UMMS_TEST_ADD("/guide/ummsctl", test_ummsctl);
	return g_test_run();
}
