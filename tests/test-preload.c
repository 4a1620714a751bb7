/*
 * Hardware decoder plugins loaded at start on a thread of their own
 * (engines/gstreamer/gst-preload.c), with the real ummsd binary and
 * a real plugin of class Hardware whose load the test holds open for as long
 * as it likes (tests/slow-plugin/, as nvcodec takes 1.8 s to set up CUDA):
 * meanwhile ummsd answers on the bus, makes a player and takes a SetUri;
 * once the plugin is loaded the clip plays and the log says how long the
 * load took. So with engines in workers, where each worker loads it
 * before it says READY (ummsd itself then loads none). Asked to stop
 * during the load, an in-process ummsd waits for it and exits cleanly. The test's own registry (tests/meson.build) keeps the plugin
 * away from every other test.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <glib/gstdio.h>

#include "harness.h"

/* A bus call the main loop answers at once, unless it is held. */
#define ANSWER_MS 5000

struct slow_start {
	GSubprocess *process;
	char *log;
	char *gate;
};

static void
die_with_parent(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

/*
 * ummsd, with the slow plugin's load held until the gate file exists:
 * in its engine workers (@isolation "worker"), each of which loads it
 * before it says READY, or in ummsd itself ("in-process").
 */
static void
start(struct slow_start *s, const char *name, const char *isolation)
{
	g_autofree char *setting = g_strdup_printf("engine.isolation=%s", isolation);
	g_autofree char *worker = g_strdup_printf("engine.worker=%s", umms_test_engine_worker());
	s->log = g_strdup_printf("%s/%s.log", umms_test_tmpdir(), name);
	s->gate = g_strdup_printf("%s/%s.gate", umms_test_tmpdir(), name);
	g_remove(s->gate);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL, NULL);
	g_subprocess_launcher_set_stderr_file_path(launcher, s->log);
	g_subprocess_launcher_setenv(launcher, "UMMS_TEST_PLUGIN_GATE", s->gate, TRUE);
	g_autoptr(GError) error = NULL;
	s->process = g_subprocess_launcher_spawn(launcher, &error, umms_test_program("ummsd"), "-v",
		"--address", umms_test_bus_address(), "--set", "engine.audio-output=none",
		"--set", "video.enabled=false", "--set", setting, "--set", worker, NULL);
	g_assert_no_error(error);
	umms_test_log_on_failure(s->log);
}

static void
open_gate(struct slow_start *s)
{
	g_autoptr(GError) error = NULL;
	g_file_set_contents(s->gate, "", 0, &error);
	g_assert_no_error(error);
}

static bool
log_has(struct slow_start *s, const char *words)
{
	g_autofree char *text = NULL;
	return g_file_get_contents(s->log, &text, NULL, NULL) && strstr(text, words);
}

/* The number after @words in the log (waits up to 15 s for it). */
static double
log_number_after(struct slow_start *s, const char *words)
{
	for (int i = 0; i < 750; i++) {
		g_autofree char *text = NULL;
		const char *at = NULL;
		if (g_file_get_contents(s->log, &text, NULL, NULL) && (at = strstr(text, words)))
			return g_ascii_strtod(at + strlen(words), NULL);
		umms_test_sleep(20);
	}
	g_error("ummsd's log never said \"%s\"", words);
}

/* Waits up to 15 s for ummsd to end; asserts it ended with status 0. */
static void
wait_exit(struct slow_start *s)
{
	for (int i = 0; i < 750 && g_subprocess_get_identifier(s->process); i++)
		umms_test_sleep(20);
	g_assert_null(g_subprocess_get_identifier(s->process));
	g_assert_true(g_subprocess_get_if_exited(s->process));
	g_assert_cmpint(g_subprocess_get_exit_status(s->process), ==, 0);
}

static void
finish(struct slow_start *s)
{
	g_clear_object(&s->process);
	g_free(s->log);
	g_free(s->gate);
}

/* Manager1.Version within ANSWER_MS, or the test fails: the main loop is free. */
static void
assert_answers(GDBusConnection *bus, const char *when)
{
	gint64 t0 = g_get_monotonic_time();
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, UMMS_NAME, UMMS_ROOT,
		"org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", UMMS_MANAGER, "Version"), NULL, G_DBUS_CALL_FLAGS_NONE,
		ANSWER_MS, NULL, &error);
	if (!reply)
		g_error("%s: ummsd did not answer within %d ms: %s", when, ANSWER_MS,
			error->message);
	g_test_message("%s: answered in %.1f ms", when,
		(double)(g_get_monotonic_time() - t0) / 1000.0);
}

static void
set_uri_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GVariant **reply = data;
	g_autoptr(GError) error = NULL;
	*reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	g_assert_no_error(error);
}

static void
test_off_main_loop(gconstpointer data)
{
	const char *isolation = data;
	struct slow_start s = { 0 };
	g_autofree char *name = g_strdup_printf("load-%s", isolation);
	start(&s, name, isolation);
	GDBusConnection *bus = umms_test_connect();
	umms_test_wait_name(bus, UMMS_NAME, true);
	/* A worker's load begins once the spare is started: not always before the name. */
	log_number_after(&s, "loading hardware decoder plugins: ");
	g_assert_true(log_has(&s, "loading hardware decoder plugins: ummstestslow"));

	/* The plugin is loading (held): the bus is served, a player made, a SetUri taken. */
	assert_answers(bus, "while the plugin loads");
	g_autofree char *player = umms_test_create_player(bus, "{}");
	g_autofree char *uri = umms_test_clip_uri("colors.mkv");
	GVariant *opened = NULL;
	g_dbus_connection_call(bus, UMMS_NAME, player, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, set_uri_done,
		&opened);
	umms_test_sleep(300);
	assert_answers(bus, "with a SetUri in flight");
	g_assert_false(log_has(&s, "hardware decoder plugins loaded in"));

	/* Loaded: the SetUri completes, the clip plays, the log says how long it took. */
	open_gate(&s);
	for (int i = 0; i < 750 && !opened; i++)
		umms_test_sleep(20);
	g_assert_nonnull(opened);
	g_variant_unref(opened);
	umms_test_player_do(bus, player, "Play", NULL);
	umms_test_wait_position(bus, player, 1, false, 10000);
	double ms = log_number_after(&s, "hardware decoder plugin ummstestslow loaded in ");
	g_test_message("the held plugin loaded in %.0f ms", ms);
	g_assert_cmpfloat(ms, >=, 300);

	g_subprocess_send_signal(s.process, SIGTERM);
	wait_exit(&s);
	umms_test_wait_name(bus, UMMS_NAME, false);
	g_object_unref(bus);
	finish(&s);
}

static void
test_exit_while_loading(void)
{
	struct slow_start s = { 0 };
	start(&s, "exit", "in-process");
	GDBusConnection *bus = umms_test_connect();
	umms_test_wait_name(bus, UMMS_NAME, true);
	/* Its main loop runs: SIGTERM is its to handle. */
	assert_answers(bus, "while the plugin loads");
	/* Asked to stop during the load: it waits for the load, then exits cleanly. */
	g_subprocess_send_signal(s.process, SIGTERM);
	umms_test_wait_name(bus, UMMS_NAME, false);
	umms_test_sleep(300);
	g_assert_nonnull(g_subprocess_get_identifier(s.process));
	g_assert_false(log_has(&s, "hardware decoder plugins loaded in"));
	open_gate(&s);
	wait_exit(&s);
	g_assert_true(log_has(&s, "hardware decoder plugins loaded in"));
	g_object_unref(bus);
	finish(&s);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_data_func("/preload/off-main-loop", "in-process", test_off_main_loop);
	g_test_add_data_func("/preload/off-main-loop-workers", "worker", test_off_main_loop);
	g_test_add_func("/preload/exit-while-loading", test_exit_while_loading);
	return g_test_run();
}
