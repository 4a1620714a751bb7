/*
 * Parental control's enforcement through ummsd (issue 18): channels from an
 * M3U and programmes with ratings from an XMLTV the test writes, the
 * policy set over org.umms.Parental1 (threshold age 12), players opened
 * over Player1. What a user checks: Blocked and ContentBlocked, and that
 * no video frame left the engine (Stats frames-presented) and no audio
 * byte reached the sink (Stats audio-buffers, audio-bytes) while the
 * clock runs (Position moves); Unlock lets data flow; the next 18-rated
 * programme blocks again at its start (the delay is logged); a locked
 * channel reached by its URL; block-unrated on a channel and not on a
 * file of one's own; a recording of an 18-rated programme played back.
 */
#include <string.h>

#include <gst/gst.h>

#include "eit-gen.h"
#include "eit-live.h"
#include "harness.h"
#include "image.h"
#include "video-raw.h"
#include "xmltv.h"

#define GUIDE "org.umms.Guide1"
#define PARENTAL "org.umms.Parental1"
#define S ((int64_t)G_USEC_PER_SEC)

struct programme {
	const char *channel;
	int64_t start, stop;     /* µs, whole seconds */
	const char *title;
	const char *fsk;         /* FSK rating, NULL: unrated */
};

/*
 * A service of its own database; channels "film" (long.mkv), "locked"
 * (av.mkv) and "plain" (av.ts) from an M3U; @programmes from an XMLTV.
 */
static void
fresh_with(struct umms_test *t, const char *name, const struct programme *programmes, size_t n,
	const char *extra_uri, const char *const *extra)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	g_autoptr(GPtrArray) overrides = g_ptr_array_new();
	g_ptr_array_add(overrides, db);
	for (const char *const *e = extra; e && *e; e++)
		g_ptr_array_add(overrides, (char *)*e);
	g_ptr_array_add(overrides, NULL);
	umms_test_restart(t, (const char *const *)overrides->pdata);

	g_autofree char *film = umms_test_clip_uri("long.mkv");
	g_autofree char *locked = umms_test_clip_uri("av.mkv");
	g_autofree char *plain = umms_test_clip_uri("av.ts");
	g_autofree char *m3u = g_strdup_printf("%s/%s.m3u", umms_test_tmpdir(), name);
	g_autofree char *m3u_text = g_strdup_printf("#EXTM3U\n"
		"#EXTINF:-1 tvg-id=\"film\",Film\n%s\n"
		"#EXTINF:-1 tvg-id=\"locked\",Locked\n%s\n"
		"#EXTINF:-1 tvg-id=\"plain\",Plain\n%s\n"
		"#EXTINF:-1 tvg-id=\"live\",Live\n%s\n", film, locked, plain,
		extra_uri ? extra_uri : "udp://127.0.0.1:9");
	g_assert_true(g_file_set_contents(m3u, m3u_text, -1, NULL));
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ImportM3U",
		g_variant_new("(s)", m3u)));

	static const char *const channels[] = { "film", "Film", "locked", "Locked", "plain", "Plain",
		"live", "Live", NULL };
	GString *xml = umms_test_xmltv_begin(channels);
	for (size_t i = 0; i < n; i++) {
		g_autofree char *rating = programmes[i].fsk ? g_strdup_printf(
			"<rating system=\"FSK\"><value>%s</value></rating>", programmes[i].fsk) : NULL;
		umms_test_xmltv_programme(xml, programmes[i].channel, programmes[i].start,
			programmes[i].stop, programmes[i].title, rating);
	}
	g_autofree char *file = umms_test_xmltv_finish(xml, name);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ImportXMLTV",
		g_variant_new("(s)", file)));

	/* No PIN set: any PIN is right. */
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "SetEnabled",
		g_variant_new("(sb)", "", TRUE)));
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "SetThreshold",
		g_variant_new("(ssi)", "", "age", 12)));
}

static void
fresh(struct umms_test *t, const char *name, const struct programme *programmes, size_t n)
{
	fresh_with(t, name, programmes, n, NULL, NULL);
}

static int64_t
channel_id(struct umms_test *t, const char *name)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ListChannels", NULL);
	g_autoptr(GVariant) channels = g_variant_get_child_value(r, 0);
	for (gsize i = 0; i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) c = g_variant_get_child_value(channels, i);
		const char *n;
		int64_t id;
		if (g_variant_lookup(c, "name", "&s", &n) && strcmp(n, name) == 0 &&
				g_variant_lookup(c, "id", "x", &id))
			return id;
	}
	g_error("no channel %s", name);
}

/* What left the engine so far. */
struct flow {
	guint64 frames, audio_buffers, audio_bytes;
};

static struct flow
flow_now(struct umms_test *t, const char *player)
{
	/* One reading of Stats: the three counts of the same moment. */
	g_autoptr(GVariant) stats = umms_test_get(t->bus, player, UMMS_PLAYER, "Stats");
	struct flow f = { 0 };
	g_assert_true(g_variant_lookup(stats, "frames-presented", "t", &f.frames));
	g_assert_true(g_variant_lookup(stats, "audio-buffers", "t", &f.audio_buffers));
	g_assert_true(g_variant_lookup(stats, "audio-bytes", "t", &f.audio_bytes));
	g_test_message("%s: frames-presented %" G_GUINT64_FORMAT ", audio-buffers %"
		G_GUINT64_FORMAT ", audio-bytes %" G_GUINT64_FORMAT, player, f.frames,
		f.audio_buffers, f.audio_bytes);
	return f;
}

/* Video and sound both come through within @ms. */
static void
wait_flowing(struct umms_test *t, const char *player, struct flow since, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	for (;;) {
		struct flow f = flow_now(t, player);
		if (f.frames > since.frames && f.audio_bytes > since.audio_bytes)
			return;
		if (g_get_monotonic_time() > end)
			g_error("%s: no frame or no audio within %u ms of being allowed", player, ms);
		umms_test_sleep(100);
	}
}

/* Blocked: ContentBlocked(@reason, …) comes within @ms; Blocked says so. */
static void
wait_blocked(struct umms_test *t, struct umms_test_signals *signals, const char *player,
	const char *reason, unsigned ms)
{
	g_autoptr(GVariant) params = umms_test_signals_wait(signals, "ContentBlocked", ms);
	const char *got_reason, *rating;
	g_variant_get(params, "(&s&s)", &got_reason, &rating);
	g_test_message("%s: ContentBlocked(%s, %s)", player, got_reason, rating);
	g_assert_cmpstr(got_reason, ==, reason);
	g_assert_true(umms_test_get_bool(t->bus, player, "Blocked"));
	g_autofree char *property = umms_test_get_string(t->bus, player, "BlockReason");
	g_assert_cmpstr(property, ==, reason);
}

/* Plays on for @ms while nothing leaves: the clock moves, the counts stand. */
static void
assert_nothing_leaves(struct umms_test *t, const char *player, unsigned ms)
{
	struct flow before = flow_now(t, player);
	int64_t from = umms_test_get_int64(t->bus, player, "Position");
	umms_test_sleep(ms);
	struct flow after = flow_now(t, player);
	int64_t to = umms_test_get_int64(t->bus, player, "Position");
	g_test_message("%s: position %" G_GINT64_FORMAT " → %" G_GINT64_FORMAT " µs while blocked",
		player, from, to);
	g_assert_cmpint(to - from, >, (int64_t)ms * 1000 / 2);
	g_assert_cmpuint(after.frames, ==, before.frames);
	g_assert_cmpuint(after.audio_buffers, ==, before.audio_buffers);
	g_assert_cmpuint(after.audio_bytes, ==, before.audio_bytes);
}

/*
 * Threshold 12, the film channel's programme now FSK 18: blocked from
 * SetUri, nothing out while it plays; Unlock (programme) lets it flow; an
 * FSK 0 programme next stays allowed; the FSK 18 one after blocks at its
 * start.
 */
static void
test_rating(struct umms_test *t, gconstpointer data)
{
	int64_t now = g_get_real_time() / S * S;
	int64_t allowed_at = now + 9 * S, blocked_at = now + 13 * S;
	const struct programme programmes[] = {
		{ "film", now - 60 * S, allowed_at, "Night Film", "18" },
		{ "film", allowed_at, blocked_at, "Cartoons", "0" },
		{ "film", blocked_at, now + 3600 * S, "Late Film", "18" },
	};
	fresh(t, "parental-rating", programmes, G_N_ELEMENTS(programmes));

	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	wait_blocked(t, signals, player, "rating", 2000);
	g_autofree char *rating = umms_test_get_string(t->bus, player, "BlockRating");
	g_assert_nonnull(strstr(rating, "18"));

	/* Play changes nothing: the clock runs, nothing leaves from the first buffer on. */
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_position(t->bus, player, 1500 * 1000, false, 10000);
	g_assert_true(umms_test_get_bool(t->bus, player, "Blocked"));
	struct flow blocked = flow_now(t, player);
	g_assert_cmpuint(blocked.frames, ==, 0);
	g_assert_cmpuint(blocked.audio_buffers, ==, 0);
	g_assert_cmpuint(blocked.audio_bytes, ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "frames-decoded"), >, 0);
	assert_nothing_leaves(t, player, 1000);

	/* The right PIN (none set: any), scope programme. */
	umms_test_signals_clear(signals);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "Unlock",
		g_variant_new("(ossu)", player, "", "programme", 0)));
	g_variant_unref(umms_test_signals_wait(signals, "ContentAllowed", 2000));
	g_assert_false(umms_test_get_bool(t->bus, player, "Blocked"));
	wait_flowing(t, player, flow_now(t, player), 3000);

	/* The FSK 0 programme: still allowed once it began. */
	while (g_get_real_time() < allowed_at + S)
		umms_test_sleep(100);
	g_assert_false(umms_test_get_bool(t->bus, player, "Blocked"));

	/* The FSK 18 one after it: blocked again at its start, audio included. */
	wait_blocked(t, signals, player, "rating", (unsigned)((blocked_at -
		g_get_real_time()) / 1000) + 2000);
	int64_t latency_ms = (g_get_real_time() - blocked_at) / 1000;
	g_test_message("blocked %" G_GINT64_FORMAT " ms after the 18-rated programme began",
		latency_ms);
	g_assert_cmpint(latency_ms, <, 2000);
	/* What was already inside a sink when the block came is let be. */
	umms_test_sleep(300);
	assert_nothing_leaves(t, player, 1500);
	umms_test_signals_free(signals);
}

/* A locked channel is blocked when its URL is opened as such. */
static void
test_locked_channel(struct umms_test *t, gconstpointer data)
{
	/* @data: "in-process", the engine inside ummsd (no worker, no proxy). */
	const char *const in_process[] = { "engine.isolation=in-process", NULL };
	fresh_with(t, data ? "parental-locked-in-process" : "parental-locked", NULL, 0, NULL,
		data ? in_process : NULL);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "LockChannel",
		g_variant_new("(sxb)", "", channel_id(t, "Locked"), TRUE)));
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	wait_blocked(t, signals, player, "channel-locked", 2000);
	/*
	 * A SetUri that is refused after parental control said yes (no such
	 * file) lets nothing of the locked channel out.
	 */
	g_autofree char *missing = g_strdup_printf("file://%s/no-such-clip.mkv",
		umms_test_tmpdir());
	g_autofree char *message = umms_test_call_error(t->bus, player, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", missing), "org.umms.Error.NotFound");
	umms_test_sleep(200);
	g_assert_true(umms_test_get_bool(t->bus, player, "Blocked"));
	/* What ummsctl tells a user. */
	g_autofree char *info = umms_test_ummsctl("--player", player, "info", NULL);
	g_assert_nonnull(strstr(info, "Blocked:          yes (channel-locked)"));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_position(t->bus, player, 1000 * 1000, false, 10000);
	g_assert_true(umms_test_get_bool(t->bus, player, "Blocked"));
	struct flow f = flow_now(t, player);
	g_assert_cmpuint(f.frames, ==, 0);
	g_assert_cmpuint(f.audio_bytes, ==, 0);
	umms_test_signals_free(signals);
}

/* Block-unrated: a channel with no rated programme is blocked, a file of one's own is not. */
static void
test_unrated(struct umms_test *t, gconstpointer data)
{
	fresh(t, "parental-unrated", NULL, 0);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "SetBlockUnrated",
		g_variant_new("(sb)", "", TRUE)));
	g_autofree char *channel = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, channel);
	g_autofree char *uri = umms_test_clip_uri("av.ts");
	umms_test_player_do(t->bus, channel, "SetUri", g_variant_new("(s)", uri));
	wait_blocked(t, signals, channel, "unrated", 2000);
	umms_test_signals_free(signals);

	g_autofree char *own = umms_test_open(t->bus, "av.mp4");
	umms_test_player_do(t->bus, own, "Play", NULL);
	g_assert_false(umms_test_get_bool(t->bus, own, "Blocked"));
	wait_flowing(t, own, (struct flow){ 0 }, 5000);
	g_assert_false(umms_test_get_bool(t->bus, own, "Blocked"));
}

/*
 * Recording the 18-rated film is allowed; playing the file back is
 * blocked by the rating stored with it.
 */
static void
test_recording(struct umms_test *t, gconstpointer data)
{
	int64_t now = g_get_real_time() / S * S;
	const struct programme programmes[] = {
		{ "film", now - 60 * S, now + 3600 * S, "Night Film", "18" },
	};
	fresh(t, "parental-recording", programmes, G_N_ELEMENTS(programmes));
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", (int64_t)2 * S);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, "org.umms.Recorder1",
		"Record", g_variant_new("(ss@a{sv})", uri, "parental-film.mkv",
			g_variant_dict_end(&options)));
	g_autofree char *recording = NULL;
	g_variant_get(r, "(o)", &recording);
	umms_test_recording_wait(t, recording, "completed", 30000);
	g_autofree char *file = umms_test_recording_string(t, recording, "Destination");
	g_test_message("recorded %s", file);

	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	g_autofree char *file_uri = g_filename_to_uri(file, NULL, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", file_uri));
	wait_blocked(t, signals, player, "rating", 2000);
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_position(t->bus, player, 1000 * 1000, false, 10000);
	struct flow f = flow_now(t, player);
	g_assert_cmpuint(f.frames, ==, 0);
	g_assert_cmpuint(f.audio_bytes, ==, 0);
	umms_test_signals_free(signals);
}

/*
 * A umms_video_v1 viewer of a channel being watched: when the channel gets
 * locked mid-stream, the viewer is told to take the picture off (clear,
 * version 5) and gets no frame after it; Stats say nothing left since.
 */
static void
test_viewer_cleared(struct umms_test *t, gconstpointer data)
{
	fresh(t, "parental-viewer", NULL, 0);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	const uint32_t formats[] = { 1 /* XRGB8888 */, 0 };
	struct raw_client *viewer = raw_connect_version(formats, 5);
	viewer->auto_release = true;
	raw_player(viewer, player);
	umms_test_player_do(t->bus, player, "Play", NULL);
	raw_wait_shows(viewer, 10, 10000);
	g_assert_false(umms_test_get_bool(t->bus, player, "Blocked"));

	int64_t film = channel_id(t, "Film");
	gint64 asked = g_get_monotonic_time();
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "LockChannel",
		g_variant_new("(sxb)", "", film, TRUE)));
	wait_blocked(t, signals, player, "channel-locked", 2000);
	g_test_message("ContentBlocked %.1f ms after LockChannel was called, at most",
		(double)(g_get_monotonic_time() - asked) / 1000);
	gint64 end = g_get_monotonic_time() + 2 * G_USEC_PER_SEC;
	while (viewer->clears == 0 && g_get_monotonic_time() < end)
		raw_pump(viewer, 20);
	g_assert_cmpuint(viewer->clears, ==, 1);
	unsigned shows = viewer->shows;
	raw_pump(viewer, 1500);
	g_test_message("viewer: %u shows before the clear, %u after", shows,
		viewer->shows - shows);
	g_assert_cmpuint(viewer->shows, ==, shows);
	assert_nothing_leaves(t, player, 1000);
	raw_free(viewer);
	umms_test_signals_free(signals);
}

/*
 * Allowed while paused: the picture where it stands comes at once (no
 * Play needed), to a viewer that got nothing while blocked.
 */
static void
test_unlock_paused(struct umms_test *t, gconstpointer data)
{
	int64_t now = g_get_real_time() / S * S;
	const struct programme programmes[] = {
		{ "film", now - 60 * S, now + 3600 * S, "Night Film", "18" },
	};
	fresh(t, "parental-paused", programmes, G_N_ELEMENTS(programmes));
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	const uint32_t formats[] = { 1 /* XRGB8888 */, 0 };
	struct raw_client *viewer = raw_connect_version(formats, 5);
	viewer->auto_release = true;
	raw_player(viewer, player);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	wait_blocked(t, signals, player, "rating", 2000);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("paused"), 10000);
	raw_pump(viewer, 500);
	g_assert_cmpuint(viewer->shows, ==, 0);

	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "Unlock",
		g_variant_new("(ossu)", player, "", "programme", 0)));
	g_variant_unref(umms_test_signals_wait(signals, "ContentAllowed", 2000));
	gint64 allowed = g_get_monotonic_time();
	raw_wait_shows(viewer, 1, 3000);
	g_test_message("paused: the picture came %.0f ms after ContentAllowed",
		(double)(g_get_monotonic_time() - allowed) / 1000);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "paused");
	raw_free(viewer);
	umms_test_signals_free(signals);
}

/* ---- ummsd's own screen ------------------------------------------------------------ */

#define SCREEN_W 320
#define SCREEN_H 240
#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"

/* The screen now, captured to @name.png. */
static struct umms_test_image *
capture(struct umms_test *t, const char *name)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), name);
	g_variant_unref(umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path)));
	return umms_test_image_load(path);
}

/* How many of a grid of points over @image are not black. */
static unsigned
lit_points(const struct umms_test_image *image)
{
	unsigned lit = 0;
	for (int y = SCREEN_H / 10; y < SCREEN_H; y += SCREEN_H / 5) {
		for (int x = SCREEN_W / 16; x < SCREEN_W; x += SCREEN_W / 8) {
			if (!umms_test_color_near(umms_test_image_pixel(image, x, y), 0x000000, 16))
				lit++;
		}
	}
	return lit;
}

/*
 * The film channel full screen on ummsd's headless screen (SMPTE bars);
 * locked mid-stream, the screen shows black and nothing of it after.
 */
static void
test_screen_cleared(struct umms_test *t, gconstpointer data)
{
	g_autofree char *mode = g_strdup_printf("display.mode=%dx%d", SCREEN_W, SCREEN_H);
	const char *const extra[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", mode, "display.compositor=false", "display.input=false",
		NULL };
	fresh_with(t, "parental-screen", NULL, 0, NULL, extra);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	g_variant_unref(umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player)));
	umms_test_player_do(t->bus, player, "Play", NULL);
	for (gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
			umms_test_stat(t->bus, player, "frames-displayed") < 10;)
		g_assert_cmpint(g_get_monotonic_time(), <, end);
	struct umms_test_image *before = capture(t, "parental-screen-before");
	unsigned lit_before = lit_points(before);
	umms_test_image_free(before);
	g_test_message("before the lock: %u of 40 points lit", lit_before);
	g_assert_cmpuint(lit_before, >, 20);

	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL, "LockChannel",
		g_variant_new("(sxb)", "", channel_id(t, "Film"), TRUE)));
	wait_blocked(t, signals, player, "channel-locked", 2000);
	umms_test_sleep(200);
	guint64 displayed = umms_test_stat(t->bus, player, "frames-displayed");
	struct umms_test_image *after = capture(t, "parental-screen-after");
	unsigned lit_after = lit_points(after);
	umms_test_image_free(after);
	umms_test_sleep(1000);
	struct umms_test_image *later = capture(t, "parental-screen-later");
	unsigned lit_later = lit_points(later);
	umms_test_image_free(later);
	/* Shown again (a redraw of the last frame is asked for): still nothing of it. */
	g_variant_unref(umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", "/")));
	g_variant_unref(umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player)));
	umms_test_sleep(300);
	struct umms_test_image *again = capture(t, "parental-screen-again");
	unsigned lit_again = lit_points(again);
	umms_test_image_free(again);
	g_test_message("blocked: %u, then %u, shown again %u of 40 points lit", lit_after,
		lit_later, lit_again);
	g_assert_cmpuint(lit_after, ==, 0);
	g_assert_cmpuint(lit_later, ==, 0);
	g_assert_cmpuint(lit_again, ==, 0);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "frames-displayed"), ==, displayed);
	umms_test_signals_free(signals);
}

/* ---- a live stream whose EIT changes the rating mid-stream ------------------------ */

/* Present/following version @version: now @now (rating byte @rating), then a news. */
static void
live_set(struct eit_live *live, unsigned version, unsigned event_id, const char *now,
	int rating)
{
	int64_t start = g_get_real_time() / (60 * S) * 60 * S - 10 * 60 * S;
	const struct eit_gen_event events[2] = {
		{ .event_id = event_id, .start_us = start, .duration_s = 3600,
			.running_status = 4, .title = now, .rating = rating, .content = -1 },
		{ .event_id = event_id + 1, .start_us = start + 3600 * S, .duration_s = 600,
			.running_status = 1, .title = "News", .rating = -1, .content = -1 },
	};
	struct eit_gen_section section = { .table_id = 0x4e, .sid = 1, .tsid = 0x0457,
		.onid = 0x2174, .version = version, .events = events, .n_events = 2 };
	uint8_t bytes[EIT_GEN_MAX_SECTION];
	size_t size = eit_gen_section(&section, bytes);
	unsigned cc = 0;
	g_autoptr(GByteArray) packets = g_byte_array_new();
	eit_gen_packets(bytes, size, &cc, packets);
	eit_live_set(live, packets);
}

/* Live H.264 and AAC with the EIT (eit-live.h): now a quiz rated 8 (byte 5). */
static void
live_start(struct eit_live *live)
{
	g_autoptr(GByteArray) none = g_byte_array_new();
	eit_live_start(live, none, true);
	live_set(live, 0, 0x1001, "Quiz", 0x05);
}

/* Waits until the guide's now on @channel is titled @title (the stream's EIT read). */
static void
wait_now(struct umms_test *t, int64_t channel, const char *title, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	for (;;) {
		g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE,
			"GetNowNext", g_variant_new("(xx)", channel, (gint64)0));
		g_autoptr(GVariant) now = g_variant_get_child_value(reply, 0);
		const char *got = NULL;
		if (g_variant_lookup(now, "title", "&s", &got) && strcmp(got, title) == 0)
			return;
		if (g_get_monotonic_time() > end)
			g_error("the guide's now on channel %" G_GINT64_FORMAT " is not \"%s\"",
				channel, title);
		umms_test_sleep(100);
	}
}

/*
 * An IPTV channel whose stream's EIT says the programme on now is an
 * 8-rated quiz; the broadcaster changes it (a new version) to an 18-rated
 * film mid-stream: blocked within 2 s, video and audio.
 */
static void
test_eit_mid_stream(struct umms_test *t, gconstpointer data)
{
	fresh(t, "parental-eit", NULL, 0);
	struct eit_live live;
	live_start(&live);
	g_autofree char *m3u = g_strdup_printf("%s/parental-live.m3u", umms_test_tmpdir());
	g_autofree char *m3u_text = g_strdup_printf("#EXTM3U\n#EXTINF:-1,Live EIT\n%s\n",
		live.uri);
	g_assert_true(g_file_set_contents(m3u, m3u_text, -1, NULL));
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ImportM3U",
		g_variant_new("(s)", m3u)));
	int64_t channel = channel_id(t, "Live EIT");

	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", live.uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_now(t, channel, "Quiz", 20000);
	wait_flowing(t, player, flow_now(t, player), 10000);
	g_assert_false(umms_test_get_bool(t->bus, player, "Blocked"));

	gint64 changed = g_get_monotonic_time();
	live_set(&live, 1, 0x2001, "Horror Night", 0x0f);
	wait_blocked(t, signals, player, "rating", 5000);
	double latency_ms = (double)(g_get_monotonic_time() - changed) / 1000;
	g_test_message("blocked %.0f ms after the stream's EIT changed the rating", latency_ms);
	g_assert_cmpfloat(latency_ms, <, 2000);
	umms_test_sleep(300);
	assert_nothing_leaves(t, player, 1500);
	umms_test_signals_free(signals);
	eit_live_stop(&live);
}

/*
 * Time-shift judges the moment shown: the live channel's 18-rated
 * programme begins at @change; a player paused 8 s in time-shift (files of
 * 1 s: about 3 s more behind the source) is not blocked when the live
 * broadcast reaches it, but once the moment it shows does.
 */
static void
test_timeshift(struct umms_test *t, gconstpointer data)
{
	struct eit_live live;
	live_start(&live);
	g_autoptr(GByteArray) none = g_byte_array_new();
	eit_live_set(&live, none);
	int64_t now = g_get_real_time() / S * S;
	int64_t change = now + 25 * S;
	const struct programme programmes[] = {
		{ "live", now - 60 * S, change, "Quiz", "0" },
		{ "live", change, now + 3600 * S, "Late Film", "18" },
	};
	const char *const extra[] = { "recording.timeshift-segment=1", NULL };
	fresh_with(t, "parental-timeshift", programmes, G_N_ELEMENTS(programmes), live.uri,
		extra);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", live.uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_flowing(t, player, flow_now(t, player), 10000);
	GError *error = NULL;
	g_assert_true(umms_test_set(t->bus, player, "TimeshiftEnabled",
		g_variant_new_boolean(TRUE), &error));
	g_assert_no_error(error);
	for (gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;;) {
		g_autoptr(GVariant) v = umms_test_get(t->bus, player, UMMS_PLAYER,
			"TimeshiftWindow");
		int64_t start_us = -1, end_us = -1;
		g_variant_get(v, "(xx)", &start_us, &end_us);
		if (start_us >= 0)
			break;
		g_assert_cmpint(g_get_monotonic_time(), <, end);
		umms_test_sleep(100);
	}
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_sleep(8000);
	umms_test_player_do(t->bus, player, "Play", NULL);
	g_assert_cmpint(g_get_real_time(), <, change);

	/* Live, it would be blocked now; what it shows is still the quiz. */
	while (g_get_real_time() < change + 2 * S)
		umms_test_sleep(100);
	g_assert_false(umms_test_get_bool(t->bus, player, "Blocked"));
	wait_blocked(t, signals, player, "rating", 20000);
	double late_s = (double)(g_get_real_time() - change) / S;
	g_test_message("time-shifted player blocked %.1f s after the programme began live "
		"(paused 8 s, files of 1 s)", late_s);
	g_assert_cmpfloat(late_s, >, 6.0);
	g_assert_cmpfloat(late_s, <, 16.0);
	umms_test_sleep(300);
	assert_nothing_leaves(t, player, 1000);
	umms_test_signals_free(signals);
	eit_live_stop(&live);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/parental-block/rating", test_rating);
	UMMS_TEST_ADD("/parental-block/locked-channel", test_locked_channel);
	g_test_add("/parental-block/locked-channel-in-process", struct umms_test, "in-process",
		umms_test_setup, test_locked_channel, umms_test_teardown);
	UMMS_TEST_ADD("/parental-block/unrated", test_unrated);
	UMMS_TEST_ADD("/parental-block/recording", test_recording);
	UMMS_TEST_ADD("/parental-block/viewer-cleared", test_viewer_cleared);
	UMMS_TEST_ADD("/parental-block/screen-cleared", test_screen_cleared);
	UMMS_TEST_ADD("/parental-block/unlock-paused", test_unlock_paused);
	UMMS_TEST_ADD("/parental-block/eit-mid-stream", test_eit_mid_stream);
	UMMS_TEST_ADD("/parental-block/timeshift", test_timeshift);
	return g_test_run();
}
