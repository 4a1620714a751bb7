/*
 * Engine worker processes, as ummsd sees them: spawning (or taking the warm
 * spare), the socket, supervision (exit, hang-up, memory) and reaping.
 * service/engine-proxy.c drives one per player; nothing else should need it.
 *
 * A worker's death is reported once, from the main loop, to whoever is
 * attached: the code (UMMS_ERROR_ENGINE_CRASHED or _HUNG) and a sentence
 * naming why ("crashed (signal 11, SIGSEGV)", "passed its memory limit").
 * Every process is reaped: by its pidfd while the main loop runs, and at
 * umms_supervisor_finish() at the latest.
 */
#ifndef UMMS_SERVICE_ENGINE_SUPERVISOR_H
#define UMMS_SERVICE_ENGINE_SUPERVISOR_H

#include <stdbool.h>
#include <sys/types.h>
#include <glib.h>

#include "config.h"
#include "ipc.h"

struct umms_worker_process;

struct umms_worker_handler {
	/* One well-formed message (the fds are the handler's to keep or close). */
	void (*message)(void *data, struct umms_ipc_message *message);
	/* The worker is gone: @code and @why say how. */
	void (*died)(void *data, int code, const char *why);
};

/*
 * Whether engines run in workers: [engine] isolation = worker and the binary
 * exists (else one warning and in-process). Starts the spare.
 */
bool umms_supervisor_init(const struct umms_config *config);
/* Kills and reaps every worker left (the spare included). */
void umms_supervisor_finish(void);
bool umms_supervisor_enabled(void);
/* The configuration given to umms_supervisor_init() (NULL before). */
const struct umms_config *umms_supervisor_config(void);
/*
 * Starts a new spare if none is kept, a second later at low priority:
 * called when the request that took the last one has been served. With
 * [engine] spare-while-playing = false, not while a worker attached to a
 * player plays: a second after the last one stopped.
 */
void umms_supervisor_refill(void);

/* The spare if it suits @config, else a new process. NULL with @error. */
struct umms_worker_process *umms_worker_process_take(const struct umms_config *config,
	GError **error);
void umms_worker_process_attach(struct umms_worker_process *process,
	const struct umms_worker_handler *handler, void *data);
/* Whether @process's engine plays now (the spare waits for none to: umms_supervisor_refill()). */
void umms_worker_process_set_playing(struct umms_worker_process *process, bool playing);
/* Detaches, hangs up (the worker exits) and drops the caller's reference. */
void umms_worker_process_release(struct umms_worker_process *process);
struct umms_worker_process *umms_worker_process_ref(struct umms_worker_process *process);
void umms_worker_process_unref(struct umms_worker_process *process);

/* False (and the worker killed as hung or crashed, reported later) on failure. */
bool umms_worker_process_send(struct umms_worker_process *process, uint32_t type, uint32_t id,
	const struct umms_ipc_writer *writer);
/* SIGKILL, and @code with @why reported once it is reaped. */
void umms_worker_process_kill(struct umms_worker_process *process, int code, const char *why);
bool umms_worker_process_alive(const struct umms_worker_process *process);
/* Whether it said READY (GStreamer loaded, its main loop serving: pings make sense). */
bool umms_worker_process_ready(const struct umms_worker_process *process);
pid_t umms_worker_process_pid(const struct umms_worker_process *process);
/* A number unique among this ummsd's workers, from 1. */
unsigned umms_worker_process_number(const struct umms_worker_process *process);
/* Resident memory in bytes, 0 if unknown. */
uint64_t umms_worker_process_rss(const struct umms_worker_process *process);

/*
 * Watching a busy worker (a player's while it works or plays, a
 * recording's always): umms_worker_watch_check() every
 * umms_worker_watch_period() ms kills it as hung (EngineHung) when its
 * last ping had no PONG within [engine] hang-timeout, as crashed when its
 * memory passed [engine] worker-memory-max, and else pings it if no ping
 * is out. The handler passes each PONG to umms_worker_watch_pong().
 */
struct umms_worker_watch {
	uint32_t ping_id;
	int64_t ping_sent;       /* µs, monotonic; 0: none out */
};

unsigned umms_worker_watch_period(const struct umms_config *config);
/* False when it killed the worker (its death is reported as any other). */
bool umms_worker_watch_check(struct umms_worker_watch *watch,
	struct umms_worker_process *process, const struct umms_config *config);
void umms_worker_watch_pong(struct umms_worker_watch *watch, uint32_t id);

#endif
