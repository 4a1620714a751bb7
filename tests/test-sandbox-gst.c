/*
 * GStreamer inside the engine worker's sandbox (worker/sandbox.h): clips
 * play to EOS in it, a demuxer outside the element list is never plugged
 * (the VOC file avdemux_voc spins on), and the list's ranks and removed
 * sources stay as set (sandbox-child.h runs the children).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "sandbox-child.h"

/* The folder the parent prepares files in before forking. */
static char *tmpdir;

/* The clips folder (UMMS_TEST_CLIPS), read before forking. */
static const char *clips_dir;

/* Child: each decodebin pad gets a fakesink of its own. */
static void
pad_added_cb(GstElement *decodebin, GstPad *pad, gpointer data)
{
	GstElement *pipeline = data;
	GstElement *sink = gst_element_factory_make("fakesink", NULL);
	g_object_set(sink, "sync", FALSE, NULL);
	gst_bin_add(GST_BIN(pipeline), sink);
	gst_element_sync_state_with_parent(sink);
	GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
}

struct watch {
	int out;
	/* Leave (status 0) as soon as this element is plugged. */
	const char *leave_on;
};

static void
element_added_cb(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data)
{
	const struct watch *watch = data;
	GstElementFactory *factory = gst_element_get_factory(element);
	if (!factory)
		return;
	const char *name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
	char key[96];
	g_snprintf(key, sizeof(key), "plugged-%s", name);
	child_report(watch->out, key, 1);
	if (watch->leave_on && strcmp(name, watch->leave_on) == 0)
		_exit(0);
}

/*
 * Child: plays @name from @dir with filesrc ! decodebin ! fakesinks;
 * reports NAME (0 at EOS, 1000 for a missing-plugin error, 2000 + the
 * code of another error, ETIMEDOUT) and NAME-missing (a
 * missing-plugin message was posted).
 */
static void
play(int out, const char *dir, const char *name, const struct watch *watch)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	GstElement *pipeline = gst_pipeline_new(NULL);
	GstElement *source = gst_element_factory_make("filesrc", NULL);
	GstElement *decodebin = gst_element_factory_make("decodebin", NULL);
	g_assert_nonnull(source);
	g_assert_nonnull(decodebin);
	g_object_set(source, "location", path, NULL);
	gst_bin_add_many(GST_BIN(pipeline), source, decodebin, NULL);
	g_assert_true(gst_element_link(source, decodebin));
	g_signal_connect(decodebin, "pad-added", G_CALLBACK(pad_added_cb), pipeline);
	g_signal_connect(pipeline, "deep-element-added", G_CALLBACK(element_added_cb),
		(gpointer)watch);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstBus *bus = gst_element_get_bus(pipeline);
	long code = -1;
	bool missing = false;
	while (code < 0) {
		GstMessage *message = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
			GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
		if (!message) {
			code = ETIMEDOUT;
			break;
		}
		const GstStructure *s = gst_message_get_structure(message);
		if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS) {
			code = 0;
		} else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
			GError *error = NULL;
			gst_message_parse_error(message, &error, NULL);
			g_printerr("%s: %s\n", name, error->message);
			code = error->domain == GST_CORE_ERROR &&
				error->code == GST_CORE_ERROR_MISSING_PLUGIN ? 1000 :
				2000 + error->code;
			g_error_free(error);
		} else if (s && gst_structure_has_name(s, "missing-plugin")) {
			missing = true;
		}
		gst_message_unref(message);
	}
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	child_report(out, name, code);
	char key[96];
	g_snprintf(key, sizeof(key), "%s-missing", name);
	child_report(out, key, missing);
}

/* What the clips hold: every container and codec umms's tests play. */
static const char *const played[] = { "av.mkv", "av.mp4", "av.ts", "vp9.webm", "audio.ogg" };

static void
gst_play_child(int out, const void *data)
{
	gst_init(NULL, NULL);
	GError *error = NULL;
	if (!umms_sandbox_rank_plugins(NULL, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	child_enter(out, child_default_policy);
	struct watch watch = { .out = out };
	for (size_t i = 0; i < G_N_ELEMENTS(played); i++)
		play(out, clips_dir, played[i], &watch);
}

static void
test_gst_play(void)
{
	g_assert_nonnull(clips_dir);
	g_autoptr(GHashTable) r = child_run(gst_play_child, NULL, 120);
	for (size_t i = 0; i < G_N_ELEMENTS(played); i++)
		g_assert_cmpint(child_value(r, played[i]), ==, 0);
	/* Decoded, not merely demuxed. */
	EXPECT(r,
		{ "plugged-avdec_h264", 1 }, { "plugged-opusdec", 1 },
		{ "plugged-vp9dec", 1 });
}

/* An 18-byte file typefound as audio/x-voc, on which avdemux_voc spins. */
static const char voc[] = "Creative Voice Fil";

static void
gst_voc_child(int out, const void *data)
{
	bool ranked = *(const bool *)data;
	gst_init(NULL, NULL);
	GError *error = NULL;
	if (ranked && !umms_sandbox_rank_plugins(NULL, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	/* The CPU limit ends a spinning control child for sure. */
	struct umms_sandbox_policy policy = child_default_policy;
	policy.cpu_seconds = 10;
	child_enter(out, policy);
	struct watch watch = { .out = out, .leave_on = ranked ? NULL : "avdemux_voc" };
	play(out, tmpdir, "voice.voc", &watch);
}

static void
test_gst_excluded(void)
{
	g_autofree char *path = g_build_filename(tmpdir, "voice.voc", NULL);
	g_assert_cmpuint(strlen(voc), ==, 18);
	g_assert_true(g_file_set_contents(path, voc, 18, NULL));
	/* Without the ranks, decodebin plugs avdemux_voc. */
	bool ranked = false;
	g_autoptr(GHashTable) control = child_run(gst_voc_child, &ranked, 60);
	g_assert_cmpint(child_value(control, "plugged-avdemux_voc"), ==, 1);
	/* With them, nothing takes the file: a missing plugin, at once. */
	ranked = true;
	gint64 start = g_get_monotonic_time();
	g_autoptr(GHashTable) r = child_run(gst_voc_child, &ranked, 60);
	g_assert_false(g_hash_table_contains(r, "plugged-avdemux_voc"));
	g_assert_cmpint(child_value(r, "voice.voc"), ==, 1000);
	g_assert_cmpint(child_value(r, "voice.voc-missing"), ==, 1);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 30 * G_USEC_PER_SEC);
}

/* Child: ranks and registry entries after umms_sandbox_rank_plugins(). */
static void
gst_ranks_child(int out, const void *data)
{
	gst_init(NULL, NULL);
	static const char *const extra[] = { "rtpxqtdepay", NULL };
	GError *error = NULL;
	if (!umms_sandbox_rank_plugins(extra, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	/* Loading the plugins of removed sources must not bring them back. */
	static const char *const made[] = { "fakesink", "giosink" };
	for (size_t i = 0; i < G_N_ELEMENTS(made); i++) {
		GstElement *element = gst_element_factory_make(made[i], NULL);
		child_report(out, made[i], element != NULL);
		if (element)
			gst_object_unref(gst_object_ref_sink(element));
	}
	static const char *const names[] = {
		"avdemux_voc", "avdec_h264", "qtdemux", "rtpxqtdepay", "rtpsv3vdepay",
		"filesrc", "giosrc", "fdsrc",
	};
	GstRegistry *registry = gst_registry_get();
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GstPluginFeature *feature = gst_registry_lookup_feature(registry, names[i]);
		child_report(out, names[i], feature ? (long)gst_plugin_feature_get_rank(feature) : -1);
		if (feature)
			gst_object_unref(feature);
	}
	child_report(out, "file-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "file"));
	child_report(out, "resource-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "resource"));
	child_report(out, "fd-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "fd"));
}

static void
test_gst_ranks(void)
{
	g_autoptr(GHashTable) r = child_run(gst_ranks_child, NULL, 60);
	g_assert_cmpint(child_value(r, "avdemux_voc"), ==, GST_RANK_NONE);
	g_assert_cmpint(child_value(r, "rtpsv3vdepay"), ==, GST_RANK_NONE);
	g_assert_cmpint(child_value(r, "avdec_h264"), >, GST_RANK_NONE);
	g_assert_cmpint(child_value(r, "qtdemux"), >, GST_RANK_NONE);
	/* Added by the caller. */
	g_assert_cmpint(child_value(r, "rtpxqtdepay"), >, GST_RANK_NONE);
	/* A URI source outside the list is gone, and with it its schemes. */
	g_assert_cmpint(child_value(r, "filesrc"), >, GST_RANK_NONE);
	EXPECT(r,
		{ "giosrc", -1 }, { "file-scheme", 1 }, { "resource-scheme", 0 },
		/* fdsrc shares its plugin with filesrc, giosrc with giosink. */
		{ "fakesink", 1 }, { "giosink", 1 }, { "fdsrc", -1 }, { "fd-scheme", 0 });
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	GError *error = NULL;
	tmpdir = g_dir_make_tmp("umms-sandbox-gst-XXXXXX", &error);
	g_assert_no_error(error);
	clips_dir = g_getenv("UMMS_TEST_CLIPS");
	g_test_add_func("/sandbox/gstreamer/play", test_gst_play);
	g_test_add_func("/sandbox/gstreamer/excluded-demuxer", test_gst_excluded);
	g_test_add_func("/sandbox/gstreamer/ranks", test_gst_ranks);
	int ret = g_test_run();
	g_autofree char *voc_path = g_build_filename(tmpdir, "voice.voc", NULL);
	g_unlink(voc_path);
	g_rmdir(tmpdir);
	g_free(tmpdir);
	return ret;
}
