/*
 * External subtitle files. The engine reads the file itself rather than
 * through playbin's suburi, which only takes effect when the pipeline is set
 * up again (an interruption) and, in playbin3, fails with not-linked. The
 * file becomes one more subtitle track that can be selected like the
 * others, while playback goes on.
 *
 * Two steps, off the main loop: a small pipeline (the URI's source →
 * appsink) reads the bytes (UMMS_CUES_MAX_FILE at most; a file given
 * opened, in a sandboxed worker, is read at once); then what they
 * are is decided: GStreamer's typefinding first, the file's extension where
 * the content cannot tell (subparse's typefinder needs 129 bytes, so an SRT
 * file of one short cue was refused). SSA/ASS scripts go to libass whole,
 * styles and all (GStreamer 1.22 has no parser for a raw .ass file); every
 * other format through subparse (appsrc → subparse → appsink) into text
 * cues in Pango markup.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <gst/app/app.h>
#include <gst/base/base.h>
#include <gst/pbutils/pbutils.h>
#include <gst/tag/tag.h>

#include "cues.h"
#include "error.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"

#define LOAD_LIMIT_MS 10000

struct gst_subtitles {
	struct gst_engine *engine;
	char *uri;
	GstElement *pipeline;   /* reading the bytes, then parsing them */
	GstElement *sink;
	GSource *timeout;
	bool parsing;           /* the second step runs */
	bool ready;
	struct umms_cues *cues;
	GMutex lock;
	GByteArray *bytes;      /* what was read (lock: streaming thread) */
	bool too_big;
	GstCaps *caps;          /* what the file was found to be */
	char *codec;
	char *description;
	char *language;
};

/* What a file's extension says it is, for files too short to tell. */
static const struct {
	const char *extension;
	const char *caps;
} extensions[] = {
	{ "srt", "application/x-subtitle" },
	{ "sub", "application/x-subtitle" },
	{ "txt", "application/x-subtitle" },
	{ "vtt", "application/x-subtitle-vtt" },
	{ "webvtt", "application/x-subtitle-vtt" },
	{ "ass", "application/x-ass" },
	{ "ssa", "application/x-ssa" },
	{ "smi", "application/x-subtitle-sami" },
	{ "sami", "application/x-subtitle-sami" },
	{ "mpl", "application/x-subtitle-mpl2" },
	{ "lrc", "application/x-subtitle-lrc" },
};

static char *
extension_of(const char *uri)
{
	g_autofree char *base = g_path_get_basename(uri);
	char *query = strpbrk(base, "?#");
	if (query)
		*query = '\0';
	const char *dot = strrchr(base, '.');
	return dot ? g_ascii_strdown(dot + 1, -1) : NULL;
}

static bool
subtitle_caps(const GstCaps *caps)
{
	if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps))
		return false;
	const char *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	return g_str_has_prefix(name, "application/x-subtitle") ||
		strcmp(name, "application/x-ass") == 0 || strcmp(name, "application/x-ssa") == 0;
}

static bool
ass_caps(const GstCaps *caps)
{
	const char *name = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	return strcmp(name, "application/x-ass") == 0 || strcmp(name, "application/x-ssa") == 0;
}

/*
 * The content decides; where it cannot (nothing found, or only "text"),
 * the extension does. NULL: not subtitles.
 */
static GstCaps *
decide_caps(const char *uri, const guint8 *data, gsize size)
{
	g_autofree char *extension = extension_of(uri);
	GstCaps *found = size ? gst_type_find_helper_for_data_with_extension(NULL, data, size,
		extension, NULL) : NULL;
	if (subtitle_caps(found))
		return found;
	const char *name = found ? gst_structure_get_name(gst_caps_get_structure(found, 0)) : "";
	bool undecided = !found || g_str_has_prefix(name, "text/");
	if (found)
		gst_caps_unref(found);
	if (!undecided || !extension)
		return NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(extensions); i++) {
		if (strcmp(extension, extensions[i].extension) == 0)
			return gst_caps_from_string(extensions[i].caps);
	}
	return NULL;
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

/* Streaming thread: the file's bytes, kept up to the limit. */
static GstFlowReturn
bytes_cb(GstAppSink *sink, gpointer data)
{
	struct gst_subtitles *subtitles = data;
	GstSample *sample = gst_app_sink_pull_sample(sink);
	if (!sample)
		return GST_FLOW_OK;
	GstFlowReturn ret = GST_FLOW_OK;
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstMapInfo map;
	if (buffer && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
		g_mutex_lock(&subtitles->lock);
		if (subtitles->bytes->len + map.size > UMMS_CUES_MAX_FILE) {
			subtitles->too_big = true;
			ret = GST_FLOW_ERROR;
		} else {
			g_byte_array_append(subtitles->bytes, map.data, (guint)map.size);
		}
		g_mutex_unlock(&subtitles->lock);
		gst_buffer_unmap(buffer, &map);
	}
	gst_sample_unref(sample);
	return ret;
}

/* subparse's cues, once it reached the end. */
static void
collect_cues(struct gst_subtitles *subtitles)
{
	GstSample *sample;
	while ((sample = gst_app_sink_try_pull_sample(GST_APP_SINK(subtitles->sink), 0))) {
		GstBuffer *buffer = gst_sample_get_buffer(sample);
		GstMapInfo map;
		if (buffer && GST_BUFFER_PTS_IS_VALID(buffer) &&
				gst_buffer_map(buffer, &map, GST_MAP_READ)) {
			g_autofree char *text = g_strndup((const char *)map.data, map.size);
			int64_t start = (int64_t)(GST_BUFFER_PTS(buffer) / 1000);
			int64_t end = GST_BUFFER_DURATION_IS_VALID(buffer) ?
				(int64_t)((GST_BUFFER_PTS(buffer) + GST_BUFFER_DURATION(buffer)) /
					1000) : -1;
			umms_cues_add(subtitles->cues, start, end, text);
			gst_buffer_unmap(buffer, &map);
		}
		gst_sample_unref(sample);
	}
}

static void
stop_pipeline(struct gst_subtitles *subtitles)
{
	umms_source_clear(&subtitles->timeout);
	if (!subtitles->pipeline)
		return;
	GstBus *bus = gst_element_get_bus(subtitles->pipeline);
	gst_bus_remove_watch(bus);
	gst_object_unref(bus);
	gst_element_set_state(subtitles->pipeline, GST_STATE_NULL);
	gst_clear_object(&subtitles->pipeline);
	subtitles->sink = NULL;
}

static void
finish_loading(struct gst_subtitles *subtitles, GError *error)
{
	stop_pipeline(subtitles);
	/*
	 * A file with nothing to show (empty, or no cue the parser could
	 * read) is refused by name rather than offered as a silent track.
	 */
	if (!error && (!subtitles->cues || umms_cues_count(subtitles->cues) == 0))
		error = g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s holds no subtitle cues", subtitles->uri);
	if (!error) {
		subtitles->codec = gst_media_codec_name(subtitles->caps);
		subtitles->description = gst_pb_utils_get_codec_description(subtitles->caps);
		if (!subtitles->description)
			subtitles->description = g_strdup("subtitles");
		subtitles->ready = true;
		umms_info("%s: %u subtitle cues (%s)", subtitles->uri,
			umms_cues_count(subtitles->cues), subtitles->codec);
	}
	/* May destroy @subtitles on error. */
	gst_engine_subtitles_loaded(subtitles->engine, error);
	if (error)
		g_error_free(error);
}

static gboolean bus_cb(GstBus *bus, GstMessage *message, gpointer data);

static void
start_pipeline(struct gst_subtitles *subtitles, GstElement *pipeline, GstElement *sink)
{
	subtitles->pipeline = gst_object_ref_sink(pipeline);
	subtitles->sink = sink;
	GstBus *bus = gst_element_get_bus(pipeline);
	gst_bus_add_watch(bus, bus_cb, subtitles);
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
}

/* Main loop: the bytes are in; what are they? */
static GError *
parse_bytes(struct gst_subtitles *subtitles)
{
	GByteArray *bytes = subtitles->bytes;
	if (bytes->len == 0)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s is empty: no subtitles in it", subtitles->uri);
	subtitles->caps = decide_caps(subtitles->uri, bytes->data, bytes->len);
	if (!subtitles->caps)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s is not a subtitle file", subtitles->uri);
	if (ass_caps(subtitles->caps)) {
		GError *error = NULL;
		subtitles->cues = umms_cues_create_ass((const char *)bytes->data, bytes->len,
			&error);
		if (!subtitles->cues)
			error->code = UMMS_ERROR_NOT_SUPPORTED;
		return error;
	}
	subtitles->cues = umms_cues_create_text();
	struct umms_cue_style style = {
		.size_permille = (int)subtitles->engine->config->engine.subtitle_size,
		.margin_permille = (int)subtitles->engine->config->engine.subtitle_margin,
	};
	umms_cues_set_style(subtitles->cues, &style);
	GstElement *pipeline = gst_pipeline_new("umms-subtitles-parse");
	GstElement *source = gst_element_factory_make("appsrc", NULL);
	GstElement *parse = gst_element_factory_make("subparse", NULL);
	GstElement *sink = gst_element_factory_make("appsink", NULL);
	if (!source || !parse || !sink) {
		gst_clear_object(&source);
		gst_clear_object(&parse);
		gst_clear_object(&sink);
		gst_object_unref(gst_object_ref_sink(pipeline));
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"GStreamer's subparse is not installed (gstreamer1.0-plugins-base)");
	}
	g_object_set(source, "caps", subtitles->caps, "format", GST_FORMAT_BYTES, NULL);
	/* The cues are collected at EOS: it must not wait for them to be pulled. */
	g_object_set(sink, "sync", FALSE, "max-buffers", 0, "wait-on-eos", FALSE, NULL);
	gst_bin_add_many(GST_BIN(pipeline), source, parse, sink, NULL);
	gst_element_link_many(source, parse, sink, NULL);
	GstBuffer *buffer = gst_buffer_new_memdup(bytes->data, bytes->len);
	gst_app_src_push_buffer(GST_APP_SRC(source), buffer);
	gst_app_src_end_of_stream(GST_APP_SRC(source));
	subtitles->parsing = true;
	start_pipeline(subtitles, pipeline, sink);
	return NULL;
}

static gboolean timeout_cb(gpointer data);

static void
read_done(struct gst_subtitles *subtitles)
{
	stop_pipeline(subtitles);
	GError *error = parse_bytes(subtitles);
	/* Parsed, or handed to the parser: the file's bytes are not kept. */
	g_byte_array_unref(subtitles->bytes);
	subtitles->bytes = g_byte_array_new();
	if (error || !subtitles->pipeline)
		finish_loading(subtitles, error);
	else
		subtitles->timeout = umms_source_timeout(LOAD_LIMIT_MS, timeout_cb, subtitles);
}

static gboolean
bus_cb(GstBus *bus, GstMessage *message, gpointer data)
{
	struct gst_subtitles *subtitles = data;
	switch (GST_MESSAGE_TYPE(message)) {
	case GST_MESSAGE_EOS:
		if (subtitles->parsing) {
			collect_cues(subtitles);
			finish_loading(subtitles, NULL);
		} else {
			read_done(subtitles);
		}
		return G_SOURCE_CONTINUE;
	case GST_MESSAGE_ERROR: {
		GError *gst_error = NULL;
		gst_message_parse_error(message, &gst_error, NULL);
		g_mutex_lock(&subtitles->lock);
		bool too_big = subtitles->too_big;
		g_mutex_unlock(&subtitles->lock);
		/* The parser gives up on text it finds no cue in (a blank file). */
		GError *error = too_big ?
			g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"subtitles %s: larger than %d MiB", subtitles->uri,
				UMMS_CUES_MAX_FILE >> 20) : subtitles->parsing ?
			g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"%s holds no subtitle cues that can be read (%s)", subtitles->uri,
				gst_error->message) :
			g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"cannot read subtitles from %s: %s", subtitles->uri,
				gst_error->message);
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

static gboolean
failed_cb(gpointer data)
{
	struct gst_subtitles *subtitles = data;
	umms_source_forget(&subtitles->timeout);
	finish_loading(subtitles, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
		"no GStreamer source reads %s", subtitles->uri));
	return G_SOURCE_REMOVE;
}

/* The bytes of a file given as @fd: as bytes_cb collects them from a source. */
static void
read_fd(struct gst_subtitles *subtitles, int fd)
{
	guint8 chunk[64 * 1024];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (subtitles->bytes->len + (size_t)n > UMMS_CUES_MAX_FILE) {
			subtitles->too_big = true;
			break;
		}
		g_byte_array_append(subtitles->bytes, chunk, (guint)n);
	}
}

static gboolean
fd_read_cb(gpointer data)
{
	struct gst_subtitles *subtitles = data;
	umms_source_forget(&subtitles->timeout);
	if (subtitles->too_big)
		finish_loading(subtitles, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"subtitles %s: larger than %d MiB", subtitles->uri,
			UMMS_CUES_MAX_FILE >> 20));
	else
		read_done(subtitles);
	return G_SOURCE_REMOVE;
}

struct gst_subtitles *
gst_subtitles_create(struct gst_engine *engine, const char *uri, int fd)
{
	struct gst_subtitles *subtitles = g_new0(struct gst_subtitles, 1);
	subtitles->engine = engine;
	subtitles->uri = g_strdup(uri);
	subtitles->bytes = g_byte_array_new();
	g_mutex_init(&subtitles->lock);
	subtitles->language = language_from_name(uri);

	if (fd >= 0) {
		/* Given opened (a sandboxed worker): read here, at most the limit. */
		read_fd(subtitles, fd);
		close(fd);
		subtitles->timeout = umms_source_timeout(0, fd_read_cb, subtitles);
		return subtitles;
	}
	GstElement *source = gst_element_make_from_uri(GST_URI_SRC, uri, NULL, NULL);
	if (!source) {
		/* Reported from the main loop, as every completion is. */
		subtitles->timeout = umms_source_timeout(0, failed_cb, subtitles);
		return subtitles;
	}
	GstElement *pipeline = gst_pipeline_new("umms-subtitles-read");
	GstElement *sink = gst_element_factory_make("appsink", NULL);
	g_object_set(sink, "sync", FALSE, "wait-on-eos", FALSE, NULL);
	GstAppSinkCallbacks callbacks = { .new_sample = bytes_cb };
	gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, subtitles, NULL);
	gst_bin_add_many(GST_BIN(pipeline), source, sink, NULL);
	gst_element_link(source, sink);
	start_pipeline(subtitles, pipeline, sink);
	subtitles->timeout = umms_source_timeout(LOAD_LIMIT_MS, timeout_cb, subtitles);
	return subtitles;
}

void
gst_subtitles_destroy(struct gst_subtitles *subtitles)
{
	if (!subtitles)
		return;
	stop_pipeline(subtitles);
	umms_cues_unref(subtitles->cues);
	g_byte_array_unref(subtitles->bytes);
	if (subtitles->caps)
		gst_caps_unref(subtitles->caps);
	g_mutex_clear(&subtitles->lock);
	g_free(subtitles->uri);
	g_free(subtitles->codec);
	g_free(subtitles->description);
	g_free(subtitles->language);
	g_free(subtitles);
}

struct umms_cues *
gst_subtitles_cues(const struct gst_subtitles *subtitles)
{
	return subtitles->ready ? subtitles->cues : NULL;
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
