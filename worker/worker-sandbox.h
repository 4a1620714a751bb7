/*
 * The engine worker's use of its sandbox (sandbox.h): when to enter, with
 * what policy, and the settings its spare's engine took before (issue 15).
 *
 * A spare is started before its URI is known, and the URI decides whether
 * the network is allowed, which seccomp cannot relax later: the worker
 * enters at its first OPEN. The allow-list's ranks (~85 ms) are set before
 * it sends READY (a spare pays them while it waits). The engine the spare
 * made holds descriptors of its own (its pipeline's bus) that entering
 * would close under it: it is destroyed first and a new one made inside,
 * which takes again the settings (volume, video output...) the first one
 * had been given.
 */
#ifndef UMMS_WORKER_WORKER_SANDBOX_H
#define UMMS_WORKER_WORKER_SANDBOX_H

#include <stdbool.h>
#include <glib.h>

#include "config.h"
#include "ipc.h"

struct umms_worker_sandbox {
	bool enabled;            /* [engine] sandbox */
	bool ranked;             /* umms_sandbox_rank_plugins() done */
	bool entered;
	bool hardware;           /* hardware decoders allowed (SET_HARDWARE_CODECS) */
	bool audio;              /* audio-output is not none */
	bool landlock;           /* [engine] landlock */
	const char *const *allow; /* [engine] sandbox-elements (the config's) */
	GError *error;           /* could not enter: nothing is served */
	GArray *settings;        /* struct umms_ipc_message, payloads owned */
};

void umms_worker_sandbox_init(struct umms_worker_sandbox *sb, const struct umms_config *config);
void umms_worker_sandbox_finish(struct umms_worker_sandbox *sb);
/* Sets the ranks once (before READY; again at OPEN if that failed). */
bool umms_worker_sandbox_rank(struct umms_worker_sandbox *sb, GError **error);
/*
 * Enters for @uri keeping @sock and @file (a recording's, or -1); on failure sb->error is set for good:
 * "the engine's sandbox could not be set up: ...". True when disabled or
 * already in. @media_fd (-1: none), what ummsd opened for a local @uri (the
 * file, or the folder of a playlist), is the only media the worker can
 * open afterwards, where the kernel has Landlock (once logged where not);
 * it stays the caller's.
 */
bool umms_worker_sandbox_enter(struct umms_worker_sandbox *sb, int sock, int file,
	const char *uri, int media_fd, GError **error);
/* Keeps a copy of @message if it is a setting taken before entering. */
void umms_worker_sandbox_keep(struct umms_worker_sandbox *sb,
	const struct umms_ipc_message *message);
/* The settings kept (caller frees with umms_worker_sandbox_free_settings), or NULL. */
GArray *umms_worker_sandbox_take_settings(struct umms_worker_sandbox *sb);
void umms_worker_sandbox_free_settings(GArray *settings);

#endif
