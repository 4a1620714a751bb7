/*
 * What VA-API says the machine decodes: opened on a DRM render node with
 * libva at start, each profile with a decoding entry point (VLD) mapped to
 * our codec names, with the largest picture the driver takes. Counts are
 * not something VA-API reports: [resources] decoders.CODEC sets them (1
 * per decodable codec when left auto).
 */
#ifndef UMMS_SERVICE_VA_PROBE_H
#define UMMS_SERVICE_VA_PROBE_H

#include <stdbool.h>
#include <glib.h>

struct umms_va_codec {
	const char *codec;        /* "h264", "hevc", "vp8", "vp9", "av1", "mpeg2" … */
	int max_width, max_height; /* 0 if the driver does not say */
};

struct umms_va_probe {
	char *device;             /* the render node used, or NULL */
	char *driver;             /* vaQueryVendorString, or NULL */
	GArray *codecs;           /* struct umms_va_codec, never NULL */
	char *why_none;           /* when no driver: why, for people */
};

/* @device NULL or "": the first /dev/dri/renderD* that initializes. Never fails. */
void umms_va_probe_run(struct umms_va_probe *probe, const char *device);
void umms_va_probe_finish(struct umms_va_probe *probe);
/* The entry for @codec, or NULL when VA-API does not decode it here. */
const struct umms_va_codec *umms_va_probe_find(const struct umms_va_probe *probe,
	const char *codec);

#endif
