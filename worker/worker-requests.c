/*
 * Requests from ummsd to a worker's engine (worker-private.h): each
 * message's payload read, checked and handed to the engine, or to the
 * recording a recording's worker runs.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/gst.h>

#include "error.h"
#include "log.h"
#include "subpicture.h"
#include "worker-private.h"

/* A recording's worker (worker-record.h): RECORD, RECORD_STOP and PING only. */
static bool
handle_record(struct umms_worker *worker, const struct umms_ipc_message *message,
	struct umms_ipc_reader *r, bool *malformed, GError **error)
{
	if (message->header.type == UMMS_IPC_PING) {
		if (!(*malformed = !umms_ipc_reader_done(r)))
			umms_worker_send_message(worker, UMMS_IPC_PONG, message->header.id, NULL);
		return !*malformed;
	}
	if (message->header.type == UMMS_IPC_RECORD && !worker->record.started) {
		/* No engine in this one; nothing more to warm up. */
		umms_worker_warm_up_stop(&worker->warm);
		umms_worker_detach_engine(worker);
	}
	if (!umms_worker_record_handle(&worker->record, &worker->sandbox, worker->sock, message,
			r, malformed, error))
		return false;
	/* Started: from now on ummsd pings it (the start may take long: emulation). */
	if (message->header.type == UMMS_IPC_RECORD)
		umms_worker_send_event(worker, UMMS_IPC_SETTLED, NULL, true);
	return true;
}

/* The spare's settings, on the engine made inside the sandbox. */
static void
replay_settings(struct umms_worker *worker)
{
	GArray *settings = umms_worker_sandbox_take_settings(&worker->sandbox);
	for (guint i = 0; settings && i < settings->len; i++) {
		struct umms_ipc_message *m = &g_array_index(settings, struct umms_ipc_message, i);
		struct umms_ipc_reader r;
		umms_ipc_reader_init(&r, m->payload, m->header.length);
		bool malformed = false;
		g_autoptr(GError) error = NULL;
		/* Taken once already: a refusal now is only logged. */
		if (!umms_worker_handle_request(worker, m, &r, &malformed, &error) && error)
			umms_debug("worker: setting %u again: %s", m->header.type, error->message);
	}
	umms_worker_sandbox_free_settings(settings);
}

/* One request; false with @error when the engine refuses it. */
bool
umms_worker_handle_request(struct umms_worker *worker, struct umms_ipc_message *message,
	struct umms_ipc_reader *r, bool *malformed, GError **error)
{
	bool ok = true;
	uint32_t type = message->header.type;
	if (worker->sandbox.error && type != UMMS_IPC_PING && type != UMMS_IPC_RELEASE) {
		*error = g_error_copy(worker->sandbox.error);
		return false;
	}
	if (type == UMMS_IPC_RECORD || type == UMMS_IPC_RECORD_STOP || worker->record.started)
		return handle_record(worker, message, r, malformed, error);
	struct umms_engine *engine = worker->engine;
	/*
	 * None after an OPEN that failed once the spare's engine was dropped
	 * (its sandbox, or no engine for the URI): pings, releases and another
	 * OPEN are still answered.
	 */
	if (!engine && type != UMMS_IPC_PING && type != UMMS_IPC_RELEASE &&
			type != UMMS_IPC_OPEN) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE, "no media opened");
		return false;
	}
	const struct umms_engine_impl *impl = engine ? engine->impl : NULL;
	switch (type) {
	case UMMS_IPC_PING:
		if (!umms_ipc_reader_done(r))
			break;
		umms_worker_send_message(worker, UMMS_IPC_PONG, message->header.id, NULL);
		return true;
	case UMMS_IPC_OPEN: {
		g_autofree char *uri = umms_ipc_get_string(r);
		if (!umms_ipc_reader_done(r) || !uri)
			break;
		/* Taken: what is still unloaded is for this media to load, if it needs it. */
		umms_worker_warm_up_stop(&worker->warm);
		/*
		 * The spare's engine goes: entering would close its pipeline's
		 * descriptors under it. A new one is made inside.
		 */
		if (worker->sandbox.enabled && !worker->sandbox.entered)
			umms_worker_detach_engine(worker);
		/* ummsd's descriptor of a local file: the only media left to open. */
		int media_fd = message->n_fds == 1 ? message->fds[0] : -1;
		if (!umms_worker_sandbox_enter(&worker->sandbox, worker->sock, -1, uri, media_fd,
				error))
			return false;
		const struct umms_engine_impl *chosen = umms_engines_select(uri, error);
		if (!chosen || !umms_worker_attach_engine(worker, chosen, error))
			return false;
		replay_settings(worker);
		worker->rate = 1.0;
		worker->expect_target = worker->expect_away_from = -1;
		worker->played_ms = 0;
		/* New media: its first INFO goes out whatever it says. */
		g_clear_pointer(&worker->info_sent, g_bytes_unref);
		return worker->engine->impl->open(worker->engine, uri, error);
	}
	case UMMS_IPC_SET_STATE: {
		uint32_t state = umms_ipc_get_u32(r);
		if (!umms_ipc_reader_done(r) || state > UMMS_ENGINE_PLAYING)
			break;
		if (state == UMMS_ENGINE_IDLE)
			worker->expect_target = worker->expect_away_from = -1;
		return impl->set_state(engine, (enum umms_engine_state)state, error);
	}
	case UMMS_IPC_SEEK: {
		int64_t position = umms_ipc_get_i64(r);
		if (!umms_ipc_reader_done(r))
			break;
		if (!impl->seek(engine, position, error))
			return false;
		worker->expect_target = position;
		worker->expect_away_from = -1;
		return true;
	}
	case UMMS_IPC_SET_RATE: {
		double rate = umms_ipc_get_f64(r);
		if (!umms_ipc_reader_done(r))
			break;
		ok = impl->set_rate(engine, rate, error);
		if (ok)
			worker->rate = rate;
		return ok;
	}
	case UMMS_IPC_STEP: {
		int32_t frames = umms_ipc_get_i32(r);
		if (!umms_ipc_reader_done(r))
			break;
		int64_t from = impl->get_position(engine);
		if (!impl->step(engine, frames, error))
			return false;
		if (frames != 0 && worker->expect_target < 0)
			worker->expect_away_from = from;
		return true;
	}
	case UMMS_IPC_SELECT_TRACK: {
		uint32_t kind = umms_ipc_get_u32(r);
		int32_t index = umms_ipc_get_i32(r);
		if (!umms_ipc_reader_done(r) || kind >= UMMS_TRACK_KINDS)
			break;
		return impl->select_track(engine, (enum umms_track_kind)kind, index, error);
	}
	case UMMS_IPC_SET_SUBTITLE_URI: {
		g_autofree char *uri = umms_ipc_get_string(r);
		if (!umms_ipc_reader_done(r) || (message->n_fds > 0 && !uri))
			break;
		/* A local file comes opened: read from the descriptor, not the path. */
		if (message->n_fds == 1 && impl->set_subtitle_file) {
			int fd = message->fds[0];
			message->fds[0] = -1;
			return impl->set_subtitle_file(engine, uri, fd, error);
		}
		return impl->set_subtitle_uri(engine, uri, error);
	}
	case UMMS_IPC_SET_VOLUME: {
		double volume = umms_ipc_get_f64(r);
		bool mute = umms_ipc_get_bool(r);
		if (!umms_ipc_reader_done(r))
			break;
		impl->set_volume(engine, volume, mute);
		return true;
	}
	case UMMS_IPC_SET_VIDEO_OUTPUT: {
		bool wanted = umms_ipc_get_bool(r);
		uint32_t n = umms_ipc_get_u32(r);
		if (r->failed || n > UMMS_IPC_MAX_FORMATS)
			break;
		uint32_t formats[UMMS_IPC_MAX_FORMATS];
		for (uint32_t i = 0; i < n; i++)
			formats[i] = umms_ipc_get_u32(r);
		if (!umms_ipc_reader_done(r))
			break;
		return impl->set_video_output(engine, wanted, formats, n, error);
	}
	case UMMS_IPC_SET_VIDEO_DMABUF: {
		bool any = umms_ipc_get_bool(r);
		uint32_t n = umms_ipc_get_u32(r);
		if (r->failed || n > UMMS_IPC_MAX_FORMATS)
			break;
		struct umms_frame_dmabuf_format formats[UMMS_IPC_MAX_FORMATS];
		for (uint32_t i = 0; i < n; i++) {
			formats[i].format = umms_ipc_get_u32(r);
			formats[i].modifier = umms_ipc_get_u64(r);
		}
		if (!umms_ipc_reader_done(r))
			break;
		if (impl->set_video_dmabuf)
			impl->set_video_dmabuf(engine, any, formats, n);
		return true;
	}
	case UMMS_IPC_SET_VIDEO_SIZE: {
		uint32_t width = umms_ipc_get_u32(r);
		uint32_t height = umms_ipc_get_u32(r);
		if (!umms_ipc_reader_done(r) || width > UMMS_IPC_MAX_VIDEO_SIZE ||
				height > UMMS_IPC_MAX_VIDEO_SIZE)
			break;
		if (impl->set_video_size)
			impl->set_video_size(engine, width, height);
		return true;
	}
	case UMMS_IPC_SET_VIDEO_DELAY:
	case UMMS_IPC_SET_SUBTITLE_DELAY: {
		int64_t value = umms_ipc_get_i64(r);
		if (!umms_ipc_reader_done(r))
			break;
		if (message->header.type == UMMS_IPC_SET_VIDEO_DELAY)
			impl->set_video_delay(engine, value);
		else if (impl->set_subtitle_delay)
			impl->set_subtitle_delay(engine, value);
		return true;
	}
	case UMMS_IPC_SET_HARDWARE_CODECS: {
		int32_t n = umms_ipc_get_i32(r);
		if (r->failed || n < -1 || n > UMMS_IPC_MAX_CODECS)
			break;
		g_auto(GStrv) codecs = n < 0 ? NULL : g_new0(char *, (gsize)n + 1);
		for (int32_t i = 0; i < n && !r->failed; i++)
			codecs[i] = umms_ipc_get_string(r);
		if (!umms_ipc_reader_done(r) || (codecs && n > 0 && !codecs[n - 1]))
			break;
		worker->sandbox.hardware = !codecs || codecs[0];
		if (impl->set_hardware_codecs)
			impl->set_hardware_codecs(engine, (const char *const *)codecs);
		return true;
	}
	case UMMS_IPC_SET_BLOCKED: {
		bool blocked = umms_ipc_get_bool(r);
		if (!umms_ipc_reader_done(r))
			break;
		impl->set_blocked(engine, blocked);
		return true;
	}
	case UMMS_IPC_RELEASE: {
		uint64_t id = umms_ipc_get_u64(r);
		if (!umms_ipc_reader_done(r))
			break;
		g_hash_table_remove(worker->frames, &id);
		return true;
	}
	default:
		break;
	}
	*malformed = true;
	return false;
}

