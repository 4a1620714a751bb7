/*
 * A hardware decoder's frames in an application's window without a copy,
 * in the KMS test VM (tests/vm/): weston holds vkms (its DRM backend, its GL
 * renderer on Mesa's llvmpipe; zwp_linux_dmabuf_v1), wl-embed is the
 * application, and ummsd decodes a clip vicodec encoded (v4l2fwhtdec,
 * frames as dma-buf). The frames go from the decoder to weston as they are,
 * and weston puts them on one of vkms's overlay planes: the client reports
 * them presented zero-copy and not copied, ummsd counts no copy, and the
 * device's atomic state shows a plane scanning out a 640x480 framebuffer
 * exactly where wl-embed's screenshot put the picture.
 *
 * Then the pixels: a screenshot (weston-screenshooter) while the clip
 * plays, for which weston composites every surface with GL, vicodec's
 * dma-buf sampled by llvmpipe through vkms (tests/vm/vkms-map-imported.patch:
 * without it Mesa's kms_swrast could not map an imported buffer, llvmpipe
 * sampled from NULL and weston died of SIGSEGV in its JIT code). Paused for
 * it, the colour bars must be where the plane was; playing on, the frames
 * go back on a plane, zero-copy.
 *
 * A paused video's one frame must reach the screen too: weston answers the
 * client's dma-buf import seconds after it was sent, and the show waits for
 * that answer.
 *
 * Then a stand-in for ummsd (video-peer.c) sends what ummsd never would: a
 * dumb buffer of vkms's own (read in place, and mappable by llvmpipe, so a
 * screenshot shows its exact colour), a memfd called a dma-buf (refused by
 * weston: copied by the client and reported so) and a buffer said to be
 * X-tiled (refused, and not linear: discarded and released).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <gst/gst.h>

#include "compositor.h"
#include "embed.h"
#include "fwht-parse.h"
#include "harness.h"
#include "image.h"
#include "umms-video-v1-client-protocol.h"
#include "video-peer.h"

/* vkms's preferred mode: weston's output. */
#define W 1024
#define H 768
/* The clip, shown at 1:1 in a 640x480 rectangle of wl-embed's 720x560 window. */
#define CLIP_W 640
#define CLIP_H 480

/* umms_video_player_v1's presentation flags (umms_client_video_get_presented_flags). */
#define FLAG_ZERO_COPY 0x8u
#define FLAG_COPIED 0x10u

#define DRM_STATE "/sys/kernel/debug/dri/0/state"

/* weston on vkms, one for every test. */
static struct umms_test_compositor *weston;

/*
 * wl-embed's frame around the picture as weston's GL renderer on llvmpipe
 * draws it: wl_shm XRGB8888 comes out with the blue channel's value in red
 * (its yellow, ff ff 00, shows as 00 ff 00; ARGB8888, weston-desktop-shell's
 * background, comes out right).
 */
#define FRAME_SHOWN 0x00ff00u

/*
 * wl-embed's video rectangle on screen, once its window is mapped and the
 * middle of the picture is @rgb (black: before the first frame).
 */
static void
find_video_rect(int rect[4], uint32_t rgb, const char *what)
{
	struct umms_test_compositor *compositor = weston;
	gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	for (;;) {
		struct umms_test_image *image = umms_test_compositor_screenshot(compositor);
		bool found = umms_test_embed_find_rect_of(image, FRAME_SHOWN, rect);
		if (found && rect[2] == CLIP_W && rect[3] == CLIP_H &&
				umms_test_image_pixel(image, rect[0] + CLIP_W / 2,
					rect[1] + CLIP_H / 2) == rgb) {
			/* Edge to edge, and nothing else in the picture. */
			umms_test_image_assert_rect(image, rect[0], rect[1], CLIP_W, CLIP_H, 0, rgb, 0,
				what);
			umms_test_image_assert_pixel(image, rect[0] - 8, rect[1] - 8,
				UMMS_TEST_EMBED_UI, 0, "wl-embed's window");
			umms_test_image_free(image);
			return;
		}
		if (g_get_monotonic_time() > end) {
			/* The image stays in the guest: say what the screen had, row by row. */
			g_autoptr(GString) grid = g_string_new(NULL);
			for (int y = 0; y < H; y += H / 12) {
				for (int x = 0; x < W; x += W / 16)
					g_string_append_printf(grid, " %06x", umms_test_image_pixel(image, x, y));
				g_string_append_c(grid, '\n');
			}
			g_error("%s: no %dx%d video rectangle of #%06x on screen (%s, %dx%d); the "
				"screen:\n%s", what, CLIP_W, CLIP_H, rgb, found ? "a frame" : "no frame",
				found ? rect[2] : 0, found ? rect[3] : 0, grid->str);
		}
		umms_test_image_free(image);
		umms_test_sleep(200);
	}
}

/*
 * The plane (from the device's atomic state in debugfs) that scans out a
 * CLIP_W x CLIP_H XRGB8888 framebuffer at (@x, @y) unscaled (anywhere if @x
 * is negative), as "plane[N]: name fb=F", or NULL if none does (the state
 * logged if @report).
 */
static char *
video_plane(int x, int y, bool report)
{
	g_autofree char *state = NULL;
	g_autoptr(GError) error = NULL;
	if (!g_file_get_contents(DRM_STATE, &state, NULL, &error))
		g_error("%s", error->message);
	g_auto(GStrv) planes = g_strsplit(state, "plane[", -1);
	for (char **p = planes + 1; *p; p++) {
		const char *size = strstr(*p, "\tsize="), *pos = strstr(*p, "\tcrtc-pos=");
		const char *src = strstr(*p, "\tsrc-pos="), *fb = strstr(*p, "\tfb=");
		int w, h, px, py, sw, sh;
		unsigned id;
		if (!size || !pos || !src || !fb || !strstr(*p, "format=XR24") ||
				sscanf(size, "\tsize=%dx%d", &w, &h) != 2 ||
				sscanf(pos, "\tcrtc-pos=%dx%d%d%d", &sw, &sh, &px, &py) != 4 ||
				sscanf(fb, "\tfb=%u", &id) != 1)
			continue;
		if (id != 0 && w == CLIP_W && h == CLIP_H && sw == CLIP_W && sh == CLIP_H &&
				(x < 0 || (px == x && py == y))) {
			g_autofree char *name = g_strndup(*p, strcspn(*p, "\n"));
			return g_strdup_printf("plane[%s fb=%u", name, id);
		}
	}
	if (report)
		g_test_message("%s:\n%s", DRM_STATE, state);
	return NULL;
}

/* videotestsrc's smpte100, which the clip holds: seven bars, left to right. */
static const uint32_t bars[] = { 0xffffff, 0xffff00, 0x00ffff, 0x00ff00, 0xff00ff, 0xff0000,
	0x0000ff };

/*
 * A screenshot (weston composites with GL for it): the bars in the
 * CLIP_W x CLIP_H picture at (@x0, @y0), the middle of each at three
 * heights (vicodec's coding is lossy: within 16), wl-embed's frame around.
 */
static void
assert_bars(int x0, int y0, const char *what)
{
	struct umms_test_image *image = umms_test_compositor_screenshot(weston);
	for (size_t i = 0; i < G_N_ELEMENTS(bars); i++) {
		int x = x0 + (int)(CLIP_W * (2 * i + 1) / (2 * G_N_ELEMENTS(bars)));
		for (int y = y0 + 4; y < y0 + CLIP_H; y += CLIP_H / 2 - 4)
			umms_test_image_assert_pixel(image, x, y, bars[i], 16, what);
	}
	umms_test_image_assert_pixel(image, x0 + 4, y0 - 1, FRAME_SHOWN, 0, what);
	umms_test_image_assert_pixel(image, x0 - 1, y0 + 4, FRAME_SHOWN, 0, what);
	umms_test_image_free(image);
}

/* The flags of a "presented N flags 0xF" line of wl-embed's, and N. */
static uint32_t
presented_flags(struct umms_test_embed *e, unsigned *count, unsigned ms)
{
	g_autofree char *line = umms_test_embed_wait(e, "presented ", ms);
	unsigned flags = 0;
	if (sscanf(line, "presented %u flags %x", count, &flags) != 2)
		g_error("wl-embed said \"%s\"", line);
	return flags;
}

static void
test_vicodec(gconstpointer data)
{
	const char *clip = data;
	static const char *const overrides[] = { "engine.open-timeout=120000",
		"engine.answer-timeout=120000", NULL };
	struct umms_test_service *service = umms_test_service_start(overrides);
	GDBusConnection *bus = umms_test_connect();
	struct umms_test_embed *e = umms_test_embed_start(weston, (const char *const[]){
		"--size", "720x560", "--rect", "40,40,640,480", NULL });
	int rect[4];
	find_video_rect(rect, 0x000000, "the picture before its first frame");

	/* Paused: one frame, a buffer's first show, sent before weston answered its import. */
	g_autofree char *uri = g_filename_to_uri(clip, NULL, NULL);
	umms_test_player_do(bus, e->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, e->path, "Pause", NULL);
	unsigned count = 0;
	uint32_t flags = presented_flags(e, &count, 90000);
	g_autofree char *paused_plane = video_plane(rect[0], rect[1], true);
	g_test_message("paused: presented %u, flags %#x; the picture at %d,%d on %s", count,
		flags, rect[0], rect[1], paused_plane ? paused_plane : "no plane");
	g_assert_true(flags & FLAG_ZERO_COPY);
	g_assert_false(flags & FLAG_COPIED);
	g_assert_nonnull(paused_plane);

	/* Playing: every frame a dma-buf of the decoder's, none copied on the way. */
	umms_test_player_do(bus, e->path, "Play", NULL);
	umms_test_wait_position(bus, e->path, US(1), false, 60000);
	unsigned first = count;
	while (count < first + 10)
		flags = presented_flags(e, &count, 30000);
	g_autofree char *decoder = umms_test_get_string(bus, e->path, "Decoder");
	g_autofree char *plane = video_plane(rect[0], rect[1], true);
	g_test_message("playing: decoder %s; presented %u, flags %#x, on %s; copies %"
		G_GUINT64_FORMAT ", frames as dma-buf %" G_GUINT64_FORMAT ", displayed %"
		G_GUINT64_FORMAT, decoder, count, flags, plane ? plane : "no plane",
		umms_test_stat(bus, e->path, "copies"),
		umms_test_stat(bus, e->path, "frames-dmabuf"),
		umms_test_stat(bus, e->path, "frames-displayed"));
	g_assert_true(g_str_has_prefix(decoder, "v4l2fwhtdec (hardware"));
	g_assert_true(flags & FLAG_ZERO_COPY);
	g_assert_false(flags & FLAG_COPIED);
	g_assert_nonnull(plane);
	g_assert_cmpuint(umms_test_stat(bus, e->path, "copies"), ==, 0);
	g_assert_cmpuint(umms_test_stat(bus, e->path, "frames-dmabuf"), >, 0);

	/*
	 * The pixels, composited by weston's GL renderer from vicodec's
	 * dma-buf. Paused for it: a screenshot can take seconds (llvmpipe
	 * compiling shaders under emulation), longer than the clip has left.
	 */
	umms_test_player_do(bus, e->path, "Pause", NULL);
	gint64 shot = g_get_monotonic_time();
	assert_bars(rect[0], rect[1], "vicodec's frames in weston");
	g_test_message("the bars on screen where the plane was (screenshot in %.1f s)",
		(double)(g_get_monotonic_time() - shot) / G_USEC_PER_SEC);
	/*
	 * Playing on, the frames go back on a plane (the first ones after the
	 * screenshot may still be composited: weston's zero-copy flag says
	 * only that it read the buffer in place).
	 */
	umms_test_player_do(bus, e->path, "Play", NULL);
	first = count;
	char *plane_after = NULL;
	while (!plane_after && count < first + 40) {
		flags = presented_flags(e, &count, 30000);
		plane_after = video_plane(rect[0], rect[1], false);
	}
	if (!plane_after)
		plane_after = video_plane(rect[0], rect[1], true);
	g_test_message("after the screenshot: presented %u, flags %#x, on %s", count, flags,
		plane_after ? plane_after : "no plane");
	g_assert_true(flags & FLAG_ZERO_COPY);
	g_assert_false(flags & FLAG_COPIED);
	g_assert_nonnull(plane_after);
	g_free(plane_after);
	g_assert_cmpuint(umms_test_stat(bus, e->path, "copies"), ==, 0);

	umms_test_player_do(bus, e->path, "Stop", NULL);
	umms_test_embed_free(e);
	g_object_unref(bus);
	umms_test_service_stop(service);
}

/* ---- a stand-in for ummsd: what it never sends ------------------------------- */

#define PEER_SOCKET "umms-embed-peer"

enum peer_case {
	PEER_DUMB,     /* a dumb buffer of vkms's: a dma-buf weston reads in place */
	PEER_MEMFD,    /* a memfd called a dma-buf: weston refuses it, the client copies */
	PEER_TILED,    /* a dumb buffer said to be X-tiled: refused, and no one can copy it */
};

/*
 * The colours the peer's frames hold (XRGB8888). A copied frame reaches
 * weston as wl_shm XRGB8888, which its GL renderer shows with blue's value
 * in red: that one's red and blue are alike.
 */
#define DUMB_FILL 0x2080e0u
#define COPY_FILL 0x60a060u

/* A CLIP_W x CLIP_H XRGB8888 dumb buffer of vkms's, all @fill, as a dma-buf. */
static int
make_dumb(uint32_t fill, uint32_t *stride)
{
	int card = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	g_assert_cmpint(card, >=, 0);
	struct drm_mode_create_dumb create = { .width = CLIP_W, .height = CLIP_H, .bpp = 32 };
	g_assert_cmpint(drmIoctl(card, DRM_IOCTL_MODE_CREATE_DUMB, &create), ==, 0);
	struct drm_mode_map_dumb map = { .handle = create.handle };
	g_assert_cmpint(drmIoctl(card, DRM_IOCTL_MODE_MAP_DUMB, &map), ==, 0);
	uint8_t *pixels = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, card,
		(off_t)map.offset);
	g_assert_true(pixels != MAP_FAILED);
	for (int y = 0; y < CLIP_H; y++) {
		uint32_t *row = (uint32_t *)(void *)(pixels + (size_t)y * create.pitch);
		for (int x = 0; x < CLIP_W; x++)
			row[x] = 0xff000000u | fill;
	}
	munmap(pixels, create.size);
	int fd = -1;
	g_assert_cmpint(drmPrimeHandleToFD(card, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd), ==,
		0);
	/* The dma-buf keeps the buffer: an object of vkms's own, when weston imports it. */
	close(card);
	*stride = create.pitch;
	return fd;
}

/* A memfd of one CLIP_W x CLIP_H XRGB8888 frame, all @fill. */
static int
make_memfd(uint32_t fill)
{
	size_t size = (size_t)CLIP_W * CLIP_H * 4;
	int fd = memfd_create("umms-embed-peer", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(pixels != MAP_FAILED);
	for (size_t i = 0; i < size / 4; i++)
		pixels[i] = 0xff000000u | fill;
	munmap(pixels, size);
	return fd;
}

/* The peer's counts, once @done says so (under its lock), for up to @ms. */
static void
peer_wait(struct umms_test_peer *peer, bool (*done)(struct umms_test_peer *peer),
	const char *what, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	for (;;) {
		g_mutex_lock(&peer->lock);
		bool ok = done(peer);
		unsigned presented = peer->presented, discarded = peer->discarded;
		unsigned releases = peer->releases;
		g_mutex_unlock(&peer->lock);
		if (ok)
			return;
		if (g_get_monotonic_time() > end)
			g_error("the peer never saw %s (presented %u, discarded %u, released %u)",
				what, presented, discarded, releases);
		umms_test_sleep(50);
	}
}

static bool
presented_and_released(struct umms_test_peer *peer)
{
	return peer->presented == 1 && peer->releases == 1;
}

static bool
presented_once(struct umms_test_peer *peer)
{
	return peer->presented == 1;
}

static bool
discarded_and_released(struct umms_test_peer *peer)
{
	return peer->discarded == 1 && peer->releases == 1;
}

static void
test_peer(gconstpointer data)
{
	enum peer_case which = GPOINTER_TO_INT(data);
	uint32_t stride = CLIP_W * 4;
	int fd = which == PEER_MEMFD ? make_memfd(COPY_FILL) :
		make_dumb(which == PEER_DUMB ? DUMB_FILL : COPY_FILL, &stride);
	struct umms_test_peer_buffer buffer = {
		.kind = UMMS_VIDEO_BUFFER_V1_KIND_DMABUF,
		.format = DRM_FORMAT_XRGB8888,
		.width = CLIP_W, .height = CLIP_H,
		.modifier = which == PEER_TILED ? I915_FORMAT_MOD_X_TILED : DRM_FORMAT_MOD_LINEAR,
		.fd = fd, .stride = stride,
	};
	struct umms_test_peer *peer = umms_test_peer_start(PEER_SOCKET, &buffer);
	struct umms_test_embed *e = umms_test_embed_start(weston, (const char *const[]){
		"--size", "720x560", "--rect", "40,40,640,480", "--umms", PEER_SOCKET, NULL });
	int rect[4];
	if (which == PEER_DUMB) {
		/* Read in place: answered zero-copy before any screenshot takes it off its plane. */
		peer_wait(peer, presented_once, "the frame presented", 60000);
		g_autofree char *plane = video_plane(-1, -1, true);
		g_mutex_lock(&peer->lock);
		uint32_t flags = peer->presented_flags;
		g_mutex_unlock(&peer->lock);
		g_test_message("dumb buffer: flags %#x, on %s", flags, plane ? plane : "no plane");
		g_assert_cmphex(flags & (FLAG_ZERO_COPY | FLAG_COPIED), ==, FLAG_ZERO_COPY);
		g_assert_nonnull(plane);
		/* Composited by GL for the screenshot: the same pixels, exactly. */
		find_video_rect(rect, DUMB_FILL, "vkms's dumb buffer");
	} else if (which == PEER_MEMFD) {
		/* Refused by weston, copied by the client into shared memory, and said so. */
		peer_wait(peer, presented_and_released, "the copy presented and released", 60000);
		g_mutex_lock(&peer->lock);
		uint32_t flags = peer->presented_flags;
		g_mutex_unlock(&peer->lock);
		find_video_rect(rect, COPY_FILL, "the copy of a memfd");
		g_test_message("memfd as dma-buf: flags %#x", flags);
		g_assert_cmphex(flags & (FLAG_ZERO_COPY | FLAG_COPIED), ==, FLAG_COPIED);
	} else {
		/* Refused, and not linear: nothing can show it. Discarded, released, no crash. */
		peer_wait(peer, discarded_and_released, "the frame discarded and released", 60000);
		find_video_rect(rect, 0x000000, "a tiled buffer no one could show");
		g_mutex_lock(&peer->lock);
		g_assert_cmpuint(peer->presented, ==, 0);
		g_assert_cmpuint(peer->discarded_serial, ==, 1);
		g_mutex_unlock(&peer->lock);
	}
	umms_test_embed_free(e);
	umms_test_peer_stop(peer);
	close(fd);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);

	umms_test_fwht_log_undrained();
	if (access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM "
			"(meson test embed-dmabuf-vm)");
	umms_test_fwht_require();
	g_autofree char *clip = g_build_filename(umms_test_tmpdir(), "bars.fwht", NULL);
	umms_test_fwht_make_clip(clip, CLIP_W, CLIP_H, 10);
	weston = umms_test_compositor_start(UMMS_TEST_WESTON_DRM, W, H);
	/* The device's atomic state, where the planes say what they show. */
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) != 0 && errno != EBUSY)
		g_error("cannot mount debugfs: %s", g_strerror(errno));
	g_test_add_data_func("/embed-dmabuf/vicodec", clip, test_vicodec);
	g_test_add_data_func("/embed-dmabuf/peer/dumb", GINT_TO_POINTER(PEER_DUMB), test_peer);
	g_test_add_data_func("/embed-dmabuf/peer/memfd", GINT_TO_POINTER(PEER_MEMFD), test_peer);
	g_test_add_data_func("/embed-dmabuf/peer/tiled", GINT_TO_POINTER(PEER_TILED), test_peer);
	int ret = g_test_run();
	umms_test_compositor_stop(weston);
	return ret;
}
