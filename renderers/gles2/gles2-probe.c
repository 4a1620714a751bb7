/*
 * The start-up check of the gles2 renderer's NV12 dma-buf path: drivers
 * differ (llvmpipe samples an NV12 external-OES EGLImage as black), so a
 * known NV12 picture is made here as two GL textures (R8, RG8), exported as
 * dma-bufs (EGL_MESA_image_dma_buf_export), imported back both ways and
 * drawn; the external path is used only when its pixels are right.
 */
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>

#include "gles2-private.h"

#define PROBE_SIZE 16
#define PROBE_TOLERANCE 8

struct exported {
	int fd;
	uint32_t stride, offset;
};

static bool
export_plane(struct gles2_renderer *r, bool two, int w, int h, const uint8_t *data,
	struct exported *out)
{
	GLenum internal = two ? 0x822B /* GL_RG8 */ : 0x8229 /* GL_R8 */;
	GLenum format = two ? GL_RG_EXT : GL_RED_EXT;
	if (r->gles_version < 3)
		internal = format;
	GLuint tex = umms_gles2_new_texture(r, GL_TEXTURE_2D);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, format, GL_UNSIGNED_BYTE, data);
	glFinish();
	const EGLint attribs[] = { EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE };
	EGLImageKHR image = r->create_image(r->display, r->context, EGL_GL_TEXTURE_2D_KHR,
		(EGLClientBuffer)(uintptr_t)tex, attribs);
	bool ok = false;
	if (image != EGL_NO_IMAGE_KHR) {
		r->objects++;
		int fourcc = 0, n_planes = 0;
		EGLuint64KHR modifier = 0;
		EGLint stride = 0, offset = 0;
		out->fd = -1;
		if (r->export_query(r->display, image, &fourcc, &n_planes, &modifier) &&
		    n_planes == 1 &&
		    (uint32_t)fourcc == (two ? DRM_FORMAT_GR88 : DRM_FORMAT_R8) &&
		    r->export_dmabuf(r->display, image, &out->fd, &stride, &offset) &&
		    out->fd >= 0) {
			out->stride = (uint32_t)stride;
			out->offset = (uint32_t)offset;
			ok = true;
		} else if (out->fd >= 0) {
			close(out->fd);
			out->fd = -1;
		}
		umms_gles2_delete_egl_image(r, &image);
	}
	umms_gles2_delete_texture(r, &tex);
	return ok;
}

/* Draws the probe picture the current way; true when its centre is @want. */
static bool
draw_probe(struct gles2_renderer *r, const struct umms_render_image *image,
	const uint8_t want[3], char *got, size_t got_size)
{
	uint32_t pixels[PROBE_SIZE * PROBE_SIZE];
	memset(pixels, 0, sizeof(pixels));
	struct umms_render_target target = {
		.format = DRM_FORMAT_XRGB8888,
		.width = PROBE_SIZE, .height = PROBE_SIZE,
		.fd = -1,
		.data = pixels,
		.stride = PROBE_SIZE * 4,
	};
	GError *error = NULL;
	struct umms_renderer *base = &r->base;
	if (!umms_renderer_begin(base, &target, &error)) {
		g_snprintf(got, got_size, "%s", error->message);
		g_error_free(error);
		return false;
	}
	umms_renderer_clear(base, 0xff000000);
	bool drawn = umms_renderer_draw(base, image, NULL, NULL, &error);
	bool ended = umms_renderer_end(base, drawn ? &error : NULL);
	if (!drawn || !ended) {
		g_snprintf(got, got_size, "%s", error ? error->message : "no frame");
		g_clear_error(&error);
		return false;
	}
	uint32_t c = pixels[PROBE_SIZE / 2 * PROBE_SIZE + PROBE_SIZE / 2];
	int rgb[3] = { (int)(c >> 16) & 0xff, (int)(c >> 8) & 0xff, (int)c & 0xff };
	g_snprintf(got, got_size, "%d,%d,%d for %d,%d,%d", rgb[0], rgb[1], rgb[2], want[0],
		want[1], want[2]);
	for (int i = 0; i < 3; i++)
		if (ABS(rgb[i] - want[i]) > PROBE_TOLERANCE)
			return false;
	return true;
}

static const char *
check_nv12(struct gles2_renderer *r, char *why, size_t why_size)
{
	if (!r->has.dmabuf_import || !r->has.image_base || !r->has.gl_egl_image) {
		g_snprintf(why, why_size, "no dma-buf import");
		return NULL;
	}
	if (!r->has.dmabuf_export || !r->has.texture_image ||
	    (r->gles_version < 3 && !r->has.texture_rg)) {
		g_snprintf(why, why_size, "not checked: no EGL_MESA_image_dma_buf_export here");
		return NULL;
	}
	if (!r->has.gl_egl_image_external) {
		g_snprintf(why, why_size, "no GL_OES_EGL_image_external");
		return NULL;
	}

	/* A flat colour: Y 120, Cb 100, Cr 170 (BT.601, limited range). */
	enum { Y = 120, CB = 100, CR = 170 };
	float m[9], off[3];
	umms_gles2_color_matrix(UMMS_COLOR_BT601, UMMS_COLOR_RANGE_LIMITED, 8, m, off);
	float s[3] = { Y / 255.0f - off[0], CB / 255.0f - off[1], CR / 255.0f - off[2] };
	uint8_t want[3];
	for (int row = 0; row < 3; row++) {
		float v = m[row] * s[0] + m[3 + row] * s[1] + m[6 + row] * s[2];
		want[row] = (uint8_t)CLAMP((int)(v * 255.0f + 0.5f), 0, 255);
	}
	uint8_t luma[PROBE_SIZE * PROBE_SIZE], chroma[PROBE_SIZE * PROBE_SIZE / 2];
	memset(luma, Y, sizeof(luma));
	for (size_t i = 0; i < sizeof(chroma); i += 2)
		chroma[i] = CB, chroma[i + 1] = CR;
	struct exported planes[2] = { { -1, 0, 0 }, { -1, 0, 0 } };
	const char *path = NULL;
	if (!export_plane(r, false, PROBE_SIZE, PROBE_SIZE, luma, &planes[0]) ||
	    !export_plane(r, true, PROBE_SIZE / 2, PROBE_SIZE / 2, chroma, &planes[1])) {
		g_snprintf(why, why_size, "not checked: R8/GR88 textures do not export");
		goto out;
	}
	struct umms_render_image image = {
		.format = DRM_FORMAT_NV12,
		.modifier = DRM_FORMAT_MOD_LINEAR,
		.width = PROBE_SIZE, .height = PROBE_SIZE,
		.dmabuf = true,
		.n_planes = 2,
		.matrix = UMMS_COLOR_BT601,
		.range = UMMS_COLOR_RANGE_LIMITED,
	};
	for (int i = 0; i < 2; i++) {
		image.planes[i].fd = planes[i].fd;
		image.planes[i].offset = planes[i].offset;
		image.planes[i].stride = planes[i].stride;
	}
	char got_planes[256], got_external[256];
	r->nv12_path = GLES2_NV12_PLANES;
	bool planes_ok = draw_probe(r, &image, want, got_planes, sizeof(got_planes));
	r->nv12_path = GLES2_NV12_EXTERNAL;
	bool external_ok = draw_probe(r, &image, want, got_external, sizeof(got_external));
	r->nv12_path = GLES2_NV12_PLANES;
	if (external_ok) {
		path = "external";
		g_snprintf(why, why_size, "checked: external %s; per plane %s", got_external,
			got_planes);
	} else {
		path = planes_ok ? "per plane" : NULL;
		g_snprintf(why, why_size, "checked: external gave %s; per plane %s%s",
			got_external, got_planes, planes_ok ? "" : " (wrong too)");
	}
	if (external_ok)
		r->nv12_path = GLES2_NV12_EXTERNAL;

out:
	for (int i = 0; i < 2; i++)
		if (planes[i].fd >= 0)
			close(planes[i].fd);
	return path;
}

void
umms_gles2_probe_nv12(struct gles2_renderer *r)
{
	char why[600];
	r->nv12_path = GLES2_NV12_PLANES;
	const char *path = check_nv12(r, why, sizeof(why));
	/* The check's frames and imports are not the caller's. */
	memset(&r->stats, 0, sizeof(r->stats));
	umms_gles2_update_cached(r);

	/* What draw() imports, with the NV12 path chosen: the log says what that list says. */
	umms_gles2_list_import_formats(r);
	g_snprintf(r->description, sizeof(r->description),
		"GLES %d on %s (%s); dma-buf import %s%s; NV12 dma-buf %s (%s)",
		r->gles_version, (const char *)glGetString(GL_RENDERER),
		r->has.surfaceless ? "surfaceless" : "GBM",
		r->import_formats->len > 0 ? "yes" : "no",
		r->has.dmabuf_modifiers ? " with modifiers" : "",
		path ? path : "per plane", why);
	g_debug("gles2: %s", r->description);
}
