/* Sandboxed children for the sandbox tests (sandbox-child.h). */
#include "sandbox-child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Child: one "name value" line. */
void
child_report(int out, const char *name, long value)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%s %ld\n", name, value);
	if (n > 0 && (size_t)n < sizeof(line) && write(out, line, (size_t)n) != n)
		_exit(3);
}

/* Child: the errno of a call that returned @ret, 0 for success. */
long
child_result(long ret)
{
	return ret < 0 ? errno : 0;
}

/* Child: enters the sandbox keeping only the pipe, or leaves with status 2. */
void
child_enter(int out, struct umms_sandbox_policy policy)
{
	int keep[] = { out };
	policy.keep_fds = keep;
	policy.n_keep = 1;
	GError *error = NULL;
	if (!umms_sandbox_enter(&policy, &error)) {
		dprintf(out, "enter-failed %s\n", error->message);
		_exit(2);
	}
}

const struct umms_sandbox_policy child_default_policy = {
	.max_fds = 256,
};

/*
 * Parent: runs @func in a child, which must exit 0 within @timeout_s, and
 * returns its report (name → value).
 */
GHashTable *
child_run(child_func func, const void *data, unsigned timeout_s)
{
	int fds[2];
	g_assert_cmpint(pipe2(fds, O_CLOEXEC), ==, 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	g_assert_cmpint(pid, >=, 0);
	if (pid == 0) {
		close(fds[0]);
		func(fds[1], data);
		_exit(0);
	}
	close(fds[1]);
	g_autoptr(GString) text = g_string_new(NULL);
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC;
	bool eof = false;
	while (!eof) {
		gint64 left = (deadline - g_get_monotonic_time()) / 1000;
		if (left <= 0)
			break;
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		int ready = poll(&pfd, 1, (int)MIN(left, INT_MAX));
		if (ready < 0 && errno == EINTR)
			continue;
		g_assert_cmpint(ready, >=, 0);
		if (ready == 0)
			break;
		char buf[512];
		ssize_t n = read(fds[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			eof = true;
		else
			g_string_append_len(text, buf, n);
	}
	close(fds[0]);
	int status = 0;
	pid_t done = 0;
	/* The pipe closes at exit: a second to reap it. */
	for (int i = 0; eof && i < 100 && (done = waitpid(pid, &status, WNOHANG)) == 0; i++)
		g_usleep(10000);
	if (done != pid) {
		kill(pid, SIGKILL);
		g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
		g_error("child timed out after %u s; it reported:\n%s", timeout_s, text->str);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		g_error("child ended with status 0x%x; it reported:\n%s", status, text->str);
	GHashTable *values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_auto(GStrv) lines = g_strsplit(text->str, "\n", -1);
	for (char **line = lines; *line; line++) {
		char *space = strchr(*line, ' ');
		if (!space)
			continue;
		*space = '\0';
		g_hash_table_insert(values, g_strdup(*line),
			GINT_TO_POINTER((int)g_ascii_strtoll(space + 1, NULL, 10)));
	}
	return values;
}

/* Parent: the value the child reported for @name, which it must have. */
int
child_value(GHashTable *values, const char *name)
{
	gpointer v;
	if (!g_hash_table_lookup_extended(values, name, NULL, &v))
		g_error("the child did not report %s", name);
	return GPOINTER_TO_INT(v);
}

void
child_expect(GHashTable *values, const struct expect *expect, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int got = child_value(values, expect[i].name);
		if (got != expect[i].value)
			g_test_message("%s: %d, expected %d", expect[i].name, got, expect[i].value);
		g_assert_cmpint(got, ==, expect[i].value);
	}
}
