/*
 * The engine worker's sandbox (worker/sandbox.h): each case forks a child
 * that enters it and reports over a pipe what its calls returned, as
 * "name value" lines (an errno, 0 for success); the parent asserts them.
 * A child that hangs is killed at its deadline and fails the case. Children
 * leave with _exit(): LeakSanitizer cannot run in the sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/videodev2.h>
#include <netinet/in.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "sandbox.h"

/* The folder the parent prepares files in before forking. */
static char *tmpdir;

typedef void (*child_func)(int out, const void *data);

/* Child: one "name value" line. */
static void
report(int out, const char *name, long value)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s %ld\n", name, value);
	if (n > 0 && (size_t)n < sizeof(line) && write(out, line, (size_t)n) != n)
		_exit(3);
}

/* Child: the errno of a call that returned @ret, 0 for success. */
static long
result(long ret)
{
	return ret < 0 ? errno : 0;
}

/* Child: enters the sandbox keeping only the pipe, or leaves with status 2. */
static void
enter(int out, struct umms_sandbox_policy policy)
{
	int keep[] = { out };
	policy.keep_fds = keep;
	policy.n_keep = 1;
	GError *error = NULL;
	if (!umms_sandbox_enter(&policy, &error)) {
		dprintf(out, "enter-failed %s\n", error->message);
		_exit(2);
	}
}

static const struct umms_sandbox_policy default_policy = {
	.max_fds = 256,
};

/*
 * Parent: runs @func in a child, which must exit 0 within @timeout_s, and
 * returns its report (name → value).
 */
static GHashTable *
run_child(child_func func, const void *data, unsigned timeout_s)
{
	int fds[2];
	g_assert_cmpint(pipe2(fds, O_CLOEXEC), ==, 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		close(fds[0]);
		func(fds[1], data);
		_exit(0);
	}
	close(fds[1]);
	g_autoptr(GString) text = g_string_new(NULL);
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
	bool eof = false;
	while (!eof) {
		gint64 left = (deadline - g_get_monotonic_time()) / 1000;
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int ready = poll(&pfd, 1, (int)MIN(left, INT_MAX));
		if (ready < 0 && errno == EINTR)
			continue;
		g_assert_cmpint(ready, >=, 0);
		if (ready == 0)
			break;
		char buf[512];
		ssize_t n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			eof = true;
		else
			g_string_append_len(text, buf, n);
	}
	close(fds[0]);
	int status = 0;
	pid_t done = 0;
	/* The pipe closes at exit: a second to reap it. */
	for (int i = 0; eof && i < 100 && (done = waitpid(pid, &status, WNOHANG)) == 0; i++)
		g_usleep(10000);
	if (done != pid) {
		kill(pid, SIGKILL);
		g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
		g_error("child timed out after %u s; it reported:\n%s", timeout_s, text->str);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		g_error("child ended with status 0x%x; it reported:\n%s", status, text->str);
	GHashTable *values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_auto(GStrv) lines = g_strsplit(text->str, "\n", -1);
	for (char **line = lines; *line; line++) {
		char *space = strchr(*line, ' ');
		if (!space)
			continue;
		*space = '\0';
		g_hash_table_insert(values, g_strdup(*line),
			GINT_TO_POINTER((int)g_ascii_strtoll(space + 1, NULL, 10)));
	}
	return values;
}

/* Parent: the value the child reported for @name, which it must have. */
static int
value(GHashTable *values, const char *name)
{
	gpointer v;
	if (!g_hash_table_lookup_extended(values, name, NULL, &v))
		g_error("the child did not report %s", name);
	return GPOINTER_TO_INT(v);
}

/* Parent: what the child must have reported, name by name. */
struct expect {
	const char *name;
	int value;
};

static void
expect_all(GHashTable *values, const struct expect *expect, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int got = value(values, expect[i].name);
		if (got != expect[i].value)
			g_test_message("%s: %d, expected %d", expect[i].name, got, expect[i].value);
		g_assert_cmpint(got, ==, expect[i].value);
	}
}

#define EXPECT(values, ...) expect_all(values, (const struct expect[]){ __VA_ARGS__ }, \
	sizeof((const struct expect[]){ __VA_ARGS__ }) / sizeof(struct expect))

static void
exec_child(int out, const void *data)
{
	enter(out, default_policy);
	char *argv[] = { "/bin/true", NULL };
	char *envp[] = { NULL };
	report(out, "execve", result(execve(argv[0], argv, envp)));
	report(out, "fork", result(fork()));
	report(out, "alive", 1);
}

static void
test_exec(void)
{
	g_autoptr(GHashTable) r = run_child(exec_child, NULL, 20);
	EXPECT(r,
		{ "execve", EPERM }, { "fork", EPERM }, { "alive", 1 });
}

static void
open_child(int out, const void *data)
{
	g_autofree char *created = g_build_filename(tmpdir, "created", NULL);
	g_autofree char *made = g_build_filename(tmpdir, "made-read-only", NULL);
	g_autofree char *existing = g_build_filename(tmpdir, "existing", NULL);
	g_autofree char *dir = g_build_filename(tmpdir, "dir", NULL);
	enter(out, default_policy);
	report(out, "create", result(open(created, O_WRONLY | O_CREAT | O_TRUNC, 0600)));
	report(out, "create-rdonly", result(open(made, O_RDONLY | O_CREAT, 0600)));
	report(out, "rdwr", result(open(existing, O_RDWR)));
	report(out, "append", result(open(existing, O_WRONLY | O_APPEND)));
	report(out, "truncate", result(open(existing, O_RDONLY | O_TRUNC)));
	report(out, "unlink", result(unlink(existing)));
	report(out, "mkdir", result(mkdir(dir, 0700)));
	int fd = open(existing, O_RDONLY | O_CLOEXEC);
	report(out, "rdonly", result(fd));
	char buf[16] = { 0 };
	report(out, "read", fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1);
	report(out, "content", strcmp(buf, "umms") == 0);
	report(out, "opendir", result(open(tmpdir, O_RDONLY | O_DIRECTORY)));
}

static void
test_open(void)
{
	g_autofree char *existing = g_build_filename(tmpdir, "existing", NULL);
	g_assert_true(g_file_set_contents(existing, "umms", -1, NULL));
	g_autoptr(GHashTable) r = run_child(open_child, NULL, 20);
	EXPECT(r,
		{ "create", EPERM }, { "create-rdonly", EPERM }, { "rdwr", EPERM },
		{ "append", EPERM }, { "truncate", EPERM }, { "unlink", EPERM },
		{ "mkdir", EPERM }, { "rdonly", 0 }, { "read", 4 }, { "content", 1 },
		{ "opendir", 0 });
	/* Nothing was made, nothing lost. */
	g_autofree char *created = g_build_filename(tmpdir, "created", NULL);
	g_autofree char *made = g_build_filename(tmpdir, "made-read-only", NULL);
	g_autofree char *dir = g_build_filename(tmpdir, "dir", NULL);
	g_assert_false(g_file_test(created, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(made, G_FILE_TEST_EXISTS));
	g_assert_false(g_file_test(dir, G_FILE_TEST_EXISTS));
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(existing, &text, NULL, NULL));
	g_assert_cmpstr(text, ==, "umms");
}

static void
socket_child(int out, const void *data)
{
	struct umms_sandbox_policy policy = default_policy;
	policy.network = *(const bool *)data;
	enter(out, policy);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	report(out, "inet", result(fd));
	struct sockaddr_in address = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	if (fd >= 0)
		report(out, "bind", result(bind(fd, (struct sockaddr *)&address, sizeof(address))));
	report(out, "inet6", result(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)));
	report(out, "unix", result(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)));
	report(out, "netlink", result(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0)));
	/* Pairs: GstPoll and GstBus make them. */
	int pair[2];
	report(out, "socketpair", result(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair)));
	report(out, "send", result(send(pair[0], "x", 1, 0)));
	char c = 0;
	report(out, "recv", result(recv(pair[1], &c, 1, 0)));
	report(out, "received", c == 'x');
}

static void
test_socket(void)
{
	bool network = false;
	g_autoptr(GHashTable) r = run_child(socket_child, &network, 20);
	EXPECT(r,
		{ "inet", EPERM }, { "inet6", EPERM }, { "unix", EPERM },
		{ "netlink", EPERM }, { "socketpair", 0 }, { "received", 1 });

	network = true;
	g_autoptr(GHashTable) n = run_child(socket_child, &network, 20);
	g_assert_cmpint(value(n, "inet"), ==, 0);
	g_assert_cmpint(value(n, "bind"), ==, 0);
	/* A host without IPv6 says EAFNOSUPPORT: not the sandbox. */
	g_assert_cmpint(value(n, "inet6"), !=, EPERM);
	EXPECT(n,
		{ "unix", EPERM }, { "netlink", EPERM }, { "received", 1 });
}

static void
ptrace_child(int out, const void *data)
{
	pid_t parent = getppid();
	enter(out, default_policy);
	report(out, "traceme", result(ptrace(PTRACE_TRACEME, 0, NULL, NULL)));
	report(out, "attach", result(ptrace(PTRACE_ATTACH, parent, NULL, NULL)));
	char buf[8];
	struct iovec local = { buf, sizeof(buf) }, remote = { &tmpdir, sizeof(buf) };
	report(out, "vm-read", result(process_vm_readv(parent, &local, 1, &remote, 1, 0)));
	report(out, "unshare", result(unshare(CLONE_NEWUSER)));
}

static void
test_ptrace(void)
{
	g_autoptr(GHashTable) r = run_child(ptrace_child, NULL, 20);
	EXPECT(r,
		{ "traceme", EPERM }, { "attach", EPERM }, { "vm-read", EPERM },
		{ "unshare", EPERM });
}

static void *
thread_main(void *data)
{
	pthread_setname_np(pthread_self(), "sandboxed");
	char name[16] = { 0 };
	prctl(PR_GET_NAME, name, 0, 0, 0);
	*(int *)data = strcmp(name, "sandboxed") == 0 ? 42 : 1;
	return NULL;
}

/* A thread that already runs when the process enters the sandbox. */
struct earlier {
	GMutex lock;
	GCond cond;
	bool go;
	int socket_errno;
};

static void *
earlier_main(void *data)
{
	struct earlier *e = data;
	g_mutex_lock(&e->lock);
	while (!e->go)
		g_cond_wait(&e->cond, &e->lock);
	g_mutex_unlock(&e->lock);
	e->socket_errno = (int)result(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	return NULL;
}

static void
thread_child(int out, const void *data)
{
	struct earlier e = { .go = false };
	pthread_t earlier;
	report(out, "earlier-create", pthread_create(&earlier, NULL, earlier_main, &e));
	enter(out, default_policy);
	g_mutex_lock(&e.lock);
	e.go = true;
	g_cond_signal(&e.cond);
	g_mutex_unlock(&e.lock);
	pthread_join(earlier, NULL);
	report(out, "earlier-socket", e.socket_errno);
	pthread_t thread;
	int answer = 0;
	int err = pthread_create(&thread, NULL, thread_main, &answer);
	report(out, "create", err);
	if (err == 0)
		report(out, "join", pthread_join(thread, NULL));
	report(out, "answer", answer);
	/* GLib's own threads and pool, as GStreamer's tasks use them. */
	GThread *gthread = g_thread_try_new("sandboxed", (GThreadFunc)thread_main, &answer, NULL);
	report(out, "gthread", gthread != NULL);
	if (gthread)
		g_thread_join(gthread);
}

static void
test_threads(void)
{
	g_autoptr(GHashTable) r = run_child(thread_child, NULL, 20);
	EXPECT(r,
		{ "create", 0 }, { "join", 0 }, { "answer", 42 }, { "gthread", 1 });
	/* The filter holds for every thread, not only the one that loaded it. */
	g_assert_cmpint(value(r, "earlier-create"), ==, 0);
	g_assert_cmpint(value(r, "earlier-socket"), ==, EPERM);
}

static void
memfd_child(int out, const void *data)
{
	enter(out, default_policy);
	int fd = memfd_create("umms-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	report(out, "memfd", result(fd));
	if (fd < 0)
		return;
	report(out, "ftruncate", result(ftruncate(fd, 65536)));
	unsigned char *map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	report(out, "mmap", map == MAP_FAILED ? errno : 0);
	if (map == MAP_FAILED)
		return;
	map[65535] = 0x5a;
	unsigned char byte = 0;
	report(out, "pread", result(pread(fd, &byte, 1, 65535)));
	report(out, "byte", byte);
	report(out, "seal", result(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)));
	munmap(map, 65536);
}

static void
test_memfd(void)
{
	g_autoptr(GHashTable) r = run_child(memfd_child, NULL, 20);
	EXPECT(r,
		{ "memfd", 0 }, { "ftruncate", 0 }, { "mmap", 0 }, { "byte", 0x5a },
		{ "seal", 0 });
}

static void
fds_child(int out, const void *data)
{
	int open_before = open("/dev/null", O_RDONLY);
	int high = fcntl(open_before, F_DUPFD, 100);
	report(out, "before", open_before >= 3 && high >= 100);
	enter(out, default_policy);
	report(out, "closed", fcntl(open_before, F_GETFD) < 0 && errno == EBADF);
	report(out, "high-closed", fcntl(high, F_GETFD) < 0 && errno == EBADF);
	report(out, "kept", result(fcntl(out, F_GETFD)));
}

static void
test_fds(void)
{
	g_autoptr(GHashTable) r = run_child(fds_child, NULL, 20);
	EXPECT(r,
		{ "before", 1 }, { "closed", 1 }, { "high-closed", 1 }, { "kept", 0 });
}

static void
limits_child(int out, const void *data)
{
	struct umms_sandbox_policy policy = {
		.max_fds = 32,
		.cpu_seconds = 30,
		.memory_bytes = 64 << 20,
	};
	enter(out, policy);
	struct rlimit limit;
	getrlimit(RLIMIT_NOFILE, &limit);
	report(out, "nofile", (long)limit.rlim_cur);
	report(out, "nofile-max", (long)limit.rlim_max);
	getrlimit(RLIMIT_CPU, &limit);
	report(out, "cpu", (long)limit.rlim_cur);
	limit.rlim_cur = limit.rlim_max = RLIM_INFINITY;
	report(out, "raise", result(setrlimit(RLIMIT_NOFILE, &limit)));
	report(out, "prlimit-raise", result(prlimit(0, RLIMIT_NOFILE, &limit, NULL)));
	/* Descriptors past the limit: EMFILE. */
	int last = 0;
	long err = 0;
	for (int i = 0; i < 64 && !err; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			err = errno;
		else
			last = fd;
	}
	report(out, "nofile-err", err);
	report(out, "last-fd", last);
	/* Data: 8 MiB more is fine, 128 MiB more is not. */
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *small = mmap(NULL, 8 << 20, prot, flags, -1, 0);
	report(out, "small", small == MAP_FAILED ? errno : 0);
	void *big = mmap(NULL, 128 << 20, prot, flags, -1, 0);
	report(out, "big", big == MAP_FAILED ? errno : 0);
}

static void
test_limits(void)
{
	g_autoptr(GHashTable) r = run_child(limits_child, NULL, 20);
	EXPECT(r,
		{ "nofile", 32 }, { "nofile-max", 32 }, { "cpu", 30 }, { "raise", EPERM },
		{ "prlimit-raise", EPERM }, { "nofile-err", EMFILE }, { "last-fd", 31 },
		{ "small", 0 }, { "big", ENOMEM });
}

static void
privs_child(int out, const void *data)
{
	report(out, "dumpable-before", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	enter(out, default_policy);
	report(out, "no-new-privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	report(out, "dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	report(out, "seccomp", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	report(out, "set-dumpable", result(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)));
	/* Its own /proc files stay readable. */
	report(out, "maps", result(open("/proc/self/maps", O_RDONLY | O_CLOEXEC)));
}

static void
test_privs(void)
{
	g_autoptr(GHashTable) r = run_child(privs_child, NULL, 20);
	EXPECT(r,
		{ "dumpable-before", 1 }, { "no-new-privs", 1 }, { "dumpable", 0 },
		{ "seccomp", 2 }, { "set-dumpable", EPERM }, { "maps", 0 });
}

static void
kill_child(int out, const void *data)
{
	pid_t parent = getppid();
	enter(out, default_policy);
	report(out, "init", result(kill(1, 0)));
	report(out, "parent", result(kill(parent, 0)));
	report(out, "group", result(kill(0, 0)));
	report(out, "self", result(kill(getpid(), 0)));
	report(out, "raise", result(raise(SIGWINCH)));
}

static void
test_kill(void)
{
	g_autoptr(GHashTable) r = run_child(kill_child, NULL, 20);
	EXPECT(r,
		{ "init", EPERM }, { "parent", EPERM }, { "group", EPERM }, { "self", 0 },
		{ "raise", 0 });
}

static void
syscalls_child(int out, const void *data)
{
	enter(out, default_policy);
	/* Flags in memory: ENOSYS, so that glibc falls back. */
	report(out, "clone3", result(syscall(SYS_clone3, NULL, 0)));
	report(out, "openat2", result(syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0)));
	/* ioctl by request: dma-buf sync reaches the kernel (not a dma-buf: ENOTTY). */
	int fd = memfd_create("umms-ioctl", MFD_CLOEXEC);
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	report(out, "dma-buf-sync", result(ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync)));
	int bytes = 0;
	int pair[2];
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
	report(out, "fionread", result(ioctl(pair[0], FIONREAD, &bytes)));
	/* Typing into the terminal, V4L2 (a camera could capture), FS flags. */
	char c = 'x';
	report(out, "tiocsti", result(ioctl(0, TIOCSTI, &c)));
	struct v4l2_capability caps;
	report(out, "v4l2", result(ioctl(fd, VIDIOC_QUERYCAP, &caps)));
	long flags = 0;
	report(out, "fs-flags", result(ioctl(fd, FS_IOC_GETFLAGS, &flags)));
	report(out, "setsid", result(setsid()));
	/* SIGIO to another process. */
	report(out, "setown", result(fcntl(pair[0], F_SETOWN, getppid())));
	report(out, "setfl", result(fcntl(pair[0], F_SETFL, O_NONBLOCK)));
	report(out, "chdir", result(chdir("/")));
}

static void
test_syscalls(void)
{
	g_autoptr(GHashTable) r = run_child(syscalls_child, NULL, 20);
	EXPECT(r,
		{ "clone3", ENOSYS }, { "openat2", ENOSYS }, { "dma-buf-sync", ENOTTY },
		{ "fionread", 0 }, { "tiocsti", EPERM }, { "v4l2", EPERM },
		{ "fs-flags", EPERM }, { "setown", EPERM }, { "setfl", 0 },
		{ "setsid", EPERM }, { "chdir", EPERM });
}

static gboolean
quit_cb(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

static void *
wake_main(void *data)
{
	g_usleep(500000);
	g_idle_add(quit_cb, data);
	return NULL;
}

static void
main_loop_child(int out, const void *data)
{
	/* Made before entering, as loading GStreamer's v4l2 plugin makes it. */
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);
	enter(out, default_policy);
	/* Another thread wakes the loop through the context's eventfd. */
	pthread_t thread;
	pthread_create(&thread, NULL, wake_main, loop);
	gint64 start = g_get_monotonic_time();
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	g_main_loop_run(loop);
	getrusage(RUSAGE_SELF, &after);
	report(out, "woken-ms", (long)((g_get_monotonic_time() - start) / 1000));
	/* Waiting, not spinning on a closed descriptor (poll says POLLNVAL). */
	long cpu_us = (after.ru_utime.tv_sec - before.ru_utime.tv_sec) * 1000000L +
		(after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
		(after.ru_stime.tv_sec - before.ru_stime.tv_sec) * 1000000L +
		(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
	report(out, "cpu-ms", cpu_us / 1000);
	pthread_join(thread, NULL);
}

static void
test_main_loop(void)
{
	g_autoptr(GHashTable) r = run_child(main_loop_child, NULL, 20);
	g_assert_cmpint(value(r, "woken-ms"), <, 5000);
	g_assert_cmpint(value(r, "cpu-ms"), <, 100);
}

/* The clips folder (UMMS_TEST_CLIPS), read before forking. */
static const char *clips_dir;

/* Child: each decodebin pad gets a fakesink of its own. */
static void
pad_added_cb(GstElement *decodebin, GstPad *pad, gpointer data)
{
	GstElement *pipeline = data;
	GstElement *sink = gst_element_factory_make("fakesink", NULL);
	g_object_set(sink, "sync", FALSE, NULL);
	gst_bin_add(GST_BIN(pipeline), sink);
	gst_element_sync_state_with_parent(sink);
	GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
	gst_pad_link(pad, sink_pad);
	gst_object_unref(sink_pad);
}

struct watch {
	int out;
	/* Leave (status 0) as soon as this element is plugged. */
	const char *leave_on;
};

static void
element_added_cb(GstBin *bin, GstBin *sub_bin, GstElement *element, gpointer data)
{
	const struct watch *watch = data;
	GstElementFactory *factory = gst_element_get_factory(element);
	if (!factory)
		return;
	const char *name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
	char key[96];
	g_snprintf(key, sizeof(key), "plugged-%s", name);
	report(watch->out, key, 1);
	if (watch->leave_on && strcmp(name, watch->leave_on) == 0)
		_exit(0);
}

/*
 * Child: plays @name from @dir with filesrc ! decodebin ! fakesinks;
 * reports NAME (0 at EOS, 1000 for a missing-plugin error, 2000 + the
 * code of another error, ETIMEDOUT) and NAME-missing (a
 * missing-plugin message was posted).
 */
static void
play(int out, const char *dir, const char *name, const struct watch *watch)
{
	g_autofree char *path = g_build_filename(dir, name, NULL);
	GstElement *pipeline = gst_pipeline_new(NULL);
	GstElement *source = gst_element_factory_make("filesrc", NULL);
	GstElement *decodebin = gst_element_factory_make("decodebin", NULL);
	g_assert_nonnull(source);
	g_assert_nonnull(decodebin);
	g_object_set(source, "location", path, NULL);
	gst_bin_add_many(GST_BIN(pipeline), source, decodebin, NULL);
	g_assert_true(gst_element_link(source, decodebin));
	g_signal_connect(decodebin, "pad-added", G_CALLBACK(pad_added_cb), pipeline);
	g_signal_connect(pipeline, "deep-element-added", G_CALLBACK(element_added_cb),
		(gpointer)watch);
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstBus *bus = gst_element_get_bus(pipeline);
	long code = -1;
	bool missing = false;
	while (code < 0) {
		GstMessage *message = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
			GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
		if (!message) {
			code = ETIMEDOUT;
			break;
		}
		const GstStructure *s = gst_message_get_structure(message);
		if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_EOS) {
			code = 0;
		} else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) {
			GError *error = NULL;
			gst_message_parse_error(message, &error, NULL);
			g_printerr("%s: %s\n", name, error->message);
			code = error->domain == GST_CORE_ERROR &&
				error->code == GST_CORE_ERROR_MISSING_PLUGIN ? 1000 :
				2000 + error->code;
			g_error_free(error);
		} else if (s && gst_structure_has_name(s, "missing-plugin")) {
			missing = true;
		}
		gst_message_unref(message);
	}
	gst_object_unref(bus);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
	report(out, name, code);
	char key[96];
	g_snprintf(key, sizeof(key), "%s-missing", name);
	report(out, key, missing);
}

/* What the clips hold: every container and codec umms's tests play. */
static const char *const played[] = { "av.mkv", "av.mp4", "av.ts", "vp9.webm", "audio.ogg" };

static void
gst_play_child(int out, const void *data)
{
	gst_init(NULL, NULL);
	GError *error = NULL;
	if (!umms_sandbox_rank_plugins(NULL, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	enter(out, default_policy);
	struct watch watch = { .out = out };
	for (size_t i = 0; i < G_N_ELEMENTS(played); i++)
		play(out, clips_dir, played[i], &watch);
}

static void
test_gst_play(void)
{
	g_assert_nonnull(clips_dir);
	g_autoptr(GHashTable) r = run_child(gst_play_child, NULL, 120);
	for (size_t i = 0; i < G_N_ELEMENTS(played); i++)
		g_assert_cmpint(value(r, played[i]), ==, 0);
	/* Decoded, not merely demuxed. */
	EXPECT(r,
		{ "plugged-avdec_h264", 1 }, { "plugged-opusdec", 1 },
		{ "plugged-vp9dec", 1 });
}

/* An 18-byte file typefound as audio/x-voc, on which avdemux_voc spins. */
static const char voc[] = "Creative Voice Fil";

static void
gst_voc_child(int out, const void *data)
{
	bool ranked = *(const bool *)data;
	gst_init(NULL, NULL);
	GError *error = NULL;
	if (ranked && !umms_sandbox_rank_plugins(NULL, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	/* The CPU limit ends a spinning control child for sure. */
	struct umms_sandbox_policy policy = default_policy;
	policy.cpu_seconds = 10;
	enter(out, policy);
	struct watch watch = { .out = out, .leave_on = ranked ? NULL : "avdemux_voc" };
	play(out, tmpdir, "voice.voc", &watch);
}

static void
test_gst_excluded(void)
{
	g_autofree char *path = g_build_filename(tmpdir, "voice.voc", NULL);
	g_assert_cmpuint(strlen(voc), ==, 18);
	g_assert_true(g_file_set_contents(path, voc, 18, NULL));
	/* Without the ranks, decodebin plugs avdemux_voc. */
	bool ranked = false;
	g_autoptr(GHashTable) control = run_child(gst_voc_child, &ranked, 60);
	g_assert_cmpint(value(control, "plugged-avdemux_voc"), ==, 1);
	/* With them, nothing takes the file: a missing plugin, at once. */
	ranked = true;
	gint64 start = g_get_monotonic_time();
	g_autoptr(GHashTable) r = run_child(gst_voc_child, &ranked, 60);
	g_assert_false(g_hash_table_contains(r, "plugged-avdemux_voc"));
	g_assert_cmpint(value(r, "voice.voc"), ==, 1000);
	g_assert_cmpint(value(r, "voice.voc-missing"), ==, 1);
	g_assert_cmpint(g_get_monotonic_time() - start, <, 30 * G_USEC_PER_SEC);
}

/* Child: ranks and registry entries after umms_sandbox_rank_plugins(). */
static void
gst_ranks_child(int out, const void *data)
{
	gst_init(NULL, NULL);
	static const char *const extra[] = { "rtpxqtdepay", NULL };
	GError *error = NULL;
	if (!umms_sandbox_rank_plugins(extra, &error)) {
		dprintf(out, "rank-failed %s\n", error->message);
		_exit(2);
	}
	/* Loading the plugins of removed sources must not bring them back. */
	static const char *const made[] = { "fakesink", "giosink" };
	for (size_t i = 0; i < G_N_ELEMENTS(made); i++) {
		GstElement *element = gst_element_factory_make(made[i], NULL);
		report(out, made[i], element != NULL);
		if (element)
			gst_object_unref(gst_object_ref_sink(element));
	}
	static const char *const names[] = {
		"avdemux_voc", "avdec_h264", "qtdemux", "rtpxqtdepay", "rtpsv3vdepay",
		"filesrc", "giosrc", "fdsrc",
	};
	GstRegistry *registry = gst_registry_get();
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		GstPluginFeature *feature = gst_registry_lookup_feature(registry, names[i]);
		report(out, names[i], feature ? (long)gst_plugin_feature_get_rank(feature) : -1);
		if (feature)
			gst_object_unref(feature);
	}
	report(out, "file-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "file"));
	report(out, "resource-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "resource"));
	report(out, "fd-scheme", gst_uri_protocol_is_supported(GST_URI_SRC, "fd"));
}

static void
test_gst_ranks(void)
{
	g_autoptr(GHashTable) r = run_child(gst_ranks_child, NULL, 60);
	g_assert_cmpint(value(r, "avdemux_voc"), ==, GST_RANK_NONE);
	g_assert_cmpint(value(r, "rtpsv3vdepay"), ==, GST_RANK_NONE);
	g_assert_cmpint(value(r, "avdec_h264"), >, GST_RANK_NONE);
	g_assert_cmpint(value(r, "qtdemux"), >, GST_RANK_NONE);
	/* Added by the caller. */
	g_assert_cmpint(value(r, "rtpxqtdepay"), >, GST_RANK_NONE);
	/* A URI source outside the list is gone, and with it its schemes. */
	g_assert_cmpint(value(r, "filesrc"), >, GST_RANK_NONE);
	EXPECT(r,
		{ "giosrc", -1 }, { "file-scheme", 1 }, { "resource-scheme", 0 },
		/* fdsrc shares its plugin with filesrc, giosrc with giosink. */
		{ "fakesink", 1 }, { "giosink", 1 }, { "fdsrc", -1 }, { "fd-scheme", 0 });
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	GError *error = NULL;
	tmpdir = g_dir_make_tmp("umms-sandbox-XXXXXX", &error);
	g_assert_no_error(error);
	clips_dir = g_getenv("UMMS_TEST_CLIPS");
	g_test_add_func("/sandbox/exec", test_exec);
	g_test_add_func("/sandbox/open", test_open);
	g_test_add_func("/sandbox/socket", test_socket);
	g_test_add_func("/sandbox/ptrace", test_ptrace);
	g_test_add_func("/sandbox/threads", test_threads);
	g_test_add_func("/sandbox/memfd", test_memfd);
	g_test_add_func("/sandbox/fds", test_fds);
	g_test_add_func("/sandbox/limits", test_limits);
	g_test_add_func("/sandbox/privs", test_privs);
	g_test_add_func("/sandbox/kill", test_kill);
	g_test_add_func("/sandbox/syscalls", test_syscalls);
	g_test_add_func("/sandbox/main-loop", test_main_loop);
	g_test_add_func("/sandbox/gstreamer/play", test_gst_play);
	g_test_add_func("/sandbox/gstreamer/excluded-demuxer", test_gst_excluded);
	g_test_add_func("/sandbox/gstreamer/ranks", test_gst_ranks);
	int ret = g_test_run();
	static const char *const made[] = { "existing", "voice.voc" };
	for (size_t i = 0; i < G_N_ELEMENTS(made); i++) {
		g_autofree char *path = g_build_filename(tmpdir, made[i], NULL);
		g_unlink(path);
	}
	g_rmdir(tmpdir);
	g_free(tmpdir);
	return ret;
}
