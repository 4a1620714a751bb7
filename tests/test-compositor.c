/*
 * The compositor and screenshot module itself (compositor.c): both
 * compositors come up at the size asked for with the documented background,
 * screenshots show it, and the pixel assertions catch a wrong colour.
 */
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "compositor.h"
#include "harness.h"

struct output_case {
	enum umms_test_compositor_kind kind;
	int width, height;
};

static double
ms_since(gint64 start)
{
	return (g_get_monotonic_time() - start) / 1000.0;
}

static void
test_background(gconstpointer data)
{
	const struct output_case *c = data;
	gint64 start = g_get_monotonic_time();
	struct umms_test_compositor *compositor = umms_test_compositor_start(c->kind, c->width,
		c->height);
	double start_ms = ms_since(start);
	const char *display = umms_test_compositor_display(compositor);
	g_assert_true(g_path_is_absolute(display));
	g_assert_true(g_file_test(display, G_FILE_TEST_EXISTS));

	enum { SHOTS = 5 };
	double shot_ms = 0;
	for (int i = 0; i < SHOTS; i++) {
		gint64 shot_start = g_get_monotonic_time();
		struct umms_test_image *image = umms_test_compositor_screenshot(compositor);
		shot_ms += ms_since(shot_start);
		g_assert_cmpint(umms_test_image_width(image), ==, c->width);
		g_assert_cmpint(umms_test_image_height(image), ==, c->height);
		uint32_t bg = UMMS_TEST_COMPOSITOR_BACKGROUND;
		umms_test_image_assert_pixel(image, c->width / 2, c->height / 2, bg, 2, "middle");
		umms_test_image_assert_pixel(image, 0, 0, bg, 2, "top-left");
		umms_test_image_assert_pixel(image, c->width - 1, c->height - 1, bg, 2,
			"bottom-right");
		umms_test_image_assert_rect(image, 0, 0, c->width, c->height, 0, bg, 2,
			"background");
		umms_test_image_free(image);
	}
	g_test_message("%s %dx%d: started in %.0f ms, screenshot %.0f ms on average",
		umms_test_compositor_name(compositor), c->width, c->height, start_ms,
		shot_ms / SHOTS);
	umms_test_compositor_stop(compositor);
	g_assert_false(g_file_test(display, G_FILE_TEST_EXISTS));
}

/* A 64x48 PNG: red left half, blue right half, made by GStreamer. */
static char *
make_png(void)
{
	char *path = g_build_filename(umms_test_tmpdir(), "halves.png", NULL);
	g_autofree char *description = g_strdup_printf(
		"videotestsrc num-buffers=1 pattern=red "
		"! video/x-raw,format=RGB,width=32,height=48 "
		"! compositor name=mix background=black sink_1::xpos=32 "
		"! video/x-raw,format=RGB,width=64,height=48 ! pngenc ! filesink location=\"%s\" "
		"videotestsrc num-buffers=1 pattern=blue "
		"! video/x-raw,format=RGB,width=32,height=48 "
		"! mix.sink_1", path);
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstBus *bus = gst_element_get_bus(pipeline);
	GstMessage *message = gst_bus_timed_pop_filtered(bus, 10 * GST_SECOND,
		GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	g_assert_nonnull(message);
	g_assert_cmpint(GST_MESSAGE_TYPE(message), ==, GST_MESSAGE_EOS);
	gst_message_unref(message);
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	return path;
}

static void
check_halves(const struct umms_test_image *image)
{
	g_assert_cmpint(umms_test_image_width(image), ==, 64);
	g_assert_cmpint(umms_test_image_height(image), ==, 48);
	g_assert_cmphex(umms_test_image_pixel(image, 0, 0), ==, 0xff0000);
	g_assert_cmphex(umms_test_image_pixel(image, 31, 47), ==, 0xff0000);
	g_assert_cmphex(umms_test_image_pixel(image, 32, 0), ==, 0x0000ff);
	g_assert_cmphex(umms_test_image_pixel(image, 63, 47), ==, 0x0000ff);
	umms_test_image_assert_rect(image, 0, 0, 32, 48, 0, 0xff0000, 0, "left");
	umms_test_image_assert_rect(image, 32, 0, 32, 48, 0, 0x0000ff, 0, "right");
	/* The inset keeps the rectangle off the edge between the halves. */
	umms_test_image_assert_rect(image, 0, 0, 40, 48, 8, 0xff0000, 0, "inset");
}

static void
test_image_round_trip(void)
{
	g_autofree char *path = make_png();
	struct umms_test_image *image = umms_test_image_load(path);
	check_halves(image);
	g_autofree char *copy = g_build_filename(umms_test_tmpdir(), "copy.png", NULL);
	g_assert_true(umms_test_image_save(image, copy));
	umms_test_image_free(image);
	image = umms_test_image_load(copy);
	check_halves(image);
	umms_test_image_free(image);
}

/* Removes a folder the test program does not own (the subprocess's scratch folder). */
static void
remove_tree(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open(path, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *child = g_build_filename(path, name, NULL);
		remove_tree(child);
	}
	g_remove(path);
}

/* Where a subprocess tells its parent @parent which scratch folder it had. */
static char *
trap_note(pid_t parent)
{
	return g_strdup_printf("%s/umms-test-trap-%d", g_get_tmp_dir(), (int)parent);
}

/* The assertions fail, and say where and what, in a subprocess. */
static void
test_image_assert_fails(gconstpointer data)
{
	const char *which = data;
	if (g_test_subprocess()) {
		g_autofree char *note = trap_note(getppid());
		g_assert_true(g_file_set_contents(note, umms_test_tmpdir(), -1, NULL));
		g_autofree char *path = make_png();
		struct umms_test_image *image = umms_test_image_load(path);
		if (g_str_equal(which, "pixel"))
			umms_test_image_assert_pixel(image, 40, 10, 0xff0000, 8, "wrong pixel");
		else
			umms_test_image_assert_rect(image, 0, 0, 40, 48, 2, 0xff0000, 8,
				"wrong-rect");
		umms_test_image_free(image);
		return;
	}
	g_autofree char *note = trap_note(getpid());
	g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
	g_test_trap_assert_failed();
	g_autofree char *child_tmpdir = NULL;
	g_assert_true(g_file_get_contents(note, &child_tmpdir, NULL, NULL));
	g_assert_cmpint(g_remove(note), ==, 0);
	g_autofree char *saved = NULL;
	if (g_str_equal(which, "pixel")) {
		g_test_trap_assert_stderr("*wrong pixel: pixel (40,10) is #0000ff, "
			"expected #ff0000*saved to *-wrong_pixel.png*");
		saved = g_strconcat(child_tmpdir, "-wrong_pixel.png", NULL);
	} else {
		/* Columns 32..37 of rows 2..45 are blue: 6 x 44 of 36 x 44. */
		g_test_trap_assert_stderr("*wrong-rect: 264 of 1584 pixels*the first, (32,2), "
			"is #0000ff*within (32,2)-(37,45)*saved to *-wrong-rect.png*");
		saved = g_strconcat(child_tmpdir, "-wrong-rect.png", NULL);
	}
	/* The saved image is beside the scratch folder and shows what the assertion saw. */
	struct umms_test_image *image = umms_test_image_load(saved);
	check_halves(image);
	umms_test_image_free(image);
	g_assert_cmpint(g_remove(saved), ==, 0);
	/* The subprocess aborted: its scratch folder is left to us. */
	remove_tree(child_tmpdir);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	static const struct output_case cases[] = {
		{ UMMS_TEST_SWAY, 1280, 720 },
		{ UMMS_TEST_SWAY, 640, 480 },
		{ UMMS_TEST_WESTON, 1280, 720 },
		{ UMMS_TEST_WESTON, 640, 480 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *name = g_strdup_printf("/compositor/%s/%dx%d",
			cases[i].kind == UMMS_TEST_SWAY ? "sway" : "weston", cases[i].width,
			cases[i].height);
		g_test_add_data_func(name, &cases[i], test_background);
	}
	g_test_add_func("/image/round-trip", test_image_round_trip);
	g_test_add_data_func("/image/assert-pixel-fails", "pixel", test_image_assert_fails);
	g_test_add_data_func("/image/assert-rect-fails", "rect", test_image_assert_fails);
	return g_test_run();
}
