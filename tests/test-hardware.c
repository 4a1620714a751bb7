/*
 * Hardware units shared out by ummsd (service/resources/), on the real bus:
 * org.umms.Resources1 and `ummsctl resources` show the pools; players at
 * different priorities compete for one configured H.264 decoder, lose it
 * (ResourceLost, Decoder says to whom) and get it back (ResourceRestored)
 * in priority order, keep playing meanwhile, and give it back when they
 * stop or die. No hardware is needed: the pools are configured; where
 * VA-API finds no driver (here), decoding stays software throughout.
 *
 * Then a real element of class Hardware, without hardware:
 * ummstesthwh264dec (hw-dec.h: avdec_h264 inside a bin of class
 * Codec/Decoder/Video/Hardware, ranked above avdec_h264), a plugin of the
 * tests (hw-plugin/) on GST_PLUGIN_PATH, so the engine workers plug it as
 * they would a real one; the tests that do not use it disable it
 * (engine.disable-decoders). It is counted in a pool like NVDEC's
 * nvh264dec would be, never plugged with decoders.h264=0, and changes
 * hands between players at different priorities: the loser reopens in
 * software and back.
 */
#include <string.h>
#include <gst/gst.h>

#include "harness.h"
#include "hw-dec.h"

#define HW_DECODER UMMS_TEST_HW_DEC

#define RESOURCES1 "org.umms.Resources1"

/* The tests of configured pools leave the test's hardware decoder out. */
#define NO_HW_ELEMENT "engine.disable-decoders=" HW_DECODER

static const char *const one_decoder[] = {
	"resources.decoders.h264=1", "resources.tuners=2", NO_HW_ELEMENT, NULL
};

static GVariant *
pools(struct umms_test *t, const char *property)
{
	return umms_test_get(t->bus, UMMS_ROOT, RESOURCES1, property);
}

/* The pool @kind of @property, as a{sv} (fails if there is none). */
static GVariant *
pool(struct umms_test *t, const char *property, const char *kind)
{
	g_autoptr(GVariant) all = pools(t, property);
	for (gsize i = 0; i < g_variant_n_children(all); i++) {
		GVariant *p = g_variant_get_child_value(all, i);
		const char *k = NULL;
		if (g_variant_lookup(p, "kind", "&s", &k) && strcmp(k, kind) == 0)
			return p;
		g_variant_unref(p);
	}
	g_error("no pool %s in %s", kind, property);
}

/* "a,b" of the pool's holders or waiting ones. */
static char *
who(struct umms_test *t, const char *field)
{
	g_autoptr(GVariant) p = pool(t, "Decoders", "decoder:h264");
	return umms_test_pool_names(p, field);
}

static GVariant *
h264_pool(struct umms_test *t)
{
	return pool(t, "Decoders", "decoder:h264");
}

static void
wait_holders(struct umms_test *t, const char *want)
{
	umms_test_wait_pool_holders(t, h264_pool, "decoder:h264", want, 5000);
}

static char *
player(struct umms_test *t, const char *priority)
{
	g_autofree char *options = g_strdup_printf("{'priority': <'%s'>}", priority);
	char *path = umms_test_create_player(t->bus, options);
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(t->bus, path, "SetUri", g_variant_new("(s)", uri));
	return path;
}

static void
assert_decoder(struct umms_test *t, const char *path, const char *words)
{
	g_autofree char *decoder = umms_test_get_string(t->bus, path, "Decoder");
	if (!strstr(decoder, words))
		g_error("%s: Decoder is \"%s\", without \"%s\"", path, decoder, words);
}

static void
test_table(struct umms_test *t, gconstpointer data)
{
	umms_test_restart(t, one_decoder);
	g_autoptr(GVariant) h264 = pool(t, "Decoders", "decoder:h264");
	guint32 total = 0, free_units = 0;
	const char *source = NULL;
	gboolean hardware = TRUE;
	g_assert_true(g_variant_lookup(h264, "total", "u", &total));
	g_assert_true(g_variant_lookup(h264, "free", "u", &free_units));
	g_assert_true(g_variant_lookup(h264, "source", "&s", &source));
	g_assert_true(g_variant_lookup(h264, "hardware", "b", &hardware));
	g_assert_cmpuint(total, ==, 1);
	g_assert_cmpuint(free_units, ==, 1);
	g_autoptr(GVariant) tuner = pool(t, "Tuners", "tuner");
	g_assert_true(g_variant_lookup(tuner, "total", "u", &total));
	g_assert_cmpuint(total, ==, 2);
	g_autofree char *va = NULL;
	g_autoptr(GVariant) va_v = umms_test_get(t->bus, UMMS_ROOT, RESOURCES1, "VaApi");
	va = g_variant_dup_string(va_v, NULL);
	g_test_message("VaApi: %s", va);
	/* Configured, or probed where a driver decodes H.264. */
	g_assert_cmpstr(source, ==, g_str_has_prefix(va, "none: ") ? "configured" : source);
	g_assert_true(hardware == !g_str_has_prefix(va, "none: ") || !hardware);
	g_autoptr(GVariant) prios = umms_test_get(t->bus, UMMS_ROOT, RESOURCES1, "Priorities");
	g_autofree const char **names = g_variant_get_strv(prios, NULL);
	g_autofree char *p = g_strjoinv(",", (char **)names);
	g_assert_cmpstr(p, ==, "recording,foreground,background");

	/* ummsctl resources: the table, a player holding the decoder in it. */
	g_autofree char *path = player(t, "foreground");
	umms_test_player_do(t->bus, path, "Play", NULL);
	wait_holders(t, path);
	g_autofree char *out = umms_test_ummsctl("resources", NULL);
	g_autofree char *line = g_strdup_printf("%s (foreground) / -", path);
	g_assert_nonnull(strstr(out, "decoder:h264"));
	g_assert_nonnull(strstr(out, line));
	g_assert_nonnull(strstr(out, "tuner"));
	g_assert_nonnull(strstr(out, "VA-API: "));
	/* Stopped: the unit is free again. */
	umms_test_player_do(t->bus, path, "Stop", NULL);
	wait_holders(t, "");
}

/* Positions of @path over @ms: the longest time it stood still, in ms. */
static double
longest_stall(struct umms_test *t, const char *path, unsigned ms)
{
	int64_t last = umms_test_get_int64(t->bus, path, "Position");
	gint64 since = g_get_monotonic_time(), end = since + (gint64)ms * 1000;
	double worst = 0;
	while (g_get_monotonic_time() < end) {
		umms_test_sleep(50);
		int64_t now = umms_test_get_int64(t->bus, path, "Position");
		gint64 t_now = g_get_monotonic_time();
		if (now != last) {
			last = now;
			since = t_now;
		}
		worst = MAX(worst, (double)(t_now - since) / 1000.0);
	}
	return worst;
}

static void
test_compete(struct umms_test *t, gconstpointer data)
{
	umms_test_restart(t, one_decoder);
	g_autofree char *bg = player(t, "background");
	g_autofree char *fg = player(t, "foreground");
	g_autofree char *rec = player(t, "recording");
	struct umms_test_signals *bg_signals = umms_test_signals_watch(t->bus, bg);
	struct umms_test_signals *fg_signals = umms_test_signals_watch(t->bus, fg);

	umms_test_player_do(t->bus, bg, "Play", NULL);
	wait_holders(t, bg);
	assert_decoder(t, bg, "holds decoder:h264");

	/* A foreground player takes it; the background one goes on in software. */
	umms_test_player_do(t->bus, fg, "Play", NULL);
	g_autoptr(GVariant) lost = umms_test_signals_wait(bg_signals, "ResourceLost", 5000);
	const char *kind = NULL;
	g_variant_get(lost, "(&s)", &kind);
	g_assert_cmpstr(kind, ==, "decoder:h264");
	wait_holders(t, fg);
	g_autofree char *taken = g_strdup_printf("decoder:h264 taken by %s", fg);
	assert_decoder(t, bg, taken);
	double stall = longest_stall(t, bg, 1500);
	g_test_message("background player: longest stall %.0f ms after losing its decoder", stall);
	g_assert_cmpfloat(stall, <, 1000);
	g_autofree char *state = umms_test_get_string(t->bus, bg, "State");
	g_assert_cmpstr(state, ==, "playing");

	/* A recording takes it from the foreground one: both wait, highest first. */
	umms_test_player_do(t->bus, rec, "Play", NULL);
	g_autoptr(GVariant) lost2 = umms_test_signals_wait(fg_signals, "ResourceLost", 5000);
	wait_holders(t, rec);
	g_autofree char *waiting = who(t, "waiting");
	g_autofree char *both = g_strdup_printf("%s,%s", bg, fg);
	g_assert_cmpstr(waiting, ==, both);

	/* The recording dies: the foreground player gets it back, not the background one. */
	g_autoptr(GVariant) r1 = umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", rec));
	g_autoptr(GVariant) back = umms_test_signals_wait(fg_signals, "ResourceRestored", 5000);
	wait_holders(t, fg);
	assert_decoder(t, fg, "holds decoder:h264");
	g_autofree char *still = who(t, "waiting");
	g_assert_cmpstr(still, ==, bg);

	/* Then the foreground one stops: the background one's turn. */
	umms_test_player_do(t->bus, fg, "Stop", NULL);
	g_autoptr(GVariant) back2 = umms_test_signals_wait(bg_signals, "ResourceRestored", 5000);
	wait_holders(t, bg);
	assert_decoder(t, bg, "holds decoder:h264");
	umms_test_signals_free(bg_signals);
	umms_test_signals_free(fg_signals);
}

static void
test_owner_gone(struct umms_test *t, gconstpointer data)
{
	umms_test_restart(t, one_decoder);
	g_autofree char *bg = player(t, "background");
	umms_test_player_do(t->bus, bg, "Play", NULL);
	wait_holders(t, bg);
	/* An application's attended player takes it, then the application vanishes. */
	GDBusConnection *app = umms_test_connect();
	g_autofree char *mine = umms_test_create_player(app, "{'attended': <true>}");
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(app, mine, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(app, mine, "Play", NULL);
	wait_holders(t, mine);
	g_dbus_connection_close_sync(app, NULL, NULL);
	g_object_unref(app);
	/* Its player and its unit go with it: the background player has it again. */
	wait_holders(t, bg);
	g_autofree char *waiting = who(t, "waiting");
	g_assert_cmpstr(waiting, ==, "");
}

/* Index of the video track of @codec in @path's VideoTracks. */
static int
track_of(struct umms_test *t, const char *path, const char *codec)
{
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, path, UMMS_PLAYER, "VideoTracks");
	for (gsize i = 0; i < g_variant_n_children(tracks); i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		const char *c = NULL;
		if (g_variant_lookup(track, "codec", "&s", &c) && strcmp(c, codec) == 0)
			return (int)i;
	}
	g_error("%s has no %s video track", path, codec);
}

/* two-video.mkv (H.264 and VP9 tracks) opened: the track the policy plays, and why. */
static void
assert_choice(struct umms_test *t, const char *codec, const char *why)
{
	g_autofree char *path = umms_test_open(t->bus, "two-video.mkv");
	int want = track_of(t, path, codec);
	umms_test_wait_property(t->bus, path, "CurrentVideo", g_variant_new_int32(want), 5000);
	umms_test_player_do(t->bus, path, "Play", NULL);
	umms_test_wait_position(t->bus, path, US(0.5), false, UMMS_TEST_TIMEOUT_MS);
	assert_decoder(t, path, why);
	g_autofree char *decoder = umms_test_get_string(t->bus, path, "Decoder");
	g_test_message("%s", decoder);
	umms_test_player_do(t->bus, path, "Stop", NULL);
}

static void
test_codec_policy(struct umms_test *t, gconstpointer data)
{
	/* No hardware: the cheaper codec to decode in software (H.264 before VP9). */
	const char *const none[] = { NO_HW_ELEMENT, NULL };
	umms_test_restart(t, none);
	assert_choice(t, "h264", "no hardware decoder for any track, the lowest cost (1)");
	/* Costs configured the other way. */
	const char *const costs[] = { "resources.codec-costs=vp9=1,h264=5", NO_HW_ELEMENT, NULL };
	umms_test_restart(t, costs);
	assert_choice(t, "vp9", "the lowest cost (1)");
	/* A hardware VP9 decoder (a pool of one) wins over the lower cost. */
	const char *const vp9[] = { "resources.decoders.vp9=1", NO_HW_ELEMENT, NULL };
	umms_test_restart(t, vp9);
	assert_choice(t, "vp9", "holds decoder:vp9; video track");
	assert_choice(t, "vp9", "a hardware decoder:vp9");
}

static void
test_bad_priorities(struct umms_test *t, gconstpointer data)
{
	/* A priority order that leaves a class out: ummsd says so and does not start. */
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) ummsd = g_subprocess_new(G_SUBPROCESS_FLAGS_STDERR_PIPE, &error,
		umms_test_program("ummsd"), "--address", umms_test_bus_address(), "--set",
		"resources.priorities=foreground,background", "--set", "video.enabled=false", NULL);
	g_assert_no_error(error);
	g_autofree char *err = NULL;
	g_subprocess_communicate_utf8(ummsd, NULL, NULL, NULL, &err, &error);
	g_assert_no_error(error);
	g_assert_false(g_subprocess_get_successful(ummsd));
	if (!strstr(err, "resources.priorities"))
		g_error("ummsd said: %s", err);
}

/* ---- the hardware element in pools ------------------------------------------- */

/* A player of @priority playing long.mkv. */
static char *
playing(struct umms_test *t, const char *priority)
{
	g_autofree char *path = player(t, priority);
	umms_test_player_do(t->bus, path, "Play", NULL);
	return g_steal_pointer(&path);
}

/* Polls until @path's Decoder starts with @prefix. */
static void
wait_decoder(struct umms_test *t, const char *path, const char *prefix)
{
	g_autofree char *decoder = NULL;
	for (int i = 0; i < 400; i++) {
		g_free(decoder);
		decoder = umms_test_get_string(t->bus, path, "Decoder");
		if (g_str_has_prefix(decoder, prefix))
			return;
		umms_test_sleep(25);
	}
	g_error("%s: Decoder is \"%s\", not \"%s…\"", path, decoder, prefix);
}

static guint64
frames_decoded(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, path, UMMS_PLAYER, "Stats");
	guint64 n = 0;
	g_assert_true(g_variant_lookup(stats, "frames-decoded", "t", &n));
	return n;
}

/* Frames keep coming: more decoded, and the position moves, over half a second. */
static void
assert_decoding(struct umms_test *t, const char *path)
{
	guint64 before = frames_decoded(t, path);
	int64_t position = umms_test_get_int64(t->bus, path, "Position");
	umms_test_wait_position(t->bus, path, position + US(0.5), false, UMMS_TEST_TIMEOUT_MS);
	guint64 after = frames_decoded(t, path);
	g_test_message("%s: %" G_GUINT64_FORMAT " frames decoded in 0.5 s of media", path,
		after - before);
	/*
	 * 25 fps: about 12 in half a second of media, fewer where the decoder
	 * had run ahead into the queues; or a restart of the engine's counter.
	 */
	if (!(after >= before + 3 || (after < before && after >= 3)))
		g_error("%s: %" G_GUINT64_FORMAT " then %" G_GUINT64_FORMAT " frames decoded", path,
			before, after);
}

static void
test_element_pool(struct umms_test *t, gconstpointer data)
{
	/* The fixture's ummsd: the element enabled, engines in workers. */
	g_autoptr(GVariant) h264 = pool(t, "Decoders", "decoder:h264");
	guint32 total = 0;
	const char *source = NULL;
	gboolean hardware = FALSE;
	g_autofree const char **elements = NULL;
	g_assert_true(g_variant_lookup(h264, "total", "u", &total));
	g_assert_true(g_variant_lookup(h264, "source", "&s", &source));
	g_assert_true(g_variant_lookup(h264, "hardware", "b", &hardware));
	g_assert_true(g_variant_lookup(h264, "elements", "^a&s", &elements));
	/* Nothing probes it: one unit for the element. */
	g_assert_cmpuint(total, ==, 1);
	g_assert_cmpstr(source, ==, "gstreamer");
	g_assert_true(hardware);
	g_assert_true(g_strv_contains(elements, HW_DECODER));

	g_autofree char *path = playing(t, "foreground");
	wait_holders(t, path);
	wait_decoder(t, path, HW_DECODER " (hardware; holds decoder:h264)");
	assert_decoding(t, path);

	g_autofree char *out = umms_test_ummsctl("resources", NULL);
	g_assert_nonnull(strstr(out, "elements: " HW_DECODER));
	g_autofree char *line = g_strdup_printf("%s (foreground) / -", path);
	g_assert_nonnull(strstr(out, line));
}

static void
test_element_policy_zero(struct umms_test *t, gconstpointer data)
{
	const char *const none[] = { "resources.decoders.h264=0", NULL };
	umms_test_restart(t, none);
	/* No pool: the element is never plugged, whatever the priority. */
	g_autoptr(GVariant) all = pools(t, "Decoders");
	for (gsize i = 0; i < g_variant_n_children(all); i++) {
		g_autoptr(GVariant) p = g_variant_get_child_value(all, i);
		const char *kind = NULL;
		g_assert_true(g_variant_lookup(p, "kind", "&s", &kind));
		g_assert_cmpstr(kind, !=, "decoder:h264");
	}
	g_autofree char *path = playing(t, "recording");
	wait_decoder(t, path, "avdec_h264 (software)");
	assert_decoding(t, path);
	g_autofree char *decoder = umms_test_get_string(t->bus, path, "Decoder");
	g_assert_null(strstr(decoder, HW_DECODER));
}

static void
test_element_preempt(struct umms_test *t, gconstpointer data)
{
	g_autofree char *bg = playing(t, "background");
	struct umms_test_signals *bg_signals = umms_test_signals_watch(t->bus, bg);
	wait_holders(t, bg);
	wait_decoder(t, bg, HW_DECODER " (hardware");
	umms_test_wait_position(t->bus, bg, US(1.5), false, UMMS_TEST_TIMEOUT_MS);
	int64_t before = umms_test_get_int64(t->bus, bg, "Position");

	/* A foreground player takes the one unit: bg reopens with avdec_h264, where it was. */
	g_autofree char *fg = playing(t, "foreground");
	g_autoptr(GVariant) lost = umms_test_signals_wait(bg_signals, "ResourceLost", 5000);
	wait_holders(t, fg);
	wait_decoder(t, fg, HW_DECODER " (hardware; holds decoder:h264)");
	g_autofree char *taken = g_strdup_printf("avdec_h264 (software; decoder:h264 taken by %s)",
		fg);
	wait_decoder(t, bg, taken);
	g_autoptr(GVariant) sought = umms_test_signals_wait(bg_signals, "Seeked", 5000);
	int64_t at = 0;
	g_variant_get(sought, "(x)", &at);
	g_test_message("background player: lost its decoder at %.3f s, in software from %.3f s",
		(double)before / 1e6, (double)at / 1e6);
	g_assert_cmpint(at, >=, before);
	assert_decoding(t, bg);
	assert_decoding(t, fg);
	g_autofree char *state = umms_test_get_string(t->bus, bg, "State");
	g_assert_cmpstr(state, ==, "playing");

	/* The foreground player goes: bg has it back and reopens in hardware. */
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", fg));
	g_autoptr(GVariant) back = umms_test_signals_wait(bg_signals, "ResourceRestored", 5000);
	wait_holders(t, bg);
	wait_decoder(t, bg, HW_DECODER " (hardware; holds decoder:h264)");
	/* Where it was, not from the start. */
	g_autoptr(GVariant) sought2 = umms_test_signals_wait(bg_signals, "Seeked", 5000);
	int64_t again = 0;
	g_variant_get(sought2, "(x)", &again);
	g_test_message("background player: in hardware again from %.3f s", (double)again / 1e6);
	g_assert_cmpint(again, >, at);
	assert_decoding(t, bg);
	umms_test_signals_free(bg_signals);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	gst_init(NULL, NULL);
	/* From the tests' plugin (GST_PLUGIN_PATH), as the workers see it. */
	GstPluginFeature *hw = gst_registry_lookup_feature(gst_registry_get(), HW_DECODER);
	if (!hw)
		g_error("no %s: GST_PLUGIN_PATH names no tests/hw-plugin", HW_DECODER);
	gst_object_unref(hw);
	UMMS_TEST_ADD("/hardware/table", test_table);
	UMMS_TEST_ADD("/hardware/compete", test_compete);
	UMMS_TEST_ADD("/hardware/owner-gone", test_owner_gone);
	UMMS_TEST_ADD("/hardware/codec-policy", test_codec_policy);
	UMMS_TEST_ADD("/hardware/bad-priorities", test_bad_priorities);
	UMMS_TEST_ADD("/hardware/element-pool", test_element_pool);
	UMMS_TEST_ADD("/hardware/element-policy-zero", test_element_policy_zero);
	UMMS_TEST_ADD("/hardware/element-preempt", test_element_preempt);
	return g_test_run();
}
