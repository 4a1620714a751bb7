/*
 * What the engine proxy's files share: the proxy itself, its settings
 * (engine-proxy-settings.c), its frames (engine-proxy-frames.c: what a
 * worker's FRAME messages become, with their fds cached by memory) and the
 * media it opens for a worker (engine-proxy-media.c). Private to them.
 */
#ifndef UMMS_SERVICE_ENGINE_PROXY_PRIVATE_H
#define UMMS_SERVICE_ENGINE_PROXY_PRIVATE_H

#include <stdint.h>
#include <glib.h>

#include "config.h"
#include "engine-proxy.h"
#include "engine-supervisor.h"
#include "engine.h"
#include "frame.h"
#include "ipc.h"

/* One piece of a worker's memory: its fds, kept while frames use it. */
struct proxy_memory {
	uint64_t id;             /* the worker's */
	int fds[UMMS_FRAME_MAX_PLANES];
	/* Bytes each fd was seen to hold: sealed against shrinking, never fewer. */
	uint64_t held[UMMS_FRAME_MAX_PLANES];
	int n_planes;
	int live;                /* frames using it now */
};

/* What frames keep of their worker: it outlives the engine while they live. */
struct proxy_link {
	int refs;
	struct umms_worker_process *process;
	uint64_t number;
	GHashTable *memory;      /* uint64_t id → struct proxy_memory * */
	struct umms_subpicture *subpicture; /* the last one, by the worker's serial */
	uint64_t subpicture_serial;
};

/* Takes the caller's reference to @process. */
struct proxy_link *umms_proxy_link_new(struct umms_worker_process *process);
void umms_proxy_link_unref(struct proxy_link *link);

/*
 * A frame from a worker's FRAME message, or NULL when anything in it is off
 * (the caller kills the worker). Takes the fds it keeps out of @message;
 * the frame's last unref sends RELEASE.
 */
struct umms_frame *umms_proxy_frame_from_message(struct proxy_link *link,
	struct umms_ipc_message *message);

/*
 * The media a sandboxed worker may read (engine-proxy-media.c). For a
 * local @uri (file:), *@fd is a new descriptor ummsd opened for the
 * worker: the file read-only, or for a playlist or manifest whose pieces
 * lie beside it (.m3u8, .m3u, .mpd) its folder (O_PATH); -1 for any other
 * URI. False with @error when the file cannot be opened.
 */
bool umms_proxy_media_fd(const char *uri, bool folder_allowed, int *fd, GError **error);
/* Whether this kernel has Landlock, so a worker can open only what it was given. */
bool umms_proxy_landlock(void);


/* The engine in ummsd that stands for a worker's (engine-proxy.c). */
struct proxy {
	struct umms_engine base;
	const struct umms_config *config;
	struct proxy_link *link;       /* the worker now, NULL for none */
	const struct umms_engine_impl *real; /* what the worker runs (by URI) */
	char *uri;               /* open in the worker */
	bool lost;               /* the worker died with the media open */
	bool link_opened;        /* the worker has had an OPEN: it is sandboxed... */
	bool link_network;       /* ...with the network allowed or not */
	bool hold_status;        /* until settled: statuses sent before a stop are stale */
	struct umms_ipc_status status;
	int64_t pending_seek;    /* µs, -1 for none */
	unsigned outstanding;    /* requests not yet settled */
	bool opening;
	int64_t busy_since;      /* µs, monotonic */
	GQueue out;              /* struct queued: requests not sent yet */
	GSource *flush;
	GSource *watchdog;
	struct umms_worker_watch watch;

	/* Settings, kept for a fresh worker. */
	double volume;
	bool mute;
	bool video_wanted;
	uint32_t *formats;
	size_t n_formats;
	bool dmabuf_set, dmabuf_any;
	struct umms_frame_dmabuf_format *dmabuf;
	size_t n_dmabuf;
	unsigned max_width, max_height; /* set_video_size; 0: the picture's */
	int64_t video_delay, subtitle_delay;
	bool codecs_set;
	char **codecs;
	bool blocked;            /* set_blocked: frames and cues still on their way are dropped */
};

static inline struct proxy *
proxy_from(struct umms_engine *base)
{
	g_assert(base->impl == &umms_engine_proxy_impl);
	struct proxy *proxy = wl_container_of(base, proxy, base);
	return proxy;
}

/* Sends request @type with @w's payload to the worker, or queues it for the next. */
void umms_proxy_send_request(struct proxy *proxy, uint32_t type, struct umms_ipc_writer *w);

/* The settings a worker is told and a fresh one told again (engine-proxy-settings.c). */
void umms_proxy_set_volume(struct umms_engine *base, double volume, bool mute);
bool umms_proxy_set_video_output(struct umms_engine *base, bool wanted,
	const uint32_t *formats, size_t n, GError **error);
void umms_proxy_set_video_size(struct umms_engine *base, unsigned max_width,
	unsigned max_height);
void umms_proxy_set_video_dmabuf(struct umms_engine *base, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n);
void umms_proxy_set_video_delay(struct umms_engine *base, int64_t ns);
void umms_proxy_set_subtitle_delay(struct umms_engine *base, int64_t us);
void umms_proxy_set_hardware_codecs(struct umms_engine *base, const char *const *codecs);
void umms_proxy_set_blocked(struct umms_engine *base, bool blocked);

#endif
