/*
 * Network sources the tests serve themselves on loopback: HTTP (progressive
 * download, buffering, a server that hangs up half-way) and a live MPEG-TS
 * stream over UDP, and one nobody sends.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

#include "harness.h"
#include "sources.h"

static void
test_http(struct umms_test *t, gconstpointer data)
{
	struct umms_test_http server;
	umms_test_http_start(&server, 0);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("http://127.0.0.1:%u/av.mkv", server.port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));

	/* Described as well as a local file (the duration read from the stream). */
	int64_t duration = umms_test_get_int64(t->bus, p, "Duration");
	g_assert_cmpint(duration, >=, US(4.95));
	g_assert_cmpint(duration, <=, US(5.05));
	g_autofree char *container = umms_test_get_string(t->bus, p, "Container");
	g_assert_cmpstr(container, ==, "matroska");
	g_assert_true(umms_test_get_bool(t->bus, p, "HasVideo"));
	g_assert_false(umms_test_get_bool(t->bus, p, "IsLive"));

	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Play", NULL);
	/* Downloaded to the end, the buffer is full. */
	umms_test_wait_property(t->bus, p, "BufferingPercent", g_variant_new_int32(100), 5000);
	g_variant_unref(umms_test_signals_wait(signals, "Eos", 10000));
	umms_test_signals_free(signals);
	umms_test_http_stop(&server);
}

static void
test_http_hangup(struct umms_test *t, gconstpointer data)
{
	/*
	 * The server dies half-way through an MPEG-TS stream (no index to read
	 * at open): an error after Play had succeeded.
	 */
	struct umms_test_http server;
	umms_test_http_start(&server, 0);
	g_autofree char *size_probe = NULL;
	gsize size = 0;
	g_assert_true(g_file_get_contents(umms_test_clip("av.ts"), &size_probe, &size, NULL));
	server.cut = (gint64)(size / 2);
	/*
	 * Half real time (3 s of media in 6 s): the server dies about 3 s in,
	 * well after the open even on a loaded machine with sanitizers, where
	 * this player's engine worker starts beside the bystander's (at real
	 * time it sometimes died before SetUri had prerolled).
	 */
	server.rate = (gint64)(size / 6);

	GDBusConnection *other = umms_test_connect();
	g_autofree char *bystander = umms_test_open(other, "long.mkv");
	umms_test_player_do(other, bystander, "Play", NULL);

	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("http://127.0.0.1:%u/av.ts", server.port);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);

	/* Either the Error signal with a name and a sentence, or an early end. */
	GVariant *error = NULL;
	gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	for (;;) {
		g_assert_cmpint(g_get_monotonic_time(), <, end);
		umms_test_sleep(50);
		g_autofree char *state = umms_test_get_string(t->bus, p, "State");
		if (strcmp(state, "stopped") == 0)
			break;
	}
	error = umms_test_signals_wait(signals, "Error", 1000);
	const char *name, *message;
	g_variant_get(error, "(&s&s)", &name, &message);
	g_test_message("cut download: %s: %s", name, message);
	g_assert_true(g_str_has_prefix(name, "org.umms.Error."));
	g_assert_cmpstr(message, !=, "");
	g_variant_unref(error);
	umms_test_signals_free(signals);

	/* The other client's player never noticed. */
	g_autofree char *state = umms_test_get_string(other, bystander, "State");
	g_assert_cmpstr(state, ==, "playing");
	g_object_unref(other);
	umms_test_http_stop(&server);
}

/* A TCP port on loopback that nobody listens on now. */
static guint16
closed_tcp_port(void)
{
	g_autoptr(GSocketListener) listener = g_socket_listener_new();
	GError *error = NULL;
	guint16 port = g_socket_listener_add_any_inet_port(listener, NULL, &error);
	g_assert_no_error(error);
	g_socket_listener_close(listener);
	return port;
}

static void
assert_says(const char *message, const char *words)
{
	if (!strstr(message, words))
		g_error("\"%s\" does not say \"%s\"", message, words);
}

static void
test_http_errors(struct umms_test *t, gconstpointer data)
{
	/* What went wrong, in words a user can act on, for each way a server fails. */
	struct umms_test_http server;
	umms_test_http_start(&server, 0);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);

	guint16 closed = closed_tcp_port();
	g_autofree char *refused_uri = g_strdup_printf("http://127.0.0.1:%u/av.mkv", closed);
	g_autofree char *refused = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", refused_uri), "org.umms.Error.NotFound");
	g_test_message("refused: %s", refused);
	assert_says(refused, "connection refused");
	g_autofree char *where = g_strdup_printf("127.0.0.1:%u", closed);
	assert_says(refused, where);

	g_autofree char *missing_uri = g_strdup_printf("http://127.0.0.1:%u/nosuch.mkv",
		server.port);
	g_autofree char *missing = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", missing_uri), "org.umms.Error.NotFound");
	g_test_message("missing: %s", missing);
	assert_says(missing, "not found");
	assert_says(missing, "HTTP 404");

	/* .invalid never resolves (RFC 2606), with or without a network. */
	g_autofree char *unknown = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", "http://umms-test.invalid/av.mkv"),
		"org.umms.Error.NotFound");
	g_test_message("unknown host: %s", unknown);
	assert_says(unknown, "host umms-test.invalid");

	/* After all that, the player plays what is there. */
	g_autofree char *uri = g_strdup_printf("http://127.0.0.1:%u/av.mkv", server.port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	g_assert_true(umms_test_get_bool(t->bus, p, "HasVideo"));
	umms_test_http_stop(&server);
}

static void
test_live_udp(struct umms_test *t, gconstpointer data)
{
	int port = 40000 + (int)(getpid() % 20000);
	GstElement *sender = umms_test_live_udp_start(port, 10, NULL);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
	/* A live source's Play may be answered before it plays (reply-timeout). */
	umms_test_wait_property(t->bus, p, "State", g_variant_new_string("playing"), 10000);
	umms_test_wait_property(t->bus, p, "HasVideo", g_variant_new_boolean(TRUE), 5000);
	g_assert_true(umms_test_get_bool(t->bus, p, "IsLive"));
	g_assert_false(umms_test_get_bool(t->bus, p, "Seekable"));
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Duration"), ==, -1);
	g_autofree char *container = umms_test_get_string(t->bus, p, "Container");
	g_assert_cmpstr(container, ==, "mpegts");

	/* Live media cannot seek or change speed: said so by name. */
	g_autofree char *m1 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "Seek",
		g_variant_new("(x)", US(5)), "org.umms.Error.NotSupported");
	g_assert_nonnull(strstr(m1, "live"));
	g_autofree char *m2 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetPosition",
		g_variant_new("(x)", 0), "org.umms.Error.NotSupported");
	GError *error = NULL;
	g_assert_false(umms_test_set(t->bus, p, "Rate", g_variant_new_double(2.0), &error));
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name, ==, "org.umms.Error.NotSupported");
	g_clear_error(&error);

	/* Frames keep coming, once the first key frame has arrived. */
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	guint64 before = 0, after = 0;
	while (before == 0) {
		g_assert_cmpint(g_get_monotonic_time(), <, end);
		umms_test_sleep(50);
		g_autoptr(GVariant) stats = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
		g_variant_lookup(stats, "frames-presented", "t", &before);
	}
	umms_test_sleep(1000);
	g_autoptr(GVariant) stats = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	g_variant_lookup(stats, "frames-presented", "t", &after);
	g_test_message("live: %" G_GUINT64_FORMAT " frames in 1 s", after - before);
	g_assert_cmpuint(after - before, >=, 18);

	umms_test_player_do(t->bus, p, "Stop", NULL);
	umms_test_live_udp_stop(sender);
}

static void
test_live_silent(struct umms_test *t, gconstpointer data)
{
	/*
	 * A live source nobody sends to holds GStreamer's change to playing
	 * for as long as nothing arrives: Play still answers (once accepted,
	 * within reply-timeout, 1 s), and State says what became of it.
	 */
	int port = umms_test_free_udp_port();
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));

	gint64 start = g_get_monotonic_time();
	umms_test_player_do(t->bus, p, "Play", NULL);
	double ms = (g_get_monotonic_time() - start) / 1000.0;
	g_test_message("Play on a silent live source answered in %.0f ms", ms);
	/* Loose: before, the answer came after answer-timeout (20 s). */
	g_assert_cmpfloat(ms, <, 5000);
	g_autofree char *state = umms_test_get_string(t->bus, p, "State");
	g_assert_cmpstr(state, !=, "playing");

	/* Once the stream comes, the player plays without being asked again. */
	GstElement *sender = umms_test_live_udp_start(port, 10, NULL);
	umms_test_wait_property(t->bus, p, "State", g_variant_new_string("playing"), 10000);
	umms_test_live_udp_stop(sender);

	/* Silent again: Pause answers too, Stop stops. */
	start = g_get_monotonic_time();
	umms_test_player_do(t->bus, p, "Stop", NULL);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	ms = (g_get_monotonic_time() - start) / 1000.0;
	g_test_message("Stop, Play, Pause on it answered in %.0f ms", ms);
	g_assert_cmpfloat(ms, <, 10000);
	umms_test_player_do(t->bus, p, "Stop", NULL);
	g_autofree char *stopped = umms_test_get_string(t->bus, p, "State");
	g_assert_cmpstr(stopped, ==, "stopped");

	/* The player is not stuck: the next media plays. */
	g_autofree char *clip = umms_test_clip_uri("av.mkv");
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", clip));
	umms_test_player_do(t->bus, p, "Play", NULL);
	g_autofree char *playing = umms_test_get_string(t->bus, p, "State");
	g_assert_cmpstr(playing, ==, "playing");
	umms_test_player_do(t->bus, p, "Stop", NULL);
}

static void
test_live_nothing_arrives(struct umms_test *t, gconstpointer data)
{
	/* Answered early, the failure that follows is the Error signal, in plain words. */
	umms_test_restart(t, (const char *const[]){ "engine.answer-timeout=3000", NULL });
	int port = umms_test_free_udp_port();
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Play", NULL);
	GVariant *error = umms_test_signals_wait(signals, "Error", 15000);
	const char *name, *message;
	g_variant_get(error, "(&s&s)", &name, &message);
	g_test_message("%s: %s", name, message);
	g_assert_cmpstr(name, ==, "org.umms.Error.Failed");
	assert_says(message, "nothing arrived within 3 s");
	assert_says(message, uri);
	g_variant_unref(error);
	umms_test_signals_free(signals);
	umms_test_wait_property(t->bus, p, "State", g_variant_new_string("stopped"), 5000);
}

static void
count_cb(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	(*(unsigned *)data)++;
}

static void
test_live_silent_crash(struct umms_test *t, gconstpointer data)
{
	/*
	 * Play answered early (reply-timeout) while the worker still works on
	 * it, then the worker dies: the player sends Error once, not once for
	 * the request and once for the loss.
	 */
	int port = umms_test_free_udp_port();
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
	g_autofree char *state = umms_test_get_string(t->bus, p, "State");
	g_assert_cmpstr(state, !=, "playing");

	unsigned errors = 0;
	guint id = g_dbus_connection_signal_subscribe(t->bus, NULL, UMMS_PLAYER, "Error", p,
		NULL, G_DBUS_SIGNAL_FLAGS_NONE, count_cb, &errors, NULL);
	pid_t pid = (pid_t)umms_test_stat(t->bus, p, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	for (int i = 0; i < 100 && errors == 0; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(errors, ==, 1);
	/* A second would follow at once: give it time to. */
	umms_test_sleep(1000);
	g_assert_cmpuint(errors, ==, 1);
	g_dbus_connection_signal_unsubscribe(t->bus, id);
	umms_test_wait_property(t->bus, p, "State", g_variant_new_string("stopped"), 2000);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/network/http", test_http);
	UMMS_TEST_ADD("/network/http-hangup", test_http_hangup);
	UMMS_TEST_ADD("/network/http-errors", test_http_errors);
	UMMS_TEST_ADD("/network/live-udp", test_live_udp);
	UMMS_TEST_ADD("/network/live-silent", test_live_silent);
	UMMS_TEST_ADD("/network/live-silent-crash", test_live_silent_crash);
	UMMS_TEST_ADD("/network/live-nothing-arrives", test_live_nothing_arrives);
	return g_test_run();
}
