/*
 * The GStreamer engine's video output: an appsink whose upstream decodes or
 * converts straight into memfd memory of ours (offered in the ALLOCATION
 * query), so frames leave the engine as struct umms_frame without a copy.
 * dma-buf frames (hardware decoders) pass through as they are. A frame in
 * any other memory is copied into memfd memory and counted in Stats.
 *
 * The appsink is clocked: a frame arrives here when it is due. It crosses to
 * the main loop through a queue and a source; if several wait there, only
 * the newest is shown.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include <gst/app/app.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

#include "error.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"
#include "subpicture.h"

static bool
is_ours(struct gst_engine *engine, GstMemory *memory)
{
	return memory->allocator == engine->memfd_allocator;
}

/* ---- formats ------------------------------------------------------------- */

/* wl_shm.format values: DRM fourccs, except the two oldest. */
#define SHM_ARGB8888 0u
#define SHM_XRGB8888 1u
#define FOURCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | \
	((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

static const struct {
	GstVideoFormat video;
	uint32_t shm;   /* wl_shm.format */
	uint32_t drm;   /* DRM fourcc */
} formats[] = {                /* in our order of preference (caps_for) */
	{ GST_VIDEO_FORMAT_BGRx, SHM_XRGB8888, FOURCC('X', 'R', '2', '4') },
	{ GST_VIDEO_FORMAT_BGRA, SHM_ARGB8888, FOURCC('A', 'R', '2', '4') },
	{ GST_VIDEO_FORMAT_RGBx, FOURCC('X', 'B', '2', '4'), FOURCC('X', 'B', '2', '4') },
	{ GST_VIDEO_FORMAT_RGBA, FOURCC('A', 'B', '2', '4'), FOURCC('A', 'B', '2', '4') },
	{ GST_VIDEO_FORMAT_xRGB, FOURCC('B', 'X', '2', '4'), FOURCC('B', 'X', '2', '4') },
	{ GST_VIDEO_FORMAT_ARGB, FOURCC('B', 'A', '2', '4'), FOURCC('B', 'A', '2', '4') },
	{ GST_VIDEO_FORMAT_xBGR, FOURCC('R', 'X', '2', '4'), FOURCC('R', 'X', '2', '4') },
	{ GST_VIDEO_FORMAT_ABGR, FOURCC('R', 'A', '2', '4'), FOURCC('R', 'A', '2', '4') },
	{ GST_VIDEO_FORMAT_RGB16, FOURCC('R', 'G', '1', '6'), FOURCC('R', 'G', '1', '6') },
	{ GST_VIDEO_FORMAT_NV12, FOURCC('N', 'V', '1', '2'), FOURCC('N', 'V', '1', '2') },
	{ GST_VIDEO_FORMAT_I420, FOURCC('Y', 'U', '1', '2'), FOURCC('Y', 'U', '1', '2') },
	{ GST_VIDEO_FORMAT_YV12, FOURCC('Y', 'V', '1', '2'), FOURCC('Y', 'V', '1', '2') },
	{ GST_VIDEO_FORMAT_YUY2, FOURCC('Y', 'U', 'Y', 'V'), FOURCC('Y', 'U', 'Y', 'V') },
	{ GST_VIDEO_FORMAT_P010_10LE, FOURCC('P', '0', '1', '0'), FOURCC('P', '0', '1', '0') },
};

static bool
format_of(GstVideoFormat video, uint32_t *shm, uint32_t *drm)
{
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		if (formats[i].video == video) {
			*shm = formats[i].shm;
			*drm = formats[i].drm;
			return true;
		}
	}
	return false;
}

/*
 * Caps for the one format frames are made in, out of the wl_shm formats a
 * client can show: the first of formats[] (our order of preference) it has.
 * One format, not the list: given a list, videoconvert picks by its own
 * scoring and chose xBGR on sway, which pixman then converts on every
 * repaint (3x the compositor's CPU of XRGB8888, bench/video-cpu).
 * XRGB8888 first: every compositor has it and composites it fastest; the
 * conversion from the decoder's YUV happens once, here, into our pool.
 * YUV comes last: over wl_shm, pixman renderers convert it on every
 * repaint; YUV reaches compositors as dma-buf instead.
 * n == 0: any format (before a client has said what it can show).
 */
static GstCaps *
caps_for(const uint32_t *shm_formats, size_t n, unsigned max_width, unsigned max_height)
{
	GstCaps *caps = NULL;
	if (n == 0)
		caps = gst_caps_new_empty_simple("video/x-raw");
	for (size_t f = 0; f < G_N_ELEMENTS(formats) && !caps; f++) {
		for (size_t i = 0; i < n && !caps; i++) {
			if (formats[f].shm == shm_formats[i])
				caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
					gst_video_format_to_string(formats[f].video), NULL);
		}
	}
	if (!caps)
		return NULL;
	/*
	 * Shown smaller than the picture (engine.h, set_video_size): scaled
	 * down to fit, in square pixels, keeping its shape (playsink's
	 * videoscale picks the size: never larger than the picture).
	 */
	if (max_width > 0 && max_height > 0)
		gst_caps_set_simple(caps, "width", GST_TYPE_INT_RANGE, 1, (int)max_width,
			"height", GST_TYPE_INT_RANGE, 1, (int)max_height,
			"pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
	/*
	 * The same with subtitles riding along as an overlay composition
	 * (gst-overlay.c): a renderer right upstream attaches them instead
	 * of blending them into the picture.
	 */
	GstCaps *overlay = gst_caps_copy(caps);
	gst_caps_set_features(overlay, 0, gst_caps_features_new(
		GST_CAPS_FEATURE_META_GST_VIDEO_OVERLAY_COMPOSITION, NULL));
	gst_caps_append(caps, overlay);
	return caps;
}

bool
gst_video_check_formats(const uint32_t *shm_formats, size_t n, GError **error)
{
	GstCaps *caps = caps_for(shm_formats, n, 0, 0);
	if (!caps) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"none of the %zu formats the client can show is one this engine makes", n);
		return false;
	}
	gst_caps_unref(caps);
	return true;
}

bool
gst_video_set_formats(struct gst_engine *engine, const uint32_t *shm_formats, size_t n,
	GError **error)
{
	GstCaps *caps = caps_for(shm_formats, n, engine->max_width, engine->max_height);
	if (!caps) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"none of the %zu formats the client can show is one this engine makes", n);
		return false;
	}
	GstCaps *old = gst_app_sink_get_caps(GST_APP_SINK(engine->video_sink));
	bool same = old && gst_caps_is_equal(old, caps);
	if (old)
		gst_caps_unref(old);
	if (!same) {
		g_autofree char *text = gst_caps_to_string(caps);
		umms_debug("video output: %s", text);
		gst_app_sink_set_caps(GST_APP_SINK(engine->video_sink), caps);
		/* Upstream picks new caps (converting if it must) on its next buffer. */
		GstPad *pad = gst_element_get_static_pad(engine->video_sink, "sink");
		gst_pad_push_event(pad, gst_event_new_reconfigure());
		gst_object_unref(pad);
	}
	gst_caps_unref(caps);
	if (shm_formats != engine->shm_formats) {
		g_free(engine->shm_formats);
		engine->shm_formats = n ? g_memdup2(shm_formats, n * sizeof(*shm_formats)) : NULL;
		engine->n_shm_formats = n;
	}
	return true;
}

void
gst_video_set_size(struct gst_engine *engine, unsigned max_width, unsigned max_height)
{
	if (max_width == 0 || max_height == 0)
		max_width = max_height = 0;
	if (max_width == engine->max_width && max_height == engine->max_height)
		return;
	engine->max_width = max_width;
	engine->max_height = max_height;
	/* The formats stand; only the size changes, on the next frame. */
	gst_video_set_formats(engine, engine->shm_formats, engine->n_shm_formats, NULL);
}

/* ---- the pool offered upstream ------------------------------------------- */

static GstPadProbeReturn
allocation_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct gst_engine *engine = data;
	GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
	if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
		return GST_PAD_PROBE_OK;
	GstCaps *caps = NULL;
	gboolean need_pool = FALSE;
	gst_query_parse_allocation(query, &caps, &need_pool);
	GstVideoInfo video;
	if (!caps || !gst_video_info_from_caps(&video, caps))
		return GST_PAD_PROBE_OK;

	/*
	 * No upper bound: a decoder writing into the pool keeps its reference
	 * frames in it, and clients hold what they show.
	 */
	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, (guint)video.size, 2, 0);
	gst_buffer_pool_config_set_allocator(config, engine->memfd_allocator, NULL);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		gst_object_unref(pool);
		return GST_PAD_PROBE_OK;
	}
	gst_query_add_allocation_pool(query, pool, (guint)video.size, 2, 0);
	gst_query_add_allocation_param(query, engine->memfd_allocator, NULL);
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	/* Subtitles as a meta, not blended (gst-overlay.c). */
	gst_query_add_allocation_meta(query, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
	gst_object_unref(pool);
	return GST_PAD_PROBE_HANDLED;
}

/* ---- frames -------------------------------------------------------------- */

struct gst_frame {
	struct umms_frame base;
	GstSample *sample; /* holds the memory until the last client let go */
};

static void
frame_destroy(struct umms_frame *base)
{
	struct gst_frame *frame = wl_container_of(base, frame, base);
	gst_sample_unref(frame->sample);
	g_free(frame);
}

/* A pool of memfd buffers for copies, so their memory is reused too. */
static GstBufferPool *
copy_pool(struct gst_engine *engine, GstCaps *caps, const GstVideoInfo *video)
{
	if (engine->copy_pool) {
		GstStructure *config = gst_buffer_pool_get_config(engine->copy_pool);
		GstCaps *pool_caps = NULL;
		gst_buffer_pool_config_get_params(config, &pool_caps, NULL, NULL, NULL);
		bool same = pool_caps && gst_caps_is_equal(pool_caps, caps);
		gst_structure_free(config);
		if (same)
			return engine->copy_pool;
		gst_buffer_pool_set_active(engine->copy_pool, FALSE);
		gst_clear_object(&engine->copy_pool);
	}
	GstBufferPool *pool = gst_video_buffer_pool_new();
	GstStructure *config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, caps, (guint)video->size, 2, 0);
	gst_buffer_pool_config_set_allocator(config, engine->memfd_allocator, NULL);
	gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
		gst_object_unref(pool);
		return NULL;
	}
	engine->copy_pool = pool;
	return pool;
}

/* Streaming thread: a frame in foreign memory, copied into ours (counted). */
static GstBuffer *
copy_into_memfd(struct gst_engine *engine, GstSample *sample, const GstVideoInfo *video)
{
	GstBuffer *source = gst_sample_get_buffer(sample);
	GstBufferPool *pool = copy_pool(engine, gst_sample_get_caps(sample), video);
	GstBuffer *copy = NULL;
	if (!pool || gst_buffer_pool_acquire_buffer(pool, &copy, NULL) != GST_FLOW_OK)
		return NULL;
	GstVideoFrame in, out;
	bool ok = gst_video_frame_map(&in, (GstVideoInfo *)video, source, GST_MAP_READ);
	if (ok && !gst_video_frame_map(&out, (GstVideoInfo *)video, copy, GST_MAP_WRITE)) {
		gst_video_frame_unmap(&in);
		ok = false;
	}
	if (ok) {
		ok = gst_video_frame_copy(&out, &in);
		gst_video_frame_unmap(&out);
		gst_video_frame_unmap(&in);
	}
	if (!ok) {
		gst_buffer_unref(copy);
		return NULL;
	}
	gst_buffer_copy_into(copy, source, GST_BUFFER_COPY_TIMESTAMPS | GST_BUFFER_COPY_META, 0, -1);
	g_mutex_lock(&engine->lock);
	engine->copies++;
	g_mutex_unlock(&engine->lock);
	return copy;
}

static bool
fill_planes(struct gst_engine *engine, struct umms_frame *frame, GstBuffer *buffer,
	const GstVideoInfo *video)
{
	GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
	frame->n_planes = (int)GST_VIDEO_INFO_N_PLANES(video);
	guint n_memory = gst_buffer_n_memory(buffer);
	GstMemory *first = gst_buffer_peek_memory(buffer, 0);

	if (n_memory == 1 && is_ours(engine, first)) {
		frame->kind = UMMS_FRAME_MEMFD;
		frame->memory_id = gst_memfd_memory_id(first);
		for (int p = 0; p < frame->n_planes; p++) {
			frame->planes[p].fd = gst_fd_memory_get_fd(first);
			frame->planes[p].offset = (uint32_t)(first->offset +
				(meta ? meta->offset[p] : video->offset[p]));
			frame->planes[p].stride = (uint32_t)(meta ? meta->stride[p] : video->stride[p]);
		}
		return true;
	}
	/* dma-buf from a hardware decoder: one memory for all planes, or one each. */
	bool dmabuf = true;
	for (guint m = 0; m < n_memory; m++)
		dmabuf &= gst_is_dmabuf_memory(gst_buffer_peek_memory(buffer, m));
	if (dmabuf && (n_memory == 1 || n_memory == (guint)frame->n_planes)) {
		frame->kind = UMMS_FRAME_DMABUF;
		frame->memory_id = gst_memfd_memory_id(first);
		frame->modifier = 0; /* linear: GStreamer 1.22 caps carry no modifier */
		for (int p = 0; p < frame->n_planes; p++) {
			GstMemory *memory = gst_buffer_peek_memory(buffer, n_memory == 1 ? 0 : (guint)p);
			frame->planes[p].fd = gst_dmabuf_memory_get_fd(memory);
			frame->planes[p].offset = (uint32_t)(memory->offset +
				(n_memory == 1 ? (meta ? meta->offset[p] : video->offset[p]) : 0));
			frame->planes[p].stride = (uint32_t)(meta ? meta->stride[p] : video->stride[p]);
		}
		return true;
	}
	return false;
}

void
gst_video_set_dmabuf(struct gst_engine *engine, bool any,
	const struct umms_frame_dmabuf_format *pairs, size_t n)
{
	g_mutex_lock(&engine->lock);
	g_clear_pointer(&engine->dmabuf_formats, g_array_unref);
	if (!any) {
		engine->dmabuf_formats = g_array_sized_new(FALSE, FALSE, sizeof(*pairs), (guint)n);
		g_array_append_vals(engine->dmabuf_formats, pairs, (guint)n);
	}
	g_mutex_unlock(&engine->lock);
}

/* Streaming thread: whether the output takes this dma-buf frame as it is. */
static bool
dmabuf_taken(struct gst_engine *engine, const struct umms_frame *frame)
{
	g_mutex_lock(&engine->lock);
	bool taken = !engine->dmabuf_formats || umms_frame_dmabuf_format_in(
		(const struct umms_frame_dmabuf_format *)(void *)engine->dmabuf_formats->data,
		engine->dmabuf_formats->len, frame->format, frame->modifier);
	g_mutex_unlock(&engine->lock);
	return taken;
}

/* Streaming thread: a frame for the screen, now. */
static GstFlowReturn
deliver(struct gst_engine *engine, GstAppSink *sink, GstSample *pulled, bool preroll)
{
	/*
	 * GStreamer 1.22.0's appsink hands out one sample object again and
	 * again and sets new caps on it in place: with a frame still held (on
	 * screen) when caps change — each file of a time-shift ring — that is
	 * a critical and the held frame's caps would change under it. Frames
	 * keep a sample of their own.
	 */
	/* A frame past gst-block.c's probe when the block came: it stays here. */
	if (gst_block_active(engine)) {
		gst_sample_unref(pulled);
		return GST_FLOW_OK;
	}
	GstSample *sample = gst_sample_new(gst_sample_get_buffer(pulled),
		gst_sample_get_caps(pulled), gst_sample_get_segment(pulled), NULL);
	gst_sample_unref(pulled);
	GstSegment *shown_segment = gst_sample_get_segment(sample);
	GstClockTime shown_pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample));
	GstClockTime shown_time = gst_segment_to_stream_time(shown_segment, GST_FORMAT_TIME,
		shown_pts);
	g_mutex_lock(&engine->lock);
	engine->shown_position = GST_CLOCK_TIME_IS_VALID(shown_time) ?
		(int64_t)(shown_time / 1000) : -1;
	GstBuffer *shown = gst_sample_get_buffer(sample);
	/* Playing starts with the frame a preroll already showed: once is enough. */
	bool again = !preroll && shown == engine->preroll_buffer;
	gst_clear_buffer(&engine->preroll_buffer);
	if (preroll)
		engine->preroll_buffer = gst_buffer_ref(shown);
	else
		engine->presented++;
	bool shown_now = !again && !engine->hold_frames;
	bool wanted = engine->video_wanted && shown_now;
	g_mutex_unlock(&engine->lock);
	/* Subtitle cues due with this frame (gst-cues.c). */
	if (shown_now)
		gst_cues_frame_due(engine, GST_CLOCK_TIME_IS_VALID(shown_time) ?
			(int64_t)(shown_time / 1000) : -1);

	GstVideoInfo video;
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	uint32_t shm, drm;
	if (!wanted || !buffer || !gst_video_info_from_caps(&video, gst_sample_get_caps(sample)) ||
			!format_of(GST_VIDEO_INFO_FORMAT(&video), &shm, &drm)) {
		gst_sample_unref(sample);
		return GST_FLOW_OK;
	}

	struct gst_frame *frame = g_new0(struct gst_frame, 1);
	frame->base.refs = 1;
	frame->base.destroy = frame_destroy;
	frame->base.width = GST_VIDEO_INFO_WIDTH(&video);
	frame->base.height = GST_VIDEO_INFO_HEIGHT(&video);
	frame->base.par_n = (unsigned)MAX(GST_VIDEO_INFO_PAR_N(&video), 1);
	frame->base.par_d = (unsigned)MAX(GST_VIDEO_INFO_PAR_D(&video), 1);
	GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta(buffer);
	frame->base.crop_x = crop ? (int)crop->x : 0;
	frame->base.crop_y = crop ? (int)crop->y : 0;
	frame->base.crop_width = crop ? (int)crop->width : frame->base.width;
	frame->base.crop_height = crop ? (int)crop->height : frame->base.height;
	const int picture[4] = { frame->base.crop_x, frame->base.crop_y, frame->base.crop_width,
		frame->base.crop_height };
	frame->base.subpicture = gst_overlay_subpicture(engine, buffer, picture);

	/*
	 * A decoder's dma-buf that a client's compositor cannot import goes
	 * out in shared memory, copied (and counted) here, rather than sent
	 * for the client to refuse, copy or drop.
	 */
	bool filled = fill_planes(engine, &frame->base, buffer, &video);
	if (filled && frame->base.kind == UMMS_FRAME_DMABUF) {
		frame->base.format = drm;
		filled = dmabuf_taken(engine, &frame->base);
	}
	if (!filled) {
		GstBuffer *copy = copy_into_memfd(engine, sample, &video);
		if (!copy || !fill_planes(engine, &frame->base, copy, &video)) {
			if (copy)
				gst_buffer_unref(copy);
			umms_subpicture_unref(frame->base.subpicture);
			g_free(frame);
			gst_sample_unref(sample);
			return GST_FLOW_OK;
		}
		GstSample *copied = gst_sample_new(copy, gst_sample_get_caps(sample),
			gst_sample_get_segment(sample), NULL);
		gst_buffer_unref(copy);
		gst_sample_unref(sample);
		sample = copied;
	}
	frame->sample = sample;
	frame->base.format = frame->base.kind == UMMS_FRAME_MEMFD ? shm : drm;
	if (frame->base.kind == UMMS_FRAME_DMABUF) {
		g_mutex_lock(&engine->lock);
		engine->dmabuf_frames++;
		g_mutex_unlock(&engine->lock);
	}

	/*
	 * When it is due on screen: the system clock is CLOCK_MONOTONIC, as
	 * Wayland's times are. A sink renders at base time + running time +
	 * the pipeline's latency. A prerolled frame (paused, opened, sought) is
	 * due at once: the clock stands, and the base time is stale (0 before
	 * the first Play), which made its feedback look seconds late and threw
	 * lip sync to its 100 ms limit.
	 */
	GstSegment *segment = gst_sample_get_segment(sample);
	GstClockTime pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample));
	GstClockTime running = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts);
	GstClockTime base = gst_element_get_base_time(GST_ELEMENT(sink));
	GstClockTime latency = gst_base_sink_get_latency(GST_BASE_SINK(sink));
	frame->base.present_ns = !preroll && GST_CLOCK_TIME_IS_VALID(running) ?
		(int64_t)(running + base + latency) : g_get_monotonic_time() * 1000;
	GstClockTime stream = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, pts);
	frame->base.position = GST_CLOCK_TIME_IS_VALID(stream) ? (int64_t)(stream / 1000) : -1;
	/*
	 * The external subtitle file's cues, drawn for this picture
	 * (gst-cues.c), unless the frame carries the stream's own already.
	 */
	if (!frame->base.subpicture)
		frame->base.subpicture = gst_cues_subpicture(engine, frame->base.position,
			frame->base.crop_width, frame->base.crop_height);

	g_async_queue_push(engine->frames, frame);
	umms_source_wake(engine->frame_source);
	return GST_FLOW_OK;
}

/* Streaming thread: the appsink has a frame that is due now. */
static GstFlowReturn
new_sample_cb(GstAppSink *sink, gpointer data)
{
	GstSample *sample = gst_app_sink_pull_sample(sink);
	return sample ? deliver(data, sink, sample, false) : GST_FLOW_OK;
}

/*
 * Streaming thread: paused on a new frame (opened, sought or stepped while
 * paused): it is what the screen should show.
 */
static GstFlowReturn
new_preroll_cb(GstAppSink *sink, gpointer data)
{
	GstSample *sample = gst_app_sink_pull_preroll(sink);
	return sample ? deliver(data, sink, sample, true) : GST_FLOW_OK;
}

/* Main loop: hand the newest waiting frame to whoever listens. */
static gboolean
frame_dispatch(gpointer data)
{
	struct gst_engine *engine = data;
	struct gst_frame *frame, *newest = NULL;
	guint64 superseded = 0;
	while ((frame = g_async_queue_try_pop(engine->frames))) {
		if (newest) {
			umms_frame_unref(&newest->base);
			superseded++;
		}
		newest = frame;
	}
	if (newest && gst_block_active(engine)) {
		/* Blocked since it was made (gst-block.c): nobody sees it. */
		umms_frame_unref(&newest->base);
		newest = NULL;
	}
	if (superseded) {
		g_mutex_lock(&engine->lock);
		engine->superseded += superseded;
		g_mutex_unlock(&engine->lock);
	}
	if (newest) {
		/* Kept: gst_video_refresh() shows it again with other subtitles. */
		g_clear_pointer(&engine->last_frame, umms_frame_unref);
		engine->last_frame = umms_frame_ref(&newest->base);
		gst_timeline_mark(&engine->timeline, GST_TIMELINE_FRAME);
		wl_signal_emit_mutable(&engine->base.events.frame, &newest->base);
		umms_frame_unref(&newest->base);
	}
	gst_cues_dispatch(engine);
	return G_SOURCE_CONTINUE;
}

/* What is drawn over @frame now: the stream's own subtitles, or the external file's. */
static struct umms_subpicture *
subpicture_now(struct gst_engine *engine, const struct gst_frame *frame)
{
	const struct umms_frame *base = &frame->base;
	const int picture[4] = { base->crop_x, base->crop_y, base->crop_width,
		base->crop_height };
	struct umms_subpicture *subpicture = gst_overlay_subpicture(engine,
		gst_sample_get_buffer(frame->sample), picture);
	return subpicture ? subpicture : gst_cues_subpicture(engine, base->position,
		base->crop_width, base->crop_height);
}

void
gst_video_refresh(struct gst_engine *engine)
{
	/* The cues of the track shown now that stand at the picture are due with it. */
	g_mutex_lock(&engine->lock);
	int64_t shown = engine->shown_position;
	g_mutex_unlock(&engine->lock);
	/* Blocked: nothing is shown again (gst-block.c). */
	if (gst_block_active(engine))
		return;
	gst_cues_frame_due(engine, shown);
	if (!engine->last_frame)
		return;
	struct gst_frame *last = wl_container_of(engine->last_frame, last, base);
	const struct umms_frame *base = &last->base;
	struct umms_subpicture *subpicture = subpicture_now(engine, last);
	if (subpicture == base->subpicture) {
		umms_subpicture_unref(subpicture);
		return;
	}
	/* The same picture in the same memory, with what is to be shown over it now. */
	struct gst_frame *frame = g_new0(struct gst_frame, 1);
	frame->base = *base;
	frame->base.refs = 1;
	frame->base.present_ns = g_get_monotonic_time() * 1000;
	frame->sample = gst_sample_ref(last->sample);
	frame->base.subpicture = subpicture;
	g_async_queue_push(engine->frames, frame);
	umms_source_wake(engine->frame_source);
}

static void
frame_queue_free(gpointer data)
{
	umms_frame_unref(&((struct gst_frame *)data)->base);
}

GstElement *
gst_video_create_sink(struct gst_engine *engine, GError **error)
{
	GstElement *sink = gst_element_factory_make("appsink", "umms-video-sink");
	if (!sink) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"GStreamer's appsink is not installed (gstreamer1.0-plugins-base)");
		return NULL;
	}
	engine->shown_position = -1;
	engine->memfd_allocator = gst_memfd_allocator_new();
	gst_object_ref_sink(engine->memfd_allocator);
	engine->frames = g_async_queue_new_full(frame_queue_free);
	engine->frame_source = umms_source_wake_new(frame_dispatch, engine);
	if (!engine->frame_source) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "eventfd: %s", g_strerror(errno));
		gst_object_unref(sink);
		return NULL;
	}

	/* A display drops late frames: so does this sink. */
	g_object_set(sink, "sync", TRUE, "qos", TRUE, "max-lateness", (gint64)20 * GST_MSECOND,
		"enable-last-sample", FALSE, "emit-signals", FALSE, NULL);
	GstAppSinkCallbacks callbacks = { .new_sample = new_sample_cb, .new_preroll = new_preroll_cb };
	gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, engine, NULL);
	GstCaps *any = caps_for(NULL, 0, 0, 0);
	gst_app_sink_set_caps(GST_APP_SINK(sink), any);
	gst_caps_unref(any);
	GstPad *pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, allocation_probe, engine, NULL);
	gst_object_unref(pad);

	/*
	 * Decoders' 4:2:0 YUV is converted right in front of the sink
	 * (gst-convert.c); playbin's own videoconvert, before it, then passes
	 * it through and converts only what ours does not.
	 */
	GstElement *bin = gst_bin_new("umms-video-out");
	GstElement *convert = gst_convert_new("umms-video-convert");
	gst_bin_add_many(GST_BIN(bin), convert, sink, NULL);
	if (!gst_element_link(convert, sink)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "the video converter does not link");
		gst_object_unref(gst_object_ref_sink(bin));
		return NULL;
	}
	pad = gst_element_get_static_pad(convert, "sink");
	gst_element_add_pad(bin, gst_ghost_pad_new("sink", pad));
	gst_object_unref(pad);
	engine->video_sink = gst_object_ref(sink);
	return bin;
}

void
gst_video_finish(struct gst_engine *engine)
{
	if (engine->frame_source) {
		g_source_destroy(engine->frame_source);
		g_clear_pointer(&engine->frame_source, g_source_unref);
	}
	if (engine->frames)
		g_async_queue_unref(engine->frames);
	g_clear_pointer(&engine->last_frame, umms_frame_unref);
	gst_overlay_finish(engine);
	gst_clear_buffer(&engine->preroll_buffer);
	if (engine->copy_pool) {
		gst_buffer_pool_set_active(engine->copy_pool, FALSE);
		gst_object_unref(engine->copy_pool);
	}
	if (engine->memfd_allocator)
		gst_object_unref(engine->memfd_allocator);
	g_clear_pointer(&engine->dmabuf_formats, g_array_unref);
	g_clear_pointer(&engine->shm_formats, g_free);
}

int64_t
gst_video_shown_position(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	int64_t position = engine->shown_position;
	g_mutex_unlock(&engine->lock);
	return position;
}

void
gst_video_forget_shown(struct gst_engine *engine)
{
	g_mutex_lock(&engine->lock);
	engine->shown_position = -1;
	g_mutex_unlock(&engine->lock);
}

void
gst_video_drop_pending(struct gst_engine *engine)
{
	struct gst_frame *frame;
	while ((frame = g_async_queue_try_pop(engine->frames)))
		umms_frame_unref(&frame->base);
	g_clear_pointer(&engine->last_frame, umms_frame_unref);
}

void
gst_video_hold(struct gst_engine *engine, bool hold)
{
	g_mutex_lock(&engine->lock);
	engine->hold_frames = hold;
	g_mutex_unlock(&engine->lock);
}

void
gst_video_set_wanted(struct gst_engine *engine, bool wanted)
{
	g_mutex_lock(&engine->lock);
	engine->video_wanted = wanted;
	g_mutex_unlock(&engine->lock);
}
