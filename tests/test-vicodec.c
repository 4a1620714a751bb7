/*
 * A hardware decoder's frames on the KMS screen without a copy, in the KMS
 * test VM (tests/vm/): vicodec, Linux's virtual V4L2 memory-to-memory
 * codec, encodes a clip here (v4l2fwhtenc) and decodes it in ummsd
 * (v4l2fwhtdec, picked by decodebin through the test-only FWHT parser of
 * fwht-parse.c). Its capture buffers leave the decoder as dma-buf, go on
 * vkms's overlay plane as they are, and writeback shows the pattern.
 *
 * /vicodec/gl (the vicodec-gl test): the same frames to an application
 * through libumms-client-gl, ummsd off the screen. The test is the
 * application: an EGL context on the GBM device of vkms's card (Mesa's
 * llvmpipe), the frames imported as EGLImages, drawn with the library's
 * snippet into a framebuffer and read back.
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <GLES2/gl2.h>
#include <gst/gst.h>

#include "egl-util.h"
#include "fwht-parse.h"
#include "harness.h"
#include "image.h"
#include "umms-gl.h"
#include "vicodec-util.h"

#define DISPLAY "/org/umms/display/0"
#define CARD "/dev/dri/card0"
#define DISPLAY1 "org.umms.Display1"

/* vkms's screen and the clip on it (vicodec-util.h). */
#define W UMMS_TEST_VICODEC_SCREEN_W
#define H UMMS_TEST_VICODEC_SCREEN_H
#define CLIP_W UMMS_TEST_VICODEC_CLIP_W
#define CLIP_H UMMS_TEST_VICODEC_CLIP_H
static const uint32_t *const bars = umms_test_vicodec_bars;

/* Which plane type shows the video, from Planes. */
static char *
video_plane_type(struct umms_test *t)
{
	return umms_test_video_plane_type(t->bus);
}

/*
 * ummsd on the screen with @settings, the clip playing past 1 s; asserts
 * the V4L2 decoder, its frames as dma-buf, the rung, no copy.
 */
static char *
play(struct umms_test *t, const char *clip, const char *settings, const char *rung)
{
	umms_test_vicodec_restart(t, settings);
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
	g_autoptr(GVariant) rung_v = umms_test_vicodec_display_get(t, "VideoPath");
	g_autoptr(GVariant) copies_v = umms_test_vicodec_display_get(t, "Copies");
	g_test_message("decoder %s, video path %s; display copies %" G_GUINT64_FORMAT
		", engine copies %" G_GUINT64_FORMAT ", frames as dma-buf %" G_GUINT64_FORMAT
		", displayed %" G_GUINT64_FORMAT, decoder, g_variant_get_string(rung_v, NULL),
		g_variant_get_uint64(copies_v), umms_test_stat(t->bus, path, "copies"),
		umms_test_stat(t->bus, path, "frames-dmabuf"),
		umms_test_stat(t->bus, path, "frames-displayed"));
	g_assert_true(g_str_has_prefix(decoder, "v4l2fwhtdec (hardware"));
	g_assert_cmpstr(g_variant_get_string(rung_v, NULL), ==, rung);
	g_assert_cmpuint(g_variant_get_uint64(copies_v), ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, path, "copies"), ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, path, "frames-dmabuf"), >, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, path, "frames-displayed"), >, 0);
	/*
	 * From the fork server, which a hardware decoder plugin (video4linux2
	 * here) must not stop from forking: it is loaded in each worker.
	 */
	g_assert_true(umms_test_worker_forked((pid_t)umms_test_stat(t->bus, path, "engine-pid")));
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
	umms_test_vicodec_assert_bars(t, "overlay-playing", x0, y0, CLIP_W, CLIP_H);
	umms_test_player_do(t->bus, path, "Pause", NULL);
	umms_test_vicodec_assert_bars(t, "overlay-paused", x0, y0, CLIP_W, CLIP_H);
}

/*
 * Scaled 1.5x into 32,24 px margins (vkms cannot scale a plane): drawn into
 * the primary plane by @renderer, reading the decoder's dma-buf in place.
 */
static void
composited(struct umms_test *t, const char *clip, const char *renderer)
{
	g_autofree char *settings = g_strdup_printf("display.margins=32,24 "
		"display.zoom=letterbox display.renderer=%s", renderer);
	g_autofree char *path = play(t, clip, settings, "composited");
	g_autofree char *what = g_strdup_printf("composited-%s", renderer);
	umms_test_vicodec_assert_bars(t, what, 32, 24, W - 64, H - 48);
}

static void
test_composited(struct umms_test *t, gconstpointer data)
{
	/* pixman maps the buffer (the dma-buf's own mmap). */
	composited(t, data, "pixman");
}

static void
test_composited_gles2(struct umms_test *t, gconstpointer data)
{
	/*
	 * gles2 on vkms's GBM device (llvmpipe) imports it as an EGLImage and
	 * reads it through the card's mapping of the import
	 * (vm/vkms-map-imported.patch: without it, llvmpipe read address 0).
	 */
	composited(t, data, "gles2");
}

/* ---- /vicodec/gl: an application drawing the frames with libumms-client-gl ------- */

/* The application's GL: a GLES 2 context on vkms's GBM device, drawing into a texture. */
static struct umms_test_egl egl;

struct app {
	struct umms_gl *gl;
	char *path;
	bool eos;
	struct umms_test_gl_program program;
	uint8_t pixels[CLIP_W * CLIP_H * 4];
};

static void
on_ready(void *data, struct umms_gl *gl, const char *path)
{
	((struct app *)data)->path = g_strdup(path);
}

static void
on_eos(void *data, struct umms_gl *gl)
{
	((struct app *)data)->eos = true;
}

static void
on_failed(void *data, struct umms_gl *gl, const char *reason)
{
	g_error("no player: %s", reason);
}

static void
on_error(void *data, struct umms_gl *gl, const char *name, const char *message)
{
	g_error("player error %s: %s", name, message);
}

static const struct umms_gl_listener listener = {
	.ready = on_ready,
	.failed = on_failed,
	.end_of_stream = on_eos,
	.error = on_error,
};

/* Handles what ummsd sent, waiting up to @ms for it. */
static void
pump(struct app *app, int ms)
{
	while (g_main_context_iteration(NULL, FALSE))
		;
	struct pollfd pfd = { .fd = umms_gl_get_fd(app->gl), .events = POLLIN };
	poll(&pfd, 1, ms);
	g_assert_cmpint(umms_gl_dispatch(app->gl), ==, 0);
}

/* One application frame: the newest due, drawn over the target and read back. */
static const struct umms_gl_frame *
draw(struct app *app)
{
	return umms_test_egl_draw_update(&egl, &app->program, app->gl, app->pixels);
}

/* The bars in what was drawn last: the middle of each, at three heights. */
static void
assert_drawn_bars(struct app *app, const char *what)
{
	for (size_t i = 0; i < UMMS_TEST_VICODEC_N_BARS; i++) {
		int x = (int)(CLIP_W * (2 * i + 1) / (2 * UMMS_TEST_VICODEC_N_BARS));
		for (int y = 4; y < CLIP_H; y += CLIP_H / 2 - 4) {
			umms_test_egl_assert_rgb(&egl, app->pixels, x, y, bars[i], 16, what);
			g_assert_cmpuint(umms_test_egl_alpha(&egl, app->pixels, x, y), ==, 255);
		}
	}
}

/* Distinct frames the application draws while the clip plays. */
#define DRAWN 4

static void
test_gl(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "video.enabled=true", "display.enabled=false",
		"engine.open-timeout=120000", "engine.answer-timeout=120000", NULL };
	umms_test_restart(t, overrides);
	umms_test_egl_setup(&egl, CARD, CLIP_W, CLIP_H);
	struct app *app = g_new0(struct app, 1);
	g_autofree char *socket = g_build_filename(umms_test_tmpdir(), "umms-0", NULL);
	/* The library's defaults: XRGB8888 first, and what this EGL display imports. */
	app->gl = umms_gl_create(socket, NULL, 0, &listener, app);
	g_assert_nonnull(app->gl);
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	g_assert_nonnull(app->path);
	g_autofree char *uri = g_filename_to_uri(data, NULL, NULL);
	umms_test_player_do(t->bus, app->path, "SetUri", g_variant_new("(s)", uri));

	/*
	 * The first frame, paused: drawn once before playing, since llvmpipe
	 * compiles its shaders at the first draw (about 15 s under emulation,
	 * longer than the clip).
	 */
	const struct umms_gl_frame *frame = NULL;
	gint64 start = g_get_monotonic_time();
	while (!(frame = draw(app))) {
		if (g_get_monotonic_time() > start + 120 * G_USEC_PER_SEC)
			g_error("no frame in 120 s");
		pump(app, 20);
	}
	g_test_message("first frame drawn after %.1f s",
		(double)(g_get_monotonic_time() - start) / G_USEC_PER_SEC);
	g_assert_true(frame->dmabuf);
	assert_drawn_bars(app, "the first frame");
	umms_test_player_do(t->bus, app->path, "Play", NULL);

	/*
	 * Drawing as an application would, as often as it can: a few frames of
	 * the playing clip, each a new one. (llvmpipe under emulation, with
	 * the decoder and ummsd on the same two emulated CPUs, draws a frame
	 * in about 0.6 s under load: ummsd drops what comes late, so only
	 * some of the 100 frames get drawn before the clip ends.)
	 */
	struct umms_gl_counts counts = { 0 };
	unsigned drawn = 0, draws = 0;
	uint32_t serial = frame->serial;
	gint64 drawing = 0;
	start = g_get_monotonic_time();
	while (drawn < DRAWN) {
		if (app->eos)
			g_error("the clip ended with only %u frames drawn", drawn);
		if (g_get_monotonic_time() > start + 120 * G_USEC_PER_SEC)
			g_error("only %u frames drawn in 120 s", drawn);
		pump(app, 20);
		gint64 before = g_get_monotonic_time();
		frame = draw(app);
		drawing += g_get_monotonic_time() - before;
		draws += frame ? 1 : 0;
		if (frame && frame->serial != serial) {
			serial = frame->serial;
			drawn++;
			assert_drawn_bars(app, "a frame drawn");
		}
	}
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	umms_gl_get_counts(app->gl, &counts);
	g_autofree char *decoder = umms_test_get_string(t->bus, app->path, "Decoder");
	g_test_message("%u draws, %.0f ms each (update, draw, read back)", draws,
		(double)drawing / 1000 / draws);
	g_test_message("decoder %s; %u drawn: %u received, %u imported, %u uploaded, "
		"%u presented, %u discarded, %u EGLImages; Stats copies %" G_GUINT64_FORMAT
		", frames decoded %" G_GUINT64_FORMAT ", as dma-buf %" G_GUINT64_FORMAT
		", dropped %" G_GUINT64_FORMAT ", displayed %" G_GUINT64_FORMAT ", discarded %"
		G_GUINT64_FORMAT, decoder, drawn, counts.received, counts.imported, counts.uploaded,
		counts.presented, counts.discarded, counts.images,
		umms_test_stat(t->bus, app->path, "copies"),
		umms_test_stat(t->bus, app->path, "frames-decoded"),
		umms_test_stat(t->bus, app->path, "frames-dmabuf"),
		umms_test_stat(t->bus, app->path, "frames-dropped"),
		umms_test_stat(t->bus, app->path, "frames-displayed"),
		umms_test_stat(t->bus, app->path, "frames-discarded"));
	g_assert_true(g_str_has_prefix(decoder, "v4l2fwhtdec (hardware"));
	/* The decoder's own buffers, as they are: XRGB8888 dma-bufs of the clip's size. */
	g_assert_true(frame->dmabuf);
	g_assert_cmphex(frame->format, ==, DRM_FORMAT_XRGB8888);
	g_assert_cmpint(frame->layout, ==, UMMS_GL_LAYOUT_RGBA);
	g_assert_cmpint(frame->target, ==, GL_TEXTURE_2D);
	g_assert_cmpint(frame->width, ==, CLIP_W);
	g_assert_cmpint(frame->height, ==, CLIP_H);
	g_assert_cmpint(frame->crop_width, ==, CLIP_W);
	g_assert_cmpint(frame->crop_height, ==, CLIP_H);
	/* Imported once per decoder buffer, nothing uploaded. */
	g_assert_cmpuint(counts.uploaded, ==, 0);
	g_assert_cmpuint(counts.imported, >=, 1);
	g_assert_cmpuint(counts.imported, <=, counts.received);
	g_assert_cmpuint(counts.images, >=, 1);
	/*
	 * Each frame taken answered presented: zero-copy (the library's flag
	 * for a dma-buf frame), never copied, so ummsd counts no copy; every
	 * one of them counted displayed.
	 */
	g_assert_cmpuint(counts.presented, >=, drawn);
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "copies"), ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "frames-dmabuf"), >, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "frames-displayed"), ==,
		counts.presented);

	/* Paused: drawn again, still the decoder's buffer. */
	umms_test_player_do(t->bus, app->path, "Pause", NULL);
	pump(app, 100);
	g_assert_nonnull((frame = draw(app)));
	g_assert_true(frame->dmabuf);
	assert_drawn_bars(app, "paused");
	umms_gl_get_counts(app->gl, &counts);
	g_assert_cmpuint(counts.uploaded, ==, 0);

	umms_gl_destroy(app->gl);
	umms_test_gl_program_finish(&app->program);
	g_free(app->path);
	g_free(app);
	umms_test_egl_finish(&egl);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);

	umms_test_fwht_log_undrained();
	gst_init(NULL, NULL);
	if (access(CARD, F_OK) != 0)
		g_error("no " CARD ": this test runs in the KMS test VM (meson test vicodec)");
	umms_test_fwht_require();
	g_autofree char *clip = umms_test_vicodec_make_clip(10);
	g_test_add("/vicodec/overlay", struct umms_test, clip, umms_test_setup, test_overlay,
		umms_test_teardown);
	g_test_add("/vicodec/composited", struct umms_test, clip, umms_test_setup,
		test_composited, umms_test_teardown);
	g_test_add("/vicodec/composited-gles2", struct umms_test, clip, umms_test_setup,
		test_composited_gles2, umms_test_teardown);
	g_test_add("/vicodec/gl", struct umms_test, clip, umms_test_setup, test_gl,
		umms_test_teardown);
	return g_test_run();
}
