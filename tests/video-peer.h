/*
 * A server of umms_video_v1 that is not ummsd, for tests of the client
 * libraries against what ummsd never sends (memory smaller than its
 * planes, a memfd called a dma-buf, a modifier no one can read): a real
 * Wayland display on a socket, run on a thread of its own. Each player a
 * client creates or attaches gets one buffer, as described, shown once.
 * What the client answers is counted under the lock.
 */
#ifndef UMMS_TESTS_VIDEO_PEER_H
#define UMMS_TESTS_VIDEO_PEER_H

#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

/* The one buffer the peer sends each player. */
struct umms_test_peer_buffer {
	uint32_t kind;        /* UMMS_VIDEO_BUFFER_V1_KIND_* */
	uint32_t format;      /* memfd: wl_shm format; dma-buf: DRM fourcc */
	int width, height;
	uint64_t modifier;
	int fd;               /* the test's: the peer sends a duplicate */
	uint32_t offset, stride;
	unsigned due_in_s;    /* the show is due this long after it is sent */
};

struct umms_test_peer {
	struct wl_display *display;
	GThread *thread;
	gint stop;
	struct umms_test_peer_buffer buffer;
	/* What the client did, under lock. */
	GMutex lock;
	unsigned releases, discarded, presented;
	uint32_t discarded_serial, presented_flags;
};

/* Serves umms_video_manager_v1 version 3 on @socket (in $XDG_RUNTIME_DIR). */
struct umms_test_peer *umms_test_peer_start(const char *socket,
	const struct umms_test_peer_buffer *buffer);
void umms_test_peer_stop(struct umms_test_peer *peer);

#endif
