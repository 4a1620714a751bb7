/*
 * ummsctl's parts: ummsctl.c (options, the bus, the choice of a player, the
 * display's and the service's commands), ummsctl-player.c (the commands on
 * one player, waiting for its end), ummsctl-service.c (hardware units and
 * recordings), ummsctl-guide.c (the programme guide) and ummsctl-format.c
 * (parsing and formatting: times, numbers, the `list`, `info` and
 * `resources` output).
 */
#ifndef UMMS_TOOLS_UMMSCTL_H
#define UMMS_TOOLS_UMMSCTL_H

#include <stdbool.h>
#include <glib.h>

#include "umms-dbus.h"

#define SERVICE_NAME "org.umms.Service1"
#define MANAGER_PATH "/org/umms"
#define PLAYER_IFACE "org.umms.Player1"
/* Methods that change the state reply once it changed (SetUri: media opened). */
#define CALL_TIMEOUT_MS 30000

/* ummsctl's exit status. */
enum {
	STATUS_OK = 0,
	STATUS_ERROR = 1,
	STATUS_USAGE = 2,
	STATUS_INTERRUPTED = 130,
};

/* What a command works with. */
struct ctl {
	GDBusConnection *bus;
	UmmsManager1 *manager;
	const char *player_arg; /* --player */
	bool wait;              /* --wait */
	/* The player a command works on (umms_ctl_select_player() or `play URI`). */
	char *path;
	UmmsPlayer1 *player;
	bool created;           /* by this `play`: destroyed when interrupted */
	/* wait_end() in ummsctl-player.c */
	GMainLoop *loop;
	int status;
	/* place's options */
	const char *clip;       /* --clip X,Y,W,H */
	int z;                  /* --z */
	bool z_set, over, hidden;
	/* parental's options */
	const char *pin;        /* --pin */
	const char *new_pin;    /* --new-pin */
};

/* A command: its name and arguments; @run returns the exit status. */
struct umms_ctl_command {
	const char *name;
	const char *synopsis; /* its arguments, for usage errors */
	int min_args, max_args;
	bool needs_player;    /* ctl->player and ctl->path are set before @run */
	int (*run)(struct ctl *ctl, char **args, int n_args);
	bool own_options;     /* "--x" after the command name is its argument, not ours */
};

/* ummsctl-player.c: play, pause, seek, …, wait; ends with { NULL }. */
extern const struct umms_ctl_command umms_ctl_player_commands[];
/* ummsctl-guide.c: channels, guide, search, import-m3u, import-xmltv. */
extern const struct umms_ctl_command umms_ctl_guide_commands[];
/* ummsctl-parental.c: parental; ends with { NULL }. */
extern const struct umms_ctl_command umms_ctl_parental_commands[];
/* ummsctl-series.c: record-programme, series; ends with { NULL }. */
extern const struct umms_ctl_command umms_ctl_series_commands[];
/* ummsctl-entitlement.c: entitlements; ends with { NULL }. */
extern const struct umms_ctl_command umms_ctl_entitlement_commands[];

/*
 * Formats microseconds as "H:MM:SS", or "H:MM:SS.mmm" with @fraction; a
 * negative time (a Duration of -1: unknown) is "-:--:--". Free with g_free().
 */
char *umms_ctl_format_time(gint64 us, bool fraction);

/*
 * Parses a seek target: "+T" or "-T" is an offset (@relative set), "T" a
 * position, where T is seconds ("30", "1.5"), "M:SS" or "H:MM:SS" (only the
 * seconds may have a fraction). @us is negative for "-T".
 */
bool umms_ctl_parse_seek(const char *text, gint64 *us, bool *relative);

/* Parses a whole, finite decimal number ("2", "-0.5", "1e-1"). */
bool umms_ctl_parse_double(const char *text, double *value);

/* ummsctl.c: an error for a person on stderr, exit status 1; frees @error. */
int umms_ctl_report(GError *error);
int umms_ctl_fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* A usage error on stderr, with a hint to --help: exit status 2. */
int umms_ctl_usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* The Players of the manager (a NULL-terminated array, g_strfreev); NULL with @error. */
char **umms_ctl_list_players(struct ctl *ctl, GError **error);
/* A proxy for player @path; @signals: whether it receives the player's signals. */
UmmsPlayer1 *umms_ctl_open_player(struct ctl *ctl, const char *path, bool signals,
	GError **error);
/* Sets ctl->path and ctl->player, from --player or the default: the exit status. */
int umms_ctl_select_player(struct ctl *ctl);
/* A URI as is; a local path, relative or absolute, as a file:// URI. g_free. */
char *umms_ctl_to_uri(const char *arg);
/* A property of ummsd's object @path; NULL with @error. */
GVariant *umms_ctl_get_property(GDBusConnection *bus, const char *path, const char *iface,
	const char *name, GError **error);

/* ummsctl-service.c: what ummsd shares out: hardware units, recordings. */
int umms_ctl_resources(GDBusConnection *bus);
/* @seconds: NULL, or how long. Prints the recording's object path. */
int umms_ctl_record(GDBusConnection *bus, const char *uri, const char *destination,
	const char *seconds);
/* @start: "+SECONDS" or "2026-12-03T20:00"; @duration: seconds, M:SS, H:MM:SS. */
int umms_ctl_schedule(GDBusConnection *bus, const char *uri, const char *destination,
	const char *start, const char *duration);
int umms_ctl_recordings(GDBusConnection *bus);
/* Deletes recording @which (N or its path) and its files. */
int umms_ctl_delete_recording(GDBusConnection *bus, const char *which);

/* Parses "on"/"off" (also "yes"/"no", "true"/"false", "1"/"0"). */
bool umms_ctl_parse_bool(const char *text, bool *value);

/* Prints one `list` line: path, State, Position/Duration, Uri. */
void umms_ctl_print_summary(UmmsPlayer1 *player, const char *path);

/* Prints every property of @player, as `info` shows them. */
void umms_ctl_print_info(UmmsPlayer1 *player, const char *path);
/* The table of org.umms.Resources1: one line per pool (and its details), then VA-API. */
void umms_ctl_print_resources(GVariant *decoders, GVariant *captures, GVariant *planes,
	GVariant *tuners, const char *va);

/* The Commands section of --help. */
extern const char umms_ctl_commands_help[];

#endif
