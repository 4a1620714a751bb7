/*
 * Real web browsers on ummsd's headless screen (issue 16), as a user
 * would run them: cog (WPE WebKit) and Chromium started on ummsd's
 * compositor with pages this program serves over HTTP, the screen read
 * back with Display1.Capture.
 *
 * - What the compositor offers: wayland-info lists every global browsers
 *   look for (Chromium's GTK makes no seat without wl_data_device_manager);
 *   that data device cancels every selection and drag at once.
 * - Frame callbacks keep coming while nothing changes (browsers pace their
 *   drawing by them; Chromium's start-up waits for them).
 * - cog draws a page full screen; with a transparent background the video
 *   ummsd shows under the UI is seen around the page's own box.
 * - Chromium draws a page.
 * - A browser killed: its window leaves the screen, no process of it left.
 * - A file:// page in headless Chromium reaches the web bridge with
 *   web.origins=null (it sends "Origin: null"), as the README says.
 *
 * The screen is drawn by pixman (no GL in ummsd; the browsers render in
 * software themselves and send wl_shm buffers) at 960x540.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include <wayland-client.h>

#include "browser.h"
#include "harness.h"
#include "image.h"
#include "shell.h"
#include "sources.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

#define W 960
#define H 540

#define MAGENTA 0xff00ff
#define RED 0xff0000
#define BLACK 0x000000

/* A browser's first page on a machine under load (two shared cores in CI). */
#define PAGE_TIMEOUT_MS 90000

static struct pages *pages;

static void
start(struct umms_test *t)
{
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=960x540", "display.compositor=true",
		"display.input=false", NULL };
	umms_test_restart(t, overrides);
}

/* ---- the compositor ---------------------------------------------------------------- */

static void
test_globals(struct umms_test *t, gconstpointer data)
{
	start(t);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY", "umms-0", TRUE);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) info = g_subprocess_launcher_spawn(launcher, &error,
		"wayland-info", NULL);
	g_assert_no_error(error);
	g_autofree char *out = NULL;
	g_assert_true(g_subprocess_communicate_utf8(info, NULL, NULL, &out, NULL, &error));
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(info));
	g_assert_cmpint(g_subprocess_get_exit_status(info), ==, 0);
	/* pixman reads linear dma-bufs: zwp_linux_dmabuf_v1 is offered with it. */
	static const char *const globals[] = { "wl_compositor", "wl_subcompositor",
		"xdg_wm_base", "wl_shm", "wl_output", "wl_seat", "wl_data_device_manager",
		"wp_viewporter", "wp_presentation", "zwp_linux_dmabuf_v1",
		"umms_video_manager_v1" };
	for (size_t i = 0; i < G_N_ELEMENTS(globals); i++) {
		g_autofree char *quoted = g_strdup_printf("interface: '%s'", globals[i]);
		if (!strstr(out, quoted))
			g_error("wayland-info does not list %s:\n%s", globals[i], out);
	}
	/* The data device manager as toolkits bind it (version 3), and a seat with a keyboard. */
	g_assert_true(g_regex_match_simple("'wl_data_device_manager',\\s+version:\\s+3,", out, 0,
		0));
	g_assert_nonnull(strstr(out, "capabilities: pointer keyboard"));
}

/* Reads and dispatches what comes from the compositor within @ms. */
static void
dispatch_for(struct wl_display *display, int ms)
{
	while (wl_display_prepare_read(display) != 0)
		g_assert_cmpint(wl_display_dispatch_pending(display), >=, 0);
	g_assert_cmpint(wl_display_flush(display), >=, 0);
	struct pollfd fd = { .fd = wl_display_get_fd(display), .events = POLLIN };
	if (poll(&fd, 1, ms) > 0) {
		g_assert_cmpint(wl_display_read_events(display), ==, 0);
	} else {
		wl_display_cancel_read(display);
	}
	g_assert_cmpint(wl_display_dispatch_pending(display), >=, 0);
}

struct data_client {
	struct wl_compositor *compositor;
	struct wl_seat *seat;
	struct wl_data_device_manager *manager;
	unsigned cancelled;
};

static void
data_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct data_client *c = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	else if (strcmp(interface, wl_seat_interface.name) == 0)
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	else if (strcmp(interface, wl_data_device_manager_interface.name) == 0)
		c->manager = wl_registry_bind(registry, name, &wl_data_device_manager_interface, 3);
}

static void
data_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener data_registry_listener = {
	.global = data_global,
	.global_remove = data_global_remove,
};

static void source_target(void *d, struct wl_data_source *s, const char *m) {}
static void source_send(void *d, struct wl_data_source *s, const char *m, int32_t fd) {}
static void source_dnd_drop_performed(void *d, struct wl_data_source *s) {}
static void source_dnd_finished(void *d, struct wl_data_source *s) {}
static void source_action(void *d, struct wl_data_source *s, uint32_t a) {}

static void
source_cancelled(void *data, struct wl_data_source *source)
{
	((struct data_client *)data)->cancelled++;
}

static const struct wl_data_source_listener source_listener = {
	.target = source_target,
	.send = source_send,
	.cancelled = source_cancelled,
	.dnd_drop_performed = source_dnd_drop_performed,
	.dnd_finished = source_dnd_finished,
	.action = source_action,
};

/*
 * The data device as a toolkit uses it: a selection and a drag are each
 * cancelled at once (no clipboard, no drag and drop); misuse is a protocol
 * error, and the compositor goes on serving.
 */
static void
test_data_device(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct data_client c = { 0 };
	struct wl_display *display = wl_display_connect("umms-0");
	g_assert_nonnull(display);
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &data_registry_listener, &c);
	g_assert_cmpint(wl_display_roundtrip(display), >=, 0);
	g_assert_nonnull(c.seat);
	g_assert_nonnull(c.manager);
	struct wl_data_device *device = wl_data_device_manager_get_data_device(c.manager, c.seat);
	struct wl_data_source *selection = wl_data_device_manager_create_data_source(c.manager);
	wl_data_source_add_listener(selection, &source_listener, &c);
	wl_data_source_offer(selection, "text/plain;charset=utf-8");
	wl_data_device_set_selection(device, selection, 1);
	g_assert_cmpint(wl_display_roundtrip(display), >=, 0);
	g_assert_cmpuint(c.cancelled, ==, 1);
	struct wl_data_source *drag = wl_data_device_manager_create_data_source(c.manager);
	wl_data_source_add_listener(drag, &source_listener, &c);
	wl_data_source_set_actions(drag, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
	struct wl_surface *origin = wl_compositor_create_surface(c.compositor);
	wl_data_device_start_drag(device, drag, origin, NULL, 1);
	g_assert_cmpint(wl_display_roundtrip(display), >=, 0);
	g_assert_cmpuint(c.cancelled, ==, 2);
	wl_data_source_destroy(drag);
	/* A source given twice: a protocol error for this client. */
	wl_data_device_set_selection(device, selection, 2);
	g_assert_cmpint(wl_display_roundtrip(display), <, 0);
	g_assert_cmpint(wl_display_get_error(display), ==, EPROTO);
	const struct wl_interface *where = NULL;
	g_assert_cmpuint(wl_display_get_protocol_error(display, &where, NULL), ==,
		WL_DATA_DEVICE_ERROR_ROLE);
	g_assert_true(where == &wl_data_device_interface);
	wl_data_source_destroy(selection);
	wl_surface_destroy(origin);
	wl_compositor_destroy(c.compositor);
	wl_data_device_destroy(device);
	wl_data_device_manager_destroy(c.manager);
	wl_seat_destroy(c.seat);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	/* Others are served still. */
	struct shell *s = shell_connect();
	shell_map(s);
	shell_draw(s, 0x3c5a78, NULL);
	shell_free(s);
}

static void
frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	(*(unsigned *)data)++;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

/*
 * A client that asks for a frame callback with each commit, its pixels
 * unchanged (what a browser does while idle): the callbacks keep coming,
 * paced by the screen's 60 Hz, not faster.
 */
static void
test_frame_callbacks(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct shell *s = shell_connect();
	shell_map(s);
	shell_draw(s, 0x3c5a78, NULL);
	unsigned done = 0, asked = 0;
	gint64 start_us = g_get_monotonic_time(), last_us = start_us;
	while (g_get_monotonic_time() - start_us < 2000000) {
		if (done == asked) {
			struct wl_callback *frame = wl_surface_frame(s->surface);
			wl_callback_add_listener(frame, &frame_listener, &done);
			wl_surface_commit(s->surface);
			asked++;
			last_us = g_get_monotonic_time();
		}
		dispatch_for(s->display, 100);
		if (done < asked && g_get_monotonic_time() - last_us > 2000000)
			g_error("frame callbacks stopped: none for 2 s after %u", done);
	}
	double seconds = (g_get_monotonic_time() - start_us) / 1e6;
	g_test_message("%u frame callbacks in %.2f s with nothing changing (%.1f/s)", done,
		seconds, done / seconds);
	/* 120 at 60 Hz; a loaded machine may miss many vblanks, but they never stop. */
	g_assert_cmpuint(done, >=, 20);
	g_assert_cmpuint(done, <=, (unsigned)(seconds * 60) + 3);
	/* Its buffer was destroyed after the first commit (shell.h): its pixels stay shown. */
	struct umms_test_image *image = browser_capture(t, "idle-window", W, H);
	umms_test_image_assert_rect(image, 0, 0, W, H, 0, 0x3c5a78, 4, "the idle window");
	umms_test_image_free(image);
	shell_free(s);
}

/* ---- cog ----------------------------------------------------------------------------- */

static const struct screen_point magenta_page[] = {
	{ 2, 2, MAGENTA }, { W - 3, 2, MAGENTA }, { W / 2, H / 2, MAGENTA },
	{ 2, H - 3, MAGENTA }, { W - 3, H - 3, MAGENTA }, { -1, -1, 0 },
};

static const struct screen_point black_screen[] = {
	{ 2, 2, BLACK }, { W / 2, H / 2, BLACK }, { W - 3, H - 3, BLACK }, { -1, -1, 0 },
};

static void
test_cog(struct umms_test *t, gconstpointer data)
{
	start(t);
	g_autofree char *url = pages_url(pages, "/magenta.html");
	struct browser *b = browser_start(BROWSER_COG, url, NULL);
	/* Full screen: every corner is the page's. */
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match,
		magenta_page, PAGE_TIMEOUT_MS, "cog-magenta");
	umms_test_image_assert_rect(image, 0, 0, W, H, 0, MAGENTA, 12, "cog page");
	umms_test_image_free(image);
	browser_free(b);
}

/*
 * The page's transparent parts show ummsd's video under the browser's
 * window (Display1.ShowPlayer: the video under the UI, letterboxed: a
 * 4:3 red first frame at x 120 to 840), the page's magenta box over it.
 */
static void
test_cog_transparent(struct umms_test *t, gconstpointer data)
{
	start(t);
	g_autofree char *player = umms_test_open(t->bus, "colors.mkv");
	umms_test_player_do(t->bus, player, "Pause", NULL);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	g_autofree char *url = pages_url(pages, "/box.html");
	const char *const args[] = { "--bg-color=#00000000", NULL };
	struct browser *b = browser_start(BROWSER_COG, url, args);
	static const struct screen_point box_over_video[] = {
		{ 260, 170, MAGENTA }, { 600, 400, RED }, { 60, 400, BLACK }, { -1, -1, 0 },
	};
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match,
		box_over_video, PAGE_TIMEOUT_MS, "cog-transparent");
	/* The box (100,80) 320x180, magenta to within a pixel; the video right around it. */
	umms_test_image_assert_rect(image, 100, 80, 320, 180, 1, MAGENTA, 12, "the page's box");
	umms_test_image_assert_pixel(image, 260, 78, RED, 12, "video above the box");
	umms_test_image_assert_pixel(image, 260, 262, RED, 12, "video below the box");
	umms_test_image_assert_pixel(image, 422, 170, RED, 12, "video right of the box");
	umms_test_image_assert_rect(image, 430, 0, 410, H, 1, RED, 12, "video beside the box");
	/* Left of the box: the letterbox bar, then the picture (from x 120). */
	umms_test_image_assert_pixel(image, 98, 170, BLACK, 12, "bar left of the box");
	umms_test_image_free(image);
	browser_free(b);
}

/* Killed: the window leaves the screen, no process of the browser is left. */
static void
test_killed(struct umms_test *t, gconstpointer data)
{
	start(t);
	g_autofree char *url = pages_url(pages, "/magenta.html");
	struct browser *b = browser_start(BROWSER_COG, url, NULL);
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match,
		magenta_page, PAGE_TIMEOUT_MS, "cog-before-kill");
	umms_test_image_free(image);
	browser_kill(b);   /* asserts its whole process group is gone */
	image = browser_wait_screen(t, W, H, screen_points_match, black_screen, 10000,
		"cog-killed");
	umms_test_image_assert_rect(image, 0, 0, W, H, 0, BLACK, 4, "after the browser");
	umms_test_image_free(image);
	browser_free(b);
}

/* ---- Chromium ------------------------------------------------------------------------- */

static void
test_chromium(struct umms_test *t, gconstpointer data)
{
	start(t);
	g_autofree char *url = pages_url(pages, "/magenta.html");
	struct browser *b = browser_start(BROWSER_CHROMIUM, url, NULL);
	struct umms_test_image *image = browser_wait_screen(t, W, H, screen_points_match,
		magenta_page, PAGE_TIMEOUT_MS, "chromium-magenta");
	umms_test_image_assert_rect(image, 0, 0, W, H, 0, MAGENTA, 12, "chromium page");
	umms_test_image_free(image);
	browser_kill(b);
	image = browser_wait_screen(t, W, H, screen_points_match, black_screen, 10000,
		"chromium-killed");
	umms_test_image_free(image);
	browser_free(b);
}

/*
 * A page opened as file:// (README's Chromium line): headless Chromium
 * sends "Origin: null", so web.origins=null lets it in. The page opens a
 * player over the bridge; it leaves with the browser.
 */
static void
test_chromium_file_origin(struct umms_test *t, gconstpointer data)
{
	unsigned port = umms_test_free_tcp_port();
	g_autofree char *port_key = g_strdup_printf("web.port=%u", port);
	const char *const overrides[] = { port_key, "web.origins=null",
		"web.token=0123456789abcdef01", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *page = g_build_filename(umms_test_tmpdir(), "file-origin.html", NULL);
	g_autofree char *clip = umms_test_clip_uri("av.mkv");
	g_autofree char *html = g_strdup_printf("<!doctype html><script>\n"
		"const ws = new WebSocket('ws://127.0.0.1:%u/umms?token=0123456789abcdef01');\n"
		"ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1,\n"
		"\tmethod: 'open', params: { uri: '%s' } }));\n"
		"</script>\n", port, clip);
	g_assert_true(g_file_set_contents(page, html, -1, NULL));
	g_autofree char *url = g_strdup_printf("file://%s", page);
	g_autofree char *profile = g_build_filename(umms_test_tmpdir(), "chromium-file", NULL);
	g_autofree char *profile_arg = g_strdup_printf("--user-data-dir=%s", profile);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) chromium = g_subprocess_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
		G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error, "chromium", "--headless=new",
		"--no-sandbox", "--disable-gpu", "--no-first-run", profile_arg, url, NULL);
	g_assert_no_error(error);
	umms_test_wait_players(t->bus, 1, PAGE_TIMEOUT_MS);
	g_subprocess_send_signal(chromium, SIGTERM);
	g_assert_true(g_subprocess_wait(chromium, NULL, NULL));
	umms_test_wait_players(t->bus, 0, 10000);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	umms_test_fixture_without_service();
	pages = pages_start();
	UMMS_TEST_ADD("/browser/globals", test_globals);
	UMMS_TEST_ADD("/browser/data-device", test_data_device);
	UMMS_TEST_ADD("/browser/frame-callbacks", test_frame_callbacks);
	UMMS_TEST_ADD("/browser/cog", test_cog);
	UMMS_TEST_ADD("/browser/cog-transparent", test_cog_transparent);
	UMMS_TEST_ADD("/browser/killed", test_killed);
	UMMS_TEST_ADD("/browser/chromium", test_chromium);
	UMMS_TEST_ADD("/browser/chromium-file-origin", test_chromium_file_origin);
	int status = g_test_run();
	pages_stop(pages);
	return status;
}
