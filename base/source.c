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
