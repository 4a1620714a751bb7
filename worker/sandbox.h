/*
 * The sandbox umms-engine enters before it touches a stream: whatever a
 * hostile file makes a demuxer or decoder do afterwards, it does with the
 * rights left here.
 *
 * umms_sandbox_enter() takes, in this order and for the whole process:
 *
 * 1. Descriptors: every fd above 2 is closed (close_range) but keep_fds
 *    and those GLib's default and thread-default main contexts poll (their
 *    wakeup eventfd, which loading GStreamer's video4linux2 plugin already
 *    makes, and their sources'): closed under GLib, it would spin on
 *    POLLNVAL and write wakeups into the next file given that number. So
 *    enter from the thread that runs the main loop, before it runs (it
 *    fails otherwise), and before anything else owns descriptors that are
 *    not in keep_fds: GLib's worker context (GDBus, GResolver) cannot be
 *    asked for its own.
 * 2. Limits: RLIMIT_NOFILE = max_fds, RLIMIT_CPU = cpu_seconds (SIGXCPU
 *    then, a second later, SIGKILL), RLIMIT_DATA = what the process's data
 *    segment holds on entry plus memory_bytes. The data limit, not
 *    RLIMIT_AS: an AddressSanitizer build reserves terabytes of address
 *    space. Its shadow is private writable memory, so even the data segment
 *    of such a process is ~14 TiB before it allocates anything; memory_bytes
 *    is therefore how much the data segment (brk, private writable
 *    mappings) may grow, the same meaning with and without sanitizers.
 *    Soft and hard limits are set alike, so they cannot be raised again.
 * 3. PR_SET_NO_NEW_PRIVS: nothing executed could gain privileges (and
 *    execve is refused anyway).
 * 4. PR_SET_DUMPABLE 0: no core file holds decoded media, and no other
 *    process of the same user may ptrace it or open its /proc/PID/mem
 *    (important because this filter lets a worker open any readable path
 *    read-only: dumpable workers could read each other's memory). The
 *    price: /proc/PID/{fd,environ,maps,...} of the worker become root's,
 *    so ummsd cannot inspect them (/proc/PID/stat and status stay
 *    readable), a debugger must attach as root, and no core dumps are
 *    written. The worker itself still reads its own /proc/self files.
 * 5. Landlock (policy.landlock, landlock.h), where the kernel has it: the
 *    filesystem shrinks to what GStreamer reads and the media given as
 *    descriptors. It restricts the calling thread only, so it is refused
 *    (an error) in a process with more than one thread.
 * 6. A seccomp filter (libseccomp), on every thread of the process
 *    (TSYNC). Anything not listed fails with EPERM: never a kill, so a
 *    denied call is an error GStreamer reports, not a crash.
 *
 * Allowed, and why:
 * - memory: brk, mmap, mprotect (PROT_EXEC included: plugins are loaded
 *   lazily with dlopen and ORC compiles code at run time), munmap, mremap,
 *   madvise, mincore, msync, membarrier, memfd_create (frame pools),
 *   mlock/munlock (libgcrypt's secure memory; RLIMIT_MEMLOCK bounds it).
 * - threads: clone only with CLONE_THREAD and no namespace flag (a new
 *   process cannot be made); clone3 fails with ENOSYS, as its flags are in
 *   memory seccomp cannot read, so glibc falls back to clone. futex,
 *   set_robust_list, set_tid_address, rseq, arch_prctl, sched_yield,
 *   sched_get*, and sched_set* only for the calling thread (pid 0: GLib's
 *   thread pools, which set a new thread's policy by its id, log a debug
 *   message and go on).
 * - files: openat/open only when read-only: O_ACCMODE == O_RDONLY and
 *   neither O_CREAT nor O_TRUNC (media, plugins, /proc/self; O_TMPFILE
 *   needs write access). Opening for writing or creating fails with
 *   EPERM (but with policy.devices, which allows O_RDWR opens of existing
 *   files: a render node, and without Landlock any file the user may
 *   write; with it, the device nodes listed only); openat2 fails
 *   with ENOSYS (its flags are in memory). read/write and their p/v variants, lseek,
 *   fstat/stat/newfstatat/statx, statfs, access, readlink(at), getdents,
 *   getcwd, fcntl (but F_SETOWN, F_SETOWN_EX, F_SETSIG: SIGIO to
 *   another process), dup*, close, close_range, ftruncate, fallocate, fsync,
 *   fadvise64 (on descriptors the process holds: memfds, pipes, sockets,
 *   kept fds). No unlink, rename, mkdir, chmod, link, mount.
 * - waiting: poll, ppoll, select, pselect6, epoll*, eventfd*, pipe*,
 *   timerfd*, signalfd*, timer_*, *itimer, alarm, clock_*, nanosleep,
 *   gettimeofday, time, getrandom.
 * - sockets: socketpair(AF_UNIX) (GstPoll, GstBus), and on sockets already
 *   open (the IPC channel): sendmsg, recvmsg, sendmmsg, recvmmsg, sendto,
 *   recvfrom, shutdown, get/setsockopt, getsockname, getpeername (GLib's
 *   GSocket asks these of any fd it wraps). With policy.network only:
 *   socket(AF_INET, AF_INET6), connect, bind, listen, accept, accept4.
 *   With policy.audio only: socket(AF_UNIX) and connect (the sound server;
 *   then any unix socket the user can reach, the session bus included).
 *   Without it, no socket reaches anything new: AF_UNIX paths (D-Bus, the
 *   sound server), netlink and the network are all unreachable.
 * - ioctl: dma-buf (type 'b': DMA_BUF_IOCTL_SYNC), DRM ('d', for VA-API on
 *   a render node the parent opened), sync_file ('>'), and FIONREAD,
 *   FIONBIO, FIOCLEX, FIONCLEX, TCGETS, TIOCGWINSZ (isatty); with network
 *   also SIOCGIFINDEX, SIOCGIFNAME, SIOCGIFCONF (multicast interfaces).
 *   V4L2 ('V') only with policy.devices: a read-only fd on a camera can
 *   capture.
 * - signals: rt_sig*, sigaltstack, restart_syscall; kill, tgkill,
 *   rt_sigqueueinfo and rt_tgsigqueueinfo only to the process itself
 *   (pid == getpid() at entry).
 * - process: exit, exit_group, getpid, gettid, getppid, get[e][ug]id,
 *   getres[ug]id, getgroups, uname, sysinfo, getrusage, times,
 *   getpriority, getrlimit, prlimit64 only reading (pid 0, no new limit),
 *   getcpu, sched_getaffinity, get_mempolicy, umask (ORC sets one before
 *   trying a code file; creating it is refused, so ORC maps anonymous
 *   memory instead), prctl only PR_SET_NAME/PR_GET_NAME (thread
 *   names), PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP,
 *   PR_GET_TIMERSLACK, PR_SET_VMA.
 *
 * Refused with EPERM (the default), among others: execve, execveat, fork,
 * vfork, clone without CLONE_THREAD, ptrace, process_vm_readv/writev,
 * mount, umount2, pivot_root, chroot, unshare, setns, kexec_*, bpf,
 * perf_event_open, keyctl, add_key, request_key, init/finit/delete_module,
 * setuid and friends, setrlimit, socket without policy.network (but
 * socketpair), opens for writing, kill/tgkill of another process, tkill,
 * pidfd_*, io_uring_*, userfaultfd, inotify/fanotify, setpriority, wait4.
 * Syscalls of another ABI (i386 int 0x80, x32) fail with EPERM too.
 *
 * Not restricted (seccomp cannot see paths or memory):
 * - without Landlock (kernels before 5.13, or with it disabled), any path
 *   the user can read can be opened read-only, including other
 *   processes' /proc/PID files allowed to the same user. A process of the
 *   same user that stays dumpable (ummsd) can have its /proc/PID/mem read
 *   unless Yama's ptrace_scope is 1 or more: ummsd should be non-dumpable
 *   too, or a Landlock ruleset should limit paths.
 * - writes to descriptors the process already holds (kept fds, 0-2).
 * - mmap of writable and executable memory (no W^X).
 * - with policy.network, any host and port, the loopback included. And
 *   without it, sendto() from a datagram socketpair may still name an
 *   AF_UNIX datagram socket (syslog, journald): seccomp cannot read the
 *   address.
 *
 * What does not work inside:
 * - without policy.devices, hardware decoders that open their device
 *   themselves: VA, V4L2, NVDEC open /dev nodes read-write, which is
 *   refused (NVDEC needs ioctls refused even with it).
 * - without policy.audio, audio output: autoaudiosink's sound server is an
 *   AF_UNIX path socket (refused); ALSA devices need read-write opens and
 *   their ioctls (refused either way).
 * - LeakSanitizer cannot run in the sandbox (it needs ptrace and a
 *   non-thread clone): a sanitizer build should leave with _exit() or
 *   run the worker with detect_leaks=0.
 */
#ifndef UMMS_WORKER_SANDBOX_H
#define UMMS_WORKER_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

struct umms_sandbox_policy {
	/* Allow socket(AF_INET/AF_INET6), connect, bind...: network URIs. */
	bool network;
	/*
	 * Allow socket(AF_UNIX) and connect: the sound server (pulsesink,
	 * pipewiresink). The hole: a compromised worker can then connect to
	 * any unix socket the user can (the session bus, ssh-agent, X11...).
	 */
	bool audio;
	/*
	 * Allow read-write opens of files that exist (no O_CREAT, O_TRUNC)
	 * and V4L2 ioctls: hardware decoders open /dev/dri/renderD* (VA-API)
	 * or /dev/video* (V4L2 codecs) themselves, v4l2src its capture device.
	 * With Landlock only the nodes of @device_paths can be opened so;
	 * without it (seccomp cannot see paths) the hole is that a compromised
	 * worker can change any file the user may write and open any device
	 * the user may.
	 */
	bool devices;
	/*
	 * With devices and Landlock: the device nodes the engine opens
	 * read-write, NULL-terminated (those that are not character devices
	 * are skipped). Each one's folder in /sys and its parent device's
	 * become readable, with the listings of /sys/class, /sys/bus and
	 * /sys/dev (links) and /run/udev; no other node in /dev is writable,
	 * and nothing else in /sys readable (but the CPU list).
	 */
	const char *const *device_paths;
	/*
	 * With devices: DVB ioctls ('o': frontend and demux) too, for the
	 * tuner of a dvb:// player (its nodes in @device_paths).
	 */
	bool dvb;
	/* How much the data segment may grow (RLIMIT_DATA, see above); 0 = no limit. */
	uint64_t memory_bytes;
	/* RLIMIT_NOFILE; 0 = unchanged. */
	unsigned max_fds;
	/*
	 * RLIMIT_CPU: seconds of CPU time over the process's life, not a rate
	 * (hours of decoding add up); 0 = no limit.
	 */
	unsigned cpu_seconds;
	/* Descriptors above 2 that stay open; every other one is closed. */
	const int *keep_fds;
	size_t n_keep;
	/*
	 * Landlock (landlock.h), where the kernel has it: after entering,
	 * files open only for reading, and only under the system's folders
	 * (umms_sandbox_read_paths), the folders of GStreamer's plugins, the
	 * user's fontconfig cache and sound server settings, and through
	 * @media_fds (kept open too): a file given, or a folder given and
	 * what is below it. With devices, @device_paths read-write (above).
	 */
	bool landlock;
	const int *media_fds;
	size_t n_media;
};

/*
 * The folders and files readable under Landlock besides plugins and
 * media: libraries, /usr/share, /etc, this process's /proc entry, the CPU
 * list in /sys, /dev/null and the random devices. NULL-terminated.
 */
extern const char *const umms_sandbox_read_paths[];

/*
 * Enters the sandbox described above, for the whole process and for good.
 * On failure (error set) part of it may already be in force: the caller
 * should exit rather than go on.
 */
bool umms_sandbox_enter(const struct umms_sandbox_policy *p, GError **error);

/*
 * Element names (or patterns with '*', as g_pattern_match_simple) that
 * umms_sandbox_rank_plugins() leaves alone: what umms plays (the
 * containers, codecs, parsers and subtitle formats of its clips and of
 * broadcast, RTSP and HTTP streaming), hardware decoders, umms's own
 * teletext decoder, and the bins that plug them. NULL-terminated.
 */
extern const char *const umms_sandbox_default_elements[];

/*
 * After gst_init(): every element factory of class Demuxer, Decoder,
 * Parser, Depayloader, Decryptor or Source whose name matches neither
 * umms_sandbox_default_elements nor @allow (NULL-terminated, may be NULL;
 * an element is also allowed when @allow names its plugin)
 * gets rank GST_RANK_NONE, so decodebin, parsebin and playbin never plug
 * it: a file for such a demuxer fails with a missing-plugin error (for
 * instance a VOC file, which avdemux_voc of Debian 12 can spin on for
 * ever). Ranks do not choose the source for a URI, so a source outside the
 * list that handles URIs is also removed from the registry: its scheme is
 * then unsupported. Its plugin is not loaded: should it load later (for
 * another of its elements), the registry's feature-added signal takes the
 * source out again before the loading returns. Elements still made by
 * name (gst_element_factory_make) are not affected otherwise.
 * Process-wide, not undone.
 */
bool umms_sandbox_rank_plugins(const char *const *allow, GError **error);

#endif
