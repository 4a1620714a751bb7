#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "source.h"

static GSource *
attach(GSource *source, GSourceFunc func, void *data)
{
	g_source_set_callback(source, func, data, NULL);
	g_source_attach(source, g_main_context_get_thread_default());
	return source;
}

GSource *
umms_source_timeout(unsigned ms, GSourceFunc func, void *data)
{
	return attach(g_timeout_source_new(ms), func, data);
}

GSource *
umms_source_idle(GSourceFunc func, void *data)
{
	return attach(g_idle_source_new(), func, data);
}

void
umms_source_clear(GSource **source)
{
	if (!*source)
		return;
	g_source_destroy(*source);
	g_source_unref(*source);
	*source = NULL;
}

void
umms_source_forget(GSource **source)
{
	if (!*source)
		return;
	g_source_unref(*source);
	*source = NULL;
}

struct wake_source {
	GSource base;
	int fd;
};

static gboolean
wake_dispatch(GSource *source, GSourceFunc callback, gpointer data)
{
	struct wake_source *wake = (struct wake_source *)source;
	uint64_t count;
	/* Cleared first: a wake from now on runs the callback again. */
	while (read(wake->fd, &count, sizeof(count)) < 0 && errno == EINTR)
		;
	return callback ? callback(data) : G_SOURCE_REMOVE;
}

static void
wake_finalize(GSource *source)
{
	struct wake_source *wake = (struct wake_source *)source;
	if (wake->fd >= 0)
		close(wake->fd);
}

static GSourceFuncs wake_funcs = {
	.dispatch = wake_dispatch,
	.finalize = wake_finalize,
};

GSource *
umms_source_wake_new(GSourceFunc func, void *data)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return NULL;
	GSource *source = g_source_new(&wake_funcs, sizeof(struct wake_source));
	((struct wake_source *)source)->fd = fd;
	g_source_add_unix_fd(source, fd, G_IO_IN);
	g_source_set_name(source, "umms wake");
	return attach(source, func, data);
}

void
umms_source_wake(GSource *source)
{
	const uint64_t one = 1;
	/* EAGAIN: the counter is full, and so the source ready. */
	while (write(((struct wake_source *)source)->fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}
