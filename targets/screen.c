/*
 * Settings every screen (screen.h) shares: zoom mode names, overscan
 * margins as written in the configuration and over D-Bus, and what they
 * leave of a mode.
 */
#include <stdlib.h>
#include <glib.h>

#include "error.h"
#include "screen.h"

static const char *const zoom_names[] = {
	[UMMS_LAYOUT_SCALE_LETTERBOX] = "letterbox",
	[UMMS_LAYOUT_SCALE_FILL] = "fill",
	[UMMS_LAYOUT_SCALE_CROP] = "crop",
	[UMMS_LAYOUT_SCALE_NONE] = "none",
	[UMMS_LAYOUT_SCALE_4_3_IN_16_9] = "4:3-in-16:9",
	[UMMS_LAYOUT_SCALE_ANAMORPHIC] = "anamorphic",
};

const char *
umms_screen_zoom_name(enum umms_layout_scale zoom)
{
	return (size_t)zoom < G_N_ELEMENTS(zoom_names) ? zoom_names[zoom] : "letterbox";
}

bool
umms_screen_zoom_parse(const char *text, enum umms_layout_scale *out, GError **error)
{
	for (size_t i = 0; i < G_N_ELEMENTS(zoom_names); i++) {
		if (g_ascii_strcasecmp(text, zoom_names[i]) == 0) {
			*out = (enum umms_layout_scale)i;
			return true;
		}
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"zoom \"%s\": expected letterbox, fill, crop, none, 4:3-in-16:9 or anamorphic", text);
	return false;
}

bool
umms_screen_margins_parse(const char *text, struct umms_screen_margins *out, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, ",", -1);
	guint n = g_strv_length(parts);
	int v[4] = { 0 };
	int percent = -1;
	if (n != 1 && n != 2 && n != 4)
		goto bad;
	for (guint i = 0; i < n; i++) {
		char *s = g_strstrip(parts[i]), *end = NULL;
		long value = strtol(s, &end, 10);
		bool pct = end && *end == '%';
		if (end == s || (pct ? end[1] != 0 : *end != 0) || value < 0 || value > 4000 ||
				(pct && value > 40) || (percent >= 0 && percent != pct))
			goto bad;
		percent = pct;
		v[i] = (int)value;
	}
	/* One value: all sides; two: left/right and top/bottom; four: left, top, right, bottom. */
	if (n == 1)
		v[1] = v[2] = v[3] = v[0];
	else if (n == 2)
		v[2] = v[0], v[3] = v[1];
	*out = (struct umms_screen_margins){ v[0], v[1], v[2], v[3], percent == 1 };
	return true;
bad:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"margins \"%s\": expected pixels or percents (up to 40%%): \"5%%\", \"32,18\" or "
		"\"left,top,right,bottom\", all in the same unit", text);
	return false;
}

void
umms_screen_margins_px(const struct umms_screen_margins *m, int width, int height, int px[4])
{
	int v[4] = { m->left, m->top, m->right, m->bottom };
	for (int i = 0; i < 4; i++)
		px[i] = m->percent ? (i % 2 ? height : width) * v[i] / 100 : v[i];
}

bool
umms_screen_margins_check(const struct umms_screen_margins *m, int width, int height,
	GError **error)
{
	int v[4] = { m->left, m->top, m->right, m->bottom };
	for (int i = 0; i < 4; i++) {
		int side = i % 2 ? height : width;
		if (v[i] < 0 || (m->percent ? v[i] > 40 : v[i] * 100 > side * 40)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"margins (%d, %d, %d, %d)%s: each must be 0 to 40%% of its side of "
				"%dx%d", v[0], v[1], v[2], v[3], m->percent ? "%" : "", width, height);
			return false;
		}
	}
	return true;
}
