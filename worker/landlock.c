/*
 * The engine worker's filesystem allowance with Landlock (landlock.h).
 */
#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gio/gio.h>
#include <linux/landlock.h>

/* Debian 12's headers stop at ABI 2: the rest by value. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

#define ABI_1_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM)
/* What a rule on a file (not a folder) may grant. */
#define FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)
#define READ_RIGHTS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_EXECUTE)
#define WRITE_RIGHTS (READ_RIGHTS | LANDLOCK_ACCESS_FS_WRITE_FILE)

static bool
fail_errno(GError **error, int err, const char *what)
{
	g_set_error(error, G_IO_ERROR, g_io_error_from_errno(err),
		"sandbox: Landlock: %s: %s", what, g_strerror(err));
	return false;
}

int
umms_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		LANDLOCK_CREATE_RULESET_VERSION);
	return abi > 0 && abi <= INT32_MAX ? (int)abi : 0;
}

/* The rights this kernel handles, of the ABIs used here (1 to 3). */
static uint64_t
handled_rights(int abi)
{
	uint64_t rights = ABI_1_RIGHTS;
	if (abi >= 2)
		rights |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return rights;
}

/* @fd's rule: a folder gets @rights, a file those of them a file can have. */
static bool
add_fd_rule(int ruleset, int fd, uint64_t rights, uint64_t handled, const char *what,
	GError **error)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return fail_errno(error, errno, what);
	struct landlock_path_beneath_attr rule = {
		.allowed_access = (S_ISDIR(st.st_mode) ? rights : rights & FILE_RIGHTS) & handled,
		.parent_fd = fd,
	};
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		return fail_errno(error, errno, what);
	return true;
}

static bool
add_path_rules(int ruleset, const char *const *paths, uint64_t rights, uint64_t handled,
	GError **error)
{
	for (const char *const *p = paths; p && *p; p++) {
		int fd = open(*p, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
				continue;
			return fail_errno(error, errno, *p);
		}
		bool ok = add_fd_rule(ruleset, fd, rights, handled, *p, error);
		close(fd);
		if (!ok)
			return false;
	}
	return true;
}

/* How many threads the process has (/proc/self/task); 0 when unknown. */
static unsigned
thread_count(void)
{
	DIR *dir = opendir("/proc/self/task");
	if (!dir)
		return 0;
	unsigned n = 0;
	struct dirent *entry;
	while ((entry = readdir(dir)))
		n += entry->d_name[0] != '.';
	closedir(dir);
	return n;
}

bool
umms_landlock_restrict(const char *const *read_paths, const char *const *write_paths,
	const int *fds, size_t n_fds, GError **error)
{
	int abi = umms_landlock_abi();
	if (abi == 0)
		return true;
	unsigned threads = thread_count();
	if (threads != 1) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY, "sandbox: Landlock: the process "
			"has %u threads: it restricts the calling one only", threads);
		return false;
	}
	uint64_t handled = handled_rights(abi);
	struct landlock_ruleset_attr attr = { .handled_access_fs = handled };
	int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0)
		return fail_errno(error, errno, "landlock_create_ruleset");
	bool ok = add_path_rules(ruleset, read_paths, READ_RIGHTS, handled, error) &&
		add_path_rules(ruleset, write_paths, WRITE_RIGHTS, handled, error);
	for (size_t i = 0; ok && i < n_fds; i++)
		ok = add_fd_rule(ruleset, fds[i], LANDLOCK_ACCESS_FS_READ_FILE |
			LANDLOCK_ACCESS_FS_READ_DIR, handled, "a media descriptor", error);
	if (ok && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
		ok = fail_errno(error, errno, "landlock_restrict_self");
	close(ruleset);
	return ok;
}
