/*
 * Main-loop sources (base/source.h): umms_source_wake() from another
 * thread, as the engine's streaming threads hand frames over.
 */
#include <dirent.h>
#include <glib.h>

#include "source.h"

struct counts {
	unsigned runs;
};

static gboolean
count_cb(gpointer data)
{
	((struct counts *)data)->runs++;
	return G_SOURCE_CONTINUE;
}

static gpointer
wake_many(gpointer data)
{
	for (int i = 0; i < 1000; i++)
		umms_source_wake(data);
	return NULL;
}

static gpointer
wake_late(gpointer data)
{
	g_usleep(50 * 1000);
	umms_source_wake(data);
	return NULL;
}

static unsigned
open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	g_assert_nonnull(dir);
	unsigned n = 0;
	for (struct dirent *entry; (entry = readdir(dir));)
		n += entry->d_name[0] != '.';
	closedir(dir);
	return n;
}

static void
test_wake(void)
{
	GMainContext *context = g_main_context_new();
	g_main_context_push_thread_default(context);
	unsigned fds = open_fds();
	struct counts counts = { 0 };
	GSource *source = umms_source_wake_new(count_cb, &counts);
	g_assert_nonnull(source);

	/* Not woken: nothing runs. */
	while (g_main_context_iteration(context, FALSE))
		;
	g_assert_cmpuint(counts.runs, ==, 0);

	/* A thousand wakes from another thread before the loop turns: one run. */
	g_thread_join(g_thread_new("waker", wake_many, source));
	while (g_main_context_iteration(context, FALSE))
		;
	g_assert_cmpuint(counts.runs, ==, 1);

	/* Woken again while the loop sleeps: the loop wakes, and it runs again. */
	GThread *late = g_thread_new("waker", wake_late, source);
	while (counts.runs < 2)
		g_main_context_iteration(context, TRUE);
	g_thread_join(late);
	g_assert_cmpuint(counts.runs, ==, 2);

	/* Its eventfd goes with it. */
	umms_source_clear(&source);
	g_assert_cmpuint(open_fds(), ==, fds);
	g_main_context_pop_thread_default(context);
	g_main_context_unref(context);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/source/wake", test_wake);
	return g_test_run();
}
