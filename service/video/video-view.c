/*
 * umms_video_player_v1 and umms_video_buffer_v1: one client watching one
 * player. Each piece of frame memory is announced once as a buffer; each
 * frame is a show of a buffer, held (the memory stays ours to reuse only
 * after it) until the client releases it.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_VIDEO

#include <string.h>

#include "compositor.h"
#include "error.h"
#include "log.h"
#include "manager.h"
#include "player.h"
#include "subpicture.h"
#include "umms-video-v1-protocol.h"
#include "video-private.h"

#define FEEDBACK_SLOTS 64
#define UMMS_VIEW_MAX_SIZE 65536   /* set_size, pixels either way */

struct view_buffer {
	struct wl_resource *resource;
	struct video_view *view;   /* NULL once the view is gone */
	uint64_t memory_id;
	GQueue held;               /* struct umms_frame *, shown and not released */
	bool retired;
	struct wl_list link;       /* video_view.buffers */
};

struct video_view {
	struct wl_list link;       /* umms_video_server.views */
	struct umms_video_server *server;
	struct wl_resource *resource;
	struct umms_player *player;
	bool owned;
	bool placed;               /* shown by ummsd's compositor: no frames to the client */
	GArray *formats;           /* uint32_t wl_shm formats, preferred first */
	GArray *dmabuf;            /* struct umms_frame_dmabuf_format its compositor imports */
	struct wl_listener frame, eos, error, destroy;
	struct wl_listener blocked;  /* parental control: the picture goes (version 5) */
	struct wl_list buffers;    /* view_buffer.link, retired ones too */
	/*
	 * The geometry and format last sent, by value: a reference to that
	 * frame would keep its memory from the engine while the shape lasts
	 * (one 8 MB frame of 1080p BGRx for a whole playback).
	 */
	struct umms_frame shape;
	bool has_shape;
	unsigned held;             /* frames held, all buffers */
	uint32_t serial;
	struct {
		uint32_t serial;
		int64_t due_ns;
	} feedback[FEEDBACK_SLOTS];
	/* The largest frames it shows (set_size, version 6); 0: the picture's. */
	int max_width, max_height;
	/* Subtitles (version 4): UMMS_VIDEO_PLAYER_V1_SUBTITLES_* the client takes. */
	uint32_t subtitles;
	uint64_t sub_sent;         /* the subpicture the client has (its serial), 0: none */
	uint32_t sub_serial;       /* the last serial of this object's subpicture events */
	char *cue;                 /* the cue text the client has, NULL or "" for none */
	GArray *cues;              /* struct view_cue: the player's cues on screen */
	struct wl_listener cue_listener;
};

/* A cue on screen, from its player's events.subtitle_cue, until a frame past it. */
struct view_cue {
	int64_t start, end;        /* µs on Position's timeline; end -1: until the next cue */
	char *text;
};

static void detach_player(struct video_view *view);

/* ---- buffers -------------------------------------------------------------- */

static void
release_held(struct view_buffer *buffer)
{
	struct umms_frame *frame;
	while ((frame = g_queue_pop_head(&buffer->held))) {
		if (buffer->view)
			buffer->view->held--;
		umms_frame_unref(frame);
	}
}

static void
buffer_release(struct wl_client *client, struct wl_resource *resource)
{
	struct view_buffer *buffer = wl_resource_get_user_data(resource);
	struct umms_frame *frame = g_queue_pop_head(&buffer->held);
	if (!frame) {
		wl_resource_post_error(resource, UMMS_VIDEO_BUFFER_V1_ERROR_NOT_SHOWN,
			"release of buffer %u without a show waiting for it",
			wl_resource_get_id(resource));
		return;
	}
	if (buffer->view)
		buffer->view->held--;
	umms_frame_unref(frame);
}

static void
buffer_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct umms_video_buffer_v1_interface buffer_impl = {
	.release = buffer_release,
	.destroy = buffer_destroy,
};

static void
buffer_resource_destroy(struct wl_resource *resource)
{
	struct view_buffer *buffer = wl_resource_get_user_data(resource);
	release_held(buffer);
	wl_list_remove(&buffer->link);
	g_free(buffer);
}

static struct view_buffer *
find_buffer(struct video_view *view, uint64_t memory_id)
{
	struct view_buffer *buffer;
	wl_list_for_each(buffer, &view->buffers, link) {
		if (!buffer->retired && buffer->memory_id == memory_id)
			return buffer;
	}
	return NULL;
}

/* Tells the client about memory it has not seen: once per piece of memory. */
static struct view_buffer *
announce_buffer(struct video_view *view, const struct umms_frame *frame)
{
	struct wl_client *client = wl_resource_get_client(view->resource);
	struct wl_resource *resource = wl_resource_create(client, &umms_video_buffer_v1_interface,
		wl_resource_get_version(view->resource), 0);
	if (!resource) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	struct view_buffer *buffer = g_new0(struct view_buffer, 1);
	buffer->resource = resource;
	buffer->view = view;
	buffer->memory_id = frame->memory_id;
	g_queue_init(&buffer->held);
	wl_list_insert(&view->buffers, &buffer->link);
	wl_resource_set_implementation(resource, &buffer_impl, buffer, buffer_resource_destroy);

	umms_video_player_v1_send_buffer(view->resource, resource,
		frame->kind == UMMS_FRAME_DMABUF ? UMMS_VIDEO_BUFFER_V1_KIND_DMABUF :
		UMMS_VIDEO_BUFFER_V1_KIND_MEMFD, frame->format, frame->width, frame->height,
		(uint32_t)(frame->modifier >> 32), (uint32_t)frame->modifier);
	for (int p = 0; p < frame->n_planes; p++)
		umms_video_buffer_v1_send_plane(resource, frame->planes[p].fd,
			frame->planes[p].offset, frame->planes[p].stride);
	umms_video_buffer_v1_send_done(resource);
	umms_debug("view %u: buffer %u for memory %" G_GUINT64_FORMAT,
		wl_resource_get_id(view->resource), wl_resource_get_id(resource), frame->memory_id);
	return buffer;
}

/* ---- frames ---------------------------------------------------------------- */

static bool
same_shape(const struct umms_frame *a, const struct umms_frame *b)
{
	return umms_frame_same_geometry(a, b) && a->format == b->format && a->kind == b->kind;
}

/* New size or format: buffers of the old one will not be shown again. */
static void
send_shape(struct video_view *view, struct umms_frame *frame)
{
	struct view_buffer *buffer;
	wl_list_for_each(buffer, &view->buffers, link) {
		if (!buffer->retired) {
			buffer->retired = true;
			umms_video_buffer_v1_send_retired(buffer->resource);
		}
	}
	umms_video_player_v1_send_geometry(view->resource, frame->width, frame->height,
		frame->crop_x, frame->crop_y, frame->crop_width, frame->crop_height,
		frame->par_n, frame->par_d);
	view->shape = (struct umms_frame){
		.kind = frame->kind, .format = frame->format,
		.width = frame->width, .height = frame->height,
		.crop_x = frame->crop_x, .crop_y = frame->crop_y,
		.crop_width = frame->crop_width, .crop_height = frame->crop_height,
		.par_n = frame->par_n, .par_d = frame->par_d,
	};
	view->has_shape = true;
}

/*
 * The frame's subtitles as an image, when they differ from what the client
 * has: once per subpicture, before the show they go with.
 */
static void
send_subpicture(struct video_view *view, const struct umms_subpicture *sub)
{
	if (!(view->subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE))
		return;
	uint64_t serial = sub ? sub->serial : 0;
	if (serial == view->sub_sent)
		return;
	view->sub_sent = serial;
	if (!sub) {
		umms_video_player_v1_send_subpicture_clear(view->resource);
		return;
	}
	if (++view->sub_serial == 0)
		view->sub_serial = 1;
	umms_video_player_v1_send_subpicture(view->resource, sub->fd, view->sub_serial, sub->x,
		sub->y, sub->width, sub->height, sub->stride, sub->picture_width,
		sub->picture_height);
}

/* ---- cue texts (version 4, for clients that draw their own captions) -------- */

/* The longest cue text sent: a Wayland message holds 4096 bytes. */
#define CUE_MAX 2048

/* The text that stands from now on ("" for none): sent when it changes. */
static void
send_cue_text(struct video_view *view, const char *text)
{
	/* Valid UTF-8, cut at a character's boundary. */
	g_autofree char *valid = g_utf8_make_valid(text, -1);
	if (strlen(valid) > CUE_MAX)
		*g_utf8_find_prev_char(valid, valid + CUE_MAX + 1) = '\0';
	if (view->cue ? strcmp(view->cue, valid) == 0 : !*valid)
		return;
	g_free(view->cue);
	view->cue = g_steal_pointer(&valid);
	if (view->subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT)
		umms_video_player_v1_send_cue(view->resource, view->cue);
}

/* The cues on screen, in the order they came, one line block after another. */
static void
update_cue_text(struct video_view *view)
{
	GString *text = g_string_new(NULL);
	for (guint i = 0; i < view->cues->len; i++) {
		const struct view_cue *cue = &g_array_index(view->cues, struct view_cue, i);
		if (!*cue->text)
			continue;
		if (text->len)
			g_string_append_c(text, '\n');
		g_string_append(text, cue->text);
	}
	send_cue_text(view, text->str);
	g_string_free(text, TRUE);
}

static void
view_cue_clear(struct view_cue *cue)
{
	g_free(cue->text);
}

/* A frame at @position is due: the cues it is past (or before, after a seek) end. */
static void
expire_cues(struct video_view *view, int64_t position)
{
	bool changed = false;
	for (guint i = view->cues->len; i-- > 0;) {
		const struct view_cue *cue = &g_array_index(view->cues, struct view_cue, i);
		if (position >= cue->start && (cue->end < 0 || position < cue->end))
			continue;
		g_array_remove_index(view->cues, i);
		changed = true;
	}
	if (changed)
		update_cue_text(view);
}

static void
on_cue(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, cue_listener);
	const struct umms_subtitle_cue *event = data;
	const char *text = event->text ? event->text : "";
	if (!*text) {
		/* The track went (turned off, another chosen): nothing stands any more. */
		g_array_set_size(view->cues, 0);
		update_cue_text(view);
		return;
	}
	for (guint i = view->cues->len; i-- > 0;) {
		const struct view_cue *cue = &g_array_index(view->cues, struct view_cue, i);
		/* Emitted again (after a seek into it), or a cue without an end replaced. */
		if ((cue->start == event->start && strcmp(cue->text, text) == 0) || cue->end < 0)
			g_array_remove_index(view->cues, i);
	}
	/* A hostile stream's flood of overlapping cues stays bounded. */
	if (view->cues->len >= 16)
		g_array_remove_index(view->cues, 0);
	struct view_cue cue = { event->start, event->end, g_strdup(text) };
	g_array_append_val(view->cues, cue);
	update_cue_text(view);
}

static void
on_frame(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, frame);
	struct umms_frame *frame = data;
	expire_cues(view, frame->position);
	if (view->placed) {
		/* The screen shows it: the client only hears of its shape. */
		if (!view->has_shape || !same_shape(&view->shape, frame))
			send_shape(view, frame);
		return;
	}
	if (view->held >= view->server->config->video.max_held) {
		/* The client is behind: it misses this frame rather than stall the decoder. */
		umms_player_report_display(view->player, false, 0);
		return;
	}
	if (!view->has_shape || !same_shape(&view->shape, frame))
		send_shape(view, frame);
	struct view_buffer *buffer = find_buffer(view, frame->memory_id);
	if (!buffer && !(buffer = announce_buffer(view, frame)))
		return;
	g_queue_push_tail(&buffer->held, umms_frame_ref(frame));
	view->held++;

	send_subpicture(view, frame->subpicture);
	uint32_t serial = ++view->serial;
	view->feedback[serial % FEEDBACK_SLOTS].serial = serial;
	view->feedback[serial % FEEDBACK_SLOTS].due_ns = frame->present_ns;
	uint64_t seconds = (uint64_t)frame->present_ns / 1000000000;
	umms_video_player_v1_send_show(view->resource, buffer->resource, serial,
		(uint32_t)(seconds >> 32), (uint32_t)seconds,
		(uint32_t)((uint64_t)frame->present_ns % 1000000000));
}

static void
on_eos(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, eos);
	umms_video_player_v1_send_end_of_stream(view->resource);
}

static void
on_error(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, error);
	const GError *error = data;
	umms_video_player_v1_send_error(view->resource, umms_error_dbus_name_of(error),
		error->message);
}

/*
 * Parental control blocked the player: its subtitles go, and (version 5)
 * the client takes the last frame off. The engine sends no frame while
 * blocked.
 */
static void
on_blocked(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, blocked);
	if (!view->player->blocked)
		return;
	g_array_set_size(view->cues, 0);
	update_cue_text(view);
	send_subpicture(view, NULL);
	if (wl_resource_get_version(view->resource) >= UMMS_VIDEO_PLAYER_V1_CLEAR_SINCE_VERSION)
		umms_video_player_v1_send_clear(view->resource);
}

static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct video_view *view = wl_container_of(listener, view, destroy);
	struct umms_player *player = view->player;
	detach_player(view);
	g_autofree char *message = g_strdup_printf("player %u was destroyed", player->id);
	umms_video_player_v1_send_error(view->resource,
		umms_error_dbus_name(UMMS_ERROR_NOT_FOUND), message);
}

/* ---- formats shared by every view of a player ------------------------------- */

/*
 * The dma-bufs every view of @player takes: the pairs all their
 * compositors import (a view ummsd's own compositor shows takes any), into
 * @common; false if every view takes any.
 */
static bool
common_dmabuf(struct umms_video_server *server, struct umms_player *player, GArray *common)
{
	bool restricted = false;
	struct video_view *view;
	wl_list_for_each(view, &server->views, link) {
		if (view->player != player || view->placed)
			continue;
		if (!restricted) {
			g_array_append_vals(common, view->dmabuf->data, view->dmabuf->len);
			restricted = true;
			continue;
		}
		for (guint i = common->len; i > 0; i--) {
			const struct umms_frame_dmabuf_format *pair = &g_array_index(common,
				struct umms_frame_dmabuf_format, i - 1);
			bool found = false;
			for (guint j = 0; j < view->dmabuf->len && !found; j++) {
				const struct umms_frame_dmabuf_format *other = &g_array_index(
					view->dmabuf, struct umms_frame_dmabuf_format, j);
				found = other->format == pair->format &&
					other->modifier == pair->modifier;
			}
			if (!found)
				g_array_remove_index(common, i - 1);
		}
	}
	return restricted;
}

/*
 * One engine output serves every view of a player: the formats all their
 * compositors take, in the first view's order; XRGB8888 if none is common
 * (every compositor takes it). Likewise the dma-bufs they all import: a
 * hardware decoder's frames in others come in shared memory, copied.
 */
static void
update_output(struct umms_video_server *server, struct umms_player *player)
{
	GArray *common = NULL;
	struct video_view *view;
	/* The largest size asked; the picture's own where one view asked none. */
	int max_width = 0, max_height = 0;
	bool full = false;
	wl_list_for_each(view, &server->views, link) {
		if (view->player != player)
			continue;
		full |= view->placed || view->max_width == 0;
		max_width = MAX(max_width, view->max_width);
		max_height = MAX(max_height, view->max_height);
		if (!common) {
			common = g_array_copy(view->formats);
			continue;
		}
		for (guint i = common->len; i > 0; i--) {
			uint32_t format = g_array_index(common, uint32_t, i - 1);
			bool found = false;
			for (guint j = 0; j < view->formats->len; j++)
				found |= g_array_index(view->formats, uint32_t, j) == format;
			if (!found)
				g_array_remove_index(common, i - 1);
		}
	}
	g_autoptr(GError) error = NULL;
	if (!common || full)
		max_width = max_height = 0;
	umms_player_set_video_size(player, (unsigned)max_width, (unsigned)max_height);
	if (!common) {
		/* Nobody here shows it: back to what ummsd's own screen takes. */
		umms_player_set_video_dmabuf(player, true, NULL, 0);
		umms_player_set_video_output(player, false, NULL, 0, NULL);
		return;
	}
	GArray *dmabuf = g_array_new(FALSE, FALSE, sizeof(struct umms_frame_dmabuf_format));
	bool restricted = common_dmabuf(server, player, dmabuf);
	umms_player_set_video_dmabuf(player, !restricted,
		(const struct umms_frame_dmabuf_format *)(void *)dmabuf->data, dmabuf->len);
	g_array_unref(dmabuf);
	if (common->len == 0) {
		uint32_t xrgb8888 = 1;
		g_array_append_val(common, xrgb8888);
	}
	if (!umms_player_set_video_output(player, true, (const uint32_t *)(void *)common->data,
			common->len, &error))
		umms_warn("player %u: %s", player->id, error->message);
	g_array_unref(common);
}

/* ---- umms_video_player_v1 ----------------------------------------------------- */

static void
view_presented(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
	uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh,
	uint32_t flags)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	if (serial == 0 || serial > view->serial) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_UNKNOWN_SERIAL,
			"presented for serial %u, never shown", serial);
		return;
	}
	if (!view->player || view->feedback[serial % FEEDBACK_SLOTS].serial != serial)
		return; /* too old to matter */
	int64_t when = (int64_t)(((uint64_t)tv_sec_hi << 32 | tv_sec_lo) * 1000000000 + tv_nsec);
	umms_player_report_display(view->player, true,
		when - view->feedback[serial % FEEDBACK_SLOTS].due_ns);
	if (flags & UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_COPIED)
		umms_player_report_copy(view->player);
}

static void
view_discarded(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	if (serial == 0 || serial > view->serial) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_UNKNOWN_SERIAL,
			"discarded for serial %u, never shown", serial);
		return;
	}
	if (view->player)
		umms_player_report_display(view->player, false, 0);
}

static void
view_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
view_place(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *surface, int32_t x, int32_t y, int32_t width, int32_t height,
	uint32_t scale, uint32_t stacking)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	struct umms_compositor *compositor = view->server->compositor;
	if (!compositor) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_NOT_COMPOSITOR,
			"ummsd is not the compositor of this connection");
		return;
	}
	if (scale > UMMS_VIDEO_PLAYER_V1_SCALE_ANAMORPHIC ||
			stacking > UMMS_VIDEO_PLAYER_V1_STACKING_ABOVE) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE,
			"scale %u, stacking %u", scale, stacking);
		return;
	}
	if (!view->player)
		return;   /* failed, or the player is gone: nothing to show */
	GError *error = NULL;
	/* A client before set_subtitles (version 4) cannot draw them: the screen does. */
	bool subtitles = (view->subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE) ||
		wl_resource_get_version(resource) < UMMS_VIDEO_PLAYER_V1_SET_SUBTITLES_SINCE_VERSION;
	/*
	 * The protocol's scale values are the layout's (base/layout.h). A
	 * rectangle of no size (or less) hides the video; one past the
	 * placement's limits is cut to them.
	 */
	const int max = (int)UMMS_PLACEMENT_MAX;
	struct umms_placement placement = {
		.x = CLAMP(x, -max, max), .y = CLAMP(y, -max, max),
		.width = CLAMP(width, 0, max), .height = CLAMP(height, 0, max),
		.over = stacking == UMMS_VIDEO_PLAYER_V1_STACKING_ABOVE, .visible = true,
		.scale = 1, .zoom = (enum umms_layout_scale)scale, .subtitles = subtitles,
	};
	if (!umms_compositor_place(compositor, surface, view, view->player, &placement,
			&error)) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_NOT_COMPOSITOR, "%s",
			error->message);
		g_error_free(error);
		return;
	}
	if (!view->placed) {
		/* Frames go to the screen now: in the format every plane takes. */
		view->placed = true;
		uint32_t xrgb8888 = 1;
		g_array_set_size(view->formats, 0);
		g_array_append_val(view->formats, xrgb8888);
		/* Shows already sent are the client's to release, as always. */
		update_output(view->server, view->player);
	}
}

static void
view_set_subtitles(struct wl_client *client, struct wl_resource *resource, uint32_t subtitles)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	const uint32_t all = UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE |
		UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT;
	if (subtitles & ~all) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE,
			"subtitles 0x%x", subtitles);
		return;
	}
	uint32_t turned_on = subtitles & ~view->subtitles;
	view->subtitles = subtitles;
	/* The client dropped its image: the one that stands goes with the next show. */
	if (!(subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE))
		view->sub_sent = 0;
	if ((turned_on & UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT) && view->cue && *view->cue)
		umms_video_player_v1_send_cue(view->resource, view->cue);
	/* Placed: the screen draws the images, or leaves them to the client's captions. */
	if (view->placed && view->server->compositor)
		umms_compositor_set_video_subtitles(view->server->compositor, view,
			subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE);
}

static void
view_set_size(struct wl_client *client, struct wl_resource *resource, int32_t width,
	int32_t height)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	if (width < 0 || height < 0 || width > UMMS_VIEW_MAX_SIZE || height > UMMS_VIEW_MAX_SIZE) {
		wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE,
			"size %dx%d", width, height);
		return;
	}
	if (width == 0 || height == 0)
		width = height = 0;
	if (width == view->max_width && height == view->max_height)
		return;
	view->max_width = width;
	view->max_height = height;
	if (view->player)
		update_output(view->server, view->player);
}

static const struct umms_video_player_v1_interface view_impl = {
	.destroy = view_destroy,
	.presented = view_presented,
	.discarded = view_discarded,
	.place = view_place,
	.set_subtitles = view_set_subtitles,
	.set_size = view_set_size,
};

static void
detach_player(struct video_view *view)
{
	if (!view->player)
		return;
	struct umms_player *player = view->player;
	if (view->placed && view->server->compositor)
		umms_compositor_unplace(view->server->compositor, view);
	wl_list_remove(&view->frame.link);
	wl_list_remove(&view->eos.link);
	wl_list_remove(&view->error.link);
	wl_list_remove(&view->destroy.link);
	wl_list_remove(&view->blocked.link);
	wl_list_remove(&view->cue_listener.link);
	g_array_set_size(view->cues, 0);
	view->player = NULL;
	/* What this client held goes back to the engine. */
	struct view_buffer *buffer;
	wl_list_for_each(buffer, &view->buffers, link)
		release_held(buffer);
	update_output(view->server, player);
}

static void
view_resource_destroy(struct wl_resource *resource)
{
	struct video_view *view = wl_resource_get_user_data(resource);
	struct umms_player *player = view->player;
	wl_list_remove(&view->link);
	detach_player(view);
	struct view_buffer *buffer, *tmp;
	wl_list_for_each_safe(buffer, tmp, &view->buffers, link) {
		release_held(buffer);
		buffer->view = NULL;
		wl_list_remove(&buffer->link);
		wl_list_init(&buffer->link);
	}
	g_free(view->cue);
	g_array_unref(view->cues);
	if (view->owned && player)
		umms_manager_destroy_player(view->server->manager, player);
	g_array_unref(view->formats);
	g_array_unref(view->dmabuf);
	g_free(view);
}

void
video_view_create(struct umms_video_server *server, struct wl_client *client,
	uint32_t version, uint32_t id, struct umms_player *player, bool owned,
	const uint32_t *formats, size_t n_formats,
	const struct umms_frame_dmabuf_format *dmabuf, size_t n_dmabuf)
{
	struct wl_resource *resource = wl_resource_create(client, &umms_video_player_v1_interface,
		(int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		if (owned)
			umms_manager_destroy_player(server->manager, player);
		return;
	}
	struct video_view *view = g_new0(struct video_view, 1);
	view->server = server;
	view->resource = resource;
	view->owned = owned;
	/* Images by default: libumms-client and libumms-client-gl draw them. */
	view->subtitles = version >= 4 ? UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE : 0;
	view->formats = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	g_array_append_vals(view->formats, formats, (guint)n_formats);
	view->dmabuf = g_array_new(FALSE, FALSE, sizeof(struct umms_frame_dmabuf_format));
	g_array_append_vals(view->dmabuf, dmabuf, (guint)n_dmabuf);
	view->cues = g_array_new(FALSE, FALSE, sizeof(struct view_cue));
	g_array_set_clear_func(view->cues, (GDestroyNotify)view_cue_clear);
	wl_list_init(&view->buffers);
	wl_list_insert(&server->views, &view->link);
	wl_resource_set_implementation(resource, &view_impl, view, view_resource_destroy);

	if (!player) {
		umms_video_player_v1_send_failed(resource,
			owned ? "no player could be created" : "no such player");
		return;
	}
	view->player = player;
	view->frame.notify = on_frame;
	wl_signal_add(&player->events.frame, &view->frame);
	view->eos.notify = on_eos;
	wl_signal_add(&player->events.eos, &view->eos);
	view->error.notify = on_error;
	wl_signal_add(&player->events.error, &view->error);
	view->destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &view->destroy);
	view->cue_listener.notify = on_cue;
	wl_signal_add(&player->events.subtitle_cue, &view->cue_listener);
	view->blocked.notify = on_blocked;
	wl_signal_add(&player->events.blocked, &view->blocked);
	umms_video_player_v1_send_path(resource,
		umms_manager_player_path(server->manager, player));
	update_output(server, player);
	umms_info("client attached to player %u (%s)", player->id, owned ? "owned" : "shared");
}

void
video_views_finish(struct umms_video_server *server)
{
	struct video_view *view;
	wl_list_for_each(view, &server->views, link)
		detach_player(view);
}
