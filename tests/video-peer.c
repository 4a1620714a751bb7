/*
 * A server of umms_video_v1 that is not ummsd (video-peer.h), in a thread
 * of its own.
 */
#include <time.h>
#include <wayland-server-core.h>

#include "umms-video-v1-protocol.h"
#include "video-peer.h"

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
	struct umms_test_peer *peer = wl_resource_get_user_data(resource);
	g_mutex_lock(&peer->lock);
	peer->presented++;
	peer->presented_flags = flags;
	g_mutex_unlock(&peer->lock);
}

static void
player_discarded(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
	struct umms_test_peer *peer = wl_resource_get_user_data(resource);
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

static const struct umms_video_player_v1_interface player_impl = {
	.destroy = resource_destroy,
	.presented = player_presented,
	.discarded = player_discarded,
	.place = player_place,
};

/* A player with the peer's one buffer, shown once. */
static void
manager_create_player(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_test_peer *peer = wl_resource_get_user_data(resource);
	const struct umms_test_peer_buffer *b = &peer->buffer;
	int version = wl_resource_get_version(resource);
	struct wl_resource *player = wl_resource_create(client, &umms_video_player_v1_interface,
		version, id);
	wl_resource_set_implementation(player, &player_impl, peer, NULL);
	umms_video_player_v1_send_path(player, "/org/umms/player/1");
	umms_video_player_v1_send_geometry(player, b->width, b->height, 0, 0, b->width,
		b->height, 1, 1);

	struct wl_resource *buffer = wl_resource_create(client, &umms_video_buffer_v1_interface,
		1, 0);
	wl_resource_set_implementation(buffer, &buffer_impl, peer, NULL);
	umms_video_player_v1_send_buffer(player, buffer, b->kind, b->format, b->width, b->height,
		(uint32_t)(b->modifier >> 32), (uint32_t)b->modifier);
	umms_video_buffer_v1_send_plane(buffer, b->fd, b->offset, b->stride);
	umms_video_buffer_v1_send_done(buffer);

	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t due = (uint64_t)now.tv_sec + b->due_in_s;
	umms_video_player_v1_send_show(player, buffer, 1, (uint32_t)(due >> 32), (uint32_t)due,
		(uint32_t)now.tv_nsec);
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

struct umms_test_peer *
umms_test_peer_start(const char *socket, const struct umms_test_peer_buffer *buffer)
{
	struct umms_test_peer *peer = g_new0(struct umms_test_peer, 1);
	peer->buffer = *buffer;
	g_mutex_init(&peer->lock);
	peer->display = wl_display_create();
	g_assert_cmpint(wl_display_add_socket(peer->display, socket), ==, 0);
	g_assert_nonnull(wl_global_create(peer->display, &umms_video_manager_v1_interface, 3,
		peer, manager_bind));
	peer->thread = g_thread_new("umms-core-peer", peer_run, peer);
	return peer;
}

void
umms_test_peer_stop(struct umms_test_peer *peer)
{
	g_atomic_int_set(&peer->stop, 1);
	g_thread_join(peer->thread);
	wl_display_destroy_clients(peer->display);
	wl_display_destroy(peer->display);
	g_mutex_clear(&peer->lock);
	g_free(peer);
}

