/*
 * Keys for the demos (demo-keys.h): the seat's wl_keyboard and xkbcommon.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "demo-keys.h"

struct demo_keys {
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;  /* NULL while the seat has none */
	struct xkb_context *xkb;
	struct xkb_state *state;       /* NULL until the keymap came */
	demo_key_fn pressed;
	void *data;
};

/*
 * Keys arrive as evdev codes; the compositor sends its keymap (an fd to
 * map), and xkbcommon turns code + modifiers into a symbol.
 */
static void
keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd,
	uint32_t size)
{
	struct demo_keys *keys = data;
	char *text = format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 ?
		mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (text == MAP_FAILED)
		return;
	struct xkb_keymap *keymap = xkb_keymap_new_from_string(keys->xkb, text,
		XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(text, size);
	if (!keymap)
		return;
	xkb_state_unref(keys->state);
	keys->state = xkb_state_new(keymap);
	xkb_keymap_unref(keymap); /* the state keeps it */
}

static void
keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
	uint32_t key, uint32_t state)
{
	struct demo_keys *keys = data;
	/* Presses only; xkb codes are evdev codes + 8 (an X11 legacy). */
	if (keys->state && state == WL_KEYBOARD_KEY_STATE_PRESSED)
		keys->pressed(keys->data, xkb_state_key_get_one_sym(keys->state, key + 8));
}

static void
keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t depressed,
	uint32_t latched, uint32_t locked, uint32_t group)
{
	struct demo_keys *keys = data;
	if (keys->state)
		xkb_state_update_mask(keys->state, depressed, latched, locked, 0, 0, group);
}

/* Events we ignore still need a function each. */
static void
keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface, struct wl_array *pressed)
{
}

static void
keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface)
{
}

static void
keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = keyboard_keymap,
	.enter = keyboard_enter,
	.leave = keyboard_leave,
	.key = keyboard_key,
	.modifiers = keyboard_modifiers,
	.repeat_info = keyboard_repeat_info,
};

static void
release_keyboard(struct demo_keys *keys)
{
	if (!keys->keyboard)
		return;
	if (wl_keyboard_get_version(keys->keyboard) >= WL_KEYBOARD_RELEASE_SINCE_VERSION)
		wl_keyboard_release(keys->keyboard);
	else
		wl_keyboard_destroy(keys->keyboard);
	keys->keyboard = NULL;
}

/* A seat may have a keyboard or not, and gain or lose one at any time. */
static void
seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities)
{
	struct demo_keys *keys = data;
	bool has_keyboard = capabilities & WL_SEAT_CAPABILITY_KEYBOARD;
	if (has_keyboard && !keys->keyboard) {
		keys->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(keys->keyboard, &keyboard_listener, keys);
	} else if (!has_keyboard) {
		release_keyboard(keys);
	}
}

static void
seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

struct demo_keys *
demo_keys_create(struct wl_seat *seat, demo_key_fn pressed, void *data)
{
	struct demo_keys *keys = calloc(1, sizeof(*keys));
	if (!keys)
		abort();
	keys->seat = seat;
	keys->pressed = pressed;
	keys->data = data;
	keys->xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	wl_seat_add_listener(seat, &seat_listener, keys);
	return keys;
}

void
demo_keys_destroy(struct demo_keys *keys)
{
	if (!keys)
		return;
	release_keyboard(keys);
	wl_seat_destroy(keys->seat);
	xkb_state_unref(keys->state);
	xkb_context_unref(keys->xkb);
	free(keys);
}
