/*
 * dma-bufs for the renderer test (tests/test-renderer.c), made without a
 * GPU: on this host, GL textures of the gles2 renderer's own context
 * exported with EGL_MESA_image_dma_buf_export (where Mesa offers it); in
 * the KMS test VM, dumb buffers of vkms's card exported through PRIME
 * (Mesa's GBM display there imports dma-bufs but does not export
 * textures).
 */
#ifndef UMMS_TESTS_RENDERER_DMABUF_H
#define UMMS_TESTS_RENDERER_DMABUF_H

#include <stdbool.h>
#include <GLES2/gl2.h>

#include "gles2.h"
#include "renderer.h"

#define VM_CARD "/dev/dri/card0"

/* The VM's card once create_gles2_gbm() opened it, else -1. */
extern int vm_card;

struct test_dmabuf {
	int fd;
	uint32_t fourcc, stride, offset;
	uint64_t modifier;
	struct umms_render_image image;  /* the buffer as one plane of its fourcc */
};

/* The gles2 renderer on a GBM display of the VM's card (kept open). */
struct umms_renderer *create_gles2_gbm(GError **error);
/* Whether dma-bufs can be made here (with the renderer's context current). */
bool test_dmabuf_available(void);
/* Whether the current context is GLES 3. */
bool gl_es3(void);
/* A one-plane dma-buf of @width x @height holding @data (rows of @row_length pixels). */
bool test_dmabuf_make(struct test_dmabuf *b, GLenum internal, GLenum format, int width,
	int height, const void *data, int row_length);
void test_dmabuf_finish(struct test_dmabuf *b);

#endif
