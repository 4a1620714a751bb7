/*
 * The KMS output (targets/kms/) showing frames that carry subtitles, on
 * vkms in the test VM, driven as ummsd's display drives it, with frames
 * and subtitle images made here so every pixel is known. What the screen
 * shows is read back through the writeback connector.
 *
 * - A picture shown 1:1: the video on an overlay plane, its subtitles on
 *   the overlay above it (Planes says "subtitles"), blended by the device
 *   over the picture at the place the picture's placement gives them.
 *   Frames under the same subtitles make no new framebuffer for them and
 *   nothing is redrawn; new subtitles make one; a frame without them
 *   leaves the plane off. Subtitles smaller than the device's smallest
 *   framebuffer still get their plane.
 * - A picture scaled to the screen: vkms cannot scale planes, so video
 *   and subtitles are composited into the primary plane, the subtitles
 *   scaled as the picture is.
 *
 * Runs only in the VM (meson test kms-subtitles).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "frame.h"
#include "image.h"
#include "kms.h"
#include "screen.h"
#include "subpicture.h"

/* vkms's preferred mode, and the picture. */
#define W 1024
#define H 768
#define PW 320
#define PH 240

/* The subtitles: premultiplied half-white over red gives ff8080. */
#define SUB_X 60
#define SUB_Y 200
#define SUB_W 200
#define SUB_H 20
#define HALF_WHITE 0x80808080u
#define RED 0xff0000
#define PINK 0xff8080
#define BLACK 0x000000

struct test_frame {
	struct umms_frame base;
	int fd;
};

static void
frame_destroy(struct umms_frame *frame)
{
	struct test_frame *f = (struct test_frame *)frame;
	close(f->fd);
	g_free(f);
}

/* A PW x PH XRGB8888 frame of one colour in a memfd sealed as udmabuf wants; @sub: a reference. */
static struct umms_frame *
make_frame(uint32_t xrgb, uint64_t memory_id, struct umms_subpicture *sub)
{
	size_t size = (size_t)PW * PH * 4;
	int fd = memfd_create("test-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	uint32_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(p != MAP_FAILED);
	for (size_t i = 0; i < size / 4; i++)
		p[i] = xrgb;
	munmap(p, size);
	g_assert_cmpint(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), ==, 0);
	struct test_frame *f = g_new0(struct test_frame, 1);
	f->fd = fd;
	f->base = (struct umms_frame){ .refs = 1, .kind = UMMS_FRAME_MEMFD,
		.format = 1 /* wl_shm XRGB8888 */, .width = PW, .height = PH,
		.crop_width = PW, .crop_height = PH, .par_n = 1, .par_d = 1, .n_planes = 1,
		.planes[0] = { .fd = fd, .offset = 0, .stride = PW * 4 },
		.memory_id = memory_id, .present_ns = g_get_monotonic_time() * 1000,
		.subpicture = sub ? umms_subpicture_ref(sub) : NULL,
		.destroy = frame_destroy };
	return &f->base;
}

/* @w x @h of @argb at SUB_X, SUB_Y of the picture, sealed. */
static struct umms_subpicture *
make_sub_sized(uint32_t argb, int w, int h)
{
	g_autoptr(GError) error = NULL;
	struct umms_subpicture *sub = umms_subpicture_create(w, h, PW, PH, &error);
	g_assert_no_error(error);
	for (int i = 0; i < w * h; i++)
		((uint32_t *)sub->data)[i] = argb;
	sub->x = SUB_X;
	sub->y = SUB_Y;
	g_assert_true(umms_subpicture_seal(sub, &error));
	return sub;
}

static struct umms_subpicture *
make_sub(uint32_t argb)
{
	return make_sub_sized(argb, SUB_W, SUB_H);
}

static unsigned presented;

static void
on_presented(void *data, struct umms_frame *frame, bool shown, int64_t when_ns)
{
	g_assert_true(shown);
	presented++;
}

/* Shows @frame (the reference is the caller's) and waits for its flip. */
static void
show(struct umms_target *t, struct umms_frame *frame)
{
	unsigned before = presented;
	g_autoptr(GError) error = NULL;
	g_assert_true(umms_target_show(t, frame, &error));
	g_assert_no_error(error);
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (presented == before && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, TRUE);
	g_assert_cmpuint(presented, ==, before + 1);
}

static struct umms_test_image *
capture(struct umms_target *t, const char *dir, const char *what)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", dir, what);
	g_autoptr(GError) error = NULL;
	g_assert_true(umms_screen_capture(t, path, &error));
	g_assert_no_error(error);
	struct umms_test_image *image = umms_test_image_load(path);
	g_assert_cmpint(umms_test_image_width(image), ==, W);
	g_assert_cmpint(umms_test_image_height(image), ==, H);
	return image;
}

/* The type of the plane Planes says has @use ("" if none). */
static char *
plane_with(struct umms_target *t, const char *use)
{
	g_autoptr(GVariant) planes = umms_screen_describe_planes(t);
	GVariantIter iter;
	GVariant *plane;
	g_variant_iter_init(&iter, planes);
	while ((plane = g_variant_iter_next_value(&iter))) {
		const char *u = NULL, *type = NULL;
		g_variant_lookup(plane, "use", "&s", &u);
		g_variant_lookup(plane, "type", "&s", &type);
		if (u && strcmp(u, use) == 0) {
			char *found = g_strdup(type);
			g_variant_unref(plane);
			return found;
		}
		g_variant_unref(plane);
	}
	return g_strdup("");
}

static struct umms_target *
open_output(enum umms_layout_scale zoom)
{
	struct umms_kms_config config = { .zoom = zoom, .renderer = "pixman" };
	g_autoptr(GError) error = NULL;
	struct umms_target *t = umms_kms_output_create(&config, &error);
	g_assert_no_error(error);
	t->presented = on_presented;
	return t;
}

static void
test_plane(void)
{
	g_autofree char *dir = g_dir_make_tmp("kms-subtitles-XXXXXX", NULL);
	struct umms_target *t = open_output(UMMS_LAYOUT_SCALE_NONE);
	struct umms_subpicture *sub = make_sub(HALF_WHITE);
	/* Three frames (two pieces of memory) under the same subtitles. */
	for (uint64_t i = 0; i < 3; i++) {
		struct umms_frame *frame = make_frame(RED, 1 + i % 2, sub);
		show(t, frame);
		umms_frame_unref(frame);
	}
	g_assert_cmpstr(umms_screen_get_rung(t), ==, "overlay");
	g_autofree char *video = plane_with(t, "video");
	g_autofree char *subtitles = plane_with(t, "subtitles");
	g_assert_cmpstr(video, ==, "overlay");
	g_assert_cmpstr(subtitles, ==, "overlay");
	struct umms_screen_stats stats;
	umms_screen_get_stats(t, &stats);
	g_test_message("subtitle framebuffers %" G_GUINT64_FORMAT ", redraws %" G_GUINT64_FORMAT,
		stats.subpictures, stats.redraws);
	g_assert_cmpuint(stats.subpictures, ==, 1);
	g_assert_cmpuint(stats.redraws, ==, 0);

	/* The picture centred 1:1, the subtitles blended over it where they belong. */
	int px = (W - PW) / 2, py = (H - PH) / 2;
	struct umms_test_image *image = capture(t, dir, "plane");
	umms_test_image_assert_rect(image, px + SUB_X, py + SUB_Y, SUB_W, SUB_H, 0, PINK, 6,
		"subtitles on their plane");
	umms_test_image_assert_pixel(image, px + SUB_X - 1, py + SUB_Y + 5, RED, 6,
		"the picture left of them");
	umms_test_image_assert_pixel(image, px + SUB_X + 5, py + SUB_Y - 1, RED, 6,
		"the picture above them");
	umms_test_image_assert_pixel(image, px + SUB_X + 5, py + SUB_Y + SUB_H, RED, 6,
		"the picture under them");
	umms_test_image_assert_pixel(image, px - 1, py + SUB_Y + 5, BLACK, 6, "the bar");
	umms_test_image_free(image);

	/* New subtitles: one new framebuffer. */
	struct umms_subpicture *opaque = make_sub(0xff00ff00u);
	struct umms_frame *frame = make_frame(RED, 1, opaque);
	show(t, frame);
	umms_frame_unref(frame);
	umms_screen_get_stats(t, &stats);
	g_assert_cmpuint(stats.subpictures, ==, 2);
	image = capture(t, dir, "new");
	umms_test_image_assert_pixel(image, px + SUB_X + SUB_W / 2, py + SUB_Y + SUB_H / 2,
		0x00ff00, 6, "the new subtitles");
	umms_test_image_free(image);

	/*
	 * Smaller than the device's smallest framebuffer (vkms: 20x20), as one
	 * line of a small video's captions is (66x7 for subs.mkv): on its plane
	 * all the same, nothing of the padding around it shown.
	 */
	struct umms_subpicture *small = make_sub_sized(0xff00ff00u, 40, 6);
	frame = make_frame(RED, 1, small);
	show(t, frame);
	umms_frame_unref(frame);
	g_autofree char *small_plane = plane_with(t, "subtitles");
	g_assert_cmpstr(small_plane, ==, "overlay");
	image = capture(t, dir, "small");
	umms_test_image_assert_rect(image, px + SUB_X, py + SUB_Y, 40, 6, 0, 0x00ff00, 6,
		"small subtitles on their plane");
	umms_test_image_assert_pixel(image, px + SUB_X + 20, py + SUB_Y + 6, RED, 6,
		"the picture under the small subtitles");
	umms_test_image_assert_pixel(image, px + SUB_X + 40, py + SUB_Y + 3, RED, 6,
		"the picture right of the small subtitles");
	umms_test_image_free(image);
	umms_subpicture_unref(small);

	/* None: the plane goes off, the picture shows there. */
	frame = make_frame(RED, 2, NULL);
	show(t, frame);
	umms_frame_unref(frame);
	g_autofree char *none = plane_with(t, "subtitles");
	g_assert_cmpstr(none, ==, "");
	image = capture(t, dir, "none");
	umms_test_image_assert_pixel(image, px + SUB_X + SUB_W / 2, py + SUB_Y + SUB_H / 2, RED,
		6, "no subtitles");
	umms_test_image_free(image);

	umms_subpicture_unref(sub);
	umms_subpicture_unref(opaque);
	umms_target_destroy(t);
}

static void
test_composited(void)
{
	g_autofree char *dir = g_dir_make_tmp("kms-subtitles-XXXXXX", NULL);
	/* 320x240 fills 1024x768: scaled 3.2 times, which vkms's planes cannot. */
	struct umms_target *t = open_output(UMMS_LAYOUT_SCALE_LETTERBOX);
	struct umms_subpicture *sub = make_sub(HALF_WHITE);
	struct umms_frame *frame = make_frame(RED, 1, sub);
	show(t, frame);
	umms_frame_unref(frame);
	g_assert_cmpstr(umms_screen_get_rung(t), ==, "composited");
	g_autofree char *subtitles = plane_with(t, "subtitles");
	g_assert_cmpstr(subtitles, ==, "");
	/* Scaled as the picture: 192, 640, 640 x 64 (edges blurred by the bilinear filter). */
	struct umms_test_image *image = capture(t, dir, "composited");
	umms_test_image_assert_rect(image, SUB_X * 16 / 5, SUB_Y * 16 / 5, SUB_W * 16 / 5,
		SUB_H * 16 / 5, 2, PINK, 8, "subtitles composited, scaled");
	umms_test_image_assert_pixel(image, SUB_X * 16 / 5 - 3, SUB_Y * 16 / 5 + 30, RED, 8,
		"the picture left of them");
	umms_test_image_assert_pixel(image, SUB_X * 16 / 5 + 30, SUB_Y * 16 / 5 + SUB_H * 16 / 5 + 3,
		RED, 8, "the picture under them");
	umms_test_image_free(image);
	umms_subpicture_unref(sub);
	umms_target_destroy(t);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	/* Captures are written as PNG with GStreamer's encoder. */
	gst_init(NULL, NULL);
	g_test_add_func("/kms-subtitles/plane", test_plane);
	g_test_add_func("/kms-subtitles/composited", test_composited);
	return g_test_run();
}
