/*
 * DVD (VobSub) and Blu-ray (PGS) subtitles a stream carries are decoded
 * by us into bitmap cues (gst-cues.c, engines/bitmap-subs.h) and drawn as
 * subpictures, like the other subtitles: their own layer on every target,
 * off per view, counted. subtitleoverlay would hand them to dvdspu, which
 * in GStreamer 1.22 can only blend them into the picture (no overlay
 * composition): a probe on its subtitle input drops their buffers, so
 * dvdspu passes the picture through untouched.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "gst-private.h"
#include "log.h"

/* The subtitle input's caps (its events and buffers come on one thread, in order). */
struct spu_input {
	bool bitmap;
};

static bool
is_bitmap(GstCaps *caps)
{
	GstStructure *s = caps && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	return s && (gst_structure_has_name(s, "subpicture/x-dvd") ||
		gst_structure_has_name(s, "subpicture/x-pgs"));
}

/* Streaming thread: on subtitleoverlay's subtitle input. */
static GstPadProbeReturn
spu_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct spu_input *input = data;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
			GstCaps *caps = NULL;
			gst_event_parse_caps(event, &caps);
			input->bitmap = is_bitmap(caps);
		}
		return GST_PAD_PROBE_OK;
	}
	return input->bitmap ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

void
gst_spu_watch(GstElement *overlay)
{
	GstPad *pad = gst_element_get_static_pad(overlay, "subtitle_sink");
	if (!pad)
		return;
	struct spu_input *input = g_new0(struct spu_input, 1);
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_BUFFER,
		spu_probe, input, g_free);
	gst_object_unref(pad);
}
