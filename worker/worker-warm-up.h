/*
 * A spare worker's warm-up: what a first SetUri would otherwise load on
 * its way to the first frame (the plugins of the demuxers, parsers and
 * software decoders playbin autoplugs first, rank primary or above, and
 * their classes), loaded one at a time at idle priority while the worker
 * waits as the spare. Stopped at the first OPEN or RECORD, which load what
 * they need themselves: never on a player's path.
 */
#ifndef UMMS_WORKER_WARM_UP_H
#define UMMS_WORKER_WARM_UP_H

#include <glib.h>

struct umms_worker_warm_up {
	GPtrArray *list;         /* element factories left to load */
	guint next;
	gint64 start;            /* µs, monotonic */
	GSource *source;         /* the idle source; NULL once done or stopped */
};

/* Starts loading on the default main context; @w zeroed before. */
void umms_worker_warm_up_start(struct umms_worker_warm_up *w);
/* Stops (if running) and frees what is left; @w may be started again. */
void umms_worker_warm_up_stop(struct umms_worker_warm_up *w);

#endif
