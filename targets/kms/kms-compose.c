/*
 * The KMS output's drawing (kms-output-private.h): the composition rung
 * (the video and the UI drawn together into the primary plane's buffer)
 * and the UI layer under an overlay, both with a renderer
 * (renderers/renderer.h): gles2 on the device's GBM display, or pixman.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <string.h>

#include "error.h"
#include "frame-image.h"
#include "gles2.h"
#include "kms-output-private.h"
#include "log.h"
#include "pixman-renderer.h"

/*
 * A dumb buffer as the renderer's target: its memory for pixman, its
 * dma-buf for gles2 (drawn by the GPU, finished before the commit).
 */
static struct umms_render_target
dumb_target(struct kms_output *o, struct kms_dumb *dst)
{
	struct umms_render_target t = { .format = DRM_FORMAT_XRGB8888,
		.width = dst->width, .height = dst->height, .fd = -1, .data = dst->map,
		.stride = dst->pitch };
	if (o->gl) {
		t.dmabuf = true;
		t.fd = kms_dumb_export(o->dev->fd, dst);
		t.data = NULL;
		t.modifier = DRM_FORMAT_MOD_LINEAR;
		t.id = dst->fb_id;
	}
	return t;
}

/* The UI over what the renderer holds, and black where the video over it leaves bars. */
static void
draw_ui_layer(struct kms_output *o)
{
	if (!o->ui || !o->ui_visible)
		return;
	int a[4];
	kms_output_area(o, a);
	struct umms_render_box box = { a[0], a[1], a[2], a[3] };
	o->ui->draw(o->ui_data, o->renderer, &box);
	if (o->placed && o->place.above_ui && !kms_output_video_hidden(o)) {
		struct umms_render_box r = { a[0] + o->place.x, a[1] + o->place.y, o->place.width,
			o->place.height };
		umms_renderer_fill(o->renderer, &r, 0);
	}
}

void
kms_output_ui_stale(struct kms_output *o)
{
	o->ui_stale_all[0] = o->ui_stale_all[1] = true;
}

static void
box_add(struct umms_render_box *to, const struct umms_render_box *b)
{
	if (!(b->width > 0 && b->height > 0))
		return;
	if (!(to->width > 0 && to->height > 0)) {
		*to = *b;
		return;
	}
	double x0 = MIN(to->x, b->x), y0 = MIN(to->y, b->y);
	double x1 = MAX(to->x + to->width, b->x + b->width);
	double y1 = MAX(to->y + to->height, b->y + b->height);
	*to = (struct umms_render_box){ x0, y0, x1 - x0, y1 - y0 };
}

/*
 * What UI buffer @i must repaint (false: all of it): the UI's damage since
 * the last draw, added to what each buffer missed since it was drawn.
 */
static bool
ui_damage(struct kms_output *o, int i, struct umms_render_box *box)
{
	int a[4];
	kms_output_area(o, a);
	struct umms_render_box area = { a[0], a[1], a[2], a[3] }, d;
	if (!o->ui->damage || !o->ui->damage(o->ui_data, &area, &d))
		kms_output_ui_stale(o);
	else
		for (int k = 0; k < 2; k++)
			box_add(&o->ui_stale[k], &d);
	if (o->ui_stale_all[i])
		return false;
	*box = o->ui_stale[i];
	return true;
}

/* Draws the UI into @dst (black under it), only @damage of it if not NULL. */
static void
draw_ui(struct kms_output *o, struct kms_dumb *dst, const struct umms_render_box *damage)
{
	struct umms_render_target target = dumb_target(o, dst);
	target.damage = damage;
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_begin(o->renderer, &target, &error)) {
		umms_warn("display: %s", error->message);
		return;
	}
	umms_renderer_clear(o->renderer, 0xff000000);
	o->redraws++;
	o->damaged_pixels += damage ? (uint64_t)(damage->width * damage->height) :
		(uint64_t)dst->width * dst->height;
	draw_ui_layer(o);
	if (!umms_renderer_end(o->renderer, &error))
		umms_warn("display: %s", error->message);
}

/* What the primary plane shows under an overlay: the UI, or black. */
uint32_t
kms_output_background_fb(struct kms_output *o)
{
	if (!o->ui || !o->ui_visible)
		return o->black.fb_id;
	if (o->ui_dirty || !o->ui_fb) {
		/* Drawn into the buffer not on screen, what it missed since it was drawn. */
		int i = o->ui_next;
		struct umms_render_box box;
		bool partial = o->ui_fb && ui_damage(o, i, &box);
		o->ui_dirty = false;
		if (partial && !(box.width > 0 && box.height > 0))
			return o->ui_fb;   /* nothing changed: the buffer on screen again */
		draw_ui(o, &o->ui_buf[i], partial ? &box : NULL);
		o->ui_stale[i] = (struct umms_render_box){ 0, 0, 0, 0 };
		o->ui_stale_all[i] = false;
		o->ui_fb = o->ui_buf[i].fb_id;
		o->ui_next ^= 1;
	}
	return o->ui_fb;
}

/* The video and the UI drawn together into @dst with the renderer, stacked as placed. */
/*
 * The subtitles over the picture. The renderer keeps an upload per serial
 * (the image never changes under it), so a cue standing over many frames
 * is uploaded once; the one before is forgotten.
 */
static bool
draw_sub(struct kms_output *o, const struct umms_subpicture *sub,
	const struct umms_layout_overlay *at, GError **error)
{
	struct umms_render_image image;
	umms_subpicture_render_image(sub, &image);
	if (o->composed_sub && o->composed_sub != sub->serial)
		umms_renderer_forget(o->renderer, umms_subpicture_image_id(o->composed_sub));
	o->composed_sub = sub->serial;
	struct umms_render_box src = { at->src_x, at->src_y, at->src_width, at->src_height };
	struct umms_render_box box = { at->x, at->y, at->width, at->height };
	return umms_renderer_draw(o->renderer, &image, &src, &box, error);
}

bool
kms_output_compose(struct kms_output *o, struct kms_dumb *dst, struct umms_frame *frame,
	const struct umms_layout *l, const struct umms_layout_overlay *sub)
{
	struct umms_render_image image;
	umms_frame_render_image(frame, kms_frame_cache_map(o->cache, frame), &image);
	if (!umms_renderer_can_draw(o->renderer, &image))
		return false;
	struct umms_render_target target = dumb_target(o, dst);
	g_autoptr(GError) error = NULL;
	if (!umms_renderer_begin(o->renderer, &target, &error))
		goto fail;
	umms_renderer_clear(o->renderer, 0xff000000);
	o->redraws++;
	o->damaged_pixels += (uint64_t)dst->width * dst->height;
	/* The UI drawn here takes its damage along: its own buffers miss it. */
	kms_output_ui_stale(o);
	bool above = o->placed && o->place.above_ui;
	if (above)
		draw_ui_layer(o);
	if (l->visible && l->video_width > 0 && l->video_height > 0) {
		struct umms_render_box src = { l->src_x, l->src_y, l->src_width, l->src_height };
		struct umms_render_box box = { l->video_x, l->video_y, l->video_width,
			l->video_height };
		if (!umms_renderer_draw(o->renderer, &image, &src, &box, &error) ||
				(sub && !draw_sub(o, frame->subpicture, sub, &error))) {
			umms_renderer_end(o->renderer, NULL);
			goto fail;
		}
	}
	if (!above)
		draw_ui_layer(o);
	if (!umms_renderer_end(o->renderer, &error))
		goto fail;
	return true;
fail:
	umms_debug("display: composition: %s", error ? error->message : "failed");
	return false;
}

/*
 * What composes (the last rung) and draws the UI layer: pixman into the
 * dumb buffers' memory (auto), or, asked for, gles2 on the device's GBM
 * display drawing into their dma-bufs. Not auto yet: on the test VM (vkms,
 * Mesa 22.3 llvmpipe through GBM) some 64x64 tiles of a composited picture
 * come out with red and blue swapped, and no GPU here can say whether
 * hardware drivers get it right.
 */
bool
kms_output_make_renderer(struct kms_output *o, const char *name, GError **error)
{
	if (name && strcmp(name, "gles2") == 0) {
		g_autoptr(GError) gl_error = NULL;
		struct umms_gles2_config gc = { .drm_fd = o->dev->fd };
		struct umms_renderer *r = umms_gles2_renderer_create(&gc, &gl_error);
		const char *why = gl_error ? gl_error->message : NULL;
		if (r && !umms_gles2_renderer_has_dmabuf(r))
			why = "no dma-buf import to draw into the display's buffers";
		if (r && !why) {
			o->renderer = r;
			o->gl = true;
			o->renderer_name = g_strdup_printf("gles2 (%s)",
				umms_gles2_renderer_describe(r));
			umms_info("display: composing with %s", o->renderer_name);
			return true;
		}
		umms_renderer_destroy(r);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"display.renderer=gles2: %s", why);
		return false;
	} else if (name && *name && strcmp(name, "auto") != 0 && strcmp(name, "pixman") != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"display.renderer \"%s\": expected auto, gles2 or pixman", name);
		return false;
	}
	o->renderer = umms_pixman_renderer_create(error);
	o->renderer_name = g_strdup("pixman");
	return o->renderer != NULL;
}

