/*
 * What playbin tells about the media, as a struct umms_media_info: its
 * streams (n-video, get-video-tags, get-video-pad…) become the track lists,
 * current-video/-audio/-text the current tracks, global tags the metadata,
 * queries the duration and seekability.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/pbutils/pbutils.h>
#include <gst/tag/tag.h>

#include "gst-private.h"
#include "log.h"

struct codec_name {
	const char *media_type;
	const char *field;      /* NULL, or a field that tells variants apart */
	int value;
	const char *name;
};

/* Short codec names, as applications (and browsers' canPlayType) use them. */
static const struct codec_name codec_names[] = {
	{ "video/x-h264", NULL, 0, "h264" },
	{ "video/x-h265", NULL, 0, "hevc" },
	{ "video/x-h266", NULL, 0, "vvc" },
	{ "video/x-vp8", NULL, 0, "vp8" },
	{ "video/x-vp9", NULL, 0, "vp9" },
	{ "video/x-av1", NULL, 0, "av1" },
	{ "video/x-theora", NULL, 0, "theora" },
	{ "video/mpeg", "mpegversion", 1, "mpeg1" },
	{ "video/mpeg", "mpegversion", 2, "mpeg2" },
	{ "video/mpeg", "mpegversion", 4, "mpeg4" },
	{ "video/x-divx", NULL, 0, "mpeg4" },
	{ "video/x-h263", NULL, 0, "h263" },
	{ "video/x-jpeg", NULL, 0, "mjpeg" },
	{ "image/jpeg", NULL, 0, "mjpeg" },
	{ "video/x-prores", NULL, 0, "prores" },
	{ "video/x-wmv", NULL, 0, "wmv" },
	{ "video/x-raw", NULL, 0, "raw" },
	{ "audio/x-opus", NULL, 0, "opus" },
	{ "audio/x-vorbis", NULL, 0, "vorbis" },
	{ "audio/x-flac", NULL, 0, "flac" },
	{ "audio/mpeg", "mpegversion", 2, "aac" },
	{ "audio/mpeg", "mpegversion", 4, "aac" },
	{ "audio/mpeg", "layer", 2, "mp2" },   /* MPEG-1 Layer II: DVB's, a time-shift ring's */
	{ "audio/mpeg", "mpegversion", 1, "mp3" },
	{ "audio/x-ac3", NULL, 0, "ac3" },
	{ "audio/x-eac3", NULL, 0, "eac3" },
	{ "audio/x-dts", NULL, 0, "dts" },
	{ "audio/x-alac", NULL, 0, "alac" },
	{ "audio/x-wma", NULL, 0, "wma" },
	{ "audio/x-raw", NULL, 0, "pcm" },
	{ "audio/x-alaw", NULL, 0, "alaw" },
	{ "audio/x-mulaw", NULL, 0, "mulaw" },
	{ "text/x-raw", NULL, 0, "text" },
	{ "application/x-subtitle", NULL, 0, "subrip" },
	{ "application/x-subtitle-vtt", NULL, 0, "webvtt" },
	{ "application/x-ssa", NULL, 0, "ssa" },
	{ "application/x-ass", NULL, 0, "ass" },
	{ "application/x-subtitle-sami", NULL, 0, "sami" },
	{ "application/ttml+xml", NULL, 0, "ttml" },
	{ "subpicture/x-dvd", NULL, 0, "dvdsub" },
	{ "subpicture/x-dvb", NULL, 0, "dvbsub" },
	{ "subpicture/x-pgs", NULL, 0, "pgs" },
	{ "closedcaption/x-cea-608", NULL, 0, "cea608" },
	{ "closedcaption/x-cea-708", NULL, 0, "cea708" },
	{ "application/x-teletext", NULL, 0, "teletext" },
};

/* Container short names from typefind caps. */
static const struct codec_name container_names[] = {
	{ "video/x-matroska", NULL, 0, "matroska" },
	{ "video/webm", NULL, 0, "webm" },
	{ "audio/webm", NULL, 0, "webm" },
	{ "audio/x-matroska", NULL, 0, "matroska" },
	{ "video/mpegts", NULL, 0, "mpegts" },
	{ "video/mpeg", "systemstream", 1, "mpegps" },
	{ "application/ogg", NULL, 0, "ogg" },
	{ "audio/ogg", NULL, 0, "ogg" },
	{ "video/ogg", NULL, 0, "ogg" },
	{ "video/x-msvideo", NULL, 0, "avi" },
	{ "video/x-flv", NULL, 0, "flv" },
	{ "application/x-id3", NULL, 0, "mp3" },
	{ "audio/x-wav", NULL, 0, "wav" },
	{ "audio/x-flac", NULL, 0, "flac" },
	{ "application/x-hls", NULL, 0, "hls" },
	{ "application/dash+xml", NULL, 0, "dash" },
	{ "application/x-rtp", NULL, 0, "rtp" },
};

static const char *
lookup_name(const struct codec_name *table, size_t n, const GstStructure *s)
{
	const char *media_type = gst_structure_get_name(s);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(table[i].media_type, media_type) != 0)
			continue;
		if (!table[i].field)
			return table[i].name;
		int value;
		gboolean flag;
		if (gst_structure_get_int(s, table[i].field, &value) && value == table[i].value)
			return table[i].name;
		if (gst_structure_get_boolean(s, table[i].field, &flag) && flag == table[i].value)
			return table[i].name;
	}
	return NULL;
}

char *
gst_media_codec_name(const GstCaps *caps)
{
	if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps))
		return g_strdup("unknown");
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	const char *name = lookup_name(codec_names, G_N_ELEMENTS(codec_names), s);
	if (name)
		return g_strdup(name);
	/* Unknown to us: the media type without its category, "x-" dropped. */
	const char *type = strchr(gst_structure_get_name(s), '/');
	type = type ? type + 1 : gst_structure_get_name(s);
	return g_strdup(g_str_has_prefix(type, "x-") ? type + 2 : type);
}

void
gst_media_set_container(struct gst_engine *engine, GstCaps *caps)
{
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	const char *name = lookup_name(container_names, G_N_ELEMENTS(container_names), s);
	char *container;
	if (name) {
		container = g_strdup(name);
	} else if (strcmp(gst_structure_get_name(s), "video/quicktime") == 0) {
		const char *variant = gst_structure_get_string(s, "variant");
		container = g_strdup(variant && strcmp(variant, "apple") == 0 ? "quicktime" : "mp4");
	} else {
		/* An elementary stream: its codec is its container. */
		container = gst_media_codec_name(caps);
	}
	g_mutex_lock(&engine->lock);
	if (!engine->container)
		engine->container = container;
	else
		g_free(container);
	g_mutex_unlock(&engine->lock);
}

void
gst_media_reset(struct gst_engine *engine)
{
	for (int k = 0; k < UMMS_TRACK_KINDS; k++)
		engine->want[k] = -2;
	g_clear_pointer(&engine->tags, gst_tag_list_unref);
	g_mutex_lock(&engine->lock);
	g_clear_pointer(&engine->container, g_free);
	g_hash_table_remove_all(engine->stream_caps);
	g_mutex_unlock(&engine->lock);
	g_clear_pointer(&engine->missing, g_free);
	umms_media_info_reset(&engine->base.info);
	gst_captions_reset(engine);
	gst_cues_update(engine);
}

static const struct {
	const char *count;    /* property: number of streams */
	const char *current;  /* property: the one playing */
	const char *tags;     /* action signal: its tags */
	const char *pad;      /* action signal: its pad into playbin's selector */
} streams[UMMS_TRACK_KINDS] = {
	[UMMS_TRACK_VIDEO] = { "n-video", "current-video", "get-video-tags", "get-video-pad" },
	[UMMS_TRACK_AUDIO] = { "n-audio", "current-audio", "get-audio-tags", "get-audio-pad" },
	[UMMS_TRACK_SUBTITLE] = { "n-text", "current-text", "get-text-tags", "get-text-pad" },
};

static int
tag_int(const GstTagList *tags, const char *tag)
{
	guint value = 0;
	if (tags && (gst_tag_list_get_uint(tags, tag, &value) ||
			gst_tag_list_get_uint(tags, GST_TAG_NOMINAL_BITRATE, &value)))
		return (int)MIN(value, (guint)G_MAXINT);
	return 0;
}

static const char *const codec_tags[UMMS_TRACK_KINDS] = {
	[UMMS_TRACK_VIDEO] = GST_TAG_VIDEO_CODEC,
	[UMMS_TRACK_AUDIO] = GST_TAG_AUDIO_CODEC,
	[UMMS_TRACK_SUBTITLE] = GST_TAG_SUBTITLE_CODEC,
};

/*
 * One of playbin's streams as a track. The pad into playbin's selector
 * carries decoded caps (size, rate, channels) and the stream id, which
 * leads to the caps its decoder was given (the codec).
 */
static struct umms_track *
track_from_stream(struct gst_engine *engine, enum umms_track_kind kind, int index)
{
	struct umms_track *track = umms_track_create();
	GstTagList *tags = NULL;
	GstPad *pad = NULL;
	g_signal_emit_by_name(engine->pipeline, streams[kind].tags, index, &tags);
	g_signal_emit_by_name(engine->pipeline, streams[kind].pad, index, &pad);
	GstCaps *caps = pad ? gst_pad_get_current_caps(pad) : NULL;
	char *stream_id = pad ? gst_pad_get_stream_id(pad) : NULL;

	GstCaps *coded = NULL;
	g_mutex_lock(&engine->lock);
	if (stream_id && (coded = g_hash_table_lookup(engine->stream_caps, stream_id)))
		gst_caps_ref(coded);
	g_mutex_unlock(&engine->lock);
	/* No decoder: the stream arrives as it is (text, raw). */
	GstCaps *codec_caps = coded ? coded : caps;
	track->codec = gst_media_codec_name(codec_caps);
	if (codec_caps && !gst_caps_is_empty(codec_caps) && !gst_caps_is_any(codec_caps))
		track->codec_description = gst_pb_utils_get_codec_description(codec_caps);
	if (tags && (!track->codec_description || !coded)) {
		char *description = NULL;
		if (gst_tag_list_get_string(tags, codec_tags[kind], &description)) {
			g_free(track->codec_description);
			track->codec_description = description;
		}
	}

	char *language = NULL;
	if (tags && gst_tag_list_get_string(tags, GST_TAG_LANGUAGE_CODE, &language)) {
		/* Two-letter codes where they exist, as gst-discoverer shows. */
		const char *iso639_1 = gst_tag_get_language_code_iso_639_1(language);
		track->language = g_strdup(iso639_1 ? iso639_1 : language);
		g_free(language);
	}
	track->bitrate = tag_int(tags, GST_TAG_BITRATE);
	if (kind == UMMS_TRACK_SUBTITLE)
		gst_teletext_describe(engine, stream_id, track);

	const GstStructure *s = caps && !gst_caps_is_empty(caps) ?
		gst_caps_get_structure(caps, 0) : NULL;
	if (s && kind == UMMS_TRACK_VIDEO) {
		gst_structure_get_int(s, "width", &track->width);
		gst_structure_get_int(s, "height", &track->height);
		if (!gst_structure_get_fraction(s, "framerate", &track->fps_n, &track->fps_d)) {
			track->fps_n = 0;
			track->fps_d = 1;
		}
		if (!gst_structure_get_fraction(s, "pixel-aspect-ratio", &track->par_n,
				&track->par_d)) {
			track->par_n = 1;
			track->par_d = 1;
		}
	} else if (s && kind == UMMS_TRACK_AUDIO) {
		gst_structure_get_int(s, "channels", &track->channels);
		gst_structure_get_int(s, "rate", &track->rate);
	}
	if (kind == UMMS_TRACK_VIDEO && index == engine->base.info.current[UMMS_TRACK_VIDEO]) {
		g_mutex_lock(&engine->lock);
		g_free(engine->current_video_id);
		engine->current_video_id = g_strdup(stream_id);
		g_mutex_unlock(&engine->lock);
	}
	if (coded)
		gst_caps_unref(coded);
	if (caps)
		gst_caps_unref(caps);
	if (tags)
		gst_tag_list_unref(tags);
	if (pad)
		gst_object_unref(pad);
	g_free(stream_id);
	return track;
}

static int
internal_count(struct gst_engine *engine, enum umms_track_kind kind)
{
	int n = 0;
	g_object_get(engine->pipeline, streams[kind].count, &n, NULL);
	return n;
}

int
gst_media_external_index(struct gst_engine *engine)
{
	return internal_count(engine, UMMS_TRACK_SUBTITLE) + gst_captions_count(engine);
}

static bool
external_subtitles(struct gst_engine *engine)
{
	return engine->subtitles && gst_subtitles_ready(engine->subtitles);
}

/*
 * "Subtitles off", the captions and the external file are decided here:
 * playbin keeps its text track (if any) selected, and its overlays are
 * hidden (gst-overlay.c). The captions come after the media's own text
 * tracks, the external file last.
 */
static bool
subtitles_ours(struct gst_engine *engine)
{
	int want = engine->want[UMMS_TRACK_SUBTITLE];
	return want == -1 || want >= internal_count(engine, UMMS_TRACK_SUBTITLE);
}

void
gst_media_update_tracks(struct gst_engine *engine)
{
	struct umms_media_info *info = &engine->base.info;
	for (int k = 0; k < UMMS_TRACK_KINDS; k++) {
		int current = -1;
		g_object_get(engine->pipeline, streams[k].current, &current, NULL);
		int n = internal_count(engine, k);
		info->current[k] = current >= 0 && current < n ? current : (n > 0 ? 0 : -1);
		g_ptr_array_set_size(info->tracks[k], 0);
		for (int i = 0; i < n; i++)
			g_ptr_array_add(info->tracks[k], track_from_stream(engine, k, i));
	}
	int internal = internal_count(engine, UMMS_TRACK_SUBTITLE);
	gst_overlay_watch_text_pads(engine, internal);
	int captions = gst_captions_list(engine, internal);
	for (int i = 0; i < captions; i++)
		g_ptr_array_add(info->tracks[UMMS_TRACK_SUBTITLE], gst_captions_track(engine, i));
	int external = internal + captions;
	if (external_subtitles(engine)) {
		struct umms_track *track = umms_track_create();
		track->codec = g_strdup(gst_subtitles_codec(engine->subtitles));
		track->codec_description = g_strdup(gst_subtitles_description(engine->subtitles));
		track->language = g_strdup(gst_subtitles_language(engine->subtitles));
		track->external = true;
		g_ptr_array_add(info->tracks[UMMS_TRACK_SUBTITLE], track);
	}
	if (subtitles_ours(engine)) {
		int want = engine->want[UMMS_TRACK_SUBTITLE];
		bool show_external = external_subtitles(engine) && want == external;
		bool show_captions = want >= internal && want < internal + captions;
		info->current[UMMS_TRACK_SUBTITLE] = show_external || show_captions ? want : -1;
	}
	bool cues_changed = gst_cues_update(engine);
	/* Teletext is drawn from its cues, not by playbin (gst-teletext.c). */
	gst_overlay_set_shown(engine, !subtitles_ours(engine) && !gst_teletext_selected(engine));
	/* Paused: the picture on screen shows the new track's cue (image and text) now. */
	if (cues_changed && engine->base.state == UMMS_ENGINE_PAUSED)
		gst_video_refresh(engine);
}

void
gst_media_apply_selection(struct gst_engine *engine)
{
	for (int k = 0; k < UMMS_TRACK_KINDS; k++) {
		int want = engine->want[k];
		if (want < 0 || want >= internal_count(engine, k))
			continue;
		int current = -1;
		g_object_get(engine->pipeline, streams[k].current, &current, NULL);
		if (current != want) {
			umms_debug("switching to %s track %d", umms_track_kind_name(k), want);
			/* Cues read beside the pipeline were the old track's. */
			if (k == UMMS_TRACK_SUBTITLE)
				gst_delay_cancel(engine);
			g_object_set(engine->pipeline, streams[k].current, want, NULL);
		}
	}
	gst_media_update_tracks(engine);
}

/* Tags a person would call the media's metadata, and their D-Bus keys. */
static const char *const metadata_tags[] = {
	GST_TAG_TITLE, GST_TAG_ARTIST, GST_TAG_ALBUM, GST_TAG_ALBUM_ARTIST, GST_TAG_GENRE,
	GST_TAG_COMMENT, GST_TAG_DESCRIPTION, GST_TAG_TRACK_NUMBER, GST_TAG_TRACK_COUNT,
	GST_TAG_ALBUM_VOLUME_NUMBER, GST_TAG_COMPOSER, GST_TAG_COPYRIGHT, GST_TAG_LICENSE,
	GST_TAG_ORGANIZATION, GST_TAG_LOCATION, GST_TAG_HOMEPAGE, GST_TAG_KEYWORDS,
	GST_TAG_PERFORMER, GST_TAG_PUBLISHER, GST_TAG_SHOW_NAME,
	GST_TAG_SHOW_EPISODE_NUMBER, GST_TAG_SHOW_SEASON_NUMBER,
};

static GVariant *
metadata_variant(const GstTagList *tags)
{
	GVariantDict dict;
	g_variant_dict_init(&dict, NULL);
	for (size_t i = 0; tags && i < G_N_ELEMENTS(metadata_tags); i++) {
		const char *tag = metadata_tags[i];
		char *text = NULL;
		guint number;
		if (gst_tag_get_type(tag) == G_TYPE_UINT) {
			if (gst_tag_list_get_uint(tags, tag, &number))
				g_variant_dict_insert(&dict, tag, "u", number);
		} else if (gst_tag_list_get_string(tags, tag, &text)) {
			g_variant_dict_insert(&dict, tag, "s", text);
			g_free(text);
		}
	}
	GstDateTime *datetime = NULL;
	GDate *date = NULL;
	if (tags && gst_tag_list_get_date_time(tags, GST_TAG_DATE_TIME, &datetime)) {
		char *text = gst_date_time_to_iso8601_string(datetime);
		if (text)
			g_variant_dict_insert(&dict, "date", "s", text);
		g_free(text);
		gst_date_time_unref(datetime);
	} else if (tags && gst_tag_list_get_date(tags, GST_TAG_DATE, &date)) {
		char text[16];
		if (g_date_strftime(text, sizeof(text), "%Y-%m-%d", date))
			g_variant_dict_insert(&dict, "date", "s", text);
		g_date_free(date);
	}
	return g_variant_ref_sink(g_variant_dict_end(&dict));
}

void
gst_media_add_tags(struct gst_engine *engine, GstTagList *tags)
{
	if (gst_tag_list_get_scope(tags) != GST_TAG_SCOPE_GLOBAL)
		return;
	if (!engine->tags)
		engine->tags = gst_tag_list_new_empty();
	gst_tag_list_insert(engine->tags, tags, GST_TAG_MERGE_REPLACE);
	struct umms_media_info *info = &engine->base.info;
	g_clear_pointer(&info->metadata, g_variant_unref);
	info->metadata = metadata_variant(engine->tags);
	gst_engine_emit_info(engine);
}

void
gst_media_refresh(struct gst_engine *engine)
{
	struct umms_media_info *info = &engine->base.info;
	if (engine->base.state == UMMS_ENGINE_IDLE)
		return;

	gint64 duration;
	if (gst_element_query_duration(engine->pipeline, GST_FORMAT_TIME, &duration) &&
			duration >= 0)
		info->duration = duration / 1000;
	else if (info->live)
		info->duration = -1;

	bool seekable;
	int64_t start, end;
	if (gst_engine_query_seeking(engine, &seekable, &start, &end))
		info->seekable = seekable && !info->live;

	/* Caps and tags fill in as data flows. */
	gst_media_update_tracks(engine);

	g_mutex_lock(&engine->lock);
	if (engine->container && g_strcmp0(engine->container, info->container) != 0) {
		g_free(info->container);
		info->container = g_strdup(engine->container);
	}
	/* The decoder of the video track shown (playbin decodes every track). */
	GstElement *decoder = NULL;
	for (guint i = 0; i < engine->video_decoders->len; i++) {
		GstElement *candidate = engine->video_decoders->pdata[i];
		const char *id = g_object_get_data(G_OBJECT(candidate), "umms-stream-id");
		if (!decoder || (id && g_strcmp0(id, engine->current_video_id) == 0))
			decoder = candidate;
	}
	GstElementFactory *factory = decoder ? gst_element_get_factory(decoder) : NULL;
	const char *name = factory ? gst_plugin_feature_get_name(factory) : NULL;
	if (name && g_strcmp0(name, info->decoder) != 0) {
		g_free(info->decoder);
		info->decoder = g_strdup(name);
		const char *klass = gst_element_factory_get_metadata(factory,
			GST_ELEMENT_METADATA_KLASS);
		info->decoder_hardware = klass && strstr(klass, "Hardware");
	}
	g_mutex_unlock(&engine->lock);
}

/* ---- queries --------------------------------------------------------------- */

int64_t
gst_engine_query_position(struct gst_engine *engine)
{
	gint64 ns;
	if (!gst_element_query_position(engine->pipeline, GST_FORMAT_TIME, &ns) || ns < 0)
		return -1;
	return NS_TO_US(ns);
}

bool
gst_engine_query_seeking(struct gst_engine *engine, bool *seekable, int64_t *start,
	int64_t *end)
{
	GstQuery *query = gst_query_new_seeking(GST_FORMAT_TIME);
	gboolean can = FALSE;
	gint64 first = -1, last = -1;
	bool answered = gst_element_query(engine->pipeline, query);
	if (answered)
		gst_query_parse_seeking(query, NULL, &can, &first, &last);
	gst_query_unref(query);
	*seekable = can;
	*start = first >= 0 ? NS_TO_US(first) : -1;
	*end = last >= 0 ? NS_TO_US(last) : -1;
	return answered;
}
