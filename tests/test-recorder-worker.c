/*
 * Recordings in engine workers (issue 15): each recording's pipeline runs
 * in an umms-engine process of its own, writing to a file ummsd created.
 * A worker killed from outside (SIGKILL of Recording1.EnginePid), wedged
 * or crashed by its stream fails that recording with
 * org.umms.Error.EngineCrashed or EngineHung in its Error, the file kept
 * and playable (checked here with GStreamer's discoverer and a decode);
 * a player and another recording go on. A recording with a window
 * (ScheduleRecording, or a duration) goes on into a new part for the rest
 * of it; a stream that kills every worker fails after a few new parts.
 * The worker is sandboxed as a player's is (seccomp, no new privileges).
 * Sources: the tests' live H.264 MPEG-TS over UDP (sources.h) and
 * umms-fault:// (fault-plugin/).
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>

#include "harness.h"
#include "sources.h"

#define RECORDER1 "org.umms.Recorder1"
#define RECORDING1 "org.umms.Recording1"

static guint64
rec_bytes(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, "BytesWritten");
	return g_variant_get_uint64(v);
}

static pid_t
rec_pid(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, "EnginePid");
	return (pid_t)g_variant_get_uint32(v);
}

static guint
rec_parts(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, "Parts");
	return (guint)g_variant_n_children(v);
}

static char *
rec_part(struct umms_test *t, const char *path, guint n)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, "Parts");
	g_autoptr(GVariant) part = g_variant_get_child_value(v, n);
	return g_variant_dup_string(part, NULL);
}

static char *
record(struct umms_test *t, const char *uri, const char *destination, double seconds)
{
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	if (seconds > 0)
		g_variant_dict_insert(&options, "duration", "x", US(seconds));
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new("(ss@a{sv})", uri, destination, g_variant_dict_end(&options)));
	char *path = NULL;
	g_variant_get(r, "(o)", &path);
	return path;
}

static char *
schedule(struct umms_test *t, const char *uri, const char *destination, double seconds)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1,
		"ScheduleRecording", g_variant_new("(sxxs@a{sv})", uri, g_get_real_time(),
			US(seconds), destination, g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	char *path = NULL;
	g_variant_get(r, "(o)", &path);
	return path;
}

/* Its worker runs and has written something; its pid. */
static pid_t
wait_writing(struct umms_test *t, const char *path, guint64 bytes)
{
	for (int i = 0; i < 200 && (rec_pid(t, path) == 0 || rec_bytes(t, path) < bytes); i++)
		umms_test_sleep(50);
	pid_t pid = rec_pid(t, path);
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(pid, !=, getpid());
	g_assert_cmpuint(rec_bytes(t, path), >=, bytes);
	return pid;
}

static GstPadProbeReturn
count_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	(*(guint64 *)data)++;
	return GST_PAD_PROBE_OK;
}

/*
 * The file as a user's player would take it: the discoverer finds a video
 * stream and a duration of at least @seconds, and decoding it whole gives
 * that many frames (25 a second) and no error. Its length in seconds, by
 * the frames decoded.
 */
static double
assert_playable(const char *file, double seconds)
{
	g_autofree char *uri = gst_filename_to_uri(file, NULL);
	GstDiscovererInfo *info = umms_test_discover(file, 10);
	g_assert_cmpint(gst_discoverer_info_get_result(info), ==, GST_DISCOVERER_OK);
	GList *video = gst_discoverer_info_get_video_streams(info);
	g_assert_nonnull(video);
	GstClockTime duration = gst_discoverer_info_get_duration(info);
	g_test_message("%s: %.2f s", file, (double)duration / GST_SECOND);
	g_assert_cmpuint(duration, >=, (GstClockTime)(seconds * GST_SECOND));
	gst_discoverer_stream_info_list_free(video);
	g_object_unref(info);

	g_autofree char *description = g_strdup_printf("uridecodebin uri=%s ! video/x-raw ! "
		"fakesink name=sink", uri);
	guint64 frames = 0;
	g_autoptr(GError) why = umms_test_decode(description, count_cb, &frames);
	g_test_message("%s: %" G_GUINT64_FORMAT " frames decoded%s%s", file, frames,
		why ? ", then " : "", why ? why->message : "");
	g_assert_null(why);
	g_assert_cmpuint(frames, >=, (guint64)(seconds * 25));
	return (double)frames / 25;
}

/*
 * SIGKILL of one recording's worker (the OOM killer, say): that recording
 * fails saying EngineCrashed and the signal, its file kept and playable; a
 * player and another recording meanwhile go on.
 */
static void
test_killed(struct umms_test *t, gconstpointer data)
{
	/* A stream each: a unicast datagram reaches one socket only. */
	int port = umms_test_free_udp_port();
	GstElement *sender = umms_test_live_udp_start(port, 5, NULL);
	g_autofree char *udp = g_strdup_printf("udp://127.0.0.1:%d", port);
	int port2 = umms_test_free_udp_port();
	g_assert_cmpint(port2, !=, port);
	GstElement *sender2 = umms_test_live_udp_start(port2, 5, NULL);
	g_autofree char *udp2 = g_strdup_printf("udp://127.0.0.1:%d", port2);
	g_autofree char *player = umms_test_open(t->bus, "long.mkv");
	umms_test_player_do(t->bus, player, "Play", NULL);
	g_autofree char *victim = record(t, udp, "killed.mkv", 0);
	g_autofree char *other = record(t, udp2, "other.ts", 0);
	pid_t pid = wait_writing(t, victim, 1);
	wait_writing(t, other, 1);
	g_assert_cmpint(rec_pid(t, other), !=, pid);
	/* Sandboxed as a player's worker: seccomp filtering, no new privileges. */
	g_autofree char *seccomp = umms_test_proc_status(pid, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "2");
	g_autofree char *nnp = umms_test_proc_status(pid, "NoNewPrivs");
	g_assert_cmpstr(nnp, ==, "1");
	umms_test_sleep(2500);
	guint64 before = rec_bytes(t, victim);
	int64_t position = umms_test_get_int64(t->bus, player, "Position");
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	umms_test_recording_wait(t, victim, "failed", 5000);
	g_autofree char *why = umms_test_recording_string(t, victim, "Error");
	g_test_message("failed: %s", why);
	g_assert_nonnull(strstr(why, "org.umms.Error.EngineCrashed"));
	g_assert_nonnull(strstr(why, "SIGKILL"));
	g_assert_cmpuint(rec_pid(t, victim), ==, 0);
	/* A recording started with no window does not start again. */
	g_assert_cmpuint(rec_parts(t, victim), ==, 1);
	g_assert_cmpuint(rec_bytes(t, victim), >=, before);

	/* The others went on meanwhile. */
	umms_test_sleep(1000);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");
	g_assert_cmpint(umms_test_get_int64(t->bus, player, "Position"), >, position + US(0.5));
	g_autofree char *other_state = umms_test_recording_string(t, other, "State");
	g_assert_cmpstr(other_state, ==, "recording");
	guint64 other_bytes = rec_bytes(t, other);
	umms_test_sleep(1000);
	g_assert_cmpuint(rec_bytes(t, other), >, other_bytes);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, other, RECORDING1, "Cancel", NULL);
	umms_test_recording_wait(t, other, "cancelled", 5000);
	umms_test_live_udp_stop(sender);
	umms_test_live_udp_stop(sender2);

	g_autofree char *file = umms_test_recording_string(t, victim, "Destination");
	assert_playable(file, 2);
	g_autofree char *other_file = umms_test_recording_string(t, other, "Destination");
	assert_playable(other_file, 4);
}

/* A wedged worker: EngineHung after [engine] hang-timeout, the file kept. */
static void
test_hung(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.hang-timeout=1000", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *rec = record(t, "umms-fault://hang?after=75&live", "hung.mkv", 0);
	wait_writing(t, rec, 1);
	umms_test_recording_wait(t, rec, "failed", 10000);
	g_autofree char *why = umms_test_recording_string(t, rec, "Error");
	g_test_message("failed: %s", why);
	g_assert_nonnull(strstr(why, "org.umms.Error.EngineHung"));
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	assert_playable(file, 2);
}

/*
 * A scheduled recording whose worker is killed goes on into a second part
 * for the rest of its window, and completes, its Error empty again; both
 * parts play.
 */
static void
test_schedule_retry(struct umms_test *t, gconstpointer data)
{
	int port = umms_test_free_udp_port();
	GstElement *sender = umms_test_live_udp_start(port, 5, NULL);
	g_autofree char *udp = g_strdup_printf("udp://127.0.0.1:%d", port);
	g_autofree char *rec = schedule(t, udp, "retried.mkv", 9);
	pid_t pid = wait_writing(t, rec, 1);
	umms_test_sleep(2500);
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	for (int i = 0; i < 100 && rec_parts(t, rec) < 2; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(rec_parts(t, rec), ==, 2);
	g_autofree char *state = umms_test_recording_string(t, rec, "State");
	g_assert_cmpstr(state, ==, "recording");
	g_autofree char *why = umms_test_recording_string(t, rec, "Error");
	g_assert_nonnull(strstr(why, "org.umms.Error.EngineCrashed"));
	pid_t second = wait_writing(t, rec, rec_bytes(t, rec) + 1);
	g_assert_cmpint(second, !=, pid);
	umms_test_recording_wait(t, rec, "completed", 15000);
	/* Completed: the first part's death is no longer its Error. */
	g_autofree char *after = umms_test_recording_string(t, rec, "Error");
	g_assert_cmpstr(after, ==, "");
	umms_test_live_udp_stop(sender);
	g_autofree char *first = rec_part(t, rec, 0);
	g_autofree char *destination = umms_test_recording_string(t, rec, "Destination");
	g_assert_cmpstr(first, ==, destination);
	assert_playable(first, 2);
	g_autofree char *part2 = rec_part(t, rec, 1);
	g_assert_true(g_str_has_suffix(part2, "retried.part2.mkv"));
	assert_playable(part2, 2);
}

/*
 * A schedule's window is firm: a source whose first data comes late (here
 * 3 s into a 6 s window, as a slow worker start or a slow network would
 * have it) is recorded until the window's end, not for the window left when
 * the part started (5 s or more: the clock looks once a second) from its
 * first data.
 */
static void
test_schedule_window(struct umms_test *t, gconstpointer data)
{
	int port = umms_test_free_udp_port();
	g_autofree char *udp = g_strdup_printf("udp://127.0.0.1:%d", port);
	g_autofree char *rec = schedule(t, udp, "window.mkv", 6);
	umms_test_sleep(3000);
	GstElement *sender = umms_test_live_udp_start(port, 5, NULL);
	umms_test_recording_wait(t, rec, "completed", 12000);
	umms_test_live_udp_stop(sender);
	g_assert_cmpuint(rec_parts(t, rec), ==, 1);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	/* About 3 s (less if the worker was slow); 5 s if the window had moved. */
	double seconds = assert_playable(file, 1);
	g_assert_cmpfloat(seconds, <, 4.2);
}

/*
 * A worker that never records (a local file that is not there, a source
 * it cannot make): the recording fails and leaves no empty file behind;
 * a file with bytes in it is kept (/recorder-worker/killed).
 */
/* @rec fails within @timeout_ms, leaving no file and no part behind. */
static void
assert_failed_without_file(struct umms_test *t, const char *rec, unsigned timeout_ms)
{
	umms_test_recording_wait(t, rec, "failed", timeout_ms);
	g_autofree char *why = umms_test_recording_string(t, rec, "Error");
	g_test_message("failed: %s", why);
	g_autofree char *file = umms_test_recording_string(t, rec, "Destination");
	g_assert_false(g_file_test(file, G_FILE_TEST_EXISTS));
	g_assert_cmpuint(rec_parts(t, rec), ==, 0);
}

static void
test_failed_start(struct umms_test *t, gconstpointer data)
{
	/* Refused before a worker is asked: the source cannot be opened. */
	g_autofree char *missing = g_build_filename(umms_test_tmpdir(), "no-such.mkv", NULL);
	g_autofree char *rec = record(t, missing, "never.mkv", 0);
	assert_failed_without_file(t, rec, 5000);

	/* Asked, and the worker's pipeline fails before the first byte. */
	g_autofree char *rec2 = record(t, "umms-fault://no-such-fault", "refused.mkv", 0);
	assert_failed_without_file(t, rec2, 10000);
}

/* A stream that crashes every worker: a few new parts, then failed for good. */
static void
test_crash_every_worker(struct umms_test *t, gconstpointer data)
{
	gint64 start = g_get_monotonic_time();
	g_autofree char *rec = schedule(t, "umms-fault://crash?after=10&live", "doomed.mkv", 60);
	umms_test_recording_wait(t, rec, "failed", 40000);
	double took = (double)(g_get_monotonic_time() - start) / 1e6;
	g_autofree char *why = umms_test_recording_string(t, rec, "Error");
	g_test_message("failed after %.1f s: %s", took, why);
	g_assert_nonnull(strstr(why, "org.umms.Error.EngineCrashed"));
	g_assert_nonnull(strstr(why, "SIGSEGV"));
	g_assert_nonnull(strstr(why, "after 3 new parts"));
	/* The first part and three more, and no more after a while. */
	g_assert_cmpuint(rec_parts(t, rec), ==, 4);
	umms_test_sleep(3000);
	g_assert_cmpuint(rec_parts(t, rec), ==, 4);
	g_autofree char *state = umms_test_recording_string(t, rec, "State");
	g_assert_cmpstr(state, ==, "failed");
	/* ummsd is fine: a player still plays. */
	g_autofree char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_position(t->bus, player, US(0.5), false, 10000);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/recorder-worker/killed", test_killed);
	UMMS_TEST_ADD("/recorder-worker/hung", test_hung);
	UMMS_TEST_ADD("/recorder-worker/schedule-retry", test_schedule_retry);
	UMMS_TEST_ADD("/recorder-worker/crash-every-worker", test_crash_every_worker);
	UMMS_TEST_ADD("/recorder-worker/schedule-window", test_schedule_window);
	UMMS_TEST_ADD("/recorder-worker/failed-start", test_failed_start);
	return g_test_run();
}
