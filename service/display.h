/*
 * org.umms.Display1: a screen ummsd drives (targets/screen.h): through KMS
 * (targets/kms/, `ummsd --drm`) or headless (targets/headless/, `ummsd
 * --headless`: composited into memory, captured as PNG), exported at
 * /org/umms/display/0 while ummsd holds it. It shows a player's video
 * full screen (ShowPlayer), inside the overscan margins, placed by the zoom
 * mode, and the videos placed relative to clients' windows (PlacePlayer,
 * umms_display_place, umms_video_player_v1.place), several at once; and
 * reports the frames it put on screen back to the players
 * (frames-displayed, display latency, lip sync).
 */
#ifndef UMMS_SERVICE_DISPLAY_H
#define UMMS_SERVICE_DISPLAY_H

#include <gio/gio.h>

#include "compositor.h"
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

/*
 * Places @player's video relative to the window (xdg_toplevel) of the
 * Wayland client with process id @client_pid (0: the newest window), as
 * @placement says (compositor.h: rectangle and clip in the client's units,
 * times scale in surface pixels; z; over or under the window; visible).
 * Latched to that window's next commit (100 ms at most). Placing the same
 * player again replaces its placement. The same path as Display1.PlacePlayer
 * and umms_video_player_v1.place. InvalidArgument (NaN, huge, negative
 * sizes), NotFound (no such window), NotSupported (ummsd is not the
 * screen's compositor).
 */
bool umms_display_place(struct umms_display *display, struct umms_player *player,
	pid_t client_pid, const struct umms_placement *placement, GError **error);
/* Takes @player's placement off, at once. Not placed: nothing happens. */
void umms_display_unplace(struct umms_display *display, struct umms_player *player);

#endif
