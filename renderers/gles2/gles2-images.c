/*
 * The gles2 renderer's images: memory planes uploaded into textures,
 * dma-buf planes imported as EGLImages, both kept by image id (at most
 * MAX_CACHED; the least recently drawn goes first when a caller forgets
 * to forget).
 */
#include <drm_fourcc.h>
#include <math.h>

#include "gles2-private.h"

#define MAX_CACHED 64

struct format_info {
	uint32_t fourcc;
	enum gles2_shader_kind kind;
	bool alpha;
	int n_planes;
};

static const struct format_info formats[] = {
	{ DRM_FORMAT_XRGB8888, GLES2_SHADER_RGBA, false, 1 },
	{ DRM_FORMAT_ARGB8888, GLES2_SHADER_RGBA, true, 1 },
	{ DRM_FORMAT_XBGR8888, GLES2_SHADER_RGBA, false, 1 },
	{ DRM_FORMAT_ABGR8888, GLES2_SHADER_RGBA, true, 1 },
	{ DRM_FORMAT_RGB565, GLES2_SHADER_RGBA, false, 1 },
	{ DRM_FORMAT_NV12, GLES2_SHADER_NV12, false, 2 },
	{ DRM_FORMAT_YUV420, GLES2_SHADER_YUV420, false, 3 },
	{ DRM_FORMAT_YUYV, GLES2_SHADER_YUYV, false, 1 },
	{ DRM_FORMAT_P010, GLES2_SHADER_P010, false, 2 },
};

static const struct format_info *
format_info(uint32_t fourcc)
{
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
		if (formats[i].fourcc == fourcc)
			return &formats[i];
	return NULL;
}

static bool
dmabuf_format_known(struct gles2_renderer *r, uint32_t fourcc)
{
	if (!r->dmabuf_formats)
		return true;
	for (guint i = 0; i < r->dmabuf_formats->len; i++)
		if (g_array_index(r->dmabuf_formats, uint32_t, i) == fourcc)
			return true;
	return false;
}

/* The fourccs one format's planes are imported as, one EGLImage each. */
static int
plane_fourccs(struct gles2_renderer *r, uint32_t format, uint32_t out[GLES2_MAX_TEX])
{
	switch (format) {
	case DRM_FORMAT_NV12:
		if (r->nv12_path == GLES2_NV12_EXTERNAL) {
			out[0] = DRM_FORMAT_NV12;
			return 1;
		}
		out[0] = DRM_FORMAT_R8, out[1] = DRM_FORMAT_GR88;
		return 2;
	case DRM_FORMAT_YUV420:
		out[0] = out[1] = out[2] = DRM_FORMAT_R8;
		return 3;
	case DRM_FORMAT_YUYV:
		out[0] = DRM_FORMAT_GR88, out[1] = DRM_FORMAT_ABGR8888;
		return 2;
	case DRM_FORMAT_P010:
		out[0] = DRM_FORMAT_GR88, out[1] = DRM_FORMAT_ABGR8888;
		return 2;
	default:
		out[0] = format;
		return 1;
	}
}

bool
umms_gles2_format_supported(struct gles2_renderer *r, const struct umms_render_image *image)
{
	const struct format_info *info = format_info(image->format);
	if (!info || image->width <= 0 || image->height <= 0 || image->n_planes < info->n_planes)
		return false;
	if (!image->dmabuf) {
		for (int i = 0; i < info->n_planes; i++)
			if (!image->planes[i].data || image->planes[i].stride == 0)
				return false;
		return true;
	}
	if (!r->has.dmabuf_import || !r->has.image_base || !r->has.gl_egl_image)
		return false;
	if (image->modifier != DRM_FORMAT_MOD_INVALID &&
	    image->modifier != DRM_FORMAT_MOD_LINEAR && !r->has.dmabuf_modifiers)
		return false;
	uint32_t fourccs[GLES2_MAX_TEX];
	int n = plane_fourccs(r, image->format, fourccs);
	for (int i = 0; i < n; i++)
		if (!dmabuf_format_known(r, fourccs[i]))
			return false;
	return true;
}

void
umms_gles2_list_import_formats(struct gles2_renderer *r)
{
	if (!r->import_formats)
		r->import_formats = g_array_new(FALSE, TRUE, sizeof(struct umms_render_format));
	g_array_set_size(r->import_formats, 0);
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		/* The same question draw() asks, of a linear buffer of that format. */
		struct umms_render_image image = {
			.format = formats[i].fourcc, .modifier = DRM_FORMAT_MOD_LINEAR,
			.width = 16, .height = 16, .dmabuf = true, .n_planes = formats[i].n_planes,
		};
		if (!umms_gles2_format_supported(r, &image))
			continue;
		struct umms_render_format pair = { formats[i].fourcc, DRM_FORMAT_MOD_LINEAR };
		g_array_append_val(r->import_formats, pair);
	}
}

EGLImageKHR
umms_gles2_import_dmabuf(struct gles2_renderer *r, uint32_t fourcc, int width, int height,
	uint64_t modifier, int n_planes, const int *fds, const uint32_t *offsets,
	const uint32_t *strides, const EGLint *extra, GError **error)
{
	static const EGLint plane_attribs[4][5] = {
		{ EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE0_PITCH_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE1_PITCH_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE2_PITCH_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT },
		{ EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT,
		  EGL_DMA_BUF_PLANE3_PITCH_EXT, EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT,
		  EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT },
	};
	if (!r->has.dmabuf_import || !r->has.image_base) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"EGL_EXT_image_dma_buf_import is missing: no dma-buf imports");
		return EGL_NO_IMAGE_KHR;
	}
	bool with_modifier = modifier != DRM_FORMAT_MOD_INVALID &&
		(modifier != DRM_FORMAT_MOD_LINEAR || r->has.dmabuf_modifiers);
	if (with_modifier && !r->has.dmabuf_modifiers) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"dma-buf modifier 0x%" G_GINT64_MODIFIER "x needs "
			"EGL_EXT_image_dma_buf_import_modifiers, which is missing", modifier);
		return EGL_NO_IMAGE_KHR;
	}
	g_assert(n_planes >= 1 && n_planes <= 4);

	EGLint attribs[64];
	int n = 0;
	attribs[n++] = EGL_WIDTH, attribs[n++] = width;
	attribs[n++] = EGL_HEIGHT, attribs[n++] = height;
	attribs[n++] = EGL_LINUX_DRM_FOURCC_EXT, attribs[n++] = (EGLint)fourcc;
	for (int i = 0; i < n_planes; i++) {
		attribs[n++] = plane_attribs[i][0], attribs[n++] = fds[i];
		attribs[n++] = plane_attribs[i][1], attribs[n++] = (EGLint)offsets[i];
		attribs[n++] = plane_attribs[i][2], attribs[n++] = (EGLint)strides[i];
		if (with_modifier) {
			attribs[n++] = plane_attribs[i][3];
			attribs[n++] = (EGLint)(modifier & 0xffffffff);
			attribs[n++] = plane_attribs[i][4];
			attribs[n++] = (EGLint)(modifier >> 32);
		}
	}
	for (int i = 0; extra && extra[i] != EGL_NONE; i += 2) {
		attribs[n++] = extra[i];
		attribs[n++] = extra[i + 1];
	}
	attribs[n++] = EGL_NONE;
	g_assert(n <= (int)G_N_ELEMENTS(attribs));

	EGLImageKHR image = r->create_image(r->display, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT,
		NULL, attribs);
	if (image == EGL_NO_IMAGE_KHR) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"EGL refused the dma-buf import of %.4s %dx%d (%d planes, stride %u, "
			"modifier 0x%" G_GINT64_MODIFIER "x): EGL error 0x%x",
			(const char *)&fourcc, width, height, n_planes, strides[0], modifier,
			eglGetError());
		return EGL_NO_IMAGE_KHR;
	}
	r->objects++;
	return image;
}

static void
image_clear(struct gles2_renderer *r, struct gles2_image *img)
{
	for (int i = 0; i < GLES2_MAX_TEX; i++) {
		umms_gles2_delete_texture(r, &img->tex[i]);
		umms_gles2_delete_egl_image(r, &img->images[i]);
		img->tex_width[i] = img->tex_height[i] = 0;
		img->tex_format[i] = 0;
	}
	img->n_tex = 0;
}

static void
image_free(struct gles2_renderer *r, struct gles2_image *img)
{
	image_clear(r, img);
	g_free(img);
}

/* Uploads one plane (or one view of a plane) into @tex: whole when the
 * stride allows, with GL_UNPACK_ROW_LENGTH where there is one, else row by
 * row. @part (x, y, width, height in the plane's pixels) limits it to that
 * rectangle of a texture kept at this size; NULL: all of it. */
static void
upload(struct gles2_renderer *r, struct gles2_image *img, int i, GLenum internal,
	GLenum format, GLenum type, int bpp, int width, int height, const void *data,
	uint32_t stride, const int *part)
{
	if (!img->tex[i])
		img->tex[i] = umms_gles2_new_texture(r, GL_TEXTURE_2D);
	glActiveTexture(GL_TEXTURE0);
	glBindTexture(GL_TEXTURE_2D, img->tex[i]);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	bool sized = img->tex_width[i] == width && img->tex_height[i] == height &&
		img->tex_format[i] == internal;
	if (!sized) {
		glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, width, height, 0, format, type,
			NULL);
		img->tex_width[i] = width, img->tex_height[i] = height;
		img->tex_format[i] = internal;
		part = NULL;
	}
	int x = 0, y = 0;
	if (part) {
		x = part[0], y = part[1], width = part[2], height = part[3];
		data = (const uint8_t *)data + (size_t)y * stride + (size_t)x * (size_t)bpp;
	}
	r->stats.upload_bytes += (uint64_t)width * (uint64_t)height * (uint64_t)bpp;
	bool row_length = r->gles_version >= 3 || r->has.unpack_subimage;
	if (stride == (uint32_t)(width * bpp)) {
		glTexSubImage2D(GL_TEXTURE_2D, 0, x, y, width, height, format, type, data);
	} else if (row_length && stride % (uint32_t)bpp == 0) {
		glPixelStorei(GL_UNPACK_ROW_LENGTH_EXT, (GLint)(stride / (uint32_t)bpp));
		glTexSubImage2D(GL_TEXTURE_2D, 0, x, y, width, height, format, type, data);
		glPixelStorei(GL_UNPACK_ROW_LENGTH_EXT, 0);
	} else {
		const uint8_t *row = data;
		for (int k = 0; k < height; k++, row += stride)
			glTexSubImage2D(GL_TEXTURE_2D, 0, x, y + k, width, 1, format, type, row);
	}
}

/*
 * The image's damage as whole pixels inside it, for an RGB image whose
 * upload is kept (n_tex set): false when all of it is to be uploaded.
 */
static bool
damaged_part(const struct gles2_image *img, const struct umms_render_image *image, int part[4])
{
	const struct umms_render_box *d = image->damage;
	if (!d || !image->id || img->n_tex == 0 || image->format == DRM_FORMAT_NV12 ||
			image->format == DRM_FORMAT_YUV420 || image->format == DRM_FORMAT_YUYV ||
			image->format == DRM_FORMAT_P010)
		return false;
	if (!(d->width > 0 && d->height > 0 && d->x < image->width && d->y < image->height))
		return false;
	int x0 = (int)MAX(d->x, 0), y0 = (int)MAX(d->y, 0);
	int x1 = (int)MIN(ceil(d->x + d->width), image->width);
	int y1 = (int)MIN(ceil(d->y + d->height), image->height);
	if (x1 <= x0 || y1 <= y0)
		return false;
	part[0] = x0, part[1] = y0, part[2] = x1 - x0, part[3] = y1 - y0;
	return true;
}

static void
upload_image(struct gles2_renderer *r, struct gles2_image *img,
	const struct umms_render_image *image)
{
	int area[4];
	const int *part = damaged_part(img, image, area) ? area : NULL;
	int w = image->width, h = image->height;
	int cw = (w + 1) / 2, ch = (h + 1) / 2;
	const struct umms_render_plane *p = image->planes;
	/* One and two channel planes: red / red-green, else luminance / luminance-alpha. */
	GLenum one_int = GL_LUMINANCE, one = GL_LUMINANCE;
	GLenum two_int = GL_LUMINANCE_ALPHA, two = GL_LUMINANCE_ALPHA;
	unsigned la = GLES2_SHADER_LA;
	if (r->gles_version >= 3) {
		one_int = 0x8229 /* GL_R8 */, one = GL_RED_EXT;
		two_int = 0x822B /* GL_RG8 */, two = GL_RG_EXT;
		la = 0;
	} else if (r->has.texture_rg) {
		one_int = one = GL_RED_EXT;
		two_int = two = GL_RG_EXT;
		la = 0;
	}

	img->flags = 0;
	switch (image->format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
		if (r->has.bgra_texture) {
			upload(r, img, 0, GL_BGRA_EXT, GL_BGRA_EXT, GL_UNSIGNED_BYTE, 4, w, h,
				p[0].data, p[0].stride, part);
		} else {
			upload(r, img, 0, GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE, 4, w, h,
				p[0].data, p[0].stride, part);
			img->flags |= GLES2_SHADER_SWAP_RB;
		}
		break;
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
		upload(r, img, 0, GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE, 4, w, h, p[0].data,
			p[0].stride, part);
		break;
	case DRM_FORMAT_RGB565:
		upload(r, img, 0, GL_RGB, GL_RGB, GL_UNSIGNED_SHORT_5_6_5, 2, w, h, p[0].data,
			p[0].stride, part);
		break;
	case DRM_FORMAT_NV12:
		upload(r, img, 0, one_int, one, GL_UNSIGNED_BYTE, 1, w, h, p[0].data,
			p[0].stride, NULL);
		upload(r, img, 1, two_int, two, GL_UNSIGNED_BYTE, 2, cw, ch, p[1].data,
			p[1].stride, NULL);
		img->flags |= la;
		break;
	case DRM_FORMAT_YUV420:
		upload(r, img, 0, one_int, one, GL_UNSIGNED_BYTE, 1, w, h, p[0].data,
			p[0].stride, NULL);
		upload(r, img, 1, one_int, one, GL_UNSIGNED_BYTE, 1, cw, ch, p[1].data,
			p[1].stride, NULL);
		upload(r, img, 2, one_int, one, GL_UNSIGNED_BYTE, 1, cw, ch, p[2].data,
			p[2].stride, NULL);
		break;
	case DRM_FORMAT_YUYV:
		upload(r, img, 0, two_int, two, GL_UNSIGNED_BYTE, 2, w, h, p[0].data,
			p[0].stride, NULL);
		upload(r, img, 1, GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE, 4, cw, h, p[0].data,
			p[0].stride, NULL);
		img->flags |= la;
		break;
	case DRM_FORMAT_P010:
		upload(r, img, 0, two_int, two, GL_UNSIGNED_BYTE, 2, w, h, p[0].data,
			p[0].stride, NULL);
		upload(r, img, 1, GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE, 4, cw, ch, p[1].data,
			p[1].stride, NULL);
		img->flags |= la;
		break;
	}
	img->n_tex = format_info(image->format)->n_planes;
	if (image->format == DRM_FORMAT_YUYV)
		img->n_tex = 2;
	r->stats.uploads++;
}

static bool
import_image(struct gles2_renderer *r, struct gles2_image *img,
	const struct umms_render_image *image, GError **error)
{
	int w = image->width, h = image->height;
	int cw = (w + 1) / 2, ch = (h + 1) / 2;
	const struct umms_render_plane *p = image->planes;
	uint32_t fourccs[GLES2_MAX_TEX];
	int n = plane_fourccs(r, image->format, fourccs);
	GLenum target = GL_TEXTURE_2D;

	img->external = false;
	if (image->format == DRM_FORMAT_NV12 && n == 1) {
		/* The driver's own conversion, told the matrix and range. */
		EGLint space = image->matrix == UMMS_COLOR_BT709 ? EGL_ITU_REC709_EXT :
			image->matrix == UMMS_COLOR_BT2020 ? EGL_ITU_REC2020_EXT :
			EGL_ITU_REC601_EXT;
		EGLint range = image->range == UMMS_COLOR_RANGE_FULL ?
			EGL_YUV_FULL_RANGE_EXT : EGL_YUV_NARROW_RANGE_EXT;
		const EGLint extra[] = {
			EGL_YUV_COLOR_SPACE_HINT_EXT, space,
			EGL_SAMPLE_RANGE_HINT_EXT, range,
			EGL_NONE,
		};
		int fds[2] = { p[0].fd, p[1].fd };
		uint32_t offsets[2] = { p[0].offset, p[1].offset };
		uint32_t strides[2] = { p[0].stride, p[1].stride };
		img->images[0] = umms_gles2_import_dmabuf(r, DRM_FORMAT_NV12, w, h,
			image->modifier, 2, fds, offsets, strides, extra, error);
		if (img->images[0] == EGL_NO_IMAGE_KHR)
			return false;
		img->external = true;
		target = GL_TEXTURE_EXTERNAL_OES;
	} else if (n == 1) {
		const struct format_info *info = format_info(image->format);
		int fds[4];
		uint32_t offsets[4], strides[4];
		for (int i = 0; i < info->n_planes; i++) {
			fds[i] = p[i].fd;
			offsets[i] = p[i].offset;
			strides[i] = p[i].stride;
		}
		img->images[0] = umms_gles2_import_dmabuf(r, image->format, w, h, image->modifier,
			info->n_planes, fds, offsets, strides, NULL, error);
		if (img->images[0] == EGL_NO_IMAGE_KHR)
			return false;
	} else {
		for (int i = 0; i < n; i++) {
			/* YUYV's two views are of plane 0; the others one per plane. */
			int src = image->format == DRM_FORMAT_YUYV ? 0 : i;
			int pw = i == 0 ? w : cw;
			int ph = i == 0 || image->format == DRM_FORMAT_YUYV ? h : ch;
			img->images[i] = umms_gles2_import_dmabuf(r, fourccs[i], pw, ph,
				image->modifier, 1, &p[src].fd, &p[src].offset, &p[src].stride,
				NULL, error);
			if (img->images[i] == EGL_NO_IMAGE_KHR)
				return false;
		}
	}

	img->n_tex = n;
	for (int i = 0; i < n; i++) {
		img->tex[i] = umms_gles2_new_texture(r, target);
		glBindTexture(target, img->tex[i]);
		r->image_target_texture(target, img->images[i]);
		if (glGetError() != GL_NO_ERROR) {
			g_set_error(error, UMMS_GLES2_ERROR, 0,
				"GL refused the EGLImage of a %.4s dma-buf as a texture",
				(const char *)&image->format);
			return false;
		}
	}
	r->stats.imports++;
	return true;
}

void
umms_gles2_update_cached(struct gles2_renderer *r)
{
	r->stats.cached = g_hash_table_size(r->images) + g_hash_table_size(r->targets);
}

static void
evict_oldest(struct gles2_renderer *r)
{
	GHashTableIter iter;
	gpointer value;
	struct gles2_image *oldest = NULL;
	g_hash_table_iter_init(&iter, r->images);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct gles2_image *img = value;
		if (!oldest || img->last_used < oldest->last_used)
			oldest = img;
	}
	if (oldest) {
		g_debug("gles2: cache full, dropping image %" G_GUINT64_FORMAT " (not forgotten)",
			oldest->id);
		umms_gles2_images_forget(r, oldest->id);
	}
}

struct gles2_image *
umms_gles2_image_get(struct gles2_renderer *r, const struct umms_render_image *image,
	GError **error)
{
	const struct format_info *info = format_info(image->format);
	if (!umms_gles2_format_supported(r, image)) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"the gles2 renderer cannot draw this %.4s %s image (modifier 0x%"
			G_GINT64_MODIFIER "x)", (const char *)&image->format,
			image->dmabuf ? "dma-buf" : "memory", image->modifier);
		return NULL;
	}

	struct gles2_image *img = NULL;
	if (image->id) {
		img = g_hash_table_lookup(r->images, &image->id);
		bool external = image->dmabuf && image->format == DRM_FORMAT_NV12 &&
			r->nv12_path == GLES2_NV12_EXTERNAL;
		if (img && (img->format != image->format || img->width != image->width ||
			    img->height != image->height || img->dmabuf != image->dmabuf ||
			    img->modifier != image->modifier || img->external != external)) {
			umms_gles2_images_forget(r, image->id);
			img = NULL;
		}
		if (img && (img->dmabuf || (image->unchanged && img->n_tex > 0))) {
			/* An import, or an upload of pixels that did not change: kept. */
			img->last_used = ++r->use_clock;
			return img;
		}
	} else if (!image->dmabuf) {
		img = &r->scratch;
	}

	bool fresh = !img;
	if (fresh)
		img = g_new0(struct gles2_image, 1);
	img->id = image->id;
	img->format = image->format;
	img->modifier = image->modifier;
	img->width = image->width;
	img->height = image->height;
	img->dmabuf = image->dmabuf;
	img->kind = info->kind;
	img->last_used = ++r->use_clock;

	if (image->dmabuf) {
		img->flags = 0;
		if (!import_image(r, img, image, error)) {
			image_free(r, img);
			return NULL;
		}
		if (img->external)
			img->kind = GLES2_SHADER_EXTERNAL;
	} else {
		upload_image(r, img, image);
	}
	if (!info->alpha)
		img->flags |= GLES2_SHADER_OPAQUE;

	if (fresh && image->id) {
		if (g_hash_table_size(r->images) >= MAX_CACHED)
			evict_oldest(r);
		g_hash_table_insert(r->images, &img->id, img);
		umms_gles2_update_cached(r);
	}
	return img;
}

void
umms_gles2_image_release(struct gles2_renderer *r, struct gles2_image *img)
{
	/* Imports without an id live for one draw; the scratch textures stay. */
	if (img && img->id == 0 && img != &r->scratch)
		image_free(r, img);
}

void
umms_gles2_images_forget(struct gles2_renderer *r, uint64_t id)
{
	struct gles2_image *img = g_hash_table_lookup(r->images, &id);
	if (!img)
		return;
	g_hash_table_remove(r->images, &id);
	image_free(r, img);
	umms_gles2_update_cached(r);
}

void
umms_gles2_images_finish(struct gles2_renderer *r)
{
	if (r->images) {
		GHashTableIter iter;
		gpointer value;
		g_hash_table_iter_init(&iter, r->images);
		while (g_hash_table_iter_next(&iter, NULL, &value)) {
			g_hash_table_iter_steal(&iter);
			image_free(r, value);
		}
	}
	image_clear(r, &r->scratch);
}
