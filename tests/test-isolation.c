/*
 * Crash isolation (issue 15): each player's engine runs in an umms-engine
 * process of its own. A source that crashes, wedges or eats memory in one
 * player (tests/fault-plugin/: umms-fault:// URIs) must end that player's
 * media with org.umms.Error.EngineCrashed or EngineHung and a sentence,
 * while the other players keep presenting frames (no gap over 1 s) and a
 * recording running meanwhile stays whole; the failed player then plays
 * the next URI it is given. No engine process is left behind.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/gst.h>

#include "harness.h"
#include "sources.h"

#define RECORDER1 "org.umms.Recorder1"
#define RECORDING1 "org.umms.Recording1"
#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

/* With no spare kept, no player: no engine process, and no zombie. */
static void
assert_no_workers_left(struct umms_test *t)
{
	const char *const overrides[] = { "engine.spare-workers=0", NULL };
	umms_test_restart(t, overrides);
	unsigned zombies = 0, n = 0;
	for (int i = 0; i < 100; i++) {
		n = umms_test_engine_children(&zombies, 0, NULL);
		if (n == 0)
			break;
		umms_test_sleep(50);
	}
	g_assert_cmpuint(zombies, ==, 0);
	g_assert_cmpuint(n, ==, 0);
}

static char *
play(struct umms_test *t, const char *clip)
{
	char *player = umms_test_open(t->bus, clip);
	umms_test_player_do(t->bus, player, "Play", NULL);
	return player;
}

struct error_watch {
	char *name, *message;
	guint id;
};

static void
error_cb(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	struct error_watch *watch = data;
	if (watch->name)
		return;
	g_variant_get(params, "(ss)", &watch->name, &watch->message);
}

static void
watch_errors(struct umms_test *t, const char *player, struct error_watch *watch)
{
	memset(watch, 0, sizeof(*watch));
	watch->id = g_dbus_connection_signal_subscribe(t->bus, NULL, UMMS_PLAYER, "Error",
		player, NULL, G_DBUS_SIGNAL_FLAGS_NONE, error_cb, watch, NULL);
}

static void
unwatch_errors(struct umms_test *t, struct error_watch *watch)
{
	g_dbus_connection_signal_unsubscribe(t->bus, watch->id);
	g_free(watch->name);
	g_free(watch->message);
}

/*
 * Waits up to @ms for @watch's Error, checking every 100 ms that each of
 * @others presented a frame within the last second. Returns the wait in ms.
 */
static double
wait_error_others_playing(struct umms_test *t, struct error_watch *watch, char **others,
	unsigned ms)
{
	guint n = g_strv_length(others);
	g_autofree guint64 *last = g_new0(guint64, n);
	g_autofree gint64 *since = g_new0(gint64, n);
	gint64 start = g_get_monotonic_time();
	for (guint i = 0; i < n; i++) {
		last[i] = umms_test_stat(t->bus, others[i], "frames-presented");
		since[i] = start;
	}
	double took = -1;
	/* Until the error and one more second: the others go on afterwards too. */
	while (g_get_monotonic_time() - start < (gint64)ms * 1000) {
		umms_test_sleep(100);
		gint64 now = g_get_monotonic_time();
		for (guint i = 0; i < n; i++) {
			guint64 presented = umms_test_stat(t->bus, others[i], "frames-presented");
			if (presented > last[i]) {
				last[i] = presented;
				since[i] = now;
			}
			if (now - since[i] > G_USEC_PER_SEC)
				g_error("%s presented nothing for %.1f s", others[i],
					(double)(now - since[i]) / 1e6);
		}
		if (watch->name && took < 0)
			took = (double)(now - start) / 1000;
		if (took >= 0 && now - start > (gint64)(took + 1000) * 1000)
			break;
	}
	g_assert_nonnull(watch->name);
	return took;
}

/* A live stream recorded while the faults happen. */
struct recording {
	GstElement *sender;
	char *path;
	gint64 started;
};

static void
recording_start(struct umms_test *t, struct recording *rec)
{
	int port = umms_test_free_udp_port();
	rec->sender = umms_test_live_udp_start(port, 5, NULL);
	g_autofree char *uri = g_strdup_printf("udp://127.0.0.1:%d", port);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, RECORDER1, "Record",
		g_variant_new("(ss@a{sv})", uri, "isolation.mkv",
			g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL, 0)));
	g_variant_get(r, "(o)", &rec->path);
	/*
	 * Timed from its first bytes: its own engine worker starts first (a
	 * second or more in a sanitizer build on a loaded machine).
	 */
	for (int i = 0; i < 200; i++) {
		g_autoptr(GVariant) bytes = umms_test_get(t->bus, rec->path, RECORDING1,
			"BytesWritten");
		if (g_variant_get_uint64(bytes) > 0)
			break;
		umms_test_sleep(50);
	}
	rec->started = g_get_monotonic_time();
}

/* Stops it; its file must play, as long as the recording ran (±1.5 s). */
static void
recording_check(struct umms_test *t, struct recording *rec)
{
	g_autoptr(GVariant) state = umms_test_get(t->bus, rec->path, RECORDING1, "State");
	g_assert_cmpstr(g_variant_get_string(state, NULL), ==, "recording");
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, rec->path, RECORDING1, "Cancel", NULL);
	double seconds = (double)(g_get_monotonic_time() - rec->started) / 1e6;
	for (int i = 0; i < 200; i++) {
		g_autoptr(GVariant) s = umms_test_get(t->bus, rec->path, RECORDING1, "State");
		if (strcmp(g_variant_get_string(s, NULL), "recording") != 0)
			break;
		umms_test_sleep(50);
	}
	umms_test_live_udp_stop(rec->sender);
	g_autoptr(GVariant) dest = umms_test_get(t->bus, rec->path, RECORDING1, "Destination");
	g_autofree char *uri = gst_filename_to_uri(g_variant_get_string(dest, NULL), NULL);
	g_autofree char *player = umms_test_create_player(t->bus, "{}");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	int64_t duration = umms_test_get_int64(t->bus, player, "Duration");
	g_test_message("recorded %.2f s in %.2f s", (double)duration / 1e6, seconds);
	g_assert_true(umms_test_get_bool(t->bus, player, "HasVideo"));
	g_assert_cmpint(duration, >=, US(seconds - 1.5));
	g_assert_cmpint(duration, <=, US(seconds + 1.5));
	/* It plays to its end. */
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)",
		MAX(0, duration - US(0.5))));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 10000);
	g_free(rec->path);
}

/* The player that failed plays the next URI, in a fresh worker. */
static void
plays_again(struct umms_test *t, const char *player, pid_t old_pid)
{
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_position(t->bus, player, US(1), false, 10000);
	pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(pid, !=, old_pid);
}

static void
fault_among_others(struct umms_test *t, const char *fault, const char *error_name,
	const char *words, unsigned within_ms)
{
	g_auto(GStrv) others = g_new0(char *, 3);
	others[0] = play(t, "long.mkv");
	others[1] = play(t, "long.mkv");
	struct recording rec;
	recording_start(t, &rec);
	g_autofree char *victim = play(t, "long.mkv");
	umms_test_wait_position(t->bus, victim, US(0.5), false, 10000);
	pid_t old_pid = (pid_t)umms_test_stat(t->bus, victim, "engine-pid");

	struct error_watch watch;
	watch_errors(t, victim, &watch);
	g_autofree char *uri = g_strdup_printf("umms-fault://%s?after=25", fault);
	umms_test_player_do(t->bus, victim, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, victim, "Play", NULL);
	double took = wait_error_others_playing(t, &watch, others, within_ms);
	g_test_message("%s: %s after %.0f ms: %s", fault, watch.name, took, watch.message);
	g_assert_cmpstr(watch.name, ==, error_name);
	g_assert_nonnull(strstr(watch.message, words));
	g_assert_nonnull(strstr(watch.message, uri));
	unwatch_errors(t, &watch);
	g_autofree char *state = umms_test_get_string(t->bus, victim, "State");
	g_assert_cmpstr(state, ==, "stopped");
	g_assert_cmpuint(umms_test_stat(t->bus, victim, "engine-pid"), ==, 0);
	/* The others never noticed. */
	for (int i = 0; others[i]; i++) {
		g_autofree char *s = umms_test_get_string(t->bus, others[i], "State");
		g_assert_cmpstr(s, ==, "playing");
	}
	recording_check(t, &rec);
	plays_again(t, victim, old_pid);
}

static void
test_crash(struct umms_test *t, gconstpointer data)
{
	fault_among_others(t, "crash", "org.umms.Error.EngineCrashed", "SIGSEGV", 8000);
	assert_no_workers_left(t);
}

static void
test_hang(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.hang-timeout=1000", NULL };
	umms_test_restart(t, overrides);
	/* One second of frames, then the hang-timeout, then at most a second more. */
	fault_among_others(t, "hang", "org.umms.Error.EngineHung", "stopped answering",
		1000 + 1000 + 1000 + 3000);
	assert_no_workers_left(t);
}

/*
 * A paused worker is left alone (issue 19: nothing wakes while paused): one
 * wedged (SIGSTOP) while paused goes unnoticed for many hang-timeouts, and
 * is found out by the next request, which fails with EngineHung within the
 * hang-timeout; the player then plays the next URI.
 */
static void
test_hang_paused(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.hang-timeout=200", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *player = play(t, "long.mkv");
	umms_test_wait_position(t->bus, player, US(0.5), false, 10000);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("paused"), 5000);
	umms_test_sleep(500);   /* what settling the pause asked of the worker is answered */
	pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpint(pid, >, 0);

	struct error_watch watch;
	watch_errors(t, player, &watch);
	g_assert_cmpint(kill(pid, SIGSTOP), ==, 0);
	/* Pinged while paused, it would be killed 200 ms (and a watch period) from now. */
	umms_test_sleep(1500);
	g_assert_null(watch.name);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "paused");
	g_assert_cmpint(umms_test_stat(t->bus, player, "engine-pid"), ==, pid);

	/* Play is a request: watched again, it is found out within the hang-timeout. */
	gint64 start = g_get_monotonic_time();
	g_dbus_connection_call(t->bus, UMMS_NAME, player, UMMS_PLAYER, "Play", NULL, NULL,
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
	for (int i = 0; i < 100 && !watch.name; i++)
		umms_test_sleep(50);
	g_test_message("a paused worker wedged: %s %.0f ms after Play: %s", watch.name,
		(double)(g_get_monotonic_time() - start) / 1000, watch.message);
	g_assert_cmpstr(watch.name, ==, "org.umms.Error.EngineHung");
	g_assert_nonnull(strstr(watch.message, "stopped answering"));
	unwatch_errors(t, &watch);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 2000);
	plays_again(t, player, pid);
	assert_no_workers_left(t);
}

static void
test_leak(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.worker-memory-max=800", NULL };
	umms_test_restart(t, overrides);
	fault_among_others(t, "leak", "org.umms.Error.EngineCrashed", "memory", 10000);
	assert_no_workers_left(t);
}

/*
 * The engine really runs elsewhere: another process, whose frames reach
 * the screen as fds (never copied); killing it from outside is a crash too.
 */
static void
test_process(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=320x240", "display.compositor=false",
		"display.input=false", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *player = play(t, "colors.mkv");
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(pid, !=, getpid());
	for (int i = 0; i < 100 && umms_test_stat(t->bus, player, "frames-displayed") < 10; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "frames-displayed"), >=, 10);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "copies"), ==, 0);

	/* SIGKILL from outside (the OOM killer, say): EngineCrashed, naming the signal. */
	struct error_watch watch;
	watch_errors(t, player, &watch);
	g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
	for (int i = 0; i < 100 && !watch.name; i++)
		umms_test_sleep(50);
	g_assert_cmpstr(watch.name, ==, "org.umms.Error.EngineCrashed");
	g_assert_nonnull(strstr(watch.message, "SIGKILL"));
	unwatch_errors(t, &watch);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("stopped"), 2000);
	/* Play without a new URI: there is none to play. */
	g_autofree char *message = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.InvalidState");
	plays_again(t, player, pid);
	assert_no_workers_left(t);
}

/*
 * A worker killed while ummsd sends it requests (a volume change at every
 * moment here): its socket hangs up a moment before it can be reaped, and
 * the error still names the signal, not the hang-up. Five times over.
 */
static void
test_kill_named(struct umms_test *t, gconstpointer data)
{
	for (int round = 0; round < 5; round++) {
		g_autofree char *player = play(t, "colors.mkv");
		umms_test_wait_position(t->bus, player, US(0.2), false, 10000);
		pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
		g_assert_cmpint(pid, >, 0);
		g_assert_cmpint(pid, !=, getpid());
		struct error_watch watch;
		watch_errors(t, player, &watch);
		for (int i = 0; i < 400; i++) {
			if (i == 200)
				g_assert_cmpint(kill(pid, SIGKILL), ==, 0);
			g_dbus_connection_call(t->bus, UMMS_NAME, player,
				"org.freedesktop.DBus.Properties", "Set", g_variant_new("(ssv)",
					UMMS_PLAYER, "Volume", g_variant_new_double((i % 100) / 100.0)),
				NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
		}
		for (int i = 0; i < 200 && !watch.name; i++)
			umms_test_sleep(50);
		g_test_message("round %d: %s: %s", round, watch.name, watch.message);
		g_assert_cmpstr(watch.name, ==, "org.umms.Error.EngineCrashed");
		g_assert_nonnull(strstr(watch.message, "SIGKILL"));
		unwatch_errors(t, &watch);
	}
}

/* utime + stime of @pid, in clock ticks. */
static unsigned long long
cpu_ticks(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int)pid);
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	const char *close = strrchr(text, ')');
	unsigned long long user = 0, sys = 0;
	/* After "pid (comm)": state, then fields 4 to 13, then utime and stime. */
	if (!close || sscanf(close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			&user, &sys) != 2)
		return 0;
	return user + sys;
}

/*
 * The spare worker (the one worker but @busy) once its warm-up is over
 * (worker-warm-up.h): one thread left and no CPU spent for a second. Its pid.
 */
static pid_t
warm_spare(pid_t busy)
{
	unsigned zombies, idle = 0;
	unsigned long long last = 0;
	pid_t spare = 0;
	/* Seconds under emulation or sanitizers; a minute at most. */
	for (int i = 0; i < 240 && idle < 4; i++) {
		umms_test_sleep(250);
		pid_t now = 0;
		umms_test_engine_children(&zombies, busy, &now);
		if (!now || now != spare) {
			spare = now;
			idle = 0;
			continue;
		}
		g_autofree char *threads = umms_test_proc_status(spare, "Threads");
		unsigned long long ticks = cpu_ticks(spare);
		idle = strcmp(threads, "1") == 0 && ticks == last ? idle + 1 : 0;
		last = ticks;
	}
	g_assert_cmpint(spare, >, 0);
	g_assert_cmpuint(idle, ==, 4);
	return spare;
}

/*
 * What a worker's source could open, as umms-fault://open says in the
 * Error it ends with: "open PATH: opened" or the errno's sentence.
 */
static char *
open_from_worker(struct umms_test *t, const char *path)
{
	g_autofree char *escaped = g_uri_escape_string(path, "/", FALSE);
	g_autofree char *uri = g_strdup_printf("umms-fault://open?after=10&path=%s", escaped);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct error_watch watch;
	watch_errors(t, player, &watch);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	for (int i = 0; i < 200 && !watch.name; i++)
		umms_test_sleep(50);
	g_assert_nonnull(watch.message);
	g_test_message("%s", watch.message);
	char *message = g_strdup(watch.message);
	unwatch_errors(t, &watch);
	return message;
}

/*
 * Landlock: a sandboxed worker opens no file ummsd did not give it, however
 * readable (a file beside the test's clips), but reads the user's fonts
 * ($XDG_DATA_HOME/fonts: subtitles are drawn in the worker); with
 * [engine] landlock = false it opens any, still under seccomp; with the
 * sandbox off it can too. Playing local files, subtitle files and the
 * time-shift ring inside it is what the worker-sandbox, subtitles and
 * timeshift tests check.
 */
static void
test_landlock(struct umms_test *t, gconstpointer data)
{
	if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) <= 0) {
		g_test_skip("this kernel has no Landlock");
		return;
	}
	g_autofree char *secret = g_build_filename(umms_test_tmpdir(), "not-given.txt", NULL);
	g_assert_true(g_file_set_contents(secret, "private", -1, NULL));
	g_autofree char *sandboxed = open_from_worker(t, secret);
	g_assert_nonnull(strstr(sandboxed, g_strerror(EACCES)));
	/* A clip the player is not playing: not given either. */
	g_autofree char *clip = open_from_worker(t, umms_test_clip("av.mkv"));
	g_assert_nonnull(strstr(clip, g_strerror(EACCES)));
	g_autofree char *fonts = g_build_filename(g_get_user_data_dir(), "fonts", NULL);
	g_assert_cmpint(g_mkdir_with_parents(fonts, 0700), ==, 0);
	g_autofree char *font = g_build_filename(fonts, "umms-test.ttf", NULL);
	g_assert_true(g_file_set_contents(font, "not really a font", -1, NULL));
	g_autofree char *font_read = open_from_worker(t, font);
	g_assert_nonnull(strstr(font_read, "opened"));

	/* Landlock off on its own: any readable file, seccomp still in force. */
	const char *const no_landlock[] = { "engine.landlock=false", NULL };
	umms_test_restart(t, no_landlock);
	g_autofree char *unlocked = open_from_worker(t, secret);
	g_assert_nonnull(strstr(unlocked, "opened"));
	g_autofree char *player = play(t, "colors.mkv");
	umms_test_wait_position(t->bus, player, US(0.2), false, 10000);
	pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(pid, !=, getpid());
	g_autofree char *seccomp = umms_test_proc_status(pid, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "2");

	const char *const overrides[] = { "engine.sandbox=false", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *open = open_from_worker(t, secret);
	g_assert_nonnull(strstr(open, "opened"));
}

/*
 * The tests' own elements pass a worker's sandbox only because the harness
 * names their plugins in [engine] sandbox-elements: with it empty, as by
 * default, umms-fault:// is nothing a worker can play, and nothing crashes.
 */
static void
test_sandbox_elements(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.sandbox-elements=", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct error_watch watch;
	watch_errors(t, player, &watch);
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) r = g_dbus_connection_call_sync(t->bus, UMMS_NAME, player,
		UMMS_PLAYER, "SetUri", g_variant_new("(s)", "umms-fault://crash?after=5"), NULL,
		G_DBUS_CALL_FLAGS_NONE, 60000, NULL, &error);
	if (r) {
		umms_test_player_do(t->bus, player, "Play", NULL);
		for (int i = 0; i < 100 && !watch.name; i++)
			umms_test_sleep(50);
	}
	g_autofree char *name = error ? g_dbus_error_get_remote_error(error) :
		g_strdup(watch.name);
	g_test_message("%s: %s", name, error ? error->message : watch.message);
	g_assert_nonnull(name);
	g_assert_cmpstr(name, !=, "org.umms.Error.EngineCrashed");
	unwatch_errors(t, &watch);
}

/*
 * A spare that warmed up (it plays a clip of its own to the first frame
 * while it waits) is taken by the next SetUri as it is: that player shows
 * frames, without copies, from inside the sandbox, Landlock included; the
 * warm-up's threads were gone in time.
 */
static void
test_warm_spare(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=320x240", "display.compositor=false",
		"display.input=false", NULL };
	umms_test_restart(t, overrides);
	pid_t spare = warm_spare(0);
	g_autofree char *player = play(t, "colors.mkv");
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	g_assert_cmpint((pid_t)umms_test_stat(t->bus, player, "engine-pid"), ==, spare);
	for (int i = 0; i < 100 && umms_test_stat(t->bus, player, "frames-displayed") < 10; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "frames-displayed"), >=, 10);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "copies"), ==, 0);
	g_autofree char *seccomp = umms_test_proc_status(spare, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "2");

	if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) <= 0) {
		g_test_skip("this kernel has no Landlock: the next spare's files are not checked");
		return;
	}
	/* The next spare, warmed up too: its files are as few as ever. */
	g_autofree char *secret = g_build_filename(umms_test_tmpdir(), "not-given.txt", NULL);
	g_assert_true(g_file_set_contents(secret, "private", -1, NULL));
	pid_t next = warm_spare(spare);
	g_assert_cmpint(next, !=, spare);
	g_autofree char *sandboxed = open_from_worker(t, secret);
	g_assert_nonnull(strstr(sandboxed, g_strerror(EACCES)));
}

/* Whether process @pid has the GStreamer plugin file @name mapped. */
static bool
maps_plugin(pid_t pid, const char *name)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/maps", pid);
	g_autofree char *maps = NULL;
	g_assert_true(g_file_get_contents(path, &maps, NULL, NULL));
	g_autofree char *needle = g_strdup_printf("/gstreamer-1.0/%s\n", name);
	return strstr(maps, needle) != NULL;
}

/*
 * Workers come from the fork server ([engine] fork-server, worker/zygote.h),
 * as children of ummsd (here, of this program), sandboxed as any; killing
 * the server stops no player, a new SetUri still plays (by exec meanwhile),
 * and a new server is started, whose workers are forked again. With
 * fork-server = false there is none and workers are exec'd.
 */
static void
test_fork_server(struct umms_test *t, gconstpointer data)
{
	pid_t server = umms_test_fork_server(0);
	g_assert_cmpint(server, >, 0);
	/* The spare, forked once the server is ready. */
	pid_t spare = warm_spare(0);
	g_assert_true(umms_test_worker_forked(spare));
	/*
	 * With libav loaded ahead by the server (the first H.264 frame does
	 * not wait for it), and MP4's demuxer; not the plugins of formats
	 * umms plays that come seldom (FLV, AVI, HLS and DASH's demuxers):
	 * the worker that meets one loads it (worker-warm-up.c).
	 */
	g_assert_true(maps_plugin(spare, "libgstlibav.so"));
	g_assert_true(maps_plugin(spare, "libgstisomp4.so"));
	g_assert_false(maps_plugin(spare, "libgstflv.so"));
	g_assert_false(maps_plugin(spare, "libgstavi.so"));
	g_assert_false(maps_plugin(spare, "libgstadaptivedemux2.so"));
	g_autofree char *first = play(t, "long.mkv");
	umms_test_wait_position(t->bus, first, US(0.5), false, 10000);
	pid_t pid = (pid_t)umms_test_stat(t->bus, first, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_true(umms_test_worker_forked(pid));
	g_autofree char *seccomp = umms_test_proc_status(pid, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "2");
	g_autofree char *ppid = umms_test_proc_status(pid, "PPid");
	g_assert_cmpint(atoi(ppid), ==, getpid());

	g_assert_cmpint(kill(server, SIGKILL), ==, 0);
	umms_test_wait_position(t->bus, first, US(2), false, 10000);
	g_autofree char *state = umms_test_get_string(t->bus, first, "State");
	g_assert_cmpstr(state, ==, "playing");
	g_assert_cmpint((pid_t)umms_test_stat(t->bus, first, "engine-pid"), ==, pid);
	g_autofree char *second = play(t, "long.mkv");
	umms_test_wait_position(t->bus, second, US(0.5), false, 10000);
	pid_t second_pid = (pid_t)umms_test_stat(t->bus, second, "engine-pid");
	g_assert_cmpint(second_pid, >, 0);
	g_assert_cmpint(second_pid, !=, pid);

	/*
	 * Started again (5 s after the last start at most) and forking again.
	 * The third SetUri may take a spare exec'd while there was no server;
	 * the fourth's worker is forked (or waits for the server to be ready).
	 */
	pid_t again = umms_test_fork_server(server);
	g_assert_cmpint(again, >, 0);
	g_autofree char *third = play(t, "long.mkv");
	g_autofree char *fourth = play(t, "long.mkv");
	umms_test_wait_position(t->bus, fourth, US(0.5), false, 10000);
	pid_t fourth_pid = (pid_t)umms_test_stat(t->bus, fourth, "engine-pid");
	g_assert_cmpint(fourth_pid, >, 0);
	g_assert_true(umms_test_worker_forked(fourth_pid));
	umms_test_wait_position(t->bus, third, US(0.5), false, 10000);

	const char *const overrides[] = { "engine.fork-server=false", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *exec = play(t, "long.mkv");
	umms_test_wait_position(t->bus, exec, US(0.5), false, 10000);
	g_assert_false(umms_test_worker_forked((pid_t)umms_test_stat(t->bus, exec, "engine-pid")));
	g_assert_cmpint(umms_test_fork_server(0), ==, 0);
	assert_no_workers_left(t);
}

/* A live engine worker but @busy now (the last found), or 0. */
static pid_t
worker_but(pid_t busy)
{
	unsigned zombies = 0;
	pid_t other = 0;
	umms_test_engine_children(&zombies, busy, &other);
	return other;
}

/*
 * The next spare waits while a player plays ([engine] spare-while-playing
 * = false): its start and its memory would come beside the video. It
 * starts once the player pauses; with spare-while-playing = true it starts
 * a second after the SetUri, playing or not.
 */
static void
test_spare_after_playing(struct umms_test *t, gconstpointer data)
{
	umms_test_restart(t, NULL);
	pid_t spare = warm_spare(0);
	g_autofree char *player = play(t, "long.mkv");
	g_assert_cmpint((pid_t)umms_test_stat(t->bus, player, "engine-pid"), ==, spare);
	/* Well past the second after SetUri when it would have started. */
	umms_test_wait_position(t->bus, player, US(3), false, 15000);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");
	g_assert_cmpint(worker_but(spare), ==, 0);

	umms_test_player_do(t->bus, player, "Pause", NULL);
	pid_t next = warm_spare(spare);
	g_assert_cmpint(next, !=, spare);
	/* Playing again: the spare it now has stays. */
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_sleep(500);
	g_assert_cmpint(worker_but(spare), ==, next);

	const char *const overrides[] = { "engine.spare-while-playing=true", NULL };
	umms_test_restart(t, overrides);
	spare = warm_spare(0);
	g_autofree char *again = play(t, "long.mkv");
	g_assert_cmpint((pid_t)umms_test_stat(t->bus, again, "engine-pid"), ==, spare);
	next = warm_spare(spare);
	g_assert_cmpint(next, !=, spare);
	g_autofree char *still = umms_test_get_string(t->bus, again, "State");
	g_assert_cmpstr(still, ==, "playing");
}

/*
 * A software decoder's threads ([engine] decoder-threads): by default one
 * for a picture up to 1080p30 (no frame threads beside the streaming
 * thread: less CPU and memory than one per core), four when set to 4.
 */
static void
test_decoder_threads(struct umms_test *t, gconstpointer data)
{
	static const char *const settings[] = { "engine.decoder-threads=0",
		"engine.decoder-threads=4" };
	unsigned threads[G_N_ELEMENTS(settings)];
	for (size_t i = 0; i < G_N_ELEMENTS(settings); i++) {
		const char *const overrides[] = { settings[i], NULL };
		umms_test_restart(t, overrides);
		g_autofree char *player = play(t, "long.mkv");
		umms_test_wait_position(t->bus, player, US(1), false, 15000);
		umms_test_player_do(t->bus, player, "Pause", NULL);
		pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
		g_assert_cmpint(pid, >, 0);
		g_autofree char *count = umms_test_proc_status(pid, "Threads");
		threads[i] = (unsigned)atoi(count);
	}
	g_test_message("the player's worker: %u threads by default, %u with decoder-threads=4",
		threads[0], threads[1]);
	g_assert_cmpuint(threads[1], >=, threads[0] + 3);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/isolation/process", test_process);
	UMMS_TEST_ADD("/isolation/kill-named", test_kill_named);
	UMMS_TEST_ADD("/isolation/crash", test_crash);
	UMMS_TEST_ADD("/isolation/hang", test_hang);
	UMMS_TEST_ADD("/isolation/hang-paused", test_hang_paused);
	UMMS_TEST_ADD("/isolation/leak", test_leak);
	UMMS_TEST_ADD("/isolation/landlock", test_landlock);
	UMMS_TEST_ADD("/isolation/sandbox-elements", test_sandbox_elements);
	UMMS_TEST_ADD("/isolation/warm-spare", test_warm_spare);
	UMMS_TEST_ADD("/isolation/fork-server", test_fork_server);
	UMMS_TEST_ADD("/isolation/spare-after-playing", test_spare_after_playing);
	UMMS_TEST_ADD("/isolation/decoder-threads", test_decoder_threads);
	return g_test_run();
}
