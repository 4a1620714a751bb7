/*
 * Engine workers (umms-engine processes) among this test program's
 * children: ummsd runs in-process, so its workers are ours; the players
 * the manager lists; and what this program's fds are, for a test that
 * counts them to say what is left.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>

#include "harness.h"

static unsigned
engine_children_of(pid_t parent, unsigned *zombies, pid_t skip, pid_t *worker)
{
	unsigned n = 0;
	*zombies = 0;
	if (worker)
		*worker = 0;
	DIR *dir = opendir("/proc");
	g_assert_nonnull(dir);
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
			continue;
		g_autofree char *path = g_strdup_printf("/proc/%s/stat", entry->d_name);
		g_autofree char *text = NULL;
		if (!g_file_get_contents(path, &text, NULL, NULL))
			continue;
		/* pid (comm) state ppid: comm may hold spaces, so from the last ')'. */
		const char *close = strrchr(text, ')');
		const char *open = strchr(text, '(');
		char state = 0;
		int ppid = 0;
		if (!close || !open || sscanf(close + 1, " %c %d", &state, &ppid) != 2 ||
				ppid != parent)
			continue;
		/* Zombies of any kind; live processes only of the engine's. */
		bool engine = g_str_has_prefix(open + 1, "umms-engine");
		if (state != 'Z' && !engine)
			continue;
		n++;
		if (state == 'Z')
			(*zombies)++;
		else if (worker && atoi(entry->d_name) != skip)
			*worker = (pid_t)atoi(entry->d_name);
	}
	closedir(dir);
	return n;
}

unsigned
umms_test_engine_children(unsigned *zombies, pid_t skip, pid_t *worker)
{
	return engine_children_of(getpid(), zombies, skip, worker);
}

void
umms_test_wait_engine_workers(unsigned count)
{
	umms_test_wait_engine_workers_of(getpid(), count);
}

void
umms_test_wait_engine_workers_of(pid_t parent, unsigned count)
{
	unsigned n = 0, zombies = 0;
	gint64 end = g_get_monotonic_time() + 15 * G_USEC_PER_SEC;
	while ((n = engine_children_of(parent, &zombies, 0, NULL)) != count || zombies) {
		if (g_get_monotonic_time() > end)
			g_error("%u engine workers (%u of them zombies), not %u", n, zombies, count);
		umms_test_sleep(20);
	}
}

pid_t
umms_test_fork_server(pid_t not)
{
	for (int i = 0; i < 200; i++) {
		g_autoptr(GDir) dir = g_dir_open("/proc", 0, NULL);
		const char *name;
		while (dir && (name = g_dir_read_name(dir))) {
			g_autofree char *path = g_strdup_printf("/proc/%s/stat", name);
			g_autofree char *text = NULL;
			int ppid = 0;
			char state = 0;
			if (atoi(name) == not || !g_file_get_contents(path, &text, NULL, NULL) ||
					!strstr(text, "(umms-zygote)") ||
					sscanf(strrchr(text, ')') + 1, " %c %d", &state, &ppid) != 2 ||
					ppid != getpid() || state == 'Z')
				continue;
			return (pid_t)atoi(name);
		}
		umms_test_sleep(50);
	}
	return 0;
}

/* Whether worker @pid was forked from the fork server: it has the server's command line. */
bool
umms_test_worker_forked(pid_t pid)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/cmdline", (int)pid);
	g_autofree char *cmdline = NULL;
	gsize size = 0;
	g_assert_true(g_file_get_contents(path, &cmdline, &size, NULL));
	g_autofree char *comm_path = g_strdup_printf("/proc/%d/comm", (int)pid);
	g_autofree char *comm = NULL;
	g_assert_true(g_file_get_contents(comm_path, &comm, NULL, NULL));
	g_assert_cmpstr(g_strstrip(comm), ==, "umms-engine");
	/* NUL-separated: the first argument after the program's name. */
	size_t first = strlen(cmdline) + 1;
	return first < size && strcmp(cmdline + first, "--zygote") == 0;
}

char *
umms_test_fd_targets(void)
{
	GString *out = g_string_new("");
	GDir *dir = g_dir_open("/proc/self/fd", 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir))) {
		g_autofree char *path = g_build_filename("/proc/self/fd", name, NULL);
		g_autofree char *target = g_file_read_link(path, NULL);
		g_string_append_printf(out, "%s%s -> %s", out->len ? ", " : "", name,
			target ? target : "?");
	}
	if (dir)
		g_dir_close(dir);
	return g_string_free(out, FALSE);
}

gsize
umms_test_player_count(GDBusConnection *bus)
{
	g_autoptr(GVariant) list = umms_test_get(bus, UMMS_ROOT, UMMS_MANAGER, "Players");
	return g_variant_n_children(list);
}

void
umms_test_wait_players(GDBusConnection *bus, gsize n, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	gsize now;
	while ((now = umms_test_player_count(bus)) != n) {
		if (g_get_monotonic_time() > end)
			g_error("%zu players, not %zu", now, n);
		umms_test_sleep(20);
	}
}
