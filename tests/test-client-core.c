/*
 * The umms_video_v1 client core (client/core/) against a server that sends
 * what ummsd never would: frame memory smaller than its planes say. The
 * peer (video-peer.c) is a real Wayland server speaking umms_video_v1 on a
 * socket, in a thread of its own; the client is libumms-client-gl as an
 * application uses it. A buffer whose planes do not fit its memory must be
 * neither mapped nor imported: its show is answered discarded and released
 * at once. A buffer that fits is queued and answered only when taken.
 * ummsd itself cannot be made to send a bad buffer, hence the peer.
 *
 * In the KMS test VM (client-core-vm), where Mesa's GBM display imports
 * dma-bufs, the peer sends a dma-buf (a dumb buffer of vkms's card, as a
 * decoder's would come): it must reach the application's context as an
 * EGLImage, nothing uploaded, with the colour it holds, and be answered
 * presented zero-copy, not copied.
 *
 * Subtitles (version 4): the peer sends a subtitle image before each of
 * two shows, with the same serial. libumms-client-gl must upload it once,
 * and the application's shader (umms_sample_subtitled) must blend it over
 * the picture where it belongs (pixels read back). An image whose memory
 * is shorter than its sizes say is refused unread (reading it would be a
 * SIGBUS), and the picture is still shown without it. Turned off (an
 * application drawing its own captions), the image goes at once and the
 * cue text the peer answers with reaches the application's callback.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <drm_fourcc.h>
#include <GLES2/gl2.h>

#include "egl-util.h"
#include "renderer-dmabuf.h"
#include "umms-gl.h"
#include "umms-video-v1-protocol.h"
#include "video-peer.h"

#define SOCKET "umms-core-test"
#define WIDTH 64
#define HEIGHT 32
#define STRIDE (WIDTH * 4)

/* ---- the peer: a server of umms_video_v1 (video-peer.c) ------------------------ */

/* The cue the peer answers a client asking for text with. */
#define CUE "Two lines,\nà la ligne"

/* The frame's colour (XRGB8888: blue) and the subtitles' (premultiplied half green). */
#define FRAME_FILL 0x000000ffu
#define SUB_FILL 0x80008000u
#define SUB_X 16
#define SUB_Y 20
#define SUB_W 32
#define SUB_H 8
#define SUB_SERIAL 7

/* Serves one XRGB8888 buffer: memory of @memory_size bytes, or @dmabuf if 0. */
static struct umms_test_peer *
serve_frame(size_t memory_size, uint32_t fill, const struct test_dmabuf *dmabuf,
	struct umms_test_peer_script *script)
{
	struct umms_test_peer_buffer *b = &script->buffers[0];
	*b = (struct umms_test_peer_buffer){ .width = WIDTH, .height = HEIGHT };
	if (memory_size == 0) {
		b->kind = UMMS_VIDEO_BUFFER_V1_KIND_DMABUF;
		b->format = DRM_FORMAT_XRGB8888;
		b->modifier = dmabuf->modifier;
		b->fd = dmabuf->fd;
		b->offset = dmabuf->offset;
		b->stride = dmabuf->stride;
	} else {
		b->kind = UMMS_VIDEO_BUFFER_V1_KIND_MEMFD;
		b->format = WL_SHM_FORMAT_XRGB8888;
		b->fd = umms_test_peer_memfd(memory_size, fill);
		b->stride = STRIDE;
	}
	script->version = 4;
	script->n_buffers = 1;
	script->cue = CUE;
	struct umms_test_peer *peer = umms_test_peer_start_script(SOCKET, script);
	if (memory_size != 0)
		close(b->fd);
	return peer;
}

/* The frame shown once, due in a minute. */
static struct umms_test_peer *
peer_start(size_t memory_size, const struct test_dmabuf *dmabuf)
{
	struct umms_test_peer_script script = {
		.shows = { { .due_in_s = 60 } },
		.n_shows = 1,
	};
	return serve_frame(memory_size, 0, dmabuf, &script);
}

/*
 * Subtitles: a frame filled with FRAME_FILL, shown twice (due in 10 s and
 * 20 s), a subtitle image of SUB_W x SUB_H with the same serial before each
 * show, in a memfd of @sub_size bytes.
 */
static struct umms_test_peer *
peer_start_subtitled(size_t sub_size)
{
	const struct umms_test_peer_subpicture sub = {
		.fd = umms_test_peer_memfd(sub_size, SUB_FILL),
		.serial = SUB_SERIAL,
		.x = SUB_X, .y = SUB_Y, .width = SUB_W, .height = SUB_H,
		.stride = SUB_W * 4,
	};
	struct umms_test_peer_script script = {
		.shows = {
			{ .due_in_s = 10, .with_subpicture = true, .subpicture = sub },
			{ .due_in_s = 20, .with_subpicture = true, .subpicture = sub },
		},
		.n_shows = 2,
	};
	struct umms_test_peer *peer = serve_frame(STRIDE * HEIGHT, FRAME_FILL, NULL, &script);
	close(sub.fd);
	return peer;
}

/* ---- the client --------------------------------------------------------------------- */

/* Dispatches until @done says so (the peer's counts under its lock), for up to 5 s. */
static void
client_wait(struct umms_gl *gl, struct umms_test_peer *peer,
	bool (*done)(struct umms_test_peer *peer), const char *what)
{
	for (int i = 0; i < 250; i++) {
		g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
		g_assert_cmpint(umms_gl_dispatch(gl), ==, 0);
		g_mutex_lock(&peer->lock);
		bool ok = done(peer);
		g_mutex_unlock(&peer->lock);
		if (ok)
			return;
		g_usleep(20000);
	}
	g_error("the peer never saw %s", what);
}

/* Round trips until @n shows came, for up to 250; @counts: the client's then. */
static void
wait_received(struct umms_gl *gl, unsigned n, struct umms_gl_counts *counts)
{
	*counts = (struct umms_gl_counts){ 0 };
	for (int i = 0; i < 250 && counts->received < n; i++) {
		g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
		umms_gl_get_counts(gl, counts);
	}
	g_assert_cmpuint(counts->received, ==, n);
}

static bool
discarded_and_released(struct umms_test_peer *peer)
{
	return peer->discarded == 1 && peer->releases == 1;
}

static void
test_short_memory(void)
{
	/* Rows of 256 bytes, 32 of them, in 4 KiB: the frame would be read past the end. */
	struct umms_test_peer *peer = peer_start(4096, NULL);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	client_wait(gl, peer, discarded_and_released, "the bad frame discarded and released");
	g_mutex_lock(&peer->lock);
	g_assert_cmpuint(peer->discarded_serial, ==, 1);
	g_assert_cmpuint(peer->presented, ==, 0);
	g_mutex_unlock(&peer->lock);
	struct umms_gl_counts counts;
	umms_gl_get_counts(gl, &counts);
	g_assert_cmpuint(counts.received, ==, 1);
	g_assert_cmpuint(counts.discarded, ==, 1);
	g_assert_cmpuint(counts.uploaded, ==, 0);
	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
}

static void
test_fitting_memory(void)
{
	/* The same frame in memory that holds it: queued until its time, not answered. */
	struct umms_test_peer *peer = peer_start(STRIDE * HEIGHT, NULL);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	struct umms_gl_counts counts;
	wait_received(gl, 1, &counts);
	g_assert_cmpuint(counts.discarded, ==, 0);
	g_assert_cmpuint(counts.buffers, ==, 1);
	g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
	g_mutex_lock(&peer->lock);
	g_assert_cmpuint(peer->discarded, ==, 0);
	g_assert_cmpuint(peer->releases, ==, 0);
	g_mutex_unlock(&peer->lock);
	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
}

static bool
presented(struct umms_test_peer *peer)
{
	return peer->presented == 1;
}

/* The colour the dma-buf holds: XRGB8888, bytes B, G, R, X. */
#define FILL 0xff3366ccu

static void
test_dmabuf_egl(void)
{
	/* The application's context: a GBM display of the VM's card, current. */
	g_autoptr(GError) error = NULL;
	struct umms_renderer *r = create_gles2_gbm(&error);
	g_assert_no_error(error);
	uint32_t *pixels = g_new(uint32_t, WIDTH * HEIGHT);
	for (int i = 0; i < WIDTH * HEIGHT; i++)
		pixels[i] = FILL;
	struct test_dmabuf b;
	g_assert_true(test_dmabuf_make(&b, GL_RGBA, GL_RGBA, WIDTH, HEIGHT, pixels, WIDTH));
	g_free(pixels);

	struct umms_test_peer *peer = peer_start(0, &b);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	struct umms_gl_counts counts;
	wait_received(gl, 1, &counts);
	/* Taken as if drawing two minutes ahead: the show is due in one. */
	const struct umms_gl_frame *frame = umms_gl_update(gl,
		g_get_monotonic_time() * 1000 + (int64_t)120 * 1000000000);
	g_assert_nonnull(frame);
	g_assert_true(frame->dmabuf);
	g_assert_cmpint(frame->target, ==, GL_TEXTURE_2D);
	umms_gl_get_counts(gl, &counts);
	g_test_message("received %u, imported %u, uploaded %u, EGLImages %u", counts.received,
		counts.imported, counts.uploaded, counts.images);
	g_assert_cmpuint(counts.imported, ==, 1);
	g_assert_cmpuint(counts.images, ==, 1);
	g_assert_cmpuint(counts.uploaded, ==, 0);

	/* The texture holds the buffer's pixels: read back through a framebuffer. */
	GLuint fb = 0;
	glGenFramebuffers(1, &fb);
	glBindFramebuffer(GL_FRAMEBUFFER, fb);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
		frame->textures[0], 0);
	g_assert_cmphex(glCheckFramebufferStatus(GL_FRAMEBUFFER), ==, GL_FRAMEBUFFER_COMPLETE);
	uint8_t rgba[4] = { 0 };
	glReadPixels(WIDTH / 2, HEIGHT / 2, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	glDeleteFramebuffers(1, &fb);
	g_test_message("read back %02x%02x%02x", rgba[0], rgba[1], rgba[2]);
	g_assert_cmphex(rgba[0], ==, (FILL >> 16) & 0xff);
	g_assert_cmphex(rgba[1], ==, (FILL >> 8) & 0xff);
	g_assert_cmphex(rgba[2], ==, FILL & 0xff);

	/* Answered as read in place: ummsd counts no copy. */
	client_wait(gl, peer, presented, "the frame presented");
	g_mutex_lock(&peer->lock);
	g_assert_true(peer->presented_flags & UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_ZERO_COPY);
	g_assert_false(peer->presented_flags & UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_COPIED);
	g_assert_cmpuint(peer->discarded, ==, 0);
	g_mutex_unlock(&peer->lock);
	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
	test_dmabuf_finish(&b);
	umms_renderer_destroy(r);
}

/* ---- subtitles: an application's GLES 2 context on Mesa's surfaceless display ---- */

static struct umms_test_egl egl;
static struct {
	struct umms_test_gl_program program;
	uint8_t pixels[WIDTH * HEIGHT * 4];
} app = { .program.subtitled = true };

static void
app_setup(void)
{
	umms_test_egl_setup(&egl, NULL, WIDTH, HEIGHT);
}

static void
app_finish(void)
{
	umms_test_gl_program_finish(&app.program);
	umms_test_egl_finish(&egl);
}

/* Draws @frame over the whole target and reads it back: picture row y at pixels row y. */
static void
app_draw(const struct umms_gl_frame *frame)
{
	umms_test_egl_draw(&egl, &app.program, frame, app.pixels);
}

static void
assert_rgb(int x, int y, uint32_t rgb, const char *what)
{
	umms_test_egl_assert_rgb(&egl, app.pixels, x, y, rgb, 3, what);
}

/* Blue, and half green over it: 0x80 + 0xff * (1 - 0x80 / 255). */
#define BLUE 0x0000ff
#define BLENDED 0x00807f

static void
on_cue(void *data, struct umms_gl *gl, const char *text)
{
	char **cue = data;
	g_free(*cue);
	*cue = g_strdup(text);
}

/* Until both shows came (they are due in 10 s and 20 s). */
static void
wait_shows(struct umms_gl *gl)
{
	struct umms_gl_counts counts;
	wait_received(gl, 2, &counts);
}

static int64_t
in_seconds(int s)
{
	return g_get_monotonic_time() * 1000 + (int64_t)s * 1000000000;
}

static void
test_subtitles(void)
{
	app_setup();
	struct umms_test_peer *peer = peer_start_subtitled(SUB_W * 4 * SUB_H);
	g_autofree char *cue = NULL;
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, &cue);
	g_assert_nonnull(gl);
	wait_shows(gl);

	/* The first show: its subtitles uploaded and blended where they belong. */
	const struct umms_gl_frame *frame = umms_gl_update(gl, in_seconds(15));
	g_assert_nonnull(frame);
	g_assert_cmpuint(frame->serial, ==, 1);
	g_assert_cmpuint(frame->subtitle_texture, !=, 0);
	g_assert_cmpuint(frame->subtitle_serial, ==, SUB_SERIAL);
	g_assert_cmpfloat_with_epsilon(frame->subtitle_rect[0], 16.0 / 64, 1e-6);
	g_assert_cmpfloat_with_epsilon(frame->subtitle_rect[1], 20.0 / 32, 1e-6);
	g_assert_cmpfloat_with_epsilon(frame->subtitle_rect[2], 32.0 / 64, 1e-6);
	g_assert_cmpfloat_with_epsilon(frame->subtitle_rect[3], 8.0 / 32, 1e-6);
	GLuint texture = frame->subtitle_texture;
	app_draw(frame);
	assert_rgb(SUB_X + SUB_W / 2, SUB_Y + SUB_H / 2, BLENDED, "inside the subtitles");
	assert_rgb(SUB_X + 1, SUB_Y + 1, BLENDED, "their top-left corner");
	assert_rgb(8, 8, BLUE, "the picture above them");
	assert_rgb(SUB_X - 2, SUB_Y + SUB_H / 2, BLUE, "left of them");
	assert_rgb(SUB_X + SUB_W / 2, SUB_Y + SUB_H + 2, BLUE, "under them");
	struct umms_gl_subtitle_counts sub;
	umms_gl_get_subtitle_counts(gl, &sub);
	g_assert_cmpuint(sub.received, ==, 2);
	g_assert_cmpuint(sub.refused, ==, 0);
	g_assert_cmpuint(sub.uploaded, ==, 1);

	/* The second show, the same image (serial): drawn, not uploaded again. */
	frame = umms_gl_update(gl, in_seconds(25));
	g_assert_nonnull(frame);
	g_assert_cmpuint(frame->serial, ==, 2);
	g_assert_cmpuint(frame->subtitle_texture, ==, texture);
	app_draw(frame);
	assert_rgb(SUB_X + SUB_W / 2, SUB_Y + SUB_H / 2, BLENDED, "the subtitles, again");
	umms_gl_get_subtitle_counts(gl, &sub);
	g_assert_cmpuint(sub.uploaded, ==, 1);

	/* Turned off (the application draws captions from the text): gone at once. */
	umms_gl_set_subtitles(gl, false, on_cue);
	frame = umms_gl_update(gl, in_seconds(25));
	g_assert_cmpuint(frame->subtitle_texture, ==, 0);
	app_draw(frame);
	assert_rgb(SUB_X + SUB_W / 2, SUB_Y + SUB_H / 2, BLUE, "no subtitles once off");
	g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
	g_mutex_lock(&peer->lock);
	g_assert_cmpuint(peer->set_subtitles, ==, UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT);
	g_mutex_unlock(&peer->lock);
	/* The text the peer answered with reaches the application as it was sent. */
	for (int i = 0; i < 250 && !cue; i++) {
		g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
		g_assert_cmpint(umms_gl_dispatch(gl), ==, 0);
	}
	g_assert_cmpstr(cue, ==, CUE);

	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
	app_finish();
}

static void
test_subtitles_short(void)
{
	app_setup();
	/* 100 bytes for 32 rows of 128: refused before anything maps them. */
	struct umms_test_peer *peer = peer_start_subtitled(100);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	wait_shows(gl);
	const struct umms_gl_frame *frame = umms_gl_update(gl, in_seconds(15));
	g_assert_nonnull(frame);
	g_assert_cmpuint(frame->subtitle_texture, ==, 0);
	app_draw(frame);
	assert_rgb(SUB_X + SUB_W / 2, SUB_Y + SUB_H / 2, BLUE, "the picture, no subtitles");
	struct umms_gl_subtitle_counts sub;
	umms_gl_get_subtitle_counts(gl, &sub);
	g_assert_cmpuint(sub.received, ==, 0);
	g_assert_cmpuint(sub.refused, ==, 2);
	g_assert_cmpuint(sub.uploaded, ==, 0);
	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
	app_finish();
}

int
main(int argc, char *argv[])
{
	/* The peer's socket in a folder of ours, where the client looks for it. */
	g_autofree char *dir = g_dir_make_tmp("umms-core-test-XXXXXX", NULL);
	g_assert_nonnull(dir);
	g_setenv("XDG_RUNTIME_DIR", dir, TRUE);
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/client-core/short-memory", test_short_memory);
	g_test_add_func("/client-core/fitting-memory", test_fitting_memory);
	g_test_add_func("/client-core/subtitles", test_subtitles);
	g_test_add_func("/client-core/subtitles-short", test_subtitles_short);
	/*
	 * A dma-buf imported as an EGLImage needs Mesa's dma-buf import: the
	 * GBM display of the KMS test VM's card (meson test client-core-vm).
	 * Not registered elsewhere, and said so, rather than reported passing.
	 */
	if (access(VM_CARD, F_OK) == 0)
		g_test_add_func("/client-core/dmabuf-egl", test_dmabuf_egl);
	else
		g_printerr("# /client-core/dmabuf-egl: not here (no %s); it runs in the VM "
			"(meson test client-core-vm)\n", VM_CARD);
	int ret = g_test_run();
	g_rmdir(dir);
	return ret;
}
