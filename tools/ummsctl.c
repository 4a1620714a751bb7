/*
 * ummsctl: control ummsd from the command line, in the manner of playerctl.
 *
 * Every command is a few calls through the gdbus-codegen proxies of
 * protocol/ (see the usage text below). Exit status: 0 on success, 1 when
 * ummsd or the bus reports an error (printed as "ummsctl: message (name)"),
 * 2 for a usage error.
 */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gio/gio.h>

#include "ummsctl.h"

#define MANAGER_IFACE "org.umms.Manager1"
#define PLAYER_PREFIX "/org/umms/player/"
#define DISPLAY_PATH "/org/umms/display/0"
#define DISPLAY_IFACE "org.umms.Display1"

int
umms_ctl_report(GError *error)
{
	if (g_dbus_error_is_remote_error(error)) {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "ummsctl: %s (%s)\n", error->message, name);
	} else {
		fprintf(stderr, "ummsctl: %s\n", error->message);
	}
	g_error_free(error);
	return STATUS_ERROR;
}

int
umms_ctl_fail(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	g_autofree char *message = g_strdup_vprintf(fmt, args);
	va_end(args);
	fprintf(stderr, "ummsctl: %s\n", message);
	return STATUS_ERROR;
}

int
umms_ctl_usage_error(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	g_autofree char *message = g_strdup_vprintf(fmt, args);
	va_end(args);
	fprintf(stderr, "ummsctl: %s\nTry 'ummsctl --help' for more information.\n", message);
	return STATUS_USAGE;
}

static GVariant *
call_bus(GDBusConnection *bus, const char *method, GVariant *params, const char *reply_type,
	GError **error)
{
	return g_dbus_connection_call_sync(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
		"org.freedesktop.DBus", method, params, G_VARIANT_TYPE(reply_type),
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
}

/* ummsd owns its name, or the bus can start it (D-Bus activation). */
static bool
check_service(GDBusConnection *bus, GError **error)
{
	gboolean owned;
	g_autoptr(GVariant) reply = call_bus(bus, "NameHasOwner",
		g_variant_new("(s)", SERVICE_NAME), "(b)", error);
	if (!reply)
		return false;
	g_variant_get(reply, "(b)", &owned);
	if (owned)
		return true;

	g_autoptr(GVariant) names = call_bus(bus, "ListActivatableNames", NULL, "(as)", error);
	if (!names)
		return false;
	g_autofree const char **list = NULL;
	g_variant_get(names, "(^a&s)", &list);
	if (g_strv_contains(list, SERVICE_NAME))
		return true;
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
		"ummsd is not running on this bus (%s)", SERVICE_NAME);
	return false;
}

/* Reads a property now (Properties.Get), with the error if it fails. */
GVariant *
umms_ctl_get_property(GDBusConnection *bus, const char *path, const char *iface, const char *name,
	GError **error)
{
	GVariant *value = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, SERVICE_NAME, path,
		"org.freedesktop.DBus.Properties", "Get", g_variant_new("(ss)", iface, name),
		G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, error);
	if (reply)
		g_variant_get(reply, "(v)", &value);
	return value;
}

char **
umms_ctl_list_players(struct ctl *ctl, GError **error)
{
	g_autoptr(GVariant) value = umms_ctl_get_property(ctl->bus, MANAGER_PATH, MANAGER_IFACE,
		"Players", error);
	if (!value)
		return NULL;
	if (!g_variant_is_of_type(value, G_VARIANT_TYPE_OBJECT_PATH_ARRAY)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			"Players has type %s, not ao", g_variant_get_type_string(value));
		return NULL;
	}
	return g_variant_dup_objv(value, NULL);
}

UmmsPlayer1 *
umms_ctl_open_player(struct ctl *ctl, const char *path, bool signals, GError **error)
{
	GDBusProxyFlags flags = signals ? G_DBUS_PROXY_FLAGS_NONE
		: G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS;
	UmmsPlayer1 *player = umms_player1_proxy_new_sync(ctl->bus, flags, SERVICE_NAME, path,
		NULL, error);
	if (player)
		g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(player), CALL_TIMEOUT_MS);
	return player;
}

/* N of /org/umms/player/N; 0 for anything else. */
static guint64
player_number(const char *path)
{
	if (!g_str_has_prefix(path, PLAYER_PREFIX))
		return 0;
	return g_ascii_strtoull(path + strlen(PLAYER_PREFIX), NULL, 10);
}

/* The newest playing player, else the newest player; @players is not empty. */
static const char *
default_player(struct ctl *ctl, char **players)
{
	const char *newest = players[0], *playing = NULL;
	for (char **path = players; *path; path++) {
		if (player_number(*path) > player_number(newest))
			newest = *path;
		/* A player gone meanwhile is not playing. */
		g_autoptr(GVariant) state = umms_ctl_get_property(ctl->bus, *path, PLAYER_IFACE, "State", NULL);
		if (state && g_variant_is_of_type(state, G_VARIANT_TYPE_STRING)
				&& strcmp(g_variant_get_string(state, NULL), "playing") == 0
				&& (!playing || player_number(*path) > player_number(playing)))
			playing = *path;
	}
	return playing ? playing : newest;
}

/* Sets ctl->path and ctl->player, from --player or default_player(). */
int
umms_ctl_select_player(struct ctl *ctl)
{
	GError *error = NULL;
	g_autofree char *path = NULL;
	g_auto(GStrv) players = umms_ctl_list_players(ctl, &error);
	if (!players)
		return umms_ctl_report(error);

	if (ctl->player_arg) {
		guint64 n;
		if (g_ascii_string_to_unsigned(ctl->player_arg, 10, 1, G_MAXUINT32, &n, NULL))
			path = g_strdup_printf(PLAYER_PREFIX "%" G_GUINT64_FORMAT, n);
		else if (g_variant_is_object_path(ctl->player_arg))
			path = g_strdup(ctl->player_arg);
		else
			return umms_ctl_usage_error(
				"--player %s: expected a player number or object path",
				ctl->player_arg);
		if (!g_strv_contains((const char *const *)players, path))
			return umms_ctl_fail("no such player: %s", path);
	} else {
		if (!players[0])
			return umms_ctl_fail("no players");
		path = g_strdup(default_player(ctl, players));
	}

	ctl->player = umms_ctl_open_player(ctl, path, true, &error);
	if (!ctl->player)
		return umms_ctl_report(error);
	ctl->path = g_steal_pointer(&path);
	return STATUS_OK;
}

/* A URI as is; a local path, relative or absolute, as a file:// URI. */
char *
umms_ctl_to_uri(const char *arg)
{
	if (g_uri_peek_scheme(arg))
		return g_strdup(arg);
	g_autoptr(GFile) file = g_file_new_for_commandline_arg(arg);
	return g_file_get_uri(file);
}

static int
cmd_version(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_autoptr(GVariant) version = umms_ctl_get_property(ctl->bus, MANAGER_PATH, MANAGER_IFACE,
		"Version", &error);
	if (!version)
		return umms_ctl_report(error);
	if (g_variant_is_of_type(version, G_VARIANT_TYPE_STRING))
		printf("%s\n", g_variant_get_string(version, NULL));
	return STATUS_OK;
}

/* Calls a Display1 method with @args (a tuple): a screen only ummsd --drm or --headless has. */
static int
call_display_args(struct ctl *ctl, const char *method, GVariant *args)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(ctl->bus, SERVICE_NAME,
		DISPLAY_PATH, DISPLAY_IFACE, method, args, NULL,
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, &error);
	if (!reply && (g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
			g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
			g_error_matches(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE))) {
		g_clear_error(&error);
		return umms_ctl_fail("ummsd drives no screen (start it with --drm or --headless)");
	}
	return reply ? STATUS_OK : umms_ctl_report(error);
}

/* The same with one argument. */
static int
call_display(struct ctl *ctl, const char *method, GVariant *arg)
{
	return call_display_args(ctl, method, g_variant_new_tuple(&arg, 1));
}

/* PLAYER, the first argument of place and unplace (as --player takes it). */
static int
select_positional(struct ctl *ctl, const char *player)
{
	ctl->player_arg = player;
	return umms_ctl_select_player(ctl);
}

/* "X,Y,W,H" into @rect. */
static bool
parse_rect(const char *text, double rect[4])
{
	g_auto(GStrv) parts = g_strsplit(text, ",", -1);
	if (g_strv_length(parts) != 4)
		return false;
	for (int i = 0; i < 4; i++) {
		if (!umms_ctl_parse_double(g_strstrip(parts[i]), &rect[i]))
			return false;
	}
	return true;
}

static int
cmd_place(struct ctl *ctl, char **args, int n_args)
{
	double rect[4], clip[4];
	for (int i = 0; i < 4; i++) {
		if (!umms_ctl_parse_double(args[1 + i], &rect[i]))
			return umms_ctl_usage_error("place: \"%s\" is not a number", args[1 + i]);
	}
	if (ctl->clip && !parse_rect(ctl->clip, clip))
		return umms_ctl_usage_error("--clip %s: expected X,Y,W,H", ctl->clip);
	int status = select_positional(ctl, args[0]);
	if (status != STATUS_OK)
		return status;
	GVariantBuilder options;
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	if (ctl->clip)
		g_variant_builder_add(&options, "{sv}", "clip",
			g_variant_new("(dddd)", clip[0], clip[1], clip[2], clip[3]));
	if (ctl->z_set)
		g_variant_builder_add(&options, "{sv}", "z", g_variant_new_int32(ctl->z));
	if (ctl->over)
		g_variant_builder_add(&options, "{sv}", "over", g_variant_new_boolean(TRUE));
	if (ctl->hidden)
		g_variant_builder_add(&options, "{sv}", "visible", g_variant_new_boolean(FALSE));
	return call_display_args(ctl, "PlacePlayer", g_variant_new("(o(dddd)a{sv})", ctl->path,
		rect[0], rect[1], rect[2], rect[3], &options));
}

static int
cmd_unplace(struct ctl *ctl, char **args, int n_args)
{
	int status = select_positional(ctl, args[0]);
	if (status != STATUS_OK)
		return status;
	return call_display(ctl, "UnplacePlayer", g_variant_new_object_path(ctl->path));
}

static int
cmd_show(struct ctl *ctl, char **args, int n_args)
{
	return call_display(ctl, "ShowPlayer", g_variant_new_object_path(ctl->path));
}

static int
cmd_capture(struct ctl *ctl, char **args, int n_args)
{
	/* ummsd writes the file: give it a path that means the same to it. */
	g_autofree char *path = g_canonicalize_filename(args[0], NULL);
	return call_display(ctl, "Capture", g_variant_new_string(path));
}

static int
cmd_resources(struct ctl *ctl, char **args, int n_args)
{
	return umms_ctl_resources(ctl->bus);
}

static int
cmd_record(struct ctl *ctl, char **args, int n_args)
{
	return umms_ctl_record(ctl->bus, args[0], args[1], n_args > 2 ? args[2] : NULL);
}

static int
cmd_schedule(struct ctl *ctl, char **args, int n_args)
{
	return umms_ctl_schedule(ctl->bus, args[0], args[1], args[2], args[3]);
}

static int
cmd_recordings(struct ctl *ctl, char **args, int n_args)
{
	return umms_ctl_recordings(ctl->bus);
}

static int
cmd_delete_recording(struct ctl *ctl, char **args, int n_args)
{
	return umms_ctl_delete_recording(ctl->bus, args[0]);
}

static const struct umms_ctl_command commands[] = {
	{ "version", "", 0, 0, false, cmd_version },
	{ "show", "", 0, 0, true, cmd_show },
	{ "capture", "FILE", 1, 1, false, cmd_capture },
	{ "place", "PLAYER X Y W H", 5, 5, false, cmd_place },
	{ "unplace", "PLAYER", 1, 1, false, cmd_unplace },
	{ "resources", "", 0, 0, false, cmd_resources },
	{ "record", "URI|PATH DESTINATION [SECONDS]", 2, 3, false, cmd_record },
	{ "schedule", "URI|PATH DESTINATION START DURATION", 4, 4, false, cmd_schedule },
	{ "recordings", "", 0, 0, false, cmd_recordings },
	{ "delete-recording", "N|PATH", 1, 1, false, cmd_delete_recording },
	{ NULL },
};

/* @name in the player's commands (ummsctl-player.c) or ours; NULL if unknown. */
static const struct umms_ctl_command *
find_command(const char *name)
{
	const struct umms_ctl_command *const tables[] = { umms_ctl_player_commands, commands,
		umms_ctl_guide_commands, umms_ctl_series_commands, umms_ctl_parental_commands,
		umms_ctl_entitlement_commands };
	for (size_t i = 0; i < G_N_ELEMENTS(tables); i++) {
		for (const struct umms_ctl_command *command = tables[i]; command->name; command++) {
			if (strcmp(command->name, name) == 0)
				return command;
		}
	}
	return NULL;
}

static GDBusConnection *
connect_bus(bool system, const char *address, GError **error)
{
	if (address)
		return g_dbus_connection_new_for_address_sync(address,
			G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
				| G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
			NULL, NULL, error);
	return g_bus_get_sync(system ? G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, NULL, error);
}

/* Connects, checks for ummsd and runs @command. */
static int
run(struct ctl *ctl, const struct umms_ctl_command *command, bool system, const char *address,
	char **args, int n_args)
{
	GError *error = NULL;
	ctl->bus = connect_bus(system, address, &error);
	if (!ctl->bus || !check_service(ctl->bus, &error))
		return umms_ctl_report(error);
	ctl->manager = umms_manager1_proxy_new_sync(ctl->bus, G_DBUS_PROXY_FLAGS_NONE,
		SERVICE_NAME, MANAGER_PATH, NULL, &error);
	if (!ctl->manager)
		return umms_ctl_report(error);
	g_dbus_proxy_set_default_timeout(G_DBUS_PROXY(ctl->manager), CALL_TIMEOUT_MS);

	if (command->needs_player) {
		int status = umms_ctl_select_player(ctl);
		if (status != STATUS_OK)
			return status;
	}
	return command->run(ctl, args, n_args);
}

/* A negative number ("-5", "-1.5", "-0:30") is an argument, not an option. */
static bool
is_option(const char *arg)
{
	return arg[0] == '-' && arg[1] && !g_ascii_isdigit(arg[1]) && arg[1] != '.';
}

int
main(int argc, char **argv)
{
	g_autofree char *player = NULL, *address = NULL, *clip = NULL;
	g_autofree char *pin = NULL, *new_pin = NULL;
	gboolean system = FALSE, wait = FALSE, over = FALSE, hidden = FALSE;
	int z = G_MININT;
	const GOptionEntry entries[] = {
		{ "player", 'p', 0, G_OPTION_ARG_STRING, &player,
			"The player: its number N (/org/umms/player/N) or object path", "N|PATH" },
		{ "wait", 'w', 0, G_OPTION_ARG_NONE, &wait,
			"play: wait for the end of stream (exit 0) or an error (exit 1)", NULL },
		{ "system", 0, 0, G_OPTION_ARG_NONE, &system, "Use the system bus", NULL },
		{ "address", 0, 0, G_OPTION_ARG_STRING, &address, "Use the bus at ADDR", "ADDR" },
		{ "clip", 0, 0, G_OPTION_ARG_STRING, &clip,
			"place: show nothing of the video outside this rectangle", "X,Y,W,H" },
		{ "z", 0, 0, G_OPTION_ARG_INT, &z,
			"place: stacking among the placed videos, higher over lower", "N" },
		{ "over", 0, 0, G_OPTION_ARG_NONE, &over,
			"place: over the window, not under it", NULL },
		{ "hidden", 0, 0, G_OPTION_ARG_NONE, &hidden,
			"place: keep the placement but hide the video", NULL },
		{ "pin", 0, 0, G_OPTION_ARG_STRING, &pin,
			"parental: the PIN (else asked for on stdin)", "PIN" },
		{ "new-pin", 0, 0, G_OPTION_ARG_STRING, &new_pin,
			"parental set-pin: the new PIN (else asked for on stdin)", "PIN" },
		{ NULL },
	};
	GError *error = NULL;

	setlocale(LC_ALL, "");
	g_set_prgname("ummsctl");
	g_autoptr(GOptionContext) context = g_option_context_new("COMMAND [ARGUMENTS]");
	g_option_context_set_summary(context, "Control ummsd, the umms media service.");
	g_option_context_set_description(context, umms_ctl_commands_help);
	g_option_context_add_main_entries(context, entries, NULL);
	/* Keeps "-5" (seek -5, step -5, rate -1) for us; is_option() sorts them. */
	g_option_context_set_ignore_unknown_options(context, TRUE);
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		int status = umms_ctl_usage_error("%s", error->message);
		g_error_free(error);
		return status;
	}

	/* The options are gone; "--" (kept by GLib here) ends them. */
	g_autoptr(GPtrArray) args = g_ptr_array_new();
	bool options_done = false;
	for (int i = 1; i < argc; i++) {
		if (!options_done && strcmp(argv[i], "--") == 0)
			options_done = true;
		else if (!options_done && args->len == 1 && find_command(args->pdata[0]) &&
				find_command(args->pdata[0])->own_options) {
			options_done = true;
			g_ptr_array_add(args, argv[i]);
		}
		else if (!options_done && is_option(argv[i]))
			return umms_ctl_usage_error("unknown option %s", argv[i]);
		else
			g_ptr_array_add(args, argv[i]);
	}
	if (args->len == 0) {
		g_autofree char *help = g_option_context_get_help(context, TRUE, NULL);
		fprintf(stderr, "%s", help);
		return STATUS_USAGE;
	}
	if (system && address)
		return umms_ctl_usage_error("--system and --address exclude each other");

	const char *name = args->pdata[0];
	const struct umms_ctl_command *command = find_command(name);
	if (!command)
		return umms_ctl_usage_error("unknown command \"%s\"", name);
	int n_rest = (int)args->len - 1;
	g_ptr_array_add(args, NULL);
	char **cmd_args = (char **)args->pdata + 1;

	if (n_rest < command->min_args || n_rest > command->max_args)
		return umms_ctl_usage_error("wrong number of arguments: ummsctl %s%s%s",
			command->name, command->synopsis[0] ? " " : "", command->synopsis);
	if (wait && strcmp(command->name, "play") != 0)
		return umms_ctl_usage_error("--wait is for play (or use the wait command)");

	bool place = strcmp(command->name, "place") == 0;
	if (!place && (clip || z != G_MININT || over || hidden))
		return umms_ctl_usage_error("--clip, --z, --over and --hidden are for place");
	if ((pin || new_pin) && strcmp(command->name, "parental") != 0)
		return umms_ctl_usage_error("--pin and --new-pin are for parental");
	struct ctl ctl = { .player_arg = player, .wait = wait, .clip = clip, .z = z,
		.z_set = z != G_MININT, .over = over, .hidden = hidden, .pin = pin,
		.new_pin = new_pin };
	int status = run(&ctl, command, system, address, cmd_args, n_rest);
	g_clear_object(&ctl.player);
	g_clear_object(&ctl.manager);
	g_clear_object(&ctl.bus);
	g_free(ctl.path);
	return status;
}
