/*
 * What worker.c and worker-requests.c share: the worker's state, and how a
 * request from ummsd reaches the engine. Not for the rest of the worker:
 * worker.h.
 */
#ifndef UMMS_WORKER_PRIVATE_H
#define UMMS_WORKER_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

#include "config.h"
#include "engine.h"
#include "ipc.h"
#include "worker-record.h"
#include "worker-sandbox.h"
#include "worker-warm-up.h"

struct umms_worker {
	int sock;
	struct umms_config config;
	char *config_text;       /* as INIT gave it */
	bool config_loaded;
	struct umms_engine *engine;
	double rate;
	GMainLoop *loop;
	GSource *io;
	GSource *status_timer;
	unsigned status_period;  /* ms, 0: none */
	gint64 status_sent_us;   /* monotonic, when the last status went (any event's) */
	unsigned played_ms;      /* played since the last OPEN, until the heap's trim */
	GHashTable *frames;      /* frame id (uint64_t *) → struct umms_frame * (a reference) */
	uint64_t next_frame_id;
	int status;              /* exit status */
	/*
	 * What the requests since the last settle should show in the position
	 * once done: a seek's target, or a step's move away from where it was
	 * (-1: nothing). The engine may settle a moment before the frame it
	 * landed on is shown (and so its position read): SETTLED waits for it
	 * a little (SETTLE_WAIT_MS at most), so ummsd's answers from its
	 * status are exact right after a seek or a step, as in-process.
	 */
	int64_t expect_target, expect_away_from;
	bool settle_deferred;
	GSource *settle_timer;
	guint settle_polls;
	struct umms_worker_warm_up warm;
	struct umms_worker_sandbox sandbox; /* entered at the first OPEN */
	struct umms_worker_record record; /* a recording's worker (RECORD): no engine */
	/*
	 * The last INFO's news (state, rate, seek range, media info), as
	 * sent: an INFO that would repeat it is not sent (info_cb).
	 */
	GBytes *info_sent;

	struct wl_listener settled, info, eos, error, frame, cue, eit;
};

/* Sends message @type (@id: the request it answers, 0: an event) with @w's payload. */
void umms_worker_send_message(struct umms_worker *worker, uint32_t type, uint32_t id,
	struct umms_ipc_writer *w);
/* Sends event @type with the worker's status (and @error where it has one). */
void umms_worker_send_event(struct umms_worker *worker, uint32_t type, const GError *error,
	bool optional_error);
/* The engine goes (its listeners first). */
void umms_worker_detach_engine(struct umms_worker *worker);
/* An engine of @impl made and listened to, unless the worker has one of it. */
bool umms_worker_attach_engine(struct umms_worker *worker, const struct umms_engine_impl *impl,
	GError **error);
/*
 * One request (worker-requests.c): true when done (an answer, if any, is
 * sent); false with *@malformed when its payload is not what its type
 * says, else with @error when the engine refuses it.
 */
bool umms_worker_handle_request(struct umms_worker *worker, struct umms_ipc_message *message,
	struct umms_ipc_reader *r, bool *malformed, GError **error);

#endif
