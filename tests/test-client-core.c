/*
 * The umms_video_v1 client core (client/core/) against a server that sends
 * what ummsd never would: frame memory smaller than its planes say. The
 * peer here is a real Wayland server speaking umms_video_v1 on a socket,
 * in a thread of its own; the client is libumms-client-gl as an
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
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <drm_fourcc.h>
#include <GLES2/gl2.h>

#include "renderer-dmabuf.h"
#include "umms-gl.h"
#include "umms-video-v1-protocol.h"
#include "video-peer.h"

#define SOCKET "umms-core-test"
#define WIDTH 64
#define HEIGHT 32
#define STRIDE (WIDTH * 4)

/* The peer's one buffer: @fd as XRGB8888 (memfd) or a dma-buf of @b. */
static struct umms_test_peer *
peer_start(int memfd, const struct test_dmabuf *b)
{
	struct umms_test_peer_buffer buffer = {
		.kind = b ? UMMS_VIDEO_BUFFER_V1_KIND_DMABUF : UMMS_VIDEO_BUFFER_V1_KIND_MEMFD,
		.format = b ? DRM_FORMAT_XRGB8888 : WL_SHM_FORMAT_XRGB8888,
		.width = WIDTH, .height = HEIGHT,
		.modifier = b ? b->modifier : 0,
		.fd = b ? b->fd : memfd,
		.offset = b ? b->offset : 0,
		.stride = b ? b->stride : STRIDE,
		/* Due in a minute: libumms-client-gl queues it until then. */
		.due_in_s = 60,
	};
	return umms_test_peer_start(SOCKET, &buffer);
}

/* A memfd of @size bytes. */
static int
make_memfd(size_t size)
{
	int fd = memfd_create("umms-core-test", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	return fd;
}

/* ---- the client --------------------------------------------------------------------- */

/* Dispatches until @done says so (the peer's counts under its lock), for up to 5 s. */
static void
client_wait(struct umms_gl *gl, struct umms_test_peer *peer, bool (*done)(struct umms_test_peer *peer),
	const char *what)
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

static bool
discarded_and_released(struct umms_test_peer *peer)
{
	return peer->discarded == 1 && peer->releases == 1;
}

static void
test_short_memory(void)
{
	/* Rows of 256 bytes, 32 of them, in 4 KiB: the frame would be read past the end. */
	int memfd = make_memfd(4096);
	struct umms_test_peer *peer = peer_start(memfd, NULL);
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
	close(memfd);
}

static void
test_fitting_memory(void)
{
	/* The same frame in memory that holds it: queued until its time, not answered. */
	int memfd = make_memfd(STRIDE * HEIGHT);
	struct umms_test_peer *peer = peer_start(memfd, NULL);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	struct umms_gl_counts counts = { 0 };
	for (int i = 0; i < 250 && counts.received == 0; i++) {
		g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
		umms_gl_get_counts(gl, &counts);
	}
	g_assert_cmpuint(counts.received, ==, 1);
	g_assert_cmpuint(counts.discarded, ==, 0);
	g_assert_cmpuint(counts.buffers, ==, 1);
	g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
	g_mutex_lock(&peer->lock);
	g_assert_cmpuint(peer->discarded, ==, 0);
	g_assert_cmpuint(peer->releases, ==, 0);
	g_mutex_unlock(&peer->lock);
	umms_gl_destroy(gl);
	umms_test_peer_stop(peer);
	close(memfd);
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

	struct umms_test_peer *peer = peer_start(-1, &b);
	struct umms_gl *gl = umms_gl_create(SOCKET, NULL, 0, NULL, NULL);
	g_assert_nonnull(gl);
	struct umms_gl_counts counts = { 0 };
	for (int i = 0; i < 250 && counts.received == 0; i++) {
		g_assert_cmpint(umms_gl_roundtrip(gl), ==, 0);
		umms_gl_get_counts(gl, &counts);
	}
	g_assert_cmpuint(counts.received, ==, 1);
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
