/*
 * The kiosk's parental PIN entry (kiosk-pin.h): Player1's ContentBlocked
 * and ContentAllowed signals in, Parental1.Unlock out, a row of slots
 * drawn. All in GLib's default main context, which the kiosk's loop runs.
 */
#include <stdarg.h>
#include <string.h>

#include "kiosk-pin.h"

#define SERVICE "org.umms.Service1"
#define MAX_DIGITS 8
#define MIN_DIGITS 4
#define BOX 0xff7a2020
#define SLOT 0xff3a3a3a
#define DIGIT 0xffffffff

struct kiosk_pin {
	GDBusConnection *bus;
	char *path;
	guint blocked_id, allowed_id;
	GCancellable *cancellable;  /* the Unlock in flight, cancelled when we go */
	FILE *out;
	kiosk_pin_changed_fn changed;
	void *data;
	bool asking;
	char digits[MAX_DIGITS + 1];
};

static void
say(struct kiosk_pin *pin, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void
say(struct kiosk_pin *pin, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	vfprintf(pin->out, format, args);
	va_end(args);
	fputc('\n', pin->out);
	fflush(pin->out);
}

static void
clear_digits(struct kiosk_pin *pin)
{
	/* Not left in memory longer than needed. */
	memset(pin->digits, 0, sizeof(pin->digits));
}

static void
player_signal(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	struct kiosk_pin *pin = data;
	if (strcmp(signal, "ContentAllowed") == 0) {
		if (!pin->asking)
			return;
		pin->asking = false;
		clear_digits(pin);
		say(pin, "pin-done");
		pin->changed(pin->data);
		return;
	}
	const char *reason = "?", *rating = "";
	if (g_variant_is_of_type(params, G_VARIANT_TYPE("(ss)")))
		g_variant_get(params, "(&s&s)", &reason, &rating);
	pin->asking = true;
	clear_digits(pin);
	say(pin, "pin-asked %s %s", reason, rating);
	pin->changed(pin->data);
}

static void
unlock_done(GObject *bus, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (reply) {
		/* ContentAllowed follows: the player is checked again. */
		g_variant_unref(reply);
		return;
	}
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_error_free(error);
		return;
	}
	struct kiosk_pin *pin = data;
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_dbus_error_strip_remote_error(error);
	say(pin, "pin-refused %s", name ? name : "?");
	fprintf(stderr, "umms-kiosk: the PIN was refused: %s\n", error->message);
	g_error_free(error);
	pin->changed(pin->data);
}

static void
send_pin(struct kiosk_pin *pin)
{
	g_dbus_connection_call(pin->bus, SERVICE, "/org/umms", "org.umms.Parental1", "Unlock",
		g_variant_new("(ossu)", pin->path, pin->digits, "programme", 0u), NULL,
		G_DBUS_CALL_FLAGS_NONE, 30000, pin->cancellable, unlock_done, pin);
	clear_digits(pin);
	say(pin, "pin-sent");
}

bool
kiosk_pin_key(struct kiosk_pin *pin, xkb_keysym_t sym)
{
	if (!pin || !pin->asking)
		return false;
	size_t n = strlen(pin->digits);
	int digit = -1;
	if (sym >= XKB_KEY_0 && sym <= XKB_KEY_9)
		digit = (int)(sym - XKB_KEY_0);
	else if (sym >= XKB_KEY_KP_0 && sym <= XKB_KEY_KP_9)
		digit = (int)(sym - XKB_KEY_KP_0);
	if (digit >= 0) {
		if (n < MAX_DIGITS)
			pin->digits[n] = (char)('0' + digit);
	} else if (sym == XKB_KEY_BackSpace) {
		if (n > 0)
			pin->digits[n - 1] = '\0';
	} else if (sym == XKB_KEY_Return || sym == XKB_KEY_KP_Enter) {
		if (n >= MIN_DIGITS)
			send_pin(pin);
	} else if (sym == XKB_KEY_Escape) {
		pin->asking = false;
		clear_digits(pin);
	} else {
		return false;
	}
	pin->changed(pin->data);
	return true;
}

bool
kiosk_pin_asking(const struct kiosk_pin *pin)
{
	return pin && pin->asking;
}

static void
fill(uint32_t *pixels, int stride, int x, int y, int width, int height, uint32_t color)
{
	for (int row = y; row < y + height; row++) {
		for (int col = x; col < x + width; col++)
			pixels[row * (stride / 4) + col] = color;
	}
}

void
kiosk_pin_draw(const struct kiosk_pin *pin, uint32_t *pixels, int stride, int x, int y,
	int width, int height)
{
	if (!kiosk_pin_asking(pin) || width < 2 * MAX_DIGITS + 2 || height < 4)
		return;
	fill(pixels, stride, x, y, width, height, BOX);
	/* 8 slots in a row, as wide as their gaps allow, half the box high. */
	int gap = width / (MAX_DIGITS * 4 + 1), slot = (width - gap * (MAX_DIGITS + 1)) /
		MAX_DIGITS;
	size_t n = strlen(pin->digits);
	for (int i = 0; i < MAX_DIGITS; i++)
		fill(pixels, stride, x + gap + i * (slot + gap), y + height / 4, slot, height / 2,
			(size_t)i < n ? DIGIT : SLOT);
}

struct kiosk_pin *
kiosk_pin_create(GDBusConnection *bus, const char *path, FILE *out,
	kiosk_pin_changed_fn changed, void *data)
{
	struct kiosk_pin *pin = g_new0(struct kiosk_pin, 1);
	pin->out = out;
	pin->bus = g_object_ref(bus);
	pin->path = g_strdup(path);
	pin->changed = changed;
	pin->data = data;
	pin->cancellable = g_cancellable_new();
	pin->blocked_id = g_dbus_connection_signal_subscribe(bus, SERVICE, "org.umms.Player1",
		"ContentBlocked", path, NULL, G_DBUS_SIGNAL_FLAGS_NONE, player_signal, pin, NULL);
	pin->allowed_id = g_dbus_connection_signal_subscribe(bus, SERVICE, "org.umms.Player1",
		"ContentAllowed", path, NULL, G_DBUS_SIGNAL_FLAGS_NONE, player_signal, pin, NULL);
	return pin;
}

void
kiosk_pin_destroy(struct kiosk_pin *pin)
{
	if (!pin)
		return;
	g_dbus_connection_signal_unsubscribe(pin->bus, pin->blocked_id);
	g_dbus_connection_signal_unsubscribe(pin->bus, pin->allowed_id);
	g_cancellable_cancel(pin->cancellable);
	g_object_unref(pin->cancellable);
	clear_digits(pin);
	g_object_unref(pin->bus);
	g_free(pin->path);
	g_free(pin);
}
