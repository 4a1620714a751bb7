/*
 * The harness's readers of recordings and of worker processes
 * (umms_test_recording_*, umms_test_proc_status, harness.h), shared by the
 * recorder, capture, recorder-worker and worker-sandbox tests.
 */
#include <string.h>
#include <gst/gst.h>
#include <gst/pbutils/pbutils.h>

#include "harness.h"

#define RECORDING1 "org.umms.Recording1"

char *
umms_test_recording_string(struct umms_test *t, const char *path, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, property);
	return g_variant_dup_string(v, NULL);
}

void
umms_test_recording_wait(struct umms_test *t, const char *path, const char *state,
	unsigned ms)
{
	/*
	 * By the clock, not by the number of naps: in the emulated VM a
	 * D-Bus round trip can take longer than the nap itself. The count
	 * bounds it too, should that clock stall (umms_test_sleep).
	 */
	gint64 begun = g_get_monotonic_time(), end = begun + (gint64)ms * 1000;
	unsigned polls = 0;
	do {
		g_autofree char *now = umms_test_recording_string(t, path, "State");
		polls++;
		if (strcmp(now, state) == 0)
			return;
		umms_test_sleep(50);
	} while (g_get_monotonic_time() < end && polls < ms / 10);
	g_autofree char *now = umms_test_recording_string(t, path, "State");
	g_autofree char *error = umms_test_recording_string(t, path, "Error");
	g_error("%s stayed %s (%s), never %s, over %.1f s (%u polls)", path, now, error, state,
		(g_get_monotonic_time() - begun) / 1e6, polls);
}

char *
umms_test_proc_status(pid_t pid, const char *field)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/status", (int)pid);
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_autofree char *key = g_strdup_printf("\n%s:", field);
	const char *at = strstr(text, key);
	g_assert_nonnull(at);
	at += strlen(key);
	while (*at == ' ' || *at == '\t')
		at++;
	return g_strndup(at, strcspn(at, "\n"));
}

GError *
umms_test_decode(const char *description, GstPadProbeCallback probe, void *data)
{
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	g_assert_nonnull(sink);
	GstPad *pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, probe, data, NULL);
	gst_object_unref(pad);
	gst_object_unref(sink);
	GstBus *bus = gst_element_get_bus(pipeline);
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	GstMessage *end = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND,
		GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	g_assert_nonnull(end);
	GError *why = NULL;
	if (GST_MESSAGE_TYPE(end) == GST_MESSAGE_ERROR)
		gst_message_parse_error(end, &why, NULL);
	gst_message_unref(end);
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	return why;
}

GstDiscovererInfo *
umms_test_discover(const char *file, unsigned timeout_s)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GstDiscoverer) discoverer = gst_discoverer_new(timeout_s * GST_SECOND, &error);
	g_assert_no_error(error);
	g_autofree char *uri = gst_filename_to_uri(file, NULL);
	GstDiscovererInfo *info = gst_discoverer_discover_uri(discoverer, uri, &error);
	g_assert_no_error(error);
	return info;
}
