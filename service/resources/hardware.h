/*
 * Every hardware unit ummsd shares out, found at start and made into pools
 * (resources.h):
 *
 * - Decoders, one pool per codec ("decoder:h264"), whoever provides them:
 *   VA-API (va-probe.h: one unit per codec its driver decodes; the va and
 *   vaapi GStreamer plugins' elements are these), V4L2 memory-to-memory
 *   devices (v4l2-probe.h: one unit per device and codec; the
 *   video4linux2 plugin's elements drive the stateful ones, the v4l2codecs
 *   plugin's the stateless ones, which count only where it has an element
 *   for the codec), and every other element
 *   the engine lists as a hardware decoder (GStreamer: class Decoder and
 *   Hardware, such as NVDEC's nvh264dec), which nothing probes: one unit
 *   per plugin and codec (nvh264dec and nvh264sldec are one NVDEC), or
 *   per element registered by no plugin. The units add up; [resources]
 *   decoders.CODEC replaces
 *   the sum (0: no pool, so no hardware decoder of that codec is plugged).
 * - Capture devices (V4L2 VIDEO_CAPTURE: cameras, capture cards), one pool
 *   of one unit each ("capture:/dev/video0"), held by the player playing
 *   v4l2:///dev/video0.
 * - DVB tuners (dvb-probe.h), one pool of one unit each
 *   ("tuner:/dev/dvb/adapter0/frontend0"), held by the player or
 *   recording of a dvb:// channel (service/dvb/).
 */
#ifndef UMMS_SERVICE_HARDWARE_H
#define UMMS_SERVICE_HARDWARE_H

#include <stdbool.h>
#include <glib.h>

#include "config.h"
#include "dvb-probe.h"
#include "resources.h"
#include "v4l2-probe.h"
#include "va-probe.h"

struct umms_hardware {
	struct umms_va_probe va;
	struct umms_v4l2_probe v4l2;
	struct umms_dvb_probe dvb;
	GPtrArray *elements;       /* struct umms_engine_decoder *: the engines' hardware decoders */
	GPtrArray *decoder_codecs; /* char *: the codecs with a decoder pool */
};

/* Probes VA-API, V4L2 and the engines (initialized already). Never fails. */
void umms_hardware_probe(struct umms_hardware *hw, const struct umms_config *config);
void umms_hardware_finish(struct umms_hardware *hw);
/* Makes the decoder and capture pools in @r. */
void umms_hardware_make_pools(struct umms_hardware *hw, const struct umms_config *config,
	struct umms_resources *r);
/* "tuner:/dev/dvb/adapter0/frontend0" (g_free). */
char *umms_hardware_tuner_kind(const struct umms_dvb_frontend *fe);
/* Whether an engine has a hardware decoder element for @codec. */
bool umms_hardware_has_element(const struct umms_hardware *hw, const char *codec);
/* "capture:/dev/video0" for v4l2:///dev/video0 (g_free), NULL for any other URI. */
char *umms_hardware_capture_kind(const char *uri);

#endif
