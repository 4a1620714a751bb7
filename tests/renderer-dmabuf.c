/*
 * dma-bufs for tests/test-renderer.c, made without a GPU (renderer-dmabuf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include "renderer-dmabuf.h"

/*
 * In the KMS test VM: a GBM display on vkms's card, where Mesa imports and
 * exports dma-bufs (its surfaceless display on this host does neither).
 * The card stays open for the whole run, as the renderer requires.
 */
#define VM_CARD "/dev/dri/card0"

int vm_card = -1;

struct umms_renderer *
create_gles2_gbm(GError **error)
{
	int fd = vm_card;
	if (fd < 0 && (fd = vm_card = open(VM_CARD, O_RDWR | O_CLOEXEC)) < 0) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno), "%s: %s", VM_CARD,
			g_strerror(errno));
		return NULL;
	}
	struct umms_gles2_config config = { .drm_fd = fd };
	return umms_gles2_renderer_create(&config, error);
}

/* dma-bufs made without a GPU: GL textures of the gles2 renderer's own
 * context (current after create(), gles2.h) exported as dma-bufs with
 * EGL_MESA_image_dma_buf_export, then described to the renderer. */

bool
test_dmabuf_available(void)
{
	if (vm_card >= 0)
		return true;   /* dumb buffers, not exported textures */
	EGLDisplay display = eglGetCurrentDisplay();
	if (display == EGL_NO_DISPLAY)
		return false;
	const char *exts = eglQueryString(display, EGL_EXTENSIONS);
	return exts && strstr(exts, "EGL_MESA_image_dma_buf_export") &&
		strstr(exts, "EGL_KHR_gl_texture_2D_image");
}

bool
gl_es3(void)
{
	return g_str_has_prefix((const char *)glGetString(GL_VERSION), "OpenGL ES 3");
}

/*
 * On the VM's card: a dumb buffer (what KMS scans out) filled by the CPU
 * and exported through PRIME, as a decoder's or a client's dma-buf would
 * come. Mesa's GBM display there does not export textures.
 */
static bool
test_dmabuf_make_dumb(struct test_dmabuf *b, int bpp, int width, int height, const void *data,
	int row_length)
{
	struct drm_mode_create_dumb create = { .width = (uint32_t)width,
		.height = (uint32_t)height, .bpp = (uint32_t)bpp * 8 };
	if (drmIoctl(vm_card, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
		return false;
	struct drm_mode_map_dumb map = { .handle = create.handle };
	uint8_t *pixels = MAP_FAILED;
	if (drmIoctl(vm_card, DRM_IOCTL_MODE_MAP_DUMB, &map) == 0)
		pixels = mmap(NULL, create.size, PROT_WRITE, MAP_SHARED, vm_card, (off_t)map.offset);
	bool ok = pixels != MAP_FAILED;
	for (int y = 0; ok && y < height; y++)
		memcpy(pixels + (size_t)y * create.pitch,
			(const uint8_t *)data + (size_t)y * (size_t)row_length * (size_t)bpp,
			(size_t)width * (size_t)bpp);
	if (pixels != MAP_FAILED)
		munmap(pixels, create.size);
	b->fd = -1;
	ok = ok && drmPrimeHandleToFD(vm_card, create.handle, DRM_CLOEXEC | DRM_RDWR, &b->fd) == 0;
	struct drm_mode_destroy_dumb destroy = { .handle = create.handle };
	drmIoctl(vm_card, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	if (!ok)
		return false;
	b->stride = create.pitch, b->offset = 0, b->modifier = DRM_FORMAT_MOD_LINEAR;
	b->image = (struct umms_render_image){
		.modifier = b->modifier, .width = width, .height = height, .dmabuf = true,
		.n_planes = 1, .planes[0] = { .fd = b->fd, .offset = 0, .stride = b->stride },
	};
	return true;
}

bool
test_dmabuf_make(struct test_dmabuf *b, GLenum internal, GLenum format, int width, int height,
	const void *data, int row_length)
{
	if (vm_card >= 0) {
		int bpp = internal == GL_RGBA ? 4 : internal == 0x822B ? 2 : 1;
		return test_dmabuf_make_dumb(b, bpp, width, height, data, row_length);
	}
	EGLDisplay display = eglGetCurrentDisplay();
	PFNEGLCREATEIMAGEKHRPROC create_image =
		(PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
	PFNEGLDESTROYIMAGEKHRPROC destroy_image =
		(PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
	PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC query =
		(PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC)eglGetProcAddress(
			"eglExportDMABUFImageQueryMESA");
	PFNEGLEXPORTDMABUFIMAGEMESAPROC export =
		(PFNEGLEXPORTDMABUFIMAGEMESAPROC)eglGetProcAddress("eglExportDMABUFImageMESA");
	g_assert_true(create_image && destroy_image && query && export);

	GLuint tex = 0;
	glGenTextures(1, &tex);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, tex);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	if (row_length)
		glPixelStorei(GL_UNPACK_ROW_LENGTH_EXT, row_length);
	glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, width, height, 0, format,
		GL_UNSIGNED_BYTE, data);
	glPixelStorei(GL_UNPACK_ROW_LENGTH_EXT, 0);
	glFinish();
	const EGLint attribs[] = { EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE };
	EGLImageKHR image = create_image(display, eglGetCurrentContext(), EGL_GL_TEXTURE_2D_KHR,
		(EGLClientBuffer)(uintptr_t)tex, attribs);
	bool ok = false;
	int fourcc = 0, n_planes = 0;
	EGLuint64KHR modifier = 0;
	EGLint stride = 0, offset = 0;
	b->fd = -1;
	if (image != EGL_NO_IMAGE_KHR) {
		ok = query(display, image, &fourcc, &n_planes, &modifier) && n_planes == 1 &&
			export(display, image, &b->fd, &stride, &offset) && b->fd >= 0;
		destroy_image(display, image);
	}
	glDeleteTextures(1, &tex);
	if (!ok) {
		g_test_message("exporting a %dx%d texture (0x%x) failed: EGL 0x%x", width, height,
			internal, eglGetError());
		return false;
	}
	b->fourcc = (uint32_t)fourcc, b->stride = (uint32_t)stride;
	b->offset = (uint32_t)offset, b->modifier = modifier;
	b->image = (struct umms_render_image){
		.format = b->fourcc, .modifier = modifier, .width = width, .height = height,
		.dmabuf = true, .n_planes = 1,
		.planes[0] = { .fd = b->fd, .offset = b->offset, .stride = b->stride },
	};
	return true;
}

void
test_dmabuf_finish(struct test_dmabuf *b)
{
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}
