/*
 * The GStreamer engine's entry points (struct umms_engine_impl): each request
 * is checked, then queued as an op for gst-engine.c to run in order.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <math.h>
#include <unistd.h>

#include "error.h"
#include "gst-engine.h"
#include "gst-private.h"
#include "log.h"

static bool
engine_open(struct umms_engine *base, const char *uri, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	/* A new media makes every queued request pointless. */
	gst_engine_drop_ops(engine);
	struct gst_op *op = gst_op_new(GST_OP_OPEN);
	op->uri = g_strdup(uri);
	gst_engine_enqueue(engine, op);
	return true;
}

/*
 * Whether there is media to change the state of: open, or an open queued
 * before (a request made with the open in one go, as time-shift's move to
 * its ring, reaches a fresh engine before the open has run).
 */
static bool
has_media(struct gst_engine *engine)
{
	if (engine->uri || (engine->current && engine->current->type == GST_OP_OPEN))
		return true;
	for (GList *l = engine->ops.head; l; l = l->next) {
		if (((struct gst_op *)l->data)->type == GST_OP_OPEN)
			return true;
	}
	return false;
}

static bool
engine_set_state(struct umms_engine *base, enum umms_engine_state state, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (!has_media(engine)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE, "no media is open");
		return false;
	}
	struct gst_op *op = gst_op_new(GST_OP_STATE);
	switch (state) {
	case UMMS_ENGINE_IDLE:
		/* Stopping cancels whatever was still on its way. */
		gst_engine_drop_ops(engine);
		op->state = GST_STATE_READY;
		break;
	case UMMS_ENGINE_PAUSED:
		op->state = GST_STATE_PAUSED;
		break;
	case UMMS_ENGINE_PLAYING:
		op->state = GST_STATE_PLAYING;
		break;
	}
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_seek(struct umms_engine *base, int64_t position, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (position < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"position %" G_GINT64_FORMAT " µs is before the start", position);
		return false;
	}
	struct gst_op *op = gst_op_new(GST_OP_SEEK);
	op->position = position;
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_set_rate(struct umms_engine *base, double rate, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (rate == 0.0 || !isfinite(rate)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"rate %g: must not be 0", rate);
		return false;
	}
	struct gst_op *op = gst_op_new(GST_OP_RATE);
	op->rate = rate;
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_step(struct umms_engine *base, int frames, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	struct gst_op *op = gst_op_new(GST_OP_STEP);
	op->frames = frames;
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_select_track(struct umms_engine *base, enum umms_track_kind kind, int index,
	GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	struct gst_op *op = gst_op_new(GST_OP_SELECT);
	op->select.kind = kind;
	op->select.index = index;
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_set_subtitle_uri(struct umms_engine *base, const char *uri, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (uri && !gst_support_probe_uri(uri, error))
		return false;
	struct gst_op *op = gst_op_new(GST_OP_SUBTITLE);
	op->uri = g_strdup(uri);
	op->fd = -1;
	gst_engine_enqueue(engine, op);
	return true;
}

static bool
engine_set_subtitle_file(struct umms_engine *base, const char *uri, int fd, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (!uri || fd < 0 || !gst_support_probe_uri(uri, error)) {
		if (fd >= 0)
			close(fd);
		if (error && !*error)
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"a subtitle file needs its URI and descriptor");
		return false;
	}
	struct gst_op *op = gst_op_new(GST_OP_SUBTITLE);
	op->uri = g_strdup(uri);
	op->fd = fd;
	gst_engine_enqueue(engine, op);
	return true;
}

static int64_t engine_get_position(struct umms_engine *base);

static void
engine_set_subtitle_delay(struct umms_engine *base, int64_t us)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	g_mutex_lock(&engine->lock);
	bool changed = engine->subtitle_delay != us;
	bool overlay = engine->stream_subtitles_shown;
	g_mutex_unlock(&engine->lock);
	gst_cues_set_delay(engine, us);
	/*
	 * The stream's own subtitles take their new offset with the next
	 * segment: a seek to where the picture is brings it now.
	 */
	if (changed && overlay && engine->uri && gst_engine_prerolled(engine) &&
			engine->base.info.seekable && engine->base.info.tracks[UMMS_TRACK_SUBTITLE]->len > 0) {
		struct gst_op *op = gst_op_new(GST_OP_SEEK);
		op->position = engine_get_position(base);
		gst_engine_enqueue(engine, op);
	}
}

static void
engine_set_volume(struct umms_engine *base, double volume, bool mute)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	g_object_set(engine->pipeline, "volume", volume, "mute", mute, NULL);
}

static bool
engine_set_video_output(struct umms_engine *base, bool wanted, const uint32_t *formats,
	size_t n, GError **error)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (!gst_video_set_formats(engine, wanted ? formats : NULL, wanted ? n : 0, error))
		return false;
	gst_video_set_wanted(engine, wanted);
	return true;
}

static void
engine_set_video_dmabuf(struct umms_engine *base, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n)
{
	gst_video_set_dmabuf(gst_engine_from_base(base), any, formats, n);
}

static void
engine_set_video_size(struct umms_engine *base, unsigned max_width, unsigned max_height)
{
	gst_video_set_size(gst_engine_from_base(base), max_width, max_height);
}

static void
engine_set_video_delay(struct umms_engine *base, int64_t ns)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	g_object_set(engine->video_sink, "ts-offset", (gint64)-ns, NULL);
}

static int64_t
engine_get_position(struct umms_engine *base)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (!gst_engine_prerolled(engine))
		return engine->start_position >= 0 ? engine->start_position : 0;
	if (engine->wait == GST_WAIT_ASYNC_DONE && engine->seek_target >= 0)
		return engine->seek_target;
	/*
	 * Paused, the position is the frame on screen: sinks' own answers can
	 * be a frame ahead, or follow the audio.
	 */
	int64_t shown = gst_video_shown_position(engine);
	if (engine->base.state == UMMS_ENGINE_PAUSED && shown >= 0 && !gst_block_active(engine))
		return shown;
	return gst_engine_query_position(engine);
}

static bool
engine_get_seek_range(struct umms_engine *base, int64_t *start, int64_t *end)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	if (!gst_engine_prerolled(engine))
		return false;
	bool seekable;
	int64_t first, last;
	if (!gst_engine_query_seeking(engine, &seekable, &first, &last) || !seekable ||
			first < 0 || last < first)
		return false;
	*start = first;
	*end = last;
	return true;
}

static void
engine_get_stats(struct umms_engine *base, struct umms_engine_stats *stats)
{
	gst_support_get_stats(gst_engine_from_base(base), stats);
}

static void
engine_set_hardware_codecs(struct umms_engine *base, const char *const *codecs)
{
	gst_support_set_hardware_codecs(gst_engine_from_base(base), codecs);
}

static void
engine_set_blocked(struct umms_engine *base, bool blocked)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	bool was = gst_block_active(engine);
	gst_block_set(engine, blocked);
	/*
	 * Allowed while paused: no buffer would come before Play, so the
	 * picture is made again where it stands (a seek there prerolls it).
	 */
	if (was && !blocked && engine->base.state == UMMS_ENGINE_PAUSED && engine->uri &&
			gst_engine_prerolled(engine) && engine->base.info.seekable) {
		struct gst_op *op = gst_op_new(GST_OP_SEEK);
		op->position = engine_get_position(base);
		gst_engine_enqueue(engine, op);
	}
}

const struct umms_engine_impl umms_gst_engine_impl = {
	.name = "gstreamer",
	.init = gst_support_init,
	.finish = gst_support_finish,
	.start = gst_preload_start,
	.wait = gst_preload_wait,
	.can_sound = gst_support_can_sound,
	.list_hardware_decoders = gst_support_list_hardware_decoders,
	.probe_uri = gst_support_probe_uri,
	.create = gst_engine_create,
	.destroy = gst_engine_destroy,
	.open = engine_open,
	.set_state = engine_set_state,
	.seek = engine_seek,
	.set_rate = engine_set_rate,
	.step = engine_step,
	.select_track = engine_select_track,
	.set_subtitle_uri = engine_set_subtitle_uri,
	.set_subtitle_file = engine_set_subtitle_file,
	.set_subtitle_delay = engine_set_subtitle_delay,
	.set_volume = engine_set_volume,
	.set_video_output = engine_set_video_output,
	.check_video_output = gst_video_check_formats,
	.set_video_dmabuf = engine_set_video_dmabuf,
	.set_video_size = engine_set_video_size,
	.set_video_delay = engine_set_video_delay,
	.set_hardware_codecs = engine_set_hardware_codecs,
	.set_blocked = engine_set_blocked,
	.get_position = engine_get_position,
	.get_seek_range = engine_get_seek_range,
	.get_stats = engine_get_stats,
};
