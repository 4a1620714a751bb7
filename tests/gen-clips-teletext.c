/*
 * gen-clips: teletext.ts, a clip with DVB teletext subtitles (gen-clips.h),
 * written by the tests' own teletext writer (teletext-gen.h) since no
 * GStreamer element encodes teletext.
 */
#include <string.h>

#include "gen-clips.h"
#include "teletext-gen.h"

#define TTX_SECONDS 4
#define TTX_FPS GEN_BLUE_FPS
#define TTX_FRAME_MS (1000 / TTX_FPS)
#define TTX_PAGE 888

/* What the clip's teletext stream sends, by the PES it sends it in. */
struct ttx_event {
	unsigned ms;
	unsigned page;
	const char *lines[2];   /* none: the blank page that ends a subtitle */
	bool subtitle;          /* a subtitle page, or an ordinary one */
	unsigned row;           /* a subtitle's first row, 0: the bottom ones */
	uint8_t colour;         /* its colour, 0: white */
};

static const struct ttx_event ttx_events[] = {
	/* An ordinary page the subtitles must not be taken from. */
	{ 480, 100, { "NOT A SUBTITLE" }, false },
	/* A subtitle page the PMT does not name (in a second language, say). */
	{ 720, 889, { "OTHER PAGE" }, true },
	{ 1000, TTX_PAGE, { "TELETEXT ONE", "SECOND LINE" }, true },
	{ 2000, TTX_PAGE, { NULL }, true },
	/*
	 * Characters that would be markup, were they not escaped; at the top
	 * (row 1), in green, where a broadcaster leaves the bottom to text
	 * the picture has.
	 */
	{ 3000, TTX_PAGE, { "<b>TELETEXT</b> TWO" }, true, 1, TTX_GREEN },
	{ 3480, TTX_PAGE, { NULL }, true },
};

static bool
event_pes(const struct ttx_event *event, uint8_t pes[TTX_PES_SIZE])
{
	size_t n = event->lines[1] ? 2 : event->lines[0] ? 1 : 0;
	if (event->subtitle && event->row)
		return ttx_subtitle_pes_at(pes, event->page, event->lines, n, event->row,
			event->colour ? event->colour : TTX_WHITE);
	if (event->subtitle)
		return ttx_subtitle_pes(pes, event->page, event->lines, n);
	uint8_t packets[3][TTX_PACKET_SIZE];
	ttx_header(packets[0], event->page, TTX_C4_ERASE, "UMMS TEST");
	ttx_row(packets[1], event->page / 100, 1, event->lines[0]);
	ttx_filler_header(packets[2], event->page / 100);
	return ttx_pes_payload(pes, (const uint8_t (*)[TTX_PACKET_SIZE])packets, 3);
}

/* MPEG-2 CRC-32 (polynomial 0x04c11db7, no reflection), as PSI sections carry. */
static uint32_t
crc32_mpeg(const uint8_t *data, size_t size)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < size; i++) {
		crc ^= (uint32_t)data[i] << 24;
		for (int b = 0; b < 8; b++)
			crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
	}
	return crc;
}

/* The teletext descriptor (EN 300 468, 6.2.43): German subtitles on page 888. */
static const uint8_t teletext_descriptor[] = {
	0x56, 5, 'd', 'e', 'u', 0x02 << 3 | (TTX_PAGE / 100 % 8),
	(TTX_PAGE / 10 % 10) << 4 | TTX_PAGE % 10,
};

/*
 * A PMT section (@section, within @room bytes) with every private data
 * stream's descriptors replaced by the teletext descriptor; false if it is
 * no PMT or does not fit.
 */
static bool
mark_section(uint8_t *section, size_t room)
{
	if (room < 16 || section[0] != 0x02)
		return false;
	size_t length = (size_t)(section[1] & 0x0f) << 8 | section[2];
	if (3 + length > room || length < 13)
		return false;
	uint8_t out[1024];
	size_t program_info = (size_t)(section[10] & 0x0f) << 8 | section[11];
	size_t pos = 12 + program_info, end = 3 + length - 4, n = 12 + program_info;
	if (pos > end)
		return false;
	memcpy(out, section, n);
	while (pos + 5 <= end) {
		size_t info = (size_t)(section[pos + 3] & 0x0f) << 8 | section[pos + 4];
		if (pos + 5 + info > end || n + 5 + sizeof(teletext_descriptor) + info > sizeof(out))
			return false;
		memcpy(out + n, section + pos, 5);
		if (section[pos] == 0x06) {
			out[n + 3] = 0xf0;
			out[n + 4] = sizeof(teletext_descriptor);
			memcpy(out + n + 5, teletext_descriptor, sizeof(teletext_descriptor));
			n += 5 + sizeof(teletext_descriptor);
		} else {
			memcpy(out + n + 5, section + pos + 5, info);
			n += 5 + info;
		}
		pos += 5 + info;
	}
	if (n + 4 > room)
		return false;
	size_t new_length = n + 4 - 3;
	out[1] = (uint8_t)((section[1] & 0xf0) | new_length >> 8);
	out[2] = (uint8_t)new_length;
	uint32_t crc = crc32_mpeg(out, n);
	out[n] = (uint8_t)(crc >> 24);
	out[n + 1] = (uint8_t)(crc >> 16);
	out[n + 2] = (uint8_t)(crc >> 8);
	out[n + 3] = (uint8_t)crc;
	memset(section, 0xff, room);
	memcpy(section, out, n + 4);
	return true;
}

/*
 * mpegtsmux (1.22) describes an application/x-teletext stream with a DVB
 * subtitling descriptor, and tsdemux then takes it for DVB subtitles: the
 * file's PMTs (each in one packet) get the teletext descriptor instead.
 */
static bool
mark_teletext(const char *path, GError **error)
{
	g_autofree uint8_t *data = NULL;
	gsize size = 0;
	if (!g_file_get_contents(path, (char **)&data, &size, error))
		return false;
	unsigned pmt_pid = 0x2000, marked = 0;
	for (gsize at = 0; at + 188 <= size; at += 188) {
		uint8_t *packet = data + at;
		unsigned pid = (unsigned)(packet[1] & 0x1f) << 8 | packet[2];
		if (packet[0] != 0x47 || !(packet[1] & 0x40))
			continue;
		size_t start = 4;
		if (packet[3] & 0x20)
			start += 1 + packet[4];
		if (start >= 188 || start + 1 + packet[start] >= 188)
			continue;
		uint8_t *section = packet + start + 1 + packet[start];
		size_t room = (size_t)(packet + 188 - section);
		if (pid == 0 && room >= 12 && section[0] == 0x00)
			pmt_pid = (unsigned)(section[10] & 0x1f) << 8 | section[11];
		else if (pid == pmt_pid && mark_section(section, room))
			marked++;
	}
	if (marked == 0) {
		g_set_error(error, GEN_ERROR, 0, "%s: no PMT to describe teletext in", path);
		return false;
	}
	return g_file_set_contents(path, (const char *)data, (gssize)size, error);
}

/*
 * teletext.ts: the blue picture with a DVB teletext stream: subtitle page
 * 888 shows "TELETEXT ONE" / "SECOND LINE" (rows 19 and 21, white) from
 * 1 s to 2 s and "<b>TELETEXT</b> TWO" (as it is, no markup; on row 1, in
 * green) from 3 s to 3.48 s (each, as decoded, one PES, 40 ms, later:
 * teletextdec tells a page when the PES after it comes); page 100, an
 * ordinary page, says "NOT A SUBTITLE" at 0.48 s, and subtitle page 889,
 * which the PMT does not name, "OTHER PAGE" at 0.72 s. A PES goes with
 * every frame, the rest of them time filling headers, as broadcasters
 * send. The PMT names page 888, in German.
 */
bool
make_teletext_ts(const struct job *job, GError **error)
{
	bool ok = false;
	g_autofree char *video = gen_blue_h264_branch(TTX_SECONDS);
	g_autofree char *description = g_strdup_printf(
		"mpegtsmux name=mux ! filesink name=sink "
		"%s ! mux. "
		"appsrc name=ttx format=time caps=application/x-teletext ! queue ! mux.",
		video);
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	GstElement *ttx = gst_bin_get_by_name(GST_BIN(pipeline), "ttx");
	if (!ttx) {
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"ttx\"");
		goto out;
	}
	uint8_t filler[TTX_PES_SIZE];
	uint8_t header[1][TTX_PACKET_SIZE];
	ttx_filler_header(header[0], 8);
	ttx_pes_payload(filler, (const uint8_t (*)[TTX_PACKET_SIZE])header, 1);
	size_t next = 0;
	for (unsigned ms = 0; ms < TTX_SECONDS * 1000; ms += TTX_FRAME_MS) {
		uint8_t pes[TTX_PES_SIZE];
		const uint8_t *data = filler;
		if (next < G_N_ELEMENTS(ttx_events) && ttx_events[next].ms == ms) {
			if (!event_pes(&ttx_events[next++], pes)) {
				g_set_error(error, GEN_ERROR, 0, "a teletext page does not fit");
				goto out;
			}
			data = pes;
		}
		GstBuffer *buffer = gst_buffer_new_memdup(data, TTX_PES_SIZE);
		GST_BUFFER_PTS(buffer) = (GstClockTime)ms * GST_MSECOND;
		GstFlowReturn ret;
		g_signal_emit_by_name(ttx, "push-buffer", buffer, &ret);
		gst_buffer_unref(buffer);
	}
	GstFlowReturn ret;
	g_signal_emit_by_name(ttx, "end-of-stream", &ret);
	if (!set_on(pipeline, "sink", "location", job->tmp, error))
		goto out;
	ok = run_pipeline(pipeline, error) && mark_teletext(job->tmp, error);
out:
	if (ttx)
		gst_object_unref(ttx);
	gst_object_unref(pipeline);
	return ok;
}
