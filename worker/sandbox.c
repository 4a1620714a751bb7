/*
 * The engine worker's sandbox (sandbox.h): descriptors, limits, privileges
 * and a seccomp allowlist, then element ranks.
 */
#include "sandbox.h"
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gst/gst.h>
#include <seccomp.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif

/* The namespace flags clone may not carry, even with CLONE_THREAD. */
#define CLONE_NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
	CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)

static bool
fail_errno(GError **error, int err, const char *what)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(err),
		"sandbox: %s: %s", what, g_strerror(err));
	return false;
}

static gint
compare_fds(gconstpointer a, gconstpointer b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Closes [from, to]; close_range where the kernel has it (5.9). */
static void
close_between(unsigned from, unsigned to)
{
	if (from > to)
		return;
	if (close_range(from, to, 0) == 0)
		return;
	/* Before Linux 5.9: one by one, up to the descriptor limit. */
	long max = sysconf(_SC_OPEN_MAX);
	unsigned long end = max > 0 ? (unsigned long)max : 65536;
	if (end > (unsigned long)to + 1)
		end = (unsigned long)to + 1;
	for (unsigned long fd = from; fd < end; fd++)
		close((int)fd);
}

/*
 * Appends the descriptors @context polls (its wakeup eventfd, its sources'
 * descriptors): closed under it, GLib would spin on POLLNVAL and write its
 * wakeups into whatever file gets the number next.
 */
static bool
add_context_fds(GMainContext *context, GArray *keep, GError **error)
{
	if (!g_main_context_acquire(context)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
			"sandbox: a main context runs in another thread: enter from it");
		return false;
	}
	gint timeout, n = 16;
	GPollFD *fds = NULL;
	for (gint size = 0; n > size;) {
		size = n;
		fds = g_renew(GPollFD, fds, size);
		n = g_main_context_query(context, G_MAXINT, &timeout, fds, size);
	}
	for (gint i = 0; i < n; i++)
		g_array_append_val(keep, fds[i].fd);
	g_free(fds);
	g_main_context_release(context);
	return true;
}

static bool
close_fds(const struct umms_sandbox_policy *p, GError **error)
{
	if (p->n_keep > 4096)
		return fail_errno(error, EINVAL, "too many descriptors to keep");
	if (p->n_media > 16)
		return fail_errno(error, EINVAL, "too many media descriptors");
	GArray *keep = g_array_sized_new(FALSE, FALSE, sizeof(int), (guint)p->n_keep + 24);
	g_array_append_vals(keep, p->keep_fds, (guint)p->n_keep);
	if (p->n_media)
		g_array_append_vals(keep, p->media_fds, (guint)p->n_media);
	GMainContext *thread_default = g_main_context_get_thread_default();
	if (!add_context_fds(g_main_context_default(), keep, error) ||
			(thread_default && !add_context_fds(thread_default, keep, error))) {
		g_array_unref(keep);
		return false;
	}
	g_array_sort(keep, compare_fds);
	unsigned next = 3;
	for (guint i = 0; i < keep->len; i++) {
		int fd = g_array_index(keep, int, i);
		if (fd < 3 || (unsigned)fd < next)
			continue;
		close_between(next, (unsigned)fd - 1);
		next = (unsigned)fd + 1;
	}
	close_between(next, ~0U);
	g_array_unref(keep);
	return true;
}

/* The data segment's size now, from /proc/self/status (VmData, in kB). */
static bool
data_size(uint64_t *bytes, GError **error)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return fail_errno(error, errno, "/proc/self/status");
	char line[256];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t kb;
		if (sscanf(line, "VmData: %" SCNu64 " kB", &kb) == 1 && kb < UINT64_MAX / 1024) {
			*bytes = kb * 1024;
			found = true;
		}
	}
	fclose(f);
	if (!found)
		return fail_errno(error, ENOENT, "no VmData in /proc/self/status");
	return true;
}

static bool
set_limit(int resource, uint64_t value, const char *name, GError **error)
{
	struct rlimit limit = { .rlim_cur = value, .rlim_max = value };
	if (setrlimit(resource, &limit) < 0)
		return fail_errno(error, errno, name);
	return true;
}

static bool
set_limits(const struct umms_sandbox_policy *p, GError **error)
{
	if (p->max_fds && !set_limit(RLIMIT_NOFILE, p->max_fds, "RLIMIT_NOFILE", error))
		return false;
	if (p->cpu_seconds) {
		/* SIGXCPU at the soft limit, SIGKILL a second later. */
		struct rlimit limit = { .rlim_cur = p->cpu_seconds,
			.rlim_max = (rlim_t)p->cpu_seconds + 1 };
		if (setrlimit(RLIMIT_CPU, &limit) < 0)
			return fail_errno(error, errno, "RLIMIT_CPU");
	}
	if (p->memory_bytes) {
		uint64_t now;
		if (!data_size(&now, error))
			return false;
		uint64_t value = now > UINT64_MAX - p->memory_bytes ? RLIM_INFINITY :
			now + p->memory_bytes;
		if (!set_limit(RLIMIT_DATA, value, "RLIMIT_DATA", error))
			return false;
	}
	return true;
}


/* Allowed whatever their arguments; names this architecture lacks are skipped. */
static const char *const plain_syscalls[] = {
	/* memory */
	"brk", "mmap", "mprotect", "munmap", "mremap", "madvise", "mincore", "msync",
	"membarrier", "memfd_create", "mlock", "mlock2", "munlock",
	/* threads */
	"futex", "futex_waitv", "set_robust_list", "set_tid_address", "rseq", "arch_prctl",
	"sched_yield", "sched_getaffinity", "sched_getparam", "sched_getscheduler",
	"sched_getattr", "sched_get_priority_max", "sched_get_priority_min",
	"sched_rr_get_interval", "getcpu",
	/* descriptors the process holds, read-only paths */
	"read", "write", "pread64", "pwrite64", "readv", "writev", "preadv", "pwritev",
	"preadv2", "pwritev2", "lseek", "close", "close_range", "dup", "dup2", "dup3",
	"ftruncate", "fallocate", "fsync", "fdatasync", "fadvise64",
	"fstat", "stat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
	"access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents",
	"getdents64", "getcwd",
	/* waiting and time */
	"poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1",
	"epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
	"pipe", "pipe2", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"signalfd", "signalfd4", "timer_create", "timer_settime", "timer_gettime",
	"timer_getoverrun", "timer_delete", "getitimer", "setitimer", "alarm",
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
	"time", "getrandom",
	/* sockets already open: the IPC channel, GstPoll's pairs */
	"sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "sendto", "recvfrom", "shutdown",
	"getsockopt", "setsockopt", "getsockname", "getpeername",
	/* signals */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigsuspend", "sigaltstack", "restart_syscall",
	/* the process itself */
	"exit", "exit_group", "getpid", "gettid", "getppid", "getuid", "geteuid",
	"getgid", "getegid", "getresuid", "getresgid", "getgroups", "uname", "sysinfo",
	"getrusage", "times", "getpriority", "getrlimit", "get_mempolicy", "umask",
};

static bool
add_rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
	const struct scmp_arg_cmp *args, GError **error)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		return true;
	int ret = seccomp_rule_add_array(ctx, action, nr, n, args);
	if (ret < 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			"sandbox: seccomp rule for %s: %s", name, g_strerror(-ret));
		return false;
	}
	return true;
}

/* Allows @name when argument @arg equals @value. */
static bool
allow_eq(scmp_filter_ctx ctx, const char *name, unsigned arg, uint64_t value, GError **error)
{
	struct scmp_arg_cmp cmp = { .arg = arg, .op = SCMP_CMP_EQ, .datum_a = value };
	return add_rule(ctx, SCMP_ACT_ALLOW, name, 1, &cmp, error);
}

/* Allows @name when argument @arg has @value in the bits of @mask. */
static bool
allow_masked(scmp_filter_ctx ctx, const char *name, unsigned arg, uint64_t mask,
	uint64_t value, GError **error)
{
	struct scmp_arg_cmp cmp = { .arg = arg, .op = SCMP_CMP_MASKED_EQ,
		.datum_a = mask, .datum_b = value };
	return add_rule(ctx, SCMP_ACT_ALLOW, name, 1, &cmp, error);
}

static bool
add_ioctls(scmp_filter_ctx ctx, bool network, bool devices, bool dvb, GError **error)
{
	/* policy.dvb: the frontend's and the demux's ('o'), for dvbsrc. */
	if (devices && dvb && !allow_masked(ctx, "ioctl", 1, 0xff00, 'o' << 8, error))
		return false;
	/*
	 * policy.devices: V4L2 ('V') for memory-to-memory decoders
	 * (v4l2slh264dec...), which a camera would answer too.
	 */
	if (devices && !allow_masked(ctx, "ioctl", 1, 0xff00, 'V' << 8, error))
		return false;
	/* Whole families by the type byte of _IOC: dma-buf, DRM, sync_file. */
	static const unsigned types[] = { 'b', 'd', '>' };
	for (size_t i = 0; i < G_N_ELEMENTS(types); i++) {
		if (!allow_masked(ctx, "ioctl", 1, 0xff00, types[i] << 8, error))
			return false;
	}
	static const unsigned long requests[] = {
		FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCGETS, TIOCGWINSZ,
	};
	static const unsigned long network_requests[] = {
		SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFCONF,
	};
	for (size_t i = 0; i < G_N_ELEMENTS(requests); i++) {
		if (!allow_masked(ctx, "ioctl", 1, 0xffffffff, requests[i], error))
			return false;
	}
	for (size_t i = 0; network && i < G_N_ELEMENTS(network_requests); i++) {
		if (!allow_masked(ctx, "ioctl", 1, 0xffffffff, network_requests[i], error))
			return false;
	}
	return true;
}

static bool
add_rules(scmp_filter_ctx ctx, const struct umms_sandbox_policy *p, GError **error)
{
	for (size_t i = 0; i < G_N_ELEMENTS(plain_syscalls); i++) {
		if (!add_rule(ctx, SCMP_ACT_ALLOW, plain_syscalls[i], 0, NULL, error))
			return false;
	}
	/* Threads only: a new process (fork, posix_spawn) is refused. */
	if (!allow_masked(ctx, "clone", 0, CLONE_THREAD | CLONE_NAMESPACES, CLONE_THREAD, error))
		return false;
	/* Flags in memory: ENOSYS makes glibc fall back to clone (and openat). */
	if (!add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL, error) ||
			!add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NULL, error))
		return false;
	/* Read-only opens: no write access, no creating, no truncating. */
	const uint64_t open_mask = O_ACCMODE | O_CREAT | O_TRUNC;
	if (!allow_masked(ctx, "openat", 2, open_mask, O_RDONLY, error) ||
			!allow_masked(ctx, "open", 1, open_mask, O_RDONLY, error))
		return false;
	/*
	 * policy.devices: read-write opens of files that exist (VA-API opens
	 * /dev/dri/renderD*), still no creating or truncating.
	 */
	if (p->devices && (!allow_masked(ctx, "openat", 2, open_mask, O_RDWR, error) ||
			!allow_masked(ctx, "open", 1, open_mask, O_RDWR, error)))
		return false;
	/*
	 * fcntl without F_SETOWN, F_SETOWN_EX, F_SETSIG: with O_ASYNC they
	 * would send SIGIO (which kills by default) to any process of the user.
	 */
	static const uint64_t fcntls[] = {
		F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_GETLK,
		F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_ADD_SEALS,
		F_GET_SEALS, F_GETPIPE_SZ, F_SETPIPE_SZ, F_GETOWN,
	};
	for (size_t i = 0; i < G_N_ELEMENTS(fcntls); i++) {
		if (!allow_eq(ctx, "fcntl", 1, fcntls[i], error))
			return false;
	}
	/* Scheduling of the calling thread only. */
	static const char *const sched_set[] = {
		"sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(sched_set); i++) {
		if (!allow_eq(ctx, sched_set[i], 0, 0, error))
			return false;
	}
	static const uint64_t prctls[] = {
		PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS,
		PR_GET_SECCOMP, PR_GET_TIMERSLACK, PR_SET_VMA,
	};
	for (size_t i = 0; i < G_N_ELEMENTS(prctls); i++) {
		if (!allow_eq(ctx, "prctl", 0, prctls[i], error))
			return false;
	}
	/* Reading limits only: prlimit64(0, resource, NULL, old). */
	const struct scmp_arg_cmp read_limit[] = {
		{ .arg = 0, .op = SCMP_CMP_EQ, .datum_a = 0 },
		{ .arg = 2, .op = SCMP_CMP_EQ, .datum_a = 0 },
	};
	if (!add_rule(ctx, SCMP_ACT_ALLOW, "prlimit64", 2, read_limit, error))
		return false;
	/* Signals to this process only (raise, pthread_kill, abort). */
	const uint64_t pid = (uint64_t)getpid();
	static const char *const signals[] = {
		"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(signals); i++) {
		if (!allow_eq(ctx, signals[i], 0, pid, error))
			return false;
	}
	if (!allow_eq(ctx, "socketpair", 0, AF_UNIX, error) || !add_ioctls(ctx, p->network, p->devices, p->dvb,
			error))
		return false;
	/*
	 * policy.audio: the sound server's socket (PulseAudio, PipeWire):
	 * socket(AF_UNIX) and connect, nothing that listens.
	 */
	if (p->audio && !allow_eq(ctx, "socket", 0, AF_UNIX, error))
		return false;
	if ((p->audio || p->network) && !add_rule(ctx, SCMP_ACT_ALLOW, "connect", 0, NULL, error))
		return false;
	if (!p->network)
		return true;
	if (!allow_eq(ctx, "socket", 0, AF_INET, error) ||
			!allow_eq(ctx, "socket", 0, AF_INET6, error))
		return false;
	static const char *const network[] = { "bind", "listen", "accept", "accept4" };
	for (size_t i = 0; i < G_N_ELEMENTS(network); i++) {
		if (!add_rule(ctx, SCMP_ACT_ALLOW, network[i], 0, NULL, error))
			return false;
	}
	return true;
}

static bool
load_filter(const struct umms_sandbox_policy *p, GError **error)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!ctx)
		return fail_errno(error, ENOMEM, "seccomp_init");
	bool ok = false;
	int ret;
	/* Another ABI's syscalls (int 0x80, x32) are refused the same way, not killed. */
	if ((ret = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM))) < 0 ||
			(ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) < 0) {
		fail_errno(error, -ret, "seccomp attributes");
		goto out;
	}
	if (!add_rules(ctx, p, error))
		goto out;
	if ((ret = seccomp_load(ctx)) < 0) {
		fail_errno(error, -ret, "seccomp_load");
		goto out;
	}
	ok = true;
out:
	seccomp_release(ctx);
	return ok;
}

const char *const umms_sandbox_read_paths[] = {
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/var/cache/fontconfig",
	"/proc/self", "/sys/devices/system/cpu", "/dev/null", "/dev/zero", "/dev/random",
	"/dev/urandom", NULL,
};

/* The folders of GStreamer's plugins (loaded lazily, from anywhere). */
static void
add_plugin_folders(GPtrArray *paths)
{
	if (!gst_is_initialized())
		return;
	GList *plugins = gst_registry_get_plugin_list(gst_registry_get());
	for (GList *l = plugins; l; l = l->next) {
		const char *file = gst_plugin_get_filename(l->data);
		if (!file)
			continue;
		char *folder = g_path_get_dirname(file);
		bool seen = false;
		for (guint i = 0; i < paths->len && !seen; i++)
			seen = strcmp(paths->pdata[i], folder) == 0;
		if (seen)
			g_free(folder);
		else
			g_ptr_array_add(paths, folder);
	}
	gst_plugin_list_free(plugins);
}

/* @path resolved, added to @paths if it exists. */
static void
add_resolved(GPtrArray *paths, const char *path)
{
	char *real = realpath(path, NULL);
	if (real)
		g_ptr_array_add(paths, g_strdup(real));
	free(real);
}

/*
 * The device nodes of policy.device_paths that are character devices go
 * to @nodes; to @read, each one's folder in /sys (/sys/dev/char/MAJ:MIN
 * resolved) and the device's it belongs to (its "device" link: a PCI
 * card's IDs, which libdrm and VA drivers read).
 */
static void
add_devices(const struct umms_sandbox_policy *p, GPtrArray *nodes, GPtrArray *read)
{
	for (const char *const *node = p->device_paths; node && *node; node++) {
		struct stat st;
		if (stat(*node, &st) < 0 || !S_ISCHR(st.st_mode))
			continue;
		g_ptr_array_add(nodes, g_strdup(*node));
		char link[64];
		snprintf(link, sizeof(link), "/sys/dev/char/%u:%u", major(st.st_rdev),
			minor(st.st_rdev));
		add_resolved(read, link);
		g_strlcat(link, "/device", sizeof(link));
		add_resolved(read, link);
	}
	/* Listings of links only (udev enumerates devices through them), and udev's data. */
	static const char *const listings[] = {
		"/sys/class", "/sys/bus", "/sys/dev", "/run/udev",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(listings); i++)
		g_ptr_array_add(read, g_strdup(listings[i]));
}

static bool
restrict_files(const struct umms_sandbox_policy *p, GError **error)
{
	GPtrArray *read = g_ptr_array_new_with_free_func(g_free);
	GPtrArray *nodes = g_ptr_array_new_with_free_func(g_free);
	for (const char *const *path = umms_sandbox_read_paths; *path; path++)
		g_ptr_array_add(read, g_strdup(*path));
	g_ptr_array_add(read, g_build_filename(g_get_user_cache_dir(), "fontconfig", NULL));
	/* The user's fonts, for subtitles drawn here: where fontconfig looks for them. */
	g_ptr_array_add(read, g_build_filename(g_get_user_data_dir(), "fonts", NULL));
	g_ptr_array_add(read, g_build_filename(g_get_home_dir(), ".local", "share", "fonts", NULL));
	g_ptr_array_add(read, g_build_filename(g_get_home_dir(), ".fonts", NULL));
	if (p->audio)
		g_ptr_array_add(read, g_build_filename(g_get_user_config_dir(), "pulse", NULL));
	if (p->devices)
		add_devices(p, nodes, read);
	add_plugin_folders(read);
	g_ptr_array_add(read, NULL);
	g_ptr_array_add(nodes, NULL);
	bool ok = umms_landlock_restrict((const char *const *)read->pdata,
		(const char *const *)nodes->pdata, p->media_fds, p->n_media, error);
	g_ptr_array_unref(read);
	g_ptr_array_unref(nodes);
	return ok;
}

bool
umms_sandbox_enter(const struct umms_sandbox_policy *p, GError **error)
{
	g_return_val_if_fail(p && (p->n_keep == 0 || p->keep_fds), false);
	if (!close_fds(p, error) || !set_limits(p, error))
		return false;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail_errno(error, errno, "PR_SET_NO_NEW_PRIVS");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return fail_errno(error, errno, "PR_SET_DUMPABLE");
	if (p->landlock && !restrict_files(p, error))
		return false;
	return load_filter(p, error);
}

const char *const umms_sandbox_default_elements[] = {
	/* the bins that plug the rest, umms's own elements */
	"decodebin", "decodebin3", "uridecodebin", "uridecodebin3", "parsebin",
	"urisourcebin", "playbin", "playbin3", "ummsteletextdec",
	/* sources: files, HTTP (and HLS/DASH fragments), RTSP (and its UDP), UDP, memory */
	"filesrc", "souphttpsrc", "rtspsrc", "udpsrc", "appsrc", "dataurisrc",
	/* capture devices (v4l2://), opened read-write under the devices flag */
	"v4l2src",
	/* DVB tuners (dvb://, tuned by ummsd): our source, dvbbasebin in it, its parts */
	"ummsdvbsrc", "dvbbasebin", "dvbsrc", "tsparse",
	/* containers */
	"qtdemux", "matroskademux", "tsdemux", "oggdemux", "flvdemux", "avidemux",
	"mpegpsdemux", "wavparse", "id3demux", "apedemux", "icydemux",
	"hlsdemux", "hlsdemux2", "dashdemux", "dashdemux2",
	/* parsers */
	"h264parse", "h265parse", "mpegvideoparse", "mpeg4videoparse", "vp9parse",
	"av1parse", "mpegaudioparse", "aacparse", "ac3parse", "dcaparse", "flacparse",
	/* RTP depayloaders of those codecs */
	"rtph264depay", "rtph265depay", "rtpmp2tdepay", "rtpmpvdepay", "rtpmp4vdepay",
	"rtpmp4gdepay", "rtpmp4adepay", "rtpmpadepay", "rtpac3depay", "rtpvp8depay",
	"rtpvp9depay", "rtpav1depay", "rtpopusdepay", "rtpvorbisdepay", "rtpL16depay",
	"rtppcmadepay", "rtppcmudepay",
	/* software decoders */
	"avdec_h264", "avdec_h265", "avdec_mpeg2video", "avdec_mpeg4", "avdec_vp8",
	"avdec_vp9", "avdec_av1", "avdec_aac", "avdec_aac_fixed", "avdec_mp3",
	"avdec_mp3float", "avdec_mp2float", "avdec_ac3", "avdec_ac3_fixed", "avdec_eac3",
	"avdec_dca", "avdec_opus", "avdec_vorbis", "avdec_flac", "vorbisdec", "opusdec",
	"flacdec", "vp8dec", "vp9dec", "dav1ddec", "av1dec", "mpg123audiodec", "a52dec",
	"mpeg2dec", "avdec_s302m",
	/* hardware decoders */
	"va*dec", "vaapi*dec", "vaapidecodebin", "nv*dec", "v4l2*dec",
	/* subtitles */
	"subparse", "ssaparse", "dvdsubdec", "dvdsubparse", "dvbsubdec", "teletextdec",
	NULL,
};

static bool
name_matches(const char *name, const char *const *patterns)
{
	if (!name)
		return false;
	for (const char *const *p = patterns; p && *p; p++) {
		if (strchr(*p, '*') ? g_pattern_match_simple(*p, name) : strcmp(*p, name) == 0)
			return true;
	}
	return false;
}

/*
 * gst_element_make_from_uri() ignores ranks, so a URI source goes out of
 * the registry. Loading its plugin later (for another of its elements:
 * fdsrc lives with filesrc, giosrc with giosink, multifilesrc with
 * splitmuxsink) registers it again, at its own rank: the registry says so
 * (feature-added), and it goes out again before the plugin's loading
 * returns. A ranked feature survives a reload (the plugin updates the
 * feature it finds), a removed one would not. Plugins are not loaded here:
 * loading every source's plugin (soup, srt, curl, rtmp, their TLS and XML
 * libraries) to keep them out cost each worker their memory and 25 ms.
 */
static GHashTable *removed_sources; /* names; for the life of the process */

static void
feature_added(GstRegistry *registry, GstPluginFeature *feature, gpointer data)
{
	if (g_hash_table_contains(removed_sources, gst_plugin_feature_get_name(feature)))
		gst_registry_remove_feature(registry, feature);
}

static void
remove_source(GstRegistry *registry, GstPluginFeature *feature)
{
	if (!removed_sources) {
		removed_sources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
		g_signal_connect(registry, "feature-added", G_CALLBACK(feature_added), NULL);
	}
	g_hash_table_add(removed_sources, g_strdup(gst_plugin_feature_get_name(feature)));
	gst_registry_remove_feature(registry, feature);
}

bool
umms_sandbox_rank_plugins(const char *const *allow, GError **error)
{
	if (!gst_is_initialized()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			"sandbox: GStreamer is not initialised");
		return false;
	}
	GstRegistry *registry = gst_registry_get();
	GList *features = gst_registry_get_feature_list(registry, GST_TYPE_ELEMENT_FACTORY);
	for (GList *l = features; l; l = l->next) {
		GstElementFactory *factory = l->data;
		const char *name = gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory));
		const GstElementFactoryListType kinds =
			GST_ELEMENT_FACTORY_TYPE_DECODABLE | GST_ELEMENT_FACTORY_TYPE_SRC;
		if (!gst_element_factory_list_is_type(factory, kinds) ||
				name_matches(name, umms_sandbox_default_elements) ||
				name_matches(name, allow) || name_matches(gst_plugin_feature_get_plugin_name(
					GST_PLUGIN_FEATURE(factory)), allow))
			continue;
		gst_plugin_feature_set_rank(GST_PLUGIN_FEATURE(factory), GST_RANK_NONE);
		if (gst_element_factory_get_uri_type(factory) == GST_URI_SRC)
			remove_source(registry, GST_PLUGIN_FEATURE(factory));
	}
	gst_plugin_feature_list_free(features);
	return true;
}
