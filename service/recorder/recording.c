/*
 * One recording (recording.h): its state, size and timers here; its
 * pipeline (engines/gstreamer/gst-record.h) in an engine worker
 * (recording-worker.h; a ring's files made here, ring-files.h) or, with
 * isolation in-process, on ummsd's main loop.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <glib/gstdio.h>

#include "destination.h"
#include "engine-supervisor.h"
#include "error.h"
#include "gst-record.h"
#include "log.h"
#include "recording-worker.h"
#include "recording.h"
#include "ring-files.h"
#include "source.h"

#define BYTES_PERIOD_MS 500
#define CANCEL_GRACE_MS 3000
/* A source that never gives data: stopped this long after its duration anyway. */
#define START_GRACE_MS 10000

struct recording {
	struct umms_recording base;
	struct umms_gst_record *local;     /* in ummsd, or */
	struct recording_worker *worker;   /* in an engine worker */
	struct umms_ring_files *ring_files; /* a ring's: its files made here */
	GSource *bytes_timer, *stop_timer, *cancel_timer;
	bool cancelling;
	bool firm;                         /* the duration counts from the start, not the data */
};

static const char *const state_names[] = {
	[UMMS_RECORDING_RECORDING] = "recording",
	[UMMS_RECORDING_COMPLETED] = "completed",
	[UMMS_RECORDING_FAILED] = "failed",
	[UMMS_RECORDING_CANCELLED] = "cancelled",
};

const char *
umms_recording_state_name(enum umms_recording_state state)
{
	return state_names[state];
}

static void
update_bytes(struct recording *r)
{
	GStatBuf st;
	if (g_stat(r->base.path, &st) == 0 && (uint64_t)st.st_size != r->base.bytes_written) {
		r->base.bytes_written = (uint64_t)st.st_size;
		wl_signal_emit_mutable(&r->base.events.changed, &r->base);
	}
}

static gboolean
bytes_cb(gpointer data)
{
	update_bytes(data);
	return G_SOURCE_CONTINUE;
}

/* The pipeline stops (the worker goes); the file stays as written. */
static void
finish(struct recording *r, enum umms_recording_state state, int code, const char *error)
{
	if (r->base.state != UMMS_RECORDING_RECORDING)
		return;
	umms_source_clear(&r->bytes_timer);
	umms_source_clear(&r->stop_timer);
	umms_source_clear(&r->cancel_timer);
	if (r->local)
		umms_gst_record_stop(r->local);
	if (r->worker)
		umms_recording_worker_abandon(r->worker);
	r->base.state = state;
	r->base.error = error ? g_strdup(error) : NULL;
	r->base.error_code = code;
	update_bytes(r);
	umms_info("recording %u: %s (%" G_GUINT64_FORMAT " bytes in %s)%s%s", r->base.id,
		state_names[state], r->base.bytes_written, r->base.path, error ? ": " : "",
		error ? error : "");
	wl_signal_emit_mutable(&r->base.events.changed, &r->base);
}

static void
ended(struct recording *r, int code, const char *error)
{
	finish(r, error ? UMMS_RECORDING_FAILED : r->cancelling ? UMMS_RECORDING_CANCELLED :
		UMMS_RECORDING_COMPLETED, code, error);
}

static void
local_ended(void *data, const char *error)
{
	ended(data, 0, error);
}

static void flowing(void *data);

/* An EIT section the pipeline read (in a worker or here): for the guide. */
static void
eit(void *data, const struct umms_eit *section)
{
	struct recording *r = data;
	wl_signal_emit_mutable(&r->base.events.eit, (void *)section);
}

static const struct umms_gst_record_handler local_handler = {
	.flowing = flowing,
	.ended = local_ended,
	.eit = eit,
};

static void
worker_ended(void *data, int code, const char *error, bool removed)
{
	struct recording *r = data;
	r->base.file_removed = removed;
	ended(r, code, error);
}

static gboolean stop_cb(gpointer data);

/*
 * The duration counts from the first data in the file: a worker may take a
 * second to start (a cold one, a loaded machine), a network source longer
 * to answer, and the file should not lose that. Not a window scheduled
 * (firm): that ends at its end, however late the data came.
 */
static void
flowing(void *data)
{
	struct recording *r = data;
	if (r->base.duration_us > 0 && !r->firm && !r->cancelling && r->base.state ==
			UMMS_RECORDING_RECORDING && r->stop_timer) {
		umms_source_clear(&r->stop_timer);
		r->stop_timer = umms_source_timeout((unsigned)(r->base.duration_us / 1000), stop_cb,
			r);
	}
}

static const struct recording_worker_handler worker_handler = {
	.flowing = flowing,
	.ended = worker_ended,
	.eit = eit,
};

static void
send_eos(struct recording *r)
{
	if (r->local)
		umms_gst_record_eos(r->local);
	if (r->worker)
		umms_recording_worker_stop(r->worker);
}

/*
 * A source that ignores EOS (some live ones), or a stream that never got
 * as far as the muxer (no data yet): stopped anyway, the file as it is.
 */
static gboolean
grace_cb(gpointer data)
{
	struct recording *r = data;
	umms_source_forget(&r->cancel_timer);
	finish(r, r->cancelling ? UMMS_RECORDING_CANCELLED : UMMS_RECORDING_COMPLETED, 0, NULL);
	return G_SOURCE_REMOVE;
}

/* The duration asked for has passed: the file is ended properly. */
static gboolean
stop_cb(gpointer data)
{
	struct recording *r = data;
	umms_source_forget(&r->stop_timer);
	umms_debug("recording %u: the duration asked for has passed", r->base.id);
	send_eos(r);
	r->cancel_timer = umms_source_timeout(CANCEL_GRACE_MS, grace_cb, r);
	return G_SOURCE_REMOVE;
}

void
umms_recording_cancel(struct umms_recording *base)
{
	struct recording *r = (struct recording *)base;
	if (base->state != UMMS_RECORDING_RECORDING || r->cancelling)
		return;
	r->cancelling = true;
	umms_source_clear(&r->stop_timer);
	umms_source_clear(&r->cancel_timer);
	send_eos(r);
	r->cancel_timer = umms_source_timeout(CANCEL_GRACE_MS, grace_cb, r);
}

void
umms_recording_set_end(struct umms_recording *base, int64_t end_us)
{
	struct recording *r = (struct recording *)base;
	if (base->state != UMMS_RECORDING_RECORDING || r->cancelling || !r->stop_timer)
		return;
	int64_t left = MAX(end_us - g_get_real_time(), 0);
	umms_source_clear(&r->stop_timer);
	r->stop_timer = umms_source_timeout((unsigned)MIN(left / 1000, G_MAXUINT), stop_cb, r);
	base->duration_us = end_us - base->start_us;
}

pid_t
umms_recording_engine_pid(const struct umms_recording *base)
{
	const struct recording *r = (const struct recording *)base;
	return umms_recording_worker_pid(r->worker);
}

static struct umms_recording *
start(unsigned id, const char *uri, const char *path, int64_t duration_us, bool firm,
	int64_t at_us, const struct umms_gst_record_target *ring,
	struct umms_ring_files *ring_files, GError **error)
{
	const char *container = umms_destination_container(path);
	const char *mux_name = container && strcmp(container, "mpegts") == 0 ?
		"mpegtsmux" : "matroskamux";
	/* A window's end counts from now, not from when the pipeline got going. */
	int64_t asked = g_get_monotonic_time();
	struct recording *r = g_new0(struct recording, 1);
	r->base.id = id;
	r->base.uri = g_strdup(uri);
	r->base.path = g_strdup(path);
	r->base.start_us = at_us > 0 ? at_us : g_get_real_time();
	r->base.duration_us = duration_us;
	r->firm = firm;
	r->ring_files = ring_files;
	wl_signal_init(&r->base.events.changed);
	wl_signal_init(&r->base.events.eit);
	bool in_worker = umms_supervisor_enabled();
	if (in_worker && ring) {
		r->worker = umms_recording_worker_start_ring(uri, ring_files, ring->segment_s,
			ring->n_segments, &worker_handler, r, error);
	} else if (in_worker) {
		r->worker = umms_recording_worker_start(uri, path, mux_name, at_us, &worker_handler,
			r, error);
	} else {
		const struct umms_gst_record_target file = { .mux = mux_name, .fd = -1,
			.path = path, .start_us = at_us };
		r->local = umms_gst_record_start(id, uri, ring ? ring : &file, &local_handler, r,
			error);
	}
	if (!r->worker && !r->local) {
		umms_recording_destroy(&r->base);
		return NULL;
	}
	r->bytes_timer = umms_source_timeout(BYTES_PERIOD_MS, bytes_cb, r);
	if (duration_us > 0 && firm)
		r->stop_timer = umms_source_timeout((unsigned)(MAX(duration_us -
			(g_get_monotonic_time() - asked), 0) / 1000), stop_cb, r);
	else if (duration_us > 0)
		r->stop_timer = umms_source_timeout((unsigned)(duration_us / 1000) +
			START_GRACE_MS, stop_cb, r);
	umms_info("recording %u: %s into %s (%s%s)%s", id, uri, path, ring ? "hlssink2" :
		mux_name, in_worker ? ", in an engine worker" : "", at_us > 0 ?
		", opened ahead of its start" : "");
	return &r->base;
}

struct umms_recording *
umms_recording_start(unsigned id, const char *uri, const char *path, int64_t duration_us,
	bool firm, int64_t at_us, GError **error)
{
	return start(id, uri, path, duration_us, firm, at_us, NULL, NULL, error);
}

struct umms_recording *
umms_recording_start_ring(unsigned id, const char *uri, const char *dir, unsigned segment_s,
	unsigned n_segments, GError **error)
{
	g_autofree char *playlist = g_build_filename(dir, UMMS_RECORDING_RING_PLAYLIST, NULL);
	/* Its files made here: hlssink2 opens and deletes nothing by name. */
	struct umms_ring_files *files = umms_ring_files_open(dir, error);
	if (!files)
		return NULL;
	const struct umms_gst_record_target ring = { .mux = "hlssink2", .fd = -1,
		.ring_dir = dir, .playlist = playlist, .segment_s = segment_s,
		.n_segments = n_segments, .ring_io = &files->io };
	return start(id, uri, playlist, -1, false, 0, &ring, files, error);
}

void
umms_recording_destroy(struct umms_recording *base)
{
	if (!base)
		return;
	struct recording *r = (struct recording *)base;
	umms_source_clear(&r->bytes_timer);
	umms_source_clear(&r->stop_timer);
	umms_source_clear(&r->cancel_timer);
	umms_gst_record_free(r->local);
	umms_recording_worker_free(r->worker);
	/* After the pipeline: its streaming threads write through it until then. */
	umms_ring_files_close(r->ring_files);
	g_free(base->uri);
	g_free(base->path);
	g_free(base->error);
	g_free(r);
}
