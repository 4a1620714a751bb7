#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "engine-proxy.h"
#include "engine-proxy-private.h"
#include "eit.h"
#include "engine-supervisor.h"
#include "error.h"
#include "ipc.h"
#include "log.h"
#include "source.h"
#include "subpicture.h"

/* ---- the engine ----------------------------------------------------------- */


struct queued {
	uint32_t type;
	GByteArray *data;
	int fd;                  /* sent with it (owned), -1 none */
};

static void
queued_free(gpointer data)
{
	struct queued *q = data;
	if (q->data)
		g_byte_array_unref(q->data);
	if (q->fd >= 0)
		close(q->fd);
	g_free(q);
}

static void
drop_queued(struct proxy *proxy)
{
	umms_source_clear(&proxy->flush);
	g_queue_clear_full(&proxy->out, queued_free);
}

static gboolean
flush_cb(gpointer data)
{
	struct proxy *proxy = data;
	umms_source_forget(&proxy->flush);
	struct queued *q;
	while ((q = g_queue_pop_head(&proxy->out))) {
		struct umms_ipc_writer w = { .data = q->data };
		if (q->fd >= 0)
			umms_ipc_put_fd(&w, q->fd);
		bool more = !g_queue_is_empty(&proxy->out);
		if (proxy->link && umms_worker_process_alive(proxy->link->process))
			umms_worker_process_send(proxy->link->process, q->type,
				more ? UMMS_IPC_MORE : 0, q->data ? &w : NULL);
		queued_free(q);
	}
	return G_SOURCE_REMOVE;
}
static void update_watchdog(struct proxy *proxy);

static void
reset_status(struct proxy *proxy)
{
	proxy->hold_status = false;
	memset(&proxy->status, 0, sizeof(proxy->status));
	proxy->status.state = UMMS_ENGINE_IDLE;
	proxy->status.rate = 1.0;
	proxy->status.taken_ns = g_get_monotonic_time() * 1000;
}

static void
take_status(struct proxy *proxy, const struct umms_ipc_status *status)
{
	if (proxy->hold_status)
		return;
	proxy->status = *status;
	proxy->base.state = (enum umms_engine_state)status->state;
	if (proxy->link)
		umms_worker_process_set_playing(proxy->link->process,
			proxy->base.state == UMMS_ENGINE_PLAYING);
}

static void
settle(struct proxy *proxy, const GError *error)
{
	/* SetUri served: the next spare may start (idle, low priority). */
	if (proxy->opening)
		umms_supervisor_refill();
	proxy->outstanding = 0;
	proxy->opening = false;
	proxy->pending_seek = -1;
	wl_signal_emit_mutable(&proxy->base.events.settled, (void *)error);
}

static void
handle_message(void *data, struct umms_ipc_message *message)
{
	struct proxy *proxy = data;
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message->payload, message->header.length);
	struct umms_ipc_status status;
	uint32_t type = message->header.type;
	bool has_status = type == UMMS_IPC_READY || type == UMMS_IPC_STATUS ||
		type == UMMS_IPC_SETTLED || type == UMMS_IPC_REFUSED || type == UMMS_IPC_INFO ||
		type == UMMS_IPC_EOS || type == UMMS_IPC_ERROR;
	if (type != UMMS_IPC_FRAME && message->n_fds > 0)
		goto malformed;
	if (has_status && !umms_ipc_get_status(&r, &status))
		goto malformed;

	switch (type) {
	case UMMS_IPC_READY:
	case UMMS_IPC_STATUS:
	case UMMS_IPC_EOS:
		if (!umms_ipc_reader_done(&r))
			goto malformed;
		take_status(proxy, &status);
		if (type == UMMS_IPC_EOS)
			wl_signal_emit_mutable(&proxy->base.events.eos, NULL);
		break;
	case UMMS_IPC_PONG:
		if (!umms_ipc_reader_done(&r))
			goto malformed;
		umms_worker_watch_pong(&proxy->watch, message->header.id);
		break;
	case UMMS_IPC_SETTLED:
	case UMMS_IPC_REFUSED:
	case UMMS_IPC_ERROR: {
		bool failed = type != UMMS_IPC_SETTLED || umms_ipc_get_bool(&r);
		g_autoptr(GError) error = failed ? umms_ipc_get_error(&r) : NULL;
		/* A lost engine is ummsd's to declare (handle_died), never the worker's. */
		if (!umms_ipc_reader_done(&r) || (failed && !error) ||
				umms_engine_error_is_lost(error))
			goto malformed;
		proxy->hold_status = false;
		take_status(proxy, &status);
		if (type == UMMS_IPC_ERROR) {
			proxy->outstanding = 0;
			wl_signal_emit_mutable(&proxy->base.events.error, error);
		} else {
			settle(proxy, error);
		}
		break;
	}
	case UMMS_IPC_INFO:
		if (!umms_ipc_get_media_info(&r, &proxy->base.info) || !umms_ipc_reader_done(&r))
			goto malformed;
		take_status(proxy, &status);
		wl_signal_emit_mutable(&proxy->base.events.info, NULL);
		break;
	case UMMS_IPC_FRAME: {
		struct umms_frame *frame = umms_proxy_frame_from_message(proxy->link, message);
		if (!frame)
			goto bad_frame;
		/* Sent before the worker heard of the block: nobody sees it. */
		if (!proxy->blocked)
			wl_signal_emit_mutable(&proxy->base.events.frame, frame);
		umms_frame_unref(frame);
		break;
	}
	case UMMS_IPC_CUE: {
		struct umms_subtitle_cue cue;
		cue.start = umms_ipc_get_i64(&r);
		cue.end = umms_ipc_get_i64(&r);
		g_autofree char *text = umms_ipc_get_string(&r);
		g_autofree char *markup = umms_ipc_get_string(&r);
		g_autofree char *format = umms_ipc_get_string(&r);
		if (!umms_ipc_reader_done(&r) || !text || !markup || !format || cue.end < -1)
			goto malformed;
		cue.text = text;
		cue.markup = markup;
		cue.format = format;
		if (!proxy->blocked)
			wl_signal_emit_mutable(&proxy->base.events.subtitle_cue, &cue);
		break;
	}
	case UMMS_IPC_EIT: {
		struct umms_eit eit;
		if (!umms_ipc_get_eit(&r, &eit))
			goto malformed;
		if (!umms_ipc_reader_done(&r)) {
			umms_eit_clear(&eit);
			goto malformed;
		}
		wl_signal_emit_mutable(&proxy->base.events.eit, &eit);
		umms_eit_clear(&eit);
		break;
	}
	default:
		goto malformed;
	}
	if (proxy->link)
		update_watchdog(proxy);
	return;
malformed:
	umms_warn("engine worker %u: malformed message %u", (unsigned)proxy->link->number, type);
	umms_worker_process_kill(proxy->link->process, UMMS_ERROR_ENGINE_CRASHED,
		"sent a malformed message and was stopped");
	return;
bad_frame:
	umms_worker_process_kill(proxy->link->process, UMMS_ERROR_ENGINE_CRASHED,
		"sent a frame whose memory does not hold it and was stopped");
}

static void
drop_worker(struct proxy *proxy)
{
	umms_source_clear(&proxy->watchdog);
	proxy->watch.ping_sent = 0;
	drop_queued(proxy);
	if (!proxy->link)
		return;
	struct proxy_link *link = proxy->link;
	proxy->link = NULL;
	umms_worker_process_attach(link->process, NULL, NULL);
	if (umms_worker_process_alive(link->process)) {
		/* Frames may still live: the link keeps the process struct for them. */
		umms_worker_process_release(umms_worker_process_ref(link->process));
	}
	umms_proxy_link_unref(link);
}

static void
handle_died(void *data, int code, const char *why)
{
	struct proxy *proxy = data;
	g_autofree char *uri = g_steal_pointer(&proxy->uri);
	g_autoptr(GError) error = g_error_new(UMMS_ERROR, code, "the engine playing %s %s",
		uri ? uri : "nothing", why);
	drop_worker(proxy);
	proxy->lost = true;
	bool pending = proxy->outstanding > 0;
	reset_status(proxy);
	proxy->base.state = UMMS_ENGINE_IDLE;
	umms_media_info_reset(&proxy->base.info);
	wl_signal_emit_mutable(&proxy->base.events.info, NULL);
	if (pending)
		settle(proxy, error);
	wl_signal_emit_mutable(&proxy->base.events.error, error);
}

static const struct umms_worker_handler handler = {
	.message = handle_message,
	.died = handle_died,
};

static gboolean
watchdog_cb(gpointer data)
{
	struct proxy *proxy = data;
	if (!proxy->link)
		return G_SOURCE_CONTINUE;
	struct umms_worker_process *process = proxy->link->process;
	const struct umms_config *config = proxy->config;
	if (!umms_worker_watch_check(&proxy->watch, process, config))
		return G_SOURCE_CONTINUE;
	int64_t deadline = (int64_t)config->engine.answer_timeout + config->engine.hang_timeout;
	if (proxy->outstanding > 0 && (!proxy->opening || !umms_worker_process_ready(process)) &&
			g_get_monotonic_time() - proxy->busy_since > deadline * 1000) {
		g_autofree char *why = g_strdup_printf("did not finish a request within %"
			G_GINT64_FORMAT " ms and was stopped", deadline);
		umms_worker_process_kill(process, UMMS_ERROR_ENGINE_HUNG, why);
	}
	return G_SOURCE_CONTINUE;
}

/* Watched while it works (a request under way) or plays; idle, nothing wakes. */
static void
update_watchdog(struct proxy *proxy)
{
	bool busy = proxy->link && (proxy->outstanding > 0 ||
		proxy->status.state == UMMS_ENGINE_PLAYING);
	if (busy && !proxy->watchdog) {
		proxy->watchdog = umms_source_timeout(umms_worker_watch_period(proxy->config),
			watchdog_cb, proxy);
	} else if (!busy && proxy->watchdog) {
		umms_source_clear(&proxy->watchdog);
		proxy->watch.ping_sent = 0;
	}
}

void
umms_proxy_send_request(struct proxy *proxy, uint32_t type, struct umms_ipc_writer *w)
{
	if (!proxy->link) {
		if (w && w->n_fds == 1)
			close(w->fds[0]);
		if (w)
			umms_ipc_writer_finish(w);
		return;
	}
	/*
	 * Requests made in one go (StepFrame: a state, then a step) reach the
	 * engine in one go: queued here and sent together from the main loop,
	 * all but the last marked UMMS_IPC_MORE, so the worker queues them all
	 * before its engine runs any (and settles them once, as in-process).
	 */
	struct queued *q = g_new0(struct queued, 1);
	q->type = type;
	q->data = w ? g_byte_array_ref(w->data) : NULL;
	/* A request's one descriptor (a media file) is the queue's now. */
	q->fd = w && w->n_fds == 1 ? w->fds[0] : -1;
	g_queue_push_tail(&proxy->out, q);
	if (w)
		umms_ipc_writer_finish(w);
	if (!proxy->flush)
		proxy->flush = umms_source_idle(flush_cb, proxy);
}

/* A request that settles: counted until the worker says it has. */
static void
send_queued(struct proxy *proxy, uint32_t type, struct umms_ipc_writer *w)
{
	if (proxy->outstanding++ == 0)
		proxy->busy_since = g_get_monotonic_time();
	umms_proxy_send_request(proxy, type, w);
	update_watchdog(proxy);
}

static void
send_settings(struct proxy *proxy)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_f64(&w, proxy->volume);
	umms_ipc_put_u8(&w, proxy->mute);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VOLUME, &w);

	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, proxy->video_wanted);
	umms_ipc_put_u32(&w, (uint32_t)proxy->n_formats);
	for (size_t i = 0; i < proxy->n_formats; i++)
		umms_ipc_put_u32(&w, proxy->formats[i]);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_OUTPUT, &w);

	if (proxy->dmabuf_set) {
		umms_ipc_writer_init(&w);
		umms_ipc_put_u8(&w, proxy->dmabuf_any);
		umms_ipc_put_u32(&w, (uint32_t)proxy->n_dmabuf);
		for (size_t i = 0; i < proxy->n_dmabuf; i++) {
			umms_ipc_put_u32(&w, proxy->dmabuf[i].format);
			umms_ipc_put_u64(&w, proxy->dmabuf[i].modifier);
		}
		umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_DMABUF, &w);
	}
	if (proxy->max_width || proxy->max_height) {
		umms_ipc_writer_init(&w);
		umms_ipc_put_u32(&w, proxy->max_width);
		umms_ipc_put_u32(&w, proxy->max_height);
		umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_SIZE, &w);
	}
	umms_ipc_writer_init(&w);
	umms_ipc_put_i64(&w, proxy->video_delay);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_DELAY, &w);
	umms_ipc_writer_init(&w);
	umms_ipc_put_i64(&w, proxy->subtitle_delay);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_SUBTITLE_DELAY, &w);
	if (proxy->codecs_set) {
		umms_ipc_writer_init(&w);
		int n = proxy->codecs ? (int)g_strv_length(proxy->codecs) : -1;
		umms_ipc_put_i32(&w, n);
		for (int i = 0; i < n; i++)
			umms_ipc_put_string(&w, proxy->codecs[i]);
		umms_proxy_send_request(proxy, UMMS_IPC_SET_HARDWARE_CODECS, &w);
	}
	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, proxy->blocked);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_BLOCKED, &w);
}

static struct umms_engine *
proxy_create(const struct umms_config *config, GError **error)
{
	struct proxy *proxy = g_new0(struct proxy, 1);
	umms_engine_init(&proxy->base, &umms_engine_proxy_impl);
	proxy->config = config;
	proxy->volume = 1.0;
	proxy->pending_seek = -1;
	reset_status(proxy);
	return &proxy->base;
}

static void
proxy_destroy(struct umms_engine *base)
{
	struct proxy *proxy = proxy_from(base);
	umms_engine_finish(&proxy->base);
	drop_worker(proxy);
	g_free(proxy->uri);
	g_free(proxy->formats);
	g_free(proxy->dmabuf);
	g_strfreev(proxy->codecs);
	g_free(proxy);
}

static bool
proxy_open(struct umms_engine *base, const char *uri, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	/*
	 * The worker's sandbox allows the network or not for good, as its
	 * first URI needed: a network URI after a file takes a fresh worker,
	 * and so does a file after a network URI (no network left to it: a
	 * time-shift ring after its live source too), and a file after a file
	 * where Landlock keeps a worker to the media it was given first.
	 */
	bool sandbox = proxy->config->engine.sandbox;
	bool network = umms_ipc_uri_is_network(uri);
	/* Said once where the kernel has none. */
	bool landlock = sandbox && proxy->config->engine.landlock && umms_proxy_landlock();
	/* Opened first: a file that cannot be leaves the worker as it was. */
	int media_fd = -1;
	if (sandbox && !umms_proxy_media_fd(uri, true, &media_fd, error))
		return false;
	if (proxy->link && proxy->link_opened && sandbox &&
			(network != proxy->link_network || (!network && landlock)))
		drop_worker(proxy);
	if (!proxy->link) {
		struct umms_worker_process *process = umms_worker_process_take(proxy->config, error);
		if (!process) {
			if (media_fd >= 0)
				close(media_fd);
			return false;
		}
		proxy->link = umms_proxy_link_new(process);
		proxy->link_opened = false;
		umms_worker_process_attach(process, &handler, proxy);
		send_settings(proxy);
	}
	if (!proxy->link_opened) {
		proxy->link_opened = true;
		proxy->link_network = network;
	}
	proxy->real = umms_engines_select(uri, NULL);
	proxy->lost = false;
	g_free(proxy->uri);
	proxy->uri = g_strdup(uri);
	/* A new media makes every queued request pointless (as in the engine). */
	proxy->outstanding = 0;
	proxy->pending_seek = -1;
	reset_status(proxy);
	umms_media_info_reset(&proxy->base.info);
	proxy->opening = true;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_string(&w, uri);
	if (media_fd >= 0)
		umms_ipc_put_fd(&w, media_fd);
	send_queued(proxy, UMMS_IPC_OPEN, &w);
	return true;
}

static bool
need_media(struct proxy *proxy, GError **error)
{
	if (proxy->uri)
		return true;
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE, proxy->lost ?
		"the engine of this media stopped: set the URI again" : "no media is open");
	return false;
}

static bool
proxy_set_state(struct umms_engine *base, enum umms_engine_state state, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	if (!need_media(proxy, error))
		return false;
	if (state == UMMS_ENGINE_IDLE) {
		/* As the engine: stopping drops what was queued; the position is 0 at once. */
		proxy->pending_seek = -1;
		proxy->status.state = UMMS_ENGINE_IDLE;
		proxy->status.position = 0;
		proxy->status.has_range = false;
		proxy->hold_status = true;
	}
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, state);
	send_queued(proxy, UMMS_IPC_SET_STATE, &w);
	return true;
}

static bool
proxy_seek(struct umms_engine *base, int64_t position, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	if (position < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"position %" G_GINT64_FORMAT " µs is before the start", position);
		return false;
	}
	proxy->pending_seek = position;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_i64(&w, position);
	send_queued(proxy, UMMS_IPC_SEEK, &w);
	return true;
}

static bool
proxy_set_rate(struct umms_engine *base, double rate, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	if (rate == 0.0 || !isfinite(rate)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"rate %g: must not be 0", rate);
		return false;
	}
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_f64(&w, rate);
	send_queued(proxy, UMMS_IPC_SET_RATE, &w);
	return true;
}

static bool
proxy_step(struct umms_engine *base, int frames, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_i32(&w, frames);
	send_queued(proxy, UMMS_IPC_STEP, &w);
	return true;
}

static bool
proxy_select_track(struct umms_engine *base, enum umms_track_kind kind, int index,
	GError **error)
{
	struct proxy *proxy = proxy_from(base);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, kind);
	umms_ipc_put_i32(&w, index);
	send_queued(proxy, UMMS_IPC_SELECT_TRACK, &w);
	return true;
}

static bool
proxy_set_subtitle_uri(struct umms_engine *base, const char *uri, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	if (uri && !umms_engines_select(uri, error))
		return false;
	/* A local file, opened here: a sandboxed worker reads the descriptor. */
	int fd = -1;
	if (proxy->config->engine.sandbox && !umms_proxy_media_fd(uri, false, &fd, error))
		return false;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_string(&w, uri);
	if (fd >= 0)
		umms_ipc_put_fd(&w, fd);
	send_queued(proxy, UMMS_IPC_SET_SUBTITLE_URI, &w);
	return true;
}

static int64_t
proxy_get_position(struct umms_engine *base)
{
	struct proxy *proxy = proxy_from(base);
	if (proxy->pending_seek >= 0)
		return proxy->pending_seek;
	const struct umms_ipc_status *status = &proxy->status;
	int64_t position = status->position;
	if (position < 0 || status->state != UMMS_ENGINE_PLAYING)
		return position;
	/* Playing: from the latest status, on the same (system-wide) clock. */
	int64_t elapsed_us = (g_get_monotonic_time() * 1000 - status->taken_ns) / 1000;
	/* No further than a few statuses ahead: a stalled worker shows as stalled. */
	elapsed_us = CLAMP(elapsed_us, 0, 5 * UMMS_IPC_STATUS_MS * 1000);
	position += (int64_t)((double)elapsed_us * status->rate);
	int64_t duration = proxy->base.info.duration;
	if (duration > 0 && position > duration)
		position = duration;
	return MAX(position, 0);
}

static bool
proxy_get_seek_range(struct umms_engine *base, int64_t *start, int64_t *end)
{
	struct proxy *proxy = proxy_from(base);
	if (!proxy->status.has_range)
		return false;
	*start = proxy->status.range_start;
	*end = proxy->status.range_end;
	return true;
}

static void
proxy_get_stats(struct umms_engine *base, struct umms_engine_stats *stats)
{
	struct proxy *proxy = proxy_from(base);
	stats->decoded = proxy->status.decoded;
	stats->presented = proxy->status.presented;
	stats->dropped = proxy->status.dropped;
	stats->copies = proxy->status.copies;
	stats->dmabuf = proxy->status.dmabuf;
	stats->audio_buffers = proxy->status.audio_buffers;
	stats->audio_bytes = proxy->status.audio_bytes;
}

static bool
proxy_probe_uri(const char *uri, GError **error)
{
	return umms_engines_select(uri, error) != NULL;
}

const struct umms_engine_impl umms_engine_proxy_impl = {
	.name = "worker",
	.probe_uri = proxy_probe_uri,
	.create = proxy_create,
	.destroy = proxy_destroy,
	.open = proxy_open,
	.set_state = proxy_set_state,
	.seek = proxy_seek,
	.set_rate = proxy_set_rate,
	.step = proxy_step,
	.select_track = proxy_select_track,
	.set_subtitle_uri = proxy_set_subtitle_uri,
	.set_subtitle_delay = umms_proxy_set_subtitle_delay,
	.set_volume = umms_proxy_set_volume,
	.set_video_output = umms_proxy_set_video_output,
	.set_video_dmabuf = umms_proxy_set_video_dmabuf,
	.set_video_size = umms_proxy_set_video_size,
	.set_video_delay = umms_proxy_set_video_delay,
	.set_hardware_codecs = umms_proxy_set_hardware_codecs,
	.set_blocked = umms_proxy_set_blocked,
	.get_position = proxy_get_position,
	.get_seek_range = proxy_get_seek_range,
	.get_stats = proxy_get_stats,
};

const struct umms_engine_impl *
umms_engine_proxy_wrap(const struct umms_engine_impl *impl)
{
	return impl && umms_supervisor_enabled() ? &umms_engine_proxy_impl : impl;
}

pid_t
umms_engine_proxy_pid(struct umms_engine *engine)
{
	if (!engine || engine->impl != &umms_engine_proxy_impl)
		return 0;
	struct proxy *proxy = proxy_from(engine);
	return proxy->link && umms_worker_process_alive(proxy->link->process) ?
		umms_worker_process_pid(proxy->link->process) : 0;
}

const char *
umms_engine_proxy_real_name(struct umms_engine *engine)
{
	if (engine->impl != &umms_engine_proxy_impl)
		return engine->impl->name;
	struct proxy *proxy = proxy_from(engine);
	return proxy->real ? proxy->real->name : umms_engines_list()[0]->name;
}
