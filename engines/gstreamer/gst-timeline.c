/*
 * The way to the first frame after an open, in the debug log (issue 15,
 * bench/first-frame): for each step, the time since the open, the
 * process's CPU time since (all its threads) and its page faults since.
 * Each step is logged once per open, from whichever thread gets there.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <time.h>
#include <sys/resource.h>

#include "gst-private.h"
#include "log.h"

static const char *const names[GST_TIMELINE_STEPS] = {
	[GST_TIMELINE_DECODER] = "decoder chosen",
	[GST_TIMELINE_DECODED] = "first picture decoded",
	[GST_TIMELINE_FRAME] = "first frame handed on",
};

static void
sample(struct gst_timeline *t)
{
	struct timespec cpu;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	t->cpu = (gint64)cpu.tv_sec * G_USEC_PER_SEC + cpu.tv_nsec / 1000;
	t->wall = g_get_monotonic_time();
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	t->faults = usage.ru_minflt + usage.ru_majflt;
}

void
gst_timeline_start(struct gst_timeline *t)
{
	g_atomic_int_set(&t->seen, 0);
	sample(t);
}

void
gst_timeline_mark(struct gst_timeline *t, enum gst_timeline_step step)
{
	if (!t->wall || (g_atomic_int_or(&t->seen, 1u << step) & (1u << step)))
		return;
	struct gst_timeline now;
	sample(&now);
	umms_debug("open → %s: %.1f ms, CPU %.1f ms, %ld page faults", names[step],
		(double)(now.wall - t->wall) / 1000, (double)(now.cpu - t->cpu) / 1000,
		now.faults - t->faults);
}
