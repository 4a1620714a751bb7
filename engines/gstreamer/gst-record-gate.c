/*
 * The start gate of a scheduled recording (gst-record-gate.h): a probe on
 * each queue's input stamps when a buffer came and notes the video key
 * frames; a probe on its output holds the queue's thread until the start,
 * then lets through what came from the cut on.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "gst-record-gate.h"
#include "log.h"

/* Held past the start's distance: a key frame's worth (a GOP of 5 s at most). */
#define GATE_MARGIN_S 5
/* And no more than this of a stream in memory, whatever the lead. */
#define GATE_MAX_BYTES (64u << 20)
#define GATE_MAX_S 600
/* A thread waiting at the gate looks whether its pad flushes this often. */
#define GATE_POLL_US (100 * 1000)

struct umms_gst_record_gate {
	int64_t start_us;          /* monotonic: the wall clock's start, taken when made */
	GMutex lock;
	GCond opened;
	bool open;
	int64_t cut_us;            /* arrival of the last video key frame ≤ start; 0: none */
};

struct stream {
	struct umms_gst_record_gate *gate;
	bool video;
	gint started;              /* atomic: its first buffer went into the file */
};

static GstStaticCaps arrival_caps = GST_STATIC_CAPS("timestamp/x-umms-arrival");

static void
gate_free(struct umms_gst_record_gate *gate)
{
	g_mutex_clear(&gate->lock);
	g_cond_clear(&gate->opened);
}

struct umms_gst_record_gate *
umms_gst_record_gate_new(int64_t start_us)
{
	struct umms_gst_record_gate *gate = g_atomic_rc_box_new0(struct umms_gst_record_gate);
	/*
	 * On the monotonic clock from here on: a wall clock set back or forth
	 * while the source is open (NTP, a user) neither holds the file back
	 * for hours nor lets it begin at once.
	 */
	gate->start_us = g_get_monotonic_time() + (start_us - g_get_real_time());
	g_mutex_init(&gate->lock);
	g_cond_init(&gate->opened);
	return gate;
}

void
umms_gst_record_gate_unref(struct umms_gst_record_gate *gate)
{
	if (gate)
		g_atomic_rc_box_release_full(gate, (GDestroyNotify)gate_free);
}

static void
stream_free(struct stream *s)
{
	umms_gst_record_gate_unref(s->gate);
}

static void
stream_unref(gpointer data)
{
	g_atomic_rc_box_release_full(data, (GDestroyNotify)stream_free);
}

static void
open_locked(struct umms_gst_record_gate *gate)
{
	if (gate->open)
		return;
	gate->open = true;
	g_cond_broadcast(&gate->opened);
}

void
umms_gst_record_gate_open(struct umms_gst_record_gate *gate)
{
	g_mutex_lock(&gate->lock);
	open_locked(gate);
	g_mutex_unlock(&gate->lock);
}

/* Upstream's thread: a buffer reaches the queue. */
static GstPadProbeReturn
arrive_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct stream *s = data;
	struct umms_gst_record_gate *gate = s->gate;
	if (g_atomic_int_get(&s->started))
		return GST_PAD_PROBE_OK;
	int64_t now = g_get_monotonic_time();
	GstBuffer *buffer = gst_pad_probe_info_get_buffer(info);
	g_mutex_lock(&gate->lock);
	if (!gate->open) {
		if (s->video && now <= gate->start_us &&
				!GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DELTA_UNIT))
			gate->cut_us = now;
		if (now >= gate->start_us) {
			umms_debug("recording: the start came; the last key frame before it came %.3f s "
				"before", gate->cut_us ? (double)(now - gate->cut_us) / 1e6 : -1.0);
			open_locked(gate);
		}
	}
	g_mutex_unlock(&gate->lock);
	buffer = gst_buffer_make_writable(buffer);
	gst_buffer_add_reference_timestamp_meta(buffer, gst_static_caps_get(&arrival_caps),
		(GstClockTime)now * 1000, GST_CLOCK_TIME_NONE);
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	return GST_PAD_PROBE_OK;
}

/* The queue's thread: a buffer would leave it for the muxer. */
static GstPadProbeReturn
leave_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct stream *s = data;
	struct umms_gst_record_gate *gate = s->gate;
	if (g_atomic_int_get(&s->started))
		return GST_PAD_PROBE_OK;
	g_mutex_lock(&gate->lock);
	/* Held here, not in a blocking probe: the cut is decided once it opens. */
	while (!gate->open && !GST_PAD_IS_FLUSHING(pad))
		g_cond_wait_until(&gate->opened, &gate->lock, g_get_monotonic_time() + GATE_POLL_US);
	int64_t cut = gate->cut_us ? gate->cut_us : gate->start_us;
	bool flushing = !gate->open;
	g_mutex_unlock(&gate->lock);
	if (flushing)
		return GST_PAD_PROBE_DROP;
	GstBuffer *buffer = gst_pad_probe_info_get_buffer(info);
	GstReferenceTimestampMeta *meta = gst_buffer_get_reference_timestamp_meta(buffer,
		gst_static_caps_get(&arrival_caps));
	/* Not stamped (it came as the gate opened): after the cut. */
	int64_t arrival = meta ? (int64_t)(meta->timestamp / 1000) : G_MAXINT64;
	if (arrival < cut || (s->video && GST_BUFFER_FLAG_IS_SET(buffer,
			GST_BUFFER_FLAG_DELTA_UNIT)))
		return GST_PAD_PROBE_DROP;
	g_atomic_int_set(&s->started, 1);
	umms_debug("recording: a %s stream starts %.3f s from the start", s->video ? "video" :
		"other", arrival == G_MAXINT64 ? 0.0 : (double)(arrival - gate->start_us) / 1e6);
	return GST_PAD_PROBE_OK;
}

void
umms_gst_record_gate_add(struct umms_gst_record_gate *gate, GstElement *queue, bool video)
{
	int64_t ahead_s = (gate->start_us - g_get_monotonic_time()) / G_USEC_PER_SEC;
	guint64 hold_s = (guint64)CLAMP(ahead_s, 0, GATE_MAX_S) + GATE_MARGIN_S;
	/* Past that, its oldest data goes: a live source is never held up. */
	g_object_set(queue, "max-size-buffers", 0u, "max-size-bytes", GATE_MAX_BYTES,
		"max-size-time", (guint64)(hold_s * GST_SECOND), NULL);
	gst_util_set_object_arg(G_OBJECT(queue), "leaky", "downstream");
	struct stream *s = g_atomic_rc_box_new0(struct stream);
	s->gate = g_atomic_rc_box_acquire(gate);
	s->video = video;
	GstPad *sink = gst_element_get_static_pad(queue, "sink");
	GstPad *src = gst_element_get_static_pad(queue, "src");
	gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, arrive_cb,
		g_atomic_rc_box_acquire(s), stream_unref);
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, leave_cb, s, stream_unref);
	gst_object_unref(sink);
	gst_object_unref(src);
}
