/*
 * The recorder's jobs (recorder-private.h): a recording now or at a time,
 * kept in the database, running one recording.h pipeline per file part,
 * its org.umms.Recording1 object, and the clock that starts scheduled ones.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <gst/gst.h>
#include <glib/gstdio.h>
#include <glib-unix.h>

#include "dbus-iface.h"
#include "destination.h"
#include "dvb.h"
#include "error.h"
#include "log.h"
#include "recorder-private.h"
#include "resources-service.h"
#include "recording.h"
#include "schedule-db.h"
#include "source.h"
#include "umms-dbus.h"

/*
 * A part whose engine worker died (a stream that crashes the demuxer, say)
 * is followed by a new part for the rest of the window, at most
 * RETRY_MAX times, RETRY_FIRST_MS × 2^n later: a stream that kills every
 * worker fails after a few seconds, not in a loop.
 */
#define RETRY_MAX 3
#define RETRY_FIRST_MS 1000
#define RETRY_MIN_US (2 * G_USEC_PER_SEC) /* of the window left, or no new part */

const char *const job_states[N_STATES] = {
	"scheduled", "recording", "completed", "failed", "cancelled", "missed",
};

/* ---- jobs ---------------------------------------------------------------------------- */

static uint64_t
job_bytes(const struct job *j)
{
	return j->bytes_done + (j->running ? j->running->bytes_written : 0);
}

void
recorder_save(struct job *j)
{
	g_autoptr(GString) parts = g_string_new(NULL);
	for (guint i = 0; i < j->parts->len; i++)
		g_string_append_printf(parts, "%s%s", i ? "\n" : "", (char *)j->parts->pdata[i]);
	struct umms_schedule_row row = { .id = j->id, .uri = j->uri, .start_us = j->start_us,
		.duration_us = j->duration_us, .destination = j->destination,
		.state = job_states[j->state], .parts = parts->str, .bytes = job_bytes(j),
		.error = j->error, .programme = j->programme, .rule = j->rule,
		.episode_key = j->episode_key, .padding_before_s = j->padding_before_s,
		.padding_after_s = j->padding_after_s, .channel = j->channel, .title = j->title,
		.rated_channel = j->rated_channel, .rating_system = j->rating_system,
		.rating = j->rating, .min_age = j->min_age };
	umms_schedule_db_update(j->rec->db, &row);
}

void
recorder_set_state(struct job *j, enum job_state state, const char *error)
{
	j->state = state;
	recorder_rate(j);
	if (error) {
		g_free(j->error);
		j->error = g_strdup(error);
	}
	recorder_save(j);
	umms_dbus_iface_changed(j->iface);
}

static gboolean
reap_cb(gpointer data)
{
	struct umms_recorder *rec = data;
	umms_source_forget(&rec->reap);
	g_ptr_array_set_size(rec->finished, 0);
	return G_SOURCE_REMOVE;
}

static bool retry_later(struct job *j, const struct umms_recording *r);

/* The newest part was never written (its empty file is gone): Parts forgets it. */
static void
drop_last_part(struct job *j)
{
	if (j->parts->len > 0)
		g_ptr_array_remove_index(j->parts, j->parts->len - 1);
}

static void
on_running_eit(struct wl_listener *listener, void *data)
{
	struct job *j = wl_container_of(listener, j, eit);
	struct umms_recorder_eit event = { j->uri, data };
	wl_signal_emit_mutable(&j->rec->eit, &event);
}

static void
on_running_changed(struct wl_listener *listener, void *data)
{
	struct job *j = wl_container_of(listener, j, changed);
	struct umms_recording *r = j->running;
	if (r->state == UMMS_RECORDING_RECORDING) {
		umms_dbus_iface_changed(j->iface);
		return;
	}
	/* This part is over: the pipeline goes once its own callback returned. */
	umms_source_clear(&j->begin);
	j->bytes_done += r->bytes_written;
	umms_resource_service_untune(j->tuner);
	j->tuner = NULL;
	if (r->file_removed)
		drop_last_part(j);
	wl_list_remove(&j->changed.link);
	wl_list_remove(&j->eit.link);
	j->running = NULL;
	g_ptr_array_add(j->rec->finished, r);
	if (!j->rec->reap)
		j->rec->reap = umms_source_idle(reap_cb, j->rec);
	if (retry_later(j, r))
		return;
	enum job_state state = r->state == UMMS_RECORDING_COMPLETED ? COMPLETED :
		r->state == UMMS_RECORDING_CANCELLED ? CANCELLED : FAILED;
	g_autofree char *error = state == FAILED && r->error_code && j->retries ?
		g_strdup_printf("%s (after %u new parts)", r->error, j->retries) : NULL;
	/*
	 * Ended well: an earlier part's death, said while the job went on, is
	 * no longer why it is as it is (Parts shows the new part; the log keeps
	 * what happened).
	 */
	if (state != FAILED)
		g_clear_pointer(&j->error, g_free);
	recorder_set_state(j, state, error ? error : r->error);
}

static gboolean
retry_cb(gpointer data)
{
	struct job *j = data;
	umms_source_forget(&j->retry);
	recorder_start_part(j, g_get_real_time(), 0);
	return G_SOURCE_REMOVE;
}

/*
 * The part's engine worker died: a new part later if the job has a window
 * with time left in it and tries left; false (the job fails) otherwise.
 */
static bool
retry_later(struct job *j, const struct umms_recording *r)
{
	if (r->state != UMMS_RECORDING_FAILED || !r->error_code || j->duration_us <= 0)
		return false;
	unsigned delay = RETRY_FIRST_MS << MIN(j->retries, 8u);
	int64_t left = j->start_us + j->duration_us - g_get_real_time() - (int64_t)delay * 1000;
	if (j->retries >= RETRY_MAX || left < RETRY_MIN_US)
		return false;
	j->retries++;
	umms_info("recording %" G_GINT64_FORMAT ": a new part in %u ms (%u of %u)", j->id, delay,
		j->retries, RETRY_MAX);
	j->retry = umms_source_timeout(delay, retry_cb, j);
	recorder_set_state(j, RECORDING, r->error);
	return true;
}

/* The file of part @n (0: the destination itself; then "show.part2.mkv"…). */
static char *
part_file(const struct job *j, guint n)
{
	if (n == 0)
		return g_strdup(j->destination);
	const char *dot = strrchr(j->destination, '.');
	g_autofree char *stem = g_strndup(j->destination, (gsize)(dot - j->destination));
	return g_strdup_printf("%s.part%u%s", stem, n + 1, dot);
}

/* A part opened ahead of the job's start: the start came. */
static gboolean
begin_cb(gpointer data)
{
	struct job *j = data;
	umms_source_forget(&j->begin);
	recorder_set_state(j, RECORDING, NULL);
	return G_SOURCE_REMOVE;
}

/* Records into a new part now, for what is left of the window (@at_us: recorder-private.h). */
void
recorder_start_part(struct job *j, int64_t now, int64_t at_us)
{
	int64_t remaining = j->duration_us < 0 ? -1 : j->start_us + j->duration_us - now;
	/* What was on air at the end still reaches the file (recorder-private.h). */
	if (at_us > 0 && remaining > 0)
		remaining += SCHEDULE_TAIL_US;
	char *file = part_file(j, j->parts->len);
	g_ptr_array_add(j->parts, file);
	g_autoptr(GError) error = NULL;
	/* A DVB channel: a tuner taken and the channel's tuning given to the pipeline. */
	g_autofree char *engine_uri = NULL;
	if (umms_dvb_is_uri(j->uri)) {
		if (!j->rec->resources)
			g_set_error(&error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "no DVB tuners here");
		else
			j->tuner = umms_resource_service_tune(j->rec->resources, j->path, j->uri,
				&engine_uri, &error);
		if (!j->tuner) {
			drop_last_part(j);
			recorder_set_state(j, FAILED, error->message);
			return;
		}
	}
	j->running = umms_recording_start((unsigned)j->id, engine_uri ? engine_uri : j->uri,
		file, remaining, j->fixed_window, at_us, &error);
	if (!j->running) {
		umms_resource_service_untune(j->tuner);
		j->tuner = NULL;
	}
	if (!j->running) {
		GStatBuf st;
		if (g_lstat(file, &st) != 0 && errno == ENOENT)
			drop_last_part(j);
		recorder_set_state(j, FAILED, error->message);
		return;
	}
	j->changed.notify = on_running_changed;
	wl_signal_add(&j->running->events.changed, &j->changed);
	j->eit.notify = on_running_eit;
	wl_signal_add(&j->running->events.eit, &j->eit);
	if (at_us <= now) {
		recorder_set_state(j, RECORDING, NULL);
		return;
	}
	/* Still "scheduled" to its clients until the start, its source open. */
	int64_t ahead = MAX(at_us - g_get_real_time(), 0);
	j->begin = umms_source_timeout((unsigned)((ahead + 999) / 1000), begin_cb, j);
	umms_dbus_iface_changed(j->iface);
}

/*
 * Scheduled jobs whose time came start (late within their window), or are
 * missed. A job's time is its start less [recording] schedule-lead: its
 * source is opened then, and its file begins at the start itself (the key
 * frame at or before it: recording.h).
 */
static void
start_due(struct umms_recorder *rec)
{
	int64_t now = g_get_real_time();
	int64_t lead = (int64_t)rec->config->recording.schedule_lead * G_USEC_PER_SEC;
	for (guint i = 0; i < rec->jobs->len; i++) {
		struct job *j = rec->jobs->pdata[i];
		if (j->state != SCHEDULED || j->running || now < j->start_us - lead)
			continue;
		if (j->duration_us > 0 && now >= j->start_us + j->duration_us) {
			umms_info("recording %" G_GINT64_FORMAT ": missed (ummsd was not running)",
				j->id);
			recorder_set_state(j, MISSED, NULL);
			continue;
		}
		if (now - j->start_us > G_USEC_PER_SEC * 2)
			umms_info("recording %" G_GINT64_FORMAT ": starts %.0f s late", j->id,
				(double)(now - j->start_us) / 1e6);
		recorder_start_part(j, now, j->start_us > now ? j->start_us : 0);
	}
}

/* The timer at the next job's time (none: disarmed). */
static void
arm(struct umms_recorder *rec)
{
	int64_t lead = (int64_t)rec->config->recording.schedule_lead * G_USEC_PER_SEC;
	int64_t next = G_MAXINT64;
	for (guint i = 0; i < rec->jobs->len; i++) {
		const struct job *j = rec->jobs->pdata[i];
		if (j->state == SCHEDULED && !j->running)
			next = MIN(next, j->start_us - lead);
	}
	/* 0 disarms: a time already past is a nanosecond after 1970, at once. */
	struct itimerspec at = { 0 };
	if (next != G_MAXINT64) {
		next = MAX(next, 1);
		at.it_value.tv_sec = next / G_USEC_PER_SEC;
		at.it_value.tv_nsec = (long)(next % G_USEC_PER_SEC) * 1000;
		if (at.it_value.tv_sec == 0 && at.it_value.tv_nsec == 0)
			at.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(rec->timer_fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &at,
			NULL) != 0)
		umms_warn("recorder: cannot set the schedule's timer: %s", g_strerror(errno));
}

/* The next job's time came, or the wall clock was set (it moves the starts with it). */
static gboolean
timer_cb(gint fd, GIOCondition condition, gpointer data)
{
	struct umms_recorder *rec = data;
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) < 0 && errno == ECANCELED)
		umms_debug("recorder: the wall clock was set; the schedule follows it");
	start_due(rec);
	arm(rec);
	return G_SOURCE_CONTINUE;
}

/*
 * A timer on the wall clock for the next job's time rather than a tick: a
 * file that begins late loses its first seconds. The kernel wakes it when
 * the clock is set forward or back (NTP at boot, a user), and the start
 * moves with the clock, as a person who scheduled "20:00" means.
 */
bool
recorder_timer_init(struct umms_recorder *rec, GError **error)
{
	rec->timer_fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
	if (rec->timer_fd < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE, "timerfd: %s",
			g_strerror(errno));
		return false;
	}
	rec->timer = g_unix_fd_source_new(rec->timer_fd, G_IO_IN);
	g_source_set_callback(rec->timer, G_SOURCE_FUNC(timer_cb), rec, NULL);
	g_source_attach(rec->timer, g_main_context_get_thread_default());
	return true;
}

void
recorder_timer_finish(struct umms_recorder *rec)
{
	umms_source_clear(&rec->timer);
	if (rec->timer_fd >= 0)
		close(rec->timer_fd);
	rec->timer_fd = -1;
}

void
recorder_arm_timer(struct umms_recorder *rec)
{
	arm(rec);
}

/* ---- Recording1 --------------------------------------------------------------------- */

/* The part being written stops where it is (what is written stays). */
static void
stop_running(struct job *j)
{
	umms_source_clear(&j->begin);
	wl_list_remove(&j->changed.link);
	wl_list_remove(&j->eit.link);
	j->bytes_done += j->running->bytes_written;
	umms_recording_destroy(j->running);
	j->running = NULL;
	umms_resource_service_untune(j->tuner);
	j->tuner = NULL;
}

/* A part opened ahead and not begun stops: nothing was written, and no file stays. */
void
recorder_stop_unbegun(struct job *j)
{
	stop_running(j);
	const char *file = j->parts->pdata[j->parts->len - 1];
	if (g_unlink(file) == 0 || errno == ENOENT)
		drop_last_part(j);
}

/*
 * Delete: a running recording stops, its files go (one that cannot keeps
 * the entry, to try again), then the entry. Files are removed only where
 * they could be written: inside the recording directories, every link
 * resolved again now (one swapped since would lead elsewhere).
 */
static bool
delete_job(struct job *j, GError **error)
{
	struct umms_recorder *rec = j->rec;
	umms_source_clear(&j->retry);
	if (j->running) {
		stop_running(j);
		recorder_set_state(j, CANCELLED, "stopped to be deleted");
	}
	for (guint i = 0; i < j->parts->len; i++) {
		const char *part = j->parts->pdata[i];
		g_autoptr(GError) why = NULL;
		g_autofree char *inside = umms_destination_resolve((const char *const *)rec->dirs,
			part, &why);
		if (!inside) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED, "not removed: %s",
				why->message);
			return false;
		}
		if (strcmp(inside, part) != 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"not removed: %s now leads to %s", part, inside);
			return false;
		}
		if (g_unlink(part) != 0 && errno != ENOENT) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot remove %s: %s", part,
				g_strerror(errno));
			return false;
		}
	}
	if (!umms_schedule_db_delete(rec->db, j->id, error))
		return false;
	umms_info("recording %" G_GINT64_FORMAT ": deleted (%u file%s)", j->id, j->parts->len,
		j->parts->len == 1 ? "" : "s");
	g_ptr_array_remove(rec->jobs, j);
	umms_dbus_iface_changed(rec->iface);
	return true;
}

static void
recording_method(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct job *j = data;
	if (strcmp(method, "Delete") == 0) {
		GError *error = NULL;
		if (!delete_job(j, &error)) {
			umms_dbus_return_error(invocation, error);
			return;
		}
		/*
		 * Its object goes before the reply, so a call after it finds
		 * none (dbus-iface.c holds it until this call returns).
		 */
		recorder_job_free(j);
		g_dbus_method_invocation_return_value(invocation, NULL);
		return;
	}
	if (strcmp(method, "Cancel") == 0) {
		if (j->running && j->begin) {
			recorder_stop_unbegun(j);
			recorder_set_state(j, CANCELLED, NULL);
		} else if (j->state == SCHEDULED || j->retry) {
			umms_source_clear(&j->retry);
			g_clear_pointer(&j->error, g_free);
			recorder_set_state(j, CANCELLED, NULL);
		} else if (j->running)
			umms_recording_cancel(j->running);
		g_dbus_method_invocation_return_value(invocation, NULL);
		return;
	}
	g_dbus_method_invocation_return_error(invocation, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
		"no method %s", method);
}

static GVariant *
recording_property(void *data, const char *name, GError **error)
{
	struct job *j = data;
	if (strcmp(name, "Uri") == 0)
		return g_variant_new_string(j->uri);
	if (strcmp(name, "Start") == 0)
		return g_variant_new_int64(j->start_us);
	if (strcmp(name, "Duration") == 0)
		return g_variant_new_int64(j->duration_us);
	if (strcmp(name, "Destination") == 0)
		return g_variant_new_string(j->destination);
	if (strcmp(name, "Parts") == 0)
		return g_variant_new_strv((const char *const *)j->parts->pdata, j->parts->len);
	if (strcmp(name, "State") == 0)
		return g_variant_new_string(job_states[j->state]);
	if (strcmp(name, "BytesWritten") == 0)
		return g_variant_new_uint64(job_bytes(j));
	if (strcmp(name, "Error") == 0)
		return g_variant_new_string(j->error ? j->error : "");
	if (strcmp(name, "Programme") == 0)
		return g_variant_new_int64(j->programme);
	if (strcmp(name, "SeriesRule") == 0)
		return g_variant_new_int64(j->rule);
	if (strcmp(name, "EnginePid") == 0)
		return g_variant_new_uint32(j->running ?
			(guint32)umms_recording_engine_pid(j->running) : 0);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops recording_ops = {
	.method_call = recording_method,
	.get_property = recording_property,
};

/* A job and its object (not saved: the caller inserts or loaded it). */
struct job *
recorder_job_new(struct umms_recorder *rec, int64_t id, const char *uri, const char *destination,
	int64_t start_us, int64_t duration_us, enum job_state state, GError **error)
{
	struct job *j = g_new0(struct job, 1);
	j->rec = rec;
	j->id = id;
	j->path = g_strdup_printf(RECORDING_PREFIX "/%" G_GINT64_FORMAT, id);
	j->uri = g_strdup(uri);
	j->destination = g_strdup(destination);
	j->start_us = start_us;
	j->duration_us = duration_us;
	j->state = state;
	j->min_age = -1;
	j->parts = g_ptr_array_new_with_free_func(g_free);
	j->iface = umms_dbus_iface_new(umms_recording1_interface_info(), &recording_ops, j);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(j->iface),
			rec->connection, j->path, error)) {
		g_object_unref(j->iface);
		g_ptr_array_unref(j->parts);
		g_free(j->uri);
		g_free(j->destination);
		g_free(j->path);
		g_free(j);
		return NULL;
	}
	g_ptr_array_add(rec->jobs, j);
	umms_dbus_iface_changed(rec->iface);
	return j;
}

/* ummsd stops: a running part stops where it is, its state kept "recording" to resume. */
void
recorder_job_free(struct job *j)
{
	umms_source_clear(&j->retry);
	if (j->running && j->begin)
		recorder_stop_unbegun(j);
	else if (j->running)
		stop_running(j);
	umms_dbus_iface_retire(j->iface, NULL, NULL);
	g_ptr_array_unref(j->parts);
	g_free(j->uri);
	g_free(j->destination);
	g_free(j->error);
	g_free(j->episode_key);
	g_free(j->title);
	g_free(j->rating_system);
	g_free(j->rating);
	g_free(j->path);
	g_free(j);
}
