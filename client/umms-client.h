/*
 * libumms-client: show a umms player's video inside your own Wayland window,
 * on any compositor.
 *
 * Wayland gives no way to put another process's surface inside yours, so
 * ummsd sends decoded frames over its own socket (protocol umms_video_v1)
 * and this library presents them on subsurfaces of a surface of yours:
 * shared-memory frames as wl_shm buffers, dma-buf frames through
 * zwp_linux_dmabuf_v1, with no copy on the way. You place the video with a
 * rectangle in your surface's coordinates; the library keeps the picture's
 * shape (scale modes, pixel aspect ratio) and paints the bars.
 *
 * Use:
 *
 *	struct umms_client *client = umms_client_connect(display, NULL);
 *	struct umms_client_video *video = umms_client_video_create(client, surface, NULL);
 *	umms_client_video_set_rect(video, 40, 40, 640, 360);
 *	wl_surface_commit(surface);
 *	// in your loop: poll umms_client_get_fd(client) with your display's fd,
 *	// and call umms_client_dispatch(client) when it is readable.
 *
 * The player itself (open, play, seek…) is driven over D-Bus
 * (org.umms.Player1 at umms_client_video_get_path()).
 *
 * On a screen ummsd drives itself (`ummsd --drm`, a TV box or kiosk), ummsd
 * is also the compositor: connect your display to its socket
 * (WAYLAND_DISPLAY=umms-0) and the same calls work, with nothing sent to
 * your process: the library finds umms_video_v1 on your own connection and
 * asks ummsd to place the video in your surface (umms_video_player_v1.place),
 * which shows it on a plane of the screen where it can. The rectangle,
 * scale and stacking still land with your next commit of the parent (always
 * synchronized); the source crop and the counts are not used there.
 *
 * Threading: call everything from the thread that dispatches your
 * wl_display. The library's objects on your display use its default event
 * queue, so your usual dispatching delivers their events; as always, flush
 * your display and dispatch what is already queued before you sleep
 * (umms_client_dispatch flushes it too).
 *
 * Geometry is double-buffered like the rest of Wayland: in synchronized mode
 * (the default), set_rect and the other geometry calls take effect with your
 * next wl_surface_commit() of the parent surface, in the same frame as your
 * own drawing, so the video never lags behind your UI. Always commit the
 * parent after changing geometry. In desynchronized mode the size applies
 * with the next video frame and the position with your next commit.
 */
#ifndef UMMS_CLIENT_H
#define UMMS_CLIENT_H

#include <stdbool.h>
#include <wayland-client.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(UMMS_CLIENT_BUILD)
#define UMMS_CLIENT_EXPORT __attribute__((visibility("default")))
#else
#define UMMS_CLIENT_EXPORT
#endif

struct umms_client;
struct umms_client_video;

enum umms_client_scale {
	UMMS_CLIENT_SCALE_LETTERBOX, /* keep the shape, fit inside, bars on two sides */
	UMMS_CLIENT_SCALE_FILL,      /* stretch to the rectangle */
	UMMS_CLIENT_SCALE_CROP,      /* keep the shape, cover the rectangle, cut the excess */
	UMMS_CLIENT_SCALE_NONE,      /* one video pixel per surface unit, centred, clipped */
	UMMS_CLIENT_SCALE_4_3,       /* shown 4:3 whatever the stream says, fitted inside */
	UMMS_CLIENT_SCALE_16_9,      /* shown 16:9 whatever the stream says (anamorphic) */
};

enum umms_client_stacking {
	UMMS_CLIENT_ABOVE, /* over the parent's own pixels (the default) */
	UMMS_CLIENT_BELOW, /* under them: the parent must be transparent there */
};

struct umms_client_video_listener {
	/* The player exists; control it at this D-Bus object path. */
	void (*ready)(void *data, struct umms_client_video *video, const char *path);
	/* There is no player to show (no such path, or none could be made). */
	void (*failed)(void *data, struct umms_client_video *video, const char *reason);
	/* The picture's shape changed: @width x @height with square pixels. */
	void (*size)(void *data, struct umms_client_video *video, int width, int height);
	/* The media ended. */
	void (*end_of_stream)(void *data, struct umms_client_video *video);
	/* Playback failed: @name is an org.umms.Error.* name. */
	void (*error)(void *data, struct umms_client_video *video, const char *name,
		const char *message);
};

/*
 * Connects to ummsd's video socket (@name, else $UMMS_DISPLAY, else umms-0,
 * in $XDG_RUNTIME_DIR unless absolute) and finds what @display's compositor
 * offers. Returns NULL (errno set) if ummsd is not there or the compositor
 * lacks wl_subcompositor or wp_viewporter.
 */
UMMS_CLIENT_EXPORT struct umms_client *umms_client_connect(struct wl_display *display, const char *name);
/* Destroys every video first. NULL is a no-op. */
UMMS_CLIENT_EXPORT void umms_client_disconnect(struct umms_client *client);

/* ummsd's socket: poll it for reading, then call umms_client_dispatch(). */
UMMS_CLIENT_EXPORT int umms_client_get_fd(struct umms_client *client);
/*
 * Handles what ummsd sent (frames, events) without blocking and flushes
 * your display. Returns -1 once ummsd is gone.
 */
UMMS_CLIENT_EXPORT int umms_client_dispatch(struct umms_client *client);
/* Blocks until ummsd has answered everything sent so far. -1 if gone. */
UMMS_CLIENT_EXPORT int umms_client_roundtrip(struct umms_client *client);

/*
 * Shows player @player_path (an org.umms.Player1 object path) in @parent,
 * or a new player owned by this connection when @player_path is NULL (it is
 * destroyed with the video). Nothing shows until a rectangle is set.
 * Returns NULL only when out of memory; a player that cannot be shown is
 * reported later through the listener's failed.
 */
UMMS_CLIENT_EXPORT struct umms_client_video *umms_client_video_create(struct umms_client *client,
	struct wl_surface *parent, const char *player_path);
UMMS_CLIENT_EXPORT void umms_client_video_destroy(struct umms_client_video *video);

UMMS_CLIENT_EXPORT void umms_client_video_set_listener(struct umms_client_video *video,
	const struct umms_client_video_listener *listener, void *data);
/* The player's D-Bus object path, or NULL before ready. */
UMMS_CLIENT_EXPORT const char *umms_client_video_get_path(struct umms_client_video *video);

/* Where the video goes, in @parent's surface coordinates; width 0 hides it. */
UMMS_CLIENT_EXPORT void umms_client_video_set_rect(struct umms_client_video *video, int x, int y, int width,
	int height);
UMMS_CLIENT_EXPORT void umms_client_video_set_scale(struct umms_client_video *video, enum umms_client_scale scale);
/* Shows only this part of the picture (in video pixels); width 0: all of it. */
UMMS_CLIENT_EXPORT void umms_client_video_set_source_crop(struct umms_client_video *video, int x, int y,
	int width, int height);
UMMS_CLIENT_EXPORT void umms_client_video_set_stacking(struct umms_client_video *video,
	enum umms_client_stacking stacking);
/*
 * Whether the video hides the rectangle @x, @y, @width x @height of
 * @parent (its surface coordinates) from your next commit on: it lies in
 * the video's rectangle, and the video is stacked above. The video's
 * rectangle is always opaque, whatever the frames: the picture where it
 * is, black bars around it and before the first frame, black under a
 * picture with alpha. Where it returns true you may leave your surface
 * unpainted, as a video player filling its window should: once the window
 * is on screen (compositors place a new window by its first buffer's
 * size), attach a 1x1 buffer at 0,0 instead of a window-sized one.
 * Compositors that paint every surface under the damage (sway 1.7:
 * wlroots 0.15 culls nothing under opaque surfaces) otherwise composite
 * your hidden window again with every video frame. The answer changes
 * only with your own calls (set_rect, set_stacking), so ask when you make
 * them. False where ummsd is the compositor (the video is placed there,
 * not drawn by this library).
 */
UMMS_CLIENT_EXPORT bool umms_client_video_hides(struct umms_client_video *video, int x, int y,
	int width, int height);
/* Synchronized (true, the default) or desynchronized geometry; see above. */
UMMS_CLIENT_EXPORT void umms_client_video_set_sync(struct umms_client_video *video, bool sync);
/*
 * Frames made at the size the picture is shown at (true), not the picture's
 * own (false, the default): a video shown smaller than it is (a thumbnail)
 * then comes scaled down by ummsd, in square pixels, costing a thumbnail's
 * memory and conversion. The size listener then reports the frames' size
 * (the picture's shape, not its resolution). Follows set_rect and
 * set_scale; off while a source crop is set (the crop is in the picture's
 * pixels). Needs ummsd's umms_video_v1 version 6; no effect before.
 */
UMMS_CLIENT_EXPORT void umms_client_video_set_scaled_frames(struct umms_client_video *video,
	bool scaled);

/* What became of the frames ummsd sent, for the curious (and for tests). */
struct umms_client_video_counts {
	unsigned committed;  /* attached to the video's surface and committed */
	unsigned presented;  /* the compositor says it showed them (wp_presentation) */
	unsigned discarded;  /* replaced before they were shown, or never attached */
	/*
	 * Committed frames the compositor never said anything about: the
	 * library stops waiting once 16 are outstanding, and asks a
	 * compositor that answered none of a connection's first 16 about a
	 * rare frame only (headless wlroots 0.15 never answers presentation
	 * feedback, and keeps each request for as long as it runs).
	 */
	unsigned unanswered;
};
UMMS_CLIENT_EXPORT void umms_client_video_get_counts(struct umms_client_video *video,
	struct umms_client_video_counts *counts);
/*
 * How the newest presented frame was shown, as reported to ummsd: the
 * compositor's wp_presentation kind bits (1 vsync, 2 hw clock, 4 hw
 * completion, 8 zero copy: read in place, on a plane), with 0x10 (copied)
 * in place of zero copy where the library copied a dma-buf the compositor
 * refused. 0 before the first.
 */
UMMS_CLIENT_EXPORT uint32_t umms_client_video_get_presented_flags(struct umms_client_video *video);

/*
 * Subtitles (ummsd with umms_video_manager_v1 version 4). @images (the
 * default: true): the subtitles of the player's subtitle track are shown
 * over the picture, in a subsurface of the picture's placed and scaled as
 * the picture is (so inside the video whatever the scale mode), attached
 * only when they change; false: hidden from now on. @cue (default NULL):
 * called from umms_client_dispatch() with the text of the cue that stands
 * whenever it changes ("" when none does; UTF-8, lines separated by
 * newlines), for an application that draws its own captions. Per video:
 * other applications showing the same player choose for themselves.
 * Where ummsd is the compositor (the video is placed), ummsd's screen
 * draws the subtitles itself, as @images says.
 */
UMMS_CLIENT_EXPORT void umms_client_video_set_subtitles(struct umms_client_video *video,
	bool images, void (*cue)(void *data, struct umms_client_video *video, const char *text));

struct umms_client_subtitle_counts {
	unsigned received;  /* subtitle images ummsd sent */
	unsigned refused;   /* of them, refused unread: sizes beyond their memory */
	unsigned copied;    /* copied into a buffer of ours (once per image) */
	unsigned attached;  /* attached to the subtitles' surface (once per image shown) */
};
UMMS_CLIENT_EXPORT void umms_client_video_get_subtitle_counts(struct umms_client_video *video,
	struct umms_client_subtitle_counts *counts);

#ifdef __cplusplus
}
#endif

#endif
