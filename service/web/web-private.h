/*
 * Inside the browser bridge: the server (web-server.c: listening, the
 * handshake's checks, the script, the browser), a session per WebSocket
 * (web-session.c: limits, JSON-RPC framing, replies) and the methods on a
 * session's players (web-player.c: Player1's calls, notifications, place).
 */
#ifndef UMMS_SERVICE_WEB_PRIVATE_H
#define UMMS_SERVICE_WEB_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <wayland-server-core.h>

#include "web.h"

/* JSON-RPC 2.0 error codes. */
#define UMMS_WEB_PARSE_ERROR -32700
#define UMMS_WEB_INVALID_REQUEST -32600
#define UMMS_WEB_METHOD_NOT_FOUND -32601
#define UMMS_WEB_INVALID_PARAMS -32602
#define UMMS_WEB_SERVICE_ERROR -32000

struct umms_web {
	const struct umms_config *config;
	struct umms_manager *manager;
	struct umms_display *display;  /* NULL: no screen to place videos on */
	SoupServer *server;
	char *token;
	GPtrArray *sessions;       /* struct umms_web_session * */
	unsigned next_session;
	GHashTable *handshakes;    /* GSocket * → GSource * (its handshake-timeout) */
	GPid browser;              /* 0: none running */
	GSource *browser_watch, *browser_restart;
	unsigned browser_backoff;  /* seconds before the next restart */
	int64_t browser_started;   /* monotonic µs */
};

struct umms_web_session {
	struct umms_web *web;
	unsigned id;
	char *owner;               /* "web:N", the players' creator in the manager */
	SoupWebsocketConnection *conn;
	GIOStream *stream;         /* conn's: umms_web_stream */
	GSource *keepalive_timer, *refused_idle;
	unsigned short refused_code;
	gulong message_handler, closing_handler, error_handler, closed_handler;
	GHashTable *players;       /* per-session id → struct umms_web_player * */
	unsigned next_player;
	GQueue calls;              /* struct umms_web_call *, answers still to come */
	int64_t window_start;      /* µs, monotonic: this second of messages */
	unsigned window_count;
	bool closing;              /* the socket is closing: its players go */
	GSource *release_idle, *destroy_idle;
};

/* A request answered later (a player's done callback). */
struct umms_web_call {
	struct umms_web_session *session; /* NULL once the session is gone */
	JsonNode *id;
	struct umms_web_player *opening;  /* open: the player it made */
};

/* The placement a session asked for last (place). */
struct umms_web_rect {
	double x, y, width, height;
};

struct umms_web_placement {
	struct umms_web_rect rect;
	bool has_clip;
	struct umms_web_rect clip;
	int z;
	bool visible, over;
	double scale;
};

struct umms_web_player {
	struct umms_web_session *session;
	unsigned id;
	struct umms_player *player;
	struct wl_listener changed, seeked, eos, error, destroy;
	GSource *position_timer, *destroy_idle;
	bool announced;            /* open was answered: notifications flow */
	const char *last_state;
	int64_t last_duration;
	char *last_tracks;
	int64_t last_position;     /* µs sent last, or -1 */
	int64_t last_position_at;  /* monotonic µs it was sent */
	bool placed;
	struct umms_web_placement placement;
};

/* web-stream.c */
typedef void (*umms_web_refused_fn)(gpointer data, unsigned short code, const char *reason);
/*
 * What libsoup reads a WebSocket from: @base, with each data message
 * bounded to @max_message bytes (its fragments together) and control
 * frames to 125 bytes; the first frame over is dropped with every data
 * frame after it, and the function given to umms_web_stream_watch called.
 */
GIOStream *umms_web_stream_new(GIOStream *base, uint64_t max_message);
void umms_web_stream_watch(GIOStream *stream, umms_web_refused_fn fn, gpointer data);
/* When the peer's last frame (of any kind) began: monotonic µs. */
int64_t umms_web_stream_last_frame(GIOStream *stream);

/* web-session.c */
/* @stream: the umms_web_stream @conn reads. */
struct umms_web_session *umms_web_session_create(struct umms_web *web,
	SoupWebsocketConnection *conn, GIOStream *stream);
/* Destroys its players; @code, if not 0, closes the socket first. */
void umms_web_session_destroy(struct umms_web_session *session, unsigned short code,
	const char *reason);
/* Sends {result} to @id (null id: nothing, it was a notification); takes @result. */
void umms_web_session_reply(struct umms_web_session *session, JsonNode *id, JsonNode *result);
void umms_web_session_error(struct umms_web_session *session, JsonNode *id, int code,
	const char *name, const char *format, ...) G_GNUC_PRINTF(5, 6);
/* A player's GError: InvalidArgument as invalid params, the rest as service errors. */
void umms_web_session_gerror(struct umms_web_session *session, JsonNode *id,
	const GError *error);
/* Takes @params. */
void umms_web_session_notify(struct umms_web_session *session, const char *method,
	JsonNode *params);
struct umms_web_call *umms_web_call_new(struct umms_web_session *session, JsonNode *id);
void umms_web_call_free(struct umms_web_call *call);

/* web-player.c */
/* Runs @method; false if there is no such method. */
bool umms_web_player_dispatch(struct umms_web_session *session, const char *method,
	JsonObject *params, JsonNode *id);
/* Destroys the player through the manager (as DestroyPlayer would). */
void umms_web_player_close(struct umms_web_player *wp);
/*
 * Puts the session's latest placement of @wp on ummsd's screen. False with
 * an error while it cannot (see web-player.c).
 */
bool umms_web_apply_placement(struct umms_web_player *wp, GError **error);

#endif
