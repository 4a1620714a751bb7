/*
 * Logging with levels and per-module scopes.
 *
 * Every .c file that logs defines UMMS_LOG_SCOPE (one of enum umms_log_scope)
 * before including this header and then uses umms_error/umms_warn/umms_info/
 * umms_debug. A message is printed when its level is at or below the level of
 * its scope; scopes default to the global level. Levels and scopes come from
 * the configuration ([log] level, [log] scopes), see docs/config.md.
 *
 * Output goes to stderr as "LEVEL [scope] file:line: message". The log state is
 * process-wide: logging is the one global this project allows itself.
 */
#ifndef UMMS_SERVICE_LOG_H
#define UMMS_SERVICE_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

enum umms_log_level {
	UMMS_LOG_SILENT = 0,
	UMMS_LOG_ERROR,
	UMMS_LOG_WARNING,
	UMMS_LOG_INFO,
	UMMS_LOG_DEBUG,
};

enum umms_log_scope {
	UMMS_SCOPE_CORE = 0,
	UMMS_SCOPE_CONFIG,
	UMMS_SCOPE_DBUS,
	UMMS_SCOPE_PLAYER,
	UMMS_SCOPE_ENGINE,
	UMMS_SCOPE_MPRIS,
	UMMS_SCOPE_VIDEO,
	UMMS_SCOPE_DISPLAY,
	UMMS_SCOPE_SEAT,
	UMMS_SCOPE_COUNT,
};

/* Parses "error", "warning", "info", "debug", "silent" (or 0-4). */
bool umms_log_parse_level(const char *text, enum umms_log_level *level);

/* Sets the global level; every scope follows it unless set on its own. */
void umms_log_set_level(enum umms_log_level level);

/*
 * Sets per-scope levels from "scope=level,scope=level" (e.g.
 * "engine=debug,dbus=warning"); scopes not named follow the global level.
 * Returns false, changing nothing, on an unknown scope or level.
 */
bool umms_log_set_scopes(const char *spec, GError **error);

/* Checks a scope spec without applying it. */
bool umms_log_check_scopes(const char *spec, GError **error);

/* Redirects output (tests capture it); NULL restores stderr. */
void umms_log_set_stream(FILE *stream);

const char *umms_log_scope_name(enum umms_log_scope scope);
bool umms_log_enabled(enum umms_log_scope scope, enum umms_log_level level);

void umms_log_write(enum umms_log_scope scope, enum umms_log_level level,
	const char *file, int line, const char *fmt, ...) G_GNUC_PRINTF(5, 6);

#define umms_log(level, ...) \
	do { \
		if (umms_log_enabled(UMMS_LOG_SCOPE, level)) \
			umms_log_write(UMMS_LOG_SCOPE, level, __FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

#define umms_error(...) umms_log(UMMS_LOG_ERROR, __VA_ARGS__)
#define umms_warn(...) umms_log(UMMS_LOG_WARNING, __VA_ARGS__)
#define umms_info(...) umms_log(UMMS_LOG_INFO, __VA_ARGS__)
#define umms_debug(...) umms_log(UMMS_LOG_DEBUG, __VA_ARGS__)

#endif
