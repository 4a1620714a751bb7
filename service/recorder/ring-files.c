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

#include "engine-supervisor.h"
#include "error.h"
#include "gst-record.h"
#include "ipc.h"
#include "log.h"
#include "recording.h"
#include "ring-files.h"

#define FILE_FLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
/* Segment numbers hlssink2 gives: five digits. */
#define INDEX_MAX 99999u

int
umms_ring_files_want(struct umms_ring_files *files, unsigned index)
{
	if (files->broken || (index > INDEX_MAX && index != UMMS_RING_FILES_PLAYLIST))
		return -1;
	char name[32];
	if (index == UMMS_RING_FILES_PLAYLIST)
		snprintf(name, sizeof name, "%s", UMMS_RECORDING_RING_PLAYLIST_NEW);
	else
		snprintf(name, sizeof name, UMMS_GST_RING_PREFIX "%05u" UMMS_GST_RING_SUFFIX, index);
	int fd = openat(files->dir, name, FILE_FLAGS, 0600);
	if (fd < 0)
		umms_warn("time-shift ring: cannot write %s: %s", name, g_strerror(errno));
	return fd;
}

bool
umms_ring_files_publish(struct umms_ring_files *files)
{
	if (files->broken)
		return false;
	if (renameat(files->dir, UMMS_RECORDING_RING_PLAYLIST_NEW, files->dir,
			UMMS_RECORDING_RING_PLAYLIST) == 0)
		return true;
	umms_warn("time-shift ring: cannot write its playlist: %s", g_strerror(errno));
	/* No more files: the ring fails when it asks for the next. */
	files->broken = true;
	return false;
}

void
umms_ring_files_remove(struct umms_ring_files *files, unsigned index)
{
	if (index > INDEX_MAX)
		return;
	char name[32];
	snprintf(name, sizeof name, UMMS_GST_RING_PREFIX "%05u" UMMS_GST_RING_SUFFIX, index);
	if (unlinkat(files->dir, name, 0) != 0 && errno != ENOENT)
		umms_debug("time-shift ring: cannot delete %s: %s", name, g_strerror(errno));
}

static int
fragment(void *data, unsigned index)
{
	return index == UMMS_RING_FILES_PLAYLIST ? -1 : umms_ring_files_want(data, index);
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
	int fd = umms_ring_files_want(files, UMMS_RING_FILES_PLAYLIST);
	bool ok = fd >= 0 && write_all(fd, text, length);
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (ok)
		return umms_ring_files_publish(files);
	if (fd >= 0)
		umms_warn("time-shift ring: cannot write its playlist: %s", g_strerror(errno));
	files->broken = true;
	return false;
}

static void
remove_segment(void *data, unsigned index)
{
	umms_ring_files_remove(data, index);
}

bool
umms_ring_files_handle(struct umms_ring_files *files, struct umms_worker_process *process,
	const struct umms_ipc_message *message)
{
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message->payload, message->header.length);
	switch (message->header.type) {
	case UMMS_IPC_RING_WANT: {
		uint32_t index = umms_ipc_get_u32(&r);
		if (!umms_ipc_reader_done(&r))
			return false;
		int fd = umms_ring_files_want(files, index == UMMS_IPC_RING_PLAYLIST ?
			UMMS_RING_FILES_PLAYLIST : index);
		struct umms_ipc_writer w;
		umms_ipc_writer_init(&w);
		umms_ipc_put_u32(&w, index);
		if (fd >= 0)
			umms_ipc_put_fd(&w, fd);
		umms_worker_process_send(process, UMMS_IPC_RING_FILE, 0, &w);
		umms_ipc_writer_finish(&w);
		if (fd >= 0)
			close(fd);
		return true;
	}
	case UMMS_IPC_RING_DONE:
		if (!umms_ipc_reader_done(&r))
			return false;
		umms_ring_files_publish(files);
		return true;
	case UMMS_IPC_RING_DELETE: {
		uint32_t index = umms_ipc_get_u32(&r);
		if (!umms_ipc_reader_done(&r))
			return false;
		umms_ring_files_remove(files, index);
		return true;
	}
	default:
		return false;
	}
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
