/*
 * Time-shift of a live player (Player1.TimeshiftEnabled, TimeshiftWindow;
 * service/recorder/timeshift.h), seen on ummsd's headless screen.
 *
 * The live source is H.264 in MPEG-TS over UDP on loopback that the test
 * sends itself; every frame says when it was made: its left half is grey
 * level (t mod 16), its right half (t / 16 mod 16), t counting half seconds
 * of the source's clock. A capture of the screen so tells which moment of
 * the source is shown, to half a second.
 *
 * - pause 5 s, then Play: the picture held while paused, and playback goes
 *   on from the pause point, not from the live source's present; the same
 *   with Pause asked together with time-shift, before the ring has files;
 * - TimeshiftWindow is announced (PropertiesChanged) as the ring grows;
 * - seek back within TimeshiftWindow shows older frames; positions outside
 *   are refused with InvalidArgument naming the window; the window's end
 *   is near the present;
 * - paused longer than the window: Play resumes at the window's start;
 * - turned off: the ring's files go, the player shows the source live; a
 *   ring an ummsd that died left behind is removed;
 * - a source that ends (RTSP, 8 s): the ring plays to its last moment, then Eos;
 * - a ring that fails (its playlist cannot be written), or whose engine
 *   worker is killed: time-shift turns itself off and the source plays
 *   live again;
 * - refused on a file (NotSupported) and with no media (InvalidState);
 * - `ummsctl timeshift on` and `ummsctl info` (the window);
 * - the subtitles chosen (an external file, its delay, off) stay chosen on
 *   the ring and on the source again;
 * - audio MPEG-TS cannot carry (Vorbis over RTSP) encoded again for the ring.
 */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>

#include "harness.h"
#include "image.h"
#include "sources.h"

#include "timeshift-live.h"

/* ---- tests ------------------------------------------------------------------- */

static void
test_pause_resume(struct umms_test *t, gconstpointer data)
{
	start(t);
	/*
	 * The ring of an ummsd that died (its pid: one no process can have,
	 * above any pid_max): removed when a ring starts.
	 */
	g_autofree char *stale = g_strdup_printf("%s/umms/timeshift/player-1-%d",
		umms_test_tmpdir(), G_MAXINT - 1);
	g_assert_cmpint(g_mkdir_with_parents(stale, 0700), ==, 0);
	g_autofree char *stale_file = g_build_filename(stale, "seg00000.ts", NULL);
	g_assert_true(g_file_set_contents(stale_file, "old", -1, NULL));

	struct live live;
	live_start(&live);
	g_autofree char *player = live_player(t, &live, false);
	g_assert_false(g_file_test(stale, G_FILE_TEST_EXISTS));
	umms_test_sleep(1500);
	int playing = shown(t, "playing");
	g_test_message("on screen %.1f s behind the source", ticks(playing, live_now(&live)) / 2.0);

	/* Paused 5 s: the picture holds while the source goes on. */
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_sleep(300);
	int paused = shown(t, "paused");
	int live_at_pause = live_now(&live);
	umms_test_sleep(5000);
	int held = shown(t, "held");
	g_assert_cmpint(held, ==, paused);
	g_assert_cmpint(ticks(live_at_pause, live_now(&live)), >=, 9);

	/* Play: on from the pause point, 5 s behind where it was before. */
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_sleep(1000);
	int resumed = shown(t, "resumed");
	int behind = ticks(resumed, live_now(&live));
	g_test_message("paused at %d, resumed 1 s later showing %d: %.1f s behind the source",
		paused, resumed, behind / 2.0);
	g_assert_cmpint(ticks(paused, resumed), >=, 0);
	/* From the live source instead it would be 5 s (10) or more after. */
	g_assert_cmpint(ticks(paused, resumed), <=, 7);
	g_assert_cmpint(behind, >=, 10);

	/* Off: the ring's files go, the source is shown live again. */
	set_timeshift(t, player, false);
	g_assert_false(umms_test_get_bool(t->bus, player, "TimeshiftEnabled"));
	int64_t s, e;
	window(t, player, &s, &e);
	g_assert_cmpint(s, ==, -1);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("playing"), 60000);
	g_autofree char *rings = g_build_filename(umms_test_tmpdir(), "umms", "timeshift", NULL);
	gint64 begun = g_get_monotonic_time();
	int now = 0;
	for (;;) {
		now = shown(t, "live-again");
		if (ticks(now, live_now(&live)) < behind - 4)
			break;
		if (g_get_monotonic_time() - begun > 30 * G_USEC_PER_SEC)
			g_error("still %.1f s behind the source 30 s after time-shift ended",
				ticks(now, live_now(&live)) / 2.0);
		umms_test_sleep(500);
	}
	g_test_message("time-shift off: %.1f s behind the source", ticks(now, live_now(&live)) / 2.0);
	GDir *dir = g_dir_open(rings, 0, NULL);
	g_assert_nonnull(dir);
	g_assert_null(g_dir_read_name(dir));
	g_dir_close(dir);
	live_stop(&live);
}

/*
 * "Pause live TV" as one gesture: time-shift on and Pause at once, before
 * the ring has anything. State says paused straight away; the ring is
 * played paused once it has a file, the picture held; Play goes on from
 * about the moment of pausing, not from the source's present.
 */
static void
test_pause_at_once(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct live live;
	live_start(&live);
	g_autofree char *player = live_source_player(t, &live);
	int live_at_pause = live_now(&live);
	gint64 begun = g_get_monotonic_time();
	set_timeshift(t, player, true);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "paused");
	double took = wait_ring(t, player, "paused", begun);
	g_test_message("the ring played paused %.1f s after asking", took);
	umms_test_sleep(1000);
	int paused = shown(t, "paused-at-once");
	umms_test_sleep(2000);
	g_assert_cmpint(shown(t, "held-at-once"), ==, paused);

	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_sleep(1000);
	int resumed = shown(t, "resumed-at-once");
	int behind = ticks(resumed, live_now(&live));
	g_test_message("paused with the source at %d; resumed 1 s after Play showing %d, "
		"%.1f s behind the source", live_at_pause, resumed, behind / 2.0);
	/*
	 * The ring starts at the source's first key frame after the engine
	 * let go of it, before the ring was played paused: what shows is
	 * from then, plus the second played (half a second's slack). The
	 * source's present is that wait and 4 s further: at least the 3 s
	 * held behind it (from the source itself it would be under 1 s).
	 */
	g_assert_cmpint(ticks(live_at_pause, resumed), >=, 0);
	g_assert_cmpint(ticks(live_at_pause, resumed), <=, (int)(2 * (took + 1.5)));
	g_assert_cmpint(behind, >=, 6);
	live_stop(&live);
}

static void
test_seek(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct live live;
	live_start(&live);
	g_autofree char *player = live_player(t, &live, false);
	/*
	 * Enough recorded to go back 4 s, as PropertiesChanged says: the
	 * window is announced as the ring gains files, no need to poll it.
	 */
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	int64_t s, e;
	window(t, player, &s, &e);
	int announced = 0;
	gint64 begun = g_get_monotonic_time();
	while (e - s < US(6)) {
		if (g_get_monotonic_time() - begun > 60 * G_USEC_PER_SEC)
			g_error("the window stays %.1f to %.1f s (%d announced)", s / 1e6, e / 1e6,
				announced);
		g_autoptr(GVariant) params = umms_test_signals_wait(signals, "PropertiesChanged",
			60000);
		g_autoptr(GVariant) changed = g_variant_get_child_value(params, 1);
		if (g_variant_lookup(changed, "TimeshiftWindow", "(xx)", &s, &e))
			announced++;
	}
	umms_test_signals_free(signals);
	g_test_message("TimeshiftWindow announced %d times on the way to 6 s", announced);

	/*
	 * The picture and Position together: paused, the frame on screen is
	 * the one at Position. Playing, the screen shows each frame a little
	 * after Position passes it, later on a loaded machine, and later still
	 * if playback stalls: a capture then says little of where Position is.
	 */
	umms_test_player_do(t->bus, player, "Pause", NULL);
	int before = shown(t, "before-seek");
	int64_t position = umms_test_get_int64(t->bus, player, "Position");
	window(t, player, &s, &e);
	g_test_message("window %.1f to %.1f s, paused at %.1f s showing %d", s / 1e6, e / 1e6,
		position / 1e6, before);
	g_assert_cmpint(position, >=, s);
	g_assert_cmpint(position, <=, e);

	/*
	 * Back 4 s while playing, in the window: older frames. Paused again a
	 * second later, Position is where the seek went plus what played
	 * since (that second and the calls' time), and the picture is as old
	 * as Position says: the frames tell the half second, each capture
	 * rounded down, so the two differ from Position's by under one code.
	 * A seek that lands elsewhere, or a Position saying the asked place
	 * while another shows, fails.
	 */
	int64_t back = position - US(4);
	g_assert_cmpint(back, >=, s);
	umms_test_player_do(t->bus, player, "Play", NULL);
	gint64 asked = g_get_monotonic_time();
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)", back));
	umms_test_sleep(1000);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	double between = (g_get_monotonic_time() - asked) / 1e6;
	int after = shown(t, "after-seek");
	int64_t now = umms_test_get_int64(t->bus, player, "Position");
	double played = (now - back) / 1e6;
	int older = ticks(after, before);
	double expected = 2 * (position - now) / 1e6;
	g_test_message("4 s back to %.2f s: %.2f s played in the %.2f s until paused; showed %d, "
		"now %d: %d half seconds older, Position says %.2f", back / 1e6, played, between,
		before, after, older, expected);
	g_assert_cmpfloat(played, >=, -0.05);
	g_assert_cmpfloat(played, <=, between + 0.1);
	g_assert_cmpint(older, >, 0);
	g_assert_cmpfloat(fabs(older - expected), <, 1.1);
	umms_test_player_do(t->bus, player, "Play", NULL);

	/* Outside: refused, naming the window; playback goes on. */
	window(t, player, &s, &e);
	g_autofree char *old = umms_test_call_error(t->bus, player, UMMS_PLAYER, "SetPosition",
		g_variant_new("(x)", s - US(5)), "org.umms.Error.InvalidArgument");
	g_test_message("%s", old);
	g_assert_nonnull(strstr(old, "outside the time-shift window"));
	g_autofree char *future = umms_test_call_error(t->bus, player, UMMS_PLAYER, "SetPosition",
		g_variant_new("(x)", e + US(30)), "org.umms.Error.InvalidArgument");
	g_autofree char *far = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Seek",
		g_variant_new("(x)", -US(WINDOW_S + 20)), "org.umms.Error.InvalidArgument");
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");

	/* To the live edge: the newest frames the ring has. */
	int lagging = ticks(shown(t, "lagging"), live_now(&live));
	window(t, player, &s, &e);
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)", e));
	int64_t at = umms_test_get_int64(t->bus, player, "Position");
	umms_test_sleep(300);
	int edge = ticks(shown(t, "edge"), live_now(&live));
	g_test_message("behind the source: %.1f s before, %.1f s at the live edge (%.1f s; the "
		"window ended at %.1f s)", lagging / 2.0, edge / 2.0, at / 1e6, e / 1e6);
	g_assert_cmpint(at, >=, e - US(1));
	g_assert_cmpint(edge, <, lagging);
	/* Three files of 1 s behind, the one being written, and the way to the screen. */
	g_assert_cmpint(edge, <=, 14);
	live_stop(&live);
}

static void
test_paused_too_long(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct live live;
	live_start(&live);
	g_autofree char *player = live_player(t, &live, true);
	int status;
	g_autofree char *info = ummsctl(player, "info", NULL, &status);
	g_assert_cmpint(status, ==, 0);
	g_assert_nonnull(strstr(info, "Timeshift:        on, window 0:0"));
	g_autofree char *bad = ummsctl(player, "timeshift", "later", &status);
	g_assert_cmpint(status, ==, 2);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	int64_t paused_at = umms_test_get_int64(t->bus, player, "Position");
	/* Until the window has left the paused position well behind. */
	int64_t s, e;
	gint64 begun = g_get_monotonic_time();
	do {
		umms_test_sleep(500);
		window(t, player, &s, &e);
		if (g_get_monotonic_time() - begun > 90 * G_USEC_PER_SEC)
			g_error("the window never moved past %.1f s", paused_at / 1e6);
	} while (s < paused_at + US(2));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_sleep(500);
	int64_t now = umms_test_get_int64(t->bus, player, "Position");
	window(t, player, &s, &e);
	g_test_message("paused at %.1f s; resumed at %.1f s, the window %.1f to %.1f s",
		paused_at / 1e6, now / 1e6, s / 1e6, e / 1e6);
	g_assert_cmpint(now, >=, s - US(1));
	g_assert_cmpint(now, <=, e);
	wait_frames(t, player);
	live_stop(&live);
}

static void
test_source_ends(struct umms_test *t, gconstpointer data)
{
	/* An RTSP stream that ends 8 s in: played from the ring to its last moment, then Eos. */
	start(t);
	struct umms_test_rtsp server;
	umms_test_rtsp_start(&server, 8);
	g_autofree char *uri = g_strdup_printf("rtsp://127.0.0.1:%d/live", server.port);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	g_assert_true(umms_test_get_bool(t->bus, player, "IsLive"));
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, player);
	set_timeshift(t, player, true);
	/* Paused a while: the end comes later than the source's, after what was recorded. */
	umms_test_sleep(3000);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_sleep(3000);
	umms_test_player_do(t->bus, player, "Play", NULL);
	gint64 played = g_get_monotonic_time();
	g_variant_unref(umms_test_signals_wait(signals, "Eos", 60000));
	double after = (g_get_monotonic_time() - played) / 1e6;
	g_test_message("Eos %.1f s after resuming", after);
	/* What was recorded after the pause point played first (3 s paused, 3 s behind). */
	g_assert_cmpfloat(after, >=, 2.5);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "stopped");
	umms_test_signals_free(signals);
	umms_test_rtsp_stop(&server);
}

/*
 * ummsd with its rings in a folder of the test's (@rings), and a live
 * player of @live with time-shift on, playing its ring.
 */
static char *
ring_player(struct umms_test *t, struct live *live, char **rings)
{
	*rings = g_build_filename(umms_test_tmpdir(), "rings", NULL);
	g_autofree char *setting = g_strdup_printf("recording.timeshift-directory=%s", *rings);
	start_with(t, setting);
	live_start(live);
	return live_player(t, live, false);
}

/*
 * After the ring broke (@what, at @since): time-shift turns itself off
 * without a stop, the window goes, the source plays live again, near its
 * present, and the ring's folder in @rings is gone.
 */
static void
assert_live_again(struct umms_test *t, const char *player, struct live *live,
	const char *rings, const char *what, gint64 since)
{
	while (umms_test_get_bool(t->bus, player, "TimeshiftEnabled")) {
		if (g_get_monotonic_time() - since > 60 * G_USEC_PER_SEC)
			g_error("time-shift still on 60 s after %s", what);
		umms_test_sleep(200);
	}
	g_test_message("time-shift off %.1f s after %s", (g_get_monotonic_time() - since) / 1e6,
		what);
	int64_t s, e;
	window(t, player, &s, &e);
	g_assert_cmpint(s, ==, -1);
	g_assert_cmpint(e, ==, -1);
	g_assert_cmpuint(umms_test_stat(t->bus, player, "timeshift-pid"), ==, 0);
	/* The source live again: the picture moves on with it, near its present. */
	umms_test_sleep(3000);
	int first = shown(t, "live-again-1");
	umms_test_sleep(2000);
	int second = shown(t, "live-again-2");
	int behind = ticks(second, live_now(live));
	g_test_message("shown %d then %d, %d half seconds behind the source", first, second,
		behind);
	g_assert_cmpint(ticks(first, second), >=, 2);
	g_assert_cmpint(behind, <=, 6);
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");
	g_autofree char *name = g_strdup_printf("player-%s-%d", strrchr(player, '/') + 1,
		(int)getpid());
	g_autofree char *ring = g_build_filename(rings, name, NULL);
	g_assert_false(g_file_test(ring, G_FILE_TEST_EXISTS));
}

static void
test_ring_fails(struct umms_test *t, gconstpointer data)
{
	/*
	 * The ring can no longer write its playlist (here a folder takes its
	 * name; a full disk does the same): the ring fails. What it recorded
	 * is played to its end, then the player shows the source live,
	 * playing, time-shift off: no stop, no Error, and no wait for a ring
	 * that will never grow again.
	 */
	g_autofree char *rings = NULL;
	struct live live;
	g_autofree char *player = ring_player(t, &live, &rings);
	g_autofree char *name = g_strdup_printf("player-%s-%d", strrchr(player, '/') + 1,
		(int)getpid());
	g_autofree char *playlist = g_build_filename(rings, name, "live.m3u8", NULL);
	g_assert_cmpint(g_remove(playlist), ==, 0);
	g_assert_cmpint(g_mkdir(playlist, 0700), ==, 0);
	assert_live_again(t, player, &live, rings, "its playlist broke",
		g_get_monotonic_time());
	live_stop(&live);
}

/*
 * The ring is recorded by an engine worker of its own, apart from ummsd
 * and from the one playing it; killed, it takes nothing else with it: as
 * when the ring fails, what it recorded plays to its end, then the source
 * plays live, time-shift off, and the ring's folder goes.
 */
static void
test_ring_worker_dies(struct umms_test *t, gconstpointer data)
{
	g_autofree char *rings = NULL;
	struct live live;
	g_autofree char *player = ring_player(t, &live, &rings);
	guint64 ring_pid = umms_test_stat(t->bus, player, "timeshift-pid");
	guint64 playing_pid = umms_test_stat(t->bus, player, "engine-pid");
	g_test_message("the ring recorded by pid %" G_GUINT64_FORMAT ", played by %" G_GUINT64_FORMAT,
		ring_pid, playing_pid);
	g_assert_cmpuint(ring_pid, >, 0);
	g_assert_cmpuint(ring_pid, !=, playing_pid);
	g_assert_cmpuint(ring_pid, !=, (guint64)getpid());
	g_assert_cmpint(kill((pid_t)ring_pid, SIGKILL), ==, 0);
	assert_live_again(t, player, &live, rings, "its ring's worker died",
		g_get_monotonic_time());
	live_stop(&live);
}

static void
test_refused(struct umms_test *t, gconstpointer data)
{
	g_autofree char *empty = umms_test_create_player(t->bus, NULL);
	GError *error = NULL;
	g_assert_false(umms_test_set(t->bus, empty, "TimeshiftEnabled",
		g_variant_new_boolean(true), &error));
	g_assert_true(g_dbus_error_is_remote_error(error));
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name, ==, "org.umms.Error.InvalidState");
	g_clear_error(&error);

	g_autofree char *file = umms_test_open(t->bus, "colors.mkv");
	g_assert_false(umms_test_set(t->bus, file, "TimeshiftEnabled",
		g_variant_new_boolean(true), &error));
	g_autofree char *name2 = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name2, ==, "org.umms.Error.NotSupported");
	g_test_message("%s", error->message);
	g_assert_nonnull(strstr(error->message, "not live"));
	g_clear_error(&error);
	g_assert_false(umms_test_get_bool(t->bus, file, "TimeshiftEnabled"));
	/* Off when off: nothing to do, no error. */
	set_timeshift(t, file, false);
}

/* ---- subtitles across time-shift ---------------------------------------------- */

struct cue_log {
	unsigned count;
	int64_t start;           /* the last cue's */
	char *text;
};

static void
cue_cb(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *member, GVariant *params, gpointer data)
{
	struct cue_log *log = data;
	int64_t start, end;
	const char *text;
	g_variant_get(params, "(xx&sss)", &start, &end, &text, NULL, NULL);
	/* Empty: the cues that stood ended (track off or reopened), not a cue. */
	if (!*text)
		return;
	log->start = start;
	g_free(log->text);
	log->text = g_strdup(text);
	log->count++;
}

/* Whether a SubtitleCue comes within @ms. */
static bool
cue_within(struct cue_log *log, unsigned ms)
{
	unsigned before = log->count;
	umms_test_sleep(ms);
	return log->count > before;
}

/* Waits (up to 60 s) until @player's Position moves on: frames flow. */
static void
wait_moving(struct umms_test *t, const char *player)
{
	int64_t last = umms_test_get_int64(t->bus, player, "Position");
	for (int i = 0; i < 120; i++) {
		umms_test_sleep(500);
		int64_t now = umms_test_get_int64(t->bus, player, "Position");
		if (now > last)
			return;
		last = now;
	}
	g_error("%s: Position did not move in 60 s", player);
}

/* The external file is the last subtitle track (once loaded, within 20 s), @shown or not. */
static void
assert_external_chosen(struct umms_test *t, const char *player, bool shown)
{
	g_autoptr(GVariant) tracks = NULL;
	gsize n = 0;
	for (int i = 0; i < 200 && n == 0; i++) {
		if (i)
			umms_test_sleep(100);
		g_clear_pointer(&tracks, g_variant_unref);
		tracks = umms_test_get(t->bus, player, UMMS_PLAYER, "SubtitleTracks");
		n = g_variant_n_children(tracks);
	}
	g_assert_cmpuint(n, >=, 1);
	g_autoptr(GVariant) last = g_variant_get_child_value(tracks, n - 1);
	gboolean external = FALSE;
	g_assert_true(g_variant_lookup(last, "external", "b", &external));
	g_assert_true(external);
	g_assert_cmpint(umms_test_get_int32(t->bus, player, "CurrentSubtitle"), ==,
		shown ? (gint32)n - 1 : -1);
}

/*
 * The subtitles chosen for the live source stay chosen on the ring, and
 * back on the source: the external file, its delay, "off".
 */
static void
test_subtitles(struct umms_test *t, gconstpointer data)
{
	/* A cue every second for an hour. */
	GString *srt = g_string_new(NULL);
	for (int i = 0; i < 3600; i++)
		g_string_append_printf(srt, "%d\n%02d:%02d:%02d,000 --> %02d:%02d:%02d,900\nCue %d\n\n",
			i + 1, i / 3600, i / 60 % 60, i % 60, i / 3600, i / 60 % 60, i % 60, i);
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "live.srt", NULL);
	g_assert_true(g_file_set_contents(path, srt->str, (gssize)srt->len, NULL));
	g_string_free(srt, TRUE);

	start(t);
	struct live live;
	live_start(&live);
	g_autofree char *player = live_source_player(t, &live);
	struct cue_log log = { 0 };
	guint watch = g_dbus_connection_signal_subscribe(t->bus, NULL, UMMS_PLAYER, "SubtitleCue",
		player, NULL, G_DBUS_SIGNAL_FLAGS_NONE, cue_cb, &log, NULL);
	umms_test_player_do(t->bus, player, "SetSubtitleUri", g_variant_new("(s)", path));
	g_assert_true(umms_test_set(t->bus, player, "SubtitleDelay", g_variant_new_int64(US(0.5)),
		NULL));
	assert_external_chosen(t, player, true);
	g_assert_true(cue_within(&log, 2000));
	g_test_message("live: cue \"%s\" at %.1f s", log.text, log.start / 1e6);

	/* On the ring: the same file, the same delay, its cues coming. */
	set_timeshift(t, player, true);
	wait_ring(t, player, "playing", g_get_monotonic_time());
	assert_external_chosen(t, player, true);
	g_assert_cmpint(umms_test_get_int64(t->bus, player, "SubtitleDelay"), ==, US(0.5));
	g_assert_true(cue_within(&log, 3000));
	g_test_message("ring: cue \"%s\" at %.1f s", log.text, log.start / 1e6);
	g_assert_true(g_str_has_prefix(log.text, "Cue "));
	/* Each cue starts on a whole second of the file, half a second later. */
	g_assert_cmpint(log.start % US(1), ==, US(0.5));

	/* Off on the ring stays off on the source again. */
	umms_test_player_do(t->bus, player, "SelectTrack", g_variant_new("(si)", "subtitle", -1));
	set_timeshift(t, player, false);
	assert_external_chosen(t, player, false);
	wait_moving(t, player);
	g_assert_false(cue_within(&log, 2000));
	/* And on again: the file is still there to choose. */
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, player, UMMS_PLAYER, "SubtitleTracks");
	gint32 external = (gint32)g_variant_n_children(tracks) - 1;
	umms_test_player_do(t->bus, player, "SelectTrack",
		g_variant_new("(si)", "subtitle", external));
	g_assert_true(cue_within(&log, 3000));

	g_dbus_connection_signal_unsubscribe(t->bus, watch);
	g_free(log.text);
	live_stop(&live);
}

/* The codec of a player's first audio track ("" if none). */
static char *
audio_codec(struct umms_test *t, const char *player)
{
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, player, UMMS_PLAYER, "AudioTracks");
	g_autofree char *text = g_variant_print(tracks, FALSE);
	g_test_message("%s: audio tracks %s", player, text);
	char *codec = NULL;
	if (g_variant_n_children(tracks) > 0) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, 0);
		g_variant_lookup(track, "codec", "s", &codec);
	}
	return codec ? codec : g_strdup("");
}

/*
 * Audio the ring's MPEG-TS cannot carry (Vorbis here, a DVB channel's
 * SMPTE 302M in the VM's dvb test) is encoded again for the ring, not
 * left out: time-shifted, the player still has an audio track, MPEG-1
 * Layer II, and played after a pause it goes on from where it paused.
 */
static void
test_audio_encoded(struct umms_test *t, gconstpointer data)
{
	start(t);
	struct umms_test_rtsp server;
	/* Audio alone, as vidtv's: a ring records the first stream of an RTSP source only. */
	umms_test_rtsp_start_launch(&server, "( audiotestsrc is-live=true ! audioconvert ! "
		"vorbisenc ! rtpvorbispay name=pay0 pt=96 )");
	g_autofree char *uri = g_strdup_printf("rtsp://127.0.0.1:%d/live", server.port);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("playing"), 60000);
	g_autofree char *live = audio_codec(t, player);
	g_assert_cmpstr(live, ==, "vorbis");
	set_timeshift(t, player, true);
	double took = wait_ring(t, player, "playing", g_get_monotonic_time());
	g_test_message("playing from the ring %.1f s after asking", took);
	g_autofree char *ring = audio_codec(t, player);
	g_assert_cmpstr(ring, ==, "mp2");
	/* Paused 4 s, played: on from where it paused, the ring having gone on. */
	umms_test_player_do(t->bus, player, "Pause", NULL);
	umms_test_wait_property(t->bus, player, "State", g_variant_new_string("paused"), 30000);
	int64_t paused = umms_test_get_int64(t->bus, player, "Position");
	umms_test_sleep(4000);
	umms_test_player_do(t->bus, player, "Play", NULL);
	gint64 played = g_get_monotonic_time();
	int64_t now = paused;
	for (int i = 0; i < 100 && now < paused + US(1); i++) {
		umms_test_sleep(100);
		now = umms_test_get_int64(t->bus, player, "Position");
	}
	double since = (g_get_monotonic_time() - played) / 1e6;
	int64_t s, e;
	window(t, player, &s, &e);
	g_test_message("paused at %.2f s, at %.2f s %.1f s after Play; the window %.2f to %.2f s",
		paused / 1e6, now / 1e6, since, s / 1e6, e / 1e6);
	g_assert_cmpint(now, >=, paused + US(1));
	/* From the source's present instead it would be 4 s later or more. */
	g_assert_cmpint(now, <, paused + US(since + 2.5));
	g_assert_cmpint(e, >=, paused + US(2));
	umms_test_rtsp_stop(&server);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/timeshift/pause-resume", test_pause_resume);
	UMMS_TEST_ADD("/timeshift/pause-at-once", test_pause_at_once);
	UMMS_TEST_ADD("/timeshift/seek", test_seek);
	UMMS_TEST_ADD("/timeshift/paused-too-long", test_paused_too_long);
	UMMS_TEST_ADD("/timeshift/source-ends", test_source_ends);
	UMMS_TEST_ADD("/timeshift/ring-fails", test_ring_fails);
	UMMS_TEST_ADD("/timeshift/ring-worker-dies", test_ring_worker_dies);
	UMMS_TEST_ADD("/timeshift/refused", test_refused);
	UMMS_TEST_ADD("/timeshift/subtitles", test_subtitles);
	UMMS_TEST_ADD("/timeshift/audio-encoded", test_audio_encoded);
	return g_test_run();
}
