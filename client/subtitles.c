/*
 * Subtitles over the picture (libumms-client): a third subsurface, a child
 * of the picture's, so it moves with the picture wherever the layout puts
 * it; placed and scaled as the picture is (base/layout.h,
 * umms_layout_place_overlay) with its own viewport. A subtitle image is
 * attached only when its serial changes, so while a cue stands the
 * compositor has nothing new to upload or redraw for it (no damage).
 *
 * ummsd's memfd is sealed against writes, and compositors map wl_shm pools
 * for writing (libwayland's wl_shm), so the pixels are copied once per
 * image into a pool of ours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client-private.h"

void
client_subtitles_create(struct umms_client_video *video)
{
	struct umms_client *client = video->client;
	video->sub_images = true;
	video->sub_surface = wl_compositor_create_surface(client->compositor);
	video->sub_sub = wl_subcompositor_get_subsurface(client->subcompositor, video->sub_surface,
		video->video_surface);
	video->sub_viewport = wp_viewporter_get_viewport(client->viewporter, video->sub_surface);
	struct wl_region *empty = wl_compositor_create_region(client->compositor);
	wl_surface_set_input_region(video->sub_surface, empty);
	wl_region_destroy(empty);
	/*
	 * Synchronized (the default), so its state lands with the picture's
	 * commit, as the picture moves. Desynchronized under a picture that
	 * was itself synchronized then, wlroots 0.15 (sway 1.7) cached its
	 * first image and never applied it: no subtitles, 4 runs in 6.
	 */
	wl_subsurface_place_above(video->sub_sub, video->video_surface);
}

static void
drop_buffer(struct umms_client_video *video)
{
	if (video->sub_buffer)
		wl_buffer_destroy(video->sub_buffer);
	video->sub_buffer = NULL;
	video->sub_serial = 0;
}

void
client_subtitles_destroy(struct umms_client_video *video)
{
	if (!video->sub_surface)
		return;
	drop_buffer(video);
	wp_viewport_destroy(video->sub_viewport);
	wl_subsurface_destroy(video->sub_sub);
	wl_surface_destroy(video->sub_surface);
	video->sub_surface = NULL;
}

/* The image's pixels in a wl_shm buffer of ours; NULL if it cannot be made. */
static struct wl_buffer *
copy_image(struct umms_client_video *video, struct umms_core_subpicture *sub)
{
	const uint8_t *src = umms_core_subpicture_map(sub);
	if (!src)
		return NULL;
	size_t row = (size_t)sub->width * 4, size = row * (size_t)sub->height;
	int fd = memfd_create("umms-client-subtitles", MFD_CLOEXEC);
	uint8_t *dst = MAP_FAILED;
	if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
		dst = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (dst == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* Every row lies inside ummsd's memory: the core checked stride × height. */
	for (int y = 0; y < sub->height; y++)
		memcpy(dst + (size_t)y * row, src + (size_t)y * sub->stride, row);
	munmap(dst, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(video->client->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, sub->width, sub->height,
		(int32_t)row, WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	video->counts_sub.copied++;
	return buffer;
}

/*
 * Where the image goes on the picture's surface (its coordinates are the
 * picture's on screen, from its top-left corner); false when nothing shows.
 */
static bool
place_image(struct umms_client_video *video, const struct umms_core_subpicture *sub,
	struct umms_layout_overlay *out)
{
	const struct umms_layout_input *in = &video->in;
	struct umms_layout_overlay_input o = { .crop_x = in->crop_x, .crop_y = in->crop_y,
		.crop_width = in->crop_width, .crop_height = in->crop_height,
		.picture_width = sub->picture_width, .picture_height = sub->picture_height,
		.x = sub->x, .y = sub->y, .width = sub->width, .height = sub->height };
	if (!umms_layout_place_overlay(&video->layout, &o, out))
		return false;
	out->x -= video->layout.video_x;
	out->y -= video->layout.video_y;
	return true;
}

void
client_subtitles_update(struct umms_client_video *video)
{
	if (!video->sub_surface)
		return;
	struct umms_core_subpicture *sub = video->sub_images && video->core ?
		video->core->subpicture : NULL;
	struct umms_layout_overlay at;
	bool shown = sub && video->layout.visible && place_image(video, sub, &at);
	if (!shown) {
		if (video->sub_attached) {
			wl_surface_attach(video->sub_surface, NULL, 0, 0);
			wl_surface_commit(video->sub_surface);
			video->sub_attached = false;
			/*
			 * Headless sway 1.7 was seen to repaint nothing where this
			 * nested subsurface was unmapped (the subtitles stayed on
			 * a paused picture): the picture under it is damaged too.
			 */
			if (video->current) {
				wl_surface_damage_buffer(video->video_surface, 0, 0, INT32_MAX,
					INT32_MAX);
				wl_surface_commit(video->video_surface);
			}
		}
		return;
	}
	bool commit = false;
	if (sub->serial != video->sub_serial || !video->sub_buffer) {
		drop_buffer(video);
		video->sub_buffer = copy_image(video, sub);
		if (!video->sub_buffer)
			return;
		video->sub_serial = sub->serial;
		wl_surface_attach(video->sub_surface, video->sub_buffer, 0, 0);
		wl_surface_damage_buffer(video->sub_surface, 0, 0, INT32_MAX, INT32_MAX);
		video->sub_attached = true;
		video->counts_sub.attached++;
		commit = true;
	} else if (!video->sub_attached) {
		wl_surface_attach(video->sub_surface, video->sub_buffer, 0, 0);
		wl_surface_damage_buffer(video->sub_surface, 0, 0, INT32_MAX, INT32_MAX);
		video->sub_attached = true;
		commit = true;
	}
	/* Only a change of place is sent: an unchanged cue costs the compositor nothing. */
	if (commit || memcmp(&at, &video->sub_at, sizeof(at)) != 0) {
		wp_viewport_set_source(video->sub_viewport, wl_fixed_from_double(at.src_x),
			wl_fixed_from_double(at.src_y), wl_fixed_from_double(at.src_width),
			wl_fixed_from_double(at.src_height));
		wp_viewport_set_destination(video->sub_viewport, at.width, at.height);
		/* The picture's state: lands with the picture's next commit. */
		wl_subsurface_set_position(video->sub_sub, at.x, at.y);
		video->sub_at = at;
		commit = true;
	}
	if (commit)
		wl_surface_commit(video->sub_surface);
}

void
umms_client_video_set_subtitles(struct umms_client_video *video, bool images,
	void (*cue)(void *data, struct umms_client_video *video, const char *text))
{
	video->sub_images = images;
	video->cue = cue;
	if (video->core)
		umms_core_video_set_subtitles(video->core,
			(images ? UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE : 0) |
			(cue ? UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT : 0));
	/* Off (or on): at once, not with the next frame: the picture commits it. */
	client_subtitles_update(video);
	if (video->current)
		wl_surface_commit(video->video_surface);
	wl_display_flush(video->client->display);
}

void
umms_client_video_get_subtitle_counts(struct umms_client_video *video,
	struct umms_client_subtitle_counts *counts)
{
	*counts = video->counts_sub;
	if (video->core) {
		counts->received = video->core->counts.subpictures;
		counts->refused = video->core->counts.subpictures_refused;
	}
}
