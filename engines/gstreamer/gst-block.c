/*
 * Parental control's block (engine.h set_blocked): while blocked, a probe
 * on the sink pad of the video appsink and of the audio sink drops every
 * buffer before the sink sees it. Events pass (caps, segments, EOS), and
 * each dropped buffer becomes a GAP event of its time and duration, so the
 * sinks still preroll and wait for the clock: the pipeline reaches PAUSED
 * and PLAYING, the position moves and EIT sections are read as ever, but no
 * decoded frame and no audio sample leaves the engine. Frames already on
 * their way to the main loop are dropped (gst-video.c), and cues are not
 * emitted (gst-cues.c).
 *
 * A second probe on the audio sink's pad, added after this one, counts the
 * buffers and bytes that got through (Stats audio-buffers, audio-bytes):
 * what a user reads to see that nothing reached the sink.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "gst-private.h"
#include "log.h"

/* Streaming thread: the time a buffer (or a list) covers, for its GAP. */
static bool
covered(GstPadProbeInfo *info, GstClockTime *pts, GstClockTime *duration)
{
	*pts = GST_CLOCK_TIME_NONE;
	*duration = GST_CLOCK_TIME_NONE;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
		GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
		*pts = GST_BUFFER_PTS(buffer);
		*duration = GST_BUFFER_DURATION(buffer);
	} else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
		GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
		guint n = gst_buffer_list_length(list);
		GstClockTime total = 0;
		for (guint i = 0; i < n; i++) {
			GstBuffer *buffer = gst_buffer_list_get(list, i);
			if (i == 0)
				*pts = GST_BUFFER_PTS(buffer);
			if (!GST_BUFFER_DURATION_IS_VALID(buffer)) {
				total = GST_CLOCK_TIME_NONE;
				break;
			}
			total += GST_BUFFER_DURATION(buffer);
		}
		*duration = total;
	}
	return GST_CLOCK_TIME_IS_VALID(*pts);
}

/* Streaming thread: a buffer on its way into a sink. */
static GstPadProbeReturn
block_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	if (!g_atomic_int_get(&engine->blocked))
		return GST_PAD_PROBE_OK;
	GstClockTime pts, duration;
	bool timed = covered(info, &pts, &duration);
	/* The media moves (gst-stall.c counts what reaches the sinks). */
	g_atomic_int_inc(&engine->stall_buffers);
	if (timed) {
		/*
		 * The sink prerolls and keeps time on the GAP instead. The
		 * pad's stream lock is recursive: this thread holds it.
		 */
		gst_pad_send_event(pad, gst_event_new_gap(pts, duration));
	}
	return GST_PAD_PROBE_DROP;
}

/* Streaming thread: what reached the audio sink. */
static GstPadProbeReturn
audio_count_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	guint64 buffers = 0, bytes = 0;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
		buffers = 1;
		bytes = gst_buffer_get_size(GST_PAD_PROBE_INFO_BUFFER(info));
	} else if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
		GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
		buffers = gst_buffer_list_length(list);
		bytes = gst_buffer_list_calculate_size(list);
	}
	g_mutex_lock(&engine->lock);
	engine->audio_buffers += buffers;
	engine->audio_bytes += bytes;
	g_mutex_unlock(&engine->lock);
	return GST_PAD_PROBE_OK;
}

void
gst_block_init(struct gst_engine *engine, GstElement *audio_sink)
{
	GstElement *sinks[] = { engine->video_sink, audio_sink };
	for (size_t i = 0; i < G_N_ELEMENTS(sinks); i++) {
		GstPad *pad = gst_element_get_static_pad(sinks[i], "sink");
		if (!pad)
			continue;
		gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
			block_probe, engine, NULL);
		if (sinks[i] == audio_sink)
			gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER |
				GST_PAD_PROBE_TYPE_BUFFER_LIST, audio_count_probe, engine, NULL);
		gst_object_unref(pad);
	}
}

void
gst_block_set(struct gst_engine *engine, bool blocked)
{
	if ((bool)g_atomic_int_get(&engine->blocked) == blocked)
		return;
	g_atomic_int_set(&engine->blocked, blocked);
	umms_debug("engine: %s", blocked ? "blocked: no frame, no sample leaves" :
		"unblocked: data flows from the next buffer");
	if (blocked) {
		/* What waits for the main loop, and what a redraw would show again, goes. */
		gst_video_drop_pending(engine);
		gst_video_forget_shown(engine);
	}
}

bool
gst_block_active(struct gst_engine *engine)
{
	return g_atomic_int_get(&engine->blocked);
}
