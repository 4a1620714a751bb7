/*
 * Bad input: every mistake gets its named org.umms.Error and a sentence, and
 * meanwhile another player, playing, never notices.
 */
#include <string.h>

#include "harness.h"

/* A second client's player, playing the long clip all along. */
struct bystander {
	GDBusConnection *bus;
	char *path;
	gint64 started;
};

static void
bystander_start(struct bystander *b)
{
	b->bus = umms_test_connect();
	b->path = umms_test_open(b->bus, "long.mkv");
	umms_test_player_do(b->bus, b->path, "Play", NULL);
	b->started = g_get_monotonic_time();
}

/* It is still playing, and its clock kept up with the wall clock. */
static void
bystander_check(struct bystander *b)
{
	g_autofree char *state = umms_test_get_string(b->bus, b->path, "State");
	g_assert_cmpstr(state, ==, "playing");
	int64_t position = umms_test_get_int64(b->bus, b->path, "Position");
	int64_t wall = g_get_monotonic_time() - b->started;
	g_test_message("bystander at %.2f s after %.2f s", position / 1e6, wall / 1e6);
	g_assert_cmpint(position, >, wall - US(0.5));
	g_assert_cmpint(position, <, wall + US(0.5));
	g_dbus_connection_close_sync(b->bus, NULL, NULL);
	g_object_unref(b->bus);
	g_free(b->path);
}

static char *
set_uri_error(GDBusConnection *bus, const char *player, const char *uri, const char *name)
{
	return umms_test_call_error(bus, player, UMMS_PLAYER, "SetUri", g_variant_new("(s)", uri),
		name);
}

static void
assert_contains(const char *text, const char *words)
{
	if (!strstr(text, words))
		g_error("\"%s\" does not say \"%s\"", text, words);
}

static void
test_bad_uris(struct umms_test *t, gconstpointer data)
{
	struct bystander b;
	bystander_start(&b);
	g_autofree char *p = umms_test_create_player(t->bus, NULL);

	g_autofree char *m1 = set_uri_error(t->bus, p, "/no/such/x.mp4", "org.umms.Error.NotFound");
	g_assert_cmpstr(m1, ==, "no such file: /no/such/x.mp4");
	g_autofree char *m2 = set_uri_error(t->bus, p, "file:///no/such/x.mp4",
		"org.umms.Error.NotFound");
	g_autofree char *m3 = set_uri_error(t->bus, p, "foo://bar/baz",
		"org.umms.Error.NotSupported");
	assert_contains(m3, "\"foo\"");
	g_autofree char *m4 = set_uri_error(t->bus, p, "clips/x.mp4",
		"org.umms.Error.InvalidArgument");
	assert_contains(m4, "not a URI");
	g_autofree char *m5 = set_uri_error(t->bus, p, "", "org.umms.Error.InvalidArgument");
	g_autofree char *m6 = set_uri_error(t->bus, p, umms_test_tmpdir(),
		"org.umms.Error.InvalidArgument");
	assert_contains(m6, "folder");

	/* A text file named .mp4: not media, said so. */
	g_autofree char *m7 = set_uri_error(t->bus, p, umms_test_clip("text.mp4"),
		"org.umms.Error.NotSupported");
	assert_contains(m7, "text.mp4");
	g_test_message("text.mp4: %s", m7);

	/* Nothing half-open is left: the next URI just works. */
	g_autofree char *uri = umms_test_clip_uri("av.mp4");
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.2), false, 3000);
	bystander_check(&b);
}

static void
test_no_media(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	static const struct {
		const char *method;
		const char *args;
	} calls[] = {
		{ "Play", NULL }, { "Pause", NULL }, { "Seek", "(int64 5,)" },
		{ "SetPosition", "(int64 5,)" }, { "StepFrame", "(1,)" },
		{ "SelectTrack", "('audio', 0)" }, { "SetSubtitleUri", "('/tmp/x.srt',)" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(calls); i++) {
		g_autoptr(GVariant) args = calls[i].args ?
			g_variant_parse(NULL, calls[i].args, NULL, NULL, NULL) : NULL;
		g_autofree char *m = umms_test_call_error(t->bus, p, UMMS_PLAYER, calls[i].method,
			args, "org.umms.Error.InvalidState");
		assert_contains(m, "SetUri");
	}
	/* Rate and volume can be set before any media; they apply to what comes. */
	GError *error = NULL;
	g_assert_true(umms_test_set(t->bus, p, "Volume", g_variant_new_double(0.5), &error));
	g_assert_true(umms_test_set(t->bus, p, "Rate", g_variant_new_double(2.0), &error));
	/* A read-only property is refused with our error, naming it. */
	g_assert_false(umms_test_set(t->bus, p, "Position", g_variant_new_int64(5), &error));
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name, ==, "org.umms.Error.InvalidArgument");
	assert_contains(error->message, "Position is read-only");
	g_clear_error(&error);
}

/* Either refused by SetUri, or it plays up to where the data stops. */
static void
play_damaged(struct umms_test *t, const char *clip)
{
	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *uri = umms_test_clip_uri(clip);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	GError *error = NULL;
	g_autoptr(GVariant) reply = umms_test_call(t->bus, p, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), &error);
	if (!reply) {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_test_message("%s: %s: %s", clip, name, error->message);
		g_assert_true(g_str_has_prefix(name, "org.umms.Error."));
		g_error_free(error);
	} else {
		umms_test_player_do(t->bus, p, "Play", NULL);
		/* An end, or a named error: both leave the player stopped. */
		gint64 end = g_get_monotonic_time() + 8 * G_USEC_PER_SEC;
		GVariant *got = NULL;
		while (!got && g_get_monotonic_time() < end) {
			umms_test_sleep(50);
			g_autofree char *state = umms_test_get_string(t->bus, p, "State");
			if (strcmp(state, "stopped") == 0)
				got = g_variant_new_boolean(TRUE);
		}
		g_assert_nonnull(got);
		g_variant_unref(g_variant_ref_sink(got));
		g_test_message("%s: played up to the damage, then stopped", clip);
	}
	umms_test_signals_free(signals);
	/* The player is usable afterwards. */
	g_autofree char *good = umms_test_clip_uri("av.mp4");
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", good));
	umms_test_player_do(t->bus, p, "Pause", NULL);
}

static void
test_damaged(struct umms_test *t, gconstpointer data)
{
	/*
	 * truncated.mp4 sometimes hangs GStreamer 1.22: qtdemux posts "no
	 * playable streams", yet no ERROR reaches the pipeline's bus, and SetUri
	 * waits for the open timeout. The harness's 60 s would leave it to
	 * engine.answer-timeout (20 s), as long as the bystander's clip; the
	 * service's default 10 s, less a margin, keeps that answer (a named
	 * error) well inside it.
	 */
	umms_test_restart(t, (const char *const[]){ "engine.open-timeout=8000", NULL });
	struct bystander b;
	bystander_start(&b);
	play_damaged(t, "truncated.mp4");
	play_damaged(t, "truncated.mkv");
	bystander_check(&b);
}

static void
test_missing_decoder(struct umms_test *t, gconstpointer data)
{
	/* A service whose only H.264 decoders are ruled out by configuration. */
	umms_test_restart(t, (const char *const[]){
		"engine.disable-decoders=avdec_h264,openh264dec", NULL });

	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *m = set_uri_error(t->bus, p, umms_test_clip("av.mp4"),
		"org.umms.Error.NotSupported");
	g_assert_cmpstr(m, ==, "codec h264: no decoder installed");
	/* Other codecs still play. */
	g_autofree char *uri = umms_test_clip_uri("vp9.webm");
	umms_test_player_do(t->bus, p, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.2), false, 3000);
}

static void
test_open_timeout(struct umms_test *t, gconstpointer data)
{
	/*
	 * A local file that does not open in time is given up with a named
	 * error (GStreamer 1.22 can hang on a damaged MP4 without one). With a
	 * 1 ms limit every file is too slow, which makes the path testable.
	 */
	umms_test_restart(t, (const char *const[]){ "engine.open-timeout=1", NULL });

	g_autofree char *p = umms_test_create_player(t->bus, NULL);
	g_autofree char *m = set_uri_error(t->bus, p, umms_test_clip("av.mkv"),
		"org.umms.Error.Failed");
	assert_contains(m, "could not be opened within 1 ms");
	g_autofree char *state = umms_test_get_string(t->bus, p, "State");
	g_assert_cmpstr(state, ==, "stopped");
	/* The service goes on serving. */
	g_autofree char *q = umms_test_create_player(t->bus, NULL);
	g_assert_nonnull(q);
}

/*
 * service.max-players-per-client, max-string-length and max-array-length:
 * each refused by its named error naming the key (test-dbus-fuzz throws
 * worse at every method).
 */
static void
test_limits(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "service.max-players-per-client=3",
		"service.max-string-length=4096", "service.max-array-length=16", NULL };
	umms_test_restart(t, overrides);

	/* One client gets three players, attended or not; then NoResource by name. */
	g_autofree char *a = umms_test_create_player(t->bus, NULL);
	g_autofree char *b = umms_test_create_player(t->bus, "{'attended': <false>}");
	g_autofree char *c = umms_test_create_player(t->bus, NULL);
	GVariant *opts = g_variant_new("a{sv}", NULL);
	g_autofree char *m1 = umms_test_call_error(t->bus, UMMS_ROOT, UMMS_MANAGER,
		"CreatePlayer", g_variant_new_tuple(&opts, 1), "org.umms.Error.NoResource");
	assert_contains(m1, "service.max-players-per-client");
	/* Another client still gets one. */
	GDBusConnection *other = umms_test_connect();
	g_autofree char *d = umms_test_create_player(other, NULL);
	/* And the first one its place back once it gives one up. */
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", b)));
	g_autofree char *e = umms_test_create_player(t->bus, NULL);

	/* A URI one byte over the limit, on Player1 and on MPRIS: refused by name. */
	g_autofree char *pad = g_strnfill(4096 - strlen("file:///") + 1, 'x');
	g_autofree char *uri = g_strconcat("file:///", pad, NULL);
	g_autofree char *m2 = umms_test_call_error(t->bus, a, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), "org.umms.Error.InvalidArgument");
	assert_contains(m2, "service.max-string-length");
	g_autofree char *mpris = g_strdup_printf("org.mpris.MediaPlayer2.umms.player%s",
		strrchr(a, '/') + 1);
	umms_test_wait_name(t->bus, mpris, true);
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(t->bus, mpris, "/org/mpris/MediaPlayer2",
		"org.mpris.MediaPlayer2.Player", "OpenUri", g_variant_new("(s)", uri), NULL,
		G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
	g_assert_null(reply);
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name, ==, "org.umms.Error.InvalidArgument");
	assert_contains(error->message, "service.max-string-length");
	g_clear_error(&error);
	/* One byte less is a URI like any other (no such file). */
	uri[strlen(uri) - 1] = '\0';
	g_autofree char *m3 = umms_test_call_error(t->bus, a, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), "org.umms.Error.NotFound");

	/* 17 options: over the array limit, whatever they say; nested arrays too. */
	GVariantBuilder builder;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("a{sv}"));
	for (int i = 0; i < 17; i++) {
		g_autofree char *key = g_strdup_printf("k%d", i);
		g_variant_builder_add(&builder, "{sv}", key, g_variant_new_boolean(TRUE));
	}
	opts = g_variant_builder_end(&builder);
	g_autofree char *m4 = umms_test_call_error(other, UMMS_ROOT, UMMS_MANAGER,
		"CreatePlayer", g_variant_new_tuple(&opts, 1), "org.umms.Error.InvalidArgument");
	assert_contains(m4, "service.max-array-length");
	g_autoptr(GVariant) long_array = g_variant_parse(NULL, "({'x': <[1,2,3,4,5,6,7,8,9,10,"
		"11,12,13,14,15,16,17]>},)", NULL, NULL, NULL);
	g_autofree char *m5 = umms_test_call_error(other, UMMS_ROOT, UMMS_MANAGER,
		"CreatePlayer", long_array, "org.umms.Error.InvalidArgument");
	assert_contains(m5, "service.max-array-length");

	g_dbus_connection_close_sync(other, NULL, NULL);
	g_object_unref(other);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/errors/bad-uris", test_bad_uris);
	UMMS_TEST_ADD("/errors/no-media", test_no_media);
	UMMS_TEST_ADD("/errors/damaged", test_damaged);
	UMMS_TEST_ADD("/errors/missing-decoder", test_missing_decoder);
	UMMS_TEST_ADD("/errors/open-timeout", test_open_timeout);
	UMMS_TEST_ADD("/errors/limits", test_limits);
	return g_test_run();
}
