/*
 * Hardware decoder plugins loaded at start, on a thread of their own.
 *
 * A plugin such as nvcodec sets up its driver (CUDA, NVDEC) when it is
 * first loaded: 1.8 s on an H200, which the first SetUri plugging one of
 * its decoders would otherwise wait for. The registry names the plugin of
 * every element without loading it; the plugins with a decoder of class
 * Hardware are loaded here, once per process, and the time it took is
 * logged. GStreamer loads one plugin at a time (one lock), so the plugins
 * of the elements ummsd makes on its main loop are loaded first, on the
 * main loop, in a few milliseconds: a SetUri arriving meanwhile never holds
 * the main loop until the hardware plugin is done. Its streaming threads
 * may wait for it (they load the demuxers and parsers), not the main loop.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "gst-private.h"
#include "log.h"

/* Made on the main loop: the engine's pipeline and sinks, subtitles, the recorder, Capture. */
static const char *const main_loop_elements[] = {
	"playbin", "uridecodebin", "urisourcebin", "parsebin", "appsink", "appsrc",
	"filesink", "fakesink", "queue", "capsfilter", "scaletempo", "autoaudiosink",
	"matroskamux", "mpegtsmux", "videoconvert", "videoscale", "pngenc", NULL,
};

static GMutex lock;
static GCond done_cond;
static bool started, done;
static GThread *thread;

/* Names of the plugins with a hardware decoder, NULL if none. */
static char **
hardware_plugins(void)
{
	GList *features = gst_registry_get_feature_list(gst_registry_get(),
		GST_TYPE_ELEMENT_FACTORY);
	GPtrArray *names = g_ptr_array_new();
	for (GList *l = features; l; l = l->next) {
		const char *klass = gst_element_factory_get_metadata(l->data,
			GST_ELEMENT_METADATA_KLASS);
		const char *plugin = gst_plugin_feature_get_plugin_name(l->data);
		if (!klass || !plugin || !strstr(klass, "Decoder") || !strstr(klass, "Hardware"))
			continue;
		bool seen = false;
		for (guint i = 0; i < names->len && !seen; i++)
			seen = strcmp(names->pdata[i], plugin) == 0;
		if (!seen)
			g_ptr_array_add(names, g_strdup(plugin));
	}
	gst_plugin_feature_list_free(features);
	if (names->len == 0) {
		g_ptr_array_free(names, TRUE);
		return NULL;
	}
	g_ptr_array_add(names, NULL);
	return (char **)g_ptr_array_free(names, FALSE);
}

static void
load_main_loop_plugins(void)
{
	gint64 start = g_get_monotonic_time();
	for (const char *const *name = main_loop_elements; *name; name++) {
		GstElementFactory *factory = gst_element_factory_find(*name);
		if (!factory)
			continue;
		GstPluginFeature *loaded = gst_plugin_feature_load(GST_PLUGIN_FEATURE(factory));
		if (loaded)
			gst_object_unref(loaded);
		gst_object_unref(factory);
	}
	umms_debug("plugins of the main loop's elements loaded in %.1f ms",
		(double)(g_get_monotonic_time() - start) / 1000.0);
}

static gpointer
preload_thread(gpointer data)
{
	char **plugins = data;
	gint64 start = g_get_monotonic_time();
	for (char **name = plugins; *name; name++) {
		gint64 t0 = g_get_monotonic_time();
		GstPlugin *plugin = gst_registry_find_plugin(gst_registry_get(), *name);
		GstPlugin *loaded = plugin ? gst_plugin_load(plugin) : NULL;
		if (loaded)
			umms_info("hardware decoder plugin %s loaded in %.0f ms", *name,
				(double)(g_get_monotonic_time() - t0) / 1000.0);
		else
			umms_warn("hardware decoder plugin %s could not be loaded", *name);
		if (loaded)
			gst_object_unref(loaded);
		if (plugin)
			gst_object_unref(plugin);
	}
	umms_info("hardware decoder plugins loaded in %.0f ms",
		(double)(g_get_monotonic_time() - start) / 1000.0);
	g_strfreev(plugins);
	g_mutex_lock(&lock);
	done = true;
	g_cond_broadcast(&done_cond);
	g_mutex_unlock(&lock);
	return NULL;
}

void
gst_preload_start(void)
{
	g_mutex_lock(&lock);
	if (started) {
		g_mutex_unlock(&lock);
		return;
	}
	started = true;
	char **plugins = hardware_plugins();
	if (!plugins) {
		done = true;
		g_mutex_unlock(&lock);
		umms_info("no hardware decoder plugin to load");
		return;
	}
	g_mutex_unlock(&lock);
	load_main_loop_plugins();
	g_autofree char *list = g_strjoinv(", ", plugins);
	umms_info("loading hardware decoder plugins: %s", list);
	g_mutex_lock(&lock);
	thread = g_thread_new("umms-gst-preload", preload_thread, plugins);
	g_mutex_unlock(&lock);
}

void
gst_preload_wait(void)
{
	g_mutex_lock(&lock);
	while (started && !done)
		g_cond_wait(&done_cond, &lock);
	GThread *ended = thread;
	thread = NULL;
	g_mutex_unlock(&lock);
	/* Gone, not only done: a worker enters its sandbox with one thread. */
	if (ended)
		g_thread_join(ended);
}
