/*
 * gen-clips: the sources test-media-fuzz mutates. Each is 1 s of 160x120
 * video with sound, small (tens of KB) so that a mutation ratio touches
 * headers and frames alike and a clip plays in about a second; together
 * they cover the demuxers and decoders a set-top box meets: MP4 (plain and
 * fragmented), Matroska, WebM and MPEG-TS, with H.264, VP8, VP9 and
 * MPEG-2 video and AAC, Opus, Vorbis, MP2 and AC-3 sound.
 */
#include <string.h>

#include "gen-clips.h"

/* Video branches: @fps frames (1 s), a key frame every half second. */
#define FUZZ_VIDEO(fps) "videotestsrc num-buffers=" #fps " pattern=ball ! " \
	"video/x-raw,format=I420,width=160,height=120,framerate=" #fps "/1," \
	"pixel-aspect-ratio=1/1 ! "
#define FUZZ_H264(fps) FUZZ_VIDEO(fps) \
	"x264enc speed-preset=ultrafast bitrate=128 key-int-max=8 ! h264parse ! queue"
#define FUZZ_VP8 FUZZ_VIDEO(15) \
	"vp8enc deadline=1 cpu-used=8 keyframe-max-dist=8 ! queue"
#define FUZZ_VP9 FUZZ_VIDEO(10) \
	"vp9enc deadline=1 cpu-used=8 keyframe-max-dist=5 ! queue"
/*
 * mjpegtools' encoder (format 3: generic MPEG-2): gst-libav 1.22's
 * avenc_mpeg2video refuses every frame rate with FFmpeg 5.
 */
#define FUZZ_MPEG2 FUZZ_VIDEO(25) \
	"mpeg2enc format=3 max-gop-size=12 ! mpegvideoparse ! queue"

/* 1 s of a 48 kHz stereo sine in 20 ms buffers, before its encoder. */
#define FUZZ_SINE "audiotestsrc num-buffers=50 samplesperbuffer=960 wave=sine freq=660 ! " \
	"audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved ! audioconvert ! "
#define FUZZ_AAC FUZZ_SINE "avenc_aac ! aacparse ! queue"
#define FUZZ_OPUS FUZZ_SINE "opusenc ! queue"
#define FUZZ_VORBIS FUZZ_SINE "vorbisenc ! queue"
#define FUZZ_MP2 FUZZ_SINE "avenc_mp2 ! mpegaudioparse ! queue"
#define FUZZ_AC3 FUZZ_SINE "avenc_ac3 ! ac3parse ! queue"

static const struct {
	const char *name;
	const char *description;
} sources[] = {
	{ "fuzz-h264-aac.mp4", "mp4mux name=mux ! filesink name=sink "
		FUZZ_H264(15) " ! mux.video_0 " FUZZ_AAC " ! mux.audio_0" },
	{ "fuzz-fragmented.mp4", "mp4mux name=mux fragment-duration=250 ! filesink name=sink "
		FUZZ_H264(20) " ! mux.video_0 " FUZZ_AAC " ! mux.audio_0" },
	{ "fuzz-h264-opus.mkv", "matroskamux name=mux ! filesink name=sink "
		FUZZ_H264(25) " ! mux.video_0 " FUZZ_OPUS " ! mux.audio_0" },
	{ "fuzz-h264-vorbis.mkv", "matroskamux name=mux ! filesink name=sink "
		FUZZ_H264(10) " ! mux.video_0 " FUZZ_VORBIS " ! mux.audio_0" },
	{ "fuzz-vp8-vorbis.webm", "webmmux name=mux ! filesink name=sink "
		FUZZ_VP8 " ! mux.video_0 " FUZZ_VORBIS " ! mux.audio_0" },
	{ "fuzz-vp9-opus.webm", "webmmux name=mux ! filesink name=sink "
		FUZZ_VP9 " ! mux.video_0 " FUZZ_OPUS " ! mux.audio_0" },
	{ "fuzz-h264-aac.ts", "mpegtsmux name=mux ! filesink name=sink "
		FUZZ_H264(25) " ! mux. " FUZZ_AAC " ! mux." },
	{ "fuzz-mpeg2-mp2.ts", "mpegtsmux name=mux ! filesink name=sink "
		FUZZ_MPEG2 " ! mux. " FUZZ_MP2 " ! mux." },
	{ "fuzz-mpeg2-ac3.ts", "mpegtsmux name=mux ! filesink name=sink "
		FUZZ_MPEG2 " ! mux. " FUZZ_AC3 " ! mux." },
};

bool
make_fuzz_source(const struct job *job, GError **error)
{
	const char *description = NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(sources); i++) {
		if (strcmp(sources[i].name, job->clip->name) == 0)
			description = sources[i].description;
	}
	if (!description) {
		g_set_error(error, GEN_ERROR, 0, "no fuzz source is called %s", job->clip->name);
		return false;
	}
	bool ok = false;
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	if (set_on(pipeline, "sink", "location", job->tmp, error))
		ok = run_pipeline(pipeline, error);
	gst_object_unref(pipeline);
	return ok;
}
