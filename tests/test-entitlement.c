/*
 * Entitlements (service/entitlement/, org.umms.Entitlement1) as a client
 * sees them: Player1.SetUri and Play refused with
 * org.umms.Error.NotEntitled naming why, plays counted once per playback,
 * times, revocation, prefix items, a restart of ummsd, bad terms, and a
 * 48 h window on a clock moved by libfaketime in a spawned ummsd (set back
 * afterwards: the stored high-water mark keeps the window shut), and
 * `ummsctl entitlements`.
 *
 * The media: copies of a generated clip under names of the test's own
 * (its scratch folder), so that each item is a URI of its own.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define ENTITLEMENT1 "org.umms.Entitlement1"
#define H ((int64_t)3600 * G_USEC_PER_SEC)

/* A fresh ummsd with a database of its own (@name.db in the scratch folder). */
static void
fresh(struct umms_test *t, const char *name)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	const char *const overrides[] = { db, NULL };
	umms_test_restart(t, overrides);
}

/* A copy of clip long.mkv as @name in a folder of the scratch folder: its file:// URI. */
static char *
media(const char *folder, const char *name)
{
	g_autofree char *dir = g_build_filename(umms_test_tmpdir(), folder, NULL);
	g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
	g_autofree char *path = g_build_filename(dir, name, NULL);
	if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
		g_autofree char *data = NULL;
		gsize size = 0;
		GError *error = NULL;
		g_file_get_contents(umms_test_clip("long.mkv"), &data, &size, &error);
		g_assert_no_error(error);
		g_file_set_contents(path, data, (gssize)size, &error);
		g_assert_no_error(error);
	}
	return g_filename_to_uri(path, NULL, NULL);
}

static GVariant *
terms(const char *text)
{
	GError *error = NULL;
	GVariant *v = g_variant_parse(G_VARIANT_TYPE_VARDICT, text, NULL, NULL, &error);
	g_assert_no_error(error);
	return v;
}

static void
grant(GDBusConnection *bus, const char *item, const char *text)
{
	g_variant_unref(umms_test_call_ok(bus, UMMS_ROOT, ENTITLEMENT1, "Grant",
		g_variant_new("(s@a{sv})", item, terms(text))));
}

static GVariant *
get(GDBusConnection *bus, const char *item)
{
	g_autoptr(GVariant) r = umms_test_call_ok(bus, UMMS_ROOT, ENTITLEMENT1, "Get",
		g_variant_new("(s)", item));
	GVariant *d = NULL;
	g_variant_get(r, "(@a{sv})", &d);
	g_autofree char *text = g_variant_print(d, false);
	g_test_message("Get %s: %s", item, text);
	return d;
}

static guint32
plays(GDBusConnection *bus, const char *item)
{
	g_autoptr(GVariant) d = get(bus, item);
	guint32 n = G_MAXUINT32;
	g_assert_true(g_variant_lookup(d, "plays", "u", &n));
	return n;
}

static void
wait_state(GDBusConnection *bus, const char *player, const char *state)
{
	umms_test_wait_property(bus, player, "State", g_variant_new_string(state),
		UMMS_TEST_TIMEOUT_MS);
}

/* SetUri @uri, Play, playing, Stop: one playback. */
static void
play_once(GDBusConnection *bus, const char *player, const char *uri)
{
	umms_test_player_do(bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(bus, player, "Play", NULL);
	wait_state(bus, player, "playing");
	umms_test_player_do(bus, player, "Stop", NULL);
	wait_state(bus, player, "stopped");
}

/* @method of @player refused NotEntitled, its message holding @why. */
static void
refused(GDBusConnection *bus, const char *player, const char *method, GVariant *params,
	const char *why)
{
	g_autofree char *message = umms_test_call_error(bus, player, UMMS_PLAYER, method, params,
		"org.umms.Error.NotEntitled");
	g_test_message("%s refused: %s", method, message);
	if (!strstr(message, why))
		g_error("%s: \"%s\" does not say \"%s\"", method, message, why);
}

/* 2 plays: the third is refused; a pause and Play within one playback counts once. */
static void
test_max_plays(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "max-plays");
	g_autofree char *uri = media("max-plays", "film.mkv");
	grant(t->bus, uri, "{'max-plays': <uint32 2>}");
	g_autofree char *player = umms_test_create_player(t->bus, NULL);

	/* Playback 1: play, pause, play again, pause, play: one play. */
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	g_assert_cmpuint(plays(t->bus, uri), ==, 0);
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_state(t->bus, player, "playing");
	for (int i = 0; i < 2; i++) {
		umms_test_player_do(t->bus, player, "Pause", NULL);
		wait_state(t->bus, player, "paused");
		umms_test_player_do(t->bus, player, "Play", NULL);
		wait_state(t->bus, player, "playing");
	}
	g_assert_cmpuint(plays(t->bus, uri), ==, 1);
	umms_test_player_do(t->bus, player, "Stop", NULL);
	wait_state(t->bus, player, "stopped");

	/* Playback 2: Stop then Play is a new one; its pause and Play are allowed. */
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_state(t->bus, player, "playing");
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	wait_state(t->bus, player, "paused");
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_state(t->bus, player, "playing");
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);
	umms_test_player_do(t->bus, player, "Stop", NULL);
	wait_state(t->bus, player, "stopped");

	/* The third: Play (same Uri), SetUri, and from another player. */
	refused(t->bus, player, "Play", NULL, "no plays left: 2 of 2 used");
	refused(t->bus, player, "SetUri", g_variant_new("(s)", uri), "no plays left: 2 of 2 used");
	g_autofree char *other = umms_test_create_player(t->bus, NULL);
	refused(t->bus, other, "SetUri", g_variant_new("(s)", uri), "no plays left");
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "stopped");
	g_autoptr(GVariant) d = get(t->bus, uri);
	gboolean valid = TRUE;
	const char *why = NULL;
	g_assert_true(g_variant_lookup(d, "valid", "b", &valid));
	g_assert_false(valid);
	g_assert_true(g_variant_lookup(d, "why", "&s", &why));
	g_assert_cmpstr(why, ==, "no plays left: 2 of 2 used");

	/* Kept across a restart of ummsd. */
	fresh(t, "max-plays");
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);
	g_autofree char *after = umms_test_create_player(t->bus, NULL);
	refused(t->bus, after, "SetUri", g_variant_new("(s)", uri), "no plays left: 2 of 2 used");

	/* A Grant again (bought again) starts the plays anew. */
	grant(t->bus, uri, "{'max-plays': <uint32 1>}");
	play_once(t->bus, after, uri);
	refused(t->bus, after, "SetUri", g_variant_new("(s)", uri), "no plays left: 1 of 1 used");
}

struct answer {
	GError *error;
	bool done;
};

static void
play_done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct answer *answer = data;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result,
		&answer->error);
	if (reply)
		g_variant_unref(reply);
	answer->done = true;
}

/*
 * One play left and two players asking at once: the first Play holds the
 * play while its pipeline starts, so the second is refused ("1 starting
 * in other players"); were both let through, the one that reached playing
 * second would be stopped. Either way the item plays no more often than
 * granted.
 */
static void
test_two_players(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "two-players");
	g_autofree char *uri = media("two", "film.mkv");
	grant(t->bus, uri, "{'max-plays': <uint32 2>}");
	g_autofree char *a = umms_test_create_player(t->bus, NULL);
	g_autofree char *b = umms_test_create_player(t->bus, NULL);
	g_autofree char *c = umms_test_create_player(t->bus, NULL);
	play_once(t->bus, a, uri);
	/* Stopped: each Play has to start the pipeline again, which takes a while. */
	umms_test_player_do(t->bus, b, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, c, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, b, "Stop", NULL);
	umms_test_player_do(t->bus, c, "Stop", NULL);
	umms_test_sleep(500);
	struct answer answers[2] = { { NULL, false }, { NULL, false } };
	const char *players[] = { b, c };
	for (int i = 0; i < 2; i++)
		g_dbus_connection_call(t->bus, UMMS_NAME, players[i], UMMS_PLAYER, "Play", NULL, NULL,
			G_DBUS_CALL_FLAGS_NONE, 30000, NULL, play_done, &answers[i]);
	while (!answers[0].done || !answers[1].done)
		g_main_context_iteration(NULL, TRUE);
	for (int i = 0; i < 2; i++)
		g_test_message("Play of %s: %s", players[i],
			answers[i].error ? answers[i].error->message : "ok");
	/* Whichever way it went: one plays, the other ends stopped, 2 plays in all. */
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	unsigned playing = 0, stopped = 0;
	while (g_get_monotonic_time() < end) {
		g_autofree char *sb = umms_test_get_string(t->bus, b, "State");
		g_autofree char *sc = umms_test_get_string(t->bus, c, "State");
		playing = (strcmp(sb, "playing") == 0) + (strcmp(sc, "playing") == 0);
		stopped = (strcmp(sb, "stopped") == 0) + (strcmp(sc, "stopped") == 0);
		if (playing == 1 && stopped == 1)
			break;
		umms_test_sleep(50);
	}
	g_assert_cmpuint(playing, ==, 1);
	g_assert_cmpuint(stopped, ==, 1);
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);
	for (int i = 0; i < 2; i++)
		g_clear_error(&answers[i].error);
}

/* not-after in the past, not-before in the future: refused, and nothing counted. */
static void
test_times(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "times");
	g_autofree char *past = media("times", "past.mkv");
	g_autofree char *future = media("times", "future.mkv");
	g_autofree char *now = media("times", "now.mkv");
	int64_t real = g_get_real_time();
	g_autofree char *t1 = g_strdup_printf("{'not-after': <int64 %" G_GINT64_FORMAT ">}",
		real - H);
	g_autofree char *t2 = g_strdup_printf("{'not-before': <int64 %" G_GINT64_FORMAT ">}",
		real + H);
	g_autofree char *t3 = g_strdup_printf("{'not-before': <int64 %" G_GINT64_FORMAT ">,"
		" 'not-after': <int64 %" G_GINT64_FORMAT ">}", real - H, real + H);
	grant(t->bus, past, t1);
	grant(t->bus, future, t2);
	grant(t->bus, now, t3);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	refused(t->bus, player, "SetUri", g_variant_new("(s)", past), "not after ");
	refused(t->bus, player, "SetUri", g_variant_new("(s)", future), "not before ");
	play_once(t->bus, player, now);
	g_assert_cmpuint(plays(t->bus, now), ==, 1);
	g_assert_cmpuint(plays(t->bus, past), ==, 0);
	g_assert_cmpuint(plays(t->bus, future), ==, 0);
	/* The message names the time, in UTC. */
	g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc((real - H) / G_USEC_PER_SEC);
	g_autofree char *text = g_date_time_format(at, "not after %Y-%m-%d %H:%M:%S UTC");
	refused(t->bus, player, "SetUri", g_variant_new("(s)", past), text);
}

/* Revoke refuses, also what plays; a URI no item covers plays; prefixes. */
static void
test_revoke_prefix(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "revoke");
	g_autofree char *free_uri = media("free", "any.mkv");
	g_autofree char *a = media("vod", "a.mkv");
	g_autofree char *b = media("vod", "b.mkv");
	g_autofree char *special = media("vod", "special.mkv");
	g_autofree char *vod_dir = g_build_filename(umms_test_tmpdir(), "vod", NULL);
	/* A path prefix: stored as its file:// URI. */
	g_autofree char *prefix_path = g_strconcat(vod_dir, "/*", NULL);
	g_autofree char *vod_uri = g_filename_to_uri(vod_dir, NULL, NULL);
	g_autofree char *prefix = g_strconcat(vod_uri, "/*", NULL);
	grant(t->bus, prefix_path, "{'max-plays': <uint32 1>}");
	grant(t->bus, special, "@a{sv} {}");

	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	/* Nothing covers it: plays, as often as asked. */
	for (int i = 0; i < 3; i++)
		play_once(t->bus, player, free_uri);
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Get",
		g_variant_new("(s)", free_uri), "org.umms.Error.NotFound"));

	/* The prefix covers a and b: one play for them together. */
	play_once(t->bus, player, a);
	refused(t->bus, player, "SetUri", g_variant_new("(s)", b), "no plays left: 1 of 1 used");
	g_autoptr(GVariant) d = get(t->bus, b);
	const char *covering = NULL;
	g_assert_true(g_variant_lookup(d, "item", "&s", &covering));
	g_assert_cmpstr(covering, ==, prefix);
	/* The item that is the URI itself goes before the prefix. */
	play_once(t->bus, player, special);
	play_once(t->bus, player, special);
	g_assert_cmpuint(plays(t->bus, special), ==, 2);

	/* Revoke: refused while it plays (stopped), and after. */
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", special));
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_state(t->bus, player, "playing");
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, ENTITLEMENT1, "Revoke",
		g_variant_new("(s)", special)));
	wait_state(t->bus, player, "stopped");
	refused(t->bus, player, "Play", NULL, "revoked");
	refused(t->bus, player, "SetUri", g_variant_new("(s)", special), "revoked");
	/* Revoked, it stays controlled: the prefix's plays do not free it. */
	g_autoptr(GVariant) list = umms_test_call_ok(t->bus, UMMS_ROOT, ENTITLEMENT1, "List",
		NULL);
	g_autofree char *text = g_variant_print(list, false);
	g_test_message("List: %s", text);
	g_assert_nonnull(strstr(text, special));
	g_assert_nonnull(strstr(text, prefix));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Revoke",
		g_variant_new("(s)", free_uri), "org.umms.Error.NotFound"));
	/* And after a restart. */
	fresh(t, "revoke");
	g_autofree char *again = umms_test_create_player(t->bus, NULL);
	refused(t->bus, again, "SetUri", g_variant_new("(s)", special), "revoked");
	refused(t->bus, again, "SetUri", g_variant_new("(s)", b), "no plays left");
	play_once(t->bus, again, free_uri);
}

/* Bad terms: types, zeros, order, unknown keys, huge strings; ummsd goes on. */
static void
test_bad_input(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "bad");
	g_autofree char *uri = media("bad", "x.mkv");
	static const char *const bad[] = {
		"{'max-plays': <int32 2>}",
		"{'max-plays': <'2'>}",
		"{'max-plays': <uint32 0>}",
		"{'window': <int64 3600>}",
		"{'not-after': <uint32 5>}",
		"{'not-before': <int64 -5>}",
		"{'not-before': <int64 2000000000000000>, 'not-after': <int64 1000000000000000>}",
		"{'max-play': <uint32 2>}",
		"{'': <uint32 2>}",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autofree char *message = umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1,
			"Grant", g_variant_new("(s@a{sv})", uri, terms(bad[i])),
			"org.umms.Error.InvalidArgument");
		g_test_message("%s: %s", bad[i], message);
	}
	/* An unknown key of 60 KiB: refused, and the message stays short. */
	g_autofree char *big_key = g_strnfill(60000, 'k');
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&b, "{sv}", big_key, g_variant_new_uint32(1));
	g_autofree char *message = umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Grant",
		g_variant_new("(sa{sv})", uri, &b), "org.umms.Error.InvalidArgument");
	g_assert_cmpuint(strlen(message), <, 400);
	/* Items: empty, relative, too long (past 4096 bytes, and past the bus guard's limit). */
	g_autofree char *long_item = g_strconcat("http://example.com/", NULL);
	g_autofree char *pad = g_strnfill(5000, 'a');
	g_autofree char *long_uri = g_strconcat(long_item, pad, NULL);
	g_autofree char *huge_pad = g_strnfill(1 << 20, 'a');
	g_autofree char *huge_uri = g_strconcat(long_item, huge_pad, NULL);
	const char *const items[] = { "", "film.mkv", "*", "vod/*", long_uri, huge_uri };
	for (size_t i = 0; i < G_N_ELEMENTS(items); i++) {
		g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Grant",
			g_variant_new("(s@a{sv})", items[i], terms("@a{sv} {}")),
			"org.umms.Error.InvalidArgument"));
		g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Get",
			g_variant_new("(s)", items[i]), "org.umms.Error.InvalidArgument"));
	}
	/* Wrong argument types: the bus guard names them. */
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Grant",
		g_variant_new("(su)", uri, 5), "org.umms.Error.InvalidArgument"));
	g_free(umms_test_call_error(t->bus, UMMS_ROOT, ENTITLEMENT1, "Revoke",
		g_variant_new("(u)", 5), "org.umms.Error.InvalidArgument"));
	/* Nothing was granted; it still serves. */
	g_autoptr(GVariant) list = umms_test_call_ok(t->bus, UMMS_ROOT, ENTITLEMENT1, "List",
		NULL);
	g_autoptr(GVariant) items_granted = g_variant_get_child_value(list, 0);
	g_assert_cmpuint(g_variant_n_children(items_granted), ==, 0);
	grant(t->bus, uri, "{'max-plays': <uint32 3>, 'window': <uint32 60>}");
	g_assert_cmpuint(plays(t->bus, uri), ==, 0);
}

/* `ummsctl entitlements`: grant, list, get, revoke. */
static void
test_ummsctl(struct umms_test *t, gconstpointer data)
{
	(void)data;
	fresh(t, "ummsctl");
	g_autofree char *uri = media("ctl", "film.mkv");
	g_autofree char *path = g_filename_from_uri(uri, NULL, NULL);
	g_free(umms_test_ummsctl("entitlements", "grant", path, "--max-plays", "2",
		"--not-after", "2099-01-01T00:00:00Z", "--window", "172800", NULL));
	g_autofree char *listed = umms_test_ummsctl("entitlements", "list", NULL);
	g_assert_nonnull(strstr(listed, uri));
	g_autofree char *got = umms_test_ummsctl("entitlements", "get", uri, NULL);
	g_assert_nonnull(strstr(got, "max-plays 2"));
	g_assert_nonnull(strstr(got, "plays 0"));
	g_assert_nonnull(strstr(got, "not-after 2099-01-01 00:00:00 UTC"));
	g_assert_nonnull(strstr(got, "window 48 h"));
	g_assert_nonnull(strstr(got, "valid"));
	g_autoptr(GVariant) d = get(t->bus, uri);
	int64_t not_after = 0;
	g_assert_true(g_variant_lookup(d, "not-after", "x", &not_after));
	g_assert_cmpint(not_after, ==, (int64_t)4070908800 * G_USEC_PER_SEC);
	g_free(umms_test_ummsctl("entitlements", "revoke", uri, NULL));
	g_autofree char *revoked = umms_test_ummsctl("entitlements", "get", uri, NULL);
	g_assert_nonnull(strstr(revoked, "not valid: revoked"));
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	refused(t->bus, player, "SetUri", g_variant_new("(s)", uri), "revoked");
}

/* ---- A 48 h window on a clock libfaketime moves ------------------------------------------- */

static const char *
libfaketime(void)
{
	static const char *const paths[] = {
		"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
		"/usr/lib/faketime/libfaketime.so.1",
	};
	for (size_t i = 0; i < G_N_ELEMENTS(paths); i++) {
		if (g_file_test(paths[i], G_FILE_TEST_EXISTS))
			return paths[i];
	}
	return NULL;
}

/* The offset of the faked clock from the real one: "+169200" (seconds). */
static void
set_clock(const char *file, int64_t offset_s)
{
	g_autofree char *text = g_strdup_printf("%+" G_GINT64_FORMAT "\n", offset_s);
	GError *error = NULL;
	g_file_set_contents(file, text, -1, &error);
	g_assert_no_error(error);
	g_test_message("ummsd's clock: real %s s", text);
}

static GSubprocess *
spawn_faked(struct umms_test *t, const char *lib, const char *clock_file, const char *db)
{
	g_autofree char *preload = g_strconcat("LD_PRELOAD=", lib, NULL);
	g_autofree char *timestamp = g_strconcat("FAKETIME_TIMESTAMP_FILE=", clock_file, NULL);
	g_autofree char *db_set = g_strconcat("recording.database=", db, NULL);
	const char *const env[] = {
		preload, timestamp,
		/* The file read at every call, so a new offset holds at once. */
		"FAKETIME_NO_CACHE=1",
		/* GLib's timers and GStreamer's clocks run on as they do. */
		"FAKETIME_DONT_FAKE_MONOTONIC=1",
		/* libfaketime is loaded before ASan's runtime (LD_PRELOAD). */
		"ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:abort_on_error=0:"
			"fast_unwind_on_malloc=0",
		NULL,
	};
	/* In ummsd: the engine workers' sandbox would be asked to read the clock file. */
	const char *const args[] = { "--set", db_set, "--set", "engine.isolation=in-process",
		"--set", "log.scopes=core=info", NULL };
	GSubprocess *ummsd = umms_test_spawn_ummsd_env(args, env, G_SUBPROCESS_FLAGS_NONE);
	umms_test_wait_name(t->bus, UMMS_NAME, true);
	return ummsd;
}

static void
stop_faked(struct umms_test *t, GSubprocess *ummsd)
{
	g_subprocess_send_signal(ummsd, SIGTERM);
	GError *error = NULL;
	g_subprocess_wait(ummsd, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(ummsd));
	g_assert_cmpint(g_subprocess_get_exit_status(ummsd), ==, 0);
	g_object_unref(ummsd);
	umms_test_wait_name(t->bus, UMMS_NAME, false);
}

static void
test_window_faketime(struct umms_test *t, gconstpointer data)
{
	(void)data;
	const char *lib = libfaketime();
	if (!lib) {
		g_test_fail_printf("no libfaketime.so.1 (Debian package faketime, tools/install-deps)");
		return;
	}
	g_autofree char *clock_file = g_build_filename(umms_test_tmpdir(), "faketime", NULL);
	g_autofree char *db = g_build_filename(umms_test_tmpdir(), "window.db", NULL);
	g_autofree char *uri = media("window", "rented.mkv");
	set_clock(clock_file, 0);
	GSubprocess *ummsd = spawn_faked(t, lib, clock_file, db);

	grant(t->bus, uri, "{'window': <uint32 172800>}");
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	/* T: the first play starts the 48 h. */
	play_once(t->bus, player, uri);
	g_autoptr(GVariant) d = get(t->bus, uri);
	int64_t first = 0;
	g_assert_true(g_variant_lookup(d, "first-play", "x", &first));
	g_assert_cmpint(llabs(first - g_get_real_time()), <, 60 * G_USEC_PER_SEC);

	/* T + 47 h: plays. */
	set_clock(clock_file, 47 * 3600);
	play_once(t->bus, player, uri);
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);

	/* T + 49 h: the window ended. */
	set_clock(clock_file, 49 * 3600);
	refused(t->bus, player, "SetUri", g_variant_new("(s)", uri),
		"the 48 h window from the first play ended");

	/* Set back to T + 46 h: still ended (the highest time seen). */
	set_clock(clock_file, 46 * 3600);
	refused(t->bus, player, "SetUri", g_variant_new("(s)", uri),
		"the 48 h window from the first play ended");
	refused(t->bus, player, "Play", NULL, "the 48 h window from the first play ended");

	/* And so after a restart at T + 46 h: the mark is stored. */
	stop_faked(t, ummsd);
	ummsd = spawn_faked(t, lib, clock_file, db);
	g_autofree char *again = umms_test_create_player(t->bus, NULL);
	refused(t->bus, again, "SetUri", g_variant_new("(s)", uri),
		"the 48 h window from the first play ended");
	g_assert_cmpuint(plays(t->bus, uri), ==, 2);
	stop_faked(t, ummsd);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	umms_test_fixture_without_service();
	UMMS_TEST_ADD("/entitlement/max-plays", test_max_plays);
	UMMS_TEST_ADD("/entitlement/two-players", test_two_players);
	UMMS_TEST_ADD("/entitlement/times", test_times);
	UMMS_TEST_ADD("/entitlement/revoke-prefix", test_revoke_prefix);
	UMMS_TEST_ADD("/entitlement/bad-input", test_bad_input);
	UMMS_TEST_ADD("/entitlement/ummsctl", test_ummsctl);
	UMMS_TEST_ADD("/entitlement/window-faketime", test_window_faketime);
	return g_test_run();
}
