/*
 * gen-clips: the clips with subtitles a stream carries itself, for the
 * tests that look for them on screen (gen-clips.h).
 *
 * All show 4 s of one dark blue (BT.601 limited range, about
 * 0, 0, 128 in RGB) at 320x240, 25 fps, so any subtitle pixel stands out.
 */
#include <string.h>
#include <gst/video/video.h>

#include "gen-clips.h"

#define SUBS_SECONDS 4
#define SUBS_FPS GEN_BLUE_FPS
#define SUBS_WIDTH GEN_BLUE_WIDTH
#define SUBS_HEIGHT GEN_BLUE_HEIGHT

char *
gen_blue_h264_branch(unsigned seconds)
{
	return g_strdup_printf("videotestsrc num-buffers=%u pattern=solid-color "
		"foreground-color=0xff000080 ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=1/1 ! "
		"x264enc speed-preset=ultrafast key-int-max=%u bitrate=256 ! "
		"h264parse ! queue",
		seconds * GEN_BLUE_FPS, GEN_BLUE_WIDTH, GEN_BLUE_HEIGHT, GEN_BLUE_FPS,
		GEN_BLUE_FPS);
}

/* Queues a buffer of @data (@size bytes) at @start_ms for @duration_ms into appsrc @src. */
static void
push_timed(GstElement *src, const void *data, gsize size, unsigned start_ms,
	unsigned duration_ms)
{
	GstBuffer *buffer = gst_buffer_new_memdup(data, size);
	GST_BUFFER_PTS(buffer) = (GstClockTime)start_ms * GST_MSECOND;
	GST_BUFFER_DURATION(buffer) = (GstClockTime)duration_ms * GST_MSECOND;
	GstFlowReturn ret;
	g_signal_emit_by_name(src, "push-buffer", buffer, &ret);
	gst_buffer_unref(buffer);
}

static void
end_of_stream(GstElement *src)
{
	GstFlowReturn ret;
	g_signal_emit_by_name(src, "end-of-stream", &ret);
}

static GstElement *
get_src(GstElement *pipeline, const char *name, GError **error)
{
	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), name);
	if (!src)
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"%s\"", name);
	return src;
}

/* ---- subs.mkv ------------------------------------------------------------- */

/* The text track (SRT-like UTF-8 cues). */
static const struct cue subs_text_cues[] = {
	{ 1000, 2000, "WWWWWWWW" },
	{ 3000, 3500, "MMMMMMMM" },
};

/* The SSA/ASS track: one style, pure red, big, bottom centre. */
static const char subs_ass_header[] =
	"[Script Info]\n"
	"ScriptType: v4.00+\n"
	"PlayResX: 320\n"
	"PlayResY: 240\n"
	"\n"
	"[V4+ Styles]\n"
	"Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, "
	"BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, "
	"BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"
	"Style: Red,DejaVu Sans,48,&H000000FF,&H000000FF,&H000000FF,&H000000FF,1,0,0,0,"
	"100,100,0,0,1,0,0,2,10,10,10,1\n"
	"\n"
	"[Events]\n"
	"Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n";

/* Matroska's ASS blocks: ReadOrder, Layer, Style, Name, MarginL, MarginR, MarginV, Effect, Text. */
static const struct cue subs_ass_cues[] = {
	{ 1000, 2000, "0,0,Red,,0,0,0,,REDRED" },
};

/*
 * subs.mkv: the blue picture with two subtitle tracks: text (cues
 * "WWWWWWWW" 1–2 s and "MMMMMMMM" 3–3.5 s) and SSA/ASS (pure red
 * "REDRED" 1–2 s, bottom centre).
 */
bool
make_subs_mkv(const struct job *job, GError **error)
{
	bool ok = false;
	g_autofree char *video = gen_blue_h264_branch(SUBS_SECONDS);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux.video_0 "
		"appsrc name=text format=time caps=text/x-raw,format=utf8 ! "
		"taginject tags=\"language-code=en\" ! queue ! mux.subtitle_0 "
		"appsrc name=ass format=time ! taginject tags=\"language-code=fr\" ! "
		"queue ! mux.subtitle_1",
		video);
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	GstElement *text = get_src(pipeline, "text", error);
	GstElement *ass = text ? get_src(pipeline, "ass", error) : NULL;
	if (!ass)
		goto out;
	GstBuffer *header = gst_buffer_new_memdup(subs_ass_header, strlen(subs_ass_header));
	GstCaps *caps = gst_caps_new_simple("application/x-ass",
		"codec_data", GST_TYPE_BUFFER, header, NULL);
	gst_buffer_unref(header);
	g_object_set(ass, "caps", caps, NULL);
	gst_caps_unref(caps);
	for (size_t i = 0; i < G_N_ELEMENTS(subs_text_cues); i++) {
		const struct cue *c = &subs_text_cues[i];
		push_timed(text, c->text, strlen(c->text), c->start_ms, c->end_ms - c->start_ms);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(subs_ass_cues); i++) {
		const struct cue *c = &subs_ass_cues[i];
		push_timed(ass, c->text, strlen(c->text), c->start_ms, c->end_ms - c->start_ms);
	}
	end_of_stream(text);
	end_of_stream(ass);
	if (!set_on(pipeline, "sink", "location", job->tmp, error))
		goto out;
	ok = run_pipeline(pipeline, error);
out:
	if (text)
		gst_object_unref(text);
	if (ass)
		gst_object_unref(ass);
	gst_object_unref(pipeline);
	return ok;
}

/* ---- dvbsub.ts ------------------------------------------------------------ */

/* The DVB subtitle's box, opaque green, in the picture's pixels. */
#define DVB_BOX_X 96
#define DVB_BOX_Y 160
#define DVB_BOX_W 128
#define DVB_BOX_H 48

/* An AYUV picture, transparent but for the green box. */
static guint8 *
dvb_picture(gsize *size)
{
	*size = (gsize)SUBS_WIDTH * SUBS_HEIGHT * 4;
	guint8 *data = g_malloc0(*size);
	for (int y = 0; y < SUBS_HEIGHT; y++) {
		for (int x = 0; x < SUBS_WIDTH; x++) {
			guint8 *p = data + ((gsize)y * SUBS_WIDTH + (gsize)x) * 4;
			bool inside = x >= DVB_BOX_X && x < DVB_BOX_X + DVB_BOX_W &&
				y >= DVB_BOX_Y && y < DVB_BOX_Y + DVB_BOX_H;
			/* A, Y, U, V: BT.601 limited range green (0, 255, 0) where inside. */
			p[0] = inside ? 255 : 0;
			p[1] = inside ? 145 : 16;
			p[2] = inside ? 54 : 128;
			p[3] = inside ? 34 : 128;
		}
	}
	return data;
}

/*
 * dvbsub.ts: the blue picture with a DVB subtitle track (dvbsubenc): an
 * opaque green 128x48 box at 96,160 from 1 s to 2 s, nothing before or after.
 */
bool
make_dvbsub_ts(const struct job *job, GError **error)
{
	bool ok = false;
	g_autofree char *video = gen_blue_h264_branch(SUBS_SECONDS);
	g_autofree char *description = g_strdup_printf(
		"mpegtsmux name=mux ! filesink name=sink "
		"%s ! mux. "
		"appsrc name=dvb format=time caps=video/x-raw,format=AYUV,width=%u,height=%u,"
		"framerate=0/1,pixel-aspect-ratio=1/1 ! dvbsubenc ! queue ! mux.",
		video, SUBS_WIDTH, SUBS_HEIGHT);
	gsize size;
	g_autofree guint8 *box = dvb_picture(&size);
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	GstElement *dvb = get_src(pipeline, "dvb", error);
	if (!dvb)
		goto out;
	push_timed(dvb, box, size, 1000, 1000);
	/* dvbsubenc ends the page it shows at the next gap after its end. */
	gst_element_send_event(dvb, gst_event_new_gap(2 * GST_SECOND, 2 * GST_SECOND));
	end_of_stream(dvb);
	if (!set_on(pipeline, "sink", "location", job->tmp, error))
		goto out;
	ok = run_pipeline(pipeline, error);
out:
	if (dvb)
		gst_object_unref(dvb);
	gst_object_unref(pipeline);
	return ok;
}

/* ---- cc608.mkv ------------------------------------------------------------ */

/* A 7-bit CEA-608 byte with its odd parity bit. */
static guint8
odd_parity(guint8 c)
{
	c &= 0x7f;
	return __builtin_parity(c) ? c : (guint8)(c | 0x80);
}

/* Field 1's byte pair for frame @n (CC1), before parity: padding but where a caption is sent. */
static void
cc608_pair(unsigned n, guint8 pair[2])
{
	/*
	 * Pop-on captions, control codes sent twice as broadcasters do:
	 * resume caption loading (RCL), preamble address code for row 15
	 * (the second caption: row 1, the top, in green), the text, end of
	 * caption (EOC: shown from that frame), and later erase displayed
	 * memory (EDM).
	 */
	static const struct {
		unsigned frame;
		guint8 a, b;
	} sent[] = {
		{ 17, 0x14, 0x20 }, { 18, 0x14, 0x20 },                 /* RCL */
		{ 19, 0x14, 0x60 }, { 20, 0x14, 0x60 },                 /* PAC: row 15, white */
		{ 21, 'C', 'A' }, { 22, 'P', 'T' }, { 23, 'I', 'O' }, { 24, 'N', 0 },
		{ 25, 0x14, 0x2f }, { 26, 0x14, 0x2f },                 /* EOC: 1.0 s */
		{ 50, 0x14, 0x2c }, { 51, 0x14, 0x2c },                 /* EDM: 2.0 s */
		{ 62, 0x14, 0x20 }, { 63, 0x14, 0x20 },                 /* RCL */
		{ 64, 0x11, 0x42 }, { 65, 0x11, 0x42 },                 /* PAC: row 1, green */
		{ 66, 'L', 'A' }, { 67, 'T', 'E' }, { 68, 'R', 0 },
		{ 75, 0x14, 0x2f }, { 76, 0x14, 0x2f },                 /* EOC: 3.0 s */
		{ 87, 0x14, 0x2c }, { 88, 0x14, 0x2c },                 /* EDM: 3.48 s */
	};
	pair[0] = pair[1] = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(sent); i++) {
		if (sent[i].frame == n) {
			pair[0] = sent[i].a;
			pair[1] = sent[i].b;
		}
	}
}

/* Streaming thread: every picture into x264enc gets its caption data (cc_data, CEA-708 framing). */
static GstPadProbeReturn
cc608_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	if (!buffer || !GST_BUFFER_PTS_IS_VALID(buffer))
		return GST_PAD_PROBE_OK;
	unsigned n = (unsigned)(GST_BUFFER_PTS(buffer) / (GST_SECOND / SUBS_FPS));
	guint8 pair[2];
	cc608_pair(n, pair);
	/* One triplet: marker bits, cc_valid, cc_type 0 (field 1), the two bytes. */
	const guint8 cc_data[3] = { 0xfc, odd_parity(pair[0]), odd_parity(pair[1]) };
	buffer = gst_buffer_make_writable(buffer);
	gst_buffer_add_video_caption_meta(buffer, GST_VIDEO_CAPTION_TYPE_CEA708_RAW, cc_data,
		sizeof(cc_data));
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	return GST_PAD_PROBE_OK;
}

/* The blue picture in H.264, @probe giving each picture into x264enc its caption meta. */
static bool
make_cc_mkv(const struct job *job, GstPadProbeCallback probe, GError **error)
{
	g_autofree char *description = g_strdup_printf(
		"videotestsrc num-buffers=%u pattern=solid-color foreground-color=0xff000080 ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=1/1 ! identity name=cc ! "
		"x264enc speed-preset=ultrafast bframes=2 b-adapt=false key-int-max=%u "
		"bitrate=256 ! "
		"h264parse ! matroskamux ! filesink name=sink",
		SUBS_SECONDS * SUBS_FPS, SUBS_WIDTH, SUBS_HEIGHT, SUBS_FPS, SUBS_FPS);
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	bool ok = false;
	GstElement *cc = get_src(pipeline, "cc", error);
	if (!cc)
		goto out;
	GstPad *src = gst_element_get_static_pad(cc, "src");
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, probe, NULL, NULL);
	gst_object_unref(src);
	gst_object_unref(cc);
	if (!set_on(pipeline, "sink", "location", job->tmp, error))
		goto out;
	ok = run_pipeline(pipeline, error);
out:
	gst_object_unref(pipeline);
	return ok;
}

/*
 * cc608.mkv: the blue picture, H.264 carrying CEA-608 captions (CC1,
 * pop-on) in its SEI user data (A/53, written by x264enc from the caption
 * meta): "CAPTION" shown from 1.0 s to 2.0 s (row 15, white), "LATER"
 * from 3.0 s to 3.48 s (row 1, green), padding in every other picture.
 * With B-frames: the pictures, and their caption bytes, are stored out of
 * presentation order.
 */
bool
make_cc608_mkv(const struct job *job, GError **error)
{
	return make_cc_mkv(job, cc608_probe, error);
}

/* ---- cc708.mkv ------------------------------------------------------------ */

/* The cc_data triplets each picture of cc708.mkv carries: one 608 pair, DTVCC bytes, padding. */
#define CC708_TRIPLETS 10

/*
 * The DTVCC packet bytes (header first) frame @n starts or continues, of
 * service 1 (CEA-708-E): a packet in a frame, but the captions', which
 * spans frames 40 and 41. *@start: the first two begin a packet.
 */
static size_t
cc708_bytes(unsigned n, const guint8 **bytes, bool *start)
{
	/* Packet header (sequence, size in pairs), block header (service 1, size), commands. */
	static const guint8 reset[] = { 0x02, 0x22, 0x8c, 0xff };   /* DLW: all */
	static const guint8 text[] = {
		0x50, 0x3e,
		/* DF0: hidden, 1 x 32 anchored bottom-centre (point 7) at 74, 104. */
		0x98, 0x08, 0x4a, 0x68, 0x70, 0x1f, 0x09,
		'D', 'T', 'V', 'C', 'C', ' ', 'O', 'N', 'E',
		/* DF1: hidden, priority 1, 1 x 10 anchored top-centre (point 1) at 0, 104; red. */
		0x99, 0x01, 0x00, 0x68, 0x10, 0x09, 0x09,
		0x91, 0x30, 0x00, 0x00, 'T', 'O', 'P',
	};
	static const guint8 show[] = { 0x82, 0x22, 0x89, 0x03 };    /* DSW 0 1 */
	static const guint8 erase[] = { 0xc2, 0x22, 0x8c, 0x03 };   /* DLW 0 1 */
	*start = true;
	switch (n) {
	case 0:
		*bytes = reset;
		return sizeof(reset);
	case 40:
		*bytes = text;
		return 16;
	case 41:
		*bytes = text + 16;
		*start = false;
		return sizeof(text) - 16;
	case 55:
		*bytes = show;
		return sizeof(show);
	case 80:
		*bytes = erase;
		return sizeof(erase);
	default:
		return 0;
	}
}

/* Streaming thread: every picture into x264enc gets its cc_data, CEA-608 and CEA-708. */
static GstPadProbeReturn
cc708_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
	if (!buffer || !GST_BUFFER_PTS_IS_VALID(buffer))
		return GST_PAD_PROBE_OK;
	unsigned n = (unsigned)(GST_BUFFER_PTS(buffer) / (GST_SECOND / SUBS_FPS));
	guint8 cc_data[3 * CC708_TRIPLETS], pair[2];
	cc608_pair(n, pair);
	size_t len = 0;
	cc_data[len++] = 0xfc;
	cc_data[len++] = odd_parity(pair[0]);
	cc_data[len++] = odd_parity(pair[1]);
	const guint8 *bytes;
	bool start;
	size_t size = cc708_bytes(n, &bytes, &start);
	for (size_t i = 0; i + 1 < size; i += 2) {
		/* cc_valid, cc_type 3 (DTVCC_PACKET_START) or 2 (DTVCC_PACKET_DATA). */
		cc_data[len++] = i == 0 && start ? 0xff : 0xfe;
		cc_data[len++] = bytes[i];
		cc_data[len++] = bytes[i + 1];
	}
	/* A/53: the rest padding (cc_valid off, cc_type 2). */
	while (len < sizeof(cc_data)) {
		cc_data[len++] = 0xfa;
		cc_data[len++] = 0x00;
		cc_data[len++] = 0x00;
	}
	buffer = gst_buffer_make_writable(buffer);
	gst_buffer_add_video_caption_meta(buffer, GST_VIDEO_CAPTION_TYPE_CEA708_RAW, cc_data, len);
	GST_PAD_PROBE_INFO_DATA(info) = buffer;
	return GST_PAD_PROBE_OK;
}

/*
 * cc708.mkv: cc608.mkv's picture and CEA-608 captions, with CEA-708
 * (DTVCC) service 1 beside them in the same cc_data (x264enc's A/53 SEI):
 * window 0 defined hidden with "DTVCC ONE" at the bottom-centre, window
 * 1 with "TOP" in red at the top-centre (frames 40-41), both shown from
 * 2.2 s (DSW) to 3.2 s (DLW); the first picture's packet deletes every
 * window, so the service is known from the start.
 */
bool
make_cc708_mkv(const struct job *job, GError **error)
{
	return make_cc_mkv(job, cc708_probe, error);
}
