#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <glib-unix.h>

#include "engine.h"
#include "engine-fork-server.h"
#include "engine-supervisor.h"
#include "error.h"
#include "log.h"
#include "source.h"

/*
 * The next spare starts this long after a SetUri took the last one: its
 * start (exec, GStreamer, plugin ranks, warm-up: ~0.3 s of CPU) would
 * otherwise run beside that player's first frames. bench/first-frame on a
 * quiet 2-core machine: SetUri+Play -> first frame 161 ms at once, 143 a
 * second on (in-process 114 and 118); Play after SetUri -> next frame 81
 * and 50 ms (in-process 48). A SetUri within that second starts a worker
 * of its own, as one with no spare does.
 */
#define SPARE_DELAY_MS 1000
/*
 * Nor while a player plays ([engine] spare-while-playing = false): a
 * spare's start (fork, engine, warm-up clip, 40 MB of heap written) is
 * 0.04 to 0.2 s of CPU and ~60 MB of memory (PSS) beside the decoding it
 * would compete with, for a SetUri that may never come; it starts
 * SPARE_DELAY_MS after the last player stopped playing (paused, stopped,
 * ended, gone). A SetUri meanwhile forks a worker of its own from the
 * fork server, its heap cold (bench/README.md says what each costs).
 */

/*
 * A worker's socket hung up, or is full: how long to wait for its exit
 * status before naming that as the cause. A process killed stops reading,
 * then closes its files, a moment before it can be reaped; a worker alive
 * after that closed its socket (a bug) or reads nothing (wedged).
 */
#define EXIT_WAIT_MS 250

struct umms_worker_process {
	int refs;
	unsigned number;
	pid_t pid;
	int pidfd;               /* -1 while it waits for the fork server (pid 0) */
	int sock;
	int peer;                /* the worker's end, while it waits for the fork server */
	char *config_text;
	GSource *io, *exit_watch;
	bool reaped, hung_up;
	bool ready;              /* said READY: its main loop runs */
	bool playing;            /* its engine plays (umms_worker_process_set_playing()) */
	int code;                /* the reason to report, once a kill was decided */
	char *why;
	const struct umms_worker_handler *handler;
	void *data;
};

static struct {
	bool enabled;
	bool no_sound;           /* neither a sound device nor a server (umms_supervisor_init) */
	const struct umms_config *config;
	char *config_text;
	unsigned next_number;
	GList *all;              /* every process not yet reaped */
	struct umms_worker_process *spare;
	GSource *spare_idle;
	GList *pending;          /* workers waiting for the fork server to be ready */
} sup;

static char *
config_text(const struct umms_config *config)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out)
		return g_strdup("");
	umms_config_print(config, out);
	/* No sound here (umms_supervisor_init): the workers' sinks are fakesinks. */
	if (sup.no_sound && config->engine.audio_output == UMMS_AUDIO_AUTO)
		fputs("\n[engine]\naudio-output=none\n", out);
	fclose(out);
	char *copy = g_strdup(text);
	free(text);
	return copy;
}

bool
umms_supervisor_enabled(void)
{
	return sup.enabled;
}

const struct umms_config *
umms_supervisor_config(void)
{
	return sup.config;
}

struct umms_worker_process *
umms_worker_process_ref(struct umms_worker_process *process)
{
	process->refs++;
	return process;
}

void
umms_worker_process_unref(struct umms_worker_process *process)
{
	if (!process || --process->refs > 0)
		return;
	g_assert(process->reaped);
	g_free(process->config_text);
	g_free(process->why);
	g_free(process);
}

static void
close_socket(struct umms_worker_process *process)
{
	if (process->io) {
		g_source_destroy(process->io);
		g_source_unref(process->io);
		process->io = NULL;
	}
	if (process->sock >= 0)
		close(process->sock);
	process->sock = -1;
}

static char *
describe_exit(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *abbrev = sigabbrev_np(sig);
		return g_strdup_printf("crashed (signal %d, SIG%s)", sig, abbrev ? abbrev : "?");
	}
	return g_strdup_printf("ended unexpectedly (exit status %d)",
		WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static void schedule_spare(unsigned delay_ms);

/* Whether a worker attached to a player plays now. */
static bool
anything_playing(void)
{
	for (GList *l = sup.all; l; l = l->next) {
		struct umms_worker_process *process = l->data;
		if (process->playing && process->handler && !process->reaped)
			return true;
	}
	return false;
}

/* Whether the spare waits for the players to stop (SPARE_DELAY_MS). */
static bool
spare_waits(void)
{
	return sup.config && !sup.config->engine.spare_while_playing && anything_playing();
}

/* @process stopped playing, or went: the spare once nothing plays. */
static void
stopped_playing(struct umms_worker_process *process)
{
	if (!process->playing)
		return;
	process->playing = false;
	if (!spare_waits())
		schedule_spare(SPARE_DELAY_MS);
}

/* The process is gone: tell whoever is attached, once, and forget it. */
static void
reaped(struct umms_worker_process *process, int status)
{
	process->reaped = true;
	stopped_playing(process);
	sup.all = g_list_remove(sup.all, process);
	close_socket(process);
	if (process->pidfd >= 0)
		close(process->pidfd);
	process->pidfd = -1;
	if (sup.spare == process)
		sup.spare = NULL;
	if (process->handler) {
		g_autofree char *why = process->why ? g_strdup(process->why) : describe_exit(status);
		int code = process->why ? process->code : UMMS_ERROR_ENGINE_CRASHED;
		umms_warn("engine worker %u (pid %d) %s", process->number, process->pid, why);
		const struct umms_worker_handler *handler = process->handler;
		process->handler = NULL;
		handler->died(process->data, code, why);
	} else {
		umms_debug("engine worker %u (pid %d) ended", process->number, process->pid);
	}
}

static gboolean
exit_cb(gint fd, GIOCondition condition, gpointer data)
{
	struct umms_worker_process *process = data;
	int status = 0;
	pid_t got;
	do
		got = waitpid(process->pid, &status, WNOHANG);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return G_SOURCE_CONTINUE;
	g_source_unref(process->exit_watch);
	process->exit_watch = NULL;
	reaped(process, status);
	umms_worker_process_unref(process); /* the watch's */
	return G_SOURCE_REMOVE;
}

void
umms_worker_process_kill(struct umms_worker_process *process, int code, const char *why)
{
	if (process->reaped)
		return;
	if (!process->why) {
		process->code = code;
		process->why = g_strdup(why);
	}
	close_socket(process);
	if (process->pid > 0)
		kill(process->pid, SIGKILL);
	/* Else it waits for the fork server: reaped unstarted then (launch_pending()). */
}

/*
 * The worker's socket hung up, or takes no more: it is dying (killed from
 * outside, say), or hung up (a bug) or stopped reading while alive. Its
 * exit status, if there within EXIT_WAIT_MS, names the cause (a signal
 * most likely: the exit watch reports it, not this); else it is killed
 * for @why.
 */
static void
gone_or_kill(struct umms_worker_process *process, int code, const char *why)
{
	close_socket(process);
	if (process->reaped)
		return;
	int n = 0;
	if (process->pidfd >= 0) {
		struct pollfd exited = { .fd = process->pidfd, .events = POLLIN };
		do
			n = poll(&exited, 1, EXIT_WAIT_MS);
		while (n < 0 && errno == EINTR);
	}
	if (n > 0)
		return;
	umms_worker_process_kill(process, code, why);
}

static gboolean
io_cb(gint fd, GIOCondition condition, gpointer data)
{
	struct umms_worker_process *process = data;
	umms_worker_process_ref(process);
	for (int i = 0; i < 64 && process->sock >= 0; i++) {
		struct umms_ipc_message message;
		bool again = false;
		g_autoptr(GError) error = NULL;
		int got = umms_ipc_receive(process->sock, &message, &again, &error);
		if (got == 0 && again)
			break;
		if (got == 0) {
			gone_or_kill(process, UMMS_ERROR_ENGINE_CRASHED, "hung up");
			break;
		}
		if (got < 0) {
			umms_warn("engine worker %u: %s", process->number, error->message);
			umms_worker_process_kill(process, UMMS_ERROR_ENGINE_CRASHED,
				"sent a malformed message");
			break;
		}
		if (message.header.type == UMMS_IPC_READY)
			process->ready = true;
		if (process->handler)
			process->handler->message(process->data, &message);
		umms_ipc_message_clear(&message);
	}
	umms_worker_process_unref(process);
	return G_SOURCE_CONTINUE;
}

/*
 * Starts @process's program with @peer (its end of the socket) as fd 3:
 * forked by the fork server when it runs (a child of ours all the same),
 * else by exec; then watches its exit. False with @error (nothing started).
 */
static bool
launch(struct umms_worker_process *process, const struct umms_config *config, int peer,
	GError **error)
{
	const char *argv[] = { config->engine.worker, NULL };
	int source_fds[] = { peer };
	int target_fds[] = { UMMS_IPC_FD };
	GPid pid = umms_fork_server_fork(process->number, peer, process->config_text);
	GError *spawn_error = NULL;
	if (!pid && !g_spawn_async_with_pipes_and_fds(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
			NULL, NULL, -1, -1, -1, source_fds, target_fds, 1, &pid, NULL, NULL, NULL,
			&spawn_error)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot start the engine worker %s: %s", config->engine.worker,
			spawn_error->message);
		g_error_free(spawn_error);
		return false;
	}
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		umms_warn("pidfd_open: %s; the worker cannot be watched", g_strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"an engine worker cannot be watched on this system");
		return false;
	}
	process->pid = pid;
	process->pidfd = pidfd;
	process->exit_watch = g_unix_fd_source_new(process->pidfd, G_IO_IN);
	g_source_set_callback(process->exit_watch, G_SOURCE_FUNC(exit_cb), process, NULL);
	g_source_attach(process->exit_watch, g_main_context_get_thread_default());
	umms_debug("engine worker %u started: pid %d", process->number, pid);
	return true;
}

static struct umms_worker_process *
spawn(const struct umms_config *config, const char *text, GError **error)
{
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"no socket for an engine worker: %s", g_strerror(errno));
		return NULL;
	}
	struct umms_worker_process *process = g_new0(struct umms_worker_process, 1);
	process->refs = 2; /* the caller's, the exit watch's */
	process->number = ++sup.next_number;
	process->sock = pair[0];
	process->pidfd = process->peer = -1;
	process->config_text = g_strdup(text);
	if (umms_fork_server_starting() && umms_fork_server_serves(text)) {
		/*
		 * The fork server is loading what the worker would load itself:
		 * forked once it is ready (fork_server_ready()); its requests wait
		 * in the socket meanwhile.
		 */
		process->peer = pair[1];
		sup.pending = g_list_append(sup.pending, process);
		umms_debug("engine worker %u: waits for the fork server", process->number);
	} else {
		bool ok = launch(process, config, pair[1], error);
		close(pair[1]);
		if (!ok) {
			close(pair[0]);
			g_free(process->config_text);
			g_free(process);
			return NULL;
		}
	}
	fcntl(process->sock, F_SETFL, fcntl(process->sock, F_GETFL) | O_NONBLOCK);
	sup.all = g_list_prepend(sup.all, process);
	process->io = g_unix_fd_source_new(process->sock, G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(process->io, G_SOURCE_FUNC(io_cb), process, NULL);
	/*
	 * Messages come with every frame. GLib (2.74) takes a source that may
	 * not recurse out of the poll while it runs and puts it back after,
	 * and each of those wakes the loop: one pointless turn of it per
	 * message. ummsd never runs a loop inside a callback, so none recurses.
	 */
	g_source_set_can_recurse(process->io, TRUE);
	g_source_attach(process->io, g_main_context_get_thread_default());

	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, process->number);
	umms_ipc_put_string(&w, text);
	umms_worker_process_send(process, UMMS_IPC_INIT, 0, &w);
	umms_ipc_writer_finish(&w);
	return process;
}

/*
 * A worker that waited for the fork server: started now (by exec if the
 * server failed), or, killed or released meanwhile, reaped unstarted.
 */
static void
launch_pending(struct umms_worker_process *process)
{
	g_autoptr(GError) error = NULL;
	if (process->sock >= 0 && launch(process, sup.config, process->peer, &error)) {
		close(process->peer);
		process->peer = -1;
		return;
	}
	close(process->peer);
	process->peer = -1;
	if (error && !process->why) {
		process->code = UMMS_ERROR_ENGINE_CRASHED;
		process->why = g_strdup(error->message);
	}
	reaped(process, 0);
	umms_worker_process_unref(process); /* the exit watch's */
}

static gboolean
spare_cb(gpointer data)
{
	umms_source_forget(&sup.spare_idle);
	/* Started once the fork server is (fork_server_ready()): then it costs less. */
	if (umms_fork_server_starting() || spare_waits())
		return G_SOURCE_REMOVE;
	if (sup.enabled && !sup.spare && sup.config && sup.config->engine.spare_workers > 0) {
		g_autoptr(GError) error = NULL;
		sup.spare = spawn(sup.config, sup.config_text, &error);
		if (!sup.spare)
			umms_warn("no spare engine worker: %s", error->message);
	}
	return G_SOURCE_REMOVE;
}

static void
schedule_spare(unsigned delay_ms)
{
	if (!sup.enabled || sup.spare || sup.spare_idle || !sup.config->engine.spare_workers ||
			spare_waits())
		return;
	/*
	 * A second on, at low priority: the process and GStreamer starting
	 * would otherwise take the CPU from the first frames of what was just
	 * opened.
	 */
	sup.spare_idle = delay_ms ? g_timeout_source_new(delay_ms) : g_idle_source_new();
	g_source_set_priority(sup.spare_idle, G_PRIORITY_LOW);
	g_source_set_callback(sup.spare_idle, spare_cb, NULL, NULL);
	g_source_attach(sup.spare_idle, g_main_context_get_thread_default());
}

void
umms_supervisor_refill(void)
{
	schedule_spare(SPARE_DELAY_MS);
}

/* The fork server is ready, or failed to start: the workers that waited, then the spare. */
static void
fork_server_ready(void)
{
	bool waited = sup.pending != NULL;
	while (sup.pending) {
		struct umms_worker_process *process = sup.pending->data;
		sup.pending = g_list_delete_link(sup.pending, sup.pending);
		launch_pending(process);
	}
	/* Not beside the first frames of what waited (SPARE_DELAY_MS). */
	schedule_spare(waited ? SPARE_DELAY_MS : 0);
}

bool
umms_supervisor_init(const struct umms_config *config)
{
	sup.config = config;
	sup.enabled = config->engine.isolation == UMMS_ISOLATION_WORKER;
	if (sup.enabled && !g_file_test(config->engine.worker, G_FILE_TEST_IS_EXECUTABLE)) {
		umms_warn("engine.worker %s is not an executable file: engines run inside "
			"ummsd, and a crash in one takes every player down", config->engine.worker);
		sup.enabled = false;
	}
	/* Said once, here: workers then neither look again nor say it (config_text()). */
	sup.no_sound = sup.enabled && config->engine.audio_output == UMMS_AUDIO_AUTO &&
		!umms_engines_can_sound();
	g_free(sup.config_text);
	sup.config_text = config_text(config);
	if (sup.enabled && config->engine.fork_server)
		umms_fork_server_start(config, sup.config_text, fork_server_ready);
	if (sup.enabled)
		schedule_spare(0); /* at start-up nothing plays yet: at once */
	return sup.enabled;
}

void
umms_supervisor_finish(void)
{
	/* Nothing plays from here on: no spare is scheduled as they go. */
	for (GList *l = sup.all; l; l = l->next)
		((struct umms_worker_process *)l->data)->playing = false;
	umms_source_clear(&sup.spare_idle);
	umms_fork_server_stop();
	/* Those that waited for it: reaped unstarted. */
	while (sup.pending) {
		struct umms_worker_process *process = sup.pending->data;
		sup.pending = g_list_delete_link(sup.pending, sup.pending);
		process->handler = NULL;
		close_socket(process);
		launch_pending(process);
	}
	if (sup.spare) {
		struct umms_worker_process *spare = sup.spare;
		sup.spare = NULL;
		umms_worker_process_release(spare);
	}
	/* Nobody waits for them any more: end and reap them now. */
	while (sup.all) {
		struct umms_worker_process *process = sup.all->data;
		process->handler = NULL;
		close_socket(process);
		kill(process->pid, SIGKILL);
		int status = 0;
		while (waitpid(process->pid, &status, 0) < 0 && errno == EINTR)
			;
		if (process->exit_watch) {
			g_source_destroy(process->exit_watch);
			g_source_unref(process->exit_watch);
			process->exit_watch = NULL;
		}
		reaped(process, status);
		umms_worker_process_unref(process);
	}
	sup.enabled = false;
	sup.config = NULL;
	g_clear_pointer(&sup.config_text, g_free);
}

struct umms_worker_process *
umms_worker_process_take(const struct umms_config *config, GError **error)
{
	struct umms_worker_process *process = NULL;
	g_autofree char *text = config == sup.config ? NULL : config_text(config);
	const char *wanted = text ? text : sup.config_text;
	if (sup.spare && !sup.spare->reaped && sup.spare->sock >= 0 &&
			strcmp(sup.spare->config_text, wanted) == 0) {
		process = sup.spare;
		sup.spare = NULL;
		umms_debug("engine worker %u: the spare taken", process->number);
	} else {
		process = spawn(config, wanted, error);
	}
	return process;
}

void
umms_worker_process_attach(struct umms_worker_process *process,
	const struct umms_worker_handler *handler, void *data)
{
	if (!handler)
		stopped_playing(process);
	process->handler = handler;
	process->data = data;
}

void
umms_worker_process_set_playing(struct umms_worker_process *process, bool playing)
{
	if (!playing)
		stopped_playing(process);
	else
		process->playing = true;
}

void
umms_worker_process_release(struct umms_worker_process *process)
{
	if (!process)
		return;
	umms_worker_process_attach(process, NULL, NULL);
	/* Hung up, the worker ends by itself; its exit watch reaps it. */
	close_socket(process);
	if (!process->reaped && process->pid > 0)
		kill(process->pid, SIGTERM);
	umms_worker_process_unref(process);
}

bool
umms_worker_process_send(struct umms_worker_process *process, uint32_t type, uint32_t id,
	const struct umms_ipc_writer *writer)
{
	if (process->sock < 0)
		return false;
	g_autoptr(GError) error = NULL;
	if (umms_ipc_send(process->sock, type, id, writer, true, &error))
		return true;
	int err = errno;
	umms_warn("engine worker %u: cannot send: %s", process->number, error->message);
	/* A full socket: the worker reads nothing any more. */
	if (err == EAGAIN || err == EWOULDBLOCK)
		gone_or_kill(process, UMMS_ERROR_ENGINE_HUNG, "stopped reading its requests");
	else
		gone_or_kill(process, UMMS_ERROR_ENGINE_CRASHED, "hung up");
	return false;
}

bool
umms_worker_process_alive(const struct umms_worker_process *process)
{
	return process && !process->reaped && process->sock >= 0;
}

bool
umms_worker_process_ready(const struct umms_worker_process *process)
{
	return process->ready;
}

pid_t
umms_worker_process_pid(const struct umms_worker_process *process)
{
	return process->pid;
}

unsigned
umms_worker_process_number(const struct umms_worker_process *process)
{
	return process->number;
}

uint64_t
umms_worker_process_rss(const struct umms_worker_process *process)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/statm", (int)process->pid);
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return 0;
	unsigned long long size = 0, resident = 0;
	if (sscanf(text, "%llu %llu", &size, &resident) != 2)
		return 0;
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

unsigned
umms_worker_watch_period(const struct umms_config *config)
{
	unsigned period = MIN(config->engine.hang_timeout / 4, 500u);
	return MAX(period, 50u);
}

bool
umms_worker_watch_check(struct umms_worker_watch *watch, struct umms_worker_process *process,
	const struct umms_config *config)
{
	int64_t now = g_get_monotonic_time();
	if (watch->ping_sent && now - watch->ping_sent > (int64_t)config->engine.hang_timeout * 1000) {
		g_autofree char *why = g_strdup_printf("stopped answering for %u ms "
			"([engine] hang-timeout) and was stopped", config->engine.hang_timeout);
		umms_worker_process_kill(process, UMMS_ERROR_ENGINE_HUNG, why);
		return false;
	}
	uint64_t max = (uint64_t)config->engine.worker_memory_max << 20;
	uint64_t rss = max ? umms_worker_process_rss(process) : 0;
	if (max && rss > max) {
		g_autofree char *why = g_strdup_printf("used %" G_GUINT64_FORMAT " MB of memory, "
			"over its limit of %u MB ([engine] worker-memory-max), and was stopped",
			rss >> 20, config->engine.worker_memory_max);
		umms_worker_process_kill(process, UMMS_ERROR_ENGINE_CRASHED, why);
		return false;
	}
	if (process->ready && !watch->ping_sent) {
		watch->ping_sent = now;
		umms_worker_process_send(process, UMMS_IPC_PING, ++watch->ping_id, NULL);
	}
	return true;
}

void
umms_worker_watch_pong(struct umms_worker_watch *watch, uint32_t id)
{
	if (id == watch->ping_id)
		watch->ping_sent = 0;
}
