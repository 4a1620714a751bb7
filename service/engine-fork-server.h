/*
 * The engine workers' fork server (worker/zygote.h), as ummsd sees it:
 * started with the supervisor when [engine] fork-server is true, asked for
 * each worker, restarted when it dies (at most once in RESTART_MS), and
 * meanwhile, or whenever it cannot fork, workers are started by exec as
 * without it. service/engine-supervisor.c is its only user.
 */
#ifndef UMMS_SERVICE_ENGINE_FORK_SERVER_H
#define UMMS_SERVICE_ENGINE_FORK_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"

/*
 * Starts it for workers of @config (printed as @text); @ready is called
 * (from the main loop) once it can fork, or once it failed to start.
 */
void umms_fork_server_start(const struct umms_config *config, const char *text,
	void (*ready)(void));
/* Kills and reaps it. */
void umms_fork_server_stop(void);
/* Whether it is starting (not yet ready, not failed). */
bool umms_fork_server_starting(void);
/*
 * A worker forked for configuration @text with @sock (the worker's end;
 * still the caller's to close) as its socket: its pid, now a child of
 * ummsd; 0 when there is none to fork it (the caller then starts one by
 * exec), said once in the log when it refused.
 */
pid_t umms_fork_server_fork(unsigned number, int sock, const char *text);
/* Whether it forks workers of configuration @text (when it runs). */
bool umms_fork_server_serves(const char *text);
/* Its pid, 0 when none runs. */
pid_t umms_fork_server_pid(void);

#endif
