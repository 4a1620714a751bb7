/*
 * What an engine knows about the media it opened, independent of the engine:
 * the tracks, the container, duration and flags, metadata and the decoder in
 * use. Engines fill a struct umms_media_info and the player turns it into
 * D-Bus properties.
 */
#ifndef UMMS_SERVICE_MEDIA_INFO_H
#define UMMS_SERVICE_MEDIA_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

enum umms_track_kind {
	UMMS_TRACK_VIDEO,
	UMMS_TRACK_AUDIO,
	UMMS_TRACK_SUBTITLE,
	UMMS_TRACK_KINDS,
};

struct umms_track {
	char *codec;             /* short name: "h264", "opus", "utf8" */
	char *codec_description; /* for people: "H.264 (High Profile)" */
	char *language;          /* ISO 639 code, or NULL */
	int bitrate;             /* bit/s, 0 if unknown */
	/* video */
	int width, height;
	int fps_n, fps_d;        /* 0/1 if unknown */
	int par_n, par_d;        /* pixel aspect ratio, 1/1 if unknown */
	/* audio */
	int channels, rate;
	/* subtitle */
	bool external;           /* from SetSubtitleUri */
};

struct umms_media_info {
	char *container;         /* short name: "matroska", "mp4"; NULL if unknown */
	int64_t duration;        /* µs, -1 if unknown */
	bool seekable;
	bool live;
	GPtrArray *tracks[UMMS_TRACK_KINDS]; /* struct umms_track * */
	int current[UMMS_TRACK_KINDS];       /* index into tracks, -1 for none */
	int buffering;           /* percent */
	GVariant *metadata;      /* a{sv}, never NULL */
	char *decoder;           /* video decoder element, NULL if none */
	bool decoder_hardware;
};

void umms_media_info_init(struct umms_media_info *info);
void umms_media_info_finish(struct umms_media_info *info);
/* Back to "nothing opened". */
void umms_media_info_reset(struct umms_media_info *info);

struct umms_track *umms_track_create(void);
void umms_track_destroy(struct umms_track *track);

const char *umms_track_kind_name(enum umms_track_kind kind);
bool umms_track_kind_parse(const char *name, enum umms_track_kind *kind);

/* A subtitle track's kind: "text", "ass", "bitmap", "cc" or "teletext". */
const char *umms_track_subtitle_kind(const struct umms_track *track);
/* The a{sv} of one track, with the keys org.umms.Player1 documents. */
GVariant *umms_track_to_variant(const struct umms_track *track, enum umms_track_kind kind);
/* aa{sv} of every track of @kind. */
GVariant *umms_media_info_tracks_variant(const struct umms_media_info *info,
	enum umms_track_kind kind);

#endif
