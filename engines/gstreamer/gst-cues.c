/*
 * Subtitle cues on the video's clock: the selected track's cues (the
 * external file's, or the media's own text track's, caught by probes on
 * playbin's pads for them) are looked up at each frame due on screen, minus
 * the subtitle delay. A cue that became active is queued for the main loop
 * (events.subtitle_cue → Player1.SubtitleCue); the external file's cues
 * are also drawn (engines/cues.h) into the subpicture the frame carries.
 * The media's own tracks are drawn by playbin's overlay (gst-delay.c
 * carries the delay there), but for teletext (gst-teletext.c) and DVD and
 * PGS bitmaps: those are decoded here from the same pad
 * (engines/bitmap-subs.h) into bitmap cues, drawn like the external file's,
 * scaled from the stream's reference picture (dvdspu never gets them:
 * gst-spu.c). Captions carried in the video are decoded into cues of their
 * own (gst-captions.c) and drawn like the external file's.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "bitmap-subs.h"
#include "cues.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"

/*
 * The media's own cues are kept this long behind the newest (a seek back
 * into one finds it: the demuxer does not send it again), and no longer,
 * so a stream that runs for hours keeps a few hundred.
 */
#define EMBEDDED_KEEP_US ((int64_t)30 * 60 * G_USEC_PER_SEC)
/* Bitmap cues are images (hundreds of KiB at 1080 lines): 5 minutes of them. */
#define BITMAP_KEEP_US ((int64_t)5 * 60 * G_USEC_PER_SEC)

struct cue_event {
	struct umms_cue cue;
	bool ass;
};

/* A bitmap track's decoder, on its pad (streaming thread only). */
struct bitmap_input {
	GstCaps *caps;          /* the caps it was made for */
	struct umms_bitmap_decoder *decoder;
};

static void
bitmap_input_free(gpointer data)
{
	struct bitmap_input *input = data;
	if (input->caps)
		gst_caps_unref(input->caps);
	umms_bitmap_decoder_free(input->decoder);
	g_free(input);
}

static void
cue_event_free(gpointer data)
{
	struct cue_event *event = data;
	umms_cue_clear(&event->cue);
	g_free(event);
}

void
gst_cues_init(struct gst_engine *engine)
{
	engine->cues_due = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(engine->cues_due, (GDestroyNotify)umms_cue_clear);
	engine->cue_events = g_async_queue_new_full(cue_event_free);
	engine->cues_checked = -1;
}

void
gst_cues_finish(struct gst_engine *engine)
{
	umms_cues_unref(engine->cue_track);
	if (engine->cues_due)
		g_array_unref(engine->cues_due);
	if (engine->cue_events)
		g_async_queue_unref(engine->cue_events);
}

static GQuark
cues_quark(void)
{
	static GQuark quark;
	if (!quark)
		quark = g_quark_from_static_string("umms-cues");
	return quark;
}

static GQuark
bitmap_quark(void)
{
	static GQuark quark;
	if (!quark)
		quark = g_quark_from_static_string("umms-bitmap-input");
	return quark;
}

/* Whether @caps are a bitmap track's we decode (DVD, PGS); its format in @format. */
static bool
bitmap_caps(GstCaps *caps, enum umms_bitmap_format *format)
{
	GstStructure *s = caps && !gst_caps_is_empty(caps) ? gst_caps_get_structure(caps, 0) :
		NULL;
	if (s && gst_structure_has_name(s, "subpicture/x-dvd")) {
		*format = UMMS_BITMAP_DVD;
		return true;
	}
	if (s && gst_structure_has_name(s, "subpicture/x-pgs")) {
		*format = UMMS_BITMAP_PGS;
		return true;
	}
	return false;
}

/* The decoder of @pad's stream, made again when its caps change (NULL: not bitmaps). */
static struct bitmap_input *
bitmap_input(GstPad *pad, GstCaps *caps)
{
	enum umms_bitmap_format format;
	if (!bitmap_caps(caps, &format))
		return NULL;
	struct bitmap_input *input = g_object_get_qdata(G_OBJECT(pad), bitmap_quark());
	if (input && input->caps && gst_caps_is_equal(input->caps, caps))
		return input;
	input = g_new0(struct bitmap_input, 1);
	input->caps = gst_caps_ref(caps);
	input->decoder = umms_bitmap_decoder_new(format);
	const GValue *value = gst_structure_get_value(gst_caps_get_structure(caps, 0),
		"codec_data");
	GstBuffer *private = value && G_VALUE_HOLDS(value, GST_TYPE_BUFFER) ?
		gst_value_get_buffer(value) : NULL;
	GstMapInfo map;
	if (private && gst_buffer_map(private, &map, GST_MAP_READ)) {
		umms_bitmap_decoder_set_private(input->decoder, map.data, map.size);
		gst_buffer_unmap(private, &map);
	}
	g_object_set_qdata_full(G_OBJECT(pad), bitmap_quark(), input, bitmap_input_free);
	return input;
}

/* A DVD track's palette change (matroskademux and dvdreadsrc send it as an event). */
static void
bitmap_clut_event(GstPad *pad, GstEvent *event)
{
	const GstStructure *s = gst_event_get_structure(event);
	GstCaps *caps = gst_pad_get_current_caps(pad);
	struct bitmap_input *input = bitmap_input(pad, caps);
	if (caps)
		gst_caps_unref(caps);
	if (!input || !s || !gst_structure_has_name(s, "application/x-gst-dvd") ||
			g_strcmp0(gst_structure_get_string(s, "event"), "dvd-spu-clut-change") != 0)
		return;
	uint32_t clut[16];
	for (int i = 0; i < 16; i++) {
		char name[8];
		int v = 0;
		g_snprintf(name, sizeof(name), "clut%02d", i);
		if (!gst_structure_get_int(s, name, &v))
			return;
		clut[i] = (uint32_t)v;
	}
	umms_bitmap_decoder_set_clut(input->decoder, clut);
}

/* @pts on the stream's timeline in µs, also before the segment's start (a unit begun before). */
static bool
stream_time_us(const GstSegment *segment, GstClockTime pts, int64_t *us)
{
	guint64 time = 0;
	int sign = gst_segment_to_stream_time_full(segment, GST_FORMAT_TIME, pts, &time);
	if (sign == 0)
		return false;
	*us = sign > 0 ? (int64_t)(time / 1000) : -(int64_t)(time / 1000);
	return true;
}

/* A bitmap track's unit, decoded into its cue list. */
static void
bitmap_buffer(struct umms_cues *cues, struct bitmap_input *input, const GstSegment *segment,
	GstBuffer *buffer)
{
	int64_t pts;
	GstMapInfo map;
	if (!stream_time_us(segment, GST_BUFFER_PTS(buffer), &pts) ||
			!gst_buffer_map(buffer, &map, GST_MAP_READ))
		return;
	struct umms_bitmap_cue cue = { 0 };
	bool made = umms_bitmap_decoder_decode(input->decoder, map.data, map.size, pts, &cue);
	gst_buffer_unmap(buffer, &map);
	if (!made)
		return;
	umms_cues_forget_before(cues, cue.start - BITMAP_KEEP_US);
	umms_cues_add_bitmap(cues, cue.start, cue.end, cue.bitmap);
	umms_bitmap_unref(cue.bitmap);
}

/*
 * Streaming thread: a buffer of one of the media's text tracks, or of a
 * DVD or PGS track (decoded here into bitmap cues; dvdspu never gets them,
 * gst-spu.c), or an event of one.
 */
static GstPadProbeReturn
text_probe_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct umms_cues *cues = data;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) == GST_EVENT_CUSTOM_DOWNSTREAM ||
				GST_EVENT_TYPE(event) == GST_EVENT_CUSTOM_DOWNSTREAM_STICKY) {
			bitmap_clut_event(pad, event);
		} else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) {
			struct bitmap_input *input = g_object_get_qdata(G_OBJECT(pad),
				bitmap_quark());
			if (input)
				umms_bitmap_decoder_flush(input->decoder);
		}
		return GST_PAD_PROBE_OK;
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstCaps *caps = gst_pad_get_current_caps(pad);
	bool text = caps && !gst_caps_is_empty(caps) &&
		gst_structure_has_name(gst_caps_get_structure(caps, 0), "text/x-raw");
	struct bitmap_input *bitmap = text ? NULL : bitmap_input(pad, caps);
	if (caps)
		gst_caps_unref(caps);
	GstEvent *event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0);
	if ((!text && !bitmap) || !event || !buffer || !GST_BUFFER_PTS_IS_VALID(buffer)) {
		if (event)
			gst_event_unref(event);
		return GST_PAD_PROBE_OK;
	}
	const GstSegment *segment;
	gst_event_parse_segment(event, &segment);
	if (bitmap) {
		bitmap_buffer(cues, bitmap, segment, buffer);
		gst_event_unref(event);
		return GST_PAD_PROBE_OK;
	}
	GstClockTime pts = GST_BUFFER_PTS(buffer);
	GstClockTime start = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts);
	GstClockTime end = GST_BUFFER_DURATION_IS_VALID(buffer) ?
		gst_segment_to_stream_time(segment, GST_FORMAT_TIME,
			pts + GST_BUFFER_DURATION(buffer)) : GST_CLOCK_TIME_NONE;
	gst_event_unref(event);
	GstMapInfo map;
	if (!GST_CLOCK_TIME_IS_VALID(start) || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return GST_PAD_PROBE_OK;
	/* Hostile sizes: a cue is a few lines. Empty (a teletext page cleared): no text. */
	g_autofree char *markup = map.size ? g_strndup((const char *)map.data,
		MIN(map.size, 64 * 1024)) : g_strdup("");
	gst_buffer_unmap(buffer, &map);
	int64_t start_us = (int64_t)(start / 1000);
	umms_cues_forget_before(cues, start_us - EMBEDDED_KEEP_US);
	/* Its place on the picture, where its decoder knows it (teletext's rows). */
	struct umms_cue_place place;
	bool placed = gst_support_cue_place(buffer, &place);
	umms_cues_add_placed(cues, start_us, GST_CLOCK_TIME_IS_VALID(end) ?
		(int64_t)(end / 1000) : -1, markup, placed ? &place : NULL);
	return GST_PAD_PROBE_OK;
}

/*
 * The cues of the media's text track behind @pad (playbin's get-text-pad),
 * caught from its first buffer on: the demuxer sends text ahead of the
 * picture (seconds of it while prerolling), so every text track is probed
 * as soon as playbin has its pad, selected or not, and switching to one
 * finds its cues there. The pad keeps the list. Cues are kept across
 * seeks (the demuxer sends again only the cues that start after the
 * target, so a cue seen before that the target falls inside is still
 * known); the same cue sent again is not added twice.
 */
static struct umms_cues *
pad_cues(GstPad *pad)
{
	GST_OBJECT_LOCK(pad);
	struct umms_cues *cues = g_object_get_qdata(G_OBJECT(pad), cues_quark());
	if (!cues) {
		cues = umms_cues_create_text();
		g_object_set_qdata_full(G_OBJECT(pad), cues_quark(), cues,
			(GDestroyNotify)umms_cues_unref);
	}
	GST_OBJECT_UNLOCK(pad);
	return cues;
}

struct umms_cues *
gst_cues_of_pad(GstPad *pad)
{
	return umms_cues_ref(pad_cues(pad));
}

static void
probe_text_pad(GstPad *pad)
{
	GST_OBJECT_LOCK(pad);
	bool probed = g_object_get_qdata(G_OBJECT(pad), cues_quark()) != NULL;
	GST_OBJECT_UNLOCK(pad);
	if (probed)
		return;
	struct umms_cues *cues = pad_cues(pad);
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM,
		text_probe_cb, umms_cues_ref(cues), (GDestroyNotify)umms_cues_unref);
}

/* Any thread: playbin has new text tracks. */
static void
text_changed_cb(GstElement *playbin, gpointer data)
{
	int n = 0;
	g_object_get(playbin, "n-text", &n, NULL);
	for (int i = 0; i < n; i++) {
		GstPad *pad = NULL;
		g_signal_emit_by_name(playbin, "get-text-pad", i, &pad);
		if (pad) {
			probe_text_pad(pad);
			gst_object_unref(pad);
		}
	}
}

void
gst_cues_watch(struct gst_engine *engine)
{
	g_signal_connect(engine->pipeline, "text-changed", G_CALLBACK(text_changed_cb), NULL);
}

bool
gst_cues_update(struct gst_engine *engine)
{
	const struct umms_media_info *info = &engine->base.info;
	int current = info->current[UMMS_TRACK_SUBTITLE];
	int internal = 0;
	if (current >= 0)
		g_object_get(engine->pipeline, "n-text", &internal, NULL);
	int captions = current >= internal ? gst_captions_count(engine) : 0;
	struct umms_cues *track = NULL, *caption_cues = NULL;
	bool drawn = false;
	if (current >= internal && current < internal + captions) {
		track = caption_cues = gst_captions_cues(engine, current - internal);
		drawn = true;
	} else if (current >= internal + captions && current >= 0 && engine->subtitles) {
		track = gst_subtitles_cues(engine->subtitles);
		drawn = true;
	} else if (current >= 0 && current < internal) {
		/*
		 * Teletext (gst-teletext.c), DVD and PGS are drawn from their
		 * cues, the rest by playbin.
		 */
		drawn = gst_teletext_selected(engine);
		GstPad *pad = NULL;
		g_signal_emit_by_name(engine->pipeline, "get-text-pad", current, &pad);
		if (pad) {
			probe_text_pad(pad);
			track = pad_cues(pad);
			GstCaps *caps = gst_pad_get_current_caps(pad);
			enum umms_bitmap_format format;
			drawn = drawn || bitmap_caps(caps, &format) || umms_cues_is_bitmap(track);
			if (caps)
				gst_caps_unref(caps);
			gst_object_unref(pad);
		}
	}

	g_mutex_lock(&engine->lock);
	/* The cues that stood go with their track: said at once, by an empty cue. */
	bool changed = engine->cue_track != track || engine->cue_track_drawn != drawn;
	bool cleared = engine->cue_track != track && engine->cues_due->len > 0;
	int64_t now = engine->cues_checked >= 0 ? engine->cues_checked + engine->subtitle_delay : 0;
	if (engine->cue_track != track) {
		umms_cues_unref(engine->cue_track);
		engine->cue_track = track ? umms_cues_ref(track) : NULL;
		g_array_set_size(engine->cues_due, 0);
		engine->cues_checked = -1;
	}
	engine->cue_track_drawn = drawn;
	g_mutex_unlock(&engine->lock);
	umms_cues_unref(caption_cues);
	if (cleared && engine->frame_source) {
		struct cue_event *event = g_new0(struct cue_event, 1);
		event->cue.start = MAX(now, 0);
		event->cue.end = -1;
		event->cue.markup = g_strdup("");
		event->cue.plain = g_strdup("");
		g_async_queue_push(engine->cue_events, event);
		umms_source_wake(engine->frame_source);
	}
	return changed;
}

void
gst_cues_reset(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	g_array_set_size(engine->cues_due, 0);
	engine->cues_checked = -1;
	g_mutex_unlock(&engine->lock);
}

void
gst_cues_set_delay(struct gst_engine *engine, int64_t us)
{
	g_mutex_lock(&engine->lock);
	engine->subtitle_delay = us;
	g_mutex_unlock(&engine->lock);
}

/* Frames further apart than this are a jump: cues between them are not told. */
#define MAX_PASSED_US (2 * G_USEC_PER_SEC)

static bool
was_due(GArray *due, const struct umms_cue *cue)
{
	for (guint i = 0; i < due->len; i++) {
		const struct umms_cue *old = &g_array_index(due, struct umms_cue, i);
		if (old->start == cue->start && strcmp(old->markup, cue->markup) == 0)
			return true;
	}
	return false;
}

void
gst_cues_frame_due(struct gst_engine *engine, int64_t position)
{
	if (position < 0)
		return;
	g_mutex_lock(&engine->lock);
	struct umms_cues *track = engine->cue_track ? umms_cues_ref(engine->cue_track) : NULL;
	int64_t delay = engine->subtitle_delay;
	/*
	 * Playing on from the last frame checked (not a seek, not a jump):
	 * cues that began and ended between the two (their frames dropped
	 * late, on a loaded machine) are told too.
	 */
	int64_t since = engine->cues_checked, now = position - delay;
	if (since > now || now - since > MAX_PASSED_US)
		since = -1;
	engine->cues_checked = now;
	g_mutex_unlock(&engine->lock);
	if (!track)
		return;
	GArray *active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_passed(track, since, now, active);
	bool queued = false;
	g_mutex_lock(&engine->lock);
	/* The track may have changed meanwhile: its cues are not this one's. */
	if (engine->cue_track == track) {
		for (guint i = 0; i < active->len; i++) {
			struct umms_cue *cue = &g_array_index(active, struct umms_cue, i);
			/*
			 * A cue of no text only ends the one before (a blank
			 * teletext page, a PGS display set that clears).
			 */
			if (was_due(engine->cues_due, cue) || (!cue->plain[0] && !cue->bitmap))
				continue;
			struct cue_event *event = g_new0(struct cue_event, 1);
			event->cue.start = cue->start + delay;
			event->cue.end = cue->end >= 0 ? cue->end + delay : -1;
			event->cue.markup = g_strdup(cue->markup);
			event->cue.plain = g_strdup(cue->plain);
			event->cue.bitmap = cue->bitmap;
			event->ass = umms_cues_is_ass(track);
			g_async_queue_push(engine->cue_events, event);
			queued = true;
		}
		GArray *old = engine->cues_due;
		engine->cues_due = active;
		active = old;
	}
	g_mutex_unlock(&engine->lock);
	g_array_unref(active);
	umms_cues_unref(track);
	if (queued)
		umms_source_wake(engine->frame_source);
}

struct umms_subpicture *
gst_cues_subpicture(struct gst_engine *engine, int64_t position, int width, int height)
{
	if (position < 0)
		return NULL;
	g_mutex_lock(&engine->lock);
	struct umms_cues *track = engine->cue_track && (engine->cue_track_drawn ||
		umms_cues_is_bitmap(engine->cue_track)) ? umms_cues_ref(engine->cue_track) : NULL;
	int64_t delay = engine->subtitle_delay;
	g_mutex_unlock(&engine->lock);
	if (!track)
		return NULL;
	struct umms_subpicture *subpicture = umms_cues_render(track, position - delay, width,
		height);
	umms_cues_unref(track);
	return subpicture;
}

void
gst_cues_dispatch(struct gst_engine *engine)
{
	struct cue_event *event;
	while ((event = g_async_queue_try_pop(engine->cue_events))) {
		/* Blocked: read, not shown (gst-block.c). */
		if (gst_block_active(engine)) {
			cue_event_free(event);
			continue;
		}
		struct umms_subtitle_cue cue = {
			.start = event->cue.start,
			.end = event->cue.end,
			/* A bitmap cue's times only: its markup is its image's key. */
			.text = event->cue.plain,
			.markup = event->cue.bitmap ? "" : event->cue.markup,
			.format = event->cue.bitmap ? "bitmap" : event->ass ? "ass" : "pango",
		};
		umms_debug("subtitle cue %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " µs: %s",
			cue.start, cue.end, cue.text);
		wl_signal_emit_mutable(&engine->base.events.subtitle_cue, &cue);
		cue_event_free(event);
	}
}
