/*
 * `ummsd --drm` and its session ([display] session, service/session.h):
 * the real binary on vkms in the test VM (tests/vm/), as root.
 *
 * - libseat with seatd running: the device comes from seatd, the log says
 *   so, and Display1.Capture reads back the player shown.
 * - libseat without any seat manager (no seatd, no logind in the VM):
 *   ummsd stops at start, and says the session is why.
 * - auto without a seat manager: devices opened directly, and it works.
 * - a VT switch under seatd: the screen pauses and comes back showing the
 *   same picture (skipped where the VM has no VTs).
 *
 * Each test starts seatd itself (LIBSEAT_BACKEND, libseat's own variable,
 * is set for ummsd only) and stops everything it started. Runs only in
 * the VM (meson test 'session').
 */
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "harness.h"
#include "image.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"
#define SEATD_SOCK "/run/seatd.sock"

/* vkms's preferred mode, and what colors.mkv shows first. */
#define W 1024
#define H 768
#define RED 0xff0000
#define BLACK 0x000000

static void
die_with_test(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/* @argv with its output in @log, and LIBSEAT_BACKEND=@backend (NULL: unset). */
static GSubprocess *
spawn_logged(const char *const *argv, const char *log, const char *backend)
{
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDERR_MERGE);
	g_subprocess_launcher_set_child_setup(launcher, die_with_test, NULL, NULL);
	g_subprocess_launcher_set_stdout_file_path(launcher, log);
	umms_test_log_on_failure(log);
	if (backend)
		g_subprocess_launcher_setenv(launcher, "LIBSEAT_BACKEND", backend, TRUE);
	else
		g_subprocess_launcher_unsetenv(launcher, "LIBSEAT_BACKEND");
	GError *error = NULL;
	GSubprocess *process = g_subprocess_launcher_spawnv(launcher, argv, &error);
	g_assert_no_error(error);
	return process;
}

static char *
log_path(const char *name)
{
	return g_strdup_printf("%s/%s.log", umms_test_tmpdir(), name);
}

static char *
read_log(const char *path)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return g_strdup("");
	return text;
}

/* Waits until @path's text holds @needle; fails the test with the log if not. */
static void
wait_log(const char *path, const char *needle, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (unsigned i = 0;; i++) {
		g_autofree char *text = read_log(path);
		if (strstr(text, needle))
			return;
		/* Counted as well as timed (umms_test_sleep says why). */
		if (g_get_monotonic_time() > end || i > timeout_ms / 100)
			g_error("\"%s\" never came in %s:\n%s", needle, path, text);
		umms_test_sleep(100);
	}
}

struct wait {
	bool done, exited;
};

static void
exited(GObject *source, GAsyncResult *result, gpointer data)
{
	struct wait *w = data;
	w->exited = g_subprocess_wait_finish(G_SUBPROCESS(source), result, NULL);
	w->done = true;
}

/* Waits up to @timeout_ms for @process to end; whether it did. */
static bool
wait_exit(GSubprocess *process, unsigned timeout_ms)
{
	struct wait w = { 0 };
	g_autoptr(GCancellable) cancel = g_cancellable_new();
	g_subprocess_wait_async(process, cancel, exited, &w);
	/* Counted as well as timed (umms_test_sleep says why). */
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (unsigned i = 0; !w.done && g_get_monotonic_time() < end && i < timeout_ms / 50; i++)
		umms_test_sleep(50);
	/* The callback comes (cancelled) before @w goes. */
	g_cancellable_cancel(cancel);
	while (!w.done)
		g_main_context_iteration(NULL, TRUE);
	return w.exited;
}

/*
 * Gives @process @ms to end, then stops it (SIGTERM, then SIGKILL);
 * returns its exit status (-1: killed).
 */
static int
stop_after(GSubprocess *process, unsigned ms)
{
	if (ms && wait_exit(process, ms))
		return g_subprocess_get_if_exited(process) ? g_subprocess_get_exit_status(process) : -1;
	if (!g_subprocess_get_identifier(process))
		return g_subprocess_get_if_exited(process) ? g_subprocess_get_exit_status(process) : -1;
	if (ms)
		g_test_message("%s still running after %u ms: stopped",
			g_subprocess_get_identifier(process), ms);
	g_subprocess_send_signal(process, SIGTERM);
	/* Sanitizer builds under emulation take long to exit (the leak check). */
	if (!wait_exit(process, 120000)) {
		g_test_message("%s did not stop on SIGTERM: killed",
			g_subprocess_get_identifier(process));
		g_subprocess_force_exit(process);
		wait_exit(process, 5000);
	}
	return g_subprocess_get_if_exited(process) ? g_subprocess_get_exit_status(process) : -1;
}

static int
stop(GSubprocess *process)
{
	return stop_after(process, 0);
}

/* seatd owning seat0, its socket ready. */
static GSubprocess *
start_seatd(void)
{
	g_assert_false(g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS));
	g_autofree char *log = log_path("seatd");
	const char *const argv[] = { "seatd", "-g", "root", "-l", "info", NULL };
	GSubprocess *seatd = spawn_logged(argv, log, NULL);
	for (int i = 0; i < 200 && !g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS); i++) {
		if (!g_subprocess_get_identifier(seatd))
			g_error("seatd exited:\n%s", read_log(log));
		umms_test_sleep(50);
	}
	if (!g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS))
		g_error("seatd made no %s in 10 s:\n%s", SEATD_SOCK, read_log(log));
	return seatd;
}

static void
stop_seatd(GSubprocess *seatd)
{
	stop(seatd);
	g_object_unref(seatd);
	/* seatd removes its socket: the next test finds no seat manager. */
	g_assert_false(g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS));
}

/* The real ummsd on the test bus with display.session=@session, its log in @log. */
static GSubprocess *
start_ummsd(const char *session, const char *log, const char *backend)
{
	g_autofree char *set = g_strdup_printf("display.session=%s", session);
	/* Emulated CPUs: GStreamer is far slower than on the host. */
	const char *const argv[] = { umms_test_program("ummsd"), "--address",
		umms_test_bus_address(), "--drm", "--set", set, "--set", "log.level=info",
		"--set", "engine.audio-output=none", "--set", "display.zoom=none",
		"--set", "engine.open-timeout=120000", "--set", "engine.answer-timeout=120000",
		NULL };
	return spawn_logged(argv, log, backend);
}

/* Waits for ummsd's Display1: its bus name comes before the screen is set up. */
static void
wait_display(GDBusConnection *bus, const char *log)
{
	for (int i = 0; i < 600; i++) {
		g_autoptr(GVariant) r = g_dbus_connection_call_sync(bus, UMMS_NAME, DISPLAY,
			"org.freedesktop.DBus.Properties", "GetAll", g_variant_new("(s)", DISPLAY1),
			NULL, G_DBUS_CALL_FLAGS_NONE, 5000, NULL, NULL);
		if (r)
			return;
		umms_test_sleep(100);
	}
	g_error("no %s at %s in 60 s:\n%s", DISPLAY1, DISPLAY, read_log(log));
}

/* Stops ummsd and waits for its name to go: the next test starts a fresh one. */
static void
stop_ummsd(GSubprocess *ummsd, GDBusConnection *bus, const char *log)
{
	gint64 start = g_get_monotonic_time();
	int status = stop(ummsd);
	g_test_message("ummsd stopped in %.1f s", (g_get_monotonic_time() - start) / 1e6);
	if (status != 0)
		g_error("ummsd ended with %d:\n%s", status, read_log(log));
	g_object_unref(ummsd);
	umms_test_wait_name(bus, UMMS_NAME, false);
}

static struct umms_test_image *
capture(GDBusConnection *bus, const char *what)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	g_assert_cmpint(umms_test_image_width(image), ==, W);
	g_assert_cmpint(umms_test_image_height(image), ==, H);
	return image;
}

/* A player showing colors.mkv (320x240, red first) paused, at its size in the middle. */
static char *
show_colors(GDBusConnection *bus)
{
	char *path = umms_test_open(bus, "colors.mkv");
	g_autoptr(GVariant) r = umms_test_call_ok(bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", path));
	umms_test_player_do(bus, path, "Pause", NULL);
	for (int i = 0; i < 400; i++) {
		g_autoptr(GVariant) stats = umms_test_get(bus, path, UMMS_PLAYER, "Stats");
		guint64 displayed = 0;
		g_variant_lookup(stats, "frames-displayed", "t", &displayed);
		if (displayed > 0)
			return path;
		umms_test_sleep(50);
	}
	g_error("no frame of %s reached the screen", path);
}

/* The picture in the middle, black around it. */
static void
assert_colors(GDBusConnection *bus, const char *what)
{
	struct umms_test_image *image = capture(bus, what);
	umms_test_image_assert_pixel(image, W / 2, H / 2, RED, 12, what);
	umms_test_image_assert_pixel(image, (W - 320) / 2, (H - 240) / 2, RED, 12, what);
	umms_test_image_assert_pixel(image, 0, 0, BLACK, 12, what);
	umms_test_image_assert_pixel(image, (W - 320) / 2 - 1, H / 2, BLACK, 12, what);
	umms_test_image_free(image);
}

static void
test_libseat_seatd(void)
{
	GSubprocess *seatd = start_seatd();
	g_autoptr(GDBusConnection) bus = umms_test_connect();
	g_autofree char *log = log_path("libseat-seatd");
	GSubprocess *ummsd = start_ummsd("libseat", log, "seatd");
	umms_test_wait_name(bus, UMMS_NAME, true);
	wait_display(bus, log);
	wait_log(log, "session: seat seat0 through libseat (seatd)", 5000);
	/* Before any video: the screen is lit, black. */
	struct umms_test_image *image = capture(bus, "seatd-black");
	umms_test_image_assert_pixel(image, W / 2, H / 2, BLACK, 12, "seatd-black");
	umms_test_image_free(image);
	g_autofree char *player = show_colors(bus);
	assert_colors(bus, "seatd-colors");
	stop_ummsd(ummsd, bus, log);
	g_autofree char *text = read_log(log);
	g_assert_null(strstr(text, "opening devices directly"));
	stop_seatd(seatd);
}

/*
 * ummsd with display.session=libseat and no seat manager: it stops, saying
 * why; returns what it said.
 */
static char *
assert_no_seat(const char *name, const char *backend, const char *reason)
{
	g_assert_false(g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS));
	g_autofree char *log = log_path(name);
	GSubprocess *ummsd = start_ummsd("libseat", log, backend);
	if (!wait_exit(ummsd, 60000)) {
		stop(ummsd);
		g_error("ummsd kept running without a seat:\n%s", read_log(log));
	}
	g_autofree char *text = read_log(log);
	g_test_message("ummsd said:\n%s", text);
	g_assert_true(g_subprocess_get_if_exited(ummsd));
	g_assert_cmpint(g_subprocess_get_exit_status(ummsd), !=, 0);
	/* The reason, in the sentence ummsd ends with. */
	g_autofree char *last = g_strdup_printf("ummsd: display.session=libseat: %s", reason);
	g_assert_nonnull(strstr(text, last));
	g_assert_nonnull(strstr(text, "seatd or logind"));
	g_assert_null(strstr(text, "through libseat"));
	g_object_unref(ummsd);
	return g_steal_pointer(&text);
}

static void
test_libseat_missing(void)
{
	/* Told to use seatd, which does not run. */
	g_free(assert_no_seat("libseat-seatd-missing", "seatd", "no seat to open devices in"));
	/*
	 * Left to choose, libseat would try seatd, logind, then (as root) a
	 * seatd of its own forked off ummsd: ummsd sees no seat manager runs
	 * and says so before libseat forks (a fork of a process with threads
	 * hung once here); told to use that built-in seatd, the same.
	 */
	const char *reason = "no seat manager (seatd or logind) runs";
	g_autofree char *missing = assert_no_seat("libseat-missing", NULL, reason);
	g_assert_null(strstr(missing, "LeakSanitizer"));
	g_free(assert_no_seat("libseat-builtin", "builtin", reason));
}

static void
test_auto_direct(void)
{
	g_assert_false(g_file_test(SEATD_SOCK, G_FILE_TEST_EXISTS));
	g_autoptr(GDBusConnection) bus = umms_test_connect();
	g_autofree char *log = log_path("auto-direct");
	GSubprocess *ummsd = start_ummsd("auto", log, NULL);
	umms_test_wait_name(bus, UMMS_NAME, true);
	wait_display(bus, log);
	wait_log(log, "session: opening devices directly", 5000);
	g_autofree char *player = show_colors(bus);
	assert_colors(bus, "direct-colors");
	stop_ummsd(ummsd, bus, log);
	g_autofree char *text = read_log(log);
	g_assert_null(strstr(text, "through libseat"));
}

/* Runs busybox chvt @vt; false if it cannot. */
static bool
chvt(int vt)
{
	g_autofree char *arg = g_strdup_printf("%d", vt);
	const char *const argv[] = { "busybox", "chvt", arg, NULL };
	GSubprocess *p = umms_test_spawn(argv);
	/* chvt waits for the switch: for seatd, and seatd for ummsd. */
	bool ok = stop_after(p, 20000) == 0;
	g_object_unref(p);
	return ok;
}

static void
test_vt_switch(void)
{
	if (access("/dev/tty0", R_OK | W_OK) != 0) {
		g_test_skip("no virtual terminals (/dev/tty0) in this VM");
		return;
	}
	GSubprocess *seatd = start_seatd();
	g_autoptr(GDBusConnection) bus = umms_test_connect();
	g_autofree char *log = log_path("vt-switch");
	GSubprocess *ummsd = start_ummsd("libseat", log, "seatd");
	umms_test_wait_name(bus, UMMS_NAME, true);
	wait_display(bus, log);
	wait_log(log, "through libseat (seatd)", 5000);
	g_autofree char *player = show_colors(bus);
	assert_colors(bus, "vt-before");

	/* Away: seatd takes the seat back once ummsd has let go of it. */
	g_assert_true(chvt(2));
	wait_log(log, "disabled (switched away)", 20000);
	wait_log(log, "the seat went to another session", 5000);
	/* The device is not ours meanwhile: a capture (a commit) is refused. */
	GError *error = NULL;
	g_autofree char *away = g_strdup_printf("%s/vt-away.png", umms_test_tmpdir());
	GVariant *r = umms_test_call(bus, DISPLAY, DISPLAY1, "Capture", g_variant_new("(s)", away),
		&error);
	g_assert_null(r);
	g_test_message("capture while away: %s", error->message);
	g_clear_error(&error);

	/* Back: the same picture, set up again from nothing. */
	g_assert_true(chvt(1));
	wait_log(log, "enabled again", 20000);
	wait_log(log, "the seat is back", 5000);
	umms_test_sleep(300);
	assert_colors(bus, "vt-after");
	stop_ummsd(ummsd, bus, log);
	g_autofree char *text = read_log(log);
	g_test_message("ummsd said:\n%s", text);
	stop_seatd(seatd);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	if (access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM (meson test session)");
	g_test_add_func("/session/libseat-seatd", test_libseat_seatd);
	g_test_add_func("/session/libseat-missing", test_libseat_missing);
	g_test_add_func("/session/auto-direct", test_auto_direct);
	g_test_add_func("/session/vt-switch", test_vt_switch);
	return g_test_run();
}
