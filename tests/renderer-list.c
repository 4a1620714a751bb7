/* The renderers the renderer tests run each case with: see renderer-list.h. */
#include "gles2.h"
#include "pixman-renderer.h"
#include "renderer-list.h"

struct umms_renderer *
create_gles2(GError **error)
{
	return umms_gles2_renderer_create(NULL, error);
}

const struct renderer_entry renderers[RENDERER_COUNT] = {
	{ "gles2", create_gles2 },
	{ "pixman", umms_pixman_renderer_create },
};
