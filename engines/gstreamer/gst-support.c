/*
 * The GStreamer engine's surroundings: process-wide set-up and decoder
 * policy, URI checks before anything is opened, GStreamer errors turned into
 * sentences, and the frame counters behind Stats.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <gst/app/app.h>
#include <gst/pbutils/pbutils.h>

#include "error.h"
#include "gst-eit.h"
#include "gst-private.h"
#include "log.h"

#define CUE_PLACE_META "UmmsCuePlaceMeta"

static void
cue_place_meta_register(void)
{
	static gsize done;
	if (g_once_init_enter(&done)) {
		static const char *tags[] = { NULL };
		gst_meta_register_custom(CUE_PLACE_META, tags, NULL, NULL, NULL);
		g_once_init_leave(&done, 1);
	}
}

void
gst_support_set_cue_place(GstBuffer *buffer, const struct umms_cue_place *place)
{
	GstCustomMeta *meta = gst_buffer_add_custom_meta(buffer, CUE_PLACE_META);
	if (!meta)
		return;
	GBytes *bytes = g_bytes_new(place, sizeof(*place));
	gst_structure_set(gst_custom_meta_get_structure(meta), "place", G_TYPE_BYTES, bytes,
		NULL);
	g_bytes_unref(bytes);
}

bool
gst_support_cue_place(GstBuffer *buffer, struct umms_cue_place *place)
{
	if (!gst_meta_get_info(CUE_PLACE_META))
		return false;
	GstCustomMeta *meta = gst_buffer_get_custom_meta(buffer, CUE_PLACE_META);
	GBytes *bytes = NULL;
	if (!meta || !gst_structure_get(gst_custom_meta_get_structure(meta), "place",
			G_TYPE_BYTES, &bytes, NULL))
		return false;
	bool ok = g_bytes_get_size(bytes) == sizeof(*place);
	if (ok)
		memcpy(place, g_bytes_get_data(bytes, NULL), sizeof(*place));
	g_bytes_unref(bytes);
	return ok;
}

bool
gst_support_init(const struct umms_config *config, GError **error)
{
	GError *init_error = NULL;
	if (!gst_init_check(NULL, NULL, &init_error)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"GStreamer cannot start: %s", init_error->message);
		g_error_free(init_error);
		return false;
	}
	if (config->log.gst_debug)
		gst_debug_set_threshold_from_string(config->log.gst_debug, TRUE);

	/*
	 * Decoders the configuration rules out are never autoplugged. Ranks live
	 * in GStreamer's process-wide registry, so a server started again with
	 * another configuration first gets back the ranks an earlier one took.
	 */
	static GHashTable *original_ranks; /* name → rank + 1 */
	static GMutex lock;
	g_mutex_lock(&lock);
	if (!original_ranks)
		original_ranks = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GstRegistry *registry = gst_registry_get();
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, original_ranks);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		GstPluginFeature *feature = gst_registry_lookup_feature(registry, key);
		if (feature) {
			gst_plugin_feature_set_rank(feature, GPOINTER_TO_UINT(value) - 1);
			gst_object_unref(feature);
		}
		g_hash_table_iter_remove(&iter);
	}
	for (char **name = config->engine.disable_decoders; name && *name; name++) {
		GstPluginFeature *feature = gst_registry_lookup_feature(registry, *name);
		if (!feature) {
			umms_warn("engine.disable-decoders: no element named %s", *name);
			continue;
		}
		g_hash_table_insert(original_ranks, g_strdup(*name),
			GUINT_TO_POINTER(gst_plugin_feature_get_rank(feature) + 1));
		gst_plugin_feature_set_rank(feature, GST_RANK_NONE);
		umms_info("decoder %s disabled by configuration", *name);
		gst_object_unref(feature);
	}
	g_mutex_unlock(&lock);
	cue_place_meta_register();
	gst_teletext_register();
	gst_dvb_register();
	return true;
}

void
gst_support_finish(void)
{
	gst_preload_wait();
}

static bool
is_hardware_decoder(const char *klass)
{
	return klass && strstr(klass, "Decoder") && strstr(klass, "Hardware");
}

static gint
compare_features(gconstpointer a, gconstpointer b)
{
	return strcmp(gst_plugin_feature_get_name(*(GstPluginFeature *const *)a),
		gst_plugin_feature_get_name(*(GstPluginFeature *const *)b));
}

/*
 * Every video decoder of class Hardware decodebin could plug (rank above
 * none: a decoder the configuration disabled is not), once per codec of
 * its sink's caps: what autoplug_select_cb gates.
 */
void
gst_support_list_hardware_decoders(GPtrArray *out)
{
	GList *features = gst_registry_get_feature_list(gst_registry_get(),
		GST_TYPE_ELEMENT_FACTORY);
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();
	for (GList *l = features; l; l = l->next) {
		GstElementFactory *factory = l->data;
		const char *klass = gst_element_factory_get_metadata(factory,
			GST_ELEMENT_METADATA_KLASS);
		if (is_hardware_decoder(klass) && strstr(klass, "Video") &&
				gst_plugin_feature_get_rank(l->data) > GST_RANK_NONE)
			g_ptr_array_add(sorted, factory);
	}
	g_ptr_array_sort(sorted, compare_features);
	for (guint i = 0; i < sorted->len; i++) {
		GstElementFactory *factory = sorted->pdata[i];
		g_autoptr(GPtrArray) codecs = g_ptr_array_new_with_free_func(g_free);
		for (const GList *t = gst_element_factory_get_static_pad_templates(factory); t;
				t = t->next) {
			const GstStaticPadTemplate *templ = t->data;
			if (templ->direction != GST_PAD_SINK)
				continue;
			GstCaps *caps = gst_static_caps_get((GstStaticCaps *)&templ->static_caps);
			for (guint k = 0; k < gst_caps_get_size(caps); k++) {
				GstCaps *one = gst_caps_copy_nth(caps, k);
				char *codec = gst_media_codec_name(one);
				gst_caps_unref(one);
				if (g_ptr_array_find_with_equal_func(codecs, codec, g_str_equal, NULL))
					g_free(codec);
				else
					g_ptr_array_add(codecs, codec);
			}
			gst_caps_unref(caps);
		}
		const char *plugin = gst_plugin_feature_get_plugin_name(GST_PLUGIN_FEATURE(factory));
		for (guint k = 0; k < codecs->len; k++) {
			struct umms_engine_decoder *d = g_new0(struct umms_engine_decoder, 1);
			d->element = g_strdup(gst_plugin_feature_get_name(factory));
			d->codec = g_strdup(codecs->pdata[k]);
			d->plugin = g_strdup(plugin ? plugin : "");
			g_ptr_array_add(out, d);
		}
	}
	gst_plugin_feature_list_free(features);
}

bool
gst_support_probe_uri(const char *uri, GError **error)
{
	g_autofree char *scheme = g_uri_parse_scheme(uri);
	if (!scheme) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a URI: \"%s\"", uri);
		return false;
	}
	if (g_ascii_strcasecmp(scheme, "file") == 0) {
		g_autoptr(GError) uri_error = NULL;
		g_autofree char *path = g_filename_from_uri(uri, NULL, &uri_error);
		if (!path) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"not a valid file URI: \"%s\"", uri);
			return false;
		}
		if (access(path, F_OK) != 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
				"no such file: %s", path);
			return false;
		}
		if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"%s is a folder, not a media file", path);
			return false;
		}
		if (access(path, R_OK) != 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"permission denied: %s", path);
			return false;
		}
		return true;
	}
	/* fd://N would read a descriptor of the service's own. */
	if (g_ascii_strcasecmp(scheme, "fd") == 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"fd: URIs are not played: give a file's path or URI");
		return false;
	}
	if (!gst_uri_protocol_is_supported(GST_URI_SRC, scheme)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"no source for URI scheme \"%s\" is installed", scheme);
		return false;
	}
	return true;
}

bool
gst_support_missing_plugin(struct gst_engine *engine, GstMessage *message)
{
	if (!gst_is_missing_plugin_message(message))
		return false;
	const GstStructure *s = gst_message_get_structure(message);
	const char *type = gst_structure_get_string(s, "type");
	GstCaps *caps = NULL;
	if (g_strcmp0(type, "decoder") != 0 ||
			!gst_structure_get(s, "detail", GST_TYPE_CAPS, &caps, NULL))
		return false;
	const char *media = gst_structure_get_name(gst_caps_get_structure(caps, 0));
	/* Only audio and video matter here: subtitles are read without decoders. */
	bool matters = g_str_has_prefix(media, "video/") || g_str_has_prefix(media, "audio/");
	if (matters) {
		g_autofree char *codec = gst_media_codec_name(caps);
		g_autofree char *description = gst_missing_plugin_message_get_description(message);
		umms_info("missing decoder: %s (%s)", codec, description);
		if (!engine->missing)
			engine->missing = g_strdup_printf("codec %s: no decoder installed", codec);
	}
	gst_caps_unref(caps);
	return matters;
}

/* A sound server's sink that opens: the server is there. */
static bool
server_sink_opens(const char *factory)
{
	GstElement *sink = gst_element_factory_make(factory, NULL);
	if (!sink)
		return false;
	gst_object_ref_sink(sink);
	bool opens = gst_element_set_state(sink, GST_STATE_READY) != GST_STATE_CHANGE_FAILURE;
	gst_element_set_state(sink, GST_STATE_NULL);
	gst_object_unref(sink);
	return opens;
}

/* An ALSA playback device (/dev/snd/pcmC0D0p) or OSS's /dev/dsp. */
static bool
any_sound_device(void)
{
	if (g_file_test("/dev/dsp", G_FILE_TEST_EXISTS))
		return true;
	g_autoptr(GDir) dir = g_dir_open("/dev/snd", 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)))
		if (g_str_has_prefix(name, "pcmC") && g_str_has_suffix(name, "p"))
			return true;
	return false;
}

bool
gst_support_can_sound(void)
{
	/*
	 * Without either, autoaudiosink tries every sink it knows (OpenAL's
	 * and ALSA's libraries write their failures to stderr) and ends in a
	 * fakesink anyway: go there directly, and say it once.
	 */
	static int can = -1;
	if (can >= 0)
		return can;
	can = any_sound_device() || server_sink_opens("pulsesink") ||
		server_sink_opens("pipewiresink");
	if (!can)
		umms_warn("no sound device or sound server: audio plays silently, on time");
	return can;
}

GError *
gst_support_error(struct gst_engine *engine, GError *gst_error, const char *debug)
{
	const char *uri = engine->uri ? engine->uri : "";
	g_autofree char *path = g_str_has_prefix(uri, "file:") ?
		g_filename_from_uri(uri, NULL, NULL) : NULL;
	const char *what = path ? path : uri;

	if (engine->missing)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "%s", engine->missing);
	GError *status = gst_network_status_error(engine);
	if (status)
		return status;

	if (gst_error->domain == GST_RESOURCE_ERROR) {
		switch (gst_error->code) {
		case GST_RESOURCE_ERROR_NOT_FOUND:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
				"not found: %s", what);
		case GST_RESOURCE_ERROR_NOT_AUTHORIZED:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"permission denied: %s", what);
		case GST_RESOURCE_ERROR_OPEN_READ:
		case GST_RESOURCE_ERROR_READ:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
				"cannot read %s: %s", what, gst_error->message);
		case GST_RESOURCE_ERROR_BUSY:
		case GST_RESOURCE_ERROR_NO_SPACE_LEFT:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
				"%s: %s", what, gst_error->message);
		default:
			break;
		}
	}
	if (gst_error->domain == GST_STREAM_ERROR) {
		switch (gst_error->code) {
		case GST_STREAM_ERROR_TYPE_NOT_FOUND:
		case GST_STREAM_ERROR_WRONG_TYPE:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"not a media file this service can play: %s (%s)",
				what, gst_error->message);
		case GST_STREAM_ERROR_CODEC_NOT_FOUND:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"%s: no decoder installed for its codec", what);
		case GST_STREAM_ERROR_DEMUX:
		case GST_STREAM_ERROR_DECODE:
		case GST_STREAM_ERROR_FORMAT:
			return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
				"damaged or truncated media: %s (%s)", what, gst_error->message);
		case GST_STREAM_ERROR_FAILED:
			/* GStreamer's "internal data stream error": the data stopped. */
			return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
				"%s: the stream broke off (%s)", what, gst_error->message);
		default:
			break;
		}
	}
	return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED, "%s: %s", what, gst_error->message);
}

/* Streaming thread: a frame out of a video decoder; only the one shown counts. */
static GstPadProbeReturn
decoded_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	gst_timeline_mark(&engine->timeline, GST_TIMELINE_DECODED);
	guint n = 1;
	if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
		n = gst_buffer_list_length(GST_PAD_PROBE_INFO_BUFFER_LIST(info));
	GstElement *decoder = GST_ELEMENT(gst_pad_get_parent(pad));
	if (!decoder)
		return GST_PAD_PROBE_OK;
	g_mutex_lock(&engine->lock);
	const char *id = g_object_get_data(G_OBJECT(decoder), "umms-stream-id");
	if (!engine->current_video_id || g_strcmp0(id, engine->current_video_id) == 0)
		engine->decoded += n;
	g_mutex_unlock(&engine->lock);
	gst_object_unref(decoder);
	return GST_PAD_PROBE_OK;
}

/*
 * A software decoder's threads, set from its input's caps before it opens
 * ([engine] decoder-threads): by default one up to 1920x1088 at 30 fps,
 * where one thread is several times faster than real time and a thread per
 * core costs 5 % more CPU and a pool of frames per thread (bench/README.md);
 * the decoder's own choice (0) above, or for a picture it does not know.
 */
static void
choose_threads(struct gst_engine *engine, GstElement *decoder, GstCaps *caps)
{
	GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(decoder), "max-threads");
	if (!spec || spec->value_type != G_TYPE_INT || !(spec->flags & G_PARAM_WRITABLE) ||
			!caps || gst_caps_get_size(caps) == 0)
		return;
	int threads = (int)engine->config->engine.decoder_threads;
	if (threads == 0) {
		const GstStructure *s = gst_caps_get_structure(caps, 0);
		int width = 0, height = 0, fps_n = 0, fps_d = 1;
		gst_structure_get_int(s, "width", &width);
		gst_structure_get_int(s, "height", &height);
		/* No rate, or a variable one (0/1): taken as 30. */
		if (!gst_structure_get_fraction(s, "framerate", &fps_n, &fps_d) || fps_n <= 0 ||
				fps_d <= 0)
			fps_n = 30, fps_d = 1;
		bool small = width > 0 && height > 0 && (int64_t)width * height <= 1920 * 1088 &&
			(int64_t)fps_n <= (int64_t)fps_d * 30;
		threads = small ? 1 : 0;
	}
	g_object_set(decoder, "max-threads", threads, NULL);
	umms_debug("%s: %d decoding thread%s", GST_ELEMENT_NAME(decoder), threads,
		threads == 0 ? "s, its own choice" : threads == 1 ? "" : "s at most");
}

/* Streaming thread: the caps a decoder is given name the stream's codec. */
static GstPadProbeReturn
decoder_caps_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
		return GST_PAD_PROBE_OK;
	GstCaps *caps = NULL;
	gst_event_parse_caps(event, &caps);
	char *id = gst_pad_get_stream_id(pad);
	GstElement *decoder = GST_ELEMENT(gst_pad_get_parent(pad));
	if (decoder)
		choose_threads(engine, decoder, caps);
	if (id && decoder) {
		g_mutex_lock(&engine->lock);
		g_hash_table_replace(engine->stream_caps, g_strdup(id), gst_caps_ref(caps));
		g_object_set_data_full(G_OBJECT(decoder), "umms-stream-id", g_strdup(id), g_free);
		g_mutex_unlock(&engine->lock);
	}
	if (decoder)
		gst_object_unref(decoder);
	g_free(id);
	return GST_PAD_PROBE_OK;
}

static const char *
element_klass(GstElement *element)
{
	GstElementFactory *factory = gst_element_get_factory(element);
	return factory ? gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_KLASS) : NULL;
}

static void
have_type_cb(GstElement *typefind, guint probability, GstCaps *caps, gpointer data)
{
	gst_media_set_container(data, caps);
}

/*
 * Streaming thread: decodebin is about to try @factory for @caps. A
 * hardware decoder (class Hardware, e.g. the va plugin's) is skipped
 * unless the resource manager allows its codec: the player holds no unit
 * of it, so a software decoder stands in. Anything else: decodebin's way.
 */
/* decodebin's GstAutoplugSelectResult (its header is not installed): try, expose, skip. */
enum { AUTOPLUG_SELECT_TRY = 0, AUTOPLUG_SELECT_SKIP = 2 };

static int
autoplug_select_cb(GstElement *bin, GstPad *pad, GstCaps *caps, GstElementFactory *factory,
	gpointer data)
{
	struct gst_engine *engine = data;
	const char *klass = gst_element_factory_get_metadata(factory,
		GST_ELEMENT_METADATA_KLASS);
	if (!is_hardware_decoder(klass))
		return AUTOPLUG_SELECT_TRY;
	g_autofree char *codec = gst_media_codec_name(caps);
	g_mutex_lock(&engine->lock);
	bool allowed = !engine->hardware_codecs ||
		(codec && g_strv_contains((const char *const *)engine->hardware_codecs, codec));
	g_mutex_unlock(&engine->lock);
	if (!allowed)
		umms_info("not plugging %s: no hardware %s decoder is held for this player",
			gst_plugin_feature_get_name(factory), codec ? codec : "?");
	return allowed ? AUTOPLUG_SELECT_TRY : AUTOPLUG_SELECT_SKIP;
}

void
gst_support_set_hardware_codecs(struct gst_engine *engine, const char *const *codecs)
{
	g_mutex_lock(&engine->lock);
	g_strfreev(engine->hardware_codecs);
	engine->hardware_codecs = codecs ? g_strdupv((char **)codecs) : NULL;
	g_mutex_unlock(&engine->lock);
}

/*
 * Streaming thread: what a V4L2 decoder may output, answered from
 * downstream, with the format our sink is set to first. GStreamer 1.22's
 * v4l2 decoders take the first format downstream accepts in the order of
 * their own list, not the format the stream decodes to: downstream of
 * playsink's converter accepts anything, so vicodec was asked for YUY2 of
 * an RGB stream, refused it with a new source change, and the two went
 * round for ever (and a decoder given a format it cannot fill converts, or
 * is converted after, in a copy). The sink's format is the one the output
 * takes as it is; first in the answer, the decoder picks it where it can.
 */
static GstPadProbeReturn
decoder_output_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
	if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS || !(info->type & GST_PAD_PROBE_TYPE_PULL))
		return GST_PAD_PROBE_OK;
	GstCaps *result = NULL;
	gst_query_parse_caps_result(query, &result);
	GstCaps *wanted = gst_app_sink_get_caps(GST_APP_SINK(engine->video_sink));
	if (!result || !wanted) {
		if (wanted)
			gst_caps_unref(wanted);
		return GST_PAD_PROBE_OK;
	}
	GstCaps *first = gst_caps_intersect_full(wanted, result, GST_CAPS_INTERSECT_FIRST);
	gst_caps_unref(wanted);
	if (gst_caps_is_empty(first)) {
		gst_caps_unref(first);
		return GST_PAD_PROBE_OK;
	}
	GstCaps *ordered = gst_caps_merge(first, gst_caps_ref(result));
	gst_query_set_caps_result(query, ordered);
	gst_caps_unref(ordered);
	return GST_PAD_PROBE_OK;
}

/* Streaming thread: an element appeared somewhere inside playbin. */
static void
element_added_cb(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data)
{
	struct gst_engine *engine = data;
	gst_overlay_element_added(engine, element);
	gst_teletext_element_added(engine, element);
	GstElementFactory *factory = gst_element_get_factory(element);
	if (factory && strcmp(gst_plugin_feature_get_name(factory), "tsdemux") == 0) {
		GstPad *sink = gst_element_get_static_pad(element, "sink");
		if (sink && engine->eit)
			gst_eit_watch_pad(engine->eit, sink);
		if (sink)
			gst_object_unref(sink);
		return;
	}
	if (factory && strcmp(gst_plugin_feature_get_name(factory), "typefind") == 0) {
		g_signal_connect(element, "have-type", G_CALLBACK(have_type_cb), engine);
		return;
	}
	if (factory && strcmp(gst_plugin_feature_get_name(factory), "queue") == 0 &&
			strcmp(GST_ELEMENT_NAME(element), "vqueue") == 0) {
		/*
		 * playsink's queue before the video sink: decoded frames wait
		 * there for their time, three by default (9 MB at 1080p). The
		 * decoder's own frames and the one waiting in the sink already
		 * cover a slow picture; one more is enough (bench/video-cpu:
		 * the worker's heap 43 -> 37 MB, no frame dropped).
		 */
		g_object_set(element, "max-size-buffers", 1u, NULL);
		return;
	}
	if (factory && strcmp(gst_plugin_feature_get_name(factory), "decodebin") == 0) {
		/* After uridecodebin's own handler, which playbin answers "try" for decoders. */
		g_signal_connect(element, "autoplug-select", G_CALLBACK(autoplug_select_cb), engine);
		return;
	}
	const char *klass = element_klass(element);
	if (!klass || !strstr(klass, "Decoder"))
		return;
	/*
	 * A decoder inside a decoder (a bin of class Codec/Decoder, not
	 * decodebin's Generic/Bin/Decoder): its bin is the one counted and named.
	 */
	GstObject *parent = gst_object_get_parent(GST_OBJECT(element));
	const char *parent_klass = parent && GST_IS_ELEMENT(parent) ?
		element_klass(GST_ELEMENT(parent)) : NULL;
	bool inner = parent_klass && strstr(parent_klass, "Codec/Decoder");
	if (parent)
		gst_object_unref(parent);
	if (inner)
		return;
	GstPad *sink = gst_element_get_static_pad(element, "sink");
	if (sink) {
		gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, decoder_caps_probe,
			engine, NULL);
		gst_object_unref(sink);
	}
	if (!strstr(klass, "Video"))
		return;
	/*
	 * A V4L2 decoder (v4l2*dec) left to itself decodes into MMAP buffers
	 * that are no dma-buf: they would be copied, by it into our memfd pool
	 * or by us. Exported as dma-buf (VIDIOC_EXPBUF), its own buffers go
	 * to the screen as they are.
	 */
	bool v4l2 = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "capture-io-mode");
	if (v4l2)
		gst_util_set_object_arg(G_OBJECT(element), "capture-io-mode", "dmabuf");
	gst_captions_watch_decoder(engine, element);
	gst_catchup_watch_decoder(engine, element);
	GstPad *src = gst_element_get_static_pad(element, "src");
	if (src) {
		gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
			decoded_probe, engine, NULL);
		if (v4l2)
			gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
				GST_PAD_PROBE_TYPE_PULL, decoder_output_probe, engine, NULL);
		gst_object_unref(src);
	}
	g_mutex_lock(&engine->lock);
	g_ptr_array_add(engine->video_decoders, gst_object_ref(element));
	g_mutex_unlock(&engine->lock);
	umms_debug("video decoder %s", GST_ELEMENT_NAME(element));
	gst_timeline_mark(&engine->timeline, GST_TIMELINE_DECODER);
}

static void
element_removed_cb(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data)
{
	struct gst_engine *engine = data;
	g_mutex_lock(&engine->lock);
	/* The array's free function drops our reference. */
	g_ptr_array_remove(engine->video_decoders, element);
	g_mutex_unlock(&engine->lock);
}

/* Streaming thread: playbin's streams or their tags changed; tell the main loop. */
static void
streams_changed_cb(GstElement *playbin, gpointer data)
{
	gst_element_post_message(playbin, gst_message_new_application(GST_OBJECT(playbin),
		gst_structure_new_empty("umms-streams")));
}

static void
stream_tags_changed_cb(GstElement *playbin, gint stream, gpointer data)
{
	streams_changed_cb(playbin, data);
}

void
gst_support_watch_pipeline(struct gst_engine *engine)
{
	g_signal_connect(engine->pipeline, "deep-element-added",
		G_CALLBACK(element_added_cb), engine);
	g_signal_connect(engine->pipeline, "deep-element-removed",
		G_CALLBACK(element_removed_cb), engine);
	static const char *const kinds[] = { "video", "audio", "text" };
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		g_autofree char *changed = g_strdup_printf("%s-changed", kinds[i]);
		g_autofree char *tags = g_strdup_printf("%s-tags-changed", kinds[i]);
		g_signal_connect(engine->pipeline, changed, G_CALLBACK(streams_changed_cb), NULL);
		g_signal_connect(engine->pipeline, tags, G_CALLBACK(stream_tags_changed_cb), NULL);
	}
}

void
gst_support_qos(struct gst_engine *engine, GstMessage *message)
{
	GstFormat format;
	guint64 processed, dropped;
	gst_message_parse_qos_stats(message, &format, &processed, &dropped);
	if (format != GST_FORMAT_BUFFERS || dropped == G_MAXUINT64)
		return;
	/* Each element reports its running total; keep the latest per element. */
	guint64 *value = g_new(guint64, 1);
	*value = dropped;
	g_hash_table_replace(engine->qos_dropped, g_strdup(GST_MESSAGE_SRC_NAME(message)), value);
}

void
gst_support_reset_stats(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	engine->decoded = 0;
	engine->presented = 0;
	engine->superseded = 0;
	engine->skipped = 0;
	engine->copies = 0;
	engine->dmabuf_frames = 0;
	engine->audio_buffers = 0;
	engine->audio_bytes = 0;
	g_mutex_unlock(&engine->lock);
	g_hash_table_remove_all(engine->qos_dropped);
}

void
gst_support_get_stats(struct gst_engine *engine, struct umms_engine_stats *stats)
{
	*stats = (struct umms_engine_stats){ 0 };
	g_mutex_lock(&engine->lock);
	stats->decoded = engine->decoded;
	/* Frames the main loop was too busy to hand over count as dropped, not presented. */
	stats->presented = engine->presented > engine->superseded ?
		engine->presented - engine->superseded : 0;
	stats->dropped = engine->superseded + engine->skipped;
	stats->copies = engine->copies;
	stats->dmabuf = engine->dmabuf_frames;
	stats->audio_buffers = engine->audio_buffers;
	stats->audio_bytes = engine->audio_bytes;
	g_mutex_unlock(&engine->lock);

	GHashTableIter iter;
	gpointer value;
	g_hash_table_iter_init(&iter, engine->qos_dropped);
	while (g_hash_table_iter_next(&iter, NULL, &value))
		stats->dropped += *(guint64 *)value;
}

void
gst_support_replace_caps_event(GstPadProbeInfo *info, GstCaps *caps)
{
	GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
	GST_PAD_PROBE_INFO_DATA(info) = gst_event_new_caps(caps);
	gst_caps_unref(caps);
	gst_event_unref(event);
}
