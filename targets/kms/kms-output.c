/*
 * The KMS target (kms.h): plans a layout per frame with the plane ladder,
 * tests it, commits it, and paces itself on page-flip events.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "error.h"
#include "frame.h"
#include "kms-atomic.h"
#include "kms-buffers.h"
#include "kms-device.h"
#include "kms-ladder.h"
#include "kms.h"
#include "log.h"
#include "source.h"

/* What one commit puts where. */
struct plan {
	int rung;                  /* enum umms_kms_rung, -1: no video */
	int video_plane;           /* index in the device's planes, -1: none */
	int primary_plane;
	uint32_t video_fb, primary_fb;
	struct umms_layout layout; /* in mode pixels */
	char why[96];
};

struct kms_output {
	struct umms_target base;
	struct umms_kms_device *dev;
	struct kms_frame_cache *cache;
	struct kms_dumb black, composite[2], capture;
	int next_composite;
	GSource *source;
	bool modeset;              /* the next commit sets mode and routing */
	GArray *mode_blobs;        /* of the committed mode */
	bool margins_by_connector;
	struct umms_kms_margins margins;
	enum umms_layout_scale zoom;
	struct umms_frame *shown, *flipping, *waiting;
	bool flip_pending;
	bool waiting_set;          /* waiting holds the next thing to show (NULL: black) */
	struct plan plan;          /* the last commit's */
	int good_k;                /* the ladder rung that worked for good_layout, -1: none */
	struct umms_layout good_layout;
	uint32_t good_format;
	int last_rung;             /* for logging changes */
	bool matched;              /* the mode was switched to match a frame rate */
	drmModeModeInfo unmatched; /* the mode to go back to */
};

static const struct umms_target_impl kms_impl;

static struct kms_output *
kms_output(struct umms_target *target)
{
	g_assert(target->impl == &kms_impl);
	return (struct kms_output *)target;
}

/* ---- placement -------------------------------------------------------------- */

static void
margins_px(const struct kms_output *o, int px[4])
{
	const struct umms_kms_margins *m = &o->margins;
	int w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	int v[4] = { m->left, m->top, m->right, m->bottom };
	for (int i = 0; i < 4; i++)
		px[i] = m->percent ? (i % 2 ? h : w) * v[i] / 100 : v[i];
}

static void
place(const struct kms_output *o, const struct umms_frame *frame, struct umms_layout *out)
{
	int w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	int m[4] = { 0 };
	if (!o->margins_by_connector)
		margins_px(o, m);
	struct umms_layout_input in = {
		.x = m[0], .y = m[1], .width = w - m[0] - m[2], .height = h - m[1] - m[3],
		.scale = o->zoom,
		.buffer_width = frame->width, .buffer_height = frame->height,
		.crop_x = frame->crop_x, .crop_y = frame->crop_y,
		.crop_width = frame->crop_width, .crop_height = frame->crop_height,
		.par_n = frame->par_n, .par_d = frame->par_d,
	};
	umms_layout_compute(&in, out);
}

/* ---- commits ---------------------------------------------------------------- */

static void
add_plane(struct umms_kms_atomic *a, const struct umms_kms_device *dev,
	const struct umms_kms_plane *p, uint32_t fb, double sx, double sy, double sw, double sh,
	int dx, int dy, int dw, int dh)
{
	const struct umms_kms_plane_props *pr = &p->props;
	umms_kms_atomic_add(a, p->id, pr->fb_id, fb);
	umms_kms_atomic_add(a, p->id, pr->crtc_id, fb ? dev->crtc_id : 0);
	if (!fb)
		return;
	/* Source in 16.16 fixed point, destination in whole pixels. */
	umms_kms_atomic_add(a, p->id, pr->src_x, (uint64_t)(sx * 65536.0 + 0.5));
	umms_kms_atomic_add(a, p->id, pr->src_y, (uint64_t)(sy * 65536.0 + 0.5));
	umms_kms_atomic_add(a, p->id, pr->src_w, (uint64_t)(sw * 65536.0 + 0.5));
	umms_kms_atomic_add(a, p->id, pr->src_h, (uint64_t)(sh * 65536.0 + 0.5));
	umms_kms_atomic_add(a, p->id, pr->crtc_x, (uint64_t)(int64_t)dx);
	umms_kms_atomic_add(a, p->id, pr->crtc_y, (uint64_t)(int64_t)dy);
	umms_kms_atomic_add(a, p->id, pr->crtc_w, (uint64_t)dw);
	umms_kms_atomic_add(a, p->id, pr->crtc_h, (uint64_t)dh);
}

static struct umms_kms_atomic *
build(struct kms_output *o, const struct plan *plan, uint32_t capture_fb, int32_t *fence)
{
	struct umms_kms_device *dev = o->dev;
	struct umms_kms_atomic *a = umms_kms_atomic_create(dev->fd);
	int w = dev->mode.hdisplay, h = dev->mode.vdisplay;
	if (o->modeset) {
		uint32_t blob = umms_kms_atomic_blob(a, &dev->mode, sizeof(dev->mode));
		umms_kms_atomic_add(a, dev->crtc_id, dev->crtc_props.mode_id, blob);
		umms_kms_atomic_add(a, dev->crtc_id, dev->crtc_props.active, 1);
		umms_kms_atomic_add(a, dev->connector_id, dev->connector_props.crtc_id, dev->crtc_id);
		if (o->margins_by_connector) {
			int m[4];
			margins_px(o, m);
			for (int i = 0; i < 4; i++)
				umms_kms_atomic_add(a, dev->connector_id,
					dev->connector_props.margin[i], (uint64_t)m[i]);
		}
	}
	const struct umms_layout *l = &plan->layout;
	for (int i = 0; i < dev->n_planes; i++) {
		const struct umms_kms_plane *p = &dev->planes[i];
		if (p->type == UMMS_KMS_PLANE_CURSOR)
			continue;
		if (i == plan->video_plane && plan->rung == UMMS_KMS_RUNG_PRIMARY)
			add_plane(a, dev, p, plan->video_fb, l->src_x, l->src_y, l->src_width,
				l->src_height, 0, 0, w, h);
		else if (i == plan->primary_plane)
			add_plane(a, dev, p, plan->primary_fb, 0, 0, w, h, 0, 0, w, h);
		else if (i == plan->video_plane)
			add_plane(a, dev, p, plan->video_fb, l->src_x, l->src_y, l->src_width,
				l->src_height, l->video_x, l->video_y, l->video_width, l->video_height);
		else
			add_plane(a, dev, p, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	}
	if (capture_fb) {
		umms_kms_atomic_add(a, dev->writeback_id, dev->writeback_props.crtc_id, dev->crtc_id);
		umms_kms_atomic_add(a, dev->writeback_id, dev->writeback_props.fb_id, capture_fb);
		umms_kms_atomic_add(a, dev->writeback_id, dev->writeback_props.out_fence_ptr,
			(uint64_t)(uintptr_t)fence);
	}
	return a;
}

/* Destroys the blobs of the mode committed before (a newer commit replaced them). */
static void
drop_mode_blobs(struct kms_output *o)
{
	if (!o->mode_blobs)
		return;
	for (guint i = 0; i < o->mode_blobs->len; i++)
		drmModeDestroyPropertyBlob(o->dev->fd, g_array_index(o->mode_blobs, uint32_t, i));
	g_clear_pointer(&o->mode_blobs, g_array_unref);
}

/* Commits @plan (TEST_ONLY first is the caller's business); keeps the mode blob. */
static bool
commit(struct kms_output *o, const struct plan *plan, uint32_t flags, uint32_t capture_fb,
	int32_t *fence, GError **error)
{
	bool modeset = o->modeset || capture_fb;
	struct umms_kms_atomic *a = build(o, plan, capture_fb, fence);
	bool ok = umms_kms_atomic_commit(a, flags | (modeset ? DRM_MODE_ATOMIC_ALLOW_MODESET : 0),
		o, flags & DRM_MODE_ATOMIC_TEST_ONLY ? "layout test" : "commit", error);
	if (ok && !(flags & DRM_MODE_ATOMIC_TEST_ONLY) && o->modeset) {
		drop_mode_blobs(o);
		o->mode_blobs = umms_kms_atomic_keep_blobs(a);
		o->modeset = false;
	}
	umms_kms_atomic_destroy(a);
	return ok;
}

static bool
test(struct kms_output *o, const struct plan *plan, const char **refused, GError **keep)
{
	GError *error = NULL;
	if (commit(o, plan, DRM_MODE_ATOMIC_TEST_ONLY, 0, NULL, &error))
		return true;
	umms_debug("display: %s: refused: %s", plan->why, error->message);
	*refused = plan->why;
	if (keep && !*keep)
		*keep = error;
	else
		g_error_free(error);
	return false;
}

/* The first layout of the ladder the device accepts for @frame (NULL: none, black). */
static bool
choose(struct kms_output *o, struct umms_frame *frame, struct plan *plan, GError **error)
{
	struct umms_kms_device *dev = o->dev;
	*plan = (struct plan){ .rung = -1, .video_plane = -1, .primary_plane = -1,
		.primary_fb = o->black.fb_id };
	for (int i = 0; i < dev->n_planes && plan->primary_plane < 0; i++) {
		if (dev->planes[i].type == UMMS_KMS_PLANE_PRIMARY)
			plan->primary_plane = i;
	}
	if (!frame) {
		snprintf(plan->why, sizeof(plan->why), "no video: black");
		return commit(o, plan, DRM_MODE_ATOMIC_TEST_ONLY, 0, NULL, error);
	}
	place(o, frame, &plan->layout);
	const struct umms_layout *l = &plan->layout;
	struct umms_kms_ladder_input in = {
		.planes = dev->planes, .n_planes = dev->n_planes,
		.video_format = kms_frame_drm_format(frame),
		.covers_output = l->video_x == 0 && l->video_y == 0 &&
			l->video_width == dev->mode.hdisplay && l->video_height == dev->mode.vdisplay,
		.ui_visible = false,
	};
	struct umms_kms_layout_choice choices[UMMS_KMS_LADDER_MAX];
	g_autofree char *skipped = NULL;
	int n = umms_kms_ladder_build(&in, choices, &skipped);
	uint32_t fb = 0;
	bool tried_fb = false, copied = false;
	const char *refused = NULL;
	GError *first = NULL;
	/*
	 * The last good layout is kept: for the same picture placement and
	 * format, start from the rung that worked, so the rungs the device
	 * refused are not tested (and a frame not copied for them) every
	 * frame. Should it stop working, the rest of the ladder is tried: the
	 * rungs below it first, then those above.
	 */
	bool same = o->good_k >= 0 && !o->modeset && o->good_format == in.video_format &&
		memcmp(&o->good_layout, l, sizeof(*l)) == 0;
	int start = same && o->good_k < n ? o->good_k : 0;
	for (int i = 0; i < n; i++) {
		int k = (start + i) % n;
		struct plan p = *plan;
		p.rung = (int)choices[k].rung;
		p.video_plane = choices[k].video_plane;
		p.primary_plane = choices[k].primary_plane;
		g_strlcpy(p.why, choices[k].why, sizeof(p.why));
		if (choices[k].rung == UMMS_KMS_RUNG_COMPOSITE) {
			struct kms_dumb *dst = &o->composite[o->next_composite];
			if (!kms_composite(dst, kms_frame_cache_map(o->cache, frame), frame, l)) {
				umms_debug("display: cannot compose %dx%d frames of this format",
					frame->width, frame->height);
				continue;
			}
			p.primary_fb = dst->fb_id;
		} else {
			if (!tried_fb) {
				fb = kms_frame_cache_fb(o->cache, frame, &copied);
				tried_fb = true;
			}
			if (!fb)
				continue;
			p.video_fb = fb;
			p.primary_fb = choices[k].rung == UMMS_KMS_RUNG_PRIMARY ? fb : o->black.fb_id;
		}
		if (test(o, &p, &refused, &first)) {
			if (p.rung == UMMS_KMS_RUNG_COMPOSITE)
				o->next_composite ^= 1;
			if (p.rung != o->last_rung) {
				umms_info("display: %s (%dx%d at %d,%d)%s%s", p.why, l->video_width,
					l->video_height, l->video_x, l->video_y,
					refused ? "; refused: " : "", refused ? refused : "");
				if (skipped && *skipped)
					umms_debug("display: passed over: %s", skipped);
				o->last_rung = p.rung;
			}
			*plan = p;
			o->good_k = k;
			o->good_layout = *l;
			o->good_format = in.video_format;
			g_clear_error(&first);
			return true;
		}
	}
	if (first)
		g_propagate_error(error, first);
	else
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"display: no way to show a %dx%d frame of this format", frame->width,
			frame->height);
	return false;
}

static void
report(struct kms_output *o, struct umms_frame *frame, bool shown, int64_t when)
{
	if (frame && o->base.presented)
		o->base.presented(o->base.presented_data, frame, shown, when);
}

/* Commits @frame (owned reference, may be NULL) now; it waits for its flip. */
static bool
present(struct kms_output *o, struct umms_frame *frame, GError **error)
{
	struct plan plan;
	if (!choose(o, frame, &plan, error) ||
			!commit(o, &plan, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, 0, NULL,
				error)) {
		report(o, frame, false, 0);
		if (frame)
			umms_frame_unref(frame);
		return false;
	}
	o->plan = plan;
	o->flipping = frame;
	o->flip_pending = true;
	return true;
}

static void
page_flip(int fd, unsigned sequence, unsigned sec, unsigned usec, unsigned crtc, void *data)
{
	struct kms_output *o = data;
	o->flip_pending = false;
	int64_t when = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	report(o, o->flipping, true, when);
	if (o->shown)
		umms_frame_unref(o->shown);
	o->shown = o->flipping;
	o->flipping = NULL;
	if (o->waiting_set) {
		struct umms_frame *next = o->waiting;
		o->waiting = NULL;
		o->waiting_set = false;
		GError *error = NULL;
		if (!present(o, next, &error)) {
			umms_warn("%s", error->message);
			g_error_free(error);
		}
	}
}

static void
dispatch_events(struct kms_output *o)
{
	drmEventContext ctx = { .version = 3, .page_flip_handler2 = page_flip };
	drmHandleEvent(o->dev->fd, &ctx);
}

static gboolean
drm_readable(gint fd, GIOCondition condition, gpointer data)
{
	dispatch_events(data);
	return G_SOURCE_CONTINUE;
}

/* Waits (blocking, up to @ms per flip) until no flip is pending. */
static bool
wait_flip(struct kms_output *o, int ms)
{
	while (o->flip_pending) {
		struct pollfd pfd = { .fd = o->dev->fd, .events = POLLIN };
		if (poll(&pfd, 1, ms) <= 0)
			return false;
		dispatch_events(o);
	}
	return true;
}

/* ---- the target ------------------------------------------------------------- */

static bool
kms_show(struct umms_target *target, struct umms_frame *frame, GError **error)
{
	struct kms_output *o = kms_output(target);
	if (frame)
		umms_frame_ref(frame);
	if (o->flip_pending) {
		/* The screen is busy: the newest frame waits, the one it replaces is dropped. */
		if (o->waiting) {
			report(o, o->waiting, false, 0);
			umms_frame_unref(o->waiting);
		}
		o->waiting = frame;
		o->waiting_set = true;
		return true;
	}
	return present(o, frame, error);
}

static void
kms_destroy(struct umms_target *target)
{
	struct kms_output *o = kms_output(target);
	umms_source_clear(&o->source);
	if (o->dev) {
		wait_flip(o, 100);
		struct umms_frame **frames[] = { &o->waiting, &o->flipping, &o->shown };
		for (size_t i = 0; i < G_N_ELEMENTS(frames); i++) {
			if (*frames[i])
				umms_frame_unref(*frames[i]);
		}
		kms_frame_cache_destroy(o->cache);
		kms_dumb_destroy(o->dev->fd, &o->black);
		kms_dumb_destroy(o->dev->fd, &o->composite[0]);
		kms_dumb_destroy(o->dev->fd, &o->composite[1]);
		kms_dumb_destroy(o->dev->fd, &o->capture);
		drop_mode_blobs(o);
		umms_kms_device_close(o->dev);
	}
	g_free(o);
}

static const struct umms_target_impl kms_impl = {
	.name = "kms",
	.show = kms_show,
	.destroy = kms_destroy,
};

/* (Re)makes the mode-sized buffers. */
static bool
make_buffers(struct kms_output *o, GError **error)
{
	int fd = o->dev->fd, w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	kms_dumb_destroy(fd, &o->black);
	kms_dumb_destroy(fd, &o->composite[0]);
	kms_dumb_destroy(fd, &o->composite[1]);
	kms_dumb_destroy(fd, &o->capture);
	return kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->black, error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->composite[0], error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->composite[1], error);
}

/* Shows the current frame again under new settings. */
static void
refresh(struct kms_output *o)
{
	if (!wait_flip(o, 200))
		return;
	struct umms_frame *frame = o->shown ? umms_frame_ref(o->shown) : NULL;
	GError *error = NULL;
	if (!present(o, frame, &error)) {
		umms_warn("%s", error->message);
		g_error_free(error);
	}
}

struct umms_target *
umms_kms_output_create(const struct umms_kms_config *config, GError **error)
{
	struct kms_output *o = g_new0(struct kms_output, 1);
	o->base.impl = &kms_impl;
	o->last_rung = -2;
	o->good_k = -1;
	o->margins = config->margins;
	o->zoom = config->zoom;
	o->modeset = true;
	o->dev = umms_kms_device_open(config->device, config->connector, config->mode, error);
	if (!o->dev)
		goto fail;
	const uint32_t *mp = o->dev->connector_props.margin;
	o->margins_by_connector = mp[0] && mp[1] && mp[2] && mp[3];
	o->cache = kms_frame_cache_create(o->dev->fd, open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
	if (!make_buffers(o, error))
		goto fail;
	/* Light the screen (black) now, blocking: a device that refuses says so at start. */
	struct plan plan;
	if (!choose(o, NULL, &plan, error) || !commit(o, &plan, 0, 0, NULL, error))
		goto fail;
	o->plan = plan;
	o->source = g_unix_fd_source_new(o->dev->fd, G_IO_IN);
	g_source_set_callback(o->source, G_SOURCE_FUNC(drm_readable), o, NULL);
	g_source_attach(o->source, g_main_context_get_thread_default());
	return &o->base;
fail:
	kms_destroy(&o->base);
	return NULL;
}

/* ---- settings and state ----------------------------------------------------- */

/* Switches to @info and shows the current frame in it; back to the old mode if refused. */
static bool
switch_mode(struct kms_output *o, const drmModeModeInfo *info, GError **error)
{
	if (!wait_flip(o, 200)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "display: the screen stopped flipping");
		return false;
	}
	drmModeModeInfo old = o->dev->mode;
	o->dev->mode = *info;
	o->modeset = true;
	if (!make_buffers(o, error)) {
		o->dev->mode = old;
		make_buffers(o, NULL);
		return false;
	}
	struct umms_frame *frame = o->shown ? umms_frame_ref(o->shown) : NULL;
	if (!present(o, frame, error)) {
		/* Back to the mode that worked. */
		o->dev->mode = old;
		o->modeset = true;
		make_buffers(o, NULL);
		refresh(o);
		return false;
	}
	char *desc = umms_kms_mode_describe(info);
	umms_info("display: mode %s", desc);
	g_free(desc);
	return true;
}

bool
umms_kms_output_set_mode(struct umms_target *target, const char *mode, GError **error)
{
	struct kms_output *o = kms_output(target);
	drmModeModeInfo info;
	if (!umms_kms_device_find_mode(o->dev, mode, &info, error) || !switch_mode(o, &info, error))
		return false;
	/* Chosen by hand: matching no longer owns the mode. */
	o->matched = false;
	return true;
}

void
umms_kms_output_match_refresh(struct umms_target *target, double fps)
{
	struct kms_output *o = kms_output(target);
	drmModeModeInfo base = o->matched ? o->unmatched : o->dev->mode;
	int i = fps > 0 ? umms_kms_match_refresh(o->dev->modes, o->dev->n_modes, &base, fps) : -1;
	const drmModeModeInfo *target_mode = i >= 0 ? &o->dev->modes[i] : &base;
	if (fps > 0 && i < 0)
		umms_info("display: no %ux%u mode shows %.3f frames/s evenly: the mode stays",
			base.hdisplay, base.vdisplay, fps);
	if (memcmp(target_mode, &o->dev->mode, sizeof(base)) == 0) {
		o->matched = o->matched && i >= 0;
		return;
	}
	GError *error = NULL;
	drmModeModeInfo wanted = *target_mode;
	if (!switch_mode(o, &wanted, &error)) {
		umms_warn("display: refresh matching: %s", error->message);
		g_error_free(error);
		return;
	}
	if (i >= 0 && !o->matched)
		o->unmatched = base;
	o->matched = i >= 0;
}

void
umms_kms_output_set_margins(struct umms_target *target, const struct umms_kms_margins *m)
{
	struct kms_output *o = kms_output(target);
	o->margins = *m;
	if (o->margins_by_connector)
		o->modeset = true;
	refresh(o);
}

void
umms_kms_output_set_zoom(struct umms_target *target, enum umms_layout_scale zoom)
{
	struct kms_output *o = kms_output(target);
	o->zoom = zoom;
	refresh(o);
}

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
	margins_px(kms_output(target), px);
}

bool
umms_kms_output_check_margins(struct umms_target *target, const struct umms_kms_margins *m,
	GError **error)
{
	struct kms_output *o = kms_output(target);
	int w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	int v[4] = { m->left, m->top, m->right, m->bottom };
	for (int i = 0; i < 4; i++) {
		int side = i % 2 ? h : w;
		if (v[i] < 0 || (m->percent ? v[i] > 40 : v[i] * 100 > side * 40)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"margins (%d, %d, %d, %d)%s: each must be 0 to 40%% of its side of "
				"%dx%d", v[0], v[1], v[2], v[3], m->percent ? "%" : "", w, h);
			return false;
		}
	}
	return true;
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
	if (!wait_flip(o, 500)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "display: the screen stopped flipping");
		return false;
	}
	if (!o->capture.fb_id && !kms_dumb_create(dev->fd, dev->mode.hdisplay, dev->mode.vdisplay,
			DRM_FORMAT_XRGB8888, &o->capture, error))
		return false;
	/* The state on screen again, with the writeback connector reading it. */
	int32_t fence = -1;
	if (!commit(o, &o->plan, 0, o->capture.fb_id, &fence, error))
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

/* ---- parsing settings ------------------------------------------------------- */

static const char *const zoom_names[] = {
	[UMMS_LAYOUT_SCALE_LETTERBOX] = "letterbox",
	[UMMS_LAYOUT_SCALE_FILL] = "fill",
	[UMMS_LAYOUT_SCALE_CROP] = "crop",
	[UMMS_LAYOUT_SCALE_NONE] = "none",
	[UMMS_LAYOUT_SCALE_4_3_IN_16_9] = "4:3-in-16:9",
	[UMMS_LAYOUT_SCALE_ANAMORPHIC] = "anamorphic",
};

const char *
umms_kms_zoom_name(enum umms_layout_scale zoom)
{
	return (size_t)zoom < G_N_ELEMENTS(zoom_names) ? zoom_names[zoom] : "letterbox";
}

bool
umms_kms_zoom_parse(const char *text, enum umms_layout_scale *out, GError **error)
{
	for (size_t i = 0; i < G_N_ELEMENTS(zoom_names); i++) {
		if (g_ascii_strcasecmp(text, zoom_names[i]) == 0) {
			*out = (enum umms_layout_scale)i;
			return true;
		}
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"zoom \"%s\": expected letterbox, fill, crop, none, 4:3-in-16:9 or anamorphic", text);
	return false;
}

bool
umms_kms_margins_parse(const char *text, struct umms_kms_margins *out, GError **error)
{
	g_auto(GStrv) parts = g_strsplit(text, ",", -1);
	guint n = g_strv_length(parts);
	int v[4] = { 0 };
	int percent = -1;
	if (n != 1 && n != 2 && n != 4)
		goto bad;
	for (guint i = 0; i < n; i++) {
		char *s = g_strstrip(parts[i]), *end = NULL;
		long value = strtol(s, &end, 10);
		bool pct = end && *end == '%';
		if (end == s || (pct ? end[1] != 0 : *end != 0) || value < 0 || value > 4000 ||
				(pct && value > 40) || (percent >= 0 && percent != pct))
			goto bad;
		percent = pct;
		v[i] = (int)value;
	}
	/* One value: all sides; two: left/right and top/bottom; four: left, top, right, bottom. */
	if (n == 1)
		v[1] = v[2] = v[3] = v[0];
	else if (n == 2)
		v[2] = v[0], v[3] = v[1];
	*out = (struct umms_kms_margins){ v[0], v[1], v[2], v[3], percent == 1 };
	return true;
bad:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"margins \"%s\": expected pixels or percents (up to 40%%): \"5%%\", \"32,18\" or "
		"\"left,top,right,bottom\", all in the same unit", text);
	return false;
}
