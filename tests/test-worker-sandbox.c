/*
 * The engine worker's sandbox (worker/sandbox.h), as an administrator would
 * check it on a live worker: /proc/PID/status of the worker playing a
 * player's media says seccomp filtering (2) and no new privileges; its
 * descriptors are the IPC socket, the main loop's and GStreamer's own, the
 * media file and frame memory, nothing else; a file, an HTTP stream (the
 * network allowed for it only: a fresh worker before and after it) and a
 * subtitle file still play and present
 * frames; a VOC file, whose demuxer the allow-list ranks out, fails at once
 * with a named error; and [engine] sandbox = false leaves workers unfiltered.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>

#include "harness.h"
#include "sources.h"

/* The worker playing @player, once it has presented a few frames. */
static pid_t
playing_worker(struct umms_test *t, const char *player)
{
	for (int i = 0; i < 200 && umms_test_stat(t->bus, player, "frames-presented") < 5; i++)
		umms_test_sleep(50);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "frames-presented"), >=, 5);
	pid_t pid = (pid_t)umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpint(pid, >, 0);
	g_assert_cmpint(pid, !=, getpid());
	return pid;
}

static void
assert_sandboxed(pid_t pid)
{
	g_autofree char *seccomp = umms_test_proc_status(pid, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "2");
	g_autofree char *nnp = umms_test_proc_status(pid, "NoNewPrivs");
	g_assert_cmpstr(nnp, ==, "1");
}

/* Whether @target (a /proc/PID/fd link) is one a sandboxed worker may hold. */
static bool
expected_fd(const char *target, const char *media)
{
	static const char *const kinds[] = {
		"socket:", "pipe:", "anon_inode:", "/memfd:", "/dev/null", "/dev/dri/",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
		if (g_str_has_prefix(target, kinds[i]))
			return true;
	return strcmp(target, media) == 0;
}

/*
 * The worker's descriptors: readable by root only (the worker is not
 * dumpable, so its /proc/PID/fd is root's); as another user, that it is
 * refused is what there is to check.
 */
static void
assert_fds(pid_t pid, const char *media)
{
	g_autofree char *dir_path = g_strdup_printf("/proc/%d/fd", (int)pid);
	DIR *dir = opendir(dir_path);
	if (geteuid() != 0) {
		g_assert_null(dir);
		g_assert_cmpint(errno, ==, EACCES);
		return;
	}
	g_assert_nonnull(dir);
	unsigned n = 0;
	bool ipc = false;
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		g_autofree char *link = g_build_filename(dir_path, entry->d_name, NULL);
		g_autofree char *target = g_file_read_link(link, NULL);
		if (!target)
			continue; /* closed meanwhile */
		int fd = atoi(entry->d_name);
		n++;
		if (fd <= 2)
			continue;
		if (fd == 3)
			ipc = g_str_has_prefix(target, "socket:");
		if (!expected_fd(target, media))
			g_error("worker %d holds fd %d on %s", (int)pid, fd, target);
	}
	closedir(dir);
	g_assert_true(ipc);
	/* A playing pipeline's threads and pools, not hundreds. */
	g_assert_cmpuint(n, <, 128);
}

static void
test_file(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	umms_test_player_do(t->bus, p, "Play", NULL);
	pid_t pid = playing_worker(t, p);
	assert_sandboxed(pid);
	assert_fds(pid, umms_test_clip("av.mkv"));
}

static void
test_http(struct umms_test *t, gconstpointer data)
{
	struct umms_test_http server;
	umms_test_http_start(&server, 0);
	/* First a file: the same player then needs a worker allowed the network. */
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	umms_test_player_do(t->bus, p, "Play", NULL);
	pid_t file_pid = playing_worker(t, p);
	assert_sandboxed(file_pid);

	g_autofree char *uri = g_strdup_printf("http://127.0.0.1:%u/av.mkv", server.port);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_property(t->bus, p, "State", g_variant_new_string("playing"), 5000);
	pid_t pid = 0;
	for (int i = 0; i < 200; i++) {
		pid = (pid_t)umms_test_stat(t->bus, p, "engine-pid");
		if (pid != file_pid && umms_test_stat(t->bus, p, "frames-presented") >= 5)
			break;
		umms_test_sleep(50);
	}
	g_assert_cmpint(pid, !=, file_pid);
	g_assert_cmpuint(umms_test_stat(t->bus, p, "frames-presented"), >=, 5);
	assert_sandboxed(pid);
	umms_test_http_stop(&server);

	/* Back to a file: a fresh worker again, without the network. */
	g_autofree char *clip = umms_test_clip_uri("av.mkv");
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", clip));
	umms_test_player_do(t->bus, p, "Play", NULL);
	pid_t back = 0;
	for (int i = 0; i < 200; i++) {
		back = (pid_t)umms_test_stat(t->bus, p, "engine-pid");
		if (back != pid && back > 0 &&
				umms_test_stat(t->bus, p, "frames-presented") >= 5)
			break;
		umms_test_sleep(50);
	}
	g_assert_cmpint(back, !=, pid);
	g_assert_cmpuint(umms_test_stat(t->bus, p, "frames-presented"), >=, 5);
	assert_sandboxed(back);
	assert_fds(back, umms_test_clip("av.mkv"));
}

static void
test_subtitles(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "SetSubtitleUri",
		g_variant_new("(s)", umms_test_clip("subs.en.srt")));
	umms_test_player_do(t->bus, p, "Play", NULL);
	g_autoptr(GVariant) cue = umms_test_signals_wait(signals, "SubtitleCue",
		UMMS_TEST_TIMEOUT_MS);
	g_autofree char *text = g_variant_print(cue, FALSE);
	g_assert_nonnull(strstr(text, "Subtitle one"));
	umms_test_signals_free(signals);
	pid_t pid = playing_worker(t, p);
	assert_sandboxed(pid);
	assert_fds(pid, umms_test_clip("av.mkv"));
}

/* "Creative Voice File" typefinds as audio/x-voc; avdemux_voc may spin on it. */
static void
test_voc(struct umms_test *t, gconstpointer data)
{
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "voice.voc", NULL);
	g_assert_true(g_file_set_contents(path, "Creative Voice File\x1a\x1a\0\x0a\x01", 24, NULL));
	g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	gint64 start = g_get_monotonic_time();
	GError *error = NULL;
	g_autoptr(GVariant) reply = umms_test_call(t->bus, p, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), &error);
	double ms = (double)(g_get_monotonic_time() - start) / 1000;
	g_assert_null(reply);
	g_assert_nonnull(error);
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_test_message("%.0f ms: %s: %s", ms, name, error->message);
	g_assert_cmpstr(name, ==, "org.umms.Error.NotSupported");
	g_assert_cmpfloat(ms, <, 5000);
	g_error_free(error);
}

static void
test_off(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "engine.sandbox=false", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	umms_test_player_do(t->bus, p, "Play", NULL);
	pid_t pid = playing_worker(t, p);
	g_autofree char *seccomp = umms_test_proc_status(pid, "Seccomp");
	g_assert_cmpstr(seccomp, ==, "0");
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/worker-sandbox/file", test_file);
	UMMS_TEST_ADD("/worker-sandbox/http", test_http);
	UMMS_TEST_ADD("/worker-sandbox/subtitles", test_subtitles);
	UMMS_TEST_ADD("/worker-sandbox/voc", test_voc);
	UMMS_TEST_ADD("/worker-sandbox/off", test_off);
	return g_test_run();
}
