/*
 * gen-clips: what its files share (gen-clips.c writes the clips, and
 * gen-clips-subs.c those with subtitles of their own).
 */
#ifndef UMMS_TESTS_GEN_CLIPS_H
#define UMMS_TESTS_GEN_CLIPS_H

#include <stdbool.h>

#include <glib.h>
#include <gst/gst.h>

struct job;

struct clip {
	const char *name;
	bool (*make)(const struct job *job, GError **error);
	/* make_truncated: the clip to cut and the percentage of it to keep. */
	const char *source;
	unsigned percent;
};

/* One clip to make: write it to tmp; outdir holds the clips made before it. */
struct job {
	const struct clip *clip;
	const char *outdir;
	const char *tmp;
};

static inline GQuark
gen_error_quark(void)
{
	return g_quark_from_static_string("gen-clips-error");
}

#define GEN_ERROR (gen_error_quark())

/* A timed text: a subtitle cue. */
struct cue {
	unsigned start_ms, end_ms;
	const char *text;
};

/* Builds a pipeline with gst_parse_launch, failing on any missing element. */
GstElement *launch(const char *description, GError **error);
/* Sets a property of the element called name in the pipeline. */
bool set_on(GstElement *pipeline, const char *name, const char *property,
	const char *value, GError **error);
/* Runs the pipeline to EOS (or fails); leaves it in NULL state. */
bool run_pipeline(GstElement *pipeline, GError **error);

/* gen-clips-subs.c */
/* The subtitle clips' picture: dark blue (YUV 0, 0, 128), 320 x 240 at 25 fps. */
#define GEN_BLUE_WIDTH 320
#define GEN_BLUE_HEIGHT 240
#define GEN_BLUE_FPS 25
/* Its H.264 branch for gst_parse_launch, @seconds long (free it). */
char *gen_blue_h264_branch(unsigned seconds);
bool make_subs_mkv(const struct job *job, GError **error);
bool make_dvbsub_ts(const struct job *job, GError **error);
bool make_cc608_mkv(const struct job *job, GError **error);
bool make_cc708_mkv(const struct job *job, GError **error);

/* gen-clips-teletext.c */
bool make_teletext_ts(const struct job *job, GError **error);

/* gen-clips-bitmap.c */
bool make_vobsub_mkv(const struct job *job, GError **error);
bool make_pgs_mkv(const struct job *job, GError **error);

/* gen-clips-fuzz.c: the sources test-media-fuzz mutates, by clip name. */
bool make_fuzz_source(const struct job *job, GError **error);

#endif
