#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine-proxy.h"
#include "error.h"
#include "log.h"
#include "player.h"
#include "player-private.h"
#include "source.h"
#include "timeshift.h"

#define MAX_RATE 64.0
/* Lip sync's delay reaches the engine in steps of this (umms_player_report_display()). */
#define VIDEO_DELAY_STEP_NS 1000000


struct pending_request {
	enum request_kind kind;
	enum umms_player_state state; /* REQUEST_STATE */
	umms_player_done_fn done;      /* may be NULL */
	void *data;
	bool answered;                 /* replied before it settled (reply_timeout_cb) */
};

static const struct umms_media_info *empty_info(void);

void
umms_player_emit_changed(struct umms_player *player)
{
	wl_signal_emit_mutable(&player->events.changed, player);
}

static void
complete(struct pending_request *request, const GError *error)
{
	if (request->done)
		request->done(error, request->data);
	g_free(request);
}

/* Completes every waiting request with @code and @message. */
static void
complete_all(struct umms_player *player, enum umms_error_code code, const char *message)
{
	g_autoptr(GError) error = g_error_new_literal(UMMS_ERROR, code, message);
	struct pending_request *request;
	while ((request = g_queue_pop_head(&player->pending)))
		complete(request, error);
}

void
umms_player_push_request(struct umms_player *player, enum request_kind kind, enum umms_player_state state,
	umms_player_done_fn done, void *data)
{
	struct pending_request *request = g_new0(struct pending_request, 1);
	request->kind = kind;
	request->state = state;
	request->done = done;
	request->data = data;
	g_queue_push_tail(&player->pending, request);
}

static gboolean
ttl_cb(gpointer data)
{
	struct umms_player *player = data;
	/* Still working on a request (opening a slow URI): not idle yet. */
	if (player->pending.length)
		return G_SOURCE_CONTINUE;
	umms_source_forget(&player->ttl_timer);
	umms_info("player %u: idle for %" G_GUINT64_FORMAT " s, expiring", player->id, player->ttl);
	umms_player_release(player);
	return G_SOURCE_REMOVE;
}

static gboolean
stats_cb(gpointer data)
{
	umms_player_emit_changed(data);
	return G_SOURCE_CONTINUE;
}

/* Timers follow the state: the ttl counts while not playing, Stats while playing. */
static void
update_timers(struct umms_player *player)
{
	bool playing = player->state == UMMS_PLAYER_PLAYING;
	if (playing)
		umms_source_clear(&player->ttl_timer);
	if (!player->ttl_timer && !playing && !player->attended && player->ttl > 0)
		player->ttl_timer = umms_source_timeout(
			(unsigned)MIN(player->ttl * 1000, G_MAXUINT), ttl_cb, player);

	if (playing && !player->stats_timer)
		player->stats_timer = umms_source_timeout(1000, stats_cb, player);
	else if (!playing)
		umms_source_clear(&player->stats_timer);
}

static void
set_state(struct umms_player *player, enum umms_player_state state)
{
	enum umms_player_state was = player->state;
	if (was != state)
		umms_debug("player %u: %s → %s", player->id, umms_player_state_name(was),
			umms_player_state_name(state));
	player->state = state;
	update_timers(player);
	if (was != state)
		wl_signal_emit_mutable(&player->events.state, &was);
	umms_player_emit_changed(player);
}

void
umms_player_touch(struct umms_player *player)
{
	umms_source_clear(&player->ttl_timer);
	update_timers(player);
}

void
umms_player_release(struct umms_player *player)
{
	wl_signal_emit_mutable(&player->events.release, player);
}

static void
stop_open_timer(struct umms_player *player)
{
	umms_source_clear(&player->open_timer);
	umms_source_clear(&player->reply_timer);
}

static gboolean
reply_timeout_cb(gpointer data)
{
	struct umms_player *player = data;
	umms_source_forget(&player->reply_timer);
	/*
	 * A network source can hold a state change or a seek as long as it
	 * sends nothing (a live stream nobody feeds): the request is accepted,
	 * its caller is answered now, and the outcome follows as State and, on
	 * failure, the Error signal (engine_settled).
	 */
	for (GList *l = player->pending.head; l; l = l->next) {
		struct pending_request *request = l->data;
		if (request->kind == REQUEST_OPEN || !request->done)
			continue;
		umms_info("player %u: %s still busy, replying", player->id, player->uri);
		request->done(NULL, request->data);
		request->done = NULL;
		request->answered = true;
	}
	return G_SOURCE_REMOVE;
}

void
umms_player_push_answered(struct umms_player *player, enum request_kind kind,
	enum umms_player_state state, umms_player_done_fn done, void *data)
{
	umms_player_push_request(player, kind, state, done, data);
	if (!done || !player->config->engine.reply_timeout || player->reply_timer ||
			g_str_has_prefix(player->uri, "file:"))
		return;
	player->reply_timer = umms_source_timeout(player->config->engine.reply_timeout,
		reply_timeout_cb, player);
}

/*
 * While the clock stands, the frame on screen came before anyone wanted it
 * (or in another format) and would not come again until Play: made again,
 * by seeking to where the player is. With a request in flight (a page's
 * seek sent just before its video was placed), its picture may have been
 * made before the output was wanted, so once it settles.
 */
void
umms_player_redraw_still(struct umms_player *player)
{
	if (!player->engine || !player->uri || player->state == UMMS_PLAYER_PLAYING ||
			!player->engine->info.seekable)
		return;
	if (player->pending.length) {
		player->redraw_when_settled = true;
		return;
	}
	player->redraw_when_settled = false;
	umms_player_request_position(player, umms_player_get_position(player), NULL, NULL, NULL);
}

static void
engine_settled(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_settled);
	const GError *error = data;
	stop_open_timer(player);

	GQueue done = G_QUEUE_INIT;
	bool seeked = false, answered = false;
	/* Where the requests leave it, set at once: events.state sees the change. */
	enum umms_player_state state = player->state;
	struct pending_request *request;
	while ((request = g_queue_pop_head(&player->pending))) {
		if (!error && request->kind == REQUEST_STATE)
			state = request->state;
		seeked |= request->kind == REQUEST_SEEK;
		answered |= request->answered;
		g_queue_push_tail(&done, request);
	}
	if (error && player->engine->state == UMMS_ENGINE_IDLE)
		state = UMMS_PLAYER_STOPPED;
	set_state(player, state);

	while ((request = g_queue_pop_head(&done)))
		complete(request, error);
	/*
	 * A caller answered early learns of the failure as everyone does; but
	 * an engine that was lost (its worker crashed or hung) reports it by
	 * events.error right after, which sends Error: one is enough.
	 */
	if (error && answered && !umms_engine_error_is_lost(error))
		wl_signal_emit_mutable(&player->events.error, (void *)error);
	if (seeked && !error) {
		int64_t position = umms_player_get_position(player);
		wl_signal_emit_mutable(&player->events.seeked, &position);
	}
	if (player->redraw_when_settled && !player->pending.length) {
		player->redraw_when_settled = false;
		if (!error && player->video_wanted)
			umms_player_redraw_still(player);
	}
}

static void
engine_info(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_info);
	umms_player_emit_changed(player);
}

static void
engine_eos(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_eos);
	if (umms_timeshift_give_up(player->timeshift))
		return;
	umms_info("player %u: end of %s", player->id, player->uri);
	/* Stopped, back at the start, at normal speed: Play starts over. */
	player->engine->impl->set_state(player->engine, UMMS_ENGINE_IDLE, NULL);
	if (player->rate != 1.0) {
		player->rate = 1.0;
		player->engine->impl->set_rate(player->engine, 1.0, NULL);
	}
	set_state(player, UMMS_PLAYER_STOPPED);
	wl_signal_emit_mutable(&player->events.eos, player);
}

static void
engine_error(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_error);
	const GError *error = data;
	if (umms_timeshift_give_up(player->timeshift)) {
		umms_warn("player %u: %s", player->id, error->message);
		return;
	}
	set_state(player, UMMS_PLAYER_STOPPED);
	wl_signal_emit_mutable(&player->events.error, (void *)error);
}

static void
engine_frame(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_frame);
	wl_signal_emit_mutable(&player->events.frame, data);
}

static void
engine_cue(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_cue);
	wl_signal_emit_mutable(&player->events.subtitle_cue, data);
}

static void
engine_eit(struct wl_listener *listener, void *data)
{
	struct umms_player *player = wl_container_of(listener, player, engine_eit);
	wl_signal_emit_mutable(&player->events.eit, data);
}

static void
detach_engine(struct umms_player *player)
{
	if (!player->engine)
		return;
	wl_list_remove(&player->engine_eit.link);
	wl_list_remove(&player->engine_cue.link);
	wl_list_remove(&player->engine_settled.link);
	wl_list_remove(&player->engine_info.link);
	wl_list_remove(&player->engine_eos.link);
	wl_list_remove(&player->engine_error.link);
	wl_list_remove(&player->engine_frame.link);
	umms_engine_destroy(player->engine);
	player->engine = NULL;
}

static bool
attach_engine(struct umms_player *player, const struct umms_engine_impl *impl, GError **error)
{
	if (player->engine && player->engine->impl == impl)
		return true;
	struct umms_engine *engine = impl->create(player->config, error);
	if (!engine)
		return false;
	detach_engine(player);
	player->engine = engine;
	player->engine_settled.notify = engine_settled;
	wl_signal_add(&engine->events.settled, &player->engine_settled);
	player->engine_info.notify = engine_info;
	wl_signal_add(&engine->events.info, &player->engine_info);
	player->engine_eos.notify = engine_eos;
	wl_signal_add(&engine->events.eos, &player->engine_eos);
	player->engine_error.notify = engine_error;
	wl_signal_add(&engine->events.error, &player->engine_error);
	player->engine_frame.notify = engine_frame;
	wl_signal_add(&engine->events.frame, &player->engine_frame);
	player->engine_cue.notify = engine_cue;
	wl_signal_add(&engine->events.subtitle_cue, &player->engine_cue);
	player->engine_eit.notify = engine_eit;
	wl_signal_add(&engine->events.eit, &player->engine_eit);
	engine->impl->set_volume(engine, player->volume, player->mute);
	if (engine->impl->set_subtitle_delay)
		engine->impl->set_subtitle_delay(engine, player->subtitle_delay);
	if (engine->impl->set_video_size)
		engine->impl->set_video_size(engine, player->video_max_width,
			player->video_max_height);
	if (player->video_wanted)
		engine->impl->set_video_output(engine, true, player->video_formats,
			player->n_video_formats, NULL);
	if (engine->impl->set_video_dmabuf)
		engine->impl->set_video_dmabuf(engine, !player->dmabuf_restricted,
			player->dmabuf_formats, player->n_dmabuf_formats);
	engine->impl->set_video_delay(engine, player->video_delay_ns);
	engine->impl->set_blocked(engine, player->blocked);
	if (engine->impl->set_hardware_codecs)
		engine->impl->set_hardware_codecs(engine,
			(const char *const *)player->hardware_codecs);
	return true;
}

void
umms_player_set_hardware_codecs(struct umms_player *player, const char *const *codecs)
{
	g_strfreev(player->hardware_codecs);
	player->hardware_codecs = codecs ? g_strdupv((char **)codecs) : NULL;
	if (player->engine && player->engine->impl->set_hardware_codecs)
		player->engine->impl->set_hardware_codecs(player->engine, codecs);
}

struct umms_player *
umms_player_create(unsigned id, const struct umms_config *config,
	const struct umms_player_options *options)
{
	struct umms_player *player = g_new0(struct umms_player, 1);
	player->id = id;
	player->config = config;
	player->attended = options->attended;
	player->owner = g_strdup(options->owner);
	player->ttl = options->ttl;
	player->priority = options->priority;
	player->state = UMMS_PLAYER_STOPPED;
	player->subtitle_track = -1;
	player->rate = 1.0;
	player->volume = 1.0;
	g_queue_init(&player->pending);
	wl_signal_init(&player->events.changed);
	wl_signal_init(&player->events.seeked);
	wl_signal_init(&player->events.eos);
	wl_signal_init(&player->events.error);
	wl_signal_init(&player->events.release);
	wl_signal_init(&player->events.resource);
	wl_signal_init(&player->events.frame);
	wl_signal_init(&player->events.subtitle_cue);
	wl_signal_init(&player->events.destroy);
	wl_signal_init(&player->events.eit);
	wl_signal_init(&player->events.blocked);
	wl_signal_init(&player->events.state);
	wl_list_init(&player->gates);
	umms_player_timeshift_init(player);
	update_timers(player);
	umms_info("player %u created (%s, %s)", id, player->attended ? "attended" : "unattended",
		umms_priority_name(player->priority));
	return player;
}

void
umms_player_destroy(struct umms_player *player)
{
	if (!player)
		return;
	wl_signal_emit_mutable(&player->events.destroy, player);
	complete_all(player, UMMS_ERROR_NOT_FOUND, "the player was destroyed");
	umms_timeshift_destroy(player->timeshift);
	player->timeshift = NULL;
	stop_open_timer(player);
	umms_source_clear(&player->ttl_timer);
	umms_source_clear(&player->stats_timer);
	detach_engine(player);
	g_assert(wl_list_empty(&player->events.changed.listener_list));
	umms_info("player %u destroyed", player->id);
	g_free(player->video_formats);
	g_free(player->dmabuf_formats);
	g_free(player->owner);
	g_free(player->resource_note);
	g_free(player->block_reason);
	g_free(player->block_rating);
	g_free(player->subtitle_uri);
	g_strfreev(player->hardware_codecs);
	g_free(player->uri);
	g_free(player);
}

bool
umms_player_need_media(struct umms_player *player, GError **error)
{
	if (player->uri && player->engine)
		return true;
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE,
		"no media: call SetUri first");
	return false;
}

static gboolean
open_timeout_cb(gpointer data)
{
	struct umms_player *player = data;
	umms_source_forget(&player->open_timer);
	struct pending_request *request = g_queue_peek_head(&player->pending);
	if (!request || request->kind != REQUEST_OPEN)
		return G_SOURCE_REMOVE;
	g_queue_pop_head(&player->pending);
	if (!g_str_has_prefix(player->uri, "file:")) {
		/* A slow source: answer now; the properties follow as they are known. */
		umms_info("player %u: %s still opening, replying", player->id, player->uri);
		complete(request, NULL);
		return G_SOURCE_REMOVE;
	}
	/*
	 * A local file takes well under a second to open. One that has not
	 * opened by now never will (GStreamer 1.22's qtdemux can hang on some
	 * truncated files without an error): give up and say so.
	 */
	umms_warn("player %u: %s did not open in %u ms", player->id, player->uri,
		player->config->engine.open_timeout);
	g_autoptr(GError) error = g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
		"%s could not be opened within %u ms: damaged or unreadable?", player->uri,
		player->config->engine.open_timeout);
	complete(request, error);
	if (player->engine->impl->set_state(player->engine, UMMS_ENGINE_IDLE, NULL))
		umms_player_push_request(player, REQUEST_STATE, UMMS_PLAYER_STOPPED, NULL, NULL);
	return G_SOURCE_REMOVE;
}

/* The engine opens @uri: what the player shows from now on. */
static bool
open_engine(struct umms_player *player, const char *uri, const char *why,
	umms_player_done_fn done, void *data, GError **error)
{
	/* In a worker process of its own when isolation allows (engine-proxy.h). */
	const struct umms_engine_impl *impl = umms_engine_proxy_wrap(umms_engines_select(uri, error));
	if (!impl || !attach_engine(player, impl, error))
		return false;
	complete_all(player, UMMS_ERROR_INVALID_STATE, why);
	stop_open_timer(player);
	g_autofree char *engine_uri = player->engine_uri ?
		player->engine_uri(player->uri_gate_data, player, uri) : NULL;
	if (!player->engine->impl->open(player->engine, engine_uri ? engine_uri : uri, error))
		return false;
	player->rate = 1.0;
	umms_player_push_request(player, REQUEST_OPEN, UMMS_PLAYER_STOPPED, done, data);
	if (player->config->engine.open_timeout)
		player->open_timer = umms_source_timeout(player->config->engine.open_timeout,
			open_timeout_cb, player);
	return true;
}

bool
umms_player_set_uri(struct umms_player *player, const char *text,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	g_autofree char *uri = umms_player_normalize_uri(text, error);
	if (!uri)
		return false;
	if (!umms_player_ask_gates_uri(player, uri, error) ||
			(player->uri_gate && !player->uri_gate(player->uri_gate_data, player, uri, error)))
		return false;
	umms_timeshift_stop(player->timeshift);
	if (!open_engine(player, uri, "interrupted: another URI was set", done, data, error)) {
		/* What the gate took for @uri goes back: the media stays what it was. */
		if (player->uri_gate)
			player->uri_gate(player->uri_gate_data, player, player->uri, NULL);
		return false;
	}
	g_free(player->uri);
	player->uri = g_steal_pointer(&uri);
	player->track_serial++;
	umms_player_forget_subtitles(player);
	set_state(player, UMMS_PLAYER_STOPPED);
	return true;
}

static bool request_state(struct umms_player *player, enum umms_player_state state,
	umms_player_done_fn done, void *data, GError **error);

bool
umms_player_reopen(struct umms_player *player, const char *uri, enum umms_player_state state,
	umms_player_done_fn done, void *data, GError **error)
{
	/* State stays what it was meanwhile: the same media, going on. */
	player->reopening = true;
	bool opened = open_engine(player, uri, "interrupted: the media was opened again", NULL,
		NULL, error);
	player->reopening = false;
	if (!opened)
		return false;
	umms_player_restore_subtitles(player);
	return state == UMMS_PLAYER_STOPPED || request_state(player, state, done, data, error);
}

static bool
request_state(struct umms_player *player, enum umms_player_state state,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	if (!umms_player_need_media(player, error))
		return false;
	enum umms_engine_state target = state == UMMS_PLAYER_PLAYING ? UMMS_ENGINE_PLAYING :
		state == UMMS_PLAYER_PAUSED ? UMMS_ENGINE_PAUSED : UMMS_ENGINE_IDLE;
	if (state == UMMS_PLAYER_STOPPED) {
		complete_all(player, UMMS_ERROR_INVALID_STATE, "interrupted by Stop");
		stop_open_timer(player);
	}
	if (umms_timeshift_switching(player->timeshift)) {
		/* The engine let go of the source; the ring opens in this state. */
		set_state(player, state);
		if (done)
			done(NULL, data);
		return true;
	}
	int64_t oldest;
	if (state == UMMS_PLAYER_PLAYING && umms_timeshift_catch_up(player->timeshift, &oldest) &&
			player->engine->impl->seek(player->engine, oldest, NULL))
		umms_player_push_request(player, REQUEST_SEEK, player->state, NULL, NULL);
	if (!player->engine->impl->set_state(player->engine, target, error))
		return false;
	if (state == UMMS_PLAYER_STOPPED && player->rate != 1.0) {
		player->rate = 1.0;
		player->engine->impl->set_rate(player->engine, 1.0, NULL);
	}
	umms_player_push_answered(player, REQUEST_STATE, state, done, data);
	return true;
}

bool
umms_player_play(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error)
{
	if (player->uri && !umms_player_ask_gates_play(player, error))
		return false;
	return request_state(player, UMMS_PLAYER_PLAYING, done, data, error);
}

bool
umms_player_pause(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error)
{
	return request_state(player, UMMS_PLAYER_PAUSED, done, data, error);
}

bool
umms_player_stop(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error)
{
	if (!player->uri) {
		/* Nothing open is as stopped as it gets. */
		umms_player_touch(player);
		if (done)
			done(NULL, data);
		return true;
	}
	return request_state(player, UMMS_PLAYER_STOPPED, done, data, error);
}

bool
umms_player_set_rate(struct umms_player *player, double rate, GError **error)
{
	umms_player_touch(player);
	if (rate == 0.0 || !isfinite(rate) || fabs(rate) > MAX_RATE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"rate %g: must be between -%g and %g and not 0", rate, MAX_RATE, MAX_RATE);
		return false;
	}
	if (rate == player->rate)
		return true;
	if (player->engine && player->uri) {
		const struct umms_media_info *info = &player->engine->info;
		if (info->live) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"a live stream plays at rate 1 only");
			return false;
		}
		if (!info->seekable && player->engine->state != UMMS_ENGINE_IDLE) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
				"this media cannot change its rate (it cannot seek)");
			return false;
		}
		if (!player->engine->impl->set_rate(player->engine, rate, error))
			return false;
	}
	player->rate = rate;
	umms_player_emit_changed(player);
	return true;
}

bool
umms_player_set_volume(struct umms_player *player, double volume, GError **error)
{
	umms_player_touch(player);
	if (!(volume >= 0.0 && volume <= 1.0)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"volume %g is outside 0.0 to 1.0", volume);
		return false;
	}
	player->volume = volume;
	if (player->engine)
		player->engine->impl->set_volume(player->engine, player->volume, player->mute);
	umms_player_emit_changed(player);
	return true;
}

void
umms_player_set_mute(struct umms_player *player, bool mute)
{
	umms_player_touch(player);
	player->mute = mute;
	if (player->engine)
		player->engine->impl->set_volume(player->engine, player->volume, player->mute);
	umms_player_emit_changed(player);
}

void
umms_player_report_display(struct umms_player *player, bool shown, int64_t latency_ns)
{
	if (!shown) {
		player->frames_discarded++;
		return;
	}
	player->frames_displayed++;
	/* Smoothed over about 16 frames: one late frame does not move it much. */
	player->display_latency_ns = player->frames_displayed == 1 ? latency_ns :
		player->display_latency_ns + (latency_ns - player->display_latency_ns) / 16;
	/*
	 * Lip sync: send frames earlier by what they are late, slowly (an
	 * integrator), within 0–100 ms. Latency is measured against the due
	 * time, so it tends to 0 once the delay matches the display path.
	 * The engine gets it once it has moved a millisecond from what it has:
	 * finer is far below what an eye can tell, and each change is a
	 * request to a worker, which was one more wake-up for it with every
	 * frame whose presentation a compositor reported (issue 19).
	 */
	int64_t wanted = CLAMP(player->video_delay_wanted_ns + latency_ns / 16, 0, 100 * 1000000);
	player->video_delay_wanted_ns = wanted;
	if (player->engine && llabs(wanted - player->video_delay_ns) >= VIDEO_DELAY_STEP_NS) {
		player->video_delay_ns = wanted;
		player->engine->impl->set_video_delay(player->engine, wanted);
	}
}

int64_t
umms_player_get_position(struct umms_player *player)
{
	if (!player->engine || !player->uri)
		return 0;
	int64_t position = player->engine->impl->get_position(player->engine);
	return position < 0 ? 0 : position;
}

static const struct umms_media_info *
empty_info(void)
{
	static struct umms_media_info info;
	static gsize initialized;
	if (g_once_init_enter(&initialized)) {
		umms_media_info_init(&info);
		g_once_init_leave(&initialized, 1);
	}
	return &info;
}

const struct umms_media_info *
umms_player_get_info(struct umms_player *player)
{
	return player->engine && player->uri ? &player->engine->info : empty_info();
}

void
umms_player_get_stats(struct umms_player *player, struct umms_engine_stats *stats)
{
	*stats = (struct umms_engine_stats){ 0 };
	if (player->engine)
		player->engine->impl->get_stats(player->engine, stats);
	/* A frame a compositor threw away was dropped as much as a late one. */
	stats->dropped += player->frames_discarded;
	stats->copies += player->frames_copied;
}

void
umms_player_report_copy(struct umms_player *player)
{
	player->frames_copied++;
}

char *
umms_player_describe_decoder(struct umms_player *player)
{
	const struct umms_media_info *info = umms_player_get_info(player);
	if (!info->decoder)
		return g_strdup("");
	return g_strdup_printf("%s (%s%s%s)", info->decoder,
		info->decoder_hardware ? "hardware" : "software",
		player->resource_note ? "; " : "", player->resource_note ? player->resource_note : "");
}

const char *
umms_player_engine_name(struct umms_player *player)
{
	if (!player->engine)
		return "";
	return umms_engine_proxy_real_name(player->engine);
}

bool
umms_player_seekable(struct umms_player *player)
{
	int64_t start, end;
	return umms_player_get_info(player)->seekable ||
		umms_timeshift_get_window(player->timeshift, &start, &end);
}

bool
umms_player_has_video(struct umms_player *player)
{
	return umms_player_get_info(player)->tracks[UMMS_TRACK_VIDEO]->len > 0;
}
