/*
 * Inside libumms-client: the connection (client.c), one embedded video
 * (video.c), the placement arithmetic (base/layout.c) and frame buffers
 * (buffer.c), on the umms_video_v1 core (client/core/core.h) shared with
 * libumms-client-gl.
 */
#ifndef UMMS_CLIENT_PRIVATE_H
#define UMMS_CLIENT_PRIVATE_H

#include <stdint.h>
#include <time.h>

#include "core.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "layout.h"
#include "umms-client.h"
#include "umms-video-v1-client-protocol.h"
#include "viewporter-client-protocol.h"

#define UMMS_CLIENT_MAX_FORMATS 64
/* dma-buf format and modifier pairs kept from the compositor. */
#define UMMS_CLIENT_MAX_DMABUF 128

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
	/*
	 * Whether the compositor ever answered presentation feedback, and the
	 * frames committed before it did (buffer.c stops asking one that never
	 * answers).
	 */
	bool feedback_heard;
	unsigned feedback_unheard;
	struct wp_single_pixel_buffer_manager_v1 *single_pixel;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	uint32_t shm_formats[UMMS_CLIENT_MAX_FORMATS];
	int n_shm_formats;
	/* What its zwp_linux_dmabuf_v1 (version 3) imports, in ummsd's formats. */
	struct {
		uint32_t format;
		uint64_t modifier;
	} dmabuf_formats[UMMS_CLIENT_MAX_DMABUF];
	int n_dmabuf_formats;

	struct umms_core core;        /* ummsd: its own socket, or the display when direct */
	/*
	 * ummsd is the compositor (it drives the screen): umms_video_v1 comes
	 * on the application's own display and the video is placed in the
	 * parent surface (umms_video_player_v1.place), shown by ummsd itself.
	 */
	bool direct;
	struct wl_list videos;        /* umms_client_video.link */
};

/* Where things go, in the parent's coordinates: base/layout.h. */

/* The whole frame, and up to two cuts of it (one on screen, one coming). */
#define CLIENT_MAX_VIEWS 3

/* One wl_buffer on a frame's memory. */
struct buffer_view {
	struct client_buffer *owner;
	struct wl_buffer *wl;
	int x, y, width, height;    /* the part of the frame it covers */
	bool held;                  /* attached, not released by the compositor yet: a core hold */
};

/* A frame buffer of ummsd's (the core's), imported into the compositor. */
struct client_buffer {
	struct umms_core_buffer base;   /* first: the core allocates and frees it */
	struct umms_client_video *video;
	struct buffer_view views[CLIENT_MAX_VIEWS]; /* [0]: the whole frame, once imported */
	struct wl_shm_pool *pool;   /* memfd frames: where cuts come from */
	struct zwp_linux_buffer_params_v1 *params; /* dma-buf import not answered yet */
	bool refused;               /* dma-buf import refused: copied into shm */
	struct wl_buffer *copy;     /* shared-memory stand-in for a refused dma-buf */
	void *copy_data;
	size_t copy_size;
};

struct umms_client_video {
	struct umms_client *client;
	struct wl_list link;          /* umms_client.videos */
	struct wl_surface *parent;
	struct umms_core_video *core; /* the player's frames */
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
	bool scaled_frames;           /* set_scaled_frames: frames made at the size shown */
	int sent_width, sent_height;  /* the size last asked of ummsd (set_size) */
	bool in_sync;                 /* subsurfaces synchronized until the parent commits */
	struct wl_callback *parent_done;

	struct wl_list feedbacks;     /* presentation feedback still pending, newest first */
	unsigned n_feedbacks;
	struct client_buffer *current; /* attached to the video surface */
	bool opaque;                  /* the video surface's opaque region is set */
	/*
	 * The newest show of a dma-buf whose import the compositor has not
	 * answered yet (NULL: none): shown once it answers, discarded if a
	 * newer show comes first.
	 */
	struct client_buffer *waiting;
	uint32_t waiting_serial;
	struct umms_client_video_counts counts;
	uint32_t presented_flags;     /* the newest presented's, as sent to ummsd */

	/* Subtitles (subtitles.c): a subsurface of the picture's. */
	struct wl_surface *sub_surface;
	struct wl_subsurface *sub_sub;
	struct wp_viewport *sub_viewport;
	struct wl_buffer *sub_buffer;  /* the image of sub_serial, copied */
	uint32_t sub_serial;           /* 0: none made */
	bool sub_attached;
	bool sub_images;               /* drawn (umms_client_video_set_subtitles) */
	struct umms_layout_overlay sub_at; /* where it was placed last */
	void (*cue)(void *data, struct umms_client_video *video, const char *text);
	struct umms_client_subtitle_counts counts_sub;
};

/* buffer.c: the core's buffers, imported into the compositor (core.h's impl members). */
void client_buffer_import(struct umms_core_video *core, struct umms_core_buffer *buffer);
void client_buffer_free(struct umms_core_video *core, struct umms_core_buffer *buffer);
/*
 * Shows it (attach, viewport source from video->layout, damage, commit)
 * with presentation feedback for @serial. A dma-buf whose import is not
 * answered yet waits for the answer (video->waiting); any newer show
 * replaces a waiting one, which is reported discarded and released.
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

/* subtitles.c */
void client_subtitles_create(struct umms_client_video *video);
void client_subtitles_destroy(struct umms_client_video *video);
/*
 * Shows the core's subpicture (the one of the show being attached) over
 * the picture where video->layout puts it: a new image attached only when
 * its serial changed, a new place only when it moved; hidden when none.
 */
void client_subtitles_update(struct umms_client_video *video);

/* video.c */
/*
 * Size, position and viewport of both subsurfaces from video->in; @from_app:
 * an application's change, which in synchronized mode waits for its commit.
 */
void client_video_apply_layout(struct umms_client_video *video, bool from_app);
/* Sizes the bars for the layout and the picture's opacity (the bars' commit is the caller's). */
void client_video_size_bars(struct umms_client_video *video);

#endif
