/* Real browsers on ummsd's headless screen, and the pages they show (browser.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <libsoup/soup.h>

#include "browser.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

/* ---- pages ---------------------------------------------------------------------------- */

struct pages {
	SoupServer *server;
	char *origin;
	GHashTable *added;        /* path -> body */
	GHashTable *notes;        /* a page's notes: name -> text */
};

static const char *
content_type(const char *path)
{
	if (g_str_has_suffix(path, ".js"))
		return "text/javascript";
	if (g_str_has_suffix(path, ".css"))
		return "text/css";
	return "text/html";
}

/* The file behind @path, or NULL: a name in tests/web/, or the element script. */
static char *
file_for(const char *path)
{
	if (strcmp(path, "/umms-video.js") == 0)
		return g_build_filename(umms_test_source_root(), "web", "umms-video.js", NULL);
	const char *name = path + 1;
	/* One plain name: nothing outside the folder. */
	if (path[0] != '/' || !*name || strchr(name, '/') || name[0] == '.')
		return NULL;
	return g_build_filename(umms_test_source_root(), "tests", "web", name, NULL);
}

static void
serve(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	gpointer data)
{
	struct pages *pages = data;
	const char *method = soup_server_message_get_method(msg);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		soup_server_message_set_status(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
		return;
	}
	/* GET /note?name=NAME&text=TEXT: what a page measured, for the test (pages_note). */
	if (strcmp(path, "/note") == 0) {
		const char *name = query ? g_hash_table_lookup(query, "name") : NULL;
		const char *text = query ? g_hash_table_lookup(query, "text") : NULL;
		if (!name || !text || strlen(name) > 64 || strlen(text) > 1024) {
			soup_server_message_set_status(msg, SOUP_STATUS_BAD_REQUEST, NULL);
			return;
		}
		g_hash_table_replace(pages->notes, g_strdup(name), g_strdup(text));
		soup_server_message_set_status(msg, SOUP_STATUS_NO_CONTENT, NULL);
		return;
	}
	const char *added = g_hash_table_lookup(pages->added, path);
	char *body = NULL;
	size_t length = 0;
	if (added) {
		body = g_strdup(added);
		length = strlen(body);
	} else {
		g_autofree char *file = file_for(path);
		if (!file || !g_file_get_contents(file, &body, &length, NULL)) {
			soup_server_message_set_status(msg, SOUP_STATUS_NOT_FOUND, NULL);
			return;
		}
	}
	/* Never from a cache: each test's page as it is now. */
	soup_message_headers_replace(soup_server_message_get_response_headers(msg),
		"Cache-Control", "no-store");
	soup_server_message_set_response(msg, content_type(path), SOUP_MEMORY_TAKE, body, length);
	soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
}

struct pages *
pages_start(void)
{
	struct pages *pages = g_new0(struct pages, 1);
	pages->added = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	pages->notes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	pages->server = soup_server_new(NULL, NULL);
	soup_server_add_handler(pages->server, NULL, serve, pages, NULL);
	g_autoptr(GError) error = NULL;
	g_assert_true(soup_server_listen_local(pages->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY,
		&error));
	g_assert_no_error(error);
	GSList *uris = soup_server_get_uris(pages->server);
	g_assert_nonnull(uris);
	pages->origin = g_strdup_printf("http://127.0.0.1:%d", g_uri_get_port(uris->data));
	g_slist_free_full(uris, (GDestroyNotify)g_uri_unref);
	return pages;
}

void
pages_add(struct pages *pages, const char *path, const char *body)
{
	g_assert_true(path[0] == '/');
	g_hash_table_replace(pages->added, g_strdup(path), g_strdup(body));
}

char *
pages_take_note(struct pages *pages, const char *name)
{
	char *key = NULL, *text = NULL;
	if (!g_hash_table_steal_extended(pages->notes, name, (gpointer *)&key, (gpointer *)&text))
		return NULL;
	g_free(key);
	return text;
}

char *
pages_url(struct pages *pages, const char *path)
{
	return g_strconcat(pages->origin, path, NULL);
}

const char *
pages_origin(struct pages *pages)
{
	return pages->origin;
}

void
pages_stop(struct pages *pages)
{
	if (!pages)
		return;
	soup_server_disconnect(pages->server);
	g_object_unref(pages->server);
	g_hash_table_unref(pages->added);
	g_hash_table_unref(pages->notes);
	g_free(pages->origin);
	g_free(pages);
}

/* ---- browsers ---------------------------------------------------------------------------- */

struct browser {
	enum browser_kind kind;
	GSubprocess *process;
	pid_t pid;
	bool killed;
};

/*
 * In the child before exec: a process group of its own, so that the
 * browser's helpers (WebKit's web and network processes, Chromium's
 * zygote, renderers, GPU process) can be killed together; death with the
 * test program.
 */
static void
child_setup(gpointer data)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static const char *
kind_name(enum browser_kind kind)
{
	return kind == BROWSER_COG ? "cog" : "chromium";
}

struct browser *
browser_start(enum browser_kind kind, const char *url, const char *const *extra_args)
{
	static unsigned count;
	struct browser *b = g_new0(struct browser, 1);
	b->kind = kind;
	/* A home of its own for each: profile, caches and settings. */
	g_autofree char *home = g_strdup_printf("%s/browser-%u", umms_test_tmpdir(), ++count);
	g_autofree char *profile = g_build_filename(home, "profile", NULL);
	g_assert_cmpint(g_mkdir_with_parents(profile, 0700), ==, 0);
	g_autofree char *log = g_strdup_printf("%s/%s-%u.log", umms_test_tmpdir(),
		kind_name(kind), count);

	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	if (kind == BROWSER_COG) {
		g_ptr_array_add(argv, g_strdup("cog"));
		g_ptr_array_add(argv, g_strdup("--platform=wl"));
	} else {
		g_ptr_array_add(argv, g_strdup("chromium"));
		g_ptr_array_add(argv, g_strdup("--ozone-platform=wayland"));
		g_ptr_array_add(argv, g_strdup("--disable-gpu"));
		g_ptr_array_add(argv, g_strdup("--no-sandbox"));
		g_ptr_array_add(argv, g_strdup_printf("--user-data-dir=%s", profile));
		/* The page alone, no browser UI; nothing fetched from the network. */
		g_ptr_array_add(argv, g_strdup("--kiosk"));
		g_ptr_array_add(argv, g_strdup("--no-first-run"));
		g_ptr_array_add(argv, g_strdup("--no-default-browser-check"));
		g_ptr_array_add(argv, g_strdup("--disable-extensions"));
		g_ptr_array_add(argv, g_strdup("--disable-component-update"));
		g_ptr_array_add(argv, g_strdup("--disable-background-networking"));
		g_ptr_array_add(argv, g_strdup("--disable-sync"));
		g_ptr_array_add(argv, g_strdup("--password-store=basic"));
	}
	for (size_t i = 0; extra_args && extra_args[i]; i++)
		g_ptr_array_add(argv, g_strdup(extra_args[i]));
	g_ptr_array_add(argv, g_strdup(url));
	g_ptr_array_add(argv, NULL);

	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDIN_INHERIT);
	g_subprocess_launcher_set_child_setup(launcher, child_setup, NULL, NULL);
	/* XDG_RUNTIME_DIR (the harness's scratch folder) holds ummsd's socket. */
	g_subprocess_launcher_setenv(launcher, "WAYLAND_DISPLAY", "umms-0", TRUE);
	g_subprocess_launcher_unsetenv(launcher, "DISPLAY");
	g_subprocess_launcher_setenv(launcher, "HOME", home, TRUE);
	g_subprocess_launcher_setenv(launcher, "XDG_CONFIG_HOME", home, TRUE);
	g_subprocess_launcher_setenv(launcher, "XDG_DATA_HOME", home, TRUE);
	g_subprocess_launcher_setenv(launcher, "XDG_CACHE_HOME", home, TRUE);
	/* Software GL; no accessibility bus started on the test's bus. */
	g_subprocess_launcher_setenv(launcher, "LIBGL_ALWAYS_SOFTWARE", "1", TRUE);
	g_subprocess_launcher_setenv(launcher, "NO_AT_BRIDGE", "1", TRUE);
	g_subprocess_launcher_setenv(launcher, "GTK_A11Y", "none", TRUE);
	g_subprocess_launcher_set_stdout_file_path(launcher, log);
	g_subprocess_launcher_set_stderr_file_path(launcher, log);
	g_autoptr(GError) error = NULL;
	b->process = g_subprocess_launcher_spawnv(launcher,
		(const char *const *)argv->pdata, &error);
	g_assert_no_error(error);
	b->pid = (pid_t)atoi(g_subprocess_get_identifier(b->process));
	umms_test_log_on_failure(log);
	g_test_message("%s started (pid %d): %s", kind_name(kind), (int)b->pid, url);
	g_ptr_array_unref(argv);
	return b;
}

pid_t
browser_pid(const struct browser *b)
{
	return b->pid;
}

/* How many live (not zombie) processes are in process group @pgid. */
static unsigned
group_size(pid_t pgid)
{
	DIR *proc = opendir("/proc");
	g_assert_nonnull(proc);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(proc))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		g_autofree char *path = g_strdup_printf("/proc/%s/stat", e->d_name);
		g_autofree char *stat = NULL;
		if (!g_file_get_contents(path, &stat, NULL, NULL))
			continue;   /* gone meanwhile */
		/* pid (comm) state ppid pgrp: comm may hold spaces and parentheses. */
		const char *end = strrchr(stat, ')');
		char state = 0;
		int ppid = 0, pgrp = 0;
		if (!end || sscanf(end + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
			continue;
		if (pgrp == pgid && state != 'Z')
			n++;
	}
	closedir(proc);
	return n;
}

/* Waits up to @ms for the group to be empty; whether it is. */
static bool
wait_group_gone(pid_t pgid, unsigned ms)
{
	for (unsigned waited = 0; waited < ms; waited += 50) {
		if (group_size(pgid) == 0)
			return true;
		umms_test_sleep(50);   /* the main context reaps the browser's first process */
	}
	return group_size(pgid) == 0;
}

void
browser_kill(struct browser *b)
{
	if (b->killed)
		return;
	b->killed = true;
	gint64 start = g_get_monotonic_time();
	kill(-b->pid, SIGTERM);
	if (!wait_group_gone(b->pid, 3000)) {
		kill(-b->pid, SIGKILL);
		if (!wait_group_gone(b->pid, 10000))
			g_error("%s (pid %d): %u processes of its group still run after SIGKILL",
				kind_name(b->kind), (int)b->pid, group_size(b->pid));
	}
	g_autoptr(GError) error = NULL;
	g_subprocess_wait(b->process, NULL, &error);
	g_assert_no_error(error);
	g_test_message("%s (pid %d) and its helpers gone in %.0f ms", kind_name(b->kind),
		(int)b->pid, (g_get_monotonic_time() - start) / 1000.0);
}

void
browser_free(struct browser *b)
{
	if (!b)
		return;
	browser_kill(b);
	g_object_unref(b->process);
	g_free(b);
}

/* ---- the screen ---------------------------------------------------------------------------- */

struct umms_test_image *
browser_capture(struct umms_test *t, const char *what, int width, int height)
{
	return umms_test_capture(t, what, width, height);
}

struct umms_test_image *
browser_wait_screen(struct umms_test *t, int width, int height, screen_check_fn check,
	const void *data, unsigned timeout_ms, const char *what)
{
	gint64 start = g_get_monotonic_time();
	gint64 end = start + (gint64)timeout_ms * 1000;
	for (;;) {
		struct umms_test_image *image = browser_capture(t, what, width, height);
		if (check(image, data)) {
			g_test_message("%s: on screen after %.0f ms", what,
				(g_get_monotonic_time() - start) / 1000.0);
			return image;
		}
		if (g_get_monotonic_time() > end) {
			g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
			g_error("%s: not on screen after %u ms (the last capture: %s)", what,
				timeout_ms, saved);
		}
		umms_test_image_free(image);
		/* Not too often: each capture takes ummsd's thread (the compositor's too). */
		umms_test_sleep(200);
	}
}

bool
screen_points_match(const struct umms_test_image *image, const void *data)
{
	for (const struct screen_point *p = data; p->x >= 0; p++) {
		if (!umms_test_color_near(umms_test_image_pixel(image, p->x, p->y), p->rgb, 12))
			return false;
	}
	return true;
}
