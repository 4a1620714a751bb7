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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <glib-unix.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "error.h"
#include "frame.h"
#include "frame-image.h"
#include "kms-atomic.h"
#include "kms-buffers.h"
#include "kms-device.h"
#include "kms-ladder.h"
#include "kms-output-private.h"
#include "kms.h"
#include "log.h"
#include "source.h"

static const struct umms_target_impl kms_impl;

struct kms_output *
kms_output(struct umms_target *target)
{
	g_assert(target->impl == &kms_impl);
	return (struct kms_output *)target;
}

/* ---- placement -------------------------------------------------------------- */

void
kms_output_margins_px(const struct kms_output *o, int px[4])
{
	umms_screen_margins_px(&o->margins, o->dev->mode.hdisplay, o->dev->mode.vdisplay, px);
}

/* The part of the mode the picture and the UI get: inside margins we must draw. */
void
kms_output_area(const struct kms_output *o, int a[4])
{
	int w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	int m[4] = { 0 };
	if (!o->margins_by_connector)
		kms_output_margins_px(o, m);
	a[0] = m[0], a[1] = m[1], a[2] = w - m[0] - m[2], a[3] = h - m[1] - m[3];
}

/* Whether a placement hides the video (a rectangle of no size). */
bool
kms_output_video_hidden(const struct kms_output *o)
{
	return o->placed && (o->place.width <= 0 || o->place.height <= 0);
}

static void
place(const struct kms_output *o, const struct umms_frame *frame, struct umms_layout *out)
{
	int a[4];
	kms_output_area(o, a);
	/* A rectangle of the UI's: in the area's coordinates, the UI's zoom. */
	umms_frame_layout(frame, a, o->zoom, o->placed ? &o->place : NULL, out);
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
			kms_output_margins_px(o, m);
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
		else if (i == plan->sub_plane)
			add_plane(a, dev, p, plan->sub_fb, plan->sub.src_x, plan->sub.src_y,
				plan->sub.src_width, plan->sub.src_height, plan->sub.x, plan->sub.y,
				plan->sub.width, plan->sub.height);
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
bool
kms_output_commit(struct kms_output *o, const struct plan *plan, uint32_t flags, uint32_t capture_fb,
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
	if (kms_output_commit(o, plan, DRM_MODE_ATOMIC_TEST_ONLY, 0, NULL, &error))
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
		.sub_plane = -1, .primary_fb = kms_output_background_fb(o) };
	for (int i = 0; i < dev->n_planes && plan->primary_plane < 0; i++) {
		if (dev->planes[i].type == UMMS_KMS_PLANE_PRIMARY)
			plan->primary_plane = i;
	}
	if (!frame || kms_output_video_hidden(o)) {
		snprintf(plan->why, sizeof(plan->why), "no video: %s",
			o->ui && o->ui_visible ? "the UI" : "black");
		return kms_output_commit(o, plan, DRM_MODE_ATOMIC_TEST_ONLY, 0, NULL, error);
	}
	place(o, frame, &plan->layout);
	const struct umms_layout *l = &plan->layout;
	/* Subtitles that show: on a plane of their own (the ladder's), else composited. */
	bool with_sub = !(o->placed && o->place.no_subtitles) &&
		umms_frame_place_subpicture(frame, l, &plan->sub);
	struct umms_kms_ladder_input in = {
		.planes = dev->planes, .n_planes = dev->n_planes,
		.video_format = umms_frame_drm_format(frame),
		.covers_output = l->video_x == 0 && l->video_y == 0 &&
			l->video_width == dev->mode.hdisplay && l->video_height == dev->mode.vdisplay,
		.ui_visible = o->ui && o->ui_visible,
		.video_below_ui = o->ui && o->ui_visible && !(o->placed && o->place.above_ui),
		.subpicture = with_sub,
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
		o->good_ui == (in.ui_visible | in.video_below_ui << 1) &&
		memcmp(&o->good_layout, l, sizeof(*l)) == 0 && o->good_sub == with_sub &&
		(!with_sub || memcmp(&o->good_sub_place, &plan->sub, sizeof(plan->sub)) == 0);
	int start = same && o->good_k < n ? o->good_k : 0;
	for (int i = 0; i < n; i++) {
		int k = (start + i) % n;
		struct plan p = *plan;
		p.rung = (int)choices[k].rung;
		p.video_plane = choices[k].video_plane;
		p.primary_plane = choices[k].primary_plane;
		p.sub_plane = choices[k].sub_plane;
		g_strlcpy(p.why, choices[k].why, sizeof(p.why));
		if (p.sub_plane >= 0) {
			/* Made once per serial: the next frames with the same cue reuse it. */
			p.sub_fb = kms_frame_cache_sub_fb(o->cache, frame->subpicture);
			if (!p.sub_fb)
				continue;
		}
		if (choices[k].rung == UMMS_KMS_RUNG_COMPOSITE) {
			struct kms_dumb *dst = &o->composite[o->next_composite];
			if (!kms_output_compose(o, dst, frame, l, with_sub ? &plan->sub : NULL)) {
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
			p.primary_fb = choices[k].rung == UMMS_KMS_RUNG_PRIMARY ? fb : kms_output_background_fb(o);
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
			o->good_ui = in.ui_visible | in.video_below_ui << 1;
			o->good_sub = with_sub;
			o->good_sub_place = plan->sub;
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

/*
 * Commits @frame (owned reference, may be NULL) now; it waits for its flip.
 * A frame not @new (the one on screen, again, under a new UI or settings)
 * is not reported a second time.
 */
static bool
present(struct kms_output *o, struct umms_frame *frame, bool new, GError **error)
{
	struct plan plan;
	if (!choose(o, frame, &plan, error) ||
			!kms_output_commit(o, &plan, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, 0, NULL,
				error)) {
		if (new)
			report(o, frame, false, 0);
		if (frame)
			umms_frame_unref(frame);
		return false;
	}
	o->plan = plan;
	o->flipping = frame;
	o->flipping_new = new;
	o->flip_pending = true;
	o->flip_since = g_get_monotonic_time();
	return true;
}

/* Starts the next commit if the screen is free: the frame waiting, or the UI changed. */
static void
kick(struct kms_output *o)
{
	if (o->flip_pending || o->inactive)
		return;
	GError *error = NULL;
	bool ok = true;
	if (o->waiting_set) {
		struct umms_frame *next = o->waiting;
		o->waiting = NULL;
		o->waiting_set = false;
		ok = present(o, next, true, &error);
	} else if (o->ui_dirty) {
		/* Drawn by this commit: nothing is left to do after it. */
		if (!o->ui || !o->ui_visible)
			o->ui_dirty = false;
		ok = present(o, o->shown ? umms_frame_ref(o->shown) : NULL, false, &error);
	}
	if (!ok) {
		umms_warn("%s", error->message);
		g_error_free(error);
	}
}

static gboolean
kick_cb(gpointer data)
{
	struct kms_output *o = data;
	umms_source_forget(&o->kick);
	kick(o);
	return G_SOURCE_REMOVE;
}

static void
page_flip(int fd, unsigned sequence, unsigned sec, unsigned usec, unsigned crtc, void *data)
{
	struct kms_output *o = data;
	/* Late, for a flip already taken as lost (kms_output_settle). */
	if (!o->flip_pending)
		return;
	o->flip_pending = false;
	int64_t when = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	if (o->flipping_new)
		report(o, o->flipping, true, when);
	if (o->shown)
		umms_frame_unref(o->shown);
	o->shown = o->flipping;
	o->flipping = NULL;
	if (o->ui) {
		const drmModeModeInfo *m = &o->dev->mode;
		/* Nanoseconds a frame: htotal × vtotal pixels at clock kHz. */
		uint32_t refresh = m->clock ? (uint32_t)((uint64_t)m->htotal * m->vtotal *
			1000000u / m->clock) : 0;
		o->ui->presented(o->ui_data, when, refresh, sequence);
	}
	kick(o);
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
bool
kms_output_wait_flip(struct kms_output *o, int ms)
{
	while (o->flip_pending) {
		struct pollfd pfd = { .fd = o->dev->fd, .events = POLLIN };
		if (poll(&pfd, 1, ms) <= 0)
			return false;
		dispatch_events(o);
	}
	return true;
}

/* The device never reported the flip in progress: it is taken as done now. */
static void
flip_lost(struct kms_output *o)
{
	o->lost_flips++;
	umms_warn("display: %s reported no flip in %d ms: taken as done (%u so far)",
		o->dev->path, KMS_FLIP_PATIENCE_MS, o->lost_flips);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	page_flip(o->dev->fd, 0, (unsigned)now.tv_sec, (unsigned)(now.tv_nsec / 1000),
		o->dev->crtc_id, o);
}

void
kms_output_settle(struct kms_output *o)
{
	while (o->flip_pending && !kms_output_wait_flip(o, KMS_FLIP_PATIENCE_MS))
		flip_lost(o);
}

/* ---- the target ------------------------------------------------------------- */

static bool
kms_show(struct umms_target *target, struct umms_frame *frame, GError **error)
{
	struct kms_output *o = kms_output(target);
	if (frame)
		umms_frame_ref(frame);
	/* Checked here, with each frame, rather than by a timer rearmed at every flip. */
	if (o->flip_pending && g_get_monotonic_time() - o->flip_since >
			(int64_t)KMS_FLIP_PATIENCE_MS * 1000)
		flip_lost(o);
	if (o->flip_pending || o->inactive) {
		/* The screen is busy (or away): the newest frame waits, the one it replaces is dropped. */
		if (o->waiting) {
			report(o, o->waiting, false, 0);
			umms_frame_unref(o->waiting);
		}
		o->waiting = frame;
		o->waiting_set = true;
		return true;
	}
	return present(o, frame, true, error);
}

static void
kms_destroy(struct umms_target *target)
{
	struct kms_output *o = kms_output(target);
	umms_source_clear(&o->source);
	umms_source_clear(&o->kick);
	/* Only the flip in progress is waited for: nothing new starts. */
	o->ui = NULL;
	o->ui_dirty = false;
	o->waiting_set = false;
	if (o->dev) {
		kms_output_wait_flip(o, 100);
		struct umms_frame **frames[] = { &o->waiting, &o->flipping, &o->shown };
		for (size_t i = 0; i < G_N_ELEMENTS(frames); i++) {
			if (*frames[i])
				umms_frame_unref(*frames[i]);
		}
		kms_frame_cache_destroy(o->cache);
		/* GL objects first: its GBM display and imports use the card and the buffers. */
		umms_renderer_destroy(o->renderer);
		o->renderer = NULL;
		kms_dumb_destroy(o->dev->fd, &o->black);
		kms_dumb_destroy(o->dev->fd, &o->composite[0]);
		kms_dumb_destroy(o->dev->fd, &o->composite[1]);
		kms_dumb_destroy(o->dev->fd, &o->capture);
		kms_dumb_destroy(o->dev->fd, &o->ui_buf[0]);
		kms_dumb_destroy(o->dev->fd, &o->ui_buf[1]);
		drop_mode_blobs(o);
		umms_kms_device_close(o->dev);
	}
	g_free(o->renderer_name);
	g_free(o);
}

static const struct umms_target_impl kms_impl = {
	.name = "kms",
	.screen = &kms_screen_impl,
	.show = kms_show,
	.destroy = kms_destroy,
};

/* (Re)makes the mode-sized buffers. */
static bool
make_buffers(struct kms_output *o, GError **error)
{
	int fd = o->dev->fd, w = o->dev->mode.hdisplay, h = o->dev->mode.vdisplay;
	struct kms_dumb *drawn[] = { &o->composite[0], &o->composite[1], &o->ui_buf[0],
		&o->ui_buf[1] };
	for (size_t i = 0; i < G_N_ELEMENTS(drawn) && o->renderer; i++) {
		if (drawn[i]->fb_id)
			umms_renderer_forget(o->renderer, drawn[i]->fb_id);
	}
	kms_dumb_destroy(fd, &o->black);
	kms_dumb_destroy(fd, &o->composite[0]);
	kms_dumb_destroy(fd, &o->composite[1]);
	kms_dumb_destroy(fd, &o->capture);
	kms_dumb_destroy(fd, &o->ui_buf[0]);
	kms_dumb_destroy(fd, &o->ui_buf[1]);
	o->ui_fb = 0;
	kms_output_ui_stale(o);
	return kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->black, error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->composite[0], error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->composite[1], error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->ui_buf[0], error) &&
		kms_dumb_create(fd, w, h, DRM_FORMAT_XRGB8888, &o->ui_buf[1], error);
}

/* Tells the UI the size of its area (after a mode or margins change). */
static void
ui_resized(struct kms_output *o)
{
	int a[4];
	kms_output_area(o, a);
	if (o->ui && o->ui->resized)
		o->ui->resized(o->ui_data, a[2], a[3]);
}

/* Shows the current frame again under new settings. */
static void
refresh(struct kms_output *o)
{
	ui_resized(o);
	/* Away, the settings apply when the device is back (set_active). */
	if (o->inactive)
		return;
	kms_output_settle(o);
	struct umms_frame *frame = o->shown ? umms_frame_ref(o->shown) : NULL;
	GError *error = NULL;
	o->ui_dirty = true;
	kms_output_ui_stale(o);
	if (!present(o, frame, false, &error)) {
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
	o->dev = umms_kms_device_open(config->device, config->connector, config->mode,
		&config->opener, error);
	if (!o->dev || !kms_output_make_renderer(o, config->renderer, error))
		goto fail;
	const uint32_t *mp = o->dev->connector_props.margin;
	o->margins_by_connector = mp[0] && mp[1] && mp[2] && mp[3];
	o->cache = kms_frame_cache_create(o->dev->fd, open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
	if (!make_buffers(o, error))
		goto fail;
	/* Light the screen (black) now, blocking: a device that refuses says so at start. */
	struct plan plan;
	if (!choose(o, NULL, &plan, error) || !kms_output_commit(o, &plan, 0, 0, NULL, error))
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
	if (o->inactive) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE,
			"display: the device is away (another session holds the seat)");
		return false;
	}
	kms_output_settle(o);
	drmModeModeInfo old = o->dev->mode;
	o->dev->mode = *info;
	o->modeset = true;
	if (!make_buffers(o, error)) {
		o->dev->mode = old;
		make_buffers(o, NULL);
		return false;
	}
	struct umms_frame *frame = o->shown ? umms_frame_ref(o->shown) : NULL;
	if (!present(o, frame, false, error)) {
		/* Back to the mode that worked. */
		o->dev->mode = old;
		o->modeset = true;
		make_buffers(o, NULL);
		refresh(o);
		return false;
	}
	ui_resized(o);
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
umms_kms_output_set_margins(struct umms_target *target, const struct umms_screen_margins *m)
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

void
umms_kms_output_set_ui(struct umms_target *target, const struct umms_screen_ui_impl *impl,
	void *data)
{
	struct kms_output *o = kms_output(target);
	o->ui = impl;
	o->ui_data = data;
	o->ui_visible = false;
	o->ui_dirty = true;
	kms_output_ui_stale(o);
	ui_resized(o);
}

void
umms_kms_output_damage_ui(struct umms_target *target, bool visible)
{
	struct kms_output *o = kms_output(target);
	if (visible != o->ui_visible)
		kms_output_ui_stale(o);
	o->ui_visible = visible;
	/* Otherwise what changed is asked of the UI at the draw (kms-compose.c). */
	o->ui_dirty = true;
	/* Soon, not now: one commit for all the surfaces a client commits together. */
	if (!o->kick)
		o->kick = umms_source_idle(kick_cb, o);
}

void
umms_kms_output_get_ui_area(struct umms_target *target, int area_out[4])
{
	kms_output_area(kms_output(target), area_out);
}

void
umms_kms_output_place_video(struct umms_target *target, const struct umms_screen_video_place *place)
{
	struct kms_output *o = kms_output(target);
	if (!place) {
		o->placed = false;
	} else {
		o->placed = true;
		o->place = *place;
	}
	o->ui_dirty = true;
	kms_output_ui_stale(o);
	if (!o->kick)
		o->kick = umms_source_idle(kick_cb, o);
}


void
umms_kms_output_set_active(struct umms_target *target, bool active)
{
	struct kms_output *o = kms_output(target);
	if (o->inactive == !active)
		return;
	o->inactive = !active;
	if (!active)
		return;
	/* Whoever held the device meanwhile left its own state: set it all again. */
	o->modeset = true;
	o->good_k = -1;
	o->ui_dirty = true;
	kms_output_ui_stale(o);
	/* The frame waiting, else the one shown again (a flip pending kicks when it ends). */
	kick(o);
}
