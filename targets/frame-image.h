/*
 * A service frame (base/frame.h) as an image a renderer draws
 * (renderers/renderer.h), and where it goes on a screen: what the KMS
 * output and the headless screen share.
 */
#ifndef UMMS_TARGETS_FRAME_IMAGE_H
#define UMMS_TARGETS_FRAME_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "subpicture.h"
#include "renderer.h"
#include "screen.h"

/* The frame's DRM fourcc (memfd frames carry wl_shm codes). */
uint32_t umms_frame_drm_format(const struct umms_frame *frame);

/*
 * Fills @out for @frame: a memfd frame is read at @map (its memfd mapped
 * from offset 0; planes at their offsets), a dma-buf frame by its fds
 * (@map NULL). Frames carry no colorimetry yet: YUV is taken as BT.709
 * from 720 lines up, else BT.601, limited range (what decoders give for
 * broadcast and web video). The id is the frame's memory_id.
 */
void umms_frame_render_image(const struct umms_frame *frame, const uint8_t *map,
	struct umms_render_image *out);

/*
 * A subpicture (subtitles, premultiplied ARGB8888 in memory) as an image:
 * its id (umms_subpicture_image_id) is its serial's, apart from frames'
 * and the compositor's, and it is always `unchanged` (a serial's pixels
 * never change), so a renderer that kept an upload draws it again without
 * uploading.
 */
void umms_subpicture_render_image(const struct umms_subpicture *subpicture,
	struct umms_render_image *out);
uint64_t umms_subpicture_image_id(uint64_t serial);

/*
 * Where @frame's picture goes on a screen: in @area (x, y, width, height)
 * with @zoom, or, with @place, at its rectangle (in the area's
 * coordinates) with its own zoom; the pixel aspect ratio honoured.
 */
void umms_frame_layout(const struct umms_frame *frame, const int area[4],
	enum umms_layout_scale zoom, const struct umms_screen_video_place *place,
	struct umms_layout *out);

/*
 * Where @frame's subpicture (frame->subpicture) goes for the picture laid
 * out by @layout: scaled and placed exactly as the picture, cut to the part
 * of it shown (umms_layout_place_overlay, as libumms-client places it).
 * False (and @out zero) without a subpicture or when none of it shows.
 */
bool umms_frame_place_subpicture(const struct umms_frame *frame,
	const struct umms_layout *layout, struct umms_layout_overlay *out);

#endif
