/*
 * A plain umms_video_v1 client for tests (no compositor): connects to
 * ummsd's video socket, binds the manager at a chosen version, records
 * every buffer, show, geometry and subpicture event as it comes, and
 * releases shown buffers unless told not to. Used by test-video.c and
 * test-churn.c.
 */
#ifndef UMMS_TEST_VIDEO_RAW_H
#define UMMS_TEST_VIDEO_RAW_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-client.h>

#include "umms-video-v1-client-protocol.h"

struct raw_buffer {
	struct umms_video_buffer_v1 *proxy;
	uint32_t kind, format;
	int width, height, n_planes;
	int fds[4];
	uint32_t offsets[4], strides[4];
	bool done, retired;
	unsigned held;
	unsigned shows;       /* times shown */
};

struct raw_client {
	struct wl_display *display;
	struct umms_video_manager_v1 *manager;
	struct umms_video_player_v1 *player;
	char *path;
	char *failed;
	GPtrArray *buffers;   /* struct raw_buffer * */
	unsigned shows, eos, errors;
	unsigned clears;      /* clear events (version 5: the picture taken off) */
	struct raw_buffer *last;
	uint32_t last_serial;
	int64_t last_due_ns;
	int64_t last_received_ns;
	int geometry[8];
	bool auto_release;
	uint32_t version;     /* of the manager to bind */
	unsigned subpictures; /* subpicture and subpicture_clear events */
};

/* Now on CLOCK_MONOTONIC, the clock of show times, in ns. */
int64_t monotonic_ns(void);
/* The path of ummsd's umms_video_v1 socket. */
const char *video_socket(void);
/*
 * Connects with manager version @version; @formats: wl_shm formats to
 * announce (0-terminated, 1000 for format 0), NULL: none.
 */
struct raw_client *raw_connect_version(const uint32_t *formats, uint32_t version);
/* raw_connect_version() at version 1. */
struct raw_client *raw_connect(const uint32_t *formats);
/* Attaches to the player at @path, or creates one (NULL), and waits for its answer. */
void raw_player(struct raw_client *c, const char *path);
/* Reads what arrives for @ms; false once the server has disconnected us. */
bool raw_pump(struct raw_client *c, unsigned ms);
/* Pumps until @shows frames have been shown in all; fails after @timeout_ms. */
void raw_wait_shows(struct raw_client *c, unsigned shows, unsigned timeout_ms);
/*
 * Closes the buffers' fds and the connection (which may be gone already);
 * a buffer whose proxy the caller destroyed has it NULL.
 */
void raw_free(struct raw_client *c);
/* The pixel at (x, y) of an XRGB8888 memfd buffer, as 0xRRGGBB. */
uint32_t raw_pixel(struct raw_buffer *buffer, int x, int y);

#endif
