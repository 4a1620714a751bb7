/*
 * The remux pipeline of a recording (gst-record.h), in ummsd or in an
 * engine worker: urisourcebin ! parsebin ! (queue ! parser !) muxer ! sink,
 * or for a ring's audio the muxer cannot carry queue ! decoder ! encoder.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/gst.h>

#include "error.h"
#include "gst-eit.h"
#include "gst-record.h"
#include "gst-record-gate.h"
#include "gst-record-ring.h"
#include "log.h"

struct umms_gst_record {
	unsigned id;
	GstElement *pipeline, *mux;
	bool ring;                 /* mux is hlssink2: one "video" and one "audio" pad */
	const struct umms_gst_record_ring_io *ring_io;
	struct umms_gst_record_gate *gate; /* a scheduled start: streams wait for it */
	bool ended;
	const struct umms_gst_record_handler *handler;
	void *data;
	/*
	 * Streams are linked from a streaming thread while the main loop may
	 * be stopping the pipeline (the source failed at once): stopping,
	 * under the lock, tells pad_added_cb to add nothing more, so no
	 * element joins a pipeline already on its way to NULL.
	 */
	GMutex lock;
	bool stopping;
	struct gst_eit *eit;       /* EIT sections on tsdemux's input, for handler->eit */
};

bool
umms_gst_record_mux_known(const char *mux)
{
	return mux && (strcmp(mux, "matroskamux") == 0 || strcmp(mux, "mpegtsmux") == 0 ||
		strcmp(mux, "hlssink2") == 0);
}

/* Main loop: to NULL, after the last stream the streaming threads link. */
static void
stop_pipeline(struct umms_gst_record *r)
{
	g_mutex_lock(&r->lock);
	r->stopping = true;
	/* Nothing more for the handler. */
	struct gst_eit *eit = g_steal_pointer(&r->eit);
	g_mutex_unlock(&r->lock);
	gst_eit_close(eit);
	/* A queue's thread waiting for the start would hold up the stop. */
	if (r->gate)
		umms_gst_record_gate_open(r->gate);
	/* A streaming thread waiting for the main loop would hold up the stop. */
	if (r->ring_io && r->ring_io->cancel)
		r->ring_io->cancel(r->ring_io->data);
	gst_element_set_state(r->pipeline, GST_STATE_NULL);
}

static void
end(struct umms_gst_record *r, const char *error)
{
	if (r->ended)
		return;
	r->ended = true;
	stop_pipeline(r);
	r->handler->ended(r->data, error);
}

static gboolean
bus_cb(GstBus *bus, GstMessage *message, gpointer data)
{
	struct umms_gst_record *r = data;
	switch (GST_MESSAGE_TYPE(message)) {
	case GST_MESSAGE_EOS:
		end(r, NULL);
		break;
	case GST_MESSAGE_APPLICATION:
		if (!r->ended && r->handler->flowing &&
				gst_message_has_name(message, "umms-record-flowing"))
			r->handler->flowing(r->data);
		break;
	case GST_MESSAGE_ERROR: {
		g_autoptr(GError) error = NULL;
		g_autofree char *debug = NULL;
		gst_message_parse_error(message, &error, &debug);
		umms_debug("recording %u: %s", r->id, debug ? debug : "");
		end(r, error->message);
		break;
	}
	default:
		break;
	}
	return G_SOURCE_CONTINUE;
}

static void link_stream(struct umms_gst_record *r, GstPad *pad);

/* An element made and never added (a floating reference), dropped; NULL is fine. */
static void
drop_element(GstElement *element)
{
	if (element)
		gst_object_unref(gst_object_ref_sink(element));
}

/* What onwards_probe knows of its pad's stream. */
struct onwards {
	GstSegment segment;
	gint64 last;               /* running time let through last, or -1 */
	bool told;                 /* a drop was logged as a warning */
};

/*
 * Streaming thread, on a transcoder's output: a frame whose running time
 * goes back (or has none) is dropped. hlssink2's splitmuxsink fails the
 * whole ring on one ("Timestamping error on input streams"), as a
 * broadcast's audio made it do (vidtv's under emulation, after a minute:
 * its PTS stepping back, the decoder and encoder keeping the step).
 * Forward steps pass: a gap is silence, not filled.
 */
static GstPadProbeReturn
onwards_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct onwards *o = data;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT)
			gst_event_copy_segment(event, &o->segment);
		else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP)
			o->last = -1;
		return GST_PAD_PROBE_OK;
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstClockTime time = o->segment.format == GST_FORMAT_TIME ? gst_segment_to_running_time(
		&o->segment, GST_FORMAT_TIME, GST_BUFFER_DTS_OR_PTS(buffer)) : GST_CLOCK_TIME_NONE;
	if (!GST_CLOCK_TIME_IS_VALID(time) || (gint64)time < o->last) {
		/* Said once as a warning: a stream may do it every frame. */
		umms_log(o->told ? UMMS_LOG_DEBUG : UMMS_LOG_WARNING, "recording: dropped audio of "
			"running time %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT,
			GST_TIME_ARGS(time), GST_TIME_ARGS((GstClockTime)o->last));
		o->told = true;
		return GST_PAD_PROBE_DROP;
	}
	o->last = (gint64)time;
	return GST_PAD_PROBE_OK;
}

/*
 * Encoders of what a ring's audio becomes, best first. MPEG-1 Layer II,
 * the audio DVB itself broadcasts, which every player decodes, costs the
 * least: 60 s of 48 kHz stereo took 0.25 s of a CPU, AAC 1.35 s with
 * avenc_aac and 0.87 s with voaacenc, and a ring under emulation (the
 * VM's vidtv) fell behind the broadcast with avenc_aac.
 */
static const char *const ring_audio_encoders[] = { "avenc_mp2", "voaacenc", "avenc_aac", NULL };
/* Bits per second of the ring's audio: a broadcast's MPEG-1 Layer II stereo. */
#define RING_AUDIO_BITRATE 192000

/*
 * A ring's audio stream hlssink2's mpegtsmux cannot carry (a DVB
 * channel's SMPTE 302M: no muxer of GStreamer 1.22 takes it), decoded and
 * encoded again: the decoder of the highest rank for @caps (in an engine
 * worker, one its sandbox allows), audioconvert, audioresample and the
 * first encoder of ring_audio_encoders there is (its output through
 * onwards_probe). Appended to @chain, not added to the pipeline; false
 * (nothing appended) if not needed or no decoder or encoder is there: the
 * stream is left out.
 */
static bool
ring_transcoder(struct umms_gst_record *r, GstCaps *caps, GPtrArray *chain)
{
	GstElementFactory *mux = gst_element_factory_find("mpegtsmux");
	bool carried = !mux || gst_element_factory_can_sink_any_caps(mux, caps);
	g_clear_object(&mux);
	if (carried)
		return false;
	GList *all = gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DECODER |
		GST_ELEMENT_FACTORY_TYPE_MEDIA_AUDIO, GST_RANK_MARGINAL);
	GList *decoders = gst_element_factory_list_filter(all, caps, GST_PAD_SINK, FALSE);
	decoders = g_list_sort(decoders, gst_plugin_feature_rank_compare_func);
	GstElement *decoder = decoders ? gst_element_factory_create(decoders->data, NULL) : NULL;
	gst_plugin_feature_list_free(decoders);
	gst_plugin_feature_list_free(all);
	GstElement *encoder = NULL;
	for (const char *const *e = ring_audio_encoders; *e && !encoder; e++)
		encoder = gst_element_factory_make(*e, NULL);
	if (encoder && g_object_class_find_property(G_OBJECT_GET_CLASS(encoder), "bitrate"))
		g_object_set(encoder, "bitrate", RING_AUDIO_BITRATE, NULL);
	GstElement *convert = gst_element_factory_make("audioconvert", NULL);
	GstElement *resample = gst_element_factory_make("audioresample", NULL);
	if (!decoder || !encoder || !convert || !resample) {
		umms_info("recording %u: no %s for audio MPEG-TS cannot carry", r->id,
			!decoder ? "decoder" : "encoder");
		drop_element(decoder);
		drop_element(encoder);
		drop_element(convert);
		drop_element(resample);
		return false;
	}
	umms_info("recording %u: audio MPEG-TS cannot carry (%s) decoded by %s, encoded again by "
		"%s", r->id, gst_structure_get_name(gst_caps_get_structure(caps, 0)),
		GST_OBJECT_NAME(gst_element_get_factory(decoder)),
		GST_OBJECT_NAME(gst_element_get_factory(encoder)));
	g_ptr_array_add(chain, decoder);
	g_ptr_array_add(chain, convert);
	g_ptr_array_add(chain, resample);
	g_ptr_array_add(chain, encoder);
	GstPad *out = gst_element_get_static_pad(encoder, "src");
	struct onwards *o = g_new0(struct onwards, 1);
	gst_segment_init(&o->segment, GST_FORMAT_UNDEFINED);
	o->last = -1;
	gst_pad_add_probe(out, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
		onwards_probe, o, g_free);
	gst_object_unref(out);
	return true;
}

/* Streaming thread: a parsed stream; into the muxer if it takes it, else dropped. */
static void
pad_added_cb(GstElement *parsebin, GstPad *pad, gpointer data)
{
	struct umms_gst_record *r = data;
	g_mutex_lock(&r->lock);
	if (!r->stopping)
		link_stream(r, pad);
	g_mutex_unlock(&r->lock);
}

static void
link_stream(struct umms_gst_record *r, GstPad *pad)
{
	g_autoptr(GstCaps) caps = gst_pad_query_caps(pad, NULL);
	/*
	 * Asked by media type only: parsebin's caps are already fixed (H.264 as
	 * avc, say) and our own parser below converts to what the muxer takes.
	 */
	const char *media = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	const char *parser = strcmp(media, "video/x-h264") == 0 ? "h264parse" :
		strcmp(media, "video/x-h265") == 0 ? "h265parse" : NULL;
	/* What comes between the queue and the muxer: a parser, or a transcoder. */
	g_autoptr(GPtrArray) chain = g_ptr_array_new();
	bool transcode = r->ring && g_str_has_prefix(media, "audio/") &&
		ring_transcoder(r, caps, chain);
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
		umms_info("recording %u: left out a stream the muxer cannot carry: %s", r->id, text);
		for (guint i = 0; i < chain->len; i++)
			drop_element(chain->pdata[i]);
		g_ptr_array_set_size(chain, 0);
	}
	gst_bin_add(GST_BIN(r->pipeline), queue);
	/*
	 * parsebin fixes its parser's output before the stream is exposed
	 * (H.264 as avc, which MPEG-TS does not carry): a parser of our own,
	 * linked downstream first, converts to what the muxer takes.
	 */
	if (sink && r->gate)
		umms_gst_record_gate_add(r->gate, queue, g_str_has_prefix(media, "video/"));
	if (sink && parser && !transcode)
		g_ptr_array_add(chain, gst_element_factory_make(parser, NULL));
	GstElement *last = queue;
	for (guint i = 0; i < chain->len; i++) {
		gst_bin_add(GST_BIN(r->pipeline), chain->pdata[i]);
		gst_element_link(last, chain->pdata[i]);
		last = chain->pdata[i];
	}
	if (sink) {
		GstPad *src = gst_element_get_static_pad(last, "src");
		if (gst_pad_link(src, sink) != GST_PAD_LINK_OK)
			umms_info("recording %u: the muxer refused a %s stream", r->id, media);
		gst_object_unref(src);
		gst_object_unref(sink);
	}
	for (guint i = chain->len; i > 0; i--)
		gst_element_sync_state_with_parent(chain->pdata[i - 1]);
	gst_element_sync_state_with_parent(queue);
	GstPad *queue_sink = gst_element_get_static_pad(queue, "sink");
	gst_pad_link(pad, queue_sink);
	gst_object_unref(queue_sink);
}

/* Streaming thread: the first data reaches the sink; said on the bus, once. */
static GstPadProbeReturn
flowing_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstObject *sink = GST_OBJECT_PARENT(pad);
	gst_element_post_message(GST_ELEMENT(sink), gst_message_new_application(sink,
		gst_structure_new_empty("umms-record-flowing")));
	return GST_PAD_PROBE_REMOVE;
}

static void
eit_cb(const struct umms_eit *eit, void *data)
{
	struct umms_gst_record *r = data;
	if (!r->ended)
		r->handler->eit(r->data, eit);
}

/* Streaming thread: an element in parsebin; tsdemux's input is read for EIT. */
static void
element_added_cb(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data)
{
	struct umms_gst_record *r = data;
	GstElementFactory *factory = gst_element_get_factory(element);
	if (!factory || strcmp(gst_plugin_feature_get_name(factory), "tsdemux") != 0)
		return;
	GstPad *sink = gst_element_get_static_pad(element, "sink");
	g_mutex_lock(&r->lock);
	if (sink && r->eit && !r->stopping)
		gst_eit_watch_pad(r->eit, sink);
	g_mutex_unlock(&r->lock);
	if (sink)
		gst_object_unref(sink);
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

void
umms_gst_record_stop(struct umms_gst_record *r)
{
	r->ended = true;
	stop_pipeline(r);
}

void
umms_gst_record_eos(struct umms_gst_record *r)
{
	if (r->ended)
		return;
	/* Ended before its start: what the queues hold goes into the file first. */
	if (r->gate)
		umms_gst_record_gate_open(r->gate);
	gst_element_send_event(r->pipeline, gst_event_new_eos());
}

struct umms_gst_record *
umms_gst_record_start(unsigned id, const char *uri, const struct umms_gst_record_target *t,
	const struct umms_gst_record_handler *handler, void *data, GError **error)
{
	if (!umms_gst_record_mux_known(t->mux)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "no muxer %s for recordings",
			t->mux ? t->mux : "(none)");
		return NULL;
	}
	bool ring = strcmp(t->mux, "hlssink2") == 0;
	/*
	 * A DVB channel into MPEG-TS: the broadcast's own packets as they come
	 * (its programme, with the PAT, PMT, SDT, NIT and EIT the tuner passes),
	 * neither parsed nor muxed again: every stream kept, whatever its codec
	 * (vidtv's SMPTE 302M audio is one no muxer of GStreamer 1.22 takes).
	 */
	bool passthrough = !ring && strcmp(t->mux, "mpegtsmux") == 0 &&
		g_ascii_strncasecmp(uri, "dvb://", 6) == 0;
	const char *sink_name = ring ? NULL : t->fd >= 0 ? "fdsink" : "filesink";
	struct umms_gst_record *r = g_new0(struct umms_gst_record, 1);
	g_mutex_init(&r->lock);
	r->id = id;
	r->ring = ring;
	r->handler = handler;
	r->data = data;
	if (t->start_us > 0 && !ring)
		r->gate = umms_gst_record_gate_new(t->start_us);
	r->pipeline = gst_pipeline_new(NULL);
	/* The DVB source itself: its one pad is the TS (urisourcebin would typefind it). */
	GstElement *source = passthrough ? gst_element_make_from_uri(GST_URI_SRC, uri, NULL, NULL) :
		gst_element_factory_make("urisourcebin", NULL);
	GstElement *parse = passthrough ? gst_element_factory_make("identity", NULL) :
		gst_element_factory_make("parsebin", NULL);
	r->mux = passthrough ? gst_element_factory_make("identity", NULL) :
		gst_element_factory_make(t->mux, NULL);
	/* hlssink2 writes its files itself. */
	GstElement *sink = ring ? NULL : gst_element_factory_make(sink_name, NULL);
	if (!source || !parse || !r->mux || (!ring && !sink)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"recording needs urisourcebin, parsebin, %s and %s (GStreamer's base, "
			"good and bad plugins)", t->mux, sink_name ? sink_name : "nothing else");
		g_clear_object(&source);
		g_clear_object(&parse);
		g_clear_object(&sink);
		goto fail;
	}
	if (!passthrough)
		g_object_set(source, "uri", uri, NULL);
	if (ring) {
		/*
		 * A few more files kept than listed: a reader still in a segment
		 * that just left the playlist finds it.
		 */
		g_object_set(r->mux, "target-duration", t->segment_s,
			"playlist-length", t->n_segments, "max-files", t->n_segments + 4, NULL);
		if (t->ring_io) {
			r->ring_io = t->ring_io;
			umms_gst_record_ring_connect(r->mux, t->ring_io);
		} else {
			g_autofree char *location = g_build_filename(t->ring_dir,
				UMMS_GST_RING_PREFIX "%05d" UMMS_GST_RING_SUFFIX, NULL);
			g_object_set(r->mux, "location", location, "playlist-location", t->playlist,
				NULL);
		}
	} else if (t->fd >= 0) {
		/* fdsink writes each buffer as it comes, no buffer of its own. */
		g_object_set(sink, "fd", t->fd, "async", FALSE, NULL);
	} else {
		/*
		 * Written as it comes (no stdio buffer): a recording cut short by
		 * a crash or a power cut keeps all but its last second.
		 */
		g_object_set(sink, "location", t->path, "async", FALSE, NULL);
		gst_util_set_object_arg(G_OBJECT(sink), "buffer-mode", "unbuffered");
	}
	if (g_object_class_find_property(G_OBJECT_GET_CLASS(r->mux), "max-cluster-duration"))
		g_object_set(r->mux, "max-cluster-duration", (gint64)GST_SECOND, NULL);
	gst_bin_add_many(GST_BIN(r->pipeline), source, parse, r->mux, sink, NULL);
	if (!passthrough)
		g_signal_connect(source, "pad-added", G_CALLBACK(source_pad_cb), parse);
	if ((sink && !gst_element_link(r->mux, sink)) ||
			(passthrough && (!gst_element_link(parse, r->mux) ||
			!gst_element_link(source, parse)))) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot build the recording");
		goto fail;
	}
	if (!passthrough)
		g_signal_connect(parse, "pad-added", G_CALLBACK(pad_added_cb), r);
	if (handler->eit) {
		r->eit = gst_eit_new(eit_cb, r);
		g_signal_connect(r->pipeline, "deep-element-added", G_CALLBACK(element_added_cb), r);
		/* A DVB channel's own packets: read on their way to the file. */
		if (passthrough) {
			GstPad *pad = gst_element_get_static_pad(parse, "sink");
			gst_eit_watch_pad(r->eit, pad);
			gst_object_unref(pad);
		}
	}
	if (sink) {
		GstPad *pad = gst_element_get_static_pad(sink, "sink");
		gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
			flowing_probe, NULL, NULL);
		gst_object_unref(pad);
	}
	GstBus *bus = gst_element_get_bus(r->pipeline);
	gst_bus_add_watch(bus, bus_cb, r);
	gst_object_unref(bus);
	if (gst_element_set_state(r->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "cannot open %s", uri);
		goto fail;
	}
	return r;
fail:
	umms_gst_record_free(r);
	return NULL;
}

void
umms_gst_record_free(struct umms_gst_record *r)
{
	if (!r)
		return;
	if (r->pipeline) {
		GstBus *bus = gst_element_get_bus(r->pipeline);
		gst_bus_remove_watch(bus);
		gst_object_unref(bus);
		stop_pipeline(r);
		gst_object_unref(r->pipeline);
	}
	gst_eit_close(r->eit);
	umms_gst_record_gate_unref(r->gate);
	g_mutex_clear(&r->lock);
	g_free(r);
}
