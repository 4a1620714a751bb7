/*
 * A time-shift ring's files (ring-files.h): created, replaced and deleted
 * relative to the ring's folder, never through a link, with names made
 * here from segment numbers. Called from the writing pipeline's streaming
 * thread, one at a time (hlssink2 writes from one).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "error.h"
#include "gst-record.h"
#include "log.h"
#include "recording.h"
#include "ring-files.h"

#define FILE_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
/* Segment numbers hlssink2 gives: five digits. */
#define INDEX_MAX 99999u

static int
fragment(void *data, unsigned index)
{
	struct umms_ring_files *files = data;
	if (index > INDEX_MAX)
		return -1;
	char name[32];
	snprintf(name, sizeof name, UMMS_GST_RING_PREFIX "%05u" UMMS_GST_RING_SUFFIX, index);
	int fd = openat(files->dir, name, FILE_FLAGS, 0600);
	if (fd < 0)
		umms_warn("time-shift ring: cannot write %s: %s", name, g_strerror(errno));
	return fd;
}

static bool
write_all(int fd, const char *text, size_t length)
{
	while (length > 0) {
		ssize_t n = write(fd, text, length);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		text += n;
		length -= (size_t)n;
	}
	return true;
}

/* Replaced whole (a reader sees the old one or the new one, never half). */
static bool
playlist(void *data, const char *text, size_t length)
{
	struct umms_ring_files *files = data;
	int fd = openat(files->dir, UMMS_RECORDING_RING_PLAYLIST_NEW, FILE_FLAGS, 0600);
	bool ok = fd >= 0 && write_all(fd, text, length);
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (ok && renameat(files->dir, UMMS_RECORDING_RING_PLAYLIST_NEW, files->dir,
			UMMS_RECORDING_RING_PLAYLIST) == 0)
		return true;
	umms_warn("time-shift ring: cannot write its playlist: %s", g_strerror(errno));
	return false;
}

static void
remove_segment(void *data, unsigned index)
{
	struct umms_ring_files *files = data;
	if (index > INDEX_MAX)
		return;
	char name[32];
	snprintf(name, sizeof name, UMMS_GST_RING_PREFIX "%05u" UMMS_GST_RING_SUFFIX, index);
	if (unlinkat(files->dir, name, 0) != 0 && errno != ENOENT)
		umms_debug("time-shift ring: cannot delete %s: %s", name, g_strerror(errno));
}

struct umms_ring_files *
umms_ring_files_open(const char *dir, GError **error)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot open %s: %s", dir,
			g_strerror(errno));
		return NULL;
	}
	struct umms_ring_files *files = g_new0(struct umms_ring_files, 1);
	files->dir = fd;
	files->io = (struct umms_gst_record_ring_io){ .fragment = fragment,
		.playlist = playlist, .remove = remove_segment, .data = files };
	return files;
}

void
umms_ring_files_close(struct umms_ring_files *files)
{
	if (!files)
		return;
	close(files->dir);
	g_free(files);
}
