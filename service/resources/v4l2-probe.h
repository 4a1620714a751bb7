/*
 * What V4L2 says the machine has, found with ioctls on /dev/video* at
 * start: memory-to-memory decoders (QUERYCAP with VIDEO_M2M or
 * VIDEO_M2M_MPLANE, compressed formats on the OUTPUT queue mapped to our
 * codec names, the largest frame size) and capture devices (VIDEO_CAPTURE
 * without M2M: cameras, capture cards, vivid), with their name, formats
 * and sizes. A decoder device is one unit of each codec it decodes, where
 * an element can drive it (hardware.c: a stateless node only through
 * GStreamer's v4l2codecs plugin); a capture device is one unit, held by the
 * player playing v4l2://DEVICE.
 */
#ifndef UMMS_SERVICE_V4L2_PROBE_H
#define UMMS_SERVICE_V4L2_PROBE_H

#include <stdbool.h>
#include <glib.h>

struct umms_v4l2_device {
	char *path;                /* "/dev/video0" */
	char *card;                /* VIDIOC_QUERYCAP card: "vivid", "vicodec-dec" */
	char *driver;              /* "vivid", "vicodec" */
	bool m2m;                  /* a decoder; else a capture device */
	bool stateless;            /* a decoder of parsed frames (S264, SFWH …): the stateless API */
	GPtrArray *codecs;         /* decoders: char *, "h264", "fwht" … */
	GPtrArray *formats;        /* capture: char *, fourccs ("YUYV", "NV12" …) */
	GPtrArray *sizes;          /* char *: "1280x720", or "16x16-1920x1080" for a range */
	int max_width, max_height; /* the largest size, 0 if the driver does not say */
};

struct umms_v4l2_probe {
	GPtrArray *devices;        /* struct umms_v4l2_device *, never NULL */
};

/*
 * Every /dev/video* (@dir NULL: "/dev") that is a decoder or a capture
 * device, in the order of their numbers. Never fails: what cannot be
 * opened is left out, and said at debug level.
 */
void umms_v4l2_probe_run(struct umms_v4l2_probe *probe, const char *dir);
void umms_v4l2_probe_finish(struct umms_v4l2_probe *probe);
/* Whether @d is a decoder of @codec, stateless or stateful as @stateless says. */
bool umms_v4l2_device_decodes(const struct umms_v4l2_device *d, const char *codec,
	bool stateless);
/* Decoder devices that decode @codec, stateless or stateful ones. */
unsigned umms_v4l2_probe_count(const struct umms_v4l2_probe *probe, const char *codec,
	bool stateless);
/* The codec name of a V4L2 compressed format, or NULL for one we do not name. */
const char *umms_v4l2_codec_name(unsigned fourcc);
/* Whether that format is one of the stateless API's (parsed frames: S264, SFWH …). */
bool umms_v4l2_codec_stateless(unsigned fourcc);

#endif
