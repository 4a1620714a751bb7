/*
 * The gles2 renderer: EGL and OpenGL ES 2 (ES 3 where the driver has it,
 * nothing of ES 3 required), no window surface: every frame is drawn into a
 * framebuffer object. Implements struct umms_renderer_impl (renderer.h).
 *
 * Display: a GBM device on @config->drm_fd (a DRM render node or card) when
 * given, else Mesa's surfaceless platform (llvmpipe with no GPU at all).
 *
 * Targets: memory targets (XRGB8888, ARGB8888) are drawn into a renderbuffer
 * and read back at end(), into target->data with target->stride, in DRM
 * byte order (B, G, R, A); dma-buf targets are imported as EGLImages behind
 * a renderbuffer (cached by target->id) and end() waits for the GPU
 * (glFinish).
 *
 * Images: memory images are uploaded each draw (stats.uploads), into
 * textures kept by image->id; dma-buf images are imported once per id
 * (stats.imports counts imports made, stats.cached the images and targets
 * held) until forget(id). RGB formats: XRGB8888, ARGB8888, XBGR8888,
 * ABGR8888, RGB565. YUV: NV12, YUV420, YUYV, P010, converted by our shaders
 * with the image's matrix and range; dma-buf YUV is imported one plane per
 * EGLImage (R8, GR88, ABGR8888), except NV12, which create() tests both
 * ways on the driver (one external-OES EGLImage against one EGLImage per
 * plane) and imports the way that gave the right pixels (describe()).
 * Alpha formats are premultiplied (as wl_shm ARGB8888 is) and drawn OVER;
 * opaque formats replace what is under them.
 *
 * Threads: one thread uses a renderer. Its EGL context is current on that
 * thread after create() and after every call (the tests use it to make
 * their own textures); callers that use GL themselves must not change the
 * renderer's objects, and may change any GL state between frames: begin()
 * sets what it needs. Several renderers may share the EGL display: the
 * surfaceless display is never terminated (it is one per process, shared
 * with any other EGL user), a GBM one is at destroy().
 */
#ifndef UMMS_RENDERERS_GLES2_H
#define UMMS_RENDERERS_GLES2_H

#include "renderer.h"

struct umms_gles2_config {
	/* A DRM device (render node or card) for a GBM display, or -1 for
	 * surfaceless. Not owned: it must stay open until destroy(). */
	int drm_fd;
};

/* @config may be NULL (surfaceless). NULL with @error set when EGL, the
 * display or a GLES 2 context cannot be had. */
struct umms_renderer *umms_gles2_renderer_create(const struct umms_gles2_config *config,
	GError **error);

/* One line for logs: the GL renderer, the context version, the dma-buf paths
 * chosen (NV12 per plane or external) and why. NULL for another renderer. */
const char *umms_gles2_renderer_describe(struct umms_renderer *renderer);

/* GL objects (textures, renderbuffers, framebuffers, programs, shaders) and
 * EGLImages the renderer holds now; for tests that check nothing grows. */
unsigned umms_gles2_renderer_gl_objects(struct umms_renderer *renderer);

/* Whether dma-buf images and targets can be imported at all. */
bool umms_gles2_renderer_has_dmabuf(struct umms_renderer *renderer);

#endif
