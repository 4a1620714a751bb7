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
 * dropped) giving UTF-8 text. Its lines lose their rows and colours (its
 * Pango markup keeps them, but leaks every page's colour table, cell by
 * cell), so the subtitle page's packets are read on their way in
 * (engines/teletext.h) for each row with text and its colour, and a page
 * out of teletextdec with as many lines gets them (trim_page): its cue's
 * place, the rows on the page's 25-row grid, each line centred (a
 * subtitle on the top rows is drawn at the top), and its lines' colours.
 * playbin takes that as a text track, whose cues gst-cues.c catches; but
 * its text overlay would show a page for one frame (a text buffer without
 * a duration), and a page has none: it lasts until the next. A cue
 * without an end lasts until the next one, so a teletext track is drawn
 * from its cues by our cue renderer (like a subtitle file, at the same
 * size) and playbin's overlay is hidden for it (gst_teletext_selected).
 * Text rather than teletextdec's RGBA page: a 40x25 cell image of the
 * whole page at its own size, in its own block font, where every other
 * subtitle is drawn at the picture's scale.
 *
 * The page is the stream's first subtitle page (a header with C6 set),
 * seen in the data before teletextdec is given it, and set again before
 * every buffer. A page is told as Pango markup (its text escaped), its
 * place in a meta (gst_support_set_cue_place); a blank page (the subtitle
 * taken off) as empty text, which ends the cue before it.
 *
 * teletextdec tells a page when the PES after the one that completed it
 * arrives: one PES (a frame, as broadcasters send them) late.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include <gst/tag/tag.h>

#include "gst-private.h"
#include "log.h"
#include "teletext.h"

#define FACTORY_NAME "ummsteletextdec"

/* Until the subtitle page is known: a number no page has (magazines are 1 to 8). */
#define NO_PAGE 999

/* ---- what the PMT says of each teletext stream ------------------------------ */

/* A teletext stream's subtitles as its PMT's teletext descriptor gives them. */
struct service {
	unsigned pid;
	char language[4];       /* ISO 639-2, "" unknown */
	int page;               /* 100..899, 0 unknown */
};

/* The services of one media, shared by its demuxer's scan and its decoders. */
struct services {
	GMutex lock;
	GArray *list;           /* struct service */
};

static void
services_clear(gpointer data)
{
	struct services *services = data;
	g_array_unref(services->list);
	g_mutex_clear(&services->lock);
}

static struct services *
services_new(void)
{
	struct services *services = g_atomic_rc_box_new0(struct services);
	g_mutex_init(&services->lock);
	services->list = g_array_new(FALSE, TRUE, sizeof(struct service));
	return services;
}

static void
services_unref(gpointer data)
{
	g_atomic_rc_box_release_full(data, services_clear);
}

/* A copy of @pid's service; false if none is known. */
static bool
services_find(struct services *services, unsigned pid, struct service *out)
{
	bool found = false;
	g_mutex_lock(&services->lock);
	for (guint i = 0; i < services->list->len && !found; i++) {
		const struct service *service = &g_array_index(services->list, struct service, i);
		if (service->pid == pid) {
			*out = *service;
			found = true;
		}
	}
	g_mutex_unlock(&services->lock);
	return found;
}

/* Records @service, or the page of one known without (a page found in the data). */
static void
services_put(struct services *services, const struct service *service)
{
	g_mutex_lock(&services->lock);
	for (guint i = 0; i < services->list->len; i++) {
		struct service *known = &g_array_index(services->list, struct service, i);
		if (known->pid == service->pid) {
			if (!known->page)
				known->page = service->page;
			g_mutex_unlock(&services->lock);
			return;
		}
	}
	g_array_append_val(services->list, *service);
	g_mutex_unlock(&services->lock);
}

#define TS_PACKET 188
#define TS_SYNC 0x47
/* A stream whose PMT is not found in this much is not looked at further. */
#define TS_SCAN_LIMIT (4 * 1024 * 1024)
#define MAX_PROGRAMS 16

/* The MPEG-TS going into tsdemux, looked at until its PMTs are read. */
struct ts_scan {
	struct services *services;
	GByteArray *pending;    /* bytes of an unfinished packet */
	unsigned pmt_pids[MAX_PROGRAMS];
	size_t n_pmt, n_read;
	gsize scanned;
};

static void
ts_scan_free(gpointer data)
{
	struct ts_scan *scan = data;
	services_unref(scan->services);
	g_byte_array_unref(scan->pending);
	g_free(scan);
}

/* A PAT section (@section, @size bytes from its table id): the PMTs' PIDs. */
static void
read_pat(struct ts_scan *scan, const uint8_t *section, size_t size)
{
	if (size < 8 || section[0] != 0x00 || scan->n_pmt)
		return;
	size_t end = MIN(size, 3 + ((size_t)(section[1] & 0x0f) << 8 | section[2]));
	/* Program loop from byte 8 to the CRC. */
	for (size_t at = 8; at + 4 + 4 <= end && scan->n_pmt < MAX_PROGRAMS; at += 4) {
		unsigned program = (unsigned)section[at] << 8 | section[at + 1];
		if (program != 0)
			scan->pmt_pids[scan->n_pmt++] = (unsigned)(section[at + 2] & 0x1f) << 8 |
				section[at + 3];
	}
}

/* One teletext descriptor's entries (EN 300 468, 6.2.43): the first subtitle page. */
static void
read_teletext_descriptor(struct services *services, unsigned pid, const uint8_t *d,
	size_t size)
{
	for (size_t at = 0; at + 5 <= size; at += 5) {
		unsigned type = d[at + 3] >> 3, magazine = d[at + 3] & 7;
		unsigned tens = d[at + 4] >> 4, units = d[at + 4] & 0x0f;
		/* 0x02: subtitles, 0x05: subtitles for the hard of hearing. */
		if ((type != 0x02 && type != 0x05) || tens > 9 || units > 9)
			continue;
		struct service service = { .pid = pid };
		for (int i = 0; i < 3; i++)
			service.language[i] = g_ascii_isalpha(d[at + i]) ?
				g_ascii_tolower((char)d[at + i]) : '\0';
		if (strlen(service.language) != 3)
			service.language[0] = '\0';
		service.page = (int)((magazine ? magazine : 8) * 100 + tens * 10 + units);
		services_put(services, &service);
		return;
	}
}

/* A PMT section: its teletext streams' services. */
static void
read_pmt(struct ts_scan *scan, const uint8_t *section, size_t size)
{
	if (size < 12 || section[0] != 0x02)
		return;
	size_t end = MIN(size, 3 + ((size_t)(section[1] & 0x0f) << 8 | section[2]));
	if (end < 16)
		return;
	end -= 4; /* the CRC */
	size_t at = 12 + ((size_t)(section[10] & 0x0f) << 8 | section[11]);
	while (at + 5 <= end) {
		unsigned pid = (unsigned)(section[at + 1] & 0x1f) << 8 | section[at + 2];
		size_t info = (size_t)(section[at + 3] & 0x0f) << 8 | section[at + 4];
		size_t d = at + 5, d_end = MIN(d + info, end);
		while (d + 2 <= d_end && d + 2 + section[d + 1] <= d_end) {
			if (section[d] == 0x56)
				read_teletext_descriptor(scan->services, pid, section + d + 2,
					section[d + 1]);
			d += 2 + section[d + 1];
		}
		at += 5 + info;
	}
	scan->n_read++;
}

/* One packet; PSI only where a section starts in it (PATs and PMTs fit one packet). */
static void
read_packet(struct ts_scan *scan, const uint8_t *packet)
{
	if (!(packet[1] & 0x40) || !(packet[3] & 0x10))
		return;
	unsigned pid = (unsigned)(packet[1] & 0x1f) << 8 | packet[2];
	size_t at = 4;
	if (packet[3] & 0x20)
		at += 1 + packet[4];
	if (at >= TS_PACKET || at + 1 + packet[at] >= TS_PACKET)
		return;
	at += 1 + packet[at];
	if (pid == 0) {
		read_pat(scan, packet + at, TS_PACKET - at);
		return;
	}
	for (size_t i = 0; i < scan->n_pmt; i++) {
		if (scan->pmt_pids[i] == pid)
			read_pmt(scan, packet + at, TS_PACKET - at);
	}
}

/* Streaming thread: bytes into tsdemux, until every PMT of its PAT was read. */
static GstPadProbeReturn
ts_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct ts_scan *scan = data;
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstMapInfo map;
	if (!buffer || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return GST_PAD_PROBE_OK;
	scan->scanned += map.size;
	g_byte_array_append(scan->pending, map.data, (guint)map.size);
	gst_buffer_unmap(buffer, &map);
	const uint8_t *bytes = scan->pending->data;
	size_t len = scan->pending->len, at = 0;
	while (at + TS_PACKET <= len) {
		/* In sync where the next packet starts with the sync byte too (or is not here yet). */
		if (bytes[at] != TS_SYNC || (at + 2 * TS_PACKET <= len &&
				bytes[at + TS_PACKET] != TS_SYNC)) {
			at++;
			continue;
		}
		read_packet(scan, bytes + at);
		at += TS_PACKET;
	}
	g_byte_array_remove_range(scan->pending, 0, (guint)at);
	bool done = scan->n_pmt > 0 && scan->n_read >= scan->n_pmt;
	return done || scan->scanned > TS_SCAN_LIMIT ? GST_PAD_PROBE_REMOVE : GST_PAD_PROBE_OK;
}

/* Where a pipeline keeps its media's services (set from a streaming thread). */
#define SERVICES_KEY "umms-teletext-services"
static GMutex services_key_lock;

/* @engine's media's services (a reference), or NULL. */
static struct services *
services_of(struct gst_engine *engine)
{
	g_mutex_lock(&services_key_lock);
	struct services *services = g_object_get_data(G_OBJECT(engine->pipeline), SERVICES_KEY);
	if (services)
		g_atomic_rc_box_acquire(services);
	g_mutex_unlock(&services_key_lock);
	return services;
}

/* The PID tsdemux names a stream by: the stream id's last part, 8 hex digits. */
static bool
stream_pid(const char *stream_id, unsigned *pid)
{
	const char *last = stream_id ? strrchr(stream_id, '/') : NULL;
	if (!last || strlen(last + 1) != 8)
		return false;
	char *end = NULL;
	guint64 value = g_ascii_strtoull(last + 1, &end, 16);
	if (*end || value > 0x1fff)
		return false;
	*pid = (unsigned)value;
	return true;
}

#define UMMS_TYPE_TELETEXT_BIN (umms_teletext_bin_get_type())
G_DECLARE_FINAL_TYPE(UmmsTeletextBin, umms_teletext_bin, UMMS, TELETEXT_BIN, GstBin)

struct _UmmsTeletextBin {
	GstBin parent;
	GstElement *decoder;
	struct services *services; /* the media's, NULL unknown (set once, when added) */
	/* Streaming thread: */
	unsigned pid;              /* tsdemux's, 0x2000 unknown */
	bool looked_up;            /* the PMT was asked for the page */
	int page;                  /* 100..899, 0 none known yet */
	struct umms_teletext_rows *rows; /* the subtitle page's rows, as sent */
};

G_DEFINE_TYPE(UmmsTeletextBin, umms_teletext_bin, GST_TYPE_BIN)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("application/x-teletext"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("text/x-raw"));
/* What it sends. */
#define TEXT_CAPS "text/x-raw, format=(string)pango-markup"
/* The grid of a page's rows (0 the header, 1..23 text, 24 the last) for the cue's place. */
#define TELETEXT_ROWS 25

/* Streaming thread: a PES into teletextdec. */
static GstPadProbeReturn
input_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	UmmsTeletextBin *bin = data;
	if (info->type & (GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH)) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		const char *id = NULL;
		if (GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START) {
			gst_event_parse_stream_start(event, &id);
			if (!stream_pid(id, &bin->pid))
				bin->pid = 0x2000;
			bin->looked_up = false;
			bin->page = 0;
		}
		if (GST_EVENT_TYPE(event) == GST_EVENT_STREAM_START ||
				GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP)
			umms_teletext_rows_reset(bin->rows);
		return GST_PAD_PROBE_OK;
	}
	struct service service = { .pid = bin->pid };
	GST_OBJECT_LOCK(bin);
	struct services *services = bin->services;
	GST_OBJECT_UNLOCK(bin);
	if (!bin->looked_up) {
		/* The PMT's page first (tsdemux makes no pad before its PMT). */
		bin->looked_up = true;
		if (services && services_find(services, bin->pid, &service) && service.page)
			bin->page = service.page;
		if (bin->page)
			umms_info("teletext: subtitles on page %d (PMT)", bin->page);
	}
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstMapInfo map;
	if (buffer && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
		if (!bin->page) {
			bin->page = umms_teletext_find_subtitle_page(map.data, map.size);
			if (bin->page) {
				umms_info("teletext: subtitles on page %d", bin->page);
				service.page = bin->page;
				if (services)
					services_put(services, &service);
			}
		}
		/* Its rows and colours, which teletextdec's text loses. */
		umms_teletext_rows_feed(bin->rows, bin->page, map.data, map.size);
		gst_buffer_unmap(buffer, &map);
	}
	/* teletextdec is back on page 100 after each flush: every time. */
	g_object_set(bin->decoder, "page", bin->page ? bin->page : NO_PAGE, NULL);
	return GST_PAD_PROBE_OK;
}

/*
 * A page out of teletextdec (UTF-8, a line each of its rows with text,
 * ended by a newline and a NUL) made into a cue: its lines escaped, in the
 * colours of the rows read from the stream, those rows its place (a meta
 * read by gst-cues.c) on the page's grid, each centred as teletext
 * subtitles are; without them (a page that did not match), the lines
 * alone, white, drawn like other text. A blank page: empty text.
 */
static GstPadProbeReturn
trim_page(UmmsTeletextBin *bin, GstPadProbeInfo *info)
{
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	GstMapInfo map;
	if (!buffer || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return GST_PAD_PROBE_OK;
	gsize size = map.size;
	while (size > 0 && (map.data[size - 1] == '\0' || map.data[size - 1] == '\n' ||
			map.data[size - 1] == ' '))
		size--;
	const char *text = memchr(map.data, '\0', size) ? NULL : (const char *)map.data;
	g_autofree char *copy = text ? g_strndup(text, size) : g_strdup("");
	gst_buffer_unmap(buffer, &map);
	char **lines = g_strsplit(copy, "\n", UMMS_TELETEXT_TEXT_ROWS);
	unsigned n = *copy ? g_strv_length(lines) : 0;
	struct umms_teletext_layout layout;
	bool placed = umms_teletext_rows_take(bin->rows, n, &layout) && n > 0;
	GString *markup = g_string_new(NULL);
	for (unsigned i = 0; i < n; i++) {
		g_autofree char *escaped = g_markup_escape_text(lines[i], -1);
		if (i > 0)
			g_string_append_c(markup, '\n');
		if (placed && layout.colour[i] != 7)
			g_string_append_printf(markup, "<span foreground=\"%s\">%s</span>",
				umms_teletext_colour(layout.colour[i]), escaped);
		else
			g_string_append(markup, escaped);
	}
	g_strfreev(lines);
	gsize length = markup->len;
	GstBuffer *trimmed = length ? gst_buffer_new_wrapped(g_string_free(markup, FALSE), length) :
		gst_buffer_new();
	if (!length)
		g_string_free(markup, TRUE);
	gst_buffer_copy_into(trimmed, buffer, GST_BUFFER_COPY_METADATA, 0, (gsize)-1);
	if (placed) {
		struct umms_cue_place place = {
			.rows = TELETEXT_ROWS, .columns = 40, .centred = true, .lines = (uint8_t)n,
		};
		memcpy(place.row, layout.row, n);
		gst_support_set_cue_place(trimmed, &place);
	}
	gst_buffer_unref(buffer);
	GST_PAD_PROBE_INFO_DATA(info) = trimmed;
	return GST_PAD_PROBE_OK;
}

/*
 * Streaming thread: on teletextdec's output. What it may send is asked
 * (downstream, before its first page) and answered here: its UTF-8 text,
 * so it never picks RGBA; its caps (which name that "utf-8", where
 * GStreamer's text elements say "utf8") are sent as Pango markup, which
 * the pages are made into.
 */
static GstPadProbeReturn
output_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER)
		return trim_page(data, info);
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
			return GST_PAD_PROBE_OK;
		gst_support_replace_caps_event(info, gst_caps_from_string(TEXT_CAPS));
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
			"text/x-raw, format=(string){ pango-markup, utf-8 }");
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
	if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
		bin->page = 0;
		bin->pid = 0x2000;
		bin->looked_up = false;
	}
	return GST_ELEMENT_CLASS(umms_teletext_bin_parent_class)->change_state(element,
		transition);
}

static void
umms_teletext_bin_init(UmmsTeletextBin *bin)
{
	bin->rows = umms_teletext_rows_create();
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
	gst_pad_add_probe(target, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_FLUSH, input_probe, bin, NULL);
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
finalize(GObject *object)
{
	UmmsTeletextBin *bin = UMMS_TELETEXT_BIN(object);
	if (bin->services)
		services_unref(bin->services);
	umms_teletext_rows_destroy(bin->rows);
	G_OBJECT_CLASS(umms_teletext_bin_parent_class)->finalize(object);
}

static void
umms_teletext_bin_class_init(UmmsTeletextBinClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = finalize;
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

static bool
factory_is(GstElement *element, const char *name)
{
	GstElementFactory *factory = gst_element_get_factory(element);
	return factory && strcmp(gst_plugin_feature_get_name(factory), name) == 0;
}

void
gst_teletext_element_added(struct gst_engine *engine, GstElement *element)
{
	if (factory_is(element, "tsdemux")) {
		/* A new media: its own services. */
		struct services *services = services_new();
		g_mutex_lock(&services_key_lock);
		g_object_set_data_full(G_OBJECT(engine->pipeline), SERVICES_KEY, services,
			services_unref);
		g_mutex_unlock(&services_key_lock);
		struct ts_scan *scan = g_new0(struct ts_scan, 1);
		scan->services = g_atomic_rc_box_acquire(services);
		scan->pending = g_byte_array_new();
		GstPad *sink = gst_element_get_static_pad(element, "sink");
		if (sink) {
			gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, ts_probe, scan,
				ts_scan_free);
			gst_object_unref(sink);
		} else {
			ts_scan_free(scan);
		}
		return;
	}
	if (!UMMS_IS_TELETEXT_BIN(element))
		return;
	UmmsTeletextBin *bin = UMMS_TELETEXT_BIN(element);
	struct services *services = services_of(engine);
	GST_OBJECT_LOCK(bin);
	if (!bin->services)
		bin->services = g_steal_pointer(&services);
	GST_OBJECT_UNLOCK(bin);
	if (services)
		services_unref(services);
}

void
gst_teletext_describe(struct gst_engine *engine, const char *stream_id,
	struct umms_track *track)
{
	unsigned pid;
	struct service service;
	if (g_strcmp0(track->codec, "teletext") != 0 || !stream_pid(stream_id, &pid))
		return;
	struct services *services = services_of(engine);
	bool found = services && services_find(services, pid, &service);
	if (services)
		services_unref(services);
	if (!found)
		return;
	if (!track->language && service.language[0]) {
		const char *iso639_1 = gst_tag_get_language_code_iso_639_1(service.language);
		track->language = g_strdup(iso639_1 ? iso639_1 : service.language);
	}
	if (service.page) {
		g_free(track->codec_description);
		track->codec_description = g_strdup_printf("Teletext subtitles, page %d",
			service.page);
	}
}
