/*
 * Churn and back-pressure (issue 15): clients that come and go by the
 * thousand leave nothing behind in ummsd, and a client that never gives
 * frames back slows nobody else.
 *
 * /churn/dbus: 500 D-Bus clients that each create a player and vanish
 * without destroying it: their players go, and so do the descriptors.
 *
 * /churn/wayland: 1,000 connections to ummsd's socket (the video manager
 * and, on the headless screen, the compositor's globals), each attached to
 * a playing player until frames (buffers with their fds) have come, with a
 * surface and a wl_shm pool of its own; half leave cleanly (everything
 * released and destroyed), half just close the socket, some of those with
 * frames held, some with a player of their own made over Wayland.
 *
 * Both measure on this process, which hosts ummsd (harness.h): open fds
 * must come back within FD_SLACK of a baseline taken after WARMUP rounds
 * (one-time allocations, pools and threads settled), resident memory
 * (/proc/self/statm; under ASan the heap in use, see memory_kib()) within
 * RSS_SLACK_KIB, and a new client must be served.
 *
 * /churn/back-pressure: two clients watch one playing player; A never
 * releases a frame, B releases each at once. A gets [video]
 * max-held-frames shows and no more (nothing queues for it, ummsd's memory
 * and fds stay put); B gets at least 95% of the frames the engine
 * presented meanwhile, and of what 25 fps makes in that time.
 *
 * The raw video client is video-raw.c.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include "harness.h"
#include "video-raw.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifdef UNDER_ASAN
/* From compiler-rt's sanitizer/allocator_interface.h, which GCC does not install. */
void __sanitizer_purge_allocator(void);
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#define WARMUP 50
#define WL_CYCLES 1000
#define DBUS_CLIENTS 500
/* Wayland clients connected at once: one frame period serves them all. */
#define BATCH 10
#define FD_SLACK 2
#define RSS_SLACK_KIB (5 * 1024)
/* Frame buffers the engine's pool may add after the warm-up, at most. */
#define POOL_GROWTH_MAX 8
/* long.mkv lasts 20 s: the churn seeks back before its end. */
#define REWIND_AFTER US(15)
#define MAX_HELD 5
#define FPS 25
#define WINDOW_MS 4000

/*
 * Memory of this process (ummsd's included), KiB: resident (statm); under
 * AddressSanitizer, the heap in use instead. There RSS says little: freed
 * memory waits in the quarantine, and the allocator's caches and the
 * stack depot grow on their own (+17 to +24 MB over the D-Bus churn with
 * the heap in use unchanged); it is printed, not asserted.
 */
static long
memory_kib(void)
{
	g_autofree char *statm = NULL;
	g_assert_true(g_file_get_contents("/proc/self/statm", &statm, NULL, NULL));
	unsigned long size = 0, resident = 0;
	g_assert_cmpint(sscanf(statm, "%lu %lu", &size, &resident), ==, 2);
	long rss = (long)(resident * (unsigned long)sysconf(_SC_PAGESIZE) / 1024);
#ifdef UNDER_ASAN
	__sanitizer_purge_allocator();
	g_test_message("RSS %ld KiB (not asserted under ASan)", rss);
	return (long)(__sanitizer_get_current_allocated_bytes() / 1024);
#else
	return rss;
#endif
}

#ifdef UNDER_ASAN
#define MEMORY "heap in use"
#else
#define MEMORY "RSS"
#endif

/* What this process's fds are ("3:socket:[123] 4:/memfd:x ..."), for a failure's message. */
static char *
fd_names(void)
{
	GString *names = g_string_new(NULL);
	GDir *dir = g_dir_open("/proc/self/fd", 0, NULL);
	g_assert_nonnull(dir);
	const char *name;
	while ((name = g_dir_read_name(dir))) {
		g_autofree char *link = g_build_filename("/proc/self/fd", name, NULL);
		g_autofree char *target = g_file_read_link(link, NULL);
		g_string_append_printf(names, "%s%s:%s", names->len ? " " : "", name,
			target ? target : "?");
	}
	g_dir_close(dir);
	return g_string_free(names, FALSE);
}

static void
assert_within(const char *what, unsigned fds, unsigned fds_now, long rss, long rss_now)
{
	if (fds_now > fds + FD_SLACK || fds_now + FD_SLACK < fds) {
		g_autofree char *names = fd_names();
		g_test_message("%s: fds now %s", what, names);
	}
	g_assert_cmpuint(fds_now, <=, fds + FD_SLACK);
	g_assert_cmpuint(fds_now + FD_SLACK, >=, fds);
	if (rss_now - rss > RSS_SLACK_KIB)
		g_error("%s: " MEMORY " grew by %ld KiB (limit %d)", what, rss_now - rss,
			RSS_SLACK_KIB);
}

static void pump_all(struct raw_client **clients, unsigned n, unsigned ms);

/*
 * New frame memory the engine took since @keeper had @buffers: each piece
 * is one fd in ummsd and one in @keeper (which is sent every frame).
 */
static unsigned
pool_growth(struct raw_client *keeper, unsigned buffers)
{
	return keeper ? 2 * (keeper->buffers->len - buffers) : 0;
}

/*
 * Until ummsd has seen every client go: no more than @players players, fds
 * back within FD_SLACK of @fds (0: not yet known; plus the pool's growth
 * since @keeper had @buffers), then no change in fds for 300 ms; 20 s at
 * most. @keeper, if any, is served meanwhile.
 */
static void
settle(struct umms_test *t, struct raw_client *keeper, unsigned buffers, unsigned fds,
	unsigned players)
{
	gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	unsigned last = 0, same = 0;
	while (g_get_monotonic_time() < end) {
		unsigned now = umms_test_fd_count();
		same = now == last ? same + 1 : 0;
		last = now;
		if (umms_test_player_count(t->bus) <= players && same >= 6 &&
				(!fds || now <= fds + pool_growth(keeper, buffers) + FD_SLACK))
			break;
		if (keeper)
			pump_all(&keeper, 1, 50);
		else
			umms_test_sleep(50);
	}
}

/* ---- D-Bus ---------------------------------------------------------------- */

static void
dbus_client(void)
{
	GDBusConnection *bus = umms_test_connect();
	g_autofree char *path = umms_test_create_player(bus, NULL);
	/* Gone without a word: no DestroyPlayer. */
	g_dbus_connection_close_sync(bus, NULL, NULL);
	g_object_unref(bus);
}

static void
test_dbus(struct umms_test *t, gconstpointer data)
{
	for (int i = 0; i < WARMUP; i++)
		dbus_client();
	settle(t, NULL, 0, 0, 0);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);
	unsigned fds = umms_test_fd_count();
	long rss = memory_kib();

	gint64 start = g_get_monotonic_time();
	for (int i = 0; i < DBUS_CLIENTS; i++)
		dbus_client();
	double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	settle(t, NULL, 0, fds, 0);

	/* Every vanished client's player is gone, with its descriptors and memory. */
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);
	unsigned fds_now = umms_test_fd_count();
	long rss_now = memory_kib();
	g_test_message("%d D-Bus clients in %.1f s; fds %u -> %u; " MEMORY " %ld -> %ld KiB (%+ld)",
		DBUS_CLIENTS, seconds, fds, fds_now, rss, rss_now, rss_now - rss);
	assert_within("D-Bus churn", fds, fds_now, rss, rss_now);

	/* And the next client is served as before. */
	g_autofree char *p = umms_test_open(t->bus, "av.mp4");
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.2), false, 10000);
}

/* ---- Several video clients at once ------------------------------------------ */

/* Reads what arrives for any of @clients for @ms (at least once); none may fail. */
static void
pump_all(struct raw_client **clients, unsigned n, unsigned ms)
{
	g_assert_cmpuint(n, <=, BATCH + 1);
	struct pollfd pfd[BATCH + 1];
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	do {
		while (g_main_context_iteration(NULL, FALSE))
			;
		for (unsigned i = 0; i < n; i++) {
			struct wl_display *display = clients[i]->display;
			while (wl_display_prepare_read(display) != 0)
				g_assert_cmpint(wl_display_dispatch_pending(display), >=, 0);
			wl_display_flush(display);
			pfd[i] = (struct pollfd){ .fd = wl_display_get_fd(display),
				.events = POLLIN };
		}
		int ready = poll(pfd, n, 5);
		for (unsigned i = 0; i < n; i++) {
			struct wl_display *display = clients[i]->display;
			if (ready > 0 && pfd[i].revents) {
				if (wl_display_read_events(display) < 0)
					g_error("client %u: %s", i, g_strerror(wl_display_get_error(
						display)));
			} else {
				wl_display_cancel_read(display);
			}
			g_assert_cmpint(wl_display_dispatch_pending(display), >=, 0);
		}
	} while (g_get_monotonic_time() < end);
}

/* ---- Wayland churn -------------------------------------------------------------- */

/* One connection of the churn: a video client with a surface of its own. */
struct churner {
	struct raw_client *c;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_surface *surface;
	struct wl_shm_pool *pool;
	struct wl_buffer *buffer;
	struct umms_video_player_v1 *owned;  /* a player made over Wayland, some rounds */
	unsigned want;                       /* shows before it leaves */
	bool clean;
};

static void
global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct churner *ch = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		ch->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		ch->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
}

static void
global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

/*
 * Round @round: connects, binds the globals, attaches to @path and draws a
 * 16x16 wl_shm buffer into a surface (its memfd passed to ummsd).
 */
static struct churner *
churner_new(const char *path, unsigned round)
{
	struct churner *ch = g_new0(struct churner, 1);
	ch->c = raw_connect(NULL);
	struct wl_registry *registry = wl_display_get_registry(ch->c->display);
	wl_registry_add_listener(registry, &registry_listener, ch);
	g_assert_cmpint(wl_display_roundtrip(ch->c->display), >=, 0);
	wl_registry_destroy(registry);
	g_assert_nonnull(ch->compositor);
	g_assert_nonnull(ch->shm);

	/* Odd rounds just close the socket, every other one of them holding frames. */
	ch->clean = round % 2 == 0;
	ch->c->auto_release = round % 4 != 1;
	ch->want = ch->c->auto_release ? 1 : 2;
	if (round % 25 <= 1)
		ch->owned = umms_video_manager_v1_create_player(ch->c->manager);
	raw_player(ch->c, path);
	g_assert_cmpstr(ch->c->path, ==, path);

	ch->surface = wl_compositor_create_surface(ch->compositor);
	int fd = memfd_create("churn", MFD_CLOEXEC);
	g_assert_cmpint(fd, >=, 0);
	g_assert_cmpint(ftruncate(fd, 16 * 16 * 4), ==, 0);
	ch->pool = wl_shm_create_pool(ch->shm, fd, 16 * 16 * 4);
	close(fd);
	ch->buffer = wl_shm_pool_create_buffer(ch->pool, 0, 16, 16, 16 * 4,
		WL_SHM_FORMAT_XRGB8888);
	wl_surface_attach(ch->surface, ch->buffer, 0, 0);
	wl_surface_commit(ch->surface);
	return ch;
}

/* Leaves as a careful client does: releases and destroys all it has, waits for the server. */
static void
churner_leave_clean(struct churner *ch)
{
	struct raw_client *c = ch->c;
	for (guint i = 0; i < c->buffers->len; i++) {
		struct raw_buffer *b = c->buffers->pdata[i];
		for (; b->held > 0; b->held--)
			umms_video_buffer_v1_release(b->proxy);
	}
	c->last = NULL;
	umms_video_player_v1_destroy(c->player);
	c->player = NULL;
	if (ch->owned)
		umms_video_player_v1_destroy(ch->owned);
	ch->owned = NULL;
	umms_video_manager_v1_destroy(c->manager);
	c->manager = NULL;
	wl_buffer_destroy(ch->buffer);
	wl_shm_pool_destroy(ch->pool);
	wl_surface_destroy(ch->surface);
	ch->buffer = NULL;
	ch->pool = NULL;
	ch->surface = NULL;
	g_assert_cmpint(wl_display_roundtrip(c->display), >=, 0);
	/* Buffers announced meanwhile are forgotten too. */
	for (guint i = 0; i < c->buffers->len; i++) {
		struct raw_buffer *b = c->buffers->pdata[i];
		umms_video_buffer_v1_destroy(b->proxy);
		b->proxy = NULL;
	}
	g_assert_cmpint(wl_display_roundtrip(c->display), >=, 0);
}

/* Frees the client side; unless it left cleanly, the server sees only the socket close. */
static void
churner_free(struct churner *ch)
{
	void *proxies[] = { ch->buffer, ch->pool, ch->surface, ch->owned, ch->compositor, ch->shm };
	for (size_t i = 0; i < G_N_ELEMENTS(proxies); i++) {
		if (proxies[i])
			wl_proxy_destroy(proxies[i]);
	}
	raw_free(ch->c);
	g_free(ch);
}

/* Rounds @first to @first + @n - 1, BATCH at a time; the keeper watches all along. */
static void
churn(struct umms_test *t, const char *path, struct raw_client *keeper, unsigned first,
	unsigned n)
{
	for (unsigned done = 0; done < n;) {
		if (umms_test_get_int64(t->bus, path, "Position") > REWIND_AFTER)
			umms_test_player_do(t->bus, path, "SetPosition", g_variant_new("(x)", 0));
		struct churner *batch[BATCH];
		struct raw_client *clients[BATCH + 1] = { keeper };
		unsigned k = MIN(BATCH, n - done);
		for (unsigned i = 0; i < k; i++) {
			batch[i] = churner_new(path, first + done + i);
			clients[i + 1] = batch[i]->c;
		}
		/* Each gets its frames: buffers with their fds, shows. */
		gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
		for (unsigned i = 0; i < k;) {
			if (batch[i]->c->shows >= batch[i]->want) {
				i++;
				continue;
			}
			if (g_get_monotonic_time() > end)
				g_error("round %u: %u of %u frames", first + done + i,
					batch[i]->c->shows, batch[i]->want);
			pump_all(clients, k + 1, 0);
		}
		for (unsigned i = 0; i < k; i++) {
			if (batch[i]->clean)
				churner_leave_clean(batch[i]);
			churner_free(batch[i]);
		}
		done += k;
	}
}

static void
test_wayland(struct umms_test *t, gconstpointer data)
{
	/* The headless screen, so that the socket serves the compositor's globals too. */
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", "display.mode=320x180", "display.compositor=true",
		"display.input=false", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *path = umms_test_open(t->bus, "long.mkv");
	umms_test_player_do(t->bus, path, "Play", NULL);
	/* Watches all along: the engine's output stays as it is. */
	struct raw_client *keeper = raw_connect(NULL);
	raw_player(keeper, path);
	raw_wait_shows(keeper, 3, UMMS_TEST_TIMEOUT_MS);

	churn(t, path, keeper, 0, WARMUP);
	settle(t, keeper, 0, 0, 1);
	unsigned fds = umms_test_fd_count();
	long rss = memory_kib();
	unsigned keeper_shows = keeper->shows, buffers = keeper->buffers->len;

	gint64 start = g_get_monotonic_time();
	churn(t, path, keeper, WARMUP, WL_CYCLES);
	double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	settle(t, keeper, buffers, fds, 1);

	/* Players made over Wayland went with their clients; fds and memory came back. */
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);
	unsigned fds_now = umms_test_fd_count();
	long rss_now = memory_kib();
	g_test_message("%d Wayland clients in %.1f s (keeper shown %u frames); fds %u -> %u, "
		"of which frame memory %u -> %u (x2); " MEMORY " %ld -> %ld KiB (%+ld)", WL_CYCLES,
		seconds, keeper->shows - keeper_shows, fds, fds_now, buffers, keeper->buffers->len,
		rss, rss_now, rss_now - rss);
	/*
	 * The engine's frame pool may reach a higher mark than in the warm-up
	 * (more frames held at once): a few buffers, not one per client. Its
	 * buffers stay (GstBufferPool keeps what it made), as do the keeper's.
	 */
	g_assert_cmpuint(keeper->buffers->len, <=, buffers + POOL_GROWTH_MAX);
	assert_within("Wayland churn", fds + pool_growth(keeper, buffers), fds_now, rss, rss_now);

	/* A newcomer gets frames (played from the start again: the clip may have ended). */
	umms_test_player_do(t->bus, path, "SetPosition", g_variant_new("(x)", 0));
	umms_test_player_do(t->bus, path, "Play", NULL);
	struct raw_client *late = raw_connect(NULL);
	raw_player(late, path);
	g_assert_cmpstr(late->path, ==, path);
	raw_wait_shows(late, 10, UMMS_TEST_TIMEOUT_MS);
	raw_free(late);
	raw_free(keeper);
}

/* ---- Back-pressure ------------------------------------------------------------- */

static guint64
stat_of(struct umms_test *t, const char *path, const char *key)
{
	return umms_test_stat(t->bus, path, key);
}

static void
test_back_pressure(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "video.max-held-frames=" G_STRINGIFY(MAX_HELD), NULL };
	umms_test_restart(t, overrides);
	g_autofree char *path = umms_test_open(t->bus, "long.mkv");
	/* A never releases a frame; B releases each as the next comes. */
	struct raw_client *a = raw_connect(NULL);
	a->auto_release = false;
	raw_player(a, path);
	struct raw_client *b = raw_connect(NULL);
	raw_player(b, path);
	struct raw_client *both[] = { a, b };
	umms_test_player_do(t->bus, path, "Play", NULL);

	/* A is at its limit, and has been for a while. */
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	while (a->shows < MAX_HELD || b->shows < MAX_HELD + 10) {
		if (g_get_monotonic_time() > end)
			g_error("A got %u frames, B %u", a->shows, b->shows);
		pump_all(both, 2, 10);
	}
	pump_all(both, 2, 1000);
	unsigned fds = umms_test_fd_count();
	long rss = memory_kib();
	guint64 presented = stat_of(t, path, "frames-presented");
	guint64 discarded = stat_of(t, path, "frames-discarded");
	unsigned b_shows = b->shows, buffers = b->buffers->len;
	gint64 start = g_get_monotonic_time();

	pump_all(both, 2, WINDOW_MS);

	unsigned b_got = b->shows - b_shows;
	guint64 engine = stat_of(t, path, "frames-presented") - presented;
	double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	guint64 a_missed = stat_of(t, path, "frames-discarded") - discarded;
	unsigned fds_now = umms_test_fd_count();
	long rss_now = memory_kib();
	g_test_message("%.1f s: engine presented %" G_GUINT64_FORMAT ", B shown %u, A shown %u "
		"in all and missed %" G_GUINT64_FORMAT "; fds %u -> %u, of which B's buffers "
		"%u -> %u (x2); " MEMORY " %ld -> %ld KiB (%+ld)", seconds, engine, b_got,
		a->shows, a_missed, fds, fds_now, buffers, b->buffers->len, rss, rss_now,
		rss_now - rss);

	/* A: throttled at its limit, still connected; what it missed is counted. */
	g_assert_cmpuint(a->shows, ==, MAX_HELD);
	g_assert_cmpint(wl_display_get_error(a->display), ==, 0);
	g_assert_cmpuint(a_missed + 2, >=, engine);
	/* B: unhindered. */
	g_assert_cmpuint(b_got * 100, >=, engine * 95);
	g_assert_cmpfloat(b_got, >=, 0.95 * seconds * FPS);
	/* Nothing queued up for A in ummsd (B is sent any new frame memory: see pool_growth()). */
	g_assert_cmpuint(b->buffers->len, <=, buffers + POOL_GROWTH_MAX);
	assert_within("back-pressure", fds + pool_growth(b, buffers), fds_now, rss, rss_now);

	/* A gives its frames back: it is sent frames again. */
	for (guint i = 0; i < a->buffers->len; i++) {
		struct raw_buffer *buffer = a->buffers->pdata[i];
		for (; buffer->held > 0; buffer->held--)
			umms_video_buffer_v1_release(buffer->proxy);
	}
	a->last = NULL;
	a->auto_release = true;
	end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	while (a->shows < MAX_HELD + 10) {
		if (g_get_monotonic_time() > end)
			g_error("A got %u frames after releasing", a->shows - MAX_HELD);
		pump_all(both, 2, 10);
	}
	raw_free(a);
	raw_free(b);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/churn/dbus", test_dbus);
	UMMS_TEST_ADD("/churn/wayland", test_wayland);
	UMMS_TEST_ADD("/churn/back-pressure", test_back_pressure);
	return g_test_run();
}
