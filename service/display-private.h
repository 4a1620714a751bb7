/*
 * Inside org.umms.Display1 (display.h): display.c (the object, the screen's
 * own video) and display-videos.c (the placed videos: which one the
 * screen shows itself, the others drawn by the compositor's scene) share.
 */
#ifndef UMMS_SERVICE_DISPLAY_PRIVATE_H
#define UMMS_SERVICE_DISPLAY_PRIVATE_H

#include <wayland-server-core.h>

#include "compositor.h"
#include "dbus-iface.h"
#include "display.h"

struct umms_frame;

struct umms_display {
	struct umms_manager *manager;
	GDBusConnection *connection;
	struct umms_target *target;
	UmmsDbusIface *iface;
	/* The player whose frames the screen shows itself (the target's video). */
	struct umms_player *player;
	char *player_path;
	struct wl_listener frame, destroy, changed;
	struct wl_listener blocked;     /* player's events.blocked: the picture goes */
	struct umms_frame *last_frame;  /* the newest of player's given to the screen */
	bool match_refresh;
	const char *last_rung;     /* VideoPath and Copies when last signalled from a frame */
	uint64_t last_copies;
	double fps;                /* the rate the mode was matched to, 0: none */
	struct umms_compositor *compositor;
	struct umms_video_server *video;
	bool placed;               /* the screen's video is at a placement, not full screen */
	struct umms_session *session;  /* the device and input devices are opened in it */
	struct umms_player *plane_holder; /* holds a "plane" unit for the video's overlay plane */
	struct wl_listener active;
	/* display-videos.c */
	struct umms_player *full;  /* ShowPlayer's, full screen; NULL: none */
	void *primary_owner;       /* the placement the screen shows itself, NULL: none */
	struct wl_list scene_videos;  /* struct scene_video.link: drawn by the scene */
};

/* display.c */
/* The screen shows @player's frames (where: umms_screen_place_video). */
bool display_show_player(struct umms_display *display, struct umms_player *player,
	GError **error);
/* The screen shows no player's frames. */
void display_unset_player(struct umms_display *display);

/* display-videos.c */
extern const struct umms_compositor_hooks display_compositor_hooks;
/*
 * Chooses again what the screen shows itself: ShowPlayer's player, else
 * the bottom placed video when it is under the UI, or the top one when
 * over it (unclipped: a plane cannot clip), so that stacking holds; the
 * scene draws the rest. False (@error) if that player cannot be shown.
 */
bool display_videos_update(struct umms_display *display, GError **error);
/* Whether the scene draws @player (its frames are wanted there). */
bool display_scene_has(struct umms_display *display, struct umms_player *player);
void display_videos_finish(struct umms_display *display);
/* Display1.PlacePlayer (o (dddd) a{sv}) and UnplacePlayer (o). */
bool display_place_from_dbus(struct umms_display *display, GVariant *params, GError **error);
bool display_unplace_from_dbus(struct umms_display *display, const char *path, GError **error);

#endif
