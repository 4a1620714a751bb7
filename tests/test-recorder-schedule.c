/*
 * Schedules that start on time (service/recorder/: the source opened
 * [recording] schedule-lead ahead, the file beginning at the key frame at
 * or before the start), recordings of the guide's programmes
 * (ScheduleProgramme) and series rules, through org.umms.Recorder1 on the
 * bus. The live source paints its own time into every frame, so the
 * recording is checked as a user would look at it: decoded, its first
 * picture shows the start (or the moment just before it) and it holds the
 * seconds asked for.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <sqlite3.h>
#include <string.h>

#include "guide.h"
#include "harness.h"
#include "recorder-private.h"
#include "sources.h"
#include "xmltv.h"

#define RECORDER1 "org.umms.Recorder1"
#define RECORDING1 "org.umms.Recording1"
#define GUIDE1 "org.umms.Guide1"

/* ---- a live source that paints its time ----------------------------------------- */

/* Its time in tenths of a second, painted (mod 256) as two grey levels: see paint_cb. */
#define TENTH (GST_SECOND / 10)

/* Streaming thread: the left half is grey 16 + 14 (t mod 16), the right 16 + 14 (t / 16). */
static GstPadProbeReturn
paint_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	return umms_test_live_paint_time(info, TENTH);
}

struct live {
	GstElement *pipeline;
	char *uri;
};

/* Live H.264 in MPEG-TS over UDP, 25 frames a second, a key frame every second. */
static void
live_start(struct live *live)
{
	int port = umms_test_free_udp_port();
	live->pipeline = umms_test_live_udp_start(port, 25, paint_cb);
	live->uri = g_strdup_printf("udp://127.0.0.1:%d", port);
}

static void
live_stop(struct live *live)
{
	umms_test_live_udp_stop(live->pipeline);
	g_free(live->uri);
}

/* The source's time (s) at wall-clock time @when_us. */
static double
live_time_at(struct live *live, int64_t when_us)
{
	/* Its running time: what it stamps a frame captured now with. */
	GstClockTime running = GST_CLOCK_TIME_NONE;
	for (int i = 0; i < 100 && !GST_CLOCK_TIME_IS_VALID(running); i++) {
		running = gst_element_get_current_running_time(live->pipeline);
		if (!GST_CLOCK_TIME_IS_VALID(running))
			umms_test_sleep(50);
	}
	g_assert_true(GST_CLOCK_TIME_IS_VALID(running));
	int64_t now = g_get_real_time();
	return (double)running / GST_SECOND + (double)(when_us - now) / 1e6;
}

/* ---- the recording as decoded --------------------------------------------------- */

struct decoded {
	unsigned frames;
	int first, last;           /* the painted time of the first and last frame, tenths */
};

static int
painted_level(const guint8 *y_plane, int x)
{
	double k = (y_plane[60 * 160 + x] - 16) / 14.0;
	int level = (int)(k + 0.5);
	if (level < 0 || level > 15 || k - level > 0.35 || level - k > 0.35)
		g_error("grey %d at x %d is no level of the painted code", y_plane[60 * 160 + x], x);
	return level;
}

static GstPadProbeReturn
frame_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct decoded *d = data;
	GstBuffer *buffer = gst_pad_probe_info_get_buffer(info);
	GstMapInfo map;
	g_assert_true(gst_buffer_map(buffer, &map, GST_MAP_READ));
	int t = painted_level(map.data, 40) + 16 * painted_level(map.data, 120);
	gst_buffer_unmap(buffer, &map);
	if (d->frames == 0)
		d->first = t;
	d->last = t;
	d->frames++;
	return GST_PAD_PROBE_OK;
}

/* @file decoded whole, as a player would: its frames and what they show; no error. */
static struct decoded
decode(const char *file)
{
	g_autofree char *uri = gst_filename_to_uri(file, NULL);
	g_autofree char *description = g_strdup_printf("uridecodebin uri=%s ! videoconvert ! "
		"video/x-raw,format=I420,width=160,height=120 ! fakesink name=sink", uri);
	struct decoded d = { 0 };
	g_autoptr(GError) why = umms_test_decode(description, frame_cb, &d);
	g_assert_null(why);
	return d;
}

/* ---- the service ----------------------------------------------------------------- */

/* ummsd with a database of this test's own, @lead s of schedule-lead and @extra. */
static void
fresh_with(struct umms_test *t, const char *name, unsigned lead, const char *extra)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	g_autofree char *lead_key = g_strdup_printf("recording.schedule-lead=%u", lead);
	const char *const overrides[] = { db, lead_key, extra, NULL };
	umms_test_restart(t, overrides);
}

static void
fresh(struct umms_test *t, const char *name, unsigned lead)
{
	fresh_with(t, name, lead, NULL);
}

static char *
schedule(struct umms_test *t, const char *uri, int64_t start, int64_t duration,
	const char *destination)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new("(sxxs@a{sv})", uri, start, duration,
			destination, g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	char *path = NULL;
	g_variant_get(r, "(o)", &path);
	return path;
}

/*
 * A 3 s schedule of the live source, its start @ahead s away: the file,
 * decoded: seconds of picture, and where its first picture lies from the
 * start (s, negative: before).
 */
static void
record_window(struct umms_test *t, struct live *live, const char *name, double ahead,
	double *seconds, double *first_from_start)
{
	int64_t start = g_get_real_time() + US(ahead);
	double source_start = live_time_at(live, start);
	g_autofree char *path = schedule(t, live->uri, start, US(3), name);
	umms_test_recording_wait(t, path, "completed", (unsigned)(ahead * 1000) + 15000);
	g_autofree char *error = umms_test_recording_string(t, path, "Error");
	g_assert_cmpstr(error, ==, "");
	g_autofree char *file = umms_test_recording_string(t, path, "Destination");
	struct decoded d = decode(file);
	g_assert_cmpuint(d.frames, >, 0);
	/* The painted code runs round every 25.6 s: the start's tenth, brought near. */
	int start_code = (int)(source_start * 10) % 256;
	int from = ((d.first - start_code) % 256 + 256 + 128) % 256 - 128;
	*seconds = d.frames / 25.0;
	*first_from_start = from / 10.0;
	g_test_message("%s: %u frames (%.2f s of picture), the first painted %.1f s from the "
		"start, the last %d tenths after the first", name, d.frames, *seconds,
		*first_from_start, ((d.last - d.first) % 256 + 256) % 256);
}

/*
 * A 3 s schedule of a live stream with a key frame every second: the
 * file holds at least 3 s of picture, from the key frame at or before the
 * start (not more than a key frame's distance before it, and half a second
 * for a frame that came through the demuxer after the start), whether the
 * start is further off than the lead (the timer opens the source then) or
 * nearer (opened at once).
 */
static void
test_on_time(struct umms_test *t, gconstpointer data)
{
	fresh(t, "on-time", 3);
	struct live live;
	live_start(&live);
	const double aheads[] = { 5.0, 1.5 };
	for (size_t i = 0; i < G_N_ELEMENTS(aheads); i++) {
		g_autofree char *name = g_strdup_printf("on-time-%zu.ts", i);
		double seconds, first;
		record_window(t, &live, name, aheads[i], &seconds, &first);
		g_assert_cmpfloat(seconds, >=, 3.0);
		/* And not much more: a key frame's distance, the half second after the end. */
		g_assert_cmpfloat(seconds, <=, 5.0);
		/* A tenth: the painted time is a frame's capture, floored to its tenth. */
		g_assert_cmpfloat(first, <=, 0.1);
		g_assert_cmpfloat(first, >=, -1.5);
	}
	/* The same in ummsd itself, without engine workers. */
	fresh_with(t, "on-time", 3, "engine.isolation=in-process");
	double in_seconds, in_first;
	record_window(t, &live, "in-process.ts", 5.0, &in_seconds, &in_first);
	g_assert_cmpfloat(in_seconds, >=, 3.0);
	g_assert_cmpfloat(in_seconds, <=, 5.0);
	g_assert_cmpfloat(in_first, <=, 0.1);
	g_assert_cmpfloat(in_first, >=, -1.5);
	/*
	 * Without a lead (the source opened at the start, as before there was
	 * one), for the record: the source's start and its first key frame
	 * cost the file its first second or more.
	 */
	fresh(t, "on-time", 0);
	double seconds, first;
	record_window(t, &live, "no-lead.ts", 1.5, &seconds, &first);
	g_test_message("without a lead: %.2f s of picture, from %.1f s after the start", seconds,
		first);
	live_stop(&live);
}

/*
 * Opened ahead, not begun: still "scheduled" to its clients (its engine
 * worker already there); cancelled then, it leaves no file behind.
 */
static void
test_cancel_ahead(struct umms_test *t, gconstpointer data)
{
	fresh(t, "cancel-ahead", 5);
	struct live live;
	live_start(&live);
	g_autofree char *path = schedule(t, live.uri, g_get_real_time() + US(4), US(3),
		"cancelled.ts");
	guint32 pid = 0;
	for (int i = 0; i < 100 && !pid; i++) {
		g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, "EnginePid");
		pid = g_variant_get_uint32(v);
		if (!pid)
			umms_test_sleep(50);
	}
	g_autofree char *state = umms_test_recording_string(t, path, "State");
	g_test_message("opened ahead by engine worker %u, %s", pid, state);
	g_assert_cmpuint(pid, >, 0);
	g_assert_cmpstr(state, ==, "scheduled");
	g_autofree char *file = umms_test_recording_string(t, path, "Destination");
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, path, RECORDING1, "Cancel", NULL);
	umms_test_recording_wait(t, path, "cancelled", 5000);
	g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
	/* And it does not start later. */
	umms_test_sleep(5000);
	g_autofree char *still = umms_test_recording_string(t, path, "State");
	g_assert_cmpstr(still, ==, "cancelled");
	g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
	live_stop(&live);
}

/* ---- the guide, filled as a user's XMLTV would ------------------------------------ */

/* A programme of the guide files these tests write. */
struct airing {
	const char *channel;       /* XMLTV channel id */
	int64_t start_us, stop_us;
	const char *title;
	const char *episode;       /* xmltv_ns ("0.4."), or NULL */
	bool previously_shown;     /* <previously-shown/>: a repeat */
};

/* @m3u_uri: channel "one"'s URI; channel "two" is in the XMLTV only (no URI). */
static void
import_guide(struct umms_test *t, const char *name, const char *one_uri,
	const struct airing *airings, size_t n)
{
	g_autofree char *m3u = g_strdup_printf("%s/%s.m3u", umms_test_tmpdir(), name);
	g_autofree char *m3u_text = g_strdup_printf("#EXTM3U\n#EXTINF:-1 tvg-id=\"one\" "
		"tvg-chno=\"1\",One\n%s\n", one_uri);
	g_assert_true(g_file_set_contents(m3u, m3u_text, -1, NULL));
	g_autoptr(GVariant) r1 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ImportM3U",
		g_variant_new("(s)", m3u));
	static const char *const channels[] = { "one", "One", "two", "Two", NULL };
	GString *xml = umms_test_xmltv_begin(channels);
	for (size_t i = 0; i < n; i++) {
		g_autofree char *episode = airings[i].episode ? g_strdup_printf(
			"<episode-num system=\"xmltv_ns\">%s</episode-num>", airings[i].episode) : NULL;
		g_autofree char *inner = g_strconcat(episode ? episode : "",
			airings[i].previously_shown ? "<previously-shown/>" : "", NULL);
		umms_test_xmltv_programme(xml, airings[i].channel, airings[i].start_us,
			airings[i].stop_us, airings[i].title, inner);
	}
	g_autofree char *file = umms_test_xmltv_finish(xml, name);
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ImportXMLTV",
		g_variant_new("(s)", file));
}

/* The id of channel @name in Guide1.ListChannels. */
static int64_t
channel_id(struct umms_test *t, const char *name)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ListChannels", NULL);
	g_autoptr(GVariant) channels = g_variant_get_child_value(r, 0);
	for (gsize i = 0; i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) c = g_variant_get_child_value(channels, i);
		const char *n;
		int64_t id;
		if (g_variant_lookup(c, "name", "&s", &n) && strcmp(n, name) == 0 &&
				g_variant_lookup(c, "id", "x", &id))
			return id;
	}
	g_error("no channel %s in the guide", name);
}

/* The id of the programme of channel @name starting at @start_us. */
static int64_t
programme_id(struct umms_test *t, const char *name, int64_t start_us)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "GetSchedule",
		g_variant_new("(xxx)", channel_id(t, name), start_us - US(1), start_us + US(1)));
	g_autoptr(GVariant) list = g_variant_get_child_value(r, 0);
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(list, i);
		int64_t id, start;
		if (g_variant_lookup(p, "start", "x", &start) && start == start_us &&
				g_variant_lookup(p, "id", "x", &id))
			return id;
	}
	g_error("no programme on %s at %" G_GINT64_FORMAT, name, start_us);
}

static char *
schedule_programme(struct umms_test *t, int64_t id, guint32 before, guint32 after)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleProgramme", g_variant_new("(xuu@a{sv})", id, before, after,
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	char *path = NULL;
	g_variant_get(r, "(o)", &path);
	return path;
}

static int64_t
recording_int64(struct umms_test *t, const char *path, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, property);
	return g_variant_get_int64(v);
}

/* A whole second a little ahead: XMLTV has no finer times. */
static int64_t
whole_second(int64_t us)
{
	return (us / G_USEC_PER_SEC + 1) * G_USEC_PER_SEC;
}

/*
 * "Record this programme": its channel's stream, from its start to its
 * stop (at least that much picture, beginning at the start's key frame);
 * named errors for a programme the guide has not, one that is over and
 * one whose channel has no URI; and a programme the broadcaster moves
 * (a new XMLTV listing it later) takes its recording with it.
 */
static void
test_programme(struct umms_test *t, gconstpointer data)
{
	fresh(t, "programme", 3);
	struct live live;
	live_start(&live);
	int64_t now = g_get_real_time();
	int64_t show = whole_second(now + US(5));
	int64_t later = whole_second(now + US(3600));
	const struct airing airings[] = {
		{ "one", later - US(7200), later - US(5400), "Yesterday's news", NULL },
		{ "one", show, show + US(3), "Short film", NULL },
		{ "one", later, later + US(1800), "Late show", NULL },
		{ "two", later, later + US(1800), "Elsewhere", NULL },
	};
	import_guide(t, "programme", live.uri, airings, G_N_ELEMENTS(airings));
	int64_t past_id = programme_id(t, "One", airings[0].start_us);
	int64_t show_id = programme_id(t, "One", show);
	int64_t late_id = programme_id(t, "One", later);
	int64_t elsewhere_id = programme_id(t, "Two", later);

	/* Named errors; the service goes on. */
	g_autofree char *e1 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleProgramme", g_variant_new_parsed("(%x, @u 0, @u 0, @a{sv} {})",
		late_id + 1000), "org.umms.Error.NotFound");
	g_autofree char *e2 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleProgramme", g_variant_new_parsed("(%x, @u 0, @u 0, @a{sv} {})", past_id),
		"org.umms.Error.InvalidState");
	g_autofree char *e3 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleProgramme", g_variant_new_parsed("(%x, @u 0, @u 0, @a{sv} {})",
		elsewhere_id), "org.umms.Error.NotSupported");
	g_test_message("%s; %s; %s", e1, e2, e3);

	double source_start = live_time_at(&live, show);
	g_autofree char *rec = schedule_programme(t, show_id, 0, 0);
	g_assert_cmpint(recording_int64(t, rec, "Programme"), ==, show_id);
	g_assert_cmpint(recording_int64(t, rec, "Start"), ==, show);
	g_assert_cmpint(recording_int64(t, rec, "Duration"), ==, US(3));
	g_autofree char *uri = umms_test_recording_string(t, rec, "Uri");
	g_assert_cmpstr(uri, ==, live.uri);

	/* Padded by a minute before and two after, half an hour away. */
	g_autofree char *late = schedule_programme(t, late_id, 60, 120);
	g_assert_cmpint(recording_int64(t, late, "Start"), ==, later - US(60));
	g_assert_cmpint(recording_int64(t, late, "Duration"), ==, US(1800 + 180));

	umms_test_recording_wait(t, rec, "completed", 20000);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	g_test_message("the programme's file: %s", file);
	g_assert_true(g_str_has_suffix(file, ".ts"));
	g_assert_nonnull(strstr(file, "Short film"));
	struct decoded d = decode(file);
	int from = ((d.first - (int)(source_start * 10) % 256) % 256 + 256 + 128) % 256 - 128;
	g_test_message("%u frames, the first %.1f s from the programme's start", d.frames,
		from / 10.0);
	g_assert_cmpuint(d.frames, >=, 75);
	g_assert_cmpint(from, <=, 1);

	/* The late show moves ten minutes on: its recording goes with it. */
	struct airing moved[G_N_ELEMENTS(airings)];
	memcpy(moved, airings, sizeof(moved));
	moved[2].start_us += US(600);
	moved[2].stop_us += US(600);
	import_guide(t, "programme", live.uri, moved, G_N_ELEMENTS(moved));
	int64_t moved_id = programme_id(t, "One", later + US(600));
	g_assert_cmpint(recording_int64(t, late, "Start"), ==, later + US(600) - US(60));
	g_assert_cmpint(recording_int64(t, late, "Duration"), ==, US(1800 + 180));
	g_assert_cmpint(recording_int64(t, late, "Programme"), ==, moved_id);
	g_autofree char *state = umms_test_recording_string(t, late, "State");
	g_assert_cmpstr(state, ==, "scheduled");
	live_stop(&live);
}

/*
 * A programme that runs longer than the guide said, told while it is
 * recorded (a new XMLTV with a later stop): the recording goes on to the
 * new stop; its file holds the whole programme.
 */
static void
test_extended(struct umms_test *t, gconstpointer data)
{
	fresh(t, "extended", 3);
	struct live live;
	live_start(&live);
	int64_t show = whole_second(g_get_real_time() + US(3));
	struct airing airings[] = {
		{ "one", show, show + US(3), "Match", NULL },
		{ "one", show + US(3600), show + US(5400), "After the match", NULL },
	};
	import_guide(t, "extended", live.uri, airings, G_N_ELEMENTS(airings));
	g_autofree char *rec = schedule_programme(t, programme_id(t, "One", show), 0, 0);
	umms_test_recording_wait(t, rec, "recording", 10000);
	/* Extra time: three more seconds. */
	airings[0].stop_us += US(3);
	import_guide(t, "extended", live.uri, airings, G_N_ELEMENTS(airings));
	g_assert_cmpint(recording_int64(t, rec, "Duration"), ==, US(6));
	umms_test_recording_wait(t, rec, "completed", 20000);
	double took = (g_get_real_time() - show) / 1e6;
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	struct decoded d = decode(file);
	g_test_message("completed %.1f s after the start, %u frames", took, d.frames);
	g_assert_cmpfloat(took, >=, 5.9);
	g_assert_cmpuint(d.frames, >=, 6 * 25);
	live_stop(&live);
}

static GVariant *
recordings(struct umms_test *t)
{
	return umms_test_get(t->bus, UMMS_ROOT, RECORDER1, "Recordings");
}

/* The programmes rule @rule's recordings record, in order. */
static GArray *
rule_programmes(struct umms_test *t, int64_t rule)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
	g_autoptr(GVariant) list = recordings(t);
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		const char *path;
		g_variant_get_child(list, i, "&o", &path);
		if (recording_int64(t, path, "SeriesRule") != rule)
			continue;
		int64_t programme = recording_int64(t, path, "Programme");
		g_array_append_val(ids, programme);
	}
	return ids;
}

static int64_t
add_rule(struct umms_test *t, GVariant *rule)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "AddSeriesRule",
		g_variant_new_tuple(&rule, 1));
	int64_t id;
	g_variant_get(r, "(x)", &id);
	return id;
}

/*
 * "Record every new episode": a series rule over three airings, two of
 * them the same episode, records exactly two, and not a fourth the guide
 * says is a repeat; imported again, nothing more; kept across a restart;
 * ummsctl adds, lists and removes rules and records a programme.
 */
static void
test_series(struct umms_test *t, gconstpointer data)
{
	fresh(t, "series", 3);
	/* Hours ahead: nothing records while the test runs. */
	int64_t base = whole_second(g_get_real_time() + US(3600));
	const struct airing airings[] = {
		{ "one", base, base + US(1800), "Quiz Night", "0.0." },
		{ "one", base + US(1800), base + US(3600), "News", NULL },
		{ "one", base + US(3600), base + US(5400), "Quiz Night", "0.1." },
		{ "one", base + US(7200), base + US(9000), "Quiz Night", "0.0." },
		{ "one", base + US(9000), base + US(10800), "Quiz Night", "0.2.", true },
	};
	import_guide(t, "series", "udp://127.0.0.1:9", airings, G_N_ELEMENTS(airings));
	int64_t first = programme_id(t, "One", airings[0].start_us);
	int64_t second = programme_id(t, "One", airings[2].start_us);
	int64_t repeat = programme_id(t, "One", airings[3].start_us);
	int64_t shown = programme_id(t, "One", airings[4].start_us);
	g_autoptr(GVariant) shown_v = umms_test_call_ok(t->bus, UMMS_ROOT, "org.umms.Guide1",
		"GetProgramme", g_variant_new("(x)", shown));
	g_autoptr(GVariant) shown_dict = g_variant_get_child_value(shown_v, 0);
	gboolean is_repeat = FALSE;
	g_assert_true(g_variant_lookup(shown_dict, "previously-shown", "b", &is_repeat));
	g_assert_true(is_repeat);

	/* Bad rules: named errors. */
	g_autofree char *e1 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1, "AddSeriesRule",
		g_variant_new_parsed("(@a{sv} {'channel': <@x 1>},)"),
		"org.umms.Error.InvalidArgument");
	g_autofree char *e2 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1, "AddSeriesRule",
		g_variant_new_parsed("({'title': <'x'>, 'bogus': <1>},)"),
		"org.umms.Error.InvalidArgument");
	g_test_message("%s; %s", e1, e2);

	int64_t rule = add_rule(t, g_variant_new_parsed("{'title': <'quiz*'>}"));
	g_autoptr(GArray) ids = rule_programmes(t, rule);
	g_assert_cmpuint(ids->len, ==, 2);
	g_assert_cmpint(g_array_index(ids, int64_t, 0), ==, first);
	g_assert_cmpint(g_array_index(ids, int64_t, 1), ==, second);

	/* The same guide again, and a restart: still those two, the rule kept. */
	import_guide(t, "series", "udp://127.0.0.1:9", airings, G_N_ELEMENTS(airings));
	fresh(t, "series", 3);
	g_autoptr(GArray) again = rule_programmes(t, rule);
	g_assert_cmpuint(again->len, ==, 2);
	g_autofree char *listed = umms_test_ummsctl("series", "list", NULL);
	g_assert_nonnull(strstr(listed, "quiz*"));
	g_assert_nonnull(strstr(listed, "new episodes only"));

	/* Every airing, by ummsctl: the repeats too (the two others are taken). */
	g_autofree char *out = umms_test_ummsctl("series", "add", "title=Quiz Night",
		"new-only=no", "padding=60,120", NULL);
	int64_t all = g_ascii_strtoll(out, NULL, 10);
	g_assert_cmpint(all, >, rule);
	g_autoptr(GArray) repeats = rule_programmes(t, all);
	g_assert_cmpuint(repeats->len, ==, 2);
	g_assert_cmpint(g_array_index(repeats, int64_t, 0), ==, repeat);
	g_assert_cmpint(g_array_index(repeats, int64_t, 1), ==, shown);

	/* The news, by hand. */
	int64_t news = programme_id(t, "One", airings[1].start_us);
	g_autofree char *news_arg = g_strdup_printf("%" G_GINT64_FORMAT, news);
	g_autofree char *path = umms_test_ummsctl("record-programme", news_arg, "30", NULL);
	g_strstrip(path);
	g_assert_cmpint(recording_int64(t, path, "Programme"), ==, news);
	g_assert_cmpint(recording_int64(t, path, "Start"), ==, airings[1].start_us - US(30));

	/* Removed: gone from the list, its recordings stay; twice: NotFound. */
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"RemoveSeriesRule", g_variant_new("(x)", rule));
	g_autofree char *e3 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
		"RemoveSeriesRule", g_variant_new("(x)", rule), "org.umms.Error.NotFound");
	g_autoptr(GVariant) left = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ListSeriesRules", NULL);
	g_autoptr(GVariant) rules = g_variant_get_child_value(left, 0);
	g_assert_cmpuint(g_variant_n_children(rules), ==, 1);
	g_autoptr(GArray) stay = rule_programmes(t, rule);
	g_assert_cmpuint(stay->len, ==, 2);
}

/*
 * A database an older ummsd wrote (recordings without the programme's
 * columns, no series rules): taken up, its recordings listed as before,
 * and programmes and rules work on it.
 */
static void
test_old_database(struct umms_test *t, gconstpointer data)
{
	g_autofree char *path = g_strdup_printf("%s/old.db", umms_test_tmpdir());
	g_autofree char *file = g_strdup_printf("%s/umms/recordings/old.ts", umms_test_tmpdir());
	sqlite3 *db = NULL;
	g_assert_cmpint(sqlite3_open(path, &db), ==, SQLITE_OK);
	g_autofree char *sql = g_strdup_printf("CREATE TABLE recordings ("
		" id INTEGER PRIMARY KEY AUTOINCREMENT, uri TEXT NOT NULL,"
		" start_us INTEGER NOT NULL, duration_us INTEGER NOT NULL,"
		" destination TEXT NOT NULL, state TEXT NOT NULL,"
		" parts TEXT NOT NULL DEFAULT '', bytes INTEGER NOT NULL DEFAULT 0,"
		" error TEXT NOT NULL DEFAULT '');"
		"INSERT INTO recordings (uri, start_us, duration_us, destination, state, parts) "
		"VALUES ('udp://127.0.0.1:9', 1000000, 2000000, '%s', 'completed', '%s')", file,
		file);
	g_assert_cmpint(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
	sqlite3_close(db);
	g_autofree char *db_key = g_strdup_printf("recording.database=%s", path);
	const char *const overrides[] = { db_key, NULL };
	umms_test_restart(t, overrides);
	g_autoptr(GVariant) list = recordings(t);
	g_assert_cmpuint(g_variant_n_children(list), ==, 1);
	const char *old;
	g_variant_get_child(list, 0, "&o", &old);
	g_autofree char *state = umms_test_recording_string(t, old, "State");
	g_assert_cmpstr(state, ==, "completed");
	g_assert_cmpint(recording_int64(t, old, "Programme"), ==, 0);
	int64_t base = whole_second(g_get_real_time() + US(3600));
	const struct airing airings[] = {
		{ "one", base, base + US(1800), "Quiz Night", "0.0." },
	};
	import_guide(t, "old", "udp://127.0.0.1:9", airings, G_N_ELEMENTS(airings));
	int64_t rule = add_rule(t, g_variant_new_parsed("{'title': <'Quiz Night'>}"));
	g_autoptr(GArray) ids = rule_programmes(t, rule);
	g_assert_cmpuint(ids->len, ==, 1);
	/* And again after a restart: the columns are there now. */
	umms_test_restart(t, overrides);
	g_autoptr(GArray) kept = rule_programmes(t, rule);
	g_assert_cmpuint(kept->len, ==, 1);
}

static bool
first_programme_cb(const struct umms_guide_programme *p, void *data)
{
	*(int64_t *)data = p->id;
	return false;
}

/*
 * The broadcaster moves a programme in its EIT (a new table version, the
 * same event): the programme keeps its id, and its recording scheduled
 * in ummsd's recorder moves with it, paddings kept. In-process: the guide
 * and the recorder on a connection of the test's own, EIT put as the
 * EIT reader puts it.
 */
static void
test_eit_moves(struct umms_test *t, gconstpointer data)
{
	struct umms_config config;
	umms_config_init(&config);
	config.recording.database = g_build_filename(umms_test_tmpdir(), "eit-moves.db", NULL);
	g_autoptr(GDBusConnection) conn = umms_test_connect();
	GError *error = NULL;
	struct umms_guide *guide = umms_guide_create(&config, conn, &error);
	g_assert_no_error(error);
	struct umms_recorder *rec = umms_recorder_create(&config, conn, guide, &error);
	g_assert_no_error(error);
	struct umms_guide_channel ch = { .name = "Broadcast", .uri = "udp://127.0.0.1:9",
		.source = "dvb-scan", .dvb = { 0x2000, 1, 0x880 } };
	g_assert_true(umms_guide_put_channel(guide, &ch, &error));
	int64_t start = whole_second(g_get_real_time() + US(3600));
	struct umms_guide_eit_event event = { .event_id = 7, .start_us = start,
		.duration_us = US(1800), .title = "Film", .rating_raw = -1, .min_age = -1 };
	struct umms_guide_eit eit = { .dvb = ch.dvb, .table_id = 0x50, .version = 1,
		.events = &event, .n_events = 1 };
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	umms_test_sleep(100);
	int64_t id = 0;
	umms_guide_for_each_programme(guide, ch.id, start - US(1), -1, first_programme_cb, &id);
	g_assert_cmpint(id, >, 0);
	struct job *j = recorder_schedule_programme(rec, id, 60, 120, NULL, 0, &error);
	g_assert_no_error(error);
	g_assert_cmpint(j->start_us, ==, start - US(60));
	g_assert_cmpint(j->duration_us, ==, US(1800 + 180));

	/* Version 2: ten minutes later, five longer. */
	event.start_us += US(600);
	event.duration_us += US(300);
	eit.version = 2;
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	umms_test_sleep(100);
	g_assert_cmpint(j->programme, ==, id);
	g_assert_cmpint(j->start_us, ==, start + US(600) - US(60));
	g_assert_cmpint(j->duration_us, ==, US(2100 + 180));
	g_assert_cmpint(j->state, ==, SCHEDULED);

	umms_recorder_destroy(rec);
	umms_guide_destroy(guide);
	umms_config_finish(&config);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/recorder-schedule/on-time", test_on_time);
	UMMS_TEST_ADD("/recorder-schedule/cancel-ahead", test_cancel_ahead);
	UMMS_TEST_ADD("/recorder-schedule/programme", test_programme);
	UMMS_TEST_ADD("/recorder-schedule/extended", test_extended);
	UMMS_TEST_ADD("/recorder-schedule/eit-moves", test_eit_moves);
	UMMS_TEST_ADD("/recorder-schedule/series", test_series);
	UMMS_TEST_ADD("/recorder-schedule/old-database", test_old_database);
	return g_test_run();
}
