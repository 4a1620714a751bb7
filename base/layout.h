/*
 * Placing a picture in a rectangle: scale (zoom) modes, pixel aspect ratio,
 * crops. Pure arithmetic, shared by libumms-client (a rectangle of an
 * application's surface) and ummsd's KMS output (the screen inside its
 * overscan margins), and tested with tables of cases (tests/test-layout.c).
 */
#ifndef UMMS_COMMON_LAYOUT_H
#define UMMS_COMMON_LAYOUT_H

#include <stdbool.h>

/* The first four match enum umms_client_scale value for value. */
enum umms_layout_scale {
	UMMS_LAYOUT_SCALE_LETTERBOX,  /* keep the shape, fit inside, bars on two sides */
	UMMS_LAYOUT_SCALE_FILL,       /* stretch to the rectangle */
	UMMS_LAYOUT_SCALE_CROP,       /* keep the shape, cover the rectangle, cut the excess */
	UMMS_LAYOUT_SCALE_NONE,       /* one picture pixel per unit, centred, clipped */
	/*
	 * 4:3 content stored (or flagged) as 16:9: shown 4:3 whatever the
	 * stream says, pillarboxed on a wide screen ("4:3-in-16:9").
	 */
	UMMS_LAYOUT_SCALE_4_3_IN_16_9,
	/* 16:9 content squeezed into a 4:3 frame without saying so: shown 16:9. */
	UMMS_LAYOUT_SCALE_ANAMORPHIC,
};

struct umms_layout_input {
	int x, y, width, height;                     /* the rectangle */
	enum umms_layout_scale scale;
	int buffer_width, buffer_height;
	int crop_x, crop_y, crop_width, crop_height; /* the picture in the buffer */
	unsigned par_n, par_d;                       /* its pixel aspect ratio; 0: square */
	int user_x, user_y, user_width, user_height; /* a crop within the picture; 0 size: none */
};

/* Where things go, in the rectangle's coordinate space. */
struct umms_layout {
	bool visible;                                /* a rectangle and a picture */
	int bg_x, bg_y, bg_width, bg_height;         /* the bars: the rectangle, 1x1 if covered */
	int video_x, video_y, video_width, video_height;
	double src_x, src_y, src_width, src_height;  /* the part of the buffer shown, in pixels */
};

void umms_layout_compute(const struct umms_layout_input *in, struct umms_layout *out);

/*
 * An image drawn over the picture (subtitles: base/subpicture.h), given
 * in the pixels of a @picture_width x @picture_height picture at @x, @y,
 * @width x @height: placed and scaled exactly as @l placed the picture
 * (the crop area @crop_* of the buffer, of which @l shows src_*), and cut
 * to the picture's rectangle on screen.
 */
struct umms_layout_overlay_input {
	int crop_x, crop_y, crop_width, crop_height; /* the picture in the buffer */
	int picture_width, picture_height;           /* the image's picture */
	int x, y, width, height;                     /* the image in it */
};

struct umms_layout_overlay {
	int x, y, width, height;                     /* in the rectangle's coordinates */
	double src_x, src_y, src_width, src_height;  /* the part of the image shown */
};

/* False (and @out zero) when nothing of the image shows. */
bool umms_layout_place_overlay(const struct umms_layout *l,
	const struct umms_layout_overlay_input *in, struct umms_layout_overlay *out);

#endif
