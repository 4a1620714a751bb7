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
#include <stdio.h>
#include <string.h>

#include "guide-tests.h"
#include "harness.h"
#include "log.h"

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
	guide_test_fresh(t, "m3u", NULL);
	g_autofree char *path = guide_test_write("list.m3u", playlist, -1);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportM3U", path);
	g_assert_cmpuint(guide_test_count(r, "channels"), ==, 3);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 3);
	g_autoptr(GVariant) list = guide_test_channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 3);

	g_autoptr(GVariant) news = guide_test_channel_named(list, "News, Weather and Sport");
	const char *s;
	g_assert_true(g_variant_lookup(news, "uri", "&s", &s));
	g_assert_cmpstr(s, ==, "http://example.com/news.m3u8");
	g_assert_true(g_variant_lookup(news, "number", "&s", &s));
	g_assert_cmpstr(s, ==, "2");
	g_assert_true(g_variant_lookup(news, "xmltv-id", "&s", &s));
	g_assert_cmpstr(s, ==, "news.uk");
	g_assert_true(g_variant_lookup(news, "logo", "&s", &s));
	g_assert_cmpstr(s, ==, "http://logo/news.png");
	g_autofree char *groups = guide_test_joined(news, "groups");
	g_assert_cmpstr(groups, ==, "News|UK");

	g_autoptr(GVariant) films = guide_test_channel_named(list, "Films, 24/7");
	g_assert_true(g_variant_lookup(films, "uri", "&s", &s));
	g_assert_cmpstr(s, ==, "udp://239.0.0.1:1234");
	int32_t shift = 0;
	g_assert_true(g_variant_lookup(films, "shift-minutes", "i", &shift));
	g_assert_cmpint(shift, ==, -60);

	g_autoptr(GVariant) plain = guide_test_channel_named(list, "Plain");
	g_autofree char *plain_groups = guide_test_joined(plain, "groups");
	g_assert_cmpstr(plain_groups, ==, "Extra");
	g_assert_true(g_variant_lookup(plain, "number", "&s", &s));
	g_assert_cmpstr(s, ==, "10");
	/* By number: 2, 10, then the unnumbered. */
	g_autoptr(GVariant) first = g_variant_get_child_value(list, 0);
	g_assert_cmpint(guide_test_id(first), ==, guide_test_id(news));

	/* Again: nothing changes, ids stay. */
	g_autoptr(GVariant) again = guide_test_import(t, "ImportM3U", path);
	g_assert_cmpuint(guide_test_count(again, "added") + guide_test_count(again, "updated") +
		guide_test_count(again, "removed"), ==, 0);
	g_autoptr(GVariant) list2 = guide_test_channels(t);
	g_autoptr(GVariant) news2 = guide_test_channel_named(list2, "News, Weather and Sport");
	g_assert_cmpint(guide_test_id(news2), ==, guide_test_id(news));

	/* A playlist without Plain: it goes, the others keep their ids. */
	g_autofree char *shorter = g_strndup(playlist, strstr(playlist, "#EXTINF:0") - playlist);
	g_autofree char *path2 = guide_test_write("list.m3u", shorter, -1);
	g_autoptr(GVariant) third = guide_test_import(t, "ImportM3U", path2);
	g_assert_cmpuint(guide_test_count(third, "removed"), ==, 1);
	g_autoptr(GVariant) list3 = guide_test_channels(t);
	g_assert_cmpuint(g_variant_n_children(list3), ==, 2);
	g_autoptr(GVariant) films3 = guide_test_channel_named(list3, "Films, 24/7");
	g_assert_cmpint(guide_test_id(films3), ==, guide_test_id(films));
}

/* ---- times ---------------------------------------------------------------------------------- */

static void
test_offsets(struct umms_test *t, gconstpointer data)
{
	(void)data;
	guide_test_fresh(t, "offsets", NULL);
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
	g_autofree char *path = guide_test_write("offsets.xml", xml, -1);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportXMLTV", path);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 3);
	/* Channels only XMLTV names. */
	g_assert_cmpuint(guide_test_count(r, "new-channels"), ==, 3);
	g_autoptr(GVariant) list = guide_test_channels(t);
	const char *names[] = { "A", "B", "C" };
	for (int i = 0; i < 3; i++) {
		g_autoptr(GVariant) c = guide_test_channel_named(list, names[i]);
		g_autoptr(GVariant) all = guide_test_schedule(t, guide_test_id(c), 0, INT64_MAX);
		g_assert_cmpuint(g_variant_n_children(all), ==, 1);
		g_autoptr(GVariant) p = g_variant_get_child_value(all, 0);
		int64_t start, stop;
		g_assert_true(g_variant_lookup(p, "start", "x", &start));
		g_assert_true(g_variant_lookup(p, "stop", "x", &stop));
		g_assert_cmpint(start, ==, guide_test_utc(2025, 1, 15, 12, 0, 0));
		g_assert_cmpint(stop, ==, guide_test_utc(2025, 1, 15, 13, 0, 0));
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
	guide_test_fresh(t, "dst", NULL);
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
	g_autofree char *path = guide_test_write("dst.xml", xml, -1);
	FILE *log = tmpfile();
	umms_log_set_stream(log);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportXMLTV", path);
	umms_log_set_stream(NULL);
	g_autofree char *logged = read_log(log);
	fclose(log);
	g_test_message("log: %s", logged);
	/* 01:00 twice (two programmes), 01:30 in the gap. */
	g_assert_cmpuint(guide_test_count(r, "warnings"), ==, 3);
	g_assert_nonnull(strstr(logged, "occurs twice"));
	g_assert_nonnull(strstr(logged, "does not exist"));
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 8);

	g_autoptr(GVariant) list = guide_test_channels(t);
	g_autoptr(GVariant) uk = guide_test_channel_named(list, "London");
	int64_t id = guide_test_id(uk);
	g_autofree char *a = guide_test_now_next(t, id, guide_test_utc(2025, 3, 30, 0, 59, 30),
		NULL, NULL);
	g_assert_cmpstr(a, ==, "Before/After");
	g_autofree char *b = guide_test_now_next(t, id, guide_test_utc(2025, 3, 30, 1, 0, 30), NULL, NULL);
	g_assert_cmpstr(b, ==, "After/Later");

	/* October: both 01:00s, an hour apart in UTC. */
	g_autoptr(GVariant) oct = guide_test_schedule(t, id, guide_test_utc(2025, 10, 25, 0, 0, 0),
		guide_test_utc(2025, 10, 27, 0, 0, 0));
	g_assert_cmpuint(g_variant_n_children(oct), ==, 4);
	const char *titles[] = { "Late", "First one", "Second one", "Two" };
	const int64_t starts[] = { guide_test_utc(2025, 10, 25, 23, 30, 0),
		guide_test_utc(2025, 10, 26, 0, 0, 0),
		guide_test_utc(2025, 10, 26, 1, 0, 0), guide_test_utc(2025, 10, 26, 2, 0, 0) };
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
	g_autoptr(GVariant) gap = guide_test_channel_named(list, "Gap");
	g_autoptr(GVariant) gs = guide_test_schedule(t, guide_test_id(gap), 0, INT64_MAX);
	g_autoptr(GVariant) gp = g_variant_get_child_value(gs, 0);
	int64_t start;
	g_assert_true(g_variant_lookup(gp, "start", "x", &start));
	g_assert_cmpint(start, ==, guide_test_utc(2025, 3, 30, 1, 30, 0));
}

/* ---- encodings and search ------------------------------------------------------------------- */

static void
test_latin1_search(struct umms_test *t, gconstpointer data)
{
	(void)data;
	guide_test_fresh(t, "latin1", NULL);
	/* "Café" and "Crème" in ISO-8859-1 bytes. */
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tv>"
		"<channel id=\"fr\"><display-name>T\xe9l\xe9</display-name></channel>"
		"<programme channel=\"fr\" start=\"20300101100000 +0000\" stop=\"20300101110000 +0000\">"
		"<title>Le Caf\xe9 du coin</title><desc>Cr\xe8me br\xfbl\xe9" "e</desc></programme>"
		"<programme channel=\"fr\" start=\"20300101110000 +0000\" stop=\"20300101120000 +0000\">"
		"<title>Autre chose</title></programme></tv>";
	g_autofree char *path = guide_test_write("latin1.xml", xml, -1);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportXMLTV", path);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 2);
	g_autoptr(GVariant) list = guide_test_channels(t);
	g_autoptr(GVariant) tele = guide_test_channel_named(list, "Télé");

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
	g_assert_cmpint(channel, ==, guide_test_id(tele));
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

static guint
hits(struct umms_test *t, const char *words)
{
	g_autoptr(GVariant) found = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", words));
	g_autoptr(GVariant) list = g_variant_get_child_value(found, 0);
	return (guint)g_variant_n_children(list);
}

static char *
one_programme_xml(const char *title, const char *desc)
{
	return g_strdup_printf("<tv><channel id=\"r\"><display-name>R</display-name></channel>"
		"<programme channel=\"r\" start=\"20300101100000 +0000\" stop=\"20300101110000"
		" +0000\"><title>%s</title><desc>%s</desc></programme></tv>", title, desc);
}

static void
test_reimport(struct umms_test *t, gconstpointer data)
{
	(void)data;
	guide_test_fresh(t, "reimport", NULL);
	g_autofree char *x1 = one_programme_xml("Gardening", "Roses in winter");
	g_autofree char *path = guide_test_write("re.xml", x1, -1);
	g_autoptr(GVariant) r1 = guide_test_import(t, "ImportXMLTV", path);
	g_assert_cmpuint(guide_test_count(r1, "added"), ==, 1);
	g_assert_cmpuint(hits(t, "roses"), ==, 1);
	/* A new description: the same programme (id), searched by its new words only. */
	g_autofree char *x2 = one_programme_xml("Gardening", "Tulips in spring");
	g_autofree char *path2 = guide_test_write("re.xml", x2, -1);
	g_autoptr(GVariant) r2 = guide_test_import(t, "ImportXMLTV", path2);
	g_assert_cmpuint(guide_test_count(r2, "updated"), ==, 1);
	g_assert_cmpuint(guide_test_count(r2, "added"), ==, 0);
	g_assert_cmpuint(hits(t, "roses"), ==, 0);
	g_assert_cmpuint(hits(t, "tulips"), ==, 1);
	/* Another title at that time: another programme, the old one gone, from search too. */
	g_autofree char *x3 = one_programme_xml("Cooking", "Soup");
	g_autofree char *path3 = guide_test_write("re.xml", x3, -1);
	g_autoptr(GVariant) r3 = guide_test_import(t, "ImportXMLTV", path3);
	g_assert_cmpuint(guide_test_count(r3, "added"), ==, 1);
	g_assert_cmpuint(guide_test_count(r3, "removed"), ==, 1);
	g_assert_cmpuint(hits(t, "gardening"), ==, 0);
	g_assert_cmpuint(hits(t, "tulips"), ==, 0);
	g_assert_cmpuint(hits(t, "soup"), ==, 1);
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
	guide_test_fresh(t, "bad", "guide.max-import-size=1");
	g_autofree char *missing = g_build_filename(umms_test_tmpdir(), "missing.xml", NULL);
	expect_error(t, "ImportXMLTV", missing, "org.umms.Error.NotFound");
	expect_error(t, "ImportM3U", missing, "org.umms.Error.NotFound");
	expect_error(t, "ImportXMLTV", "relative.xml", "org.umms.Error.InvalidArgument");
	expect_error(t, "ImportXMLTV", umms_test_tmpdir(), "org.umms.Error.InvalidArgument");
	g_autofree char *text = guide_test_write("text.xml", "this is not XML at all\n", -1);
	expect_error(t, "ImportXMLTV", text, "org.umms.Error.InvalidArgument");
	expect_error(t, "ImportM3U", text, "org.umms.Error.InvalidArgument");
	g_autofree char *html = guide_test_write("page.xml", "<html><body/></html>", -1);
	expect_error(t, "ImportXMLTV", html, "org.umms.Error.InvalidArgument");
	g_autofree char *cut = guide_test_write("cut.xml", "<tv><channel id=\"x\"><display-", -1);
	expect_error(t, "ImportXMLTV", cut, "org.umms.Error.InvalidArgument");
	/* 2 MiB, over max-import-size=1 (MiB). */
	g_autofree char *big_text = g_strnfill(2 << 20, ' ');
	memcpy(big_text, "<tv>", 4);
	g_autofree char *big = guide_test_write("big.xml", big_text, -1);
	expect_error(t, "ImportXMLTV", big, "org.umms.Error.InvalidArgument");
	memcpy(big_text, "#EXTM3U\n", 8);
	g_autofree char *big_m3u = guide_test_write("big.m3u", big_text, -1);
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
	g_autofree char *bomb = guide_test_write("laughs.xml", laughs->str, -1);
	g_string_free(laughs, true);
	expect_error(t, "ImportXMLTV", bomb, "org.umms.Error.InvalidArgument");
	/* An external entity is not read: the programme has no title and is left out. */
	static const char external[] = "<?xml version=\"1.0\"?><!DOCTYPE tv ["
		"<!ENTITY secret SYSTEM \"file:///etc/passwd\">]><tv>"
		"<programme channel=\"x\" start=\"20300101000000 +0000\""
		" stop=\"20300101010000 +0000\"><title>&secret;</title></programme></tv>";
	g_autofree char *xxe = guide_test_write("external.xml", external, -1);
	g_autoptr(GVariant) xr = guide_test_import(t, "ImportXMLTV", xxe);
	g_assert_cmpuint(guide_test_count(xr, "added"), ==, 0);
	g_assert_cmpuint(guide_test_count(xr, "skipped"), ==, 1);
	/* A failed import changed nothing; the guide still answers. */
	g_autoptr(GVariant) list = guide_test_channels(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 0);
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "GetProgramme",
		g_variant_new("(x)", (int64_t)12345), "org.umms.Error.NotFound"));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "GetNowNext",
		g_variant_new("(xx)", (int64_t)12345, (int64_t)0), "org.umms.Error.NotFound"));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, GUIDE1, "Search",
		g_variant_new("(s)", " ;-) "), "org.umms.Error.InvalidArgument"));
	static const char good[] = "<tv><programme channel=\"x\" start=\"20300101000000 +0000\""
		" stop=\"20300101010000 +0000\"><title>Fine</title></programme></tv>";
	g_autofree char *ok = guide_test_write("ok.xml", good, -1);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportXMLTV", ok);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 1);
	g_assert_cmpuint(guide_test_count(r, "new-channels"), ==, 1);
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
	guide_test_fresh(t, "boundary", NULL);
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
	g_autofree char *path = guide_test_write("boundary.xml", xml, -1);
	struct last_change last = { 0 };
	guint sub = g_dbus_connection_signal_subscribe(t->bus, NULL, GUIDE1, "ProgrammeChanged",
		UMMS_ROOT, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_change, &last, NULL);
	g_autoptr(GVariant) r = guide_test_import(t, "ImportXMLTV", path);
	g_assert_cmpuint(guide_test_count(r, "added"), ==, 2);
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
	guide_test_fresh(t, "ctl", NULL);
	g_autofree char *m3u = guide_test_write("ctl.m3u", playlist, -1);
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
	g_autofree char *xmltv = guide_test_write("ctl.xml", xml, -1);
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
	UMMS_TEST_ADD("/guide/xmltv-bulk", guide_test_xmltv_bulk);
	UMMS_TEST_ADD("/guide/offsets", test_offsets);
	UMMS_TEST_ADD("/guide/dst", test_dst);
	UMMS_TEST_ADD("/guide/latin1-search", test_latin1_search);
	UMMS_TEST_ADD("/guide/reimport", test_reimport);
	UMMS_TEST_ADD("/guide/bad-input", test_bad_input);
	UMMS_TEST_ADD("/guide/eit", guide_test_eit);
	UMMS_TEST_ADD("/guide/boundary", test_boundary);
	UMMS_TEST_ADD("/guide/ummsctl", test_ummsctl);
	return g_test_run();
}
