/*
 * The session ummsd opens its devices in (the DRM card, input devices):
 * through libseat when a seat manager (seatd or logind) gives us a seat,
 * else directly with open(), which takes root or access to the nodes.
 *
 * Modes (config key [display] session):
 * - "libseat": a seat through libseat or an error. Only a seat manager
 *   outside ummsd counts: libseat's built-in seatd (its last resort, as
 *   root) is refused, since opening directly does the same without a
 *   forked server; when no seat manager seems to run, before libseat is
 *   asked (it would fork that server off ummsd, threads and all).
 * - "direct": open() only; the device's master is whoever opened it first.
 * - "auto" (NULL, ""): libseat when a seat manager runs (seatd answering
 *   on $SEATD_SOCK or /run/seatd.sock, or logind's
 *   /run/systemd/seats/seat0) and opens a seat, else direct.
 *
 * Devices opened either way are O_RDWR, O_CLOEXEC and O_NONBLOCK (what
 * libseat hands out), so their users behave the same in both.
 *
 * With a seat, a VT switch away disables it: events.active is emitted
 * with false (users stop touching their devices), then the seat is
 * released to the seat manager; when it comes back, events.active with
 * true (devices work again; the DRM state may have been changed by
 * whoever held it meanwhile). Without a seat the session is always
 * active. Seat events are read on the thread-default main context of the
 * thread that created the session.
 */
#ifndef UMMS_SERVICE_SESSION_H
#define UMMS_SERVICE_SESSION_H

#include <stdbool.h>
#include <glib.h>
#include <wayland-server-core.h>

struct umms_session_config {
	const char *mode;          /* "auto" (NULL, ""), "libseat" or "direct" */
};

struct umms_session {
	struct {
		struct wl_signal active;   /* data: bool *, the new state */
	} events;
};

/* Fails when @config's mode is unknown, or "libseat" finds no seat. */
struct umms_session *umms_session_create(const struct umms_session_config *config,
	GError **error);
/* Closes the devices still open and the seat. NULL is a no-op. */
void umms_session_destroy(struct umms_session *session);

/*
 * A file descriptor on @path, or -1 with @error naming @path (and errno
 * set). A NULL @session opens directly.
 */
int umms_session_open_device(struct umms_session *session, const char *path, GError **error);
/* Closes an fd umms_session_open_device() returned (with the same @session). */
void umms_session_close_device(struct umms_session *session, int fd);

bool umms_session_is_active(struct umms_session *session);
/* "libseat (seatd)", "libseat (logind)" or "direct". */
const char *umms_session_describe(struct umms_session *session);

#endif
