/*
 * wl-embed (tests/wl-embed.c), the application the compositor tests run,
 * driven through its stdin and stdout: started in a compositor, its lines
 * read on a thread of their own, commands sent and answered.
 */
#include <string.h>

#include "embed.h"
#include "harness.h"

static gpointer
read_lines(gpointer data)
{
	struct umms_test_embed *e = data;
	GInputStream *out = g_subprocess_get_stdout_pipe(e->process);
	g_autoptr(GDataInputStream) lines = g_data_input_stream_new(out);
	char *line;
	while ((line = g_data_input_stream_read_line(lines, NULL, NULL, NULL)))
		g_async_queue_push(e->lines, line);
	g_async_queue_push(e->lines, g_strdup("<exit>"));
	return NULL;
}

char *
umms_test_embed_wait(struct umms_test_embed *e, const char *prefix, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	for (;;) {
		gint64 left = end - g_get_monotonic_time();
		char *line = left > 0 ? g_async_queue_timeout_pop(e->lines, (guint64)left) : NULL;
		if (!line)
			g_error("wl-embed said no \"%s\" within %u ms", prefix, ms);
		if (g_str_has_prefix(line, prefix))
			return line;
		if (strcmp(line, "<exit>") == 0)
			g_error("wl-embed exited while waiting for \"%s\"", prefix);
		g_free(line);
	}
}

struct umms_test_embed *
umms_test_embed_start(struct umms_test_compositor *compositor, const char *const *args)
{
	return umms_test_embed_start_traced(compositor, args, NULL);
}

struct umms_test_embed *
umms_test_embed_start_traced(struct umms_test_compositor *compositor, const char *const *args,
	const char *trace)
{
	struct umms_test_embed *e = g_new0(struct umms_test_embed, 1);
	e->lines = g_async_queue_new_full(g_free);
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE);
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY",
		umms_test_compositor_display(compositor), TRUE);
	if (trace) {
		g_subprocess_launcher_setenv(launcher, "WAYLAND_DEBUG", "client", TRUE);
		g_subprocess_launcher_set_stderr_file_path(launcher, trace);
	}
	GPtrArray *argv = g_ptr_array_new();
	g_autofree char *program = g_build_filename(umms_test_build_root(), "tests", "wl-embed",
		NULL);
	g_ptr_array_add(argv, program);
	for (const char *const *a = args; a && *a; a++)
		g_ptr_array_add(argv, (char *)*a);
	g_ptr_array_add(argv, NULL);
	GError *error = NULL;
	e->process = g_subprocess_launcher_spawnv(launcher, (const char *const *)argv->pdata,
		&error);
	g_assert_no_error(error);
	g_ptr_array_unref(argv);
	e->in = g_subprocess_get_stdin_pipe(e->process);
	e->reader = g_thread_new("wl-embed", read_lines, e);
	g_autofree char *line = umms_test_embed_wait(e, "path ", 30000);
	e->path = g_strdup(line + strlen("path "));
	return e;
}

void
umms_test_embed_send(struct umms_test_embed *e, const char *command)
{
	g_autofree char *text = g_strdup_printf("%s\n", command);
	g_assert_true(g_output_stream_write_all(e->in, text, strlen(text), NULL, NULL, NULL));
	g_output_stream_flush(e->in, NULL, NULL);
}

void
umms_test_embed_command(struct umms_test_embed *e, const char *command)
{
	umms_test_embed_send(e, command);
	g_free(umms_test_embed_wait(e, "ok", 5000));
}

void
umms_test_embed_free(struct umms_test_embed *e)
{
	if (g_subprocess_get_identifier(e->process)) {
		g_output_stream_write_all(e->in, "quit\n", 5, NULL, NULL, NULL);
		g_output_stream_close(e->in, NULL, NULL);
		g_assert_true(g_subprocess_wait(e->process, NULL, NULL));
		/* A clean exit: no crash, and (sanitizer builds) no leak report. */
		g_assert_true(g_subprocess_get_if_exited(e->process));
		g_assert_cmpint(g_subprocess_get_exit_status(e->process), ==, 0);
	}
	g_thread_join(e->reader);
	g_async_queue_unref(e->lines);
	g_object_unref(e->process);
	g_free(e->path);
	g_free(e);
}

bool
umms_test_embed_find_rect(const struct umms_test_image *image, int rect[4])
{
	return umms_test_embed_find_rect_of(image, UMMS_TEST_EMBED_FRAME, rect);
}

bool
umms_test_embed_find_rect_of(const struct umms_test_image *image, uint32_t frame, int rect[4])
{
	int x0 = G_MAXINT, y0 = G_MAXINT, x1 = -1, y1 = -1;
	for (int y = 0; y < umms_test_image_height(image); y++) {
		for (int x = 0; x < umms_test_image_width(image); x++) {
			if (!umms_test_color_near(umms_test_image_pixel(image, x, y), frame, 16))
				continue;
			x0 = MIN(x0, x);
			y0 = MIN(y0, y);
			x1 = MAX(x1, x);
			y1 = MAX(y1, y);
		}
	}
	if (x1 < 0)
		return false;
	rect[0] = x0 + 4;
	rect[1] = y0 + 4;
	rect[2] = x1 - x0 + 1 - 8;
	rect[3] = y1 - y0 + 1 - 8;
	return true;
}
