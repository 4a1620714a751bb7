/*
 * Frames into the application's GL context: memfd planes uploaded into
 * textures reused from frame to frame; dma-buf planes imported as EGLImages
 * (EGL_EXT_image_dma_buf_import), once per buffer, and bound to textures.
 * Also what the EGL display can import, announced to ummsd before attaching.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gl-private.h"

/* GLES 3 names, so this builds against GLES2 headers only. */
#define GLES3_R8 0x8229
#define GLES3_RG8 0x822B
#define GLES3_RED 0x1903
#define GLES3_RG 0x8227
#define GLES3_UNPACK_ROW_LENGTH 0x0CF2

static bool
has_ext(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += len) {
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	}
	return false;
}

GLuint
gl_new_texture(struct umms_gl *gl, GLenum target)
{
	GLuint texture = 0;
	glGenTextures(1, &texture);
	glBindTexture(target, texture);
	glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	gl->counts.textures++;
	return texture;
}

void
gl_delete_texture(struct umms_gl *gl, GLuint *texture)
{
	if (!*texture)
		return;
	glDeleteTextures(1, texture);
	*texture = 0;
	gl->counts.textures--;
}

/* ---- what EGL imports ---------------------------------------------------------- */

/* DRM fourccs the snippets sample, as a whole image or per plane. */
static const uint32_t dmabuf_wanted[] = {
	GL_DRM_XRGB8888, GL_DRM_ARGB8888, GL_DRM_NV12, GL_DRM_YUV420,
};

static void
find_egl(struct umms_gl *gl, EGLDisplay display)
{
	gl->egl_display = display;
	const char *exts = display != EGL_NO_DISPLAY ?
		eglQueryString(display, EGL_EXTENSIONS) : NULL;
	gl->create_image = (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
	gl->destroy_image = (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
	gl->dmabuf_import = has_ext(exts, "EGL_EXT_image_dma_buf_import") &&
		has_ext(exts, "EGL_KHR_image_base") && gl->create_image && gl->destroy_image;
	gl->n_dmabuf_formats = 0;
	if (!gl->dmabuf_import || !has_ext(exts, "EGL_EXT_image_dma_buf_import_modifiers"))
		return;
	PFNEGLQUERYDMABUFFORMATSEXTPROC query_formats = (PFNEGLQUERYDMABUFFORMATSEXTPROC)
		eglGetProcAddress("eglQueryDmaBufFormatsEXT");
	EGLint formats[GL_MAX_DMABUF_FORMATS], n = 0;
	if (query_formats && query_formats(display, GL_MAX_DMABUF_FORMATS, formats, &n)) {
		for (EGLint i = 0; i < n; i++)
			gl->dmabuf_formats[gl->n_dmabuf_formats++] = (uint32_t)formats[i];
	}
}

static bool
egl_imports(struct umms_gl *gl, uint32_t fourcc)
{
	/* Without the list (no modifiers extension), try and see. */
	if (gl->n_dmabuf_formats == 0)
		return gl->dmabuf_import;
	for (int i = 0; i < gl->n_dmabuf_formats; i++) {
		if (gl->dmabuf_formats[i] == fourcc)
			return true;
	}
	return false;
}

void
gl_announce_dmabuf(struct umms_gl *gl)
{
	EGLDisplay display = eglGetCurrentDisplay();
	find_egl(gl, display);
	if (!gl->dmabuf_import)
		return;
	PFNEGLQUERYDMABUFMODIFIERSEXTPROC query_modifiers = (PFNEGLQUERYDMABUFMODIFIERSEXTPROC)
		eglGetProcAddress("eglQueryDmaBufModifiersEXT");
	const char *gl_exts = (const char *)glGetString(GL_EXTENSIONS);
	bool external = has_ext(gl_exts, "GL_OES_EGL_image_external");
	for (size_t f = 0; f < sizeof(dmabuf_wanted) / sizeof(dmabuf_wanted[0]); f++) {
		uint32_t fourcc = dmabuf_wanted[f];
		if (gl->n_dmabuf_formats == 0) {
			/* No list of formats: the implicit layout of what everyone imports. */
			if (fourcc == GL_DRM_XRGB8888 || fourcc == GL_DRM_ARGB8888)
				umms_video_manager_v1_dmabuf_format(gl->core.manager, fourcc,
					(uint32_t)(GL_MOD_INVALID >> 32), (uint32_t)GL_MOD_INVALID);
			continue;
		}
		if (!egl_imports(gl, fourcc))
			continue;
		EGLuint64KHR modifiers[64];
		EGLBoolean external_only[64];
		EGLint n = 0;
		if (!query_modifiers || !query_modifiers(display, (EGLint)fourcc, 64, modifiers,
				external_only, &n))
			n = 0;
		if (n == 0) {
			umms_video_manager_v1_dmabuf_format(gl->core.manager, fourcc,
				(uint32_t)(GL_MOD_INVALID >> 32), (uint32_t)GL_MOD_INVALID);
			continue;
		}
		for (EGLint i = 0; i < n; i++) {
			/* Sampled only through an external texture: only if GL has those. */
			if (external_only[i] && !external)
				continue;
			umms_video_manager_v1_dmabuf_format(gl->core.manager, fourcc,
				(uint32_t)(modifiers[i] >> 32), (uint32_t)modifiers[i]);
		}
	}
}

void
gl_probe(struct umms_gl *gl)
{
	gl->gl_probed = true;
	const char *version = (const char *)glGetString(GL_VERSION);
	int major = 2;
	if (version && sscanf(version, "OpenGL ES %d", &major) != 1)
		major = 2;
	gl->gles_version = major;
	const char *exts = (const char *)glGetString(GL_EXTENSIONS);
	gl->bgra_texture = has_ext(exts, "GL_EXT_texture_format_BGRA8888");
	gl->texture_rg = has_ext(exts, "GL_EXT_texture_rg");
	gl->unpack_subimage = has_ext(exts, "GL_EXT_unpack_subimage");
	gl->image_external = has_ext(exts, "GL_OES_EGL_image_external");
	if (has_ext(exts, "GL_OES_EGL_image"))
		gl->image_target_texture = (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)
			eglGetProcAddress("glEGLImageTargetTexture2DOES");
	/* The display of the context in use now (create may have had none current). */
	if (eglGetCurrentDisplay() != gl->egl_display)
		find_egl(gl, eglGetCurrentDisplay());
}

/* ---- uploads ------------------------------------------------------------------- */

struct plane_upload {
	GLenum internal, format;
	int bpp, width, height;
};

/* Whether plane @p of @buffer lies inside its mapping. */
static bool
plane_fits(const struct gl_buffer *buffer, int p, const struct plane_upload *u)
{
	size_t row = (size_t)u->width * (size_t)u->bpp;
	if (p >= buffer->base.n_planes || buffer->base.strides[p] < row || u->height <= 0)
		return false;
	size_t end = (size_t)buffer->base.offsets[p] + (size_t)buffer->base.strides[p] *
		(size_t)(u->height - 1) + row;
	return end <= buffer->map_size;
}

static void
upload_plane(struct umms_gl *gl, int i, const struct plane_upload *u, const uint8_t *data,
	uint32_t stride)
{
	if (!gl->upload_tex[i])
		gl->upload_tex[i] = gl_new_texture(gl, GL_TEXTURE_2D);
	glBindTexture(GL_TEXTURE_2D, gl->upload_tex[i]);
	if (gl->upload_width[i] != u->width || gl->upload_height[i] != u->height ||
			gl->upload_internal[i] != u->internal) {
		/* New size or format: storage once, then updated in place frame after frame. */
		glTexImage2D(GL_TEXTURE_2D, 0, (GLint)u->internal, u->width, u->height, 0,
			u->format, GL_UNSIGNED_BYTE, NULL);
		gl->upload_width[i] = u->width;
		gl->upload_height[i] = u->height;
		gl->upload_internal[i] = u->internal;
	}
	bool row_length = gl->gles_version >= 3 || gl->unpack_subimage;
	if (stride == (uint32_t)(u->width * u->bpp)) {
		glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, u->width, u->height, u->format,
			GL_UNSIGNED_BYTE, data);
	} else if (row_length && stride % (uint32_t)u->bpp == 0) {
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, (GLint)(stride / (uint32_t)u->bpp));
		glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, u->width, u->height, u->format,
			GL_UNSIGNED_BYTE, data);
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, 0);
	} else {
		/* Plain GLES 2: row by row. */
		for (int y = 0; y < u->height; y++)
			glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, u->width, 1, u->format,
				GL_UNSIGNED_BYTE, data + (size_t)y * stride);
	}
}

static void
fill_frame(struct umms_gl *gl, const struct gl_show *show, enum gl_snippet snippet,
	int n_textures, const GLuint *textures, GLenum target)
{
	const struct gl_buffer *buffer = show->buffer;
	struct umms_gl_frame *frame = &gl->frame;
	frame->format = buffer->base.format;
	frame->dmabuf = buffer->base.kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF;
	frame->width = buffer->base.width;
	frame->height = buffer->base.height;
	bool cropped = show->crop_width > 0 && show->crop_height > 0 &&
		show->crop_x + show->crop_width <= buffer->base.width &&
		show->crop_y + show->crop_height <= buffer->base.height;
	frame->crop_x = cropped ? show->crop_x : 0;
	frame->crop_y = cropped ? show->crop_y : 0;
	frame->crop_width = cropped ? show->crop_width : buffer->base.width;
	frame->crop_height = cropped ? show->crop_height : buffer->base.height;
	frame->par_n = show->par_n;
	frame->par_d = show->par_d;
	frame->n_textures = n_textures;
	for (int i = 0; i < GL_MAX_TEX; i++)
		frame->textures[i] = i < n_textures ? textures[i] : 0;
	frame->target = target;
	frame->serial = show->serial;
	frame->due_ns = show->due_ns;
	gl_frame_set_snippet(frame, snippet);
}

bool
gl_upload(struct umms_gl *gl, const struct gl_show *show)
{
	const struct gl_buffer *buffer = show->buffer;
	if (!buffer->map)
		return false;
	int w = buffer->base.width, h = buffer->base.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
	/* One and two channel planes: R8/RG8 where GL has them, else luminance(-alpha). */
	GLenum one_int = GL_LUMINANCE, one = GL_LUMINANCE;
	GLenum two_int = GL_LUMINANCE_ALPHA, two = GL_LUMINANCE_ALPHA;
	bool la = true;
	if (gl->gles_version >= 3) {
		one_int = GLES3_R8, one = GLES3_RED, two_int = GLES3_RG8, two = GLES3_RG;
		la = false;
	} else if (gl->texture_rg) {
		one_int = one = GLES3_RED, two_int = two = GLES3_RG;
		la = false;
	}

	struct plane_upload u[GL_MAX_TEX];
	int n;
	enum gl_snippet snippet;
	switch (buffer->base.format) {
	case WL_SHM_FORMAT_XRGB8888:
	case WL_SHM_FORMAT_ARGB8888: {
		/* B, G, R, A in memory: BGRA uploads where GL takes them, else swapped in the shader. */
		bool alpha = buffer->base.format == WL_SHM_FORMAT_ARGB8888;
		GLenum f = gl->bgra_texture ? GL_BGRA_EXT : GL_RGBA;
		u[0] = (struct plane_upload){ f, f, 4, w, h };
		n = 1;
		snippet = gl->bgra_texture ? (alpha ? GL_SNIPPET_RGBA : GL_SNIPPET_RGBX) :
			(alpha ? GL_SNIPPET_BGRA : GL_SNIPPET_BGRX);
		break;
	}
	case WL_SHM_FORMAT_NV12:
		u[0] = (struct plane_upload){ one_int, one, 1, w, h };
		u[1] = (struct plane_upload){ two_int, two, 2, cw, ch };
		n = 2;
		snippet = la ? GL_SNIPPET_NV12_LA : GL_SNIPPET_NV12;
		break;
	case WL_SHM_FORMAT_YUV420:
		u[0] = (struct plane_upload){ one_int, one, 1, w, h };
		u[1] = (struct plane_upload){ one_int, one, 1, cw, ch };
		u[2] = (struct plane_upload){ one_int, one, 1, cw, ch };
		n = 3;
		snippet = GL_SNIPPET_YUV420;
		break;
	default:
		fprintf(stderr, "umms-gl: ummsd sent a frame in format %#x, which was not asked for\n",
			buffer->base.format);
		return false;
	}
	for (int i = 0; i < n; i++) {
		if (!plane_fits(buffer, i, &u[i])) {
			fprintf(stderr, "umms-gl: plane %d of a %dx%d frame lies outside its memory\n",
				i, w, h);
			return false;
		}
	}

	/* The application's state, given back as it was. */
	GLint bound = 0, alignment = 4, row_length = 0;
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
	if (gl->gles_version >= 3 || gl->unpack_subimage)
		glGetIntegerv(GLES3_UNPACK_ROW_LENGTH, &row_length);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	if (row_length)
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, 0);
	for (int i = 0; i < n; i++)
		upload_plane(gl, i, &u[i], (const uint8_t *)buffer->map + buffer->base.offsets[i],
			buffer->base.strides[i]);
	/* Textures a bigger plane count left behind are not needed now. */
	for (int i = n; i < GL_MAX_TEX; i++) {
		gl_delete_texture(gl, &gl->upload_tex[i]);
		gl->upload_width[i] = gl->upload_height[i] = 0;
		gl->upload_internal[i] = 0;
	}
	glBindTexture(GL_TEXTURE_2D, (GLuint)bound);
	glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
	if (row_length)
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, row_length);

	fill_frame(gl, show, snippet, n, gl->upload_tex, GL_TEXTURE_2D);
	return true;
}

/* ---- dma-buf imports ----------------------------------------------------------- */

static EGLImageKHR
import_image(struct umms_gl *gl, uint32_t fourcc, int width, int height, uint64_t modifier,
	int n_planes, const int *fds, const uint32_t *offsets, const uint32_t *strides,
	const EGLint *extra)
{
	static const EGLint keys[GL_MAX_PLANES][5] = {
		{ EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT, EGL_DMA_BUF_PLANE0_PITCH_EXT,
		  EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT, EGL_DMA_BUF_PLANE1_PITCH_EXT,
		  EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT, EGL_DMA_BUF_PLANE2_PITCH_EXT,
		  EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT, EGL_DMA_BUF_PLANE3_PITCH_EXT,
		  EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT },
	};
	EGLint attribs[6 + GL_MAX_PLANES * 10 + 8 + 1];
	int a = 0;
	attribs[a++] = EGL_WIDTH, attribs[a++] = width;
	attribs[a++] = EGL_HEIGHT, attribs[a++] = height;
	attribs[a++] = EGL_LINUX_DRM_FOURCC_EXT, attribs[a++] = (EGLint)fourcc;
	for (int p = 0; p < n_planes && p < GL_MAX_PLANES; p++) {
		attribs[a++] = keys[p][0], attribs[a++] = fds[p];
		attribs[a++] = keys[p][1], attribs[a++] = (EGLint)offsets[p];
		attribs[a++] = keys[p][2], attribs[a++] = (EGLint)strides[p];
		if (modifier != GL_MOD_INVALID) {
			attribs[a++] = keys[p][3], attribs[a++] = (EGLint)(modifier & 0xffffffff);
			attribs[a++] = keys[p][4], attribs[a++] = (EGLint)(modifier >> 32);
		}
	}
	for (int i = 0; extra && extra[i] != EGL_NONE && i < 8; i += 2) {
		attribs[a++] = extra[i];
		attribs[a++] = extra[i + 1];
	}
	attribs[a++] = EGL_NONE;
	EGLImageKHR image = gl->create_image(gl->egl_display, EGL_NO_CONTEXT,
		EGL_LINUX_DMA_BUF_EXT, NULL, attribs);
	if (image != EGL_NO_IMAGE_KHR)
		gl->counts.images++;
	return image;
}

/* One EGLImage per plane (R8, GR88), sampled with our matrix; false if EGL refuses any. */
static bool
import_planes(struct umms_gl *gl, struct gl_buffer *buffer)
{
	int w = buffer->base.width, h = buffer->base.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
	uint32_t fourccs[GL_MAX_TEX];
	int n;
	if (buffer->base.format == GL_DRM_NV12 && buffer->base.n_planes >= 2) {
		fourccs[0] = GL_DRM_R8, fourccs[1] = GL_DRM_GR88;
		n = 2;
	} else if (buffer->base.format == GL_DRM_YUV420 && buffer->base.n_planes >= 3) {
		fourccs[0] = fourccs[1] = fourccs[2] = GL_DRM_R8;
		n = 3;
	} else if ((buffer->base.format == GL_DRM_XRGB8888 ||
			buffer->base.format == GL_DRM_ARGB8888) && buffer->base.n_planes >= 1) {
		fourccs[0] = buffer->base.format;
		n = 1;
	} else {
		return false;
	}
	for (int p = 0; p < n; p++) {
		if (!egl_imports(gl, fourccs[p]))
			return false;
	}
	for (int p = 0; p < n; p++) {
		buffer->images[p] = import_image(gl, fourccs[p], p == 0 ? w : cw, p == 0 ? h : ch,
			buffer->base.modifier, 1, &buffer->base.fds[p], &buffer->base.offsets[p],
			&buffer->base.strides[p], NULL);
		buffer->n_images = p + 1;
		if (buffer->images[p] == EGL_NO_IMAGE_KHR)
			return false;
	}
	return true;
}

/* The whole buffer as one external image: the driver samples and converts it. */
static bool
import_external(struct umms_gl *gl, struct gl_buffer *buffer)
{
	if (!gl->image_external)
		return false;
	/* Our rule for YUV without colorimetry (umms-gl.h). */
	const EGLint hints[] = {
		EGL_YUV_COLOR_SPACE_HINT_EXT, buffer->base.height >= 720 ? EGL_ITU_REC709_EXT :
			EGL_ITU_REC601_EXT,
		EGL_SAMPLE_RANGE_HINT_EXT, EGL_YUV_NARROW_RANGE_EXT,
		EGL_NONE,
	};
	bool yuv = buffer->base.format == GL_DRM_NV12 || buffer->base.format == GL_DRM_YUV420;
	const struct umms_core_buffer *base = &buffer->base;
	buffer->images[0] = import_image(gl, base->format, base->width, base->height,
		base->modifier, base->n_planes, base->fds, base->offsets, base->strides,
		yuv ? hints : NULL);
	buffer->n_images = 1;
	buffer->external = true;
	return buffer->images[0] != EGL_NO_IMAGE_KHR;
}

void
gl_buffer_unimport(struct umms_gl *gl, struct gl_buffer *buffer)
{
	for (int i = 0; i < GL_MAX_TEX; i++) {
		gl_delete_texture(gl, &buffer->textures[i]);
		if (i < buffer->n_images && buffer->images[i] != EGL_NO_IMAGE_KHR) {
			gl->destroy_image(gl->egl_display, buffer->images[i]);
			gl->counts.images--;
		}
		buffer->images[i] = EGL_NO_IMAGE_KHR;
	}
	buffer->n_images = 0;
	buffer->external = false;
}

static bool
import_buffer(struct umms_gl *gl, struct gl_buffer *buffer)
{
	if (!gl->dmabuf_import || !gl->image_target_texture) {
		fprintf(stderr, "umms-gl: ummsd sent a dma-buf frame, and this EGL display "
			"cannot import dma-bufs (EGL_EXT_image_dma_buf_import, GL_OES_EGL_image)\n");
		return false;
	}
	if (!import_planes(gl, buffer)) {
		gl_buffer_unimport(gl, buffer);
		if (!import_external(gl, buffer)) {
			gl_buffer_unimport(gl, buffer);
			const struct umms_core_buffer *base = &buffer->base;
			fprintf(stderr, "umms-gl: EGL refused the dma-buf import of a %.4s %dx%d "
				"frame (modifier %#llx): EGL error %#x\n", (const char *)&base->format,
				base->width, base->height, (unsigned long long)base->modifier,
				eglGetError());
			return false;
		}
	}
	GLenum target = buffer->external ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D;
	GLint bound = 0;
	glGetIntegerv(buffer->external ? GL_TEXTURE_BINDING_EXTERNAL_OES : GL_TEXTURE_BINDING_2D,
		&bound);
	bool ok = true;
	for (int i = 0; i < buffer->n_images; i++) {
		buffer->textures[i] = gl_new_texture(gl, target);
		gl->image_target_texture(target, buffer->images[i]);
		ok = ok && glGetError() == GL_NO_ERROR;
	}
	glBindTexture(target, (GLuint)bound);
	if (!ok) {
		fprintf(stderr, "umms-gl: GL refused the EGLImage of a %.4s dma-buf as a texture\n",
			(const char *)&buffer->base.format);
		gl_buffer_unimport(gl, buffer);
		return false;
	}
	gl->counts.imported++;
	return true;
}

bool
gl_import(struct umms_gl *gl, const struct gl_show *show)
{
	struct gl_buffer *buffer = show->buffer;
	if (!buffer->import_tried) {
		buffer->import_tried = true;
		/* Clear stale errors so the check after binding sees ours only. */
		while (glGetError() != GL_NO_ERROR)
			;
		bool ok = import_buffer(gl, buffer);
		/* The EGLImages hold the memory now (or nothing can be done with it). */
		umms_core_buffer_close_fds(&buffer->base);
		if (!ok)
			return false;
	}
	if (buffer->n_images == 0)
		return false;
	enum gl_snippet snippet;
	if (buffer->external)
		snippet = GL_SNIPPET_EXTERNAL;
	else if (buffer->base.format == GL_DRM_NV12)
		snippet = GL_SNIPPET_NV12;
	else if (buffer->base.format == GL_DRM_YUV420)
		snippet = GL_SNIPPET_YUV420;
	else
		snippet = buffer->base.format == GL_DRM_ARGB8888 ? GL_SNIPPET_RGBA : GL_SNIPPET_RGBX;
	fill_frame(gl, show, snippet, buffer->n_images, buffer->textures,
		buffer->external ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D);
	return true;
}

void
gl_textures_finish(struct umms_gl *gl)
{
	for (int i = 0; i < GL_MAX_TEX; i++)
		gl_delete_texture(gl, &gl->upload_tex[i]);
}
