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
 * No screenshot is taken once a frame is on screen: weston composites every
 * surface with GL for one, and llvmpipe cannot read a dma-buf of another
 * device there. Mesa's kms_swrast maps an imported buffer with
 * DRM_IOCTL_MODE_MAP_DUMB, which Linux refuses for imported GEM objects;
 * llvmpipe then samples from NULL and weston dies of SIGSEGV in its JIT code
 * (seen with gdb, fault address 0x44). The same fault made ummsd's own
 * gles2 renderer crash on vicodec's buffers (test-vicodec.c).
 *
 * A paused video's one frame must reach the screen too: weston answers the
 * client's dma-buf import seconds after it was sent, and the show waits for
 * that answer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <gst/gst.h>

#include "compositor.h"
#include "embed.h"
#include "fwht-parse.h"
#include "harness.h"
#include "image.h"

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

/*
 * wl-embed's frame around the picture as weston's GL renderer on llvmpipe
 * draws it: wl_shm XRGB8888 comes out with the blue channel's value in red
 * (its yellow, ff ff 00, shows as 00 ff 00; ARGB8888, weston-desktop-shell's
 * background, comes out right).
 */
#define FRAME_SHOWN 0x00ff00u

/*
 * wl-embed's video rectangle on screen, once its window is mapped (the
 * picture still black: nothing but wl_shm is composited yet).
 */
static void
find_video_rect(struct umms_test_compositor *compositor, int rect[4])
{
	gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
	for (;;) {
		struct umms_test_image *image = umms_test_compositor_screenshot(compositor);
		bool found = umms_test_embed_find_rect_of(image, FRAME_SHOWN, rect);
		if (found && rect[2] == CLIP_W && rect[3] == CLIP_H) {
			umms_test_image_assert_pixel(image, rect[0] + CLIP_W / 2, rect[1] + CLIP_H / 2,
				0x000000, 0, "the picture before its first frame");
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
			g_error("no %dx%d video rectangle on screen (%s, %dx%d); the screen:\n%s",
				CLIP_W, CLIP_H, found ? "a frame" : "no frame", found ? rect[2] : 0,
				found ? rect[3] : 0, grid->str);
		}
		umms_test_image_free(image);
		umms_test_sleep(200);
	}
}

/*
 * The plane (from the device's atomic state in debugfs) that scans out a
 * CLIP_W x CLIP_H XRGB8888 framebuffer at (@x, @y) unscaled, as
 * "plane[N]: name fb=F", or NULL if none does.
 */
static char *
video_plane(int x, int y)
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
				px == x && py == y) {
			g_autofree char *name = g_strndup(*p, strcspn(*p, "\n"));
			return g_strdup_printf("plane[%s fb=%u", name, id);
		}
	}
	g_test_message("%s:\n%s", DRM_STATE, state);
	return NULL;
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

static guint64
stat_of(GDBusConnection *bus, const char *path, const char *key)
{
	g_autoptr(GVariant) stats = umms_test_get(bus, path, UMMS_PLAYER, "Stats");
	guint64 value = 0;
	g_assert_true(g_variant_lookup(stats, key, "t", &value));
	return value;
}

static void
test_vicodec(gconstpointer data)
{
	const char *clip = data;
	/* The device's atomic state, where the planes say what they show. */
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) != 0 && errno != EBUSY)
		g_error("cannot mount debugfs: %s", g_strerror(errno));
	struct umms_test_compositor *compositor = umms_test_compositor_start(UMMS_TEST_WESTON_DRM,
		W, H);
	static const char *const overrides[] = { "engine.open-timeout=120000",
		"engine.answer-timeout=120000", NULL };
	struct umms_test_service *service = umms_test_service_start(overrides);
	GDBusConnection *bus = umms_test_connect();
	struct umms_test_embed *e = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "720x560", "--rect", "40,40,640,480", NULL });
	int rect[4];
	find_video_rect(compositor, rect);

	/* Paused: one frame, a buffer's first show, sent before weston answered its import. */
	g_autofree char *uri = g_filename_to_uri(clip, NULL, NULL);
	umms_test_player_do(bus, e->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, e->path, "Pause", NULL);
	unsigned count = 0;
	uint32_t flags = presented_flags(e, &count, 90000);
	g_autofree char *paused_plane = video_plane(rect[0], rect[1]);
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
	g_autofree char *plane = video_plane(rect[0], rect[1]);
	g_test_message("playing: decoder %s; presented %u, flags %#x, on %s; copies %"
		G_GUINT64_FORMAT ", frames as dma-buf %" G_GUINT64_FORMAT ", displayed %"
		G_GUINT64_FORMAT, decoder, count, flags, plane ? plane : "no plane",
		stat_of(bus, e->path, "copies"), stat_of(bus, e->path, "frames-dmabuf"),
		stat_of(bus, e->path, "frames-displayed"));
	g_assert_true(g_str_has_prefix(decoder, "v4l2fwhtdec (hardware"));
	g_assert_true(flags & FLAG_ZERO_COPY);
	g_assert_false(flags & FLAG_COPIED);
	g_assert_nonnull(plane);
	g_assert_cmpuint(stat_of(bus, e->path, "copies"), ==, 0);
	g_assert_cmpuint(stat_of(bus, e->path, "frames-dmabuf"), >, 0);

	umms_test_player_do(bus, e->path, "Stop", NULL);
	umms_test_embed_free(e);
	g_object_unref(bus);
	umms_test_service_stop(service);
	umms_test_compositor_stop(compositor);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	umms_test_fwht_log_undrained();
	if (access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM "
			"(meson test embed-dmabuf-vm)");
	g_assert_true(umms_test_fwht_register());
	g_autofree char *clip = g_build_filename(umms_test_tmpdir(), "bars.fwht", NULL);
	umms_test_fwht_make_clip(clip, CLIP_W, CLIP_H, 10);
	g_test_add_data_func("/embed-dmabuf/vicodec", clip, test_vicodec);
	return g_test_run();
}
