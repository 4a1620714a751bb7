/*
 * The kiosk's PIN prompt: when ummsd blocks what the kiosk's player shows
 * (parental control: Player1.ContentBlocked), the kiosk says why and asks
 * for the PIN; the digits typed go to Parental1.Unlock for the programme,
 * and ummsd lets the picture through again (ContentAllowed). The kiosk
 * never decides anything itself: it shows what ummsd says.
 *
 * Everything runs in GLib's default main context (the kiosk's loop
 * dispatches it).
 */
#ifndef UMMS_DEMO_KIOSK_PIN_H
#define UMMS_DEMO_KIOSK_PIN_H

#include <stdbool.h>
#include <stdint.h>
#include <gio/gio.h>
#include <xkbcommon/xkbcommon.h>

struct kiosk_pin;

/*
 * The prompt changed: @line is what the kiosk prints once it is on screen
 * (no newline; the callee owns it):
 *   blocked REASON RATING   the player is blocked ("rating FSK 16")
 *   pin N                   N digits typed so far
 *   pin-wrong               ummsd refused the PIN (WrongPin)
 *   locked-out MESSAGE      too many wrong PINs: ummsd's LockedOut message
 *   allowed                 the picture is back
 */
typedef void (*kiosk_pin_changed_fn)(void *data, char *line);

/* Watches the player at D-Bus path @player (already blocked, or later). */
struct kiosk_pin *kiosk_pin_create(GDBusConnection *bus, const char *player,
	kiosk_pin_changed_fn changed, void *data);
/* NULL is a no-op. */
void kiosk_pin_destroy(struct kiosk_pin *pin);

/* The player is blocked: the prompt is up and takes the keys. */
bool kiosk_pin_active(const struct kiosk_pin *pin);

/*
 * A key while the prompt is up: digits are typed (8 at most), BackSpace
 * takes one back, Return sends them. True when the prompt took the key.
 */
bool kiosk_pin_key(struct kiosk_pin *pin, xkb_keysym_t sym);

/*
 * Draws the prompt (white text on 0xff400000, dark red) over the
 * rectangle (@x, @y, @width, @height) of ARGB8888 @pixels (@stride bytes a
 * row); nothing outside it. Nothing while the player is not blocked.
 */
void kiosk_pin_draw(struct kiosk_pin *pin, uint32_t *pixels, int stride, int x, int y,
	int width, int height);

#endif
