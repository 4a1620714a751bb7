/*
 * The wl_seat: keyboard and pointer state and what clients are told
 * (seat.h); the libinput devices that feed it are in seat-input.c.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_SEAT

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon.h>
#include <wayland-server-protocol.h>

#include "data-device.h"
#include "error.h"
#include "log.h"
#include "seat-private.h"

#define SEAT_VERSION 7
#define REPEAT_RATE 25             /* keys per second */
#define REPEAT_DELAY 600           /* ms before the first repeat */
#define XKB_EVDEV_OFFSET 8         /* xkb keycodes are evdev codes + 8 */

struct modifiers {
	uint32_t depressed, latched, locked, group;
};

struct focus {
	struct wl_resource *surface;
	struct wl_listener destroy;
};

struct umms_seat {
	struct wl_display *display;
	struct wl_global *global;
	struct wl_global *data_device_manager;  /* data-device.h: no clipboard */
	char *name;
	struct umms_seat_hooks hooks;
	void *data;

	/* Clients' objects, by wl_resource_get_link(); user data is the seat. */
	struct wl_list seats, keyboards, pointers;

	struct {
		struct xkb_context *context;
		struct xkb_keymap *keymap;
		struct xkb_state *state;
		int fd;            /* the keymap text, sealed */
		size_t size;
		struct wl_array keys;      /* uint32_t evdev codes held now */
		struct modifiers mods;     /* as last sent */
		struct focus focus;
	} keyboard;

	struct {
		double x, y;               /* output coordinates */
		double sx, sy;             /* in the focused surface */
		double origin_x, origin_y; /* the focused surface's origin, for the grab */
		struct wl_array buttons;   /* uint32_t held now */
		struct focus focus;
	} pointer;
	int width, height;

	struct seat_input *input;      /* the devices, NULL: none */
};

/* A set of uint32_t in a wl_array; both return whether it changed. */
static bool
set_add(struct wl_array *set, uint32_t value)
{
	uint32_t *v;
	wl_array_for_each(v, set) {
		if (*v == value)
			return false;
	}
	*(uint32_t *)wl_array_add(set, sizeof(value)) = value;
	return true;
}

static bool
set_remove(struct wl_array *set, uint32_t value)
{
	uint32_t *v;
	wl_array_for_each(v, set) {
		if (*v == value) {
			uint32_t *last = (uint32_t *)((char *)set->data + set->size) - 1;
			*v = *last;
			set->size -= sizeof(value);
			return true;
		}
	}
	return false;
}

/* Points @focus at @surface (or nothing), following the surface's lifetime. */
static void
focus_set(struct focus *focus, struct wl_resource *surface)
{
	wl_list_remove(&focus->destroy.link);
	wl_list_init(&focus->destroy.link);
	focus->surface = surface;
	if (surface)
		wl_resource_add_destroy_listener(surface, &focus->destroy);
}

/* A focused surface destroyed: its client is told nothing, the surface (or the client) is gone. */
static void
focus_destroyed(struct wl_listener *listener, void *data)
{
	struct focus *focus = wl_container_of(listener, focus, destroy);
	focus_set(focus, NULL);
}

static struct wl_client *
focus_client(const struct focus *focus)
{
	return focus->surface ? wl_resource_get_client(focus->surface) : NULL;
}

static void
unlink_resource(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void
destroy_resource(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

/* Keyboard */

/*
 * The keymap text in a sealed memfd: it can be neither written nor resized,
 * so one fd serves every client, each mapping it read-only.
 */
static bool
keymap_fd_create(struct umms_seat *seat, GError **error)
{
	char *text = xkb_keymap_get_as_string(seat->keyboard.keymap, XKB_KEYMAP_FORMAT_TEXT_V1);
	size_t size = text ? strlen(text) + 1 : 0;
	int fd = text ? memfd_create("umms-keymap", MFD_CLOEXEC | MFD_ALLOW_SEALING) : -1;
	if (fd < 0)
		goto fail;
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, text + done, size - done);
		if (n < 0 && errno != EINTR)
			goto fail;
		done += n > 0 ? (size_t)n : 0;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		goto fail;
	free(text);
	seat->keyboard.fd = fd;
	seat->keyboard.size = size;
	return true;

fail:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
		"cannot put the keymap in shared memory: %s", text ? g_strerror(errno) : "no text");
	if (fd >= 0)
		close(fd);
	free(text);
	return false;
}

void
seat_library_log(const char *library, bool error, const char *format, va_list args)
{
	char *message = g_strchomp(g_strdup_vprintf(format, args));
	if (error)
		umms_warn("%s: %s", library, message);
	else
		umms_debug("%s: %s", library, message);
	g_free(message);
}

static void G_GNUC_PRINTF(3, 0)
xkb_log(struct xkb_context *context, enum xkb_log_level level, const char *format,
	va_list args)
{
	seat_library_log("xkbcommon", level <= XKB_LOG_LEVEL_ERROR, format, args);
}

static bool
keymap_compile(struct umms_seat *seat, const struct umms_seat_config *config, GError **error)
{
	/* Names come from our configuration only, never from XKB_DEFAULT_* variables. */
	seat->keyboard.context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES);
	if (!seat->keyboard.context) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot create an xkb context");
		return false;
	}
	xkb_context_set_log_fn(seat->keyboard.context, xkb_log);
	const struct xkb_rule_names names = {
		.rules = "evdev",
		.model = config->xkb_model ? config->xkb_model : "pc105",
		.layout = config->xkb_layout ? config->xkb_layout : "us",
		.variant = config->xkb_variant ? config->xkb_variant : "",
		.options = config->xkb_options ? config->xkb_options : "",
	};
	seat->keyboard.keymap = xkb_keymap_new_from_names(seat->keyboard.context, &names,
		XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (!seat->keyboard.keymap) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"keyboard layout \"%s\" (model \"%s\", variant \"%s\", options \"%s\") "
			"does not compile", names.layout, names.model, names.variant, names.options);
		return false;
	}
	seat->keyboard.state = xkb_state_new(seat->keyboard.keymap);
	return keymap_fd_create(seat, error);
}

/*
 * To the focused client's keyboards (only @only if not NULL: a keyboard
 * made while its client has focus): enter with the keys held, if @enter,
 * then the modifiers.
 */
static void
send_keyboard_focus(struct umms_seat *seat, struct wl_resource *only, bool enter)
{
	struct wl_client *client = focus_client(&seat->keyboard.focus);
	const struct modifiers *m = &seat->keyboard.mods;
	uint32_t serial = wl_display_next_serial(seat->display);
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->keyboards) {
		if (wl_resource_get_client(resource) != client || (only && resource != only))
			continue;
		if (enter)
			wl_keyboard_send_enter(resource, serial, seat->keyboard.focus.surface,
				&seat->keyboard.keys);
		wl_keyboard_send_modifiers(resource, serial, m->depressed, m->latched,
			m->locked, m->group);
	}
}

void
umms_seat_set_keyboard_focus(struct umms_seat *seat, struct wl_resource *surface)
{
	struct focus *focus = &seat->keyboard.focus;
	if (surface == focus->surface)
		return;
	if (focus->surface) {
		struct wl_client *client = focus_client(focus);
		uint32_t serial = wl_display_next_serial(seat->display);
		struct wl_resource *resource;
		wl_resource_for_each(resource, &seat->keyboards) {
			if (wl_resource_get_client(resource) == client)
				wl_keyboard_send_leave(resource, serial, focus->surface);
		}
	}
	focus_set(focus, surface);
	if (surface)
		send_keyboard_focus(seat, NULL, true);
}

struct wl_resource *
umms_seat_get_keyboard_focus(struct umms_seat *seat)
{
	return seat->keyboard.focus.surface;
}

/* Sends the modifiers to the focused client if xkb says they changed. */
static void
update_modifiers(struct umms_seat *seat)
{
	struct xkb_state *state = seat->keyboard.state;
	struct modifiers now = {
		.depressed = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED),
		.latched = xkb_state_serialize_mods(state, XKB_STATE_MODS_LATCHED),
		.locked = xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED),
		.group = xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE),
	};
	if (memcmp(&now, &seat->keyboard.mods, sizeof(now)) == 0)
		return;
	seat->keyboard.mods = now;
	if (seat->keyboard.focus.surface)
		send_keyboard_focus(seat, NULL, false);
}

void
umms_seat_notify_key(struct umms_seat *seat, uint32_t time_ms, uint32_t key, bool pressed)
{
	/* A second press of a held key, or the release of a key held before we started. */
	if (!(pressed ? set_add : set_remove)(&seat->keyboard.keys, key))
		return;
	xkb_state_update_key(seat->keyboard.state, key + XKB_EVDEV_OFFSET,
		pressed ? XKB_KEY_DOWN : XKB_KEY_UP);
	struct wl_client *client = focus_client(&seat->keyboard.focus);
	if (client) {
		uint32_t serial = wl_display_next_serial(seat->display);
		uint32_t state = pressed ? WL_KEYBOARD_KEY_STATE_PRESSED
			: WL_KEYBOARD_KEY_STATE_RELEASED;
		struct wl_resource *resource;
		wl_resource_for_each(resource, &seat->keyboards) {
			if (wl_resource_get_client(resource) == client)
				wl_keyboard_send_key(resource, serial, time_ms, key, state);
		}
	}
	update_modifiers(seat);
}

static const struct wl_keyboard_interface keyboard_impl = {
	.release = destroy_resource,
};

/* Pointer */

static void
send_pointer_frame(struct umms_seat *seat, struct wl_client *client)
{
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->pointers) {
		if (wl_resource_get_client(resource) == client &&
				wl_resource_get_version(resource) >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(resource);
	}
}

static void
send_pointer_enter(struct umms_seat *seat, struct wl_resource *only)
{
	struct wl_client *client = focus_client(&seat->pointer.focus);
	uint32_t serial = wl_display_next_serial(seat->display);
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->pointers) {
		if (wl_resource_get_client(resource) != client || (only && resource != only))
			continue;
		wl_pointer_send_enter(resource, serial, seat->pointer.focus.surface,
			wl_fixed_from_double(seat->pointer.sx), wl_fixed_from_double(seat->pointer.sy));
		if (wl_resource_get_version(resource) >= WL_POINTER_FRAME_SINCE_VERSION)
			wl_pointer_send_frame(resource);
	}
}

static void
pointer_set_focus(struct umms_seat *seat, struct wl_resource *surface)
{
	struct focus *focus = &seat->pointer.focus;
	if (focus->surface) {
		struct wl_client *client = focus_client(focus);
		uint32_t serial = wl_display_next_serial(seat->display);
		struct wl_resource *resource;
		wl_resource_for_each(resource, &seat->pointers) {
			if (wl_resource_get_client(resource) == client)
				wl_pointer_send_leave(resource, serial, focus->surface);
		}
		send_pointer_frame(seat, client);
	}
	focus_set(focus, surface);
	if (surface)
		send_pointer_enter(seat, NULL);
}

/*
 * Finds the surface under the pointer and moves focus there (leave, enter)
 * if it changed; returns whether it did. While a button is held, the surface
 * it was pressed on keeps the pointer wherever it goes (an implicit grab).
 */
static bool
pointer_refocus(struct umms_seat *seat)
{
	struct wl_resource *surface = seat->pointer.focus.surface;
	double sx = 0, sy = 0;
	if (surface && seat->pointer.buttons.size > 0) {
		sx = seat->pointer.x - seat->pointer.origin_x;
		sy = seat->pointer.y - seat->pointer.origin_y;
	} else if (seat->hooks.surface_at) {
		surface = seat->hooks.surface_at(seat->data, seat->pointer.x, seat->pointer.y,
			&sx, &sy);
	} else {
		surface = NULL;
	}
	seat->pointer.sx = sx;
	seat->pointer.sy = sy;
	seat->pointer.origin_x = seat->pointer.x - sx;
	seat->pointer.origin_y = seat->pointer.y - sy;
	if (surface == seat->pointer.focus.surface)
		return false;
	pointer_set_focus(seat, surface);
	return true;
}

/* After a move: enter the surface now under the pointer, or motion on the one that has it. */
static void
pointer_moved(struct umms_seat *seat, uint32_t time_ms)
{
	struct wl_client *client = focus_client(&seat->pointer.focus);
	if (pointer_refocus(seat) || !client)
		return;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->pointers) {
		if (wl_resource_get_client(resource) == client)
			wl_pointer_send_motion(resource, time_ms,
				wl_fixed_from_double(seat->pointer.sx),
				wl_fixed_from_double(seat->pointer.sy));
	}
	send_pointer_frame(seat, client);
}

static double
clamp(double value, int size)
{
	double max = size > 0 ? size - 1 : 0;
	return value < 0 ? 0 : value > max ? max : value;
}

void
umms_seat_notify_pointer_absolute(struct umms_seat *seat, uint32_t time_ms, double x, double y)
{
	seat->pointer.x = clamp(x, seat->width);
	seat->pointer.y = clamp(y, seat->height);
	pointer_moved(seat, time_ms);
}

void
umms_seat_notify_pointer_motion(struct umms_seat *seat, uint32_t time_ms, double dx, double dy)
{
	umms_seat_notify_pointer_absolute(seat, time_ms, seat->pointer.x + dx, seat->pointer.y + dy);
}

void
umms_seat_notify_button(struct umms_seat *seat, uint32_t time_ms, uint32_t button, bool pressed)
{
	if (!(pressed ? set_add : set_remove)(&seat->pointer.buttons, button))
		return;
	struct wl_client *client = focus_client(&seat->pointer.focus);
	if (client) {
		uint32_t serial = wl_display_next_serial(seat->display);
		uint32_t state = pressed ? WL_POINTER_BUTTON_STATE_PRESSED
			: WL_POINTER_BUTTON_STATE_RELEASED;
		struct wl_resource *resource;
		wl_resource_for_each(resource, &seat->pointers) {
			if (wl_resource_get_client(resource) == client)
				wl_pointer_send_button(resource, serial, time_ms, button, state);
		}
		send_pointer_frame(seat, client);
	}
	/* The grab ended: the pointer may be over another surface by now. */
	if (!pressed && seat->pointer.buttons.size == 0)
		pointer_refocus(seat);
}

void
umms_seat_notify_axis(struct umms_seat *seat, uint32_t time_ms, bool horizontal, double value)
{
	struct wl_client *client = focus_client(&seat->pointer.focus);
	uint32_t axis = horizontal ? WL_POINTER_AXIS_HORIZONTAL_SCROLL
		: WL_POINTER_AXIS_VERTICAL_SCROLL;
	if (!client)
		return;
	struct wl_resource *resource;
	wl_resource_for_each(resource, &seat->pointers) {
		if (wl_resource_get_client(resource) != client)
			continue;
		/* A zero value is the end of a finger scroll, which v5 clients are told. */
		if (value == 0 && wl_resource_get_version(resource) >= WL_POINTER_AXIS_STOP_SINCE_VERSION)
			wl_pointer_send_axis_stop(resource, time_ms, axis);
		else if (value != 0)
			wl_pointer_send_axis(resource, time_ms, axis, wl_fixed_from_double(value));
	}
	send_pointer_frame(seat, client);
}

void
seat_get_output_size(struct umms_seat *seat, int *width, int *height)
{
	*width = seat->width, *height = seat->height;
}

void
umms_seat_set_output_size(struct umms_seat *seat, int width, int height)
{
	seat->width = width;
	seat->height = height;
	seat->pointer.x = clamp(seat->pointer.x, width);
	seat->pointer.y = clamp(seat->pointer.y, height);
}

/* Accepted, not drawn: the KMS output has no cursor plane in use yet. */
static void
pointer_set_cursor(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
	struct wl_resource *surface, int32_t hotspot_x, int32_t hotspot_y)
{
}

static const struct wl_pointer_interface pointer_impl = {
	.set_cursor = pointer_set_cursor,
	.release = destroy_resource,
};

/* Touch is never advertised: its objects exist for clients that ask anyway. */
static const struct wl_touch_interface touch_impl = {
	.release = destroy_resource,
};

/* wl_seat */

static struct wl_resource *
create_device(struct wl_client *client, struct wl_resource *seat_resource, uint32_t id,
	const struct wl_interface *interface, const void *impl, struct wl_list *list)
{
	struct wl_resource *resource = wl_resource_create(client, interface,
		wl_resource_get_version(seat_resource), id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	struct umms_seat *seat = list ? wl_resource_get_user_data(seat_resource) : NULL;
	wl_resource_set_implementation(resource, impl, seat, unlink_resource);
	/* Even unlisted, the link must be one: the destroy handler removes it. */
	wl_list_init(wl_resource_get_link(resource));
	if (list)
		wl_list_insert(list, wl_resource_get_link(resource));
	return resource;
}

static void
seat_get_pointer(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *pointer = create_device(client, resource, id, &wl_pointer_interface,
		&pointer_impl, seat ? &seat->pointers : NULL);
	if (pointer && seat && focus_client(&seat->pointer.focus) == client)
		send_pointer_enter(seat, pointer);
}

static void
seat_get_keyboard(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_seat *seat = wl_resource_get_user_data(resource);
	struct wl_resource *keyboard = create_device(client, resource, id, &wl_keyboard_interface,
		&keyboard_impl, seat ? &seat->keyboards : NULL);
	if (!keyboard || !seat)
		return;
	wl_keyboard_send_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1,
		seat->keyboard.fd, (uint32_t)seat->keyboard.size);
	if (wl_resource_get_version(keyboard) >= WL_KEYBOARD_REPEAT_INFO_SINCE_VERSION)
		wl_keyboard_send_repeat_info(keyboard, REPEAT_RATE, REPEAT_DELAY);
	if (focus_client(&seat->keyboard.focus) == client)
		send_keyboard_focus(seat, keyboard, true);
}

static void
seat_get_touch(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	create_device(client, resource, id, &wl_touch_interface, &touch_impl, NULL);
}

static const struct wl_seat_interface seat_impl = {
	.get_pointer = seat_get_pointer,
	.get_keyboard = seat_get_keyboard,
	.get_touch = seat_get_touch,
	.release = destroy_resource,
};

static void
seat_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct umms_seat *seat = data;
	struct wl_resource *resource = wl_resource_create(client, &wl_seat_interface, version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &seat_impl, seat, unlink_resource);
	wl_list_insert(&seat->seats, wl_resource_get_link(resource));
	/* Always both: a remote plugged in later needs no new capabilities event. */
	wl_seat_send_capabilities(resource,
		WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD);
	if (version >= WL_SEAT_NAME_SINCE_VERSION)
		wl_seat_send_name(resource, seat->name);
}

/* The seat */

struct umms_seat *
umms_seat_create(struct wl_display *display, const struct umms_seat_config *config,
	const struct umms_seat_hooks *hooks, void *data, GError **error)
{
	struct umms_seat *seat = g_new0(struct umms_seat, 1);
	seat->display = display;
	seat->name = g_strdup(config->name ? config->name : "seat0");
	if (hooks)
		seat->hooks = *hooks;
	seat->data = data;
	wl_list_init(&seat->seats);
	wl_list_init(&seat->keyboards);
	wl_list_init(&seat->pointers);
	wl_array_init(&seat->keyboard.keys);
	wl_array_init(&seat->pointer.buttons);
	seat->keyboard.focus.destroy.notify = seat->pointer.focus.destroy.notify = focus_destroyed;
	wl_list_init(&seat->keyboard.focus.destroy.link);
	wl_list_init(&seat->pointer.focus.destroy.link);
	seat->keyboard.fd = -1;

	if (!keymap_compile(seat, config, error))
		goto fail;
	seat->global = wl_global_create(display, &wl_seat_interface, SEAT_VERSION, seat, seat_bind);
	seat->data_device_manager = umms_data_device_manager_create(display);
	if (!seat->global || !seat->data_device_manager) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot create the wl_seat global");
		goto fail;
	}
	if (config->input)
		seat->input = seat_input_start(seat, seat->name, config->session);
	return seat;

fail:
	umms_seat_destroy(seat);
	return NULL;
}

/* Leaves clients' objects in place, inert: their requests find no seat. */
static void
orphan_resources(struct wl_list *list)
{
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, list) {
		wl_resource_set_user_data(resource, NULL);
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
	}
}

void
umms_seat_destroy(struct umms_seat *seat)
{
	if (!seat)
		return;
	seat_input_stop(seat->input);
	if (seat->global)
		wl_global_destroy(seat->global);
	if (seat->data_device_manager)
		wl_global_destroy(seat->data_device_manager);
	orphan_resources(&seat->seats);
	orphan_resources(&seat->keyboards);
	orphan_resources(&seat->pointers);
	focus_set(&seat->keyboard.focus, NULL);
	focus_set(&seat->pointer.focus, NULL);
	if (seat->keyboard.fd >= 0)
		close(seat->keyboard.fd);
	xkb_state_unref(seat->keyboard.state);     /* each takes NULL */
	xkb_keymap_unref(seat->keyboard.keymap);
	xkb_context_unref(seat->keyboard.context);
	wl_array_release(&seat->keyboard.keys);
	wl_array_release(&seat->pointer.buttons);
	g_free(seat->name);
	g_free(seat);
}
