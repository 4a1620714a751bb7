/*
 * A JSON-RPC client of ummsd's browser bridge for tests (test-web.c):
 * libsoup's WebSocket client on the test's main context.
 */
#ifndef UMMS_TESTS_WEB_CLIENT_H
#define UMMS_TESTS_WEB_CLIENT_H

#include <stdbool.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "harness.h"

#define TOKEN "0123456789abcdef0123456789abcdef"
#define ORIGIN "http://app.test:8123"

struct client {
	SoupSession *session;
	SoupWebsocketConnection *conn;
	GQueue messages;           /* JsonNode *, in arrival order */
	bool closed;
	gushort close_code;
	unsigned next_id;
	GPtrArray *position_times; /* gint64 µs each position arrived */
};


/* The bridge's port of the ummsd running now. */
extern unsigned web_port;

typedef bool (*match_fn)(JsonObject *message, const void *data);

/*
 * Connects with @token and @origin (NULL: none sent); returns the client,
 * or NULL with the HTTP status that refused it in @status.
 */
struct client *try_connect(const char *token, const char *origin, guint *status);
/* With the good token and Origin; fails the test if refused. */
struct client *client_connect(void);
void client_free(struct client *c);
void send_text(struct client *c, const char *text);
/* Sends a request; returns its id. @params: JSON object text or NULL. */
unsigned send_request(struct client *c, const char *method, const char *params);
/* Waits for (and takes) the first message @match accepts. */
JsonNode *wait_message(struct client *c, match_fn match, const void *data,
	unsigned timeout_ms, const char *what);
/* The answer to request @id. */
JsonNode *wait_answer(struct client *c, unsigned id);
/* The params of the next notification @method (with that state, for "state"). */
JsonObject *wait_notice(struct client *c, const char *method, const char *state,
	unsigned timeout_ms);
/* Forgets the @method notifications that came so far. */
void drop_notices(struct client *c, const char *method);
/* Calls and asserts a result; returns it (an object). */
JsonObject *call_ok(struct client *c, const char *method, const char *params);
/* Checks an error object: its code and data.name; returns its message. */
const char *check_error(JsonObject *answer, int code, const char *name);
/* Calls and asserts the error @code with data.name @name. */
void call_error(struct client *c, const char *method, const char *params, int code,
	const char *name);
/* Sends raw text; asserts the error answered (id null, or 0 where it was). */
const char *raw_error(struct client *c, const char *text, int code, const char *name);
/* Opens @clip; returns the player's id. */
unsigned open_clip(struct client *c, const char *clip);
/* Manager1.Players. */
GVariant *players(GDBusConnection *bus);
void wait_closed(struct client *c, unsigned timeout_ms);
/* A fresh ummsd serving the bridge on a free port, with @extra overrides. */
void web_start(struct umms_test *t, const char *const *extra);

#endif
