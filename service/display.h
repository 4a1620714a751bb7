/*
 * org.umms.Display1: a screen ummsd drives (targets/screen.h): through KMS
 * (targets/kms/, `ummsd --drm`) or headless (targets/headless/, `ummsd
 * --headless`: composited into memory, captured as PNG), exported at
 * /org/umms/display/0 while ummsd holds it. It shows
 * one player's video at a time (ShowPlayer), inside the overscan margins,
 * placed by the zoom mode, and reports the frames it put on screen back to
 * the player (frames-displayed, display latency, lip sync).
 */
#ifndef UMMS_SERVICE_DISPLAY_H
#define UMMS_SERVICE_DISPLAY_H

#include <gio/gio.h>

#include "config.h"

struct umms_manager;
struct umms_display;
struct umms_video_server;

/*
 * Opens the device from config->display (or makes the headless screen
 * when display.headless) and exports the object. With
 * @video (and display.compositor), ummsd's compositor serves Wayland
 * clients on the video server's display (service/compositor/).
 */
struct umms_display *umms_display_create(const struct umms_config *config,
	struct umms_manager *manager, GDBusConnection *connection,
	struct umms_video_server *video, GError **error);
/* Takes the video off, releases the device. NULL is a no-op. */
void umms_display_destroy(struct umms_display *display);

#endif
