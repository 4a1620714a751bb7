/*
 * Recording (service/recorder/) through org.umms.Recorder1 on the bus, with
 * sources the test makes itself: generated clips, and a live MPEG-TS
 * stream it sends over UDP on loopback. Every recording is checked the
 * way a user would: the file plays back in ummsd, with the right length
 * and the streams it had, no transcoding.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

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

static char *
rec_string(struct umms_test *t, const char *path, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, property);
	return g_variant_dup_string(v, NULL);
}

static void
wait_state(struct umms_test *t, const char *path, const char *state, unsigned ms)
{
	for (unsigned i = 0; i < ms / 50; i++) {
		g_autofree char *now = rec_string(t, path, "State");
		if (strcmp(now, state) == 0)
			return;
		umms_test_sleep(50);
	}
	g_autofree char *now = rec_string(t, path, "State");
	g_autofree char *error = rec_string(t, path, "Error");
	g_error("%s stayed %s (%s), never %s", path, now, error, state);
}

/* The recording opened in a player: its duration, checked to be @seconds ±1. */
static void
assert_plays(struct umms_test *t, const char *file, double seconds, const char *container)
{
	g_autofree char *uri = gst_filename_to_uri(file, NULL);
	g_autofree char *player = umms_test_create_player(t->bus, "{}");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	int64_t duration = umms_test_get_int64(t->bus, player, "Duration");
	g_autofree char *c = umms_test_get_string(t->bus, player, "Container");
	g_test_message("%s: %.2f s, %s", file, (double)duration / 1e6, c);
	g_assert_cmpstr(c, ==, container);
	g_assert_cmpint(duration, >=, US(seconds - 1));
	g_assert_cmpint(duration, <=, US(seconds + 1));
	/* It plays to its end. */
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)",
		MAX(0, duration - US(0.5))));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 10000);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER,
		"DestroyPlayer", g_variant_new("(o)", player));
}

static void
test_file(struct umms_test *t, gconstpointer data)
{
	/* A 5 s clip with H.264 and two Opus tracks, to Matroska and to MPEG-TS. */
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	g_autofree char *mkv = record(t, uri, "shows/av.mkv", NULL);
	wait_state(t, mkv, "completed", 20000);
	g_autofree char *file = rec_string(t, mkv, "Destination");
	g_autofree char *want = g_build_filename(umms_test_tmpdir(), "umms", "recordings", "shows",
		"av.mkv", NULL);
	g_assert_cmpstr(file, ==, want);
	g_autoptr(GVariant) bytes = umms_test_get(t->bus, mkv, RECORDING1, "BytesWritten");
	GStatBuf st;
	g_assert_cmpint(g_stat(file, &st), ==, 0);
	g_assert_cmpuint(g_variant_get_uint64(bytes), ==, (guint64)st.st_size);
	assert_plays(t, file, 5, "matroska");

	g_autofree char *ts = record(t, uri, "av.ts", NULL);
	wait_state(t, ts, "completed", 20000);
	g_autofree char *ts_file = rec_string(t, ts, "Destination");
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

static int
free_udp_port(void)
{
	g_autoptr(GSocket) s = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
		G_SOCKET_PROTOCOL_UDP, NULL);
	g_autoptr(GInetAddress) lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) any = g_inet_socket_address_new(lo, 0);
	g_assert_true(g_socket_bind(s, any, FALSE, NULL));
	g_autoptr(GSocketAddress) bound = g_socket_get_local_address(s, NULL);
	return g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
}

/* Live H.264 in MPEG-TS over UDP on loopback, as an IPTV multicast would come. */
static void
live_start(struct live *live)
{
	live->port = free_udp_port();
	g_autofree char *description = g_strdup_printf(
		"videotestsrc is-live=true ! video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
		"x264enc tune=zerolatency key-int-max=25 speed-preset=ultrafast ! h264parse ! "
		"mpegtsmux alignment=7 ! udpsink host=127.0.0.1 port=%d", live->port);
	g_autoptr(GError) error = NULL;
	live->pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	g_assert_cmpint(gst_element_set_state(live->pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
}

static void
live_stop(struct live *live)
{
	gst_element_set_state(live->pipeline, GST_STATE_NULL);
	gst_object_unref(live->pipeline);
}

static void
test_live(struct umms_test *t, gconstpointer data)
{
	struct live live;
	live_start(&live);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live.port);
	/* For 3 s: started and stopped on time. */
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", US(3));
	g_autofree char *rec = record(t, uri, "live.ts", g_variant_dict_end(&options));
	g_autofree char *recording = rec_string(t, rec, "State");
	g_assert_cmpstr(recording, ==, "recording");
	gint64 start = g_get_monotonic_time();
	wait_state(t, rec, "completed", 15000);
	double took = (double)(g_get_monotonic_time() - start) / 1e6;
	g_test_message("a 3 s recording took %.2f s", took);
	g_assert_cmpfloat(took, >=, 2.5);
	g_autofree char *file = rec_string(t, rec, "Destination");
	assert_plays(t, file, 3, "mpegts");

	/* Cancelled after a while: closed properly, what was recorded kept. */
	g_autofree char *rec2 = record(t, uri, "cancelled.mkv", NULL);
	umms_test_sleep(2500);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, rec2, RECORDING1, "Cancel", NULL);
	wait_state(t, rec2, "cancelled", 10000);
	g_autofree char *file2 = rec_string(t, rec2, "Destination");
	assert_plays(t, file2, 2, "matroska");
	live_stop(&live);
}

static void
test_destinations(struct umms_test *t, gconstpointer data)
{
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
	/* ummsd killed mid-recording: the file plays up to its last seconds. */
	umms_test_service_stop(t->service);
	t->service = NULL;
	/* One source each: a unicast UDP port feeds one receiver. */
	struct live live[2];
	g_autoptr(GSubprocess) ummsd = umms_test_spawn_ummsd(NULL);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	const char *const kinds[] = { "killed.mkv", "killed.ts" };
	char *recs[2] = { NULL };
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		live_start(&live[i]);
		g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", live[i].port);
		recs[i] = record(t, uri, kinds[i], NULL);
	}
	umms_test_sleep(4000);
	char *files[2] = { NULL };
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		files[i] = rec_string(t, recs[i], "Destination");
		g_autoptr(GVariant) bytes = umms_test_get(t->bus, recs[i], RECORDING1, "BytesWritten");
		g_test_message("%s: %" G_GUINT64_FORMAT " bytes before the kill", kinds[i],
			g_variant_get_uint64(bytes));
	}
	g_subprocess_send_signal(ummsd, SIGKILL);
	g_subprocess_wait(ummsd, NULL, NULL);
	umms_test_wait_name(t->bus, UMMS_NAME, false);
	for (size_t i = 0; i < G_N_ELEMENTS(live); i++)
		live_stop(&live[i]);
	t->service = umms_test_service_start(NULL);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	/* About 4 s recorded; at most the last second or so lost. */
	assert_plays(t, files[0], 3.5, "matroska");
	assert_plays(t, files[1], 3.5, "mpegts");
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_free(recs[i]);
		g_free(files[i]);
	}
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
	wait_state(t, path, "completed", 15000);
	g_autofree char *done = ctl((const char *const[]){ "recordings", NULL });
	g_assert_nonnull(strstr(done, "completed"));
	live_stop(&live);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/recorder/file", test_file);
	UMMS_TEST_ADD("/recorder/live", test_live);
	UMMS_TEST_ADD("/recorder/destinations", test_destinations);
	UMMS_TEST_ADD("/recorder/killed", test_killed);
	UMMS_TEST_ADD("/recorder/ummsctl", test_ummsctl);
	return g_test_run();
}
