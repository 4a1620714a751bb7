/*
 * One player shown in one surface of the application: the bars, a black
 * subsurface of the parent covering the whole rectangle, and the picture, a
 * subsurface of the bars placed inside them; each scaled by a viewport.
 *
 * Nesting the picture in the bars means its position is the bars' state, not
 * the parent's: when the video changes shape, the library moves the picture
 * on its own, without the application committing. Frames go to the picture
 * in desynchronized mode. A geometry change in synchronized mode switches
 * both to synchronized until the application's next commit of the parent has
 * been shown (a frame callback the library adds to that commit), so the new
 * geometry lands together with the application's own drawing.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client-private.h"

static void
notify_size(struct umms_client_video *video)
{
	const struct umms_layout_input *in = &video->in;
	if (!video->listener || !video->listener->size)
		return;
	double par = in->par_d ? (double)in->par_n / in->par_d : 1.0;
	video->listener->size(video->listener_data, video, (int)(in->crop_width * par + 0.5),
		in->crop_height);
}

static struct wl_buffer *
black_buffer(struct umms_client *client)
{
	if (client->single_pixel)
		return wp_single_pixel_buffer_manager_v1_create_u32_rgba_buffer(client->single_pixel,
			0, 0, 0, UINT32_MAX);
	/*
	 * Black in shared memory, scaled by the viewport. 16x16, not 1x1: the
	 * pixman renderer of wlroots 0.15 maps a 1x1 source's last column past
	 * its edge when scaling it a few hundred times, leaving a column of
	 * whatever is below. Opaque ARGB, not zeroed XRGB: weston 10's pixman
	 * renderer scales a zeroed XRGB buffer of more than one pixel to white.
	 */
	enum { SIDE = 16, SIZE = SIDE * SIDE * 4 };
	int fd = memfd_create("umms-client-black", MFD_CLOEXEC);
	uint32_t *pixels = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, SIZE) == 0)
		pixels = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (int i = 0; i < SIDE * SIDE; i++)
		pixels[i] = 0xff000000u;
	munmap(pixels, SIZE);
	struct wl_shm_pool *pool = wl_shm_create_pool(client->shm, fd, SIZE);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, SIDE, SIDE, SIDE * 4,
		WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

static void
apply_stacking(struct umms_client_video *video)
{
	/* The picture always sits on its bars; the pair goes above or below the parent. */
	if (video->stacking == UMMS_CLIENT_BELOW)
		wl_subsurface_place_below(video->bg_sub, video->parent);
	else
		wl_subsurface_place_above(video->bg_sub, video->parent);
}

/*
 * The picture inside the bars (positions are relative to the bars). With
 * @reattach, the frame on screen is attached again under the new viewport;
 * true if it was (the picture's surface then needs a commit).
 */
static bool
place_picture(struct umms_client_video *video, const struct umms_layout *layout,
	bool reattach)
{
	video->layout = *layout;
	wl_subsurface_set_position(video->video_sub, layout->video_x - layout->bg_x,
		layout->video_y - layout->bg_y);
	wp_viewport_set_destination(video->video_viewport, layout->video_width,
		layout->video_height);
	/*
	 * A new viewport shows other pixels of the same buffer: say so, or
	 * compositors that repaint only damage (weston, sway) keep the old ones.
	 */
	wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX, INT32_MAX);
	/* The subtitles follow the picture's new scale (their place is its state). */
	client_subtitles_update(video);
	return reattach && video->current && client_buffer_reattach(video->current);
}

static void
parent_done(void *data, struct wl_callback *callback, uint32_t time)
{
	struct umms_client_video *video = data;
	wl_callback_destroy(callback);
	video->parent_done = NULL;
	/* The parent's commit with our geometry is on screen: frames flow freely again. */
	video->in_sync = false;
	wl_subsurface_set_desync(video->bg_sub);
	wl_subsurface_set_desync(video->video_sub);
}

static const struct wl_callback_listener parent_done_listener = { .done = parent_done };

/* The next geometry lands with the application's next commit of the parent. */
static void
hold_for_parent(struct umms_client_video *video)
{
	if (!video->sync)
		return;
	if (!video->in_sync) {
		video->in_sync = true;
		wl_subsurface_set_sync(video->bg_sub);
		wl_subsurface_set_sync(video->video_sub);
	}
	if (!video->parent_done) {
		video->parent_done = wl_surface_frame(video->parent);
		wl_callback_add_listener(video->parent_done, &parent_done_listener, video);
	}
}

/* ummsd as compositor: the rectangle goes with the parent's next commit. */
static void
place_direct(struct umms_client_video *video)
{
	if (!video->core)
		return;
	bool has_rect = video->in.width > 0 && video->in.height > 0;
	umms_video_player_v1_place(video->core->player, video->parent, video->in.x, video->in.y,
		has_rect ? video->in.width : 0, has_rect ? video->in.height : 0,
		(uint32_t)video->in.scale, video->stacking == UMMS_CLIENT_BELOW ?
		UMMS_VIDEO_PLAYER_V1_STACKING_BELOW : UMMS_VIDEO_PLAYER_V1_STACKING_ABOVE);
}

/*
 * The bars fill the rectangle, except under a picture that covers it and
 * has no alpha: then they shrink to one pixel nobody sees (base/layout.c).
 * Until a frame comes, the bars are all there is to see; under a picture
 * with alpha, they are what shows through. So the rectangle is opaque
 * whatever the frames are (umms_client_video_hides).
 */
void
client_video_size_bars(struct umms_client_video *video)
{
	const struct umms_layout *l = &video->layout;
	bool hidden = l->visible && video->opaque;
	wp_viewport_set_destination(video->bg_viewport, hidden ? l->bg_width : video->in.width,
		hidden ? l->bg_height : video->in.height);
	wl_surface_damage_buffer(video->bg_surface, 0, 0, INT32_MAX, INT32_MAX);
}

/*
 * The size the whole picture is shown at, asked of ummsd when it changed
 * (set_scaled_frames); 0 x 0: the picture's own.
 */
static void
send_size(struct umms_client_video *video)
{
	const struct umms_layout_input *in = &video->in;
	const struct umms_layout *l = &video->layout;
	int width = 0, height = 0;
	if (video->scaled_frames && in->user_width <= 0 && in->width > 0 && in->height > 0) {
		/* Zoomed past the rectangle: the part shown is that big, the picture more. */
		double w = in->width, h = in->height;
		if (l->visible && l->src_width > 0 && l->src_height > 0 && in->crop_width > 0 &&
				in->crop_height > 0) {
			w = fmax(w, ceil(l->video_width * in->crop_width / l->src_width));
			h = fmax(h, ceil(l->video_height * in->crop_height / l->src_height));
		}
		width = (int)fmin(w, 65536);
		height = (int)fmin(h, 65536);
	}
	if (!video->core || (width == video->sent_width && height == video->sent_height))
		return;
	video->sent_width = width;
	video->sent_height = height;
	umms_core_video_set_size(video->core, width, height);
}

void
client_video_apply_layout(struct umms_client_video *video, bool from_app)
{
	if (video->client->direct) {
		place_direct(video);
		return;
	}
	struct umms_layout layout;
	umms_layout_compute(&video->in, &layout);
	video->layout = layout;
	send_size(video);
	/* Only the application's changes wait for its commit; the video's own do not. */
	if (from_app)
		hold_for_parent(video);
	bool has_rect = video->in.width > 0 && video->in.height > 0;
	if (has_rect) {
		/* The parent's state: lands with the application's next commit. */
		wl_subsurface_set_position(video->bg_sub, video->in.x, video->in.y);
		client_video_size_bars(video);
	}
	if (!has_rect) {
		wl_surface_attach(video->bg_surface, NULL, 0, 0);
		wl_surface_commit(video->bg_surface);
		video->bg_attached = false;
		wl_surface_attach(video->video_surface, NULL, 0, 0);
		wl_surface_commit(video->video_surface);
		video->current = NULL;
		return;
	}
	if (!layout.visible) {
		/*
		 * No frame yet: the rectangle is black until one comes. Both
		 * surfaces are mapped now, with the application's commit, so
		 * compositors (weston) know which output they are on when frames
		 * start arriving on their own.
		 */
		wl_subsurface_set_position(video->video_sub, 0, 0);
		wp_viewport_set_source(video->video_viewport, wl_fixed_from_int(-1),
			wl_fixed_from_int(-1), wl_fixed_from_int(-1), wl_fixed_from_int(-1));
		wp_viewport_set_destination(video->video_viewport, video->in.width, video->in.height);
		wl_surface_attach(video->video_surface, video->black, 0, 0);
		wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX, INT32_MAX);
		wl_surface_commit(video->video_surface);
		video->current = NULL;
	} else {
		/* Without a frame on screen, the picture's viewport waits for the next one. */
		if (place_picture(video, &layout, true))
			wl_surface_commit(video->video_surface);
	}
	if (!video->bg_attached && video->black) {
		wl_surface_attach(video->bg_surface, video->black, 0, 0);
		wl_surface_damage_buffer(video->bg_surface, 0, 0, INT32_MAX, INT32_MAX);
		video->bg_attached = true;
	}
	/* Applies the picture's place too (it is the bars' state). */
	wl_surface_commit(video->bg_surface);
}

/* ---- ummsd's events, through the core ------------------------------------------ */

static void
video_path(struct umms_core_video *core, const char *path)
{
	struct umms_client_video *video = core->data;
	if (video->listener && video->listener->ready)
		video->listener->ready(video->listener_data, video, path);
}

static void
video_failed(struct umms_core_video *core, const char *reason)
{
	struct umms_client_video *video = core->data;
	if (video->listener && video->listener->failed)
		video->listener->failed(video->listener_data, video, reason);
}

static void
video_geometry(struct umms_core_video *core)
{
	struct umms_client_video *video = core->data;
	const struct umms_core_geometry *g = &core->geometry;
	struct umms_layout_input *in = &video->in;
	in->buffer_width = g->width;
	in->buffer_height = g->height;
	in->crop_x = g->crop_x;
	in->crop_y = g->crop_y;
	in->crop_width = g->crop_width;
	in->crop_height = g->crop_height;
	in->par_n = g->par_n;
	in->par_d = g->par_d;
	bool first = !video->have_geometry;
	video->have_geometry = true;
	if (video->client->direct) {
		/* ummsd fits the picture itself. */
		notify_size(video);
		return;
	}
	struct umms_layout layout;
	umms_layout_compute(in, &layout);
	if (first) {
		/* The rectangle may have been set before anything could show. */
		client_video_apply_layout(video, false);
	} else if (layout.visible) {
		/*
		 * The video's own change: the picture's viewport goes with the
		 * first frame of the new shape (its source must fit that frame),
		 * its place with the bars' commit, now.
		 */
		place_picture(video, &layout, false);
		wl_surface_commit(video->bg_surface);
	}
	notify_size(video);
}

static void
video_buffer_ready(struct umms_core_video *core, struct umms_core_buffer *buffer)
{
	struct umms_client_video *video = core->data;
	/* ummsd as compositor shows the video itself: nothing to import. */
	if (!video->client->direct)
		client_buffer_import(core, buffer);
}

static void
video_show(struct umms_core_video *core, struct umms_core_buffer *buffer, uint32_t serial,
	int64_t due_ns)
{
	struct umms_client_video *video = core->data;
	/* Frames sent before ummsd applied our placement: ummsd shows them, not us. */
	if (video->client->direct) {
		client_buffer_skip((struct client_buffer *)buffer, serial);
		return;
	}
	/* Its subtitles first: their place is the picture's state, applied by its commit. */
	client_subtitles_update(video);
	client_buffer_show((struct client_buffer *)buffer, serial);
}

static void
video_cue(struct umms_core_video *core, const char *text)
{
	struct umms_client_video *video = core->data;
	if (video->cue)
		video->cue(video->listener_data, video, text);
}

/*
 * Parental control blocked the player: black in the picture's place (as
 * before the first frame) until the next show; a frame waiting for its
 * import never shows.
 */
static void
video_clear(struct umms_core_video *core)
{
	struct umms_client_video *video = core->data;
	if (video->waiting) {
		struct client_buffer *waiting = video->waiting;
		video->waiting = NULL;
		client_buffer_skip(waiting, video->waiting_serial);
	}
	if (video->client->direct || !video->video_surface || !video->black ||
			video->in.width <= 0 || video->in.height <= 0)
		return;
	client_subtitles_update(video);
	wp_viewport_set_source(video->video_viewport, wl_fixed_from_int(-1),
		wl_fixed_from_int(-1), wl_fixed_from_int(-1), wl_fixed_from_int(-1));
	wp_viewport_set_destination(video->video_viewport, video->in.width, video->in.height);
	wl_subsurface_set_position(video->video_sub, 0, 0);
	wl_surface_attach(video->video_surface, video->black, 0, 0);
	wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(video->video_surface);
	wl_surface_commit(video->bg_surface);
	video->current = NULL;
}

static void
video_end_of_stream(struct umms_core_video *core)
{
	struct umms_client_video *video = core->data;
	if (video->listener && video->listener->end_of_stream)
		video->listener->end_of_stream(video->listener_data, video);
}

static void
video_error(struct umms_core_video *core, const char *name, const char *message)
{
	struct umms_client_video *video = core->data;
	if (video->listener && video->listener->error)
		video->listener->error(video->listener_data, video, name, message);
}

static const struct umms_core_video_impl video_impl = {
	.buffer_size = sizeof(struct client_buffer),
	.path = video_path,
	.failed = video_failed,
	.geometry = video_geometry,
	.buffer_ready = video_buffer_ready,
	.show = video_show,
	.buffer_destroy = client_buffer_free,
	.end_of_stream = video_end_of_stream,
	.clear = video_clear,
	.error = video_error,
	.cue = video_cue,
};

/* ---- the API -------------------------------------------------------------------- */

struct umms_client_video *
umms_client_video_create(struct umms_client *client, struct wl_surface *parent,
	const char *player_path)
{
	struct umms_client_video *video = calloc(1, sizeof(*video));
	if (!video)
		return NULL;
	video->client = client;
	video->parent = parent;
	video->sync = true;
	video->stacking = UMMS_CLIENT_ABOVE;
	video->in.scale = UMMS_LAYOUT_SCALE_LETTERBOX;
	wl_list_init(&video->feedbacks);
	wl_list_insert(&client->videos, &video->link);
	if (client->direct)
		goto player;

	video->bg_surface = wl_compositor_create_surface(client->compositor);
	video->video_surface = wl_compositor_create_surface(client->compositor);
	video->bg_sub = wl_subcompositor_get_subsurface(client->subcompositor, video->bg_surface,
		parent);
	video->video_sub = wl_subcompositor_get_subsurface(client->subcompositor,
		video->video_surface, video->bg_surface);
	video->bg_viewport = wp_viewporter_get_viewport(client->viewporter, video->bg_surface);
	video->video_viewport = wp_viewporter_get_viewport(client->viewporter,
		video->video_surface);
	/* The video surface takes no input: clicks reach the application. */
	struct wl_region *empty = wl_compositor_create_region(client->compositor);
	wl_surface_set_input_region(video->bg_surface, empty);
	wl_surface_set_input_region(video->video_surface, empty);
	wl_region_destroy(empty);
	video->black = black_buffer(client);
	wl_subsurface_set_desync(video->bg_sub);
	wl_subsurface_set_desync(video->video_sub);
	apply_stacking(video);
	client_subtitles_create(video);

player:
	video->core = umms_core_video_create(&client->core, player_path, &video_impl, video);
	if (!video->core) {
		umms_client_video_destroy(video);
		return NULL;
	}
	return video;
}

void
umms_client_video_destroy(struct umms_client_video *video)
{
	if (!video)
		return;
	client_feedbacks_orphan(video);
	/* Its buffers (client_buffer_free each), then the player. */
	umms_core_video_destroy(video->core);
	video->core = NULL;
	if (video->parent_done)
		wl_callback_destroy(video->parent_done);
	if (video->client->direct)
		goto out;
	client_subtitles_destroy(video);
	wp_viewport_destroy(video->bg_viewport);
	wp_viewport_destroy(video->video_viewport);
	wl_subsurface_destroy(video->bg_sub);
	wl_subsurface_destroy(video->video_sub);
	wl_surface_destroy(video->bg_surface);
	wl_surface_destroy(video->video_surface);
	if (video->black)
		wl_buffer_destroy(video->black);
out:
	wl_list_remove(&video->link);
	wl_display_flush(video->client->display);
	free(video);
}

void
umms_client_video_set_listener(struct umms_client_video *video,
	const struct umms_client_video_listener *listener, void *data)
{
	video->listener = listener;
	video->listener_data = data;
}

const char *
umms_client_video_get_path(struct umms_client_video *video)
{
	return video->core ? video->core->path : NULL;
}

void
umms_client_video_set_rect(struct umms_client_video *video, int x, int y, int width, int height)
{
	video->in.x = x;
	video->in.y = y;
	video->in.width = width > 0 ? width : 0;
	video->in.height = height > 0 ? height : 0;
	client_video_apply_layout(video, true);
}

_Static_assert((int)UMMS_CLIENT_SCALE_16_9 == (int)UMMS_LAYOUT_SCALE_ANAMORPHIC &&
	(int)UMMS_CLIENT_SCALE_NONE == (int)UMMS_LAYOUT_SCALE_NONE,
	"the client's scale modes are the layout's");

bool
umms_client_video_hides(struct umms_client_video *video, int x, int y, int width, int height)
{
	const struct umms_layout_input *in = &video->in;
	/* Where ummsd is the compositor, it decides what covers what (planes). */
	if (video->client->direct || video->stacking != UMMS_CLIENT_ABOVE || !video->black ||
			in->width <= 0 || in->height <= 0 || width <= 0 || height <= 0)
		return false;
	return x >= in->x && y >= in->y && (long long)x + width <= (long long)in->x + in->width &&
		(long long)y + height <= (long long)in->y + in->height;
}

void
umms_client_video_set_scale(struct umms_client_video *video, enum umms_client_scale scale)
{
	video->in.scale = (enum umms_layout_scale)scale;
	client_video_apply_layout(video, true);
}

void
umms_client_video_set_source_crop(struct umms_client_video *video, int x, int y, int width,
	int height)
{
	video->in.user_x = x;
	video->in.user_y = y;
	video->in.user_width = width;
	video->in.user_height = height;
	client_video_apply_layout(video, true);
}

void
umms_client_video_set_stacking(struct umms_client_video *video,
	enum umms_client_stacking stacking)
{
	video->stacking = stacking;
	/* Stacking is the parent's state: it changes with the parent's next commit. */
	if (video->client->direct)
		place_direct(video);
	else
		apply_stacking(video);
}

void
umms_client_video_set_sync(struct umms_client_video *video, bool sync)
{
	video->sync = sync;
}

void
umms_client_video_set_scaled_frames(struct umms_client_video *video, bool scaled)
{
	video->scaled_frames = scaled;
	if (!video->client->direct)
		send_size(video);
}

void
umms_client_video_get_counts(struct umms_client_video *video,
	struct umms_client_video_counts *counts)
{
	*counts = video->counts;
}

uint32_t
umms_client_video_get_presented_flags(struct umms_client_video *video)
{
	return video->presented_flags;
}
