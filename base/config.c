#define UMMS_LOG_SCOPE UMMS_SCOPE_CONFIG

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "socket-name.h"
#include "umms-config.h"

enum key_type {
	KEY_BOOL,
	KEY_UINT,
	KEY_STRING,
	KEY_STRV,
	KEY_BUS,
	KEY_LOG_LEVEL,
	KEY_LOG_SCOPES,
	KEY_AUDIO_OUTPUT,
	KEY_COUNT,          /* a whole number, or "auto" (-1) */
	KEY_ISOLATION,
};

struct key {
	const char *section;
	const char *name;
	enum key_type type;
	size_t offset;
	unsigned min, max; /* KEY_UINT */
};

#define KEY(sect, nm, ty, field) { sect, nm, ty, offsetof(struct umms_config, field), 0, 0 }
#define UKEY(sect, nm, field, lo, hi) \
	{ sect, nm, KEY_UINT, offsetof(struct umms_config, field), lo, hi }

/* Every key; docs/config.md describes each. */
static const struct key keys[] = {
	KEY("service", "bus", KEY_BUS, service.bus),
	KEY("service", "bus-address", KEY_STRING, service.bus_address),
	KEY("service", "bus-name", KEY_STRING, service.bus_name),
	UKEY("service", "max-players", service.max_players, 1, 10000),
	UKEY("service", "max-players-per-client", service.max_players_per_client, 1, 10000),
	UKEY("service", "max-string-length", service.max_string_length, 1024, 64 << 20),
	UKEY("service", "max-array-length", service.max_array_length, 16, 1000000),
	UKEY("service", "unattended-ttl", service.unattended_ttl, 0, 100000000),
	KEY("service", "mpris", KEY_BOOL, service.mpris),
	KEY("log", "level", KEY_LOG_LEVEL, log.level),
	KEY("log", "scopes", KEY_LOG_SCOPES, log.scopes),
	KEY("log", "gst-debug", KEY_STRING, log.gst_debug),
	KEY("engine", "audio-output", KEY_AUDIO_OUTPUT, engine.audio_output),
	KEY("engine", "disable-decoders", KEY_STRV, engine.disable_decoders),
	UKEY("engine", "open-timeout", engine.open_timeout, 0, 600000),
	UKEY("engine", "answer-timeout", engine.answer_timeout, 1000, 600000),
	UKEY("engine", "reply-timeout", engine.reply_timeout, 0, 600000),
	KEY("engine", "pitch-correction", KEY_BOOL, engine.pitch_correction),
	UKEY("engine", "trickmode-rate", engine.trickmode_rate, 1, 64),
	UKEY("engine", "catch-up", engine.catch_up, 0, 60000),
	UKEY("engine", "decoder-threads", engine.decoder_threads, 0, 64),
	UKEY("engine", "subtitle-size", engine.subtitle_size, 10, 500),
	UKEY("engine", "subtitle-margin", engine.subtitle_margin, 0, 900),
	KEY("engine", "isolation", KEY_ISOLATION, engine.isolation),
	KEY("engine", "worker", KEY_STRING, engine.worker),
	UKEY("engine", "hang-timeout", engine.hang_timeout, 100, 600000),
	UKEY("engine", "worker-memory-max", engine.worker_memory_max, 0, 1048576),
	UKEY("engine", "spare-workers", engine.spare_workers, 0, 1),
	KEY("engine", "fork-server", KEY_BOOL, engine.fork_server),
	KEY("engine", "spare-while-playing", KEY_BOOL, engine.spare_while_playing),
	KEY("engine", "sandbox", KEY_BOOL, engine.sandbox),
	KEY("engine", "sandbox-elements", KEY_STRV, engine.sandbox_elements),
	KEY("engine", "landlock", KEY_BOOL, engine.landlock),
	KEY("video", "enabled", KEY_BOOL, video.enabled),
	KEY("video", "socket", KEY_STRING, video.socket),
	UKEY("video", "max-held-frames", video.max_held, 1, 64),
	UKEY("video", "max-clients", video.max_clients, 1, 4096),
	KEY("display", "enabled", KEY_BOOL, display.enabled),
	KEY("display", "headless", KEY_BOOL, display.headless),
	KEY("display", "renderer", KEY_STRING, display.renderer),
	KEY("display", "drm-device", KEY_STRING, display.drm_device),
	KEY("display", "connector", KEY_STRING, display.connector),
	KEY("display", "mode", KEY_STRING, display.mode),
	KEY("display", "margins", KEY_STRING, display.margins),
	KEY("display", "zoom", KEY_STRING, display.zoom),
	KEY("display", "match-refresh", KEY_BOOL, display.match_refresh),
	KEY("display", "compositor", KEY_BOOL, display.compositor),
	KEY("display", "input", KEY_BOOL, display.input),
	KEY("display", "keyboard-layout", KEY_STRING, display.keyboard_layout),
	KEY("display", "session", KEY_STRING, display.session),
	KEY("resources", "decoders.h264", KEY_COUNT, resources.decoders[0]),
	KEY("resources", "decoders.hevc", KEY_COUNT, resources.decoders[1]),
	KEY("resources", "decoders.vp8", KEY_COUNT, resources.decoders[2]),
	KEY("resources", "decoders.vp9", KEY_COUNT, resources.decoders[3]),
	KEY("resources", "decoders.av1", KEY_COUNT, resources.decoders[4]),
	KEY("resources", "decoders.mpeg2", KEY_COUNT, resources.decoders[5]),
	KEY("resources", "decoders.fwht", KEY_COUNT, resources.decoders[6]),
	KEY("resources", "planes", KEY_COUNT, resources.planes),
	UKEY("resources", "tuners", resources.tuners, 0, 64),
	KEY("resources", "priorities", KEY_STRING, resources.priorities),
	KEY("resources", "codec-costs", KEY_STRING, resources.codec_costs),
	KEY("resources", "va-device", KEY_STRING, resources.va_device),
	KEY("recording", "directories", KEY_STRV, recording.directories),
	KEY("recording", "database", KEY_STRING, recording.database),
	KEY("recording", "timeshift-directory", KEY_STRING, recording.timeshift_directory),
	UKEY("recording", "timeshift-window", recording.timeshift_window, 5, 86400),
	UKEY("recording", "timeshift-segment", recording.timeshift_segment, 1, 60),
	UKEY("recording", "schedule-lead", recording.schedule_lead, 0, 60),
	UKEY("web", "port", web.port, 0, 65535),
	KEY("web", "token", KEY_STRING, web.token),
	KEY("web", "origins", KEY_STRV, web.origins),
	KEY("web", "browser", KEY_STRING, web.browser),
	KEY("web", "start-url", KEY_STRING, web.start_url),
	KEY("web", "script", KEY_STRING, web.script),
	UKEY("web", "max-sessions", web.max_sessions, 1, 1000),
	UKEY("web", "max-players", web.max_players, 1, 100),
	UKEY("web", "max-message-bytes", web.max_message_bytes, 1024, 1048576),
	UKEY("web", "max-messages-per-second", web.max_messages_per_second, 1, 10000),
	UKEY("web", "max-depth", web.max_depth, 4, 64),
	UKEY("web", "max-string-length", web.max_string_length, 64, 1048576),
	UKEY("web", "handshake-timeout", web.handshake_timeout, 1, 600),
	UKEY("web", "max-handshakes", web.max_handshakes, 1, 1000),
	UKEY("web", "keepalive-interval", web.keepalive_interval, 0, 3600),
	KEY("guide", "xmltv-timezone", KEY_STRING, guide.xmltv_timezone),
	UKEY("guide", "max-import-size", guide.max_import_size, 1, 4096),
	KEY("dvb", "channels", KEY_STRING, dvb.channels),
	KEY("dvb", "scan-file", KEY_STRING, dvb.scan_file),
	KEY("parental", "ratings", KEY_STRING, parental.ratings),
};

const char *const umms_resource_codecs[UMMS_RESOURCE_CODECS] = {
	"h264", "hevc", "vp8", "vp9", "av1", "mpeg2", "fwht",
};

void
umms_config_init(struct umms_config *config)
{
	*config = (struct umms_config){
		.service = {
			.bus = UMMS_BUS_SESSION,
			.bus_name = g_strdup("org.umms.Service1"),
			.max_players = 100,
			.max_players_per_client = 32,
			.max_string_length = 65536,
			.max_array_length = 1024,
			.unattended_ttl = 600,
			.mpris = true,
		},
		.log = { .level = UMMS_LOG_WARNING },
		.engine = {
			.audio_output = UMMS_AUDIO_AUTO,
			.disable_decoders = g_new0(char *, 1),
			.open_timeout = 10000,
			.answer_timeout = 20000,
			.reply_timeout = 1000,
			.pitch_correction = true,
			.trickmode_rate = 2,
			.catch_up = 0,      /* opt-in: see docs/config.md */
			.subtitle_size = 50,
			.subtitle_margin = 50,
			.isolation = UMMS_ISOLATION_WORKER,
			.sandbox = true,
			.sandbox_elements = g_new0(char *, 1),
			.landlock = true,
			.worker = g_strdup(UMMS_LIBEXECDIR "/umms-engine"),
			.hang_timeout = 5000,
			.worker_memory_max = 1024,
			.spare_workers = 1,
			.fork_server = true,
		},
		.video = {
			.enabled = true,
			/* As WAYLAND_DISPLAY names a compositor's socket. */
			.socket = g_strdup(umms_socket_name(NULL)),
			.max_held = 8,
			.max_clients = 64,
		},
		.display = {
			.renderer = g_strdup("auto"),
			.drm_device = g_strdup(""),
			.connector = g_strdup(""),
			.mode = g_strdup(""),
			.margins = g_strdup("0"),
			.zoom = g_strdup("letterbox"),
			.compositor = true,
			.input = true,
			.keyboard_layout = g_strdup("us"),
			.session = g_strdup("auto"),
		},
		.recording = {
			.directories = g_new0(char *, 1),
			.timeshift_directory = g_strdup(""),
			.timeshift_window = 1800,
			.timeshift_segment = 2,
			.schedule_lead = 5,
		},
		.resources = {
			.decoders = { -1, -1, -1, -1, -1, -1, -1 },
			.planes = -1,
			.priorities = g_strdup("recording,foreground,background"),
			.codec_costs = g_strdup("mpeg2=1,h264=1,vp8=2,hevc=3,vp9=3,av1=4"),
			.va_device = g_strdup(""),
		},
		.web = {
			.origins = g_new0(char *, 1),
			.script = g_strdup(UMMS_DATADIR "/umms/umms-video.js"),
			.max_sessions = 8,
			.max_players = 4,
			.max_message_bytes = 65536,
			.max_messages_per_second = 200,
			.max_depth = 8,
			.max_string_length = 8192,
			.handshake_timeout = 10,
			.max_handshakes = 16,
			.keepalive_interval = 30,
		},
		.guide = {
			.xmltv_timezone = g_strdup(""),
			.max_import_size = 256,
		},
	};
}

void
umms_config_finish(struct umms_config *config)
{
	g_free(config->service.bus_address);
	g_free(config->service.bus_name);
	g_free(config->log.scopes);
	g_free(config->log.gst_debug);
	g_strfreev(config->engine.disable_decoders);
	g_strfreev(config->engine.sandbox_elements);
	g_free(config->engine.worker);
	g_free(config->video.socket);
	g_free(config->display.renderer);
	g_free(config->display.drm_device);
	g_free(config->display.connector);
	g_free(config->display.mode);
	g_free(config->display.margins);
	g_free(config->display.zoom);
	g_free(config->display.keyboard_layout);
	g_free(config->display.session);
	g_free(config->resources.priorities);
	g_free(config->resources.codec_costs);
	g_free(config->resources.va_device);
	g_strfreev(config->recording.directories);
	g_free(config->recording.database);
	g_free(config->recording.timeshift_directory);
	g_free(config->web.token);
	g_strfreev(config->web.origins);
	g_free(config->web.browser);
	g_free(config->web.start_url);
	g_free(config->web.script);
	g_free(config->guide.xmltv_timezone);
	g_free(config->dvb.channels);
	g_free(config->dvb.scan_file);
	g_free(config->parental.ratings);
	g_free(config->loaded_file);
	memset(config, 0, sizeof(*config));
}

char *
umms_config_default_path(void)
{
	/* g_get_user_config_dir() follows $XDG_CONFIG_HOME. */
	return g_build_filename(g_get_user_config_dir(), "umms", "ummsd.conf", NULL);
}

static const struct key *
find_key(const char *section, const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
		if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	}
	return NULL;
}

static bool
parse_bool(const char *text, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
		if (g_ascii_strcasecmp(text, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (g_ascii_strcasecmp(text, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool
set_key(struct umms_config *config, const struct key *key, const char *value,
	GError **error)
{
	void *field = (char *)config + key->offset;
	g_autofree char *text = g_strstrip(g_strdup(value));

	switch (key->type) {
	case KEY_BOOL:
		if (!parse_bool(text, field))
			goto bad;
		return true;
	case KEY_UINT: {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(text, &end, 10);
		if (errno || end == text || *end || text[0] == '-' || v < key->min || v > key->max) {
			g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
				"%s.%s = \"%s\": expected a whole number from %u to %u",
				key->section, key->name, value, key->min, key->max);
			return false;
		}
		*(unsigned *)field = (unsigned)v;
		return true;
	}
	case KEY_COUNT: {
		char *end;
		errno = 0;
		long v = g_ascii_strcasecmp(text, "auto") == 0 ? -1 : strtol(text, &end, 10);
		if (v != -1 && (errno || end == text || *end || v < 0 || v > 64)) {
			g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
				"%s.%s = \"%s\": expected auto or a whole number from 0 to 64",
				key->section, key->name, value);
			return false;
		}
		*(int *)field = (int)v;
		return true;
	}
	case KEY_STRING: {
		char **str = field;
		g_free(*str);
		*str = text[0] ? g_strdup(text) : NULL;
		return true;
	}
	case KEY_STRV: {
		char ***strv = field;
		g_auto(GStrv) items = g_strsplit_set(text, ",;", -1);
		GStrvBuilder *builder = g_strv_builder_new();
		for (char **item = items; *item; item++) {
			g_strstrip(*item);
			if (**item)
				g_strv_builder_add(builder, *item);
		}
		g_strfreev(*strv);
		*strv = g_strv_builder_end(builder);
		g_strv_builder_unref(builder);
		return true;
	}
	case KEY_BUS:
		if (strcmp(text, "session") == 0)
			*(enum umms_bus_type *)field = UMMS_BUS_SESSION;
		else if (strcmp(text, "system") == 0)
			*(enum umms_bus_type *)field = UMMS_BUS_SYSTEM;
		else
			goto bad;
		return true;
	case KEY_LOG_LEVEL:
		if (!umms_log_parse_level(text, field))
			goto bad;
		return true;
	case KEY_LOG_SCOPES: {
		/* Checked here so a typo fails at start, applied by the server. */
		if (!umms_log_check_scopes(text, error))
			return false;
		char **str = field;
		g_free(*str);
		*str = g_strdup(text);
		return true;
	}
	case KEY_AUDIO_OUTPUT:
		if (strcmp(text, "auto") == 0)
			*(enum umms_audio_output *)field = UMMS_AUDIO_AUTO;
		else if (strcmp(text, "none") == 0)
			*(enum umms_audio_output *)field = UMMS_AUDIO_NONE;
		else
			goto bad;
		return true;
	case KEY_ISOLATION:
		if (strcmp(text, "worker") == 0)
			*(enum umms_engine_isolation *)field = UMMS_ISOLATION_WORKER;
		else if (strcmp(text, "in-process") == 0)
			*(enum umms_engine_isolation *)field = UMMS_ISOLATION_IN_PROCESS;
		else
			goto bad;
		return true;
	}
bad:
	g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
		"%s.%s = \"%s\": not a valid value (see docs/config.md)",
		key->section, key->name, value);
	return false;
}

bool
umms_config_set(struct umms_config *config, const char *dotted_key,
	const char *value, GError **error)
{
	const char *dot = strchr(dotted_key, '.');
	if (!dot) {
		g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
			"\"%s\": expected section.key", dotted_key);
		return false;
	}
	g_autofree char *section = g_strndup(dotted_key, (gsize)(dot - dotted_key));
	const struct key *key = find_key(section, dot + 1);
	if (!key) {
		g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
			"unknown configuration key \"%s\"", dotted_key);
		return false;
	}
	return set_key(config, key, value, error);
}

static bool load_keys(struct umms_config *config, GKeyFile *file, const char *path,
	GError **error);

bool
umms_config_load_file(struct umms_config *config, const char *path,
	bool must_exist, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local = NULL;

	if (!g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, &local)) {
		if (!must_exist && g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
			return true;
		g_set_error(error, local->domain, local->code, "%s: %s", path, local->message);
		return false;
	}
	if (!load_keys(config, file, path, error))
		return false;
	g_free(config->loaded_file);
	config->loaded_file = g_strdup(path);
	umms_debug("loaded %s", path);
	return true;
}

bool
umms_config_load_data(struct umms_config *config, const char *data, size_t length,
	const char *name, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local = NULL;
	if (!g_key_file_load_from_data(file, data, length, G_KEY_FILE_NONE, &local)) {
		g_set_error(error, local->domain, local->code, "%s: %s", name, local->message);
		return false;
	}
	return load_keys(config, file, name, error);
}

static bool
load_keys(struct umms_config *config, GKeyFile *file, const char *path, GError **error)
{
	g_autoptr(GError) local = NULL;
	g_auto(GStrv) sections = g_key_file_get_groups(file, NULL);
	for (char **section = sections; *section; section++) {
		g_auto(GStrv) names = g_key_file_get_keys(file, *section, NULL, NULL);
		for (char **name = names; names && *name; name++) {
			const struct key *key = find_key(*section, *name);
			if (!key) {
				g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
					"%s: unknown key [%s] %s", path, *section, *name);
				return false;
			}
			g_autofree char *value = g_key_file_get_value(file, *section, *name, NULL);
			if (!set_key(config, key, value, &local)) {
				g_set_error(error, local->domain, local->code, "%s: %s",
					path, local->message);
				return false;
			}
		}
	}
	return true;
}

static char *
key_text(const struct umms_config *config, const struct key *key)
{
	const void *field = (const char *)config + key->offset;
	static const char *const levels[] = { "silent", "error", "warning", "info", "debug" };

	switch (key->type) {
	case KEY_BOOL:
		return g_strdup(*(const bool *)field ? "true" : "false");
	case KEY_UINT:
		return g_strdup_printf("%u", *(const unsigned *)field);
	case KEY_COUNT:
		return *(const int *)field < 0 ? g_strdup("auto") :
			g_strdup_printf("%d", *(const int *)field);
	case KEY_STRING:
	case KEY_LOG_SCOPES:
		return g_strdup(*(char *const *)field ? *(char *const *)field : "");
	case KEY_STRV:
		return g_strjoinv(",", *(char **const *)field);
	case KEY_BUS:
		return g_strdup(*(const enum umms_bus_type *)field == UMMS_BUS_SYSTEM ?
			"system" : "session");
	case KEY_LOG_LEVEL:
		return g_strdup(levels[*(const enum umms_log_level *)field]);
	case KEY_AUDIO_OUTPUT:
		return g_strdup(*(const enum umms_audio_output *)field == UMMS_AUDIO_NONE ?
			"none" : "auto");
	case KEY_ISOLATION:
		return g_strdup(*(const enum umms_engine_isolation *)field ==
			UMMS_ISOLATION_IN_PROCESS ? "in-process" : "worker");
	}
	return g_strdup("");
}

void
umms_config_print(const struct umms_config *config, FILE *out)
{
	const char *section = NULL;
	for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
		if (!section || strcmp(section, keys[i].section) != 0) {
			section = keys[i].section;
			fprintf(out, "%s[%s]\n", i ? "\n" : "", section);
		}
		g_autofree char *value = key_text(config, &keys[i]);
		fprintf(out, "%s=%s\n", keys[i].name, value);
	}
}
