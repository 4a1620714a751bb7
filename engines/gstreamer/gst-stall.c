/*
 * Playback that stands still. On some damaged files GStreamer neither ends
 * nor fails: tsdemux 1.22 on a mutated MPEG-TS stops handing on data, and
 * playbin stays PLAYING for ever, its position running on with the clock.
 * So what counts is data: a probe on the audio and video sinks counts the
 * buffers that reach them. While a media that is not live plays (not
 * buffering, no request running, no end seen), the count is read every
 * POLL_MS; once no buffer has arrived for [engine] answer-timeout, or
 * the position has run that far past a known duration (timestamps of a
 * damaged file spreading a second of frames over a minute), playback
 * fails with Failed (the Error signal) and the pipeline is reset, as for
 * a failure GStreamer reports itself.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "error.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"

#define POLL_MS 500

/* Streaming threads: a buffer (or a list) reached a sink. */
static GstPadProbeReturn
arrived(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	g_atomic_int_inc(&engine->stall_buffers);
	return GST_PAD_PROBE_OK;
}

void
gst_stall_init(struct gst_engine *engine, GstElement *audio_sink)
{
	GstElement *sinks[] = { engine->video_sink, audio_sink };
	for (size_t i = 0; i < G_N_ELEMENTS(sinks); i++) {
		GstPad *pad = gst_element_get_static_pad(sinks[i], "sink");
		if (!pad)
			continue;
		gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
			arrived, engine, NULL);
		gst_object_unref(pad);
	}
}

static bool
moving_expected(struct gst_engine *engine)
{
	return engine->base.state == UMMS_ENGINE_PLAYING && !engine->base.info.live &&
		!engine->buffering && !engine->current && !engine->stall_ended;
}

static gboolean
poll_cb(gpointer data)
{
	struct gst_engine *engine = data;
	gint64 now = g_get_monotonic_time();
	int buffers = g_atomic_int_get(&engine->stall_buffers);
	if (!moving_expected(engine) || buffers != engine->stall_seen) {
		engine->stall_seen = buffers;
		engine->stall_since = now;
		if (!moving_expected(engine))
			return G_SOURCE_CONTINUE;
	}
	unsigned limit_ms = engine->config->engine.answer_timeout;
	int64_t duration = engine->base.info.duration;
	int64_t position = gst_engine_query_position(engine);
	if (duration > 0 && engine->rate > 0 && position > duration + (int64_t)limit_ms * 1000) {
		umms_source_forget(&engine->stall_source);
		gst_engine_fail_playback(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"%s: still playing at %.2f s of %.2f s, and no end: the stream is damaged",
			engine->uri, position / 1e6, duration / 1e6));
		return G_SOURCE_REMOVE;
	}
	if (now - engine->stall_since < (gint64)limit_ms * 1000)
		return G_SOURCE_CONTINUE;
	umms_source_forget(&engine->stall_source);
	gst_engine_fail_playback(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
		"%s: nothing more to play came for %u s (at %.2f s), and no end: the stream is "
		"damaged", engine->uri, limit_ms / 1000, position < 0 ? 0.0 : position / 1e6));
	return G_SOURCE_REMOVE;
}

void
gst_stall_watch(struct gst_engine *engine)
{
	if (engine->base.state != UMMS_ENGINE_PLAYING || engine->base.info.live) {
		umms_source_clear(&engine->stall_source);
		engine->stall_ended = false;
		return;
	}
	engine->stall_seen = g_atomic_int_get(&engine->stall_buffers);
	engine->stall_since = g_get_monotonic_time();
	if (!engine->stall_source)
		engine->stall_source = umms_source_timeout(POLL_MS, poll_cb, engine);
}
