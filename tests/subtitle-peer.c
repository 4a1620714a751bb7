/*
 * subtitle-peer: a umms_video_v1 server for tests of libumms-client in a real
 * compositor (test-embed.c), sending what ummsd will send once its engine
 * renders subtitles, with pixels the test knows: a 160x90 blue picture
 * shown from two buffers (the second show 300 ms after the first), and
 * before the first show one subtitle image, 80x10 of premultiplied
 * half-white at 40,70 of the picture, which the second show keeps. The
 * server is video-peer.c's, run by a program of its own.
 *
 * Usage: subtitle-peer SOCKET (in $XDG_RUNTIME_DIR). Prints "ready" once it
 * listens and "subtitles N" for each set_subtitles; ends when its stdin
 * closes.
 */
#include <stdio.h>
#include <unistd.h>

#include "umms-video-v1-protocol.h"
#include "video-peer.h"

#define WIDTH 160
#define HEIGHT 90
#define BLUE 0x000000ffu
#define SUB_X 40
#define SUB_Y 70
#define SUB_W 80
#define SUB_H 10
#define HALF_WHITE 0x80808080u

static void
on_subtitles(uint32_t subtitles, void *data)
{
	printf("subtitles %u\n", subtitles);
	fflush(stdout);
}

int
main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: subtitle-peer SOCKET\n");
		return 2;
	}
	struct umms_test_peer_buffer picture = {
		.kind = UMMS_VIDEO_BUFFER_V1_KIND_MEMFD,
		.format = WL_SHM_FORMAT_XRGB8888,
		.width = WIDTH, .height = HEIGHT,
		.stride = WIDTH * 4,
	};
	struct umms_test_peer_script script = {
		.version = 4,
		.buffers = { picture, picture },
		.n_buffers = 2,
		.shows = {
			{
				.buffer = 0,
				.with_subpicture = true,
				.subpicture = {
					.fd = umms_test_peer_memfd(SUB_W * SUB_H * 4, HALF_WHITE),
					.serial = 1,
					.x = SUB_X, .y = SUB_Y, .width = SUB_W, .height = SUB_H,
					.stride = SUB_W * 4,
				},
			},
			{ .buffer = 1, .delay_ms = 300 },
		},
		.n_shows = 2,
		.subtitles = on_subtitles,
	};
	for (unsigned i = 0; i < script.n_buffers; i++)
		script.buffers[i].fd = umms_test_peer_memfd(WIDTH * HEIGHT * 4, BLUE);
	struct umms_test_peer *peer = umms_test_peer_start_script(argv[1], &script);
	for (unsigned i = 0; i < script.n_buffers; i++)
		close(script.buffers[i].fd);
	close(script.shows[0].subpicture.fd);
	printf("ready\n");
	fflush(stdout);

	char buf[64];
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	umms_test_peer_stop(peer);
	return 0;
}
