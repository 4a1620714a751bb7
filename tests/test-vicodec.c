/*
 * A hardware decoder's frames on the KMS screen without a copy, in the KMS
 * test VM (tests/vm/): vicodec, Linux's virtual V4L2 memory-to-memory
 * codec, encodes a clip here (v4l2fwhtenc) and decodes it in ummsd
 * (v4l2fwhtdec, picked by decodebin through the test-only FWHT parser of
 * fwht-parse.c). Its capture buffers leave the decoder as dma-buf, go on
 * vkms's overlay plane as they are, and writeback shows the pattern.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

#include "fwht-parse.h"
#include "harness.h"
#include "image.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

/*
 * vkms's preferred mode; the clip at 1:1 in its middle (vkms cannot scale),
 * and no smaller than vicodec takes (640x360).
 */
#define W 1024
#define H 768
#define CLIP_W 640
#define CLIP_H 480

/* videotestsrc's smpte100: seven bars of 100% colour, left to right. */
static const uint32_t bars[] = { 0xffffff, 0xffff00, 0x00ffff, 0x00ff00, 0xff00ff, 0xff0000,
	0x0000ff };

/* The clip, made by vicodec's encoder: raw FWHT frames, as v4l2fwhtenc writes them. */
static char *
make_clip(void)
{
	char *path = g_build_filename(umms_test_tmpdir(), "bars.fwht", NULL);
	umms_test_fwht_make_clip(path, CLIP_W, CLIP_H, 10);
	return path;
}

static GVariant *
display_get(struct umms_test *t, const char *property)
{
	return umms_test_get(t->bus, DISPLAY, DISPLAY1, property);
}

static guint64
stat_of(struct umms_test *t, const char *path, const char *key)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, path, UMMS_PLAYER, "Stats");
	guint64 value = 0;
	g_assert_true(g_variant_lookup(stats, key, "t", &value));
	return value;
}

/* Which plane type shows the video, from Planes. */
static char *
video_plane_type(struct umms_test *t)
{
	return umms_test_video_plane_type(t->bus);
}

/* The bars, the picture's @w x @h at (@x0, @y0) on the screen; black around it. */
static void
assert_bars(struct umms_test *t, const char *what, int x0, int y0, int w, int h)
{
	g_autofree char *png = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", png));
	struct umms_test_image *image = umms_test_image_load(png);
	g_assert_cmpint(umms_test_image_width(image), ==, W);
	g_assert_cmpint(umms_test_image_height(image), ==, H);
	/* The middle of each bar, at three heights. */
	for (size_t i = 0; i < G_N_ELEMENTS(bars); i++) {
		int x = x0 + (int)(w * (2 * i + 1) / (2 * G_N_ELEMENTS(bars)));
		for (int y = y0 + 4; y < y0 + h; y += h / 2 - 4)
			umms_test_image_assert_pixel(image, x, y, bars[i], 16, what);
	}
	umms_test_image_assert_pixel(image, x0 + 4, y0 - 1, 0x000000, 0, what);
	umms_test_image_assert_pixel(image, x0 - 1, y0 + 4, 0x000000, 0, what);
	umms_test_image_free(image);
}

/*
 * ummsd on the screen with @settings, the clip playing past 1 s; asserts
 * the V4L2 decoder, its frames as dma-buf, the rung, no copy.
 */
static char *
play(struct umms_test *t, const char *clip, const char *settings, const char *rung)
{
	g_auto(GStrv) set = g_strsplit(settings, " ", -1);
	GPtrArray *overrides = g_ptr_array_new();
	const char *const common[] = { "display.enabled=true", "video.enabled=false",
		"engine.open-timeout=120000", "engine.answer-timeout=120000" };
	for (size_t i = 0; i < G_N_ELEMENTS(common); i++)
		g_ptr_array_add(overrides, (gpointer)common[i]);
	for (char **s = set; *s; s++)
		g_ptr_array_add(overrides, *s);
	g_ptr_array_add(overrides, NULL);
	umms_test_restart(t, (const char *const *)overrides->pdata);
	g_ptr_array_free(overrides, TRUE);
	/*
	 * On the screen before it opens: the decoder then negotiates the one
	 * format the screen takes as it is (XRGB8888), which is the stream's own.
	 */
	char *path = umms_test_create_player(t->bus, NULL);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", path));
	g_autofree char *uri = g_filename_to_uri(clip, NULL, NULL);
	umms_test_player_do(t->bus, path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, path, "Play", NULL);
	umms_test_wait_position(t->bus, path, US(1), false, 60000);

	g_autofree char *decoder = umms_test_get_string(t->bus, path, "Decoder");
	g_autoptr(GVariant) rung_v = display_get(t, "VideoPath");
	g_autoptr(GVariant) copies_v = display_get(t, "Copies");
	g_test_message("decoder %s, video path %s; display copies %" G_GUINT64_FORMAT
		", engine copies %" G_GUINT64_FORMAT ", frames as dma-buf %" G_GUINT64_FORMAT
		", displayed %" G_GUINT64_FORMAT, decoder, g_variant_get_string(rung_v, NULL),
		g_variant_get_uint64(copies_v), stat_of(t, path, "copies"),
		stat_of(t, path, "frames-dmabuf"), stat_of(t, path, "frames-displayed"));
	g_assert_true(g_str_has_prefix(decoder, "v4l2fwhtdec (hardware"));
	g_assert_cmpstr(g_variant_get_string(rung_v, NULL), ==, rung);
	g_assert_cmpuint(g_variant_get_uint64(copies_v), ==, 0);
	g_assert_cmpuint(stat_of(t, path, "copies"), ==, 0);
	g_assert_cmpuint(stat_of(t, path, "frames-dmabuf"), >, 0);
	g_assert_cmpuint(stat_of(t, path, "frames-displayed"), >, 0);
	return path;
}

static void
test_overlay(struct umms_test *t, gconstpointer data)
{
	/* At its own size: the decoder's buffer scanned out on an overlay plane. */
	g_autofree char *path = play(t, data, "display.margins=0 display.zoom=none", "overlay");
	g_autofree char *plane = video_plane_type(t);
	g_assert_cmpstr(plane, ==, "overlay");
	int x0 = (W - CLIP_W) / 2, y0 = (H - CLIP_H) / 2;
	assert_bars(t, "overlay-playing", x0, y0, CLIP_W, CLIP_H);
	umms_test_player_do(t->bus, path, "Pause", NULL);
	assert_bars(t, "overlay-paused", x0, y0, CLIP_W, CLIP_H);
}

static void
test_composited(struct umms_test *t, gconstpointer data)
{
	/*
	 * Scaled 1.5x into 32,24 px margins (vkms cannot scale a plane): drawn
	 * into the primary plane by pixman, which maps the decoder's dma-buf
	 * and reads it in place. (gles2 on vkms's GBM device, llvmpipe, crashes
	 * in llvmpipe's own code reading the imported vicodec buffer.)
	 */
	g_autofree char *path = play(t, data,
		"display.margins=32,24 display.zoom=letterbox display.renderer=pixman", "composited");
	assert_bars(t, "composited", 32, 24, W - 64, H - 48);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	umms_test_fwht_log_undrained();
	gst_init(NULL, NULL);
	if (access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM (meson test vicodec)");
	g_assert_true(umms_test_fwht_register());
	g_autofree char *clip = make_clip();
	g_test_add("/vicodec/overlay", struct umms_test, clip, umms_test_setup, test_overlay,
		umms_test_teardown);
	g_test_add("/vicodec/composited", struct umms_test, clip, umms_test_setup,
		test_composited, umms_test_teardown);
	return g_test_run();
}
