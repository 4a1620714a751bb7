/*
 * umms-tiny: the smallest complete umms client, to read top to bottom.
 *
 *   umms-tiny FILE-OR-URI
 *
 * It asks ummsd (the umms service, on the session bus) for a player, opens
 * the media, prints what ummsd found in it, plays it to the end while
 * printing the position, and exits. Everything goes through plain GDBus
 * calls, so each step shows the D-Bus API as any language would use it:
 * protocol/org.umms.Manager1.xml and org.umms.Player1.xml document it all.
 *
 * The player is "attended" (the default): when this program exits, or
 * crashes, ummsd destroys the player by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <gio/gio.h>

#define SERVICE "org.umms.Service1"
#define PLAYER "org.umms.Player1"

/* Calls @method on @path and returns the reply (or exits with ummsd's error). */
static GVariant *
call(GDBusConnection *bus, const char *path, const char *iface, const char *method,
	GVariant *args)
{
	GError *error = NULL;
	/* 30 s: SetUri replies once the media is open, which can take a while on a network. */
	GVariant *reply = g_dbus_connection_call_sync(bus, SERVICE, path, iface, method, args,
		NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
	if (!reply) {
		/* ummsd's errors have names (org.umms.Error.NotFound…) and readable messages. */
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-tiny: %s.%s: %s (%s)\n", iface, method, error->message,
			name ? name : "no D-Bus error name");
		exit(1);
	}
	return reply;
}

/* Reads one property of the player. */
static GVariant *
get(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) reply = call(bus, path, "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", PLAYER, property));
	GVariant *value;
	g_variant_get(reply, "(v)", &value);
	return value;
}

/* Prints each track of one kind: a list of a{sv} dictionaries. */
static void
print_tracks(GDBusConnection *bus, const char *path, const char *property, const char *kind)
{
	g_autoptr(GVariant) tracks = get(bus, path, property);
	for (gsize i = 0; i < g_variant_n_children(tracks); i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		const char *codec = "?", *language = "";
		g_variant_lookup(track, "codec", "&s", &codec);
		g_variant_lookup(track, "language", "&s", &language);
		int width = 0, height = 0;
		g_variant_lookup(track, "width", "i", &width);
		g_variant_lookup(track, "height", "i", &height);
		if (width)
			printf("  %s %zu: %s %dx%d %s\n", kind, i, codec, width, height, language);
		else
			printf("  %s %zu: %s %s\n", kind, i, codec, language);
	}
}

/* State shared with the signal handler: the main loop ends at Eos or Error. */
struct run {
	GMainLoop *loop;
	int status;
};

/* ummsd emits Eos() at the end of the media and Error(name, message) on failure. */
static void
on_signal(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *member, GVariant *params, gpointer data)
{
	struct run *run = data;
	if (g_strcmp0(member, "Eos") == 0) {
		printf("\nend of stream\n");
		g_main_loop_quit(run->loop);
	} else if (g_strcmp0(member, "Error") == 0) {
		const char *name, *message;
		g_variant_get(params, "(&s&s)", &name, &message);
		fprintf(stderr, "\numms-tiny: playback failed: %s (%s)\n", message, name);
		run->status = 1;
		g_main_loop_quit(run->loop);
	}
}

/* Position is the one property without change signals: read it when needed. */
static gboolean
print_position(gpointer data)
{
	GDBusConnection *bus = g_object_get_data(G_OBJECT(data), "bus");
	const char *path = g_object_get_data(G_OBJECT(data), "path");
	g_autoptr(GVariant) position = get(bus, path, "Position");
	printf("\r  position %.1f s ", g_variant_get_int64(position) / 1e6);
	fflush(stdout);
	return G_SOURCE_CONTINUE;
}

int
main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: umms-tiny FILE-OR-URI\n");
		return 2;
	}
	/* 1. The session bus, where ummsd lives (D-Bus activation starts it if needed). */
	GError *error = NULL;
	GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!bus) {
		fprintf(stderr, "umms-tiny: no session bus: %s\n", error->message);
		return 1;
	}

	/* 2. A player of our own: Manager1.CreatePlayer(options) returns its object path. */
	g_autoptr(GVariant) created = call(bus, "/org/umms", "org.umms.Manager1", "CreatePlayer",
		g_variant_new_parsed("(@a{sv} {},)"));
	const char *path;
	g_variant_get(created, "(&o)", &path);
	printf("player %s\n", path);

	/* 3. Open the media. A file name becomes a file:// URI. */
	g_autoptr(GFile) file = g_file_new_for_commandline_arg(argv[1]);
	g_autofree char *uri = g_file_get_uri(file);
	g_variant_unref(call(bus, path, PLAYER, "SetUri", g_variant_new("(s)", uri)));

	/* 4. SetUri has replied: everything ummsd learned about the media is readable now. */
	g_autoptr(GVariant) container = get(bus, path, "Container");
	g_autoptr(GVariant) duration = get(bus, path, "Duration");
	g_autoptr(GVariant) decoder = get(bus, path, "Decoder");
	printf("%s: %s, %.3f s, video decoder %s\n", uri, g_variant_get_string(container, NULL),
		g_variant_get_int64(duration) / 1e6, g_variant_get_string(decoder, NULL));
	print_tracks(bus, path, "VideoTracks", "video");
	print_tracks(bus, path, "AudioTracks", "audio");
	print_tracks(bus, path, "SubtitleTracks", "subtitle");

	/* 5. Listen to the player's signals before starting it, then Play. */
	struct run run = { .loop = g_main_loop_new(NULL, FALSE) };
	guint subscription = g_dbus_connection_signal_subscribe(bus, SERVICE, PLAYER, NULL, path,
		NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_signal, &run, NULL);
	g_variant_unref(call(bus, path, PLAYER, "Play", NULL));
	/* Play replies once playing: State reads "playing" from here on. */
	g_autoptr(GVariant) state = get(bus, path, "State");
	printf("state %s\n", g_variant_get_string(state, NULL));

	/* 6. Wait for the end, printing the position twice a second. */
	g_autoptr(GObject) ticker = g_object_new(G_TYPE_OBJECT, NULL);
	g_object_set_data(ticker, "bus", bus);
	g_object_set_data(ticker, "path", (gpointer)path);
	guint timer = g_timeout_add(500, print_position, ticker);
	g_main_loop_run(run.loop);

	/* 7. Done. Destroying the player is polite; exiting would do it too. */
	g_source_remove(timer);
	g_dbus_connection_signal_unsubscribe(bus, subscription);
	g_variant_unref(call(bus, "/org/umms", "org.umms.Manager1", "DestroyPlayer",
		g_variant_new("(o)", path)));
	g_main_loop_unref(run.loop);
	g_object_unref(bus);
	return run.status;
}
