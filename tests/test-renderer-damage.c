/*
 * Damage in the renderers (renderers/renderer.h): the same cases over
 * gles2 (Mesa llvmpipe, surfaceless) and pixman.
 *
 * - partial-upload: an image kept by id, changed in one rectangle and
 *   drawn with that damage, shows all its new pixels; a GPU renderer
 *   copied only that rectangle (upload_bytes).
 * - target-damage: a frame with a damage box changes no pixel outside it
 *   and repaints everything inside it; a frame into other memory with a
 *   damage box is still right everywhere (gles2 repaints it whole).
 */
#include <string.h>
#include <drm_fourcc.h>
#include <glib.h>

#include "gles2.h"
#include "pixman-renderer.h"
#include "renderer.h"
#include "renderer-list.h"

#define W 96
#define H 64

static struct umms_renderer *
create(const struct renderer_entry *entry)
{
	GError *error = NULL;
	struct umms_renderer *r = entry->create(&error);
	g_assert_no_error(error);
	g_assert_nonnull(r);
	return r;
}

/* A pixel pattern of @seed that differs from pixel to pixel. */
static uint32_t
pattern(int x, int y, int seed)
{
	return 0xff000000u | (uint32_t)(((x * 2 + seed * 40) & 0xff) << 16) |
		(uint32_t)(((y * 3 + seed * 20) & 0xff) << 8) | (uint32_t)((x ^ y ^ seed) & 0xff);
}

static void
draw_frame(struct umms_renderer *r, struct umms_render_target *target,
	const struct umms_render_image *image)
{
	GError *error = NULL;
	struct umms_render_box box = { 0, 0, W, H };
	g_assert_true(umms_renderer_begin(r, target, &error));
	g_assert_no_error(error);
	umms_renderer_clear(r, 0xff000000);
	g_assert_true(umms_renderer_draw(r, image, &box, &box, &error));
	g_assert_no_error(error);
	g_assert_true(umms_renderer_end(r, &error));
	g_assert_no_error(error);
}

static void
assert_pixels(const uint32_t *got, const uint32_t *want, const char *what)
{
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			uint32_t g = got[y * W + x] & 0xffffff, w = want[y * W + x] & 0xffffff;
			if (g != w)
				g_error("%s: (%d, %d) is %06x, not %06x", what, x, y, g, w);
		}
	}
}

static void
test_partial_upload(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	uint32_t *pixels = g_new(uint32_t, W * H), *out = g_new0(uint32_t, W * H);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			pixels[y * W + x] = pattern(x, y, 0);
	struct umms_render_image image = { .format = DRM_FORMAT_XRGB8888,
		.modifier = DRM_FORMAT_MOD_LINEAR, .width = W, .height = H, .n_planes = 1,
		.planes[0] = { .fd = -1, .data = pixels, .stride = W * 4 }, .id = 7 };
	struct umms_render_target target = { .format = DRM_FORMAT_XRGB8888, .width = W,
		.height = H, .fd = -1, .data = out, .stride = W * 4 };
	draw_frame(r, &target, &image);
	assert_pixels(out, pixels, "first draw");

	/* One rectangle changes (a stride of the image, not of the rectangle). */
	const int rx = 21, ry = 13, rw = 17, rh = 9;
	for (int y = ry; y < ry + rh; y++)
		for (int x = rx; x < rx + rw; x++)
			pixels[y * W + x] = pattern(x, y, 1);
	struct umms_render_box damage = { rx, ry, rw, rh };
	image.damage = &damage;
	uint64_t bytes = umms_renderer_stats(r)->upload_bytes;
	uint64_t uploads = umms_renderer_stats(r)->uploads;
	draw_frame(r, &target, &image);
	assert_pixels(out, pixels, "partial upload");
	if (strcmp(entry->name, "gles2") == 0) {
		g_assert_cmpuint(umms_renderer_stats(r)->uploads, ==, uploads + 1);
		g_assert_cmpuint(umms_renderer_stats(r)->upload_bytes - bytes, ==,
			(uint64_t)rw * rh * 4);
	}

	/* Forgotten: the next draw uploads it whole, whatever the damage says. */
	umms_renderer_forget(r, image.id);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			pixels[y * W + x] = pattern(x, y, 2);
	bytes = umms_renderer_stats(r)->upload_bytes;
	draw_frame(r, &target, &image);
	assert_pixels(out, pixels, "after forget");
	if (strcmp(entry->name, "gles2") == 0)
		g_assert_cmpuint(umms_renderer_stats(r)->upload_bytes - bytes, ==,
			(uint64_t)W * H * 4);
	g_free(pixels);
	g_free(out);
	umms_renderer_destroy(r);
}

static void
test_target_damage(gconstpointer data)
{
	const struct renderer_entry *entry = data;
	struct umms_renderer *r = create(entry);
	uint32_t *a = g_new(uint32_t, W * H), *b = g_new(uint32_t, W * H);
	uint32_t *out = g_new0(uint32_t, W * H), *want = g_new(uint32_t, W * H);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			a[y * W + x] = pattern(x, y, 3);
			b[y * W + x] = pattern(x, y, 4);
		}
	}
	struct umms_render_image image = { .format = DRM_FORMAT_XRGB8888,
		.modifier = DRM_FORMAT_MOD_LINEAR, .width = W, .height = H, .n_planes = 1,
		.planes[0] = { .fd = -1, .data = a, .stride = W * 4 } };
	struct umms_render_target target = { .format = DRM_FORMAT_XRGB8888, .width = W,
		.height = H, .fd = -1, .data = out, .stride = W * 4 };
	draw_frame(r, &target, &image);
	assert_pixels(out, a, "whole frame");

	/* Image b, repainted only in the box (fractional: whole pixels around it). */
	struct umms_render_box box = { 30.5, 20.25, 24.0, 10.5 };
	target.damage = &box;
	image.planes[0].data = b;
	draw_frame(r, &target, &image);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			want[y * W + x] = x >= 30 && x < 55 && y >= 20 && y < 31 ? b[y * W + x] :
				a[y * W + x];
	assert_pixels(out, want, "damaged frame");

	/* An empty box: nothing changes. */
	struct umms_render_box none = { 0, 0, 0, 0 };
	target.damage = &none;
	image.planes[0].data = a;
	draw_frame(r, &target, &image);
	assert_pixels(out, want, "empty damage");

	/*
	 * Other memory, damage given: what is outside the box there is the
	 * caller's, inside it is repainted (gles2: all of it, since what it
	 * kept is of the other memory).
	 */
	uint32_t *other = g_new0(uint32_t, W * H);
	memcpy(other, b, W * H * 4);
	target.data = other;
	target.damage = &box;
	draw_frame(r, &target, &image);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			bool in = x >= 30 && x < 55 && y >= 20 && y < 31;
			uint32_t g = other[y * W + x] & 0xffffff;
			if (in || strcmp(entry->name, "gles2") == 0)
				g_assert_cmphex(g, ==, a[y * W + x] & 0xffffff);
			else
				g_assert_cmphex(g, ==, b[y * W + x] & 0xffffff);
		}
	}
	g_free(other);
	g_free(a);
	g_free(b);
	g_free(out);
	g_free(want);
	umms_renderer_destroy(r);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(renderers); i++) {
		char *path = g_strdup_printf("/renderer-damage/%s/partial-upload",
			renderers[i].name);
		g_test_add_data_func(path, &renderers[i], test_partial_upload);
		g_free(path);
		path = g_strdup_printf("/renderer-damage/%s/target-damage", renderers[i].name);
		g_test_add_data_func(path, &renderers[i], test_target_damage);
		g_free(path);
	}
	return g_test_run();
}
