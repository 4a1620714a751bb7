/*
 * gen-clips: writes the media clips the tests play.
 *
 * Usage: gen-clips OUTDIR
 *
 * Creates OUTDIR if missing and writes every clip of the table below into it.
 * A clip whose file already exists, is not empty and is newer than this
 * program is kept (a rebuilt gen-clips, whose clips may have changed,
 * writes them all again). Each clip is
 * written to a hidden temporary name first and renamed when complete, so a
 * killed run never leaves half a clip under its real name.
 *
 * The clips are deterministic in what the tests look at (durations, codecs,
 * sizes, languages, tags, colours); they are not byte-identical from run to
 * run, the muxers write dates and random segment ids.
 *
 * Notes for tests: matroskamux names its tracks "Audio", "Video" and
 * "Subtitle"; a Matroska audio track without a language reads back as "en"
 * (the format's default); muxed-subs.srt is the source of av.mkv's subtitle
 * track; AAC's encoder delay makes av.mp4 about 21 ms longer than 3 s.
 *
 * Needs GStreamer core and the base, good, bad and ugly plugins plus gst-libav
 * (x264enc, vp9enc, opusenc, avenc_aac and the muxers); only gstreamer-1.0 and
 * glib are linked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "gen-clips.h"

/* No pipeline may run longer than this; it fails instead of hanging. */
#define PIPELINE_TIMEOUT_US (30 * G_USEC_PER_SEC)

/* Opus takes 20 ms frames: 960 samples at 48 kHz, so N seconds is exact. */
#define AUDIO_RATE 48000
#define AUDIO_SAMPLES 960
#define AUDIO_BUFFERS(seconds) ((seconds) * AUDIO_RATE / AUDIO_SAMPLES)

/* colors.mkv: 4 s of 320x240 I420 at 25 fps, one solid colour a second. */
#define COLORS_WIDTH 320
#define COLORS_HEIGHT 240
#define COLORS_FPS 25
#define COLORS_SECONDS 4

/* ---- Pipelines ---- */

/*
 * "videotestsrc ! x264enc ! h264parse ! queue": frames frames of smpte bars,
 * an I420 stream (x264enc would pick 4:4:4 otherwise) with a key frame every
 * second.
 */
static char *
h264_branch(unsigned frames, unsigned width, unsigned height, unsigned fps,
	unsigned par_n, unsigned par_d)
{
	return g_strdup_printf("videotestsrc num-buffers=%u pattern=smpte ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=%u/%u ! "
		"x264enc speed-preset=ultrafast key-int-max=%u bitrate=512 ! "
		"h264parse ! queue",
		frames, width, height, fps, par_n, par_d, fps);
}

/* "videotestsrc ! vp9enc ! queue", a key frame every second. */
static char *
vp9_branch(unsigned frames, unsigned width, unsigned height, unsigned fps)
{
	return g_strdup_printf("videotestsrc num-buffers=%u pattern=smpte ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=1/1 ! "
		"vp9enc deadline=1 cpu-used=8 keyframe-max-dist=%u ! queue",
		frames, width, height, fps, fps);
}

/* A 48 kHz sine of the given length, raw, before its encoder. */
static char *
sine_source(unsigned seconds, unsigned channels, unsigned freq)
{
	return g_strdup_printf("audiotestsrc num-buffers=%u samplesperbuffer=%u "
		"wave=sine freq=%u ! "
		"audio/x-raw,format=S16LE,rate=%u,channels=%u,layout=interleaved ! "
		"audioconvert",
		AUDIO_BUFFERS(seconds), AUDIO_SAMPLES, freq, AUDIO_RATE, channels);
}

/* An Opus branch; language, when given, becomes the track language. */
static char *
opus_branch(unsigned seconds, unsigned channels, unsigned freq,
	const char *language)
{
	g_autofree char *src = sine_source(seconds, channels, freq);
	g_autofree char *lang = language ?
		g_strdup_printf("taginject tags=\"language-code=%s\" ! ", language) :
		g_strdup("");
	return g_strdup_printf("%s ! opusenc ! %squeue", src, lang);
}

/* An AAC (ADTS framed, as mpegtsmux likes it; mp4mux takes it too) branch. */
static char *
aac_branch(unsigned seconds, unsigned channels, unsigned freq)
{
	g_autofree char *src = sine_source(seconds, channels, freq);
	return g_strdup_printf("%s ! avenc_aac ! aacparse ! queue", src);
}

/* Builds a pipeline with gst_parse_launch, failing on any missing element. */
GstElement *
launch(const char *description, GError **error)
{
	GError *local = NULL;
	GstElement *pipeline = gst_parse_launch_full(description, NULL,
		GST_PARSE_FLAG_FATAL_ERRORS, &local);
	if (!pipeline) {
		g_set_error(error, GEN_ERROR, 0, "cannot build pipeline: %s",
			local ? local->message : "unknown error");
		g_clear_error(&local);
		return NULL;
	}
	if (local) {
		/* Not reached with FATAL_ERRORS, but never run half a pipeline. */
		g_set_error(error, GEN_ERROR, 0, "cannot build pipeline: %s",
			local->message);
		g_error_free(local);
		gst_object_unref(pipeline);
		return NULL;
	}
	return pipeline;
}

/* Sets a property of the element called name in the pipeline. */
bool
set_on(GstElement *pipeline, const char *name, const char *property,
	const char *value, GError **error)
{
	GstElement *element = gst_bin_get_by_name(GST_BIN(pipeline), name);
	if (!element) {
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"%s\"", name);
		return false;
	}
	g_object_set(element, property, value, NULL);
	gst_object_unref(element);
	return true;
}

/* Gives the muxer called "mux" its global tags; call before PLAYING. */
static bool
set_global_tags(GstElement *pipeline, const GstTagList *tags, GError **error)
{
	bool ok = false;
	GstElement *mux = gst_bin_get_by_name(GST_BIN(pipeline), "mux");
	if (!mux) {
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"mux\"");
		return false;
	}
	if (!GST_IS_TAG_SETTER(mux)) {
		g_set_error(error, GEN_ERROR, 0, "%s does not take tags",
			GST_OBJECT_NAME(gst_element_get_factory(mux)));
		goto out;
	}
	gst_tag_setter_merge_tags(GST_TAG_SETTER(mux), tags, GST_TAG_MERGE_REPLACE);
	ok = true;
out:
	gst_object_unref(mux);
	return ok;
}

/* Turns an ERROR message into error. */
static void
set_message_error(GstMessage *msg, GError **error)
{
	GError *gerr = NULL;
	g_autofree char *debug = NULL;

	gst_message_parse_error(msg, &gerr, &debug);
	g_set_error(error, GEN_ERROR, 0, "%s: %s%s%s",
		GST_MESSAGE_SRC_NAME(msg), gerr ? gerr->message : "error",
		debug ? " | " : "", debug ? debug : "");
	g_clear_error(&gerr);
}

/*
 * Runs the pipeline to EOS. Fails on the first ERROR message, on a failed
 * state change and after PIPELINE_TIMEOUT_US. Leaves it in NULL state, with
 * its files closed.
 */
bool
run_pipeline(GstElement *pipeline, GError **error)
{
	bool ok = false;
	GstBus *bus = gst_element_get_bus(pipeline);
	gint64 deadline = g_get_monotonic_time() + PIPELINE_TIMEOUT_US;
	GstMessage *msg;

	if (gst_element_set_state(pipeline, GST_STATE_PLAYING) ==
			GST_STATE_CHANGE_FAILURE) {
		msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
		if (msg) {
			set_message_error(msg, error);
			gst_message_unref(msg);
		} else {
			g_set_error(error, GEN_ERROR, 0, "pipeline failed to start");
		}
		goto out;
	}

	for (;;) {
		gint64 left = deadline - g_get_monotonic_time();
		if (left <= 0)
			goto timeout;
		msg = gst_bus_timed_pop_filtered(bus, (GstClockTime)left * GST_USECOND,
			GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
		if (!msg)
			goto timeout;
		if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
			set_message_error(msg, error);
			gst_message_unref(msg);
			goto out;
		}
		/* EOS: every sink has all its data. */
		gst_message_unref(msg);
		ok = true;
		goto out;
	}

timeout:
	g_set_error(error, GEN_ERROR, 0, "pipeline did not finish within %d s",
		(int)(PIPELINE_TIMEOUT_US / G_USEC_PER_SEC));
out:
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(bus);
	return ok;
}

/*
 * Builds the pipeline, points its "sink" filesink at tmp (and its "subs"
 * filesrc at subs if given), gives "mux" the global tags if given and runs it.
 */
static bool
run_launch(const char *description, const char *tmp, const char *subs,
	const GstTagList *tags, GError **error)
{
	bool ok = false;
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	if (!set_on(pipeline, "sink", "location", tmp, error))
		goto out;
	if (subs && !set_on(pipeline, "subs", "location", subs, error))
		goto out;
	if (tags && !set_global_tags(pipeline, tags, error))
		goto out;
	ok = run_pipeline(pipeline, error);
out:
	gst_object_unref(pipeline);
	return ok;
}

/* ---- Text files ---- */

/* The subtitle track of av.mkv (German, five cues over the 5 s). */
static const struct cue muxed_cues[] = {
	{ 200, 900, "Erster Untertitel" },
	{ 1200, 1900, "Zweiter Untertitel" },
	{ 2200, 2900, "Dritter Untertitel" },
	{ 3200, 3900, "Vierter Untertitel" },
	{ 4200, 4900, "Fuenfter Untertitel" },
};

/* subs.en.srt: ten cues over 5 s. */
static const struct cue english_cues[] = {
	{ 0, 450, "Subtitle one: the bars appear." },
	{ 500, 950, "Subtitle two: still the bars." },
	{ 1000, 1450, "Subtitle three: one second in." },
	{ 1500, 1950, "Subtitle four: halfway to two." },
	{ 2000, 2450, "Subtitle five: two seconds in." },
	{ 2500, 2950, "Subtitle six: the middle." },
	{ 3000, 3450, "Subtitle seven: three seconds in." },
	{ 3500, 3950, "Subtitle eight: almost there." },
	{ 4000, 4450, "Subtitle nine: four seconds in." },
	{ 4500, 4950, "Subtitle ten: the end." },
};

static void
append_srt_time(GString *out, unsigned ms)
{
	g_string_append_printf(out, "%02u:%02u:%02u,%03u", ms / 3600000,
		ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
}

static char *
srt_text(const struct cue *cues, size_t count)
{
	GString *out = g_string_new(NULL);
	for (size_t i = 0; i < count; i++) {
		g_string_append_printf(out, "%zu\n", i + 1);
		append_srt_time(out, cues[i].start_ms);
		g_string_append(out, " --> ");
		append_srt_time(out, cues[i].end_ms);
		g_string_append_printf(out, "\n%s\n\n", cues[i].text);
	}
	return g_string_free(out, FALSE);
}

static bool
write_text(const char *path, const char *text, gssize length, GError **error)
{
	return g_file_set_contents(path, text, length, error);
}

static bool
make_muxed_srt(const struct job *job, GError **error)
{
	g_autofree char *text = srt_text(muxed_cues, G_N_ELEMENTS(muxed_cues));
	return write_text(job->tmp, text, -1, error);
}

static bool
make_english_srt(const struct job *job, GError **error)
{
	g_autofree char *text = srt_text(english_cues, G_N_ELEMENTS(english_cues));
	return write_text(job->tmp, text, -1, error);
}

/* text.mp4: about 2 KB of plain ASCII prose, named like media but not media. */
static bool
make_text(const struct job *job, GError **error)
{
	static const char *const lines[] = {
		"This is not a media file, whatever its name says.",
		"It is plain text that the umms tests use to check that a file",
		"which only looks like a video by its extension is refused",
		"with a clear error instead of a crash or a hang.",
	};
	GString *out = g_string_new(NULL);
	for (unsigned round = 1; out->len < 2000; round++) {
		g_string_append_printf(out, "Paragraph %u.\n", round);
		for (size_t i = 0; i < G_N_ELEMENTS(lines); i++)
			g_string_append_printf(out, "%s\n", lines[i]);
		g_string_append_c(out, '\n');
	}
	bool ok = write_text(job->tmp, out->str, (gssize)out->len, error);
	g_string_free(out, TRUE);
	return ok;
}

/* The first clip->percent % of the bytes of clip->source. */
static bool
make_truncated(const struct job *job, GError **error)
{
	const struct clip *clip = job->clip;
	g_autofree char *source = g_build_filename(job->outdir, clip->source, NULL);
	g_autofree char *data = NULL;
	gsize length;

	if (!g_file_get_contents(source, &data, &length, error))
		return false;
	return write_text(job->tmp, data, (gssize)(length * clip->percent / 100),
		error);
}

/* ---- Media clips ---- */

/*
 * av.mkv: 5 s, H.264 320x240 25 fps, Opus stereo 440 Hz "en", Opus mono
 * 880 Hz "fr", SRT subtitles "de" from muxed-subs.srt, global tags.
 */
static bool
make_av_mkv(const struct job *job, GError **error)
{
	g_autofree char *subs = g_build_filename(job->outdir, "muxed-subs.srt", NULL);
	g_autofree char *video = h264_branch(125, 320, 240, 25, 1, 1);
	g_autofree char *en = opus_branch(5, 2, 440, "en");
	g_autofree char *fr = opus_branch(5, 1, 880, "fr");
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux.video_0 "
		"%s ! mux.audio_0 "
		"%s ! mux.audio_1 "
		"filesrc name=subs ! subparse ! taginject tags=\"language-code=de\" ! "
		"queue ! mux.subtitle_0",
		video, en, fr);
	GstTagList *tags = gst_tag_list_new(
		GST_TAG_TITLE, "umms test clip",
		GST_TAG_ARTIST, "umms tests",
		GST_TAG_ALBUM, "generated",
		GST_TAG_GENRE, "Test",
		GST_TAG_COMMENT, "colour bars",
		NULL);
	bool ok = run_launch(description, job->tmp, subs, tags, error);
	gst_tag_list_unref(tags);
	return ok;
}

/* av.mp4: 3 s, H.264 320x240 25 fps + AAC 48 kHz stereo, title tag. */
static bool
make_av_mp4(const struct job *job, GError **error)
{
	g_autofree char *video = h264_branch(75, 320, 240, 25, 1, 1);
	g_autofree char *audio = aac_branch(3, 2, 440);
	g_autofree char *description = g_strdup_printf(
		"mp4mux name=mux ! filesink name=sink "
		"%s ! mux.video_0 %s ! mux.audio_0", video, audio);
	GstTagList *tags = gst_tag_list_new(GST_TAG_TITLE, "mp4 clip", NULL);
	bool ok = run_launch(description, job->tmp, NULL, tags, error);
	gst_tag_list_unref(tags);
	return ok;
}

/* vp9.webm: 3 s, VP9 320x240 30 fps + Opus stereo. */
static bool
make_vp9_webm(const struct job *job, GError **error)
{
	g_autofree char *video = vp9_branch(90, 320, 240, 30);
	g_autofree char *audio = opus_branch(3, 2, 440, NULL);
	g_autofree char *description = g_strdup_printf(
		"webmmux name=mux ! filesink name=sink "
		"%s ! mux.video_0 %s ! mux.audio_0", video, audio);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/* av.ts: 3 s, H.264 320x240 25 fps + AAC stereo in MPEG-TS. */
static bool
make_av_ts(const struct job *job, GError **error)
{
	g_autofree char *video = h264_branch(75, 320, 240, 25, 1, 1);
	g_autofree char *audio = aac_branch(3, 2, 440);
	g_autofree char *description = g_strdup_printf(
		"mpegtsmux name=mux ! filesink name=sink "
		"%s ! mux. %s ! mux.", video, audio);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/* audio.ogg: 2 s of Opus stereo in Ogg, no video. */
static bool
make_audio_ogg(const struct job *job, GError **error)
{
	g_autofree char *audio = opus_branch(2, 2, 440, NULL);
	g_autofree char *description = g_strdup_printf(
		"oggmux name=mux ! filesink name=sink %s ! mux.", audio);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/* anamorphic.mkv: 2 s, H.264 352x288 with pixel aspect ratio 12/11. */
static bool
make_anamorphic_mkv(const struct job *job, GError **error)
{
	g_autofree char *video = h264_branch(50, 352, 288, 25, 12, 11);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink %s ! mux.video_0", video);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/* long.mkv: 20 s, H.264 160x120 25 fps + Opus stereo. */
static bool
make_long_mkv(const struct job *job, GError **error)
{
	g_autofree char *video = h264_branch(500, 160, 120, 25, 1, 1);
	g_autofree char *audio = opus_branch(20, 2, 440, NULL);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux.video_0 %s ! mux.audio_0", video, audio);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/* two-video.mkv: 2 s, H.264 and VP9 tracks (both 320x240 25 fps) + Opus. */
static bool
make_two_video_mkv(const struct job *job, GError **error)
{
	g_autofree char *h264 = h264_branch(50, 320, 240, 25, 1, 1);
	g_autofree char *vp9 = vp9_branch(50, 320, 240, 25);
	g_autofree char *audio = opus_branch(2, 2, 440, NULL);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux.video_0 %s ! mux.video_1 %s ! mux.audio_0",
		h264, vp9, audio);
	return run_launch(description, job->tmp, NULL, NULL, error);
}

/*
 * colors.mkv: one solid colour a second, red, green, blue, white, as BT.601
 * limited range Y'CbCr. They decode to exactly these values; videoconvert's
 * RGB is a few steps off (253,0,0 / 0,250,0 / 0,0,253 / 253,253,253).
 */
static const guint8 colors_yuv[COLORS_SECONDS][3] = {
	{ 81, 90, 240 },   /* red */
	{ 145, 54, 34 },   /* green */
	{ 41, 240, 110 },  /* blue */
	{ 235, 128, 128 }, /* white */
};

/*
 * pattern.mkv: 10 s of one picture whose every part tells where it went:
 * quadrants red, green, blue, white, with a magenta band over the top 20
 * rows and a cyan band over the bottom 20 (scale-mode tests see which rows
 * a mode keeps and where the picture's middle lands).
 */
#define PATTERN_SECONDS 10
#define PATTERN_BAND 20

enum { RED, GREEN, BLUE, WHITE, MAGENTA, CYAN };
static const guint8 pattern_yuv[][3] = {
	[RED] = { 81, 90, 240 }, [GREEN] = { 145, 54, 34 }, [BLUE] = { 41, 240, 110 },
	[WHITE] = { 235, 128, 128 }, [MAGENTA] = { 106, 202, 222 }, [CYAN] = { 170, 166, 16 },
};

static int
pattern_colour(unsigned x, unsigned y)
{
	if (y < PATTERN_BAND)
		return MAGENTA;
	if (y >= COLORS_HEIGHT - PATTERN_BAND)
		return CYAN;
	bool right = x >= COLORS_WIDTH / 2, bottom = y >= COLORS_HEIGHT / 2;
	return bottom ? (right ? WHITE : BLUE) : (right ? GREEN : RED);
}

struct colors_feed {
	unsigned frame;
	unsigned frames;
	bool pattern;
};

/* One I420 frame: Y, U, V planes back to back (no padding at 320x240). */
static void
paint_pattern(guint8 *data)
{
	const unsigned w = COLORS_WIDTH, h = COLORS_HEIGHT;
	guint8 *u = data + w * h, *v = u + (w / 2) * (h / 2);
	for (unsigned y = 0; y < h; y++) {
		for (unsigned x = 0; x < w; x++)
			data[y * w + x] = pattern_yuv[pattern_colour(x, y)][0];
	}
	for (unsigned y = 0; y < h / 2; y++) {
		for (unsigned x = 0; x < w / 2; x++) {
			int c = pattern_colour(2 * x, 2 * y);
			u[y * (w / 2) + x] = pattern_yuv[c][1];
			v[y * (w / 2) + x] = pattern_yuv[c][2];
		}
	}
}

/* appsrc need-data: pushes the next frame, or EOS after the last one. */
static void
colors_need_data(GstElement *src, G_GNUC_UNUSED guint length, gpointer data)
{
	struct colors_feed *feed = data;
	const gsize luma = COLORS_WIDTH * COLORS_HEIGHT;
	const gsize chroma = luma / 4;
	GstFlowReturn ret;
	GstMapInfo map;

	if (feed->frame >= feed->frames) {
		g_signal_emit_by_name(src, "end-of-stream", &ret);
		return;
	}

	/* 320x240 I420 has no row padding: the planes are Y, U, V back to back. */
	GstBuffer *buffer = gst_buffer_new_allocate(NULL, luma + 2 * chroma, NULL);
	if (gst_buffer_map(buffer, &map, GST_MAP_WRITE)) {
		if (feed->pattern) {
			paint_pattern(map.data);
		} else {
			const guint8 *yuv = colors_yuv[feed->frame / COLORS_FPS];
			memset(map.data, yuv[0], luma);
			memset(map.data + luma, yuv[1], chroma);
			memset(map.data + luma + chroma, yuv[2], chroma);
		}
		gst_buffer_unmap(buffer, &map);
	}
	GST_BUFFER_PTS(buffer) = gst_util_uint64_scale_int(feed->frame, GST_SECOND,
		COLORS_FPS);
	GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale_int(feed->frame + 1,
		GST_SECOND, COLORS_FPS) - GST_BUFFER_PTS(buffer);
	feed->frame++;

	/* The signal takes its own reference; errors show up on the bus. */
	g_signal_emit_by_name(src, "push-buffer", buffer, &ret);
	gst_buffer_unref(buffer);
}

static bool
make_painted_mkv(const struct job *job, struct colors_feed feed, GError **error)
{
	bool ok = false;
	g_autofree char *description = g_strdup_printf(
		"appsrc name=src format=time is-live=false ! "
		"video/x-raw,format=I420,width=%u,height=%u,framerate=%u/1,"
		"pixel-aspect-ratio=1/1,colorimetry=bt601,interlace-mode=progressive ! "
		"x264enc speed-preset=ultrafast key-int-max=%u bitrate=512 ! h264parse ! "
		"matroskamux name=mux ! filesink name=sink",
		COLORS_WIDTH, COLORS_HEIGHT, COLORS_FPS, COLORS_FPS);
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;

	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	if (!src) {
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"src\"");
		goto out;
	}
	GstCaps *caps = gst_caps_new_simple("video/x-raw",
		"format", G_TYPE_STRING, "I420",
		"width", G_TYPE_INT, COLORS_WIDTH,
		"height", G_TYPE_INT, COLORS_HEIGHT,
		"framerate", GST_TYPE_FRACTION, COLORS_FPS, 1,
		"pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
		"colorimetry", G_TYPE_STRING, "bt601",
		"interlace-mode", G_TYPE_STRING, "progressive",
		NULL);
	g_object_set(src, "caps", caps, NULL);
	gst_caps_unref(caps);
	g_signal_connect(src, "need-data", G_CALLBACK(colors_need_data), &feed);
	gst_object_unref(src);

	if (!set_on(pipeline, "sink", "location", job->tmp, error))
		goto out;
	ok = run_pipeline(pipeline, error);
	if (ok && feed.frame != feed.frames) {
		g_set_error(error, GEN_ERROR, 0, "only %u of %u frames were taken",
			feed.frame, feed.frames);
		ok = false;
	}
out:
	/* In NULL state now: the callback cannot run after feed goes away. */
	gst_object_unref(pipeline);
	return ok;
}

static bool
make_colors_mkv(const struct job *job, GError **error)
{
	return make_painted_mkv(job, (struct colors_feed){ .frames = COLORS_SECONDS * COLORS_FPS },
		error);
}

static bool
make_pattern_mkv(const struct job *job, GError **error)
{
	return make_painted_mkv(job, (struct colors_feed){
		.frames = PATTERN_SECONDS * COLORS_FPS, .pattern = true }, error);
}

/* In order: a clip comes after those it is made from. */
static const struct clip clips[] = {
	{ "muxed-subs.srt", make_muxed_srt, NULL, 0 },
	{ "av.mkv", make_av_mkv, NULL, 0 },
	{ "av.mp4", make_av_mp4, NULL, 0 },
	{ "vp9.webm", make_vp9_webm, NULL, 0 },
	{ "av.ts", make_av_ts, NULL, 0 },
	{ "audio.ogg", make_audio_ogg, NULL, 0 },
	{ "anamorphic.mkv", make_anamorphic_mkv, NULL, 0 },
	{ "long.mkv", make_long_mkv, NULL, 0 },
	{ "colors.mkv", make_colors_mkv, NULL, 0 },
	{ "pattern.mkv", make_pattern_mkv, NULL, 0 },
	{ "text.mp4", make_text, NULL, 0 },
	{ "truncated.mp4", make_truncated, "av.mp4", 40 },
	{ "truncated.mkv", make_truncated, "av.mkv", 50 },
	{ "subs.en.srt", make_english_srt, NULL, 0 },
	{ "two-video.mkv", make_two_video_mkv, NULL, 0 },
	{ "subs.mkv", make_subs_mkv, NULL, 0 },
	{ "dvbsub.ts", make_dvbsub_ts, NULL, 0 },
	{ "cc608.mkv", make_cc608_mkv, NULL, 0 },
	{ "cc708.mkv", make_cc708_mkv, NULL, 0 },
	{ "teletext.ts", make_teletext_ts, NULL, 0 },
	{ "vobsub.mkv", make_vobsub_mkv, NULL, 0 },
	{ "pgs.mkv", make_pgs_mkv, NULL, 0 },
	{ "fuzz-h264-aac.mp4", make_fuzz_source, NULL, 0 },
	{ "fuzz-fragmented.mp4", make_fuzz_source, NULL, 0 },
	{ "fuzz-h264-opus.mkv", make_fuzz_source, NULL, 0 },
	{ "fuzz-h264-vorbis.mkv", make_fuzz_source, NULL, 0 },
	{ "fuzz-vp8-vorbis.webm", make_fuzz_source, NULL, 0 },
	{ "fuzz-vp9-opus.webm", make_fuzz_source, NULL, 0 },
	{ "fuzz-h264-aac.ts", make_fuzz_source, NULL, 0 },
	{ "fuzz-mpeg2-mp2.ts", make_fuzz_source, NULL, 0 },
	{ "fuzz-mpeg2-ac3.ts", make_fuzz_source, NULL, 0 },
};

/* Size of path, or -1 when it does not exist or is no regular file. */
static gint64
file_size(const char *path)
{
	GStatBuf st;
	if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	return (gint64)st.st_size;
}

/* Whether path was written after this program was built. */
static bool
newer_than_us(const char *path)
{
	GStatBuf clip, self;
	if (g_stat(path, &clip) != 0 || g_stat("/proc/self/exe", &self) != 0)
		return false;
	return clip.st_mtime >= self.st_mtime;
}

static bool
make_clip(const struct clip *clip, const char *outdir, GError **error)
{
	bool ok = false;
	g_autofree char *path = g_build_filename(outdir, clip->name, NULL);
	g_autofree char *tmp_name = g_strdup_printf(".%s.part", clip->name);
	g_autofree char *tmp = g_build_filename(outdir, tmp_name, NULL);
	gint64 size = file_size(path);

	if (size > 0 && newer_than_us(path)) {
		printf("gen-clips: kept %s\n", path);
		fflush(stdout);
		return true;
	}

	/* What a killed run left. */
	if (g_unlink(tmp) != 0 && errno != ENOENT) {
		g_set_error(error, GEN_ERROR, 0, "cannot remove %s: %s", tmp,
			g_strerror(errno));
		return false;
	}
	const struct job job = { clip, outdir, tmp };
	if (!clip->make(&job, error))
		goto out;
	size = file_size(tmp);
	if (size <= 0) {
		g_set_error(error, GEN_ERROR, 0, "nothing was written");
		goto out;
	}
	if (g_rename(tmp, path) != 0) {
		g_set_error(error, GEN_ERROR, 0, "cannot rename %s: %s", tmp,
			g_strerror(errno));
		goto out;
	}
	printf("gen-clips: wrote %s (%" G_GINT64_FORMAT " bytes)\n", path, size);
	fflush(stdout);
	ok = true;
out:
	if (!ok)
		g_unlink(tmp);
	return ok;
}

int
main(int argc, char **argv)
{
	GError *error = NULL;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argc ? argv[0] : "gen-clips");
		return 2;
	}
	const char *outdir = argv[1];

	if (!gst_init_check(&argc, &argv, &error)) {
		fprintf(stderr, "gen-clips: cannot initialise GStreamer: %s\n",
			error->message);
		g_error_free(error);
		return 1;
	}
	if (g_mkdir_with_parents(outdir, 0755) != 0) {
		fprintf(stderr, "gen-clips: cannot create %s: %s\n", outdir,
			g_strerror(errno));
		return 1;
	}

	for (size_t i = 0; i < G_N_ELEMENTS(clips); i++) {
		if (!make_clip(&clips[i], outdir, &error)) {
			fprintf(stderr, "gen-clips: %s/%s: %s\n", outdir, clips[i].name,
				error->message);
			g_error_free(error);
			return 1;
		}
	}
	return 0;
}
