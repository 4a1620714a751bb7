/*
 * Inside the KMS output: what kms-output.c (planning, commits, pacing, the
 * UI layer) and kms-info.c (its state for org.umms.Display1, capture)
 * share.
 */
#ifndef UMMS_TARGETS_KMS_OUTPUT_PRIVATE_H
#define UMMS_TARGETS_KMS_OUTPUT_PRIVATE_H

#include <xf86drmMode.h>

#include "kms-buffers.h"
#include "kms-device.h"
#include "kms.h"
#include "renderer.h"

/* What one commit puts where. */
struct plan {
	int rung;                  /* enum umms_kms_rung, -1: no video */
	int video_plane;           /* index in the device's planes, -1: none */
	int primary_plane;
	uint32_t video_fb, primary_fb;
	struct umms_layout layout; /* in mode pixels */
	int sub_plane;             /* the subtitles' plane, -1: none (or composited) */
	uint32_t sub_fb;
	struct umms_layout_overlay sub; /* where the subtitles go, in mode pixels */
	char why[96];
};

struct kms_output {
	struct umms_target base;
	struct umms_kms_device *dev;
	struct kms_frame_cache *cache;
	struct umms_renderer *renderer; /* composition and the UI layer */
	bool gl;                   /* it is gles2: it draws into the buffers' dma-bufs */
	char *renderer_name;
	uint64_t redraws;          /* pictures it composited */
	uint64_t damaged_pixels;   /* repainted, over all of them */
	struct kms_dumb black, composite[2], capture;
	int next_composite;
	GSource *source;
	bool modeset;              /* the next commit sets mode and routing */
	bool inactive;             /* the session gave the device away: no commits */
	GArray *mode_blobs;        /* of the committed mode */
	bool margins_by_connector;
	struct umms_screen_margins margins;
	enum umms_layout_scale zoom;
	struct umms_frame *shown, *flipping, *waiting;
	bool flip_pending;
	int64_t flip_since;        /* monotonic µs when the pending flip was committed */
	unsigned lost_flips;       /* flips the device never reported (kms_output_settle) */
	bool flipping_new;         /* flipping is a new frame, to report at the flip */
	bool waiting_set;          /* waiting holds the next thing to show (NULL: black) */
	struct plan plan;          /* the last commit's */
	int good_k;                /* the ladder rung that worked for good_layout, -1: none */
	int good_ui;               /* and the UI's visibility and stacking then */
	struct umms_layout good_layout;
	uint32_t good_format;
	bool good_sub;             /* with subtitles there, placed at good_sub_place */
	struct umms_layout_overlay good_sub_place;
	uint64_t composed_sub;     /* the serial the renderer last drew, 0: none */
	int last_rung;             /* for logging changes */
	bool matched;              /* the mode was switched to match a frame rate */
	drmModeModeInfo unmatched; /* the mode to go back to */
	/* The UI of ummsd's compositor, drawn into the primary plane. */
	const struct umms_screen_ui_impl *ui;
	void *ui_data;
	bool ui_visible, ui_dirty;
	struct kms_dumb ui_buf[2];
	int ui_next;
	uint32_t ui_fb;            /* the UI as last drawn, 0: not drawn yet */
	/*
	 * What changed since each UI buffer was last drawn (buffer age): one
	 * box each, or all of it. The UI's own damage goes into both; anything
	 * else (placement, mode, margins, the UI drawn elsewhere) makes both whole.
	 */
	struct umms_render_box ui_stale[2];
	bool ui_stale_all[2];
	GSource *kick;             /* a commit for the UI, soon */
	bool placed;               /* the video goes where place says, not full screen */
	struct umms_screen_video_place place;
};

/* The output behind a KMS target (asserts it is one). */
struct kms_output *kms_output(struct umms_target *target);
/* The margins in pixels of the current mode: left, top, right, bottom. */
void kms_output_margins_px(const struct kms_output *o, int px[4]);
/* Commits @plan with @flags; with @capture_fb the writeback connector reads it (@fence). */
bool kms_output_commit(struct kms_output *o, const struct plan *plan, uint32_t flags,
	uint32_t capture_fb, int32_t *fence, GError **error);
/* Waits (blocking, up to @ms per flip) until no flip is pending; false: it timed out. */
bool kms_output_wait_flip(struct kms_output *o, int ms);
/*
 * Waits up to KMS_FLIP_PATIENCE_MS for the flip in progress, for a request
 * that needs the screen idle (capture, mode switch, new settings). A flip the
 * device never reports is taken as done, with a warning, so the screen goes
 * on: the kernel itself holds a blocking commit until the earlier one is
 * through, and a nonblocking one it refuses (EBUSY) drops that frame only.
 */
void kms_output_settle(struct kms_output *o);
/*
 * How long a flip may take before it is taken as lost. A real screen flips
 * within a frame; vkms in an emulated VM on a loaded host has been seen to
 * take over 500 ms, and once (CI, stop 33) over 3000 ms.
 */
#define KMS_FLIP_PATIENCE_MS 3000

/* kms-output.c: the UI's area (x, y, w, h in mode pixels); whether a placement hides the video. */
void kms_output_area(const struct kms_output *o, int a[4]);
bool kms_output_video_hidden(const struct kms_output *o);

/* kms-compose.c: the renderer (per display.renderer), and what it draws. */
bool kms_output_make_renderer(struct kms_output *o, const char *name, GError **error);
/* What the primary plane shows under an overlay: the UI (drawn if it changed), or black. */
uint32_t kms_output_background_fb(struct kms_output *o);
/*
 * The video (@l: where), its subtitles (@sub: where, NULL: none) and the
 * UI drawn together into @dst, stacked as placed.
 */
/* kms-compose.c: both UI buffers must be repainted whole at their next draw. */
void kms_output_ui_stale(struct kms_output *o);
bool kms_output_compose(struct kms_output *o, struct kms_dumb *dst, struct umms_frame *frame,
	const struct umms_layout *l, const struct umms_layout_overlay *sub);

/*
 * The screen interface (screen.h) of the KMS output, in kms-output.c and
 * kms-info.c; kms_screen_impl gathers them.
 */
extern const struct umms_screen_impl kms_screen_impl;
void umms_kms_output_set_ui(struct umms_target *target, const struct umms_screen_ui_impl *impl,
	void *data);
void umms_kms_output_get_stats(struct umms_target *target, struct umms_screen_stats *stats);
int umms_kms_output_get_video_formats(struct umms_target *target, const uint32_t **formats);
void umms_kms_output_place_video(struct umms_target *target,
	const struct umms_screen_video_place *place);
/* Changes apply with the next frame (or at once, re-showing the current one). */
bool umms_kms_output_set_mode(struct umms_target *target, const char *mode, GError **error);
/*
 * Refresh-rate matching: switches to the mode of the same size whose rate
 * suits @fps (umms_kms_match_refresh), remembering the mode before; @fps
 * 0 goes back to it. Stays (and says so in the log) when no mode suits.
 */
void umms_kms_output_match_refresh(struct umms_target *target, double fps);
void umms_kms_output_set_margins(struct umms_target *target, const struct umms_screen_margins *m);
void umms_kms_output_set_zoom(struct umms_target *target, enum umms_layout_scale zoom);
/* The UI changed (or shows nothing: !@visible): a commit soon redraws it. */
void umms_kms_output_damage_ui(struct umms_target *target, bool visible);
/* The UI's area in mode pixels: x, y, width, height (inside margins drawn by us). */
void umms_kms_output_get_ui_area(struct umms_target *target, int area[4]);

/* The device (st_rdev), the refresh rate in mHz, the formats overlay planes take. */
dev_t umms_kms_output_get_device(struct umms_target *target);
int umms_kms_output_get_refresh_mhz(struct umms_target *target);
/* Returns how many; *formats to g_free. */
int umms_kms_output_get_overlay_formats(struct umms_target *target, uint32_t **formats);
/* The renderer that composes (kms-compose.c). */
struct umms_renderer *umms_kms_output_get_renderer(struct umms_target *target);

/* Reading the state, for org.umms.Display1. */
char **umms_kms_output_list_modes(struct umms_target *target);      /* g_strfreev */
char *umms_kms_output_current_mode(struct umms_target *target);     /* g_free */
/* The margins in pixels of the current mode: left, top, right, bottom. */
void umms_kms_output_get_margins_px(struct umms_target *target, int px[4]);
/* Whether margins leave a picture: each side 0 to 40% of the mode. */
bool umms_kms_output_check_margins(struct umms_target *target, const struct umms_screen_margins *m,
	GError **error);
enum umms_layout_scale umms_kms_output_get_zoom(struct umms_target *target);
/* aa{sv}: id, type, formats (as), zpos, use ("video", "subtitles", "background", "composition", ""). */
GVariant *umms_kms_output_describe_planes(struct umms_target *target);
/* "overlay", "primary", "composited", or "" with no video. */
const char *umms_kms_output_get_rung(struct umms_target *target);
/* Frames copied because their memory could not be scanned out as it is. */
uint64_t umms_kms_output_get_copies(struct umms_target *target);

/*
 * What the screen shows now, read back through the device's writeback
 * connector, written to @path as PNG. Blocks for up to a few frames.
 * Fails with NotSupported where the device has no writeback connector.
 */
bool umms_kms_output_capture(struct umms_target *target, const char *path, GError **error);


#endif
