/* The engine's fork server (zygote.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "error.h"
#include "ipc.h"
#include "log.h"
#include "worker.h"
#include "worker-warm-up.h"
#include "zygote.h"

/* How long a forked worker waits to become ummsd's child, at most. */
#define REPARENT_MAX_MS 2000

static unsigned
thread_count(void)
{
	DIR *dir = opendir("/proc/self/task");
	unsigned n = 0;
	struct dirent *entry;
	while (dir && (entry = readdir(dir)))
		n += entry->d_name[0] != '.';
	if (dir)
		closedir(dir);
	return n;
}

/*
 * The descriptor beyond 0 to 3 and @keep that is open, as "fd -> target"
 * (NULL if none): a forked worker would share it (an eventfd of GLib's
 * main context, a pipe) with the zygote and every other worker.
 */
static char *
stray_fd(int keep)
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return g_strdup("/proc/self/fd cannot be read");
	char *found = NULL;
	struct dirent *entry;
	while (!found && (entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		int fd = atoi(entry->d_name);
		if (fd <= UMMS_IPC_FD || fd == keep || fd == dirfd(dir))
			continue;
		g_autofree char *path = g_strdup_printf("/proc/self/fd/%d", fd);
		g_autofree char *target = g_file_read_link(path, NULL);
		found = g_strdup_printf("%d -> %s", fd, target ? target : "?");
	}
	closedir(dir);
	return found;
}

static void
answer(int ctl, pid_t pid, const char *why)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_i32(&w, (int32_t)pid);
	if (!pid)
		umms_ipc_put_string(&w, why);
	g_autoptr(GError) error = NULL;
	if (!umms_ipc_send(ctl, UMMS_IPC_FORKED, 0, &w, false, &error))
		umms_warn("fork server: cannot answer: %s", error->message);
	umms_ipc_writer_finish(&w);
}

/*
 * In the forked worker: its socket as fd 3 (the control socket closed by
 * it), its name, and ummsd as its parent before it asks to die with it.
 */
static bool
become_worker(int sock, pid_t ummsd)
{
	if (dup2(sock, UMMS_IPC_FD) < 0)
		return false;
	close(sock);
	prctl(PR_SET_NAME, "umms-engine");
	/* The middle process exits at once: then ummsd (a subreaper) adopts us. */
	for (int i = 0; getppid() != ummsd && i < REPARENT_MAX_MS * 10; i++)
		g_usleep(100);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* ummsd gone meanwhile (or never our parent): nothing to serve. */
	return getppid() == ummsd;
}

/*
 * Forks a worker for @sock (twice: see zygote.h). Returns true in the
 * worker, false in the zygote, which has answered ummsd.
 */
static bool
fork_worker(int ctl, int sock, pid_t ummsd)
{
	unsigned threads = thread_count();
	g_autofree char *stray = stray_fd(sock);
	if (threads != 1 || stray) {
		g_autofree char *why = threads != 1 ?
			g_strdup_printf("it has %u threads", threads) :
			g_strdup_printf("it has a descriptor open (%s)", stray);
		answer(ctl, 0, why);
		return false;
	}
	int pipe_fds[2];
	if (pipe2(pipe_fds, O_CLOEXEC) < 0) {
		answer(ctl, 0, g_strerror(errno));
		return false;
	}
	pid_t middle = fork();
	if (middle == 0) {
		pid_t worker = fork();
		if (worker == 0) {
			close(pipe_fds[0]);
			close(pipe_fds[1]);
			if (!become_worker(sock, ummsd))
				_exit(1);
			return true;
		}
		ssize_t n = write(pipe_fds[1], &worker, sizeof(worker));
		_exit(n == sizeof(worker) ? 0 : 1);
	}
	int err = errno;
	close(pipe_fds[1]);
	pid_t worker = -1;
	if (middle > 0) {
		ssize_t n;
		do
			n = read(pipe_fds[0], &worker, sizeof(worker));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(worker))
			worker = -1;
		/* Reaped: then the worker is ummsd's child, not ours (zygote.h). */
		while (waitpid(middle, NULL, 0) < 0 && errno == EINTR)
			;
	}
	close(pipe_fds[0]);
	if (worker > 0)
		answer(ctl, worker, NULL);
	else
		answer(ctl, 0, middle < 0 ? g_strerror(err) : "the forked process failed");
	return false;
}

struct umms_worker *
umms_zygote_run(int ctl, GError **error)
{
	pid_t ummsd = getppid();
	prctl(PR_SET_NAME, "umms-zygote");
	/* The zygote's own sandbox: it gains no privileges (nor do its workers before theirs). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "no_new_privs: %s",
			g_strerror(errno));
		return NULL;
	}
	struct umms_worker *prepared = umms_worker_prepare(ctl, error);
	if (!prepared)
		return NULL;
	umms_worker_warm_up_preload();
	umms_ipc_send(ctl, UMMS_IPC_READY, 0, NULL, false, NULL);
	for (;;) {
		struct pollfd pfd = { .fd = ctl, .events = POLLIN };
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		struct umms_ipc_message message;
		bool again = false;
		g_autoptr(GError) receive_error = NULL;
		int got = umms_ipc_receive(ctl, &message, &again, &receive_error);
		if (got == 0 && again)
			continue;
		if (got == 0)
			_exit(0); /* ummsd hung up */
		if (got < 0) {
			umms_warn("fork server: %s", receive_error->message);
			_exit(1);
		}
		struct umms_ipc_reader r;
		umms_ipc_reader_init(&r, message.payload, message.header.length);
		unsigned number = umms_ipc_get_u32(&r);
		if (message.header.type != UMMS_IPC_FORK || message.n_fds != 1 ||
				!umms_ipc_reader_done(&r)) {
			umms_ipc_message_clear(&message);
			answer(ctl, 0, "a malformed request");
			continue;
		}
		int sock = message.fds[0];
		message.n_fds = 0;
		umms_ipc_message_clear(&message);
		if (fork_worker(ctl, sock, ummsd)) {
			umms_debug("engine worker %u forked: pid %d", number, getpid());
			return prepared;
		}
		close(sock);
	}
}
