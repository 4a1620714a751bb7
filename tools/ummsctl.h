/*
 * ummsctl's parsing and formatting: times, numbers, and the `list` and `info`
 * output of a player. The D-Bus side (bus, commands, waiting) is ummsctl.c.
 */
#ifndef UMMS_TOOLS_UMMSCTL_H
#define UMMS_TOOLS_UMMSCTL_H

#include <stdbool.h>
#include <glib.h>

#include "umms-dbus.h"

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
