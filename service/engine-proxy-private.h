/*
 * The engine proxy's frames (engine-proxy-frames.c): what a worker's FRAME
 * messages become, with their fds cached by memory. Private to
 * engine-proxy.c.
 */
#ifndef UMMS_SERVICE_ENGINE_PROXY_PRIVATE_H
#define UMMS_SERVICE_ENGINE_PROXY_PRIVATE_H

#include <stdint.h>
#include <glib.h>

#include "engine-supervisor.h"
#include "frame.h"
#include "ipc.h"

/* One piece of a worker's memory: its fds, kept while frames use it. */
struct proxy_memory {
	uint64_t id;             /* the worker's */
	int fds[UMMS_FRAME_MAX_PLANES];
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


#endif
