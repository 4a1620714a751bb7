/*
 * The Wayland side of ummsd: umms_video_v1 on its own socket
 * ($XDG_RUNTIME_DIR/umms-0), carrying players' frames to the applications
 * that show them (protocol/umms-video-v1.xml).
 *
 * The wl_display runs inside ummsd's GLib main loop (a GSource on its event
 * loop's fd). Each umms_video_player_v1 object is a "view" of one player
 * (video-view.c): it announces each buffer once, shows frames, holds them
 * until released, and reports presentation feedback to the player.
 */
#ifndef UMMS_SERVICE_VIDEO_SERVER_H
#define UMMS_SERVICE_VIDEO_SERVER_H

#include <stdbool.h>
#include <glib.h>

#include "config.h"

struct umms_manager;
struct umms_video_server;
struct umms_compositor;

/* Opens the socket and serves. Fails (named error) if the socket is taken. */
struct umms_video_server *umms_video_server_create(const struct umms_config *config,
	struct umms_manager *manager, GError **error);
/* Disconnects every client (their held frames are released). NULL is a no-op. */
void umms_video_server_destroy(struct umms_video_server *server);

/*
 * ummsd's compositor (service/compositor/) serves on this display, so a
 * client's surfaces and umms_video_v1 share a connection.
 */
struct wl_display *umms_video_server_get_display(struct umms_video_server *server);
/* Where umms_video_player_v1.place goes (NULL: nowhere, the request is an error). */
void umms_video_server_set_compositor(struct umms_video_server *server,
	struct umms_compositor *compositor);

/* The socket's path, for logs and tests. */
const char *umms_video_server_socket(struct umms_video_server *server);

#endif
