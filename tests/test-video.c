/*
 * umms_video_v1 from a plain client (no compositor): what ummsd sends, byte
 * for byte. Frames arrive in memfd memory announced once and reused, with
 * the right pixels, geometry and timing; feedback reaches Stats; protocol
 * mistakes disconnect only the client that made them. A decoder's dma-buf
 * frames (dmabuf-src.c) go as dma-buf only to clients whose compositor
 * imports them (umms_video_manager_v1.dmabuf_format), copied into shared
 * memory for the others.
 */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <wayland-client.h>

#include "dmabuf-src.h"
#include "harness.h"
#include "umms-video-v1-client-protocol.h"
#include "video-raw.h"

#define FOURCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | \
	((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))

/*
 * The last frame is due at the present (CLOCK_MONOTONIC): not before
 * @asked_ns, when the request that brought it was made, nor after it came
 * (200 ms either side: lip sync sends early). A busy machine only widens
 * the span between the two; a time on another clock, or seconds stale,
 * falls outside it.
 */
static void
assert_due_on_arrival(struct raw_client *c, int64_t asked_ns)
{
	g_test_message("frame due %.1f ms after it came, %.1f ms after it was asked for",
		(c->last_due_ns - c->last_received_ns) / 1e6, (c->last_due_ns - asked_ns) / 1e6);
	g_assert_cmpint(c->last_due_ns, >, asked_ns - 200000000);
	g_assert_cmpint(c->last_due_ns, <, c->last_received_ns + 200000000);
}

static bool
color_near(uint32_t got, uint32_t want)
{
	for (int shift = 0; shift < 24; shift += 8) {
		int a = (int)((got >> shift) & 0xff), b = (int)((want >> shift) & 0xff);
		if (abs(a - b) > 8)
			return false;
	}
	return true;
}

static void
assert_color(uint32_t got, uint32_t want)
{
	if (!color_near(got, want))
		g_error("colour %06x, expected %06x", got, want);
}

static void
open_play(struct umms_test *t, const char *path, const char *clip)
{
	g_autofree char *uri = umms_test_clip_uri(clip);
	umms_test_player_do(t->bus, path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, path, "Play", NULL);
}

static void
test_frames(struct umms_test *t, gconstpointer data)
{
	/* A client whose compositor shows XRGB8888 from shared memory. */
	struct raw_client *c = raw_connect((const uint32_t[]){ 1, 0 });
	raw_player(c, NULL);
	g_assert_nonnull(c->path);
	g_assert_true(g_str_has_prefix(c->path, "/org/umms/player/"));
	int64_t asked = monotonic_ns();
	open_play(t, c->path, "colors.mkv");
	raw_wait_shows(c, 10, UMMS_TEST_TIMEOUT_MS);

	/* 320x240, square pixels; every frame in shared memory, nothing copied. */
	const int want[8] = { 320, 240, 0, 0, 320, 240, 1, 1 };
	g_assert_cmpmem(c->geometry, sizeof(want), want, sizeof(want));
	struct raw_buffer *b = c->last;
	g_assert_cmpuint(b->kind, ==, UMMS_VIDEO_BUFFER_V1_KIND_MEMFD);
	g_assert_cmpuint(b->format, ==, 1 /* WL_SHM_FORMAT_XRGB8888 */);
	g_assert_cmpint(b->n_planes, ==, 1);
	g_assert_cmpuint(b->strides[0], >=, 320 * 4);
	/* The first second of colors.mkv is red. */
	assert_color(raw_pixel(b, 160, 120), 0xff0000);
	assert_color(raw_pixel(b, 5, 5), 0xff0000);

	/* Frames are due now: the show time is the present (CLOCK_MONOTONIC). */
	assert_due_on_arrival(c, asked);

	/* Memory is announced once and reused: many shows, few buffers. */
	raw_wait_shows(c, 50, UMMS_TEST_TIMEOUT_MS);
	g_test_message("%u shows in %u buffers", c->shows, c->buffers->len);
	g_assert_cmpuint(c->buffers->len, <=, 12);
	/*
	 * The first frame's too, once released: ummsd kept a reference to it
	 * (the geometry it sent) for the whole playback, 8 MB at 1080p BGRx.
	 */
	struct raw_buffer *first = g_ptr_array_index(c->buffers, 0);
	g_test_message("the first buffer shown %u times", first->shows);
	g_assert_cmpuint(first->shows, >=, 2);
	g_autoptr(GVariant) stats = umms_test_get(t->bus, c->path, UMMS_PLAYER, "Stats");
	guint64 copies = 99;
	g_variant_lookup(stats, "copies", "t", &copies);
	g_assert_cmpuint(copies, ==, 0);

	/* Paused and sought, the frame at the new place is shown: the pixels follow. */
	static const struct {
		double at;
		uint32_t rgb;
	} colours[] = { { 1.5, 0x00ff00 }, { 2.5, 0x0000ff }, { 3.5, 0xffffff }, { 0.5, 0xff0000 } };
	umms_test_player_do(t->bus, c->path, "Pause", NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(colours); i++) {
		unsigned before = c->shows;
		umms_test_player_do(t->bus, c->path, "SetPosition",
			g_variant_new("(x)", US(colours[i].at)));
		/*
		 * A frame the engine worker sent before it paused may still be on
		 * its way: the frame of the new place is among the next few.
		 */
		unsigned next = before + 1;
		raw_wait_shows(c, next, UMMS_TEST_TIMEOUT_MS);
		for (int more = 0; more < 3 &&
				!color_near(raw_pixel(c->last, 160, 120), colours[i].rgb); more++) {
			next = c->shows + 1;
			raw_wait_shows(c, next, UMMS_TEST_TIMEOUT_MS);
		}
		assert_color(raw_pixel(c->last, 160, 120), colours[i].rgb);
	}
	raw_free(c);
}

static void
test_format_choice(struct umms_test *t, gconstpointer data)
{
	/*
	 * sway 1.7's wl_shm formats, in its order (1000 stands for ARGB8888,
	 * 0): frames come as XRGB8888, which pixman composites without a
	 * per-repaint conversion, whatever the order of the list.
	 */
	const uint32_t sway[] = { 1000, 1, 0x34324258 /* XB24 */, 0x34324241 /* AB24 */,
		0x34324152 /* RA24 */, 0x34325852 /* RX24 */, 0 };
	struct raw_client *c = raw_connect(sway);
	raw_player(c, NULL);
	open_play(t, c->path, "colors.mkv");
	raw_wait_shows(c, 3, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpuint(c->last->format, ==, 1 /* WL_SHM_FORMAT_XRGB8888 */);
	raw_free(c);

	/* A client that can show only XBGR8888 gets it, red still red. */
	c = raw_connect((const uint32_t[]){ 0x34324258 /* XB24 */, 0 });
	raw_player(c, NULL);
	open_play(t, c->path, "colors.mkv");
	raw_wait_shows(c, 3, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpuint(c->last->format, ==, 0x34324258);
	/* XBGR8888: red in the lowest byte of the little-endian word. */
	assert_color(raw_pixel(c->last, 160, 120), 0x0000ff);
	raw_free(c);
}

static void
test_geometry_par(struct umms_test *t, gconstpointer data)
{
	struct raw_client *c = raw_connect(NULL);
	raw_player(c, NULL);
	open_play(t, c->path, "anamorphic.mkv");
	raw_wait_shows(c, 3, UMMS_TEST_TIMEOUT_MS);
	const int want[8] = { 352, 288, 0, 0, 352, 288, 12, 11 };
	g_assert_cmpmem(c->geometry, sizeof(want), want, sizeof(want));
	raw_free(c);
}

static void
test_feedback(struct umms_test *t, gconstpointer data)
{
	struct raw_client *c = raw_connect(NULL);
	raw_player(c, NULL);
	open_play(t, c->path, "long.mkv");
	/* Report every frame shown 10 ms after it was due; then one discarded. */
	for (int i = 0; i < 30; i++) {
		unsigned before = c->shows;
		raw_wait_shows(c, before + 1, UMMS_TEST_TIMEOUT_MS);
		int64_t when = c->last_due_ns + 10000000;
		umms_video_player_v1_presented(c->player, c->last_serial,
			(uint32_t)((uint64_t)(when / 1000000000) >> 32),
			(uint32_t)(when / 1000000000), (uint32_t)(when % 1000000000), 16666667,
			UMMS_VIDEO_PLAYER_V1_PRESENTATION_FLAGS_VSYNC);
	}
	umms_video_player_v1_discarded(c->player, c->last_serial);
	raw_pump(c, 100);
	g_autoptr(GVariant) stats = umms_test_get(t->bus, c->path, UMMS_PLAYER, "Stats");
	guint64 displayed = 0;
	gint64 latency = 0;
	g_variant_lookup(stats, "frames-displayed", "t", &displayed);
	g_variant_lookup(stats, "display-latency", "x", &latency);
	g_test_message("displayed %" G_GUINT64_FORMAT ", latency %" G_GINT64_FORMAT " µs",
		displayed, latency);
	g_assert_cmpuint(displayed, ==, 30);
	guint64 discarded = 0;
	g_variant_lookup(stats, "frames-discarded", "t", &discarded);
	g_assert_cmpuint(discarded, ==, 1);
	g_assert_cmpint(latency, >, 0);
	g_assert_cmpint(latency, <=, 10000);
	/*
	 * Frames shown late make the service send them earlier (lip sync): they
	 * now arrive well before they are due, where at first they came on time.
	 */
	raw_wait_shows(c, c->shows + 2, UMMS_TEST_TIMEOUT_MS);
	int64_t early = c->last_due_ns - c->last_received_ns;
	g_test_message("frames now arrive %.1f ms before they are due", early / 1e6);
	g_assert_cmpint(early, >, 5000000);
	raw_free(c);
}

static void
test_preroll_due(struct umms_test *t, gconstpointer data)
{
	/*
	 * The frame shown on opening, before any Play, is due now: a client
	 * reporting it presented a few ms later must not look seconds late
	 * (lip sync would then send every frame 100 ms early).
	 */
	struct raw_client *c = raw_connect(NULL);
	raw_player(c, NULL);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	int64_t asked = monotonic_ns();
	umms_test_player_do(t->bus, c->path, "SetUri", g_variant_new("(s)", uri));
	raw_wait_shows(c, 1, UMMS_TEST_TIMEOUT_MS);
	assert_due_on_arrival(c, asked);

	/* Paused and sought: the new frame is due now too. */
	umms_test_player_do(t->bus, c->path, "Pause", NULL);
	unsigned before = c->shows;
	asked = monotonic_ns();
	umms_test_player_do(t->bus, c->path, "SetPosition", g_variant_new("(x)", US(2.0)));
	raw_wait_shows(c, before + 1, UMMS_TEST_TIMEOUT_MS);
	assert_due_on_arrival(c, asked);
	raw_free(c);
}

static void
test_attach(struct umms_test *t, gconstpointer data)
{
	/* Attaching to a D-Bus player; two clients each get every frame. */
	g_autofree char *path = umms_test_open(t->bus, "long.mkv");
	struct raw_client *a = raw_connect(NULL), *b = raw_connect(NULL);
	raw_player(a, path);
	raw_player(b, path);
	g_assert_cmpstr(a->path, ==, path);
	umms_test_player_do(t->bus, path, "Play", NULL);
	raw_wait_shows(a, 10, UMMS_TEST_TIMEOUT_MS);
	raw_wait_shows(b, 10, UMMS_TEST_TIMEOUT_MS);

	/* One leaves; the player and the other client go on. */
	raw_free(a);
	unsigned before = b->shows;
	raw_wait_shows(b, before + 10, UMMS_TEST_TIMEOUT_MS);
	g_autofree char *state = umms_test_get_string(t->bus, path, "State");
	g_assert_cmpstr(state, ==, "playing");

	struct raw_client *c = raw_connect(NULL);
	raw_player(c, "/org/umms/player/999");
	g_assert_null(c->path);
	g_assert_cmpstr(c->failed, ==, "no such player");
	raw_free(c);
	raw_free(b);
}

static void
test_owned_player(struct umms_test *t, gconstpointer data)
{
	/* A player made over Wayland dies with its client. */
	struct raw_client *c = raw_connect(NULL);
	raw_player(c, NULL);
	g_autofree char *path = g_strdup(c->path);
	open_play(t, path, "long.mkv");
	raw_wait_shows(c, 5, UMMS_TEST_TIMEOUT_MS);
	raw_free(c);
	/* Gone once ummsd has seen the client go, however long that takes. */
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	for (;;) {
		GError *error = NULL;
		g_autoptr(GVariant) reply = umms_test_call(t->bus, path, UMMS_PLAYER, "Pause", NULL,
			&error);
		g_autofree char *name = error ? g_dbus_error_get_remote_error(error) : NULL;
		g_clear_error(&error);
		if (g_strcmp0(name, "org.umms.Error.NotFound") == 0)
			break;
		if (g_get_monotonic_time() > end)
			g_error("%s outlived its client (%s)", path, name ? name : "no error");
		umms_test_sleep(20);
	}
	g_autofree char *m = umms_test_call_error(t->bus, path, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
}

static void
test_slow_client(struct umms_test *t, gconstpointer data)
{
	/* A client that never releases stalls nobody: it misses frames. */
	struct raw_client *c = raw_connect(NULL);
	c->auto_release = false;
	raw_player(c, NULL);
	open_play(t, c->path, "long.mkv");
	/* Played on past the frames it holds, however long that takes. */
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	int64_t position;
	while ((position = umms_test_get_int64(t->bus, c->path, "Position")) <= US(1.2)) {
		if (g_get_monotonic_time() > end)
			g_error("%s Position %" G_GINT64_FORMAT " never got past 1.2 s", c->path,
				position);
		g_assert_true(raw_pump(c, 20));
	}
	raw_wait_shows(c, 8, UMMS_TEST_TIMEOUT_MS);
	raw_pump(c, 300);
	g_assert_cmpuint(c->shows, ==, 8); /* [video] max-held-frames */
	g_autoptr(GVariant) stats = umms_test_get(t->bus, c->path, UMMS_PLAYER, "Stats");
	guint64 dropped = 0;
	g_variant_lookup(stats, "frames-dropped", "t", &dropped);
	g_assert_cmpuint(dropped, >, 10);
	/* Releasing lets frames through again. */
	for (guint i = 0; i < c->buffers->len; i++) {
		struct raw_buffer *b = c->buffers->pdata[i];
		for (; b->held > 0; b->held--)
			umms_video_buffer_v1_release(b->proxy);
	}
	c->last = NULL;
	c->auto_release = true;
	raw_wait_shows(c, 20, UMMS_TEST_TIMEOUT_MS);
	raw_free(c);
}

static void
test_protocol_errors(struct umms_test *t, gconstpointer data)
{
	/* A well-behaved client watching a player all along. */
	g_autofree char *path = umms_test_open(t->bus, "long.mkv");
	umms_test_player_do(t->bus, path, "Play", NULL);
	struct raw_client *good = raw_connect(NULL);
	raw_player(good, path);
	raw_wait_shows(good, 5, UMMS_TEST_TIMEOUT_MS);

	/* Releasing a buffer twice: a protocol error for that client only. */
	struct raw_client *bad = raw_connect(NULL);
	raw_player(bad, path);
	raw_wait_shows(bad, 2, UMMS_TEST_TIMEOUT_MS);
	struct raw_buffer *b = bad->last;
	umms_video_buffer_v1_release(b->proxy);
	umms_video_buffer_v1_release(b->proxy);
	while (raw_pump(bad, 10))
		;
	g_assert_cmpint(wl_display_get_error(bad->display), ==, EPROTO);
	const struct wl_interface *iface = NULL;
	uint32_t id = 0;
	g_assert_cmpuint(wl_display_get_protocol_error(bad->display, &iface, &id), ==,
		UMMS_VIDEO_BUFFER_V1_ERROR_NOT_SHOWN);
	g_assert_cmpstr(iface->name, ==, "umms_video_buffer_v1");
	raw_free(bad);

	/* Feedback for a serial never shown. */
	bad = raw_connect(NULL);
	raw_player(bad, path);
	umms_video_player_v1_presented(bad->player, 123456, 0, 0, 0, 0, 0);
	while (raw_pump(bad, 10))
		;
	g_assert_cmpint(wl_display_get_error(bad->display), ==, EPROTO);
	raw_free(bad);

	/*
	 * Version 4: subtitles as text and images is fine (the clip has none:
	 * no subpicture event), a bit the protocol does not know is not.
	 */
	bad = raw_connect_version(NULL, 4);
	raw_player(bad, path);
	umms_video_player_v1_set_subtitles(bad->player, UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE |
		UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT);
	raw_wait_shows(bad, 2, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpint(wl_display_get_error(bad->display), ==, 0);
	g_assert_cmpuint(bad->subpictures, ==, 0);
	umms_video_player_v1_set_subtitles(bad->player, 0x4);
	while (raw_pump(bad, 10))
		;
	g_assert_cmpint(wl_display_get_error(bad->display), ==, EPROTO);
	g_assert_cmpuint(wl_display_get_protocol_error(bad->display, &iface, &id), ==,
		UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE);
	g_assert_cmpstr(iface->name, ==, "umms_video_player_v1");
	raw_free(bad);

	/* Garbage on the socket. */
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	g_strlcpy(address.sun_path, video_socket(), sizeof(address.sun_path));
	g_assert_cmpint(connect(fd, (struct sockaddr *)&address, sizeof(address)), ==, 0);
	/* A well-formed header for an object that does not exist, then noise. */
	static const uint32_t junk[] = { 99, 8u << 16, 0xdeadbeef, 0xffffffff };
	g_assert_cmpint(write(fd, junk, sizeof(junk)), ==, (ssize_t)sizeof(junk));
	char byte;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	g_assert_cmpint(poll(&pfd, 1, UMMS_TEST_TIMEOUT_MS), ==, 1);
	/* The server hung up (it may say why first). */
	while (read(fd, &byte, 1) > 0)
		;
	close(fd);

	/* The good client never noticed. */
	unsigned before = good->shows;
	raw_wait_shows(good, before + 10, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpint(wl_display_get_error(good->display), ==, 0);
	raw_free(good);
}

static void
test_eos(struct umms_test *t, gconstpointer data)
{
	struct raw_client *c = raw_connect(NULL);
	raw_player(c, NULL);
	open_play(t, c->path, "av.mp4");
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	while (!c->eos && g_get_monotonic_time() < end)
		g_assert_true(raw_pump(c, 20));
	g_assert_cmpuint(c->eos, ==, 1);
	/*
	 * Every one of the 75 frames was sent or counted dropped (a busy
	 * machine drops more; how many is bench/'s to measure).
	 */
	guint64 dropped = umms_test_stat(t->bus, c->path, "frames-dropped");
	g_test_message("%u frames shown, %" G_GUINT64_FORMAT " dropped", c->shows, dropped);
	g_assert_cmpuint(c->shows, >=, 1);
	g_assert_cmpuint(c->shows + dropped, >=, 73);
	raw_free(c);
}

#define XR24 FOURCC('X', 'R', '2', '4')
#define MOD_LINEAR 0ull
#define MOD_INVALID 0x00ffffffffffffffull
#define MOD_X_TILED 0x0100000000000001ull /* I915_FORMAT_MOD_X_TILED */

struct dmabuf_case {
	const char *what;
	uint64_t modifiers[3];   /* XRGB8888 with these the client imports, */
	int n;                   /* n of them (LINEAR is 0) */
	bool dmabuf;             /* frames come as dma-buf, not copied */
};

static const struct dmabuf_case dmabuf_cases[] = {
	{ "no dma-buf at all", { 0 }, 0, false },
	{ "XRGB8888 linear", { MOD_LINEAR }, 1, true },
	{ "XRGB8888 with the implicit modifier", { MOD_INVALID }, 1, true },
	{ "XRGB8888 X-tiled only", { MOD_X_TILED }, 1, false },
};

/* A client that imports what @c lists, on its own player playing dma-buf frames. */
static struct raw_client *
dmabuf_client(struct umms_test *t, const struct dmabuf_case *c, const char *attach_to)
{
	struct raw_client *client = raw_connect((const uint32_t[]){ 1, 0 });
	for (int i = 0; i < c->n; i++)
		umms_video_manager_v1_dmabuf_format(client->manager, XR24,
			(uint32_t)(c->modifiers[i] >> 32), (uint32_t)c->modifiers[i]);
	raw_player(client, attach_to);
	g_assert_nonnull(client->path);
	return client;
}

/* The last frame: its memory's kind and format, and its pixels (a memfd, or the source's). */
static void
assert_dmabuf_frame(struct raw_client *client, bool dmabuf, const char *what)
{
	struct raw_buffer *b = client->last;
	g_test_message("%s: %u shows in %u buffers, the last %s %.4s", what, client->shows,
		client->buffers->len, b->kind == UMMS_VIDEO_BUFFER_V1_KIND_DMABUF ? "dma-buf" :
		"memfd", b->format == 1 ? "XRGB" : (const char *)&b->format);
	g_assert_cmpuint(b->kind, ==, dmabuf ? UMMS_VIDEO_BUFFER_V1_KIND_DMABUF :
		UMMS_VIDEO_BUFFER_V1_KIND_MEMFD);
	g_assert_cmpuint(b->format, ==, dmabuf ? XR24 : 1 /* WL_SHM_FORMAT_XRGB8888 */);
	g_assert_cmpint(b->n_planes, ==, 1);
	/* Both are memfds here: the pixels are the source's either way. */
	assert_color(raw_pixel(b, 0, 0), UMMS_TEST_DMABUF_RGB);
	assert_color(raw_pixel(b, UMMS_TEST_DMABUF_W - 1, UMMS_TEST_DMABUF_H - 1),
		UMMS_TEST_DMABUF_RGB);
}

static void
test_dmabuf_choice(struct umms_test *t, gconstpointer data)
{
	/*
	 * The source comes from the tests' plugin (GST_PLUGIN_PATH): it plays
	 * in the player's engine worker, its memfds cross to ummsd as dma-bufs.
	 */
	for (size_t i = 0; i < G_N_ELEMENTS(dmabuf_cases); i++) {
		const struct dmabuf_case *c = &dmabuf_cases[i];
		struct raw_client *client = dmabuf_client(t, c, NULL);
		umms_test_player_do(t->bus, client->path, "SetUri",
			g_variant_new("(s)", UMMS_TEST_DMABUF_URI));
		umms_test_player_do(t->bus, client->path, "Play", NULL);
		raw_wait_shows(client, 5, 10000);
		assert_dmabuf_frame(client, c->dmabuf, c->what);
		/*
		 * Copies counted by ummsd: one a frame sent, none when sent as they
		 * are. The engine's counters come with the worker's status, up to
		 * a status period after the frames: read until they catch up.
		 */
		guint64 copies = 0, dmabuf = 0;
		for (int tries = 0; tries < 40; tries++) {
			copies = umms_test_stat(t->bus, client->path, "copies");
			dmabuf = umms_test_stat(t->bus, client->path, "frames-dmabuf");
			if ((c->dmabuf ? dmabuf : copies) >= client->shows)
				break;
			umms_test_sleep(50);
		}
		g_test_message("%s: copies %" G_GUINT64_FORMAT ", frames as dma-buf %"
			G_GUINT64_FORMAT, c->what, copies, dmabuf);
		if (c->dmabuf) {
			g_assert_cmpuint(copies, ==, 0);
			g_assert_cmpuint(dmabuf, >=, client->shows);
		} else {
			g_assert_cmpuint(copies, >=, client->shows);
			g_assert_cmpuint(dmabuf, ==, 0);
		}
		raw_free(client);
	}

	/*
	 * Two clients on one player, one importing linear XRGB8888, one
	 * nothing: frames for both in shared memory. When the second leaves,
	 * the first gets dma-bufs again.
	 */
	struct raw_client *first = dmabuf_client(t, &dmabuf_cases[1], NULL);
	umms_test_player_do(t->bus, first->path, "SetUri",
		g_variant_new("(s)", UMMS_TEST_DMABUF_URI));
	umms_test_player_do(t->bus, first->path, "Play", NULL);
	raw_wait_shows(first, 3, 10000);
	assert_dmabuf_frame(first, true, "alone");
	struct raw_client *second = dmabuf_client(t, &dmabuf_cases[0], first->path);
	raw_wait_shows(second, 3, 10000);
	raw_wait_shows(first, first->shows + 3, 10000);
	assert_dmabuf_frame(second, false, "the second, with the first");
	assert_dmabuf_frame(first, false, "the first, with the second");
	raw_free(second);
	/* Frames already on their way were made for two: a few more, then dma-buf. */
	raw_wait_shows(first, first->shows + 8, 10000);
	assert_dmabuf_frame(first, true, "the first, alone again");
	raw_free(first);
}

/* Pumps until @c is shown a frame of @width x @height (and told so: geometry), or fails. */
static void
wait_size(struct raw_client *c, int width, int height, const char *what)
{
	int64_t deadline = g_get_monotonic_time() + UMMS_TEST_TIMEOUT_MS * 1000;
	while (c->geometry[0] != width || c->geometry[1] != height || !c->last ||
			c->last->width != width || c->last->height != height) {
		if (g_get_monotonic_time() > deadline)
			g_error("%s: frames %dx%d, not %dx%d", what, c->geometry[0], c->geometry[1],
				width, height);
		raw_pump(c, 10);
	}
	/* The picture's whole shape, in square pixels, in a buffer that size. */
	const int want[8] = { width, height, 0, 0, width, height, 1, 1 };
	g_assert_cmpmem(c->geometry, sizeof(want), want, sizeof(want));
}

/*
 * Version 6: a client showing the video small gets small frames (the
 * largest any of its player's clients asked for; the picture's own size
 * when one asked none), in its shape, made again while paused.
 */
static void
test_set_size(struct umms_test *t, gconstpointer data)
{
	struct raw_client *c = raw_connect_version((const uint32_t[]){ 1, 0 }, 6);
	raw_player(c, NULL);
	umms_video_player_v1_set_size(c->player, 80, 80);
	wl_display_flush(c->display);
	open_play(t, c->path, "colors.mkv");
	/* colors.mkv: 320x240, red for its first second. */
	wait_size(c, 80, 60, "asked 80x80");
	assert_color(raw_pixel(c->last, 40, 30), 0xff0000);
	assert_color(raw_pixel(c->last, 2, 2), 0xff0000);

	/* A second client that asked nothing: both get the picture's size. */
	struct raw_client *other = raw_connect_version((const uint32_t[]){ 1, 0 }, 6);
	raw_player(other, c->path);
	wait_size(c, 320, 240, "with a client that asked none");
	wait_size(other, 320, 240, "the client that asked none");
	/* It asks 160x160 too: the larger of the two, for both. */
	umms_video_player_v1_set_size(other->player, 160, 160);
	wl_display_flush(other->display);
	wait_size(c, 160, 120, "the larger of 80 and 160");
	wait_size(other, 160, 120, "the larger, for the other");
	/* Larger than the picture: the picture's size, never more. */
	umms_video_player_v1_set_size(other->player, 4000, 4000);
	wl_display_flush(other->display);
	wait_size(c, 320, 240, "asked more than the picture");
	raw_free(other);
	wait_size(c, 80, 60, "alone again");

	/* Paused, the picture is made again at the new size. */
	umms_test_player_do(t->bus, c->path, "Pause", NULL);
	raw_pump(c, 200);
	umms_video_player_v1_set_size(c->player, 40, 40);
	wl_display_flush(c->display);
	wait_size(c, 40, 30, "paused");
	umms_video_player_v1_set_size(c->player, 0, 0);
	wl_display_flush(c->display);
	wait_size(c, 320, 240, "0x0: the picture's own size");

	/* Non-square pixels come square: 352x288 at 12/11 is 384x288 in shape. */
	umms_video_player_v1_set_size(c->player, 200, 200);
	wl_display_flush(c->display);
	open_play(t, c->path, "anamorphic.mkv");
	wait_size(c, 200, 150, "anamorphic");

	/* Sizes below 0 or past 65536 are errors; the service goes on. */
	umms_video_player_v1_set_size(c->player, -1, 90);
	wl_display_flush(c->display);
	while (raw_pump(c, 10))
		;
	const struct wl_interface *iface;
	uint32_t id;
	g_assert_cmpint(wl_display_get_error(c->display), ==, EPROTO);
	g_assert_cmpuint(wl_display_get_protocol_error(c->display, &iface, &id), ==,
		UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE);
	raw_free(c);
	struct raw_client *big = raw_connect_version(NULL, 6);
	raw_player(big, NULL);
	umms_video_player_v1_set_size(big->player, 10, 70000);
	wl_display_flush(big->display);
	while (raw_pump(big, 10))
		;
	g_assert_cmpuint(wl_display_get_protocol_error(big->display, &iface, &id), ==,
		UMMS_VIDEO_PLAYER_V1_ERROR_BAD_VALUE);
	raw_free(big);
	struct raw_client *after = raw_connect(NULL);
	raw_player(after, NULL);
	open_play(t, after->path, "colors.mkv");
	raw_wait_shows(after, 3, UMMS_TEST_TIMEOUT_MS);
	raw_free(after);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/video/frames", test_frames);
	UMMS_TEST_ADD("/video/format-choice", test_format_choice);
	UMMS_TEST_ADD("/video/geometry-par", test_geometry_par);
	UMMS_TEST_ADD("/video/preroll-due", test_preroll_due);
	UMMS_TEST_ADD("/video/feedback", test_feedback);
	UMMS_TEST_ADD("/video/attach", test_attach);
	UMMS_TEST_ADD("/video/owned-player", test_owned_player);
	UMMS_TEST_ADD("/video/slow-client", test_slow_client);
	UMMS_TEST_ADD("/video/protocol-errors", test_protocol_errors);
	UMMS_TEST_ADD("/video/eos", test_eos);
	UMMS_TEST_ADD("/video/dmabuf-choice", test_dmabuf_choice);
	UMMS_TEST_ADD("/video/set-size", test_set_size);
	return g_test_run();
}
