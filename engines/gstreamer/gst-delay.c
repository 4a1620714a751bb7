/*
 * SubtitleDelay on the stream's own subtitles (text, SSA/ASS, DVB), which
 * playbin's subtitleoverlay renders.
 *
 * The delay is a change of the subtitle stream's segment at the overlay's
 * input: running times come out engine->subtitle_delay later (the segment's
 * start moved back where it can be, so a cue due at the start of a seek's
 * segment is not clipped away; its base, where not; moved on for D < 0, so
 * a cue over before it is clipped away). playbin's text-offset only
 * reaches a subtitle parser, which a media's own track lacks.
 *
 * After a seek to T the demuxer sends the subtitle stream from about T on
 * (from its key frame before it): with a delay D > 0 the cues of T - D to
 * T, due on screen from T on, never come; with D < 0 those of T to T - D
 * are due at once. So a seek with a delay reads them beside the pipeline:
 * a window (a thread with a small pipeline of its own: the URI's source →
 * parsebin, no decoder, the selected track's pad → fakesink) seeks to
 * T - max(D, 0) - WINDOW_BEFORE_US and gathers that track's buffers up to
 * T + max(-D, 0). The first thing on the overlay's subtitle input after the
 * seek's segment waits for the window (WINDOW_WAIT_US at most) and the
 * window's buffers go in first; the demuxer's own buffers from its part
 * are dropped (sent already). A text track's cues also go into its cue
 * list (gst-cues.c), so SubtitleCue tells them too. Windows are read for
 * local files only: over a network the reading is not bounded well enough.
 *
 * Playing on with D < 0, each cue is due -D before the demuxer gets to it,
 * and the demuxer runs only as far ahead of the picture as playbin's queues
 * let it (measured at 18 Mbit/s: 4 s was enough, 5 s lost the cue). So
 * that window follows: it reads on, FOLLOW_AHEAD_NS past what is due, and
 * at each buffer or gap of the overlay's subtitle stream (at stream time
 * S) the window's cues that start before S - D + FOLLOW_EARLY_NS go in; the
 * stream's own buffers that the window has passed are dropped. Its
 * pipeline waits in the track's probe (parsebin has no queue), so the file
 * is read about once more, at the pace of playback.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <math.h>
#include <string.h>

#include "cues.h"
#include "gst-private.h"
#include "log.h"

/* A cue that began this long before the window's part is still found. */
#define WINDOW_BEFORE_US ((int64_t)10 * G_USEC_PER_SEC)
/* The window's pipeline gives up after this long. */
#define WINDOW_LIMIT_US ((int64_t)3 * G_USEC_PER_SEC)
/* The overlay's subtitle input waits this long for a window at most. */
#define WINDOW_WAIT_US ((int64_t)1 * G_USEC_PER_SEC)
/* Buffers kept from one window at most (a cue is one). */
#define WINDOW_MAX_BUFFERS 4096
/* Following (D < 0), the window reads this far past what the overlay needs now. */
#define FOLLOW_AHEAD_NS (5 * GST_SECOND)
/* ... and its cues go in this long before they are due, at the latest. */
#define FOLLOW_EARLY_NS (1 * GST_SECOND)

struct window_buffer {
	GstBuffer *buffer;
	GstClockTime start, end;  /* stream time; end NONE: unknown */
};

struct gst_window {
	gint refs;
	guint32 seqnum;           /* of the seek it serves */
	char *uri;
	char *stream_id;          /* the track's */
	GstCaps *caps;            /* the track's, as the pipeline has them */
	GstClockTime from, to;    /* stream time */
	struct umms_cues *cues;   /* a text track's cue list, or NULL */
	bool follow;              /* D < 0: reads on past @to, ahead of the overlay */
	GstClockTime lead;        /* -D, following */
	GThread *thread;

	GMutex lock;
	GCond cond;
	GArray *buffers;          /* struct window_buffer, by start (lock) */
	bool cancelled;           /* (lock) */
	bool done;                /* (lock) */
	bool complete;            /* read up to the end of the window (lock) */
	bool found;               /* parsebin found the track (lock) */
	GstClockTime progress;    /* stream time the reading reached, NONE none (lock) */
	GstClockTime consumed;    /* the overlay's input's, following; NONE none (lock) */
	guint read;               /* buffers read, for the log (lock) */
};

static void
window_buffer_clear(gpointer data)
{
	struct window_buffer *item = data;
	gst_buffer_unref(item->buffer);
}

static struct gst_window *
window_ref(struct gst_window *window)
{
	g_atomic_int_inc(&window->refs);
	return window;
}

static void
window_unref(struct gst_window *window)
{
	if (!window || !g_atomic_int_dec_and_test(&window->refs))
		return;
	g_free(window->uri);
	g_free(window->stream_id);
	gst_caps_unref(window->caps);
	umms_cues_unref(window->cues);
	g_array_unref(window->buffers);
	g_mutex_clear(&window->lock);
	g_cond_clear(&window->cond);
	g_free(window);
}

static bool
window_cancelled(struct gst_window *window)
{
	g_mutex_lock(&window->lock);
	bool cancelled = window->cancelled;
	g_mutex_unlock(&window->lock);
	return cancelled;
}

/* A text track's cue into its cue list (SubtitleCue tells it). */
static void
add_cue(struct gst_window *window, GstBuffer *buffer, GstClockTime start, GstClockTime end)
{
	GstMapInfo map;
	if (!window->cues || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return;
	/* Hostile sizes: a cue is a few lines. */
	g_autofree char *markup = g_strndup((const char *)map.data, MIN(map.size, 64 * 1024));
	gst_buffer_unmap(buffer, &map);
	umms_cues_add(window->cues, (int64_t)(start / 1000),
		GST_CLOCK_TIME_IS_VALID(end) ? (int64_t)(end / 1000) : -1, markup);
}

/*
 * Streaming thread of the window: a buffer or event of the track's pad.
 * Following, it waits while it is far enough ahead (the whole pipeline
 * with it: parsebin has no queue).
 */
static GstPadProbeReturn
window_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_window *window = data;
	GstEventType type = info->type & GST_PAD_PROBE_TYPE_BUFFER ? GST_EVENT_UNKNOWN :
		GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
	if (type == GST_EVENT_FLUSH_STOP) {
		/* What came before the seek is not the window's. */
		g_mutex_lock(&window->lock);
		g_array_set_size(window->buffers, 0);
		window->progress = GST_CLOCK_TIME_NONE;
		window->read = 0;
		g_mutex_unlock(&window->lock);
		return GST_PAD_PROBE_OK;
	}
	if (type != GST_EVENT_UNKNOWN && type != GST_EVENT_GAP)
		return GST_PAD_PROBE_OK;
	GstBuffer *buffer = type == GST_EVENT_UNKNOWN ? GST_PAD_PROBE_INFO_BUFFER(info) : NULL;
	GstClockTime ts = GST_CLOCK_TIME_NONE;
	if (buffer)
		ts = GST_BUFFER_PTS(buffer);
	else
		gst_event_parse_gap(GST_PAD_PROBE_INFO_EVENT(info), &ts, NULL);
	GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
	if (!event)
		return GST_PAD_PROBE_OK;
	const GstSegment *segment;
	gst_event_parse_segment(event, &segment);
	struct window_buffer item = { NULL, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE };
	if (segment->format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID(ts))
		item.start = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, ts);
	gst_event_unref(event);
	if (!GST_CLOCK_TIME_IS_VALID(item.start) || (!window->follow && item.start >= window->to))
		return GST_PAD_PROBE_OK;
	/* Not converted itself: a cue may end past the window's stop. */
	if (buffer && GST_BUFFER_DURATION_IS_VALID(buffer) && GST_BUFFER_DURATION(buffer) > 0)
		item.end = item.start + GST_BUFFER_DURATION(buffer);
	if (buffer)
		add_cue(window, buffer, item.start, item.end);
	g_mutex_lock(&window->lock);
	/* Following, the overlay takes them: it waits rather than lose one. */
	while (window->follow && !window->cancelled && window->buffers->len >= WINDOW_MAX_BUFFERS)
		g_cond_wait(&window->cond, &window->lock);
	if (buffer && window->buffers->len < WINDOW_MAX_BUFFERS) {
		window->read++;
		item.buffer = gst_buffer_ref(buffer);
		g_array_append_val(window->buffers, item);
	}
	if (!GST_CLOCK_TIME_IS_VALID(window->progress) || item.start > window->progress)
		window->progress = item.start;
	g_cond_broadcast(&window->cond);
	while (window->follow && !window->cancelled && item.start > FOLLOW_AHEAD_NS +
			(GST_CLOCK_TIME_IS_VALID(window->consumed) ?
			window->consumed + window->lead : window->to))
		g_cond_wait(&window->cond, &window->lock);
	g_mutex_unlock(&window->lock);
	return GST_PAD_PROBE_OK;
}

/* Streaming thread of the window: parsebin stops at the track's own format. */
static gboolean
window_continue_cb(GstElement *bin, GstPad *pad, GstCaps *caps, gpointer data)
{
	struct gst_window *window = data;
	return !gst_caps_can_intersect(caps, window->caps);
}

static GstElement *
add_sink(GstElement *pipeline, GstPad *pad)
{
	GstElement *sink = gst_element_factory_make("fakesink", NULL);
	if (!sink)
		return NULL;
	/* Not prerolled: with no queue in parsebin, one sink waiting would stop them all. */
	g_object_set(sink, "sync", FALSE, "async", FALSE, NULL);
	gst_bin_add(GST_BIN(pipeline), sink);
	GstPad *input = gst_element_get_static_pad(sink, "sink");
	bool linked = gst_pad_link(pad, input) == GST_PAD_LINK_OK;
	gst_object_unref(input);
	gst_element_sync_state_with_parent(sink);
	return linked ? sink : NULL;
}

/*
 * Streaming thread of the window: each stream to a sink of its own; the
 * track's is probed.
 */
static void
window_pad_added_cb(GstElement *bin, GstPad *pad, gpointer data)
{
	struct gst_window *window = data;
	GstElement *pipeline = GST_ELEMENT(gst_element_get_parent(bin));
	if (!pipeline)
		return;
	g_autofree char *id = gst_pad_get_stream_id(pad);
	bool mine = id && strcmp(id, window->stream_id) == 0;
	GstElement *sink = add_sink(pipeline, pad);
	if (sink && mine) {
		GstPad *input = gst_element_get_static_pad(sink, "sink");
		gst_pad_add_probe(input, GST_PAD_PROBE_TYPE_BUFFER |
			GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
			window_probe, window, NULL);
		gst_object_unref(input);
		g_mutex_lock(&window->lock);
		window->found = true;
		g_cond_broadcast(&window->cond);
		g_mutex_unlock(&window->lock);
	}
	gst_object_unref(pipeline);
}

/* Until @bus has EOS or an error, the window is cancelled, or @until (monotonic µs). */
static bool
window_wait_eos(struct gst_window *window, GstBus *bus, gint64 until)
{
	while (!window_cancelled(window)) {
		gint64 now = g_get_monotonic_time();
		if (now >= until)
			return false;
		GstMessage *message = gst_bus_timed_pop_filtered(bus,
			MIN(until - now, 20000) * GST_USECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
		if (message) {
			bool eos = GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS;
			if (!eos) {
				GError *error = NULL;
				gst_message_parse_error(message, &error, NULL);
				umms_debug("subtitle window: %s", error->message);
				g_error_free(error);
			}
			gst_message_unref(message);
			return eos;
		}
	}
	return false;
}

static bool
window_read(struct gst_window *window, GstElement *pipeline)
{
	gint64 until = g_get_monotonic_time() + WINDOW_LIMIT_US;
	GstElement *source = gst_element_make_from_uri(GST_URI_SRC, window->uri, NULL, NULL);
	GstElement *parse = gst_element_factory_make("parsebin", NULL);
	if (!source || !parse) {
		if (source)
			gst_object_unref(source);
		if (parse)
			gst_object_unref(parse);
		return false;
	}
	gst_bin_add_many(GST_BIN(pipeline), source, parse, NULL);
	if (!gst_element_link(source, parse))
		return false;
	g_signal_connect(parse, "autoplug-continue", G_CALLBACK(window_continue_cb), window);
	g_signal_connect(parse, "pad-added", G_CALLBACK(window_pad_added_cb), window);
	if (gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE)
		return false;
	/* The track found (parsebin shows every stream at once): the demuxer takes a seek. */
	g_mutex_lock(&window->lock);
	while (!window->found && !window->cancelled &&
			g_cond_wait_until(&window->cond, &window->lock, until))
		;
	bool ready = window->found && !window->cancelled;
	g_mutex_unlock(&window->lock);
	if (!ready) {
		umms_debug("subtitle window: its streams not found in time");
		return false;
	}
	/* The demuxer may not take it yet, right as its streams show: again, a little later. */
	while (!gst_element_seek(pipeline, 1.0, GST_FORMAT_TIME,
			GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
			GST_SEEK_TYPE_SET, window->from, GST_SEEK_TYPE_SET,
			window->follow ? GST_CLOCK_TIME_NONE : window->to)) {
		if (window_cancelled(window) || g_get_monotonic_time() >= until) {
			umms_debug("subtitle window: the media did not seek");
			return false;
		}
		g_usleep(5000);
	}
	if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
		return false;
	GstBus *bus = gst_element_get_bus(pipeline);
	/* Following, it reads on until cancelled. */
	bool eos = window_wait_eos(window, bus, window->follow ? G_MAXINT64 : until);
	gst_object_unref(bus);
	return eos;
}

static int
by_start(gconstpointer a, gconstpointer b)
{
	const struct window_buffer *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static gpointer
window_run(gpointer data)
{
	struct gst_window *window = data;
	GstElement *pipeline = gst_pipeline_new(NULL);
	bool complete = window_read(window, pipeline);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	g_mutex_lock(&window->lock);
	g_array_sort(window->buffers, by_start);
	window->complete = complete;
	window->done = true;
	guint read = window->read;
	g_cond_broadcast(&window->cond);
	g_mutex_unlock(&window->lock);
	umms_debug("subtitle window %.3f–%.3f s: %u buffers read%s",
		window->from / 1e9, window->to / 1e9, read, complete ? "" : ", not to its end");
	window_unref(window);
	return NULL;
}

static void
window_cancel(struct gst_window *window)
{
	g_mutex_lock(&window->lock);
	window->cancelled = true;
	g_cond_broadcast(&window->cond);
	g_mutex_unlock(&window->lock);
}

/* The old windows whose threads are over, joined; all of them with @all. */
static void
reap_windows(struct gst_engine *engine, bool all)
{
	for (guint i = engine->old_windows ? engine->old_windows->len : 0; i-- > 0;) {
		struct gst_window *window = g_ptr_array_index(engine->old_windows, i);
		g_mutex_lock(&window->lock);
		bool done = window->done;
		g_mutex_unlock(&window->lock);
		if (!done && !all)
			continue;
		g_thread_join(window->thread);
		g_ptr_array_remove_index_fast(engine->old_windows, i);
	}
}

static bool
has_windowed_caps(const GstCaps *caps)
{
	static const char *const names[] = { "text/x-raw", "application/x-ass",
		"application/x-ssa", "subpicture/x-dvb" };
	const GstStructure *structure = caps && gst_caps_get_size(caps) ?
		gst_caps_get_structure(caps, 0) : NULL;
	for (size_t i = 0; structure && i < G_N_ELEMENTS(names); i++) {
		if (gst_structure_has_name(structure, names[i]))
			return true;
	}
	return false;
}

/* The selected track of the media's own, read by the overlay: its pad (a reference), or NULL. */
static GstPad *
overlay_track_pad(struct gst_engine *engine)
{
	int current = engine->base.info.current[UMMS_TRACK_SUBTITLE], n = 0;
	g_object_get(engine->pipeline, "n-text", &n, NULL);
	if (current < 0 || current >= n || gst_teletext_selected(engine))
		return NULL;
	GstPad *pad = NULL;
	g_signal_emit_by_name(engine->pipeline, "get-text-pad", current, &pad);
	return pad;
}

void
gst_delay_cancel(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	struct gst_window *old = engine->window;
	engine->window = NULL;
	g_mutex_unlock(&engine->lock);
	if (old) {
		window_cancel(old);
		g_ptr_array_add(engine->old_windows, old);
	}
	reap_windows(engine, false);
}

void
gst_delay_seek(struct gst_engine *engine, guint32 seqnum, double rate, int64_t position)
{
	gst_delay_cancel(engine);
	g_mutex_lock(&engine->lock);
	int64_t delay = engine->subtitle_delay;
	bool shown = engine->stream_subtitles_shown;
	g_mutex_unlock(&engine->lock);
	g_autofree char *scheme = engine->uri ? gst_uri_get_protocol(engine->uri) : NULL;
	/* Nothing before the start to read (D > 0, sought to it). */
	if (delay == 0 || !shown || rate <= 0 || position < 0 || (delay > 0 && position == 0) ||
			!scheme || strcmp(scheme, "file") != 0)
		return;
	GstPad *pad = overlay_track_pad(engine);
	if (!pad)
		return;
	char *stream_id = gst_pad_get_stream_id(pad);
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (!stream_id || !has_windowed_caps(caps)) {
		g_free(stream_id);
		if (caps)
			gst_caps_unref(caps);
		gst_object_unref(pad);
		return;
	}
	struct gst_window *window = g_new0(struct gst_window, 1);
	window->refs = 2; /* the engine's, the thread's */
	window->seqnum = seqnum;
	window->uri = g_strdup(engine->uri);
	window->stream_id = stream_id;
	window->caps = caps;
	window->from = (GstClockTime)MAX(position - MAX(delay, 0) - WINDOW_BEFORE_US, 0) * 1000;
	window->to = (GstClockTime)(position + MAX(-delay, 0)) * 1000;
	if (gst_structure_has_name(gst_caps_get_structure(caps, 0), "text/x-raw"))
		window->cues = gst_cues_of_pad(pad);
	window->follow = delay < 0;
	window->lead = (GstClockTime)MAX(-delay, 0) * 1000;
	window->progress = window->consumed = GST_CLOCK_TIME_NONE;
	gst_object_unref(pad);
	window->buffers = g_array_new(FALSE, TRUE, sizeof(struct window_buffer));
	g_array_set_clear_func(window->buffers, window_buffer_clear);
	g_mutex_init(&window->lock);
	g_cond_init(&window->cond);
	window->thread = g_thread_new("umms-subwindow", window_run, window);
	g_mutex_lock(&engine->lock);
	engine->window = window;
	g_mutex_unlock(&engine->lock);
}

void
gst_delay_finish(struct gst_engine *engine)
{
	gst_delay_cancel(engine);
	if (engine->old_windows) {
		reap_windows(engine, true);
		g_ptr_array_unref(engine->old_windows);
		engine->old_windows = NULL;
	}
}

void
gst_delay_init(struct gst_engine *engine)
{
	engine->old_windows = g_ptr_array_new_with_free_func((GDestroyNotify)window_unref);
}

/* ---- the overlay's subtitle input ------------------------------------------ */

struct input {
	struct gst_engine *engine;
	GstSegment segment;        /* the last, as sent on */
	GstSegment original;       /* ... as it came (the stream's times are the same) */
	bool have_segment;
	struct gst_window *window; /* to send before the next buffer, NULL none */
	struct gst_window *follow; /* sent from as the stream goes on (D < 0), NULL none */
	bool injecting;
	GstClockTime sent_to;      /* stream time up to which the window was sent, NONE none */
};

static void
input_free(gpointer data)
{
	struct input *input = data;
	window_unref(input->window);
	window_unref(input->follow);
	g_free(input);
}

/* @segment made to run @delay_ns (of the media's time) later. */
static void
delay_segment(GstSegment *segment, gint64 delay_ns)
{
	if (delay_ns == 0 || segment->format != GST_FORMAT_TIME)
		return;
	double rate = fabs(segment->rate) > 0 ? fabs(segment->rate) : 1.0;
	if (delay_ns > 0 && segment->rate > 0) {
		/* Back where it can be: what is due from the start is not clipped away. */
		guint64 back = MIN((guint64)delay_ns, MIN(segment->start, segment->time));
		segment->start -= back;
		segment->time -= back;
		segment->position = segment->start;
		delay_ns -= (gint64)back;
	} else if (delay_ns < 0 && segment->rate > 0) {
		/*
		 * On: what was due before the start is clipped away (the
		 * segment's offset, which gst_segment_offset_running_time would
		 * set, is not, and renderers showed such a cue at once).
		 */
		guint64 on = (guint64)-delay_ns;
		if (GST_CLOCK_TIME_IS_VALID(segment->stop))
			on = MIN(on, segment->stop - MIN(segment->stop, segment->start));
		segment->start += on;
		segment->time += on;
		segment->position = segment->start;
		delay_ns += (gint64)on;
	}
	gst_segment_offset_running_time(segment, GST_FORMAT_TIME, (gint64)(delay_ns / rate));
}

/* The window's buffers that start before @limit (NONE: all), taken out of it. Its lock held. */
static GArray *
take_items(struct gst_window *window, GstClockTime limit)
{
	GArray *out = g_array_new(FALSE, TRUE, sizeof(struct window_buffer));
	g_array_set_clear_func(out, window_buffer_clear);
	guint n = 0;
	for (; n < window->buffers->len; n++) {
		struct window_buffer item = g_array_index(window->buffers, struct window_buffer, n);
		if (GST_CLOCK_TIME_IS_VALID(limit) && item.start >= limit)
			break;
		gst_buffer_ref(item.buffer);
		g_array_append_val(out, item);
	}
	if (n > 0)
		g_array_remove_range(window->buffers, 0, n);
	return out;
}

/* Streaming thread: @items (struct window_buffer) into @pad, in the segment now in force. */
static void
send_items(struct input *input, GstPad *pad, GArray *items)
{
	const GstSegment *segment = &input->segment;
	for (guint i = 0; i < items->len; i++) {
		struct window_buffer *item = &g_array_index(items, struct window_buffer, i);
		/* Into the segment's timeline; begun before it: from its start. */
		guint64 start = gst_segment_position_from_stream_time(segment, GST_FORMAT_TIME,
			item->start);
		guint64 end = GST_CLOCK_TIME_IS_VALID(item->end) ?
			gst_segment_position_from_stream_time(segment, GST_FORMAT_TIME, item->end) :
			GST_CLOCK_TIME_NONE;
		if (GST_CLOCK_TIME_IS_VALID(item->end) && (!GST_CLOCK_TIME_IS_VALID(end) ||
				end <= segment->start))
			continue;
		if (!GST_CLOCK_TIME_IS_VALID(start) || start < segment->start)
			start = segment->start;
		GstBuffer *buffer = gst_buffer_copy(item->buffer);
		GST_BUFFER_PTS(buffer) = start;
		GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
		GST_BUFFER_DURATION(buffer) = GST_CLOCK_TIME_IS_VALID(end) ? end - start :
			GST_CLOCK_TIME_NONE;
		input->injecting = true;
		GstFlowReturn ret = gst_pad_chain(pad, buffer);
		input->injecting = false;
		if (ret != GST_FLOW_OK)
			break;
	}
}

/*
 * Streaming thread: the window's buffers into @pad before the first thing
 * after its seek's segment (at stream time @now, NONE unknown); following,
 * the window is kept for those to come.
 */
static void
inject(struct input *input, GstPad *pad, struct gst_window *window, GstClockTime now)
{
	gint64 until = g_get_monotonic_time() + WINDOW_WAIT_US;
	g_mutex_lock(&window->lock);
	/* Cancelled: a seek after it waits for this thread (its flush-stop). */
	while (!window->done && !window->cancelled && !(window->follow &&
			GST_CLOCK_TIME_IS_VALID(window->progress) &&
			window->progress >= window->to) &&
			g_cond_wait_until(&window->cond, &window->lock, until))
		;
	/* Not done: it stops, and what it has read (from its start on) is sent. */
	if (!window->follow || !window->found)
		window->cancelled = true;
	if (!window->done)
		g_array_sort(window->buffers, by_start);
	GstClockTime limit = GST_CLOCK_TIME_NONE;
	if (window->follow) {
		limit = window->to;
		if (GST_CLOCK_TIME_IS_VALID(now))
			limit = MAX(limit, now + window->lead + FOLLOW_EARLY_NS);
		window->consumed = GST_CLOCK_TIME_IS_VALID(now) ? now : window->to - window->lead;
	}
	GArray *items = take_items(window, limit);
	GstClockTime progress = window->progress;
	bool complete = window->done && window->complete;
	bool follow = window->follow && !window->cancelled;
	g_cond_broadcast(&window->cond);
	g_mutex_unlock(&window->lock);

	if (follow)
		input->sent_to = GST_CLOCK_TIME_IS_VALID(progress) ? progress + 1 :
			GST_CLOCK_TIME_NONE;
	else if (complete)
		input->sent_to = window->to;
	else
		input->sent_to = items->len ? g_array_index(items, struct window_buffer,
			items->len - 1).start + 1 : GST_CLOCK_TIME_NONE;
	send_items(input, pad, items);
	umms_debug("subtitles: %u buffers of the window sent before the stream's own%s",
		items->len, follow ? ", more to follow" : "");
	g_array_unref(items);
	if (follow)
		input->follow = window_ref(window);
}

/* Streaming thread: following, the window's buffers due by @now + its lead into @pad. */
static void
follow(struct input *input, GstPad *pad, GstClockTime now)
{
	struct gst_window *window = input->follow;
	g_mutex_lock(&window->lock);
	if (window->cancelled) {
		/* Its track was left, or it failed: the stream's own again. */
		g_mutex_unlock(&window->lock);
		g_clear_pointer(&input->follow, window_unref);
		input->sent_to = GST_CLOCK_TIME_NONE;
		return;
	}
	GArray *items = take_items(window, now + window->lead + FOLLOW_EARLY_NS);
	window->consumed = now;
	if (GST_CLOCK_TIME_IS_VALID(window->progress))
		input->sent_to = window->progress + 1;
	g_cond_broadcast(&window->cond);
	g_mutex_unlock(&window->lock);
	send_items(input, pad, items);
	g_array_unref(items);
}

/* Stream time of @info's buffer or gap in the segment now in force, or NONE. */
static GstClockTime
item_time(struct input *input, GstPadProbeInfo *info)
{
	GstClockTime ts = GST_CLOCK_TIME_NONE;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
		ts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
	else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_GAP)
		gst_event_parse_gap(GST_PAD_PROBE_INFO_EVENT(info), &ts, NULL);
	if (!GST_CLOCK_TIME_IS_VALID(ts) || !input->have_segment)
		return GST_CLOCK_TIME_NONE;
	/* By the segment as it came: moved on (D < 0), it leaves out what comes now. */
	return gst_segment_to_stream_time(&input->original, GST_FORMAT_TIME, ts);
}

/*
 * Whether @info's buffer or gap (at @time) lies where the window was sent
 * (the demuxer's copy). Following, gaps go on: the overlay's subtitle
 * stream is not held back.
 */
static bool
sent_already(struct input *input, GstPadProbeInfo *info, GstClockTime time)
{
	if (!GST_CLOCK_TIME_IS_VALID(input->sent_to) ||
			(input->follow && !(info->type & GST_PAD_PROBE_TYPE_BUFFER)))
		return false;
	return !GST_CLOCK_TIME_IS_VALID(time) || time < input->sent_to;
}

/* Streaming thread: on subtitleoverlay's subtitle input. */
static GstPadProbeReturn
input_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct input *input = data;
	if (input->injecting)
		return GST_PAD_PROBE_OK;
	GstEventType type = info->type & GST_PAD_PROBE_TYPE_BUFFER ? GST_EVENT_UNKNOWN :
		GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
	struct gst_engine *engine = input->engine;
	switch (type) {
	case GST_EVENT_FLUSH_STOP:
		g_clear_pointer(&input->window, window_unref);
		g_clear_pointer(&input->follow, window_unref);
		input->sent_to = GST_CLOCK_TIME_NONE;
		input->have_segment = false;
		return GST_PAD_PROBE_OK;
	case GST_EVENT_SEGMENT: {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		const GstSegment *segment;
		gst_event_parse_segment(event, &segment);
		g_mutex_lock(&engine->lock);
		gint64 delay = engine->subtitle_delay * 1000;
		struct gst_window *window = engine->window &&
			engine->window->seqnum == gst_event_get_seqnum(event) ?
			window_ref(engine->window) : NULL;
		g_mutex_unlock(&engine->lock);
		gst_segment_copy_into(segment, &input->segment);
		gst_segment_copy_into(segment, &input->original);
		input->have_segment = true;
		g_clear_pointer(&input->window, window_unref);
		g_clear_pointer(&input->follow, window_unref);
		input->window = window;
		input->sent_to = GST_CLOCK_TIME_NONE;
		if (delay == 0)
			return GST_PAD_PROBE_OK;
		delay_segment(&input->segment, delay);
		GstEvent *delayed = gst_event_new_segment(&input->segment);
		gst_event_set_seqnum(delayed, gst_event_get_seqnum(event));
		gst_event_unref(event);
		GST_PAD_PROBE_INFO_DATA(info) = delayed;
		return GST_PAD_PROBE_OK;
	}
	case GST_EVENT_UNKNOWN:
	case GST_EVENT_GAP:
	case GST_EVENT_EOS:
		break;
	default:
		return GST_PAD_PROBE_OK;
	}
	if (type == GST_EVENT_EOS && !input->window)
		return GST_PAD_PROBE_OK;
	GstClockTime time = type == GST_EVENT_EOS ? GST_CLOCK_TIME_NONE : item_time(input, info);
	if (input->window && input->have_segment) {
		struct gst_window *window = input->window;
		input->window = NULL;
		inject(input, pad, window, time);
		window_unref(window);
	} else if (input->follow && GST_CLOCK_TIME_IS_VALID(time)) {
		follow(input, pad, time);
	}
	return type != GST_EVENT_EOS && sent_already(input, info, time) ?
		GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

void
gst_delay_watch_overlay(struct gst_engine *engine, GstElement *overlay)
{
	GstPad *pad = gst_element_get_static_pad(overlay, "subtitle_sink");
	if (!pad)
		return;
	struct input *input = g_new0(struct input, 1);
	input->engine = engine;
	input->sent_to = GST_CLOCK_TIME_NONE;
	gst_segment_init(&input->segment, GST_FORMAT_TIME);
	gst_segment_init(&input->original, GST_FORMAT_TIME);
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, input_probe, input, input_free);
	gst_object_unref(pad);
}
