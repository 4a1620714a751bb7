/* Service frames as renderer images (frame-image.h). */
#include <drm_fourcc.h>

#include "frame-image.h"
#include "subpicture.h"

uint32_t
umms_frame_drm_format(const struct umms_frame *frame)
{
	if (frame->kind == UMMS_FRAME_DMABUF)
		return frame->format;
	/* wl_shm: fourccs, except the two oldest codes. */
	return frame->format == 0 ? DRM_FORMAT_ARGB8888 :
		frame->format == 1 ? DRM_FORMAT_XRGB8888 : frame->format;
}

/* Subpictures are told apart from frames and surfaces (bit 63) in import caches. */
#define SUBPICTURE_IMAGE_ID (UINT64_C(1) << 62)

uint64_t
umms_subpicture_image_id(uint64_t serial)
{
	return SUBPICTURE_IMAGE_ID | serial;
}

void
umms_subpicture_render_image(const struct umms_subpicture *subpicture,
	struct umms_render_image *out)
{
	*out = (struct umms_render_image){
		.format = DRM_FORMAT_ARGB8888,
		.modifier = DRM_FORMAT_MOD_LINEAR,
		.width = subpicture->width, .height = subpicture->height,
		.n_planes = 1,
		.planes[0] = { .fd = -1, .data = subpicture->data, .stride = subpicture->stride },
		.id = umms_subpicture_image_id(subpicture->serial),
		.unchanged = true,
	};
}

void
umms_frame_render_image(const struct umms_frame *frame, const uint8_t *map,
	struct umms_render_image *out)
{
	bool dmabuf = frame->kind == UMMS_FRAME_DMABUF;
	*out = (struct umms_render_image){
		.format = umms_frame_drm_format(frame),
		.modifier = dmabuf ? frame->modifier : DRM_FORMAT_MOD_LINEAR,
		.width = frame->width, .height = frame->height,
		.dmabuf = dmabuf,
		.n_planes = frame->n_planes,
		.matrix = frame->height >= 720 ? UMMS_COLOR_BT709 : UMMS_COLOR_BT601,
		.range = UMMS_COLOR_RANGE_LIMITED,
		.id = frame->memory_id,
	};
	for (int i = 0; i < frame->n_planes && i < UMMS_RENDER_MAX_PLANES; i++) {
		const struct umms_frame_plane *p = &frame->planes[i];
		out->planes[i] = (struct umms_render_plane){
			.fd = dmabuf ? p->fd : -1,
			.data = dmabuf || !map ? NULL : map + p->offset,
			.offset = dmabuf ? p->offset : 0,
			.stride = p->stride,
		};
	}
}

void
umms_frame_layout(const struct umms_frame *frame, const int area[4],
	enum umms_layout_scale zoom, const struct umms_screen_video_place *place,
	struct umms_layout *out)
{
	struct umms_layout_input in = {
		.x = area[0], .y = area[1], .width = area[2], .height = area[3],
		.scale = zoom,
		.buffer_width = frame->width, .buffer_height = frame->height,
		.crop_x = frame->crop_x, .crop_y = frame->crop_y,
		.crop_width = frame->crop_width, .crop_height = frame->crop_height,
		.par_n = frame->par_n, .par_d = frame->par_d,
	};
	if (place) {
		in.x += place->x, in.y += place->y;
		in.width = place->width, in.height = place->height;
		in.scale = place->scale;
	}
	umms_layout_compute(&in, out);
}

bool
umms_frame_place_subpicture(const struct umms_frame *frame, const struct umms_layout *layout,
	struct umms_layout_overlay *out)
{
	const struct umms_subpicture *sub = frame->subpicture;
	if (!sub || !sub->data) {
		*out = (struct umms_layout_overlay){ 0 };
		return false;
	}
	const struct umms_layout_overlay_input in = {
		.crop_x = frame->crop_x, .crop_y = frame->crop_y,
		.crop_width = frame->crop_width, .crop_height = frame->crop_height,
		.picture_width = sub->picture_width, .picture_height = sub->picture_height,
		.x = sub->x, .y = sub->y, .width = sub->width, .height = sub->height,
	};
	return umms_layout_place_overlay(layout, &in, out);
}
