/*
 * Video inside an application's window, on real compositors (headless sway
 * and weston), checked by screenshot pixels: the picture exactly inside its
 * rectangle in every scale mode with bars where expected, geometry moving in
 * the same frame as the application's UI, and ummsd freeing a killed
 * client's buffers while serving the next one. Subtitles, from a
 * umms_video_v1 peer of the test's (subtitle-peer.c, exact placement and
 * counts): over the picture, scaled with it, attached once for two frames,
 * hidden on request; and from ummsd playing a stream's text track: the
 * cue's pixels only in the caption's area while it stands, none after;
 * a CEA-608 caption in the video likewise, once its track is chosen.
 */
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <glib/gstdio.h>

#include "compositor.h"
#include "embed.h"
#include "harness.h"

#define UI UMMS_TEST_EMBED_UI
#define FRAME UMMS_TEST_EMBED_FRAME
#define BLACK 0x000000u
#define RED 0xff0000u
#define GREEN 0x00ff00u
#define BLUE 0x0000ffu
#define WHITE 0xffffffu
#define MAGENTA 0xff00ffu
#define CYAN 0x00ffffu
#define TOLERANCE 24

/* ---- screenshots -------------------------------------------------------------- */

struct check {
	double x, y;        /* fractions of the video rectangle */
	uint32_t rgb;
	const char *what;
};

static bool
checks_pass(const struct umms_test_image *image, const int rect[4], const struct check *checks,
	size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int x = rect[0] + (int)(checks[i].x * rect[2]), y = rect[1] + (int)(checks[i].y * rect[3]);
		if (!umms_test_color_near(umms_test_image_pixel(image, x, y), checks[i].rgb, TOLERANCE))
			return false;
	}
	return true;
}

/*
 * Screenshots until the picture matches (frames and commits land when they
 * land), then asserts on the last one so a failure names what was wrong.
 */
static void
expect_screen(struct umms_test_compositor *compositor, const int size[2], const struct check *checks,
	size_t n, const char *what)
{
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	struct umms_test_image *image = NULL;
	int rect[4] = { 0 };
	for (;;) {
		umms_test_image_free(image);
		image = umms_test_compositor_screenshot(compositor);
		bool found = umms_test_embed_find_rect(image, rect);
		if (found && rect[2] == size[0] && rect[3] == size[1] &&
				checks_pass(image, rect, checks, n))
			break;
		if (g_get_monotonic_time() > end) {
			if (!found)
				umms_test_image_assert_pixel(image, 0, 0, FRAME, 0, what);
			g_assert_cmpint(rect[2], ==, size[0]);
			g_assert_cmpint(rect[3], ==, size[1]);
			for (size_t i = 0; i < n; i++) {
				g_autofree char *label = g_strdup_printf("%s-%s", what, checks[i].what);
				umms_test_image_assert_pixel(image, rect[0] + (int)(checks[i].x * rect[2]),
					rect[1] + (int)(checks[i].y * rect[3]), checks[i].rgb, TOLERANCE,
					label);
			}
		}
		umms_test_sleep(50);
	}
	g_test_message("%s on %s: video rectangle at %d,%d %dx%d", what,
		umms_test_compositor_name(compositor), rect[0], rect[1], rect[2], rect[3]);
	umms_test_image_free(image);
}

/* ---- the tests ------------------------------------------------------------------ */

static void
open_paused(GDBusConnection *bus, const char *path, const char *clip, double at)
{
	g_autofree char *uri = umms_test_clip_uri(clip);
	umms_test_player_do(bus, path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, path, "Pause", NULL);
	umms_test_player_do(bus, path, "SetPosition", g_variant_new("(x)", US(at)));
}

/*
 * umms_client_video_set_scaled_frames: frames come at the size shown
 * (umms_video_v1 version 6), and land where the picture's own would.
 */
static void
test_scaled_frames(gconstpointer data)
{
	enum umms_test_compositor_kind kind = GPOINTER_TO_INT(data);
	struct umms_test_compositor *compositor = umms_test_compositor_start(kind, 1280, 720);
	struct umms_test_service *service = umms_test_service_start(NULL);
	GDBusConnection *bus = umms_test_connect();

	/* pattern.mkv: 320x240 (4:3), quadrants R G / B W, magenta band on top, cyan below. */
	struct umms_test_embed *e = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "1260x700", "--rect", "40,40,160,90", "--scale", "letterbox",
		"--scaled-frames", NULL });
	open_paused(bus, e->path, "pattern.mkv", 0.5);
	/* A 120x90 picture between two 20 px bars: made that size. */
	g_autofree char *small = umms_test_embed_wait(e, "size 120x90", 5000);
	static const struct check letterbox[] = {
		{ 10.0 / 160, 0.5, BLACK, "left-bar" }, { 150.0 / 160, 0.5, BLACK, "right-bar" },
		{ 0.5, 3.0 / 90, MAGENTA, "top-band" }, { 0.5, 87.0 / 90, CYAN, "bottom-band" },
		{ 50.0 / 160, 0.3, RED, "red" }, { 110.0 / 160, 0.3, GREEN, "green" },
		{ 50.0 / 160, 0.7, BLUE, "blue" }, { 110.0 / 160, 0.7, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 160, 90 }, letterbox, G_N_ELEMENTS(letterbox),
		"scaled, letterbox");

	/* Larger, paused: made again, never beyond the picture's own 320x240. */
	umms_test_embed_command(e, "rect 40 40 480 360");
	g_autofree char *full = umms_test_embed_wait(e, "size 320x240", 5000);
	static const struct check large[] = {
		{ 0.5, 6.0 / 360, MAGENTA, "top-band" }, { 0.5, 354.0 / 360, CYAN, "bottom-band" },
		{ 0.25, 0.3, RED, "red" }, { 0.75, 0.3, GREEN, "green" },
		{ 0.25, 0.7, BLUE, "blue" }, { 0.75, 0.7, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 480, 360 }, large, G_N_ELEMENTS(large),
		"scaled back up to the picture");
	umms_test_embed_command(e, "rect 40 40 200 150");
	g_autofree char *again = umms_test_embed_wait(e, "size 200x150", 5000);

	/* Playing, the frames go on at that size. */
	umms_test_player_do(bus, e->path, "Play", NULL);
	g_autofree char *played = umms_test_embed_wait(e, "frame 30 ", 10000);
	g_autoptr(GVariant) stats = umms_test_get(bus, e->path, UMMS_PLAYER, "Stats");
	guint64 presented = 0;
	g_variant_lookup(stats, "frames-presented", "t", &presented);
	g_assert_cmpuint(presented, >=, 20);
	umms_test_embed_free(e);
	g_object_unref(bus);
	umms_test_service_stop(service);
	umms_test_compositor_stop(compositor);
}

static void
test_scale_modes(gconstpointer data)
{
	enum umms_test_compositor_kind kind = GPOINTER_TO_INT(data);
	struct umms_test_compositor *compositor = umms_test_compositor_start(kind, 1280, 720);
	struct umms_test_service *service = umms_test_service_start(NULL);
	GDBusConnection *bus = umms_test_connect();

	/* pattern.mkv: 4:3, quadrants R G / B W, a magenta band on top, cyan at the bottom. */
	struct umms_test_embed *e = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "1260x700", "--rect", "40,40,320,180", "--scale", "letterbox", NULL });
	open_paused(bus, e->path, "pattern.mkv", 0.5);

	/* 4:3 in 16:9, letterboxed: a 240x180 picture between two 40 px bars. */
	static const struct check letterbox[] = {
		{ 20.0 / 320, 0.5, BLACK, "left-bar" }, { 300.0 / 320, 0.5, BLACK, "right-bar" },
		{ 0.5, 5.0 / 180, MAGENTA, "top-band" }, { 0.5, 175.0 / 180, CYAN, "bottom-band" },
		{ 100.0 / 320, 0.3, RED, "red" }, { 220.0 / 320, 0.3, GREEN, "green" },
		{ 100.0 / 320, 0.7, BLUE, "blue" }, { 220.0 / 320, 0.7, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 320, 180 }, letterbox, G_N_ELEMENTS(letterbox),
		"letterbox");

	/* Fill: stretched edge to edge, both bands squeezed but there. */
	umms_test_embed_command(e, "scale fill");
	static const struct check fill[] = {
		{ 3.0 / 320, 0.3, RED, "left-edge" }, { 316.0 / 320, 0.7, WHITE, "right-edge" },
		{ 0.5, 4.0 / 180, MAGENTA, "top-band" }, { 0.5, 176.0 / 180, CYAN, "bottom-band" },
		{ 0.25, 0.3, RED, "red" }, { 0.75, 0.3, GREEN, "green" },
		{ 0.25, 0.7, BLUE, "blue" }, { 0.75, 0.7, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 320, 180 }, fill, G_N_ELEMENTS(fill), "fill");

	/* Crop to fill: 30 rows cut top and bottom, so the bands are gone. */
	umms_test_embed_command(e, "scale crop");
	static const struct check crop[] = {
		{ 0.25, 3.0 / 180, RED, "top-left" }, { 0.75, 3.0 / 180, GREEN, "top-right" },
		{ 0.25, 176.0 / 180, BLUE, "bottom-left" }, { 0.75, 176.0 / 180, WHITE, "bottom-right" },
		{ 3.0 / 320, 0.3, RED, "left-edge" },
	};
	expect_screen(compositor, (const int[]){ 320, 180 }, crop, G_N_ELEMENTS(crop), "crop");

	/* None, in a larger rectangle: 320x240 at one pixel per unit, bars around. */
	umms_test_embed_command(e, "scale none");
	umms_test_embed_command(e, "rect 40 40 400 300");
	static const struct check none[] = {
		{ 20.0 / 400, 0.5, BLACK, "left-bar" }, { 0.5, 15.0 / 300, BLACK, "top-bar" },
		{ 0.5, 40.0 / 300, MAGENTA, "top-band" }, { 0.5, 260.0 / 300, CYAN, "bottom-band" },
		{ 100.0 / 400, 100.0 / 300, RED, "red" }, { 300.0 / 400, 200.0 / 300, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 400, 300 }, none, G_N_ELEMENTS(none), "none");

	/* The media's own pixel aspect ratio: 352x288 at 12/11 is 384x288 on screen. */
	umms_test_embed_command(e, "rect 40 40 480 300");
	open_paused(bus, e->path, "anamorphic.mkv", 0.5);
	g_autofree char *size = umms_test_embed_wait(e, "size 384x288", 5000);

	umms_test_embed_free(e);

	/* Large, in a window of its own: bars scaled ~75 times from a small buffer stay black. */
	struct umms_test_embed *big = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "1260x700", "--rect", "20,20,1200,660", NULL });
	open_paused(bus, big->path, "pattern.mkv", 0.5);
	static const struct check large[] = {
		{ 10.0 / 1200, 0.5, BLACK, "left-bar" }, { 1190.0 / 1200, 0.5, BLACK, "right-bar" },
		{ 10.0 / 1200, 0.02, BLACK, "top-left-bar" },
		{ 1190.0 / 1200, 0.98, BLACK, "bottom-right-bar" },
		{ 0.3, 0.3, RED, "red" }, { 0.7, 0.7, WHITE, "white" },
	};
	expect_screen(compositor, (const int[]){ 1200, 660 }, large, G_N_ELEMENTS(large), "large");
	umms_test_embed_free(big);

	/* A source crop: the red quadrant alone (x 0-160, rows 20-120), filling the rectangle. */
	struct umms_test_embed *cropped = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "1260x700", "--rect", "40,40,320,200", "--scale", "fill",
		"--crop", "0,20,160,100", NULL });
	open_paused(bus, cropped->path, "pattern.mkv", 0.5);
	static const struct check red_only[] = {
		{ 0.01, 0.02, RED, "top-left" }, { 0.99, 0.02, RED, "top-right" },
		{ 0.01, 0.98, RED, "bottom-left" }, { 0.99, 0.98, RED, "bottom-right" },
		{ 0.5, 0.5, RED, "middle" },
	};
	expect_screen(compositor, (const int[]){ 320, 200 }, red_only, G_N_ELEMENTS(red_only),
		"source-crop");
	umms_test_embed_free(cropped);

	g_object_unref(bus);
	umms_test_service_stop(service);
	umms_test_compositor_stop(compositor);
}

/*
 * What shows the video and the UI out of step, or NULL: the UI's grey just
 * inside its frame (the video is smaller or elsewhere), or anything but grey
 * just outside (the video spills over where the UI is no longer).
 */
static char *
unglued(const struct umms_test_image *image, const int rect[4])
{
	for (int i = 0; i < rect[2]; i++) {
		int x = rect[0] + i;
		int inside[2] = { rect[1], rect[1] + rect[3] - 1 };
		int outside[2] = { rect[1] - 4 - 2, rect[1] + rect[3] + 4 + 1 };
		for (int k = 0; k < 2; k++) {
			if (umms_test_color_near(umms_test_image_pixel(image, x, inside[k]), UI, 12))
				return g_strdup_printf("the UI's grey at %d,%d, inside the frame", x,
					inside[k]);
			uint32_t found = umms_test_image_pixel(image, x, outside[k]);
			if (!umms_test_color_near(found, UI, 12))
				return g_strdup_printf("#%06x at %d,%d, outside the frame", found, x,
					outside[k]);
		}
	}
	return NULL;
}

/*
 * data: the compositor kind, | MOVE_DESYNC for the control: desynchronized,
 * the screenshots must catch the video ahead of the UI, or they could not
 * catch a synchronized move going wrong either.
 */
#define MOVE_DESYNC 0x100

static void
test_move(gconstpointer data)
{
	enum umms_test_compositor_kind kind = GPOINTER_TO_INT(data) & 0xff;
	bool sync = !(GPOINTER_TO_INT(data) & MOVE_DESYNC);
	struct umms_test_compositor *compositor = umms_test_compositor_start(kind, 960, 540);
	struct umms_test_service *service = umms_test_service_start(NULL);
	GDBusConnection *bus = umms_test_connect();
	/* A slow application: 300 ms between sending the video's new place and its UI's. */
	struct umms_test_embed *e = umms_test_embed_start(compositor, (const char *const[]){
		"--size", "800x450", "--rect", "40,40,320,180", "--ui-delay", "300",
		sync ? NULL : "--desync", NULL });
	/* pattern.mkv has no grey: grey inside the frame can only be the UI. */
	g_autofree char *uri = umms_test_clip_uri("pattern.mkv");
	umms_test_player_do(bus, e->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, e->path, "Play", NULL);
	g_free(umms_test_embed_wait(e, "frame 5", 5000));

	/* Moves and resizes while frames keep coming, screenshots in between. */
	static const int places[][4] = {
		{ 40, 40, 320, 180 }, { 400, 60, 256, 144 }, { 120, 220, 384, 216 },
		{ 420, 240, 320, 180 },
	};
	unsigned shots = 0, torn = 0;
	for (int round = 0; round < 12; round++) {
		const int *p = places[round % G_N_ELEMENTS(places)];
		g_autofree char *command = g_strdup_printf("rect %d %d %d %d", p[0], p[1], p[2], p[3]);
		umms_test_embed_send(e, command);
		/* One screenshot while the application is still drawing, one after. */
		g_free(umms_test_embed_wait(e, "moving", 5000));
		for (int k = 0; k < 2; k++) {
			if (k == 1)
				g_free(umms_test_embed_wait(e, "ok", 5000));
			struct umms_test_image *image = umms_test_compositor_screenshot(compositor);
			int rect[4];
			if (umms_test_embed_find_rect(image, rect)) {
				g_autofree char *why = unglued(image, rect);
				if (why && sync) {
					g_autofree char *file = g_strdup_printf("%s-unglued-%u.png",
						umms_test_tmpdir(), shots);
					umms_test_image_save(image, file);
					g_error("screenshot %u: %s at %d,%d %dx%d; saved to %s", shots,
						why, rect[0], rect[1], rect[2], rect[3], file);
				}
				torn += why != NULL;
				shots++;
			}
			umms_test_image_free(image);
		}
	}
	g_test_message("%u screenshots, %u with the video out of step", shots, torn);
	g_assert_cmpuint(shots, >=, 20);
	/*
	 * Weston shows every desynchronized change early; sway 1.7 only those
	 * that grow the video (it does not repaint what a shrinking subsurface
	 * uncovers until the parent commits): 3 of the 12 moves.
	 */
	if (!sync)
		g_assert_cmpuint(torn, >=, 2);

	umms_test_embed_free(e);
	g_object_unref(bus);
	umms_test_service_stop(service);
	umms_test_compositor_stop(compositor);
}

static unsigned
fd_count(GPid pid)
{
	g_autofree char *dir = g_strdup_printf("/proc/%d/fd", (int)pid);
	unsigned count = 0;
	DIR *d = opendir(dir);
	g_assert_nonnull(d);
	while (readdir(d))
		count++;
	closedir(d);
	return count;
}

static void
test_client_killed(void)
{
	/* The real ummsd, to count its file descriptors. */
	struct umms_test_compositor *compositor = umms_test_compositor_start(UMMS_TEST_WESTON, 0, 0);
	GDBusConnection *bus = umms_test_connect();
	GSubprocess *ummsd = umms_test_spawn_ummsd(NULL);
	umms_test_wait_name(bus, UMMS_NAME, true);
	GPid pid = (GPid)atoi(g_subprocess_get_identifier(ummsd));
	/* One player played once: what a fresh player costs stays out of the count. */
	struct umms_test_embed *warm = umms_test_embed_start(compositor, NULL);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(bus, warm->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, warm->path, "Play", NULL);
	g_free(umms_test_embed_wait(warm, "frame 5", 5000));
	pid_t warm_worker = (pid_t)umms_test_stat(bus, warm->path, "engine-pid");
	umms_test_embed_free(warm);
	/* Its worker gone and the next spare there (started a second after a SetUri). */
	g_autofree char *warm_proc = g_strdup_printf("/proc/%d", (int)warm_worker);
	for (int i = 0; i < 300 && warm_worker > 0 && g_file_test(warm_proc, G_FILE_TEST_EXISTS); i++)
		umms_test_sleep(50);
	g_assert_false(warm_worker > 0 && g_file_test(warm_proc, G_FILE_TEST_EXISTS));
	umms_test_wait_engine_workers_of(pid, 1);
	umms_test_sleep(300);
	unsigned baseline = fd_count(pid);

	struct umms_test_embed *e = umms_test_embed_start(compositor, NULL);
	umms_test_player_do(bus, e->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, e->path, "Play", NULL);
	g_free(umms_test_embed_wait(e, "frame 10", 5000));
	unsigned playing = fd_count(pid);
	g_test_message("ummsd fds: %u before, %u while showing", baseline, playing);
	g_assert_cmpuint(playing, >, baseline);

	/* Killed mid-playback: its player and every buffer it held are freed. */
	g_subprocess_send_signal(e->process, SIGKILL);
	g_subprocess_wait(e->process, NULL, NULL);
	umms_test_wait_engine_workers_of(pid, 1);
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (fd_count(pid) > baseline && g_get_monotonic_time() < end)
		umms_test_sleep(50);
	g_assert_cmpuint(fd_count(pid), <=, baseline);
	g_autofree char *m = umms_test_call_error(bus, e->path, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
	umms_test_embed_free(e);

	/* And it serves the next client. */
	struct umms_test_embed *next = umms_test_embed_start(compositor, NULL);
	umms_test_player_do(bus, next->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, next->path, "Play", NULL);
	g_free(umms_test_embed_wait(next, "frame 10", 5000));
	umms_test_embed_free(next);

	g_subprocess_send_signal(ummsd, SIGTERM);
	g_assert_true(g_subprocess_wait(ummsd, NULL, NULL));
	g_assert_cmpint(g_subprocess_get_exit_status(ummsd), ==, 0);
	g_object_unref(ummsd);
	g_object_unref(bus);
	umms_test_compositor_stop(compositor);
}

/* subtitle-peer's picture and subtitles (tests/subtitle-peer.c), premultiplied half-white over blue. */
#define PEER_W 160
#define PEER_H 90
#define PEER_SUB_X 40
#define PEER_SUB_Y 70
#define PEER_SUB_W 80
#define PEER_SUB_H 10
#define SUBTITLED 0x8080ffu

static void
test_subtitles(gconstpointer data)
{
	enum umms_test_compositor_kind kind = GPOINTER_TO_INT(data);
	struct umms_test_compositor *compositor = umms_test_compositor_start(kind, 1280, 720);
	/* The peer on its socket: "ready" once it listens. */
	g_autofree char *program = g_build_filename(umms_test_build_root(), "tests", "subtitle-peer",
		NULL);
	GError *error = NULL;
	GSubprocess *peer = g_subprocess_new(G_SUBPROCESS_FLAGS_STDIN_PIPE |
		G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, program, "umms-embed-peer", NULL);
	g_assert_no_error(error);
	g_autoptr(GDataInputStream) peer_out = g_data_input_stream_new(
		g_subprocess_get_stdout_pipe(peer));
	g_autofree char *ready = g_data_input_stream_read_line(peer_out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(ready, ==, "ready");

	/* 160x90 scaled twice into 320x180: the subtitles at 80,140, 160x20 of it. */
	struct umms_test_embed *e = umms_test_embed_start(compositor, (const char *const[]){
		"--umms", "umms-embed-peer", "--size", "1260x700", "--rect", "40,40,320,180", "--scale", "fill", NULL });
	g_free(umms_test_embed_wait(e, "frame 2", 10000));
	double sx = 320.0 / PEER_W, sy = 180.0 / PEER_H;
	const struct check subtitled[] = {
		{ (PEER_SUB_X + PEER_SUB_W / 2) * sx / 320, (PEER_SUB_Y + PEER_SUB_H / 2) * sy / 180,
		  SUBTITLED, "subtitles" },
		{ (PEER_SUB_X + 2) * sx / 320, (PEER_SUB_Y + 2) * sy / 180, SUBTITLED,
		  "their-top-left" },
		{ (PEER_SUB_X - 2) * sx / 320, (PEER_SUB_Y + 5) * sy / 180, BLUE, "left-of-them" },
		{ (PEER_SUB_X + 10) * sx / 320, (PEER_SUB_Y - 2) * sy / 180, BLUE, "above-them" },
		{ (PEER_SUB_X + 10) * sx / 320, (PEER_SUB_Y + PEER_SUB_H + 2) * sy / 180, BLUE,
		  "under-them" },
		{ 0.5, 0.2, BLUE, "picture" },
	};
	expect_screen(compositor, (const int[]){ 320, 180 }, subtitled, G_N_ELEMENTS(subtitled),
		"subtitles");
	/* Two frames, one subtitle image: copied and attached once. */
	umms_test_embed_send(e, "subtitles");
	g_autofree char *counts = umms_test_embed_wait(e, "subtitles ", 5000);
	g_test_message("wl-embed: %s", counts);
	g_assert_cmpstr(counts, ==, "subtitles 1 received, 0 refused, 1 copied, 1 attached");

	/* Off: gone from the screen, and the peer is told (0: neither images nor text). */
	umms_test_embed_command(e, "subtitles off");
	static const struct check off[] = {
		{ (PEER_SUB_X + PEER_SUB_W / 2.0) / PEER_W, (PEER_SUB_Y + PEER_SUB_H / 2.0) / PEER_H,
		  BLUE, "no-subtitles" },
	};
	expect_screen(compositor, (const int[]){ 320, 180 }, off, G_N_ELEMENTS(off),
		"subtitles-off");
	g_autofree char *told = g_data_input_stream_read_line(peer_out, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_cmpstr(told, ==, "subtitles 0");

	umms_test_embed_free(e);
	g_output_stream_close(g_subprocess_get_stdin_pipe(peer), NULL, NULL);
	g_assert_true(g_subprocess_wait_check(peer, NULL, &error));
	g_assert_no_error(error);
	g_object_unref(peer);
	umms_test_compositor_stop(compositor);
}

/*
 * Light pixels (umms_test_pixel_light(): subs.mkv's picture is dark blue) in
 * the video rectangle @rect of @image: all of them, and those in its lower half.
 */
static void
count_light(const struct umms_test_image *image, const int rect[4], unsigned *all,
	unsigned *caption)
{
	int half = rect[3] / 2;
	*all = umms_test_image_count(image, rect[0], rect[1], rect[2], rect[3],
		umms_test_pixel_light, NULL);
	*caption = umms_test_image_count(image, rect[0], rect[1] + half, rect[2], rect[3] - half,
		umms_test_pixel_light, NULL);
}

/*
 * Screenshots until the cue is on screen (@shown) or not: light pixels only
 * as a caption, at least 60 in the 480x360 window (fewer in a smaller one).
 */
static void
expect_cue(struct umms_test_compositor *compositor, bool shown, const char *what)
{
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	for (;;) {
		struct umms_test_image *image = umms_test_compositor_screenshot(compositor);
		int rect[4] = { 0 };
		unsigned all = 0, caption = 0;
		bool found = umms_test_embed_find_rect(image, rect);
		if (found)
			count_light(image, rect, &all, &caption);
		umms_test_image_free(image);
		/* 60 in the 480x360 window; as many for the area in a smaller one. */
		unsigned least = found ? (unsigned)MAX(10, 60LL * rect[2] * rect[3] / (480 * 360)) : 0;
		if (found && (shown ? caption >= least && all == caption : all == 0)) {
			g_test_message("%s: %u light pixels, in the caption's area of the video at %d,%d %dx%d",
				what, caption, rect[0], rect[1], rect[2], rect[3]);
			return;
		}
		if (g_get_monotonic_time() > end)
			g_error("%s: video %s, %u light pixels, %u of them as a caption", what,
				found ? "found" : "not found", all, caption);
		umms_test_sleep(50);
	}
}

/*
 * A compositor, ummsd in-process and wl-embed showing its video at 40,40
 * 480x360 (fill); with @trace, wl-embed's requests written there (WAYLAND_DEBUG).
 * With SCALED in the test's data, at 40,40 240x180 with frames made that
 * size (--scaled-frames): the subtitles drawn for a smaller picture.
 */
#define SCALED 0x100
struct ummsd_window {
	struct umms_test_compositor *compositor;
	struct umms_test_service *service;
	GDBusConnection *bus;
	struct umms_test_embed *e;
	bool scaled;
};

static void
ummsd_window_start(struct ummsd_window *w, int data, const char *trace)
{
	w->compositor = umms_test_compositor_start(data & ~SCALED, 1280, 720);
	w->service = umms_test_service_start(NULL);
	w->bus = umms_test_connect();
	w->e = umms_test_embed_start_traced(w->compositor, (data & SCALED) ?
		(const char *const[]){ "--size", "1260x700", "--rect", "40,40,240,180", "--scale",
			"fill", "--scaled-frames", NULL } :
		(const char *const[]){ "--size", "1260x700", "--rect", "40,40,480,360", "--scale",
			"fill", NULL }, trace);
	w->scaled = data & SCALED;
}

/* A clip opened: with SCALED, its 320x240 picture comes as 240x180 frames. */
static void
ummsd_window_opened(struct ummsd_window *w)
{
	if (w->scaled)
		g_free(umms_test_embed_wait(w->e, "size 240x180", 5000));
}

static void
ummsd_window_stop(struct ummsd_window *w)
{
	umms_test_embed_free(w->e);
	g_object_unref(w->bus);
	umms_test_service_stop(w->service);
	umms_test_compositor_stop(w->compositor);
}

static void
test_subtitles_ummsd(gconstpointer data)
{
	/*
	 * ummsd (in-process) renders subs.mkv's text track (its first, shown by
	 * default: white "WWWWWWWW" from 1 s to 2 s over dark blue) and
	 * libumms-client puts the image over the picture in the window.
	 */
	struct ummsd_window w;
	ummsd_window_start(&w, GPOINTER_TO_INT(data), NULL);
	struct umms_test_compositor *compositor = w.compositor;
	GDBusConnection *bus = w.bus;
	struct umms_test_embed *e = w.e;
	open_paused(bus, e->path, "subs.mkv", 0.5);
	ummsd_window_opened(&w);
	expect_cue(compositor, false, "before-the-cue");
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(1.5)));
	expect_cue(compositor, true, "in-the-cue");
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(2.5)));
	expect_cue(compositor, false, "after-the-cue");
	/* Played into the second cue and past it. */
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(2.8)));
	umms_test_player_do(bus, e->path, "Play", NULL);
	umms_test_wait_position(bus, e->path, US(3.1), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(bus, e->path, "Pause", NULL);
	g_assert_cmpint(umms_test_get_int64(bus, e->path, "Position"), <, US(3.5));
	expect_cue(compositor, true, "played-into-the-second");
	umms_test_player_do(bus, e->path, "Play", NULL);
	umms_test_wait_position(bus, e->path, US(3.8), false, UMMS_TEST_TIMEOUT_MS);
	expect_cue(compositor, false, "played-past-it");

	ummsd_window_stop(&w);
}

static void
test_captions_ummsd(gconstpointer data)
{
	/*
	 * cc608.mkv: a CEA-608 caption "CAPTION" carried in the H.264 stream
	 * from 1.0 s to 2.0 s, over dark blue. ummsd decodes and draws it once
	 * its track is chosen; libumms-client puts it over the picture.
	 */
	struct ummsd_window w;
	ummsd_window_start(&w, GPOINTER_TO_INT(data), NULL);
	struct umms_test_compositor *compositor = w.compositor;
	GDBusConnection *bus = w.bus;
	struct umms_test_embed *e = w.e;
	open_paused(bus, e->path, "cc608.mkv", 0.5);
	ummsd_window_opened(&w);
	umms_test_player_do(bus, e->path, "SelectTrack", g_variant_new("(si)", "subtitle", 0));
	g_assert_cmpint(umms_test_get_int32(bus, e->path, "CurrentSubtitle"), ==, 0);
	expect_cue(compositor, false, "before-the-caption");
	/*
	 * 608 sends a caption once, so it is played into; then sought back to
	 * where it was seen (its erase not seen yet, it is known that far).
	 */
	umms_test_player_do(bus, e->path, "Play", NULL);
	umms_test_wait_position(bus, e->path, US(1.4), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(bus, e->path, "Pause", NULL);
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(1.2)));
	expect_cue(compositor, true, "in-the-caption");
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(2.5)));
	expect_cue(compositor, false, "after-its-erase");
	/* Off: not drawn, even where it stands. */
	umms_test_player_do(bus, e->path, "SelectTrack", g_variant_new("(si)", "subtitle", -1));
	umms_test_player_do(bus, e->path, "SetPosition", g_variant_new("(x)", US(1.2)));
	expect_cue(compositor, false, "captions-off");
	/* On again there: drawn again. */
	umms_test_player_do(bus, e->path, "SelectTrack", g_variant_new("(si)", "subtitle", 0));
	expect_cue(compositor, true, "captions-on-again");

	ummsd_window_stop(&w);
}

/*
 * The picture (BGRx frames: no alpha) hides the window under it, and says
 * so: its surface's opaque region covers it, so weston does not paint the
 * window under the video with every frame (bench/video-cpu on weston:
 * 0.87 s of compositing for 250 1080p frames without it, 0.49 with).
 */
static void
test_opaque(gconstpointer data)
{
	g_autofree char *dir = g_dir_make_tmp("umms-embed-trace-XXXXXX", NULL);
	g_assert_nonnull(dir);
	g_autofree char *trace = g_build_filename(dir, "wayland.log", NULL);
	struct ummsd_window w;
	ummsd_window_start(&w, GPOINTER_TO_INT(data), trace);
	open_paused(w.bus, w.e->path, "pattern.mkv", 0.5);
	static const struct check fill[] = {
		{ 0.25, 0.3, RED, "red" }, { 0.75, 0.7, WHITE, "white" },
	};
	expect_screen(w.compositor, (const int[]){ 480, 360 }, fill, G_N_ELEMENTS(fill), "shown");
	/* Stopped first: wl-embed's trace is whole once it has exited. */
	ummsd_window_stop(&w);

	g_autofree char *log = NULL;
	g_assert_true(g_file_get_contents(trace, &log, NULL, NULL));
	/* " -> wl_region@N.add(0, 0, 2147483647, 2147483647)", then the surface's request. */
	const char *add = strstr(log, ".add(0, 0, 2147483647, 2147483647)");
	g_assert_nonnull(add);
	const char *id = g_strrstr_len(log, add - log, "wl_region@");
	g_assert_nonnull(id);
	g_autofree char *region = g_strndup(id, (gsize)(add - id));
	g_autofree char *request = g_strdup_printf(".set_opaque_region(%s)", region);
	g_assert_nonnull(strstr(add, request));
	g_test_message("%s, then %s", region, request);
	g_unlink(trace);
	g_rmdir(dir);
}

/* Sends @command and returns wl-embed's drawing of it (@drawn: the buffer's size). */
static void
command_drawn(struct umms_test_embed *e, const char *command, int window[2], int drawn[2])
{
	umms_test_embed_send(e, command);
	g_autofree char *line = umms_test_embed_wait(e, "window ", 5000);
	g_assert_cmpint(sscanf(line, "window %dx%d drawn %dx%d", &window[0], &window[1],
		&drawn[0], &drawn[1]), ==, 4);
	g_free(umms_test_embed_wait(e, "ok", 5000));
}

/*
 * Pixels of @image near each of @colors (0xRRGGBB), and the box around
 * those near the first two (@box: x, y, width, height).
 */
static void
count_colors(const struct umms_test_image *image, const uint32_t *colors, unsigned *counts,
	size_t n, int box[4])
{
	int x0 = INT_MAX, y0 = INT_MAX, x1 = -1, y1 = -1;
	memset(counts, 0, n * sizeof(*counts));
	for (int y = 0; y < umms_test_image_height(image); y++) {
		for (int x = 0; x < umms_test_image_width(image); x++) {
			uint32_t p = umms_test_image_pixel(image, x, y);
			for (size_t i = 0; i < n; i++) {
				if (!umms_test_color_near(p, colors[i], TOLERANCE))
					continue;
				counts[i]++;
				if (i < 2) {
					x0 = MIN(x0, x);
					y0 = MIN(y0, y);
					x1 = MAX(x1, x);
					y1 = MAX(y1, y);
				}
			}
		}
	}
	box[0] = x0;
	box[1] = y0;
	box[2] = x1 - x0 + 1;
	box[3] = y1 - y0 + 1;
}

/*
 * A video that fills the window hides it (umms_client_video_hides), so the
 * application draws one pixel instead of a window-sized buffer that sway
 * 1.7 would paint under every frame (bench/video-cpu on sway: 0.75 s of
 * compositing for 250 1080p frames, 0.38 without). On screen: the picture
 * fills the window exactly, from its magenta band at the top to its cyan
 * band at the bottom, edge to edge. When the video moves back into a part
 * of the window, the window is drawn whole again, its colour and the frame
 * around the video where they belong.
 */
static void
test_hidden_window(gconstpointer data)
{
	struct ummsd_window w;
	ummsd_window_start(&w, GPOINTER_TO_INT(data), NULL);
	open_paused(w.bus, w.e->path, "pattern.mkv", 0.5);
	int window[2], drawn[2];
	command_drawn(w.e, "rect 40 40 480 360", window, drawn);
	g_assert_cmpint(drawn[0], ==, window[0]);
	g_assert_cmpint(drawn[1], ==, window[1]);

	g_autofree char *fill = g_strdup_printf("rect 0 0 %d %d", window[0], window[1]);
	command_drawn(w.e, fill, window, drawn);
	g_assert_cmpint(drawn[0], ==, 1);
	g_assert_cmpint(drawn[1], ==, 1);
	/* The picture fills the window (fill mode): its bands span it, its quadrants fill it. */
	static const uint32_t colors[] = { MAGENTA, CYAN, RED, GREEN, BLUE, WHITE };
	unsigned counts[G_N_ELEMENTS(colors)];
	unsigned quarter = (unsigned)(window[0] * window[1]) / 4, least = quarter * 8 / 10;
	int box[4];
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	for (;;) {
		struct umms_test_image *image = umms_test_compositor_screenshot(w.compositor);
		count_colors(image, colors, counts, G_N_ELEMENTS(colors), box);
		bool ok = box[2] == window[0] && box[3] == window[1];
		for (size_t i = 2; i < G_N_ELEMENTS(colors); i++)
			ok = ok && counts[i] >= least;
		if (ok || g_get_monotonic_time() > end) {
			g_test_message("window %dx%d hidden: the picture's bands at %d,%d %dx%d; red %u, "
				"green %u, blue %u, white %u pixels (a quadrant: %u)", window[0],
				window[1], box[0], box[1], box[2], box[3], counts[2], counts[3],
				counts[4], counts[5], quarter);
			if (!ok) {
				g_autofree char *saved =
					umms_test_image_save_for_diagnosis(image, "hidden-window");
				g_test_message("screenshot: %s", saved);
			}
			umms_test_image_free(image);
			g_assert_cmpint(box[2], ==, window[0]);
			g_assert_cmpint(box[3], ==, window[1]);
			for (size_t i = 2; i < G_N_ELEMENTS(colors); i++)
				g_assert_cmpuint(counts[i], >=, least);
			break;
		}
		umms_test_image_free(image);
		umms_test_sleep(50);
	}

	command_drawn(w.e, "rect 40 40 480 360", window, drawn);
	g_assert_cmpint(drawn[0], ==, window[0]);
	g_assert_cmpint(drawn[1], ==, window[1]);
	static const struct check part[] = {
		{ 0.25, 0.3, RED, "red" }, { 0.75, 0.7, WHITE, "white" },
	};
	expect_screen(w.compositor, (const int[]){ 480, 360 }, part, G_N_ELEMENTS(part), "back");
	/* The window's own colour beside the video again. */
	struct umms_test_image *image = umms_test_compositor_screenshot(w.compositor);
	int rect[4];
	g_assert_true(umms_test_embed_find_rect(image, rect));
	umms_test_image_assert_pixel(image, rect[0] + rect[2] + 100, rect[1] + 100, UI, TOLERANCE,
		"window");
	umms_test_image_free(image);
	ummsd_window_stop(&w);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_data_func("/embed/sway/scale-modes", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_scale_modes);
	g_test_add_data_func("/embed/weston/scale-modes", GINT_TO_POINTER(UMMS_TEST_WESTON),
		test_scale_modes);
	g_test_add_data_func("/embed/sway/scaled-frames", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_scaled_frames);
	g_test_add_data_func("/embed/weston/scaled-frames", GINT_TO_POINTER(UMMS_TEST_WESTON),
		test_scaled_frames);
	g_test_add_data_func("/embed/sway/sync-move", GINT_TO_POINTER(UMMS_TEST_SWAY), test_move);
	g_test_add_data_func("/embed/weston/sync-move", GINT_TO_POINTER(UMMS_TEST_WESTON),
		test_move);
	g_test_add_data_func("/embed/sway/desync-move-control",
		GINT_TO_POINTER(UMMS_TEST_SWAY | MOVE_DESYNC), test_move);
	g_test_add_data_func("/embed/weston/desync-move-control",
		GINT_TO_POINTER(UMMS_TEST_WESTON | MOVE_DESYNC), test_move);
	g_test_add_func("/embed/client-killed", test_client_killed);
	g_test_add_data_func("/embed/weston/opaque", GINT_TO_POINTER(UMMS_TEST_WESTON), test_opaque);
	g_test_add_data_func("/embed/sway/hidden-window", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_hidden_window);
	g_test_add_data_func("/embed/weston/hidden-window", GINT_TO_POINTER(UMMS_TEST_WESTON),
		test_hidden_window);
	g_test_add_data_func("/embed/sway/subtitles", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_subtitles);
	g_test_add_data_func("/embed/sway/subtitles-ummsd", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_subtitles_ummsd);
	g_test_add_data_func("/embed/sway/subtitles-ummsd-scaled",
		GINT_TO_POINTER(UMMS_TEST_SWAY | SCALED), test_subtitles_ummsd);
	g_test_add_data_func("/embed/sway/captions-ummsd-scaled",
		GINT_TO_POINTER(UMMS_TEST_SWAY | SCALED), test_captions_ummsd);
	g_test_add_data_func("/embed/sway/captions-ummsd", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_captions_ummsd);
	return g_test_run();
}
