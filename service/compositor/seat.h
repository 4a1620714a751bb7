/*
 * The compositor's seat: one wl_seat global with a keyboard and a pointer,
 * fed by libinput.
 *
 * The seat always advertises the keyboard and pointer capabilities, devices
 * or not, so a TV remote (a keyboard to libinput) plugged in later works
 * without clients binding again. Touch is not advertised; get_touch gives an
 * inert object.
 *
 * Keyboard: one xkb keymap, compiled at creation from the configuration and
 * sent to every wl_keyboard (XKB_V1, a sealed memfd each client maps read
 * only), then repeat info (25 keys/s after 600 ms). Keys and modifiers go to
 * the surface given to umms_seat_set_keyboard_focus(); the compositor decides
 * focus, the seat only tracks it and drops it when that surface is destroyed.
 *
 * Pointer: a position in output coordinates, clamped to the output size.
 * Each move asks hooks->surface_at which surface is under it; enter, leave,
 * motion, button and axis events (and frame, wl_pointer v5+) go there. While
 * a button is held the pointer stays with the surface it was pressed on
 * (an implicit grab). Cursor surfaces from set_cursor are accepted but not
 * drawn: the KMS output shows no cursor yet.
 *
 * Input devices come from libinput on the udev seat config->name, dispatched
 * from the thread-default main context of the thread that created the seat.
 * If libinput cannot be set up (no udev, no permission on /dev/input) the
 * seat logs a warning and runs without devices; that is never an error.
 *
 * The seat runs on the thread of its wl_display: every function here is
 * called there.
 */
#ifndef UMMS_COMPOSITOR_SEAT_H
#define UMMS_COMPOSITOR_SEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

struct umms_seat;
struct umms_session;

struct umms_seat_hooks {
	/*
	 * The client surface under output point (x, y), with (*sx, *sy) set to
	 * that point in surface-local coordinates; NULL if none. Optional:
	 * without it the pointer never focuses a surface.
	 */
	struct wl_resource *(*surface_at)(void *data, double x, double y,
		double *sx, double *sy);
};

struct umms_seat_config {
	const char *name;          /* the wl_seat name and the udev seat: "seat0"; NULL: "seat0" */
	/* xkb rule names; NULL: rules "evdev", model "pc105", layout "us", no variant or options */
	const char *xkb_layout, *xkb_model, *xkb_variant, *xkb_options;
	bool input;                /* false: no libinput (tests, machines without devices) */
	struct umms_session *session; /* input devices are opened in it; NULL: directly */
};

/*
 * Creates the seat and its wl_seat global on @display. @hooks is copied;
 * @data is passed to the hooks. Fails (UMMS_ERROR_INVALID_ARGUMENT) only when
 * the keymap does not compile, e.g. an unknown layout.
 */
struct umms_seat *umms_seat_create(struct wl_display *display,
	const struct umms_seat_config *config, const struct umms_seat_hooks *hooks,
	void *data, GError **error);
/* Removes the global; clients' seat objects stay but go inert. NULL: nothing. */
void umms_seat_destroy(struct umms_seat *seat);

/*
 * The pointer's bounds: it moves within [0, width - 1] × [0, height - 1].
 * Until this is called both are 0 and the pointer stays at (0, 0).
 */
void umms_seat_set_output_size(struct umms_seat *seat, int width, int height);

/*
 * Gives the keyboard to @surface (a wl_surface resource), or to nobody with
 * NULL: leave to the old surface, then enter with the keys held now and the
 * current modifiers. Focus is dropped silently when the surface is destroyed.
 */
void umms_seat_set_keyboard_focus(struct umms_seat *seat, struct wl_resource *surface);
/* The surface with keyboard focus, NULL if none. */
struct wl_resource *umms_seat_get_keyboard_focus(struct umms_seat *seat);

/*
 * Input as if from a device: the libinput handlers call these, and so can
 * tests. Times are in milliseconds on any fixed base (libinput's is
 * CLOCK_MONOTONIC); keys and buttons are evdev codes (linux/input-event-codes.h);
 * motion is in output pixels; axis values are in the units of wl_pointer.axis
 * (about 15 per wheel notch).
 */
void umms_seat_notify_key(struct umms_seat *seat, uint32_t time_ms, uint32_t key, bool pressed);
void umms_seat_notify_pointer_motion(struct umms_seat *seat, uint32_t time_ms,
	double dx, double dy);
void umms_seat_notify_pointer_absolute(struct umms_seat *seat, uint32_t time_ms,
	double x, double y);
void umms_seat_notify_button(struct umms_seat *seat, uint32_t time_ms, uint32_t button,
	bool pressed);
void umms_seat_notify_axis(struct umms_seat *seat, uint32_t time_ms, bool horizontal,
	double value);

#endif
