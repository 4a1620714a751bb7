/*
 * ummsd's own Wayland compositor, for a screen it drives itself (a TV
 * box, a kiosk through KMS; or the headless screen, for tests and machines
 * without one): the shell UI (a browser, a TV launcher) is a Wayland
 * client of ummsd, drawn with the screen's renderer into its buffer (the
 * KMS primary plane), while video goes to a plane of its own where the
 * screen has one (targets/kms/, the plane ladder) with no pass over its
 * pixels, or is composited with the UI.
 *
 * Minimal by design: wl_compositor, wl_subcompositor, wl_shm, xdg_wm_base
 * (every toplevel fullscreen, kiosk style, the newest on top and focused),
 * zwp_linux_dmabuf_v1 (version 4, with a scanout tranche), wp_viewporter,
 * wp_presentation (page flips time it), wl_output, wl_seat (libinput) and
 * wl_data_device_manager (no clipboard: data-device.h).
 * It serves on the wl_display of the video server, so a client's own
 * surfaces and umms_video_v1 share a connection: umms_video_player_v1.place
 * puts a player's video inside a surface of the client's at a rectangle,
 * double-buffered with that surface's commit, so the UI and the video move
 * in the same KMS commit.
 *
 * Damage tracking: a screen redraws the UI only when a surface committed
 * (or the video under it changed), and a surface whose pixels did not
 * change is not uploaded again by a GPU renderer (renderer.h: unchanged).
 *
 * The video itself is not drawn here: placements go to the display
 * (service/display.c) through hooks, which shows that player on the
 * screen at the rectangle, over or under the UI.
 */
#ifndef UMMS_SERVICE_COMPOSITOR_H
#define UMMS_SERVICE_COMPOSITOR_H

#include <stdbool.h>
#include <glib.h>
#include <wayland-server-core.h>

#include "screen.h"

struct umms_compositor;
struct umms_player;
struct umms_session;

struct umms_compositor_hooks {
	/*
	 * A client's placement of @player took effect (@place in the UI area's
	 * coordinates), or ended (@place NULL: the surface or the view went).
	 */
	void (*place_video)(void *data, struct umms_player *player,
		const struct umms_screen_video_place *place);
};

struct umms_compositor_config {
	bool input;             /* take input devices through libinput */
	const char *seat;       /* "seat0" */
	const char *xkb_layout; /* NULL: "us" */
	struct umms_session *session; /* input devices are opened in it; NULL: directly */
};

/* Adds the globals to @display and draws the UI on @screen (screen.h: KMS or headless). */
struct umms_compositor *umms_compositor_create(struct wl_display *display,
	struct umms_target *screen, const struct umms_compositor_config *config,
	const struct umms_compositor_hooks *hooks, void *data, GError **error);
/* Removes the globals; clients keep their connection to the video server. NULL: no-op. */
void umms_compositor_destroy(struct umms_compositor *compositor);

/*
 * The request umms_video_player_v1.place, from the video server: @owner
 * (the view) places @player in @surface (a wl_surface resource of this
 * compositor) at a rectangle in its surface coordinates, with a zoom mode
 * and stacking, its frames' subtitles drawn over it or not (@subtitles);
 * a rectangle of no size hides it. Pending until the surface's next
 * commit. Returns false (and sets @error) when @surface is not one of ours.
 */
bool umms_compositor_place(struct umms_compositor *compositor, struct wl_resource *surface,
	void *owner, struct umms_player *player, int x, int y, int width, int height,
	enum umms_layout_scale scale, bool above, bool subtitles, GError **error);
/*
 * @owner's video shows its subtitles or not (umms_video_player_v1
 * set_subtitles), at once: no commit of the surface needed.
 */
void umms_compositor_set_video_subtitles(struct umms_compositor *compositor, void *owner,
	bool shown);
/* @owner is going away: whatever it placed is removed now. */
void umms_compositor_unplace(struct umms_compositor *compositor, void *owner);

#endif
