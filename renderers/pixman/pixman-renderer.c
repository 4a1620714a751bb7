/*
 * The pixman renderer (pixman-renderer.h): images read in place or
 * converted into one scratch buffer, composited with pixman.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dma-buf.h>
#include <math.h>
#include <pixman.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

#include "pixman-renderer.h"

G_DEFINE_QUARK(umms-pixman-renderer-error-quark, umms_pixman_renderer_error)

#define ERROR_UNSUPPORTED UMMS_PIXMAN_RENDERER_ERROR_UNSUPPORTED
#define ERROR_INVALID UMMS_PIXMAN_RENDERER_ERROR_INVALID
#define ERROR_MAP UMMS_PIXMAN_RENDERER_ERROR_MAP

/* Sets @error in our domain; returns false. */
static bool G_GNUC_PRINTF(3, 4)
fail(GError **error, int code, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_propagate_error(error, g_error_new_valist(UMMS_PIXMAN_RENDERER_ERROR, code, format, args));
	va_end(args);
	return false;
}

/* ---- formats ------------------------------------------------------------- */

/* DRM fourccs are little-endian words; pixman's codes name native words. */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
enum { PF_XRGB = PIXMAN_x8r8g8b8, PF_ARGB = PIXMAN_a8r8g8b8, PF_XBGR = PIXMAN_x8b8g8r8,
	PF_ABGR = PIXMAN_a8b8g8r8, PF_RGB565 = PIXMAN_r5g6b5 };
#else   /* no byte-swapped r5g6b5 in pixman */
enum { PF_XRGB = PIXMAN_b8g8r8x8, PF_ARGB = PIXMAN_b8g8r8a8, PF_XBGR = PIXMAN_r8g8b8x8,
	PF_ABGR = PIXMAN_r8g8b8a8, PF_RGB565 = 0 };
#endif

struct plane_info {
	uint8_t cpp;    /* bytes per unit: a pixel, or a horizontal pair (hsub 2) */
	uint8_t hsub, vsub;
};

/* Where a YUV format's samples are: Y every y_step bytes of plane 0, U and
 * V at their plane's offset, every c_step bytes (one per horizontal pair);
 * depth 10: 16-bit little-endian samples, 10 bits at the top. */
struct yuv_layout {
	uint8_t depth, y_step, c_step, u_plane, u_offset, v_plane, v_offset;
};

struct format_info {
	uint32_t drm;
	uint32_t pixman;                /* pixman_format_code_t: RGB, read in place */
	bool alpha;
	int n_planes;
	struct plane_info planes[3];
	struct yuv_layout yuv;          /* depth 0: RGB */
};

static const struct format_info formats[] = {
	{ DRM_FORMAT_XRGB8888, PF_XRGB, false, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_ARGB8888, PF_ARGB, true, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_XBGR8888, PF_XBGR, false, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_ABGR8888, PF_ABGR, true, 1, { { 4, 1, 1 } } },
	{ DRM_FORMAT_RGB565, PF_RGB565, false, 1, { { 2, 1, 1 } } },
	{ DRM_FORMAT_NV12, 0, false, 2, { { 1, 1, 1 }, { 2, 2, 2 } }, { 8, 1, 2, 1, 0, 1, 1 } },
	{ DRM_FORMAT_YUV420, 0, false, 3, { { 1, 1, 1 }, { 1, 2, 2 }, { 1, 2, 2 } },
		{ 8, 1, 1, 1, 0, 2, 0 } },
	{ DRM_FORMAT_YUYV, 0, false, 1, { { 4, 2, 1 } }, { 8, 2, 4, 0, 1, 0, 3 } },
	{ DRM_FORMAT_P010, 0, false, 2, { { 2, 1, 1 }, { 4, 2, 2 } }, { 10, 2, 4, 1, 0, 1, 2 } },
};

static const struct format_info *
format_find(uint32_t drm)
{
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++)
		if (formats[i].drm == drm && (formats[i].yuv.depth || formats[i].pixman))
			return &formats[i];
	return NULL;
}

static void
plane_size(const struct format_info *info, int plane, int width, int height,
	size_t *row_bytes, size_t *rows)
{
	const struct plane_info *p = &info->planes[plane];
	*row_bytes = (size_t)((width + p->hsub - 1) / p->hsub) * p->cpp;
	*rows = (size_t)((height + p->vsub - 1) / p->vsub);
}

/* "NV12", with anything unprintable as '?'. */
static void
fourcc_name(uint32_t fourcc, char out[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);
		out[i] = g_ascii_isprint(c) ? c : '?';
	}
	out[4] = '\0';
}

/* "NV12 image with modifier INTEL_Y_TILED (0x0100000000000002): …" */
static bool
fail_modifier(GError **error, const char *format, const char *what, uint64_t modifier)
{
	char *vendor = drmGetFormatModifierVendor(modifier);
	char *name = drmGetFormatModifierName(modifier);
	fail(error, ERROR_UNSUPPORTED, "%s %s with modifier %s%s%s (0x%016" PRIx64 "): the "
		"pixman renderer maps linear memory only", format, what, vendor ? vendor : "",
		vendor ? "_" : "", name ? name : "unknown", modifier);
	free(name);
	free(vendor);
	return false;
}

/* ---- YUV → RGB ------------------------------------------------------------ */

/*
 * Kr and Kb of each matrix (Kg = 1 - Kr - Kb): ITU-R BT.601, BT.709 and
 * BT.2020 (non-constant luminance). With Y' in 0..1 and Pb, Pr in -0.5..0.5:
 *	R = Y' + 2 (1 - Kr) Pr
 *	G = Y' - 2 Kb (1 - Kb) / Kg Pb - 2 Kr (1 - Kr) / Kg Pr
 *	B = Y' + 2 (1 - Kb) Pb
 * Samples of depth d map to those as (limited range, BT.601/709/2020 §
 * "quantization", scaled by 2^(d-8) for 10 bits):
 *	Y' = (Y - 16·2^(d-8)) / (219·2^(d-8)), Pb = (Cb - 128·2^(d-8)) / (224·2^(d-8))
 * or (full range) Y' = Y / (2^d - 1), Pb = (Cb - 2^(d-1)) / (2^d - 1).
 * yuv_coeffs folds those into 16.16 fixed-point factors giving 8-bit RGB
 * straight from the samples; for BT.601 limited that is the classic
 * R = 1.164 (Y - 16) + 1.596 (Cr - 128) and so on.
 */
static const double matrix_k[][2] = {
	[UMMS_COLOR_BT601] = { 0.299, 0.114 },
	[UMMS_COLOR_BT709] = { 0.2126, 0.0722 },
	[UMMS_COLOR_BT2020] = { 0.2627, 0.0593 },
};

struct yuv_coeffs {
	int32_t y_offset, c_offset;     /* in samples of the image's depth */
	int32_t y, rv, gu, gv, bu;      /* 16.16: 8-bit output per sample step */
};

static void
yuv_coeffs_init(struct yuv_coeffs *k, enum umms_color_matrix matrix,
	enum umms_color_range range, int depth)
{
	double kr = matrix_k[matrix][0], kb = matrix_k[matrix][1], kg = 1.0 - kr - kb;
	bool limited = range == UMMS_COLOR_RANGE_LIMITED;
	k->y_offset = limited ? 16 << (depth - 8) : 0;
	double y_range = limited ? 219 << (depth - 8) : (1 << depth) - 1;
	double c_range = limited ? 224 << (depth - 8) : (1 << depth) - 1;
	k->c_offset = 1 << (depth - 1);
	double one = 65536.0 * 255.0;
	k->y = (int32_t)lround(one / y_range);
	k->rv = (int32_t)lround(one * 2.0 * (1.0 - kr) / c_range);
	k->gu = (int32_t)lround(one * 2.0 * kb * (1.0 - kb) / kg / c_range);
	k->gv = (int32_t)lround(one * 2.0 * kr * (1.0 - kr) / kg / c_range);
	k->bu = (int32_t)lround(one * 2.0 * (1.0 - kb) / c_range);
}

static inline uint32_t
clamp8(int32_t v)
{
	return v < 0 ? 0 : v >= 255 << 16 ? 255 : (uint32_t)v >> 16;
}

/* One pixel as opaque 0xffRRGGBB. */
static inline uint32_t
yuv_pixel(const struct yuv_coeffs *k, int32_t y, int32_t u, int32_t v)
{
	int32_t l = (y - k->y_offset) * k->y + (1 << 15);
	u -= k->c_offset;
	v -= k->c_offset;
	return 0xff000000u | clamp8(l + k->rv * v) << 16 | clamp8(l - k->gu * u - k->gv * v) << 8
		| clamp8(l + k->bu * u);
}

static inline int32_t
sample10(const uint8_t *p)
{
	return (p[0] | p[1] << 8) >> 6;
}

/* Columns [x0, x1) of rows [y0, y1) into @out (native 0xffRRGGBB words, image
 * coordinates); chroma of the nearest (co-sited left, upper) sample. */
static void
convert_yuv(const struct format_info *info, const struct umms_render_image *image,
	const uint8_t *const planes[], uint32_t *out, size_t out_stride,
	int x0, int x1, int y0, int y1)
{
	const struct yuv_layout *c = &info->yuv;
	struct yuv_coeffs k;
	yuv_coeffs_init(&k, image->matrix, image->range, c->depth);
	for (int y = y0; y < y1; y++) {
		const uint8_t *row[3];
		for (int p = 0; p < info->n_planes; p++)
			row[p] = planes[p]
				+ (size_t)(y / info->planes[p].vsub) * image->planes[p].stride;
		const uint8_t *l = row[0], *u = row[c->u_plane] + c->u_offset;
		const uint8_t *v = row[c->v_plane] + c->v_offset;
		uint32_t *o = out + (size_t)y * out_stride;
		size_t ys = c->y_step, cs = c->c_step;
		if (c->depth == 8)
			for (int x = x0; x < x1; x++)
				o[x] = yuv_pixel(&k, l[x * ys], u[x / 2 * cs], v[x / 2 * cs]);
		else
			for (int x = x0; x < x1; x++)
				o[x] = yuv_pixel(&k, sample10(l + x * ys), sample10(u + x / 2 * cs),
					sample10(v + x / 2 * cs));
	}
}

/* ---- mapping dma-bufs ------------------------------------------------------ */

struct mapping {
	void *base;
	size_t size;
	bool copied;    /* base is a copy (g_malloc), not a mapping */
};

/*
 * Whether @fd may shrink under a mapping of it (a SIGBUS on reading): a
 * file of the page cache (a memfd, a client's) not sealed against it.
 * dma-bufs keep their size; ummsd's own memfds are sealed.
 */
static bool
may_shrink(int fd, const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return false;
	int seals = fcntl(fd, F_GET_SEALS);
	return seals < 0 || !(seals & F_SEAL_SHRINK);
}

/* Maps @length bytes of @fd from @offset for @plane (-1: the target); *@at is
 * the byte at @offset. */
static bool
map_range(int fd, uint64_t offset, size_t length, int prot, struct mapping *map,
	const uint8_t **at, int plane, GError **error)
{
	char what[32];
	snprintf(what, sizeof(what), plane < 0 ? "the target" : "image plane %d", plane);
	struct stat st;
	off_t size = fstat(fd, &st) == 0 ? st.st_size : -1;
	if (size <= 0)          /* dma-bufs tell their size by seeking */
		size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return fail(error, ERROR_MAP, "%s: not a buffer that can be mapped (%s)", what,
			g_strerror(errno));
	if (offset + length > (uint64_t)size)
		return fail(error, ERROR_INVALID, "%s needs %zu bytes from offset %" PRIu64
			"; its dma-buf has %jd", what, length, offset, (intmax_t)size);
	if (!(prot & PROT_WRITE) && fstat(fd, &st) == 0 && may_shrink(fd, &st)) {
		/* Copied: pread stops short where a mapping would fault. */
		map->base = g_try_malloc(length);
		if (!map->base)
			return fail(error, ERROR_MAP, "%s: no memory for %zu bytes", what, length);
		map->size = length;
		map->copied = true;
		ssize_t n = pread(fd, map->base, length, (off_t)offset);
		if (n < 0 || (size_t)n < length) {
			g_clear_pointer(&map->base, g_free);
			return fail(error, ERROR_INVALID, "%s shrank under the %zu bytes read", what,
				length);
		}
		*at = map->base;
		return true;
	}
	uint64_t start = offset - offset % (uint64_t)sysconf(_SC_PAGESIZE);
	map->size = (size_t)(offset - start) + length;
	map->base = mmap(NULL, map->size, prot, MAP_SHARED, fd, (off_t)start);
	if (map->base == MAP_FAILED) {
		map->base = NULL;
		return fail(error, ERROR_MAP, "%s: mmap: %s", what, g_strerror(errno));
	}
	*at = (uint8_t *)map->base + (offset - start);
	return true;
}

static void
unmap(struct mapping *map)
{
	if (map->base && map->copied)
		g_free(map->base);
	else if (map->base)
		munmap(map->base, map->size);
	*map = (struct mapping){ 0 };
}

/* Brackets CPU access; a file that is no dma-buf (a memfd: ENOTTY) needs none. */
static void
sync_dmabuf(int fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };
	while (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) != 0 && (errno == EINTR || errno == EAGAIN))
		continue;
}

/* ---- the renderer ---------------------------------------------------------- */

struct pixman_renderer {
	struct umms_renderer base;
	struct umms_renderer_stats stats;
	/* The frame, between begin() and end(). */
	pixman_image_t *target;
	int clip[4];                    /* x0, y0, x1, y1: the frame's damage, or all of it */
	struct mapping target_map;
	int target_fd;                  /* a synced dma-buf, else -1 */
	/* Converted (or realigned) images, kept across frames. */
	void *scratch;
	size_t scratch_size;
	unsigned scratch_allocations;
	/* Linear dma-bufs of every format it reads: mapped and read in place. */
	struct umms_render_format dmabuf_formats[G_N_ELEMENTS(formats)];
	size_t n_dmabuf_formats;
};

/* The image's format in *@out, or false and why not. */
static bool
check_image(const struct umms_render_image *image, const struct format_info **out,
	GError **error)
{
	char name[5];
	fourcc_name(image->format, name);
	const struct format_info *info = *out = format_find(image->format);
	if (!info)
		return fail(error, ERROR_UNSUPPORTED, "image format %s: the pixman renderer reads "
			"XRGB8888, ARGB8888, XBGR8888, ABGR8888, RGB565, NV12, YUV420, YUYV and "
			"P010", name);
	if (image->dmabuf && image->modifier != DRM_FORMAT_MOD_LINEAR
			&& image->modifier != DRM_FORMAT_MOD_INVALID)
		return fail_modifier(error, name, "image", image->modifier);
	if (image->width <= 0 || image->height <= 0 || image->width > 32768
			|| image->height > 32768 || image->n_planes != info->n_planes)
		return fail(error, ERROR_INVALID, "%s image of %dx%d with %d planes (%d expected; "
			"up to 32768 pixels a side)", name, image->width, image->height,
			image->n_planes, info->n_planes);
	if (info->yuv.depth && ((unsigned)image->matrix > UMMS_COLOR_BT2020
			|| (unsigned)image->range > UMMS_COLOR_RANGE_FULL))
		return fail(error, ERROR_INVALID, "%s image with matrix %d and range %d", name,
			image->matrix, image->range);
	for (int i = 0; i < info->n_planes; i++) {
		const struct umms_render_plane *p = &image->planes[i];
		size_t row_bytes, rows;
		plane_size(info, i, image->width, image->height, &row_bytes, &rows);
		if ((image->dmabuf ? p->fd < 0 : !p->data) || p->stride < row_bytes)
			return fail(error, ERROR_INVALID, "%s image of %dx%d: plane %d has %s and a "
				"stride of %u (%zu needed)", name, image->width, image->height, i,
				image->dmabuf ? (p->fd < 0 ? "no fd" : "an fd")
				: (p->data ? "data" : "no data"), p->stride, row_bytes);
	}
	return true;
}

static bool
renderer_can_draw(struct umms_renderer *base, const struct umms_render_image *image)
{
	const struct format_info *info;
	return check_image(image, &info, NULL);
}

static void
finish_frame(struct pixman_renderer *r)
{
	if (r->target)
		pixman_image_unref(r->target);
	r->target = NULL;
	if (r->target_fd >= 0)
		sync_dmabuf(r->target_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW);
	r->target_fd = -1;
	unmap(&r->target_map);
}

/* The frame's damage (renderer.h) as whole pixels: what clear() and draw() may change. */
static void
set_clip(struct pixman_renderer *r, const struct umms_render_target *target)
{
	const struct umms_render_box *d = target->damage;
	r->clip[0] = r->clip[1] = 0;
	r->clip[2] = target->width, r->clip[3] = target->height;
	if (!d || !(isfinite(d->x) && isfinite(d->y) && isfinite(d->width) &&
			isfinite(d->height)))
		return;
	r->clip[0] = (int)MIN(MAX(floor(d->x), 0), target->width);
	r->clip[1] = (int)MIN(MAX(floor(d->y), 0), target->height);
	r->clip[2] = (int)MAX(MIN(ceil(d->x + d->width), target->width), r->clip[0]);
	r->clip[3] = (int)MAX(MIN(ceil(d->y + d->height), target->height), r->clip[1]);
}

static bool
renderer_begin(struct umms_renderer *base, const struct umms_render_target *target,
	GError **error)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	g_return_val_if_fail(!r->target, false);
	char name[5];
	fourcc_name(target->format, name);
	uint32_t format = target->format == DRM_FORMAT_XRGB8888 ? PF_XRGB
		: target->format == DRM_FORMAT_ARGB8888 ? PF_ARGB : 0;
	if (!format)
		return fail(error, ERROR_UNSUPPORTED, "target format %s: the pixman renderer "
			"draws into XRGB8888 and ARGB8888", name);
	if (target->width <= 0 || target->height <= 0 || target->stride % 4 != 0
			|| target->stride < (uint64_t)target->width * 4
			|| (target->dmabuf ? target->offset % 4 != 0
			: !target->data || (uintptr_t)target->data % 4 != 0))
		return fail(error, ERROR_INVALID, "%s target of %dx%d: stride %u, offset %u, "
			"data %p (aligned to 4 bytes needed)", name, target->width, target->height,
			target->stride, target->offset, target->data);
	const uint8_t *pixels = target->data;
	if (target->dmabuf) {
		if (target->modifier != DRM_FORMAT_MOD_LINEAR)
			return fail_modifier(error, name, "target", target->modifier);
		size_t length = (size_t)target->stride * (size_t)(target->height - 1)
			+ (size_t)target->width * 4;
		if (!map_range(target->fd, target->offset, length, PROT_READ | PROT_WRITE,
				&r->target_map, &pixels, -1, error))
			return false;
		r->target_fd = target->fd;
		sync_dmabuf(r->target_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW);
	}
	r->target = pixman_image_create_bits_no_clear((pixman_format_code_t)format,
		target->width, target->height, (uint32_t *)(uintptr_t)pixels, (int)target->stride);
	if (!r->target) {
		finish_frame(r);
		return fail(error, ERROR_INVALID, "pixman refused a %dx%d target", target->width,
			target->height);
	}
	set_clip(r, target);
	return true;
}

static void
renderer_clear(struct umms_renderer *base, uint32_t argb)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	g_return_if_fail(r->target);
#define CHANNEL(shift) (uint16_t)(((argb >> (shift)) & 0xff) * 0x101)
	pixman_color_t color = { CHANNEL(16), CHANNEL(8), CHANNEL(0), CHANNEL(24) };
#undef CHANNEL
	pixman_box32_t box = { r->clip[0], r->clip[1], r->clip[2], r->clip[3] };
	if (box.x2 > box.x1 && box.y2 > box.y1)
		pixman_image_fill_boxes(PIXMAN_OP_SRC, r->target, &color, 1, &box);
}

/* The scratch buffer, at least @size bytes: reallocated when the size changes. */
static void *
scratch_get(struct pixman_renderer *r, size_t size)
{
	if (size != r->scratch_size) {
		g_free(r->scratch);
		r->scratch = g_malloc0(size);
		r->scratch_size = size;
		r->scratch_allocations++;
	}
	return r->scratch;
}

/* The image's pixels for this draw: in place (RGB with 32-bit aligned rows)
 * or converted (copied) into the scratch buffer over columns [x0, x1) and
 * rows [y0, y1) only. NULL when pixman refuses the image. */
static pixman_image_t *
source_image(struct pixman_renderer *r, const struct format_info *info,
	const struct umms_render_image *image, const uint8_t *const planes[],
	int x0, int x1, int y0, int y1)
{
	int w = image->width, h = image->height;
	size_t in_stride = image->planes[0].stride;
	pixman_format_code_t format = info->yuv.depth ? PIXMAN_x8r8g8b8
		: (pixman_format_code_t)info->pixman;
	if (!info->yuv.depth && (uintptr_t)planes[0] % 4 == 0 && in_stride % 4 == 0)
		return pixman_image_create_bits_no_clear(format, w, h,
			(uint32_t *)(uintptr_t)planes[0], (int)in_stride);
	r->stats.uploads++;
	size_t cpp = info->yuv.depth ? 4 : info->planes[0].cpp;
	size_t stride = ((size_t)w * cpp + 3) & ~(size_t)3;
	uint8_t *out = scratch_get(r, stride * (size_t)h);
	if (info->yuv.depth)
		convert_yuv(info, image, planes, (uint32_t *)out, (size_t)w, x0, x1, y0, y1);
	else    /* rows pixman cannot read as 32-bit words: copied to aligned ones */
		for (int y = y0; y < y1; y++)
			memcpy(out + (size_t)y * stride + (size_t)x0 * cpp,
				planes[0] + (size_t)y * in_stride + (size_t)x0 * cpp,
				(size_t)(x1 - x0) * cpp);
	return pixman_image_create_bits_no_clear(format, w, h, (uint32_t *)out, (int)stride);
}

static bool
box_valid(const struct umms_render_box *b)
{
	return isfinite(b->x) && isfinite(b->y) && isfinite(b->width) && isfinite(b->height)
		&& b->width > 0 && b->height > 0;
}

/* @v clamped to [lo, hi], as an int. */
static int
clamp_int(double v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : (int)v;
}

static bool
renderer_draw(struct umms_renderer *base, const struct umms_render_image *image,
	const struct umms_render_box *src, const struct umms_render_box *dst, GError **error)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	g_return_val_if_fail(r->target, false);
	const struct format_info *info;
	if (!check_image(image, &info, error))
		return false;
	if (!box_valid(src) || !box_valid(dst))
		return fail(error, ERROR_INVALID, "draw from %gx%g%+g%+g to %gx%g%+g%+g: boxes "
			"must be finite and not empty", src->width, src->height, src->x, src->y,
			dst->width, dst->height, dst->x, dst->y);

	/* Target pixels whose centres are inside @dst, and the image area
	 * they sample (s = t·scale + offset), with a margin for the filter. */
	int tw = pixman_image_get_width(r->target), th = pixman_image_get_height(r->target);
	int dx0 = clamp_int(ceil(dst->x - 0.5), 0, tw);
	int dx1 = clamp_int(ceil(dst->x + dst->width - 0.5), 0, tw);
	int dy0 = clamp_int(ceil(dst->y - 0.5), 0, th);
	int dy1 = clamp_int(ceil(dst->y + dst->height - 0.5), 0, th);
	/* Only the frame's damage. */
	dx0 = MAX(dx0, r->clip[0]), dy0 = MAX(dy0, r->clip[1]);
	dx1 = MIN(dx1, r->clip[2]), dy1 = MIN(dy1, r->clip[3]);
	if (dx0 >= dx1 || dy0 >= dy1)
		return true;
	double scale_x = src->width / dst->width, scale_y = src->height / dst->height;
	double off_x = src->x - dst->x * scale_x, off_y = src->y - dst->y * scale_y;
	int sx0 = clamp_int(floor(dx0 * scale_x + off_x) - 2, 0, image->width - 1);
	int sx1 = clamp_int(floor(dx1 * scale_x + off_x) + 3, sx0 + 1, image->width);
	int sy0 = clamp_int(floor(dy0 * scale_y + off_y) - 2, 0, image->height - 1);
	int sy1 = clamp_int(floor(dy1 * scale_y + off_y) + 3, sy0 + 1, image->height);
	/* 1:1 at a whole-pixel offset: no transform, nearest, shifted origin. */
	bool identity = fabs(scale_x - 1.0) < 1e-9 && fabs(scale_y - 1.0) < 1e-9
		&& fabs(off_x - round(off_x)) < 1e-9 && fabs(off_y - round(off_y)) < 1e-9;
	struct pixman_transform transform;
	struct pixman_f_transform ft;
	pixman_f_transform_init_scale(&ft, scale_x, scale_y);
	pixman_f_transform_translate(&ft, NULL, off_x, off_y);
	if (!identity && !pixman_transform_from_pixman_f_transform(&transform, &ft))
		return fail(error, ERROR_INVALID, "draw from %gx%g to %gx%g: scale out of range",
			src->width, src->height, dst->width, dst->height);

	struct mapping maps[3] = { 0 };
	const uint8_t *planes[3] = { 0 };
	bool ok = false;
	int n_mapped = 0;
	for (int i = 0; i < info->n_planes; i++) {
		const struct umms_render_plane *p = &image->planes[i];
		planes[i] = p->data;
		if (!image->dmabuf)
			continue;
		size_t row_bytes, rows;
		plane_size(info, i, image->width, image->height, &row_bytes, &rows);
		if (!map_range(p->fd, p->offset, p->stride * (rows - 1) + row_bytes, PROT_READ,
				&maps[i], &planes[i], i, error))
			goto out;
		n_mapped = i + 1;
		sync_dmabuf(p->fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	}

	pixman_image_t *pi = source_image(r, info, image, planes, sx0, sx1, sy0, sy1);
	if (!pi) {
		fail(error, ERROR_INVALID, "pixman refused a %dx%d image", image->width,
			image->height);
		goto out;
	}
	pixman_image_set_repeat(pi, PIXMAN_REPEAT_PAD);
	pixman_image_set_filter(pi, identity ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR,
		NULL, 0);
	pixman_image_set_transform(pi, identity ? NULL : &transform);
	int src_x = dx0 + (identity ? (int)lround(off_x) : 0);
	int src_y = dy0 + (identity ? (int)lround(off_y) : 0);
	pixman_image_composite32(info->alpha ? PIXMAN_OP_OVER : PIXMAN_OP_SRC, pi, NULL,
		r->target, src_x, src_y, 0, 0, dx0, dy0, dx1 - dx0, dy1 - dy0);
	pixman_image_unref(pi);
	ok = true;
out:
	for (int i = 0; i < n_mapped; i++) {
		sync_dmabuf(image->planes[i].fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
		unmap(&maps[i]);
	}
	return ok;
}

static bool
renderer_end(struct umms_renderer *base, GError **error)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	g_return_val_if_fail(r->target, false);
	finish_frame(r);
	r->stats.frames++;
	return true;
}

static void
renderer_forget(struct umms_renderer *base, uint64_t id)
{
	/* Nothing is cached per image. */
}

static const struct umms_renderer_stats *
renderer_stats(struct umms_renderer *base)
{
	return &((struct pixman_renderer *)base)->stats;
}

static size_t
renderer_dmabuf_formats(struct umms_renderer *base, const struct umms_render_format **out)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	*out = r->dmabuf_formats;
	return r->n_dmabuf_formats;
}

static void
renderer_destroy(struct umms_renderer *base)
{
	struct pixman_renderer *r = (struct pixman_renderer *)base;
	finish_frame(r);
	g_free(r->scratch);
	g_free(r);
}

static const struct umms_renderer_impl impl = {
	.name = "pixman",
	.can_draw = renderer_can_draw,
	.begin = renderer_begin,
	.clear = renderer_clear,
	.draw = renderer_draw,
	.end = renderer_end,
	.forget = renderer_forget,
	.stats = renderer_stats,
	.dmabuf_formats = renderer_dmabuf_formats,
	.destroy = renderer_destroy,
};

struct umms_renderer *
umms_pixman_renderer_create(GError **error)
{
	struct pixman_renderer *r = g_new0(struct pixman_renderer, 1);
	r->base.impl = &impl;
	r->target_fd = -1;
	for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
		if (format_find(formats[i].drm))
			r->dmabuf_formats[r->n_dmabuf_formats++] = (struct umms_render_format){
				formats[i].drm, DRM_FORMAT_MOD_LINEAR };
	}
	return &r->base;
}

unsigned
umms_pixman_renderer_scratch_allocations(struct umms_renderer *base)
{
	g_return_val_if_fail(base && base->impl == &impl, 0);
	return ((struct pixman_renderer *)base)->scratch_allocations;
}
