/*
 * The seat's input devices (seat-private.h): libinput on the seat's udev
 * devices, opened in the session, its events fed to the umms_seat_notify_*
 * functions on the thread-default main context.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_SEAT

#include <errno.h>
#include <glib-unix.h>
#include <libinput.h>
#include <libudev.h>

#include "log.h"
#include "seat-private.h"
#include "session.h"
#include "source.h"

struct seat_input {
	struct umms_seat *seat;
	struct umms_session *session;
	struct libinput *libinput;
	GSource *source;
};

/* In the session: through libseat, or directly (root, or access to /dev/input). */
static int
open_restricted(const char *path, int flags, void *data)
{
	struct seat_input *input = data;
	GError *error = NULL;
	int fd = umms_session_open_device(input->session, path, &error);
	if (fd < 0) {
		int err = errno;
		umms_warn("cannot open input device %s", error->message);
		g_error_free(error);
		return -err;
	}
	return fd;
}

static void
close_restricted(int fd, void *data)
{
	umms_session_close_device(((struct seat_input *)data)->session, fd);
}

static const struct libinput_interface input_interface = {
	.open_restricted = open_restricted,
	.close_restricted = close_restricted,
};

static void G_GNUC_PRINTF(3, 0)
input_log(struct libinput *libinput, enum libinput_log_priority priority,
	const char *format, va_list args)
{
	seat_library_log("libinput", priority >= LIBINPUT_LOG_PRIORITY_ERROR, format, args);
}

static void
handle_event(struct umms_seat *seat, struct libinput_event *event)
{
	struct libinput_device *device = libinput_event_get_device(event);
	struct libinput_event_keyboard *key;
	struct libinput_event_pointer *pointer;
	switch (libinput_event_get_type(event)) {
	case LIBINPUT_EVENT_DEVICE_ADDED:
	case LIBINPUT_EVENT_DEVICE_REMOVED:
		umms_info("input device %s: %s (keyboard: %s, pointer: %s)",
			libinput_event_get_type(event) == LIBINPUT_EVENT_DEVICE_ADDED ?
				"added" : "removed", libinput_device_get_name(device),
			libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_KEYBOARD) ?
				"yes" : "no",
			libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_POINTER) ?
				"yes" : "no");
		break;
	case LIBINPUT_EVENT_KEYBOARD_KEY: {
		key = libinput_event_get_keyboard_event(event);
		bool pressed = libinput_event_keyboard_get_key_state(key) ==
			LIBINPUT_KEY_STATE_PRESSED;
		/* The same key on two devices: the seat presses it once, releases it last. */
		uint32_t count = libinput_event_keyboard_get_seat_key_count(key);
		if (count == (pressed ? 1 : 0))
			umms_seat_notify_key(seat, libinput_event_keyboard_get_time(key),
				libinput_event_keyboard_get_key(key), pressed);
		break;
	}
	case LIBINPUT_EVENT_POINTER_MOTION:
		pointer = libinput_event_get_pointer_event(event);
		umms_seat_notify_pointer_motion(seat, libinput_event_pointer_get_time(pointer),
			libinput_event_pointer_get_dx(pointer), libinput_event_pointer_get_dy(pointer));
		break;
	case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE: {
		int width, height;
		seat_get_output_size(seat, &width, &height);
		pointer = libinput_event_get_pointer_event(event);
		umms_seat_notify_pointer_absolute(seat, libinput_event_pointer_get_time(pointer),
			libinput_event_pointer_get_absolute_x_transformed(pointer, (uint32_t)width),
			libinput_event_pointer_get_absolute_y_transformed(pointer, (uint32_t)height));
		break;
	}
	case LIBINPUT_EVENT_POINTER_BUTTON: {
		pointer = libinput_event_get_pointer_event(event);
		bool pressed = libinput_event_pointer_get_button_state(pointer) ==
			LIBINPUT_BUTTON_STATE_PRESSED;
		uint32_t count = libinput_event_pointer_get_seat_button_count(pointer);
		if (count == (pressed ? 1 : 0))
			umms_seat_notify_button(seat, libinput_event_pointer_get_time(pointer),
				libinput_event_pointer_get_button(pointer), pressed);
		break;
	}
	/* The wheel, fingers and continuous scrolling; the older AXIS event repeats them. */
	case LIBINPUT_EVENT_POINTER_SCROLL_WHEEL:
	case LIBINPUT_EVENT_POINTER_SCROLL_FINGER:
	case LIBINPUT_EVENT_POINTER_SCROLL_CONTINUOUS:
		pointer = libinput_event_get_pointer_event(event);
		for (int h = 0; h < 2; h++) {
			enum libinput_pointer_axis axis = h ? LIBINPUT_POINTER_AXIS_SCROLL_HORIZONTAL
				: LIBINPUT_POINTER_AXIS_SCROLL_VERTICAL;
			if (libinput_event_pointer_has_axis(pointer, axis))
				umms_seat_notify_axis(seat, libinput_event_pointer_get_time(pointer),
					h, libinput_event_pointer_get_scroll_value(pointer, axis));
		}
		break;
	default:
		break;
	}
}

static gboolean
input_readable(int fd, GIOCondition condition, void *data)
{
	struct seat_input *input = data;
	if (libinput_dispatch(input->libinput) != 0)
		umms_warn("libinput: reading input events failed");
	struct libinput_event *event;
	while ((event = libinput_get_event(input->libinput))) {
		handle_event(input->seat, event);
		libinput_event_destroy(event);
	}
	return G_SOURCE_CONTINUE;
}

/* Devices, or none and a warning: never a reason for ummsd to fail. */
struct seat_input *
seat_input_start(struct umms_seat *seat, const char *name, struct umms_session *session)
{
	struct udev *udev = udev_new();
	if (!udev) {
		umms_warn("seat %s: no udev (%s); running without input devices", name,
			g_strerror(errno));
		return NULL;
	}
	struct seat_input *input = g_new0(struct seat_input, 1);
	input->seat = seat;
	input->session = session;
	input->libinput = libinput_udev_create_context(&input_interface, input, udev);
	udev_unref(udev);      /* libinput holds its own reference */
	if (!input->libinput) {
		umms_warn("seat %s: cannot create a libinput context; running without input devices",
			name);
		g_free(input);
		return NULL;
	}
	libinput_log_set_handler(input->libinput, input_log);
	libinput_log_set_priority(input->libinput, LIBINPUT_LOG_PRIORITY_ERROR);
	if (libinput_udev_assign_seat(input->libinput, name) != 0) {
		umms_warn("seat %s: libinput cannot enumerate the seat's devices (is udev "
			"running?); running without input devices", name);
		seat_input_stop(input);
		return NULL;
	}
	input->source = g_unix_fd_source_new(libinput_get_fd(input->libinput), G_IO_IN);
	g_source_set_callback(input->source, G_SOURCE_FUNC(input_readable), input, NULL);
	g_source_attach(input->source, g_main_context_get_thread_default());
	/* The devices found already are queued, and their fd may never wake us for them. */
	input_readable(-1, G_IO_IN, input);
	return input;
}

void
seat_input_stop(struct seat_input *input)
{
	if (!input)
		return;
	umms_source_clear(&input->source);
	libinput_unref(input->libinput);
	g_free(input);
}
