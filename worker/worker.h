/*
 * The worker side of an engine worker (umms-engine): hosts one real engine
 * (engine.h) for ummsd's engine proxy (service/engine-proxy.c), turning the
 * requests of worker/ipc.h into calls and the engine's events into
 * messages. One player's media at a time; the process ends when ummsd
 * closes its end of the socket.
 */
#ifndef UMMS_WORKER_WORKER_H
#define UMMS_WORKER_WORKER_H

#include <stdbool.h>
#include <glib.h>

struct umms_worker;

/*
 * Waits for INIT on @sock, takes ummsd's configuration from it, loads the
 * media library and creates the engine, then says READY. NULL with @error
 * when any of it fails.
 */
struct umms_worker *umms_worker_create(int sock, GError **error);
/*
 * The fork server's part of umms_worker_create() (worker/zygote.h): INIT
 * on @sock (its control socket), GStreamer, the plugin ranks; no main
 * loop, no engine, no thread, no hardware decoder plugin (the engines'
 * start, engine.h, which opens drivers and devices).
 */
struct umms_worker *umms_worker_prepare(int sock, GError **error);
/*
 * In a worker forked from it, the rest: INIT on @sock (the same
 * configuration, else an error), the engines' start, the main loop and
 * the engine.
 */
bool umms_worker_adopt(struct umms_worker *worker, int sock, GError **error);
/* Serves requests until ummsd hangs up; returns the exit status. */
int umms_worker_run(struct umms_worker *worker);
/*
 * Whether the worker entered its sandbox (worker/sandbox.h): it does at
 * the first OPEN, when the URI decides the policy, unless [engine] sandbox
 * is false.
 */
bool umms_worker_sandboxed(const struct umms_worker *worker);
void umms_worker_destroy(struct umms_worker *worker);

#endif
