#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include <gst/gst.h>

#include "config.h"
#include "engine.h"
#include "error.h"
#include "ipc.h"
#include "log.h"
#include "worker-heap.h"
#include "worker-record.h"
#include "worker-sandbox.h"
#include "worker-warm-up.h"
#include "source.h"
#include "subpicture.h"
#include "worker-private.h"
#include "worker.h"


static void
fill_status(struct umms_worker *worker, struct umms_ipc_status *status)
{
	struct umms_engine *engine = worker->engine;
	memset(status, 0, sizeof(*status));
	if (!engine)
		return; /* none since the sandbox failed */
	status->state = engine->state;
	status->position = engine->impl->get_position(engine);
	if (status->position < -1)
		status->position = -1;
	status->taken_ns = g_get_monotonic_time() * 1000;
	status->rate = worker->rate;
	if (engine->impl->get_seek_range)
		status->has_range = engine->impl->get_seek_range(engine, &status->range_start,
			&status->range_end);
	struct umms_engine_stats stats = { 0 };
	engine->impl->get_stats(engine, &stats);
	status->decoded = stats.decoded;
	status->presented = stats.presented;
	status->dropped = stats.dropped;
	status->copies = stats.copies;
	status->dmabuf = stats.dmabuf;
	status->audio_buffers = stats.audio_buffers;
	status->audio_bytes = stats.audio_bytes;
}

void
umms_worker_send_message(struct umms_worker *worker, uint32_t type, uint32_t id,
	struct umms_ipc_writer *w)
{
	g_autoptr(GError) error = NULL;
	/* Blocking: ummsd reads; if it does not, it has hung up or will kill us. */
	if (!umms_ipc_send(worker->sock, type, id, w, false, &error)) {
		umms_debug("worker: cannot send to ummsd: %s", error->message);
		g_main_loop_quit(worker->loop);
	}
}

static void update_status_timer(struct umms_worker *worker);
static void flush_settled(struct umms_worker *worker);

/* An event: the status block, then whatever @error and @info add. */
void
umms_worker_send_event(struct umms_worker *worker, uint32_t type, const GError *error,
	bool optional_error)
{
	/* Whatever else happens comes after a settle still waited for. */
	if (type != UMMS_IPC_SETTLED && type != UMMS_IPC_STATUS)
		flush_settled(worker);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	struct umms_ipc_status status;
	fill_status(worker, &status);
	umms_ipc_put_status(&w, &status);
	if (optional_error)
		umms_ipc_put_u8(&w, error != NULL);
	if (error)
		umms_ipc_put_error(&w, error);
	if (type == UMMS_IPC_INFO)
		umms_ipc_put_media_info(&w, &worker->engine->info);
	umms_worker_send_message(worker, type, 0, &w);
	umms_ipc_writer_finish(&w);
	worker->status_sent_us = g_get_monotonic_time();
	update_status_timer(worker);
}

static gboolean
status_cb(gpointer data)
{
	struct umms_worker *worker = data;
	/* Since the last status, at most a period and a half (a status_with_frame() apart). */
	gint64 since_ms = (g_get_monotonic_time() - worker->status_sent_us) / 1000;
	unsigned played = (unsigned)CLAMP(since_ms, 0, worker->status_period * 3 / 2);
	umms_worker_send_event(worker, UMMS_IPC_STATUS, NULL, false);
	/* Played a while: what the heap holds beyond the stream's needs goes back. */
	if (worker->engine && worker->engine->state == UMMS_ENGINE_PLAYING &&
			worker->played_ms < UMMS_WORKER_HEAP_SETTLE_MS) {
		worker->played_ms += played;
		if (worker->played_ms >= UMMS_WORKER_HEAP_SETTLE_MS)
			umms_worker_heap_trim();
	}
	return G_SOURCE_CONTINUE;
}

/*
 * While frames come, the status goes after a frame, three quarters of a
 * period or more after the last: ummsd reads both in one wake-up, and the
 * timer, pushed to half a period past the next status, wakes neither
 * process (issue 19: ummsd's main thread woke 2.5 times a frame, 2.1 now).
 * Audio alone, or frames seldom, leave it to the timer.
 */
static void
status_with_frame(struct umms_worker *worker)
{
	GSource *timer = worker->status_timer;
	if (!timer)
		return;
	gint64 period_us = (gint64)worker->status_period * 1000;
	if (g_get_monotonic_time() - worker->status_sent_us < period_us * 3 / 4)
		return;
	status_cb(worker);
	/* The send may have changed the timer (a new period): then it is new. */
	if (worker->status_timer == timer)
		g_source_set_ready_time(timer, worker->status_sent_us + period_us * 3 / 2);
}

/*
 * Statuses while playing; while paused only for media whose seek range may
 * move meanwhile (live, or of no known length: a time-shift ring that
 * grows). A paused file wakes nobody.
 */
static void
update_status_timer(struct umms_worker *worker)
{
	struct umms_engine *engine = worker->engine;
	unsigned period = 0;
	if (engine && engine->state == UMMS_ENGINE_PLAYING)
		period = UMMS_IPC_STATUS_MS;
	else if (engine && engine->state == UMMS_ENGINE_PAUSED &&
			(engine->info.live || engine->info.duration < 0))
		period = UMMS_IPC_STATUS_MS * 5;
	if (period != worker->status_period)
		umms_source_clear(&worker->status_timer);
	worker->status_period = period;
	if (period && !worker->status_timer)
		worker->status_timer = umms_source_timeout(period, status_cb, worker);
}

#define SETTLE_POLL_MS 5
#define SETTLE_WAIT_MS 250

static bool
position_shows_requests(struct umms_worker *worker)
{
	struct umms_engine *engine = worker->engine;
	if (engine->state != UMMS_ENGINE_PAUSED)
		return true;
	int64_t position = engine->impl->get_position(engine);
	if (worker->expect_target >= 0 && llabs(position - worker->expect_target) > 500000)
		return false;
	if (worker->expect_away_from >= 0 && position == worker->expect_away_from)
		return false;
	return true;
}

static void
flush_settled(struct umms_worker *worker)
{
	if (!worker->settle_deferred)
		return;
	worker->settle_deferred = false;
	umms_source_clear(&worker->settle_timer);
	worker->expect_target = worker->expect_away_from = -1;
	umms_worker_send_event(worker, UMMS_IPC_SETTLED, NULL, true);
}

static gboolean
settle_poll_cb(gpointer data)
{
	struct umms_worker *worker = data;
	if (++worker->settle_polls < SETTLE_WAIT_MS / SETTLE_POLL_MS &&
			!position_shows_requests(worker))
		return G_SOURCE_CONTINUE;
	umms_source_forget(&worker->settle_timer);
	flush_settled(worker);
	return G_SOURCE_REMOVE;
}

static void
settled_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, settled);
	const GError *error = data;
	flush_settled(worker);
	if (error || position_shows_requests(worker)) {
		/* A seek while idle is kept for the next preroll: so is what it shows. */
		if (error || worker->engine->state != UMMS_ENGINE_IDLE)
			worker->expect_target = worker->expect_away_from = -1;
		umms_worker_send_event(worker, UMMS_IPC_SETTLED, error, true);
		return;
	}
	worker->settle_deferred = true;
	worker->settle_polls = 0;
	worker->settle_timer = umms_source_timeout(SETTLE_POLL_MS, settle_poll_cb, worker);
}

/*
 * Whether an INFO now would tell ummsd nothing its last one did not. playbin
 * announces its streams again whenever a tag on them moves: a parser's
 * bitrate, about ten times a second while playing H.264. Each INFO makes
 * ummsd read and compare every property of the player, for nothing.
 */
static bool
info_repeats(struct umms_worker *worker)
{
	struct umms_ipc_status status;
	fill_status(worker, &status);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, status.state);
	umms_ipc_put_f64(&w, status.rate);
	umms_ipc_put_u8(&w, status.has_range);
	umms_ipc_put_i64(&w, status.range_start);
	umms_ipc_put_i64(&w, status.range_end);
	umms_ipc_put_media_info(&w, &worker->engine->info);
	bool same = worker->info_sent && g_bytes_get_size(worker->info_sent) == w.data->len &&
		memcmp(g_bytes_get_data(worker->info_sent, NULL), w.data->data, w.data->len) == 0;
	if (!same) {
		g_clear_pointer(&worker->info_sent, g_bytes_unref);
		worker->info_sent = g_bytes_new(w.data->data, w.data->len);
	}
	umms_ipc_writer_finish(&w);
	return same;
}

static void
info_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, info);
	if (!info_repeats(worker))
		umms_worker_send_event(worker, UMMS_IPC_INFO, NULL, false);
}

static void
eos_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, eos);
	umms_worker_send_event(worker, UMMS_IPC_EOS, NULL, false);
}

static void
error_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, error);
	umms_worker_send_event(worker, UMMS_IPC_ERROR, data, false);
}

static void
frame_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, frame);
	struct umms_frame *frame = data;
	/* The frame a settle waited for is shown now: the settle goes first. */
	flush_settled(worker);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	struct umms_ipc_frame f = {
		.frame_id = ++worker->next_frame_id,
		.kind = frame->kind,
		.format = frame->format,
		.width = frame->width, .height = frame->height,
		.crop_x = frame->crop_x, .crop_y = frame->crop_y,
		.crop_width = frame->crop_width, .crop_height = frame->crop_height,
		.par_n = frame->par_n, .par_d = frame->par_d,
		.modifier = frame->modifier,
		.n_planes = (uint32_t)frame->n_planes,
		.memory_id = frame->memory_id,
		.present_ns = frame->present_ns,
		.position = frame->position,
	};
	for (int i = 0; i < frame->n_planes && i < UMMS_FRAME_MAX_PLANES; i++) {
		f.planes[i].fd_index = (uint32_t)umms_ipc_put_fd(&w, frame->planes[i].fd);
		f.planes[i].offset = frame->planes[i].offset;
		f.planes[i].stride = frame->planes[i].stride;
	}
	struct umms_subpicture *sub = frame->subpicture;
	if (sub) {
		f.has_subpicture = true;
		f.subpicture.fd_index = (uint32_t)umms_ipc_put_fd(&w, sub->fd);
		f.subpicture.serial = sub->serial;
		f.subpicture.stride = sub->stride;
		f.subpicture.x = sub->x;
		f.subpicture.y = sub->y;
		f.subpicture.width = sub->width;
		f.subpicture.height = sub->height;
		f.subpicture.picture_width = sub->picture_width;
		f.subpicture.picture_height = sub->picture_height;
	}
	umms_ipc_put_frame(&w, &f);
	uint64_t *key = g_new(uint64_t, 1);
	*key = f.frame_id;
	g_hash_table_insert(worker->frames, key, umms_frame_ref(frame));
	umms_worker_send_message(worker, UMMS_IPC_FRAME, 0, &w);
	umms_ipc_writer_finish(&w);
	status_with_frame(worker);
}

static void
cue_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, cue);
	const struct umms_subtitle_cue *cue = data;
	flush_settled(worker);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_i64(&w, cue->start);
	umms_ipc_put_i64(&w, cue->end);
	umms_ipc_put_string(&w, cue->text ? cue->text : "");
	umms_ipc_put_string(&w, cue->markup ? cue->markup : "");
	umms_ipc_put_string(&w, cue->format ? cue->format : "pango");
	umms_worker_send_message(worker, UMMS_IPC_CUE, 0, &w);
	umms_ipc_writer_finish(&w);
}

/* An EIT section of what the engine plays or the recording reads. */
static void
send_eit(void *data, const struct umms_eit *eit)
{
	struct umms_worker *worker = data;
	g_autoptr(GError) error = NULL;
	if (!umms_ipc_send_eit(worker->sock, eit, &error)) {
		umms_debug("worker: cannot send to ummsd: %s", error->message);
		g_main_loop_quit(worker->loop);
	}
}

static void
eit_cb(struct wl_listener *listener, void *data)
{
	struct umms_worker *worker = wl_container_of(listener, worker, eit);
	send_eit(worker, data);
}

void
umms_worker_detach_engine(struct umms_worker *worker)
{
	if (!worker->engine)
		return;
	wl_list_remove(&worker->eit.link);
	wl_list_remove(&worker->settled.link);
	wl_list_remove(&worker->info.link);
	wl_list_remove(&worker->eos.link);
	wl_list_remove(&worker->error.link);
	wl_list_remove(&worker->frame.link);
	wl_list_remove(&worker->cue.link);
	umms_engine_destroy(worker->engine);
	worker->engine = NULL;
	g_clear_pointer(&worker->info_sent, g_bytes_unref);
}

bool
umms_worker_attach_engine(struct umms_worker *worker, const struct umms_engine_impl *impl, GError **error)
{
	if (worker->engine && worker->engine->impl == impl)
		return true;
	struct umms_engine *engine = impl->create(&worker->config, error);
	if (!engine)
		return false;
	umms_worker_detach_engine(worker);
	worker->engine = engine;
	worker->settled.notify = settled_cb;
	wl_signal_add(&engine->events.settled, &worker->settled);
	worker->info.notify = info_cb;
	wl_signal_add(&engine->events.info, &worker->info);
	worker->eos.notify = eos_cb;
	wl_signal_add(&engine->events.eos, &worker->eos);
	worker->error.notify = error_cb;
	wl_signal_add(&engine->events.error, &worker->error);
	worker->frame.notify = frame_cb;
	wl_signal_add(&engine->events.frame, &worker->frame);
	worker->cue.notify = cue_cb;
	wl_signal_add(&engine->events.subtitle_cue, &worker->cue);
	worker->eit.notify = eit_cb;
	wl_signal_add(&engine->events.eit, &worker->eit);
	return true;
}


static void
record_ended(void *data, const char *message)
{
	struct umms_worker *worker = data;
	g_autoptr(GError) error = message ?
		g_error_new_literal(UMMS_ERROR, UMMS_ERROR_FAILED, message) : NULL;
	umms_worker_send_event(worker, message ? UMMS_IPC_ERROR : UMMS_IPC_EOS, error, false);
}

static void
record_flowing(void *data)
{
	umms_worker_send_event(data, UMMS_IPC_STATUS, NULL, false);
}

static gboolean
io_cb(gint fd, GIOCondition condition, gpointer data)
{
	struct umms_worker *worker = data;
	bool more = false;
	for (int i = 0; i < 64 || more; i++) {
		struct umms_ipc_message message;
		bool again = false;
		g_autoptr(GError) error = NULL;
		int got = umms_ipc_receive(worker->sock, &message, &again, &error);
		if (got == 0 && again) {
			if (!more)
				return G_SOURCE_CONTINUE;
			/* The rest of a batch is on its way: the engine waits for it. */
			struct pollfd pfd = { .fd = worker->sock, .events = POLLIN };
			if (poll(&pfd, 1, 1000) <= 0)
				more = false;
			continue;
		}
		if (got <= 0) {
			/* ummsd hung up (or sent nonsense): this worker's work is over. */
			if (got < 0) {
				umms_warn("worker: from ummsd: %s", error->message);
				worker->status = 1;
			}
			worker->io = NULL;
			g_main_loop_quit(worker->loop);
			return G_SOURCE_REMOVE;
		}
		more = message.header.type != UMMS_IPC_PING && message.header.id == UMMS_IPC_MORE;
		struct umms_ipc_reader r;
		umms_ipc_reader_init(&r, message.payload, message.header.length);
		/*
		 * One descriptor with OPEN and SET_SUBTITLE_URI (a local file), one
		 * or two with RECORD (the file to write, the local source), one or
		 * none with RING_FILE (a ring's file), none else.
		 */
		uint32_t type = message.header.type;
		bool malformed = message.n_fds > (type == UMMS_IPC_RECORD ? 2 : 1) ||
			(message.n_fds == 1 && type != UMMS_IPC_OPEN &&
			type != UMMS_IPC_SET_SUBTITLE_URI && type != UMMS_IPC_RECORD &&
			type != UMMS_IPC_RING_FILE);
		bool ok = !malformed && umms_worker_handle_request(worker, &message, &r, &malformed, &error);
		if (ok)
			umms_worker_sandbox_keep(&worker->sandbox, &message);
		else if (!malformed) {
			/* Refused outright: ummsd's proxy reports it as a failed settle. */
			umms_worker_send_event(worker, UMMS_IPC_REFUSED, error, false);
		}
		umms_ipc_message_clear(&message);
		if (malformed) {
			umms_warn("worker: malformed request %u from ummsd", message.header.type);
			worker->status = 1;
			worker->io = NULL;
			g_main_loop_quit(worker->loop);
			return G_SOURCE_REMOVE;
		}
		update_status_timer(worker);
	}
	return G_SOURCE_CONTINUE;
}

/* INIT, the first message: its configuration text, @number the worker's. */
static char *
receive_init(int sock, unsigned *number, GError **error)
{
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	if (poll(&pfd, 1, -1) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "poll: %s", g_strerror(errno));
		return NULL;
	}
	struct umms_ipc_message message;
	bool again = false;
	int got = umms_ipc_receive(sock, &message, &again, error);
	if (got <= 0) {
		if (got == 0)
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "ummsd hung up before INIT");
		return NULL;
	}
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message.payload, message.header.length);
	*number = umms_ipc_get_u32(&r);
	char *text = umms_ipc_get_string(&r);
	bool ok = message.header.type == UMMS_IPC_INIT && message.n_fds == 0 && text &&
		umms_ipc_reader_done(&r);
	umms_ipc_message_clear(&message);
	if (!ok) {
		g_free(text);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "the first message is not INIT");
		return NULL;
	}
	return text;
}

static void
frame_unref(gpointer data)
{
	umms_frame_unref(data);
}

/* worker.h: what a fork server does once for all the workers it forks. */
struct umms_worker *
umms_worker_prepare(int sock, GError **error)
{
	struct umms_worker *worker = g_new0(struct umms_worker, 1);
	worker->sock = sock;
	worker->rate = 1.0;
	worker->expect_target = worker->expect_away_from = -1;
	umms_worker_record_init(&worker->record, record_flowing, record_ended, send_eit, worker);
	umms_config_init(&worker->config);
	worker->config_loaded = true;
	worker->frames = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, frame_unref);
	unsigned number = 0;
	g_autofree char *name = NULL;
	worker->config_text = receive_init(sock, &number, error);
	if (!worker->config_text)
		goto fail;
	name = g_strdup_printf("ummsd's configuration (worker %u)", number);
	if (!umms_config_load_data(&worker->config, worker->config_text,
			strlen(worker->config_text), name, error))
		goto fail;
	umms_worker_sandbox_init(&worker->sandbox, &worker->config);
	umms_log_set_level(worker->config.log.level);
	if (worker->config.log.scopes && !umms_log_set_scopes(worker->config.log.scopes, error))
		goto fail;
	/* Init only: a fork server's children start the engines' background work (engine.h). */
	if (!umms_engines_prepare(&worker->config, error))
		goto fail;
	/*
	 * The sandbox's plugin ranks before READY (85 ms here, seconds when
	 * emulated), not at the first OPEN, which would leave ummsd's pings
	 * unanswered that long. On failure the first OPEN tries again.
	 */
	GError *rank_error = NULL;
	if (!umms_worker_sandbox_rank(&worker->sandbox, &rank_error)) {
		umms_warn("worker: %s", rank_error->message);
		g_error_free(rank_error);
	}
	return worker;
fail:
	umms_worker_destroy(worker);
	return NULL;
}

/* The rest: a main loop and the first engine. */
static bool
finish_create(struct umms_worker *worker, GError **error)
{
	/*
	 * The hardware decoder plugins, loaded here, not by a fork server
	 * (engine.h), and waited for: before READY ummsd does not ping, and
	 * the sandbox of the first OPEN takes one thread (nvcodec: 1.8 s).
	 */
	umms_engines_start();
	umms_engines_wait();
	worker->loop = g_main_loop_new(NULL, FALSE);
	/* The first engine, ready for the first URI: its pipeline costs nothing later. */
	return umms_worker_attach_engine(worker, umms_engines_list()[0], error);
}

struct umms_worker *
umms_worker_create(int sock, GError **error)
{
	struct umms_worker *worker = umms_worker_prepare(sock, error);
	if (worker && !finish_create(worker, error)) {
		umms_worker_destroy(worker);
		return NULL;
	}
	return worker;
}

bool
umms_worker_adopt(struct umms_worker *worker, int sock, GError **error)
{
	worker->sock = sock;
	unsigned number = 0;
	g_autofree char *text = receive_init(sock, &number, error);
	if (!text)
		return false;
	/* ummsd forks only for a worker of the fork server's own configuration. */
	if (strcmp(text, worker->config_text) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"worker %u: not the fork server's configuration", number);
		return false;
	}
	return finish_create(worker, error);
}

bool
umms_worker_sandboxed(const struct umms_worker *worker)
{
	return worker->sandbox.entered;
}

int
umms_worker_run(struct umms_worker *worker)
{
	umms_worker_send_event(worker, UMMS_IPC_READY, NULL, false);
	worker->io = g_unix_fd_source_new(worker->sock, G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(worker->io, G_SOURCE_FUNC(io_cb), worker, NULL);
	/* A request with every frame: no wake-up around each (engine-supervisor.c). */
	g_source_set_can_recurse(worker->io, TRUE);
	g_source_attach(worker->io, NULL);
	g_source_unref(worker->io);
	umms_worker_warm_up_start(&worker->warm);
	g_main_loop_run(worker->loop);
	return worker->status;
}

void
umms_worker_destroy(struct umms_worker *worker)
{
	if (!worker)
		return;
	if (worker->io)
		g_source_destroy(worker->io);
	umms_source_clear(&worker->status_timer);
	umms_worker_warm_up_stop(&worker->warm);
	umms_source_clear(&worker->settle_timer);
	umms_worker_record_finish(&worker->record);
	/* Frames first: their memory goes back to pools the engine still has. */
	g_hash_table_destroy(worker->frames);
	umms_worker_detach_engine(worker);
	umms_engines_finish();
	if (worker->loop)
		g_main_loop_unref(worker->loop);
	umms_config_finish(&worker->config);
	g_free(worker->config_text);
	umms_worker_sandbox_finish(&worker->sandbox);
	g_free(worker);
}
