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
 * Videos: several players' pictures may be placed at once, each at a
 * rectangle relative to a client's surface (struct umms_placement), under
 * or over that surface's toplevel, in z order, clipped. Placements reach
 * the display (service/display.c) through hooks as a list in the UI area's
 * coordinates (umms_compositor_get_videos); the display shows one of them
 * itself on the screen (a KMS plane where it can) and the scene draws the
 * others with the UI, through the draw_video hook, where they stack.
 */
#ifndef UMMS_SERVICE_COMPOSITOR_H
#define UMMS_SERVICE_COMPOSITOR_H

#include <stdbool.h>
#include <glib.h>
#include <sys/types.h>
#include <wayland-server-core.h>

#include "screen.h"

struct umms_compositor;
struct umms_player;
struct umms_session;

/*
 * Where a video goes: the one placement every way in uses (the
 * umms_video_player_v1.place request, Display1.PlacePlayer, the web
 * bridge). Coordinates are in the caller's units (CSS pixels for a page),
 * relative to the surface's origin; times @scale they are surface pixels,
 * which on this screen are the UI area's pixels.
 */
struct umms_placement {
	double x, y, width, height;  /* no size: hidden */
	bool clipped;                /* nothing of the video shows outside clip */
	double clip_x, clip_y, clip_width, clip_height;
	int z;                       /* among the videos on the same side of one toplevel */
	bool over;                   /* over the toplevel; false: under it (its holes show it) */
	bool visible;
	double scale;                /* the units to surface pixels, > 0 */
	enum umms_layout_scale zoom; /* the picture inside the rectangle */
	bool subtitles;              /* the screen draws the frames' subtitles over it */
};

/* The largest |coordinate| and size a placement may have (in surface pixels too). */
#define UMMS_PLACEMENT_MAX 32768.0
/* Finite, within the limits, scale > 0: else InvalidArgument naming what. */
bool umms_placement_check(const struct umms_placement *p, GError **error);

/* A placed video as it is on screen now, in the UI area's pixels. */
struct umms_compositor_video {
	void *owner;                 /* who placed it: one placement per owner */
	struct umms_player *player;
	struct umms_screen_video_place place;  /* rectangle, zoom, over/under, subtitles */
	bool clipped;                /* clip cuts into the rectangle */
	int clip[4];                 /* x, y, width, height: the part that may show */
	int z;
	int layer;                   /* its toplevel's place in the stack, bottom 0 */
	bool top_layer;              /* its toplevel is the top one */
	uint64_t order;              /* when placed: equal z stacks in this order */
};

struct umms_renderer;
struct umms_render_box;

struct umms_compositor_hooks {
	/* The videos placed, or where they are, changed: umms_compositor_get_videos. */
	void (*videos_changed)(void *data);
	/*
	 * The scene draws @video (not the one the screen shows itself) at its
	 * place in the stack, into @renderer begun on the screen's buffer
	 * (@area: the UI area in buffer pixels), clipped to video->clip.
	 */
	void (*draw_video)(void *data, const struct umms_compositor_video *video,
		struct umms_renderer *renderer, const struct umms_render_box *area);
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
 * The videos placed now and shown (their surface on screen, visible, of
 * some size), bottom first: by layer, then under before over, then z.
 * Valid until the next call into the compositor.
 */
size_t umms_compositor_get_videos(struct umms_compositor *compositor,
	const struct umms_compositor_video **videos);
/* A video the scene draws has a new picture: the UI is drawn again. */
void umms_compositor_damage_videos(struct umms_compositor *compositor);

/*
 * The request umms_video_player_v1.place, from the video server: @owner
 * (the view) places @player in @surface (a wl_surface resource of this
 * compositor) as @placement says (its units: surface pixels, scale 1).
 * Pending until the surface's next commit. Returns false (and sets @error)
 * when @surface is not one of ours.
 */
bool umms_compositor_place(struct umms_compositor *compositor, struct wl_resource *surface,
	void *owner, struct umms_player *player, const struct umms_placement *placement,
	GError **error);
/*
 * @owner places @player relative to a toplevel of another client (a
 * browser's page): the toplevel of the client with process id @pid, the
 * newest if @pid is 0. Latched: it takes effect with that toplevel's next
 * commit, so the page and the picture move together, or after 100 ms if
 * none comes. NotFound when there is no such toplevel.
 */
bool umms_compositor_place_in_toplevel(struct umms_compositor *compositor, void *owner,
	struct umms_player *player, pid_t pid, const struct umms_placement *placement,
	GError **error);
/*
 * @owner's video shows its subtitles or not (umms_video_player_v1
 * set_subtitles), at once: no commit of the surface needed.
 */
void umms_compositor_set_video_subtitles(struct umms_compositor *compositor, void *owner,
	bool shown);
/* @owner is going away, or takes its video off: whatever it placed is removed now. */
void umms_compositor_unplace(struct umms_compositor *compositor, void *owner);

#endif
