/*
 * The KMS output's pure parts, with tables of cases: the plane ladder
 * (which layouts are tried, in which order, and why planes are passed
 * over) and the parsing of overscan margins and zoom modes. The device
 * side is tested on vkms in the VM (test-kms.c).
 */
#include <drm_fourcc.h>
#include <string.h>
#include <glib.h>

#include "error.h"
#include "kms-ladder.h"
#include "kms.h"

#define XR24 DRM_FORMAT_XRGB8888
#define AR24 DRM_FORMAT_ARGB8888
#define NV12 DRM_FORMAT_NV12

static uint32_t primary_formats[] = { XR24, DRM_FORMAT_RGB565 };
static uint32_t overlay_formats[] = { AR24, XR24, DRM_FORMAT_RGB565 };
static uint32_t yuv_overlay_formats[] = { NV12, XR24 };

/* A plane @id of type @t (PRIMARY, OVERLAY, CURSOR) taking the formats of array @f. */
#define PLANE(plane_id, t, f, z) { .id = (plane_id), .type = UMMS_KMS_PLANE_##t, \
	.formats = (f), .n_formats = G_N_ELEMENTS(f), .zpos = (z) }
/* The same with a zpos property of value @z. */
#define ZPOS_PLANE(plane_id, t, f, z) { .id = (plane_id), .type = UMMS_KMS_PLANE_##t, \
	.formats = (f), .n_formats = G_N_ELEMENTS(f), .has_zpos = true, .zpos = (z) }

/* vkms 6.1 with enable_overlay: a primary, overlays, a cursor; no zpos property. */
static const struct umms_kms_plane vkms_planes[] = {
	PLANE(31, PRIMARY, primary_formats, 0),
	PLANE(33, OVERLAY, overlay_formats, 1),
	PLANE(35, OVERLAY, overlay_formats, 1),
	PLANE(37, CURSOR, overlay_formats, 2),
};

/* A SoC-like device: zpos properties, a YUV overlay above an RGB one, one under the primary. */
#define SOC_PLANES \
	ZPOS_PLANE(50, OVERLAY, overlay_formats, 0), \
	ZPOS_PLANE(51, PRIMARY, primary_formats, 1), \
	ZPOS_PLANE(52, OVERLAY, yuv_overlay_formats, 3), \
	ZPOS_PLANE(53, OVERLAY, overlay_formats, 2)
static const struct umms_kms_plane soc_planes[] = { SOC_PLANES };

/* The SoC with an ARGB overlay on top, for subtitles. */
static const struct umms_kms_plane soc_sub_planes[] = {
	SOC_PLANES,
	ZPOS_PLANE(54, OVERLAY, overlay_formats, 4),
};

struct ladder_case {
	const char *what;
	const struct umms_kms_plane *planes;
	int n_planes;
	uint32_t format;
	bool covers, ui;
	/* Expected: rung and plane id per layout, 0-terminated ("o33" = overlay on 33). */
	const char *expect;
	const char *skipped;   /* a phrase the reasons must contain, or NULL */
	bool below;            /* the UI is drawn over the video (a hole shows it) */
	bool sub;              /* subtitles to show ("o33+35": their plane is 35) */
};

static const struct ladder_case cases[] = {
	{ "RGB video with bars on vkms: both overlays, then composition",
		vkms_planes, 4, XR24, false, false, "o33 o35 c31",
		"the picture leaves bars" },
	{ "full-screen RGB video, nothing else: the primary plane is a rung",
		vkms_planes, 4, XR24, true, false, "o33 o35 p31 c31", NULL },
	{ "full-screen video under a UI: not on the primary plane",
		vkms_planes, 4, XR24, true, true, "o33 o35 c31", "the UI must show" },
	{ "NV12 on vkms: no plane takes it, composition only",
		vkms_planes, 4, NV12, true, false, "c31", "plane 33 (overlay): no NV12" },
	{ "zpos: overlays above the primary, lowest first; the one under it passed over",
		soc_planes, 4, XR24, false, false, "o53 o52 c51", "plane 50 (overlay): under the primary" },
	{ "NV12 on the SoC: only the YUV overlay",
		soc_planes, 4, NV12, false, false, "o52 c51", "plane 53 (overlay): no NV12" },
	{ "video over the UI (a kiosk's fullscreen video): overlays are fine",
		vkms_planes, 4, XR24, false, true, "o33 o35 c31", NULL },
	{ "video under the UI's hole: no overlay, composition",
		vkms_planes, 4, XR24, false, true, "c31", "the UI is drawn over the video",
		.below = true },
	{ "subtitles on vkms: on the overlay after the video's; the last has none above",
		vkms_planes, 4, XR24, false, false, "o33+35 c31",
		"plane 35 (overlay): no AR24 plane above it for the subtitles", .sub = true },
	{ "subtitles over a full-screen video: the primary plane with subtitles on an overlay",
		vkms_planes, 4, XR24, true, false, "o33+35 p31+33 c31", NULL, .sub = true },
	{ "subtitles on the SoC without an ARGB plane above the video: composition",
		soc_planes, 4, XR24, false, false, "c51",
		"plane 53 (overlay): no AR24 plane above it", .sub = true },
	{ "subtitles on the SoC's ARGB top plane, over either video plane",
		soc_sub_planes, 5, XR24, false, false, "o53+54 o52+54 c51",
		"plane 54 (overlay): no AR24 plane above it", .sub = true },
	{ "NV12 with subtitles: the YUV overlay, subtitles on the top plane",
		soc_sub_planes, 5, NV12, false, false, "o52+54 c51", NULL, .sub = true },
	{ "subtitles under the UI's hole: composited with the video",
		vkms_planes, 4, XR24, false, true, "c31", NULL, .below = true, .sub = true },
};

static void
test_ladder(void)
{
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct ladder_case *c = &cases[i];
		struct umms_kms_ladder_input in = { .planes = c->planes, .n_planes = c->n_planes,
			.video_format = c->format, .covers_output = c->covers, .ui_visible = c->ui,
			.video_below_ui = c->below, .subpicture = c->sub };
		struct umms_kms_layout_choice out[UMMS_KMS_LADDER_MAX];
		g_autofree char *skipped = NULL;
		int n = umms_kms_ladder_build(&in, out, &skipped);
		GString *got = g_string_new(NULL);
		for (int k = 0; k < n; k++) {
			char rung = "opc"[out[k].rung];
			int plane = out[k].rung == UMMS_KMS_RUNG_COMPOSITE ? out[k].primary_plane :
				out[k].video_plane;
			g_string_append_printf(got, "%s%c%u", k ? " " : "", rung, c->planes[plane].id);
			if (out[k].sub_plane >= 0)
				g_string_append_printf(got, "+%u", c->planes[out[k].sub_plane].id);
		}
		g_test_message("%s: %s", c->what, got->str);
		if (strcmp(got->str, c->expect) != 0)
			g_error("%s: tried %s, expected %s", c->what, got->str, c->expect);
		if (c->skipped && !strstr(skipped, c->skipped))
			g_error("%s: reasons \"%s\" lack \"%s\"", c->what, skipped, c->skipped);
		g_string_free(got, TRUE);
	}
}

static void
test_no_primary(void)
{
	/* A primary plane that cannot take XRGB8888: nothing to try, said why. */
	static uint32_t nv12_only[] = { NV12 };
	const struct umms_kms_plane planes[] = {
		{ .id = 1, .type = UMMS_KMS_PLANE_PRIMARY, .formats = nv12_only, .n_formats = 1 },
	};
	struct umms_kms_ladder_input in = { .planes = planes, .n_planes = 1, .video_format = XR24 };
	struct umms_kms_layout_choice out[UMMS_KMS_LADDER_MAX];
	g_autofree char *skipped = NULL;
	g_assert_cmpint(umms_kms_ladder_build(&in, out, &skipped), ==, 0);
	g_assert_nonnull(strstr(skipped, "no primary plane takes XR24"));
}

static void
test_margins(void)
{
	static const struct {
		const char *text;
		bool ok;
		struct umms_screen_margins want;
	} margins[] = {
		{ "0", true, { 0, 0, 0, 0, false } },
		{ "5%", true, { 5, 5, 5, 5, true } },
		{ "32,18", true, { 32, 18, 32, 18, false } },
		{ "10,20,30,40", true, { 10, 20, 30, 40, false } },
		{ "5%,3%,5%,3%", true, { 5, 3, 5, 3, true } },
		{ "5%,18", false, { 0 } },     /* mixed units */
		{ "50%", false, { 0 } },       /* leaves too little */
		{ "-4", false, { 0 } },
		{ "1,2,3", false, { 0 } },
		{ "wide", false, { 0 } },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(margins); i++) {
		struct umms_screen_margins got = { 0 };
		g_autoptr(GError) error = NULL;
		bool ok = umms_screen_margins_parse(margins[i].text, &got, &error);
		g_test_message("margins \"%s\": %s", margins[i].text, ok ? "ok" : error->message);
		g_assert_cmpint(ok, ==, margins[i].ok);
		if (ok)
			g_assert_cmpmem(&got, sizeof(got), &margins[i].want, sizeof(got));
		else
			g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
	}
}

static void
test_zoom(void)
{
	const char *names[] = { "letterbox", "fill", "crop", "none", "4:3-in-16:9", "anamorphic" };
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		enum umms_layout_scale zoom;
		g_assert_true(umms_screen_zoom_parse(names[i], &zoom, NULL));
		g_assert_cmpstr(umms_screen_zoom_name(zoom), ==, names[i]);
	}
	g_autoptr(GError) error = NULL;
	enum umms_layout_scale zoom;
	g_assert_false(umms_screen_zoom_parse("stretch", &zoom, &error));
	g_assert_nonnull(strstr(error->message, "expected letterbox"));
}

/* CEA-861 timings: the rate comes from clock / (htotal * vtotal), not vrefresh. */
#define MODE(w, h, khz, ht, vt, hz) \
	{ .hdisplay = w, .vdisplay = h, .clock = khz, .htotal = ht, .vtotal = vt, .vrefresh = hz }

static void
test_refresh(void)
{
	const drmModeModeInfo modes[] = {
		MODE(1920, 1080, 148500, 2200, 1125, 60),   /* 0: 60.000 */
		MODE(1920, 1080, 148352, 2200, 1125, 60),   /* 1: 59.940 */
		MODE(1920, 1080, 148500, 2640, 1125, 50),   /* 2: 50 */
		MODE(1920, 1080, 74250, 2750, 1125, 24),    /* 3: 24.000 */
		MODE(1920, 1080, 74176, 2750, 1125, 24),    /* 4: 23.976 */
		MODE(1920, 1080, 74250, 2640, 1125, 25),    /* 5: 25 */
		MODE(1280, 720, 74250, 1650, 750, 60),      /* 6: another size */
	};
	static const struct {
		const char *what;
		double fps;
		int n_modes;        /* how many of the modes the screen has */
		int want;
	} rates[] = {
		{ "23.976 film: the 23.976 Hz mode, not 24", 24000.0 / 1001, 7, 4 },
		{ "24 fps: 24 Hz", 24, 7, 3 },
		{ "25 fps: 25 Hz", 25, 7, 5 },
		{ "29.97 fps: twice, 59.94 Hz", 30000.0 / 1001, 7, 1 },
		{ "30 fps: twice, 60 Hz", 30, 7, 0 },
		{ "50 fps on the current 50 Hz mode: stays", 50, 7, 2 },
		{ "24 fps where only 60 and 50 Hz exist: 2.5 times (60)", 24, 3, 0 },
		{ "12.5 fps: no mode suits", 12.5, 2, -1 },
		{ "unknown rate: nothing", 0, 7, -1 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(rates); i++) {
		/* The screen runs its first mode, or 50 Hz for the 50 fps case. */
		const drmModeModeInfo *current = rates[i].fps == 50 ? &modes[2] : &modes[0];
		int got = umms_kms_match_refresh(modes, rates[i].n_modes, current, rates[i].fps);
		g_test_message("%s: mode %d", rates[i].what, got);
		if (got != rates[i].want)
			g_error("%s: mode %d, expected %d", rates[i].what, got, rates[i].want);
	}
	g_assert_cmpfloat_with_epsilon(umms_kms_mode_refresh(&modes[4]), 23.976, 0.001);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/kms/ladder", test_ladder);
	g_test_add_func("/kms/no-primary", test_no_primary);
	g_test_add_func("/kms/margins", test_margins);
	g_test_add_func("/kms/zoom", test_zoom);
	g_test_add_func("/kms/refresh", test_refresh);
	return g_test_run();
}
