/*
 * The engine worker's sandbox (worker/sandbox.h), call by call: what a
 * child that entered it may and may not do (sandbox-child.h runs them).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/videodev2.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "landlock.h"
#include "sandbox-child.h"

/* The folder the parent prepares files in before forking. */
static char *tmpdir;

static void
exec_child(int out, const void *data)
{
	child_enter(out, child_default_policy);
	char *argv[] = { "/bin/true", NULL };
	char *envp[] = { NULL };
	child_report(out, "execve", child_result(execve(argv[0], argv, envp)));
	child_report(out, "fork", child_result(fork()));
	child_report(out, "alive", 1);
}

static void
test_exec(void)
{
	g_autoptr(GHashTable) r = child_run(exec_child, NULL, 20);
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
	child_enter(out, child_default_policy);
	child_report(out, "create", child_result(open(created, O_WRONLY | O_CREAT | O_TRUNC, 0600)));
	child_report(out, "create-rdonly", child_result(open(made, O_RDONLY | O_CREAT, 0600)));
	child_report(out, "rdwr", child_result(open(existing, O_RDWR)));
	child_report(out, "append", child_result(open(existing, O_WRONLY | O_APPEND)));
	child_report(out, "truncate", child_result(open(existing, O_RDONLY | O_TRUNC)));
	child_report(out, "unlink", child_result(unlink(existing)));
	child_report(out, "mkdir", child_result(mkdir(dir, 0700)));
	int fd = open(existing, O_RDONLY | O_CLOEXEC);
	child_report(out, "rdonly", child_result(fd));
	char buf[16] = { 0 };
	child_report(out, "read", fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1);
	child_report(out, "content", strcmp(buf, "umms") == 0);
	child_report(out, "opendir", child_result(open(tmpdir, O_RDONLY | O_DIRECTORY)));
}

static void
test_open(void)
{
	g_autofree char *existing = g_build_filename(tmpdir, "existing", NULL);
	g_assert_true(g_file_set_contents(existing, "umms", -1, NULL));
	g_autoptr(GHashTable) r = child_run(open_child, NULL, 20);
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
	struct umms_sandbox_policy policy = child_default_policy;
	policy.network = *(const bool *)data;
	child_enter(out, policy);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	child_report(out, "inet", child_result(fd));
	struct sockaddr_in address = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	if (fd >= 0)
		child_report(out, "bind", child_result(bind(fd, (struct sockaddr *)&address, sizeof(address))));
	child_report(out, "inet6", child_result(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)));
	child_report(out, "unix", child_result(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)));
	child_report(out, "netlink", child_result(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0)));
	/* Pairs: GstPoll and GstBus make them. */
	int pair[2];
	child_report(out, "socketpair", child_result(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair)));
	child_report(out, "send", child_result(send(pair[0], "x", 1, 0)));
	char c = 0;
	child_report(out, "recv", child_result(recv(pair[1], &c, 1, 0)));
	child_report(out, "received", c == 'x');
}

static void
test_socket(void)
{
	bool network = false;
	g_autoptr(GHashTable) r = child_run(socket_child, &network, 20);
	EXPECT(r,
		{ "inet", EPERM }, { "inet6", EPERM }, { "unix", EPERM },
		{ "netlink", EPERM }, { "socketpair", 0 }, { "received", 1 });

	network = true;
	g_autoptr(GHashTable) n = child_run(socket_child, &network, 20);
	g_assert_cmpint(child_value(n, "inet"), ==, 0);
	g_assert_cmpint(child_value(n, "bind"), ==, 0);
	/* A host without IPv6 says EAFNOSUPPORT: not the sandbox. */
	g_assert_cmpint(child_value(n, "inet6"), !=, EPERM);
	EXPECT(n,
		{ "unix", EPERM }, { "netlink", EPERM }, { "received", 1 });
}

/* policy.audio: a sound server's unix socket may be reached, nothing else more. */
static void
audio_child(int out, const void *data)
{
	struct umms_sandbox_policy policy = child_default_policy;
	policy.audio = true;
	child_enter(out, policy);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	child_report(out, "unix", child_result(fd));
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	g_snprintf(address.sun_path, sizeof(address.sun_path), "%s/server", tmpdir);
	child_report(out, "connect", fd < 0 ? -1 :
		child_result(connect(fd, (struct sockaddr *)&address, sizeof(address))));
	int other = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un mine = { .sun_family = AF_UNIX };
	g_snprintf(mine.sun_path, sizeof(mine.sun_path), "%s/listener", tmpdir);
	child_report(out, "bind", other < 0 ? -1 :
		child_result(bind(other, (struct sockaddr *)&mine, sizeof(mine))));
	child_report(out, "inet", child_result(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)));
	child_report(out, "netlink", child_result(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0)));
}

static void
test_audio(void)
{
	g_autofree char *path = g_build_filename(tmpdir, "server", NULL);
	int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	g_assert_cmpint(server, >=, 0);
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	g_strlcpy(address.sun_path, path, sizeof(address.sun_path));
	g_assert_cmpint(bind(server, (struct sockaddr *)&address, sizeof(address)), ==, 0);
	g_assert_cmpint(listen(server, 4), ==, 0);
	g_autoptr(GHashTable) r = child_run(audio_child, NULL, 20);
	EXPECT(r,
		{ "unix", 0 }, { "connect", 0 }, { "bind", EPERM }, { "inet", EPERM },
		{ "netlink", EPERM });
	close(server);
	g_unlink(path);
}

/* policy.devices: read-write opens of what exists, still no creating. */
static void
devices_child(int out, const void *data)
{
	g_autofree char *existing = g_build_filename(tmpdir, "device", NULL);
	g_autofree char *created = g_build_filename(tmpdir, "created-device", NULL);
	struct umms_sandbox_policy policy = child_default_policy;
	policy.devices = true;
	child_enter(out, policy);
	child_report(out, "rdwr", child_result(open(existing, O_RDWR | O_CLOEXEC)));
	child_report(out, "create", child_result(open(created, O_RDWR | O_CREAT | O_CLOEXEC, 0600)));
	child_report(out, "truncate", child_result(open(existing, O_RDWR | O_TRUNC | O_CLOEXEC)));
	child_report(out, "wronly", child_result(open(existing, O_WRONLY | O_CLOEXEC)));
}

static void
test_devices(void)
{
	g_autofree char *existing = g_build_filename(tmpdir, "device", NULL);
	g_assert_true(g_file_set_contents(existing, "umms", -1, NULL));
	g_autoptr(GHashTable) r = child_run(devices_child, NULL, 20);
	EXPECT(r,
		{ "rdwr", 0 }, { "create", EPERM }, { "truncate", EPERM }, { "wronly", EPERM });
	g_autofree char *created = g_build_filename(tmpdir, "created-device", NULL);
	g_assert_false(g_file_test(created, G_FILE_TEST_EXISTS));
}

/*
 * policy.devices with Landlock: the nodes given read-write and their
 * folders in /sys readable, nothing else in /dev writable (nor any file),
 * nothing else in /sys readable.
 */
static void
devices_landlock_child(int out, const void *data)
{
	g_autofree char *existing = g_build_filename(tmpdir, "device", NULL);
	const char *const nodes[] = { "/dev/full", NULL };
	struct umms_sandbox_policy policy = child_default_policy;
	policy.devices = true;
	policy.landlock = true;
	policy.device_paths = nodes;
	child_enter(out, policy);
	child_report(out, "given", child_result(open("/dev/full", O_RDWR | O_CLOEXEC)));
	child_report(out, "zero-read", child_result(open("/dev/zero", O_RDONLY | O_CLOEXEC)));
	child_report(out, "zero-rdwr", child_result(open("/dev/zero", O_RDWR | O_CLOEXEC)));
	child_report(out, "ptmx", child_result(open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)));
	child_report(out, "mem", child_result(open("/dev/mem", O_RDONLY | O_CLOEXEC)));
	child_report(out, "file", child_result(open(existing, O_RDWR | O_CLOEXEC)));
	child_report(out, "sys-own", child_result(open("/sys/dev/char/1:7/uevent", O_RDONLY | O_CLOEXEC)));
	child_report(out, "sys-other", child_result(open("/sys/dev/char/1:5/uevent", O_RDONLY | O_CLOEXEC)));
	child_report(out, "sys-kernel", child_result(open("/sys/kernel", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
	child_report(out, "sys-class", child_result(open("/sys/class", O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
}

static void
test_devices_landlock(void)
{
	if (umms_landlock_abi() == 0) {
		g_test_skip("this kernel has no Landlock");
		return;
	}
	g_autofree char *existing = g_build_filename(tmpdir, "device", NULL);
	g_assert_true(g_file_set_contents(existing, "umms", -1, NULL));
	/* /dev/full is /dev/full, /sys/dev/char/1:5 /dev/zero's. */
	struct stat st;
	g_assert_cmpint(stat("/dev/full", &st), ==, 0);
	g_assert_true(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));
	g_assert_true(g_file_test("/sys/dev/char/1:5/uevent", G_FILE_TEST_EXISTS));
	g_autoptr(GHashTable) r = child_run(devices_landlock_child, NULL, 20);
	EXPECT(r,
		{ "given", 0 }, { "zero-read", 0 }, { "zero-rdwr", EACCES }, { "ptmx", EACCES },
		{ "file", EACCES }, { "sys-own", 0 }, { "sys-other", EACCES },
		{ "sys-kernel", EACCES }, { "sys-class", 0 });
	/* Where the machine has /dev/mem (a container may not): refused too. */
	EXPECT(r, { "mem", g_file_test("/dev/mem", G_FILE_TEST_EXISTS) ? EACCES : ENOENT });
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(existing, &text, NULL, NULL));
	g_assert_cmpstr(text, ==, "umms");
}

static void
ptrace_child(int out, const void *data)
{
	pid_t parent = getppid();
	child_enter(out, child_default_policy);
	child_report(out, "traceme", child_result(ptrace(PTRACE_TRACEME, 0, NULL, NULL)));
	child_report(out, "attach", child_result(ptrace(PTRACE_ATTACH, parent, NULL, NULL)));
	char buf[8];
	struct iovec local = { buf, sizeof(buf) }, remote = { &tmpdir, sizeof(buf) };
	child_report(out, "vm-read", child_result(process_vm_readv(parent, &local, 1, &remote, 1, 0)));
	child_report(out, "unshare", child_result(unshare(CLONE_NEWUSER)));
}

static void
test_ptrace(void)
{
	g_autoptr(GHashTable) r = child_run(ptrace_child, NULL, 20);
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
	e->socket_errno = (int)child_result(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	return NULL;
}

static void
thread_child(int out, const void *data)
{
	struct earlier e = { .go = false };
	pthread_t earlier;
	child_report(out, "earlier-create", pthread_create(&earlier, NULL, earlier_main, &e));
	child_enter(out, child_default_policy);
	g_mutex_lock(&e.lock);
	e.go = true;
	g_cond_signal(&e.cond);
	g_mutex_unlock(&e.lock);
	pthread_join(earlier, NULL);
	child_report(out, "earlier-socket", e.socket_errno);
	pthread_t thread;
	int answer = 0;
	int err = pthread_create(&thread, NULL, thread_main, &answer);
	child_report(out, "create", err);
	if (err == 0)
		child_report(out, "join", pthread_join(thread, NULL));
	child_report(out, "answer", answer);
	/* GLib's own threads and pool, as GStreamer's tasks use them. */
	GThread *gthread = g_thread_try_new("sandboxed", (GThreadFunc)thread_main, &answer, NULL);
	child_report(out, "gthread", gthread != NULL);
	if (gthread)
		g_thread_join(gthread);
}

static void
test_threads(void)
{
	g_autoptr(GHashTable) r = child_run(thread_child, NULL, 20);
	EXPECT(r,
		{ "create", 0 }, { "join", 0 }, { "answer", 42 }, { "gthread", 1 });
	/* The filter holds for every thread, not only the one that loaded it. */
	g_assert_cmpint(child_value(r, "earlier-create"), ==, 0);
	g_assert_cmpint(child_value(r, "earlier-socket"), ==, EPERM);
}

static void
memfd_child(int out, const void *data)
{
	child_enter(out, child_default_policy);
	int fd = memfd_create("umms-frame", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	child_report(out, "memfd", child_result(fd));
	if (fd < 0)
		return;
	child_report(out, "ftruncate", child_result(ftruncate(fd, 65536)));
	unsigned char *map = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	child_report(out, "mmap", map == MAP_FAILED ? errno : 0);
	if (map == MAP_FAILED)
		return;
	map[65535] = 0x5a;
	unsigned char byte = 0;
	child_report(out, "pread", child_result(pread(fd, &byte, 1, 65535)));
	child_report(out, "byte", byte);
	child_report(out, "seal", child_result(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)));
	munmap(map, 65536);
}

static void
test_memfd(void)
{
	g_autoptr(GHashTable) r = child_run(memfd_child, NULL, 20);
	EXPECT(r,
		{ "memfd", 0 }, { "ftruncate", 0 }, { "mmap", 0 }, { "byte", 0x5a },
		{ "seal", 0 });
}

static void
fds_child(int out, const void *data)
{
	int open_before = open("/dev/null", O_RDONLY);
	int high = fcntl(open_before, F_DUPFD, 100);
	child_report(out, "before", open_before >= 3 && high >= 100);
	child_enter(out, child_default_policy);
	child_report(out, "closed", fcntl(open_before, F_GETFD) < 0 && errno == EBADF);
	child_report(out, "high-closed", fcntl(high, F_GETFD) < 0 && errno == EBADF);
	child_report(out, "kept", child_result(fcntl(out, F_GETFD)));
}

static void
test_fds(void)
{
	g_autoptr(GHashTable) r = child_run(fds_child, NULL, 20);
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
	child_enter(out, policy);
	struct rlimit limit;
	getrlimit(RLIMIT_NOFILE, &limit);
	child_report(out, "nofile", (long)limit.rlim_cur);
	child_report(out, "nofile-max", (long)limit.rlim_max);
	getrlimit(RLIMIT_CPU, &limit);
	child_report(out, "cpu", (long)limit.rlim_cur);
	limit.rlim_cur = limit.rlim_max = RLIM_INFINITY;
	child_report(out, "raise", child_result(setrlimit(RLIMIT_NOFILE, &limit)));
	child_report(out, "prlimit-raise", child_result(prlimit(0, RLIMIT_NOFILE, &limit, NULL)));
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
	child_report(out, "nofile-err", err);
	child_report(out, "last-fd", last);
	/* Data: 8 MiB more is fine, 128 MiB more is not. */
	const int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *small = mmap(NULL, 8 << 20, prot, flags, -1, 0);
	child_report(out, "small", small == MAP_FAILED ? errno : 0);
	void *big = mmap(NULL, 128 << 20, prot, flags, -1, 0);
	child_report(out, "big", big == MAP_FAILED ? errno : 0);
}

static void
test_limits(void)
{
	g_autoptr(GHashTable) r = child_run(limits_child, NULL, 20);
	EXPECT(r,
		{ "nofile", 32 }, { "nofile-max", 32 }, { "cpu", 30 }, { "raise", EPERM },
		{ "prlimit-raise", EPERM }, { "nofile-err", EMFILE }, { "last-fd", 31 },
		{ "small", 0 }, { "big", ENOMEM });
}

static void
privs_child(int out, const void *data)
{
	child_report(out, "dumpable-before", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	child_enter(out, child_default_policy);
	child_report(out, "no-new-privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	child_report(out, "dumpable", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
	child_report(out, "seccomp", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	child_report(out, "set-dumpable", child_result(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)));
	/* Its own /proc files stay readable. */
	child_report(out, "maps", child_result(open("/proc/self/maps", O_RDONLY | O_CLOEXEC)));
}

static void
test_privs(void)
{
	g_autoptr(GHashTable) r = child_run(privs_child, NULL, 20);
	EXPECT(r,
		{ "dumpable-before", 1 }, { "no-new-privs", 1 }, { "dumpable", 0 },
		{ "seccomp", 2 }, { "set-dumpable", EPERM }, { "maps", 0 });
}

static void
kill_child(int out, const void *data)
{
	pid_t parent = getppid();
	child_enter(out, child_default_policy);
	child_report(out, "init", child_result(kill(1, 0)));
	child_report(out, "parent", child_result(kill(parent, 0)));
	child_report(out, "group", child_result(kill(0, 0)));
	child_report(out, "self", child_result(kill(getpid(), 0)));
	child_report(out, "raise", child_result(raise(SIGWINCH)));
}

static void
test_kill(void)
{
	g_autoptr(GHashTable) r = child_run(kill_child, NULL, 20);
	EXPECT(r,
		{ "init", EPERM }, { "parent", EPERM }, { "group", EPERM }, { "self", 0 },
		{ "raise", 0 });
}

static void
syscalls_child(int out, const void *data)
{
	child_enter(out, child_default_policy);
	/* Flags in memory: ENOSYS, so that glibc falls back. */
	child_report(out, "clone3", child_result(syscall(SYS_clone3, NULL, 0)));
	child_report(out, "openat2", child_result(syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0)));
	/* ioctl by request: dma-buf sync reaches the kernel (not a dma-buf: ENOTTY). */
	int fd = memfd_create("umms-ioctl", MFD_CLOEXEC);
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ };
	child_report(out, "dma-buf-sync", child_result(ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync)));
	int bytes = 0;
	int pair[2];
	socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
	child_report(out, "fionread", child_result(ioctl(pair[0], FIONREAD, &bytes)));
	/* Typing into the terminal, V4L2 (a camera could capture), FS flags. */
	char c = 'x';
	child_report(out, "tiocsti", child_result(ioctl(0, TIOCSTI, &c)));
	struct v4l2_capability caps;
	child_report(out, "v4l2", child_result(ioctl(fd, VIDIOC_QUERYCAP, &caps)));
	long flags = 0;
	child_report(out, "fs-flags", child_result(ioctl(fd, FS_IOC_GETFLAGS, &flags)));
	child_report(out, "setsid", child_result(setsid()));
	/* SIGIO to another process. */
	child_report(out, "setown", child_result(fcntl(pair[0], F_SETOWN, getppid())));
	child_report(out, "setfl", child_result(fcntl(pair[0], F_SETFL, O_NONBLOCK)));
	child_report(out, "chdir", child_result(chdir("/")));
}

static void
test_syscalls(void)
{
	g_autoptr(GHashTable) r = child_run(syscalls_child, NULL, 20);
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
	child_enter(out, child_default_policy);
	/* Another thread wakes the loop through the context's eventfd. */
	pthread_t thread;
	pthread_create(&thread, NULL, wake_main, loop);
	gint64 start = g_get_monotonic_time();
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	g_main_loop_run(loop);
	getrusage(RUSAGE_SELF, &after);
	child_report(out, "woken-ms", (long)((g_get_monotonic_time() - start) / 1000));
	/* Waiting, not spinning on a closed descriptor (poll says POLLNVAL). */
	long cpu_us = (after.ru_utime.tv_sec - before.ru_utime.tv_sec) * 1000000L +
		(after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
		(after.ru_stime.tv_sec - before.ru_stime.tv_sec) * 1000000L +
		(after.ru_stime.tv_usec - before.ru_stime.tv_usec);
	child_report(out, "cpu-ms", cpu_us / 1000);
	pthread_join(thread, NULL);
}

static void
test_main_loop(void)
{
	g_autoptr(GHashTable) r = child_run(main_loop_child, NULL, 20);
	g_assert_cmpint(child_value(r, "woken-ms"), <, 5000);
	g_assert_cmpint(child_value(r, "cpu-ms"), <, 100);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	GError *error = NULL;
	tmpdir = g_dir_make_tmp("umms-sandbox-XXXXXX", &error);
	g_assert_no_error(error);
	g_test_add_func("/sandbox/exec", test_exec);
	g_test_add_func("/sandbox/open", test_open);
	g_test_add_func("/sandbox/socket", test_socket);
	g_test_add_func("/sandbox/audio", test_audio);
	g_test_add_func("/sandbox/devices", test_devices);
	g_test_add_func("/sandbox/devices-landlock", test_devices_landlock);
	g_test_add_func("/sandbox/ptrace", test_ptrace);
	g_test_add_func("/sandbox/threads", test_threads);
	g_test_add_func("/sandbox/memfd", test_memfd);
	g_test_add_func("/sandbox/fds", test_fds);
	g_test_add_func("/sandbox/limits", test_limits);
	g_test_add_func("/sandbox/privs", test_privs);
	g_test_add_func("/sandbox/kill", test_kill);
	g_test_add_func("/sandbox/syscalls", test_syscalls);
	g_test_add_func("/sandbox/main-loop", test_main_loop);
	int ret = g_test_run();
	g_autofree char *existing = g_build_filename(tmpdir, "existing", NULL);
	g_unlink(existing);
	g_rmdir(tmpdir);
	g_free(tmpdir);
	return ret;
}
