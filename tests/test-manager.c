/*
 * org.umms.Manager1 and the player lifecycle: creating and destroying players,
 * the object manager, attended players dying with their client, unattended
 * ones surviving it and expiring, limits, and names for every mistake.
 */
#include <string.h>

#include "harness.h"

static GVariant *
manager_get(GDBusConnection *bus, const char *property)
{
	return umms_test_get(bus, UMMS_ROOT, UMMS_MANAGER, property);
}

static void
test_properties(struct umms_test *t, gconstpointer data)
{
	g_autoptr(GVariant) version = manager_get(t->bus, "Version");
	g_assert_cmpstr(g_variant_get_string(version, NULL), ==, "0.1.0");
	g_autoptr(GVariant) engines = manager_get(t->bus, "Engines");
	g_autofree const char **names = g_variant_get_strv(engines, NULL);
	g_assert_cmpstr(names[0], ==, "gstreamer");
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);
}

static void
test_create_destroy(struct umms_test *t, gconstpointer data)
{
	struct umms_test_signals *root = umms_test_signals_watch(t->bus, UMMS_ROOT);
	g_autofree char *a = umms_test_create_player(t->bus, NULL);
	g_autofree char *b = umms_test_create_player(t->bus,
		"{'attended': <false>, 'ttl': <uint64 600>, 'priority': <'background'>}");
	g_assert_cmpstr(a, ==, "/org/umms/player/1");
	g_assert_cmpstr(b, ==, "/org/umms/player/2");

	/* Players lists them oldest first; each announces itself. */
	g_autoptr(GVariant) players = manager_get(t->bus, "Players");
	g_assert_cmpuint(g_variant_n_children(players), ==, 2);
	g_autoptr(GVariant) first = g_variant_get_child_value(players, 0);
	g_assert_cmpstr(g_variant_get_string(first, NULL), ==, a);
	g_autoptr(GVariant) added = umms_test_signals_wait(root, "InterfacesAdded", 2000);
	const char *added_path;
	g_variant_get_child(added, 0, "&o", &added_path);
	g_assert_cmpstr(added_path, ==, a);

	/* The creation options read back. */
	g_autofree char *priority = umms_test_get_string(t->bus, b, "Priority");
	g_assert_cmpstr(priority, ==, "background");
	g_assert_false(umms_test_get_bool(t->bus, b, "Attended"));
	g_assert_true(umms_test_get_bool(t->bus, a, "Attended"));
	g_autofree char *state = umms_test_get_string(t->bus, a, "State");
	g_assert_cmpstr(state, ==, "stopped");
	g_assert_cmpint(umms_test_get_int64(t->bus, a, "Duration"), ==, -1);

	/* GetManagedObjects carries every property of every player. */
	g_autoptr(GVariant) managed = umms_test_call_ok(t->bus, UMMS_ROOT,
		"org.freedesktop.DBus.ObjectManager", "GetManagedObjects", NULL);
	g_autoptr(GVariant) objects = g_variant_get_child_value(managed, 0);
	g_assert_cmpuint(g_variant_n_children(objects), ==, 2);
	g_autoptr(GVariant) ifaces = g_variant_lookup_value(objects, b, G_VARIANT_TYPE("a{sa{sv}}"));
	g_assert_nonnull(ifaces);
	g_autoptr(GVariant) props = g_variant_lookup_value(ifaces, UMMS_PLAYER, NULL);
	g_autoptr(GVariant) prio = g_variant_lookup_value(props, "Priority", NULL);
	g_assert_cmpstr(g_variant_get_string(prio, NULL), ==, "background");

	umms_test_signals_clear(root);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", a)));
	g_autoptr(GVariant) removed = umms_test_signals_wait(root, "InterfacesRemoved", 2000);
	const char *removed_path;
	g_variant_get_child(removed, 0, "&o", &removed_path);
	g_assert_cmpstr(removed_path, ==, a);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);

	/* Gone means gone: a named error, on methods and properties alike. */
	g_autofree char *m1 = umms_test_call_error(t->bus, a, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
	g_assert_nonnull(strstr(m1, a));
	g_autofree char *m2 = umms_test_call_error(t->bus, a, "org.freedesktop.DBus.Properties",
		"Get", g_variant_new("(ss)", UMMS_PLAYER, "State"), "org.umms.Error.NotFound");
	g_autofree char *m3 = umms_test_call_error(t->bus, UMMS_ROOT, UMMS_MANAGER,
		"DestroyPlayer", g_variant_new("(o)", a), "org.umms.Error.NotFound");
	g_assert_nonnull(strstr(m3, "no such player"));
	g_autofree char *m4 = umms_test_call_error(t->bus, "/org/umms/player/999", UMMS_PLAYER,
		"SetUri", g_variant_new("(s)", "file:///x"), "org.umms.Error.NotFound");

	/* Numbers are never reused, so a stale path can never reach a new player. */
	g_autofree char *c = umms_test_create_player(t->bus, NULL);
	g_assert_cmpstr(c, ==, "/org/umms/player/3");
	umms_test_signals_free(root);
}

static void
test_bad_options(struct umms_test *t, gconstpointer data)
{
	static const struct {
		const char *options;
		const char *words;
	} cases[] = {
		{ "{'colour': <'red'>}", "unknown option \"colour\"" },
		{ "{'attended': <'yes'>}", "option \"attended\" has the wrong type" },
		{ "{'ttl': <'soon'>}", "option \"ttl\"" },
		{ "{'ttl': <int32 -5>}", "option \"ttl\"" },
		{ "{'priority': <'urgent'>}", "unknown priority \"urgent\"" },
		{ "{'priority': <7>}", "option \"priority\"" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(GVariant) options = g_variant_parse(G_VARIANT_TYPE("a{sv}"), cases[i].options,
			NULL, NULL, NULL);
		g_autofree char *message = umms_test_call_error(t->bus, UMMS_ROOT, UMMS_MANAGER,
			"CreatePlayer", g_variant_new_tuple(&options, 1),
			"org.umms.Error.InvalidArgument");
		if (!strstr(message, cases[i].words))
			g_error("%s: \"%s\" lacks \"%s\"", cases[i].options, message, cases[i].words);
	}
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);
}

static void
test_wrong_types(struct umms_test *t, gconstpointer data)
{
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	/* Every call with arguments of the wrong types gets InvalidArgument, with both types. */
	g_autofree char *m1 = umms_test_call_error(t->bus, player, UMMS_PLAYER, "SetUri",
		g_variant_new("(i)", 5), "org.umms.Error.InvalidArgument");
	g_assert_nonnull(strstr(m1, "(s)"));
	g_assert_nonnull(strstr(m1, "(i)"));
	g_autofree char *m2 = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Seek",
		g_variant_new("(s)", "+10"), "org.umms.Error.InvalidArgument");
	g_autofree char *m3 = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Play",
		g_variant_new("(b)", TRUE), "org.umms.Error.InvalidArgument");
	g_autofree char *m4 = umms_test_call_error(t->bus, player, UMMS_PLAYER, "SelectTrack",
		g_variant_new("(is)", 1, "audio"), "org.umms.Error.InvalidArgument");
	g_autofree char *m5 = umms_test_call_error(t->bus, UMMS_ROOT, UMMS_MANAGER,
		"CreatePlayer", g_variant_new("(s)", "{}"), "org.umms.Error.InvalidArgument");
	GError *error = NULL;
	g_assert_false(umms_test_set(t->bus, player, "Volume", g_variant_new_string("loud"), &error));
	g_autofree char *name = g_dbus_error_get_remote_error(error);
	g_assert_cmpstr(name, ==, "org.umms.Error.InvalidArgument");
	g_assert_nonnull(strstr(error->message, "Volume"));
	g_clear_error(&error);
	/* Read-only properties stay read-only. */
	g_assert_false(umms_test_set(t->bus, player, "State", g_variant_new_string("playing"),
		&error));
	g_clear_error(&error);
	/* Unknown methods keep the standard name. */
	g_autofree char *m6 = umms_test_call_error(t->bus, player, UMMS_PLAYER, "Explode", NULL,
		"org.freedesktop.DBus.Error.UnknownMethod");
	/* And the player still works. */
	g_autofree char *uri = umms_test_clip_uri("av.mp4");
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	/* 3 s of video; AAC's encoder delay adds 21 ms. */
	g_assert_cmpint(umms_test_get_int64(t->bus, player, "Duration"), >=, US(3));
	g_assert_cmpint(umms_test_get_int64(t->bus, player, "Duration"), <, US(3.05));
}

static void
test_attended(struct umms_test *t, gconstpointer data)
{
	/* An application creates one attended and one unattended player, then exits. */
	GDBusConnection *app = umms_test_connect();
	g_autofree char *attended = umms_test_create_player(app, NULL);
	g_autofree char *unattended = umms_test_create_player(app, "{'attended': <false>}");
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(app, attended, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(app, attended, "Play", NULL);
	umms_test_player_do(app, unattended, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(app, unattended, "Play", NULL);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 2);

	g_dbus_connection_close_sync(app, NULL, NULL);
	g_object_unref(app);

	/* The attended one goes with its application; the other plays on. */
	umms_test_wait_players(t->bus, 1, 5000);
	g_autoptr(GVariant) players = manager_get(t->bus, "Players");
	g_autoptr(GVariant) left = g_variant_get_child_value(players, 0);
	g_assert_cmpstr(g_variant_get_string(left, NULL), ==, unattended);
	g_autofree char *state = umms_test_get_string(t->bus, unattended, "State");
	g_assert_cmpstr(state, ==, "playing");
	int64_t before = umms_test_get_int64(t->bus, unattended, "Position");
	umms_test_wait_position(t->bus, unattended, before + US(0.3), false, 3000);
}

static void
test_ttl(struct umms_test *t, gconstpointer data)
{
	GDBusConnection *app = umms_test_connect();
	g_autofree char *idle = umms_test_create_player(app, "{'attended': <false>, 'ttl': <uint64 1>}");
	g_autofree char *busy = umms_test_create_player(app, "{'attended': <false>, 'ttl': <uint64 1>}");
	g_autofree char *forever = umms_test_create_player(app, "{'attended': <false>, 'ttl': <uint64 0>}");
	g_autofree char *uri = umms_test_clip_uri("long.mkv");
	umms_test_player_do(app, busy, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(app, busy, "Play", NULL);
	g_dbus_connection_close_sync(app, NULL, NULL);
	g_object_unref(app);

	/* Idle for its ttl: gone. Playing: kept, ttl or not. ttl 0: kept. */
	umms_test_sleep(1800);
	g_autoptr(GVariant) players = manager_get(t->bus, "Players");
	g_assert_cmpuint(g_variant_n_children(players), ==, 2);
	g_autofree char *m = umms_test_call_error(t->bus, idle, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
	g_autofree char *state = umms_test_get_string(t->bus, busy, "State");
	g_assert_cmpstr(state, ==, "playing");

	/* Once it stops playing, its ttl starts counting. */
	umms_test_player_do(t->bus, busy, "Pause", NULL);
	umms_test_sleep(1600);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 1);
	g_autofree char *kept = umms_test_get_string(t->bus, forever, "State");
	g_assert_cmpstr(kept, ==, "stopped");
}

static void
test_many_players(struct umms_test *t, gconstpointer data)
{
	/*
	 * One client here may take every place (test-dbus-fuzz checks the client
	 * limit). No spare engine worker: one started a second after a SetUri
	 * took it would come and go while fds are counted (test-isolation
	 * checks the spare).
	 */
	const char *const overrides[] = { "service.max-players-per-client=200",
		"engine.spare-workers=0", NULL };
	umms_test_restart(t, overrides);
	/* Warm up once so one-time allocations (plugins, caches) are not counted. */
	g_autofree char *warm = umms_test_open(t->bus, "av.mp4");
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", warm)));
	/* Its worker gone (and the previous service's spare). */
	umms_test_wait_engine_workers(0);
	unsigned fds = umms_test_fd_count();
	g_autofree char *fds_before = umms_test_fd_targets();

	/* 200 players: 100 (the limit) are made, the rest refused by name. */
	GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
	unsigned refused = 0;
	for (int i = 0; i < 200; i++) {
		GError *error = NULL;
		GVariant *opts = g_variant_new("a{sv}", NULL);
		GVariant *reply = umms_test_call(t->bus, UMMS_ROOT, UMMS_MANAGER, "CreatePlayer",
			g_variant_new_tuple(&opts, 1), &error);
		if (reply) {
			char *path;
			g_variant_get(reply, "(o)", &path);
			g_ptr_array_add(paths, path);
			g_variant_unref(reply);
		} else {
			g_autofree char *name = g_dbus_error_get_remote_error(error);
			g_assert_cmpstr(name, ==, "org.umms.Error.NoResource");
			g_assert_nonnull(strstr(error->message, "max-players"));
			g_error_free(error);
			refused++;
		}
	}
	g_assert_cmpuint(paths->len, ==, 100);
	g_assert_cmpuint(refused, ==, 100);

	/* Every tenth one plays media, to hold real pipelines. */
	g_autofree char *uri = umms_test_clip_uri("av.mp4");
	for (guint i = 0; i < paths->len; i += 10) {
		umms_test_player_do(t->bus, paths->pdata[i], "SetUri", g_variant_new("(s)", uri));
		umms_test_player_do(t->bus, paths->pdata[i], "Play", NULL);
	}
	for (guint i = 0; i < paths->len; i++)
		g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER,
			"DestroyPlayer", g_variant_new("(o)", (char *)paths->pdata[i])));
	g_ptr_array_unref(paths);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);

	/*
	 * Back to where it started, the played players' workers gone: no
	 * descriptor (pipeline, MPRIS connection, worker) leaks.
	 */
	umms_test_wait_engine_workers(0);
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (umms_test_fd_count() > fds && g_get_monotonic_time() < end)
		umms_test_sleep(50);
	if (umms_test_fd_count() > fds) {
		g_autofree char *after = umms_test_fd_targets();
		g_error("%u fds, %u before: before %s; now %s", umms_test_fd_count(), fds,
			fds_before, after);
	}

	/* And it serves the next one as if nothing happened. */
	g_autofree char *next = umms_test_open(t->bus, "av.mp4");
	umms_test_player_do(t->bus, next, "Play", NULL);
	umms_test_wait_position(t->bus, next, US(0.2), false, 3000);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/manager/properties", test_properties);
	UMMS_TEST_ADD("/manager/create-destroy", test_create_destroy);
	UMMS_TEST_ADD("/manager/bad-options", test_bad_options);
	UMMS_TEST_ADD("/manager/wrong-types", test_wrong_types);
	UMMS_TEST_ADD("/manager/attended", test_attended);
	UMMS_TEST_ADD("/manager/ttl", test_ttl);
	UMMS_TEST_ADD("/manager/many-players", test_many_players);
	return g_test_run();
}
