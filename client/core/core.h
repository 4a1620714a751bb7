/*
 * The umms_video_v1 client core, shared by libumms-client (frames onto a
 * subsurface of the application's compositor) and libumms-client-gl (frames
 * as GL textures): a static library linked into both, never installed, no
 * symbol of it exported (-fvisibility=hidden).
 *
 * It speaks the protocol and nothing else:
 * - the connection (core.c): ummsd's socket and its umms_video_manager_v1,
 *   or a manager found on the application's own display (ummsd as the
 *   compositor); non-blocking dispatch;
 * - one player (core.c): path, failed, geometry, end-of-stream and error
 *   events passed on through struct umms_core_video_impl; presented and
 *   discarded answers; every show counted on its buffer;
 * - buffers (core-buffer.c): announced memory, its planes' fds checked
 *   against their size (a plane beyond the end of its memory, a size of
 *   zero, planes missing: the buffer is invalid, its shows discarded, and
 *   the library never sees it), shows released, the buffer forgotten when
 *   ummsd retired it and nothing holds it;
 * - the due-frame queue (core-queue.c): shows waiting for their time, the
 *   newest due one taken, the ones it supersedes discarded at once;
 * - subtitles (core-sub.c, version 4): a subpicture's memfd checked against
 *   its sizes before anything maps it (an image that fails is dropped, the
 *   one before it too), the one that stands in video->subpicture for the
 *   shows that follow (queued shows keep a reference), cue texts passed on.
 *
 * Frames are never copied or mapped here: fds go to the library as they
 * came, so a dma-buf reaches the compositor or EGL without a copy. A
 * library that must copy (a dma-buf its compositor refused, a memfd
 * uploaded into a texture) says so with UMMS_VIDEO_PLAYER_V1_PRESENTATION_
 * FLAGS_COPIED in presented, which ummsd counts in Stats copies.
 *
 * Lifetimes. A buffer lives from ummsd's buffer event until it is retired,
 * every show of it released and every hold dropped, or until its video is
 * destroyed; then the library's buffer_destroy frees it. The library's
 * buffer struct begins with struct umms_core_buffer (impl->buffer_size).
 */
#ifndef UMMS_CLIENT_CORE_H
#define UMMS_CLIENT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <wayland-client.h>

#include "umms-video-v1-client-protocol.h"

#define UMMS_CORE_MAX_PLANES 4
/* Shows waiting in a queue, at most (ummsd holds back at 8). */
#define UMMS_CORE_MAX_PENDING 16

/* ---- the connection ---------------------------------------------------------- */

struct umms_core {
	struct wl_display *display;   /* ummsd's socket, or the application's display */
	bool own_display;             /* connected here: disconnected at finish */
	struct umms_video_manager_v1 *manager;
};

/*
 * Connects to ummsd's socket @name (umms_socket_name) and binds its manager
 * at the highest version from @min_version to @max_version. False with
 * errno set (EPROTONOSUPPORT: no manager of such a version) and nothing held.
 */
bool umms_core_connect(struct umms_core *core, const char *name, uint32_t min_version,
	uint32_t max_version);
/* ummsd is the application's compositor: @manager was bound on @display. */
void umms_core_init_direct(struct umms_core *core, struct wl_display *display,
	struct umms_video_manager_v1 *manager);
/* Destroys the manager and, if connected here, disconnects. */
void umms_core_finish(struct umms_core *core);
/* Reads and dispatches what ummsd sent, without blocking; -1 on a broken connection. */
int umms_core_dispatch(struct umms_core *core);
void umms_core_flush(struct umms_core *core);

/* ---- time ------------------------------------------------------------------------ */

/* CLOCK_MONOTONIC now, in ns: the protocol's clock. */
int64_t umms_core_now_ns(void);
/* A time of @clock (a compositor's presentation clock) in CLOCK_MONOTONIC ns. */
int64_t umms_core_to_monotonic(clockid_t clock, int64_t when_ns);

/* ---- buffers --------------------------------------------------------------------- */

struct umms_core_video;

struct umms_core_buffer {
	struct umms_core_video *video;
	struct umms_video_buffer_v1 *proxy;
	uint32_t kind;                /* UMMS_VIDEO_BUFFER_V1_KIND_* */
	uint32_t format;              /* memfd: wl_shm format; dma-buf: DRM fourcc */
	int width, height;
	uint64_t modifier;
	int n_planes;
	int fds[UMMS_CORE_MAX_PLANES];           /* -1 once closed */
	uint32_t offsets[UMMS_CORE_MAX_PLANES], strides[UMMS_CORE_MAX_PLANES];
	size_t size;                  /* plane 0's memory, bytes (0: unknown) */
	bool valid;                   /* done came and every plane fits its memory */
	bool retired;
	unsigned shows;               /* shows not released to ummsd yet */
	unsigned holds;               /* the library's references (on screen, attached) */
	struct wl_list link;          /* umms_core_video.buffers; the library's after destroy */
};

/* Closes the buffer's fds (the compositor or EGL holds the memory now). */
void umms_core_buffer_close_fds(struct umms_core_buffer *buffer);
/* Releases up to @n shows to ummsd (UINT32_MAX: all); may forget the buffer. */
void umms_core_buffer_release(struct umms_core_buffer *buffer, unsigned n);
/* A reference of the library's: the buffer is not forgotten while held. */
void umms_core_buffer_hold(struct umms_core_buffer *buffer);
/* Drops one; may forget the buffer (it must not be used afterwards then). */
void umms_core_buffer_drop(struct umms_core_buffer *buffer);
/* Bytes per row and rows of plane @p of a @width x @height image of @format; false if unknown. */
bool umms_core_plane_size(uint32_t format, int p, int width, int height, size_t *row_bytes,
	size_t *rows);

/* ---- the player ------------------------------------------------------------------ */

/* The shape of frames from the last geometry event on. */
struct umms_core_geometry {
	int width, height;
	int crop_x, crop_y, crop_width, crop_height;
	unsigned par_n, par_d;        /* never 0 */
};

struct umms_core_counts {
	uint64_t received, presented, discarded;
	unsigned buffers;             /* held now */
	unsigned subpictures;         /* subtitle images received and accepted */
	unsigned subpictures_refused; /* refused: sizes beyond their memory */
};

/*
 * Subtitles to draw over the picture (umms_video_player_v1.subpicture):
 * @width x @height ARGB8888 premultiplied pixels, @stride bytes a row, at
 * @x, @y of a @picture_width x @picture_height picture. Its memory holds
 * @stride x @height bytes at least (checked); the same @serial, the same
 * pixels.
 */
struct umms_core_subpicture {
	int refs;
	uint32_t serial;
	int fd;                       /* -1 once closed */
	size_t size;                  /* of its memory */
	uint32_t stride;
	int x, y, width, height;
	int picture_width, picture_height;
	void *data;                   /* mapped by umms_core_subpicture_map, else NULL */
};

/* NULL is passed through (ref) or ignored (unref). */
struct umms_core_subpicture *umms_core_subpicture_ref(struct umms_core_subpicture *sub);
void umms_core_subpicture_unref(struct umms_core_subpicture *sub);
/* Its pixels, mapped read-only once (kept until the last unref); NULL if it cannot be. */
const void *umms_core_subpicture_map(struct umms_core_subpicture *sub);

/*
 * What the library does with the player's events; every member may be
 * NULL but buffer_size and buffer_destroy.
 */
struct umms_core_video_impl {
	size_t buffer_size;           /* its buffer struct, beginning with umms_core_buffer */
	void (*path)(struct umms_core_video *video, const char *path);
	void (*failed)(struct umms_core_video *video, const char *reason);
	/* video->geometry is the new shape. */
	void (*geometry)(struct umms_core_video *video);
	/* The buffer's planes came and were checked (only valid buffers). */
	void (*buffer_ready)(struct umms_core_video *video, struct umms_core_buffer *buffer);
	/*
	 * A show of a valid buffer, counted in buffer->shows: the library
	 * releases it (umms_core_buffer_release) and answers @serial
	 * (presented or discarded), now or later. Without a show member,
	 * every show is discarded at once.
	 */
	void (*show)(struct umms_core_video *video, struct umms_core_buffer *buffer,
		uint32_t serial, int64_t due_ns);
	/*
	 * The buffer is gone: off the list, its proxy destroyed, fds closed.
	 * The library drops what it made of it and frees it (now or later).
	 */
	void (*buffer_destroy)(struct umms_core_video *video, struct umms_core_buffer *buffer);
	void (*end_of_stream)(struct umms_core_video *video);
	/*
	 * Version 5: take the picture off (parental control blocked the
	 * player): drop queued shows, show nothing of it until the next show.
	 */
	void (*clear)(struct umms_core_video *video);
	/* The subtitle text that stands ("" for none), with text subtitles on. */
	void (*cue)(struct umms_core_video *video, const char *text);
	/* After the core's own handling (NotFound: shows forgotten, no more frames). */
	void (*error)(struct umms_core_video *video, const char *name, const char *message);
};

struct umms_core_video {
	struct umms_core *core;
	struct umms_video_player_v1 *player;
	const struct umms_core_video_impl *impl;
	void *data;                   /* the library's */
	char *path;
	struct umms_core_geometry geometry;
	bool have_geometry;
	/* The player failed or was destroyed: no frames will come. */
	bool gone;
	struct wl_list buffers;       /* umms_core_buffer.link */
	struct umms_core_counts counts;
	/* The subtitles of the shows from now on (NULL: none); the video's reference. */
	struct umms_core_subpicture *subpicture;
};

/* Attaches to @player_path, or creates a player owned by the connection (NULL). */
struct umms_core_video *umms_core_video_create(struct umms_core *core, const char *player_path,
	const struct umms_core_video_impl *impl, void *data);
/* Forgets every buffer (buffer_destroy each), then the player. NULL does nothing. */
void umms_core_video_destroy(struct umms_core_video *video);
/* Show @serial reached the screen at @when_ns (CLOCK_MONOTONIC). */
void umms_core_video_presented(struct umms_core_video *video, uint32_t serial, int64_t when_ns,
	uint32_t refresh_ns, uint32_t flags);
/* Show @serial never will; its buffer is released separately. */
void umms_core_video_discarded(struct umms_core_video *video, uint32_t serial);
/*
 * Which subtitles ummsd sends (UMMS_VIDEO_PLAYER_V1_SUBTITLES_*); nothing
 * before version 4. Turning images off drops the one that stands.
 */
void umms_core_video_set_subtitles(struct umms_core_video *video, uint32_t subtitles);
/* Frames no larger than @width x @height (0: the picture's); nothing before version 6. */
void umms_core_video_set_size(struct umms_core_video *video, int width, int height);
/* core-sub.c: a subpicture event (@fd owned); fd -1: subpicture_clear. */
void umms_core_video_set_subpicture(struct umms_core_video *video, int fd, uint32_t serial,
	int x, int y, int width, int height, uint32_t stride, int picture_width,
	int picture_height);
/* A show dropped at once: discarded, and its buffer released. */
void umms_core_video_skip(struct umms_core_video *video, struct umms_core_buffer *buffer,
	uint32_t serial);

/* core-buffer.c, for core.c */
struct umms_core_buffer *umms_core_buffer_create(struct umms_core_video *video,
	struct umms_video_buffer_v1 *proxy, uint32_t kind, uint32_t format, int width,
	int height, uint64_t modifier);
void umms_core_buffer_destroy(struct umms_core_buffer *buffer);

/* ---- the due-frame queue (core-queue.c) ----------------------------------------- */

struct umms_core_show {
	struct umms_core_buffer *buffer;
	uint32_t serial;
	int64_t due_ns;
	struct umms_core_geometry geometry;  /* the shape when it was shown */
	/* Its subtitles (a reference: unref it once taken), NULL for none. */
	struct umms_core_subpicture *subpicture;
};

struct umms_core_queue {
	struct umms_core_video *video;
	struct umms_core_show pending[UMMS_CORE_MAX_PENDING];  /* oldest first */
	int n_pending;
};

/*
 * Queues a show. A show due by now supersedes those before it: they are
 * discarded and released at once, so that a library that takes frames
 * rarely does not hold ummsd's memory (ummsd would skip frames meanwhile).
 * The oldest goes the same way when the queue is full.
 */
void umms_core_queue_push(struct umms_core_queue *queue, struct umms_core_buffer *buffer,
	uint32_t serial, int64_t due_ns);
/*
 * The newest show due by @target_ns in *@show, out of the queue (the
 * caller answers and releases it); the ones before it discarded. False if
 * none is due.
 */
bool umms_core_queue_take(struct umms_core_queue *queue, int64_t target_ns,
	struct umms_core_show *show);
/* Forgets every show without answering (ummsd took them back). */
void umms_core_queue_clear(struct umms_core_queue *queue);

#endif
