/*
 * One recording (recording.h): urisourcebin ! parsebin ! (queue !) muxer !
 * filesink, or for a ring parsebin's streams into hlssink2 (which muxes and
 * cuts the files itself), on the main loop's bus watch.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "destination.h"
#include "error.h"
#include "log.h"
#include "recording.h"
#include "source.h"

#define BYTES_PERIOD_MS 500
#define CANCEL_GRACE_MS 3000

struct recording {
	struct umms_recording base;
	GstElement *pipeline, *mux;
	bool ring;                 /* mux is hlssink2: one "video" and one "audio" pad */
	GSource *bytes_timer, *stop_timer, *cancel_timer;
	bool cancelling;
	/*
	 * Streams are linked from a streaming thread while the main loop may
	 * be stopping the pipeline (the source failed at once): stopping,
	 * under the lock, tells pad_added_cb to add nothing more, so no
	 * element joins a pipeline already on its way to NULL.
	 */
	GMutex lock;
	bool stopping;
};

static const char *const state_names[] = {
	[UMMS_RECORDING_RECORDING] = "recording",
	[UMMS_RECORDING_COMPLETED] = "completed",
	[UMMS_RECORDING_FAILED] = "failed",
	[UMMS_RECORDING_CANCELLED] = "cancelled",
};

const char *
umms_recording_state_name(enum umms_recording_state state)
{
	return state_names[state];
}

static void
update_bytes(struct recording *r)
{
	GStatBuf st;
	if (g_stat(r->base.path, &st) == 0 && (uint64_t)st.st_size != r->base.bytes_written) {
		r->base.bytes_written = (uint64_t)st.st_size;
		wl_signal_emit_mutable(&r->base.events.changed, &r->base);
	}
}

static gboolean
bytes_cb(gpointer data)
{
	update_bytes(data);
	return G_SOURCE_CONTINUE;
}

/* Main loop: to NULL, after the last stream the streaming threads link. */
static void
stop_pipeline(struct recording *r)
{
	g_mutex_lock(&r->lock);
	r->stopping = true;
	g_mutex_unlock(&r->lock);
	gst_element_set_state(r->pipeline, GST_STATE_NULL);
}

/* The pipeline stops; the file stays as written. */
static void
finish(struct recording *r, enum umms_recording_state state, const char *error)
{
	if (r->base.state != UMMS_RECORDING_RECORDING)
		return;
	umms_source_clear(&r->bytes_timer);
	umms_source_clear(&r->stop_timer);
	umms_source_clear(&r->cancel_timer);
	if (r->pipeline)
		stop_pipeline(r);
	r->base.state = state;
	r->base.error = error ? g_strdup(error) : NULL;
	update_bytes(r);
	umms_info("recording %u: %s (%" G_GUINT64_FORMAT " bytes in %s)%s%s", r->base.id,
		state_names[state], r->base.bytes_written, r->base.path, error ? ": " : "",
		error ? error : "");
	wl_signal_emit_mutable(&r->base.events.changed, &r->base);
}

static gboolean
bus_cb(GstBus *bus, GstMessage *message, gpointer data)
{
	struct recording *r = data;
	switch (GST_MESSAGE_TYPE(message)) {
	case GST_MESSAGE_EOS:
		finish(r, r->cancelling ? UMMS_RECORDING_CANCELLED : UMMS_RECORDING_COMPLETED, NULL);
		break;
	case GST_MESSAGE_ERROR: {
		g_autoptr(GError) error = NULL;
		g_autofree char *debug = NULL;
		gst_message_parse_error(message, &error, &debug);
		umms_debug("recording %u: %s", r->base.id, debug ? debug : "");
		finish(r, UMMS_RECORDING_FAILED, error->message);
		break;
	}
	default:
		break;
	}
	return G_SOURCE_CONTINUE;
}

static void link_stream(struct recording *r, GstPad *pad);

/* Streaming thread: a parsed stream; into the muxer if it takes it, else dropped. */
static void
pad_added_cb(GstElement *parsebin, GstPad *pad, gpointer data)
{
	struct recording *r = data;
	g_mutex_lock(&r->lock);
	if (!r->stopping)
		link_stream(r, pad);
	g_mutex_unlock(&r->lock);
}

static void
link_stream(struct recording *r, GstPad *pad)
{
	g_autoptr(GstCaps) caps = gst_pad_query_caps(pad, NULL);
	/*
	 * Asked by media type only: parsebin's caps are already fixed (H.264 as
	 * avc, say) and our own parser below converts to what the muxer takes.
	 */
	const char *media = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	const char *parser = strcmp(media, "video/x-h264") == 0 ? "h264parse" :
		strcmp(media, "video/x-h265") == 0 ? "h265parse" : NULL;
	g_autoptr(GstCaps) kind = gst_caps_new_empty_simple(media);
	GstPadTemplate *wanted = gst_pad_template_new("stream", GST_PAD_SRC, GST_PAD_ALWAYS,
		parser ? kind : caps);
	GstPadTemplate *templ = gst_element_get_compatible_pad_template(r->mux, wanted);
	gst_object_unref(wanted);
	if (r->ring) {
		/* hlssink2 takes anything on either pad: the kind picks, once each. */
		templ = gst_element_get_pad_template(r->mux, g_str_has_prefix(media, "video/") ?
			"video" : g_str_has_prefix(media, "audio/") ? "audio" : "none");
		g_autofree char *name = templ ? g_strdup(GST_PAD_TEMPLATE_NAME_TEMPLATE(templ)) : NULL;
		GstPad *taken = name ? gst_element_get_static_pad(r->mux, name) : NULL;
		if (taken) {
			templ = NULL;
			gst_object_unref(taken);
		}
	}
	GstPad *sink = templ ? gst_element_request_pad(r->mux, templ, NULL, NULL) : NULL;
	GstElement *queue = gst_element_factory_make(sink ? "queue" : "fakesink", NULL);
	if (!sink) {
		g_autofree char *text = gst_caps_to_string(caps);
		umms_info("recording %u: left out a stream the muxer cannot carry: %s", r->base.id,
			text);
	}
	gst_bin_add(GST_BIN(r->pipeline), queue);
	/*
	 * parsebin fixes its parser's output before the stream is exposed
	 * (H.264 as avc, which MPEG-TS does not carry): a parser of our own,
	 * linked downstream first, converts to what the muxer takes.
	 */
	GstElement *last = queue;
	GstElement *convert = sink && parser ? gst_element_factory_make(parser, NULL) : NULL;
	if (convert) {
		gst_bin_add(GST_BIN(r->pipeline), convert);
		gst_element_link(queue, convert);
		last = convert;
	}
	if (sink) {
		GstPad *src = gst_element_get_static_pad(last, "src");
		if (gst_pad_link(src, sink) != GST_PAD_LINK_OK)
			umms_info("recording %u: the muxer refused a %s stream", r->base.id, media);
		gst_object_unref(src);
		gst_object_unref(sink);
	}
	if (convert)
		gst_element_sync_state_with_parent(convert);
	gst_element_sync_state_with_parent(queue);
	GstPad *queue_sink = gst_element_get_static_pad(queue, "sink");
	gst_pad_link(pad, queue_sink);
	gst_object_unref(queue_sink);
}

/* Streaming thread: the source's stream, into parsebin (one: the first). */
static void
source_pad_cb(GstElement *source, GstPad *pad, gpointer data)
{
	GstPad *sink = gst_element_get_static_pad(data, "sink");
	if (!gst_pad_is_linked(sink))
		gst_pad_link(pad, sink);
	gst_object_unref(sink);
}

/* The duration asked for has passed: the file is ended properly. */
static gboolean
stop_cb(gpointer data)
{
	struct recording *r = data;
	umms_source_forget(&r->stop_timer);
	umms_debug("recording %u: the duration asked for has passed", r->base.id);
	gst_element_send_event(r->pipeline, gst_event_new_eos());
	return G_SOURCE_REMOVE;
}

/* A source that ignores EOS (some live ones): stopped anyway, the file as it is. */
static gboolean
cancel_timeout_cb(gpointer data)
{
	struct recording *r = data;
	umms_source_forget(&r->cancel_timer);
	finish(r, UMMS_RECORDING_CANCELLED, NULL);
	return G_SOURCE_REMOVE;
}

void
umms_recording_cancel(struct umms_recording *base)
{
	struct recording *r = (struct recording *)base;
	if (base->state != UMMS_RECORDING_RECORDING || r->cancelling)
		return;
	r->cancelling = true;
	umms_source_clear(&r->stop_timer);
	gst_element_send_event(r->pipeline, gst_event_new_eos());
	r->cancel_timer = umms_source_timeout(CANCEL_GRACE_MS, cancel_timeout_cb, r);
}

/* A ring's segments in @dir, @n listed, of about @segment_s seconds; or NULL. */
struct ring {
	const char *dir;
	unsigned segment_s, n;
};

static struct umms_recording *
start(unsigned id, const char *uri, const char *path, int64_t duration_us,
	const struct ring *ring, GError **error)
{
	const char *container = umms_destination_container(path);
	const char *mux_name = ring ? "hlssink2" : container && strcmp(container, "mpegts") == 0 ?
		"mpegtsmux" : "matroskamux";
	struct recording *r = g_new0(struct recording, 1);
	g_mutex_init(&r->lock);
	r->ring = ring != NULL;
	r->base.id = id;
	r->base.uri = g_strdup(uri);
	r->base.path = g_strdup(path);
	r->base.start_us = g_get_real_time();
	r->base.duration_us = duration_us;
	wl_signal_init(&r->base.events.changed);
	r->pipeline = gst_pipeline_new(NULL);
	GstElement *source = gst_element_factory_make("urisourcebin", NULL);
	GstElement *parse = gst_element_factory_make("parsebin", NULL);
	r->mux = gst_element_factory_make(mux_name, NULL);
	/* hlssink2 writes its files itself. */
	GstElement *sink = ring ? NULL : gst_element_factory_make("filesink", NULL);
	if (!source || !parse || !r->mux || (!ring && !sink)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"recording needs urisourcebin, parsebin, %s and filesink (GStreamer's base, "
			"good and bad plugins)", mux_name);
		g_clear_object(&source);
		g_clear_object(&parse);
		g_clear_object(&sink);
		goto fail;
	}
	g_object_set(source, "uri", uri, NULL);
	if (ring) {
		/*
		 * A few more files kept than listed: a reader still in a segment
		 * that just left the playlist finds it.
		 */
		g_autofree char *location = g_build_filename(ring->dir, "seg%05d.ts", NULL);
		g_object_set(r->mux, "location", location, "playlist-location", path,
			"target-duration", ring->segment_s, "playlist-length", ring->n,
			"max-files", ring->n + 4, NULL);
	} else {
		/*
		 * Written as it comes (no stdio buffer), Matroska a cluster a
		 * second at most: a recording cut short by a crash or a power
		 * cut keeps all but its last second.
		 */
		g_object_set(sink, "location", path, "async", FALSE, NULL);
		gst_util_set_object_arg(G_OBJECT(sink), "buffer-mode", "unbuffered");
	}
	if (g_object_class_find_property(G_OBJECT_GET_CLASS(r->mux), "max-cluster-duration"))
		g_object_set(r->mux, "max-cluster-duration", (gint64)GST_SECOND, NULL);
	gst_bin_add_many(GST_BIN(r->pipeline), source, parse, r->mux, sink, NULL);
	g_signal_connect(source, "pad-added", G_CALLBACK(source_pad_cb), parse);
	if (sink && !gst_element_link(r->mux, sink)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot build the recording");
		goto fail;
	}
	g_signal_connect(parse, "pad-added", G_CALLBACK(pad_added_cb), r);
	GstBus *bus = gst_element_get_bus(r->pipeline);
	gst_bus_add_watch(bus, bus_cb, r);
	gst_object_unref(bus);
	if (gst_element_set_state(r->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "cannot open %s", uri);
		goto fail;
	}
	r->bytes_timer = umms_source_timeout(BYTES_PERIOD_MS, bytes_cb, r);
	if (duration_us > 0)
		r->stop_timer = umms_source_timeout((unsigned)(duration_us / 1000), stop_cb, r);
	umms_info("recording %u: %s into %s (%s)", id, uri, path, mux_name);
	return &r->base;
fail:
	umms_recording_destroy(&r->base);
	return NULL;
}

struct umms_recording *
umms_recording_start(unsigned id, const char *uri, const char *path, int64_t duration_us,
	GError **error)
{
	return start(id, uri, path, duration_us, NULL, error);
}

struct umms_recording *
umms_recording_start_ring(unsigned id, const char *uri, const char *dir, unsigned segment_s,
	unsigned n_segments, GError **error)
{
	const struct ring ring = { dir, segment_s, n_segments };
	g_autofree char *playlist = g_build_filename(dir, UMMS_RECORDING_RING_PLAYLIST, NULL);
	return start(id, uri, playlist, -1, &ring, error);
}

void
umms_recording_destroy(struct umms_recording *base)
{
	if (!base)
		return;
	struct recording *r = (struct recording *)base;
	umms_source_clear(&r->bytes_timer);
	umms_source_clear(&r->stop_timer);
	umms_source_clear(&r->cancel_timer);
	if (r->pipeline) {
		GstBus *bus = gst_element_get_bus(r->pipeline);
		gst_bus_remove_watch(bus);
		gst_object_unref(bus);
		stop_pipeline(r);
		gst_object_unref(r->pipeline);
	}
	g_mutex_clear(&r->lock);
	g_free(base->uri);
	g_free(base->path);
	g_free(base->error);
	g_free(r);
}
