/* A spare worker's warm-up (worker-warm-up.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

#include "gst-convert.h"
#include "log.h"
#include "source.h"
#include "worker-warm-up.h"

#define CLIP "/org/umms/worker/warm-up/h264.mp4"
/* How long the decoder's threads may take to end, at most. */
#define THREADS_MAX_MS 2000

static void play_clip(struct umms_worker_warm_up *w);

/*
 * The plugins loaded ahead: those of the formats most media comes in
 * (MP4, Matroska/WebM, MPEG-TS, Ogg; H.264, H.265, MPEG-2, VP8/9, AAC,
 * Opus, Vorbis, FLAC; ID3 tags, WAV), libav's above all (~55 ms to load,
 * more than all the others together). The other plugins of what the
 * sandbox lets umms play (sandbox.h: FLV, AVI, MPEG-PS, APE and ICY tags,
 * HLS and DASH, DVD subtitles...) cost 0.3 to 2 ms each to load: paid
 * ahead, every fork server and spare paid them and mapped them (~2 MB of
 * PSS each, ~8 ms of the server's start) for media that seldom comes;
 * now the worker that meets one loads it.
 */
static const char *const warm_plugins[] = {
	"libav", "isomp4", "matroska", "mpegtsdemux", "ogg", "videoparsersbad",
	"audioparsers", "opus", "vorbis", "vpx", "flac", "id3demux", "wavparse", NULL,
};

static bool
warm_plugin(GstPluginFeature *feature)
{
	const char *plugin = gst_plugin_feature_get_plugin_name(feature);
	return plugin && g_strv_contains(warm_plugins, plugin);
}

static GPtrArray *
warm_up_list(void)
{
	GPtrArray *list = g_ptr_array_new_with_free_func(gst_object_unref);
	GList *features = gst_registry_get_feature_list(gst_registry_get(),
		GST_TYPE_ELEMENT_FACTORY);
	for (GList *l = features; l; l = l->next) {
		const char *klass = gst_element_factory_get_metadata(l->data,
			GST_ELEMENT_METADATA_KLASS);
		if (gst_plugin_feature_get_rank(l->data) < GST_RANK_PRIMARY || !klass ||
				!warm_plugin(l->data) ||
				strstr(klass, "Hardware") ||
				!(strstr(klass, "Demuxer") || strstr(klass, "Parser") ||
				strstr(klass, "Decoder")))
			continue;
		g_ptr_array_add(list, gst_object_ref(l->data));
	}
	gst_plugin_feature_list_free(features);
	return list;
}

static void
load_feature(GstPluginFeature *factory)
{
	GstPluginFeature *feature = gst_plugin_feature_load(factory);
	if (feature) {
		GType type = gst_element_factory_get_element_type(GST_ELEMENT_FACTORY(feature));
		if (type)
			g_type_class_unref(g_type_class_ref(type));
		gst_object_unref(feature);
	}
}

void
umms_worker_warm_up_preload(void)
{
	gint64 start = g_get_monotonic_time();
	g_autoptr(GPtrArray) list = warm_up_list();
	for (guint i = 0; i < list->len; i++)
		load_feature(list->pdata[i]);
	umms_debug("fork server: loaded %u elements in %.0f ms", list->len,
		(double)(g_get_monotonic_time() - start) / 1000);
}

static gboolean
warm_up_cb(gpointer data)
{
	struct umms_worker_warm_up *w = data;
	if (w->next >= w->list->len && !w->clip_done) {
		umms_debug("worker: warmed up %u elements in %.0f ms", w->list->len,
			(double)(g_get_monotonic_time() - w->start) / 1000);
		play_clip(w);
		w->clip_done = true;
		return G_SOURCE_CONTINUE;
	}
	if (w->clip_done) {
		/* Then the memory a first 1080p frame takes (worker-heap.h), a block at a time. */
		if (!umms_worker_heap_warm_step(&w->heap))
			return G_SOURCE_CONTINUE;
		umms_source_forget(&w->source);
		return G_SOURCE_REMOVE;
	}
	load_feature(w->list->pdata[w->next++]);
	return G_SOURCE_CONTINUE;
}

/* ---- the clip --------------------------------------------------------------- */

static unsigned
thread_count(void)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/task", 0, NULL);
	unsigned n = 0;
	while (dir && g_dir_read_name(dir))
		n++;
	return n;
}

/* The names of the threads but the main one, for the log. */
static char *
thread_names(void)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/task", 0, NULL);
	GString *names = g_string_new(NULL);
	const char *tid;
	while (dir && (tid = g_dir_read_name(dir))) {
		if (atoi(tid) == getpid())
			continue;
		g_autofree char *path = g_strdup_printf("/proc/self/task/%s/comm", tid);
		g_autofree char *name = NULL;
		if (g_file_get_contents(path, &name, NULL, NULL))
			g_string_append_printf(names, "%s%s", names->len ? ", " : "", g_strstrip(name));
	}
	return g_string_free(names, FALSE);
}

/*
 * A decoded frame, converted to BGRx as the engine's converter converts it
 * (gst-convert.c: libyuv), so that libyuv's pages and its look at the CPU
 * come here, before the sandbox, not with the first frame.
 */
static bool
convert(GstBuffer *buffer, GstCaps *caps)
{
	return gst_convert_warm_up(buffer, caps);
}

static void
clip_frame_cb(GstElement *sink, GstBuffer *buffer, GstPad *pad, gpointer data)
{
	bool *shown = data;
	GstCaps *caps = gst_pad_get_current_caps(pad);
	if (!*shown && convert(buffer, caps))
		*shown = true;
	if (caps)
		gst_caps_unref(caps);
}

/* Pushes the clip, in the calling thread, into @pipeline through @src. */
static bool
push_clip(GstPad *src, GBytes *bytes)
{
	g_autoptr(GstCaps) caps = gst_caps_new_empty_simple("video/quicktime");
	GstSegment segment;
	gst_segment_init(&segment, GST_FORMAT_BYTES);
	if (!gst_pad_push_event(src, gst_event_new_stream_start("umms-warm-up")) ||
			!gst_pad_push_event(src, gst_event_new_caps(caps)) ||
			!gst_pad_push_event(src, gst_event_new_segment(&segment)))
		return false;
	/* The file whole: qtdemux may answer EOS (all its streams are done). */
	GstFlowReturn flow = gst_pad_push(src, gst_buffer_new_wrapped_bytes(bytes));
	/* Either way, the end of the stream drains the decoder: its frames come out. */
	gst_pad_push_event(src, gst_event_new_eos());
	return flow == GST_FLOW_OK || flow == GST_FLOW_EOS;
}

/*
 * Plays the clip to its frames through the elements playbin would plug
 * for it, converting to XRGB8888 (BGRx) as the engine does for clients,
 * all in this thread: a pipeline fed from here, no source element, no
 * queue, a sink that neither waits for preroll nor syncs. So no GStreamer
 * task and none of GLib's thread pools is started before the sandbox: the
 * first pool made takes the scheduler settings of its thread for all its
 * later threads, which then set them by thread id, and the sandbox
 * refuses that (a GLib-CRITICAL in every worker). Only the decoder's own
 * threads run, and end with it.
 */
static void
play_clip(struct umms_worker_warm_up *w)
{
	g_autoptr(GError) error = NULL;
	gint64 start = g_get_monotonic_time();
	g_autoptr(GBytes) bytes = g_resources_lookup_data(CLIP, G_RESOURCE_LOOKUP_FLAGS_NONE,
		&error);
	if (!bytes) {
		umms_debug("worker: no warm-up clip: %s", error->message);
		return;
	}
	/* What typefind does first with any stream: its functions loaded and run. */
	g_autoptr(GstCaps) found = gst_type_find_helper_for_data(NULL,
		g_bytes_get_data(bytes, NULL), g_bytes_get_size(bytes), NULL);
	GstElement *pipeline = gst_parse_launch("qtdemux name=demux demux.video_0 ! "
		"h264parse ! avdec_h264 ! "
		"fakesink name=sink async=false sync=false signal-handoffs=true", &error);
	if (!pipeline) {
		umms_debug("worker: no warm-up clip: %s", error->message);
		return;
	}
	bool shown = false;
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	GstElement *demux = gst_bin_get_by_name(GST_BIN(pipeline), "demux");
	g_signal_connect(sink, "handoff", G_CALLBACK(clip_frame_cb), &shown);
	GstPad *src = gst_pad_new("src", GST_PAD_SRC);
	GstPad *demux_sink = gst_element_get_static_pad(demux, "sink");
	bool ok = gst_pad_link(src, demux_sink) == GST_PAD_LINK_OK &&
		gst_pad_set_active(src, TRUE) &&
		gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_SUCCESS &&
		push_clip(src, bytes);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_pad_set_active(src, FALSE);
	gst_object_unref(demux_sink);
	gst_object_unref(src);
	gst_object_unref(demux);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	w->played = ok && shown;
	w->threads_check = true;
	umms_debug("worker: warm-up clip %s in %.0f ms", w->played ? "shown" : "not shown",
		(double)(g_get_monotonic_time() - start) / 1000);
}

/* ---- start, stop ------------------------------------------------------------- */

void
umms_worker_warm_up_start(struct umms_worker_warm_up *w)
{
	umms_worker_warm_up_stop(w);
	w->played = false;
	w->threads_check = false;
	w->clip_done = false;
	w->list = warm_up_list();
	w->next = 0;
	w->start = g_get_monotonic_time();
	w->source = g_idle_source_new();
	g_source_set_priority(w->source, G_PRIORITY_LOW);
	g_source_set_callback(w->source, warm_up_cb, w, NULL);
	g_source_attach(w->source, NULL);
}

void
umms_worker_warm_up_stop(struct umms_worker_warm_up *w)
{
	umms_source_clear(&w->source);
	if (w->list)
		g_ptr_array_free(w->list, TRUE);
	w->list = NULL;
	/* Taken half-way: what was written stays in the heap, for this media. */
	if (!w->heap.done)
		umms_worker_heap_warm_stop(&w->heap);
	if (!w->threads_check)
		return;
	w->threads_check = false;
	/* The decoder's threads were joined as it closed; anything else, said. */
	gint64 end = g_get_monotonic_time() + THREADS_MAX_MS * 1000;
	while (thread_count() > 1 && g_get_monotonic_time() < end)
		g_usleep(1000);
	if (thread_count() > 1) {
		g_autofree char *names = thread_names();
		umms_warn("worker: threads left after the warm-up clip: %s", names);
	}
}
