/*
 * The KMS output's state as org.umms.Display1 shows it (kms.h): modes,
 * margins, planes and their use, the device, and capture through the
 * writeback connector.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

#include "error.h"
#include "kms-ladder.h"
#include "kms-output-private.h"

char **
umms_kms_output_list_modes(struct umms_target *target)
{
	struct kms_output *o = kms_output(target);
	char **modes = g_new0(char *, (size_t)o->dev->n_modes + 1);
	for (int i = 0; i < o->dev->n_modes; i++)
		modes[i] = umms_kms_mode_describe(&o->dev->modes[i]);
	return modes;
}

char *
umms_kms_output_current_mode(struct umms_target *target)
{
	return umms_kms_mode_describe(&kms_output(target)->dev->mode);
}

void
umms_kms_output_get_margins_px(struct umms_target *target, int px[4])
{
	kms_output_margins_px(kms_output(target), px);
}

bool
umms_kms_output_check_margins(struct umms_target *target, const struct umms_screen_margins *m,
	GError **error)
{
	struct kms_output *o = kms_output(target);
	return umms_screen_margins_check(m, o->dev->mode.hdisplay, o->dev->mode.vdisplay, error);
}

dev_t
umms_kms_output_get_device(struct umms_target *target)
{
	struct stat st;
	return fstat(kms_output(target)->dev->fd, &st) == 0 ? st.st_rdev : 0;
}

struct umms_renderer *
umms_kms_output_get_renderer(struct umms_target *target)
{
	return kms_output(target)->renderer;
}

int
umms_kms_output_get_refresh_mhz(struct umms_target *target)
{
	const drmModeModeInfo *m = &kms_output(target)->dev->mode;
	return m->htotal && m->vtotal ? (int)((uint64_t)m->clock * 1000000u /
		((uint64_t)m->htotal * m->vtotal)) : 60000;
}

int
umms_kms_output_get_overlay_formats(struct umms_target *target, uint32_t **formats)
{
	struct umms_kms_device *dev = kms_output(target)->dev;
	GArray *out = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	for (int i = 0; i < dev->n_planes; i++) {
		const struct umms_kms_plane *p = &dev->planes[i];
		for (uint32_t f = 0; p->type == UMMS_KMS_PLANE_OVERLAY && f < p->n_formats; f++) {
			bool seen = false;
			for (guint k = 0; k < out->len && !seen; k++)
				seen = g_array_index(out, uint32_t, k) == p->formats[f];
			if (!seen)
				g_array_append_val(out, p->formats[f]);
		}
	}
	int n = (int)out->len;
	*formats = (uint32_t *)(void *)g_array_free(out, FALSE);
	return n;
}

enum umms_layout_scale
umms_kms_output_get_zoom(struct umms_target *target)
{
	return kms_output(target)->zoom;
}

const char *
umms_kms_output_get_rung(struct umms_target *target)
{
	struct kms_output *o = kms_output(target);
	return o->plan.rung < 0 ? "" : umms_kms_rung_name((enum umms_kms_rung)o->plan.rung);
}

uint64_t
umms_kms_output_get_copies(struct umms_target *target)
{
	return kms_frame_cache_copies(kms_output(target)->cache);
}

GVariant *
umms_kms_output_describe_planes(struct umms_target *target)
{
	struct kms_output *o = kms_output(target);
	GVariantBuilder planes;
	g_variant_builder_init(&planes, G_VARIANT_TYPE("aa{sv}"));
	for (int i = 0; i < o->dev->n_planes; i++) {
		const struct umms_kms_plane *p = &o->dev->planes[i];
		GVariantBuilder formats;
		g_variant_builder_init(&formats, G_VARIANT_TYPE("as"));
		for (uint32_t f = 0; f < p->n_formats; f++) {
			char name[5];
			if (umms_kms_fourcc_name(p->formats[f], name))
				g_variant_builder_add(&formats, "s", name);
		}
		const char *use = "";
		if (i == o->plan.video_plane)
			use = "video";
		else if (i == o->plan.sub_plane)
			use = "subtitles";
		else if (i == o->plan.primary_plane)
			use = o->plan.rung == UMMS_KMS_RUNG_COMPOSITE ? "composition" : "background";
		GVariantBuilder dict;
		g_variant_builder_init(&dict, G_VARIANT_TYPE("a{sv}"));
		g_variant_builder_add(&dict, "{sv}", "id", g_variant_new_uint32(p->id));
		g_variant_builder_add(&dict, "{sv}", "type",
			g_variant_new_string(umms_kms_plane_type_name(p->type)));
		g_variant_builder_add(&dict, "{sv}", "formats", g_variant_builder_end(&formats));
		g_variant_builder_add(&dict, "{sv}", "zpos", g_variant_new_uint64(p->zpos));
		g_variant_builder_add(&dict, "{sv}", "use", g_variant_new_string(use));
		g_variant_builder_add_value(&planes, g_variant_builder_end(&dict));
	}
	return g_variant_builder_end(&planes);
}

bool
umms_kms_output_capture(struct umms_target *target, const char *path, GError **error)
{
	struct kms_output *o = kms_output(target);
	struct umms_kms_device *dev = o->dev;
	if (!dev->writeback_id) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"display: %s (%s) has no writeback connector to capture with", dev->path,
			dev->driver);
		return false;
	}
	kms_output_settle(o);
	if (!o->capture.fb_id && !kms_dumb_create(dev->fd, dev->mode.hdisplay, dev->mode.vdisplay,
			DRM_FORMAT_XRGB8888, &o->capture, error))
		return false;
	/* The state on screen again, with the writeback connector reading it. */
	int32_t fence = -1;
	if (!kms_output_commit(o, &o->plan, 0, o->capture.fb_id, &fence, error))
		return false;
	struct pollfd pfd = { .fd = fence, .events = POLLIN };
	int ready = fence >= 0 ? poll(&pfd, 1, 2000) : 0;
	if (fence >= 0)
		close(fence);
	if (ready <= 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"display: the writeback did not complete");
		return false;
	}
	return kms_dumb_write_png(&o->capture, path, error);
}

int
umms_kms_output_get_video_formats(struct umms_target *target, const uint32_t **formats)
{
	/* XRGB8888 (wl_shm code 1), which every plane scans out. */
	static const uint32_t xrgb8888[] = { 1 };
	*formats = xrgb8888;
	return 1;
}

void
umms_kms_output_get_stats(struct umms_target *target, struct umms_screen_stats *stats)
{
	struct kms_output *o = kms_output(target);
	*stats = (struct umms_screen_stats){ .renderer = o->renderer_name, .redraws = o->redraws,
		.uploads = umms_renderer_stats(o->renderer)->uploads,
		.upload_bytes = umms_renderer_stats(o->renderer)->upload_bytes,
		.subpictures = kms_frame_cache_sub_fbs(o->cache), .damaged_pixels = o->damaged_pixels };
}

const struct umms_screen_impl kms_screen_impl = {
	.list_modes = umms_kms_output_list_modes,
	.current_mode = umms_kms_output_current_mode,
	.set_mode = umms_kms_output_set_mode,
	.match_refresh = umms_kms_output_match_refresh,
	.get_refresh_mhz = umms_kms_output_get_refresh_mhz,
	.check_margins = umms_kms_output_check_margins,
	.set_margins = umms_kms_output_set_margins,
	.get_margins_px = umms_kms_output_get_margins_px,
	.set_zoom = umms_kms_output_set_zoom,
	.get_zoom = umms_kms_output_get_zoom,
	.place_video = umms_kms_output_place_video,
	.get_video_formats = umms_kms_output_get_video_formats,
	.set_ui = umms_kms_output_set_ui,
	.damage_ui = umms_kms_output_damage_ui,
	.get_ui_area = umms_kms_output_get_ui_area,
	.get_device = umms_kms_output_get_device,
	.get_overlay_formats = umms_kms_output_get_overlay_formats,
	.get_renderer = umms_kms_output_get_renderer,
	.describe_planes = umms_kms_output_describe_planes,
	.get_rung = umms_kms_output_get_rung,
	.get_copies = umms_kms_output_get_copies,
	.capture = umms_kms_output_capture,
	.get_stats = umms_kms_output_get_stats,
};
