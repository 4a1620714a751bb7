#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <wayland-client.h>

#include "compositor.h"
#include "harness.h"

/*
 * How long a compositor has to come up (weston on the emulated KMS device
 * compiles its shaders with llvmpipe under TCG: longer), and a screenshot
 * tool to finish.
 */
#define START_TIMEOUT_MS 10000
#define DRM_START_TIMEOUT_MS 120000
#define TOOL_TIMEOUT_MS 10000
/*
 * weston on the KMS device compiles a shader for each new kind of surface
 * before it can answer a screenshot: over 10 s under emulation and load.
 */
#define DRM_TOOL_TIMEOUT_MS 60000
#define STOP_TIMEOUT_MS 5000
/* sway refuses to run as root: it runs as nobody then. */
#define NOBODY 65534
/* Channel difference the readiness check accepts on the background. */
#define BACKGROUND_TOLERANCE 2
#define LOG_TAIL_LINES 40

struct umms_test_compositor {
	enum umms_test_compositor_kind kind;
	int width, height;
	GSubprocess *process;
	char *runtime_dir;     /* its XDG_RUNTIME_DIR and HOME, removed by stop */
	char *display;         /* absolute socket path */
	char *log_path;        /* in umms_test_tmpdir(), kept until the program ends */
	unsigned id;
	unsigned shots;
};

/* Child setup: who the child becomes, and the parent it must die with. */
struct child_setup {
	pid_t parent;
	bool drop_root;
};

/*
 * Runs in the child between fork and exec. The parent-death signal is set
 * after the user changes, which clears it; a parent already gone ends the
 * child at once.
 */
static void
child_setup(gpointer data)
{
	const struct child_setup *setup = data;
	if (setup->drop_root && (setgroups(0, NULL) != 0 ||
			setresgid(NOBODY, NOBODY, NOBODY) != 0 ||
			setresuid(NOBODY, NOBODY, NOBODY) != 0))
		_exit(126);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != setup->parent)
		_exit(126);
}

static GSubprocessLauncher *
launcher_new(GSubprocessFlags flags, bool drop_root)
{
	GSubprocessLauncher *launcher = g_subprocess_launcher_new(flags);
	struct child_setup *setup = g_new0(struct child_setup, 1);
	setup->parent = getpid();
	setup->drop_root = drop_root;
	g_subprocess_launcher_set_child_setup(launcher, child_setup, setup, g_free);
	return launcher;
}

static bool
exited(GSubprocess *process)
{
	/* GLib reaps children on its worker thread: no main loop needed. */
	return g_subprocess_get_identifier(process) == NULL;
}

/* Waits for @process to exit until @deadline (monotonic µs); false if it is still running. */
static bool
wait_until(GSubprocess *process, gint64 deadline)
{
	while (!exited(process)) {
		if (g_get_monotonic_time() > deadline)
			return false;
		g_usleep(1000);
	}
	g_subprocess_wait(process, NULL, NULL);
	return true;
}

static char *
describe_exit(GSubprocess *process)
{
	if (g_subprocess_get_if_signaled(process))
		return g_strdup_printf("was killed by signal %d (%s)",
			g_subprocess_get_term_sig(process),
			g_strsignal(g_subprocess_get_term_sig(process)));
	return g_strdup_printf("exited with status %d", g_subprocess_get_exit_status(process));
}

/* The last lines of a text file, for failure messages. */
static char *
file_tail(const char *path, unsigned lines)
{
	g_autofree char *text = NULL;
	gsize length = 0;
	if (!g_file_get_contents(path, &text, &length, NULL))
		return g_strdup_printf("(cannot read %s)", path);
	size_t start = length;
	unsigned seen = 0;
	while (start > 0) {
		if (text[start - 1] == '\n' && start != length && ++seen == lines)
			break;
		start--;
	}
	return g_strdup_printf("--- %s%s ---\n%s", path, start > 0 ? " (tail)" : "",
		text + start);
}

static G_GNUC_NORETURN G_GNUC_PRINTF(2, 3) void
fail(struct umms_test_compositor *compositor, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *message = g_strdup_vprintf(format, args);
	va_end(args);
	g_autofree char *tail = file_tail(compositor->log_path, LOG_TAIL_LINES);
	g_error("%s: %s\n%s", umms_test_compositor_name(compositor), message, tail);
}

static void
remove_tree(const char *path)
{
	GDir *dir = g_dir_open(path, 0, NULL);
	if (dir) {
		const char *name;
		while ((name = g_dir_read_name(dir))) {
			g_autofree char *child = g_build_filename(path, name, NULL);
			remove_tree(child);
		}
		g_dir_close(dir);
	}
	if (g_remove(path) != 0 && errno != ENOENT)
		g_printerr("could not remove %s: %s\n", path, g_strerror(errno));
}

static void
write_file(const char *path, const char *text, bool for_nobody)
{
	GError *error = NULL;
	if (!g_file_set_contents(path, text, -1, &error))
		g_error("cannot write %s: %s", path, error->message);
	if (for_nobody && chown(path, NOBODY, NOBODY) != 0)
		g_error("cannot chown %s: %s", path, g_strerror(errno));
}

/* The Wayland socket sway chose: wayland-N in its runtime folder. */
static char *
find_socket(const char *dir)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const char *name;
	while (listing && (name = g_dir_read_name(listing))) {
		if (!g_str_has_prefix(name, "wayland-") || g_str_has_suffix(name, ".lock"))
			continue;
		char *path = g_build_filename(dir, name, NULL);
		GStatBuf st;
		if (g_lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			return path;
		g_free(path);
	}
	return NULL;
}

static const char sway_config[] =
	"output HEADLESS-1 resolution %dx%d bg #%06x solid_color\n"
	"default_border none\n"
	"default_floating_border none\n"
	"xwayland disable\n";

/* No panel (the whole output is background), no fade-in, no lock, no keyboard client. */
static const char weston_config[] =
	"[core]\nidle-time=0\n"
	"[shell]\nbackground-color=0xff%06x\npanel-position=none\n"
	"startup-animation=none\nlocking=false\n"
	"[input-method]\npath=\n";

static void
spawn_compositor(struct umms_test_compositor *compositor, bool drop_root)
{
	bool sway = compositor->kind == UMMS_TEST_SWAY;
	g_autofree char *config = g_build_filename(compositor->runtime_dir,
		sway ? "sway.conf" : "weston.ini", NULL);
	g_autofree char *text = sway ? g_strdup_printf(sway_config, compositor->width,
			compositor->height, UMMS_TEST_COMPOSITOR_BACKGROUND) :
		g_strdup_printf(weston_config, UMMS_TEST_COMPOSITOR_BACKGROUND);
	write_file(config, text, drop_root);

	g_autoptr(GSubprocessLauncher) launcher = launcher_new(G_SUBPROCESS_FLAGS_STDERR_MERGE,
		drop_root);
	static const char *const unset[] = {
		"WAYLAND_DISPLAY", "WAYLAND_SOCKET", "DISPLAY", "SWAYSOCK", "I3SOCK",
		"DBUS_SESSION_BUS_ADDRESS", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
		"XDG_STATE_HOME", "XDG_CACHE_HOME",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(unset); i++)
		g_subprocess_launcher_unsetenv(launcher, unset[i]);
	g_subprocess_launcher_setenv(launcher, "XDG_RUNTIME_DIR", compositor->runtime_dir, TRUE);
	g_subprocess_launcher_setenv(launcher, "HOME", compositor->runtime_dir, TRUE);
	g_subprocess_launcher_set_stdout_file_path(launcher, compositor->log_path);
	g_subprocess_launcher_set_cwd(launcher, compositor->runtime_dir);
	GError *error = NULL;
	if (sway) {
		g_subprocess_launcher_setenv(launcher, "WLR_BACKENDS", "headless", TRUE);
		g_subprocess_launcher_setenv(launcher, "WLR_LIBINPUT_NO_DEVICES", "1", TRUE);
		g_subprocess_launcher_setenv(launcher, "WLR_RENDERER", "pixman", TRUE);
		compositor->process = g_subprocess_launcher_spawn(launcher, &error, "sway", "-c",
			config, NULL);
	} else if (compositor->kind == UMMS_TEST_WESTON_DRM) {
		g_autofree char *config_arg = g_strdup_printf("--config=%s", config);
		compositor->process = g_subprocess_launcher_spawn(launcher, &error, "weston",
			"--backend=drm-backend.so", "--tty=2", "--continue-without-input",
			"--shell=desktop-shell.so", "--socket=wayland-0", "--idle-time=0",
			config_arg, "--debug", NULL);
		compositor->display = g_build_filename(compositor->runtime_dir, "wayland-0", NULL);
	} else {
		g_autofree char *width = g_strdup_printf("--width=%d", compositor->width);
		g_autofree char *height = g_strdup_printf("--height=%d", compositor->height);
		g_autofree char *config_arg = g_strdup_printf("--config=%s", config);
		/* --debug exposes weston_screenshooter; kiosk-shell never repaints headless. */
		compositor->process = g_subprocess_launcher_spawn(launcher, &error, "weston",
			"--backend=headless-backend.so", "--use-pixman", width, height,
			"--shell=desktop-shell.so", "--socket=wayland-0", "--idle-time=0",
			config_arg, "--debug", NULL);
		compositor->display = g_build_filename(compositor->runtime_dir, "wayland-0", NULL);
	}
	if (!compositor->process)
		g_error("cannot start %s (apt-get install %s): %s",
			umms_test_compositor_name(compositor),
			sway ? "sway swaybg grim" : "weston", error->message);
}

struct probe {
	const char *wanted[4];
	unsigned found;        /* bit i: wanted[i] is advertised */
	bool done;
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	struct probe *probe = data;
	for (unsigned i = 0; i < G_N_ELEMENTS(probe->wanted); i++)
		if (strcmp(interface, probe->wanted[i]) == 0)
			probe->found |= 1u << i;
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void
sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	struct probe *probe = data;
	probe->done = true;
}

static const struct wl_callback_listener sync_listener = {
	.done = sync_done,
};

/*
 * Connects as a client and lists the globals; false if the compositor does
 * not answer before @deadline (it accepts connections before it serves them).
 */
static bool
probe_globals(struct umms_test_compositor *compositor, struct probe *probe, gint64 deadline)
{
	struct wl_display *display = wl_display_connect(compositor->display);
	if (!display)
		return false;
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, probe);
	struct wl_callback *callback = wl_display_sync(display);
	wl_callback_add_listener(callback, &sync_listener, probe);
	bool ok = true;
	while (ok && !probe->done) {
		while (wl_display_prepare_read(display) != 0)
			wl_display_dispatch_pending(display);
		if (wl_display_flush(display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(display);
			ok = false;
			break;
		}
		gint64 left_ms = (deadline - g_get_monotonic_time()) / 1000;
		struct pollfd pfd = { .fd = wl_display_get_fd(display), .events = POLLIN };
		int ready = left_ms > 0 ? poll(&pfd, 1, (int)left_ms) : 0;
		if (ready <= 0) {
			wl_display_cancel_read(display);
			ok = ready < 0 && errno == EINTR;
			continue;
		}
		ok = wl_display_read_events(display) == 0 &&
			wl_display_dispatch_pending(display) >= 0;
	}
	wl_callback_destroy(callback);
	wl_registry_destroy(registry);
	wl_display_disconnect(display);
	return ok && probe->done;
}

static struct umms_test_image *take_screenshot(struct umms_test_compositor *compositor,
	GError **error);

static bool
shows_background(const struct umms_test_image *image, int width, int height)
{
	if (umms_test_image_width(image) != width || umms_test_image_height(image) != height)
		return false;
	const int points[][2] = {
		{ width / 2, height / 2 }, { 0, 0 }, { width - 1, 0 }, { 0, height - 1 },
		{ width - 1, height - 1 },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(points); i++)
		if (!umms_test_color_near(umms_test_image_pixel(image, points[i][0], points[i][1]),
				UMMS_TEST_COMPOSITOR_BACKGROUND, BACKGROUND_TOLERANCE))
			return false;
	return true;
}

/*
 * Up means: a client gets the globals, including the one the screenshot tool
 * needs, and a screenshot shows the background over the whole output at the
 * requested size (the background is drawn by a client of its own, swaybg or
 * weston-desktop-shell, after the socket is open).
 */
static unsigned
wait_until_up(struct umms_test_compositor *compositor, gint64 deadline, int timeout_ms)
{
	struct probe probe = {
		.wanted = { "wl_compositor", "wl_shm", "xdg_wm_base",
			compositor->kind == UMMS_TEST_SWAY ?
				"zwlr_screencopy_manager_v1" : "weston_screenshooter" },
	};
	for (;;) {
		if (exited(compositor->process)) {
			g_subprocess_wait(compositor->process, NULL, NULL);
			g_autofree char *how = describe_exit(compositor->process);
			fail(compositor, "%s while starting", how);
		}
		if (g_get_monotonic_time() > deadline)
			fail(compositor, "no client could connect within %d ms (socket %s)",
				timeout_ms,
				compositor->display ? compositor->display : "not created");
		if (!compositor->display)
			compositor->display = find_socket(compositor->runtime_dir);
		if (compositor->display && probe_globals(compositor, &probe, deadline))
			break;
		g_usleep(2000);
	}
	for (unsigned i = 0; i < G_N_ELEMENTS(probe.wanted); i++)
		if (!(probe.found & 1u << i))
			fail(compositor, "it has no %s global", probe.wanted[i]);

	g_autoptr(GError) error = NULL;
	struct umms_test_image *last = NULL;
	unsigned shots = 0;
	for (;;) {
		shots++;
		g_clear_error(&error);
		struct umms_test_image *image = take_screenshot(compositor, &error);
		if (image) {
			umms_test_image_free(last);
			last = image;
			if (shows_background(image, compositor->width, compositor->height))
				break;
		}
		if (g_get_monotonic_time() > deadline || exited(compositor->process)) {
			g_autofree char *what = g_strconcat(umms_test_compositor_name(compositor),
				"-startup", NULL);
			g_autofree char *saved = last ? umms_test_image_save_for_diagnosis(last, what) : NULL;
			g_autofree char *found = last ? g_strdup_printf("the last screenshot is "
				"%dx%d, #%06x in the middle, saved to %s", umms_test_image_width(last),
				umms_test_image_height(last), umms_test_image_pixel(last,
					umms_test_image_width(last) / 2, umms_test_image_height(last) / 2),
				saved) : NULL;
			fail(compositor, "the output did not show the #%06x background at %dx%d "
				"within %d ms: %s%s%s", UMMS_TEST_COMPOSITOR_BACKGROUND,
				compositor->width, compositor->height, timeout_ms,
				found ? found : "", found && error ? "; " : "",
				error ? error->message : "");
		}
		g_usleep(5000);
	}
	umms_test_image_free(last);
	return shots;
}

struct umms_test_compositor *
umms_test_compositor_start(enum umms_test_compositor_kind kind, int width, int height)
{
	static unsigned started;
	g_assert_nonnull(umms_test_tmpdir());
	g_assert_true(kind == UMMS_TEST_SWAY || kind == UMMS_TEST_WESTON ||
		kind == UMMS_TEST_WESTON_DRM);
	gint64 begin = g_get_monotonic_time();
	struct umms_test_compositor *compositor = g_new0(struct umms_test_compositor, 1);
	compositor->kind = kind;
	compositor->width = width > 0 ? width : 1280;
	compositor->height = height > 0 ? height : 720;
	compositor->id = ++started;
	compositor->log_path = g_strdup_printf("%s/%s-%u.log", umms_test_tmpdir(),
		umms_test_compositor_name(compositor), compositor->id);

	/* Not inside umms_test_tmpdir(), which nobody may not enter. */
	GError *error = NULL;
	compositor->runtime_dir = g_dir_make_tmp("umms-wayland-XXXXXX", &error);
	g_assert_no_error(error);
	bool drop_root = kind == UMMS_TEST_SWAY && getuid() == 0;
	if (drop_root && chown(compositor->runtime_dir, NOBODY, NOBODY) != 0)
		g_error("cannot chown %s: %s", compositor->runtime_dir, g_strerror(errno));

	spawn_compositor(compositor, drop_root);
	int timeout_ms = kind == UMMS_TEST_WESTON_DRM ? DRM_START_TIMEOUT_MS : START_TIMEOUT_MS;
	unsigned shots = wait_until_up(compositor, begin + (gint64)timeout_ms * 1000, timeout_ms);
	g_test_message("%s %dx%d up on %s in %.0f ms (%u screenshot%s)%s",
		umms_test_compositor_name(compositor), compositor->width, compositor->height,
		compositor->display, (g_get_monotonic_time() - begin) / 1000.0, shots,
		shots == 1 ? "" : "s", drop_root ? ", as nobody" : "");
	return compositor;
}

void
umms_test_compositor_stop(struct umms_test_compositor *compositor)
{
	if (!compositor)
		return;
	if (exited(compositor->process)) {
		g_subprocess_wait(compositor->process, NULL, NULL);
		g_autofree char *how = describe_exit(compositor->process);
		fail(compositor, "%s during the test", how);
	}
	g_subprocess_send_signal(compositor->process, SIGTERM);
	if (!wait_until(compositor->process, g_get_monotonic_time() + STOP_TIMEOUT_MS * 1000)) {
		g_printerr("%s did not stop on SIGTERM within %d ms: killed\n",
			umms_test_compositor_name(compositor), STOP_TIMEOUT_MS);
		g_subprocess_force_exit(compositor->process);
		g_subprocess_wait(compositor->process, NULL, NULL);
	}
	g_object_unref(compositor->process);
	remove_tree(compositor->runtime_dir);
	g_free(compositor->runtime_dir);
	g_free(compositor->display);
	g_free(compositor->log_path);
	g_free(compositor);
}

const char *
umms_test_compositor_display(struct umms_test_compositor *compositor)
{
	return compositor->display;
}

const char *
umms_test_compositor_name(struct umms_test_compositor *compositor)
{
	return compositor->kind == UMMS_TEST_SWAY ? "sway" : "weston";
}

/* Runs a screenshot tool in @dir as a client of @compositor; false with its output. */
static bool
run_tool(struct umms_test_compositor *compositor, const char *dir, const char *const *argv,
	GError **error)
{
	g_autofree char *output = g_build_filename(dir, "output.txt", NULL);
	g_autoptr(GSubprocessLauncher) launcher = launcher_new(G_SUBPROCESS_FLAGS_STDERR_MERGE,
		false);
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY", compositor->display, TRUE);
	g_subprocess_launcher_unsetenv(launcher, "WAYLAND_SOCKET");
	g_subprocess_launcher_set_cwd(launcher, dir);
	g_subprocess_launcher_set_stdout_file_path(launcher, output);
	g_autoptr(GSubprocess) tool = g_subprocess_launcher_spawnv(launcher, argv, error);
	if (!tool) {
		g_prefix_error(error, "cannot run %s: ", argv[0]);
		return false;
	}
	int timeout_ms = compositor->kind == UMMS_TEST_WESTON_DRM ? DRM_TOOL_TIMEOUT_MS :
		TOOL_TIMEOUT_MS;
	if (!wait_until(tool, g_get_monotonic_time() + (gint64)timeout_ms * 1000)) {
		g_subprocess_force_exit(tool);
		g_subprocess_wait(tool, NULL, NULL);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "%s hung for %d ms",
			argv[0], timeout_ms);
		return false;
	}
	if (!g_subprocess_get_successful(tool)) {
		g_autofree char *how = describe_exit(tool);
		g_autofree char *text = NULL;
		g_file_get_contents(output, &text, NULL, NULL);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s %s: %s", argv[0], how,
			text ? g_strstrip(text) : "");
		return false;
	}
	return true;
}

/* The one PNG a tool wrote into @dir. */
static char *
find_png(const char *dir)
{
	g_autoptr(GDir) listing = g_dir_open(dir, 0, NULL);
	const char *name;
	while (listing && (name = g_dir_read_name(listing)))
		if (g_str_has_suffix(name, ".png"))
			return g_build_filename(dir, name, NULL);
	return NULL;
}

static struct umms_test_image *
take_screenshot(struct umms_test_compositor *compositor, GError **error)
{
	/* A fresh folder each time: weston-screenshooter names files by the second. */
	g_autofree char *dir = g_strdup_printf("%s/%s-%u-shot-%u", umms_test_tmpdir(),
		umms_test_compositor_name(compositor), compositor->id, ++compositor->shots);
	if (g_mkdir(dir, 0700) != 0)
		g_error("cannot create %s: %s", dir, g_strerror(errno));
	/* grim uncompressed: 21 ms instead of 35 for a plain 1280x720 output. */
	static const char *const grim[] = { "grim", "-l", "0", "screenshot.png", NULL };
	static const char *const screenshooter[] = { "weston-screenshooter", NULL };
	struct umms_test_image *image = NULL;
	if (run_tool(compositor, dir, compositor->kind == UMMS_TEST_SWAY ? grim : screenshooter,
			error)) {
		g_autofree char *png = find_png(dir);
		if (png)
			image = umms_test_image_load_file(png, error);
		else
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
				"the screenshot tool wrote no PNG into %s", dir);
	}
	remove_tree(dir);
	return image;
}

struct umms_test_image *
umms_test_compositor_screenshot(struct umms_test_compositor *compositor)
{
	GError *error = NULL;
	struct umms_test_image *image = take_screenshot(compositor, &error);
	if (!image && exited(compositor->process)) {
		g_subprocess_wait(compositor->process, NULL, NULL);
		g_autofree char *how = describe_exit(compositor->process);
		fail(compositor, "screenshot failed (the compositor %s): %s", how, error->message);
	}
	if (!image)
		fail(compositor, "screenshot failed: %s", error->message);
	return image;
}

