/* The engine workers' fork server, ummsd's side (engine-fork-server.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <glib-unix.h>

#include "engine-fork-server.h"
#include "ipc.h"
#include "log.h"
#include "source.h"

/* A fork server is started again no sooner than this after the last start. */
#define RESTART_MS 5000
/* How long a FORK may take to be answered before the server is given up. */
#define FORK_WAIT_MS 5000

static struct {
	const struct umms_config *config;
	char *text;
	void (*ready_cb)(void);
	pid_t pid;
	int pidfd, ctl;
	GSource *io, *exit_watch, *restart, *start_timer;
	bool ready;
	bool refused;            /* it could not fork: exec from now on (said once) */
	gint64 started;          /* µs, monotonic */
} fs = { .pidfd = -1, .ctl = -1 };

static void start(void);

/* Forgets the process (killed and reaped by the caller, or reaped). */
static void
forget(void)
{
	umms_source_clear(&fs.start_timer);
	umms_source_clear(&fs.io);
	umms_source_clear(&fs.exit_watch);
	if (fs.ctl >= 0)
		close(fs.ctl);
	if (fs.pidfd >= 0)
		close(fs.pidfd);
	fs.ctl = fs.pidfd = -1;
	fs.pid = 0;
	fs.ready = false;
}

static void
kill_and_reap(void)
{
	if (fs.pid > 0) {
		kill(fs.pid, SIGKILL);
		while (waitpid(fs.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	forget();
}

static gboolean
restart_cb(gpointer data)
{
	umms_source_forget(&fs.restart);
	start();
	return G_SOURCE_REMOVE;
}

static void
schedule_restart(void)
{
	if (fs.restart || fs.refused || !fs.config)
		return;
	gint64 since = (g_get_monotonic_time() - fs.started) / 1000;
	unsigned delay = since >= RESTART_MS ? 0 : (unsigned)(RESTART_MS - since);
	fs.restart = umms_source_timeout(delay, restart_cb, NULL);
}

static gboolean
exit_cb(gint fd, GIOCondition condition, gpointer data)
{
	int status = 0;
	pid_t got;
	do
		got = waitpid(fs.pid, &status, WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return G_SOURCE_CONTINUE;
	bool was_ready = fs.ready;
	if (WIFSIGNALED(status))
		umms_warn("the engine fork server (pid %d) ended by signal %d; workers start "
			"by exec until it is started again", fs.pid, WTERMSIG(status));
	else
		umms_warn("the engine fork server (pid %d) ended (exit status %d); workers "
			"start by exec until it is started again", fs.pid, WEXITSTATUS(status));
	umms_source_forget(&fs.exit_watch);
	forget();
	schedule_restart();
	if (!was_ready && fs.ready_cb)
		fs.ready_cb(); /* those waiting for it go on without */
	return G_SOURCE_REMOVE;
}

static gboolean
io_cb(gint fd, GIOCondition condition, gpointer data)
{
	struct umms_ipc_message message;
	bool again = false;
	g_autoptr(GError) error = NULL;
	int got = umms_ipc_receive(fs.ctl, &message, &again, &error);
	if (got == 0 && again)
		return G_SOURCE_CONTINUE;
	if (got > 0 && message.header.type == UMMS_IPC_READY && !fs.ready) {
		umms_ipc_message_clear(&message);
		fs.ready = true;
		umms_source_clear(&fs.start_timer);
		umms_debug("the engine fork server (pid %d) is ready in %.0f ms", fs.pid,
			(double)(g_get_monotonic_time() - fs.started) / 1000);
		if (fs.ready_cb)
			fs.ready_cb();
		return G_SOURCE_CONTINUE;
	}
	if (got > 0)
		umms_ipc_message_clear(&message);
	/* Hung up, or said what it should not: its exit watch reports it. */
	umms_source_forget(&fs.io);
	kill(fs.pid, SIGKILL);
	return G_SOURCE_REMOVE;
}

/* Not ready within [engine] answer-timeout: wedged; its exit watch goes on. */
static gboolean
start_timeout_cb(gpointer data)
{
	umms_source_forget(&fs.start_timer);
	umms_warn("the engine fork server (pid %d) did not get ready within %u ms: killed",
		fs.pid, fs.config->engine.answer_timeout);
	kill(fs.pid, SIGKILL);
	return G_SOURCE_REMOVE;
}

static void
start(void)
{
	int pair[2];
	fs.started = g_get_monotonic_time();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		umms_warn("no engine fork server: socketpair: %s", g_strerror(errno));
		return;
	}
	const char *argv[] = { fs.config->engine.worker, "--zygote", NULL };
	int source_fds[] = { pair[1] };
	int target_fds[] = { UMMS_IPC_FD };
	GPid pid = 0;
	g_autoptr(GError) error = NULL;
	bool ok = g_spawn_async_with_pipes_and_fds(NULL, argv, NULL,
		G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, -1, -1, -1, source_fds, target_fds, 1,
		&pid, NULL, NULL, NULL, &error);
	close(pair[1]);
	if (!ok) {
		close(pair[0]);
		umms_warn("no engine fork server: %s", error->message);
		return;
	}
	fs.pid = pid;
	fs.ctl = pair[0];
	fcntl(fs.ctl, F_SETFL, fcntl(fs.ctl, F_GETFL) | O_NONBLOCK);
	fs.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fs.pidfd < 0) {
		umms_warn("no engine fork server: pidfd_open: %s", g_strerror(errno));
		kill_and_reap();
		return;
	}
	fs.exit_watch = g_unix_fd_source_new(fs.pidfd, G_IO_IN);
	g_source_set_callback(fs.exit_watch, G_SOURCE_FUNC(exit_cb), NULL, NULL);
	g_source_attach(fs.exit_watch, g_main_context_get_thread_default());
	fs.io = g_unix_fd_source_new(fs.ctl, G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(fs.io, G_SOURCE_FUNC(io_cb), NULL, NULL);
	g_source_attach(fs.io, g_main_context_get_thread_default());
	fs.start_timer = umms_source_timeout(fs.config->engine.answer_timeout, start_timeout_cb,
		NULL);

	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, 0);
	umms_ipc_put_string(&w, fs.text);
	if (!umms_ipc_send(fs.ctl, UMMS_IPC_INIT, 0, &w, true, &error))
		kill(fs.pid, SIGKILL); /* reported by its exit watch */
	umms_ipc_writer_finish(&w);
	umms_debug("engine fork server started: pid %d", pid);
}

void
umms_fork_server_start(const struct umms_config *config, const char *text,
	void (*ready)(void))
{
	umms_fork_server_stop();
	fs.config = config;
	fs.text = g_strdup(text);
	fs.ready_cb = ready;
	fs.refused = false;
	start();
}

void
umms_fork_server_stop(void)
{
	umms_source_clear(&fs.restart);
	kill_and_reap();
	g_clear_pointer(&fs.text, g_free);
	fs.config = NULL;
	fs.ready_cb = NULL;
}

bool
umms_fork_server_starting(void)
{
	return fs.pid > 0 && !fs.ready;
}

bool
umms_fork_server_serves(const char *text)
{
	return fs.text && !fs.refused && strcmp(text, fs.text) == 0;
}

pid_t
umms_fork_server_pid(void)
{
	return fs.pid;
}

/* FORKED: the pid, or 0 with @why set (and *refused when FORKED said no). */
static pid_t
wait_answer(char **why, bool *refused)
{
	gint64 end = g_get_monotonic_time() + FORK_WAIT_MS * 1000;
	for (;;) {
		int left = (int)((end - g_get_monotonic_time()) / 1000);
		struct pollfd pfd = { .fd = fs.ctl, .events = POLLIN };
		int n = left > 0 ? poll(&pfd, 1, left) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*why = g_strdup("it did not answer");
			return 0;
		}
		struct umms_ipc_message message;
		bool again = false;
		g_autoptr(GError) error = NULL;
		int got = umms_ipc_receive(fs.ctl, &message, &again, &error);
		if (got == 0 && again)
			continue;
		if (got <= 0) {
			*why = g_strdup(error ? error->message : "it hung up");
			return 0;
		}
		struct umms_ipc_reader r;
		umms_ipc_reader_init(&r, message.payload, message.header.length);
		pid_t pid = umms_ipc_get_i32(&r);
		char *text = pid == 0 ? umms_ipc_get_string(&r) : NULL;
		bool ok = message.header.type == UMMS_IPC_FORKED && message.n_fds == 0 &&
			umms_ipc_reader_done(&r) && pid >= 0;
		umms_ipc_message_clear(&message);
		if (!ok || pid == 0) {
			*refused = ok;
			*why = ok && text ? text : g_strdup("a malformed answer");
			if (!ok)
				g_free(text);
			return 0;
		}
		return pid;
	}
}

pid_t
umms_fork_server_fork(unsigned number, int sock, const char *text)
{
	if (!fs.ready || fs.refused || strcmp(text, fs.text) != 0)
		return 0;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, number);
	umms_ipc_put_fd(&w, sock);
	/*
	 * A child subreaper while it forks: the worker's parent (the middle
	 * process) exits before the answer comes, and the worker becomes ours.
	 * Only meanwhile: else any orphan of a browser ummsd started would be
	 * ours too.
	 */
	int was_subreaper = 0;
	prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	g_autoptr(GError) error = NULL;
	g_autofree char *why = NULL;
	pid_t pid = 0;
	bool refused = false;
	if (umms_ipc_send(fs.ctl, UMMS_IPC_FORK, 0, &w, true, &error))
		pid = wait_answer(&why, &refused);
	else
		why = g_strdup(error->message);
	if (!was_subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, 0);
	umms_ipc_writer_finish(&w);
	siginfo_t info;
	if (pid > 0 && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
		/* Not our child after all: it could be neither waited for nor watched. */
		kill(pid, SIGKILL);
		g_free(why);
		why = g_strdup_printf("pid %d is not ummsd's child", pid);
		pid = 0;
	}
	if (pid > 0)
		return pid;
	if (refused) {
		/* Once refused, never again: it would refuse the same way (zygote.h). */
		umms_warn("the engine fork server (pid %d) cannot fork a worker (%s): "
			"workers start by exec from now on", fs.pid, why);
		fs.refused = true;
		umms_source_clear(&fs.restart);
	} else {
		umms_warn("the engine fork server (pid %d) failed (%s) and is started again",
			fs.pid, why);
	}
	kill_and_reap();
	schedule_restart();
	return 0;
}
