/*
 * The placement arithmetic (base/layout.c) of libumms-client and the KMS
 * output, with tables of cases: where the picture goes in its rectangle for
 * every scale mode, pixel aspect ratio, frame crop and application crop.
 */
#include <stdint.h>
#include <glib.h>

#include "layout.h"

struct layout_case {
	const char *what;
	struct umms_layout_input in;
	int vx, vy, vw, vh;          /* expected picture rectangle */
	double sx, sy, sw, sh;       /* expected viewport source */
};

#define RECT(x, y, w, h) .x = x, .y = y, .width = w, .height = h
#define FRAME(w, h) .buffer_width = w, .buffer_height = h, .crop_width = w, .crop_height = h, \
	.par_n = 1, .par_d = 1

static const struct layout_case cases[] = {
	{ "4:3 letterboxed in 16:9: bars left and right",
		{ .x = 40, .y = 40, .width = 320, .height = 180, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_LETTERBOX },
		40 + 40, 40, 240, 180, 0, 0, 320, 240 },
	{ "16:9 letterboxed in 4:3: bars above and below",
		{ .x = 0, .y = 0, .width = 400, .height = 300, FRAME(1920, 1080),
		  .scale = UMMS_LAYOUT_SCALE_LETTERBOX },
		0, 38, 400, 225, 0, 0, 1920, 1080 },
	{ "fill stretches to the rectangle",
		{ .x = 10, .y = 20, .width = 320, .height = 180, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_FILL },
		10, 20, 320, 180, 0, 0, 320, 240 },
	{ "crop to fill cuts the top and bottom of 4:3 in 16:9",
		{ .x = 0, .y = 0, .width = 320, .height = 180, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_CROP },
		0, 0, 320, 180, 0, 30, 320, 180 },
	{ "crop to fill cuts the sides of 16:9 in 4:3",
		{ .x = 0, .y = 0, .width = 400, .height = 300, FRAME(1600, 900),
		  .scale = UMMS_LAYOUT_SCALE_CROP },
		0, 0, 400, 300, 200, 0, 1200, 900 },
	{ "none: one pixel per unit, centred",
		{ .x = 0, .y = 0, .width = 640, .height = 480, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_NONE },
		160, 120, 320, 240, 0, 0, 320, 240 },
	{ "none: a picture larger than the rectangle is clipped evenly",
		{ .x = 0, .y = 0, .width = 100, .height = 100, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_NONE },
		0, 0, 100, 100, 110, 70, 100, 100 },
	{ "non-square pixels (12/11) widen the picture",
		{ .x = 0, .y = 0, .width = 640, .height = 360, .buffer_width = 352,
		  .buffer_height = 288, .crop_width = 352, .crop_height = 288, .par_n = 12,
		  .par_d = 11, .scale = UMMS_LAYOUT_SCALE_LETTERBOX },
		80, 0, 480, 360, 0, 0, 352, 288 },
	{ "the frame's own crop (coded 1088 lines, 1080 shown)",
		{ .x = 0, .y = 0, .width = 960, .height = 540, .buffer_width = 1920,
		  .buffer_height = 1088, .crop_width = 1920, .crop_height = 1080, .par_n = 1,
		  .par_d = 1, .scale = UMMS_LAYOUT_SCALE_LETTERBOX },
		0, 0, 960, 540, 0, 0, 1920, 1080 },
	{ "the application's crop: the top-left quarter",
		{ .x = 0, .y = 0, .width = 320, .height = 240, FRAME(320, 240),
		  .user_x = 0, .user_y = 0, .user_width = 160, .user_height = 120,
		  .scale = UMMS_LAYOUT_SCALE_FILL },
		0, 0, 320, 240, 0, 0, 160, 120 },
	{ "4:3-in-16:9: a 16:9 frame shown 4:3, pillarboxed",
		{ .x = 0, .y = 0, .width = 1920, .height = 1080, FRAME(1920, 1080),
		  .scale = UMMS_LAYOUT_SCALE_4_3_IN_16_9 },
		240, 0, 1440, 1080, 0, 0, 1920, 1080 },
	{ "anamorphic: a 4:3 frame shown 16:9 on a 4:3 screen",
		{ .x = 0, .y = 0, .width = 1024, .height = 768, FRAME(720, 576),
		  .scale = UMMS_LAYOUT_SCALE_ANAMORPHIC },
		0, 96, 1024, 576, 0, 0, 720, 576 },
	{ "a TV's overscan: the area inside 5% margins of 1280x720",
		{ .x = 64, .y = 36, .width = 1152, .height = 648, FRAME(320, 240),
		  .scale = UMMS_LAYOUT_SCALE_LETTERBOX },
		208, 36, 864, 648, 0, 0, 320, 240 },
};

static void
test_cases(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct layout_case *c = &cases[i];
		struct umms_layout out;
		umms_layout_compute(&c->in, &out);
		g_test_message("%s", c->what);
		g_assert_true(out.visible);
		g_assert_cmpint(out.bg_x, ==, c->in.x);
		g_assert_cmpint(out.bg_y, ==, c->in.y);
		/* Bars only where the picture leaves room for them. */
		bool covered = c->vx == c->in.x && c->vy == c->in.y && c->vw == c->in.width &&
			c->vh == c->in.height;
		g_assert_cmpint(out.bg_width, ==, covered ? 1 : c->in.width);
		g_assert_cmpint(out.bg_height, ==, covered ? 1 : c->in.height);
		if (out.video_x != c->vx || out.video_y != c->vy || out.video_width != c->vw ||
				out.video_height != c->vh)
			g_error("%s: picture %d,%d %dx%d, expected %d,%d %dx%d", c->what,
				out.video_x, out.video_y, out.video_width, out.video_height,
				c->vx, c->vy, c->vw, c->vh);
		g_assert_cmpfloat_with_epsilon(out.src_x, c->sx, 0.01);
		g_assert_cmpfloat_with_epsilon(out.src_y, c->sy, 0.01);
		g_assert_cmpfloat_with_epsilon(out.src_width, c->sw, 0.01);
		g_assert_cmpfloat_with_epsilon(out.src_height, c->sh, 0.01);
	}
}

static void
test_invisible(void)
{
	struct umms_layout out;
	struct umms_layout_input hidden = { .x = 0, .y = 0, .width = 0, .height = 100,
		FRAME(320, 240) };
	umms_layout_compute(&hidden, &out);
	g_assert_false(out.visible);
	struct umms_layout_input no_frame = { .x = 0, .y = 0, .width = 100, .height = 100 };
	umms_layout_compute(&no_frame, &out);
	g_assert_false(out.visible);
}

/* Subtitles placed with the picture: scaled as it is, cut to what of it shows. */
static void
test_overlay(void)
{
	static const struct {
		const char *what;
		struct umms_layout_input in;
		struct umms_layout_overlay_input sub;
		int x, y, w, h;              /* expected on screen */
		double sx, sy, sw, sh;       /* expected part of the image */
		bool shown;
	} overlays[] = {
		{ "picture at 1:1: the image 1:1, offset by the picture's place",
			{ .x = 100, .y = 50, .width = 320, .height = 240, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_NONE },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 320,
			  .picture_height = 240, .x = 10, .y = 200, .width = 300, .height = 30 },
			110, 250, 300, 30, 0, 0, 300, 30, true },
		{ "picture doubled: the image doubled",
			{ .x = 0, .y = 0, .width = 640, .height = 480, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_FILL },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 320,
			  .picture_height = 240, .x = 10, .y = 200, .width = 300, .height = 30 },
			20, 400, 600, 60, 0, 0, 300, 30, true },
		{ "an image made for a picture twice the size: halved",
			{ .x = 0, .y = 0, .width = 320, .height = 240, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_FILL },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 640,
			  .picture_height = 480, .x = 20, .y = 400, .width = 600, .height = 60 },
			10, 200, 300, 30, 0, 0, 600, 60, true },
		{ "a frame crop: the image is in the crop's pixels",
			{ .x = 0, .y = 0, .width = 320, .height = 240, .buffer_width = 336, .buffer_height = 256, .crop_x = 8,
			  .crop_y = 8, .crop_width = 320, .crop_height = 240, .par_n = 1, .par_d = 1,
			  .scale = UMMS_LAYOUT_SCALE_FILL },
			{ .crop_x = 8, .crop_y = 8, .crop_width = 320, .crop_height = 240,
			  .picture_width = 320, .picture_height = 240, .x = 0, .y = 0, .width = 320,
			  .height = 20 },
			0, 0, 320, 20, 0, 0, 320, 20, true },
		{ "crop to fill cuts the image with the picture",
			{ .x = 0, .y = 0, .width = 320, .height = 180, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_CROP },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 320,
			  .picture_height = 240, .x = 0, .y = 200, .width = 320, .height = 40 },
			0, 170, 320, 10, 0, 0, 320, 10, true },
		{ "wholly in the part cut away: not shown",
			{ .x = 0, .y = 0, .width = 320, .height = 180, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_CROP },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 320,
			  .picture_height = 240, .x = 0, .y = 215, .width = 320, .height = 25 },
			0, 0, 0, 0, 0, 0, 0, 0, false },
		{ "reaching outside the picture: cut to it",
			{ .x = 0, .y = 0, .width = 320, .height = 240, FRAME(320, 240), .scale = UMMS_LAYOUT_SCALE_FILL },
			{ .crop_width = 320, .crop_height = 240, .picture_width = 320,
			  .picture_height = 240, .x = -10, .y = 230, .width = 100, .height = 20 },
			0, 230, 90, 10, 10, 0, 90, 10, true },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(overlays); i++) {
		struct umms_layout l;
		struct umms_layout_overlay o;
		umms_layout_compute(&overlays[i].in, &l);
		bool shown = umms_layout_place_overlay(&l, &overlays[i].sub, &o);
		g_test_message("%s: %d %d,%d %dx%d from %.2f,%.2f %.2fx%.2f", overlays[i].what, shown,
			o.x, o.y, o.width, o.height, o.src_x, o.src_y, o.src_width, o.src_height);
		g_assert_cmpint(shown, ==, overlays[i].shown);
		g_assert_cmpint(o.x, ==, overlays[i].x);
		g_assert_cmpint(o.y, ==, overlays[i].y);
		g_assert_cmpint(o.width, ==, overlays[i].w);
		g_assert_cmpint(o.height, ==, overlays[i].h);
		g_assert_cmpfloat_with_epsilon(o.src_x, overlays[i].sx, 0.01);
		g_assert_cmpfloat_with_epsilon(o.src_y, overlays[i].sy, 0.01);
		g_assert_cmpfloat_with_epsilon(o.src_width, overlays[i].sw, 0.01);
		g_assert_cmpfloat_with_epsilon(o.src_height, overlays[i].sh, 0.01);
	}
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/layout/cases", test_cases);
	g_test_add_func("/layout/invisible", test_invisible);
	g_test_add_func("/layout/overlay", test_overlay);
	return g_test_run();
}
