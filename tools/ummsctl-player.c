/*
 * ummsctl's commands on one player (org.umms.Player1): play, pause, seek,
 * tracks, subtitles, `list`, `info`, and waiting for its end (`play --wait`,
 * `wait`). The bus, the choice of the player and the other commands are
 * ummsctl.c.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <gio/gio.h>
#include <glib-unix.h>

#include "ummsctl.h"

/*
 * Writes a property of the player with Properties.Set. The generated setters
 * would do it too, but without telling whether ummsd refused the value.
 */
static int
set_property(struct ctl *ctl, const char *name, GVariant *value)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_proxy_call_sync(G_DBUS_PROXY(ctl->player),
		"org.freedesktop.DBus.Properties.Set",
		g_variant_new("(ssv)", PLAYER_IFACE, name, value),
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
	return reply ? STATUS_OK : umms_ctl_report(error);
}

/* The first end counts: once quit, a later signal changes nothing. */
static bool
ended(struct ctl *ctl)
{
	return !g_main_loop_is_running(ctl->loop);
}

static void
on_eos(UmmsPlayer1 *player, struct ctl *ctl)
{
	if (ended(ctl))
		return;
	ctl->status = STATUS_OK;
	g_main_loop_quit(ctl->loop);
}

static void
on_error(UmmsPlayer1 *player, const char *name, const char *message, struct ctl *ctl)
{
	if (ended(ctl))
		return;
	fprintf(stderr, "ummsctl: %s (%s)\n", message, name);
	ctl->status = STATUS_ERROR;
	g_main_loop_quit(ctl->loop);
}

static void
on_name_owner(GObject *object, GParamSpec *pspec, struct ctl *ctl)
{
	g_autofree char *owner = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(ctl->player));
	if (owner || ended(ctl))
		return;
	ctl->status = umms_ctl_fail("ummsd left the bus");
	g_main_loop_quit(ctl->loop);
}

static void
on_players(GObject *object, GParamSpec *pspec, struct ctl *ctl)
{
	const char *const *players = umms_manager1_get_players(ctl->manager);
	if ((players && g_strv_contains(players, ctl->path)) || ended(ctl))
		return;
	ctl->status = umms_ctl_fail("%s was destroyed", ctl->path);
	g_main_loop_quit(ctl->loop);
}

static gboolean
on_interrupt(void *data)
{
	struct ctl *ctl = data;
	if (ended(ctl))
		return G_SOURCE_CONTINUE;
	/* A player this `play --wait` made would outlive it (unattended). */
	if (ctl->created)
		umms_manager1_call_destroy_player_sync(ctl->manager, ctl->path, NULL, NULL);
	ctl->status = STATUS_INTERRUPTED;
	g_main_loop_quit(ctl->loop);
	return G_SOURCE_CONTINUE;
}

/* Runs until ctl->player ends: Eos (0), Error (1), destroyed or ummsd gone (1). */
static int
wait_end(struct ctl *ctl)
{
	GError *error = NULL;
	ctl->loop = g_main_loop_new(NULL, FALSE);
	ctl->status = STATUS_ERROR;
	g_signal_connect(ctl->player, "eos", G_CALLBACK(on_eos), ctl);
	g_signal_connect(ctl->player, "error", G_CALLBACK(on_error), ctl);
	g_signal_connect(ctl->player, "notify::g-name-owner", G_CALLBACK(on_name_owner), ctl);
	g_signal_connect(ctl->manager, "notify::players", G_CALLBACK(on_players), ctl);
	guint sigint = g_unix_signal_add(SIGINT, on_interrupt, ctl);
	guint sigterm = g_unix_signal_add(SIGTERM, on_interrupt, ctl);

	/* Destroyed before the signals were connected? */
	g_auto(GStrv) players = umms_ctl_list_players(ctl, &error);
	if (!players)
		ctl->status = umms_ctl_report(error);
	else if (!g_strv_contains((const char *const *)players, ctl->path))
		ctl->status = umms_ctl_fail("%s was destroyed", ctl->path);
	else
		g_main_loop_run(ctl->loop);

	g_source_remove(sigint);
	g_source_remove(sigterm);
	g_signal_handlers_disconnect_by_data(ctl->player, ctl);
	g_signal_handlers_disconnect_by_data(ctl->manager, ctl);
	g_clear_pointer(&ctl->loop, g_main_loop_unref);
	return ctl->status;
}

static int
cmd_play(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_autofree char *path = NULL;

	if (n_args == 0) {
		int status = umms_ctl_select_player(ctl);
		if (status != STATUS_OK)
			return status;
		if (!umms_player1_call_play_sync(ctl->player, NULL, &error))
			return umms_ctl_report(error);
		return ctl->wait ? wait_end(ctl) : STATUS_OK;
	}
	if (!args[0][0])
		return umms_ctl_usage_error("play: empty URI");
	g_autofree char *uri = umms_ctl_to_uri(args[0]);

	/* Unattended: an attended player would die with this process. */
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "attended", "b", FALSE);
	if (!umms_manager1_call_create_player_sync(ctl->manager, g_variant_dict_end(&options),
			&path, NULL, &error))
		return umms_ctl_report(error);
	ctl->player = umms_ctl_open_player(ctl, path, ctl->wait, &error);
	if (!ctl->player)
		goto fail;
	if (!umms_player1_call_set_uri_sync(ctl->player, uri, NULL, &error))
		goto fail;
	if (!umms_player1_call_play_sync(ctl->player, NULL, &error))
		goto fail;

	ctl->path = g_steal_pointer(&path);
	ctl->created = true;
	printf("%s\n", ctl->path);
	fflush(stdout);
	return ctl->wait ? wait_end(ctl) : STATUS_OK;

fail:
	/* Nobody would use a player that could not play. */
	umms_manager1_call_destroy_player_sync(ctl->manager, path, NULL, NULL);
	return umms_ctl_report(error);
}

static int
cmd_pause(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	return umms_player1_call_pause_sync(ctl->player, NULL, &error) ? STATUS_OK : umms_ctl_report(error);
}

static int
cmd_stop(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	return umms_player1_call_stop_sync(ctl->player, NULL, &error) ? STATUS_OK : umms_ctl_report(error);
}

static int
cmd_play_pause(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	const char *state = umms_player1_get_state(ctl->player);
	bool ok = state && strcmp(state, "playing") == 0
		? umms_player1_call_pause_sync(ctl->player, NULL, &error)
		: umms_player1_call_play_sync(ctl->player, NULL, &error);
	return ok ? STATUS_OK : umms_ctl_report(error);
}

static int
cmd_seek(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	gint64 us;
	bool relative, ok;
	if (!umms_ctl_parse_seek(args[0], &us, &relative))
		return umms_ctl_usage_error("seek %s: expected +S, -S, S, M:SS or H:MM:SS",
			args[0]);
	if (relative)
		ok = umms_player1_call_seek_sync(ctl->player, us, NULL, &error);
	else
		ok = umms_player1_call_set_position_sync(ctl->player, us, NULL, &error);
	return ok ? STATUS_OK : umms_ctl_report(error);
}

/* `COMMAND ARG`: ARG, a number, set as the player's property @name. */
static int
set_double(struct ctl *ctl, const char *command, const char *arg, const char *expected,
	const char *name)
{
	double value;
	if (!umms_ctl_parse_double(arg, &value))
		return umms_ctl_usage_error("%s %s: expected %s", command, arg, expected);
	return set_property(ctl, name, g_variant_new_double(value));
}

/* `COMMAND on|off`, set as the player's property @name. */
static int
set_bool(struct ctl *ctl, const char *command, const char *arg, const char *name)
{
	bool value;
	if (!umms_ctl_parse_bool(arg, &value))
		return umms_ctl_usage_error("%s %s: expected on or off", command, arg);
	return set_property(ctl, name, g_variant_new_boolean(value));
}

static int
cmd_rate(struct ctl *ctl, char **args, int n_args)
{
	return set_double(ctl, "rate", args[0], "a number", "Rate");
}

static int
cmd_volume(struct ctl *ctl, char **args, int n_args)
{
	return set_double(ctl, "volume", args[0], "a number from 0.0 to 1.0", "Volume");
}

static int
cmd_mute(struct ctl *ctl, char **args, int n_args)
{
	return set_bool(ctl, "mute", args[0], "Mute");
}

static int
cmd_timeshift(struct ctl *ctl, char **args, int n_args)
{
	return set_bool(ctl, "timeshift", args[0], "TimeshiftEnabled");
}

static int
cmd_track(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	gint64 index = -1;
	if (strcmp(args[1], "off") != 0 && strcmp(args[1], "none") != 0
			&& !g_ascii_string_to_signed(args[1], 10, -1, G_MAXINT32, &index, NULL))
		return umms_ctl_usage_error("track %s %s: expected a track index", args[0],
			args[1]);
	if (!umms_player1_call_select_track_sync(ctl->player, args[0], (gint)index, NULL, &error))
		return umms_ctl_report(error);
	return STATUS_OK;
}

/* "on": the external file where there is one (the last track), else the first; -1 none. */
static int
subtitles_on(struct ctl *ctl)
{
	GVariant *tracks = umms_player1_get_subtitle_tracks(ctl->player);
	gsize n = tracks ? g_variant_n_children(tracks) : 0;
	if (n == 0) {
		umms_ctl_fail("the media has no subtitles");
		return -1;
	}
	g_autoptr(GVariant) last = g_variant_get_child_value(tracks, n - 1);
	gboolean external = FALSE;
	g_variant_lookup(last, "external", "b", &external);
	return external ? (int)n - 1 : 0;
}

static int
cmd_subtitles(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	const char *arg = args[0];
	gint64 index = -1;
	if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0 ||
			g_ascii_string_to_signed(arg, 10, -1, G_MAXINT32, &index, NULL)) {
		if (strcmp(arg, "on") == 0 && (index = subtitles_on(ctl)) < 0)
			return STATUS_ERROR;
		if (!umms_player1_call_select_track_sync(ctl->player, "subtitle", (gint)index,
				NULL, &error))
			return umms_ctl_report(error);
		return STATUS_OK;
	}
	/* A file: "" removes it. */
	g_autofree char *uri = arg[0] ? umms_ctl_to_uri(arg) : g_strdup("");
	if (!umms_player1_call_set_subtitle_uri_sync(ctl->player, uri, NULL, &error))
		return umms_ctl_report(error);
	return STATUS_OK;
}

static int
cmd_subtitle_delay(struct ctl *ctl, char **args, int n_args)
{
	if (n_args == 0) {
		printf("%g ms\n", (double)umms_player1_get_subtitle_delay(ctl->player) / 1000.0);
		return STATUS_OK;
	}
	double ms;
	if (!umms_ctl_parse_double(args[0], &ms) || !(ms > -1e12 && ms < 1e12))
		return umms_ctl_usage_error("subtitle-delay %s: expected milliseconds (-500, 1200)",
			args[0]);
	return set_property(ctl, "SubtitleDelay", g_variant_new_int64((gint64)(ms * 1000.0)));
}

static int
cmd_step(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	gint64 frames = 1;
	if (n_args > 0
			&& !g_ascii_string_to_signed(args[0], 10, G_MININT32, G_MAXINT32, &frames, NULL))
		return umms_ctl_usage_error("step %s: expected a number of frames", args[0]);
	if (!umms_player1_call_step_frame_sync(ctl->player, (gint)frames, NULL, &error))
		return umms_ctl_report(error);
	return STATUS_OK;
}

static int
cmd_list(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	g_auto(GStrv) players = umms_ctl_list_players(ctl, &error);
	if (!players)
		return umms_ctl_report(error);
	for (char **path = players; *path; path++) {
		g_autoptr(UmmsPlayer1) player = umms_ctl_open_player(ctl, *path, false, NULL);
		/* Skip a player destroyed since Players was read. */
		if (player && umms_player1_get_state(player))
			umms_ctl_print_summary(player, *path);
	}
	return STATUS_OK;
}

static int
cmd_info(struct ctl *ctl, char **args, int n_args)
{
	if (!umms_player1_get_state(ctl->player))
		return umms_ctl_fail("%s is gone", ctl->path);
	umms_ctl_print_info(ctl->player, ctl->path);
	return STATUS_OK;
}

static int
cmd_destroy(struct ctl *ctl, char **args, int n_args)
{
	GError *error = NULL;
	if (!umms_manager1_call_destroy_player_sync(ctl->manager, ctl->path, NULL, &error))
		return umms_ctl_report(error);
	return STATUS_OK;
}

static int
cmd_wait(struct ctl *ctl, char **args, int n_args)
{
	/* A stopped player has nothing left to end: `play; …; wait` never hangs. */
	if (g_strcmp0(umms_player1_get_state(ctl->player), "stopped") == 0)
		return STATUS_OK;
	return wait_end(ctl);
}

const struct umms_ctl_command umms_ctl_player_commands[] = {
	{ "play", "[URI|PATH]", 0, 1, false, cmd_play },
	{ "pause", "", 0, 0, true, cmd_pause },
	{ "play-pause", "", 0, 0, true, cmd_play_pause },
	{ "stop", "", 0, 0, true, cmd_stop },
	{ "seek", "OFFSET", 1, 1, true, cmd_seek },
	{ "rate", "R", 1, 1, true, cmd_rate },
	{ "volume", "V", 1, 1, true, cmd_volume },
	{ "mute", "on|off", 1, 1, true, cmd_mute },
	{ "timeshift", "on|off", 1, 1, true, cmd_timeshift },
	{ "track", "KIND INDEX", 2, 2, true, cmd_track },
	{ "subtitles", "on|off|N|URI|PATH", 1, 1, true, cmd_subtitles },
	{ "subtitle-delay", "[MS]", 0, 1, true, cmd_subtitle_delay },
	{ "step", "[N]", 0, 1, true, cmd_step },
	{ "list", "", 0, 0, false, cmd_list },
	{ "info", "", 0, 0, true, cmd_info },
	{ "destroy", "", 0, 0, true, cmd_destroy },
	{ "wait", "", 0, 0, true, cmd_wait },
	{ NULL },
};
