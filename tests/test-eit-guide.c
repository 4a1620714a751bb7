/*
 * DVB EIT through ummsd into Guide1, for an IPTV channel a playlist named
 * (its DVB ids come from its stream's EIT), with sections of the tests'
 * EIT writer (eit-gen.h): a file with EIT spliced in, played to its end
 * past damaged sections (the engine in a worker, and in-process); a live
 * UDP stream whose present/following changes version while it plays
 * (ProgrammeChanged each time), also while it plays from its time-shift
 * ring; the same stream recorded with no player. The reader alone:
 * test-eit.c.
 */
#include <string.h>

#include <gst/gst.h>

#include "eit-gen.h"
#include "eit-live.h"
#include "harness.h"

#define SID 1         /* mpegtsmux's program number */
#define TSID 0x0457
#define ONID 0x2174

/* A minute's whole seconds, so the writer's BCD carries them exactly. */
static int64_t
whole_minute(int64_t us)
{
	return us / (60 * G_USEC_PER_SEC) * 60 * G_USEC_PER_SEC;
}

#define GUIDE "org.umms.Guide1"

/* What the stream's guide says, version 0 and then 1 of its present/following. */
struct stream_guide {
	int64_t now;
	struct eit_gen_event pf0[2], pf1[2], late;
};

static void
stream_guide_init(struct stream_guide *g)
{
	g->now = whole_minute(g_get_real_time());
	int64_t m = 60 * G_USEC_PER_SEC;
	g->pf0[0] = (struct eit_gen_event){ .event_id = 0x1001, .start_us = g->now - 10 * m,
		.duration_s = 1800, .running_status = 4, .title = "Morning News",
		.rating = 0x00, .content = 0x20 };
	g->pf0[1] = (struct eit_gen_event){ .event_id = 0x1002, .start_us = g->now + 20 * m,
		.duration_s = 5400, .running_status = 1, .title = "Film at Noon",
		.text = "A drama", .rating = 0x05, .country = "GBR", .content = 0x10 };
	/* Version 1: the news replaced, the film moved five minutes later. */
	g->pf1[0] = (struct eit_gen_event){ .event_id = 0x2001, .start_us = g->now - 5 * m,
		.duration_s = 1800, .running_status = 4, .title = "Breaking News",
		.rating = -1, .content = 0x20 };
	g->pf1[1] = g->pf0[1];
	g->pf1[1].start_us += 5 * m;
	g->late = (struct eit_gen_event){ .event_id = 0x1003, .start_us = g->now + 180 * m,
		.duration_s = 3600, .title = "Late Show", .rating = 0x12, .content = -1 };
}

/* One section's packets appended to @out. */
static void
put_section(GByteArray *out, unsigned table, unsigned version, const struct eit_gen_event *events,
	size_t n, unsigned *cc)
{
	struct eit_gen_section s = { .table_id = table, .sid = SID, .tsid = TSID, .onid = ONID,
		.version = version, .events = events, .n_events = n };
	uint8_t section[EIT_GEN_MAX_SECTION];
	size_t size = eit_gen_section(&s, section);
	eit_gen_packets(section, size, cc, out);
}

/* A service with a database of this test's own (the guide keeps what it saw). */
static void
fresh(struct umms_test *t, const char *name, const char *isolation)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	g_autofree char *engine = g_strdup_printf("engine.isolation=%s",
		isolation ? isolation : "worker");
	const char *const overrides[] = { db, engine, NULL };
	umms_test_restart(t, overrides);
}

/*
 * An IPTV channel for @uri, as a playlist gives it (Guide1.ImportM3U): no
 * DVB ids until the stream's EIT names its service. Its id.
 */
static int64_t
put_channel(struct umms_test *t, const char *uri)
{
	static unsigned n;
	g_autofree char *name = g_strdup_printf("eit-%u.m3u", ++n);
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	g_autofree char *m3u = g_strdup_printf("#EXTM3U\n"
		"#EXTINF:-1 tvg-id=\"eit.one\" group-title=\"Tests\",EIT One\n%s\n", uri);
	GError *error = NULL;
	g_assert_true(g_file_set_contents(path, m3u, -1, &error));
	g_assert_no_error(error);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ImportM3U",
		g_variant_new("(s)", path)));
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ListChannels",
		NULL);
	g_autoptr(GVariant) channels = g_variant_get_child_value(reply, 0);
	int64_t id = 0;
	for (gsize i = 0; i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) channel = g_variant_get_child_value(channels, i);
		g_autofree char *channel_uri = NULL;
		if (g_variant_lookup(channel, "uri", "s", &channel_uri) &&
				strcmp(channel_uri, uri) == 0)
			g_assert_true(g_variant_lookup(channel, "id", "x", &id));
	}
	g_assert_cmpint(id, >, 0);
	return id;
}

/* The channel has the stream's DVB ids now (its EIT linked it). */
static void
assert_linked(struct umms_test *t, int64_t id)
{
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetChannel",
		g_variant_new("(x)", id));
	g_autoptr(GVariant) channel = g_variant_get_child_value(reply, 0);
	gint32 onid = -1, tsid = -1, sid = -1;
	g_assert_true(g_variant_lookup(channel, "dvb-ids", "(iii)", &onid, &tsid, &sid));
	g_assert_cmpint(onid, ==, ONID);
	g_assert_cmpint(tsid, ==, TSID);
	g_assert_cmpint(sid, ==, SID);
}

static GVariant *
get_programme(struct umms_test *t, int64_t id)
{
	GVariant *reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetProgramme",
		g_variant_new("(x)", id));
	GVariant *programme = g_variant_get_child_value(reply, 0);
	g_variant_unref(reply);
	return programme;
}

static char *
programme_string(GVariant *programme, const char *key)
{
	char *value = NULL;
	if (!g_variant_lookup(programme, key, "s", &value))
		return NULL;
	return value;
}

static int
min_age_of(GVariant *programme)
{
	int age = -1;
	if (!g_variant_lookup(programme, "min-age", "i", &age))
		return -1;
	return age;
}

/* GetNowNext(@channel): the titles of now and next ("" for none). */
static void
now_next(struct umms_test *t, int64_t channel, char **now, char **next, int64_t *next_id)
{
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetNowNext",
		g_variant_new("(xx)", channel, (gint64)0));
	g_autoptr(GVariant) a = g_variant_get_child_value(reply, 0);
	g_autoptr(GVariant) b = g_variant_get_child_value(reply, 1);
	*now = programme_string(a, "title");
	*next = programme_string(b, "title");
	if (next_id && !g_variant_lookup(b, "id", "x", next_id))
		*next_id = 0;
}

/*
 * Waits for ProgrammeChanged on @channel whose now is titled @title; the
 * next programme's id.
 */
static int64_t
wait_programme(struct umms_test *t, struct umms_test_signals *signals, int64_t channel,
	const char *title)
{
	gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
	while (g_get_monotonic_time() < end) {
		g_autoptr(GVariant) params = umms_test_signals_wait(signals, "ProgrammeChanged",
			30000);
		gint64 ch, now, next;
		g_variant_get(params, "(xxx)", &ch, &now, &next);
		if (ch != channel || now == 0)
			continue;
		/* An older signal's programme may be gone already (replaced). */
		g_autoptr(GVariant) reply = g_dbus_connection_call_sync(t->bus, UMMS_NAME,
			UMMS_ROOT, GUIDE, "GetProgramme", g_variant_new("(x)", now), NULL,
			G_DBUS_CALL_FLAGS_NONE, UMMS_TEST_TIMEOUT_MS, NULL, NULL);
		if (!reply)
			continue;
		g_autoptr(GVariant) programme = g_variant_get_child_value(reply, 0);
		g_autofree char *now_title = programme_string(programme, "title");
		if (g_strcmp0(now_title, title) == 0)
			return next;
	}
	g_error("no ProgrammeChanged to \"%s\"", title);
	return 0;
}

/*
 * A file (av.ts) with the EIT spliced in: present/following version 0 and
 * a schedule section at the start, then a section with a bad CRC and one
 * cut short; version 1 half-way. The player plays it to the end; the
 * guide ends with version 1's now and next, the ratings as broadcast.
 */
static void
test_file(struct umms_test *t, gconstpointer data)
{
	/* @data: the engine's isolation ("in-process": no worker, no message). */
	fresh(t, data ? "eit-file-in-process" : "eit-file", data);
	struct stream_guide g;
	stream_guide_init(&g);
	unsigned cc = 0;
	g_autoptr(GByteArray) first = g_byte_array_new();
	put_section(first, 0x4e, 0, g.pf0, 2, &cc);
	put_section(first, 0x50, 0, &g.late, 1, &cc);
	/* A bit flipped: the CRC drops it. */
	struct eit_gen_event corrupt = g.pf0[0];
	corrupt.title = "Corrupt CRC";
	size_t at = first->len;
	put_section(first, 0x4e, 9, &corrupt, 1, &cc);
	first->data[at + 5 + 20] ^= 0x04;
	/* Cut short: its first packet only, the next section starts instead. */
	g_autofree char *long_text = g_strnfill(600, 'y');
	struct eit_gen_event cut = g.pf0[0];
	cut.title = "Cut Short";
	cut.description = long_text;
	g_autoptr(GByteArray) cut_packets = g_byte_array_new();
	size_t n_cut = 0;
	{
		unsigned cut_cc = cc;
		put_section(cut_packets, 0x4e, 10, &cut, 1, &cut_cc);
		n_cut = cut_packets->len / EIT_GEN_PACKET;
	}
	g_assert_cmpuint(n_cut, >, 1);
	g_byte_array_append(first, cut_packets->data, EIT_GEN_PACKET);
	cc = (cc + 1) & 0x0f;
	g_autoptr(GByteArray) second = g_byte_array_new();
	put_section(second, 0x4e, 1, g.pf1, 2, &cc);

	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "eit.ts", NULL);
	GByteArray *sets[] = { first, second };
	GError *error = NULL;
	g_assert_true(eit_gen_splice(umms_test_clip("av.ts"), path, sets, 2, &error));
	g_assert_no_error(error);
	g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
	int64_t channel = put_channel(t, uri);

	struct umms_test_signals *guide_signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *player_signals = umms_test_signals_watch(t->bus, player);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	/* It plays to its end: nothing of the EIT, good or bad, stops it. */
	g_variant_unref(umms_test_signals_wait(player_signals, "Eos", UMMS_TEST_TIMEOUT_MS));

	int64_t next_id = wait_programme(t, guide_signals, channel, "Breaking News");
	assert_linked(t, channel);
	g_autofree char *now = NULL, *next = NULL;
	int64_t next_again = 0;
	now_next(t, channel, &now, &next, &next_again);
	g_assert_cmpstr(now, ==, "Breaking News");
	g_assert_cmpstr(next, ==, "Film at Noon");
	g_assert_cmpint(next_again, ==, next_id);

	/* The film as broadcast: moved (version 1's time), 0x05 → 8 years, the byte kept. */
	g_autoptr(GVariant) film = get_programme(t, next_id);
	int64_t start = 0;
	g_assert_true(g_variant_lookup(film, "start", "x", &start));
	g_assert_cmpint(start, ==, g.pf1[1].start_us);
	g_assert_cmpint(min_age_of(film), ==, 8);
	g_autofree char *rating = programme_string(film, "rating");
	g_assert_cmpstr(rating, ==, "5");
	g_autofree char *sub_title = programme_string(film, "sub-title");
	g_assert_cmpstr(sub_title, ==, "A drama");
	int event_id = -1;
	g_assert_true(g_variant_lookup(film, "event-id", "i", &event_id));
	g_assert_cmpint(event_id, ==, 0x1002);

	/* The schedule's late show: 0x12 is the broadcaster's own, no age; byte kept. */
	g_autoptr(GVariant) found = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "Search",
		g_variant_new("(s)", "late show"));
	g_autoptr(GVariant) list = g_variant_get_child_value(found, 0);
	g_assert_cmpuint(g_variant_n_children(list), ==, 1);
	g_autoptr(GVariant) late = g_variant_get_child_value(list, 0);
	g_assert_cmpint(min_age_of(late), ==, -1);
	g_autofree char *late_rating = programme_string(late, "rating");
	g_assert_cmpstr(late_rating, ==, "18");

	/* The damaged sections never reached the guide. */
	static const char *const dropped[] = { "corrupt", "cut short" };
	for (size_t i = 0; i < G_N_ELEMENTS(dropped); i++) {
		g_autoptr(GVariant) none = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "Search",
			g_variant_new("(s)", dropped[i]));
		g_autoptr(GVariant) empty = g_variant_get_child_value(none, 0);
		g_assert_cmpuint(g_variant_n_children(empty), ==, 0);
	}
	umms_test_signals_free(player_signals);
	umms_test_signals_free(guide_signals);
}

/* ---- a live stream over UDP, its EIT changing while it plays ------------------ */

/* A live stream (eit-live.h) and the present/following it may carry. */
struct live {
	struct eit_live stream;
	GByteArray *v0, *v1, *v2; /* present/following, versions 0, 1 and 2 */
};

static void
live_start(struct live *live)
{
	struct stream_guide g;
	stream_guide_init(&g);
	unsigned cc = 0;
	live->v0 = g_byte_array_new();
	put_section(live->v0, 0x4e, 0, g.pf0, 2, &cc);
	live->v1 = g_byte_array_new();
	put_section(live->v1, 0x4e, 1, g.pf1, 2, &cc);
	struct eit_gen_event pf2[2] = { g.pf1[0], g.pf1[1] };
	pf2[0].event_id = 0x3001;
	pf2[0].title = "Weather";
	live->v2 = g_byte_array_new();
	put_section(live->v2, 0x4e, 2, pf2, 2, &cc);
	eit_live_start(&live->stream, live->v0, false);
}

static void
live_stop(struct live *live)
{
	eit_live_stop(&live->stream);
	g_byte_array_unref(live->v0);
	g_byte_array_unref(live->v1);
	g_byte_array_unref(live->v2);
}

/*
 * IPTV: live H.264 in MPEG-TS over UDP with the EIT carousel in it. Its
 * present/following goes from version 0 to 1 while the player plays:
 * ProgrammeChanged follows, each time with the stream's own titles; and to
 * 2 while it plays from its time-shift ring.
 */
static void
test_live(struct umms_test *t, gconstpointer data)
{
	fresh(t, "eit-live", NULL);
	struct live live;
	live_start(&live);
	int64_t channel = put_channel(t, live.stream.uri);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", live.stream.uri));
	umms_test_player_do(t->bus, player, "Play", NULL);

	wait_programme(t, signals, channel, "Morning News");
	assert_linked(t, channel);
	g_autofree char *now = NULL, *next = NULL;
	now_next(t, channel, &now, &next, NULL);
	g_assert_cmpstr(now, ==, "Morning News");
	g_assert_cmpstr(next, ==, "Film at Noon");

	/* The broadcaster changes its mind mid-stream. */
	eit_live_set(&live.stream, live.v1);
	wait_programme(t, signals, channel, "Breaking News");
	g_autofree char *now1 = NULL, *next1 = NULL;
	now_next(t, channel, &now1, &next1, NULL);
	g_assert_cmpstr(now1, ==, "Breaking News");
	g_assert_cmpstr(next1, ==, "Film at Noon");
	/* Still playing. */
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");

	/*
	 * Time-shift on: the engine plays the ring, which mpegtsmux wrote
	 * without EIT; the ring's recording reads the source, so a new
	 * version still reaches the guide.
	 */
	GError *error = NULL;
	g_assert_true(umms_test_set(t->bus, player, "TimeshiftEnabled",
		g_variant_new_boolean(TRUE), &error));
	g_assert_no_error(error);
	for (gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;;) {
		g_autoptr(GVariant) window = umms_test_get(t->bus, player, UMMS_PLAYER,
			"TimeshiftWindow");
		gint64 start = -1, stop = -1;
		g_variant_get(window, "(xx)", &start, &stop);
		if (start >= 0)
			break;
		if (g_get_monotonic_time() > end)
			g_error("time-shift gave no window in 60 s");
		umms_test_sleep(100);
	}
	eit_live_set(&live.stream, live.v2);
	wait_programme(t, signals, channel, "Weather");

	umms_test_signals_free(signals);
	live_stop(&live);
}

/* A recording of that stream, with no player: its EIT fills the guide too. */
static void
test_recording(struct umms_test *t, gconstpointer data)
{
	fresh(t, "eit-recording", NULL);
	struct live live;
	live_start(&live);
	int64_t channel = put_channel(t, live.stream.uri);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", US(60));
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, "org.umms.Recorder1",
		"Record", g_variant_new("(ss@a{sv})", live.stream.uri, "eit-live.ts",
			g_variant_dict_end(&options)));
	g_autofree char *recording = NULL;
	g_variant_get(r, "(o)", &recording);
	wait_programme(t, signals, channel, "Morning News");
	eit_live_set(&live.stream, live.v1);
	wait_programme(t, signals, channel, "Breaking News");
	g_variant_unref(umms_test_call_ok(t->bus, recording, "org.umms.Recording1", "Cancel",
		NULL));
	umms_test_signals_free(signals);
	live_stop(&live);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/eit-guide/file", test_file);
	g_test_add("/eit-guide/file-in-process", struct umms_test, "in-process",
		umms_test_setup, test_file, umms_test_teardown);
	UMMS_TEST_ADD("/eit-guide/live", test_live);
	UMMS_TEST_ADD("/eit-guide/recording", test_recording);
	return g_test_run();
}
