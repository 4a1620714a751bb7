/*
 * A server of umms_video_v1 that is not ummsd (video-peer.h), in a thread
 * of its own.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include "umms-video-v1-protocol.h"
#include "video-peer.h"

/* A player a client made: the script's buffers, its shows sent in turn. */
struct peer_player {
	struct umms_test_peer *peer;
	struct wl_resource *resource;
	struct wl_resource *buffers[UMMS_TEST_PEER_MAX];
	struct wl_event_source *timer; /* for the next show, if it is to wait */
	unsigned next;                 /* the next show to send */
};

int
umms_test_peer_memfd(size_t size, uint32_t fill)
{
	int fd = memfd_create("umms-test-peer", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, (off_t)size), ==, 0);
	uint32_t *words = g_malloc0(size + 4);
	for (size_t i = 0; i < size / 4; i++)
		words[i] = fill;
	g_assert_cmpint(pwrite(fd, words, size, 0), ==, (ssize_t)size);
	g_free(words);
	return fd;
}

static void
resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
buffer_release(struct wl_client *client, struct wl_resource *resource)
{
	struct umms_test_peer *peer = wl_resource_get_user_data(resource);
	g_mutex_lock(&peer->lock);
	peer->releases++;
	g_mutex_unlock(&peer->lock);
}

static const struct umms_video_buffer_v1_interface buffer_impl = {
	.release = buffer_release,
	.destroy = resource_destroy,
};

static void
player_presented(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
	uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t flags)
{
	struct peer_player *player = wl_resource_get_user_data(resource);
	struct umms_test_peer *peer = player->peer;
	g_mutex_lock(&peer->lock);
	peer->presented++;
	peer->presented_flags = flags;
	g_mutex_unlock(&peer->lock);
}

static void
player_discarded(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	struct peer_player *player = wl_resource_get_user_data(resource);
	struct umms_test_peer *peer = player->peer;
	g_mutex_lock(&peer->lock);
	peer->discarded++;
	peer->discarded_serial = serial;
	g_mutex_unlock(&peer->lock);
}

static void
player_place(struct wl_client *client, struct wl_resource *resource, struct wl_resource *surface,
	int32_t x, int32_t y, int32_t width, int32_t height, uint32_t scale, uint32_t stacking)
{
	wl_resource_post_error(resource, UMMS_VIDEO_PLAYER_V1_ERROR_NOT_COMPOSITOR,
		"this peer is not a compositor");
}

static void
player_set_subtitles(struct wl_client *client, struct wl_resource *resource, uint32_t subtitles)
{
	struct peer_player *player = wl_resource_get_user_data(resource);
	struct umms_test_peer *peer = player->peer;
	g_mutex_lock(&peer->lock);
	peer->set_subtitles = subtitles;
	g_mutex_unlock(&peer->lock);
	/* The cue that stands, for a client that asked for text. */
	if (peer->script.cue && (subtitles & UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT))
		umms_video_player_v1_send_cue(resource, peer->script.cue);
	if (peer->script.subtitles)
		peer->script.subtitles(subtitles, peer->script.data);
}

static const struct umms_video_player_v1_interface player_impl = {
	.destroy = resource_destroy,
	.presented = player_presented,
	.discarded = player_discarded,
	.place = player_place,
	.set_subtitles = player_set_subtitles,
};

static void
player_gone(struct wl_resource *resource)
{
	struct peer_player *player = wl_resource_get_user_data(resource);
	if (player->timer)
		wl_event_source_remove(player->timer);
	g_free(player);
}

/* Show @i of the script (serial i + 1), after its subtitle image if it has one. */
static void
send_show(struct peer_player *player, unsigned i)
{
	const struct umms_test_peer_script *script = &player->peer->script;
	const struct umms_test_peer_show *show = &script->shows[i];
	const struct umms_test_peer_subpicture *sub = &show->subpicture;
	if (show->with_subpicture && wl_resource_get_version(player->resource) >=
			UMMS_VIDEO_PLAYER_V1_SUBPICTURE_SINCE_VERSION)
		umms_video_player_v1_send_subpicture(player->resource, sub->fd, sub->serial, sub->x,
			sub->y, sub->width, sub->height, sub->stride, script->buffers[0].width,
			script->buffers[0].height);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t due = (uint64_t)now.tv_sec + show->due_in_s;
	umms_video_player_v1_send_show(player->resource, player->buffers[show->buffer], i + 1,
		(uint32_t)(due >> 32), (uint32_t)due, (uint32_t)now.tv_nsec);
}

static int next_show(void *data);

/* Sends the shows due @elapsed_ms after the player was made; arms the timer for the next. */
static void
send_shows(struct peer_player *player, unsigned elapsed_ms)
{
	const struct umms_test_peer_script *script = &player->peer->script;
	while (player->next < script->n_shows &&
			script->shows[player->next].delay_ms <= elapsed_ms)
		send_show(player, player->next++);
	if (player->next == script->n_shows)
		return;
	if (!player->timer) {
		struct wl_event_loop *loop = wl_display_get_event_loop(player->peer->display);
		player->timer = wl_event_loop_add_timer(loop, next_show, player);
	}
	wl_event_source_timer_update(player->timer,
		(int)(script->shows[player->next].delay_ms - elapsed_ms));
}

/* The timer: the next show's delay has passed. */
static int
next_show(void *data)
{
	struct peer_player *player = data;
	send_shows(player, player->peer->script.shows[player->next].delay_ms);
	return 0;
}

/* A player with the script's buffers, then its shows. */
static void
manager_create_player(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_test_peer *peer = wl_resource_get_user_data(resource);
	const struct umms_test_peer_script *script = &peer->script;
	int version = wl_resource_get_version(resource);
	struct peer_player *player = g_new0(struct peer_player, 1);
	player->peer = peer;
	player->resource = wl_resource_create(client, &umms_video_player_v1_interface, version,
		id);
	wl_resource_set_implementation(player->resource, &player_impl, player, player_gone);
	const struct umms_test_peer_buffer *picture = &script->buffers[0];
	umms_video_player_v1_send_path(player->resource, "/org/umms/player/1");
	umms_video_player_v1_send_geometry(player->resource, picture->width, picture->height, 0, 0,
		picture->width, picture->height, 1, 1);

	for (unsigned i = 0; i < script->n_buffers; i++) {
		const struct umms_test_peer_buffer *b = &script->buffers[i];
		struct wl_resource *buffer = wl_resource_create(client,
			&umms_video_buffer_v1_interface, version, 0);
		wl_resource_set_implementation(buffer, &buffer_impl, peer, NULL);
		umms_video_player_v1_send_buffer(player->resource, buffer, b->kind, b->format,
			b->width, b->height, (uint32_t)(b->modifier >> 32), (uint32_t)b->modifier);
		umms_video_buffer_v1_send_plane(buffer, b->fd, b->offset, b->stride);
		umms_video_buffer_v1_send_done(buffer);
		player->buffers[i] = buffer;
	}
	send_shows(player, 0);
}

static void
manager_attach(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	const char *path)
{
	manager_create_player(client, resource, id);
}

static void
manager_format(struct wl_client *client, struct wl_resource *resource, uint32_t format)
{
}

static void
manager_dmabuf_format(struct wl_client *client, struct wl_resource *resource, uint32_t format,
	uint32_t modifier_hi, uint32_t modifier_lo)
{
}

static const struct umms_video_manager_v1_interface manager_impl = {
	.destroy = resource_destroy,
	.shm_format = manager_format,
	.dmabuf_format = manager_dmabuf_format,
	.attach = manager_attach,
	.create_player = manager_create_player,
};

static void
manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client,
		&umms_video_manager_v1_interface, (int)version, id);
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}

static gpointer
peer_run(gpointer data)
{
	struct umms_test_peer *peer = data;
	struct wl_event_loop *loop = wl_display_get_event_loop(peer->display);
	while (!g_atomic_int_get(&peer->stop)) {
		wl_event_loop_dispatch(loop, 20);
		wl_display_flush_clients(peer->display);
	}
	return NULL;
}

static int
dup_fd(int fd)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	g_assert_cmpint(copy, >=, 0);
	return copy;
}

struct umms_test_peer *
umms_test_peer_start_script(const char *socket, const struct umms_test_peer_script *script)
{
	g_assert_true(script->n_buffers >= 1 && script->n_buffers <= UMMS_TEST_PEER_MAX);
	g_assert_cmpuint(script->n_shows, <=, UMMS_TEST_PEER_MAX);
	struct umms_test_peer *peer = g_new0(struct umms_test_peer, 1);
	peer->script = *script;
	for (unsigned i = 0; i < script->n_buffers; i++)
		peer->script.buffers[i].fd = dup_fd(script->buffers[i].fd);
	for (unsigned i = 0; i < script->n_shows; i++) {
		const struct umms_test_peer_show *show = &script->shows[i];
		g_assert_cmpuint(show->buffer, <, script->n_buffers);
		g_assert_true(i == 0 || show->delay_ms >= script->shows[i - 1].delay_ms);
		if (show->with_subpicture)
			peer->script.shows[i].subpicture.fd = dup_fd(show->subpicture.fd);
	}
	peer->set_subtitles = ~0u;
	g_mutex_init(&peer->lock);
	peer->display = wl_display_create();
	g_assert_cmpint(wl_display_add_socket(peer->display, socket), ==, 0);
	g_assert_nonnull(wl_global_create(peer->display, &umms_video_manager_v1_interface,
		(int)script->version, peer, manager_bind));
	peer->thread = g_thread_new("umms-test-peer", peer_run, peer);
	return peer;
}

struct umms_test_peer *
umms_test_peer_start(const char *socket, const struct umms_test_peer_buffer *buffer)
{
	struct umms_test_peer_script script = {
		.version = 3,
		.buffers = { *buffer },
		.n_buffers = 1,
		.shows = { { .buffer = 0, .due_in_s = buffer->due_in_s } },
		.n_shows = 1,
	};
	return umms_test_peer_start_script(socket, &script);
}

void
umms_test_peer_stop(struct umms_test_peer *peer)
{
	g_atomic_int_set(&peer->stop, 1);
	g_thread_join(peer->thread);
	wl_display_destroy_clients(peer->display);
	wl_display_destroy(peer->display);
	for (unsigned i = 0; i < peer->script.n_buffers; i++)
		close(peer->script.buffers[i].fd);
	for (unsigned i = 0; i < peer->script.n_shows; i++) {
		if (peer->script.shows[i].with_subpicture)
			close(peer->script.shows[i].subpicture.fd);
	}
	g_mutex_clear(&peer->lock);
	g_free(peer);
}
