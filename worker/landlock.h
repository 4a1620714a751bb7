/*
 * The engine worker's filesystem allowance, with Landlock (Linux 5.13 and
 * later, ABI 1 to 3 used here; Debian 12's kernel 6.1 has 1 to 3). Raw
 * system calls: Debian 12 ships no library for it.
 *
 * landlock_restrict_self() restricts the calling thread and the threads it
 * makes later, not the others (no TSYNC before Linux 6.19): so
 * umms_landlock_restrict() refuses to run in a process with more than one
 * thread. Once restricted, the process may open, under any path, only:
 * - for reading (files, folder listings, execution, which seccomp refuses
 *   anyway): the folders in @read_paths and below;
 * - read-write: the files (device nodes) and folders in @write_paths;
 * - each descriptor in @fds: a regular file, then that file only, for
 *   reading; a folder (O_PATH or O_RDONLY), then that folder and what is
 *   below it, for reading.
 * Everything else is refused with EACCES, whatever the permissions say;
 * creating, removing, renaming and truncating anything too.
 */
#ifndef UMMS_WORKER_LANDLOCK_H
#define UMMS_WORKER_LANDLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

/* The kernel's Landlock ABI version; 0 when it has none or it is disabled. */
int umms_landlock_abi(void);

/*
 * Restricts the calling process as above. Paths that do not exist are
 * skipped. Needs PR_SET_NO_NEW_PRIVS already set. False with @error on a
 * failure (part of it may then be in force); on a kernel without Landlock,
 * true and nothing done (check umms_landlock_abi first to say so).
 */
bool umms_landlock_restrict(const char *const *read_paths, const char *const *write_paths,
	const int *fds, size_t n_fds, GError **error);

#endif
