/*
 * Inside libumms-client: the connection (client.c), one embedded video
 * (video.c), the placement arithmetic (layout.c) and frame buffers
 * (buffer.c).
 */
#ifndef UMMS_CLIENT_PRIVATE_H
#define UMMS_CLIENT_PRIVATE_H

#include <stdint.h>
#include <time.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "layout.h"
#include "umms-client.h"
#include "umms-video-v1-client-protocol.h"
#include "viewporter-client-protocol.h"

#define UMMS_CLIENT_MAX_FORMATS 64

#define CLAMP_D(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))
#define MAX_I(a, b) ((a) > (b) ? (a) : (b))
#define MIN_I(a, b) ((a) < (b) ? (a) : (b))

struct umms_client {
	struct wl_display *display;   /* the application's compositor */
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wp_viewporter *viewporter;
	struct wl_shm *shm;
	struct wp_presentation *presentation;
	clockid_t presentation_clock; /* what its times are in (weston: MONOTONIC_RAW) */
	struct wp_single_pixel_buffer_manager_v1 *single_pixel;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	uint32_t shm_formats[UMMS_CLIENT_MAX_FORMATS];
	int n_shm_formats;

	struct wl_display *umms;      /* ummsd: its own socket, or the display when direct */
	struct umms_video_manager_v1 *manager;
	/*
	 * ummsd is the compositor (it drives the screen): umms_video_v1 comes
	 * on the application's own display and the video is placed in the
	 * parent surface (umms_video_player_v1.place), shown by ummsd itself.
	 */
	bool direct;
	struct wl_list videos;        /* umms_client_video.link */
};

/* Where things go, in the parent's coordinates: common/layout.h. */

struct client_buffer;

struct umms_client_video {
	struct umms_client *client;
	struct wl_list link;          /* umms_client.videos */
	struct wl_surface *parent;
	struct umms_video_player_v1 *player;
	char *path;
	const struct umms_client_video_listener *listener;
	void *listener_data;

	struct wl_surface *bg_surface, *video_surface;
	struct wl_subsurface *bg_sub, *video_sub;
	struct wp_viewport *bg_viewport, *video_viewport;
	struct wl_buffer *black;
	bool bg_attached;

	struct umms_layout_input in; /* rectangle, scale, geometry, crop */
	struct umms_layout layout;   /* the picture's placement, frames follow it */
	bool have_geometry;
	enum umms_client_stacking stacking;
	bool sync;
	bool in_sync;                 /* subsurfaces synchronized until the parent commits */
	struct wl_callback *parent_done;

	struct wl_list buffers;       /* client_buffer.link */
	struct wl_list feedbacks;     /* presentation feedback still pending, newest first */
	unsigned n_feedbacks;
	struct client_buffer *current; /* attached to the video surface */
	struct umms_client_video_counts counts;
};

/* buffer.c */
struct client_buffer *client_buffer_create(struct umms_client_video *video,
	struct umms_video_buffer_v1 *proxy, uint32_t kind, uint32_t format, int width,
	int height, uint64_t modifier);
void client_buffer_destroy(struct client_buffer *buffer);
void client_buffers_destroy_all(struct umms_client_video *video);
/*
 * Shows it (attach, viewport source from video->layout, damage, commit)
 * with presentation feedback for @serial.
 */
void client_buffer_show(struct client_buffer *buffer, uint32_t serial);
/*
 * Attaches the frame on screen again with the picture's new viewport
 * source (video->layout): weston applies a viewport change only with an
 * attach, and a new cut is a new wl_buffer. False, with nothing done, if
 * the compositor released the frame already or the layout is for a frame of
 * another shape. No commit, no feedback.
 */
bool client_buffer_reattach(struct client_buffer *buffer);
/* A show that never reaches the screen: released and reported discarded. */
void client_buffer_skip(struct client_buffer *buffer, uint32_t serial);
/* The video is going: pending feedback is dropped. */
void client_feedbacks_orphan(struct umms_client_video *video);

/* video.c */
/*
 * Size, position and viewport of both subsurfaces from video->in; @from_app:
 * an application's change, which in synchronized mode waits for its commit.
 */
void client_video_apply_layout(struct umms_client_video *video, bool from_app);

#endif
