/*
 * Where the video goes: the plane ladder. Pure: from the planes, the
 * video's format and placement, it lists the layouts worth trying, best
 * first; the output tries each with a TEST_ONLY commit and keeps the
 * first the device accepts (kms-output.c), so the ladder needs no
 * knowledge of a driver's limits beyond what planes advertise.
 *
 * The rungs, in order:
 *   1. OVERLAY: the frame itself on an overlay plane that takes its format
 *      (lowest zpos first, so the video sits under anything stacked later),
 *      black bars or the UI on the primary plane. No pixel of the video is
 *      touched. A plane that cannot scale is refused by TEST_ONLY. Overlays
 *      sit above the primary plane, so not when the UI goes over the video.
 *   2. PRIMARY: the frame on the primary plane, when it covers the whole
 *      output and nothing else has to be seen.
 *   3. COMPOSITE: the video drawn into the primary plane's buffer by a
 *      renderer (pixman; gles2 later), always possible.
 *
 * Subtitles (a frame's subpicture, ARGB8888) go on a plane of their own
 * above the video's where one takes ARGB8888: the lowest such overlay
 * above the video's plane (higher zpos; among planes without a zpos
 * property, a later one of the same type, the order drivers stack them).
 * A video plane with none above it is passed over; on the composition
 * rung the subpicture is drawn into the primary plane's buffer with the
 * video. TEST_ONLY refuses what a plane cannot do (vkms: scaling, so the
 * subtitles' plane only when the picture is shown 1:1).
 */
#ifndef UMMS_TARGETS_KMS_LADDER_H
#define UMMS_TARGETS_KMS_LADDER_H

#include <stdbool.h>
#include <stdint.h>

#include "kms-device.h"

enum umms_kms_rung {
	UMMS_KMS_RUNG_OVERLAY,
	UMMS_KMS_RUNG_PRIMARY,
	UMMS_KMS_RUNG_COMPOSITE,
};

struct umms_kms_ladder_input {
	const struct umms_kms_plane *planes;
	int n_planes;
	uint32_t video_format;     /* DRM fourcc of the frame */
	bool covers_output;        /* the picture fills the whole mode, no bars */
	bool ui_visible;           /* something besides the video must be seen */
	bool video_below_ui;       /* the UI is drawn over the video (holes show it) */
	bool subpicture;           /* subtitles (ARGB8888) to show over the picture */
};

struct umms_kms_layout_choice {
	enum umms_kms_rung rung;
	int video_plane;           /* index in planes: the video's (-1: composited) */
	int primary_plane;         /* index in planes */
	int sub_plane;             /* index in planes: the subtitles' (-1: composited, or none) */
	char why[96];              /* why this rung, for the log */
};

#define UMMS_KMS_LADDER_MAX 16

/*
 * Fills @out with the layouts to try, best first; returns how many (0 only
 * without a primary plane taking XRGB8888). @skipped, if not NULL, gets
 * one line per plane passed over and why (freed by the caller).
 */
int umms_kms_ladder_build(const struct umms_kms_ladder_input *in,
	struct umms_kms_layout_choice out[UMMS_KMS_LADDER_MAX], char **skipped);

const char *umms_kms_rung_name(enum umms_kms_rung rung);

#endif
