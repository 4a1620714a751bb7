/*
 * gen-clips: the clips with subtitles a stream carries itself, for the
 * tests that look for them on screen (gen-clips.h).
 *
 * Both show 4 s of one dark blue (BT.601 limited range, about
 * 0, 0, 128 in RGB) at 320x240, 25 fps, so any subtitle pixel stands out.
 */
#include <string.h>

#include "gen-clips.h"

#define SUBS_SECONDS 4
#define SUBS_FPS 25
#define SUBS_WIDTH 320
#define SUBS_HEIGHT 240

/* The dark blue picture, H.264 (YUV of 0, 0, 128). */
static char *
blue_branch(void)
{
	return g_strdup_printf("videotestsrc num-buffers=%u pattern=solid-color "
		"foreground-color=0xff000080 ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=1/1 ! "
		"x264enc speed-preset=ultrafast key-int-max=%u bitrate=256 ! "
		"h264parse ! queue",
		SUBS_SECONDS * SUBS_FPS, SUBS_WIDTH, SUBS_HEIGHT, SUBS_FPS, SUBS_FPS);
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
	g_autofree char *video = blue_branch();
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
	g_autofree char *video = blue_branch();
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
