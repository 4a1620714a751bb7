/*
 * Inside the video server: what video-server.c (display, globals, manager
 * objects) and video-view.c (player objects, buffers) share.
 */
#ifndef UMMS_SERVICE_VIDEO_PRIVATE_H
#define UMMS_SERVICE_VIDEO_PRIVATE_H

#include <wayland-server-core.h>

#include "frame.h"
#include "video-server.h"

struct umms_player;

struct umms_video_server {
	const struct umms_config *config;
	struct umms_manager *manager;
	struct wl_display *display;
	struct wl_global *global;
	GSource *source;
	char *socket_path;
	int socket_fd;        /* ours when the socket is an absolute path, else -1 */
	char *lock_path;      /* likewise */
	int lock_fd;
	struct wl_list views; /* struct video_view.link */
	struct umms_compositor *compositor;  /* on a screen ummsd drives, else NULL */
	struct wl_listener client_created;   /* counts connections against max_clients */
	struct wl_list refused;              /* struct refused_client.link: closed when idle */
};

/*
 * A player object: @player is NULL once failed or the player is gone.
 * @formats: the wl_shm formats the client's compositor takes, preferred
 * first; @dmabuf: the dma-bufs it imports (both from the manager object
 * that made it; no dma-buf: shared memory only).
 */
void video_view_create(struct umms_video_server *server, struct wl_client *client,
	uint32_t version, uint32_t id, struct umms_player *player, bool owned,
	const uint32_t *formats, size_t n_formats,
	const struct umms_frame_dmabuf_format *dmabuf, size_t n_dmabuf);

/* Tells every view the server is going away (before the display is destroyed). */
void video_views_finish(struct umms_video_server *server);

#endif
