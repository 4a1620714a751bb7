/*
 * External subtitle files. The engine reads the file itself rather than
 * through playbin's suburi, which only takes effect when the pipeline is set
 * up again (an interruption) and, in playbin3, fails with not-linked: a small
 * pipeline (uridecodebin → appsink) turns SRT, WebVTT, SSA/ASS, SAMI… into
 * timed cues, and the file becomes one more subtitle track that can be
 * selected like the others, while playback goes on.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/app/app.h>
#include <gst/pbutils/pbutils.h>
#include <gst/tag/tag.h>

#include "error.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"

#define LOAD_LIMIT_MS 10000

struct cue {
	int64_t start, end; /* µs */
	char *text;
};

struct gst_subtitles {
	struct gst_engine *engine;
	char *uri;
	GstElement *pipeline;
	GstElement *sink;
	GSource *timeout;
	bool ready;
	GArray *cues;        /* struct cue, by start */
	GMutex lock;
	GstCaps *file_caps;  /* what typefind saw, streaming thread */
	char *codec;
	char *description;
	char *language;
};

static void
cue_clear(gpointer data)
{
	g_free(((struct cue *)data)->text);
}

/* "film.de.srt" → "de", when it names a language. */
static char *
language_from_name(const char *uri)
{
	g_autofree char *base = g_path_get_basename(uri);
	g_auto(GStrv) parts = g_strsplit(base, ".", -1);
	guint n = g_strv_length(parts);
	if (n < 3)
		return NULL;
	const char *code = parts[n - 2];
	size_t len = strlen(code);
	if ((len != 2 && len != 3) || !gst_tag_get_language_name(code))
		return NULL;
	const char *iso639_1 = gst_tag_get_language_code_iso_639_1(code);
	return g_strdup(iso639_1 ? iso639_1 : code);
}

static gboolean
autoplug_continue_cb(GstElement *bin, GstPad *pad, GstCaps *caps, gpointer data)
{
	struct gst_subtitles *subtitles = data;
	g_mutex_lock(&subtitles->lock);
	if (!subtitles->file_caps)
		subtitles->file_caps = gst_caps_copy(caps);
	g_mutex_unlock(&subtitles->lock);
	return TRUE;
}

static void
pad_added_cb(GstElement *decodebin, GstPad *pad, gpointer data)
{
	struct gst_subtitles *subtitles = data;
	GstPad *sink_pad = gst_element_get_static_pad(subtitles->sink, "sink");
	if (!gst_pad_is_linked(sink_pad))
		gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
}

static void
collect_cues(struct gst_subtitles *subtitles)
{
	GstSample *sample;
	while ((sample = gst_app_sink_try_pull_sample(GST_APP_SINK(subtitles->sink), 0))) {
		GstBuffer *buffer = gst_sample_get_buffer(sample);
		GstMapInfo map;
		if (buffer && GST_BUFFER_PTS_IS_VALID(buffer) &&
				gst_buffer_map(buffer, &map, GST_MAP_READ)) {
			struct cue cue = {
				.start = (int64_t)(GST_BUFFER_PTS(buffer) / 1000),
				.end = GST_BUFFER_DURATION_IS_VALID(buffer) ?
					(int64_t)((GST_BUFFER_PTS(buffer) +
						GST_BUFFER_DURATION(buffer)) / 1000) : -1,
				.text = g_strndup((const char *)map.data, map.size),
			};
			g_array_append_val(subtitles->cues, cue);
			gst_buffer_unmap(buffer, &map);
		}
		gst_sample_unref(sample);
	}
}

static void
finish_loading(struct gst_subtitles *subtitles, GError *error)
{
	umms_source_clear(&subtitles->timeout);
	GstBus *bus = gst_element_get_bus(subtitles->pipeline);
	gst_bus_remove_watch(bus);
	gst_object_unref(bus);
	if (!error) {
		collect_cues(subtitles);
		g_mutex_lock(&subtitles->lock);
		GstCaps *caps = subtitles->file_caps ? gst_caps_ref(subtitles->file_caps) : NULL;
		g_mutex_unlock(&subtitles->lock);
		subtitles->codec = gst_media_codec_name(caps);
		subtitles->description = caps ? gst_pb_utils_get_codec_description(caps) :
			g_strdup("subtitles");
		if (caps)
			gst_caps_unref(caps);
		subtitles->ready = true;
		umms_info("%s: %u subtitle cues (%s)", subtitles->uri, subtitles->cues->len,
			subtitles->codec);
	}
	gst_element_set_state(subtitles->pipeline, GST_STATE_NULL);
	/* May destroy @subtitles on error. */
	gst_engine_subtitles_loaded(subtitles->engine, error);
	if (error)
		g_error_free(error);
}

static gboolean
bus_cb(GstBus *bus, GstMessage *message, gpointer data)
{
	struct gst_subtitles *subtitles = data;
	switch (GST_MESSAGE_TYPE(message)) {
	case GST_MESSAGE_EOS:
		finish_loading(subtitles, NULL);
		return G_SOURCE_CONTINUE;
	case GST_MESSAGE_ERROR: {
		GError *gst_error = NULL;
		gst_message_parse_error(message, &gst_error, NULL);
		GError *error = g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"cannot read subtitles from %s: %s", subtitles->uri, gst_error->message);
		g_error_free(gst_error);
		finish_loading(subtitles, error);
		return G_SOURCE_CONTINUE;
	}
	default:
		return G_SOURCE_CONTINUE;
	}
}

static gboolean
timeout_cb(gpointer data)
{
	struct gst_subtitles *subtitles = data;
	umms_source_forget(&subtitles->timeout);
	finish_loading(subtitles, g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
		"subtitles %s: not read within %d s", subtitles->uri, LOAD_LIMIT_MS / 1000));
	return G_SOURCE_REMOVE;
}

struct gst_subtitles *
gst_subtitles_create(struct gst_engine *engine, const char *uri)
{
	struct gst_subtitles *subtitles = g_new0(struct gst_subtitles, 1);
	subtitles->engine = engine;
	subtitles->uri = g_strdup(uri);
	subtitles->cues = g_array_new(FALSE, TRUE, sizeof(struct cue));
	g_array_set_clear_func(subtitles->cues, cue_clear);
	g_mutex_init(&subtitles->lock);
	subtitles->language = language_from_name(uri);

	subtitles->pipeline = gst_object_ref_sink(gst_pipeline_new("umms-subtitles"));
	GstElement *source = gst_element_factory_make("uridecodebin", NULL);
	subtitles->sink = gst_element_factory_make("appsink", NULL);
	GstCaps *text = gst_caps_new_empty_simple("text/x-raw");
	g_object_set(source, "uri", uri, "caps", text, NULL);
	/* The cues are collected at EOS: it must not wait for them to be pulled. */
	g_object_set(subtitles->sink, "sync", FALSE, "max-buffers", 0, "wait-on-eos", FALSE,
		"caps", text, NULL);
	gst_caps_unref(text);
	gst_bin_add_many(GST_BIN(subtitles->pipeline), source, subtitles->sink, NULL);
	g_signal_connect(source, "autoplug-continue", G_CALLBACK(autoplug_continue_cb), subtitles);
	g_signal_connect(source, "pad-added", G_CALLBACK(pad_added_cb), subtitles);

	GstBus *bus = gst_element_get_bus(subtitles->pipeline);
	gst_bus_add_watch(bus, bus_cb, subtitles);
	gst_object_unref(bus);
	subtitles->timeout = umms_source_timeout(LOAD_LIMIT_MS, timeout_cb, subtitles);

	gst_element_set_state(subtitles->pipeline, GST_STATE_PLAYING);
	return subtitles;
}

void
gst_subtitles_destroy(struct gst_subtitles *subtitles)
{
	if (!subtitles)
		return;
	umms_source_clear(&subtitles->timeout);
	GstBus *bus = gst_element_get_bus(subtitles->pipeline);
	gst_bus_remove_watch(bus);
	gst_object_unref(bus);
	gst_element_set_state(subtitles->pipeline, GST_STATE_NULL);
	gst_object_unref(subtitles->pipeline);
	g_array_unref(subtitles->cues);
	if (subtitles->file_caps)
		gst_caps_unref(subtitles->file_caps);
	g_mutex_clear(&subtitles->lock);
	g_free(subtitles->uri);
	g_free(subtitles->codec);
	g_free(subtitles->description);
	g_free(subtitles->language);
	g_free(subtitles);
}

bool
gst_subtitles_ready(const struct gst_subtitles *subtitles)
{
	return subtitles->ready;
}

const char *
gst_subtitles_codec(const struct gst_subtitles *subtitles)
{
	return subtitles->codec;
}

const char *
gst_subtitles_description(const struct gst_subtitles *subtitles)
{
	return subtitles->description;
}

const char *
gst_subtitles_language(const struct gst_subtitles *subtitles)
{
	return subtitles->language;
}
