/*
 * Bitmap subtitle images drawn into a subpicture (bitmap-subs.h): each
 * rect scaled from its reference picture to the picture's size (nearest
 * pixel), over the ones before.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "bitmap-subs.h"
#include "log.h"

struct span {
	int x0, y0, x1, y1;     /* in the picture, x1 and y1 past the end */
};

/* Where @rect of @bitmap falls in a @width x @height picture, clipped to it. */
static struct span
rect_span(const struct umms_bitmap *bitmap, const struct umms_bitmap_rect *rect, int width,
	int height)
{
	int64_t rw = bitmap->width > 0 ? bitmap->width : width;
	int64_t rh = bitmap->height > 0 ? bitmap->height : height;
	struct span s = {
		(int)((int64_t)rect->x * width / rw),
		(int)((int64_t)rect->y * height / rh),
		(int)(((int64_t)rect->x + rect->width) * width / rw),
		(int)(((int64_t)rect->y + rect->height) * height / rh),
	};
	s.x0 = CLAMP(s.x0, 0, width);
	s.x1 = CLAMP(s.x1, 0, width);
	s.y0 = CLAMP(s.y0, 0, height);
	s.y1 = CLAMP(s.y1, 0, height);
	return s;
}

/* @rect scaled (nearest pixel) over @subpicture's pixels. */
static void
draw_rect(struct umms_subpicture *subpicture, const struct umms_bitmap *bitmap,
	const struct umms_bitmap_rect *rect, struct span s, int width, int height)
{
	int64_t rw = bitmap->width > 0 ? bitmap->width : width;
	int64_t rh = bitmap->height > 0 ? bitmap->height : height;
	for (int y = s.y0; y < s.y1; y++) {
		int64_t sy = ((int64_t)2 * y + 1) * rh / (2 * (int64_t)height) - rect->y;
		if (sy < 0 || sy >= rect->height)
			continue;
		const uint8_t *src = rect->pixels + (size_t)sy * (size_t)rect->width * 4;
		uint8_t *row = (uint8_t *)subpicture->data +
			(size_t)(y - subpicture->y) * subpicture->stride;
		for (int x = s.x0; x < s.x1; x++) {
			int64_t sx = ((int64_t)2 * x + 1) * rw / (2 * (int64_t)width) - rect->x;
			if (sx < 0 || sx >= rect->width)
				continue;
			const uint8_t *from = src + sx * 4;
			uint8_t *to = row + (size_t)(x - subpicture->x) * 4;
			unsigned keep = 255u - from[3];
			for (int c = 0; c < 4; c++)
				to[c] = (uint8_t)(from[c] + to[c] * keep / 255);
		}
	}
}

struct umms_subpicture *
umms_bitmap_render(struct umms_bitmap *const *bitmaps, unsigned n, int width, int height)
{
	if (width < 1 || height < 1 || width > UMMS_SUBPICTURE_MAX_SIDE ||
			height > UMMS_SUBPICTURE_MAX_SIDE)
		return NULL;
	struct span all = { width, height, 0, 0 };
	for (unsigned i = 0; i < n; i++) {
		for (unsigned r = 0; r < bitmaps[i]->n_rects; r++) {
			struct span s = rect_span(bitmaps[i], &bitmaps[i]->rects[r], width, height);
			if (s.x0 >= s.x1 || s.y0 >= s.y1)
				continue;
			all.x0 = MIN(all.x0, s.x0);
			all.y0 = MIN(all.y0, s.y0);
			all.x1 = MAX(all.x1, s.x1);
			all.y1 = MAX(all.y1, s.y1);
		}
	}
	if (all.x0 >= all.x1 || all.y0 >= all.y1)
		return NULL;
	GError *error = NULL;
	struct umms_subpicture *subpicture = umms_subpicture_create(all.x1 - all.x0,
		all.y1 - all.y0, width, height, &error);
	if (!subpicture)
		goto failed;
	subpicture->x = all.x0;
	subpicture->y = all.y0;
	for (unsigned i = 0; i < n; i++) {
		for (unsigned r = 0; r < bitmaps[i]->n_rects; r++) {
			const struct umms_bitmap_rect *rect = &bitmaps[i]->rects[r];
			struct span s = rect_span(bitmaps[i], rect, width, height);
			draw_rect(subpicture, bitmaps[i], rect, s, width, height);
		}
	}
	if (umms_subpicture_seal(subpicture, &error))
		return subpicture;
	umms_subpicture_unref(subpicture);
failed:
	umms_warn("bitmap subtitles: %s", error->message);
	g_error_free(error);
	return NULL;
}
