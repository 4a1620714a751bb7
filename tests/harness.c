#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "harness.h"
#include "server.h"

struct umms_test_service {
	struct umms_config config;
	GThread *thread;
	GMainContext *context;
	GMainLoop *loop;
	struct umms_server *server;
	GMutex lock;
	GCond cond;
	bool started;
	GError *error;
};

static struct {
	char *tmpdir;
	char *bus_address;
	GSubprocess *bus;
	const char *clips;
	const char *build_root;
	bool write_reference;
	const char *asan_options;  /* under AddressSanitizer, else NULL */
	const char *source_root;
	bool verbose;            /* UMMS_TEST_VERBOSE: the in-process ummsd logs at debug */
	bool long_runs;          /* UMMS_TEST_LONG: randomized tests run a long campaign */
	bool in_process;         /* umms_test_engines_in_process() */
	bool no_fixture_service; /* umms_test_fixture_without_service() */
	guint32 seed;            /* UMMS_TEST_SEED, else a random one */
	char *failure_logs[16];  /* printed when the test aborts */
	unsigned n_failure_logs;
} harness;

/*
 * A failed assertion aborts: the logs of the programs the test started
 * (their last 8 KiB each) go to stderr first, so a failure in CI says what
 * the service said. Only async-signal-safe calls here.
 */
static void
print_failure_logs(int sig)
{
	for (unsigned i = 0; i < harness.n_failure_logs; i++) {
		const char *path = harness.failure_logs[i];
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		static const char head[] = "\n---- the end of ", tail[] = " ----\n";
		(void)!write(STDERR_FILENO, head, sizeof(head) - 1);
		(void)!write(STDERR_FILENO, path, strlen(path));
		(void)!write(STDERR_FILENO, tail, sizeof(tail) - 1);
		off_t size = lseek(fd, 0, SEEK_END);
		lseek(fd, size > 8192 ? size - 8192 : 0, SEEK_SET);
		char buf[4096];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			(void)!write(STDERR_FILENO, buf, (size_t)n);
		close(fd);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
umms_test_log_on_failure(const char *path)
{
	for (unsigned i = 0; i < harness.n_failure_logs; i++)
		if (strcmp(harness.failure_logs[i], path) == 0)
			return;
	g_assert_cmpuint(harness.n_failure_logs, <, G_N_ELEMENTS(harness.failure_logs));
	harness.failure_logs[harness.n_failure_logs++] = g_strdup(path);
	struct sigaction action = { .sa_handler = print_failure_logs };
	sigaction(SIGABRT, &action, NULL);
	sigaction(SIGTRAP, &action, NULL);
}

static void
stop_bus(void)
{
	if (harness.bus) {
		g_subprocess_send_signal(harness.bus, SIGTERM);
		g_subprocess_wait(harness.bus, NULL, NULL);
		g_clear_object(&harness.bus);
	}
	if (harness.tmpdir) {
		g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", harness.tmpdir);
		if (system(cmd) != 0)
			g_printerr("could not remove %s\n", harness.tmpdir);
	}
}

/* Children die with the test program, even when it aborts on a failed assertion. */
static void
die_with_parent(gpointer data)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static GSubprocessLauncher *
launcher_new(GSubprocessFlags flags)
{
	GSubprocessLauncher *launcher = g_subprocess_launcher_new(flags);
	g_subprocess_launcher_set_child_setup(launcher, die_with_parent, NULL, NULL);
	return launcher;
}

/*
 * A private dbus-daemon, not forked so it dies with us; it writes its
 * address to a file (never read through a pipe, which would not close).
 */
static void
start_bus(void)
{
	g_autofree char *socket = g_build_filename(harness.tmpdir, "bus", NULL);
	g_autofree char *addr_file = g_build_filename(harness.tmpdir, "bus-address", NULL);
	g_autofree char *listen = g_strdup_printf("--address=unix:path=%s", socket);
	g_autoptr(GSubprocessLauncher) launcher = launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_subprocess_launcher_set_stdout_file_path(launcher, addr_file);
	GError *error = NULL;
	harness.bus = g_subprocess_launcher_spawn(launcher, &error, "dbus-daemon", "--session",
		"--nofork", "--nopidfile", listen, "--print-address=1", NULL);
	if (!harness.bus)
		g_error("cannot start dbus-daemon (is the dbus-daemon package installed?): %s",
			error->message);
	atexit(stop_bus);

	g_autofree char *address = NULL;
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (!address || !strchr(address, '\n')) {
		if (g_get_monotonic_time() > end)
			g_error("dbus-daemon did not report its address");
		g_usleep(5000);
		g_clear_pointer(&address, g_free);
		g_file_get_contents(addr_file, &address, NULL, NULL);
	}
	harness.bus_address = g_strdup(g_strstrip(address));
	g_setenv("DBUS_SESSION_BUS_ADDRESS", harness.bus_address, TRUE);
	/* Nothing we start may reach for a real session: no X11, no autolaunch. */
	g_unsetenv("DISPLAY");
}

const char *
umms_test_take_option(int *argc, char **argv, const char *prefix)
{
	for (int i = 1; i < *argc; i++) {
		if (!g_str_has_prefix(argv[i], prefix))
			continue;
		const char *value = argv[i] + strlen(prefix);
		memmove(&argv[i], &argv[i + 1], sizeof(*argv) * (size_t)(*argc - i));
		(*argc)--;
		return value;
	}
	return NULL;
}

void
umms_test_init(int *argc, char ***argv)
{
	/*
	 * The scratch folder is every XDG folder, set before GLib or GStreamer
	 * reads (and caches) them: nothing a test does lands in the real home.
	 */
	harness.tmpdir = g_dir_make_tmp("umms-test-XXXXXX", NULL);
	g_assert_nonnull(harness.tmpdir);
	g_setenv("XDG_CONFIG_HOME", harness.tmpdir, TRUE);
	g_setenv("XDG_RUNTIME_DIR", harness.tmpdir, TRUE);
	g_setenv("XDG_DATA_HOME", harness.tmpdir, TRUE);
	g_setenv("XDG_STATE_HOME", harness.tmpdir, TRUE);
	g_setenv("XDG_CACHE_HOME", harness.tmpdir, TRUE);
	g_test_init(argc, argv, NULL);
	gst_init(argc, argv);
	harness.clips = g_getenv("UMMS_TEST_CLIPS");
	harness.build_root = g_getenv("UMMS_TEST_BUILD_ROOT");
	harness.source_root = g_getenv("UMMS_TEST_SOURCE_ROOT");
	harness.verbose = g_getenv("UMMS_TEST_VERBOSE") != NULL;
	harness.write_reference = g_getenv("UMMS_TEST_WRITE_REFERENCE") != NULL;
	harness.long_runs = g_getenv("UMMS_TEST_LONG") != NULL;
	const char *seed = g_getenv("UMMS_TEST_SEED");
	harness.seed = seed ? (guint32)g_ascii_strtoull(seed, NULL, 10) : g_random_int();
	harness.asan_options = g_getenv("ASAN_OPTIONS");
	start_bus();
}

bool
umms_test_long(void)
{
	return harness.long_runs;
}

guint32
umms_test_seed(void)
{
	return harness.seed;
}

const char *
umms_test_bus_address(void)
{
	return harness.bus_address;
}

void
umms_test_launcher_no_leak_check(GSubprocessLauncher *launcher)
{
	if (!harness.asan_options)
		return;
	g_autofree char *options = g_strconcat(harness.asan_options, ":detect_leaks=0", NULL);
	g_subprocess_launcher_setenv(launcher, "ASAN_OPTIONS", options, TRUE);
}

bool
umms_test_write_reference(void)
{
	return harness.write_reference;
}

const char *
umms_test_tmpdir(void)
{
	return harness.tmpdir;
}

const char *
umms_test_clip(const char *name)
{
	/* A program without the bus (no umms_test_init()) reads the folder here. */
	if (!harness.clips)
		harness.clips = g_getenv("UMMS_TEST_CLIPS");
	g_assert_nonnull(harness.clips);
	/* Interned: tests may keep the pointer. */
	g_autofree char *path = g_build_filename(harness.clips, name, NULL);
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		g_error("clip %s was not generated (see tests/gen-clips.c)", path);
	return g_intern_string(path);
}

char *
umms_test_clip_uri(const char *name)
{
	return g_filename_to_uri(umms_test_clip(name), NULL, NULL);
}

const char *
umms_test_build_root(void)
{
	g_assert_nonnull(harness.build_root);
	return harness.build_root;
}

const char *
umms_test_source_root(void)
{
	g_assert_nonnull(harness.source_root);
	return harness.source_root;
}

GSubprocess *
umms_test_spawn(const char *const *argv)
{
	g_autoptr(GSubprocessLauncher) launcher = launcher_new(G_SUBPROCESS_FLAGS_NONE);
	GError *error = NULL;
	GSubprocess *process = g_subprocess_launcher_spawnv(launcher, argv, &error);
	g_assert_no_error(error);
	return process;
}

const char *
umms_test_program(const char *name)
{
	static const char *const places[] = { "service", "tools" };
	g_assert_nonnull(harness.build_root);
	for (size_t i = 0; i < G_N_ELEMENTS(places); i++) {
		g_autofree char *path = g_build_filename(harness.build_root, places[i], name, NULL);
		if (g_file_test(path, G_FILE_TEST_IS_EXECUTABLE))
			return g_intern_string(path);
	}
	g_error("program %s is not built", name);
	return NULL;
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static gpointer
service_thread(gpointer data)
{
	struct umms_test_service *service = data;
	g_main_context_push_thread_default(service->context);
	service->server = umms_server_create(&service->config, &service->error);
	g_mutex_lock(&service->lock);
	service->started = true;
	g_cond_signal(&service->cond);
	g_mutex_unlock(&service->lock);
	if (service->server) {
		g_main_loop_run(service->loop);
		umms_server_destroy(service->server);
	}
	/* Let what the shutdown queued (closing connections) run out. */
	while (g_main_context_iteration(service->context, FALSE))
		;
	g_main_context_pop_thread_default(service->context);
	return NULL;
}

struct umms_test_service *
umms_test_service_start(const char *const *overrides)
{
	struct umms_test_service *service = g_new0(struct umms_test_service, 1);
	umms_config_init(&service->config);
	GError *error = NULL;
	g_assert_true(umms_config_set(&service->config, "service.bus-address",
		harness.bus_address, &error));
	g_assert_true(umms_config_set(&service->config, "engine.audio-output", "none", &error));
	/*
	 * A file opens in well under a second, but not always within the
	 * default 10 s on a 2-core machine busy with sanitizer builds and
	 * emulated VMs (the first use of pango's fonts, say): tests judge
	 * whether media opens, not how fast. A test of the timeout sets its own.
	 */
	g_assert_true(umms_config_set(&service->config, "engine.open-timeout", "60000", &error));
	/* The tests' own elements get past a worker's sandbox; no others. */
	g_assert_true(umms_config_set(&service->config, "engine.sandbox-elements",
		UMMS_TEST_SANDBOX_ELEMENTS, &error));
	/*
	 * The engine worker just built, not an installed one, through a script
	 * that gives it ASan's fast unwinder (tests/umms-engine-fast-unwind).
	 */
	if (harness.build_root)
		g_assert_true(umms_config_set(&service->config, "engine.worker",
			umms_test_engine_worker(), &error));
	if (harness.in_process)
		g_assert_true(umms_config_set(&service->config, "engine.isolation", "in-process",
			&error));
	if (harness.verbose)
		service->config.log.level = UMMS_LOG_DEBUG;
	for (const char *const *o = overrides; o && *o; o++) {
		const char *eq = strchr(*o, '=');
		g_assert_nonnull(eq);
		g_autofree char *key = g_strndup(*o, (gsize)(eq - *o));
		if (!umms_config_set(&service->config, key, eq + 1, &error))
			g_error("override %s: %s", *o, error->message);
	}
	g_mutex_init(&service->lock);
	g_cond_init(&service->cond);
	service->context = g_main_context_new();
	service->loop = g_main_loop_new(service->context, FALSE);
	service->thread = g_thread_new("ummsd", service_thread, service);
	g_mutex_lock(&service->lock);
	while (!service->started)
		g_cond_wait(&service->cond, &service->lock);
	g_mutex_unlock(&service->lock);
	if (!service->server)
		g_error("ummsd did not start: %s", service->error->message);
	return service;
}

void
umms_test_service_stop(struct umms_test_service *service)
{
	if (!service)
		return;
	g_main_context_invoke(service->context, quit_cb, service->loop);
	g_thread_join(service->thread);
	g_main_loop_unref(service->loop);
	g_main_context_unref(service->context);
	g_mutex_clear(&service->lock);
	g_cond_clear(&service->cond);
	umms_config_finish(&service->config);
	g_free(service);
}

GSubprocess *
umms_test_spawn_ummsd(const char *const *extra_args)
{
	return umms_test_spawn_ummsd_env(extra_args, NULL, G_SUBPROCESS_FLAGS_NONE);
}

const char *
umms_test_engine_worker(void)
{
	static char *path;
	if (!path && harness.build_root)
		path = harness.source_root ?
			g_build_filename(harness.source_root, "tests", "umms-engine-fast-unwind", NULL) :
			g_build_filename(harness.build_root, "worker", "umms-engine", NULL);
	return path;
}

GSubprocess *
umms_test_spawn_ummsd_env(const char *const *extra_args, const char *const *env,
	GSubprocessFlags flags)
{
	GPtrArray *argv = g_ptr_array_new();
	g_ptr_array_add(argv, (char *)umms_test_program("ummsd"));
	g_ptr_array_add(argv, (char *)"--address");
	g_ptr_array_add(argv, harness.bus_address);
	g_ptr_array_add(argv, (char *)"--set");
	g_ptr_array_add(argv, (char *)"engine.audio-output=none");
	/* As umms_test_service_start: media opens, however busy the machine. */
	g_ptr_array_add(argv, (char *)"--set");
	g_ptr_array_add(argv, (char *)"engine.open-timeout=60000");
	g_ptr_array_add(argv, (char *)"--set");
	g_ptr_array_add(argv, (char *)"engine.sandbox-elements=" UMMS_TEST_SANDBOX_ELEMENTS);
	/* Engines in the workers just built, as an installed ummsd's are. */
	g_autofree char *worker = umms_test_engine_worker() ?
		g_strdup_printf("engine.worker=%s", umms_test_engine_worker()) : NULL;
	if (worker) {
		g_ptr_array_add(argv, (char *)"--set");
		g_ptr_array_add(argv, worker);
	}
	for (const char *const *a = extra_args; a && *a; a++)
		g_ptr_array_add(argv, (char *)*a);
	g_ptr_array_add(argv, NULL);
	GError *error = NULL;
	g_autoptr(GSubprocessLauncher) launcher = launcher_new(flags);
	for (const char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		g_autofree char *name = g_strndup(*e, eq ? (gsize)(eq - *e) : strlen(*e));
		if (eq)
			g_subprocess_launcher_setenv(launcher, name, eq + 1, TRUE);
		else
			g_subprocess_launcher_unsetenv(launcher, name);
	}
	GSubprocess *process = g_subprocess_launcher_spawnv(launcher,
		(const char *const *)argv->pdata, &error);
	g_assert_no_error(error);
	g_ptr_array_unref(argv);
	return process;
}

void
umms_test_wait_name(GDBusConnection *bus, const char *name, bool present)
{
	gint64 end = g_get_monotonic_time() + UMMS_TEST_TIMEOUT_MS * 1000;
	while (g_get_monotonic_time() < end) {
		g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
			"/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
			g_variant_new("(s)", name), G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NONE,
			-1, NULL, NULL);
		gboolean has = FALSE;
		if (reply)
			g_variant_get(reply, "(b)", &has);
		if ((bool)has == present)
			return;
		umms_test_sleep(20);
	}
	g_error("%s did not %s the bus in time", name, present ? "appear on" : "leave");
}

GDBusConnection *
umms_test_connect(void)
{
	GError *error = NULL;
	GDBusConnection *bus = g_dbus_connection_new_for_address_sync(harness.bus_address,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &error);
	g_assert_no_error(error);
	g_dbus_connection_set_exit_on_close(bus, FALSE);
	return bus;
}

unsigned
umms_test_fd_count(void)
{
	unsigned count = 0;
	DIR *dir = opendir("/proc/self/fd");
	g_assert_nonnull(dir);
	while (readdir(dir))
		count++;
	closedir(dir);
	return count;
}

void
umms_test_setup(struct umms_test *t, gconstpointer data)
{
	if (!harness.no_fixture_service)
		t->service = umms_test_service_start(NULL);
	t->bus = umms_test_connect();
}

void
umms_test_restart(struct umms_test *t, const char *const *overrides)
{
	umms_test_service_stop(t->service);
	t->service = umms_test_service_start(overrides);
}

void
umms_test_teardown(struct umms_test *t, gconstpointer data)
{
	g_dbus_connection_close_sync(t->bus, NULL, NULL);
	g_clear_object(&t->bus);
	umms_test_service_stop(t->service);
	t->service = NULL;
}

int
umms_test_free_udp_port(void)
{
	g_autoptr(GSocket) s = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_DATAGRAM,
		G_SOCKET_PROTOCOL_UDP, NULL);
	g_autoptr(GInetAddress) lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	g_autoptr(GSocketAddress) any = g_inet_socket_address_new(lo, 0);
	g_assert_true(g_socket_bind(s, any, FALSE, NULL));
	g_autoptr(GSocketAddress) bound = g_socket_get_local_address(s, NULL);
	return g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
}

char *
umms_test_pool_names(GVariant *pool, const char *field)
{
	g_autoptr(GVariant) list = g_variant_lookup_value(pool, field, NULL);
	GString *out = g_string_new(NULL);
	for (gsize i = 0; list && i < g_variant_n_children(list); i++) {
		const char *name, *priority;
		g_variant_get_child(list, i, "(&s&s)", &name, &priority);
		g_string_append_printf(out, "%s%s", i ? "," : "", name);
	}
	return g_string_free(out, FALSE);
}

char *
umms_test_video_plane_type(GDBusConnection *bus)
{
	g_autoptr(GVariant) planes = umms_test_get(bus, "/org/umms/display/0",
		"org.umms.Display1", "Planes");
	GVariantIter iter;
	GVariant *plane;
	g_variant_iter_init(&iter, planes);
	while ((plane = g_variant_iter_next_value(&iter))) {
		const char *use = NULL, *type = NULL;
		g_variant_lookup(plane, "use", "&s", &use);
		g_variant_lookup(plane, "type", "&s", &type);
		char *found = use && strcmp(use, "video") == 0 ? g_strdup(type) : NULL;
		g_variant_unref(plane);
		if (found)
			return found;
	}
	return g_strdup("");
}

void
umms_test_wait_pool_holders(struct umms_test *t, GVariant *(*pool)(struct umms_test *t),
	const char *what, const char *want, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		g_autoptr(GVariant) p = pool(t);
		g_autofree char *now = umms_test_pool_names(p, "holders");
		if (strcmp(now, want) == 0)
			return;
		if (g_get_monotonic_time() > end)
			g_error("%s held by \"%s\", not \"%s\"", what, now, want);
		umms_test_sleep(25);
	}
}

char *
umms_test_ummsctl(const char *first, ...)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup(umms_test_program("ummsctl")));
	va_list ap;
	va_start(ap, first);
	for (const char *arg = first; arg; arg = va_arg(ap, const char *))
		g_ptr_array_add(argv, g_strdup(arg));
	va_end(ap);
	g_ptr_array_add(argv, NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) ctl = g_subprocess_newv((const char *const *)argv->pdata,
		G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
	g_assert_no_error(error);
	char *out = NULL;
	g_subprocess_communicate_utf8(ctl, NULL, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	g_test_message("%s", out);
	g_assert_cmpint(g_subprocess_get_exit_status(ctl), ==, 0);
	return out;
}

void
umms_test_engines_in_process(const char *why)
{
	g_test_message("engines run inside ummsd in this program: %s", why);
	harness.in_process = true;
}

void
umms_test_fixture_without_service(void)
{
	harness.no_fixture_service = true;
}
