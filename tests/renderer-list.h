/* The renderers the renderer tests run each case with (test-renderer, test-renderer-damage). */
#ifndef UMMS_TESTS_RENDERER_LIST_H
#define UMMS_TESTS_RENDERER_LIST_H

#include <glib.h>

#include "renderer.h"

struct renderer_entry {
	const char *name;
	struct umms_renderer *(*create)(GError **error);
};

/* gles2 on the surfaceless EGL display (llvmpipe here), pixman. */
#define RENDERER_COUNT 2
extern const struct renderer_entry renderers[RENDERER_COUNT];

/* The gles2 renderer on the default (surfaceless) display. */
struct umms_renderer *create_gles2(GError **error);

#endif
