/*
 * Text for the kiosk's UI: white lines drawn with pango on cairo straight
 * into an ARGB8888 buffer, inside one rectangle and nowhere else.
 */
#ifndef UMMS_DEMO_KIOSK_TEXT_H
#define UMMS_DEMO_KIOSK_TEXT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Draws @text (lines separated by '\n'; each cut with "…" where too long)
 * in white bold sans of @size pixels, over what is there in the rectangle
 * (@x, @y, @width, @height) of @pixels (@stride bytes a row), centred
 * vertically, left-aligned or @centred.
 */
void kiosk_text_draw(uint32_t *pixels, int stride, int x, int y, int width, int height,
	const char *text, double size, bool centred);

#endif
