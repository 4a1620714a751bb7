/*
 * The gles2 renderer: EGL display and context, targets (memory read back,
 * dma-buf imported), frames and draws. Images are in gles2-images.c, shaders
 * and colour matrices in gles2-shaders.c, the start-up NV12 check in
 * gles2-probe.c. Contract: gles2.h and renderer.h.
 */
#include <math.h>
#include <string.h>
#include <drm_fourcc.h>
#include <gbm.h>

#include "gles2-private.h"

#define MAX_TARGETS 16

G_DEFINE_QUARK(umms-gles2-error-quark, umms_gles2_error)

static const struct umms_renderer_impl gles2_impl;

/* EGL displays are per process: the surfaceless one is the same handle for
 * every user (another renderer, GStreamer's GL elements), so it is never
 * terminated here (terminating would also unload the driver under anyone
 * else's feet). A GBM display is ours alone (our gbm_device): terminated. */
static bool
display_init(EGLDisplay display, GError **error)
{
	EGLint major, minor;
	if (!eglInitialize(display, &major, &minor)) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"eglInitialize failed: EGL error 0x%x", eglGetError());
		return false;
	}
	return true;
}

static struct gles2_renderer *
gles2_renderer(struct umms_renderer *base)
{
	if (!base || base->impl != &gles2_impl)
		return NULL;
	return (struct gles2_renderer *)base;
}

static bool
has_ext(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p && (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

GLuint
umms_gles2_new_texture(struct gles2_renderer *r, GLenum target)
{
	GLuint tex = 0;
	glGenTextures(1, &tex);
	r->objects++;
	glBindTexture(target, tex);
	glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(target, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(target, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	return tex;
}

void
umms_gles2_delete_texture(struct gles2_renderer *r, GLuint *tex)
{
	if (*tex) {
		glDeleteTextures(1, tex);
		r->objects--;
		*tex = 0;
	}
}

void
umms_gles2_delete_egl_image(struct gles2_renderer *r, EGLImageKHR *image)
{
	if (*image != EGL_NO_IMAGE_KHR) {
		r->destroy_image(r->display, *image);
		r->objects--;
		*image = EGL_NO_IMAGE_KHR;
	}
}

static void
delete_framebuffer(struct gles2_renderer *r, GLuint *fb)
{
	if (*fb) {
		glDeleteFramebuffers(1, fb);
		r->objects--;
		*fb = 0;
	}
}

static void
make_current(struct gles2_renderer *r)
{
	if (eglGetCurrentContext() != r->context)
		eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, r->context);
}

/* Targets */

static void
target_free(struct gles2_renderer *r, struct gles2_target *t)
{
	delete_framebuffer(r, &t->framebuffer);
	if (t->renderbuffer) {
		glDeleteRenderbuffers(1, &t->renderbuffer);
		r->objects--;
	}
	umms_gles2_delete_egl_image(r, &t->image);
	g_free(t);
}

static bool
framebuffer_complete(GError **error)
{
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	if (status != GL_FRAMEBUFFER_COMPLETE) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"the target cannot be drawn into: framebuffer status 0x%x", status);
		return false;
	}
	return true;
}

static struct gles2_target *
dmabuf_target(struct gles2_renderer *r, const struct umms_render_target *target,
	GError **error)
{
	struct gles2_target *t = NULL;
	if (target->id) {
		t = g_hash_table_lookup(r->targets, &target->id);
		if (t && (t->width != target->width || t->height != target->height)) {
			g_hash_table_remove(r->targets, &target->id);
			target_free(r, t);
			t = NULL;
		}
		if (t) {
			t->last_used = ++r->use_clock;
			return t;
		}
	}
	if (!r->image_target_renderbuffer) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"GL_OES_EGL_image is missing: no dma-buf targets");
		return NULL;
	}
	t = g_new0(struct gles2_target, 1);
	t->id = target->id;
	t->width = target->width;
	t->height = target->height;
	t->image = umms_gles2_import_dmabuf(r, target->format, target->width, target->height,
		target->modifier, 1, &target->fd, &target->offset, &target->stride, NULL, error);
	if (t->image == EGL_NO_IMAGE_KHR)
		goto err;
	glGenRenderbuffers(1, &t->renderbuffer);
	r->objects++;
	glBindRenderbuffer(GL_RENDERBUFFER, t->renderbuffer);
	r->image_target_renderbuffer(GL_RENDERBUFFER, t->image);
	glGenFramebuffers(1, &t->framebuffer);
	r->objects++;
	glBindFramebuffer(GL_FRAMEBUFFER, t->framebuffer);
	glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
		t->renderbuffer);
	if (!framebuffer_complete(error))
		goto err;
	r->stats.imports++;
	t->last_used = ++r->use_clock;
	if (t->id) {
		if (g_hash_table_size(r->targets) >= MAX_TARGETS) {
			/* Callers that never forget targets: drop the oldest. */
			GHashTableIter iter;
			gpointer value;
			struct gles2_target *oldest = NULL;
			g_hash_table_iter_init(&iter, r->targets);
			while (g_hash_table_iter_next(&iter, NULL, &value))
				if (!oldest || ((struct gles2_target *)value)->last_used <
						oldest->last_used)
					oldest = value;
			g_hash_table_remove(r->targets, &oldest->id);
			target_free(r, oldest);
		}
		g_hash_table_insert(r->targets, &t->id, t);
		umms_gles2_update_cached(r);
	}
	return t;

err:
	target_free(r, t);
	return NULL;
}

static bool
memory_target(struct gles2_renderer *r, const struct umms_render_target *target,
	GError **error)
{
	if (!target->data || target->stride < (uint32_t)target->width * 4) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"memory target %dx%d has no memory or a stride (%u) under its width",
			target->width, target->height, target->stride);
		return false;
	}
	if (r->mem.framebuffer && r->mem.width == target->width &&
	    r->mem.height == target->height) {
		glBindFramebuffer(GL_FRAMEBUFFER, r->mem.framebuffer);
		return true;
	}
	r->mem.last_data = NULL;
	delete_framebuffer(r, &r->mem.framebuffer);
	umms_gles2_delete_texture(r, &r->mem.texture);
	r->mem.texture = umms_gles2_new_texture(r, GL_TEXTURE_2D);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, target->width, target->height, 0, GL_RGBA,
		GL_UNSIGNED_BYTE, NULL);
	glGenFramebuffers(1, &r->mem.framebuffer);
	r->objects++;
	glBindFramebuffer(GL_FRAMEBUFFER, r->mem.framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
		r->mem.texture, 0);
	if (!framebuffer_complete(error)) {
		delete_framebuffer(r, &r->mem.framebuffer);
		umms_gles2_delete_texture(r, &r->mem.texture);
		return false;
	}
	r->mem.width = target->width;
	r->mem.height = target->height;
	return true;
}

/* Rows y0 to y1 (excluded) of the memory target read back from the texture. */
static bool
read_back(struct gles2_renderer *r, int y0, int y1, GError **error)
{
	const struct umms_render_target *t = &r->target;
	size_t row = (size_t)t->width * 4;
	int rows = y1 - y0;
	bool direct = t->stride == row;
	uint8_t *pixels = (uint8_t *)t->data + t->offset + (size_t)y0 * t->stride;
	if (!direct) {
		size_t size = row * (size_t)rows;
		if (r->mem.pixels_size < size) {
			g_free(r->mem.pixels);
			r->mem.pixels = g_malloc(size);
			r->mem.pixels_size = size;
		}
		pixels = r->mem.pixels;
	}
	glPixelStorei(GL_PACK_ALIGNMENT, 4);
	/* GL's rows go up from y = 0, which is the target's first row: we draw
	 * with y down, so no flip. DRM's XRGB8888 is B, G, R, A in memory. */
	glReadPixels(0, y0, t->width, rows, r->has.bgra_read ? GL_BGRA_EXT : GL_RGBA,
		GL_UNSIGNED_BYTE, pixels);
	GLenum err = glGetError();
	if (err != GL_NO_ERROR) {
		g_set_error(error, UMMS_GLES2_ERROR, 0, "glReadPixels failed: GL error 0x%x", err);
		return false;
	}
	if (!r->has.bgra_read) {
		size_t n = row * (size_t)rows;
		for (size_t i = 0; i < n; i += 4) {
			uint8_t red = pixels[i];
			pixels[i] = pixels[i + 2];
			pixels[i + 2] = red;
		}
	}
	if (!direct) {
		uint8_t *dst = (uint8_t *)t->data + t->offset + (size_t)y0 * t->stride;
		for (int y = 0; y < rows; y++)
			memcpy(dst + (size_t)y * t->stride, pixels + (size_t)y * row, row);
	}
	return true;
}

/*
 * The frame's damage as whole target pixels (r->partial, r->damage), or
 * false for a whole repaint: none given, or the kept pixels are not this
 * target's (a memory target other than the last one read back).
 */
static bool
frame_damage(struct gles2_renderer *r, const struct umms_render_target *target)
{
	const struct umms_render_box *d = target->damage;
	if (!d)
		return false;
	if (!target->dmabuf && (r->mem.last_data != target->data ||
			r->mem.last_stride != target->stride))
		return false;
	if (!(isfinite(d->x) && isfinite(d->y) && isfinite(d->width) && isfinite(d->height)))
		return false;
	double x0 = MAX(floor(d->x), 0), y0 = MAX(floor(d->y), 0);
	double x1 = MIN(ceil(d->x + d->width), target->width);
	double y1 = MIN(ceil(d->y + d->height), target->height);
	if (x1 <= x0 || y1 <= y0)
		x0 = y0 = x1 = y1 = 0;   /* nothing to repaint */
	r->damage[0] = (int)x0, r->damage[1] = (int)y0;
	r->damage[2] = (int)(x1 - x0), r->damage[3] = (int)(y1 - y0);
	return true;
}

/* The vtable */

static bool
gles2_can_draw(struct umms_renderer *base, const struct umms_render_image *image)
{
	return umms_gles2_format_supported(gles2_renderer(base), image);
}

static bool
gles2_begin(struct umms_renderer *base, const struct umms_render_target *target,
	GError **error)
{
	struct gles2_renderer *r = gles2_renderer(base);
	g_return_val_if_fail(!r->in_frame, false);
	if ((target->format != DRM_FORMAT_XRGB8888 && target->format != DRM_FORMAT_ARGB8888) ||
	    target->width <= 0 || target->height <= 0) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"the gles2 renderer draws into XRGB8888 or ARGB8888 only, not %.4s %dx%d",
			(const char *)&target->format, target->width, target->height);
		return false;
	}
	make_current(r);
	while (glGetError() != GL_NO_ERROR)
		;
	if (target->dmabuf) {
		r->frame_target = dmabuf_target(r, target, error);
		if (!r->frame_target)
			return false;
		r->frame_target_owned = target->id == 0;
		glBindFramebuffer(GL_FRAMEBUFFER, r->frame_target->framebuffer);
	} else if (!memory_target(r, target, error)) {
		return false;
	}
	r->target = *target;
	r->target.damage = NULL;   /* the caller's, read in begin() only */
	r->in_frame = true;

	glViewport(0, 0, target->width, target->height);
	r->partial = frame_damage(r, target);
	if (r->partial) {
		/* Window y is the target's row (drawn y down, read back unflipped). */
		glEnable(GL_SCISSOR_TEST);
		glScissor(r->damage[0], r->damage[1], r->damage[2], r->damage[3]);
	} else {
		glDisable(GL_SCISSOR_TEST);
	}
	glDisable(GL_DEPTH_TEST);
	glDisable(GL_STENCIL_TEST);
	glDisable(GL_CULL_FACE);
	glDisable(GL_DITHER);
	glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glEnableVertexAttribArray(0);
	glEnableVertexAttribArray(1);
	return true;
}

static void
gles2_clear(struct umms_renderer *base, uint32_t argb)
{
	struct gles2_renderer *r = gles2_renderer(base);
	g_return_if_fail(r->in_frame);
	glDisable(GL_BLEND);
	glClearColor(((argb >> 16) & 0xff) / 255.0f, ((argb >> 8) & 0xff) / 255.0f,
		(argb & 0xff) / 255.0f, (argb >> 24) / 255.0f);
	glClear(GL_COLOR_BUFFER_BIT);
}

static bool
gles2_draw(struct umms_renderer *base, const struct umms_render_image *image,
	const struct umms_render_box *src, const struct umms_render_box *dst, GError **error)
{
	struct gles2_renderer *r = gles2_renderer(base);
	g_return_val_if_fail(r->in_frame, false);
	struct umms_render_box whole_src = { 0, 0, image->width, image->height };
	struct umms_render_box whole_dst = { 0, 0, r->target.width, r->target.height };
	if (!src)
		src = &whole_src;
	if (!dst)
		dst = &whole_dst;
	if (!(dst->width > 0 && dst->height > 0 && src->width > 0 && src->height > 0))
		return true;

	struct gles2_image *img = umms_gles2_image_get(r, image, error);
	if (!img)
		return false;
	const struct gles2_program *p = umms_gles2_shaders_get(r, img->kind, img->flags, error);
	if (!p) {
		umms_gles2_image_release(r, img);
		return false;
	}

	glUseProgram(p->program);
	if (p->u_matrix >= 0) {
		float m[9], offset[3];
		umms_gles2_color_matrix(image->matrix, image->range,
			image->format == DRM_FORMAT_P010 ? 10 : 8, m, offset);
		glUniformMatrix3fv(p->u_matrix, 1, GL_FALSE, m);
		glUniform3fv(p->u_offset, 1, offset);
	}
	GLenum tex_target = img->external ? GL_TEXTURE_EXTERNAL_OES : GL_TEXTURE_2D;
	for (int i = 0; i < img->n_tex; i++) {
		glActiveTexture(GL_TEXTURE0 + (GLenum)i);
		glBindTexture(tex_target, img->tex[i]);
	}
	glActiveTexture(GL_TEXTURE0);

	/* Target pixels → clip space with y down (row 0 first in memory);
	 * image pixels → texture coordinates (row 0 at t = 0). */
	float w = (float)r->target.width, h = (float)r->target.height;
	float x0 = (float)dst->x / w * 2.0f - 1.0f;
	float x1 = (float)(dst->x + dst->width) / w * 2.0f - 1.0f;
	float y0 = (float)dst->y / h * 2.0f - 1.0f;
	float y1 = (float)(dst->y + dst->height) / h * 2.0f - 1.0f;
	float s0 = (float)(src->x / image->width);
	float s1 = (float)((src->x + src->width) / image->width);
	float t0 = (float)(src->y / image->height);
	float t1 = (float)((src->y + src->height) / image->height);
	const GLfloat pos[] = { x0, y0, x1, y0, x0, y1, x1, y1 };
	const GLfloat tex[] = { s0, t0, s1, t0, s0, t1, s1, t1 };
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, pos);
	glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, tex);

	if (img->flags & GLES2_SHADER_OPAQUE) {
		glDisable(GL_BLEND);
	} else {
		/* Premultiplied alpha: OVER. */
		glEnable(GL_BLEND);
		glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
	}
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	umms_gles2_image_release(r, img);
	return true;
}

static bool
gles2_end(struct umms_renderer *base, GError **error)
{
	struct gles2_renderer *r = gles2_renderer(base);
	g_return_val_if_fail(r->in_frame, false);
	bool ok = true;
	if (r->target.dmabuf) {
		glFinish();
		if (r->frame_target_owned)
			target_free(r, r->frame_target);
		r->frame_target = NULL;
	} else {
		int y0 = r->partial ? r->damage[1] : 0;
		int y1 = r->partial ? y0 + r->damage[3] : r->target.height;
		ok = y1 <= y0 || read_back(r, y0, y1, error);
		r->mem.last_data = ok ? r->target.data : NULL;
		r->mem.last_stride = r->target.stride;
	}
	GLenum err = glGetError();
	if (ok && err != GL_NO_ERROR) {
		g_set_error(error, UMMS_GLES2_ERROR, 0, "drawing the frame failed: GL error 0x%x",
			err);
		ok = false;
	}
	if (r->partial)
		glDisable(GL_SCISSOR_TEST);
	r->in_frame = false;
	r->stats.frames++;
	return ok;
}

static void
gles2_forget(struct umms_renderer *base, uint64_t id)
{
	struct gles2_renderer *r = gles2_renderer(base);
	make_current(r);
	umms_gles2_images_forget(r, id);
	struct gles2_target *t = g_hash_table_lookup(r->targets, &id);
	if (t) {
		g_hash_table_remove(r->targets, &id);
		target_free(r, t);
		umms_gles2_update_cached(r);
	}
}

static const struct umms_renderer_stats *
gles2_stats(struct umms_renderer *base)
{
	return &gles2_renderer(base)->stats;
}

static void
gles2_destroy(struct umms_renderer *base)
{
	struct gles2_renderer *r = gles2_renderer(base);
	if (r->context != EGL_NO_CONTEXT) {
		make_current(r);
		umms_gles2_images_finish(r);
		if (r->targets) {
			GHashTableIter iter;
			gpointer value;
			g_hash_table_iter_init(&iter, r->targets);
			while (g_hash_table_iter_next(&iter, NULL, &value)) {
				g_hash_table_iter_steal(&iter);
				target_free(r, value);
			}
		}
		delete_framebuffer(r, &r->mem.framebuffer);
		umms_gles2_delete_texture(r, &r->mem.texture);
		umms_gles2_shaders_finish(r);
		eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		eglDestroyContext(r->display, r->context);
	}
	if (r->display != EGL_NO_DISPLAY && r->gbm)
		eglTerminate(r->display);
	if (r->gbm)
		gbm_device_destroy(r->gbm);
	g_clear_pointer(&r->images, g_hash_table_unref);
	g_clear_pointer(&r->targets, g_hash_table_unref);
	g_clear_pointer(&r->dmabuf_formats, g_array_unref);
	g_clear_pointer(&r->import_formats, g_array_unref);
	g_free(r->mem.pixels);
	g_free(r);
}

static size_t
gles2_dmabuf_formats(struct umms_renderer *base, const struct umms_render_format **formats)
{
	struct gles2_renderer *r = gles2_renderer(base);
	*formats = r->import_formats ? (const struct umms_render_format *)(void *)
		r->import_formats->data : NULL;
	return r->import_formats ? r->import_formats->len : 0;
}

static const struct umms_renderer_impl gles2_impl = {
	.name = "gles2",
	.can_draw = gles2_can_draw,
	.begin = gles2_begin,
	.clear = gles2_clear,
	.draw = gles2_draw,
	.end = gles2_end,
	.forget = gles2_forget,
	.stats = gles2_stats,
	.dmabuf_formats = gles2_dmabuf_formats,
	.destroy = gles2_destroy,
};

/* Creation */

static bool
open_display(struct gles2_renderer *r, const struct umms_gles2_config *config, GError **error)
{
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!has_ext(client, "EGL_EXT_platform_base") || !get_platform_display) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"EGL has no EGL_EXT_platform_base (is Mesa's libEGL installed?)");
		return false;
	}
	if (config && config->drm_fd >= 0) {
		if (!has_ext(client, "EGL_KHR_platform_gbm") &&
		    !has_ext(client, "EGL_MESA_platform_gbm")) {
			g_set_error(error, UMMS_GLES2_ERROR, 0, "EGL has no GBM platform");
			return false;
		}
		r->gbm = gbm_create_device(config->drm_fd);
		if (!r->gbm) {
			g_set_error(error, UMMS_GLES2_ERROR, 0,
				"no GBM device on DRM fd %d", config->drm_fd);
			return false;
		}
		r->display = get_platform_display(EGL_PLATFORM_GBM_KHR, r->gbm, NULL);
	} else {
		if (!has_ext(client, "EGL_MESA_platform_surfaceless")) {
			g_set_error(error, UMMS_GLES2_ERROR, 0,
				"EGL has no EGL_MESA_platform_surfaceless (is Mesa's libEGL "
				"installed? libegl-mesa0)");
			return false;
		}
		r->has.surfaceless = true;
		r->display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA,
			EGL_DEFAULT_DISPLAY, NULL);
	}
	if (r->display == EGL_NO_DISPLAY) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"no EGL display: EGL error 0x%x", eglGetError());
		return false;
	}
	if (!display_init(r->display, error)) {
		r->display = EGL_NO_DISPLAY;
		return false;
	}
	return true;
}

static bool
create_context(struct gles2_renderer *r, GError **error)
{
	const char *exts = eglQueryString(r->display, EGL_EXTENSIONS);
	if (!has_ext(exts, "EGL_KHR_surfaceless_context")) {
		g_set_error(error, UMMS_GLES2_ERROR, 0, "EGL has no EGL_KHR_surfaceless_context");
		return false;
	}
	r->has.image_base = has_ext(exts, "EGL_KHR_image_base");
	r->has.dmabuf_import = has_ext(exts, "EGL_EXT_image_dma_buf_import");
	r->has.dmabuf_modifiers = has_ext(exts, "EGL_EXT_image_dma_buf_import_modifiers");
	r->has.dmabuf_export = has_ext(exts, "EGL_MESA_image_dma_buf_export");
	r->has.texture_image = has_ext(exts, "EGL_KHR_gl_texture_2D_image");
	r->has.no_config = has_ext(exts, "EGL_KHR_no_config_context");
	if (!eglBindAPI(EGL_OPENGL_ES_API)) {
		g_set_error(error, UMMS_GLES2_ERROR, 0, "EGL has no OpenGL ES");
		return false;
	}

	EGLConfig egl_config = EGL_NO_CONFIG_KHR;
	if (!r->has.no_config) {
		const EGLint attribs[] = {
			EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
			EGL_SURFACE_TYPE, 0,
			EGL_NONE,
		};
		EGLint n = 0;
		if (!eglChooseConfig(r->display, attribs, &egl_config, 1, &n) || n < 1) {
			g_set_error(error, UMMS_GLES2_ERROR, 0, "no EGL config for OpenGL ES 2");
			return false;
		}
	}
	/* ES 3 where there is one (R8/RG8 textures, row lengths), else ES 2. */
	const EGLint es3[] = { EGL_CONTEXT_MAJOR_VERSION_KHR, 3, EGL_NONE };
	const EGLint es2[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	r->gles_version = 3;
	r->context = eglCreateContext(r->display, egl_config, EGL_NO_CONTEXT, es3);
	if (r->context == EGL_NO_CONTEXT) {
		r->gles_version = 2;
		r->context = eglCreateContext(r->display, egl_config, EGL_NO_CONTEXT, es2);
	}
	if (r->context == EGL_NO_CONTEXT) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"no OpenGL ES 2 context: EGL error 0x%x", eglGetError());
		return false;
	}
	if (!eglMakeCurrent(r->display, EGL_NO_SURFACE, EGL_NO_SURFACE, r->context)) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"the OpenGL ES context cannot be made current: EGL error 0x%x",
			eglGetError());
		return false;
	}

	const char *gl = (const char *)glGetString(GL_EXTENSIONS);
	r->has.gl_egl_image = has_ext(gl, "GL_OES_EGL_image");
	r->has.gl_egl_image_external = has_ext(gl, "GL_OES_EGL_image_external");
	r->has.bgra_texture = has_ext(gl, "GL_EXT_texture_format_BGRA8888");
	r->has.bgra_read = has_ext(gl, "GL_EXT_read_format_bgra");
	r->has.texture_rg = has_ext(gl, "GL_EXT_texture_rg");
	r->has.unpack_subimage = has_ext(gl, "GL_EXT_unpack_subimage");

	r->create_image = (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
	r->destroy_image = (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
	if (!r->create_image || !r->destroy_image)
		r->has.image_base = false;
	if (r->has.gl_egl_image) {
		r->image_target_texture = (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)
			eglGetProcAddress("glEGLImageTargetTexture2DOES");
		r->image_target_renderbuffer = (PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC)
			eglGetProcAddress("glEGLImageTargetRenderbufferStorageOES");
	}
	if (!r->image_target_texture)
		r->has.gl_egl_image = false;
	if (r->has.dmabuf_export) {
		r->export_query = (PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC)
			eglGetProcAddress("eglExportDMABUFImageQueryMESA");
		r->export_dmabuf = (PFNEGLEXPORTDMABUFIMAGEMESAPROC)
			eglGetProcAddress("eglExportDMABUFImageMESA");
		r->has.dmabuf_export = r->export_query && r->export_dmabuf;
	}
	if (r->has.dmabuf_import && r->has.dmabuf_modifiers) {
		r->query_formats = (PFNEGLQUERYDMABUFFORMATSEXTPROC)
			eglGetProcAddress("eglQueryDmaBufFormatsEXT");
		EGLint n = 0;
		if (r->query_formats && r->query_formats(r->display, 0, NULL, &n) && n > 0) {
			r->dmabuf_formats = g_array_sized_new(FALSE, TRUE, sizeof(uint32_t),
				(guint)n);
			g_array_set_size(r->dmabuf_formats, (guint)n);
			r->query_formats(r->display, n, (EGLint *)(void *)r->dmabuf_formats->data,
				&n);
			g_array_set_size(r->dmabuf_formats, (guint)n);
		}
	}
	return true;
}

struct umms_renderer *
umms_gles2_renderer_create(const struct umms_gles2_config *config, GError **error)
{
	struct gles2_renderer *r = g_new0(struct gles2_renderer, 1);
	r->base.impl = &gles2_impl;
	r->display = EGL_NO_DISPLAY;
	r->context = EGL_NO_CONTEXT;
	r->images = g_hash_table_new(g_int64_hash, g_int64_equal);
	r->targets = g_hash_table_new(g_int64_hash, g_int64_equal);

	if (!open_display(r, config, error))
		goto err;
	if (!create_context(r, error))
		goto err;
	if (!umms_gles2_shaders_init(r, error))
		goto err;
	umms_gles2_probe_nv12(r);
	return &r->base;

err:
	gles2_destroy(&r->base);
	return NULL;
}

const char *
umms_gles2_renderer_describe(struct umms_renderer *base)
{
	struct gles2_renderer *r = gles2_renderer(base);
	return r ? r->description : NULL;
}

unsigned
umms_gles2_renderer_gl_objects(struct umms_renderer *base)
{
	struct gles2_renderer *r = gles2_renderer(base);
	return r ? r->objects : 0;
}

bool
umms_gles2_renderer_has_dmabuf(struct umms_renderer *base)
{
	struct gles2_renderer *r = gles2_renderer(base);
	return r && r->has.dmabuf_import && r->has.image_base && r->has.gl_egl_image;
}
