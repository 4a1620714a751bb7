/*
 * Sources the tests serve themselves on loopback, for ummsd to play or
 * record: an HTTP server of the generated clips, a live H.264 MPEG-TS
 * stream over UDP and a live RTSP server.
 */
#ifndef UMMS_TESTS_SOURCES_H
#define UMMS_TESTS_SOURCES_H

#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

/*
 * A tiny HTTP server on threads of its own (the test thread blocks in D-Bus
 * calls while ummsd downloads): GET /NAME serves clip NAME, with byte ranges.
 */
struct umms_test_http {
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

/*
 * A TCP port free on 127.0.0.1 now (the kernel's pick, released at once),
 * for a server of ummsd's to listen on (the web bridge).
 */
unsigned umms_test_free_tcp_port(void);

/* Serves from now on, on server->port; @cut as in the struct. */
void umms_test_http_start(struct umms_test_http *server, gint64 cut);
void umms_test_http_stop(struct umms_test_http *server);

/*
 * Live 160x120 H.264 at 25 frames/s in MPEG-TS to 127.0.0.1:@port, a key
 * frame every @key_int frames; @paint (or NULL) sees each raw frame first
 * and may change it. Playing when it returns.
 */
GstElement *umms_test_live_udp_start(int port, unsigned key_int, GstPadProbeCallback paint);
/*
 * For a @paint probe: paints the frame with its own time t in @unit steps,
 * as two grey levels, the left half 16 + 14 (t mod 16) and the right half
 * 16 + 14 (t / 16 mod 16), so a test reads the time a frame shows.
 */
GstPadProbeReturn umms_test_live_paint_time(GstPadProbeInfo *info, GstClockTime unit);
void umms_test_live_udp_stop(GstElement *pipeline);

/*
 * A live RTSP server on its own thread: rtsp://127.0.0.1:PORT/live is H.264
 * (RTP) like the UDP stream's, made for whoever connects.
 */
struct umms_test_rtsp {
	GstRTSPServer *server;
	int port;
	GMainContext *context;
	GMainLoop *loop;
	GThread *thread;
};

/* @seconds > 0: the stream ends after that long (from its first viewer on). */
void umms_test_rtsp_start(struct umms_test_rtsp *rtsp, unsigned seconds);
/* Another stream: @launch, gst-rtsp-server's "( … ! rtp…pay name=pay0 … )". */
void umms_test_rtsp_start_launch(struct umms_test_rtsp *rtsp, const char *launch);
void umms_test_rtsp_stop(struct umms_test_rtsp *rtsp);

#endif
