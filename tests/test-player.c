/*
 * org.umms.Player1 on real media: what each clip is, states and their
 * signals, end of stream on time, frame-accurate seeking and stepping, rates
 * forwards and backwards, volume, track selection, subtitles and counters.
 */
#include <math.h>
#include <signal.h>
#include <string.h>

#include "harness.h"

#define FRAME US(0.04) /* 25 fps clips */

static GVariant *
track(GDBusConnection *bus, const char *player, const char *property, guint index)
{
	g_autoptr(GVariant) tracks = umms_test_get(bus, player, UMMS_PLAYER, property);
	g_assert_cmpuint(index, <, g_variant_n_children(tracks));
	return g_variant_get_child_value(tracks, index);
}

static guint
track_count(GDBusConnection *bus, const char *player, const char *property)
{
	g_autoptr(GVariant) tracks = umms_test_get(bus, player, UMMS_PLAYER, property);
	return (guint)g_variant_n_children(tracks);
}

static void
assert_track_string(GVariant *dict, const char *key, const char *expected)
{
	const char *value = NULL;
	if (!g_variant_lookup(dict, key, "&s", &value))
		g_error("track has no %s", key);
	g_assert_cmpstr(value, ==, expected);
}

static int
track_int(GVariant *dict, const char *key)
{
	gint32 value;
	if (!g_variant_lookup(dict, key, "i", &value))
		g_error("track has no %s", key);
	return value;
}

static void
assert_state(GDBusConnection *bus, const char *player, const char *expected)
{
	g_autofree char *state = umms_test_get_string(bus, player, "State");
	g_assert_cmpstr(state, ==, expected);
}

static void
assert_near(int64_t value, int64_t expected, int64_t tolerance)
{
	if (llabs(value - expected) > tolerance)
		g_error("%" G_GINT64_FORMAT " µs is not within %" G_GINT64_FORMAT " µs of %"
			G_GINT64_FORMAT, value, tolerance, expected);
}

/* Position, and the wall time it was read at: the middle of its round trip. */
struct sample {
	int64_t position;
	gint64 at, rtt;          /* µs, monotonic */
};

static struct sample
sample_position(struct umms_test *t, const char *p)
{
	gint64 before = g_get_monotonic_time();
	int64_t position = umms_test_get_int64(t->bus, p, "Position");
	gint64 after = g_get_monotonic_time();
	return (struct sample){ position, (before + after) / 2, after - before };
}

/*
 * Plays @p from its start until Eos, and judges when Eos came by the media
 * time: from the first Position that found it playing, the @duration s
 * clip's rest at @rate, within @tolerance s (and half that read's round
 * trip). A machine slow to start playing moves that first reading, not
 * the judgement; one that plays faster than @rate is caught by the time
 * from Play, which a load can only lengthen.
 */
static void
play_to_eos(struct umms_test *t, const char *p, struct umms_test_signals *signals,
	double duration, double rate, double tolerance)
{
	gint64 start = g_get_monotonic_time();
	umms_test_player_do(t->bus, p, "Play", NULL);
	struct sample first = { 0 };
	for (int i = 0; i < 1000 && first.position <= 0; i++) {
		first = sample_position(t, p);
		if (first.position <= 0)
			umms_test_sleep(5);
	}
	g_assert_cmpint(first.position, >, 0);
	g_variant_unref(umms_test_signals_wait(signals, "Eos", 10000 + (unsigned)(duration /
		rate * 1000)));
	gint64 eos = g_get_monotonic_time();
	double from_play = (double)(eos - start) / 1e6;
	double elapsed = (double)(eos - first.at) / 1e6;
	double expected = (duration - (double)first.position / 1e6) / rate;
	g_test_message("%.3f s clip at rate %g: playing at %.3f s, Eos %.3f s later (%.3f s "
		"expected), %.3f s after Play", duration, rate, (double)first.position / 1e6,
		elapsed, expected, from_play);
	g_assert_cmpfloat(fabs(elapsed - expected), <, tolerance + (double)first.rtt / 2e6);
	g_assert_cmpfloat(from_play, >, duration / rate - tolerance);
}

static void
test_open_info(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	g_autofree char *uri = umms_test_get_string(t->bus, p, "Uri");
	g_autofree char *expected_uri = umms_test_clip_uri("av.mkv");
	g_assert_cmpstr(uri, ==, expected_uri);
	assert_state(t->bus, p, "stopped");
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Duration"), ==, US(5));
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), ==, 0);
	g_autofree char *container = umms_test_get_string(t->bus, p, "Container");
	g_assert_cmpstr(container, ==, "matroska");
	g_assert_true(umms_test_get_bool(t->bus, p, "Seekable"));
	g_assert_false(umms_test_get_bool(t->bus, p, "IsLive"));
	g_assert_true(umms_test_get_bool(t->bus, p, "HasVideo"));
	g_assert_true(umms_test_get_bool(t->bus, p, "HasAudio"));
	g_assert_true(umms_test_get_bool(t->bus, p, "CanFullscreen"));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "BufferingPercent"), ==, 100);
	g_autofree char *decoder = umms_test_get_string(t->bus, p, "Decoder");
	g_assert_cmpstr(decoder, ==, "avdec_h264 (software)");
	g_autofree char *engine = umms_test_get_string(t->bus, p, "Engine");
	g_assert_cmpstr(engine, ==, "gstreamer");

	g_assert_cmpuint(track_count(t->bus, p, "VideoTracks"), ==, 1);
	g_autoptr(GVariant) video = track(t->bus, p, "VideoTracks", 0);
	assert_track_string(video, "codec", "h264");
	g_assert_cmpint(track_int(video, "width"), ==, 320);
	g_assert_cmpint(track_int(video, "height"), ==, 240);
	g_assert_cmpint(track_int(video, "par-n"), ==, 1);
	g_assert_cmpint(track_int(video, "par-d"), ==, 1);
	double fps = 0;
	g_assert_true(g_variant_lookup(video, "framerate", "d", &fps));
	g_assert_cmpfloat(fps, ==, 25.0);

	g_assert_cmpuint(track_count(t->bus, p, "AudioTracks"), ==, 2);
	g_autoptr(GVariant) en = track(t->bus, p, "AudioTracks", 0);
	g_autoptr(GVariant) fr = track(t->bus, p, "AudioTracks", 1);
	assert_track_string(en, "codec", "opus");
	assert_track_string(en, "language", "en");
	assert_track_string(fr, "language", "fr");
	g_assert_cmpint(track_int(en, "channels"), ==, 2);
	g_assert_cmpint(track_int(fr, "channels"), ==, 1);
	g_assert_cmpint(track_int(en, "rate"), ==, 48000);

	g_assert_cmpuint(track_count(t->bus, p, "SubtitleTracks"), ==, 1);
	g_autoptr(GVariant) de = track(t->bus, p, "SubtitleTracks", 0);
	assert_track_string(de, "language", "de");
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentVideo"), ==, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentAudio"), ==, 0);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	g_autoptr(GVariant) metadata = umms_test_get(t->bus, p, UMMS_PLAYER, "Metadata");
	const char *title = NULL, *artist = NULL;
	g_assert_true(g_variant_lookup(metadata, "title", "&s", &title));
	g_assert_cmpstr(title, ==, "umms test clip");
	g_assert_true(g_variant_lookup(metadata, "artist", "&s", &artist));
	g_assert_cmpstr(artist, ==, "umms tests");
}

struct clip_case {
	const char *clip;
	const char *container;
	const char *video;       /* NULL: no video */
	const char *audio;
	int width, height, par_n, par_d;
	int64_t duration;
};

static void
test_containers(struct umms_test *t, gconstpointer data)
{
	static const struct clip_case cases[] = {
		{ "av.mp4", "mp4", "h264", "aac", 320, 240, 1, 1, US(3) },
		{ "vp9.webm", "webm", "vp9", "opus", 320, 240, 1, 1, US(3) },
		{ "av.ts", "mpegts", "h264", "aac", 320, 240, 1, 1, US(3) },
		{ "audio.ogg", "ogg", NULL, "opus", 0, 0, 0, 0, US(2) },
		{ "anamorphic.mkv", "matroska", "h264", NULL, 352, 288, 12, 11, US(2) },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		const struct clip_case *c = &cases[i];
		g_test_message("%s", c->clip);
		g_autofree char *p = umms_test_open(t->bus, c->clip);
		g_autofree char *container = umms_test_get_string(t->bus, p, "Container");
		g_assert_cmpstr(container, ==, c->container);
		assert_near(umms_test_get_int64(t->bus, p, "Duration"), c->duration, US(0.05));
		g_assert_cmpint(umms_test_get_bool(t->bus, p, "HasVideo"), ==, c->video != NULL);
		g_assert_cmpint(umms_test_get_bool(t->bus, p, "CanFullscreen"), ==, c->video != NULL);
		g_assert_cmpint(umms_test_get_bool(t->bus, p, "HasAudio"), ==, c->audio != NULL);
		g_autofree char *decoder = umms_test_get_string(t->bus, p, "Decoder");
		if (c->video) {
			g_autoptr(GVariant) video = track(t->bus, p, "VideoTracks", 0);
			assert_track_string(video, "codec", c->video);
			g_assert_cmpint(track_int(video, "width"), ==, c->width);
			g_assert_cmpint(track_int(video, "height"), ==, c->height);
			g_assert_cmpint(track_int(video, "par-n"), ==, c->par_n);
			g_assert_cmpint(track_int(video, "par-d"), ==, c->par_d);
			g_assert_true(g_str_has_suffix(decoder, "(software)"));
		} else {
			g_assert_cmpuint(track_count(t->bus, p, "VideoTracks"), ==, 0);
			g_assert_cmpstr(decoder, ==, "");
			g_autofree char *m = umms_test_call_error(t->bus, p, UMMS_PLAYER, "StepFrame",
				g_variant_new("(i)", 1), "org.umms.Error.NotSupported");
		}
		if (c->audio) {
			g_autoptr(GVariant) audio = track(t->bus, p, "AudioTracks", 0);
			assert_track_string(audio, "codec", c->audio);
		}
		/* Each plays to its end. */
		struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
		umms_test_player_do(t->bus, p, "SetPosition",
			g_variant_new("(x)", c->duration - US(0.5)));
		umms_test_player_do(t->bus, p, "Play", NULL);
		g_variant_unref(umms_test_signals_wait(signals, "Eos", UMMS_TEST_TIMEOUT_MS));
		umms_test_signals_free(signals);
	}
}

static void
test_states(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *m = umms_test_call_error(t->bus, p, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.InvalidState");
	g_assert_nonnull(strstr(m, "SetUri"));
	/* Stop with nothing open is harmless. */
	umms_test_player_do(t->bus, p, "Stop", NULL);

	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));

	/* After Play replies, State is playing, and watchers were told first. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	assert_state(t->bus, p, "playing");
	g_autoptr(GVariant) changed = umms_test_signals_find_change(signals, "State");
	g_assert_nonnull(changed);
	g_assert_cmpstr(g_variant_get_string(changed, NULL), ==, "playing");
	umms_test_wait_position(t->bus, p, US(0.5), false, UMMS_TEST_TIMEOUT_MS);

	/* Paused: the clock stands still. */
	umms_test_player_do(t->bus, p, "Pause", NULL);
	assert_state(t->bus, p, "paused");
	int64_t held = umms_test_get_int64(t->bus, p, "Position");
	umms_test_sleep(300);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), ==, held);

	/* Resumed: it goes on from there. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, held + US(0.3), false, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), <, held + US(1.5));

	/* Stopped: back to the start; playing again starts from 0. */
	umms_test_player_do(t->bus, p, "Stop", NULL);
	assert_state(t->bus, p, "stopped");
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), ==, 0);
	/* The media stays described. */
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Duration"), ==, US(20));
	umms_test_player_do(t->bus, p, "Play", NULL);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), <, US(0.5));

	/* Pause from stopped shows the first frame. */
	umms_test_player_do(t->bus, p, "Stop", NULL);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	assert_state(t->bus, p, "paused");
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), <=, FRAME);
	umms_test_signals_free(signals);
}

static void
test_eos(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mp4");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	play_to_eos(t, p, signals, 3.0, 1.0, 0.4);
	assert_state(t->bus, p, "stopped");
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), ==, 0);
	/* It plays again. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.3), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_signals_free(signals);
}

static int64_t
seeked_position(struct umms_test_signals *signals)
{
	g_autoptr(GVariant) seeked = umms_test_signals_wait(signals, "Seeked",
		UMMS_TEST_TIMEOUT_MS);
	int64_t position;
	g_variant_get(seeked, "(x)", &position);
	return position;
}

static void
test_seek(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Pause", NULL);

	/* Absolute positions land on the frame asked for, between key frames too. */
	static const double targets[] = { 2.5, 0.52, 4.2, 1.0 };
	for (size_t i = 0; i < G_N_ELEMENTS(targets); i++) {
		umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(targets[i])));
		int64_t seeked = seeked_position(signals);
		assert_near(seeked, US(targets[i]), FRAME / 2);
		assert_near(umms_test_get_int64(t->bus, p, "Position"), US(targets[i]), FRAME / 2);
	}

	/* Relative moves, clamped at the start. */
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", US(1.5)));
	assert_near(seeked_position(signals), US(2.5), FRAME / 2);
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", -US(0.5)));
	assert_near(seeked_position(signals), US(2.0), FRAME / 2);
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", -US(100)));
	assert_near(seeked_position(signals), 0, FRAME / 2);
	/* The extremes a client may send: no overflow (UBSan), the start and the end. */
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", US(1)));
	assert_near(seeked_position(signals), US(1), FRAME / 2);
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", G_MININT64));
	assert_near(seeked_position(signals), 0, FRAME / 2);
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", US(1)));
	assert_near(seeked_position(signals), US(1), FRAME / 2);
	umms_test_player_do(t->bus, p, "Seek", g_variant_new("(x)", G_MAXINT64));
	assert_near(seeked_position(signals), US(5), FRAME);
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", 0));
	assert_near(seeked_position(signals), 0, FRAME / 2);

	/* Outside the media is refused, saying where the media ends. */
	g_autofree char *m1 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetPosition",
		g_variant_new("(x)", US(7)), "org.umms.Error.InvalidArgument");
	g_assert_nonnull(strstr(m1, "5.000 s"));
	g_autofree char *m2 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetPosition",
		g_variant_new("(x)", -US(1)), "org.umms.Error.InvalidArgument");

	/* While playing, playback goes on from the new place. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	/*
	 * Seeked says where playback is once the seek is done: 3 s, plus
	 * whatever played before the signal was sent (more on a busy machine),
	 * never more than the time this took.
	 */
	gint64 asked = g_get_monotonic_time();
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(3)));
	int64_t landed = seeked_position(signals);
	int64_t took = g_get_monotonic_time() - asked;
	g_assert_cmpint(landed, >=, US(3) - FRAME);
	g_assert_cmpint(landed, <=, US(3) + FRAME + took);
	assert_state(t->bus, p, "playing");
	umms_test_wait_position(t->bus, p, US(3.3), false, UMMS_TEST_TIMEOUT_MS);

	/* Seeking while stopped sets where Play starts. */
	umms_test_player_do(t->bus, p, "Stop", NULL);
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(4)));
	umms_test_player_do(t->bus, p, "Pause", NULL);
	assert_near(umms_test_get_int64(t->bus, p, "Position"), US(4), FRAME / 2);
	umms_test_signals_free(signals);
}

static void
test_step(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(1)));
	int64_t start = umms_test_get_int64(t->bus, p, "Position");
	umms_test_signals_clear(signals);

	umms_test_player_do(t->bus, p, "StepFrame", g_variant_new("(i)", 5));
	assert_near(seeked_position(signals), start + 5 * FRAME, FRAME / 2);
	assert_near(umms_test_get_int64(t->bus, p, "Position"), start + 5 * FRAME, FRAME / 2);
	umms_test_player_do(t->bus, p, "StepFrame", g_variant_new("(i)", -2));
	assert_near(umms_test_get_int64(t->bus, p, "Position"), start + 3 * FRAME, FRAME / 2);
	assert_state(t->bus, p, "paused");

	g_autofree char *m = umms_test_call_error(t->bus, p, UMMS_PLAYER, "StepFrame",
		g_variant_new("(i)", 0), "org.umms.Error.InvalidArgument");

	/* Stepping while playing pauses first. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_player_do(t->bus, p, "StepFrame", g_variant_new("(i)", 1));
	assert_state(t->bus, p, "paused");
	int64_t held = umms_test_get_int64(t->bus, p, "Position");
	umms_test_sleep(200);
	g_assert_cmpint(umms_test_get_int64(t->bus, p, "Position"), ==, held);
	umms_test_signals_free(signals);
}

/* Media time covered in @wall_ms of playing at the current rate. */
/*
 * Checks that @p covers @rate seconds of media a second, within
 * @tolerance s a second, over about @wall_ms: against the wall time
 * between its two readings of Position as they were taken (a loaded
 * machine stretches the sleep and the calls, not the rate judged), within
 * half their round trips more.
 */
static void
assert_rate(struct umms_test *t, const char *p, double rate, double tolerance,
	unsigned wall_ms)
{
	struct sample before = sample_position(t, p);
	umms_test_sleep(wall_ms);
	struct sample after = sample_position(t, p);
	double wall = (double)(after.at - before.at) / 1e6;
	double slack = (double)(before.rtt + after.rtt) / 2e6;
	int64_t covered = after.position - before.position;
	g_test_message("rate %g: %.2f s in %.3f s (round trips %.3f s)", rate, covered / 1e6,
		wall, slack);
	assert_near(covered, US(rate * wall), US(tolerance * wall + fabs(rate) * slack));
}

static void
test_rate(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "long.mkv");
	GError *error = NULL;
	umms_test_player_do(t->bus, p, "Play", NULL);

	g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(2.0), &error));
	g_assert_cmpfloat(umms_test_get_double(t->bus, p, "Rate"), ==, 2.0);
	assert_rate(t, p, 2.0, 0.35, 1000);

	/* Scrubbing: key frames only, much faster than real time. */
	g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(4.0), &error));
	assert_rate(t, p, 4.0, 1.0, 1000);

	/* Backwards. */
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(12)));
	g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(-1.0), &error));
	assert_rate(t, p, -1.0, 0.35, 1000);
	assert_state(t->bus, p, "playing");

	/* Nonsense is refused and changes nothing. */
	static const double bad[] = { 0.0, 100.0, -65.0 };
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_assert_false(umms_test_set(t->bus, p, "Rate", g_variant_new_double(bad[i]), &error));
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_assert_cmpstr(name, ==, "org.umms.Error.InvalidArgument");
		g_clear_error(&error);
	}
	g_assert_cmpfloat(umms_test_get_double(t->bus, p, "Rate"), ==, -1.0);

	/* Stop brings the rate back to 1. */
	umms_test_player_do(t->bus, p, "Stop", NULL);
	g_assert_cmpfloat(umms_test_get_double(t->bus, p, "Rate"), ==, 1.0);

	/* The end comes at twice the speed, and a rate set before Play holds. */
	g_autofree char *q = umms_test_open(t->bus, "av.mp4");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, q);
	g_assert_true(umms_test_set(t->bus, q, "Rate", g_variant_new_double(2.0), &error));
	play_to_eos(t, q, signals, 3.0, 2.0, 0.35);
	umms_test_signals_free(signals);
}

static void
test_volume(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mp4");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	GError *error = NULL;
	g_assert_true(umms_test_set(t->bus, p, "Volume", g_variant_new_double(0.25), &error));
	g_assert_cmpfloat(umms_test_get_double(t->bus, p, "Volume"), ==, 0.25);
	g_assert_true(umms_test_set(t->bus, p, "Mute", g_variant_new_boolean(TRUE), &error));
	g_assert_true(umms_test_get_bool(t->bus, p, "Mute"));
	umms_test_sleep(50);
	g_autoptr(GVariant) volume = umms_test_signals_find_change(signals, "Volume");
	g_assert_nonnull(volume);
	g_assert_cmpfloat(g_variant_get_double(volume), ==, 0.25);
	g_autoptr(GVariant) mute = umms_test_signals_find_change(signals, "Mute");
	g_assert_nonnull(mute);

	static const double bad[] = { 1.5, -0.1, NAN };
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_assert_false(umms_test_set(t->bus, p, "Volume", g_variant_new_double(bad[i]), &error));
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_assert_cmpstr(name, ==, "org.umms.Error.InvalidArgument");
		g_clear_error(&error);
	}
	g_assert_cmpfloat(umms_test_get_double(t->bus, p, "Volume"), ==, 0.25);
	umms_test_signals_free(signals);
}

static void
test_tracks(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Pause", NULL);

	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "audio", 1));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentAudio"), ==, 1);
	g_autoptr(GVariant) changed = umms_test_signals_find_change(signals, "CurrentAudio");
	g_assert_nonnull(changed);
	g_assert_cmpint(g_variant_get_int32(changed), ==, 1);

	/* The switch holds while playing, and playing goes on. */
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.5), false, UMMS_TEST_TIMEOUT_MS);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentAudio"), ==, 1);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "audio", 0));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentAudio"), ==, 0);

	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", -1));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", 0));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", -1));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "video", 0));
	assert_state(t->bus, p, "paused");

	g_autofree char *m1 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SelectTrack",
		g_variant_new("(si)", "audio", 2), "org.umms.Error.InvalidArgument");
	g_assert_nonnull(strstr(m1, "has 2"));
	g_autofree char *m2 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SelectTrack",
		g_variant_new("(si)", "video", -1), "org.umms.Error.InvalidArgument");
	g_autofree char *m3 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SelectTrack",
		g_variant_new("(si)", "sound", 0), "org.umms.Error.InvalidArgument");
	g_assert_nonnull(strstr(m3, "unknown track kind"));

	/* The choice survives Stop and comes back with the next Play. */
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "audio", 1));
	umms_test_player_do(t->bus, p, "Stop", NULL);
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_property(t->bus, p, "CurrentAudio", g_variant_new_int32(1),
		UMMS_TEST_TIMEOUT_MS);
	umms_test_signals_free(signals);
}

static void
test_subtitle_uri(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_player_do(t->bus, p, "SetSubtitleUri",
		g_variant_new("(s)", umms_test_clip("subs.en.srt")));
	g_assert_cmpuint(track_count(t->bus, p, "SubtitleTracks"), ==, 2);
	g_autoptr(GVariant) ext = track(t->bus, p, "SubtitleTracks", 1);
	assert_track_string(ext, "codec", "subrip");
	assert_track_string(ext, "language", "en");
	gboolean external = FALSE;
	g_assert_true(g_variant_lookup(ext, "external", "b", &external));
	g_assert_true(external);
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 1);

	/* Switching between the file and the media's own track, and off. */
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", 0));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", 1));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 1);
	umms_test_player_do(t->bus, p, "SelectTrack", g_variant_new("(si)", "subtitle", -1));
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, -1);
	assert_state(t->bus, p, "playing");

	/* Files that are not subtitles, or not there, are refused by name. */
	g_autofree char *m1 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetSubtitleUri",
		g_variant_new("(s)", "/no/such.srt"), "org.umms.Error.NotFound");
	g_autofree char *m2 = umms_test_call_error(t->bus, p, UMMS_PLAYER, "SetSubtitleUri",
		g_variant_new("(s)", umms_test_clip("text.mp4")), "org.umms.Error.NotSupported");
	assert_state(t->bus, p, "playing");

	umms_test_player_do(t->bus, p, "SetSubtitleUri",
		g_variant_new("(s)", umms_test_clip("subs.en.srt")));
	umms_test_player_do(t->bus, p, "SetSubtitleUri", g_variant_new("(s)", ""));
	g_assert_cmpuint(track_count(t->bus, p, "SubtitleTracks"), ==, 1);
}

static uint64_t
stat_value(GVariant *stats, const char *key)
{
	guint64 value = 0;
	if (!g_variant_lookup(stats, key, "t", &value))
		g_error("Stats has no %s", key);
	return value;
}

static void
test_stats(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "av.mkv");
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	gint64 began = g_get_monotonic_time();
	umms_test_player_do(t->bus, p, "Play", NULL);
	/*
	 * 2.2 s of media played, however long that took: paused there, every
	 * frame up to the one shown is counted once, presented or dropped (a
	 * slow machine drops more; how many is bench/'s to measure, not a test's).
	 */
	umms_test_wait_position(t->bus, p, US(2.2), false, UMMS_TEST_TIMEOUT_MS);
	umms_test_player_do(t->bus, p, "Pause", NULL);
	int64_t position = umms_test_get_int64(t->bus, p, "Position");
	g_autoptr(GVariant) stats = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	uint64_t decoded = stat_value(stats, "frames-decoded");
	uint64_t presented = stat_value(stats, "frames-presented");
	uint64_t dropped = stat_value(stats, "frames-dropped");
	uint64_t frames = (uint64_t)(position / FRAME) + 1;
	g_test_message("%" G_GUINT64_FORMAT " frames played (to %.3f s): %" G_GUINT64_FORMAT
		" decoded, %" G_GUINT64_FORMAT " presented, %" G_GUINT64_FORMAT " dropped",
		frames, position / 1e6, decoded, presented, dropped);
	g_assert_cmpint(position, >=, US(2.2));
	g_assert_cmpuint(presented, >=, 1);
	g_assert_cmpuint(presented + dropped, >=, frames - 2);
	g_assert_cmpuint(presented + dropped, <=, frames + 2);
	/* A frame is presented only once decoded; a few more are decoded ahead. */
	g_assert_cmpuint(decoded, >=, presented);
	g_assert_cmpuint(stat_value(stats, "copies"), ==, 0);
	/*
	 * Watchers hear of Stats while playing, at most once a second (its
	 * counters move with every frame), and within a second of the last
	 * change they have the values a Get gives.
	 */
	umms_test_sleep(1200);
	double seconds = (g_get_monotonic_time() - began) / 1e6;
	g_autoptr(GVariant) heard = NULL;
	unsigned changes = umms_test_signals_count_changes(signals, "Stats", &heard);
	g_autoptr(GVariant) now = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	g_test_message("%u changes of Stats in %.1f s", changes, seconds);
	g_assert_cmpuint(changes, >=, 1);
	g_assert_cmpuint(changes, <=, (unsigned)seconds + 1);
	g_assert_true(g_variant_equal(heard, now));
	umms_test_signals_free(signals);
}

/*
 * A player whose video falls hopelessly behind (its worker stopped for a
 * second, as a CPU shared by too many players would leave it) skips to the
 * next key frame ([engine] catch-up), counts what it skipped as dropped,
 * shows frames again after that and plays to the end.
 */
static void
test_catch_up(struct umms_test *t, gconstpointer data)
{
	const char *overrides[] = { "engine.isolation=worker", "engine.fork-server=false",
		"engine.spare-workers=0", "engine.catch-up=200", NULL };
	umms_test_restart(t, overrides);
	g_autofree char *p = umms_test_open(t->bus, "long.mkv");
	unsigned zombies = 0;
	pid_t worker = 0;
	g_assert_cmpuint(umms_test_engine_children(&zombies, 0, &worker), ==, 1);
	g_assert_cmpint(worker, >, 0);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", US(16)));
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(16.3), false, UMMS_TEST_TIMEOUT_MS);
	/* Key frames every second: stopped 1.5 s, its next frames are far behind. */
	g_autoptr(GVariant) before = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	g_assert_cmpint(kill(worker, SIGSTOP), ==, 0);
	umms_test_sleep(1500);
	g_assert_cmpint(kill(worker, SIGCONT), ==, 0);
	g_variant_unref(umms_test_signals_wait(signals, "Eos", UMMS_TEST_TIMEOUT_MS));
	g_autoptr(GVariant) after = umms_test_get(t->bus, p, UMMS_PLAYER, "Stats");
	uint64_t dropped = stat_value(after, "frames-dropped") -
		stat_value(before, "frames-dropped");
	uint64_t presented = stat_value(after, "frames-presented") -
		stat_value(before, "frames-presented");
	g_test_message("after the stop: %" G_GUINT64_FORMAT " presented, %" G_GUINT64_FORMAT
		" dropped", presented, dropped);
	/* Skipped frames count: at least the second it stood still, at 25 fps. */
	g_assert_cmpuint(dropped, >=, 25);
	/* From the next key frame on it shows frames again (2.2 s were left to play). */
	g_assert_cmpuint(presented, >=, 5);
	umms_test_signals_free(signals);
}

static void
test_two_players(struct umms_test *t, gconstpointer data)
{
	g_autofree char *a = umms_test_open(t->bus, "long.mkv");
	g_autofree char *b = umms_test_open(t->bus, "long.mkv");
	umms_test_player_do(t->bus, a, "Play", NULL);
	umms_test_player_do(t->bus, b, "SetPosition", g_variant_new("(x)", US(10)));
	umms_test_player_do(t->bus, b, "Play", NULL);
	umms_test_sleep(600);
	umms_test_player_do(t->bus, a, "Pause", NULL);
	int64_t pa = umms_test_get_int64(t->bus, a, "Position");
	int64_t pb = umms_test_get_int64(t->bus, b, "Position");
	g_assert_cmpint(pa, <, US(1.5));
	g_assert_cmpint(pb, >, US(10.3));
	assert_state(t->bus, b, "playing");
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/player/open-info", test_open_info);
	UMMS_TEST_ADD("/player/containers", test_containers);
	UMMS_TEST_ADD("/player/states", test_states);
	UMMS_TEST_ADD("/player/eos", test_eos);
	UMMS_TEST_ADD("/player/seek", test_seek);
	UMMS_TEST_ADD("/player/step", test_step);
	UMMS_TEST_ADD("/player/rate", test_rate);
	UMMS_TEST_ADD("/player/volume", test_volume);
	UMMS_TEST_ADD("/player/tracks", test_tracks);
	UMMS_TEST_ADD("/player/subtitle-uri", test_subtitle_uri);
	UMMS_TEST_ADD("/player/stats", test_stats);
	UMMS_TEST_ADD("/player/two-players", test_two_players);
	UMMS_TEST_ADD("/player/catch-up", test_catch_up);
	return g_test_run();
}
