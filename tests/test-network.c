/*
 * Network sources the tests serve themselves on loopback: HTTP (progressive
 * download, buffering, a server that hangs up half-way) and a live MPEG-TS
 * stream over UDP.
 */
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

#include "harness.h"

/*
 * A tiny HTTP server on threads of its own (the test thread blocks in D-Bus
 * calls while ummsd downloads): GET /NAME serves clip NAME, with byte ranges.
 */
struct http_server {
	GSocketService *service;
	guint16 port;
	gint64 cut;        /* > 0: never send a byte past this offset (a server that dies) */
	gint64 rate;       /* > 0: bytes per second, like a real network */
	GMainContext *context;
	GMainLoop *loop;
	GThread *thread;
	GMutex lock;
	GCond cond;
};

static gboolean
http_run(GThreadedSocketService *service, GSocketConnection *connection,
	GObject *source, gpointer data)
{
	struct http_server *server = data;
	GInputStream *in = g_io_stream_get_input_stream(G_IO_STREAM(connection));
	GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(connection));
	g_autoptr(GDataInputStream) lines = g_data_input_stream_new(in);
	g_autofree char *request = g_data_input_stream_read_line(lines, NULL, NULL, NULL);
	guint64 start = 0;
	for (;;) {
		g_autofree char *header = g_data_input_stream_read_line(lines, NULL, NULL, NULL);
		if (!header || header[0] == '\r' || header[0] == '\0')
			break;
		guint64 from;
		if (g_ascii_strncasecmp(header, "Range: bytes=", 13) == 0 &&
				sscanf(header + 13, "%" G_GUINT64_FORMAT, &from) == 1)
			start = from;
	}
	char name[256] = "";
	if (!request || sscanf(request, "GET /%255s", name) != 1)
		return TRUE;
	g_autofree char *bytes = NULL;
	gsize size = 0;
	if (!g_file_get_contents(umms_test_clip(name), &bytes, &size, NULL) || start > size)
		return TRUE;
	/* Like any web server: byte ranges, so demuxers can read an index at the end. */
	g_autofree char *head = start > 0 ?
		g_strdup_printf("HTTP/1.1 206 Partial Content\r\nAccept-Ranges: bytes\r\n"
			"Content-Range: bytes %" G_GUINT64_FORMAT "-%" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT "\r\n"
			"Content-Length: %" G_GUINT64_FORMAT "\r\nConnection: close\r\n\r\n",
			start, size - 1, size, size - start) :
		g_strdup_printf("HTTP/1.1 200 OK\r\nAccept-Ranges: bytes\r\n"
			"Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n", size);
	/* A server that dies part-way never sends a byte past @cut. */
	gsize end = server->cut > 0 ? MIN(size, (gsize)server->cut) : size;
	if (!g_output_stream_write_all(out, head, strlen(head), NULL, NULL, NULL))
		return TRUE;
	for (gsize at = start; at < end;) {
		gsize chunk = MIN(end - at, (gsize)8192);
		if (!g_output_stream_write_all(out, bytes + at, chunk, NULL, NULL, NULL))
			break;
		at += chunk;
		if (server->rate > 0)
			g_usleep((gulong)(chunk * G_USEC_PER_SEC / (guint64)server->rate));
	}
	g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
	return TRUE;
}

static gpointer
http_thread(gpointer data)
{
	struct http_server *server = data;
	g_main_context_push_thread_default(server->context);
	/* Connections are accepted on this thread's context, served on the pool's. */
	server->service = g_threaded_socket_service_new(4);
	GError *error = NULL;
	server->port = g_socket_listener_add_any_inet_port(G_SOCKET_LISTENER(server->service),
		NULL, &error);
	g_assert_no_error(error);
	g_signal_connect(server->service, "run", G_CALLBACK(http_run), server);
	g_socket_service_start(server->service);
	g_mutex_lock(&server->lock);
	g_cond_signal(&server->cond);
	g_mutex_unlock(&server->lock);
	g_main_loop_run(server->loop);
	g_socket_service_stop(server->service);
	g_socket_listener_close(G_SOCKET_LISTENER(server->service));
	g_object_unref(server->service);
	g_main_context_pop_thread_default(server->context);
	return NULL;
}

static void
http_start(struct http_server *server, gint64 cut)
{
	memset(server, 0, sizeof(*server));
	server->cut = cut;
	server->context = g_main_context_new();
	server->loop = g_main_loop_new(server->context, FALSE);
	g_mutex_init(&server->lock);
	g_cond_init(&server->cond);
	g_mutex_lock(&server->lock);
	server->thread = g_thread_new("http", http_thread, server);
	while (!server->port)
		g_cond_wait(&server->cond, &server->lock);
	g_mutex_unlock(&server->lock);
}

static gboolean
http_quit(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void
http_stop(struct http_server *server)
{
	g_main_context_invoke(server->context, http_quit, server->loop);
	g_thread_join(server->thread);
	g_main_loop_unref(server->loop);
	g_main_context_unref(server->context);
	g_mutex_clear(&server->lock);
	g_cond_clear(&server->cond);
}

static void
test_http(struct umms_test *t, gconstpointer data)
{
	struct http_server server;
	http_start(&server, 0);
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
	http_stop(&server);
}

static void
test_http_hangup(struct umms_test *t, gconstpointer data)
{
	/*
	 * The server dies half-way through an MPEG-TS stream (no index to read
	 * at open): an error after Play had succeeded.
	 */
	struct http_server server;
	http_start(&server, 0);
	g_autofree char *size_probe = NULL;
	gsize size = 0;
	g_assert_true(g_file_get_contents(umms_test_clip("av.ts"), &size_probe, &size, NULL));
	server.cut = (gint64)(size / 2);
	/*
	 * Real time (3 s of media): the server dies about 1.5 s in, well after
	 * the open even on a loaded machine with sanitizers (at twice real
	 * time it sometimes died before SetUri had prerolled).
	 */
	server.rate = (gint64)(size / 3);

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
	http_stop(&server);
}

/* A live MPEG-TS stream on loopback UDP, sent by the test itself. */
static GstElement *
start_udp_sender(int port)
{
	g_autofree char *description = g_strdup_printf(
		"videotestsrc is-live=true ! video/x-raw,width=160,height=120,framerate=25/1,"
		"format=I420 ! x264enc speed-preset=ultrafast tune=zerolatency key-int-max=10 ! "
		"mpegtsmux ! udpsink host=127.0.0.1 port=%d sync=true", port);
	GError *error = NULL;
	GstElement *sender = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	g_assert_cmpint(gst_element_set_state(sender, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	return sender;
}

static void
test_live_udp(struct umms_test *t, gconstpointer data)
{
	int port = 40000 + (int)(getpid() % 20000);
	GstElement *sender = start_udp_sender(port);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
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
	gst_element_set_state(sender, GST_STATE_NULL);
	gst_object_unref(sender);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/network/http", test_http);
	UMMS_TEST_ADD("/network/http-hangup", test_http_hangup);
	UMMS_TEST_ADD("/network/live-udp", test_live_udp);
	return g_test_run();
}
