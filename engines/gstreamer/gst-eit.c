/* EIT sections read on a demuxer's input, handed to the main loop (gst-eit.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "gst-eit.h"
#include "log.h"

struct gst_eit {
	GMutex lock;
	GMainContext *context;
	gst_eit_fn fn;                /* NULL once closed */
	void *data;
	GQueue pending;               /* struct umms_eit * (lock) */
	bool wake;                    /* a drain is on its way (lock) */
	bool full_logged;
};

static void
eit_free(gpointer data)
{
	struct gst_eit *eit = data;
	struct umms_eit *section;
	while ((section = g_queue_pop_head(&eit->pending))) {
		umms_eit_clear(section);
		g_free(section);
	}
	g_main_context_unref(eit->context);
	g_mutex_clear(&eit->lock);
}

static void
eit_unref(gpointer data)
{
	g_atomic_rc_box_release_full(data, eit_free);
}

struct gst_eit *
gst_eit_new(gst_eit_fn fn, void *data)
{
	struct gst_eit *eit = g_atomic_rc_box_new0(struct gst_eit);
	g_mutex_init(&eit->lock);
	eit->context = g_main_context_ref_thread_default();
	eit->fn = fn;
	eit->data = data;
	return eit;
}

void
gst_eit_close(struct gst_eit *eit)
{
	if (!eit)
		return;
	g_mutex_lock(&eit->lock);
	eit->fn = NULL;
	g_mutex_unlock(&eit->lock);
	eit_unref(eit);
}

/* Main loop: what the streaming threads queued, told. */
static gboolean
drain(gpointer data)
{
	struct gst_eit *eit = data;
	g_mutex_lock(&eit->lock);
	GQueue taken = eit->pending;
	g_queue_init(&eit->pending);
	eit->wake = false;
	g_mutex_unlock(&eit->lock);
	struct umms_eit *section;
	while ((section = g_queue_pop_head(&taken))) {
		/* fn is set and cleared on this thread only. */
		if (eit->fn)
			eit->fn(section, eit->data);
		umms_eit_clear(section);
		g_free(section);
	}
	return G_SOURCE_REMOVE;
}

/* Streaming thread: a new section from the reader. */
static bool
take_section(struct umms_eit *section, void *data)
{
	struct gst_eit *eit = data;
	g_mutex_lock(&eit->lock);
	if (!eit->fn || eit->pending.length >= GST_EIT_MAX_PENDING) {
		if (eit->fn && !eit->full_logged)
			umms_info("EIT: %d sections wait for the main loop; more wait for their "
				"next repetition", GST_EIT_MAX_PENDING);
		eit->full_logged = eit->fn != NULL;
		g_mutex_unlock(&eit->lock);
		return false;
	}
	g_queue_push_tail(&eit->pending, g_memdup2(section, sizeof(*section)));
	bool wake = !eit->wake;
	eit->wake = true;
	g_mutex_unlock(&eit->lock);
	if (wake)
		g_main_context_invoke_full(eit->context, G_PRIORITY_DEFAULT, drain,
			g_atomic_rc_box_acquire(eit), eit_unref);
	return true;
}

/* One pad's reader (a demuxer's input). */
struct watch {
	struct gst_eit *eit;          /* a reference */
	struct umms_eit_reader *reader;
};

static void
watch_free(gpointer data)
{
	struct watch *watch = data;
	umms_eit_reader_destroy(watch->reader);
	eit_unref(watch->eit);
	g_free(watch);
}

static void
feed(struct watch *watch, GstBuffer *buffer)
{
	GstMapInfo map;
	if (!buffer || !gst_buffer_map(buffer, &map, GST_MAP_READ))
		return;
	umms_eit_reader_feed(watch->reader, map.data, map.size);
	gst_buffer_unmap(buffer, &map);
}

static GstPadProbeReturn
buffer_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct watch *watch = data;
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
		GstBufferList *list = GST_PAD_PROBE_INFO_BUFFER_LIST(info);
		for (guint i = 0; list && i < gst_buffer_list_length(list); i++)
			feed(watch, gst_buffer_list_get(list, i));
	} else {
		feed(watch, GST_PAD_PROBE_INFO_BUFFER(info));
	}
	return GST_PAD_PROBE_OK;
}

void
gst_eit_watch_pad(struct gst_eit *eit, GstPad *pad)
{
	struct watch *watch = g_new0(struct watch, 1);
	watch->eit = g_atomic_rc_box_acquire(eit);
	watch->reader = umms_eit_reader_create(take_section, eit);
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
		buffer_probe, watch, watch_free);
}
