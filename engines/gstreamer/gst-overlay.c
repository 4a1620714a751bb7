/*
 * Subtitles a stream carries (text, SSA/ASS, DVB…), rendered by playbin's
 * own subtitleoverlay (textoverlay, assrender, dvbsuboverlay) into
 * GstVideoOverlayComposition metas rather than into the picture, and
 * turned here into one subpicture per rendering. DVD and Blu-ray bitmaps
 * are not: dvdspu (GStreamer 1.22) could only blend them into the
 * picture, so they are decoded and drawn from cues (gst-cues.c) and
 * dvdspu never gets them (gst-spu.c).
 *
 * A renderer attaches its composition only when downstream accepts the
 * caps feature meta:GstVideoOverlayComposition and lists the meta in its
 * ALLOCATION answer; otherwise it blends into the picture. Between the
 * overlay and our sink playsink converts the picture into the client's
 * format (its vconv), and a converter neither offers that caps feature
 * nor converts with it: left alone, every renderer blends. So a probe on
 * each renderer's output answers for the converter: the feature is
 * accepted wherever the same caps without it are, the caps event going
 * downstream loses it again, and the ALLOCATION answer lists the meta. The
 * composition rides on the buffer through the conversion (converters
 * copy metas they have no reason to drop) and reaches deliver().
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/video/video.h>

#include "gst-private.h"
#include "log.h"
#include "subpicture.h"

static bool
has_overlay_feature(const GstCaps *caps)
{
	for (guint i = 0; caps && i < gst_caps_get_size(caps); i++) {
		GstCapsFeatures *features = gst_caps_get_features(caps, i);
		if (features && !gst_caps_features_is_any(features) &&
				gst_caps_features_contains(features,
				GST_CAPS_FEATURE_META_GST_VIDEO_OVERLAY_COMPOSITION))
			return true;
	}
	return false;
}

/* @caps without the overlay feature. */
static GstCaps *
without_overlay_feature(const GstCaps *caps)
{
	GstCaps *copy = gst_caps_copy(caps);
	for (guint i = 0; i < gst_caps_get_size(copy); i++) {
		GstCapsFeatures *features = gst_caps_get_features(copy, i);
		if (features && !gst_caps_features_is_any(features))
			gst_caps_features_remove(features,
				GST_CAPS_FEATURE_META_GST_VIDEO_OVERLAY_COMPOSITION);
	}
	return copy;
}

/* @caps, and each of its system memory structures again with the overlay feature. */
static GstCaps *
with_overlay_feature(GstCaps *caps)
{
	GstCaps *extra = gst_caps_new_empty();
	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		GstCapsFeatures *features = gst_caps_get_features(caps, i);
		if (!features || !gst_caps_features_is_equal(features,
				GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))
			continue;
		gst_caps_append_structure_full(extra,
			gst_structure_copy(gst_caps_get_structure(caps, i)),
			gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY,
				GST_CAPS_FEATURE_META_GST_VIDEO_OVERLAY_COMPOSITION, NULL));
	}
	return gst_caps_merge(caps, extra);
}

/* The renderer asks what downstream takes with the feature: what it takes without. */
static bool
answer_caps(GstPad *pad, GstQuery *query)
{
	GstCaps *filter = NULL;
	gst_query_parse_caps(query, &filter);
	/* Some (assrender) ask without a filter and look for the feature in the answer. */
	if (filter && !has_overlay_feature(filter))
		return false;
	GstPad *peer = gst_pad_get_peer(pad);
	if (!peer)
		return false;
	GstCaps *plain = filter ? without_overlay_feature(filter) : NULL;
	GstCaps *result = with_overlay_feature(gst_pad_query_caps(peer, plain));
	if (plain)
		gst_caps_unref(plain);
	gst_object_unref(peer);
	if (filter) {
		GstCaps *filtered = gst_caps_intersect_full(filter, result,
			GST_CAPS_INTERSECT_FIRST);
		gst_caps_unref(result);
		result = filtered;
	}
	gst_query_set_caps_result(query, result);
	gst_caps_unref(result);
	return true;
}

static bool
answer_accept_caps(GstPad *pad, GstQuery *query)
{
	GstCaps *caps = NULL;
	gst_query_parse_accept_caps(query, &caps);
	if (!caps || !has_overlay_feature(caps))
		return false;
	GstPad *peer = gst_pad_get_peer(pad);
	if (!peer)
		return false;
	GstCaps *plain = without_overlay_feature(caps);
	gst_query_set_accept_caps_result(query, gst_pad_query_accept_caps(peer, plain));
	gst_caps_unref(plain);
	gst_object_unref(peer);
	return true;
}

/* Streaming thread: on a renderer's output, see the top of the file. */
static GstPadProbeReturn
renderer_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
		GstEvent *event = GST_PAD_PROBE_INFO_EVENT(info);
		GstCaps *caps = NULL;
		if (GST_EVENT_TYPE(event) != GST_EVENT_CAPS)
			return GST_PAD_PROBE_OK;
		gst_event_parse_caps(event, &caps);
		/* The picture its overlays are placed on, before any scaling. */
		GstVideoInfo video;
		if (gst_video_info_from_caps(&video, caps)) {
			g_mutex_lock(&engine->lock);
			engine->overlay_cache.width = GST_VIDEO_INFO_WIDTH(&video);
			engine->overlay_cache.height = GST_VIDEO_INFO_HEIGHT(&video);
			g_mutex_unlock(&engine->lock);
		}
		if (!has_overlay_feature(caps))
			return GST_PAD_PROBE_OK;
		gst_support_replace_caps_event(info, without_overlay_feature(caps));
		return GST_PAD_PROBE_OK;
	}
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
	bool reply = info->type & GST_PAD_PROBE_TYPE_PULL;
	switch (GST_QUERY_TYPE(query)) {
	case GST_QUERY_CAPS:
		return !reply && answer_caps(pad, query) ? GST_PAD_PROBE_HANDLED : GST_PAD_PROBE_OK;
	case GST_QUERY_ACCEPT_CAPS:
		return !reply && answer_accept_caps(pad, query) ?
			GST_PAD_PROBE_HANDLED : GST_PAD_PROBE_OK;
	case GST_QUERY_ALLOCATION: {
		GstCaps *caps = NULL;
		gboolean need_pool = FALSE;
		gst_query_parse_allocation(query, &caps, &need_pool);
		if (reply && has_overlay_feature(caps) && !gst_query_find_allocation_meta(query,
				GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL))
			gst_query_add_allocation_meta(query,
				GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
		return GST_PAD_PROBE_OK;
	}
	default:
		return GST_PAD_PROBE_OK;
	}
}

static bool
factory_is(GstElement *element, const char *name)
{
	GstElementFactory *factory = element ? gst_element_get_factory(element) : NULL;
	return factory && strcmp(gst_plugin_feature_get_name(factory), name) == 0;
}

/*
 * After a flushing seek, a renderer that has a video frame before its
 * subtitle stream's new segment still goes by the segment before the seek:
 * it takes the subtitle stream to be ahead of the frame, does not wait for
 * its cue and sends the frame bare, and paused, that frame stays (about one
 * seek into a cue in two). The first frame after a flush waits (up to
 * SYNC_WAIT_US) until the renderer has the subtitle stream's segment: until
 * something after it comes down the subtitle stream (a probe sees an event
 * before the renderer does; the next one, once the renderer is done with it).
 *
 * That next one is seen before the renderer has it too: a cue's buffer
 * right after the segment (a seek back into a cue) set "ready" while
 * assrender had not queued it yet, and assrender (wait-text false by
 * default, unlike textoverlay) then sent the frame bare: about one such
 * seek in thirty on a loaded machine. So the frame also waits (up to
 * SYNC_DONE_US) for the subtitle stream's thread to let go of the pad's
 * stream lock, which it holds until the renderer is done with what it
 * passed: from then on the renderer has the cue.
 */
#define SYNC_WAIT_US (1000 * 1000)
#define SYNC_DONE_US (100 * 1000)

struct overlay_sync {
	GMutex lock;
	GCond cond;
	GstPad *text;        /* the overlay's subtitle input */
	bool flushing;       /* between flush-start and flush-stop of the video */
	bool video_flushed;  /* no frame since the video's flush-stop */
	bool text_segment;   /* the subtitle stream's segment came since its flush-stop */
	bool text_ready;     /* and the renderer has it: something came after it */
};

static void
sync_free(gpointer data)
{
	struct overlay_sync *sync = data;
	gst_object_unref(sync->text);
	g_mutex_clear(&sync->lock);
	g_cond_clear(&sync->cond);
	g_free(sync);
}

static GstPadProbeReturn
sync_text_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct overlay_sync *sync = data;
	GstEventType type = info->type & GST_PAD_PROBE_TYPE_BUFFER ? GST_EVENT_UNKNOWN :
		GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
	g_mutex_lock(&sync->lock);
	if (type == GST_EVENT_FLUSH_STOP)
		sync->text_segment = sync->text_ready = false;
	else if (type == GST_EVENT_SEGMENT)
		sync->text_segment = true;
	else if (sync->text_segment || type == GST_EVENT_EOS)
		sync->text_ready = true;
	g_cond_broadcast(&sync->cond);
	g_mutex_unlock(&sync->lock);
	return GST_PAD_PROBE_OK;
}

/*
 * Until the subtitle stream's thread is out of @text's chain or event
 * function (its stream lock free), at most SYNC_DONE_US: a renderer that
 * waits for the video itself (textoverlay) may hold it until it does.
 */
static void
wait_text_done(GstPad *text)
{
	gint64 until = g_get_monotonic_time() + SYNC_DONE_US;
	while (!g_rec_mutex_trylock(GST_PAD_GET_STREAM_LOCK(text))) {
		if (g_get_monotonic_time() >= until)
			return;
		g_usleep(1000);
	}
	GST_PAD_STREAM_UNLOCK(text);
}

static GstPadProbeReturn
sync_video_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct overlay_sync *sync = data;
	g_mutex_lock(&sync->lock);
	if (!(info->type & GST_PAD_PROBE_TYPE_BUFFER)) {
		GstEventType type = GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info));
		if (type == GST_EVENT_FLUSH_START)
			sync->flushing = true;
		else if (type == GST_EVENT_FLUSH_STOP)
			sync->flushing = false, sync->video_flushed = true;
		g_cond_broadcast(&sync->cond);
	} else if (sync->video_flushed) {
		gint64 until = g_get_monotonic_time() + SYNC_WAIT_US;
		while (!sync->text_ready && !sync->flushing &&
				g_cond_wait_until(&sync->cond, &sync->lock, until))
			;
		sync->video_flushed = false;
		bool ready = sync->text_ready && !sync->flushing;
		g_mutex_unlock(&sync->lock);
		if (ready)
			wait_text_done(sync->text);
		return GST_PAD_PROBE_OK;
	}
	g_mutex_unlock(&sync->lock);
	return GST_PAD_PROBE_OK;
}

static void
sync_streams(GstElement *overlay)
{
	GstPad *video = gst_element_get_static_pad(overlay, "video_sink");
	GstPad *text = gst_element_get_static_pad(overlay, "subtitle_sink");
	if (video && text) {
		struct overlay_sync *sync = g_new0(struct overlay_sync, 1);
		g_mutex_init(&sync->lock);
		g_cond_init(&sync->cond);
		sync->text_segment = sync->text_ready = true;
		sync->text = gst_object_ref(text);
		g_object_set_data_full(G_OBJECT(overlay), "umms-overlay-sync", sync, sync_free);
		gst_pad_add_probe(text, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
			GST_PAD_PROBE_TYPE_EVENT_FLUSH | GST_PAD_PROBE_TYPE_BUFFER, sync_text_probe,
			sync, NULL);
		gst_pad_add_probe(video, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
			GST_PAD_PROBE_TYPE_EVENT_FLUSH | GST_PAD_PROBE_TYPE_BUFFER,
			sync_video_probe, sync, NULL);
	}
	if (video)
		gst_object_unref(video);
	if (text)
		gst_object_unref(text);
}

static void
apply_shown(struct gst_engine *engine, GstElement *overlay)
{
	g_mutex_lock(&engine->lock);
	bool shown = engine->stream_subtitles_shown;
	g_mutex_unlock(&engine->lock);
	g_object_set(overlay, "silent", !shown, NULL);
}

/* Main loop: @fn on each subtitleoverlay of the pipeline. */
static void
each_overlay(struct gst_engine *engine, void (*fn)(struct gst_engine *, GstElement *))
{
	GstIterator *it = gst_bin_iterate_recurse(GST_BIN(engine->pipeline));
	GValue item = G_VALUE_INIT;
	while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
		GstElement *element = g_value_get_object(&item);
		if (factory_is(element, "subtitleoverlay"))
			fn(engine, element);
		g_value_reset(&item);
	}
	g_value_unset(&item);
	gst_iterator_free(it);
}

void
gst_overlay_element_added(struct gst_engine *engine, GstElement *element)
{
	if (factory_is(element, "subtitleoverlay")) {
		apply_shown(engine, element);
		/* First: what it drops (sent already) is not the renderer's either. */
		gst_delay_watch_overlay(engine, element);
		sync_streams(element);
		gst_spu_watch(element);
		return;
	}
	GstObject *parent = gst_object_get_parent(GST_OBJECT(element));
	bool inside = parent && GST_IS_ELEMENT(parent) && factory_is(GST_ELEMENT(parent),
		"subtitleoverlay");
	if (parent)
		gst_object_unref(parent);
	/* Renderers take video in: converters, queues and parsers around them do not matter. */
	if (!inside || factory_is(element, "videoconvert") || factory_is(element, "queue") ||
			factory_is(element, "identity"))
		return;
	GstPad *src = gst_element_get_static_pad(element, "src");
	if (!src)
		return;
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM |
		GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, renderer_probe, engine, NULL);
	gst_object_unref(src);
	umms_debug("subtitle renderer %s attaches its overlays", GST_ELEMENT_NAME(element));
}

void
gst_overlay_set_shown(struct gst_engine *engine, bool shown)
{
	g_mutex_lock(&engine->lock);
	bool changed = engine->stream_subtitles_shown != shown;
	engine->stream_subtitles_shown = shown;
	g_mutex_unlock(&engine->lock);
	if (!changed || !engine->pipeline)
		return;
	gst_video_refresh(engine);
	umms_debug("the stream's own subtitles are %s", shown ? "shown" : "hidden");
	each_overlay(engine, apply_shown);
}

/*
 * Streaming thread: a buffer into playbin's text selector. GStreamer
 * 1.22's input-selector forgets to send on the caps of the pad it switched
 * to when a flush (a seek) follows the switch, as when a track is chosen
 * while paused: the overlay would take an SSA/ASS track for plain text (and
 * show its markup) or a text track for SSA/ASS. The active pad's caps go
 * first, when they are not the ones downstream has.
 */
static GstPadProbeReturn
text_pad_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	GstElement *selector = gst_pad_get_parent_element(pad);
	if (!selector)
		return GST_PAD_PROBE_OK;
	GstPad *active = NULL;
	g_object_get(selector, "active-pad", &active, NULL);
	GstPad *src = gst_element_get_static_pad(selector, "src");
	if (active == pad && src) {
		GstCaps *mine = gst_pad_get_current_caps(pad);
		GstCaps *sent = gst_pad_get_current_caps(src);
		if (mine && (!sent || !gst_caps_is_equal(mine, sent))) {
			g_autofree char *text = gst_caps_to_string(mine);
			umms_debug("subtitles: %s after the switch", text);
			gst_pad_push_event(src, gst_event_new_caps(mine));
		}
		if (mine)
			gst_caps_unref(mine);
		if (sent)
			gst_caps_unref(sent);
	}
	if (src)
		gst_object_unref(src);
	if (active)
		gst_object_unref(active);
	gst_object_unref(selector);
	return GST_PAD_PROBE_OK;
}

static GQuark
probed_quark(void)
{
	static GQuark quark;
	if (!quark)
		quark = g_quark_from_static_string("umms-text-pad-probed");
	return quark;
}

void
gst_overlay_watch_text_pads(struct gst_engine *engine, int n)
{
	for (int i = 0; i < n; i++) {
		GstPad *pad = NULL;
		g_signal_emit_by_name(engine->pipeline, "get-text-pad", i, &pad);
		if (!pad)
			continue;
		if (!g_object_get_qdata(G_OBJECT(pad), probed_quark())) {
			g_object_set_qdata(G_OBJECT(pad), probed_quark(), GINT_TO_POINTER(1));
			gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, text_pad_probe, NULL, NULL);
		}
		gst_object_unref(pad);
	}
}

/* ---- compositions into subpictures --------------------------------------- */

/* Premultiplied @src OVER @dst, both B, G, R, A bytes. */
static void
blend_row(uint8_t *dst, const uint8_t *src, int width)
{
	for (int x = 0; x < width; x++, dst += 4, src += 4) {
		unsigned keep = 255u - src[3];
		if (keep == 255u)
			continue;
		for (int c = 0; c < 4; c++)
			dst[c] = (uint8_t)(src[c] + (dst[c] * keep + 127u) / 255u);
	}
}

static void
draw_rectangle(struct umms_subpicture *subpicture, GstVideoOverlayRectangle *rectangle,
	int x, int y)
{
	GstBuffer *pixels = gst_video_overlay_rectangle_get_pixels_argb(rectangle,
		GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA);
	GstVideoMeta *meta = pixels ? gst_buffer_get_video_meta(pixels) : NULL;
	GstMapInfo map;
	if (!meta || !gst_buffer_map(pixels, &map, GST_MAP_READ))
		return;
	int width = (int)meta->width, height = (int)meta->height;
	size_t stride = (size_t)meta->stride[0];
	if (stride >= (size_t)width * 4 && meta->offset[0] + stride * (size_t)height <= map.size) {
		/* Only what lies inside the image. */
		int x0 = MAX(0, -x), y0 = MAX(0, -y);
		int x1 = MIN(width, subpicture->width - x), y1 = MIN(height, subpicture->height - y);
		for (int row = y0; row < y1 && x0 < x1; row++) {
			uint8_t *dst = (uint8_t *)subpicture->data +
				(size_t)(y + row) * subpicture->stride + (size_t)(x + x0) * 4;
			const uint8_t *src = map.data + meta->offset[0] + (size_t)row * stride +
				(size_t)x0 * 4;
			blend_row(dst, src, x1 - x0);
		}
	}
	gst_buffer_unmap(pixels, &map);
}

/*
 * One image of every rectangle of @composition, over the bounding box of
 * their render rectangles clipped to the picture (@crop: x, y, width,
 * height of the picture in the frame the overlays were placed on).
 */
static struct umms_subpicture *
render(GstVideoOverlayComposition *composition, const int crop[4])
{
	guint n = gst_video_overlay_composition_n_rectangles(composition);
	int left = G_MAXINT, top = G_MAXINT, right = G_MININT, bottom = G_MININT;
	for (guint i = 0; i < n; i++) {
		gint x, y;
		guint w, h;
		if (!gst_video_overlay_rectangle_get_render_rectangle(
				gst_video_overlay_composition_get_rectangle(composition, i),
				&x, &y, &w, &h) || w == 0 || h == 0)
			continue;
		left = MIN(left, MAX(x, crop[0]));
		top = MIN(top, MAX(y, crop[1]));
		right = MAX(right, (int)MIN((gint64)x + w, (gint64)crop[0] + crop[2]));
		bottom = MAX(bottom, (int)MIN((gint64)y + h, (gint64)crop[1] + crop[3]));
	}
	if (right <= left || bottom <= top)
		return NULL;
	GError *error = NULL;
	struct umms_subpicture *subpicture = umms_subpicture_create(right - left, bottom - top,
		crop[2], crop[3], &error);
	if (!subpicture) {
		umms_warn("subtitles: %s", error->message);
		g_error_free(error);
		return NULL;
	}
	subpicture->x = left - crop[0];
	subpicture->y = top - crop[1];
	for (guint i = 0; i < n; i++) {
		GstVideoOverlayRectangle *rectangle =
			gst_video_overlay_composition_get_rectangle(composition, i);
		gint x, y;
		guint w, h;
		if (gst_video_overlay_rectangle_get_render_rectangle(rectangle, &x, &y, &w, &h) &&
				w > 0 && h > 0)
			draw_rectangle(subpicture, rectangle, x - left, y - top);
	}
	if (!umms_subpicture_seal(subpicture, &error)) {
		umms_warn("subtitles: %s", error->message);
		g_error_free(error);
		umms_subpicture_unref(subpicture);
		return NULL;
	}
	return subpicture;
}

struct umms_subpicture *
gst_overlay_subpicture(struct gst_engine *engine, GstBuffer *buffer, const int frame_crop[4])
{
	GstVideoOverlayCompositionMeta *meta = gst_buffer_get_video_overlay_composition_meta(buffer);
	struct gst_overlay_cache *cache = &engine->overlay_cache;
	struct umms_subpicture *subpicture = NULL;
	g_mutex_lock(&engine->lock);
	if (!engine->stream_subtitles_shown || !meta || !meta->overlay)
		goto out;
	/*
	 * Frames scaled down after the renderer (set_video_size) carry its
	 * overlays unscaled (videoscale copies the meta as it is): they are
	 * placed on the renderer's whole picture, which the subpicture
	 * names, and the client scales them with the frame.
	 */
	int scaled[4] = { 0, 0, cache->width, cache->height };
	const int *crop = frame_crop;
	if (cache->width > 0 && cache->height > 0 && frame_crop[0] == 0 && frame_crop[1] == 0 &&
			(frame_crop[2] < cache->width || frame_crop[3] < cache->height))
		crop = scaled;
	/* The same composition (a cue that stands) is the same subpicture: rendered once. */
	guint seqnum = gst_video_overlay_composition_get_seqnum(meta->overlay);
	if (cache->subpicture && cache->seqnum == seqnum &&
			memcmp(cache->crop, crop, sizeof(cache->crop)) == 0) {
		subpicture = umms_subpicture_ref(cache->subpicture);
		goto out;
	}
	g_clear_pointer(&cache->subpicture, umms_subpicture_unref);
	cache->subpicture = render(meta->overlay, crop);
	cache->seqnum = seqnum;
	memcpy(cache->crop, crop, sizeof(cache->crop));
	if (cache->subpicture)
		subpicture = umms_subpicture_ref(cache->subpicture);
out:
	g_mutex_unlock(&engine->lock);
	return subpicture;
}

void
gst_overlay_finish(struct gst_engine *engine)
{
	g_clear_pointer(&engine->overlay_cache.subpicture, umms_subpicture_unref);
}
