/*
 * umms-display: a TV shell's video control in one page, for a screen ummsd
 * drives itself.
 *
 *   ummsd --drm &            # on a machine with a screen and no display server
 *   umms-display FILE-OR-URI [--capture PNG]
 *
 * It plays the media on org.umms.Display1 (/org/umms/display/0), then
 * reads keys from the terminal: z cycles the zoom modes, m toggles 5%
 * overscan margins, w toggles "windowed" (the video at its own size in the
 * middle of the screen) and full screen, space pauses, q quits. Each
 * change prints how the video reaches the screen (its own overlay plane,
 * or composited) as ummsd reports it. With --capture it shows the video
 * for two seconds, writes what the screen shows to PNG (writeback) and
 * exits: how it runs without a keyboard.
 *
 * This program drives the display over D-Bus only; a shell with its own
 * UI (a Wayland client composited by ummsd, with the video under a
 * transparent hole) is demo/umms-kiosk.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <gio/gio.h>

#define SERVICE "org.umms.Service1"
#define DISPLAY_PATH "/org/umms/display/0"
#define DISPLAY "org.umms.Display1"
#define PLAYER "org.umms.Player1"

static GDBusConnection *bus;

/* Calls a method; exits with ummsd's named error if it fails. */
static GVariant *
call(const char *path, const char *iface, const char *method, GVariant *args)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(bus, SERVICE, path, iface, method, args,
		NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL, &error);
	if (!reply) {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-display: %s: %s (%s)\n", method, error->message,
			name ? name : "no D-Bus error name");
		exit(1);
	}
	return reply;
}

static void
set_display(const char *property, GVariant *value)
{
	g_variant_unref(call(DISPLAY_PATH, "org.freedesktop.DBus.Properties", "Set",
		g_variant_new("(ssv)", DISPLAY, property, value)));
}

/* Prints the display's zoom, margins and how the video reaches the screen. */
static void
print_state(void)
{
	g_autoptr(GVariant) reply = call(DISPLAY_PATH, "org.freedesktop.DBus.Properties",
		"GetAll", g_variant_new("(s)", DISPLAY));
	g_autoptr(GVariant) all = g_variant_get_child_value(reply, 0);
	const char *zoom = "", *path = "", *mode = "";
	int l = 0, t = 0, r = 0, b = 0;
	g_variant_lookup(all, "Zoom", "&s", &zoom);
	g_variant_lookup(all, "VideoPath", "&s", &path);
	g_variant_lookup(all, "CurrentMode", "&s", &mode);
	g_variant_lookup(all, "Margins", "(iiii)", &l, &t, &r, &b);
	printf("%s, zoom %s, margins %d,%d,%d,%d: video %s\r\n", mode, zoom, l, t, r, b,
		*path ? path : "not shown");
}

int
main(int argc, char *argv[])
{
	if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--capture") == 0)) {
		fprintf(stderr, "usage: umms-display FILE-OR-URI [--capture PNG]\n");
		return 2;
	}
	GError *error = NULL;
	bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!bus) {
		fprintf(stderr, "umms-display: %s\n", error->message);
		return 1;
	}
	g_autofree char *uri = NULL;
	if (g_strstr_len(argv[1], -1, "://")) {
		uri = g_strdup(argv[1]);
	} else {
		g_autofree char *cwd = g_get_current_dir();
		g_autofree char *absolute = g_path_is_absolute(argv[1]) ? g_strdup(argv[1]) :
			g_build_filename(cwd, argv[1], NULL);
		uri = g_filename_to_uri(absolute, NULL, NULL);
	}

	/* A player of ours (gone when we exit), on the screen. */
	const char *player;
	g_autoptr(GVariant) created = call("/org/umms", "org.umms.Manager1", "CreatePlayer",
		g_variant_new_parsed("(@a{sv} {},)"));
	g_variant_get(created, "(&o)", &player);
	g_variant_unref(call(player, PLAYER, "SetUri", g_variant_new("(s)", uri)));
	g_variant_unref(call(DISPLAY_PATH, DISPLAY, "ShowPlayer", g_variant_new("(o)", player)));
	g_variant_unref(call(player, PLAYER, "Play", NULL));
	print_state();

	if (argc == 4) {
		g_usleep(2 * G_USEC_PER_SEC);
		g_variant_unref(call(DISPLAY_PATH, DISPLAY, "Capture", g_variant_new("(s)", argv[3])));
		printf("the screen: %s\n", argv[3]);
		g_object_unref(bus);
		return 0;
	}

	/* Keys one at a time, without echo. */
	struct termios saved, raw;
	bool tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	if (tty) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	}
	printf("z: zoom, m: margins, w: windowed/full screen, space: pause, q: quit\r\n");
	const char *zooms[] = { "letterbox", "fill", "crop", "none", "4:3-in-16:9", "anamorphic" };
	size_t zoom = 0;
	bool margins = false, paused = false;
	int c;
	while ((c = getchar()) != EOF && c != 'q') {
		switch (c) {
		case 'z':
			zoom = (zoom + 1) % G_N_ELEMENTS(zooms);
			set_display("Zoom", g_variant_new_string(zooms[zoom]));
			break;
		case 'w':
			/* Windowed: one video pixel per screen pixel, centred. */
			zoom = zoom == 3 ? 0 : 3;
			set_display("Zoom", g_variant_new_string(zooms[zoom]));
			break;
		case 'm': {
			/* 5% of a 16:9 screen's sides; ummsd reads them as pixels of its mode. */
			margins = !margins;
			g_autoptr(GVariant) mode = call(DISPLAY_PATH, "org.freedesktop.DBus.Properties",
				"Get", g_variant_new("(ss)", DISPLAY, "CurrentMode"));
			g_autoptr(GVariant) text = g_variant_get_child_value(mode, 0);
			g_autoptr(GVariant) s = g_variant_get_variant(text);
			int w = 0, h = 0;
			sscanf(g_variant_get_string(s, NULL), "%dx%d", &w, &h);
			int x = margins ? w / 20 : 0, y = margins ? h / 20 : 0;
			set_display("Margins", g_variant_new("(iiii)", x, y, x, y));
			break;
		}
		case ' ':
			paused = !paused;
			g_variant_unref(call(player, PLAYER, paused ? "Pause" : "Play", NULL));
			break;
		default:
			continue;
		}
		print_state();
	}
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	g_object_unref(bus);
	return 0;
}
