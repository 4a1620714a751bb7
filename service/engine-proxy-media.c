#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

/*
 * What a sandboxed engine worker may read: ummsd opens a local file (or a
 * playlist's folder) and passes the descriptor with OPEN or
 * SET_SUBTITLE_URI; with Landlock the worker can open nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/landlock.h>

#include "engine-proxy-private.h"
#include "error.h"
#include "log.h"

bool
umms_proxy_landlock(void)
{
	static int abi = -1;
	if (abi < 0) {
		long got = syscall(SYS_landlock_create_ruleset, NULL, 0,
			LANDLOCK_CREATE_RULESET_VERSION);
		abi = got > 0 ? 1 : 0;
		if (!abi)
			umms_warn("the kernel has no Landlock: a sandboxed engine worker can "
				"open any file the user can read");
	}
	return abi > 0;
}

/* A playlist or manifest names pieces beside it: its folder goes too. */
static bool
names_pieces(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return false;
	return g_ascii_strcasecmp(dot, ".m3u8") == 0 || g_ascii_strcasecmp(dot, ".m3u") == 0 ||
		g_ascii_strcasecmp(dot, ".mpd") == 0;
}

static bool
fail(GError **error, int err, const char *path)
{
	int code = err == ENOENT || err == ENOTDIR ? UMMS_ERROR_NOT_FOUND :
		err == EACCES || err == EPERM ? UMMS_ERROR_ACCESS_DENIED : UMMS_ERROR_FAILED;
	g_set_error(error, UMMS_ERROR, code, "cannot open %s: %s", path, g_strerror(err));
	return false;
}

bool
umms_proxy_media_fd(const char *uri, bool folder_allowed, int *fd, GError **error)
{
	*fd = -1;
	if (!uri || g_ascii_strncasecmp(uri, "file:", 5) != 0)
		return true;
	g_autoptr(GError) uri_error = NULL;
	g_autofree char *path = g_filename_from_uri(uri, NULL, &uri_error);
	if (!path) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a valid file URI: \"%s\"", uri);
		return false;
	}
	/* Opened as the client asked: the checks made before (probe_uri) hold. */
	int file = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (file < 0)
		return fail(error, errno, path);
	struct stat st;
	if (fstat(file, &st) < 0) {
		int err = errno;
		close(file);
		return fail(error, err, path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(file);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s is not a media file", path);
		return false;
	}
	/* Back to blocking reads, as a source expects. */
	int flags = fcntl(file, F_GETFL);
	if (flags >= 0)
		fcntl(file, F_SETFL, flags & ~O_NONBLOCK);
	if (!folder_allowed || !names_pieces(path)) {
		*fd = file;
		return true;
	}
	close(file);
	g_autofree char *folder = g_path_get_dirname(path);
	*fd = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return fail(error, errno, folder);
	return true;
}
