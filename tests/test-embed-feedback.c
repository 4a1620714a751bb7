/*
 * Presentation feedback from libumms-client, read from wl-embed's own
 * requests (WAYLAND_DEBUG) while it plays 100 frames. weston answers, so
 * every frame shown asks, and the answers come back as frames presented.
 * Headless sway 1.7 answers none, and keeps each request on its output for
 * as long as it runs, walked at every repaint (sway's CPU for the same
 * round of players grew by half over six rounds): after the first 16 the
 * library asks only for a rare frame.
 */
#include <string.h>
#include <glib/gstdio.h>

#include "compositor.h"
#include "embed.h"
#include "harness.h"

#define FRAMES 100

/* Occurrences of @needle in @text. */
static unsigned
count_of(const char *text, const char *needle)
{
	unsigned n = 0;
	for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
		n++;
	return n;
}

/*
 * wl-embed's trace: its feedback requests (@asked) and the commits of the
 * video surface, the one they are about (@commits).
 */
static void
count_requests(const char *trace, unsigned *asked, unsigned *commits)
{
	*asked = count_of(trace, ".feedback(wl_surface@");
	g_assert_cmpuint(*asked, >, 0);
	const char *first = strstr(trace, ".feedback(wl_surface@") + strlen(".feedback(");
	g_autofree char *surface = g_strndup(first, strcspn(first, ","));
	g_autofree char *commit = g_strdup_printf(" -> %s.commit()", surface);
	*commits = count_of(trace, commit);
}

static void
test_feedback(gconstpointer data)
{
	enum umms_test_compositor_kind kind = GPOINTER_TO_INT(data);
	g_autofree char *dir = g_dir_make_tmp("umms-feedback-XXXXXX", NULL);
	g_assert_nonnull(dir);
	g_autofree char *path = g_build_filename(dir, "wayland.log", NULL);
	struct umms_test_compositor *compositor = umms_test_compositor_start(kind, 1280, 720);
	struct umms_test_service *service = umms_test_service_start(NULL);
	GDBusConnection *bus = umms_test_connect();
	struct umms_test_embed *e = umms_test_embed_start_traced(compositor, (const char *const[]){
		"--size", "1260x700", "--rect", "40,40,480,360", NULL }, path);

	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(bus, e->path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, e->path, "Play", NULL);
	g_autofree char *prefix = g_strdup_printf("frame %u (", FRAMES);
	g_autofree char *line = umms_test_embed_wait(e, prefix, 30000);
	unsigned presented, discarded, unanswered;
	g_assert_cmpint(sscanf(line + strlen(prefix), "%u presented, %u discarded, %u unanswered",
		&presented, &discarded, &unanswered), ==, 3);
	/* Stopped first: the trace is whole once wl-embed has exited. */
	umms_test_embed_free(e);
	g_object_unref(bus);
	umms_test_service_stop(service);
	umms_test_compositor_stop(compositor);

	g_autofree char *trace = NULL;
	g_assert_true(g_file_get_contents(path, &trace, NULL, NULL));
	unsigned asked, commits;
	count_requests(trace, &asked, &commits);
	g_test_message("%u commits of the video surface, %u asked about; at frame %u: %u "
		"presented, %u discarded, %u unanswered", commits, asked, FRAMES, presented,
		discarded, unanswered);
	g_assert_cmpuint(commits, >=, FRAMES);
	if (kind == UMMS_TEST_WESTON) {
		/* Every frame asks; all but the last few are answered by frame 100. */
		g_assert_cmpuint(asked, >=, FRAMES);
		g_assert_cmpuint(presented + discarded, >=, FRAMES - 10);
		g_assert_cmpuint(presented, >, 0);
	} else {
		/*
		 * None is answered. The first 16 ask, then the 256th frame and so
		 * on; the library counts the frames it did not ask about unanswered.
		 */
		g_assert_cmpuint(presented + discarded, ==, 0);
		g_assert_cmpuint(unanswered, ==, FRAMES - 16);
		g_assert_cmpuint(asked, >=, 16);
		g_assert_cmpuint(asked, <=, 16 + (commits >= 256) + (commits >= 512));
	}
	g_unlink(path);
	g_rmdir(dir);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_data_func("/embed-feedback/weston", GINT_TO_POINTER(UMMS_TEST_WESTON),
		test_feedback);
	g_test_add_data_func("/embed-feedback/sway", GINT_TO_POINTER(UMMS_TEST_SWAY),
		test_feedback);
	return g_test_run();
}
