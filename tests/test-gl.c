/*
 * libumms-client-gl as an application uses it: a real ummsd in-process, a
 * surfaceless EGL context on Mesa (llvmpipe, no GPU needed), frames turned
 * into textures and drawn with the library's snippet into a framebuffer
 * whose pixels are read back. pattern.mkv's quadrants and bands must come
 * out in their colours (within COLOUR_TOLERANCE of each channel) from
 * XRGB8888, NV12 and YUV420 frames; uploads must show in Stats "copies";
 * nothing may grow over hundreds of frames; a missing or destroyed player
 * must be handled; a stream's subtitles must come as a texture drawn where
 * they go and as the cue's text.
 */
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <GLES2/gl2.h>
#include <wayland-client.h>

#include "compositor.h"
#include "egl-util.h"
#include "harness.h"
#include "image.h"
#include "umms-gl.h"

/* Per channel, 0-255: the decoder's, converter's and our rounding, bilinear chroma. */
#define COLOUR_TOLERANCE 10
#define WIDTH 320
#define HEIGHT 240

/* One EGL display and context for the program (EGL's surfaceless display is per process). */
static struct umms_test_egl egl;

struct app {
	struct umms_gl *gl;
	char *path;
	char *failed;
	char *error_name;
	unsigned eos;
	int width, height;
	struct umms_test_gl_program program; /* .subtitled: draws umms_sample_subtitled() */
	char *cue;                 /* the last cue text received, NULL before any */
	uint8_t pixels[WIDTH * HEIGHT * 4];
};

/* GL texture names in use now (the library's and ours). */
static unsigned
count_textures(void)
{
	unsigned n = 0;
	for (GLuint name = 1; name < 4096; name++)
		n += glIsTexture(name) ? 1 : 0;
	return n;
}

/* ---- the application ---------------------------------------------------------- */

static void
on_ready(void *data, struct umms_gl *gl, const char *path)
{
	((struct app *)data)->path = g_strdup(path);
}

static void
on_failed(void *data, struct umms_gl *gl, const char *reason)
{
	((struct app *)data)->failed = g_strdup(reason);
}

static void
on_size(void *data, struct umms_gl *gl, int width, int height)
{
	struct app *app = data;
	app->width = width;
	app->height = height;
}

static void
on_eos(void *data, struct umms_gl *gl)
{
	((struct app *)data)->eos++;
}

static void
on_error(void *data, struct umms_gl *gl, const char *name, const char *message)
{
	struct app *app = data;
	g_test_message("player error %s: %s", name, message);
	g_free(app->error_name);
	app->error_name = g_strdup(name);
}

static const struct umms_gl_listener listener = {
	.ready = on_ready,
	.failed = on_failed,
	.size = on_size,
	.end_of_stream = on_eos,
	.error = on_error,
};

static struct app *
app_create(const char *player_path, uint32_t flags)
{
	struct app *app = g_new0(struct app, 1);
	g_autofree char *socket = g_build_filename(umms_test_tmpdir(), "umms-0", NULL);
	app->gl = umms_gl_create(socket, player_path, flags, &listener, app);
	g_assert_nonnull(app->gl);
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	return app;
}

static void
app_destroy(struct app *app)
{
	umms_gl_destroy(app->gl);
	umms_test_gl_program_finish(&app->program);
	g_free(app->path);
	g_free(app->failed);
	g_free(app->error_name);
	g_free(app->cue);
	g_free(app);
}

/* Receives what ummsd sends for @ms; asserts the connection stays up. */
static void
pump(struct app *app, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	do {
		while (g_main_context_iteration(NULL, FALSE))
			;
		struct pollfd pfd = { .fd = umms_gl_get_fd(app->gl), .events = POLLIN };
		poll(&pfd, 1, 5);
		g_assert_cmpint(umms_gl_dispatch(app->gl), ==, 0);
	} while (g_get_monotonic_time() < end);
}

static void
wait_received(struct app *app, unsigned frames)
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	struct umms_gl_counts counts;
	for (umms_gl_get_counts(app->gl, &counts); counts.received < frames;
			umms_gl_get_counts(app->gl, &counts)) {
		if (g_get_monotonic_time() > end)
			g_error("only %u of %u frames arrived", counts.received, frames);
		pump(app, 5);
	}
}

/* One application frame: update, draw the video over the whole target, read it back. */
static const struct umms_gl_frame *
draw(struct app *app)
{
	return umms_test_egl_draw_update(&egl, &app->program, app->gl, app->pixels);
}

static void
assert_pixel(struct app *app, int x, int y, uint32_t rgb, const char *what)
{
	umms_test_egl_assert_rgb(&egl, app->pixels, x, y, rgb, COLOUR_TOLERANCE, what);
	g_assert_cmpint(umms_test_egl_alpha(&egl, app->pixels, x, y), ==, 255);
}

/* pattern.mkv (tests/gen-clips.c): quadrants under a magenta band, over a cyan one. */
static void
assert_pattern(struct app *app)
{
	assert_pixel(app, 80, 60, 0xff0000, "red quadrant");
	assert_pixel(app, 240, 60, 0x00ff00, "green quadrant");
	assert_pixel(app, 80, 180, 0x0000ff, "blue quadrant");
	assert_pixel(app, 240, 180, 0xffffff, "white quadrant");
	assert_pixel(app, 160, 8, 0xff00ff, "magenta band");
	assert_pixel(app, 160, 232, 0x00ffff, "cyan band");
}

static void
open_play(struct umms_test *t, const char *path, const char *clip)
{
	g_autofree char *uri = umms_test_clip_uri(clip);
	umms_test_player_do(t->bus, path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, path, "Play", NULL);
}

/* Draws as an application would, about every 10 ms, until @frames were uploaded. */
static void
play_drawing(struct app *app, unsigned frames)
{
	gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
	struct umms_gl_counts counts;
	for (umms_gl_get_counts(app->gl, &counts); counts.uploaded + counts.imported < frames;
			umms_gl_get_counts(app->gl, &counts)) {
		if (g_get_monotonic_time() > end)
			g_error("only %u of %u frames drawn", counts.uploaded, frames);
		pump(app, 10);
		draw(app);
	}
}

/*
 * Open fds of this process, once the service's start-up has settled: its
 * spare worker started, after the fork server is ready (a second or so).
 * The server is named once it runs: before, it is counted as a worker.
 */
static unsigned
settled_fds(void)
{
	g_assert_cmpint(umms_test_fork_server(0), >, 0);
	umms_test_wait_engine_workers(1);
	umms_test_sleep(200);
	g_autofree char *targets = umms_test_fd_targets();
	g_test_message("fds at the start: %s", targets);
	return umms_test_fd_count();
}

/*
 * The fds of this process (ummsd's included: it runs in-process) come back
 * to at most @count; ummsd lets a destroyed player's memory go from its
 * main loop, and its own start-up may close one more meanwhile.
 */
static void
wait_fds(unsigned count)
{
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (umms_test_fd_count() > count && g_get_monotonic_time() < end)
		umms_test_sleep(20);
	if (umms_test_fd_count() > count) {
		g_autofree char *targets = umms_test_fd_targets();
		unsigned zombies = 0;
		unsigned workers = umms_test_engine_children(&zombies, 0, NULL);
		g_error("%u fds, not %u (%u engine workers, %u zombies): %s", umms_test_fd_count(),
			count, workers, zombies, targets);
	}
}

/* ---- tests ------------------------------------------------------------------------ */

/* One format's whole path: what frames ummsd sends, their textures, their pixels. */
static void
check_format(struct umms_test *t, uint32_t flags, uint32_t format, enum umms_gl_layout layout,
	int n_textures)
{
	struct app *app = app_create(NULL, flags);
	g_assert_nonnull(app->path);
	g_assert_true(g_str_has_prefix(app->path, "/org/umms/player/"));
	g_autofree char *uri = umms_test_clip_uri("pattern.mkv");
	umms_test_player_do(t->bus, app->path, "SetUri", g_variant_new("(s)", uri));
	wait_received(app, 1);
	g_assert_cmpint(app->width, ==, WIDTH);
	g_assert_cmpint(app->height, ==, HEIGHT);

	const struct umms_gl_frame *frame = draw(app);
	g_assert_nonnull(frame);
	g_assert_cmpuint(frame->format, ==, format);
	g_assert_false(frame->dmabuf);
	g_assert_cmpint(frame->layout, ==, layout);
	g_assert_cmpint(frame->n_textures, ==, n_textures);
	g_assert_cmpuint(frame->target, ==, GL_TEXTURE_2D);
	for (int i = 0; i < n_textures; i++)
		g_assert_true(glIsTexture(frame->textures[i]));
	g_assert_cmpint(frame->width, ==, WIDTH);
	g_assert_cmpint(frame->height, ==, HEIGHT);
	g_assert_cmpint(frame->crop_width, ==, WIDTH);
	g_assert_cmpint(frame->crop_height, ==, HEIGHT);
	g_assert_cmpuint(frame->par_n, ==, frame->par_d);
	assert_pattern(app);

	/* Playing: every frame uploaded is reported copied, and counted by ummsd. */
	umms_test_player_do(t->bus, app->path, "Play", NULL);
	play_drawing(app, 25);
	assert_pattern(app);
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	struct umms_gl_counts counts;
	umms_gl_get_counts(app->gl, &counts);
	guint64 copies = umms_test_stat(t->bus, app->path, "copies");
	g_test_message("%u received, %u uploaded, %u presented, %u discarded; Stats copies %"
		G_GUINT64_FORMAT, counts.received, counts.uploaded, counts.presented,
		counts.discarded, copies);
	g_assert_cmpuint(counts.uploaded, >=, 25);
	g_assert_cmpuint(counts.presented, ==, counts.uploaded);
	g_assert_cmpuint(copies, ==, counts.uploaded);
	g_assert_cmpuint(counts.imported, ==, 0);
	g_assert_cmpuint(counts.images, ==, 0);
	g_assert_cmpuint(counts.textures, ==, (unsigned)n_textures);
	app_destroy(app);
}

static void
test_rgb(struct umms_test *t, gconstpointer data)
{
	/* The default: XRGB8888 (ummsd's first choice), one texture. */
	check_format(t, 0, WL_SHM_FORMAT_XRGB8888, UMMS_GL_LAYOUT_RGBA, 1);
}

static void
test_nv12(struct umms_test *t, gconstpointer data)
{
	/* YUV asked for: NV12 (ummsd's first YUV), Y and CbCr textures, our BT.601 matrix. */
	check_format(t, UMMS_GL_YUV, WL_SHM_FORMAT_NV12, UMMS_GL_LAYOUT_NV12, 2);
}

static void
test_i420(struct umms_test *t, gconstpointer data)
{
	check_format(t, UMMS_GL_I420, WL_SHM_FORMAT_YUV420, UMMS_GL_LAYOUT_YUV420, 3);
}

static void
test_discarded(struct umms_test *t, gconstpointer data)
{
	/* An application that stops drawing for a second: those frames never reach the screen. */
	struct app *app = app_create(NULL, 0);
	open_play(t, app->path, "long.mkv");
	play_drawing(app, 5);
	struct umms_gl_counts before, after;
	umms_gl_get_counts(app->gl, &before);
	pump(app, 1000);
	g_assert_nonnull(draw(app));
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	umms_gl_get_counts(app->gl, &after);
	g_test_message("while not drawing: %u received, %u discarded",
		after.received - before.received, after.discarded - before.discarded);
	/* 25 fps: about 25 came, one was drawn at the end. */
	g_assert_cmpuint(after.received - before.received, >=, 15);
	g_assert_cmpuint(after.discarded - before.discarded, >=, after.received - before.received - 2);
	g_assert_cmpuint(after.uploaded, ==, before.uploaded + 1);
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "frames-discarded"), ==,
		after.discarded);
	/* ummsd had its memory back meanwhile: it kept sending every frame. */
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "frames-dropped"), <=,
		after.discarded + 5);

	/* Manual presentation: a frame taken and never said presented was discarded. */
	app_destroy(app);
	app = app_create(NULL, UMMS_GL_MANUAL_PRESENTED);
	open_play(t, app->path, "long.mkv");
	wait_received(app, 2);
	g_assert_nonnull(draw(app));
	umms_gl_get_counts(app->gl, &before);
	g_assert_cmpuint(before.presented, ==, 0);
	wait_received(app, before.received + 1);
	g_assert_nonnull(draw(app));
	umms_gl_get_counts(app->gl, &after);
	g_assert_cmpuint(after.discarded, >, before.discarded);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	umms_gl_presented(app->gl, now.tv_sec * 1000000000LL + now.tv_nsec);
	umms_gl_presented(app->gl, now.tv_sec * 1000000000LL + now.tv_nsec);
	umms_gl_get_counts(app->gl, &after);
	g_assert_cmpuint(after.presented, ==, 1);
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, app->path, "copies"), ==, 1);
	app_destroy(app);
}

static void
test_no_growth(struct umms_test *t, gconstpointer data)
{
	/* Hundreds of frames: no fd, texture, EGLImage or buffer more at the end. */
	unsigned fds_start = settled_fds();
	struct app *app = app_create(NULL, UMMS_GL_YUV);
	open_play(t, app->path, "long.mkv");
	play_drawing(app, 25);
	/* The player's worker alone: the next spare waits while it plays. */
	umms_test_wait_engine_workers(1);
	unsigned fds = umms_test_fd_count(), textures = count_textures();
	struct umms_gl_counts early, late;
	umms_gl_get_counts(app->gl, &early);
	play_drawing(app, 300);
	umms_gl_get_counts(app->gl, &late);
	g_test_message("after %u and %u frames: %u/%u fds, %u/%u textures, %u/%u buffers",
		early.uploaded, late.uploaded, fds, umms_test_fd_count(), textures,
		count_textures(), early.buffers, late.buffers);
	/*
	 * The library keeps no fd (it maps ummsd's memory and closes them);
	 * ummsd, in this process, holds one per piece of frame memory, and
	 * its pool may still grow a little: fds follow its buffers, which stay
	 * few.
	 */
	g_assert_cmpint((int)umms_test_fd_count() - (int)fds, ==,
		(int)late.buffers - (int)early.buffers);
	g_assert_cmpuint(late.buffers, <=, 12);
	g_assert_cmpuint(count_textures(), ==, textures);
	g_assert_cmpuint(late.textures, ==, early.textures);
	g_assert_cmpuint(late.images, ==, 0);
	app_destroy(app);
	/* Only the application's own framebuffer texture stays. */
	g_assert_cmpuint(count_textures(), ==, 1);
	wait_fds(fds_start);
}

static void
test_no_such_player(struct umms_test *t, gconstpointer data)
{
	struct app *app = app_create("/org/umms/player/999", 0);
	pump(app, 50);
	g_assert_null(app->path);
	g_assert_cmpstr(app->failed, ==, "no such player");
	g_assert_null(umms_gl_update(app->gl, 0));
	app_destroy(app);
}

/* ---- subtitles ------------------------------------------------------------------ */

static void
on_cue(void *data, struct umms_gl *gl, const char *text)
{
	struct app *app = data;
	g_free(app->cue);
	app->cue = g_strdup(text);
}

/* Light pixels (red and green over 100: subs.mkv's picture is dark blue) in and out of @rect. */
static void
count_white(struct app *app, const GLfloat rect[4], unsigned *inside, unsigned *outside)
{
	*inside = *outside = 0;
	for (int y = 0; y < HEIGHT; y++) {
		for (int x = 0; x < WIDTH; x++) {
			const uint8_t *p = &app->pixels[((size_t)y * WIDTH + (size_t)x) * 4];
			if (p[0] <= 100 || p[1] <= 100)
				continue;
			float u = ((float)x + 0.5f) / WIDTH, v = ((float)y + 0.5f) / HEIGHT;
			bool in = u >= rect[0] && u < rect[0] + rect[2] && v >= rect[1] &&
				v < rect[1] + rect[3];
			(*(in ? inside : outside))++;
		}
	}
}

/* Draws until the cue text is @text and the frame drawn has its image ("": neither). */
static const struct umms_gl_frame *
draw_until_cue(struct app *app, const char *text)
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (g_get_monotonic_time() < end) {
		pump(app, 10);
		const struct umms_gl_frame *frame = draw(app);
		if (frame && strcmp(app->cue ? app->cue : "", text) == 0 &&
				!*text == !frame->subtitle_texture)
			return frame;
	}
	g_error("no frame with the cue \"%s\" (text \"%s\")", text, app->cue ? app->cue : "");
}

static void
assert_cue_drawn(struct app *app, const struct umms_gl_frame *frame, const char *what)
{
	unsigned inside, outside;
	count_white(app, frame->subtitle_rect, &inside, &outside);
	g_test_message("%s: %u light pixels in the subtitle's rectangle (%.2f %.2f %.2f %.2f), "
		"%u outside", what, inside, frame->subtitle_rect[0], frame->subtitle_rect[1],
		frame->subtitle_rect[2], frame->subtitle_rect[3], outside);
	g_assert_cmpuint(inside, >=, 60);
	g_assert_cmpuint(outside, ==, 0);
	/* Bottom centre, as a caption goes. */
	g_assert_cmpfloat(frame->subtitle_rect[1], >, 0.5f);
}

static void
assert_no_cue_drawn(struct app *app)
{
	static const GLfloat whole[4] = { 0, 0, 1, 1 };
	unsigned inside, outside;
	count_white(app, whole, &inside, &outside);
	g_assert_cmpuint(inside, ==, 0);
}

static void
test_subtitles(struct umms_test *t, gconstpointer data)
{
	/*
	 * subs.mkv's text track (its first, shown by default): "WWWWWWWW" from
	 * 1 s to 2 s, "MMMMMMMM" from 3 s to 3.5 s. The application takes both
	 * the images and the texts, as ummsd makes them from the stream.
	 */
	struct app *app = app_create(NULL, 0);
	app->program.subtitled = true;
	umms_gl_set_subtitles(app->gl, true, on_cue);
	g_autofree char *uri = umms_test_clip_uri("subs.mkv");
	umms_test_player_do(t->bus, app->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, app->path, "Pause", NULL);

	/* Paused and sought into the cue, out of it, and back. */
	umms_test_player_do(t->bus, app->path, "SetPosition", g_variant_new("(x)", US(1.5)));
	assert_cue_drawn(app, draw_until_cue(app, "WWWWWWWW"), "paused in the cue");
	umms_test_player_do(t->bus, app->path, "SetPosition", g_variant_new("(x)", US(2.5)));
	draw_until_cue(app, "");
	assert_no_cue_drawn(app);
	umms_test_player_do(t->bus, app->path, "SetPosition", g_variant_new("(x)", US(1.2)));
	assert_cue_drawn(app, draw_until_cue(app, "WWWWWWWW"), "sought back into it");
	/* Turned off there, still paused: the text goes with the image; on: both back. */
	umms_test_player_do(t->bus, app->path, "SelectTrack",
		g_variant_new("(si)", "subtitle", -1));
	draw_until_cue(app, "");
	assert_no_cue_drawn(app);
	umms_test_player_do(t->bus, app->path, "SelectTrack", g_variant_new("(si)", "subtitle", 0));
	assert_cue_drawn(app, draw_until_cue(app, "WWWWWWWW"), "turned on again");

	/* Played through both cues: each comes and goes with the picture. */
	umms_test_player_do(t->bus, app->path, "SetPosition", g_variant_new("(x)", US(2.5)));
	draw_until_cue(app, "");
	umms_test_player_do(t->bus, app->path, "Play", NULL);
	assert_cue_drawn(app, draw_until_cue(app, "MMMMMMMM"), "played into the second cue");
	draw_until_cue(app, "");
	assert_no_cue_drawn(app);
	g_assert_cmpint(umms_test_get_int64(t->bus, app->path, "Position"), >=, US(3.4));
	struct umms_gl_subtitle_counts counts;
	umms_gl_get_subtitle_counts(app->gl, &counts);
	g_test_message("subtitle images: %u received, %u uploaded", counts.received,
		counts.uploaded);
	g_assert_cmpuint(counts.refused, ==, 0);
	app_destroy(app);
}

static void
test_player_destroyed(struct umms_test *t, gconstpointer data)
{
	/* A player made over D-Bus, shown by path, destroyed while it plays. */
	unsigned fds_start = settled_fds();
	g_autofree char *path = umms_test_open(t->bus, "pattern.mkv");
	struct app *app = app_create(path, 0);
	g_assert_cmpstr(app->path, ==, path);
	umms_test_player_do(t->bus, path, "Play", NULL);
	play_drawing(app, 10);
	umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", path));
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!app->error_name && g_get_monotonic_time() < end) {
		pump(app, 10);
		draw(app);
	}
	g_assert_cmpstr(app->error_name, ==, "org.umms.Error.NotFound");
	/* The last frame stays drawable; the connection stays healthy. */
	for (int i = 0; i < 5; i++) {
		pump(app, 10);
		g_assert_nonnull(draw(app));
	}
	assert_pattern(app);
	g_assert_cmpint(umms_gl_roundtrip(app->gl), ==, 0);
	app_destroy(app);
	wait_fds(fds_start);
}

static void
test_ummsd_gone(struct umms_test *t, gconstpointer data)
{
	/* ummsd stops while we play: dispatch says so, the last frame stays drawable. */
	struct app *app = app_create(NULL, 0);
	open_play(t, app->path, "pattern.mkv");
	play_drawing(app, 5);
	umms_test_restart(t, NULL);
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	int ret = 0;
	while (ret == 0 && g_get_monotonic_time() < end) {
		struct pollfd pfd = { .fd = umms_gl_get_fd(app->gl), .events = POLLIN };
		poll(&pfd, 1, 10);
		ret = umms_gl_dispatch(app->gl);
	}
	g_assert_cmpint(ret, ==, -1);
	g_assert_cmpint(umms_gl_dispatch(app->gl), ==, -1);
	g_assert_nonnull(draw(app));
	assert_pattern(app);
	app_destroy(app);
}

static void
test_demo(struct umms_test *t, gconstpointer data)
{
	/*
	 * demo/umms-gl off screen: its own player, 30 frames, the last as a
	 * PNG. The quad turns about its vertical axis, so the picture's middle
	 * column stays at the image's: 75% of the 360 rows high, rows 45 to
	 * 315; its left half stays left of it.
	 */
	g_autofree char *png = g_build_filename(umms_test_tmpdir(), "demo.png", NULL);
	g_autofree char *program = g_build_filename(umms_test_build_root(), "demo", "umms-gl",
		NULL);
	const char *argv[] = { program, "--headless", "--frames", "30",
		"--png", png, umms_test_clip("pattern.mkv"), NULL };
	/* Its stdout is for people: kept off TAP, shown as messages. */
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) demo = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE,
		&error);
	g_assert_no_error(error);
	g_autofree char *out = NULL;
	g_assert_true(g_subprocess_communicate_utf8(demo, NULL, NULL, &out, NULL, &error));
	g_assert_no_error(error);
	g_test_message("umms-gl said: %s", out);
	g_assert_true(g_subprocess_get_if_exited(demo));
	g_assert_cmpint(g_subprocess_get_exit_status(demo), ==, 0);
	g_assert_nonnull(strstr(out, "wrote "));
	struct umms_test_image *image = umms_test_image_load(png);
	g_assert_cmpint(umms_test_image_width(image), ==, 640);
	g_assert_cmpint(umms_test_image_height(image), ==, 360);
	umms_test_image_assert_pixel(image, 320, 55, 0xff00ff, COLOUR_TOLERANCE, "magenta band");
	umms_test_image_assert_pixel(image, 300, 120, 0xff0000, COLOUR_TOLERANCE, "red quadrant");
	umms_test_image_assert_pixel(image, 340, 120, 0x00ff00, COLOUR_TOLERANCE, "green quadrant");
	umms_test_image_assert_pixel(image, 300, 240, 0x0000ff, COLOUR_TOLERANCE, "blue quadrant");
	umms_test_image_assert_pixel(image, 340, 240, 0xffffff, COLOUR_TOLERANCE, "white quadrant");
	umms_test_image_assert_pixel(image, 320, 305, 0x00ffff, COLOUR_TOLERANCE, "cyan band");
	/* Outside the quad: the demo's background. */
	umms_test_image_assert_pixel(image, 320, 10, 0x1a1a1f, COLOUR_TOLERANCE, "background");
	umms_test_image_free(image);
}

static void
test_demo_window(struct umms_test *t, gconstpointer data)
{
	/*
	 * demo/umms-gl in a window of a real compositor (headless sway, pixman):
	 * EGL on Wayland (wl_egl_window), the window tiled over the 1280x720
	 * output, the quad 75% of its height: rows 90 to 630, its middle column
	 * at x 640 whatever its angle.
	 */
	struct umms_test_compositor *compositor = umms_test_compositor_start(UMMS_TEST_SWAY,
		1280, 720);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY",
		umms_test_compositor_display(compositor), TRUE);
	/*
	 * Under ASan, no leak check for this run: eglTerminate() of a Wayland
	 * EGL display makes Mesa 22.3 unload its driver and leave 240 bytes it
	 * allocated behind, which LeakSanitizer can then neither name nor
	 * suppress (the demo terminates it as an application should). The
	 * demo's own leaks are checked by /gl/demo, headless.
	 */
	umms_test_launcher_no_leak_check(launcher);
	g_autofree char *program = g_build_filename(umms_test_build_root(), "demo", "umms-gl",
		NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) demo = g_subprocess_launcher_spawn(launcher, &error, program,
		"--yuv", umms_test_clip("pattern.mkv"), NULL);
	g_assert_no_error(error);
	static const struct {
		int x, y;
		uint32_t rgb;
		const char *what;
	} checks[] = {
		{ 640, 112, 0xff00ff, "magenta band" },
		{ 610, 230, 0xff0000, "red quadrant" },
		{ 670, 230, 0x00ff00, "green quadrant" },
		{ 610, 490, 0x0000ff, "blue quadrant" },
		{ 670, 490, 0xffffff, "white quadrant" },
		{ 640, 610, 0x00ffff, "cyan band" },
		{ 640, 30, 0x1a1a1f, "background" },
	};
	/* Screenshots until the video is there (start-up takes what it takes), then asserted. */
	struct umms_test_image *image = NULL;
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	for (bool all = false; !all && g_get_monotonic_time() < end;) {
		umms_test_image_free(image);
		umms_test_sleep(100);
		image = umms_test_compositor_screenshot(compositor);
		all = true;
		for (size_t i = 0; i < G_N_ELEMENTS(checks); i++)
			all = all && umms_test_color_near(umms_test_image_pixel(image, checks[i].x,
				checks[i].y), checks[i].rgb, COLOUR_TOLERANCE);
	}
	for (size_t i = 0; i < G_N_ELEMENTS(checks); i++)
		umms_test_image_assert_pixel(image, checks[i].x, checks[i].y, checks[i].rgb,
			COLOUR_TOLERANCE, checks[i].what);
	umms_test_image_free(image);
	/* SIGTERM: it cleans up and exits 0 (and, under ASan, leak-free). */
	g_subprocess_send_signal(demo, SIGTERM);
	g_assert_true(g_subprocess_wait_check(demo, NULL, &error));
	umms_test_compositor_stop(compositor);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	umms_test_egl_setup(&egl, NULL, WIDTH, HEIGHT);
	UMMS_TEST_ADD("/gl/rgb", test_rgb);
	UMMS_TEST_ADD("/gl/nv12", test_nv12);
	UMMS_TEST_ADD("/gl/i420", test_i420);
	UMMS_TEST_ADD("/gl/discarded", test_discarded);
	UMMS_TEST_ADD("/gl/no-growth", test_no_growth);
	UMMS_TEST_ADD("/gl/no-such-player", test_no_such_player);
	UMMS_TEST_ADD("/gl/player-destroyed", test_player_destroyed);
	UMMS_TEST_ADD("/gl/subtitles", test_subtitles);
	UMMS_TEST_ADD("/gl/ummsd-gone", test_ummsd_gone);
	UMMS_TEST_ADD("/gl/demo", test_demo);
	UMMS_TEST_ADD("/gl/demo-window", test_demo_window);
	int status = g_test_run();
	umms_test_egl_finish(&egl);
	return status;
}
