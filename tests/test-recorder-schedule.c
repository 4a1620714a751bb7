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
#include <string.h>

#include "harness.h"
#include "sources.h"

#define RECORDER1 "org.umms.Recorder1"

/* ---- a live source that paints its time ----------------------------------------- */

/* Its time in tenths of a second, painted (mod 256) as two grey levels: see paint_cb. */
#define TENTH (GST_SECOND / 10)

/* Streaming thread: the left half is grey 16 + 14 (t mod 16), the right 16 + 14 (t / 16). */
static GstPadProbeReturn
paint_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstBuffer *buffer = gst_buffer_make_writable(gst_pad_probe_info_get_buffer(info));
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	unsigned t = (unsigned)(GST_BUFFER_PTS(buffer) / TENTH);
	guint8 left = (guint8)(16 + 14 * (t % 16)), right = (guint8)(16 + 14 * (t / 16 % 16));
	GstMapInfo map;
	if (!gst_buffer_map(buffer, &map, GST_MAP_WRITE))
		return GST_PAD_PROBE_OK;
	/* I420, 160x120: Y, then U and V of 80x60, grey. */
	for (int y = 0; y < 120; y++) {
		memset(map.data + y * 160, left, 80);
		memset(map.data + y * 160 + 80, right, 80);
	}
	memset(map.data + 160 * 120, 128, 2 * 80 * 60);
	gst_buffer_unmap(buffer, &map);
	return GST_PAD_PROBE_OK;
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
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	struct decoded d = { 0 };
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	GstPad *pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, frame_cb, &d, NULL);
	gst_object_unref(pad);
	gst_object_unref(sink);
	GstBus *bus = gst_element_get_bus(pipeline);
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	GstMessage *end = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND,
		GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	g_assert_nonnull(end);
	g_autoptr(GError) why = NULL;
	if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR)
		gst_message_parse_error(end, &why, NULL);
	gst_message_unref(end);
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	g_assert_null(why);
	return d;
}

/* ---- the service ----------------------------------------------------------------- */

/* ummsd with a database of this test's own and @lead s of schedule-lead. */
static void
fresh(struct umms_test *t, const char *name, unsigned lead)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	g_autofree char *lead_key = g_strdup_printf("recording.schedule-lead=%u", lead);
	const char *const overrides[] = { db, lead_key, NULL };
	umms_test_restart(t, overrides);
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
 * for a frame that came through the demuxer after the start), whether the start is further off than the lead (the timer opens the
 * source then) or nearer (opened at once).
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
		/* A tenth: the painted time is a frame's capture, floored to its tenth. */
		g_assert_cmpfloat(first, <=, 0.1);
		g_assert_cmpfloat(first, >=, -1.5);
	}
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

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/recorder-schedule/on-time", test_on_time);
	return g_test_run();
}
