/*
 * The zwp_linux_dmabuf_v1 global of ummsd's compositor, version 4 with
 * feedback: clients learn which formats and modifiers the screen takes
 * (and which of them scan out), then make wl_buffers of their dma-bufs.
 *
 * Feedback. The compositor describes what it takes as tranches, best
 * first: the target device, whether the tranche scans out, the format +
 * modifier pairs. The union of every tranche's pairs is the format table,
 * a sealed memfd shared by all feedback objects; each tranche is sent as
 * indices into it. umms_dmabuf_set_feedback() replaces it (a new table,
 * never a changed one) and resends it to every bound feedback object.
 * Clients binding version 1 or 2 get one `format` event per format of the
 * table, version 3 one `modifier` event per pair. With no main device
 * (0: the headless screen has none) the global stops at version 3.
 *
 * Buffers. `create_params` and its `add`, `create`, `create_immed` make
 * wl_buffers; a client's mistake (plane index over 3 or set twice, planes
 * missing, a format + modifier pair not in the table, a size of zero, a
 * plane beyond the end of its dma-buf where the size can be read) is a
 * protocol error of zwp_linux_buffer_params_v1, as the protocol names them,
 * and only that client is disconnected. Import itself is not tried here:
 * the compositor imports when it uses the buffer, and a later import
 * failure is never a protocol error.
 *
 * Lifetimes. The wl_buffer owns the plane fds and closes them when the
 * client destroys it or disconnects, after emitting events.destroy (the
 * compositor's listeners remove themselves there). wl_buffer.release is the
 * compositor's to send. Everything a client made is freed when it goes.
 * umms_dmabuf_destroy() removes the global; objects clients already hold
 * stay valid (buffers) or inert (feedback, params: `create` then fails).
 * Destroy it before the wl_display.
 *
 * Per-surface feedback: get_surface_feedback answers the default feedback
 * for now. A compositor that wants its own per surface (a surface on an
 * overlay plane, say) needs the surface kept on the feedback object (see
 * `struct feedback_object` in dmabuf.c) and a setter taking the surface.
 */
#ifndef UMMS_SERVICE_COMPOSITOR_DMABUF_H
#define UMMS_SERVICE_COMPOSITOR_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>
#include <wayland-server-core.h>

/* One DRM fourcc with one modifier (DRM_FORMAT_MOD_INVALID: implicit). */
struct umms_dmabuf_format {
	uint32_t format;
	uint64_t modifier;
};

struct umms_dmabuf_tranche {
	dev_t device;                   /* target device */
	bool scanout;                   /* ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT */
	const struct umms_dmabuf_format *formats;
	size_t n_formats;               /* at least one */
};

struct umms_dmabuf_feedback {
	dev_t main_device;
	const struct umms_dmabuf_tranche *tranches;   /* best first */
	size_t n_tranches;                            /* at least one */
};

struct umms_dmabuf;

/*
 * Creates the global on @display with @feedback (copied: the caller's
 * arrays may go afterwards). Fails on empty tranches, more than 65536
 * distinct pairs (indices are 16 bits) or when the table cannot be made.
 */
struct umms_dmabuf *umms_dmabuf_create(struct wl_display *display,
	const struct umms_dmabuf_feedback *feedback, GError **error);

/* Removes the global and frees its state. NULL does nothing. */
void umms_dmabuf_destroy(struct umms_dmabuf *dmabuf);

/*
 * Replaces the default feedback (e.g. when planes change); resent to every
 * bound feedback object. On failure the previous feedback stays.
 * Buffers are checked against the table in force when `create` comes.
 */
bool umms_dmabuf_set_feedback(struct umms_dmabuf *dmabuf,
	const struct umms_dmabuf_feedback *feedback, GError **error);

/* A dma-buf wl_buffer made by this module. All members are read-only. */
struct umms_dmabuf_buffer {
	int32_t width, height;
	uint32_t format;
	uint64_t modifier;
	uint32_t flags;                 /* zwp_linux_buffer_params_v1 flags */
	int n_planes;
	int fds[4];                     /* owned by the buffer; -1 past n_planes */
	uint32_t offsets[4], strides[4];
	struct wl_resource *resource;   /* the wl_buffer */

	struct {
		struct wl_signal destroy;   /* data: this buffer; fds still open */
	} events;
};

/* The buffer behind a wl_buffer made by this module, or NULL if @buffer is not one. */
struct umms_dmabuf_buffer *umms_dmabuf_buffer_from_resource(struct wl_resource *buffer);

#endif
