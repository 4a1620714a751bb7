#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <pango/pangocairo.h>

#include "cues-text.h"
#include "log.h"

/* A layout and where its origin goes on the picture. */
struct piece {
	PangoLayout *layout;
	int x, y;
	PangoRectangle ink, logical;
};

struct drawing {
	const struct umms_cue_style *style;
	int width, height;
	int font_px, outline, margin, box_width;
	cairo_surface_t *scratch;
	cairo_t *measure;
	GArray *pieces;         /* struct piece */
};

static void
piece_clear(gpointer data)
{
	g_clear_object(&((struct piece *)data)->layout);
}

/* A layout of @markup (shown as text where it is not markup) in the style's font. */
static struct piece *
add_piece(struct drawing *d, const char *markup, bool wrap, PangoAlignment alignment)
{
	PangoLayout *layout = pango_cairo_create_layout(d->measure);
	PangoFontDescription *font = pango_font_description_from_string("Sans Bold");
	pango_font_description_set_absolute_size(font, (double)d->font_px * PANGO_SCALE);
	pango_layout_set_font_description(layout, font);
	pango_font_description_free(font);
	if (wrap) {
		pango_layout_set_width(layout, d->box_width * PANGO_SCALE);
		pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
	}
	pango_layout_set_alignment(layout, alignment);
	if (pango_parse_markup(markup, -1, 0, NULL, NULL, NULL, NULL))
		pango_layout_set_markup(layout, markup, -1);
	else
		pango_layout_set_text(layout, markup, -1);
	struct piece piece = { .layout = layout };
	pango_layout_get_pixel_extents(layout, &piece.ink, &piece.logical);
	g_array_append_val(d->pieces, piece);
	return &g_array_index(d->pieces, struct piece, d->pieces->len - 1);
}

/* The cues without a place, a line each, centred, the last line @margin above the bottom. */
static void
add_unplaced(struct drawing *d, const struct umms_cue *active, guint n)
{
	GString *markup = g_string_new(NULL);
	for (guint i = 0; i < n; i++) {
		if (active[i].place.rows)
			continue;
		if (markup->len)
			g_string_append_c(markup, '\n');
		g_string_append(markup, active[i].markup);
	}
	/* Lines that end a cue would leave a blank line under it. */
	while (markup->len && (markup->str[markup->len - 1] == '\n' ||
			markup->str[markup->len - 1] == ' '))
		g_string_truncate(markup, markup->len - 1);
	if (markup->len) {
		struct piece *piece = add_piece(d, markup->str, true, PANGO_ALIGN_CENTER);
		int layout_top = d->height - d->margin - (piece->logical.y + piece->logical.height);
		piece->x = (d->width - d->box_width) / 2;
		piece->y = MAX(layout_top, -piece->logical.y);
	}
	g_string_free(markup, TRUE);
}

/* A cue's lines at their cells of its grid over the caption safe area. */
static void
add_placed(struct drawing *d, const struct umms_cue *cue)
{
	const struct umms_cue_place *place = &cue->place;
	int safe_x = d->width / 10, safe_y = d->height / 10;
	int safe_width = d->width - 2 * safe_x, safe_height = d->height - 2 * safe_y;
	guint first = d->pieces->len;
	int below = G_MININT;   /* the bottom of the line before */
	int row = 0, column = 0, last_row = -1;
	char **lines = g_strsplit(cue->markup, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		if (i < place->lines) {
			row = place->row[i];
			column = place->column[i];
		}
		if (!*g_strchomp(lines[i]))
			continue;
		struct piece *piece = add_piece(d, lines[i], true,
			place->centred ? PANGO_ALIGN_CENTER : PANGO_ALIGN_LEFT);
		/* Under the line before where that is above (not another window's, higher up). */
		int top = safe_y + row * safe_height / place->rows;
		if (row >= last_row)
			top = MAX(top, below);
		last_row = row;
		piece->y = top - piece->logical.y;
		below = top + piece->logical.height;
		if (place->centred) {
			piece->x = (d->width - d->box_width) / 2;
		} else {
			/* Too wide for its column: moved left, as far as the picture allows. */
			int right = d->width - (d->width - d->box_width) / 2;
			int x = safe_x + column * safe_width / place->columns;
			piece->x = MAX(0, MIN(x, right - piece->logical.x - piece->logical.width));
		}
	}
	g_strfreev(lines);
	if (first == d->pieces->len)
		return;
	/* Clear of the bottom margin where it can be, inside the picture. */
	int top = G_MAXINT, bottom = G_MININT;
	for (guint i = first; i < d->pieces->len; i++) {
		const struct piece *piece = &g_array_index(d->pieces, struct piece, i);
		top = MIN(top, piece->y + piece->logical.y);
		bottom = MAX(bottom, piece->y + piece->logical.y + piece->logical.height);
	}
	int up = MIN(bottom - (d->height - d->margin), top);
	for (guint i = first; up > 0 && i < d->pieces->len; i++)
		g_array_index(d->pieces, struct piece, i).y -= up;
}

static void
draw_pieces(struct drawing *d, cairo_t *cr, int x0, int y0, bool outline)
{
	for (guint i = 0; i < d->pieces->len; i++) {
		const struct piece *piece = &g_array_index(d->pieces, struct piece, i);
		cairo_save(cr);
		cairo_translate(cr, piece->x - x0, piece->y - y0);
		pango_cairo_update_layout(cr, piece->layout);
		if (outline) {
			pango_cairo_layout_path(cr, piece->layout);
			cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
			cairo_set_line_width(cr, 2.0 * d->outline);
			cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
			cairo_stroke(cr);
		} else {
			/* White where the markup names no colour. */
			cairo_set_source_rgb(cr, 1.0, 1.0, 1.0);
			pango_cairo_show_layout(cr, piece->layout);
		}
		cairo_restore(cr);
	}
}

static struct umms_subpicture *
draw(struct drawing *d)
{
	/* Every piece with its outline, inside the picture (and a subpicture's sides). */
	int x0 = G_MAXINT, y0 = G_MAXINT, x1 = G_MININT, y1 = G_MININT;
	int pad = d->outline + 1;
	for (guint i = 0; i < d->pieces->len; i++) {
		const struct piece *p = &g_array_index(d->pieces, struct piece, i);
		if (p->logical.height <= 0)
			continue;
		x0 = MIN(x0, p->x + MIN(p->ink.x, p->logical.x) - pad);
		y0 = MIN(y0, p->y + MIN(p->ink.y, p->logical.y) - pad);
		x1 = MAX(x1, p->x + MAX(p->ink.x + p->ink.width, p->logical.x + p->logical.width) +
			pad);
		y1 = MAX(y1, p->y + MAX(p->ink.y + p->ink.height,
			p->logical.y + p->logical.height) + pad);
	}
	if (x1 <= x0 || y1 <= y0)
		return NULL;
	if (d->pieces->len > 1) {
		/* Pieces apart: the picture bounds them (one alone is as it always was). */
		x0 = MAX(x0, -pad);
		y0 = MAX(y0, -pad);
		x1 = MIN(x1, d->width + pad);
		y1 = MIN(y1, d->height + pad);
	}
	int image_width = MIN(x1 - x0, UMMS_SUBPICTURE_MAX_SIDE);
	int image_height = MIN(y1 - y0, UMMS_SUBPICTURE_MAX_SIDE);
	GError *error = NULL;
	struct umms_subpicture *subpicture = umms_subpicture_create(image_width, image_height,
		d->width, d->height, &error);
	if (!subpicture) {
		umms_warn("%s", error->message);
		g_error_free(error);
		return NULL;
	}
	subpicture->x = x0;
	subpicture->y = y0;
	cairo_surface_t *surface = cairo_image_surface_create_for_data(subpicture->data,
		CAIRO_FORMAT_ARGB32, image_width, image_height, (int)subpicture->stride);
	cairo_t *cr = cairo_create(surface);
	/* Outlines first: one line's never covers another's letters. */
	draw_pieces(d, cr, x0, y0, true);
	draw_pieces(d, cr, x0, y0, false);
	cairo_destroy(cr);
	cairo_surface_flush(surface);
	cairo_surface_destroy(surface);
	if (!umms_subpicture_seal(subpicture, &error)) {
		umms_warn("%s", error->message);
		g_error_free(error);
		umms_subpicture_unref(subpicture);
		return NULL;
	}
	return subpicture;
}

struct umms_subpicture *
umms_cues_text_draw(const struct umms_cue_style *style, const struct umms_cue *active, guint n,
	int width, int height)
{
	bool any = false;
	for (guint i = 0; i < n && !any; i++)
		any = strspn(active[i].markup, "\n ") < strlen(active[i].markup);
	if (!any)
		return NULL;
	struct drawing d = {
		.style = style,
		.width = width,
		.height = height,
		.font_px = MAX(1, height * style->size_permille / 1000),
		.margin = height * style->margin_permille / 1000,
		.box_width = MAX(1, width * 9 / 10),
	};
	d.outline = MAX(1, d.font_px / 14);
	d.scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	d.measure = cairo_create(d.scratch);
	d.pieces = g_array_new(FALSE, TRUE, sizeof(struct piece));
	g_array_set_clear_func(d.pieces, piece_clear);
	add_unplaced(&d, active, n);
	for (guint i = 0; i < n; i++) {
		if (active[i].place.rows)
			add_placed(&d, &active[i]);
	}
	struct umms_subpicture *subpicture = draw(&d);
	g_array_unref(d.pieces);
	cairo_destroy(d.measure);
	cairo_surface_destroy(d.scratch);
	return subpicture;
}
