/*
 * Recording (service/recorder/) through org.umms.Recorder1 on the bus, with
 * sources the test makes itself: generated clips, served as files and by
 * an HTTP server of its own, and a live MPEG-TS stream it sends over UDP
 * on loopback (tests/sources.h). Every recording is checked the
 * way a user would: the file plays back in ummsd, with the right length
 * and the streams it had, no transcoding. Deleting one removes its files
 * (and nothing outside the recording directories) for good.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "sources.h"

#define RECORDER1 "org.umms.Recorder1"
#define RECORDING1 "org.umms.Recording1"

static char *
record(struct umms_test *t, const char *uri, const char *destination, GVariant *options)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new("(ss@a{sv})", uri, destination,
			options ? options : g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	char *path = NULL;
	g_variant_get(r, "(o)", &path);
	return path;
}

/* A service with a database of this test's own (recordings are kept across restarts). */
static void
fresh(struct umms_test *t, const char *name)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	const char *const overrides[] = { db, NULL };
	umms_test_restart(t, overrides);
}

/* The recording opened in a player: its duration, checked to be within [@lo, @hi] s. */
static void
assert_plays_within(struct umms_test *t, const char *file, double lo, double hi,
	const char *container)
{
	g_autofree char *uri = gst_filename_to_uri(file, NULL);
	g_autofree char *player = umms_test_create_player(t->bus, "{}");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	int64_t duration = umms_test_get_int64(t->bus, player, "Duration");
	g_autofree char *c = umms_test_get_string(t->bus, player, "Container");
	g_test_message("%s: %.2f s, %s", file, (double)duration / 1e6, c);
	g_assert_cmpstr(c, ==, container);
	/* Every source here has video: the recording has it too, not only sound. */
	g_assert_true(umms_test_get_bool(t->bus, player, "HasVideo"));
	g_assert_cmpint(duration, >=, US(lo));
	g_assert_cmpint(duration, <=, US(hi));
	/* It plays to its end. */
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)",
		MAX(0, duration - US(0.5))));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 10000);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER,
		"DestroyPlayer", g_variant_new("(o)", player));
}

/* The recording plays and lasts @seconds ±1. */
static void
assert_plays(struct umms_test *t, const char *file, double seconds, const char *container)
{
	assert_plays_within(t, file, seconds - 1, seconds + 1, container);
}

static void
test_file(struct umms_test *t, gconstpointer data)
{
	/* A 5 s clip with H.264 and two Opus tracks, to Matroska and to MPEG-TS. */
	fresh(t, "file");
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	g_autofree char *mkv = record(t, uri, "shows/av.mkv", NULL);
	umms_test_recording_wait(t, mkv, "completed", 20000);
	g_autofree char *file = umms_test_recording_string(t, mkv, "Destination");
	g_autofree char *want = g_build_filename(umms_test_tmpdir(), "umms", "recordings", "shows",
		"av.mkv", NULL);
	g_assert_cmpstr(file, ==, want);
	g_autoptr(GVariant) bytes = umms_test_get(t->bus, mkv, RECORDING1, "BytesWritten");
	GStatBuf st;
	g_assert_cmpint(g_stat(file, &st), ==, 0);
	g_assert_cmpuint(g_variant_get_uint64(bytes), ==, (guint64)st.st_size);
	assert_plays(t, file, 5, "matroska");
	/* Both sound tracks (English and German Opus) kept, as they were. */
	g_autofree char *file_uri = gst_filename_to_uri(file, NULL);
	g_autofree char *check = umms_test_create_player(t->bus, "{}");
	umms_test_player_do(t->bus, check, "SetUri", g_variant_new("(s)", file_uri));
	g_autoptr(GVariant) audio = umms_test_get(t->bus, check, UMMS_PLAYER, "AudioTracks");
	g_assert_cmpuint(g_variant_n_children(audio), ==, 2);

	g_autofree char *ts = record(t, uri, "av.ts", NULL);
	umms_test_recording_wait(t, ts, "completed", 20000);
	g_autofree char *ts_file = umms_test_recording_string(t, ts, "Destination");
	assert_plays(t, ts_file, 5, "mpegts");

	/* Both listed, oldest first. */
	g_autoptr(GVariant) list = umms_test_get(t->bus, UMMS_ROOT, RECORDER1, "Recordings");
	g_assert_cmpuint(g_variant_n_children(list), ==, 2);
}

/* ---- a live source ----------------------------------------------------------- */

struct live {
	GstElement *pipeline;
	int port;
};

/* Live H.264 in MPEG-TS over UDP on loopback, as an IPTV multicast would come. */
static void
live_start(struct live *live)
{
	live->port = umms_test_free_udp_port();
	live->pipeline = umms_test_live_udp_start(live->port, 5, NULL);
}

static void
live_stop(struct live *live)
{
	umms_test_live_udp_stop(live->pipeline);
}

static void
test_live(struct umms_test *t, gconstpointer data)
{
	fresh(t, "live");
	struct live live;
	live_start(&live);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	/* For 3 s: started and stopped on time. */
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", US(3));
	g_autofree char *rec = record(t, uri, "live.ts", g_variant_dict_end(&options));
	g_autofree char *recording = umms_test_recording_string(t, rec, "State");
	g_assert_cmpstr(recording, ==, "recording");
	gint64 start = g_get_monotonic_time();
	umms_test_recording_wait(t, rec, "completed", 15000);
	double took = (double)(g_get_monotonic_time() - start) / 1e6;
	g_test_message("a 3 s recording took %.2f s", took);
	g_assert_cmpfloat(took, >=, 2.5);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	assert_plays(t, file, 3, "mpegts");

	/* Cancelled after a while: closed properly, what was recorded kept. */
	g_autofree char *rec2 = record(t, uri, "cancelled.mkv", NULL);
	umms_test_sleep(2500);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, rec2, RECORDING1, "Cancel", NULL);
	umms_test_recording_wait(t, rec2, "cancelled", 10000);
	g_autofree char *file2 = umms_test_recording_string(t, rec2, "Destination");
	assert_plays(t, file2, 2, "matroska");
	live_stop(&live);
}

/*
 * A live source that misbehaves while recorded, into .ts and .mkv: the
 * recording must complete without an error and play. @disturb acts on the
 * running sender, after @after_ms (0: right away).
 */
static void
record_disturbed(struct umms_test *t, const char *stem, unsigned after_ms,
	void (*disturb)(struct live *live))
{
	const char *const containers[][2] = { { "ts", "mpegts" }, { "mkv", "matroska" } };
	for (size_t i = 0; i < G_N_ELEMENTS(containers); i++) {
		struct live live;
		live_start(&live);
		if (!after_ms)
			disturb(&live);
		g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
		g_autofree char *name = g_strdup_printf("%s.%s", stem, containers[i][0]);
		GVariantDict options;
		g_variant_dict_init(&options, NULL);
		g_variant_dict_insert(&options, "duration", "x", US(7));
		g_autofree char *rec = record(t, uri, name, g_variant_dict_end(&options));
		if (after_ms) {
			umms_test_sleep(after_ms);
			disturb(&live);
		}
		umms_test_recording_wait(t, rec, "completed", 20000);
		g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
		g_autofree char *error = umms_test_recording_string(t, rec, "Error");
		g_test_message("%s: completed, error '%s'", name, error);
		g_assert_cmpstr(error, ==, "");
		assert_plays_within(t, file, 3, 8.5, containers[i][1]);
		live_stop(&live);
	}
}

/* The sender's network loses one packet in @data (a guint) at random. */
static GstPadProbeReturn
lose_packets(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	return g_random_int_range(0, GPOINTER_TO_UINT(data)) == 0 ? GST_PAD_PROBE_DROP :
		GST_PAD_PROBE_OK;
}

/* One UDP packet in 20 lost on the way. */
static void
make_lossy(struct live *live)
{
	GstIterator *sinks = gst_bin_iterate_sinks(GST_BIN(live->pipeline));
	GValue item = G_VALUE_INIT;
	g_assert_cmpint(gst_iterator_next(sinks, &item), ==, GST_ITERATOR_OK);
	GstPad *pad = gst_element_get_static_pad(g_value_get_object(&item), "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, lose_packets, GUINT_TO_POINTER(20), NULL);
	gst_object_unref(pad);
	g_value_unset(&item);
	gst_iterator_free(sinks);
}

/*
 * The sender restarts (a head-end restart, a switched encoder): the
 * stream's timestamps start over, and muxers refuse time that goes back.
 */
static void
restart_sender(struct live *live)
{
	umms_test_live_udp_stop(live->pipeline);
	umms_test_sleep(200);
	live->pipeline = umms_test_live_udp_start(live->port, 5, NULL);
}

static void
test_source_restart(struct umms_test *t, gconstpointer data)
{
	fresh(t, "source-restart");
	record_disturbed(t, "restart", 3000, restart_sender);
}

static void
test_lossy(struct umms_test *t, gconstpointer data)
{
	fresh(t, "lossy");
	record_disturbed(t, "lossy", 0, make_lossy);
}

static void
test_http(struct umms_test *t, gconstpointer data)
{
	/* From a web server (the test's own): remuxed as from a file, every track kept. */
	fresh(t, "http");
	struct umms_test_http server;
	umms_test_http_start(&server, 0);
	g_autofree char *uri = g_strdup_printf("http://127.0.0.1:%u/av.mkv", server.port);
	g_autofree char *rec = record(t, uri, "from-http.ts", NULL);
	umms_test_recording_wait(t, rec, "completed", 30000);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	assert_plays(t, file, 5, "mpegts");
	umms_test_http_stop(&server);
}

static void
test_rtsp(struct umms_test *t, gconstpointer data)
{
	/* From an RTSP server (the test's own, live): 3 s of it, remuxed. */
	fresh(t, "rtsp");
	struct umms_test_rtsp server;
	umms_test_rtsp_start(&server, 0);
	g_autofree char *uri = g_strdup_printf("rtsp://127.0.0.1:%d/live", server.port);
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", US(3));
	g_autofree char *rec = record(t, uri, "from-rtsp.mkv", g_variant_dict_end(&options));
	umms_test_recording_wait(t, rec, "completed", 30000);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	assert_plays(t, file, 2.5, "matroska");
	umms_test_rtsp_stop(&server);
}

static void
test_destinations(struct umms_test *t, gconstpointer data)
{
	fresh(t, "destinations");
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	const char *const denied[] = { "/etc/umms-test.mkv", "../escape.mkv", "a/../../b.mkv",
		"link/escape.mkv" };
	/* A link inside the recording directory to a folder outside it. */
	g_autofree char *dir = g_build_filename(umms_test_tmpdir(), "umms", "recordings", NULL);
	g_autofree char *outside = g_build_filename(umms_test_tmpdir(), "outside", NULL);
	g_autofree char *link = g_build_filename(dir, "link", NULL);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_cmpint(g_mkdir_with_parents(outside, 0700), ==, 0);
	g_assert_cmpint(symlink(outside, link), ==, 0);
	for (size_t i = 0; i < G_N_ELEMENTS(denied); i++) {
		g_autofree char *message = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
			"Record", g_variant_new("(ss@a{sv})", uri, denied[i],
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)),
			"org.umms.Error.AccessDenied");
		g_test_message("%s: %s", denied[i], message);
	}
	g_autofree char *escaped = g_build_filename(outside, "escape.mkv", NULL);
	g_assert_false(g_file_test(escaped, G_FILE_TEST_EXISTS));
	g_autofree char *m1 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new("(ss@a{sv})", uri, "x.mp4",
		g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)), "org.umms.Error.InvalidArgument");
	g_autofree char *m2 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new_parsed("(%s, 'x.mkv', {'length': <1>})", uri),
		"org.umms.Error.InvalidArgument");
	g_autofree char *m3 = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new_parsed("('nosuch://x', 'x.mkv', @a{sv} {})"),
		"org.umms.Error.NotSupported");
	g_autofree char *m4 = umms_test_call_error(t->bus, "/org/umms/recording/9", RECORDING1,
		"Cancel", NULL, "org.umms.Error.NotFound");
	/* Nothing refused became a recording. */
	g_autoptr(GVariant) list = umms_test_get(t->bus, UMMS_ROOT, RECORDER1, "Recordings");
	g_assert_cmpuint(g_variant_n_children(list), ==, 0);
}

static void
test_killed(struct umms_test *t, gconstpointer data)
{
	/*
	 * ummsd killed mid-recording, then started again: the part written plays,
	 * and the recording goes on into a second part until its end.
	 */
	umms_test_service_stop(t->service);
	t->service = NULL;
	g_autofree char *db = g_strdup_printf("recording.database=%s/killed.db",
		umms_test_tmpdir());
	const char *const args[] = { "--set", db, NULL };
	/* One source each: a unicast UDP port feeds one receiver. */
	struct live live[2];
	g_autoptr(GSubprocess) ummsd = umms_test_spawn_ummsd(args);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	const char *const kinds[] = { "killed.mkv", "killed.ts" };
	char *recs[2] = { NULL };
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		live_start(&live[i]);
		g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live[i].port);
		GVariantDict options;
		g_variant_dict_init(&options, NULL);
		g_variant_dict_insert(&options, "duration", "x", US(9));
		recs[i] = record(t, uri, kinds[i], g_variant_dict_end(&options));
	}
	umms_test_sleep(4000);
	g_subprocess_send_signal(ummsd, SIGKILL);
	g_subprocess_wait(ummsd, NULL, NULL);
	umms_test_wait_name(t->bus, UMMS_NAME, false);
	const char *const overrides[] = { db, NULL };
	t->service = umms_test_service_start(overrides);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		/* The same objects, resumed into a second part, said so. */
		g_autofree char *state = umms_test_recording_string(t, recs[i], "State");
		g_assert_cmpstr(state, ==, "recording");
		g_autofree char *note = umms_test_recording_string(t, recs[i], "Error");
		g_assert_nonnull(strstr(note, "interrupted"));
	}
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		umms_test_recording_wait(t, recs[i], "completed", 15000);
		g_autoptr(GVariant) parts = umms_test_get(t->bus, recs[i], RECORDING1, "Parts");
		g_assert_cmpuint(g_variant_n_children(parts), ==, 2);
		const char *first, *second;
		g_variant_get_child(parts, 0, "&s", &first);
		g_variant_get_child(parts, 1, "&s", &second);
		g_assert_true(g_str_has_suffix(second, i ? ".part2.ts" : ".part2.mkv"));
		/*
		 * About 4 s before the kill (the last second or so may be lost), the
		 * rest after: the window left, counted from the part's first data
		 * (an engine worker starts first: no spare is ready yet when ummsd
		 * resumes its jobs at start-up).
		 */
		assert_plays(t, first, 3.5, i ? "mpegts" : "matroska");
		assert_plays_within(t, second, 3, 5.5, i ? "mpegts" : "matroska");
	}
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		live_stop(&live[i]);
		g_free(recs[i]);
	}
}

static void
test_schedule(struct umms_test *t, gconstpointer data)
{
	fresh(t, "schedule");
	struct live live;
	live_start(&live);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	/* In 2 s, for 3 s: waits, starts and stops on time. */
	gint64 start = g_get_real_time() + US(2);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "ScheduleRecording",
		g_variant_new("(sxxs@a{sv})", uri, start, US(3), "scheduled.ts",
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	const char *path;
	g_variant_get(r, "(&o)", &path);
	g_autofree char *state = umms_test_recording_string(t, path, "State");
	g_assert_cmpstr(state, ==, "scheduled");
	umms_test_recording_wait(t, path, "recording", 5000);
	double late = (double)(g_get_real_time() - start) / 1e6;
	g_test_message("started %.2f s after its time", late);
	g_assert_cmpfloat(late, <, 1.5);
	umms_test_recording_wait(t, path, "completed", 10000);
	g_autofree char *file = umms_test_recording_string(t, path, "Destination");
	assert_plays(t, file, 3, "mpegts");

	/* Kept across a restart: the same object, still scheduled, then made. */
	gint64 later = g_get_real_time() + US(4);
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new("(sxxs@a{sv})", uri, later, US(2), "kept.mkv",
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	g_autofree char *kept = NULL;
	g_variant_get(r2, "(o)", &kept);
	fresh(t, "schedule");
	g_autofree char *again = umms_test_recording_string(t, kept, "State");
	g_assert_cmpstr(again, ==, "scheduled");
	umms_test_recording_wait(t, kept, "completed", 15000);
	g_autofree char *kept_file = umms_test_recording_string(t, kept, "Destination");
	assert_plays(t, kept_file, 2, "matroska");

	/* Missed: ummsd down for its whole window. */
	g_autoptr(GVariant) r3 = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new("(sxxs@a{sv})", uri, g_get_real_time() + US(1.5),
			US(1), "missed.ts", g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	g_autofree char *missed = NULL;
	g_variant_get(r3, "(o)", &missed);
	umms_test_service_stop(t->service);
	t->service = NULL;
	umms_test_sleep(3500);
	fresh(t, "schedule");
	umms_test_recording_wait(t, missed, "missed", 5000);
	g_autofree char *missed_file = umms_test_recording_string(t, missed, "Destination");
	g_assert_false(g_file_test(missed_file, G_FILE_TEST_EXISTS));
	live_stop(&live);
}

static void
test_conflicts(struct umms_test *t, gconstpointer data)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/conflicts.db",
		umms_test_tmpdir());
	const char *const one_tuner[] = { db, "resources.tuners=1", NULL };
	umms_test_restart(t, one_tuner);
	gint64 start = g_get_real_time() + US(3600);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "ScheduleRecording",
		g_variant_new_parsed("('dvb://News', %x, %x, 'news.ts', @a{sv} {})", start, US(1800)));
	const char *first;
	g_variant_get(r, "(&o)", &first);
	/* Overlapping by ten minutes: one tuner only. */
	g_autofree char *message = umms_test_call_error(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new_parsed("('dvb://Film', %x, %x, 'film.ts', @a{sv} {})",
		start + US(1200), US(3600)), "org.umms.Error.NoResource");
	g_test_message("%s", message);
	g_assert_nonnull(strstr(message, first));
	/* After it: fine. */
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new_parsed("('dvb://Film', %x, %x, 'film.ts', @a{sv} {})",
		start + US(1800), US(3600)));
	/* Cancelled: gone from the tuner's count. */
	g_autoptr(GVariant) c = umms_test_call_ok(t->bus, first, RECORDING1, "Cancel", NULL);
	g_autofree char *state = umms_test_recording_string(t, first, "State");
	g_assert_cmpstr(state, ==, "cancelled");
	g_autoptr(GVariant) r3 = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new_parsed("('dvb://Film', %x, %x, 'film2.ts', "
		"@a{sv} {})", start, US(600)));
}

static void
test_disk_full(struct umms_test *t, gconstpointer data)
{
	/*
	 * The disk fills up mid-recording: stopped cleanly as "failed", saying
	 * so, what was written kept and playable. A 256 KiB tmpfs as the
	 * recording directory: root only, so this runs in the test VM.
	 */
	if (getuid() != 0)
		g_error("needs root to mount a small tmpfs: runs in the KMS test VM "
			"(meson test recorder-vm)");
	g_autofree char *dir = g_build_filename(umms_test_tmpdir(), "small-disk", NULL);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_assert_cmpint(mount("tmpfs", dir, "tmpfs", 0, "size=256k"), ==, 0);
	g_autofree char *dirs = g_strdup_printf("recording.directories=%s", dir);
	g_autofree char *db = g_strdup_printf("recording.database=%s/full.db", umms_test_tmpdir());
	/* Emulated: opening media takes longer than the default allows. */
	const char *const overrides[] = { dirs, db, "engine.open-timeout=120000",
		"engine.answer-timeout=120000", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");   /* 1.4 MB */
	g_autofree char *rec = record(t, uri, "full.ts", NULL);
	umms_test_recording_wait(t, rec, "failed", 20000);
	g_autofree char *why = umms_test_recording_string(t, rec, "Error");
	g_test_message("failed: %s", why);
	g_assert_nonnull(strstr(why, "space"));
	g_autoptr(GVariant) bytes = umms_test_get(t->bus, rec, RECORDING1, "BytesWritten");
	g_assert_cmpuint(g_variant_get_uint64(bytes), >, 200 * 1024);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	/* A few seconds of the 20 s clip fit: it plays that far. */
	g_autofree char *file_uri = gst_filename_to_uri(file, NULL);
	g_autofree char *player = umms_test_create_player(t->bus, "{}");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", file_uri));
	int64_t duration = umms_test_get_int64(t->bus, player, "Duration");
	g_test_message("kept: %.2f s", (double)duration / 1e6);
	g_assert_cmpint(duration, >, US(1));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 20000);
	/* The service goes on: another recording elsewhere is fine. */
	umms_test_restart(t, NULL);
	g_assert_cmpint(umount(dir), ==, 0);
}

/* Runs ummsctl with @argv; its stdout. Fails the test on a non-zero exit. */
static char *
ctl(const char *const *argv)
{
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	g_ptr_array_add(args, (gpointer)umms_test_program("ummsctl"));
	for (const char *const *a = argv; *a; a++)
		g_ptr_array_add(args, (gpointer)*a);
	g_ptr_array_add(args, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) p = g_subprocess_newv((const char *const *)args->pdata,
		G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
	g_assert_no_error(error);
	char *out = NULL;
	g_subprocess_communicate_utf8(p, NULL, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	g_test_message("ummsctl %s:\n%s", argv[0], out);
	g_assert_cmpint(g_subprocess_get_exit_status(p), ==, 0);
	return out;
}

static void
test_ummsctl(struct umms_test *t, gconstpointer data)
{
	/* ummsctl record a live stream for 3 s, then recordings while it runs and after. */
	fresh(t, "ummsctl");
	struct live live;
	live_start(&live);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	g_autofree char *printed = ctl((const char *const[]){ "record", uri, "ctl.ts", "3", NULL });
	g_autofree char *path = g_strstrip(g_strdup(printed));
	g_assert_true(g_str_has_prefix(path, "/org/umms/recording/"));
	umms_test_sleep(1500);
	g_autofree char *running = ctl((const char *const[]){ "recordings", NULL });
	g_assert_nonnull(strstr(running, "recording"));
	g_assert_nonnull(strstr(running, "%"));
	g_assert_nonnull(strstr(running, "ctl.ts"));
	umms_test_recording_wait(t, path, "completed", 15000);
	g_autofree char *done = ctl((const char *const[]){ "recordings", NULL });
	g_assert_nonnull(strstr(done, "completed"));

	/* ummsctl schedule, then ummsd restarted: it records at its time all the same. */
	g_autofree char *sched = ctl((const char *const[]){ "schedule", uri, "later.mkv", "+3",
		"2", NULL });
	g_autofree char *later = g_strstrip(g_strdup(sched));
	g_autofree char *listed = ctl((const char *const[]){ "recordings", NULL });
	g_assert_nonnull(strstr(listed, "scheduled"));
	fresh(t, "ummsctl");
	umms_test_recording_wait(t, later, "completed", 15000);
	g_autofree char *file = umms_test_recording_string(t, later, "Destination");
	assert_plays(t, file, 2, "matroska");
	live_stop(&live);
}

/* Whether Recorder1.Recordings lists @path. */
static bool
listed(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) list = umms_test_get(t->bus, UMMS_ROOT, RECORDER1, "Recordings");
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		const char *p;
		g_variant_get_child(list, i, "&o", &p);
		if (strcmp(p, path) == 0)
			return true;
	}
	return false;
}

/* Deleted: the object answers NotFound and is not listed. */
static void
assert_deleted(struct umms_test *t, const char *path)
{
	g_free(umms_test_call_error(t->bus, path, RECORDING1, "Cancel", NULL,
		"org.umms.Error.NotFound"));
	g_assert_false(listed(t, path));
}

static void
test_delete(struct umms_test *t, gconstpointer data)
{
	fresh(t, "delete");
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	/* Completed, deleted with ummsctl by its number: the file goes with it. */
	g_autofree char *done = record(t, uri, "done.mkv", NULL);
	umms_test_recording_wait(t, done, "completed", 20000);
	g_autofree char *done_file = umms_test_recording_string(t, done, "Destination");
	g_assert_true(g_file_test(done_file, G_FILE_TEST_EXISTS));
	g_free(ctl((const char *const[]){ "delete-recording", strrchr(done, '/') + 1, NULL }));
	g_assert_false(g_file_test(done_file, G_FILE_TEST_EXISTS));
	assert_deleted(t, done);

	/* Running: it stops, and its file goes. */
	struct live live;
	live_start(&live);
	g_autofree char *live_uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	g_autofree char *running = record(t, live_uri, "running.ts", NULL);
	umms_test_sleep(1500);
	g_autofree char *state = umms_test_recording_string(t, running, "State");
	g_assert_cmpstr(state, ==, "recording");
	g_autofree char *running_file = umms_test_recording_string(t, running, "Destination");
	g_assert_true(g_file_test(running_file, G_FILE_TEST_EXISTS));
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, running, RECORDING1, "Delete", NULL);
	g_assert_false(g_file_test(running_file, G_FILE_TEST_EXISTS));
	assert_deleted(t, running);

	/* Scheduled: it never starts. */
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new("(sxxs@a{sv})", live_uri,
			g_get_real_time() + US(1), US(2), "never.mkv",
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	const char *scheduled;
	g_variant_get(r2, "(&o)", &scheduled);
	g_autofree char *never = umms_test_recording_string(t, scheduled, "Destination");
	g_autoptr(GVariant) r3 = umms_test_call_ok(t->bus, scheduled, RECORDING1, "Delete", NULL);
	assert_deleted(t, scheduled);
	umms_test_sleep(2500);
	g_assert_false(g_file_test(never, G_FILE_TEST_EXISTS));
	live_stop(&live);

	/*
	 * Its folder swapped for a link to one outside after it was recorded:
	 * AccessDenied, the file the link leads to kept, the entry too; the
	 * folder back in place, Delete goes through.
	 */
	g_autofree char *moved = record(t, uri, "moved/kept.mkv", NULL);
	umms_test_recording_wait(t, moved, "completed", 20000);
	g_autofree char *dir = g_build_filename(umms_test_tmpdir(), "umms", "recordings", "moved",
		NULL);
	g_autofree char *away = g_build_filename(umms_test_tmpdir(), "moved-away", NULL);
	g_assert_cmpint(g_rename(dir, away), ==, 0);
	g_assert_cmpint(symlink(away, dir), ==, 0);
	g_autofree char *why = umms_test_call_error(t->bus, moved, RECORDING1, "Delete", NULL,
		"org.umms.Error.AccessDenied");
	g_test_message("through a link: %s", why);
	g_autofree char *outside = g_build_filename(away, "kept.mkv", NULL);
	g_assert_true(g_file_test(outside, G_FILE_TEST_EXISTS));
	g_assert_true(listed(t, moved));
	g_assert_cmpint(g_unlink(dir), ==, 0);
	g_assert_cmpint(g_rename(away, dir), ==, 0);
	g_autoptr(GVariant) r4 = umms_test_call_ok(t->bus, moved, RECORDING1, "Delete", NULL);
	g_autofree char *inside = g_build_filename(dir, "kept.mkv", NULL);
	g_assert_false(g_file_test(inside, G_FILE_TEST_EXISTS));

	/* For good: nothing comes back when ummsd restarts. */
	fresh(t, "delete");
	g_autoptr(GVariant) list = umms_test_get(t->bus, UMMS_ROOT, RECORDER1, "Recordings");
	g_assert_cmpuint(g_variant_n_children(list), ==, 0);
	g_autofree char *none = ctl((const char *const[]){ "recordings", NULL });
	g_assert_nonnull(strstr(none, "(no recordings)"));
}

/* Moves the wall clock by @by µs (root: the test VM's own clock). */
static void
jump_clock(int64_t by)
{
	gint64 now = g_get_real_time() + by;
	struct timespec ts = { .tv_sec = now / G_USEC_PER_SEC,
		.tv_nsec = (long)(now % G_USEC_PER_SEC) * 1000 };
	g_assert_cmpint(clock_settime(CLOCK_REALTIME, &ts), ==, 0);
}

static void
test_clock_jump(struct umms_test *t, gconstpointer data)
{
	/*
	 * The wall clock jumps (NTP after boot, a person setting it): a
	 * schedule follows the clock, a running recording keeps its length.
	 * Setting the clock needs root: this runs in the test VM.
	 */
	if (getuid() != 0)
		g_error("needs root to set the clock: runs in the KMS test VM (meson test recorder-vm)");
	g_autofree char *db = g_strdup_printf("recording.database=%s/clock.db", umms_test_tmpdir());
	/*
	 * In ummsd: under the VM's emulation an engine worker takes 6 to 10 s
	 * to start (GStreamer, the sandbox's ranks), longer than the 6 s
	 * recorded here, and this is about clocks; recorder-worker covers
	 * recordings in workers.
	 */
	const char *const overrides[] = { db, "engine.open-timeout=120000",
		"engine.answer-timeout=120000", "engine.isolation=in-process", NULL };
	umms_test_restart(t, overrides);
	struct live live;
	live_start(&live);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	gint64 real0 = g_get_real_time(), mono0 = g_get_monotonic_time();
	/* In an hour, for 6 s. */
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "ScheduleRecording",
		g_variant_new("(sxxs@a{sv})", uri, real0 + US(3600), US(6), "clock.ts",
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	const char *path;
	g_variant_get(r, "(&o)", &path);
	umms_test_sleep(1500);
	g_autofree char *waiting = umms_test_recording_string(t, path, "State");
	g_assert_cmpstr(waiting, ==, "scheduled");

	/* The clock jumps to a second before: it starts about then. */
	jump_clock(real0 + US(3600) - US(1) - g_get_real_time());
	gint64 jumped = g_get_monotonic_time();
	umms_test_recording_wait(t, path, "recording", 10000);
	gint64 started = g_get_monotonic_time();
	g_test_message("started %.2f s after the clock jumped an hour ahead",
		(started - jumped) / 1e6);
	/* Then two hours back while it records: it still ends after its 6 s. */
	umms_test_sleep(1000);
	jump_clock(-US(7200));
	umms_test_recording_wait(t, path, "completed", 30000);
	double took = (g_get_monotonic_time() - started) / 1e6;
	g_test_message("recorded for %.2f s (6 asked) across a jump two hours back", took);
	g_assert_cmpfloat(took, >=, 4.5);
	/*
	 * Opened a second ahead (the jump left a second to the start), the
	 * part shows "recording" at the start and ends half a second after
	 * its window (recorder-private.h), then has up to 3 s to close its
	 * file; the emulated VM adds its slowness. Hours would be the jump.
	 */
	g_assert_cmpfloat(took, <=, 12);
	/* The clock as it would be. */
	jump_clock(real0 + (g_get_monotonic_time() - mono0) - g_get_real_time());
	/*
	 * Never longer than the 6 s asked (the container's estimate may add a
	 * little); shorter by how late it started (a tick) and by how long the
	 * source took to give its first frame: a scheduled part ends with its
	 * window, and in the emulated VM, under ASan, the pipeline's start
	 * took up to 4 s of it (1.9 s of file seen). A second at least: the
	 * jump back did not end it early. Opened ahead of its start (the
	 * jump left a second to it), it may begin at the key frame before the
	 * start (a fifth of a second) and ends half a second after.
	 */
	g_autofree char *file = umms_test_recording_string(t, path, "Destination");
	assert_plays_within(t, file, 1.0, 7.2, "mpegts");
	live_stop(&live);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/recorder/file", test_file);
	UMMS_TEST_ADD("/recorder/live", test_live);
	UMMS_TEST_ADD("/recorder/source-restart", test_source_restart);
	UMMS_TEST_ADD("/recorder/lossy", test_lossy);
	UMMS_TEST_ADD("/recorder/http", test_http);
	UMMS_TEST_ADD("/recorder/rtsp", test_rtsp);
	UMMS_TEST_ADD("/recorder/destinations", test_destinations);
	UMMS_TEST_ADD("/recorder/killed", test_killed);
	UMMS_TEST_ADD("/recorder/schedule", test_schedule);
	UMMS_TEST_ADD("/recorder/conflicts", test_conflicts);
	UMMS_TEST_ADD("/recorder/ummsctl", test_ummsctl);
	UMMS_TEST_ADD("/recorder/delete", test_delete);
	UMMS_TEST_ADD("/recorder/disk-full", test_disk_full);
	UMMS_TEST_ADD("/recorder/clock-jump", test_clock_jump);
	return g_test_run();
}
