/*
 * Keys for the demos: a seat's keyboard (remote controls are keyboards
 * too), its keymap from the compositor, and each key press turned into a
 * symbol (XKB_KEY_space) for the demo to act on. No repeat.
 *
 * Create it as soon as the wl_seat is bound (in the registry handler): the
 * seat says what it has right after the bind.
 */
#ifndef UMMS_DEMO_KEYS_H
#define UMMS_DEMO_KEYS_H

#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>

struct demo_keys;

typedef void (*demo_key_fn)(void *data, xkb_keysym_t sym);

/* Takes @seat (destroyed with it); calls @pressed for every key pressed. */
struct demo_keys *demo_keys_create(struct wl_seat *seat, demo_key_fn pressed, void *data);
/* NULL is a no-op. */
void demo_keys_destroy(struct demo_keys *keys);

#endif
