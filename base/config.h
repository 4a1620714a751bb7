/*
 * ummsd configuration: defaults, the key file, command-line overrides and the
 * environment. This is the only module that reads environment variables;
 * every key is listed in docs/config.md and every variable in
 * docs/env_vars.md.
 *
 * Order of precedence: defaults < environment (UMMS_DISPLAY) < configuration
 * file < --set/flags.
 * The file is $XDG_CONFIG_HOME/umms/ummsd.conf (GKeyFile syntax) unless
 * --config names another; a missing default file is not an error, a missing
 * named file is.
 */
#ifndef UMMS_SERVICE_CONFIG_H
#define UMMS_SERVICE_CONFIG_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "log.h"

enum umms_bus_type {
	UMMS_BUS_SESSION,
	UMMS_BUS_SYSTEM,
};

enum umms_audio_output {
	UMMS_AUDIO_AUTO,   /* autoaudiosink */
	UMMS_AUDIO_NONE,   /* decoded and clocked, never heard (tests) */
};

enum umms_engine_isolation {
	UMMS_ISOLATION_WORKER,     /* each player's engine in an umms-engine process */
	UMMS_ISOLATION_IN_PROCESS, /* engines inside ummsd (debugging, fallback) */
};

/* The codecs whose hardware decoders are counted in [resources] (decoders.CODEC). */
#define UMMS_RESOURCE_CODECS 7
extern const char *const umms_resource_codecs[UMMS_RESOURCE_CODECS];

struct umms_config {
	struct {
		enum umms_bus_type bus;
		char *bus_address;     /* overrides bus when set */
		char *bus_name;        /* org.umms.Service1 */
		unsigned max_players;
		unsigned max_players_per_client; /* of one bus name */
		unsigned max_string_length;      /* bytes of one string in a D-Bus call */
		unsigned max_array_length;       /* elements of one array in a D-Bus call */
		unsigned unattended_ttl; /* seconds, 0 = never */
		bool mpris;
	} service;
	struct {
		enum umms_log_level level;
		char *scopes;
		char *gst_debug;
	} log;
	struct {
		enum umms_audio_output audio_output;
		char **disable_decoders;  /* element names never used, NULL-terminated */
		unsigned open_timeout;    /* ms SetUri waits for the media to open */
		unsigned answer_timeout;  /* ms any request waits for GStreamer */
		unsigned reply_timeout;   /* ms a network source's request waits to reply */
		bool pitch_correction;    /* keep the pitch at rates != 1 */
		unsigned trickmode_rate;  /* |rate| above which only key frames play */
	unsigned catch_up;        /* ms late at a video decoder before it skips to a key frame, 0 never */
		unsigned decoder_threads; /* a software video decoder's threads, 0: by its picture */
		unsigned subtitle_size;   /* ‰ of the picture's height, subtitle text */
		unsigned subtitle_margin; /* ‰ of the picture's height, under subtitles */
		enum umms_engine_isolation isolation;
		char *worker;             /* the umms-engine binary */
		unsigned hang_timeout;    /* ms a worker may leave a ping unanswered */
		unsigned worker_memory_max; /* MB of resident memory per worker, 0: no limit */
		unsigned spare_workers;   /* workers kept started for the next SetUri: 0 or 1 */
		bool fork_server;         /* workers forked from one loaded umms-engine (worker/zygote.h) */
		bool spare_while_playing; /* the spare started while a player plays too */
		bool sandbox;             /* workers enter worker/sandbox.h's sandbox */
		char **sandbox_elements;  /* more element or plugin names it allows, NULL-terminated */
		bool landlock;            /* with Landlock where the kernel has it */
	} engine;
	struct {
		bool enabled;             /* serve umms_video_v1 */
		char *socket;             /* name in $XDG_RUNTIME_DIR, or absolute path */
		unsigned max_held;        /* frames one client may hold unreleased */
		unsigned max_clients;     /* connections to the socket at once */
	} video;
	struct {
		bool enabled;             /* drive a screen (ummsd --drm, --headless) */
		bool headless;            /* a headless screen, not KMS (ummsd --headless) */
		char *renderer;           /* headless: auto, gles2, pixman */
		char *drm_device;         /* "" : the first card with a screen */
		char *connector;          /* "" : the first connected */
		char *mode;               /* "" : preferred; WxH or WxH@Hz */
		char *margins;            /* overscan, "0", "5%", "32,18" or "l,t,r,b" */
		char *zoom;               /* letterbox, fill, crop, none, 4:3-in-16:9, anamorphic */
		bool match_refresh;       /* switch modes to suit a video's frame rate */
		bool compositor;          /* serve Wayland clients (a shell UI) on the screen */
		bool input;               /* take keyboards and pointers (libinput) for them */
		char *keyboard_layout;    /* xkb layout, "us" */
		char *session;           /* auto, libseat, direct: how devices are opened */
	} display;
	struct {
		/* Units per pool; -1 (auto): what probing finds (VA-API, the KMS planes). */
		int decoders[UMMS_RESOURCE_CODECS]; /* umms_resource_codecs order */
		int planes;
		unsigned tuners;
		char *priorities;         /* highest first: "recording,foreground,background" */
		char *codec_costs;        /* "h264=1,vp9=3": software decoding cost, lower first */
		char *va_device;          /* "" : the first /dev/dri/renderD* */
	} resources;
	struct {
		char **directories;       /* where recordings may be written; empty: the default */
		char *database;           /* NULL: $XDG_STATE_HOME/umms/umms.db */
		char *timeshift_directory; /* "" : $XDG_CACHE_HOME/umms/timeshift */
		unsigned timeshift_window;  /* seconds of a live player kept for time-shift */
		unsigned timeshift_segment; /* seconds per file of the time-shift ring */
		unsigned schedule_lead;     /* seconds a schedule's source is opened ahead */
	} recording;
	struct {
		/* The browser bridge (service/web/): WebSocket JSON-RPC on loopback. */
		unsigned port;            /* 0: off */
		char *token;              /* NULL: one ummsd makes at start */
		char **origins;           /* Origin values allowed, exact; "null" for none */
		char *browser;            /* command line started once the screen is up, or NULL */
		char *start_url;          /* its page; {token} and {port} substituted */
		char *script;             /* the file GET /umms-video.js serves */
		unsigned max_sessions;    /* WebSocket connections at once */
		unsigned max_players;     /* players per session */
		unsigned max_message_bytes;
		unsigned max_messages_per_second; /* per session */
		unsigned max_depth;       /* nesting of a message's arrays and objects */
		unsigned max_string_length; /* bytes of one string in a message */
		unsigned handshake_timeout; /* seconds from connect to an open WebSocket */
		unsigned max_handshakes;  /* connections not (yet) a WebSocket at once */
		unsigned keepalive_interval; /* seconds between pings; 0: none */
	} web;
	struct {
		char *xmltv_timezone;     /* offset-less XMLTV times; "" : the system's zone */
		unsigned max_import_size; /* MiB of one M3U or XMLTV file */
	} guide;
	struct {
		/* DVB tuners (service/dvb/): the channel scan and dvb:// channels. */
		char *channels;           /* the channel list; NULL: $XDG_STATE_HOME/umms/dvb-channels.conf */
		char *scan_file;          /* the initial tuning file a scan without one uses, or NULL */
	} dvb;
	struct {
		char *ratings;           /* "SYSTEM:RATING=AGE,…" over the built-in table, or NULL */
	} parental;
	char *loaded_file; /* the file the keys came from, or NULL */
};

/* Fills in the defaults. */
void umms_config_init(struct umms_config *config);
void umms_config_finish(struct umms_config *config);

/* $XDG_CONFIG_HOME/umms/ummsd.conf; free with g_free. */
char *umms_config_default_path(void);

/*
 * Loads a key file over the current values. With must_exist false, a missing
 * file is silently skipped. Unknown sections or keys and bad values are errors
 * naming the file, key and value.
 */
bool umms_config_load_file(struct umms_config *config, const char *path,
	bool must_exist, GError **error);

/* The same from text in key file syntax (what umms_config_print writes); @name for errors. */
bool umms_config_load_data(struct umms_config *config, const char *data, size_t length,
	const char *name, GError **error);

/* Sets one key, "section.key", from its text form (as in the file). */
bool umms_config_set(struct umms_config *config, const char *dotted_key,
	const char *value, GError **error);

/* Writes every key with its current value in key file syntax. */
void umms_config_print(const struct umms_config *config, FILE *out);

#endif
