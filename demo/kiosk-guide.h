/*
 * The kiosk's programme guide: a channel found in ummsd's guide
 * (org.umms.Guide1), what it shows now and next, kept up to date from
 * ProgrammeChanged, and drawn as two lines of white text.
 *
 * Everything runs in GLib's default main context (the kiosk's loop
 * dispatches it): the reply to GetNowNext calls @changed.
 */
#ifndef UMMS_DEMO_KIOSK_GUIDE_H
#define UMMS_DEMO_KIOSK_GUIDE_H

#include <stdint.h>
#include <gio/gio.h>

struct kiosk_guide;

/*
 * New now/next arrived: @line is what the kiosk prints once it is on
 * screen ("now-next CHANNEL NOW | NEXT", no newline; the callee owns it).
 */
typedef void (*kiosk_guide_changed_fn)(void *data, char *line);

/*
 * Finds channel @which (its number, else its id) in the guide, and starts
 * asking for its now/next. NULL with @error if there is no such channel
 * (G_IO_ERROR_NOT_FOUND) or the guide cannot be asked.
 */
struct kiosk_guide *kiosk_guide_create(GDBusConnection *bus, const char *which,
	kiosk_guide_changed_fn changed, void *data, GError **error);
/* NULL is a no-op. */
void kiosk_guide_destroy(struct kiosk_guide *guide);

/* The channel's stream ("" if the guide knows none) and its name. */
const char *kiosk_guide_uri(const struct kiosk_guide *guide);
const char *kiosk_guide_name(const struct kiosk_guide *guide);

/*
 * Draws now/next in white into the rectangle (@x, @y, @width, @height) of
 * ARGB8888 @pixels (@stride bytes a row), over what is there; nothing
 * outside it. Nothing before the first answer.
 */
void kiosk_guide_draw(struct kiosk_guide *guide, uint32_t *pixels, int stride, int x, int y,
	int width, int height);

#endif
