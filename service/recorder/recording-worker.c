/*
 * A recording in an engine worker (recording-worker.h): the file opened
 * here, RECORD with its fd, EOS or ERROR back; pings and the memory limit
 * watched as for players (engine-proxy.c), through engine-supervisor.h.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "engine-proxy-private.h"
#include "eit.h"
#include "engine-supervisor.h"
#include "error.h"
#include "ipc.h"
#include "log.h"
#include "recording-worker.h"
#include "ring-files.h"
#include "source.h"

struct recording_worker {
	struct umms_worker_process *process;
	GSource *watchdog;
	struct umms_worker_watch watch;
	bool started;              /* SETTLED: its pipeline runs */
	bool flowing;              /* STATUS: data reached the file */
	int64_t since;             /* µs, monotonic: RECORD sent */
	char *path;                /* the file, if ummsd created it: else NULL */
	dev_t dev;                 /* and which file that was */
	ino_t ino;
	struct umms_ring_files *ring; /* a ring's files, made here as it asks (borrowed) */
	const struct recording_worker_handler *handler;
	void *data;
};

/*
 * A start that failed leaves no empty file behind: @path goes if it is
 * still the very file created (@dev, @ino: not one put in its place since)
 * and holds not a byte. True if it went.
 */
static bool
remove_empty(const char *path, dev_t dev, ino_t ino)
{
	GStatBuf st;
	if (!path || g_lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != dev ||
			st.st_ino != ino || st.st_size != 0)
		return false;
	if (g_unlink(path) != 0) {
		umms_warn("recording: cannot remove the empty %s: %s", path, g_strerror(errno));
		return false;
	}
	umms_debug("recording: removed the empty %s", path);
	return true;
}

/* The worker's work is over: it goes, and the handler hears once. */
static void
end(struct recording_worker *w, int code, const char *error)
{
	const struct recording_worker_handler *handler = w->handler;
	umms_recording_worker_abandon(w);
	bool removed = error && remove_empty(w->path, w->dev, w->ino);
	if (handler)
		handler->ended(w->data, code, error, removed);
}

static void
handle_message(void *data, struct umms_ipc_message *message)
{
	struct recording_worker *w = data;
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message->payload, message->header.length);
	struct umms_ipc_status status;
	if (message->n_fds > 0)
		goto malformed;
	switch (message->header.type) {
	case UMMS_IPC_READY:
		return;
	case UMMS_IPC_PONG:
		if (!umms_ipc_reader_done(&r))
			break;
		umms_worker_watch_pong(&w->watch, message->header.id);
		return;
	case UMMS_IPC_SETTLED: {
		if (!umms_ipc_get_status(&r, &status) || umms_ipc_get_u8(&r) != 0 ||
				!umms_ipc_reader_done(&r) || w->started)
			break;
		w->started = true;
		return;
	}
	case UMMS_IPC_STATUS:
		if (!umms_ipc_get_status(&r, &status) || !umms_ipc_reader_done(&r) || !w->started ||
				w->flowing)
			break;
		w->flowing = true;
		w->handler->flowing(w->data);
		return;
	case UMMS_IPC_EOS:
		if (!umms_ipc_get_status(&r, &status) || !umms_ipc_reader_done(&r))
			break;
		end(w, 0, NULL);
		return;
	case UMMS_IPC_RING_WANT:
	case UMMS_IPC_RING_DONE:
	case UMMS_IPC_RING_DELETE:
		if (!w->ring || !umms_ring_files_handle(w->ring, w->process, message))
			break;
		return;
	case UMMS_IPC_EIT: {
		struct umms_eit eit;
		if (!umms_ipc_get_eit(&r, &eit))
			break;
		if (umms_ipc_reader_done(&r) && w->handler->eit)
			w->handler->eit(w->data, &eit);
		bool done = umms_ipc_reader_done(&r);
		umms_eit_clear(&eit);
		if (!done)
			break;
		return;
	}
	case UMMS_IPC_ERROR:
	case UMMS_IPC_REFUSED: {
		if (!umms_ipc_get_status(&r, &status))
			break;
		g_autoptr(GError) error = umms_ipc_get_error(&r);
		if (!error || !umms_ipc_reader_done(&r))
			break;
		end(w, 0, error->message);
		return;
	}
	default:
		break;
	}
malformed:
	umms_worker_process_kill(w->process, UMMS_ERROR_ENGINE_CRASHED,
		"sent a message a recording does not expect and was stopped");
}

static void
handle_died(void *data, int code, const char *why)
{
	struct recording_worker *w = data;
	g_autofree char *error = g_strdup_printf("%s: the recording's engine worker %s; "
		"what it wrote is kept", umms_error_dbus_name(code), why);
	end(w, code, error);
}

static const struct umms_worker_handler handler = {
	.message = handle_message,
	.died = handle_died,
};

static gboolean
watchdog_cb(gpointer data)
{
	struct recording_worker *w = data;
	const struct umms_config *config = umms_supervisor_config();
	if (w->started) {
		umms_worker_watch_check(&w->watch, w->process, config);
		return G_SOURCE_CONTINUE;
	}
	/* Starting (the process, GStreamer, the sandbox): a request's time, as OPEN has. */
	int64_t deadline = (int64_t)config->engine.answer_timeout + config->engine.hang_timeout;
	if (g_get_monotonic_time() - w->since > deadline * 1000) {
		g_autofree char *why = g_strdup_printf("did not start recording within %"
			G_GINT64_FORMAT " ms and was stopped", deadline);
		umms_worker_process_kill(w->process, UMMS_ERROR_ENGINE_HUNG, why);
	}
	return G_SOURCE_CONTINUE;
}

static struct recording_worker *launch(const char *uri, const char *path, const char *mux,
	int64_t start_us, struct umms_ring_files *ring, unsigned segment_s, unsigned n_segments,
	const struct recording_worker_handler *h, void *data, GError **error);

struct recording_worker *
umms_recording_worker_start(const char *uri, const char *path, const char *mux,
	int64_t start_us, const struct recording_worker_handler *h, void *data, GError **error)
{
	return launch(uri, path, mux, start_us, NULL, 0, 0, h, data, error);
}

struct recording_worker *
umms_recording_worker_start_ring(const char *uri, struct umms_ring_files *files,
	unsigned segment_s, unsigned n_segments, const struct recording_worker_handler *h,
	void *data, GError **error)
{
	return launch(uri, NULL, "hlssink2", 0, files, segment_s, n_segments, h, data, error);
}

static struct recording_worker *
launch(const char *uri, const char *path, const char *mux, int64_t start_us,
	struct umms_ring_files *ring, unsigned segment_s, unsigned n_segments,
	const struct recording_worker_handler *h, void *data, GError **error)
{
	const struct umms_config *config = umms_supervisor_config();
	/* Created here: the worker's sandbox lets it create nothing (a ring's: as it asks). */
	const int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
	bool created = !ring;
	int fd = ring ? -2 : open(path, flags | O_CREAT | O_EXCL, 0666);
	if (fd == -1 && errno == EEXIST) {
		created = false;
		fd = open(path, flags | O_CREAT | O_TRUNC, 0666);
	}
	if (fd == -1) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "cannot write %s: %s",
			path, g_strerror(errno));
		return NULL;
	}
	struct stat st = { 0 };
	if (fd >= 0 && fstat(fd, &st) != 0)
		created = false;
	int media_fd = -1;
	struct umms_worker_process *process = NULL;
	/* A local source: opened here, the only media its worker can read (Landlock). */
	if (config->engine.sandbox && !umms_proxy_media_fd(uri, true, &media_fd, error))
		goto fail;
	process = umms_worker_process_take(config, error);
	if (!process)
		goto fail;
	struct recording_worker *w = g_new0(struct recording_worker, 1);
	w->path = created ? g_strdup(path) : NULL;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	w->process = process;
	w->handler = h;
	w->data = data;
	w->since = g_get_monotonic_time();
	w->ring = ring;
	umms_worker_process_attach(process, &handler, w);
	struct umms_ipc_writer writer;
	umms_ipc_writer_init(&writer);
	umms_ipc_put_string(&writer, uri);
	umms_ipc_put_string(&writer, mux);
	if (ring) {
		umms_ipc_put_u32(&writer, segment_s);
		umms_ipc_put_u32(&writer, n_segments);
	} else {
		umms_ipc_put_i64(&writer, start_us);
		umms_ipc_put_fd(&writer, fd);
	}
	if (media_fd >= 0)
		umms_ipc_put_fd(&writer, media_fd);
	bool sent = umms_worker_process_send(process, UMMS_IPC_RECORD, 0, &writer);
	umms_ipc_writer_finish(&writer);
	if (fd >= 0)
		close(fd);
	if (media_fd >= 0)
		close(media_fd);
	/* The spare, if it was taken, comes back once this one is on its way. */
	umms_supervisor_refill();
	if (!sent) {
		/* Killed as it is: its death comes as ended() later, like any other. */
		umms_debug("recording: the worker took no request");
	}
	w->watchdog = umms_source_timeout(umms_worker_watch_period(config), watchdog_cb, w);
	umms_debug("recording: %s in engine worker %u (pid %d)", uri,
		umms_worker_process_number(process), (int)umms_worker_process_pid(process));
	return w;
fail:
	if (fd >= 0)
		close(fd);
	if (media_fd >= 0)
		close(media_fd);
	if (created)
		remove_empty(path, st.st_dev, st.st_ino);
	return NULL;
}

void
umms_recording_worker_stop(struct recording_worker *w)
{
	if (w->process)
		umms_worker_process_send(w->process, UMMS_IPC_RECORD_STOP, 0, NULL);
}

void
umms_recording_worker_abandon(struct recording_worker *w)
{
	umms_source_clear(&w->watchdog);
	w->handler = NULL;
	if (!w->process)
		return;
	struct umms_worker_process *process = w->process;
	w->process = NULL;
	umms_worker_process_release(process);
}

void
umms_recording_worker_free(struct recording_worker *w)
{
	if (!w)
		return;
	umms_recording_worker_abandon(w);
	g_free(w->path);
	g_free(w);
}

pid_t
umms_recording_worker_pid(const struct recording_worker *w)
{
	return w && w->process && umms_worker_process_alive(w->process) ?
		umms_worker_process_pid(w->process) : 0;
}
