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

/* What one commit puts where. */
struct plan {
	int rung;                  /* enum umms_kms_rung, -1: no video */
	int video_plane;           /* index in the device's planes, -1: none */
	int primary_plane;
	uint32_t video_fb, primary_fb;
	struct umms_layout layout; /* in mode pixels */
	char why[96];
};

struct kms_output {
	struct umms_target base;
	struct umms_kms_device *dev;
	struct kms_frame_cache *cache;
	struct kms_dumb black, composite[2], capture;
	int next_composite;
	GSource *source;
	bool modeset;              /* the next commit sets mode and routing */
	bool inactive;             /* the session gave the device away: no commits */
	GArray *mode_blobs;        /* of the committed mode */
	bool margins_by_connector;
	struct umms_kms_margins margins;
	enum umms_layout_scale zoom;
	struct umms_frame *shown, *flipping, *waiting;
	bool flip_pending;
	bool flipping_new;         /* flipping is a new frame, to report at the flip */
	bool waiting_set;          /* waiting holds the next thing to show (NULL: black) */
	struct plan plan;          /* the last commit's */
	int good_k;                /* the ladder rung that worked for good_layout, -1: none */
	int good_ui;               /* and the UI's visibility and stacking then */
	struct umms_layout good_layout;
	uint32_t good_format;
	int last_rung;             /* for logging changes */
	bool matched;              /* the mode was switched to match a frame rate */
	drmModeModeInfo unmatched; /* the mode to go back to */
	/* The UI of ummsd's compositor, drawn into the primary plane. */
	const struct umms_kms_ui_impl *ui;
	void *ui_data;
	bool ui_visible, ui_dirty;
	struct kms_dumb ui_buf[2];
	int ui_next;
	uint32_t ui_fb;            /* the UI as last drawn, 0: not drawn yet */
	GSource *kick;             /* a commit for the UI, soon */
	bool placed;               /* the video goes where place says, not full screen */
	struct umms_kms_video_place place;
};

/* The output behind a KMS target (asserts it is one). */
struct kms_output *kms_output(struct umms_target *target);
/* The margins in pixels of the current mode: left, top, right, bottom. */
void kms_output_margins_px(const struct kms_output *o, int px[4]);
/* Commits @plan with @flags; with @capture_fb the writeback connector reads it (@fence). */
bool kms_output_commit(struct kms_output *o, const struct plan *plan, uint32_t flags,
	uint32_t capture_fb, int32_t *fence, GError **error);
/* Waits (blocking, up to @ms per flip) until no flip is pending. */
bool kms_output_wait_flip(struct kms_output *o, int ms);

#endif
