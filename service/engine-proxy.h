/*
 * The engine proxy: an umms_engine_impl whose engines run in worker
 * processes (umms-engine, worker/), one per player, so that a crash, a hang
 * or runaway memory while decoding one player's media harms nobody else
 * (issue 15). See worker/ipc.h for the conversation and ARCHITECTURE.md.
 *
 * Requests go to the worker in order, fire and forget; the refusals the
 * real engine gives at once (bad argument, no media) are given here, by
 * the same checks, with the same errors. get_position, get_seek_range and
 * get_stats answer from the worker's latest status without waiting for it.
 * Frames arrive as fds (never copied) and go back (RELEASE) on their last
 * unref.
 *
 * A worker that dies, stops answering pings within [engine] hang-timeout
 * or passes [engine] worker-memory-max is killed: the requests under way
 * settle with the error, events.error carries it (EngineCrashed or
 * EngineHung), the engine is IDLE with no media, and the next open starts
 * a fresh worker (the spare, if one is ready) with the settings kept.
 */
#ifndef UMMS_SERVICE_ENGINE_PROXY_H
#define UMMS_SERVICE_ENGINE_PROXY_H

#include <sys/types.h>

#include "engine.h"

extern const struct umms_engine_impl umms_engine_proxy_impl;

/*
 * What a player should use for media @impl (umms_engines_select) plays:
 * the proxy when engines run in workers, else @impl itself.
 */
const struct umms_engine_impl *umms_engine_proxy_wrap(const struct umms_engine_impl *impl);

/* The worker process of a proxy engine, or 0 (none now, or not a proxy). */
pid_t umms_engine_proxy_pid(struct umms_engine *engine);

/* The name of the engine that really plays @engine's media ("gstreamer"). */
const char *umms_engine_proxy_real_name(struct umms_engine *engine);

#endif
