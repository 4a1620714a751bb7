/* The kiosk's text (kiosk-text.h). */
#include <pango/pangocairo.h>

#include "kiosk-text.h"

void
kiosk_text_draw(uint32_t *pixels, int stride, int x, int y, int width, int height,
	const char *text, double size, bool centred)
{
	if (width <= 0 || height <= 0)
		return;
	/*
	 * cairo draws straight into our buffer: its ARGB32 is premultiplied
	 * ARGB in native-endian 32-bit words, wl_shm's ARGB8888 on the little
	 * endian machines this runs on. The surface starts at the rectangle's
	 * corner and is no bigger than it, so nothing outside is touched.
	 */
	unsigned char *corner = (unsigned char *)pixels + (size_t)y * (size_t)stride +
		(size_t)x * 4;
	cairo_surface_t *surface = cairo_image_surface_create_for_data(corner,
		CAIRO_FORMAT_ARGB32, width, height, stride);
	cairo_t *cr = cairo_create(surface);

	PangoLayout *layout = pango_cairo_create_layout(cr);
	PangoFontDescription *font = pango_font_description_from_string("Sans Bold");
	pango_font_description_set_absolute_size(font, size * PANGO_SCALE);
	pango_layout_set_font_description(layout, font);
	pango_font_description_free(font);
	pango_layout_set_width(layout, width * PANGO_SCALE);
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	if (centred)
		pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER);
	pango_layout_set_text(layout, text, -1);
	int text_width, text_height;
	pango_layout_get_pixel_size(layout, &text_width, &text_height);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_move_to(cr, 0, MAX(0, (height - text_height) / 2));
	pango_cairo_show_layout(cr, layout);

	g_object_unref(layout);
	cairo_destroy(cr);
	cairo_surface_finish(surface);   /* everything written to our pixels */
	cairo_surface_destroy(surface);
}
