/*
 * Placing a picture in a rectangle (layout.h). Pure arithmetic, so it is
 * tested with tables of cases.
 */
#include <math.h>

#include "layout.h"

#define MAX_I(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP_I(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#define CLAMP_D(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

static int
round_int(double v)
{
	return (int)lround(v);
}

void
umms_layout_compute(const struct umms_layout_input *in,
	struct umms_layout *out)
{
	*out = (struct umms_layout){ 0 };
	if (in->width <= 0 || in->height <= 0 || in->buffer_width <= 0 || in->buffer_height <= 0)
		return;
	out->visible = true;
	out->bg_x = in->x;
	out->bg_y = in->y;
	out->bg_width = in->width;
	out->bg_height = in->height;

	/* The picture: the frame's crop, narrowed by the application's. */
	double sx = in->crop_width > 0 ? in->crop_x : 0;
	double sy = in->crop_height > 0 ? in->crop_y : 0;
	double sw = in->crop_width > 0 ? in->crop_width : in->buffer_width;
	double sh = in->crop_height > 0 ? in->crop_height : in->buffer_height;
	if (in->user_width > 0 && in->user_height > 0) {
		double ux = CLAMP_D(in->user_x, 0, sw - 1), uy = CLAMP_D(in->user_y, 0, sh - 1);
		sx += ux;
		sy += uy;
		sw = fmin(in->user_width, sw - ux);
		sh = fmin(in->user_height, sh - uy);
	}

	/* Its shape on screen: pixels as wide as the pixel aspect ratio says. */
	double par = in->par_n > 0 && in->par_d > 0 ? (double)in->par_n / in->par_d : 1.0;
	double pw = sw * par, ph = sh;
	double rw = in->width, rh = in->height;
	double dw = rw, dh = rh;

	switch (in->scale) {
	case UMMS_LAYOUT_SCALE_FILL:
		break;
	case UMMS_LAYOUT_SCALE_4_3_IN_16_9:
	case UMMS_LAYOUT_SCALE_ANAMORPHIC: {
		/* Whatever the stream says, the picture is 4:3 (or 16:9): fit it. */
		pw = ph * (in->scale == UMMS_LAYOUT_SCALE_ANAMORPHIC ? 16.0 / 9.0 : 4.0 / 3.0);
		double s = fmin(rw / pw, rh / ph);
		dw = pw * s;
		dh = ph * s;
		break;
	}
	case UMMS_LAYOUT_SCALE_LETTERBOX: {
		double s = fmin(rw / pw, rh / ph);
		dw = pw * s;
		dh = ph * s;
		break;
	}
	case UMMS_LAYOUT_SCALE_CROP: {
		/* Cover the rectangle; cut from the picture what falls outside. */
		double s = fmax(rw / pw, rh / ph);
		double cw = rw / s / par, ch = rh / s;
		sx += (sw - cw) / 2;
		sy += (sh - ch) / 2;
		sw = cw;
		sh = ch;
		break;
	}
	case UMMS_LAYOUT_SCALE_NONE: {
		/* One picture pixel per unit; what does not fit is cut evenly. */
		dw = fmin(pw, rw);
		dh = fmin(ph, rh);
		double cw = dw / par, ch = dh;
		sx += (sw - cw) / 2;
		sy += (sh - ch) / 2;
		sw = cw;
		sh = ch;
		break;
	}
	}
	out->video_width = MAX_I(1, round_int(dw));
	out->video_height = MAX_I(1, round_int(dh));
	out->video_x = in->x + round_int((rw - out->video_width) / 2);
	out->video_y = in->y + round_int((rh - out->video_height) / 2);
	out->src_x = sx;
	out->src_y = sy;
	out->src_width = sw;
	out->src_height = sh;

	/*
	 * A picture that covers the whole rectangle hides its bars: they shrink
	 * to one pixel under its corner. Compositors that paint every surface
	 * in the damage (wlroots 0.15, weston's pixman) would otherwise scale
	 * a full-size black surface nobody sees, for every frame.
	 */
	if (out->video_x == in->x && out->video_y == in->y && out->video_width == in->width &&
			out->video_height == in->height)
		out->bg_width = out->bg_height = 1;
}

bool
umms_layout_place_overlay(const struct umms_layout *l, const struct umms_layout_overlay_input *in,
	struct umms_layout_overlay *out)
{
	*out = (struct umms_layout_overlay){ 0 };
	if (!l->visible || l->src_width <= 0 || l->src_height <= 0 || in->width <= 0 ||
			in->height <= 0 || in->picture_width <= 0 || in->picture_height <= 0 ||
			in->crop_width <= 0 || in->crop_height <= 0)
		return false;
	/* Buffer pixels per image pixel, and screen pixels per buffer pixel. */
	double bx = (double)in->crop_width / in->picture_width;
	double by = (double)in->crop_height / in->picture_height;
	double kx = l->video_width / l->src_width, ky = l->video_height / l->src_height;
	/* The image in the buffer, cut to the part of the buffer shown. */
	double x0 = in->crop_x + in->x * bx, y0 = in->crop_y + in->y * by;
	double x1 = x0 + in->width * bx, y1 = y0 + in->height * by;
	double cx0 = fmax(x0, l->src_x), cy0 = fmax(y0, l->src_y);
	double cx1 = fmin(x1, l->src_x + l->src_width), cy1 = fmin(y1, l->src_y + l->src_height);
	/* On screen, in whole pixels inside the picture's rectangle. */
	int dx0 = round_int(l->video_x + (cx0 - l->src_x) * kx);
	int dy0 = round_int(l->video_y + (cy0 - l->src_y) * ky);
	int dx1 = round_int(l->video_x + (cx1 - l->src_x) * kx);
	int dy1 = round_int(l->video_y + (cy1 - l->src_y) * ky);
	dx0 = CLAMP_I(dx0, l->video_x, l->video_x + l->video_width);
	dx1 = CLAMP_I(dx1, l->video_x, l->video_x + l->video_width);
	dy0 = CLAMP_I(dy0, l->video_y, l->video_y + l->video_height);
	dy1 = CLAMP_I(dy1, l->video_y, l->video_y + l->video_height);
	if (cx1 <= cx0 || cy1 <= cy0 || dx1 <= dx0 || dy1 <= dy0)
		return false;
	out->x = dx0;
	out->y = dy0;
	out->width = dx1 - dx0;
	out->height = dy1 - dy0;
	/* The image's pixels those whole screen pixels show (back through both scales). */
	double sx0 = ((dx0 - l->video_x) / kx + l->src_x - x0) / bx;
	double sy0 = ((dy0 - l->video_y) / ky + l->src_y - y0) / by;
	double sx1 = ((dx1 - l->video_x) / kx + l->src_x - x0) / bx;
	double sy1 = ((dy1 - l->video_y) / ky + l->src_y - y0) / by;
	out->src_x = CLAMP_D(sx0, 0, in->width);
	out->src_y = CLAMP_D(sy0, 0, in->height);
	out->src_width = CLAMP_D(sx1, 0, in->width) - out->src_x;
	out->src_height = CLAMP_D(sy1, 0, in->height) - out->src_y;
	if (out->src_width <= 0 || out->src_height <= 0) {
		*out = (struct umms_layout_overlay){ 0 };
		return false;
	}
	return true;
}
