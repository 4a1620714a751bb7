/*
 * Closed captions carried in the video: CEA-608 (CC1) and CEA-708 (DTVCC
 * service 1), in H.264 or MPEG-2 user data (A/53) or another caption meta
 * a demuxer, parser or decoder attaches (GstVideoCaptionMeta: raw 608
 * pairs, SMPTE 334-1 triplets, CEA-708 cc_data or CDP; 708 only in the
 * last two). GStreamer 1.22 has no caption renderer, so each picture's
 * bytes go to both our decoders (engines/captions.h, captions708.h) into
 * cues of their own, drawn and told like the external file's (gst-cues.c):
 * as text, placed where the stream puts them (608's rows, 708's windows'
 * anchors) over the caption safe area, in their colours.
 *
 * The bytes are read at the shown video's decoder input (a parser attaches
 * them: h264parse, mpegvideoparse), where no picture is skipped, and wait
 * there in presentation order; a probe on the video sink's input decodes
 * those of every picture up to the one that reached it, before it waits
 * for its time, so a caption's cue is known when its picture is shown,
 * and the bytes of a picture the decoder skipped (QoS) or the sink dropped
 * late are decoded all the same. Where no decoder input carries any, the
 * bytes the decoder attached to its pictures are read at the sink. Captions
 * are decoded whether shown or not, so choosing them finds what passed; the
 * tracks appear in SubtitleTracks (kind "cc") after the media's own text
 * tracks, in this order: codec "cea608" from the first picture that
 * carries field-1 pairs (padding counts), codec "cea708" from the first
 * DTVCC packet with a service-1 block (decoded as its picture reaches the
 * sink); each is off until chosen. A flush (a seek) starts the decoders
 * again; the cues stay.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/video/video.h>

#include "captions.h"
#include "captions708.h"
#include "cues.h"
#include "gst-private.h"
#include "log.h"

static bool
format_of(GstVideoCaptionType type, enum umms_caption_format *format)
{
	switch (type) {
	case GST_VIDEO_CAPTION_TYPE_CEA608_RAW:
		*format = UMMS_CAPTION_608_RAW;
		return true;
	case GST_VIDEO_CAPTION_TYPE_CEA608_S334_1A:
		*format = UMMS_CAPTION_608_S334_1A;
		return true;
	case GST_VIDEO_CAPTION_TYPE_CEA708_RAW:
		*format = UMMS_CAPTION_708_CC_DATA;
		return true;
	case GST_VIDEO_CAPTION_TYPE_CEA708_CDP:
		*format = UMMS_CAPTION_708_CDP;
		return true;
	default:
		return false;
	}
}

/*
 * A picture's caption bytes, read at its decoder's input (decode order),
 * waiting for the picture (or one after it) to reach the video sink.
 */
struct pending {
	int64_t position;              /* µs, stream time of the picture */
	enum umms_caption_format format;
	size_t size;
	uint8_t data[];
};

/* More waiting than this: the oldest is decoded at once. */
#define MAX_PENDING 64
/* Caption data larger than this is cut (a CDP is at most 255 bytes). */
#define MAX_BYTES 1024

/* The stream time of @buffer's PTS on @pad, or -1. */
static int64_t
stream_time(GstPad *pad, GstBuffer *buffer)
{
	if (!GST_BUFFER_PTS_IS_VALID(buffer))
		return -1;
	GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
	if (!event)
		return -1;
	const GstSegment *segment;
	gst_event_parse_segment(event, &segment);
	GstClockTime time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME,
		GST_BUFFER_PTS(buffer));
	gst_event_unref(event);
	return GST_CLOCK_TIME_IS_VALID(time) ? (int64_t)(time / 1000) : -1;
}

/*
 * The first caption meta of @buffer with field-1 pairs or DTVCC packet
 * bytes (a parser and a decoder may both attach it); *@seen: 608 when it
 * has field-1 pairs (padding counts: the stream carries captions).
 */
static const GstVideoCaptionMeta *
caption_meta(GstBuffer *buffer, enum umms_caption_format *format, unsigned *seen)
{
	gpointer state = NULL;
	GstMeta *meta;
	uint8_t pairs[2 * UMMS_CAPTIONS_MAX_PAIRS];
	while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state,
			GST_VIDEO_CAPTION_META_API_TYPE))) {
		const GstVideoCaptionMeta *caption = (const GstVideoCaptionMeta *)meta;
		if (!caption->data || !format_of(caption->caption_type, format))
			continue;
		size_t size = MIN(caption->size, MAX_BYTES);
		*seen = umms_captions_field1(*format, caption->data, size, pairs,
			UMMS_CAPTIONS_MAX_PAIRS) > 0 ? 1u << GST_CAPTIONS_608 : 0;
		if (*seen || umms_captions708_carried(*format, caption->data, size))
			return caption;
	}
	return NULL;
}

/* With the lock: the video carries the captions of the kinds in @seen; the main loop lists them. */
static void
mark_seen(struct gst_engine *engine, unsigned seen, bool *news)
{
	*news |= (seen & ~engine->captions_seen) != 0;
	engine->captions_seen |= seen;
}

/* With the lock: a picture's caption data into both decoders; the kinds it carried. */
static unsigned
feed(struct gst_engine *engine, int64_t position, enum umms_caption_format format,
	const uint8_t *data, size_t size)
{
	unsigned seen = 0;
	if (umms_captions_feed(engine->captions, position, format, data, size))
		seen |= 1u << GST_CAPTIONS_608;
	if (umms_captions708_feed(engine->captions708, position, format, data, size))
		seen |= 1u << GST_CAPTIONS_708;
	return seen;
}

static void
post_news(struct gst_engine *engine, const char *where)
{
	umms_debug("the video carries closed captions (%s)", where);
	/* gst-engine.c's bus lists the track. */
	gst_element_post_message(engine->video_sink, gst_message_new_application(
		GST_OBJECT(engine->video_sink), gst_structure_new_empty("umms-streams")));
}

/*
 * With the lock: the waiting caption data of pictures up to @until µs
 * decoded, in order (DTVCC service 1 is known to be there once decoded).
 */
static void
release(struct gst_engine *engine, int64_t until, bool *news)
{
	struct pending *pending;
	while ((pending = g_queue_peek_head(&engine->caption_pending)) &&
			pending->position <= until) {
		g_queue_pop_head(&engine->caption_pending);
		mark_seen(engine, feed(engine, pending->position, pending->format,
			pending->data, pending->size), news);
		g_free(pending);
	}
}

/* With the lock: both decoders start again. */
static void
reset_decoders(struct gst_engine *engine)
{
	umms_captions_reset(engine->captions);
	umms_captions708_reset(engine->captions708);
}

static void
drop_pending(struct gst_engine *engine)
{
	g_queue_clear_full(&engine->caption_pending, g_free);
}

static gint
by_position(gconstpointer a, gconstpointer b, gpointer data)
{
	int64_t pa = ((const struct pending *)a)->position;
	int64_t pb = ((const struct pending *)b)->position;
	return pa < pb ? -1 : pa > pb;
}

/*
 * Streaming thread: a coded picture into the shown video's decoder. Its
 * caption bytes wait, in presentation order, for the picture to reach the
 * sink: read there only, they were lost with every picture the decoder
 * skipped under QoS (an erase missed: a caption that stayed).
 */
static GstPadProbeReturn
decoder_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER)) {
		GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
		if (type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_STREAM_START) {
			g_mutex_lock(&engine->lock);
			drop_pending(engine);
			reset_decoders(engine);
			g_mutex_unlock(&engine->lock);
		}
		return GST_PAD_PROBE_OK;
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	enum umms_caption_format format;
	unsigned seen = 0;
	const GstVideoCaptionMeta *caption = caption_meta(buffer, &format, &seen);
	int64_t position = caption ? stream_time(pad, buffer) : -1;
	if (position < 0)
		return GST_PAD_PROBE_OK;
	GstElement *decoder = GST_ELEMENT(gst_pad_get_parent(pad));
	if (!decoder)
		return GST_PAD_PROBE_OK;
	size_t size = MIN(caption->size, MAX_BYTES);
	struct pending *pending = g_malloc(sizeof(*pending) + size);
	pending->position = position;
	pending->format = format;
	pending->size = size;
	memcpy(pending->data, caption->data, size);
	bool news = false;
	g_mutex_lock(&engine->lock);
	/* Playbin decodes every video track: the one shown counts (as gst-support.c's counters). */
	const char *id = g_object_get_data(G_OBJECT(decoder), "umms-stream-id");
	if (engine->current_video_id && g_strcmp0(id, engine->current_video_id) != 0) {
		g_free(pending);
	} else {
		g_queue_insert_sorted(&engine->caption_pending, pending, by_position, NULL);
		engine->captions_upstream = true;
		mark_seen(engine, seen, &news);
		if (g_queue_get_length(&engine->caption_pending) > MAX_PENDING)
			release(engine, ((struct pending *)g_queue_peek_head(
				&engine->caption_pending))->position, &news);
	}
	g_mutex_unlock(&engine->lock);
	gst_object_unref(decoder);
	if (news)
		post_news(engine, "read at the decoder's input");
	return GST_PAD_PROBE_OK;
}

/*
 * Streaming thread: a picture (or EOS) at the video sink, before it waits
 * for its time. The caption data of the pictures up to it is decoded now;
 * where no decoder input carried any (a decoder that extracts them itself),
 * the picture's own.
 */
static GstPadProbeReturn
sink_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER)) {
		GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
		bool news = false;
		g_mutex_lock(&engine->lock);
		if (type == GST_EVENT_EOS)
			release(engine, G_MAXINT64, &news);
		else if (!engine->captions_upstream &&
				(type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_STREAM_START))
			reset_decoders(engine);
		g_mutex_unlock(&engine->lock);
		if (news)
			post_news(engine, "read at the decoder's input");
		return GST_PAD_PROBE_OK;
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	int64_t position = stream_time(pad, buffer);
	if (position < 0)
		return GST_PAD_PROBE_OK;
	enum umms_caption_format format;
	unsigned seen;
	bool news = false, upstream;
	g_mutex_lock(&engine->lock);
	upstream = engine->captions_upstream;
	if (upstream) {
		release(engine, position, &news);
	} else {
		const GstVideoCaptionMeta *caption = caption_meta(buffer, &format, &seen);
		if (caption)
			mark_seen(engine, feed(engine, position, format, caption->data,
				MIN(caption->size, MAX_BYTES)), &news);
	}
	g_mutex_unlock(&engine->lock);
	if (news)
		post_news(engine, upstream ? "read at the decoder's input" :
			"read on the decoded pictures");
	return GST_PAD_PROBE_OK;
}

void
gst_captions_watch_decoder(struct gst_engine *engine, GstElement *decoder)
{
	GstPad *pad = gst_element_get_static_pad(decoder, "sink");
	if (!pad)
		return;
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, decoder_probe, engine, NULL);
	gst_object_unref(pad);
}

/* A text list for captions, styled as the configuration says. */
static struct umms_cues *
new_cues(struct gst_engine *engine)
{
	struct umms_cues *cues = umms_cues_create_text();
	struct umms_cue_style style = {
		.size_permille = (int)engine->config->engine.subtitle_size,
		.margin_permille = (int)engine->config->engine.subtitle_margin,
	};
	umms_cues_set_style(cues, &style);
	return cues;
}

void
gst_captions_init(struct gst_engine *engine)
{
	for (int k = 0; k < GST_CAPTION_KINDS; k++)
		engine->caption_cues[k] = new_cues(engine);
	engine->captions = umms_captions_create(engine->caption_cues[GST_CAPTIONS_608]);
	engine->captions708 = umms_captions708_create(engine->caption_cues[GST_CAPTIONS_708],
		UMMS_CAPTIONS708_PRIMARY);
	GstPad *pad = gst_element_get_static_pad(engine->video_sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, sink_probe, engine, NULL);
	gst_object_unref(pad);
}

void
gst_captions_finish(struct gst_engine *engine)
{
	drop_pending(engine);
	g_clear_pointer(&engine->captions, umms_captions_destroy);
	g_clear_pointer(&engine->captions708, umms_captions708_destroy);
	for (int k = 0; k < GST_CAPTION_KINDS; k++)
		g_clear_pointer(&engine->caption_cues[k], umms_cues_unref);
}

void
gst_captions_reset(struct gst_engine *engine)
{
	if (!engine->captions)
		return;
	/* Another media: its captions are not this one's. */
	struct umms_cues *cues[GST_CAPTION_KINDS], *old_cues[GST_CAPTION_KINDS];
	for (int k = 0; k < GST_CAPTION_KINDS; k++)
		cues[k] = new_cues(engine);
	struct umms_captions *captions = umms_captions_create(cues[GST_CAPTIONS_608]);
	struct umms_captions708 *captions708 = umms_captions708_create(cues[GST_CAPTIONS_708],
		UMMS_CAPTIONS708_PRIMARY);
	g_mutex_lock(&engine->lock);
	struct umms_captions *old = engine->captions;
	struct umms_captions708 *old708 = engine->captions708;
	memcpy(old_cues, engine->caption_cues, sizeof(old_cues));
	engine->captions = captions;
	engine->captions708 = captions708;
	memcpy(engine->caption_cues, cues, sizeof(cues));
	engine->captions_seen = 0;
	engine->captions_upstream = false;
	drop_pending(engine);
	g_mutex_unlock(&engine->lock);
	engine->captions_listed = 0;
	umms_captions_destroy(old);
	umms_captions708_destroy(old708);
	for (int k = 0; k < GST_CAPTION_KINDS; k++)
		umms_cues_unref(old_cues[k]);
}

int
gst_captions_list(struct gst_engine *engine, int internal)
{
	g_mutex_lock(&engine->lock);
	unsigned seen = engine->captions_seen;
	g_mutex_unlock(&engine->lock);
	int n = 0;
	for (int k = 0; k < GST_CAPTION_KINDS; k++) {
		if (!(seen & (1u << k)))
			continue;
		/* Found after a later track was chosen (the external file): it is one further now. */
		if (!(engine->captions_listed & (1u << k)) &&
				engine->want[UMMS_TRACK_SUBTITLE] >= internal + n)
			engine->want[UMMS_TRACK_SUBTITLE]++;
		n++;
	}
	engine->captions_listed = seen;
	return n;
}

int
gst_captions_count(struct gst_engine *engine)
{
	return __builtin_popcount(engine->captions_listed);
}

/* The kind of the caption track @index of those listed, or -1. */
static int
listed_kind(struct gst_engine *engine, int index)
{
	for (int k = 0; k < GST_CAPTION_KINDS; k++) {
		if ((engine->captions_listed & (1u << k)) && index-- == 0)
			return k;
	}
	return -1;
}

struct umms_cues *
gst_captions_cues(struct gst_engine *engine, int index)
{
	int kind = listed_kind(engine, index);
	if (kind < 0)
		return NULL;
	g_mutex_lock(&engine->lock);
	struct umms_cues *cues = engine->caption_cues[kind] ?
		umms_cues_ref(engine->caption_cues[kind]) : NULL;
	g_mutex_unlock(&engine->lock);
	return cues;
}

struct umms_track *
gst_captions_track(struct gst_engine *engine, int index)
{
	struct umms_track *track = umms_track_create();
	if (listed_kind(engine, index) == GST_CAPTIONS_708) {
		track->codec = g_strdup("cea708");
		track->codec_description = g_strdup("CEA-708 closed captions (service 1)");
	} else {
		track->codec = g_strdup("cea608");
		track->codec_description = g_strdup("CEA-608 closed captions (CC1)");
	}
	return track;
}
