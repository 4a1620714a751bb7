#include <string.h>

#include "media-info.h"

static const char *const kind_names[UMMS_TRACK_KINDS] = {
	[UMMS_TRACK_VIDEO] = "video",
	[UMMS_TRACK_AUDIO] = "audio",
	[UMMS_TRACK_SUBTITLE] = "subtitle",
};

struct umms_track *
umms_track_create(void)
{
	struct umms_track *track = g_new0(struct umms_track, 1);
	track->fps_d = 1;
	track->par_n = 1;
	track->par_d = 1;
	return track;
}

void
umms_track_destroy(struct umms_track *track)
{
	if (!track)
		return;
	g_free(track->codec);
	g_free(track->codec_description);
	g_free(track->language);
	g_free(track);
}

void
umms_media_info_init(struct umms_media_info *info)
{
	memset(info, 0, sizeof(*info));
	for (int k = 0; k < UMMS_TRACK_KINDS; k++)
		info->tracks[k] = g_ptr_array_new_with_free_func(
			(GDestroyNotify)umms_track_destroy);
	umms_media_info_reset(info);
}

void
umms_media_info_reset(struct umms_media_info *info)
{
	g_clear_pointer(&info->container, g_free);
	g_clear_pointer(&info->decoder, g_free);
	g_clear_pointer(&info->metadata, g_variant_unref);
	info->metadata = g_variant_ref_sink(g_variant_new("a{sv}", NULL));
	info->duration = -1;
	info->seekable = false;
	info->live = false;
	info->buffering = 100;
	info->decoder_hardware = false;
	for (int k = 0; k < UMMS_TRACK_KINDS; k++) {
		g_ptr_array_set_size(info->tracks[k], 0);
		info->current[k] = -1;
	}
}

void
umms_media_info_finish(struct umms_media_info *info)
{
	umms_media_info_reset(info);
	g_clear_pointer(&info->metadata, g_variant_unref);
	for (int k = 0; k < UMMS_TRACK_KINDS; k++)
		g_ptr_array_unref(info->tracks[k]);
	memset(info, 0, sizeof(*info));
}

const char *
umms_track_kind_name(enum umms_track_kind kind)
{
	return kind < UMMS_TRACK_KINDS ? kind_names[kind] : "?";
}

bool
umms_track_kind_parse(const char *name, enum umms_track_kind *kind)
{
	for (int k = 0; k < UMMS_TRACK_KINDS; k++) {
		if (strcmp(name, kind_names[k]) == 0) {
			*kind = (enum umms_track_kind)k;
			return true;
		}
	}
	return false;
}

/* What a subtitle track is, from its codec's short name (gst-media.c's). */
static const struct {
	const char *codec;
	const char *kind;
} subtitle_kinds[] = {
	{ "ssa", "ass" },
	{ "ass", "ass" },
	{ "dvdsub", "bitmap" },
	{ "dvbsub", "bitmap" },
	{ "pgs", "bitmap" },
	{ "cea608", "cc" },
	{ "cea708", "cc" },
	{ "teletext", "teletext" },
};

const char *
umms_track_subtitle_kind(const struct umms_track *track)
{
	for (size_t i = 0; track->codec && i < G_N_ELEMENTS(subtitle_kinds); i++) {
		if (strcmp(track->codec, subtitle_kinds[i].codec) == 0)
			return subtitle_kinds[i].kind;
	}
	/* Text, SubRip, WebVTT, SAMI, TTML and whatever else is text. */
	return "text";
}

GVariant *
umms_track_to_variant(const struct umms_track *track, enum umms_track_kind kind)
{
	GVariantDict dict;
	g_variant_dict_init(&dict, NULL);
	g_variant_dict_insert(&dict, "codec", "s", track->codec ? track->codec : "");
	g_variant_dict_insert(&dict, "codec-description", "s",
		track->codec_description ? track->codec_description : "");
	g_variant_dict_insert(&dict, "language", "s", track->language ? track->language : "");
	switch (kind) {
	case UMMS_TRACK_VIDEO:
		g_variant_dict_insert(&dict, "width", "i", track->width);
		g_variant_dict_insert(&dict, "height", "i", track->height);
		g_variant_dict_insert(&dict, "framerate", "d",
			track->fps_d ? (double)track->fps_n / track->fps_d : 0.0);
		g_variant_dict_insert(&dict, "par-n", "i", track->par_n);
		g_variant_dict_insert(&dict, "par-d", "i", track->par_d);
		g_variant_dict_insert(&dict, "bitrate", "i", track->bitrate);
		break;
	case UMMS_TRACK_AUDIO:
		g_variant_dict_insert(&dict, "channels", "i", track->channels);
		g_variant_dict_insert(&dict, "rate", "i", track->rate);
		g_variant_dict_insert(&dict, "bitrate", "i", track->bitrate);
		break;
	case UMMS_TRACK_SUBTITLE:
		g_variant_dict_insert(&dict, "external", "b", track->external);
		g_variant_dict_insert(&dict, "kind", "s", umms_track_subtitle_kind(track));
		break;
	case UMMS_TRACK_KINDS:
		break;
	}
	return g_variant_dict_end(&dict);
}

GVariant *
umms_media_info_tracks_variant(const struct umms_media_info *info, enum umms_track_kind kind)
{
	GVariantBuilder builder;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("aa{sv}"));
	for (guint i = 0; i < info->tracks[kind]->len; i++)
		g_variant_builder_add_value(&builder,
			umms_track_to_variant(info->tracks[kind]->pdata[i], kind));
	return g_variant_builder_end(&builder);
}
