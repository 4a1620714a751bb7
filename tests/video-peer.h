/*
 * A server of umms_video_v1 that is not ummsd, for tests of the client
 * libraries against what ummsd never sends (memory smaller than its
 * planes, a memfd called a dma-buf, a modifier no one can read) or sends
 * with pixels a test must know (subtitle images): a real Wayland display
 * on a socket, run on a thread of its own. Each player a client creates or
 * attaches gets the script's buffers and shows; what the client answers is
 * counted under the lock.
 */
#ifndef UMMS_TESTS_VIDEO_PEER_H
#define UMMS_TESTS_VIDEO_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

/* The most buffers, and shows, a script has. */
#define UMMS_TEST_PEER_MAX 2

/* A buffer the peer sends each player. */
struct umms_test_peer_buffer {
	uint32_t kind;        /* UMMS_VIDEO_BUFFER_V1_KIND_* */
	uint32_t format;      /* memfd: wl_shm format; dma-buf: DRM fourcc */
	int width, height;
	uint64_t modifier;
	int fd;               /* the test's: the peer sends a duplicate */
	uint32_t offset, stride;
	/* umms_test_peer_start(): the buffer's one show is due this long after it is sent. */
	unsigned due_in_s;
};

/* A subtitle image, sent just before a show (to a player of version 4). */
struct umms_test_peer_subpicture {
	int fd;               /* the test's, as a buffer's */
	uint32_t serial;
	int x, y, width, height;
	uint32_t stride;
};

struct umms_test_peer_show {
	unsigned buffer;      /* which of the script's buffers */
	/* Sent this long after the player was made: not less than the show before. */
	unsigned delay_ms;
	unsigned due_in_s;    /* due this long after it is sent */
	bool with_subpicture; /* subpicture is sent before it */
	struct umms_test_peer_subpicture subpicture;
};

/* What the peer serves and sends each player. */
struct umms_test_peer_script {
	uint32_t version;     /* of umms_video_manager_v1 */
	struct umms_test_peer_buffer buffers[UMMS_TEST_PEER_MAX];
	unsigned n_buffers;   /* the first's size is the picture's */
	struct umms_test_peer_show shows[UMMS_TEST_PEER_MAX];
	unsigned n_shows;
	/* The cue text sent to a set_subtitles asking for text; NULL: none. */
	const char *cue;
	/* Called, on the peer's thread, with each set_subtitles; NULL: none. */
	void (*subtitles)(uint32_t subtitles, void *data);
	void *data;
};

struct umms_test_peer {
	struct wl_display *display;
	GThread *thread;
	gint stop;
	struct umms_test_peer_script script; /* its fds the peer's own duplicates */
	/* What the client did, under lock. */
	GMutex lock;
	unsigned releases, discarded, presented;
	uint32_t discarded_serial, presented_flags;
	uint32_t set_subtitles; /* the last set_subtitles; ~0: none yet */
};

/*
 * Serves umms_video_manager_v1 version 3 on @socket (in $XDG_RUNTIME_DIR):
 * @buffer, shown once.
 */
struct umms_test_peer *umms_test_peer_start(const char *socket,
	const struct umms_test_peer_buffer *buffer);
/* Serves @script on @socket; the test may close the script's fds once this returns. */
struct umms_test_peer *umms_test_peer_start_script(const char *socket,
	const struct umms_test_peer_script *script);
void umms_test_peer_stop(struct umms_test_peer *peer);

/* A memfd of @size bytes holding @fill in each whole 32-bit word. */
int umms_test_peer_memfd(size_t size, uint32_t fill);

#endif
