/*
 * DVD (VobSub) and Blu-ray (PGS) subtitles a stream carries, which
 * subtitleoverlay renders with dvdspu. In GStreamer 1.22 dvdspu has no
 * overlay composition (its pads take I420, NV12 and YV12 only, and it
 * names no meta): it blends into the picture, so these subtitles reach
 * every target inside the frame, at the picture's scale and place, not as
 * a subpicture.
 *
 * What dvdspu gets wrong is a unit that began before the segment: it
 * keeps one only where the segment's running time reaches back to the
 * unit's start, which after a flushing seek (running time 0 at the
 * target) is never, so a seek into a subtitle on screen showed nothing
 * until the next one. A probe on subtitleoverlay's subtitle input moves
 * such a unit to the segment's start: a PGS display set lasts until the
 * next, so only its time changes; a DVD unit's control sequences count
 * from its start, so their delays are shortened by as much (whole ticks
 * of 1024/90000 s: it ends at most 11 ms late).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "gst-private.h"
#include "log.h"

enum spu_kind { SPU_OTHER, SPU_DVD, SPU_PGS };

/* The subtitle input's stream (its events and buffers come on one thread, in order). */
struct spu_input {
	enum spu_kind kind;
	GstSegment segment;
};

/* The delays of the DVD unit in @buffer (writable) less @late; false if it is not whole. */
static bool
shorten_delays(GstBuffer *buffer, GstClockTime late)
{
	GstMapInfo map;
	if (!gst_buffer_map(buffer, &map, GST_MAP_READWRITE))
		return false;
	bool whole = map.size >= 4 && GST_READ_UINT16_BE(map.data) == map.size;
	guint64 ticks = gst_util_uint64_scale(late, 90, 1024 * GST_MSECOND);
	size_t at = whole ? GST_READ_UINT16_BE(map.data + 2) : map.size;
	/* Each sequence: its delay, where the next is (the last: itself), its commands. */
	for (int n = 0; n < 256 && at >= 4 && at + 4 <= map.size; n++) {
		guint64 delay = GST_READ_UINT16_BE(map.data + at);
		GST_WRITE_UINT16_BE(map.data + at, delay > ticks ? (guint16)(delay - ticks) : 0);
		size_t next = GST_READ_UINT16_BE(map.data + at + 2);
		if (next <= at)
			break;
		at = next;
	}
	gst_buffer_unmap(buffer, &map);
	return whole;
}

static enum spu_kind
kind_of(GstCaps *caps)
{
	GstStructure *s = caps && gst_caps_get_size(caps) > 0 ?
		gst_caps_get_structure(caps, 0) : NULL;
	if (s && gst_structure_has_name(s, "subpicture/x-dvd"))
		return SPU_DVD;
	if (s && gst_structure_has_name(s, "subpicture/x-pgs"))
		return SPU_PGS;
	return SPU_OTHER;
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
			input->kind = kind_of(caps);
		} else if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT) {
			const GstSegment *segment = NULL;
			gst_event_parse_segment(event, &segment);
			gst_segment_copy_into(segment, &input->segment);
		}
		return GST_PAD_PROBE_OK;
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	const GstSegment *segment = &input->segment;
	if (input->kind == SPU_OTHER || segment->format != GST_FORMAT_TIME ||
			segment->rate < 0 || !GST_BUFFER_PTS_IS_VALID(buffer) ||
			GST_BUFFER_PTS(buffer) >= segment->start)
		return GST_PAD_PROBE_OK;
	GstClockTime late = segment->start - GST_BUFFER_PTS(buffer);
	buffer = gst_buffer_make_writable(buffer);
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	if (input->kind == SPU_DVD && !shorten_delays(buffer, late))
		return GST_PAD_PROBE_OK;
	umms_debug("subtitles: a %s unit from %.3f s moved to the segment's start, %.3f s",
		input->kind == SPU_DVD ? "DVD" : "PGS", (double)GST_BUFFER_PTS(buffer) / GST_SECOND,
		(double)segment->start / GST_SECOND);
	GST_BUFFER_PTS(buffer) = segment->start;
	GST_BUFFER_DTS(buffer) = GST_CLOCK_TIME_NONE;
	return GST_PAD_PROBE_OK;
}

void
gst_spu_watch(GstElement *overlay)
{
	GstPad *pad = gst_element_get_static_pad(overlay, "subtitle_sink");
	if (!pad)
		return;
	struct spu_input *input = g_new0(struct spu_input, 1);
	gst_segment_init(&input->segment, GST_FORMAT_UNDEFINED);
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_BUFFER,
		spu_probe, input, g_free);
	gst_object_unref(pad);
}
