/*
 * Main-loop sources on the thread-default main context.
 *
 * ummsd runs on whatever GMainContext is thread-default where it was created
 * (tests run it in a thread of its own), so sources are attached there and
 * kept as GSource pointers: g_timeout_add() and g_source_remove() would use
 * the global default context instead.
 *
 * A callback that returns G_SOURCE_REMOVE must first drop its pointer with
 * umms_source_forget().
 */
#ifndef UMMS_SERVICE_SOURCE_H
#define UMMS_SERVICE_SOURCE_H

#include <glib.h>

GSource *umms_source_timeout(unsigned ms, GSourceFunc func, void *data);
GSource *umms_source_idle(GSourceFunc func, void *data);
/* Destroys and releases *source, if any, and clears it. */
void umms_source_clear(GSource **source);
/* From inside the source's own callback: releases our reference only. */
void umms_source_forget(GSource **source);

#endif
