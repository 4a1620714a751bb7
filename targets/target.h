/*
 * A target: where a player's video ends up. One folder per target
 * (targets/kms/, targets/headless/), each with one
 * `static const struct umms_target_impl`. The subsurface target lives in
 * libumms-client (client/), on the application's side of the socket.
 *
 * Contract for every implementation:
 * - show() is called on the main loop with each frame when it is due (the
 *   engine paces frames). The target takes a reference for as long as the
 *   frame's memory may still be read or scanned out, and drops it once a
 *   later frame has replaced it on screen, so the engine can reuse it.
 *   A frame that cannot be shown yet (a previous one still waiting for
 *   the screen) may replace the waiting one: the replaced one is reported
 *   discarded. show(NULL) takes the video off the screen.
 * - Every frame given to show() is reported exactly once through
 *   presented(), shown (with the time it reached the screen, on
 *   CLOCK_MONOTONIC) or discarded, so the player can count frames and keep
 *   lip sync. The report may come later, from the main loop.
 * - destroy() releases every frame and device resource at once.
 */
#ifndef UMMS_TARGETS_TARGET_H
#define UMMS_TARGETS_TARGET_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct umms_frame;
struct umms_target;

typedef void (*umms_target_presented_fn)(void *data, struct umms_frame *frame, bool shown,
	int64_t when_ns);

struct umms_screen_impl;

struct umms_target_impl {
	const char *name;
	/* Targets that are a whole screen (kms, headless): screen.h. NULL otherwise. */
	const struct umms_screen_impl *screen;
	bool (*show)(struct umms_target *target, struct umms_frame *frame, GError **error);
	void (*destroy)(struct umms_target *target);
};

struct umms_target {
	const struct umms_target_impl *impl;
	umms_target_presented_fn presented;
	void *presented_data;
};

static inline bool
umms_target_show(struct umms_target *target, struct umms_frame *frame, GError **error)
{
	return target->impl->show(target, frame, error);
}

static inline void
umms_target_destroy(struct umms_target *target)
{
	if (target)
		target->impl->destroy(target);
}

#endif
