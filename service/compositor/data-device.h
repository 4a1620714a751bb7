/*
 * wl_data_device_manager for ummsd's compositor: the global toolkits look
 * for before they make a seat of their own (GTK, and so Chromium's Wayland
 * backend, makes none without it).
 *
 * The compositor keeps no clipboard and runs no drag and drop: a kiosk has
 * one application on screen and nothing to exchange data with. The
 * protocol allows that: a selection or drag that is not taken up is
 * cancelled, and "no selection" is a state every client handles. So:
 * - a data source offered as the selection (wl_data_device.set_selection)
 *   is told at once that it is not the selection any more (cancelled);
 * - a drag (wl_data_device.start_drag) is cancelled at once, its source
 *   told so; a drag with no source (inside one client) just never starts;
 * - no wl_data_offer is ever made, so no data is transferred and no file
 *   descriptor from a client is kept.
 * Protocol misuse (an invalid action mask, actions set twice, a source
 * with actions used as a selection, a source used twice) is a protocol
 * error, as the protocol says.
 */
#ifndef UMMS_COMPOSITOR_DATA_DEVICE_H
#define UMMS_COMPOSITOR_DATA_DEVICE_H

#include <wayland-server-core.h>

/* The wl_data_device_manager global on @display; NULL if it cannot be made. */
struct wl_global *umms_data_device_manager_create(struct wl_display *display);

#endif
