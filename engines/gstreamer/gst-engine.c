#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <math.h>
#include <unistd.h>

#include "error.h"
#include "gst-eit.h"
#include "gst-engine.h"
#include "gst-private.h"
#include "log.h"
#include "source.h"

#define US_TO_NS(us) ((GstClockTime)(us) * 1000)

static void pump(struct gst_engine *engine);

struct gst_engine *
gst_engine_from_base(struct umms_engine *base)
{
	g_assert(base->impl == &umms_gst_engine_impl);
	struct gst_engine *engine = wl_container_of(base, engine, base);
	return engine;
}

static void
op_free(struct gst_op *op)
{
	if (!op)
		return;
	if (op->type == GST_OP_OPEN || op->type == GST_OP_SUBTITLE)
		g_free(op->uri);
	if (op->type == GST_OP_SUBTITLE && op->fd >= 0)
		close(op->fd);
	g_free(op);
}

struct gst_op *
gst_op_new(enum gst_op_type type)
{
	struct gst_op *op = g_new0(struct gst_op, 1);
	op->type = type;
	return op;
}

void
gst_engine_emit_info(struct gst_engine *engine)
{
	wl_signal_emit_mutable(&engine->base.events.info, NULL);
}

static GstState
pipeline_state(struct gst_engine *engine, GstState *pending)
{
	GstState current = GST_STATE_NULL, next = GST_STATE_VOID_PENDING;
	gst_element_get_state(engine->pipeline, &current, &next, 0);
	if (pending)
		*pending = next;
	return current;
}

bool
gst_engine_prerolled(struct gst_engine *engine)
{
	return pipeline_state(engine, NULL) >= GST_STATE_PAUSED;
}

static void
stop_waiting(struct gst_engine *engine)
{
	engine->wait = GST_WAIT_NONE;
	engine->seek_target = -1;
	umms_source_clear(&engine->wait_timeout);
}

static void
finish_current(struct gst_engine *engine)
{
	stop_waiting(engine);
	op_free(engine->current);
	engine->current = NULL;
}

void
gst_engine_drop_ops(struct gst_engine *engine)
{
	finish_current(engine);
	gst_network_reset(engine);
	struct gst_op *op;
	while ((op = g_queue_pop_head(&engine->ops)))
		op_free(op);
}

static void
go_idle(struct gst_engine *engine)
{
	/* A frame prerolled on the way down is no news for anyone. */
	gst_video_hold(engine, true);
	/*
	 * NULL, not READY: playbin reused from READY after a failure can fail
	 * the next media with a stale "internal data stream error".
	 */
	gst_element_set_state(engine->pipeline, GST_STATE_NULL);
	/* What the old run still had to say (a second ERROR, an EOS) is moot. */
	GstBus *bus = gst_element_get_bus(engine->pipeline);
	gst_bus_set_flushing(bus, TRUE);
	gst_bus_set_flushing(bus, FALSE);
	gst_object_unref(bus);
	gst_video_drop_pending(engine);
	engine->base.state = UMMS_ENGINE_IDLE;
	gst_stall_watch(engine);
	gst_video_forget_shown(engine);
	gst_cues_reset(engine);
	gst_video_hold(engine, false);
	engine->buffering = false;
	engine->base.info.buffering = 100;
}

/*
 * Something failed. With requests outstanding they all fail with @error;
 * otherwise it is reported as a playback error. @idle: whether playback
 * itself is broken (the pipeline is reset) or only the request's own work.
 */
static void
fail(struct gst_engine *engine, GError *error, bool idle)
{
	umms_warn("%s: %s", engine->uri ? engine->uri : "(no media)", error->message);
	bool had_requests = engine->busy;
	gst_engine_drop_ops(engine);
	if (idle)
		go_idle(engine);
	engine->busy = false;
	if (had_requests)
		wl_signal_emit_mutable(&engine->base.events.settled, error);
	else
		wl_signal_emit_mutable(&engine->base.events.error, error);
	g_error_free(error);
	gst_engine_emit_info(engine);
}

static gboolean
wait_timeout_cb(gpointer data)
{
	struct gst_engine *engine = data;
	umms_source_forget(&engine->wait_timeout);
	unsigned seconds = engine->config->engine.answer_timeout / 1000;
	/* A live source that never prerolled waits for data that did not come. */
	if (engine->base.info.live && engine->wait == GST_WAIT_STATE)
		fail(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"%s: nothing arrived within %u s: is anything sending?", engine->uri,
			seconds), true);
	else
		fail(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"%s: GStreamer did not answer within %u s", engine->uri, seconds), true);
	return G_SOURCE_REMOVE;
}

static void
wait_for(struct gst_engine *engine, enum gst_wait wait)
{
	engine->wait = wait;
	umms_source_clear(&engine->wait_timeout);
	/* How long a request may wait for GStreamer before it is failed. */
	engine->wait_timeout = umms_source_timeout(engine->config->engine.answer_timeout,
		wait_timeout_cb, engine);
}

static enum umms_engine_state
engine_state_of(GstState state)
{
	switch (state) {
	case GST_STATE_PLAYING:
		return UMMS_ENGINE_PLAYING;
	case GST_STATE_PAUSED:
		return UMMS_ENGINE_PAUSED;
	default:
		return UMMS_ENGINE_IDLE;
	}
}

/* A flushing seek at @rate; @position < 0 means the end (reverse) or here. */
static bool
do_seek(struct gst_engine *engine, double rate, int64_t position, GError **error)
{
	GstSeekFlags flags = GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE;
	if (fabs(rate) > engine->config->engine.trickmode_rate)
		flags |= GST_SEEK_FLAG_TRICKMODE | GST_SEEK_FLAG_TRICKMODE_KEY_UNITS |
			GST_SEEK_FLAG_TRICKMODE_NO_AUDIO;

	GstEvent *seek;
	if (rate > 0)
		seek = gst_event_new_seek(rate, GST_FORMAT_TIME, flags,
			GST_SEEK_TYPE_SET, US_TO_NS(MAX(position, 0)),
			GST_SEEK_TYPE_SET, GST_CLOCK_TIME_NONE);
	else
		seek = gst_event_new_seek(rate, GST_FORMAT_TIME, flags,
			GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_SET,
			position >= 0 ? US_TO_NS(position) : GST_CLOCK_TIME_NONE);
	guint32 seqnum = gst_event_get_seqnum(seek);
	/* Before it is sent: the overlay may see its segment at once. */
	gst_delay_seek(engine, seqnum, rate, MAX(position, 0));
	if (!gst_element_send_event(engine->pipeline, seek)) {
		gst_delay_cancel(engine);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			rate == 1.0 ? "%s: cannot seek in this media" :
			"%s: this media cannot play at that rate", engine->uri);
		return false;
	}
	umms_debug("seek to %" G_GINT64_FORMAT " µs at rate %g", position, rate);
	/* Until the seek lands, the position is where it goes, not where it was. */
	engine->seek_target = position;
	gst_video_forget_shown(engine);
	gst_cues_reset(engine);
	gst_video_hold(engine, false);
	wait_for(engine, GST_WAIT_ASYNC_DONE);
	return true;
}

static bool
set_state_and_wait(struct gst_engine *engine, GstState state, GError **error)
{
	engine->want_state = state;
	GstStateChangeReturn ret = gst_element_set_state(engine->pipeline, state);
	umms_debug("→ %s: %s", gst_element_state_get_name(state),
		gst_element_state_change_return_get_name(ret));
	switch (ret) {
	case GST_STATE_CHANGE_FAILURE:
		/* The ERROR message with the reason is on its way. */
		wait_for(engine, GST_WAIT_STATE);
		return true;
	case GST_STATE_CHANGE_NO_PREROLL:
		engine->base.info.live = true;
		/* fall through */
	case GST_STATE_CHANGE_SUCCESS:
		engine->base.state = engine_state_of(state);
		gst_stall_watch(engine);
		return true;
	case GST_STATE_CHANGE_ASYNC:
		wait_for(engine, GST_WAIT_STATE);
		return true;
	}
	return true;
}

/* After the first preroll: apply a seek or rate asked for while idle. */
static bool
needs_initial_seek(struct gst_engine *engine)
{
	return engine->start_position >= 0 || engine->rate != 1.0;
}

static bool
run_state(struct gst_engine *engine, struct gst_op *op, GError **error)
{
	if (op->state <= GST_STATE_READY) {
		go_idle(engine);
		engine->start_position = -1;
		gst_engine_emit_info(engine);
		return true;
	}
	/* The first frame of a preroll that is only a step towards a seek is not shown. */
	if (!gst_engine_prerolled(engine) && engine->start_position > 0)
		gst_video_hold(engine, true);
	if (op->state == GST_STATE_PLAYING && !gst_engine_prerolled(engine)) {
		/*
		 * Preroll first: tracks, position and rate asked for while idle
		 * are applied before anything plays (see after_preroll).
		 */
		struct gst_op *play = gst_op_new(GST_OP_STATE);
		play->state = GST_STATE_PLAYING;
		g_queue_push_head(&engine->ops, play);
		op->state = GST_STATE_PAUSED;
	}
	return set_state_and_wait(engine, op->state, error);
}

/*
 * The pipeline just prerolled from idle: queue, ahead of whatever else was
 * asked, the track selection and the seek asked for while idle (playbin
 * numbers its tracks only once they exist).
 */
static void
after_preroll(struct gst_engine *engine)
{
	if (needs_initial_seek(engine)) {
		struct gst_op *seek = gst_op_new(GST_OP_SEEK);
		seek->position = engine->start_position;
		engine->start_position = -1;
		g_queue_push_head(&engine->ops, seek);
	}
	g_queue_push_head(&engine->ops, gst_op_new(GST_OP_APPLY_SELECTION));
}

static bool
run_open(struct gst_engine *engine, struct gst_op *op, GError **error)
{
	go_idle(engine);
	g_clear_pointer(&engine->subtitles, gst_subtitles_destroy);
	gst_media_reset(engine);
	gst_support_reset_stats(engine);
	engine->start_position = -1;
	engine->rate = 1.0;
	g_free(engine->uri);
	engine->uri = g_strdup(op->uri);
	g_object_set(engine->pipeline, "uri", op->uri, NULL);
	gst_engine_emit_info(engine);
	umms_info("opening %s", op->uri);
	gst_timeline_start(&engine->timeline);
	return set_state_and_wait(engine, GST_STATE_PAUSED, error);
}

static bool
run_step(struct gst_engine *engine, struct gst_op *op, GError **error)
{
	if (!gst_engine_prerolled(engine)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE,
			"cannot step frames: nothing is shown");
		return false;
	}
	if (op->frames > 0) {
		if (!gst_element_send_event(engine->pipeline, gst_event_new_step(
				GST_FORMAT_BUFFERS, (guint64)op->frames, 1.0, TRUE, FALSE))) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"%s: cannot step frames in this media", engine->uri);
			return false;
		}
		wait_for(engine, GST_WAIT_ASYNC_DONE);
		return true;
	}
	/* Backwards: an accurate seek by whole frames. */
	int index = engine->base.info.current[UMMS_TRACK_VIDEO];
	const struct umms_track *video = index >= 0 ?
		engine->base.info.tracks[UMMS_TRACK_VIDEO]->pdata[index] : NULL;
	if (!video || video->fps_n <= 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"cannot step backwards: the frame rate is unknown");
		return false;
	}
	int64_t frame = (int64_t)video->fps_d * 1000000 / video->fps_n;
	int64_t position = gst_engine_query_position(engine);
	/* Land inside the target frame, not on its edge. */
	int64_t target = MAX(0, position + op->frames * frame + frame / 4);
	return do_seek(engine, engine->rate, target, error);
}

static bool
run_subtitle(struct gst_engine *engine, struct gst_op *op, GError **error)
{
	g_clear_pointer(&engine->subtitles, gst_subtitles_destroy);
	if (!op->uri) {
		/* The file that was shown is gone: back to playbin's own choice. */
		if (engine->want[UMMS_TRACK_SUBTITLE] >= gst_media_external_index(engine))
			engine->want[UMMS_TRACK_SUBTITLE] = -2;
		gst_media_apply_selection(engine);
		gst_engine_emit_info(engine);
		return true;
	}
	engine->subtitles = gst_subtitles_create(engine, op->uri, op->fd);
	op->fd = -1;
	wait_for(engine, GST_WAIT_SUBTITLES);
	return true;
}

void
gst_engine_subtitles_loaded(struct gst_engine *engine, const GError *error)
{
	if (engine->wait != GST_WAIT_SUBTITLES)
		return;
	if (error) {
		g_clear_pointer(&engine->subtitles, gst_subtitles_destroy);
		/* Playback goes on; only this request failed. */
		fail(engine, g_error_copy(error), false);
		return;
	}
	/* The file is the track after the media's own; show it. */
	engine->want[UMMS_TRACK_SUBTITLE] = gst_media_external_index(engine);
	gst_media_apply_selection(engine);
	gst_engine_emit_info(engine);
	finish_current(engine);
	pump(engine);
}

static bool
run_op(struct gst_engine *engine, struct gst_op *op, GError **error)
{
	switch (op->type) {
	case GST_OP_OPEN:
		return run_open(engine, op, error);
	case GST_OP_STATE:
		return run_state(engine, op, error);
	case GST_OP_SEEK:
		if (!gst_engine_prerolled(engine)) {
			engine->start_position = op->position;
			return true;
		}
		/* -1: the initial seek of a reverse rate, from the end. */
		return do_seek(engine, engine->rate, op->position, error);
	case GST_OP_RATE:
		engine->rate = op->rate;
		if (!gst_engine_prerolled(engine))
			return true;
		return do_seek(engine, op->rate, gst_engine_query_position(engine), error);
	case GST_OP_STEP:
		return run_step(engine, op, error);
	case GST_OP_SELECT:
		engine->want[op->select.kind] = op->select.index;
		/* Off at once, even before the streams are known. */
		if (op->select.kind == UMMS_TRACK_SUBTITLE && op->select.index == -1)
			gst_overlay_set_shown(engine, false);
		/* Idle: applied when the next preroll brings the streams back. */
		if (gst_engine_prerolled(engine))
			gst_media_apply_selection(engine);
		gst_engine_emit_info(engine);
		return true;
	case GST_OP_SUBTITLE:
		return run_subtitle(engine, op, error);
	case GST_OP_APPLY_SELECTION:
		gst_media_apply_selection(engine);
		gst_engine_emit_info(engine);
		return true;
	}
	return true;
}

static void
pump(struct gst_engine *engine)
{
	while (!engine->current) {
		struct gst_op *op = g_queue_pop_head(&engine->ops);
		if (!op)
			break;
		engine->current = op;
		GError *error = NULL;
		if (!run_op(engine, op, &error)) {
			fail(engine, error, false);
			return;
		}
		if (engine->wait == GST_WAIT_NONE)
			finish_current(engine);
	}
	if (!engine->current && engine->busy) {
		engine->busy = false;
		gst_media_refresh(engine);
		gst_engine_emit_info(engine);
		wl_signal_emit_mutable(&engine->base.events.settled, NULL);
	}
}

static gboolean
pump_cb(gpointer data)
{
	struct gst_engine *engine = data;
	umms_source_forget(&engine->pump_source);
	pump(engine);
	return G_SOURCE_REMOVE;
}

void
gst_engine_enqueue(struct gst_engine *engine, struct gst_op *op)
{
	g_queue_push_tail(&engine->ops, op);
	engine->busy = true;
	if (!engine->pump_source && !engine->current)
		engine->pump_source = umms_source_idle(pump_cb, engine);
}

/* STATE_CHANGED or ASYNC_DONE: has the pipeline reached what we wait for? */
static void
check_state_reached(struct gst_engine *engine)
{
	if (engine->wait != GST_WAIT_STATE)
		return;
	GstState pending;
	GstState current = pipeline_state(engine, &pending);
	bool reached = current == engine->want_state && pending == GST_STATE_VOID_PENDING;
	/* Buffering holds a network stream in PAUSED; it plays once filled. */
	if (engine->buffering && engine->want_state == GST_STATE_PLAYING &&
			current == GST_STATE_PAUSED)
		reached = true;
	if (!reached)
		return;

	bool first_preroll = engine->base.state == UMMS_ENGINE_IDLE;
	engine->base.state = engine_state_of(engine->want_state);
	gst_stall_watch(engine);
	stop_waiting(engine);
	gst_media_refresh(engine);

	/*
	 * A demuxer that finds nothing to play can let playbin "preroll" with
	 * no sink at all, and post its ERROR only afterwards: do not call that
	 * a success.
	 */
	const struct umms_media_info *info = &engine->base.info;
	if (first_preroll && !info->live && info->tracks[UMMS_TRACK_VIDEO]->len == 0 &&
			info->tracks[UMMS_TRACK_AUDIO]->len == 0) {
		fail(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s: no audio or video this service can play", engine->uri), true);
		return;
	}

	finish_current(engine);
	if (first_preroll)
		after_preroll(engine);
	pump(engine);
}

static void
handle_buffering(struct gst_engine *engine, GstMessage *message)
{
	gint percent = 100;
	gst_message_parse_buffering(message, &percent);
	engine->base.info.buffering = percent;
	if (engine->base.info.live)
		return;
	if (percent < 100 && !engine->buffering && engine->want_state == GST_STATE_PLAYING) {
		umms_debug("buffering %d%%: holding", percent);
		engine->buffering = true;
		gst_element_set_state(engine->pipeline, GST_STATE_PAUSED);
	} else if (percent >= 100 && engine->buffering) {
		engine->buffering = false;
		if (engine->want_state == GST_STATE_PLAYING)
			gst_element_set_state(engine->pipeline, GST_STATE_PLAYING);
	}
	check_state_reached(engine);
	gst_engine_emit_info(engine);
}

static void
handle_error(struct gst_engine *engine, GstMessage *message)
{
	GError *gst_error = NULL;
	char *debug = NULL;
	gst_message_parse_error(message, &gst_error, &debug);
	umms_debug("GStreamer error from %s: %s (%s)", GST_MESSAGE_SRC_NAME(message),
		gst_error->message, debug ? debug : "");
	if (engine->probe || gst_network_probe(engine, message)) {
		/* Quiet until the server's side is known; the rest is the same failure. */
		go_idle(engine);
		g_error_free(gst_error);
		g_free(debug);
		return;
	}
	GError *error = gst_support_error(engine, gst_error, debug);
	g_error_free(gst_error);
	g_free(debug);
	fail(engine, error, true);
}

void
gst_engine_fail_network(struct gst_engine *engine, GError *error)
{
	fail(engine, error, true);
}

void
gst_engine_fail_playback(struct gst_engine *engine, GError *error)
{
	fail(engine, error, true);
}

static gboolean
bus_cb(GstBus *bus, GstMessage *message, gpointer data)
{
	struct gst_engine *engine = data;
	bool from_pipeline = GST_MESSAGE_SRC(message) == GST_OBJECT(engine->pipeline);

	switch (GST_MESSAGE_TYPE(message)) {
	case GST_MESSAGE_ERROR:
		handle_error(engine, message);
		break;
	case GST_MESSAGE_WARNING: {
		GError *warning = NULL;
		gst_message_parse_warning(message, &warning, NULL);
		umms_info("GStreamer warning from %s: %s", GST_MESSAGE_SRC_NAME(message),
			warning->message);
		g_error_free(warning);
		break;
	}
	case GST_MESSAGE_EOS:
		umms_debug("end of stream");
		engine->stall_ended = true;
		wl_signal_emit_mutable(&engine->base.events.eos, NULL);
		break;
	case GST_MESSAGE_STATE_CHANGED:
		if (from_pipeline)
			check_state_reached(engine);
		break;
	case GST_MESSAGE_ASYNC_DONE:
		if (engine->wait == GST_WAIT_ASYNC_DONE) {
			gst_media_refresh(engine);
			finish_current(engine);
			pump(engine);
		} else {
			check_state_reached(engine);
		}
		break;
	case GST_MESSAGE_APPLICATION:
		/* gst-support.c: playbin's streams or their tags changed. */
		if (gst_message_has_name(message, "umms-streams") &&
				engine->base.state != UMMS_ENGINE_IDLE) {
			gst_media_apply_selection(engine);
			gst_engine_emit_info(engine);
		}
		break;
	case GST_MESSAGE_TAG: {
		GstTagList *tags = NULL;
		gst_message_parse_tag(message, &tags);
		gst_media_add_tags(engine, tags);
		gst_tag_list_unref(tags);
		break;
	}
	case GST_MESSAGE_BUFFERING:
		handle_buffering(engine, message);
		break;
	case GST_MESSAGE_DURATION_CHANGED:
		gst_media_refresh(engine);
		gst_engine_emit_info(engine);
		break;
	case GST_MESSAGE_LATENCY:
		gst_bin_recalculate_latency(GST_BIN(engine->pipeline));
		break;
	case GST_MESSAGE_CLOCK_LOST:
		if (engine->base.state == UMMS_ENGINE_PLAYING) {
			gst_element_set_state(engine->pipeline, GST_STATE_PAUSED);
			gst_element_set_state(engine->pipeline, GST_STATE_PLAYING);
		}
		break;
	case GST_MESSAGE_QOS:
		gst_support_qos(engine, message);
		break;
	case GST_MESSAGE_ELEMENT:
		gst_network_headers(engine, message);
		/*
		 * playbin would go on without the stream (video without
		 * picture); a player that cannot show what was selected fails.
		 */
		if (gst_support_missing_plugin(engine, message))
			fail(engine, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "%s",
				engine->missing), true);
		break;
	default:
		break;
	}
	return G_SOURCE_CONTINUE;
}

static GstElement *
make_sink(const char *factory, const char *name, GError **error)
{
	GstElement *sink = gst_element_factory_make(factory, name);
	if (!sink) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"GStreamer element %s is not installed", factory);
		return NULL;
	}
	return sink;
}

/* Main loop: an EIT section read on tsdemux's input (gst-eit.c). */
static void
emit_eit(const struct umms_eit *eit, void *data)
{
	struct gst_engine *engine = data;
	wl_signal_emit_mutable(&engine->base.events.eit, (void *)eit);
}

struct umms_engine *
gst_engine_create(const struct umms_config *config, GError **error)
{
	struct gst_engine *engine = g_new0(struct gst_engine, 1);
	umms_engine_init(&engine->base, &umms_gst_engine_impl);
	engine->config = config;
	engine->rate = 1.0;
	engine->start_position = -1;
	engine->seek_target = -1;
	engine->http_status = -1;
	engine->stream_subtitles_shown = true;
	g_queue_init(&engine->ops);
	g_mutex_init(&engine->lock);
	gst_cues_init(engine);
	gst_delay_init(engine);
	engine->eit = gst_eit_new(emit_eit, engine);
	engine->qos_dropped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	engine->stream_caps = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		(GDestroyNotify)gst_caps_unref);
	engine->video_decoders = g_ptr_array_new_with_free_func(gst_object_unref);
	for (int k = 0; k < UMMS_TRACK_KINDS; k++)
		engine->want[k] = -2;

	/*
	 * playbin, not playbin3: in GStreamer 1.22.0 (Debian 12) playbin3
	 * crashes, about once in thirty plays, stopping an HTTP stream, and
	 * hangs on subtitle tracks from push-mode sources (measured; see
	 * ARCHITECTURE.md for the rest).
	 */
	engine->pipeline = gst_element_factory_make("playbin", NULL);
	if (!engine->pipeline) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"GStreamer's playbin is not installed (gstreamer1.0-plugins-base)");
		goto fail;
	}
	gst_object_ref_sink(engine->pipeline);

	/* Frames leave through our own clocked sink (gst-video.c). */
	GstElement *video_out = gst_video_create_sink(engine, error);
	bool silent = config->engine.audio_output == UMMS_AUDIO_NONE || !gst_support_can_sound();
	GstElement *audio_sink = silent ?
		make_sink("fakesink", "umms-audio-sink", error) :
		make_sink("autoaudiosink", "umms-audio-sink", error);
	if (!video_out || !audio_sink) {
		if (video_out)
			gst_object_unref(gst_object_ref_sink(video_out));
		g_clear_object(&engine->video_sink);
		if (audio_sink)
			gst_object_unref(gst_object_ref_sink(audio_sink));
		goto fail;
	}
	gst_captions_init(engine);
	gst_block_init(engine, audio_sink);
	gst_stall_init(engine, audio_sink);
	if (silent)
		g_object_set(audio_sink, "sync", TRUE, NULL);
	/*
	 * No text sink: playbin's subtitleoverlay renders the stream's own
	 * subtitles, as overlays riding on the frames (gst-overlay.c).
	 */
	g_object_set(engine->pipeline, "video-sink", video_out,
		"audio-sink", audio_sink, NULL);

	if (config->engine.pitch_correction) {
		GstElement *tempo = gst_element_factory_make("scaletempo", NULL);
		if (tempo)
			g_object_set(engine->pipeline, "audio-filter", tempo, NULL);
	}

	gst_support_watch_pipeline(engine);
	gst_cues_watch(engine);
	GstBus *bus = gst_element_get_bus(engine->pipeline);
	gst_bus_add_watch(bus, bus_cb, engine);
	gst_object_unref(bus);
	return &engine->base;

fail:
	gst_engine_destroy(&engine->base);
	return NULL;
}

void
gst_engine_destroy(struct umms_engine *base)
{
	struct gst_engine *engine = gst_engine_from_base(base);
	gst_engine_drop_ops(engine);
	umms_source_clear(&engine->pump_source);
	umms_source_clear(&engine->stall_source);
	g_clear_pointer(&engine->eit, gst_eit_close);
	g_clear_pointer(&engine->subtitles, gst_subtitles_destroy);
	if (engine->pipeline) {
		GstBus *bus = gst_element_get_bus(engine->pipeline);
		gst_bus_remove_watch(bus);
		gst_object_unref(bus);
		gst_element_set_state(engine->pipeline, GST_STATE_NULL);
		gst_object_unref(engine->pipeline);
	}
	g_clear_object(&engine->video_sink);
	gst_video_finish(engine);
	gst_media_reset(engine);
	gst_captions_finish(engine);
	gst_cues_finish(engine);
	gst_delay_finish(engine);
	g_hash_table_unref(engine->stream_caps);
	g_ptr_array_unref(engine->video_decoders);
	g_free(engine->current_video_id);
	g_strfreev(engine->hardware_codecs);
	g_hash_table_unref(engine->qos_dropped);
	g_mutex_clear(&engine->lock);
	g_free(engine->uri);
	umms_engine_finish(&engine->base);
	g_free(engine);
}
