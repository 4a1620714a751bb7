/*
 * Subtitles as pixels: what a target draws over a frame's picture.
 *
 * A subpicture is one ARGB8888 image (premultiplied alpha, wl_shm's
 * ARGB8888 byte order: B, G, R, A in memory) in a sealed memfd, to be drawn
 * OVER the picture with its top-left corner at (x, y). x, y, width and
 * height are in the pixels of the picture it was made for (the frame's crop
 * area, picture_width x picture_height): a target scales and places it
 * exactly as it scales and places that picture, so subtitles stay inside
 * the video (and so inside overscan margins) on every target.
 *
 * Cues are rendered once: while what is shown stands, every frame carries
 * the same subpicture (the same serial), so a target that drew it last
 * time need neither redraw nor re-upload it. A new rendering gets a new
 * serial; serials are unique for the life of the process and never 0.
 *
 * Made by an engine (from a stream's overlay or from timed cues), on any
 * thread; filled through data while writable, then sealed with
 * umms_subpicture_seal() before anyone else sees it (writes and resizes
 * refused from then on, so a client may map the fd safely). References are
 * atomic: a subpicture rides on frames from the streaming thread to the main
 * loop. The last unref closes the memfd and unmaps it.
 */
#ifndef UMMS_SERVICE_SUBPICTURE_H
#define UMMS_SERVICE_SUBPICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

/* Larger images are refused: 8192 × 8192 pixels at most, either side. */
#define UMMS_SUBPICTURE_MAX_SIDE 8192

struct umms_subpicture {
	gint refs;
	uint64_t serial;
	int fd;                         /* sealed memfd: the pixels, stride × height bytes */
	size_t size;
	void *data;                     /* mapped: writable until sealed, read-only after */
	uint32_t stride;                /* bytes per row (width × 4) */
	int x, y, width, height;        /* in the picture's pixels; may reach outside it */
	int picture_width, picture_height;
};

/*
 * A transparent @width x @height image (every pixel 0) for a picture of
 * @picture_width x @picture_height; NULL with @error when a side is not
 * 1..UMMS_SUBPICTURE_MAX_SIDE or the memfd cannot be made.
 */
struct umms_subpicture *umms_subpicture_create(int width, int height, int picture_width,
	int picture_height, GError **error);
/* No more writes: seals the memfd (write, grow, shrink). */
bool umms_subpicture_seal(struct umms_subpicture *subpicture, GError **error);
/*
 * A subpicture made elsewhere (an engine worker), from its sealed memfd
 * (taken on success): checks the seals (no shrinking, no writing), the size
 * against stride × height and the sides, maps it read-only and gives it a
 * serial of this process. NULL with @error when anything is off.
 */
struct umms_subpicture *umms_subpicture_adopt(int fd, uint32_t stride, int x, int y,
	int width, int height, int picture_width, int picture_height, GError **error);
struct umms_subpicture *umms_subpicture_ref(struct umms_subpicture *subpicture);
/* NULL is a no-op. */
void umms_subpicture_unref(struct umms_subpicture *subpicture);

#endif
