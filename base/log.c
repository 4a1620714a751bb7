#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

static const char *const scope_names[UMMS_SCOPE_COUNT] = {
	[UMMS_SCOPE_CORE] = "core",
	[UMMS_SCOPE_CONFIG] = "config",
	[UMMS_SCOPE_DBUS] = "dbus",
	[UMMS_SCOPE_PLAYER] = "player",
	[UMMS_SCOPE_ENGINE] = "engine",
	[UMMS_SCOPE_MPRIS] = "mpris",
	[UMMS_SCOPE_VIDEO] = "video",
	[UMMS_SCOPE_DISPLAY] = "display",
	[UMMS_SCOPE_SEAT] = "seat",
};

static const char *const level_names[] = {
	[UMMS_LOG_SILENT] = "silent",
	[UMMS_LOG_ERROR] = "error",
	[UMMS_LOG_WARNING] = "warning",
	[UMMS_LOG_INFO] = "info",
	[UMMS_LOG_DEBUG] = "debug",
};

/* -1: follow the global level. */
static int scope_levels[UMMS_SCOPE_COUNT] = { [0 ... UMMS_SCOPE_COUNT - 1] = -1 };
static enum umms_log_level global_level = UMMS_LOG_WARNING;
static FILE *log_stream;
static GMutex log_lock;

bool
umms_log_parse_level(const char *text, enum umms_log_level *level)
{
	for (size_t i = 0; i < G_N_ELEMENTS(level_names); i++) {
		if (g_ascii_strcasecmp(text, level_names[i]) == 0 ||
				(text[0] == (char)('0' + i) && text[1] == '\0')) {
			*level = (enum umms_log_level)i;
			return true;
		}
	}
	if (g_ascii_strcasecmp(text, "warn") == 0) {
		*level = UMMS_LOG_WARNING;
		return true;
	}
	return false;
}

void
umms_log_set_level(enum umms_log_level level)
{
	global_level = level;
}

static bool
parse_scopes(const char *spec, int levels[UMMS_SCOPE_COUNT], GError **error)
{
	g_auto(GStrv) items = g_strsplit(spec, ",", -1);
	for (char **item = items; *item; item++) {
		g_strstrip(*item);
		if (**item == '\0')
			continue;
		char *eq = strchr(*item, '=');
		if (!eq) {
			g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
				"log scope \"%s\": expected scope=level", *item);
			return false;
		}
		*eq = '\0';
		int scope = -1;
		for (int s = 0; s < UMMS_SCOPE_COUNT; s++) {
			if (strcmp(*item, scope_names[s]) == 0)
				scope = s;
		}
		enum umms_log_level level;
		if (scope < 0 || !umms_log_parse_level(eq + 1, &level)) {
			g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
				"log scope \"%s=%s\": unknown %s", *item, eq + 1,
				scope < 0 ? "scope" : "level");
			return false;
		}
		levels[scope] = (int)level;
	}
	return true;
}

bool
umms_log_check_scopes(const char *spec, GError **error)
{
	int levels[UMMS_SCOPE_COUNT];
	return parse_scopes(spec, levels, error);
}

bool
umms_log_set_scopes(const char *spec, GError **error)
{
	int levels[UMMS_SCOPE_COUNT];
	for (int s = 0; s < UMMS_SCOPE_COUNT; s++)
		levels[s] = -1;
	if (!parse_scopes(spec, levels, error))
		return false;
	memcpy(scope_levels, levels, sizeof(levels));
	return true;
}

void
umms_log_set_stream(FILE *stream)
{
	g_mutex_lock(&log_lock);
	log_stream = stream;
	g_mutex_unlock(&log_lock);
}

const char *
umms_log_scope_name(enum umms_log_scope scope)
{
	return scope < UMMS_SCOPE_COUNT ? scope_names[scope] : "?";
}

bool
umms_log_enabled(enum umms_log_scope scope, enum umms_log_level level)
{
	int limit = scope_levels[scope] >= 0 ? scope_levels[scope] : (int)global_level;
	return (int)level <= limit && level != UMMS_LOG_SILENT;
}

void
umms_log_write(enum umms_log_scope scope, enum umms_log_level level,
	const char *file, int line, const char *fmt, ...)
{
	static const char *const tags[] = {
		[UMMS_LOG_ERROR] = "ERROR", [UMMS_LOG_WARNING] = "WARN ",
		[UMMS_LOG_INFO] = "INFO ", [UMMS_LOG_DEBUG] = "DEBUG",
	};
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);

	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;

	va_list args;
	va_start(args, fmt);
	g_autofree char *text = g_strdup_vprintf(fmt, args);
	va_end(args);

	g_mutex_lock(&log_lock);
	FILE *out = log_stream ? log_stream : stderr;
	fprintf(out, "%5ld.%03ld %s [%s] %s:%d: %s\n", (long)ts.tv_sec,
		ts.tv_nsec / 1000000, tags[level], scope_names[scope], base, line, text);
	fflush(out);
	g_mutex_unlock(&log_lock);
}
