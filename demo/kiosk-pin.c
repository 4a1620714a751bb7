/*
 * The kiosk's PIN prompt (kiosk-pin.h), to read top to bottom: watch the
 * player's Blocked state, take digits while it is blocked, send them to
 * Parental1.Unlock, and draw the prompt (kiosk-text.c).
 */
#include <stdio.h>
#include <string.h>

#include "kiosk-pin.h"
#include "kiosk-text.h"

#define SERVICE "org.umms.Service1"
#define ROOT "/org/umms"
#define PLAYER1 "org.umms.Player1"
#define PARENTAL1 "org.umms.Parental1"
#define PROMPT_COLOR 0xff400000
#define MAX_DIGITS 8
#define TEXT_MAX 120    /* characters of ummsd's reason and rating shown */

struct kiosk_pin {
	GDBusConnection *bus;
	char *player;
	guint blocked_sub, allowed_sub;
	GCancellable *cancel;    /* calls in flight, cancelled when the kiosk goes */
	bool blocked;
	char *why;               /* "rating FSK 16", from ummsd */
	char *message;           /* the last refusal, shown under the prompt, or NULL */
	char digits[MAX_DIGITS + 1];
	kiosk_pin_changed_fn changed;
	void *data;
};

static void
say(struct kiosk_pin *pin, char *line)
{
	pin->changed(pin->data, line);
}

/* ---- what ummsd says of the player -------------------------------------------------- */

static void
set_blocked(struct kiosk_pin *pin, const char *reason, const char *rating)
{
	g_autofree char *both = g_strdup_printf("%s%s%s", reason, *rating ? " " : "", rating);
	g_autofree char *why = g_utf8_make_valid(both, -1);
	if (pin->blocked && g_strcmp0(why, pin->why) == 0)
		return;   /* said already (the property's answer, then the signal) */
	pin->blocked = true;
	g_free(pin->why);
	pin->why = g_steal_pointer(&why);
	if (g_utf8_strlen(pin->why, -1) > TEXT_MAX) {
		char *cut = g_utf8_substring(pin->why, 0, TEXT_MAX);
		g_free(pin->why);
		pin->why = cut;
	}
	g_strdelimit(pin->why, "\r\n\t", ' ');
	g_clear_pointer(&pin->message, g_free);
	pin->digits[0] = '\0';
	say(pin, g_strdup_printf("blocked %s", pin->why));
}

static void
on_blocked(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	const char *reason, *rating;
	if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(ss)")))
		return;
	g_variant_get(params, "(&s&s)", &reason, &rating);
	set_blocked(data, reason, rating);
}

static void
on_allowed(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *signal, GVariant *params, gpointer data)
{
	struct kiosk_pin *pin = data;
	if (!pin->blocked)
		return;
	pin->blocked = false;
	pin->digits[0] = '\0';
	g_clear_pointer(&pin->message, g_free);
	say(pin, g_strdup("allowed"));
}

/* Blocked already when the kiosk started watching (SetUri blocks before the first frame). */
static void
got_blocked(GObject *bus, GAsyncResult *result, gpointer data)
{
	g_autoptr(GVariant) reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result,
		NULL);
	if (!reply)
		return;   /* cancelled, or an ummsd without parental control */
	struct kiosk_pin *pin = data;
	g_autoptr(GVariant) all = g_variant_get_child_value(reply, 0);
	gboolean blocked = FALSE;
	const char *reason = "", *rating = "";
	g_variant_lookup(all, "Blocked", "b", &blocked);
	g_variant_lookup(all, "BlockReason", "&s", &reason);
	g_variant_lookup(all, "BlockRating", "&s", &rating);
	if (blocked && !pin->blocked)
		set_blocked(pin, reason, rating);
}

struct kiosk_pin *
kiosk_pin_create(GDBusConnection *bus, const char *player, kiosk_pin_changed_fn changed,
	void *data)
{
	struct kiosk_pin *pin = g_new0(struct kiosk_pin, 1);
	pin->bus = g_object_ref(bus);
	pin->player = g_strdup(player);
	pin->changed = changed;
	pin->data = data;
	pin->cancel = g_cancellable_new();
	pin->blocked_sub = g_dbus_connection_signal_subscribe(bus, SERVICE, PLAYER1,
		"ContentBlocked", player, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_blocked, pin, NULL);
	pin->allowed_sub = g_dbus_connection_signal_subscribe(bus, SERVICE, PLAYER1,
		"ContentAllowed", player, NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_allowed, pin, NULL);
	g_dbus_connection_call(bus, SERVICE, player, "org.freedesktop.DBus.Properties", "GetAll",
		g_variant_new("(s)", PLAYER1), G_VARIANT_TYPE("(a{sv})"), G_DBUS_CALL_FLAGS_NONE,
		10000, pin->cancel, got_blocked, pin);
	return pin;
}

void
kiosk_pin_destroy(struct kiosk_pin *pin)
{
	if (!pin)
		return;
	/* Replies still due find the cancellable cancelled and touch nothing of ours. */
	g_cancellable_cancel(pin->cancel);
	g_object_unref(pin->cancel);
	g_dbus_connection_signal_unsubscribe(pin->bus, pin->blocked_sub);
	g_dbus_connection_signal_unsubscribe(pin->bus, pin->allowed_sub);
	g_object_unref(pin->bus);
	g_free(pin->player);
	g_free(pin->why);
	g_free(pin->message);
	g_free(pin);
}

bool
kiosk_pin_active(const struct kiosk_pin *pin)
{
	return pin && pin->blocked;
}

/* ---- the PIN ---------------------------------------------------------------------- */

static void
unlocked(GObject *bus, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (reply) {
		/* ContentAllowed follows: the prompt goes then. */
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
	g_free(pin->message);
	if (g_strcmp0(name, "org.umms.Error.WrongPin") == 0) {
		pin->message = g_strdup("Wrong PIN");
		say(pin, g_strdup("pin-wrong"));
	} else if (g_strcmp0(name, "org.umms.Error.LockedOut") == 0) {
		pin->message = g_utf8_make_valid(error->message, -1);
		say(pin, g_strdup_printf("locked-out %s", pin->message));
	} else {
		pin->message = g_utf8_make_valid(error->message, -1);
		fprintf(stderr, "umms-kiosk: Unlock: %s\n", error->message);
		say(pin, g_strdup_printf("pin-failed %s", pin->message));
	}
	g_error_free(error);
}

bool
kiosk_pin_key(struct kiosk_pin *pin, xkb_keysym_t sym)
{
	if (!kiosk_pin_active(pin))
		return false;
	size_t n = strlen(pin->digits);
	int digit = sym >= XKB_KEY_0 && sym <= XKB_KEY_9 ? (int)(sym - XKB_KEY_0) :
		sym >= XKB_KEY_KP_0 && sym <= XKB_KEY_KP_9 ? (int)(sym - XKB_KEY_KP_0) : -1;
	if (digit >= 0) {
		if (n < MAX_DIGITS) {
			pin->digits[n] = (char)('0' + digit);
			pin->digits[n + 1] = '\0';
		}
	} else if (sym == XKB_KEY_BackSpace) {
		if (n > 0)
			pin->digits[n - 1] = '\0';
	} else if (sym == XKB_KEY_Return || sym == XKB_KEY_KP_Enter) {
		if (n == 0)
			return true;
		/* This programme only: the next one is judged again. */
		g_dbus_connection_call(pin->bus, SERVICE, ROOT, PARENTAL1, "Unlock",
			g_variant_new("(ossu)", pin->player, pin->digits, "programme", 0u), NULL,
			G_DBUS_CALL_FLAGS_NONE, 30000, pin->cancel, unlocked, pin);
		memset(pin->digits, 0, sizeof(pin->digits));
		say(pin, g_strdup("pin 0"));
		return true;
	} else {
		return false;   /* q, Escape: the kiosk's own keys still work */
	}
	say(pin, g_strdup_printf("pin %zu", strlen(pin->digits)));
	return true;
}

/* ---- drawing ----------------------------------------------------------------------- */

void
kiosk_pin_draw(struct kiosk_pin *pin, uint32_t *pixels, int stride, int x, int y, int width,
	int height)
{
	if (!kiosk_pin_active(pin) || width <= 0 || height <= 0)
		return;
	for (int row = y; row < y + height; row++)
		for (int col = x; col < x + width; col++)
			pixels[(size_t)row * (size_t)(stride / 4) + (size_t)col] = PROMPT_COLOR;

	g_autoptr(GString) text = g_string_new("Blocked by parental control\n");
	g_string_append_printf(text, "%s\nPIN: ", pin->why ? pin->why : "");
	for (size_t i = 0; pin->digits[i]; i++)
		g_string_append(text, "*");
	if (pin->message)
		g_string_append_printf(text, "\n%s", pin->message);

	kiosk_text_draw(pixels, stride, x, y, width, height, text->str, MAX(height / 14, 6),
		true);
}
