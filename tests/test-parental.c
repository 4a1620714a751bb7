/*
 * Parental control's policy (service/parental/, issue 18) through
 * org.umms.Parental1 on the bus: defaults, the PIN (Argon2id in the
 * database, never the digits; mode 0600), WrongPin and the lockout, kept
 * across a restart of ummsd and a new connection; bad arguments refused by
 * name without costing a try. The rating table, the verdict's order and
 * unlock grants through parental.h on a Parental1 of the test's own
 * (umms_parental_create on a connection of the test), and ummsctl parental.
 *
 * What a player shows blocked (the enforcement) is tested with it, not here.
 */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "harness.h"
#include "parental.h"

#define PARENTAL1 "org.umms.Parental1"
#define PIN "90817263"

/* A fresh service on a database of its own, @name.db in the scratch folder. */
static char *
fresh(struct umms_test *t, const char *name)
{
	char *db = g_strdup_printf("%s/%s.db", umms_test_tmpdir(), name);
	g_autofree char *key = g_strdup_printf("recording.database=%s", db);
	const char *const overrides[] = { key, NULL };
	umms_test_restart(t, overrides);
	return db;
}

static void
call_ok(GDBusConnection *bus, const char *method, GVariant *params)
{
	g_variant_unref(umms_test_call_ok(bus, UMMS_ROOT, PARENTAL1, method, params));
}

static char *
call_error(GDBusConnection *bus, const char *method, GVariant *params, const char *name)
{
	return umms_test_call_error(bus, UMMS_ROOT, PARENTAL1, method, params, name);
}

static bool
get_bool(GDBusConnection *bus, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(bus, UMMS_ROOT, PARENTAL1, property);
	return g_variant_get_boolean(v);
}

static char *
get_text(GDBusConnection *bus, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(bus, UMMS_ROOT, PARENTAL1, property);
	return g_variant_print(v, false);
}

static void
test_defaults(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "defaults");
	g_assert_false(get_bool(t->bus, "Enabled"));
	g_assert_false(get_bool(t->bus, "BlockUnrated"));
	g_assert_false(get_bool(t->bus, "PinSet"));
	g_autofree char *thresholds = get_text(t->bus, "Thresholds");
	g_assert_cmpstr(thresholds, ==, "{}");
	g_autofree char *locked = get_text(t->bus, "LockedChannels");
	g_assert_cmpstr(locked, ==, "[]");
	/* No PIN set: any string passes, the settings change and say so. */
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	call_ok(t->bus, "SetEnabled", g_variant_new("(sb)", "whatever", true));
	g_variant_unref(umms_test_signals_wait(signals, "Changed", 5000));
	g_assert_true(get_bool(t->bus, "Enabled"));
	call_ok(t->bus, "SetThreshold", g_variant_new("(ssi)", "", "FSK", 12));
	call_ok(t->bus, "SetThreshold", g_variant_new("(ssi)", "", "age", 16));
	call_ok(t->bus, "LockChannel", g_variant_new("(sxb)", "", (gint64)42, true));
	call_ok(t->bus, "LockChannel", g_variant_new("(sxb)", "", (gint64)7, true));
	call_ok(t->bus, "SetBlockUnrated", g_variant_new("(sb)", "", true));
	umms_test_signals_free(signals);

	/* Kept across a restart. */
	g_autofree char *key = g_strdup_printf("recording.database=%s", db);
	const char *const overrides[] = { key, NULL };
	umms_test_restart(t, overrides);
	g_assert_true(get_bool(t->bus, "Enabled"));
	g_assert_true(get_bool(t->bus, "BlockUnrated"));
	g_autofree char *thresholds2 = get_text(t->bus, "Thresholds");
	g_assert_cmpstr(thresholds2, ==, "{'FSK': 12, 'age': 16}");
	g_autofree char *locked2 = get_text(t->bus, "LockedChannels");
	g_assert_cmpstr(locked2, ==, "[7, 42]");
	/* -1 removes a threshold, false unlocks. */
	call_ok(t->bus, "SetThreshold", g_variant_new("(ssi)", "", "fsk", -1));
	call_ok(t->bus, "LockChannel", g_variant_new("(sxb)", "", (gint64)42, false));
	g_autofree char *thresholds3 = get_text(t->bus, "Thresholds");
	g_assert_cmpstr(thresholds3, ==, "{'age': 16}");
	g_autofree char *locked3 = get_text(t->bus, "LockedChannels");
	g_assert_cmpstr(locked3, ==, "[7]");
}

/* The database file and its WAL as one text, with both files' modes checked. */
static GString *
database_bytes(const char *db)
{
	GString *all = g_string_new(NULL);
	const char *const suffixes[] = { "", "-wal" };
	for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
		g_autofree char *path = g_strconcat(db, suffixes[i], NULL);
		GStatBuf st;
		if (g_stat(path, &st) != 0) {
			g_assert_cmpuint(i, >, 0);
			continue;
		}
		g_assert_cmpuint(st.st_mode & 0777, ==, 0600);
		g_autofree char *contents = NULL;
		gsize length = 0;
		g_assert_true(g_file_get_contents(path, &contents, &length, NULL));
		g_string_append_len(all, contents, (gssize)length);
	}
	return all;
}

static bool
bytes_contain(const GString *bytes, const char *needle)
{
	return memmem(bytes->str, bytes->len, needle, strlen(needle)) != NULL;
}

static void
test_pin(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "pin");
	/* Not 4 to 8 digits. */
	const char *const bad[] = { "123", "123456789", "12a4", "", " 1234" };
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
		g_free(call_error(t->bus, "SetPin", g_variant_new("(ss)", "", bad[i]),
			"org.umms.Error.InvalidArgument"));
	g_assert_false(get_bool(t->bus, "PinSet"));

	int64_t start = g_get_monotonic_time();
	call_ok(t->bus, "SetPin", g_variant_new("(ss)", "", PIN));
	g_test_message("SetPin (one Argon2id hash) answered in %.0f ms",
		(g_get_monotonic_time() - start) / 1000.0);
	g_assert_true(get_bool(t->bus, "PinSet"));

	/* Settings need it now. */
	g_free(call_error(t->bus, "SetEnabled", g_variant_new("(sb)", "", true),
		"org.umms.Error.WrongPin"));
	g_free(call_error(t->bus, "SetEnabled", g_variant_new("(sb)", "1234", true),
		"org.umms.Error.WrongPin"));
	g_free(call_error(t->bus, "SetPin", g_variant_new("(ss)", "0000", "1111"),
		"org.umms.Error.WrongPin"));
	g_assert_false(get_bool(t->bus, "Enabled"));
	start = g_get_monotonic_time();
	call_ok(t->bus, "SetEnabled", g_variant_new("(sb)", PIN, true));
	g_test_message("SetEnabled (one Argon2id check) answered in %.0f ms",
		(g_get_monotonic_time() - start) / 1000.0);
	g_assert_true(get_bool(t->bus, "Enabled"));

	/* The file keeps the hash, never the digits; mode 0600. */
	g_autoptr(GString) bytes = database_bytes(db);
	g_assert_true(bytes_contain(bytes, "$argon2id$"));
	g_assert_false(bytes_contain(bytes, PIN));

	/* A new PIN replaces the old one. */
	call_ok(t->bus, "SetPin", g_variant_new("(ss)", PIN, "4321"));
	g_free(call_error(t->bus, "SetBlockUnrated", g_variant_new("(sb)", PIN, true),
		"org.umms.Error.WrongPin"));
	call_ok(t->bus, "SetBlockUnrated", g_variant_new("(sb)", "4321", true));
	g_assert_true(get_bool(t->bus, "BlockUnrated"));
}

struct pending {
	unsigned replies, refused;
	GString *errors;
};

static void
pending_done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct pending *pending = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	pending->replies++;
	if (reply) {
		g_variant_unref(reply);
		return;
	}
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	if (g_strcmp0(name, "org.umms.Error.NoResource") == 0)
		pending->refused++;
	else
		g_string_append_printf(pending->errors, "%s: %s; ", name, error->message);
	g_error_free(error);
}

/*
 * Checks run beside the main loop, one at a time, from a queue of 8: the
 * service answers a property while the PIN is hashed, and 12 calls at once
 * get 1 running, 8 waiting and 3 NoResource.
 */
static void
test_queue(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "queue");
	struct pending pending = { .errors = g_string_new(NULL) };
	g_dbus_connection_call(t->bus, UMMS_NAME, UMMS_ROOT, PARENTAL1, "SetPin",
		g_variant_new("(ss)", "", PIN), NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL,
		pending_done, &pending);
	/* Argon2id takes a tenth of a second or more: PinSet is still false. */
	g_assert_false(get_bool(t->bus, "PinSet"));
	while (pending.replies < 1)
		g_main_context_iteration(NULL, true);
	g_assert_cmpstr(pending.errors->str, ==, "");
	g_assert_true(get_bool(t->bus, "PinSet"));

	pending.replies = 0;
	int64_t start = g_get_monotonic_time();
	for (int i = 0; i < 12; i++)
		g_dbus_connection_call(t->bus, UMMS_NAME, UMMS_ROOT, PARENTAL1, "SetBlockUnrated",
			g_variant_new("(sb)", PIN, i % 2 == 0), NULL, G_DBUS_CALL_FLAGS_NONE, 60000,
			NULL, pending_done, &pending);
	while (pending.replies < 12)
		g_main_context_iteration(NULL, true);
	g_test_message("12 calls at once: %u refused, the others answered in %.0f ms",
		pending.refused, (g_get_monotonic_time() - start) / 1000.0);
	g_assert_cmpstr(pending.errors->str, ==, "");
	g_assert_cmpuint(pending.refused, ==, 3);
	/* The 9th call, the last one run, set it (i = 8: true). */
	g_assert_true(get_bool(t->bus, "BlockUnrated"));
	g_string_free(pending.errors, true);
}

/* "… N seconds left": N. */
static int
seconds_left(const char *message)
{
	const char *p = strstr(message, " seconds left");
	g_assert_nonnull(p);
	while (p > message && g_ascii_isdigit(p[-1]))
		p--;
	return atoi(p);
}

static void
test_lockout(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "lockout");
	call_ok(t->bus, "SetPin", g_variant_new("(ss)", "", PIN));
	for (int i = 0; i < 5; i++) {
		/* Not even digits: wrong all the same. */
		const char *wrong = i == 2 ? "abc" : "11112222";
		g_autofree char *message = call_error(t->bus, "SetEnabled",
			g_variant_new("(sb)", wrong, true), "org.umms.Error.WrongPin");
		g_test_message("wrong PIN %d: %s", i + 1, message);
	}
	g_autofree char *locked = call_error(t->bus, "SetEnabled",
		g_variant_new("(sb)", PIN, true), "org.umms.Error.LockedOut");
	g_test_message("the right PIN: %s", locked);
	int left = seconds_left(locked);
	g_assert_cmpint(left, >, 50);
	g_assert_cmpint(left, <=, 60);
	/* Unlock too, from another connection. */
	g_autoptr(GDBusConnection) other = umms_test_connect();
	g_autofree char *locked2 = call_error(other, "Unlock", g_variant_new("(ossu)",
		"/org/umms/player/1", PIN, "time", 60u), "org.umms.Error.LockedOut");
	g_assert_cmpint(seconds_left(locked2), <=, left);

	/* ummsd again on the same database. */
	g_autofree char *key = g_strdup_printf("recording.database=%s", db);
	const char *const overrides[] = { key, NULL };
	umms_test_restart(t, overrides);
	g_autofree char *locked3 = call_error(t->bus, "SetEnabled",
		g_variant_new("(sb)", PIN, true), "org.umms.Error.LockedOut");
	g_test_message("after a restart: %s", locked3);
	g_assert_cmpint(seconds_left(locked3), >, 40);
	g_assert_cmpint(seconds_left(locked3), <=, left);
	g_autoptr(GDBusConnection) third = umms_test_connect();
	g_free(call_error(third, "SetThreshold", g_variant_new("(ssi)", PIN, "age", 12),
		"org.umms.Error.LockedOut"));
	g_assert_false(get_bool(t->bus, "Enabled"));
	g_autoptr(GString) bytes = database_bytes(db);
	g_assert_false(bytes_contain(bytes, PIN));

	/*
	 * The lockout's end moved into the past while ummsd is stopped (no
	 * waiting a minute): 5 more wrong PINs lock it out for twice as long.
	 */
	umms_test_service_stop(t->service);
	t->service = NULL;
	sqlite3 *sql = NULL;
	g_assert_cmpint(sqlite3_open(db, &sql), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_exec(sql, "UPDATE parental_settings SET value = 1"
		" WHERE key = 'locked-until'", NULL, NULL, NULL), ==, SQLITE_OK);
	g_assert_cmpint(sqlite3_changes(sql), ==, 1);
	sqlite3_close(sql);
	umms_test_restart(t, overrides);
	for (int i = 0; i < 4; i++)
		g_free(call_error(t->bus, "SetEnabled", g_variant_new("(sb)", "0000", true),
			"org.umms.Error.WrongPin"));
	g_autofree char *fifth = call_error(t->bus, "SetEnabled",
		g_variant_new("(sb)", "0000", true), "org.umms.Error.WrongPin");
	g_assert_nonnull(strstr(fifth, "locked out for 120 seconds"));
	g_autofree char *locked4 = call_error(t->bus, "SetEnabled",
		g_variant_new("(sb)", PIN, true), "org.umms.Error.LockedOut");
	g_test_message("the second lockout: %s", locked4);
	g_assert_cmpint(seconds_left(locked4), >, 100);
	g_assert_cmpint(seconds_left(locked4), <=, 120);
}

static void
test_bad_arguments(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "bad");
	call_ok(t->bus, "SetPin", g_variant_new("(ss)", "", PIN));
	const char *invalid = "org.umms.Error.InvalidArgument";
	/* Six refusals, none of them a wrong PIN: the right one still passes after. */
	g_free(call_error(t->bus, "Unlock", g_variant_new("(ossu)", "/org/umms", "1", "time",
		10u), invalid));
	g_free(call_error(t->bus, "Unlock", g_variant_new("(ossu)", "/org/umms/player/3", "1",
		"forever", 10u), invalid));
	g_free(call_error(t->bus, "Unlock", g_variant_new("(ossu)", "/org/umms/player/3", "1",
		"time", 0u), invalid));
	g_free(call_error(t->bus, "Unlock", g_variant_new("(ossu)", "/org/umms/player/3", "1",
		"time", 86401u), invalid));
	g_free(call_error(t->bus, "SetThreshold", g_variant_new("(ssi)", "1", "MP AA", 12),
		invalid));
	g_free(call_error(t->bus, "SetThreshold", g_variant_new("(ssi)", "1", "MPAA", 100),
		invalid));
	g_free(call_error(t->bus, "LockChannel", g_variant_new("(sxb)", "1", (gint64)0, true),
		invalid));
	/* A wrong type is named too (the guard). */
	g_free(call_error(t->bus, "SetEnabled", g_variant_new("(s)", PIN), invalid));
	call_ok(t->bus, "Unlock", g_variant_new("(ossu)", "/org/umms/player/3", PIN, "time", 10u));
	call_ok(t->bus, "SetEnabled", g_variant_new("(sb)", PIN, true));
	g_assert_true(get_bool(t->bus, "Enabled"));
}

/* ---- parental.h on a Parental1 of the test's own --------------------------------------------- */

struct own {
	GDBusConnection *service;  /* the connection it is exported on */
	GDBusConnection *client;
	struct umms_config config;
	struct umms_parental *parental;
	struct wl_listener changed;
	unsigned changes;
};

static void
changed_cb(struct wl_listener *listener, void *data)
{
	(void)data;
	struct own *own = wl_container_of(listener, own, changed);
	own->changes++;
}

static void
reply_cb(GObject *source, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	g_assert_no_error(error);
	g_variant_unref(reply);
	*(bool *)data = true;
}

/* Calls our own Parental1 and runs the main loop (where it answers) until it did. */
static void
own_call(struct own *own, const char *method, GVariant *params)
{
	bool done = false;
	g_dbus_connection_call(own->client, g_dbus_connection_get_unique_name(own->service),
		UMMS_ROOT, PARENTAL1, method, params, NULL, G_DBUS_CALL_FLAGS_NONE, 10000, NULL,
		reply_cb, &done);
	int64_t end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (!done && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, true);
	g_assert_true(done);
}

static void
own_start(struct own *own, const char *name)
{
	own->service = umms_test_connect();
	own->client = umms_test_connect();
	umms_config_init(&own->config);
	g_autofree char *db = g_strdup_printf("%s/%s.db", umms_test_tmpdir(), name);
	GError *error = NULL;
	g_assert_true(umms_config_set(&own->config, "recording.database", db, &error));
	g_assert_true(umms_config_set(&own->config, "parental.ratings",
		"MPAA:PG-13=12, Local:X=18,DVB:GBR:Z=19", &error));
	own->parental = umms_parental_create(&own->config, own->service, &error);
	g_assert_no_error(error);
	own->changed.notify = changed_cb;
	wl_signal_add(&umms_parental_get_events(own->parental)->changed, &own->changed);
}

static void
own_stop(struct own *own)
{
	wl_list_remove(&own->changed.link);
	umms_parental_destroy(own->parental);
	umms_config_finish(&own->config);
	g_object_unref(own->client);
	g_object_unref(own->service);
}

static void
test_rating_table(void)
{
	struct own own = { 0 };
	own_start(&own, "table");
	struct umms_parental *p = own.parental;
	/* The built-in table. */
	g_assert_cmpint(umms_parental_rating_age(p, "MPAA", "G"), ==, 0);
	g_assert_cmpint(umms_parental_rating_age(p, "MPAA", "R"), ==, 17);
	g_assert_cmpint(umms_parental_rating_age(p, "MPAA", "NC-17"), ==, 18);
	g_assert_cmpint(umms_parental_rating_age(p, "BBFC", "12A"), ==, 12);
	g_assert_cmpint(umms_parental_rating_age(p, "BBFC", "R18"), ==, 18);
	g_assert_cmpint(umms_parental_rating_age(p, "FSK", "16"), ==, 16);
	g_assert_cmpint(umms_parental_rating_age(p, "US_TV", "TV-PG"), ==, 10);
	g_assert_cmpint(umms_parental_rating_age(p, "US_TV", "TV-MA"), ==, 17);
	g_assert_cmpint(umms_parental_rating_age(p, "us_tv", "tv-14"), ==, 14);
	/*
	 * DVB: the descriptor's byte, with or without a country: 0x01–0x0F are
	 * the byte + 3; 0 (undefined) and the broadcaster's own are unknown.
	 */
	g_assert_cmpint(umms_parental_rating_age(p, "DVB", "1"), ==, 4);
	g_assert_cmpint(umms_parental_rating_age(p, "DVB:GBR", "15"), ==, 18);
	g_assert_cmpint(umms_parental_rating_age(p, "DVB", "0"), ==, -1);
	g_assert_cmpint(umms_parental_rating_age(p, "DVB", "18"), ==, -1);
	/* [parental] ratings: overriding, adding, and a country's own. */
	g_assert_cmpint(umms_parental_rating_age(p, "MPAA", "PG-13"), ==, 12);
	g_assert_cmpint(umms_parental_rating_age(p, "Local", "X"), ==, 18);
	g_assert_cmpint(umms_parental_rating_age(p, "DVB:GBR", "Z"), ==, 19);
	/* Unknown. */
	g_assert_cmpint(umms_parental_rating_age(p, "MPAA", "XX"), ==, -1);
	g_assert_cmpint(umms_parental_rating_age(p, "Nowhere", "12"), ==, -1);
	g_assert_cmpint(umms_parental_rating_age(p, NULL, "12"), ==, -1);
	g_assert_cmpint(umms_parental_rating_age(p, "DVB", "-3"), ==, -1);
	own_stop(&own);

	/* A bad entry stops it with a named error. */
	struct umms_config config;
	umms_config_init(&config);
	GError *error = NULL;
	g_autofree char *db = g_strdup_printf("%s/bad-ratings.db", umms_test_tmpdir());
	g_assert_true(umms_config_set(&config, "recording.database", db, &error));
	g_assert_true(umms_config_set(&config, "parental.ratings", "MPAA=12", &error));
	g_autoptr(GDBusConnection) bus = umms_test_connect();
	g_assert_null(umms_parental_create(&config, bus, &error));
	g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
	g_assert_nonnull(strstr(error->message, "parental.ratings"));
	g_error_free(error);
	umms_config_finish(&config);
}

static struct umms_parental_verdict
verdict(struct own *own, const char *player, int64_t channel, int64_t programme,
	const char *system, const char *rating, int min_age, bool tv)
{
	const struct umms_parental_content content = {
		.uri = "dvb://test", .channel = channel, .programme = programme,
		.rating_system = system, .rating = rating, .min_age = min_age, .tv = tv,
	};
	struct umms_parental_verdict out;
	umms_parental_check(own->parental, player, &content, &out);
	return out;
}

static void
assert_verdict(struct umms_parental_verdict v, const char *reason, const char *rating)
{
	g_assert_cmpstr(v.reason, ==, reason);
	g_assert_true(v.blocked == (reason != NULL));
	g_assert_cmpstr(v.rating, ==, rating);
}

static void
test_verdicts(void)
{
	struct own own = { 0 };
	own_start(&own, "verdicts");
	const char *player = "/org/umms/player/9";
	/* Disabled: nothing blocked, whatever the settings. */
	own_call(&own, "LockChannel", g_variant_new("(sxb)", "", (gint64)5, true));
	own_call(&own, "SetThreshold", g_variant_new("(ssi)", "", "age", 12));
	own_call(&own, "SetBlockUnrated", g_variant_new("(sb)", "", true));
	assert_verdict(verdict(&own, player, 5, 0, "FSK", "18", -1, true), NULL, "FSK 18");
	g_assert_cmpuint(own.changes, ==, 3);
	own_call(&own, "SetEnabled", g_variant_new("(sb)", "", true));
	g_assert_cmpuint(own.changes, ==, 4);

	/* The order: a locked channel, then the rating, then unrated. */
	assert_verdict(verdict(&own, player, 5, 0, "FSK", "18", -1, true), "channel-locked",
		"FSK 18");
	assert_verdict(verdict(&own, player, 6, 0, "FSK", "18", -1, true), "rating", "FSK 18");
	assert_verdict(verdict(&own, player, 6, 0, "FSK", "12", -1, true), NULL, "FSK 12");
	assert_verdict(verdict(&own, player, 6, 0, NULL, NULL, -1, true), "unrated", "");
	/* A file of the user's own is never unrated. */
	assert_verdict(verdict(&own, player, 0, 0, NULL, NULL, -1, false), NULL, "");
	/* A rating the table does not know: the age the guide gave, else unrated. */
	assert_verdict(verdict(&own, player, 6, 0, "CHVRS", "14A", 14, true), "rating",
		"CHVRS 14A");
	assert_verdict(verdict(&own, player, 6, 0, "CHVRS", "14A", -1, true), "unrated",
		"CHVRS 14A");
	assert_verdict(verdict(&own, player, 6, 0, NULL, NULL, 16, true), "rating", "16+");
	/* A scheme's own threshold overrides "age"; its family too ("DVB:GBR" → "DVB"). */
	own_call(&own, "SetThreshold", g_variant_new("(ssi)", "", "MPAA", 17));
	own_call(&own, "SetThreshold", g_variant_new("(ssi)", "", "DVB", 15));
	assert_verdict(verdict(&own, player, 6, 0, "MPAA", "R", -1, true), NULL, "MPAA R");
	assert_verdict(verdict(&own, player, 6, 0, "MPAA", "NC-17", -1, true), "rating",
		"MPAA NC-17");
	assert_verdict(verdict(&own, player, 6, 0, "DVB:GBR", "12", -1, true), NULL,
		"DVB:GBR 15+");
	assert_verdict(verdict(&own, player, 6, 0, "DVB:GBR", "13", -1, true), "rating",
		"DVB:GBR 16+");
	assert_verdict(verdict(&own, player, 6, 0, "FSK", "16", -1, true), "rating", "FSK 16");

	/* Scope programme: bound to what the player shows at its next check. */
	unsigned before = own.changes;
	own_call(&own, "Unlock", g_variant_new("(ossu)", player, "", "programme", 0u));
	g_assert_cmpuint(own.changes, ==, before + 1);
	assert_verdict(verdict(&own, "/org/umms/player/10", 6, 100, "FSK", "18", -1, true),
		"rating", "FSK 18");
	assert_verdict(verdict(&own, player, 6, 100, "FSK", "18", -1, true), NULL, "FSK 18");
	assert_verdict(verdict(&own, player, 6, 100, "FSK", "18", -1, true), NULL, "FSK 18");
	assert_verdict(verdict(&own, player, 6, 101, "FSK", "18", -1, true), "rating", "FSK 18");
	/* Once over, over: back to the programme unlocked, blocked again. */
	assert_verdict(verdict(&own, player, 6, 100, "FSK", "18", -1, true), "rating", "FSK 18");

	/* Scope channel: the locked channel, until another channel. */
	own_call(&own, "Unlock", g_variant_new("(ossu)", player, "", "channel", 0u));
	assert_verdict(verdict(&own, player, 5, 200, "FSK", "18", -1, true), NULL, "FSK 18");
	assert_verdict(verdict(&own, player, 5, 201, NULL, NULL, -1, true), NULL, "");
	assert_verdict(verdict(&own, player, 6, 201, NULL, NULL, -1, true), "unrated", "");
	assert_verdict(verdict(&own, player, 5, 201, NULL, NULL, -1, true), "channel-locked", "");

	/* Scope time: anything, for its seconds; the player going takes it along. */
	own_call(&own, "Unlock", g_variant_new("(ossu)", player, "", "time", 1u));
	assert_verdict(verdict(&own, player, 5, 0, "FSK", "18", -1, true), NULL, "FSK 18");
	assert_verdict(verdict(&own, player, 6, 7, NULL, NULL, -1, true), NULL, "");
	umms_test_sleep(1100);
	assert_verdict(verdict(&own, player, 6, 7, NULL, NULL, -1, true), "unrated", "");
	own_call(&own, "Unlock", g_variant_new("(ossu)", player, "", "time", 60u));
	umms_parental_forget_player(own.parental, player);
	assert_verdict(verdict(&own, player, 5, 0, NULL, NULL, -1, true), "channel-locked", "");
	own_stop(&own);
}

/* ---- ummsctl parental ------------------------------------------------------------------------ */

static void
test_ummsctl(struct umms_test *t, gconstpointer data)
{
	(void)data;
	g_autofree char *db = fresh(t, "ummsctl");
	g_autofree char *status = umms_test_ummsctl("parental", "status", NULL);
	g_test_message("%s", status);
	g_assert_nonnull(strstr(status, "enabled: no"));
	g_assert_nonnull(strstr(status, "PIN: not set"));
	g_free(umms_test_ummsctl("parental", "set-pin", "--pin", "", "--new-pin", "2468", NULL));
	g_assert_true(get_bool(t->bus, "PinSet"));
	g_free(umms_test_ummsctl("parental", "enable", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "threshold", "MPAA", "13", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "threshold", "age", "16", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "block-unrated", "on", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "lock-channel", "12", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "lock-channel", "3", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "unlock-channel", "12", "--pin", "2468", NULL));
	g_free(umms_test_ummsctl("parental", "unlock", "/org/umms/player/4", "time", "30",
		"--pin", "2468", NULL));
	g_assert_true(get_bool(t->bus, "Enabled"));
	g_assert_true(get_bool(t->bus, "BlockUnrated"));
	g_autofree char *thresholds = get_text(t->bus, "Thresholds");
	g_assert_cmpstr(thresholds, ==, "{'MPAA': 13, 'age': 16}");
	g_autofree char *locked = get_text(t->bus, "LockedChannels");
	g_assert_cmpstr(locked, ==, "[3]");
	g_autofree char *status2 = umms_test_ummsctl("parental", "status", NULL);
	g_test_message("%s", status2);
	g_assert_nonnull(strstr(status2, "enabled: yes"));
	g_assert_nonnull(strstr(status2, "block unrated: yes"));
	g_assert_nonnull(strstr(status2, "PIN: set"));
	g_assert_nonnull(strstr(status2, "MPAA 13"));
	g_assert_nonnull(strstr(status2, "locked channels: 3"));

	/* The PIN on stdin; a wrong one: exit status 1 and the error's name. */
	const char *const argv[] = { umms_test_program("ummsctl"), "parental", "disable", NULL };
	g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
		G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
		G_SUBPROCESS_FLAGS_STDERR_PIPE);
	GError *error = NULL;
	g_autoptr(GSubprocess) wrong = g_subprocess_launcher_spawnv(launcher, argv, &error);
	g_assert_no_error(error);
	g_autofree char *out = NULL, *err = NULL;
	g_assert_true(g_subprocess_communicate_utf8(wrong, "1357\n", NULL, &out, &err, &error));
	g_assert_no_error(error);
	g_test_message("wrong PIN: %s", err);
	g_assert_cmpint(g_subprocess_get_exit_status(wrong), ==, 1);
	g_assert_nonnull(strstr(err, "WrongPin"));
	g_assert_true(get_bool(t->bus, "Enabled"));
	g_autoptr(GSubprocess) right = g_subprocess_launcher_spawnv(launcher, argv, &error);
	g_assert_no_error(error);
	g_autofree char *out2 = NULL, *err2 = NULL;
	g_assert_true(g_subprocess_communicate_utf8(right, "2468\n", NULL, &out2, &err2, &error));
	g_assert_no_error(error);
	g_assert_cmpint(g_subprocess_get_exit_status(right), ==, 0);
	g_assert_false(get_bool(t->bus, "Enabled"));
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/parental/defaults", test_defaults);
	UMMS_TEST_ADD("/parental/pin", test_pin);
	UMMS_TEST_ADD("/parental/lockout", test_lockout);
	UMMS_TEST_ADD("/parental/bad-arguments", test_bad_arguments);
	UMMS_TEST_ADD("/parental/queue", test_queue);
	g_test_add_func("/parental/rating-table", test_rating_table);
	g_test_add_func("/parental/verdicts", test_verdicts);
	UMMS_TEST_ADD("/parental/ummsctl", test_ummsctl);
	return g_test_run();
}
