/*
 * Closed captions carried in the video: CEA-608 (CC1), in H.264 or MPEG-2
 * user data (A/53) or another caption meta a demuxer, parser or decoder
 * attaches (GstVideoCaptionMeta: raw 608 pairs, SMPTE 334-1 triplets,
 * CEA-708 cc_data or CDP). GStreamer 1.22 has no CEA-608 renderer, so the
 * bytes are decoded here (service/captions.h) into cues, drawn and told like
 * the external file's (gst-cues.c).
 *
 * A probe on the video sink's input sees every picture that reaches it, in
 * presentation order, before it waits for its time (even those then dropped
 * late), so a caption's cue is known when its picture is shown. Captions are
 * decoded whether shown or not, so choosing them finds what passed; the
 * track appears in SubtitleTracks (codec "cea608", kind "cc") after the
 * media's own text tracks from the first picture that carries caption data
 * (padding counts), and is off until chosen. A flush (a seek) starts the
 * decoder again; the cues stay.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <gst/video/video.h>

#include "captions.h"
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

/* Streaming thread: the caption data of a picture due on the video sink. */
static void
picture(struct gst_engine *engine, GstPad *pad, GstBuffer *buffer)
{
	if (!gst_buffer_get_meta(buffer, GST_VIDEO_CAPTION_META_API_TYPE) ||
			!GST_BUFFER_PTS_IS_VALID(buffer))
		return;
	GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
	if (!event)
		return;
	const GstSegment *segment;
	gst_event_parse_segment(event, &segment);
	GstClockTime time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME,
		GST_BUFFER_PTS(buffer));
	gst_event_unref(event);
	if (!GST_CLOCK_TIME_IS_VALID(time))
		return;
	bool seen = false, news;
	g_mutex_lock(&engine->lock);
	/*
	 * The first meta with field-1 data only: a parser and a decoder may
	 * both attach the same bytes.
	 */
	gpointer state = NULL;
	GstMeta *meta;
	while (!seen && (meta = gst_buffer_iterate_meta_filtered(buffer, &state,
			GST_VIDEO_CAPTION_META_API_TYPE))) {
		const GstVideoCaptionMeta *caption = (const GstVideoCaptionMeta *)meta;
		enum umms_caption_format format;
		if (caption->data && format_of(caption->caption_type, &format))
			seen = umms_captions_feed(engine->captions, (int64_t)(time / 1000), format,
				caption->data, caption->size);
	}
	news = seen && !engine->captions_seen;
	engine->captions_seen |= seen;
	g_mutex_unlock(&engine->lock);
	if (news) {
		umms_debug("the video carries CEA-608 captions");
		/* The main loop lists the track (gst-engine.c's bus). */
		gst_element_post_message(engine->video_sink, gst_message_new_application(
			GST_OBJECT(engine->video_sink), gst_structure_new_empty("umms-streams")));
	}
}

static GstPadProbeReturn
sink_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
		picture(engine, pad, GST_PAD_PROBE_INFO_BUFFER(info));
		return GST_PAD_PROBE_OK;
	}
	GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
	if (type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_STREAM_START) {
		g_mutex_lock(&engine->lock);
		umms_captions_reset(engine->captions);
		g_mutex_unlock(&engine->lock);
	}
	return GST_PAD_PROBE_OK;
}

void
gst_captions_init(struct gst_engine *engine)
{
	engine->caption_cues = umms_cues_create_text();
	struct umms_cue_style style = {
		.size_permille = (int)engine->config->engine.subtitle_size,
		.margin_permille = (int)engine->config->engine.subtitle_margin,
	};
	umms_cues_set_style(engine->caption_cues, &style);
	engine->captions = umms_captions_create(engine->caption_cues);
	GstPad *pad = gst_element_get_static_pad(engine->video_sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, sink_probe, engine, NULL);
	gst_object_unref(pad);
}

void
gst_captions_finish(struct gst_engine *engine)
{
	g_clear_pointer(&engine->captions, umms_captions_destroy);
	g_clear_pointer(&engine->caption_cues, umms_cues_unref);
}

void
gst_captions_reset(struct gst_engine *engine)
{
	if (!engine->captions)
		return;
	/* Another media: its captions are not this one's. */
	struct umms_cues *cues = umms_cues_create_text();
	struct umms_cue_style style = {
		.size_permille = (int)engine->config->engine.subtitle_size,
		.margin_permille = (int)engine->config->engine.subtitle_margin,
	};
	umms_cues_set_style(cues, &style);
	struct umms_captions *captions = umms_captions_create(cues);
	g_mutex_lock(&engine->lock);
	struct umms_captions *old = engine->captions;
	struct umms_cues *old_cues = engine->caption_cues;
	engine->captions = captions;
	engine->caption_cues = cues;
	engine->captions_seen = false;
	g_mutex_unlock(&engine->lock);
	engine->captions_listed = false;
	umms_captions_destroy(old);
	umms_cues_unref(old_cues);
}

int
gst_captions_count(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	bool seen = engine->captions_seen;
	g_mutex_unlock(&engine->lock);
	return seen ? 1 : 0;
}

struct umms_cues *
gst_captions_cues(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	struct umms_cues *cues = engine->caption_cues ? umms_cues_ref(engine->caption_cues) : NULL;
	g_mutex_unlock(&engine->lock);
	return cues;
}

struct umms_track *
gst_captions_track(void)
{
	struct umms_track *track = umms_track_create();
	track->codec = g_strdup("cea608");
	track->codec_description = g_strdup("CEA-608 closed captions (CC1)");
	return track;
}
