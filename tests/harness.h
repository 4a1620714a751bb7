/*
 * The one test harness: a private D-Bus session bus (a real dbus-daemon),
 * ummsd running in-process on a thread of its own (or the real binary as a
 * child process), clips generated at build time, and helpers that drive the
 * service the way a client would and assert on what a client sees.
 *
 * Every test program calls umms_test_init() first: it starts the bus (one
 * per program), points DBUS_SESSION_BUS_ADDRESS at it and reads the clip
 * folder. Test functions use the fixture (struct umms_test) through
 * UMMS_TEST_ADD, which starts a fresh service for each test and checks after
 * it that the service shut down without leaving players behind.
 */
#ifndef UMMS_TESTS_HARNESS_H
#define UMMS_TESTS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <gio/gio.h>
#include <gst/gst.h>

#include "config.h"

#define UMMS_NAME "org.umms.Service1"
#define UMMS_ROOT "/org/umms"
#define UMMS_MANAGER "org.umms.Manager1"
#define UMMS_PLAYER "org.umms.Player1"

/* Default time a helper waits before failing the test. */
#define UMMS_TEST_TIMEOUT_MS 15000
/*
 * [engine] sandbox-elements of every ummsd the harness starts: the plugins
 * of the tests' own elements (fault-plugin/, media-plugin/, hw-plugin/,
 * slow-plugin/), which a worker's sandbox allows only so.
 */
#define UMMS_TEST_SANDBOX_ELEMENTS "ummstestfault,ummstestmedia,ummstesthw,ummstestslow"

/* ummsd running inside the test program. */
struct umms_test_service;

struct umms_test {
	struct umms_test_service *service;
	GDBusConnection *bus;      /* the test's own client connection */
};

/* Parses test options, starts the bus. */
void umms_test_init(int *argc, char ***argv);
/*
 * Every ummsd this program starts decodes inside itself
 * (engine.isolation=in-process), for the reason @why, said in the log: a
 * path that does not work through a worker yet. Test elements belong in a
 * plugin on GST_PLUGIN_PATH (media-plugin/), which workers load too.
 */
void umms_test_engines_in_process(const char *why);
/*
 * A program's own option "@prefix VALUE" (@prefix ends in "="), taken out
 * of argv before umms_test_init() sees it: VALUE, or NULL if not given.
 */
const char *umms_test_take_option(int *argc, char **argv, const char *prefix);
const char *umms_test_bus_address(void);

/*
 * A generated clip: $UMMS_TEST_CLIPS/name; fails the test if missing. Also
 * for a program that needs no bus, without umms_test_init().
 */
const char *umms_test_clip(const char *name);
/* file:// URI of a clip (static storage per call site is not kept: free it). */
char *umms_test_clip_uri(const char *name);
/*
 * Children of @launcher run without LeakSanitizer's check (under ASan; else
 * nothing changes), for a program whose libraries leave what LeakSanitizer
 * can neither name nor suppress. Say why where it is used.
 */
void umms_test_launcher_no_leak_check(GSubprocessLauncher *launcher);
/* UMMS_TEST_LONG is set: randomized tests run their long campaign, not the CI one. */
bool umms_test_long(void);
/* The seed of randomized tests: UMMS_TEST_SEED, else a random one (print it). */
guint32 umms_test_seed(void);
/* Whether reference pictures (tests/data/) are to be written anew, not only compared. */
bool umms_test_write_reference(void);
/* A scratch folder for this test program, removed at exit. */
const char *umms_test_tmpdir(void);
/*
 * Prints the end of the file at @path to stderr if the test aborts (a
 * failed assertion, g_error): the log of a program the test started.
 */
void umms_test_log_on_failure(const char *path);

/*
 * In-process ummsd with the test defaults (engine.audio-output=none, MPRIS
 * on) plus @overrides: NULL-terminated "section.key=value" strings.
 */
struct umms_test_service *umms_test_service_start(const char *const *overrides);
/* Stops it; asserts it shut down cleanly. */
void umms_test_service_stop(struct umms_test_service *service);

/* The real ummsd binary as a child process on the test bus. */
GSubprocess *umms_test_spawn_ummsd(const char *const *extra_args);
/* The same with @env changed ("NAME=value" sets, "NAME" unsets) and @flags (pipes). */
GSubprocess *umms_test_spawn_ummsd_env(const char *const *extra_args, const char *const *env,
	GSubprocessFlags flags);
/* Waits until org.umms.Service1 has an owner (or @present false: none). */
void umms_test_wait_name(GDBusConnection *bus, const char *name, bool present);
/*
 * Runs ummsctl with the NULL-terminated arguments against the test's bus
 * (its environment), asserts it exits 0 and returns what it printed.
 */
char *umms_test_ummsctl(const char *first, ...) G_GNUC_NULL_TERMINATED;
/* Path of a program built by this project (ummsd, ummsctl). */
const char *umms_test_program(const char *name);
/*
 * The engine worker just built (engine.worker for an ummsd of the tests),
 * through a script that gives it ASan's fast unwinder
 * (tests/umms-engine-fast-unwind); NULL outside meson.
 */
const char *umms_test_engine_worker(void);
/* The build and source folders of the project. */
const char *umms_test_build_root(void);
const char *umms_test_source_root(void);
/* Spawns argv as a child that dies with the test program. */
GSubprocess *umms_test_spawn(const char *const *argv);

/* A new client connection to the test bus (one per simulated application). */
GDBusConnection *umms_test_connect(void);

/* Calls a method; returns the reply, or NULL with @error. 130 s timeout. */
GVariant *umms_test_call(GDBusConnection *bus, const char *path, const char *iface,
	const char *method, GVariant *params, GError **error);
/* Calls and asserts success. */
GVariant *umms_test_call_ok(GDBusConnection *bus, const char *path, const char *iface,
	const char *method, GVariant *params);
/* Calls and asserts the D-Bus error @name; returns the error message. */
char *umms_test_call_error(GDBusConnection *bus, const char *path, const char *iface,
	const char *method, GVariant *params, const char *name);

/* Calls a Player1 method on @path, asserts success, drops the reply. */
void umms_test_player_do(GDBusConnection *bus, const char *path, const char *method,
	GVariant *params);

/* Creates a player with options in GVariant text form, e.g. "{'attended': <false>}". */
char *umms_test_create_player(GDBusConnection *bus, const char *options);
/* Creates a player and opens @clip in it (SetUri). */
char *umms_test_open(GDBusConnection *bus, const char *clip);

/* "a,b": the object paths in a Resources1 pool's @field ("holders", "waiting"). */
char *umms_test_pool_names(GVariant *pool, const char *field);
/*
 * Waits until @pool (a Resources1 pool, looked up anew each time) names
 * @want ("a,b") as its holders; fails naming @what after @timeout_ms.
 */
void umms_test_wait_pool_holders(struct umms_test *t, GVariant *(*pool)(struct umms_test *t),
	const char *what, const char *want, unsigned timeout_ms);
/* The type of the plane Display1.Planes says shows the video; "" if none. */
char *umms_test_video_plane_type(GDBusConnection *bus);
GVariant *umms_test_get(GDBusConnection *bus, const char *path, const char *iface,
	const char *property);
int64_t umms_test_get_int64(GDBusConnection *bus, const char *path, const char *property);
int32_t umms_test_get_int32(GDBusConnection *bus, const char *path, const char *property);
double umms_test_get_double(GDBusConnection *bus, const char *path, const char *property);
bool umms_test_get_bool(GDBusConnection *bus, const char *path, const char *property);
/* Caller frees. */
char *umms_test_get_string(GDBusConnection *bus, const char *path, const char *property);
/* Player1.Stats @key of the player at @path (fails the test if it has none). */
guint64 umms_test_stat(GDBusConnection *bus, const char *path, const char *key);
/* Sets a Player1 property; returns false with @error on refusal. */
bool umms_test_set(GDBusConnection *bus, const char *path, const char *property,
	GVariant *value, GError **error);

/* Iterates the default main context for @ms. */
void umms_test_sleep(unsigned ms);
/* Polls the Player1 property until it equals @expected (sunk), or fails the test. */
void umms_test_wait_property(GDBusConnection *bus, const char *path, const char *property,
	GVariant *expected, unsigned timeout_ms);
/* Polls Position until it is >= @position µs (or <= when @before). */
void umms_test_wait_position(GDBusConnection *bus, const char *path, int64_t position,
	bool before, unsigned timeout_ms);

/* Records every signal from ummsd on one object path, in order. */
struct umms_test_signals;
struct umms_test_signals *umms_test_signals_watch(GDBusConnection *bus, const char *path);
void umms_test_signals_free(struct umms_test_signals *signals);
/* Waits for the next signal named @member (skipping others); returns its parameters. */
GVariant *umms_test_signals_wait(struct umms_test_signals *signals, const char *member,
	unsigned timeout_ms);
/* Whether a PropertiesChanged for @property arrived (and pops up to it); no waiting. */
GVariant *umms_test_signals_find_change(struct umms_test_signals *signals, const char *property);
/*
 * How many PropertiesChanged recorded (and not popped) carry @property; the
 * last value in *@last (NULL: not wanted; *@last NULL or a value to replace).
 */
unsigned umms_test_signals_count_changes(struct umms_test_signals *signals,
	const char *property, GVariant **last);
/* Milliseconds since the watch started when the last waited signal arrived. */
double umms_test_signals_last_ms(struct umms_test_signals *signals);
void umms_test_signals_clear(struct umms_test_signals *signals);

/* Recordings (harness-recordings.c): a string property of Recording1 at @path. */
char *umms_test_recording_string(struct umms_test *t, const char *path, const char *property);
/* Waits up to @ms for its State to be @state; else fails naming State and Error. */
void umms_test_recording_wait(struct umms_test *t, const char *path, const char *state,
	unsigned ms);
/*
 * Runs pipeline @description (gst_parse_launch) to its end, at most 30 s,
 * @probe seeing each buffer into its element named "sink": what a player
 * would decode of a recorded file. Returns the pipeline's error, NULL at
 * end of stream.
 */
GError *umms_test_decode(const char *description, GstPadProbeCallback probe, void *data);
/* What GStreamer's discoverer makes of @file (within @timeout_s); fails the test on an error. */
struct _GstDiscovererInfo *umms_test_discover(const char *file, unsigned timeout_s);
/* A field of /proc/@pid/status ("Seccomp") as text; caller frees. */
char *umms_test_proc_status(pid_t pid, const char *field);

/* A UDP port on loopback nobody uses now (for a live source a test sends). */
int umms_test_free_udp_port(void);

/* Open file descriptors of this process. */
unsigned umms_test_fd_count(void);
/*
 * Engine workers (umms-engine) among this program's children, live or
 * zombie; @zombies: how many are zombies (of any kind); @worker (if not
 * NULL): a live worker's pid other than @skip, 0 if none (harness-workers.c).
 */
unsigned umms_test_engine_children(unsigned *zombies, pid_t skip, pid_t *worker);
/*
 * Waits (at most 15 s, else fails the test) until exactly @count live
 * engine workers and no zombie are left: e.g. a player's worker and the
 * spare that ummsd starts a second after a SetUri took the last one, so
 * that fds counted afterwards do not change when it arrives.
 */
void umms_test_wait_engine_workers(unsigned count);
/* The same for the workers of @parent (a spawned ummsd). */
void umms_test_wait_engine_workers_of(pid_t parent, unsigned count);
/*
 * The engine fork server among this program's children (comm "umms-zygote",
 * worker/zygote.h), but @not; waits up to 10 s for one, 0 if none came.
 */
pid_t umms_test_fork_server(pid_t not);
/* Whether engine worker @pid was forked from the fork server (else exec'd). */
bool umms_test_worker_forked(pid_t pid);
/* How many players Manager1.Players lists (harness-workers.c). */
gsize umms_test_player_count(GDBusConnection *bus);
/* Waits until Manager1.Players lists @n players; fails the test after @timeout_ms. */
void umms_test_wait_players(GDBusConnection *bus, gsize n, unsigned timeout_ms);
/* This program's fds and what each is ("3 -> socket:[1234], ..."); caller frees. */
char *umms_test_fd_targets(void);

/* Registers a test with the fixture (fresh in-process service per test). */
#define UMMS_TEST_ADD(name, fn) \
	g_test_add(name, struct umms_test, NULL, umms_test_setup, fn, umms_test_teardown)

void umms_test_setup(struct umms_test *t, gconstpointer data);
/* Replaces the fixture's service with one configured with @overrides. */
void umms_test_restart(struct umms_test *t, const char *const *overrides);
/*
 * The fixture starts no service: each test of this program starts its own
 * with umms_test_restart() before it calls it, so that none is started
 * (with a spare engine worker) only to be stopped at once: seconds a test
 * in the emulated VM. A call before then fails: no service owns the name.
 */
void umms_test_fixture_without_service(void);
void umms_test_teardown(struct umms_test *t, gconstpointer data);

/* Seconds to µs. */
#define US(seconds) ((int64_t)((seconds) * 1000000.0))

#endif
