/* The tests' live channel with an EIT carousel (eit-live.h). */
#include <string.h>

#include "eit-gen.h"
#include "eit-live.h"
#include "harness.h"

/* The muxer's output (buffer lists, 1.22's mpegtsmux): one EIT packet added to every third. */
static GstPadProbeReturn
inject_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct eit_live *live = data;
	if (live->buffers++ % 3 != 0)
		return GST_PAD_PROBE_OK;
	g_mutex_lock(&live->lock);
	size_t n = live->packets->len / EIT_GEN_PACKET;
	if (n == 0) {
		g_mutex_unlock(&live->lock);
		return GST_PAD_PROBE_OK;   /* no EIT in this stream (yet) */
	}
	uint8_t *packet = g_malloc(EIT_GEN_PACKET);
	memcpy(packet, live->packets->data + (live->next % n) * EIT_GEN_PACKET, EIT_GEN_PACKET);
	live->next = (live->next + 1) % n;
	packet[3] = (uint8_t)((packet[3] & 0xf0) | live->cc);
	live->cc = (live->cc + 1) & 0x0f;
	g_mutex_unlock(&live->lock);
	GstBuffer *eit = gst_buffer_new_wrapped(packet, EIT_GEN_PACKET);
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
		GstBufferList *list = gst_buffer_list_make_writable(
			GST_PAD_PROBE_INFO_BUFFER_LIST(info));
		gst_buffer_list_add(list, eit);
		GST_PAD_PROBE_INFO_DATA(info) = list;
	} else {
		GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
		gst_buffer_append(buffer, eit);
		GST_PAD_PROBE_INFO_DATA(info) = buffer;
	}
	return GST_PAD_PROBE_OK;
}

void
eit_live_set(struct eit_live *live, const GByteArray *packets)
{
	g_mutex_lock(&live->lock);
	g_byte_array_set_size(live->packets, 0);
	g_byte_array_append(live->packets, packets->data, packets->len);
	live->next = 0;
	g_mutex_unlock(&live->lock);
}

void
eit_live_start(struct eit_live *live, const GByteArray *packets, bool audio)
{
	*live = (struct eit_live){ .packets = g_byte_array_new() };
	g_mutex_init(&live->lock);
	eit_live_set(live, packets);
	int port = umms_test_free_udp_port();
	/* Six packets a datagram (1128 bytes), the EIT's in datagrams of their own. */
	g_autofree char *description = g_strdup_printf(
		"videotestsrc is-live=true ! "
		"video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
		"x264enc tune=zerolatency key-int-max=5 speed-preset=ultrafast ! h264parse ! "
		"queue ! mpegtsmux name=mux alignment=6 ! udpsink host=127.0.0.1 port=%d %s", port,
		audio ? "audiotestsrc is-live=true ! audio/x-raw,channels=2,rate=48000 ! "
		"avenc_aac ! aacparse ! queue ! mux." : "");
	GError *error = NULL;
	live->pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	GstElement *mux = gst_bin_get_by_name(GST_BIN(live->pipeline), "mux");
	GstPad *src = gst_element_get_static_pad(mux, "src");
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
		inject_probe, live, NULL);
	gst_object_unref(src);
	gst_object_unref(mux);
	g_assert_cmpint(gst_element_set_state(live->pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	live->uri = g_strdup_printf("udp://127.0.0.1:%d", port);
}

void
eit_live_stop(struct eit_live *live)
{
	gst_element_set_state(live->pipeline, GST_STATE_NULL);
	gst_object_unref(live->pipeline);
	g_byte_array_unref(live->packets);
	g_mutex_clear(&live->lock);
	g_free(live->uri);
}
