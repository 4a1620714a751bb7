/*
 * The names players' states and priorities go by on D-Bus and in the
 * configuration, and the URIs of their media.
 */
#include <string.h>

#include "error.h"
#include "player.h"

const char *
umms_player_state_name(enum umms_player_state state)
{
	switch (state) {
	case UMMS_PLAYER_PLAYING:
		return "playing";
	case UMMS_PLAYER_PAUSED:
		return "paused";
	case UMMS_PLAYER_STOPPED:
		break;
	}
	return "stopped";
}

static const char *const priority_names[] = {
	[UMMS_PRIORITY_BACKGROUND] = "background",
	[UMMS_PRIORITY_FOREGROUND] = "foreground",
	[UMMS_PRIORITY_RECORDING] = "recording",
};

const char *
umms_priority_name(enum umms_priority priority)
{
	return priority_names[priority];
}

bool
umms_priority_parse(const char *name, enum umms_priority *priority)
{
	for (size_t i = 0; i < G_N_ELEMENTS(priority_names); i++) {
		if (strcmp(name, priority_names[i]) == 0) {
			*priority = (enum umms_priority)i;
			return true;
		}
	}
	return false;
}

char *
umms_player_normalize_uri(const char *text, GError **error)
{
	if (!text[0]) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT, "the URI is empty");
		return NULL;
	}
	if (text[0] == '/')
		return g_filename_to_uri(text, NULL, error);
	g_autofree char *scheme = g_uri_parse_scheme(text);
	if (!scheme) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a URI: \"%s\" (give a URI or an absolute path)", text);
		return NULL;
	}
	return g_strdup(text);
}
