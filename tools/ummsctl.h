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

/* Parses "on"/"off" (also "yes"/"no", "true"/"false", "1"/"0"). */
bool umms_ctl_parse_bool(const char *text, bool *value);

/* Prints one `list` line: path, State, Position/Duration, Uri. */
void umms_ctl_print_summary(UmmsPlayer1 *player, const char *path);

/* Prints every property of @player, as `info` shows them. */
void umms_ctl_print_info(UmmsPlayer1 *player, const char *path);
/* The table of org.umms.Resources1: one line per pool, then VA-API. */
void umms_ctl_print_resources(GVariant *decoders, GVariant *planes, GVariant *tuners,
	const char *va);

#endif
