/*
 * What the vicodec tests share (vicodec-util.h).
 */
#include "fwht-parse.h"
#include "image.h"
#include "vicodec-util.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

const uint32_t umms_test_vicodec_bars[UMMS_TEST_VICODEC_N_BARS] = {
	0xffffff, 0xffff00, 0x00ffff, 0x00ff00, 0xff00ff, 0xff0000, 0x0000ff,
};

char *
umms_test_vicodec_make_clip(int seconds)
{
	char *path = g_build_filename(umms_test_tmpdir(), "bars.fwht", NULL);
	umms_test_fwht_make_clip(path, UMMS_TEST_VICODEC_CLIP_W, UMMS_TEST_VICODEC_CLIP_H,
		seconds);
	return path;
}

void
umms_test_vicodec_restart(struct umms_test *t, const char *settings)
{
	g_auto(GStrv) set = g_strsplit(settings, " ", -1);
	GPtrArray *overrides = g_ptr_array_new();
	const char *const common[] = { "display.enabled=true", "video.enabled=false",
		"engine.open-timeout=120000", "engine.answer-timeout=120000",
		/* What the resource policy and the players did, in CI's log of a failure. */
		"log.scopes=core=info,player=info" };
	for (size_t i = 0; i < G_N_ELEMENTS(common); i++)
		g_ptr_array_add(overrides, (gpointer)common[i]);
	for (char **s = set; *s; s++)
		g_ptr_array_add(overrides, *s);
	g_ptr_array_add(overrides, NULL);
	umms_test_restart(t, (const char *const *)overrides->pdata);
	g_ptr_array_free(overrides, TRUE);
}

GVariant *
umms_test_vicodec_display_get(struct umms_test *t, const char *property)
{
	return umms_test_get(t->bus, DISPLAY, DISPLAY1, property);
}

void
umms_test_vicodec_assert_bars(struct umms_test *t, const char *what, int x0, int y0, int w,
	int h)
{
	const uint32_t *bars = umms_test_vicodec_bars;
	g_autofree char *png = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", png));
	struct umms_test_image *image = umms_test_image_load(png);
	g_assert_cmpint(umms_test_image_width(image), ==, UMMS_TEST_VICODEC_SCREEN_W);
	g_assert_cmpint(umms_test_image_height(image), ==, UMMS_TEST_VICODEC_SCREEN_H);
	/* The middle of each bar, at three heights. */
	for (size_t i = 0; i < UMMS_TEST_VICODEC_N_BARS; i++) {
		int x = x0 + (int)(w * (2 * i + 1) / (2 * UMMS_TEST_VICODEC_N_BARS));
		for (int y = y0 + 4; y < y0 + h; y += h / 2 - 4)
			umms_test_image_assert_pixel(image, x, y, bars[i], 16, what);
	}
	umms_test_image_assert_pixel(image, x0 + 4, y0 - 1, 0x000000, 0, what);
	umms_test_image_assert_pixel(image, x0 - 1, y0 + 4, 0x000000, 0, what);
	umms_test_image_free(image);
}
