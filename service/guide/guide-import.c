/*
 * Imports (guide-import.h): the file opened and parsed on a thread, the
 * result queued and applied from the main loop a step at a time
 * (guide-apply.c), one import after the other, then the caller answered.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dbus-iface.h"
#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"
#include "source.h"

/* Imports running at once (each holds a parsed file in memory). */
#define MAX_IMPORTS 2

static void
channel_free(struct guide_parsed_channel *c)
{
	g_free(c->key);
	g_free(c->number);
	g_free(c->name);
	g_strfreev(c->names);
	g_free(c->logo);
	g_free(c->groups);
	g_free(c->uri);
	g_free(c->xmltv_id);
	g_free(c->epg_name);
	g_free(c);
}

static void
programme_free(struct guide_parsed_programme *p)
{
	g_free(p->channel);
	g_free(p->title);
	g_free(p->sub_title);
	g_free(p->description);
	g_free(p->categories);
	g_free(p->episode);
	g_free(p->series_id);
	g_free(p->rating_system);
	g_free(p->rating);
	g_free(p);
}

void
guide_parsed_init(struct guide_parsed *parsed)
{
	*parsed = (struct guide_parsed){
		.channels = g_ptr_array_new_with_free_func((GDestroyNotify)channel_free),
		.programmes = g_ptr_array_new_with_free_func((GDestroyNotify)programme_free),
	};
}

void
guide_parsed_finish(struct guide_parsed *parsed)
{
	if (parsed->channels)
		g_ptr_array_unref(parsed->channels);
	if (parsed->programmes)
		g_ptr_array_unref(parsed->programmes);
	*parsed = (struct guide_parsed){ 0 };
}

int
guide_import_open(const char *path, uint64_t max_bytes, GError **error)
{
	if (!g_path_is_absolute(path)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: not an absolute path", path);
		return -1;
	}
	/* O_NONBLOCK: a FIFO must not hold the open; it is refused below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, err == ENOENT || err == ENOTDIR ?
			UMMS_ERROR_NOT_FOUND : err == EACCES || err == EPERM ?
			UMMS_ERROR_ACCESS_DENIED : UMMS_ERROR_FAILED, "%s: %s", path,
			g_strerror(err));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: not a regular file", path);
		goto fail;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s: %jd bytes, more than guide.max-import-size (%" G_GUINT64_FORMAT
			" bytes)", path, (intmax_t)st.st_size, max_bytes);
		goto fail;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
fail:
	close(fd);
	return -1;
}

/* Reads all of @fd (at most @max bytes) into a NUL-terminated buffer. */
static char *
read_all(int fd, uint64_t max, size_t *length, GError **error)
{
	GByteArray *buf = g_byte_array_new();
	uint8_t chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "reading: %s",
				g_strerror(errno));
			g_byte_array_unref(buf);
			return NULL;
		}
		if (n == 0)
			break;
		if (buf->len + (uint64_t)n > max) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"more than guide.max-import-size (%" G_GUINT64_FORMAT " bytes)", max);
			g_byte_array_unref(buf);
			return NULL;
		}
		g_byte_array_append(buf, chunk, (guint)n);
	}
	*length = buf->len;
	g_byte_array_append(buf, (const uint8_t *)"", 1);
	return (char *)g_byte_array_free(buf, false);
}

/* ---- the thread ---------------------------------------------------------------------------- */

struct job {
	enum guide_import_kind kind;
	char *path;
	uint64_t max_bytes;
	GTimeZone *zone;
	struct guide_parsed parsed;
	/* The main loop's. */
	struct umms_guide *guide;
	GDBusMethodInvocation *invocation;
	struct guide_apply *apply;
};

static void
job_free(struct job *job)
{
	guide_apply_free(job->apply);
	g_free(job->path);
	g_time_zone_unref(job->zone);
	guide_parsed_finish(&job->parsed);
	g_free(job);
}

static bool
job_parse(struct job *job, GError **error)
{
	int fd = guide_import_open(job->path, job->max_bytes, error);
	if (fd < 0)
		return false;
	bool ok;
	if (job->kind == GUIDE_IMPORT_XMLTV) {
		ok = guide_xmltv_parse(fd, job->max_bytes, job->zone, &job->parsed, error);
	} else {
		size_t length = 0;
		g_autofree char *data = read_all(fd, job->max_bytes, &length, error);
		close(fd);
		ok = data && guide_m3u_parse(data, length, &job->parsed, error);
	}
	if (!ok)
		g_prefix_error(error, "%s: ", job->path);
	return ok;
}

static void
job_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	(void)source;
	(void)cancellable;
	struct job *job = data;
	GError *error = NULL;
	int64_t started = g_get_monotonic_time();
	bool ok = job_parse(job, &error);
	umms_info("guide: %s parsed in %.0f ms", job->path,
		(double)(g_get_monotonic_time() - started) / 1000.0);
	if (ok)
		g_task_return_boolean(task, true);
	else
		g_task_return_error(task, error);
}

/* ---- on the main loop ------------------------------------------------------------------------ */

/* Replies (@result, else @error) and forgets @job. */
static void
job_end(struct job *job, GVariant *result, GError *error)
{
	if (result) {
		g_dbus_method_invocation_return_value(job->invocation,
			g_variant_new("(@a{sv})", result));
	} else {
		umms_info("guide: import refused: %s", error->message);
		umms_dbus_return_error(job->invocation, error);
	}
	job->guide->imports--;
	job_free(job);
}

static gboolean
apply_cb(gpointer data)
{
	struct umms_guide *guide = data;
	struct job *job = g_queue_peek_head(&guide->pending);
	GError *error = NULL;
	switch (guide_apply_step(job->apply, &error)) {
	case GUIDE_APPLY_MORE:
		return G_SOURCE_CONTINUE;
	case GUIDE_APPLY_DONE:
		g_queue_pop_head(&guide->pending);
		job_end(job, guide_apply_result(job->apply), NULL);
		break;
	case GUIDE_APPLY_FAILED:
		g_queue_pop_head(&guide->pending);
		job_end(job, NULL, error);
		break;
	}
	if (!g_queue_is_empty(&guide->pending))
		return G_SOURCE_CONTINUE;
	umms_source_forget(&guide->apply_idle);
	return G_SOURCE_REMOVE;
}

static void
parsed_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	(void)source;
	struct job *job = data;
	GTask *task = G_TASK(result);
	GError *error = NULL;
	if (g_cancellable_is_cancelled(g_task_get_cancellable(task))) {
		/* The guide is gone (ummsd stopping): nothing to apply it to. */
		g_dbus_method_invocation_return_dbus_error(job->invocation,
			umms_error_dbus_name(UMMS_ERROR_FAILED), "ummsd is stopping");
		job_free(job);
		return;
	}
	if (!g_task_propagate_boolean(task, &error)) {
		job_end(job, NULL, error);
		return;
	}
	struct umms_guide *guide = job->guide;
	job->apply = guide_apply_new(guide, job->kind, job->path, &job->parsed);
	g_queue_push_tail(&guide->pending, job);
	if (!guide->apply_idle)
		guide->apply_idle = umms_source_idle(apply_cb, guide);
}

void
guide_import_start(struct umms_guide *guide, enum guide_import_kind kind, const char *path,
	GDBusMethodInvocation *invocation)
{
	if (guide->imports >= MAX_IMPORTS) {
		umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%u imports are running already: try again when one is done", guide->imports));
		return;
	}
	guide->imports++;
	struct job *job = g_new0(struct job, 1);
	job->kind = kind;
	job->path = g_strdup(path);
	job->max_bytes = (uint64_t)guide->config->guide.max_import_size << 20;
	job->zone = g_time_zone_ref(guide->xmltv_zone);
	guide_parsed_init(&job->parsed);
	job->guide = guide;
	job->invocation = invocation;
	GTask *task = g_task_new(NULL, guide->cancellable, parsed_cb, job);
	g_task_set_task_data(task, job, NULL);
	/* Cancelling the guide does not cut a parse short; it only drops its result. */
	g_task_set_return_on_cancel(task, false);
	g_task_run_in_thread(task, job_thread);
	g_object_unref(task);
}

void
guide_import_finish(struct umms_guide *guide)
{
	umms_source_clear(&guide->apply_idle);
	struct job *job;
	while ((job = g_queue_pop_head(&guide->pending))) {
		g_dbus_method_invocation_return_dbus_error(job->invocation,
			umms_error_dbus_name(UMMS_ERROR_FAILED), "ummsd is stopping");
		job_free(job);
	}
}
