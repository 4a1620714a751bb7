/*
 * DVB teletext subtitles (EN 300 472 in MPEG-TS): tsdemux gives the
 * stream as application/x-teletext, and teletextdec (gst-plugins-bad,
 * libzvbi) decodes it, but never by itself in playbin: its rank is NONE,
 * and with a rank decodebin exposes its output before it has caps, where
 * it picks its first one, RGBA video, that playbin cannot place (the whole
 * media fails, not-negotiated). It also starts on page 100, not the
 * subtitle page, and goes back there after every flush (a seek).
 *
 * So a bin of ours, "ummsteletextdec", ranked for decodebin, holds it:
 * teletextdec in subtitle mode (the page's boxed lines, blank ones
 * dropped) giving UTF-8 text, which playbin then treats like any text
 * track: drawn by its text overlay (gst-overlay.c), its cues told
 * (gst-cues.c). Text rather than teletextdec's RGBA page: a 40x25 cell
 * image of the whole page at its own size, in its own block font, where
 * every other subtitle is drawn at the picture's scale. The page is the
 * stream's first subtitle page (a header with C6 set), seen in the data
 * before teletextdec is given it, and set again before every buffer. A
 * page is told as text without the NUL teletextdec ends it with; a blank
 * page (the subtitle taken off) as empty text.
 *
 * teletextdec tells a page when the PES after the one that completed it
 * arrives: one PES (a frame, as broadcasters send them) late.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "gst-private.h"
#include "log.h"

#define FACTORY_NAME "ummsteletextdec"

/* EN 300 472: data_identifier range of EBU data; teletext data units and their length. */
#define DATA_IDENTIFIER_MIN 0x10
#define DATA_IDENTIFIER_MAX 0x1f
#define UNIT_NON_SUBTITLE 0x02
#define UNIT_SUBTITLE 0x03
#define UNIT_LENGTH 0x2c
/* Until the subtitle page is known: a number no page has (magazines are 1 to 8). */
#define NO_PAGE 999

#define UMMS_TYPE_TELETEXT_BIN (umms_teletext_bin_get_type())
G_DECLARE_FINAL_TYPE(UmmsTeletextBin, umms_teletext_bin, UMMS, TELETEXT_BIN, GstBin)

struct _UmmsTeletextBin {
	GstBin parent;
	GstElement *decoder;
	int page;       /* 100..899, 0 none seen yet (streaming thread) */
};

G_DEFINE_TYPE(UmmsTeletextBin, umms_teletext_bin, GST_TYPE_BIN)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("application/x-teletext"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("text/x-raw"));
/* What it sends. */
#define TEXT_CAPS "text/x-raw, format=(string)utf8"

/* Hamming 8/4 (EN 300 706, 8.2) as transmitted; -1 for any error (none is corrected). */
static int
unham(uint8_t byte)
{
	unsigned d1 = byte >> 1 & 1, d2 = byte >> 3 & 1, d3 = byte >> 5 & 1, d4 = byte >> 7 & 1;
	unsigned p1 = byte & 1, p2 = byte >> 2 & 1, p3 = byte >> 4 & 1, p4 = byte >> 6 & 1;
	bool ok = p1 == (1 ^ d1 ^ d3 ^ d4) && p2 == (1 ^ d1 ^ d2 ^ d4) &&
		p3 == (1 ^ d1 ^ d2 ^ d3) && p4 == (1 ^ p1 ^ d1 ^ p2 ^ d2 ^ p3 ^ d3 ^ d4);
	return ok ? (int)(d1 | d2 << 1 | d3 << 2 | d4 << 3) : -1;
}

/* EN 300 472 carries each byte's bits in transmission order. */
static uint8_t
reverse(uint8_t b)
{
	uint8_t r = 0;
	for (int i = 0; i < 8; i++)
		r = (uint8_t)(r << 1 | (b >> i & 1));
	return r;
}

/* A packet X/0 (@packet, 42 bytes as transmitted) of a subtitle page: its number, else 0. */
static int
subtitle_page(const uint8_t *packet)
{
	int a = unham(packet[0]), b = unham(packet[1]);
	if (a < 0 || b < 0 || (a >> 3 | b << 1) != 0)
		return 0;
	int magazine = (a & 7) ? (a & 7) : 8;
	int units = unham(packet[2]), tens = unham(packet[3]), s4c = unham(packet[7]);
	/* Units or tens past 9: a time filling header (xFF) or an unusual page. */
	if (units < 0 || tens < 0 || s4c < 0 || units > 9 || tens > 9 || !(s4c & 8))
		return 0;
	return magazine * 100 + tens * 10 + units;
}

/* The first subtitle page a PES payload (@data, @size bytes, hostile) has a header of. */
static int
find_subtitle_page(const uint8_t *data, size_t size)
{
	if (size < 1 || data[0] < DATA_IDENTIFIER_MIN || data[0] > DATA_IDENTIFIER_MAX)
		return 0;
	size_t at = 1;
	while (at + 2 <= size) {
		uint8_t id = data[at];
		size_t length = data[at + 1];
		if (at + 2 + length > size)
			break;
		if ((id == UNIT_SUBTITLE || id == UNIT_NON_SUBTITLE) && length == UNIT_LENGTH) {
			/* Line and field, framing code, then the packet. */
			uint8_t packet[3 + 5];
			for (size_t i = 0; i < sizeof(packet); i++)
				packet[i] = reverse(data[at + 4 + i]);
			int page = subtitle_page(packet);
			if (page)
				return page;
		}
		at += 2 + length;
	}
	return 0;
}

/* Streaming thread: a PES into teletextdec. */
static GstPadProbeReturn
input_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	UmmsTeletextBin *bin = data;
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstMapInfo map;
	if (!bin->page && buffer && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
		bin->page = find_subtitle_page(map.data, map.size);
		gst_buffer_unmap(buffer, &map);
		if (bin->page)
			umms_info("teletext: subtitles on page %d", bin->page);
	}
	/* teletextdec is back on page 100 after each flush: every time. */
	g_object_set(bin->decoder, "page", bin->page ? bin->page : NO_PAGE, NULL);
	return GST_PAD_PROBE_OK;
}

/* A page out of teletextdec, its text ended by newlines and a NUL: trimmed. */
static GstPadProbeReturn
trim_page(GstPadProbeInfo *info)
{
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstMapInfo map;
	if (!buffer || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return GST_PAD_PROBE_OK;
	gsize size = map.size;
	while (size > 0 && (map.data[size - 1] == '\0' || map.data[size - 1] == '\n' ||
			map.data[size - 1] == ' '))
		size--;
	const void *text = memchr(map.data, '\0', size) ? NULL : map.data;
	/* A blank page: no text. */
	GstBuffer *trimmed = text && size ? gst_buffer_new_memdup(text, size) : gst_buffer_new();
	gst_buffer_unmap(buffer, &map);
	gst_buffer_copy_into(trimmed, buffer, GST_BUFFER_COPY_METADATA, 0, (gsize)-1);
	gst_buffer_unref(buffer);
	GST_PAD_PROBE_INFO_DATA(info) = trimmed;
	return GST_PAD_PROBE_OK;
}

/*
 * Streaming thread: on teletextdec's output. What it may send is asked
 * (downstream, before its first page) and answered here: its UTF-8 text,
 * so it never picks RGBA; its caps, which name that "utf-8", are sent as
 * the "utf8" GStreamer's text elements (textoverlay) take.
 */
static GstPadProbeReturn
output_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
		return trim_page(info);
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
			return GST_PAD_PROBE_OK;
		GstCaps *text = gst_caps_from_string(TEXT_CAPS);
		GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_caps(text);
		gst_caps_unref(text);
		gst_event_unref(event);
		return GST_PAD_PROBE_OK;
	}
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
	if (info->type & GST_PAD_PROBE_TYPE_PULL)
		return GST_PAD_PROBE_OK;
	if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
		GstCaps *filter = NULL;
		gst_query_parse_caps(query, &filter);
		/*
		 * Asked downstream: what teletextdec may send, by its name. Asked
		 * on the pad: that, and the text the pad sends, by GStreamer's.
		 */
		bool downstream = info->type & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM;
		GstCaps *mine = gst_caps_from_string(downstream ? "text/x-raw, format=(string)utf-8" :
			"text/x-raw, format=(string){ utf8, utf-8 }");
		GstCaps *result = filter ? gst_caps_intersect_full(filter, mine,
			GST_CAPS_INTERSECT_FIRST) : gst_caps_ref(mine);
		gst_caps_unref(mine);
		gst_query_set_caps_result(query, result);
		gst_caps_unref(result);
		return GST_PAD_PROBE_HANDLED;
	}
	return GST_PAD_PROBE_OK;
}

static GstStateChangeReturn
change_state(GstElement *element, GstStateChange transition)
{
	UmmsTeletextBin *bin = UMMS_TELETEXT_BIN(element);
	if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
		bin->page = 0;
	return GST_ELEMENT_CLASS(umms_teletext_bin_parent_class)->change_state(element,
		transition);
}

static void
umms_teletext_bin_init(UmmsTeletextBin *bin)
{
	bin->decoder = gst_element_factory_make("teletextdec", NULL);
	if (!bin->decoder)
		return; /* Not registered without it. */
	/* Its default line template is "%s\\n", a backslash and an n: lines end in newlines. */
	g_object_set(bin->decoder, "subtitles-mode", TRUE, "subtitles-template", "%s\n",
		"page", NO_PAGE, NULL);
	gst_bin_add(GST_BIN(bin), bin->decoder);

	GstPad *target = gst_element_get_static_pad(bin->decoder, "sink");
	GstPad *ghost = gst_ghost_pad_new_from_template("sink", target,
		gst_static_pad_template_get(&sink_template));
	gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_BUFFER, input_probe, bin, NULL);
	gst_object_unref(target);
	gst_element_add_pad(GST_ELEMENT(bin), ghost);

	target = gst_element_get_static_pad(bin->decoder, "src");
	ghost = gst_ghost_pad_new_from_template("src", target,
		gst_static_pad_template_get(&src_template));
	gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_QUERY_BOTH, output_probe, bin, NULL);
	gst_object_unref(target);
	gst_element_add_pad(GST_ELEMENT(bin), ghost);
}

static void
umms_teletext_bin_class_init(UmmsTeletextBinClass *klass)
{
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	element_class->change_state = change_state;
	gst_element_class_add_static_pad_template(element_class, &sink_template);
	gst_element_class_add_static_pad_template(element_class, &src_template);
	gst_element_class_set_static_metadata(element_class, "umms teletext subtitles",
		"Codec/Decoder/Subtitle", "DVB teletext subtitle pages as text, by teletextdec",
		"umms");
}

void
gst_teletext_register(void)
{
	GstElementFactory *decoder = gst_element_factory_find("teletextdec");
	if (!decoder) {
		umms_debug("no teletextdec (gstreamer1.0-plugins-bad): teletext is not decoded");
		return;
	}
	gst_object_unref(decoder);
	if (!gst_element_register(NULL, FACTORY_NAME, GST_RANK_PRIMARY, UMMS_TYPE_TELETEXT_BIN))
		umms_warn("teletext: cannot register %s", FACTORY_NAME);
}

bool
gst_teletext_selected(struct gst_engine *engine)
{
	const struct umms_media_info *info = &engine->base.info;
	int current = info->current[UMMS_TRACK_SUBTITLE];
	GPtrArray *tracks = info->tracks[UMMS_TRACK_SUBTITLE];
	if (current < 0 || (guint)current >= tracks->len)
		return false;
	const struct umms_track *track = g_ptr_array_index(tracks, current);
	return !track->external && g_strcmp0(track->codec, "teletext") == 0;
}
