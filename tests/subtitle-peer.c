/*
 * subtitle-peer: a umms_video_v1 server for tests of libumms-client in a real
 * compositor (test-embed.c), sending what ummsd will send once its engine
 * renders subtitles, with pixels the test knows: a 160x90 blue picture
 * shown from two buffers (the second show 300 ms after the first), and
 * before the first show one subtitle image, 80x10 of premultiplied
 * half-white at 40,70 of the picture, which the second show keeps.
 *
 * Usage: subtitle-peer SOCKET (in $XDG_RUNTIME_DIR). Prints "ready" once it
 * listens and "subtitles N" for each set_subtitles; ends when its stdin
 * closes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-server-core.h>

#include "umms-video-v1-protocol.h"

#define WIDTH 160
#define HEIGHT 90
#define BLUE 0x000000ffu
#define SUB_X 40
#define SUB_Y 70
#define SUB_W 80
#define SUB_H 10
#define HALF_WHITE 0x80808080u

struct peer {
	struct wl_display *display;
	struct wl_resource *player;
	struct wl_resource *buffers[2];
	struct wl_event_source *second;
	bool stop;
};

/* A memfd of @width x @height pixels of @fill. */
static int
filled(int width, int height, uint32_t fill)
{
	size_t size = (size_t)width * (size_t)height * 4;
	int fd = memfd_create("subtitle-peer", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		abort();
	uint32_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		abort();
	for (size_t i = 0; i < size / 4; i++)
		p[i] = fill;
	munmap(p, size);
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
}

static const struct umms_video_buffer_v1_interface buffer_impl = {
	.release = buffer_release,
	.destroy = resource_destroy,
};

static void
player_presented(struct wl_client *client, struct wl_resource *resource, uint32_t serial,
	uint32_t tv_sec_hi, uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t flags)
{
}

static void
player_discarded(struct wl_client *client, struct wl_resource *resource, uint32_t serial)
{
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
	printf("subtitles %u\n", subtitles);
	fflush(stdout);
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
	struct peer *peer = wl_resource_get_user_data(resource);
	peer->player = NULL;
	if (peer->second)
		wl_event_source_remove(peer->second);
	peer->second = NULL;
}

static void
send_show(struct peer *peer, int i)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	umms_video_player_v1_send_show(peer->player, peer->buffers[i], (uint32_t)i + 1,
		(uint32_t)((uint64_t)now.tv_sec >> 32), (uint32_t)now.tv_sec, (uint32_t)now.tv_nsec);
}

static int
second_show(void *data)
{
	struct peer *peer = data;
	if (peer->player)
		send_show(peer, 1);
	return 0;
}

static void
manager_create_player(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct peer *peer = wl_resource_get_user_data(resource);
	int version = wl_resource_get_version(resource);
	peer->player = wl_resource_create(client, &umms_video_player_v1_interface, version, id);
	wl_resource_set_implementation(peer->player, &player_impl, peer, player_gone);
	umms_video_player_v1_send_path(peer->player, "/org/umms/player/1");
	umms_video_player_v1_send_geometry(peer->player, WIDTH, HEIGHT, 0, 0, WIDTH, HEIGHT, 1, 1);
	for (int i = 0; i < 2; i++) {
		struct wl_resource *buffer = wl_resource_create(client,
			&umms_video_buffer_v1_interface, version, 0);
		wl_resource_set_implementation(buffer, &buffer_impl, peer, NULL);
		umms_video_player_v1_send_buffer(peer->player, buffer,
			UMMS_VIDEO_BUFFER_V1_KIND_MEMFD, WL_SHM_FORMAT_XRGB8888, WIDTH, HEIGHT, 0, 0);
		int fd = filled(WIDTH, HEIGHT, BLUE);
		umms_video_buffer_v1_send_plane(buffer, fd, 0, WIDTH * 4);
		close(fd);
		umms_video_buffer_v1_send_done(buffer);
		peer->buffers[i] = buffer;
	}
	if (version >= UMMS_VIDEO_PLAYER_V1_SUBPICTURE_SINCE_VERSION) {
		int fd = filled(SUB_W, SUB_H, HALF_WHITE);
		umms_video_player_v1_send_subpicture(peer->player, fd, 1, SUB_X, SUB_Y, SUB_W, SUB_H,
			SUB_W * 4, WIDTH, HEIGHT);
		close(fd);
	}
	send_show(peer, 0);
	peer->second = wl_event_loop_add_timer(wl_display_get_event_loop(peer->display),
		second_show, peer);
	wl_event_source_timer_update(peer->second, 300);
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

static int
stdin_ready(int fd, uint32_t mask, void *data)
{
	struct peer *peer = data;
	char buf[64];
	if ((mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) || read(fd, buf, sizeof(buf)) <= 0)
		peer->stop = true;
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: subtitle-peer SOCKET\n");
		return 2;
	}
	struct peer peer = { 0 };
	peer.display = wl_display_create();
	if (wl_display_add_socket(peer.display, argv[1]) != 0) {
		fprintf(stderr, "subtitle-peer: cannot listen on %s\n", argv[1]);
		return 1;
	}
	wl_global_create(peer.display, &umms_video_manager_v1_interface, 4, &peer, manager_bind);
	struct wl_event_loop *loop = wl_display_get_event_loop(peer.display);
	struct wl_event_source *input = wl_event_loop_add_fd(loop, STDIN_FILENO,
		WL_EVENT_READABLE, stdin_ready, &peer);
	printf("ready\n");
	fflush(stdout);
	while (!peer.stop) {
		wl_display_flush_clients(peer.display);
		wl_event_loop_dispatch(loop, -1);
	}
	wl_event_source_remove(input);
	wl_display_destroy_clients(peer.display);
	wl_display_destroy(peer.display);
	return 0;
}
