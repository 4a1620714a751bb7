/*
 * Text cues drawn into a subpicture (cues.c's renderer; cues.h says how
 * they look and where they go).
 */
#ifndef UMMS_SERVICE_CUES_TEXT_H
#define UMMS_SERVICE_CUES_TEXT_H

#include <glib.h>

#include "cues.h"
#include "subpicture.h"

/*
 * The @n cues at @active (markup and place read) drawn with @style for a
 * picture of @width x @height pixels: a new subpicture, or NULL when they
 * show nothing.
 */
struct umms_subpicture *umms_cues_text_draw(const struct umms_cue_style *style,
	const struct umms_cue *active, guint n, int width, int height);

#endif
