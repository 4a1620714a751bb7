/*
 * The compositor's seat, seen by Wayland clients: capabilities, the keymap,
 * keyboard focus and keys, modifiers, the pointer and its bounds, and what
 * happens when surfaces and clients go away.
 *
 * The server (a wl_display with the seat and a bare wl_compositor made here)
 * and the clients (libwayland-client over socketpairs) run in this one
 * thread: roundtrip() turns both until the client's sync comes back.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/input-event-codes.h>
#include <glib.h>
#include <wayland-client.h>
#include <wayland-server.h>

#include "error.h"
#include "harness.h"
#include "seat.h"

/* Where the test's surface sits on the output: surface coordinates are offset by this. */
#define ORIGIN 5.0

struct server {
	struct wl_display *display;
	struct wl_global *compositor;
	struct umms_seat *seat;
	struct wl_resource *last_surface;  /* the surface a client made last */
	struct wl_resource *hover;         /* what surface_at answers, anywhere */
};

enum event_kind {
	SEEN_KB_ENTER, SEEN_KB_LEAVE, SEEN_KEY, SEEN_MODIFIERS,
	SEEN_PTR_ENTER, SEEN_PTR_LEAVE, SEEN_MOTION, SEEN_BUTTON, SEEN_AXIS, SEEN_FRAME,
};

struct event {
	enum event_kind kind;
	uint32_t serial, code, state;      /* key or button, its state; axis: which */
	uint32_t mods_depressed;
	double x, y;                       /* enter, motion: surface coords; axis: x = value */
	struct wl_surface *surface;
	guint nkeys;
	uint32_t keys[8];
};

struct client {
	struct wl_display *display;
	struct wl_client *server_side;
	bool gone;
	struct wl_listener destroy;
	struct wl_registry *registry;
	struct wl_compositor *compositor;
	struct wl_seat *seat;
	struct wl_keyboard *keyboard;
	struct wl_pointer *pointer;
	uint32_t capabilities;
	char *name;
	uint32_t keymap_format;
	char *keymap;
	bool keymap_writable;              /* a shared writable mapping was allowed */
	int32_t repeat_rate, repeat_delay;
	GArray *events;
};

/* Server: a wl_compositor that makes bare surfaces */

static struct server server;

static void
surface_gone(struct wl_resource *resource)
{
	if (server.hover == resource)
		server.hover = NULL;
}

static void
surface_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_surface_interface surface_impl = {
	.destroy = surface_destroy,
};

static void
compositor_create_surface(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *surface = wl_resource_create(client, &wl_surface_interface,
		wl_resource_get_version(resource), id);
	wl_resource_set_implementation(surface, &surface_impl, NULL, surface_gone);
	server.last_surface = surface;
}

static const struct wl_compositor_interface compositor_impl = {
	.create_surface = compositor_create_surface,
};

static void
compositor_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_compositor_interface,
		version, id);
	wl_resource_set_implementation(resource, &compositor_impl, NULL, NULL);
}

static struct wl_resource *
surface_at(void *data, double x, double y, double *sx, double *sy)
{
	g_assert_true(data == &server);
	*sx = x - ORIGIN;
	*sy = y - ORIGIN;
	return server.hover;
}

static const struct umms_seat_hooks hooks = { .surface_at = surface_at };

static void
server_start(void)
{
	memset(&server, 0, sizeof(server));
	server.display = wl_display_create();
	server.compositor = wl_global_create(server.display, &wl_compositor_interface, 4, NULL,
		compositor_bind);
	const struct umms_seat_config config = { .name = "seat0" };
	GError *error = NULL;
	server.seat = umms_seat_create(server.display, &config, &hooks, &server, &error);
	g_assert_no_error(error);
	g_assert_nonnull(server.seat);
	umms_seat_set_output_size(server.seat, 100, 50);
}

static void
server_stop(void)
{
	umms_seat_destroy(server.seat);
	wl_display_destroy_clients(server.display);
	wl_global_destroy(server.compositor);
	wl_display_destroy(server.display);
}

/* Client: records what it is told */

static struct event *
record(struct client *c, enum event_kind kind, uint32_t serial)
{
	struct event ev = { .kind = kind, .serial = serial };
	g_array_append_val(c->events, ev);
	return &g_array_index(c->events, struct event, c->events->len - 1);
}

static void
keyboard_keymap(void *data, struct wl_keyboard *keyboard, uint32_t format, int32_t fd,
	uint32_t size)
{
	struct client *c = data;
	c->keymap_format = format;
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	g_assert_true(map != MAP_FAILED);
	g_free(c->keymap);
	c->keymap = g_strndup(map, size);
	munmap(map, size);
	void *shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	c->keymap_writable = shared != MAP_FAILED;
	if (shared != MAP_FAILED)
		munmap(shared, size);
	close(fd);
}

static void
keyboard_enter(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface, struct wl_array *keys)
{
	struct event *ev = record(data, SEEN_KB_ENTER, serial);
	ev->surface = surface;
	uint32_t *key;
	wl_array_for_each(key, keys) {
		g_assert_cmpuint(ev->nkeys, <, G_N_ELEMENTS(ev->keys));
		ev->keys[ev->nkeys++] = *key;
	}
}

static void
keyboard_leave(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	struct wl_surface *surface)
{
	record(data, SEEN_KB_LEAVE, serial)->surface = surface;
}

static void
keyboard_key(void *data, struct wl_keyboard *keyboard, uint32_t serial, uint32_t time,
	uint32_t key, uint32_t state)
{
	struct event *ev = record(data, SEEN_KEY, serial);
	ev->code = key;
	ev->state = state;
}

static void
keyboard_modifiers(void *data, struct wl_keyboard *keyboard, uint32_t serial,
	uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group)
{
	struct event *ev = record(data, SEEN_MODIFIERS, serial);
	ev->mods_depressed = depressed;
}

static void
keyboard_repeat_info(void *data, struct wl_keyboard *keyboard, int32_t rate, int32_t delay)
{
	struct client *c = data;
	c->repeat_rate = rate;
	c->repeat_delay = delay;
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
pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
	struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	struct event *ev = record(data, SEEN_PTR_ENTER, serial);
	ev->surface = surface;
	ev->x = wl_fixed_to_double(x);
	ev->y = wl_fixed_to_double(y);
}

static void
pointer_leave(void *data, struct wl_pointer *pointer, uint32_t serial,
	struct wl_surface *surface)
{
	record(data, SEEN_PTR_LEAVE, serial)->surface = surface;
}

static void
pointer_motion(void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x,
	wl_fixed_t y)
{
	struct event *ev = record(data, SEEN_MOTION, 0);
	ev->x = wl_fixed_to_double(x);
	ev->y = wl_fixed_to_double(y);
}

static void
pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
	uint32_t button, uint32_t state)
{
	struct event *ev = record(data, SEEN_BUTTON, serial);
	ev->code = button;
	ev->state = state;
}

static void
pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis,
	wl_fixed_t value)
{
	struct event *ev = record(data, SEEN_AXIS, 0);
	ev->code = axis;
	ev->x = wl_fixed_to_double(value);
}

static void
pointer_frame(void *data, struct wl_pointer *pointer)
{
	record(data, SEEN_FRAME, 0);
}

static void
pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}

static void
pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis)
{
}

static void
pointer_axis_discrete(void *data, struct wl_pointer *pointer, uint32_t axis, int32_t discrete)
{
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
};

static void
seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities)
{
	((struct client *)data)->capabilities = capabilities;
}

static void
seat_name(void *data, struct wl_seat *seat, const char *name)
{
	struct client *c = data;
	g_free(c->name);
	c->name = g_strdup(name);
}

static const struct wl_seat_listener seat_listener = {
	.capabilities = seat_capabilities,
	.name = seat_name,
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	struct client *c = data;
	if (strcmp(interface, wl_seat_interface.name) == 0) {
		g_assert_cmpuint(version, ==, 7);
		c->seat = wl_registry_bind(registry, name, &wl_seat_interface, version);
		wl_seat_add_listener(c->seat, &seat_listener, c);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		c->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	}
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void
sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

/* Turns the server and @c until everything either sent has arrived. */
static void
roundtrip(struct client *c)
{
	bool done = false;
	wl_callback_add_listener(wl_display_sync(c->display), &sync_listener, &done);
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!done) {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		wl_display_flush(c->display);
		wl_event_loop_dispatch(wl_display_get_event_loop(server.display), 0);
		wl_display_flush_clients(server.display);
		if (wl_display_prepare_read(c->display) == 0) {
			struct pollfd pfd = { .fd = wl_display_get_fd(c->display), .events = POLLIN };
			if (poll(&pfd, 1, 10) > 0)
				g_assert_cmpint(wl_display_read_events(c->display), ==, 0);
			else
				wl_display_cancel_read(c->display);
		}
		g_assert_cmpint(wl_display_dispatch_pending(c->display), >=, 0);
	}
	g_assert_cmpint(wl_display_get_error(c->display), ==, 0);
}

static void
client_destroyed(struct wl_listener *listener, void *data)
{
	struct client *c = wl_container_of(listener, c, destroy);
	c->gone = true;
}

/* A client with the seat bound, its keyboard and pointer, all initial events in. */
static struct client *
client_connect(void)
{
	struct client *c = g_new0(struct client, 1);
	c->events = g_array_new(FALSE, TRUE, sizeof(struct event));
	int fds[2];
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
	c->server_side = wl_client_create(server.display, fds[0]);
	g_assert_nonnull(c->server_side);
	c->destroy.notify = client_destroyed;
	wl_client_add_destroy_listener(c->server_side, &c->destroy);
	c->display = wl_display_connect_to_fd(fds[1]);
	g_assert_nonnull(c->display);
	c->registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(c->registry, &registry_listener, c);
	roundtrip(c);
	g_assert_nonnull(c->seat);
	g_assert_nonnull(c->compositor);
	c->keyboard = wl_seat_get_keyboard(c->seat);
	wl_keyboard_add_listener(c->keyboard, &keyboard_listener, c);
	c->pointer = wl_seat_get_pointer(c->seat);
	wl_pointer_add_listener(c->pointer, &pointer_listener, c);
	roundtrip(c);
	return c;
}

/* Makes a surface; returns it, and the server's resource for it in @resource. */
static struct wl_surface *
client_surface(struct client *c, struct wl_resource **resource)
{
	struct wl_surface *surface = wl_compositor_create_surface(c->compositor);
	roundtrip(c);
	*resource = server.last_surface;
	g_assert_nonnull(*resource);
	g_assert_true(wl_resource_get_client(*resource) == c->server_side);
	return surface;
}

/* Hangs up; returns once the server has noticed. */
static void
client_disconnect(struct client *c)
{
	/* The proxies still held, freed here only: the server cleans up after a client. */
	struct wl_proxy *proxies[] = {
		(struct wl_proxy *)c->keyboard, (struct wl_proxy *)c->pointer,
		(struct wl_proxy *)c->seat, (struct wl_proxy *)c->compositor,
		(struct wl_proxy *)c->registry,
	};
	for (size_t i = 0; i < G_N_ELEMENTS(proxies); i++) {
		if (proxies[i])
			wl_proxy_destroy(proxies[i]);
	}
	wl_display_disconnect(c->display);
	gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!c->gone) {
		g_assert_cmpint(g_get_monotonic_time(), <, deadline);
		wl_event_loop_dispatch(wl_display_get_event_loop(server.display), 10);
	}
	g_array_unref(c->events);
	g_free(c->keymap);
	g_free(c->name);
	g_free(c);
}

/* The events since the last call, then forgets them. */
static GArray *
take_events(struct client *c)
{
	GArray *events = c->events;
	c->events = g_array_new(FALSE, TRUE, sizeof(struct event));
	return events;
}

#define EVENT(events, i) (&g_array_index((events), struct event, (i)))

/* Tests */

static void
test_capabilities(void)
{
	server_start();
	struct client *c = client_connect();
	g_assert_cmpuint(c->capabilities, ==,
		WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_POINTER);
	g_assert_cmpstr(c->name, ==, "seat0");
	g_assert_cmpuint(c->keymap_format, ==, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1);
	g_assert_nonnull(strstr(c->keymap, "xkb_keymap"));
	/* Sealed: no client can change the keymap the others read. */
	g_assert_false(c->keymap_writable);
	g_assert_cmpint(c->repeat_rate, ==, 25);
	g_assert_cmpint(c->repeat_delay, ==, 600);
	/* Touch is not advertised, but asking for it is harmless. */
	struct wl_touch *touch = wl_seat_get_touch(c->seat);
	roundtrip(c);
	wl_touch_release(touch);
	roundtrip(c);

	/* The seat goes before its client does: the client's objects stay, inert. */
	umms_seat_destroy(server.seat);
	server.seat = NULL;
	struct wl_keyboard *keyboard = wl_seat_get_keyboard(c->seat);
	wl_pointer_set_cursor(c->pointer, 0, NULL, 0, 0);
	wl_keyboard_release(keyboard);
	wl_keyboard_release(c->keyboard);
	c->keyboard = NULL;
	wl_seat_release(c->seat);
	c->seat = NULL;
	roundtrip(c);
	client_disconnect(c);
	server_stop();
}

static void
test_keyboard(void)
{
	server_start();
	struct client *c = client_connect();
	struct wl_resource *resource;
	struct wl_surface *surface = client_surface(c, &resource);

	/* Without focus, keys go nowhere, but they are remembered. */
	umms_seat_notify_key(server.seat, 1, KEY_A, true);
	roundtrip(c);
	g_assert_cmpuint(c->events->len, ==, 0);

	umms_seat_set_keyboard_focus(server.seat, resource);
	g_assert_true(umms_seat_get_keyboard_focus(server.seat) == resource);
	roundtrip(c);
	g_autoptr(GArray) enter = take_events(c);
	g_assert_cmpuint(enter->len, ==, 2);
	g_assert_cmpint(EVENT(enter, 0)->kind, ==, SEEN_KB_ENTER);
	g_assert_true(EVENT(enter, 0)->surface == surface);
	g_assert_cmpuint(EVENT(enter, 0)->nkeys, ==, 1);
	g_assert_cmpuint(EVENT(enter, 0)->keys[0], ==, KEY_A);
	g_assert_cmpint(EVENT(enter, 1)->kind, ==, SEEN_MODIFIERS);
	g_assert_cmpuint(EVENT(enter, 1)->mods_depressed, ==, 0);

	/* Release and press again: the state each time, serials growing. */
	umms_seat_notify_key(server.seat, 2, KEY_A, false);
	umms_seat_notify_key(server.seat, 3, KEY_A, true);
	umms_seat_notify_key(server.seat, 3, KEY_A, true);  /* held already: nothing new */
	roundtrip(c);
	g_autoptr(GArray) keys = take_events(c);
	g_assert_cmpuint(keys->len, ==, 2);
	g_assert_cmpint(EVENT(keys, 0)->kind, ==, SEEN_KEY);
	g_assert_cmpuint(EVENT(keys, 0)->code, ==, KEY_A);
	g_assert_cmpuint(EVENT(keys, 0)->state, ==, WL_KEYBOARD_KEY_STATE_RELEASED);
	g_assert_cmpuint(EVENT(keys, 1)->code, ==, KEY_A);
	g_assert_cmpuint(EVENT(keys, 1)->state, ==, WL_KEYBOARD_KEY_STATE_PRESSED);
	g_assert_cmpuint(EVENT(keys, 0)->serial, >, EVENT(enter, 0)->serial);
	g_assert_cmpuint(EVENT(keys, 1)->serial, >, EVENT(keys, 0)->serial);
	umms_seat_notify_key(server.seat, 4, KEY_A, false);

	/* Shift: the key, then the modifiers that changed, then back. */
	umms_seat_notify_key(server.seat, 5, KEY_LEFTSHIFT, true);
	umms_seat_notify_key(server.seat, 6, KEY_LEFTSHIFT, false);
	roundtrip(c);
	g_autoptr(GArray) shift = take_events(c);
	g_assert_cmpuint(shift->len, ==, 5);
	g_assert_cmpint(EVENT(shift, 1)->kind, ==, SEEN_KEY);
	g_assert_cmpuint(EVENT(shift, 1)->code, ==, KEY_LEFTSHIFT);
	g_assert_cmpint(EVENT(shift, 2)->kind, ==, SEEN_MODIFIERS);
	g_assert_cmpuint(EVENT(shift, 2)->mods_depressed, !=, 0);
	g_assert_cmpint(EVENT(shift, 3)->kind, ==, SEEN_KEY);
	g_assert_cmpint(EVENT(shift, 4)->kind, ==, SEEN_MODIFIERS);
	g_assert_cmpuint(EVENT(shift, 4)->mods_depressed, ==, 0);

	/* Focus to nobody: leave, then silence. */
	umms_seat_set_keyboard_focus(server.seat, NULL);
	umms_seat_notify_key(server.seat, 9, KEY_B, true);
	umms_seat_notify_key(server.seat, 10, KEY_B, false);
	roundtrip(c);
	g_autoptr(GArray) leave = take_events(c);
	g_assert_cmpuint(leave->len, ==, 1);
	g_assert_cmpint(EVENT(leave, 0)->kind, ==, SEEN_KB_LEAVE);
	g_assert_true(EVENT(leave, 0)->surface == surface);

	/* A keyboard made while its client has focus gets enter at once. */
	umms_seat_set_keyboard_focus(server.seat, resource);
	struct wl_keyboard *second = wl_seat_get_keyboard(c->seat);
	wl_keyboard_add_listener(second, &keyboard_listener, c);
	roundtrip(c);
	g_autoptr(GArray) both = take_events(c);
	guint entered = 0;
	for (guint i = 0; i < both->len; i++)
		entered += EVENT(both, i)->kind == SEEN_KB_ENTER;
	g_assert_cmpuint(entered, ==, 2);
	wl_keyboard_release(second);

	wl_surface_destroy(surface);
	client_disconnect(c);
	server_stop();
}

/* The focused surface goes: no dangling focus, keys go nowhere, nothing breaks. */
static void
test_focus_destroyed(void)
{
	server_start();
	struct client *c = client_connect();
	struct wl_resource *resource;
	struct wl_surface *surface = client_surface(c, &resource);
	umms_seat_set_keyboard_focus(server.seat, resource);
	server.hover = resource;
	umms_seat_notify_pointer_absolute(server.seat, 1, 10, 10);
	roundtrip(c);
	g_array_set_size(c->events, 0);

	wl_surface_destroy(surface);
	roundtrip(c);
	g_assert_null(umms_seat_get_keyboard_focus(server.seat));
	umms_seat_notify_key(server.seat, 2, KEY_A, true);
	umms_seat_notify_key(server.seat, 3, KEY_A, false);
	umms_seat_notify_pointer_motion(server.seat, 4, 1, 1);
	umms_seat_notify_button(server.seat, 5, BTN_LEFT, true);
	umms_seat_notify_button(server.seat, 6, BTN_LEFT, false);
	roundtrip(c);
	g_assert_cmpuint(c->events->len, ==, 0);

	/* Its client goes too, with a new focused surface: the same. */
	surface = client_surface(c, &resource);
	umms_seat_set_keyboard_focus(server.seat, resource);
	wl_proxy_destroy((struct wl_proxy *)surface);  /* here only: the server keeps it */
	client_disconnect(c);
	g_assert_null(umms_seat_get_keyboard_focus(server.seat));
	umms_seat_notify_key(server.seat, 7, KEY_A, true);
	server_stop();
}

static void
test_pointer(void)
{
	server_start();
	struct client *c = client_connect();
	struct wl_resource *resource;
	struct wl_surface *surface = client_surface(c, &resource);
	server.hover = resource;

	umms_seat_notify_pointer_absolute(server.seat, 1, 10, 20);
	roundtrip(c);
	g_autoptr(GArray) enter = take_events(c);
	g_assert_cmpuint(enter->len, ==, 2);
	g_assert_cmpint(EVENT(enter, 0)->kind, ==, SEEN_PTR_ENTER);
	g_assert_true(EVENT(enter, 0)->surface == surface);
	g_assert_cmpfloat(EVENT(enter, 0)->x, ==, 10 - ORIGIN);
	g_assert_cmpfloat(EVENT(enter, 0)->y, ==, 20 - ORIGIN);
	g_assert_cmpint(EVENT(enter, 1)->kind, ==, SEEN_FRAME);

	umms_seat_notify_pointer_motion(server.seat, 2, 1.5, -2);
	umms_seat_notify_button(server.seat, 3, BTN_LEFT, true);
	umms_seat_notify_button(server.seat, 4, BTN_LEFT, false);
	umms_seat_notify_axis(server.seat, 5, false, 15);
	roundtrip(c);
	g_autoptr(GArray) moved = take_events(c);
	g_assert_cmpuint(moved->len, ==, 8);
	g_assert_cmpint(EVENT(moved, 0)->kind, ==, SEEN_MOTION);
	g_assert_cmpfloat(EVENT(moved, 0)->x, ==, 11.5 - ORIGIN);
	g_assert_cmpfloat(EVENT(moved, 0)->y, ==, 18 - ORIGIN);
	g_assert_cmpint(EVENT(moved, 1)->kind, ==, SEEN_FRAME);
	g_assert_cmpint(EVENT(moved, 2)->kind, ==, SEEN_BUTTON);
	g_assert_cmpuint(EVENT(moved, 2)->code, ==, BTN_LEFT);
	g_assert_cmpuint(EVENT(moved, 2)->state, ==, WL_POINTER_BUTTON_STATE_PRESSED);
	g_assert_cmpint(EVENT(moved, 4)->kind, ==, SEEN_BUTTON);
	g_assert_cmpuint(EVENT(moved, 4)->state, ==, WL_POINTER_BUTTON_STATE_RELEASED);
	g_assert_cmpuint(EVENT(moved, 4)->serial, >, EVENT(moved, 2)->serial);
	g_assert_cmpint(EVENT(moved, 6)->kind, ==, SEEN_AXIS);
	g_assert_cmpuint(EVENT(moved, 6)->code, ==, WL_POINTER_AXIS_VERTICAL_SCROLL);
	g_assert_cmpfloat(EVENT(moved, 6)->x, ==, 15);

	/* The output is 100×50: the pointer stops at its edges. */
	umms_seat_notify_pointer_motion(server.seat, 6, 1000, 1000);
	umms_seat_notify_pointer_absolute(server.seat, 7, -30, -30);
	roundtrip(c);
	g_autoptr(GArray) clamped = take_events(c);
	g_assert_cmpuint(clamped->len, ==, 4);
	g_assert_cmpfloat(EVENT(clamped, 0)->x, ==, 99 - ORIGIN);
	g_assert_cmpfloat(EVENT(clamped, 0)->y, ==, 49 - ORIGIN);
	g_assert_cmpfloat(EVENT(clamped, 2)->x, ==, -ORIGIN);
	g_assert_cmpfloat(EVENT(clamped, 2)->y, ==, -ORIGIN);

	/* A held button keeps the pointer with its surface; released, it leaves. */
	umms_seat_notify_button(server.seat, 8, BTN_RIGHT, true);
	server.hover = NULL;
	umms_seat_notify_pointer_absolute(server.seat, 9, 40, 40);
	roundtrip(c);
	g_autoptr(GArray) grab = take_events(c);
	g_assert_cmpuint(grab->len, ==, 4);
	g_assert_cmpint(EVENT(grab, 2)->kind, ==, SEEN_MOTION);
	g_assert_cmpfloat(EVENT(grab, 2)->x, ==, 40 - ORIGIN);
	umms_seat_notify_button(server.seat, 10, BTN_RIGHT, false);
	roundtrip(c);
	g_autoptr(GArray) left = take_events(c);
	g_assert_cmpuint(left->len, ==, 4);
	g_assert_cmpint(EVENT(left, 0)->kind, ==, SEEN_BUTTON);
	g_assert_cmpint(EVENT(left, 2)->kind, ==, SEEN_PTR_LEAVE);
	g_assert_true(EVENT(left, 2)->surface == surface);
	g_assert_cmpint(EVENT(left, 3)->kind, ==, SEEN_FRAME);

	/* Cursors are accepted (and not drawn). */
	wl_pointer_set_cursor(c->pointer, EVENT(enter, 0)->serial, NULL, 0, 0);
	roundtrip(c);

	wl_surface_destroy(surface);
	client_disconnect(c);
	server_stop();
}

/* Two clients: focus moves between them; one leaving costs no fds. */
static void
test_two_clients(void)
{
	server_start();
	struct client *a = client_connect();
	struct wl_resource *resource_a;
	struct wl_surface *surface_a = client_surface(a, &resource_a);
	umms_seat_set_keyboard_focus(server.seat, resource_a);
	roundtrip(a);
	g_array_set_size(a->events, 0);

	unsigned fds = umms_test_fd_count();
	struct client *b = client_connect();
	g_assert_cmpuint(b->capabilities, ==,
		WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_POINTER);
	g_assert_nonnull(strstr(b->keymap, "xkb_keymap"));
	struct wl_resource *resource_b;
	struct wl_surface *surface_b = client_surface(b, &resource_b);
	umms_seat_set_keyboard_focus(server.seat, resource_b);
	umms_seat_notify_key(server.seat, 1, KEY_ENTER, true);
	roundtrip(a);
	roundtrip(b);
	g_assert_cmpuint(a->events->len, ==, 1);
	g_assert_cmpint(EVENT(a->events, 0)->kind, ==, SEEN_KB_LEAVE);
	g_assert_cmpuint(b->events->len, ==, 3);
	g_assert_cmpint(EVENT(b->events, 0)->kind, ==, SEEN_KB_ENTER);
	g_assert_cmpint(EVENT(b->events, 2)->kind, ==, SEEN_KEY);
	g_assert_cmpuint(EVENT(b->events, 2)->code, ==, KEY_ENTER);

	/* Gone with its focused surface still there. */
	wl_proxy_destroy((struct wl_proxy *)surface_b);
	client_disconnect(b);
	g_assert_null(umms_seat_get_keyboard_focus(server.seat));
	g_assert_cmpuint(umms_test_fd_count(), ==, fds);

	/* Back to a, holding Enter since b had it. */
	umms_seat_set_keyboard_focus(server.seat, resource_a);
	roundtrip(a);
	g_assert_cmpuint(a->events->len, ==, 3);
	g_assert_cmpint(EVENT(a->events, 1)->kind, ==, SEEN_KB_ENTER);
	g_assert_cmpuint(EVENT(a->events, 1)->nkeys, ==, 1);
	g_assert_cmpuint(EVENT(a->events, 1)->keys[0], ==, KEY_ENTER);

	wl_surface_destroy(surface_a);
	client_disconnect(a);
	server_stop();
}

/* A layout that does not exist is an error; input devices that cannot be had are not. */
static void
test_create(void)
{
	struct wl_display *display = wl_display_create();
	const struct umms_seat_config config = { .xkb_layout = "no-such-layout" };
	GError *error = NULL;
	g_assert_null(umms_seat_create(display, &config, NULL, NULL, &error));
	g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "no-such-layout"));
	g_clear_error(&error);

	/*
	 * With libinput: wherever this runs (no udev daemon, no /dev/input, no
	 * permission), creation succeeds; at worst the seat has no devices.
	 */
	GMainContext *context = g_main_context_new();
	g_main_context_push_thread_default(context);
	const struct umms_seat_config input = { .name = "seat0", .input = true };
	struct umms_seat *seat = umms_seat_create(display, &input, NULL, NULL, &error);
	g_assert_no_error(error);
	g_assert_nonnull(seat);
	while (g_main_context_iteration(context, FALSE))
		;
	umms_seat_destroy(seat);
	wl_display_destroy(display);
	g_main_context_pop_thread_default(context);
	g_main_context_unref(context);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/seat/capabilities", test_capabilities);
	g_test_add_func("/seat/keyboard", test_keyboard);
	g_test_add_func("/seat/focus-destroyed", test_focus_destroyed);
	g_test_add_func("/seat/pointer", test_pointer);
	g_test_add_func("/seat/two-clients", test_two_clients);
	g_test_add_func("/seat/create", test_create);
	return g_test_run();
}
