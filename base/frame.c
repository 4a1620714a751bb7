#include <glib.h>

#include "frame.h"
#include "subpicture.h"

struct umms_frame *
umms_frame_ref(struct umms_frame *frame)
{
	g_assert(frame->refs > 0);
	frame->refs++;
	return frame;
}

void
umms_frame_unref(struct umms_frame *frame)
{
	if (!frame)
		return;
	g_assert(frame->refs > 0);
	if (--frame->refs > 0)
		return;
	umms_subpicture_unref(frame->subpicture);
	frame->subpicture = NULL;
	frame->destroy(frame);
}

bool
umms_frame_same_geometry(const struct umms_frame *a, const struct umms_frame *b)
{
	return a->width == b->width && a->height == b->height &&
		a->crop_x == b->crop_x && a->crop_y == b->crop_y &&
		a->crop_width == b->crop_width && a->crop_height == b->crop_height &&
		a->par_n == b->par_n && a->par_d == b->par_d;
}

bool
umms_frame_dmabuf_format_in(const struct umms_frame_dmabuf_format *list, size_t n,
	uint32_t format, uint64_t modifier)
{
	for (size_t i = 0; i < n; i++) {
		if (list[i].format != format)
			continue;
		if (list[i].modifier == modifier || (list[i].modifier == UMMS_FRAME_MOD_INVALID &&
				modifier == UMMS_FRAME_MOD_LINEAR))
			return true;
	}
	return false;
}
