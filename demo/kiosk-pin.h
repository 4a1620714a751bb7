/*
 * The kiosk's parental PIN entry: when its player's content is blocked
 * (org.umms.Player1 ContentBlocked(reason, rating)) it asks for the PIN,
 * typed on the keyboard or a remote's digits, and sends it with
 * org.umms.Parental1.Unlock (scope "programme"); ContentAllowed ends it.
 *
 * Keys while it asks (kiosk_pin_key takes them): 0-9 (keypad too) add a
 * digit (at most 8), BackSpace takes one back, Return sends 4 to 8 of
 * them, Escape gives up asking (until the next ContentBlocked).
 *
 * What it prints to the stream it is given (each line flushed at once):
 *   pin-asked REASON RATING   ContentBlocked arrived ("rating FSK 16")
 *   pin-sent                  Unlock went out
 *   pin-refused NAME          ummsd refused it (org.umms.Error.WrongPin,
 *                             LockedOut…); the digits are cleared
 *   pin-done                  ContentAllowed arrived: no more asking
 *
 * Drawn (ARGB8888, fixed colours) while it asks, in the rectangle the
 * kiosk gives: the box 0xff7a2020 (dark red), 8 slots 0xff3a3a3a, those
 * holding a digit 0xffffffff; never the digits themselves.
 */
#ifndef UMMS_DEMO_KIOSK_PIN_H
#define UMMS_DEMO_KIOSK_PIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <gio/gio.h>
#include <xkbcommon/xkbcommon.h>

struct kiosk_pin;

/* What is drawn changed (asking began or ended, a digit more or less). */
typedef void (*kiosk_pin_changed_fn)(void *data);

/* Watches player @path on @bus (a reference is kept); its lines go to @out. */
struct kiosk_pin *kiosk_pin_create(GDBusConnection *bus, const char *path, FILE *out,
	kiosk_pin_changed_fn changed, void *data);
/* NULL is a no-op. */
void kiosk_pin_destroy(struct kiosk_pin *pin);

/* Whether it asks for the PIN now. */
bool kiosk_pin_asking(const struct kiosk_pin *pin);
/* A key: true when it took it (it asks, and the key is one of its keys). */
bool kiosk_pin_key(struct kiosk_pin *pin, xkb_keysym_t sym);
/* Draws the entry into (@x, @y, @width, @height) of @pixels while it asks; else nothing. */
void kiosk_pin_draw(const struct kiosk_pin *pin, uint32_t *pixels, int stride, int x, int y,
	int width, int height);

#endif
