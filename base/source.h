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
/*
 * A source that runs @func once after one or more umms_source_wake() calls
 * (as often as @func returns G_SOURCE_CONTINUE). Waking it takes no lock:
 * an eventfd write, where g_source_set_ready_time() from another thread
 * takes the main context's lock, which the main loop then waits for
 * (issue 19: handing a frame over so, the worker's main thread slept on
 * that lock once every other frame: 3.3 wake-ups a frame, 2.6 now). The
 * eventfd is the source's, closed with it; a wake after the source is
 * destroyed is the caller's bug, as a ready time set then would be. NULL
 * (errno set) if no eventfd can be made.
 */
GSource *umms_source_wake_new(GSourceFunc func, void *data);
/* From any thread, and async-signal-safe. */
void umms_source_wake(GSource *source);
/* Destroys and releases *source, if any, and clears it. */
void umms_source_clear(GSource **source);
/* From inside the source's own callback: releases our reference only. */
void umms_source_forget(GSource **source);

#endif
