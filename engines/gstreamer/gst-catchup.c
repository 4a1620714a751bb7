/*
 * Catching up: a video decoder hopelessly behind the clock skips to the
 * next key frame instead of decoding frames nobody will see.
 *
 * A late frame is dropped by the decoder's QoS (GstVideoDecoder) or by the
 * sink (max-lateness), but only after it was decoded: where every frame
 * is a reference (H.264 without B-frames, most live streams), libav's
 * skip-frame (non-reference frames) finds nothing to skip, so a player
 * that cannot decode in real time (more players than the CPUs can decode)
 * goes on decoding every frame, each later than the last, and shows none
 * (bench/scale: 16 players of 720p30 on 2 cores showed 180 of 4,800
 * frames). So a probe on each video decoder's input: once a frame arrives
 * more than [engine] catch-up ms after it was due on screen, it and the
 * frames after it are dropped before decoding until the next key frame,
 * which (its successors depending on nothing before it) is decoded again.
 * The CPU that player saves goes to the others, and it shows the start of
 * each group of pictures it can decode in time. Skipped frames count as
 * dropped in Stats. A stream whose key frames are not marked (or far
 * apart) is skipped at most MAX_SKIP of its time, then decoded again.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <gst/base/gstbasesink.h>

#include "gst-private.h"
#include "log.h"

#define MAX_SKIP (5 * GST_SECOND)

struct catchup {
	struct gst_engine *engine;
	bool skipping;        /* streaming thread: dropping until a key frame */
	GstClockTime since;   /* the timestamp skipping started at, or NONE */
};

static GstClockTime
timestamp(GstBuffer *buffer)
{
	return GST_BUFFER_PTS_IS_VALID(buffer) ? GST_BUFFER_PTS(buffer) : GST_BUFFER_DTS(buffer);
}

/* How late (ns) @buffer is for the screen now; 0 when not playing or unknown. */
static GstClockTimeDiff
lateness(struct gst_engine *engine, GstPad *pad, GstBuffer *buffer)
{
	GstElement *sink = engine->video_sink;
	GST_OBJECT_LOCK(sink);
	bool playing = GST_STATE(sink) == GST_STATE_PLAYING;
	GST_OBJECT_UNLOCK(sink);
	GstClockTime ts = timestamp(buffer);
	if (!playing || !GST_CLOCK_TIME_IS_VALID(ts))
		return 0;
	GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
	if (!event)
		return 0;
	const GstSegment *segment;
	gst_event_parse_segment(event, &segment);
	GstClockTime running = segment->format == GST_FORMAT_TIME ?
		gst_segment_to_running_time(segment, GST_FORMAT_TIME, ts) : GST_CLOCK_TIME_NONE;
	gst_event_unref(event);
	GstClock *clock = gst_element_get_clock(sink);
	if (!clock || !GST_CLOCK_TIME_IS_VALID(running)) {
		if (clock)
			gst_object_unref(clock);
		return 0;
	}
	GstClockTime now = gst_clock_get_time(clock);
	gst_object_unref(clock);
	GstClockTime due = gst_element_get_base_time(sink) + running +
		gst_base_sink_get_latency(GST_BASE_SINK(sink));
	return GST_CLOCK_DIFF(due, now);
}

/* Streaming thread: a buffer on its way into a video decoder. */
static GstPadProbeReturn
catchup_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct catchup *catchup = data;
	struct gst_engine *engine = catchup->engine;
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	if (!GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT)) {
		if (catchup->skipping)
			umms_debug("caught up at a key frame");
		catchup->skipping = false;
		return GST_PAD_PROBE_OK;
	}
	if (!catchup->skipping) {
		GstClockTimeDiff late = lateness(engine, pad, buffer);
		if (late <= (GstClockTimeDiff)engine->config->engine.catch_up * GST_MSECOND)
			return GST_PAD_PROBE_OK;
		umms_debug("video %" G_GINT64_FORMAT " ms late: skipping to the next key frame",
			late / GST_MSECOND);
		catchup->skipping = true;
		catchup->since = timestamp(buffer);
	} else if (GST_CLOCK_TIME_IS_VALID(catchup->since) &&
			GST_CLOCK_TIME_IS_VALID(timestamp(buffer)) &&
			timestamp(buffer) > catchup->since + MAX_SKIP) {
		umms_debug("no key frame in %" G_GUINT64_FORMAT " s: decoding again",
			MAX_SKIP / GST_SECOND);
		catchup->skipping = false;
		return GST_PAD_PROBE_OK;
	}
	g_mutex_lock(&engine->lock);
	engine->skipped++;
	g_mutex_unlock(&engine->lock);
	return GST_PAD_PROBE_DROP;
}

void
gst_catchup_watch_decoder(struct gst_engine *engine, GstElement *decoder)
{
	if (engine->config->engine.catch_up == 0)
		return;
	GstPad *pad = gst_element_get_static_pad(decoder, "sink");
	if (!pad)
		return;
	struct catchup *catchup = g_new0(struct catchup, 1);
	catchup->engine = engine;
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, catchup_probe, catchup, g_free);
	gst_object_unref(pad);
}
