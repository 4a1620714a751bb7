/*
 * The headless screen: a screen (screen.h) with no display behind it. It
 * composites what a real screen would show (video in the UI area with the
 * zoom mode, ummsd's compositor's UI over or under it) with a renderer
 * (renderers/renderer.h: gles2 on EGL, Mesa's llvmpipe where there is no
 * GPU, else pixman) into memory, paced by a virtual vblank at the mode's
 * refresh rate, and writes it as PNG on capture(). For tests and CI, for
 * machines without a screen, and for looking at what a kiosk shell does
 * before it runs on a TV.
 *
 * Pacing: show() keeps the newest frame (a frame replacing one not yet
 * drawn is reported discarded); at the next vblank the screen is drawn,
 * if anything changed (a new frame, the UI damaged, a setting), and the
 * frame reported shown at that time, like a page flip. With nothing to
 * draw, no timer runs.
 *
 * Frames in memory (memfd) are drawn from a mapping kept per memory_id;
 * dma-buf frames are imported by the renderer, or mapped and read when it
 * cannot (a linear buffer), never shown black. Uploads of frames to a GPU
 * renderer are copies (get_copies()).
 *
 * Modes: any size; set_mode("WxH" or "WxH@Hz") switches to it. Margins
 * shrink the UI area. There are no planes: the rung is "composited".
 */
#ifndef UMMS_TARGETS_HEADLESS_H
#define UMMS_TARGETS_HEADLESS_H

#include <glib.h>

#include "screen.h"

struct umms_headless_config {
	const char *mode;         /* NULL/"": 1280x720@60; "WxH" or "WxH@Hz" */
	const char *renderer;     /* NULL/"auto": gles2, else pixman; "gles2", "pixman" */
	struct umms_screen_margins margins;
	enum umms_layout_scale zoom;
};

/* NULL with @error when the mode is not one, or the renderer asked for cannot start. */
struct umms_target *umms_headless_create(const struct umms_headless_config *config,
	GError **error);

/* Which renderer draws: "gles2 (…describe…)" or "pixman". */
const char *umms_headless_describe(struct umms_target *target);

#endif
