/*
 * Sources the tests serve themselves on loopback (sources.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>

#include "harness.h"
#include "sources.h"

static gboolean
http_run(GThreadedSocketService *service, GSocketConnection *connection,
	GObject *source, gpointer data)
{
	struct umms_test_http *server = data;
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
	/* Beside av.mkv, which is always there: a name that is no clip is not fatal. */
	g_autofree char *clips = g_path_get_dirname(umms_test_clip("av.mkv"));
	g_autofree char *path = g_build_filename(clips, name, NULL);
	if (!g_file_get_contents(path, &bytes, &size, NULL) || start > size) {
		static const char missing[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
			"Connection: close\r\n\r\n";
		g_output_stream_write_all(out, missing, strlen(missing), NULL, NULL, NULL);
		return TRUE;
	}
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
	struct umms_test_http *server = data;
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

void
umms_test_http_start(struct umms_test_http *server, gint64 cut)
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

void
umms_test_http_stop(struct umms_test_http *server)
{
	g_main_context_invoke(server->context, http_quit, server->loop);
	g_thread_join(server->thread);
	g_main_loop_unref(server->loop);
	g_main_context_unref(server->context);
	g_mutex_clear(&server->lock);
	g_cond_clear(&server->cond);
}

GstPadProbeReturn
umms_test_live_paint_time(GstPadProbeInfo *info, GstClockTime unit)
{
	GstBuffer *buffer = gst_buffer_make_writable(gst_pad_probe_info_get_buffer(info));
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	unsigned t = (unsigned)(GST_BUFFER_PTS(buffer) / unit);
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

GstElement *
umms_test_live_udp_start(int port, unsigned key_int, GstPadProbeCallback paint)
{
	g_autofree char *description = g_strdup_printf(
		"videotestsrc name=src is-live=true ! "
		"video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
		"x264enc tune=zerolatency key-int-max=%u speed-preset=ultrafast ! h264parse ! "
		"mpegtsmux alignment=7 ! udpsink host=127.0.0.1 port=%d", key_int, port);
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	if (paint) {
		GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
		GstPad *pad = gst_element_get_static_pad(src, "src");
		gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, paint, NULL, NULL);
		gst_object_unref(pad);
		gst_object_unref(src);
	}
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	return pipeline;
}

void
umms_test_live_udp_stop(GstElement *pipeline)
{
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

static gpointer
rtsp_thread(gpointer data)
{
	struct umms_test_rtsp *rtsp = data;
	g_main_context_push_thread_default(rtsp->context);
	g_main_loop_run(rtsp->loop);
	g_main_context_pop_thread_default(rtsp->context);
	return NULL;
}

void
umms_test_rtsp_start(struct umms_test_rtsp *rtsp, unsigned seconds)
{
	g_autofree char *launch = g_strdup_printf("( videotestsrc is-live=true num-buffers=%d ! "
		"video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
		"x264enc tune=zerolatency key-int-max=10 speed-preset=ultrafast ! "
		"rtph264pay name=pay0 pt=96 config-interval=-1 )",
		seconds ? (int)seconds * 25 : -1);
	umms_test_rtsp_start_launch(rtsp, launch);
}

void
umms_test_rtsp_start_launch(struct umms_test_rtsp *rtsp, const char *launch)
{
	memset(rtsp, 0, sizeof(*rtsp));
	rtsp->context = g_main_context_new();
	rtsp->loop = g_main_loop_new(rtsp->context, FALSE);
	rtsp->server = gst_rtsp_server_new();
	gst_rtsp_server_set_address(rtsp->server, "127.0.0.1");
	gst_rtsp_server_set_service(rtsp->server, "0");
	GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new();
	gst_rtsp_media_factory_set_launch(factory, launch);
	gst_rtsp_media_factory_set_shared(factory, TRUE);
	GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points(rtsp->server);
	gst_rtsp_mount_points_add_factory(mounts, "/live", factory);
	g_object_unref(mounts);
	g_assert_cmpuint(gst_rtsp_server_attach(rtsp->server, rtsp->context), !=, 0);
	rtsp->port = gst_rtsp_server_get_bound_port(rtsp->server);
	g_assert_cmpint(rtsp->port, >, 0);
	rtsp->thread = g_thread_new("rtsp", rtsp_thread, rtsp);
}

static gboolean
rtsp_quit(gpointer data)
{
	struct umms_test_rtsp *rtsp = data;
	/* Its sessions go with the server's sources on this context. */
	GstRTSPSessionPool *pool = gst_rtsp_server_get_session_pool(rtsp->server);
	gst_rtsp_session_pool_cleanup(pool);
	g_object_unref(pool);
	g_main_loop_quit(rtsp->loop);
	return G_SOURCE_REMOVE;
}

void
umms_test_rtsp_stop(struct umms_test_rtsp *rtsp)
{
	g_main_context_invoke(rtsp->context, rtsp_quit, rtsp);
	g_thread_join(rtsp->thread);
	g_object_unref(rtsp->server);
	g_main_loop_unref(rtsp->loop);
	g_main_context_unref(rtsp->context);
}

unsigned
umms_test_free_tcp_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	g_assert_cmpint(fd, >=, 0);
	struct sockaddr_in addr = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	g_assert_cmpint(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	socklen_t len = sizeof(addr);
	g_assert_cmpint(getsockname(fd, (struct sockaddr *)&addr, &len), ==, 0);
	close(fd);
	return ntohs(addr.sin_port);
}
