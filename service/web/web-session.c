/*
 * One WebSocket session of the browser bridge: every text frame is checked
 * against the [web] limits before json-glib sees it (size, nesting, string
 * length, messages per second), then read as one JSON-RPC 2.0 request and
 * handed to web-player.c. Replies, errors and notifications go out from here.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <stdarg.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "manager.h"
#include "source.h"
#include "web-private.h"

/* A session that sent this many more than its rate in one second is closed. */
#define FLOOD_FACTOR 2
/* A session silent (not even a pong) for this many keepalive intervals is closed. */
#define KEEPALIVE_MISSED 2

static void
send_node(struct umms_web_session *session, JsonNode *node)
{
	if (session->closing ||
			soup_websocket_connection_get_state(session->conn) != SOUP_WEBSOCKET_STATE_OPEN) {
		json_node_unref(node);
		return;
	}
	g_autoptr(JsonGenerator) generator = json_generator_new();
	json_generator_set_root(generator, node);
	g_autofree char *text = json_generator_to_data(generator, NULL);
	/* Messages from libraries (GStreamer's errors) are not promised to be UTF-8. */
	if (!g_utf8_validate(text, -1, NULL)) {
		char *valid = g_utf8_make_valid(text, -1);
		g_free(text);
		text = valid;
	}
	soup_websocket_connection_send_text(session->conn, text);
	json_node_unref(node);
}

static JsonNode *
envelope(JsonNode *id)
{
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);
	JsonObject *object = json_object_new();
	json_object_set_string_member(object, "jsonrpc", "2.0");
	json_object_set_member(object, "id", id ? json_node_copy(id) : json_node_new(JSON_NODE_NULL));
	json_node_take_object(node, object);
	return node;
}

void
umms_web_session_reply(struct umms_web_session *session, JsonNode *id, JsonNode *result)
{
	if (!id) {
		json_node_unref(result);
		return;
	}
	JsonNode *node = envelope(id);
	json_object_set_member(json_node_get_object(node), "result", result);
	send_node(session, node);
}

static void
send_error(struct umms_web_session *session, JsonNode *id, int code, const char *name,
	const char *message)
{
	JsonNode *node = envelope(id);
	JsonObject *error = json_object_new();
	json_object_set_int_member(error, "code", code);
	json_object_set_string_member(error, "message", message);
	JsonObject *data = json_object_new();
	json_object_set_string_member(data, "name", name);
	json_object_set_object_member(error, "data", data);
	json_object_set_object_member(json_node_get_object(node), "error", error);
	send_node(session, node);
}

void
umms_web_session_error(struct umms_web_session *session, JsonNode *id, int code,
	const char *name, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *message = g_strdup_vprintf(format, args);
	va_end(args);
	/* A notification is never answered, not even with an error. */
	if (!id && code != UMMS_WEB_PARSE_ERROR && code != UMMS_WEB_INVALID_REQUEST)
		return;
	send_error(session, id, code, name, message);
}

void
umms_web_session_gerror(struct umms_web_session *session, JsonNode *id, const GError *error)
{
	bool invalid = error->domain == UMMS_ERROR && error->code == UMMS_ERROR_INVALID_ARGUMENT;
	umms_web_session_error(session, id,
		invalid ? UMMS_WEB_INVALID_PARAMS : UMMS_WEB_SERVICE_ERROR,
		umms_error_dbus_name_of(error), "%s", error->message);
}

void
umms_web_session_notify(struct umms_web_session *session, const char *method, JsonNode *params)
{
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);
	JsonObject *object = json_object_new();
	json_object_set_string_member(object, "jsonrpc", "2.0");
	json_object_set_string_member(object, "method", method);
	json_object_set_member(object, "params", params);
	json_node_take_object(node, object);
	send_node(session, node);
}

struct umms_web_call *
umms_web_call_new(struct umms_web_session *session, JsonNode *id)
{
	struct umms_web_call *call = g_new0(struct umms_web_call, 1);
	call->session = session;
	call->id = id ? json_node_copy(id) : NULL;
	g_queue_push_tail(&session->calls, call);
	return call;
}

void
umms_web_call_free(struct umms_web_call *call)
{
	if (call->session)
		g_queue_remove(&call->session->calls, call);
	if (call->id)
		json_node_unref(call->id);
	g_free(call);
}

/*
 * The limits json-glib does not keep, checked on the raw text: how deep
 * arrays and objects nest (its parser recurses) and how long one string
 * is. Anything that is not JSON is left for the parser to refuse.
 */
static bool
check_shape(const char *text, size_t length, unsigned max_depth, unsigned max_string,
	const char **why)
{
	unsigned depth = 0;
	for (size_t i = 0; i < length; i++) {
		char c = text[i];
		if (c == '\0') {
			*why = "a NUL byte";
			return false;
		}
		if (c == '"') {
			size_t start = ++i;
			while (i < length && text[i] != '"')
				i += text[i] == '\\' ? 2 : 1;
			if (i - start > max_string) {
				*why = "a string longer than web.max-string-length";
				return false;
			}
		} else if (c == '[' || c == '{') {
			if (++depth > max_depth) {
				*why = "arrays or objects nested deeper than web.max-depth";
				return false;
			}
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return true;
}

/* Counts the message in this second; false: over the rate (answered here). */
static bool
within_rate(struct umms_web_session *session)
{
	unsigned max = session->web->config->web.max_messages_per_second;
	int64_t now = g_get_monotonic_time();
	if (now - session->window_start >= G_USEC_PER_SEC) {
		session->window_start = now;
		session->window_count = 0;
	}
	if (++session->window_count <= max)
		return true;
	if (session->window_count > max * FLOOD_FACTOR) {
		umms_warn("web session %u: flooding (%u messages in a second), closed",
			session->id, session->window_count);
		soup_websocket_connection_close(session->conn, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION,
			"too many messages (web.max-messages-per-second)");
		return false;
	}
	send_error(session, NULL, UMMS_WEB_SERVICE_ERROR, "org.umms.Error.NoResource",
		"too many messages (web.max-messages-per-second)");
	return false;
}

static void
handle_request(struct umms_web_session *session, JsonNode *root)
{
	const char *invalid = "org.umms.Error.InvalidArgument";
	if (!JSON_NODE_HOLDS_OBJECT(root)) {
		umms_web_session_error(session, NULL, UMMS_WEB_INVALID_REQUEST, invalid,
			JSON_NODE_HOLDS_ARRAY(root) ? "batches are not supported: one request a message" :
			"a request is an object");
		return;
	}
	JsonObject *request = json_node_get_object(root);
	JsonNode *id = json_object_get_member(request, "id");
	if (id && !JSON_NODE_HOLDS_NULL(id) && !(JSON_NODE_HOLDS_VALUE(id) &&
			(json_node_get_value_type(id) == G_TYPE_INT64 ||
			json_node_get_value_type(id) == G_TYPE_STRING))) {
		umms_web_session_error(session, NULL, UMMS_WEB_INVALID_REQUEST, invalid,
			"id is a number, a string or null");
		return;
	}
	/* An id of null is answered with null; only a missing id makes a notification. */
	g_autoptr(JsonNode) reply_id = id ? json_node_copy(id) : NULL;
	JsonNode *version = json_object_get_member(request, "jsonrpc");
	if (!version || !JSON_NODE_HOLDS_VALUE(version) ||
			json_node_get_value_type(version) != G_TYPE_STRING ||
			strcmp(json_node_get_string(version), "2.0") != 0) {
		umms_web_session_error(session, reply_id ? reply_id : NULL,
			UMMS_WEB_INVALID_REQUEST, invalid, "jsonrpc must be \"2.0\"");
		return;
	}
	JsonNode *method = json_object_get_member(request, "method");
	if (!method || !JSON_NODE_HOLDS_VALUE(method) ||
			json_node_get_value_type(method) != G_TYPE_STRING) {
		umms_web_session_error(session, reply_id, UMMS_WEB_INVALID_REQUEST, invalid,
			"method must be a string");
		return;
	}
	JsonNode *params = json_object_get_member(request, "params");
	if (params && !JSON_NODE_HOLDS_OBJECT(params)) {
		umms_web_session_error(session, reply_id, UMMS_WEB_INVALID_PARAMS, invalid,
			"params must be an object");
		return;
	}
	g_autoptr(JsonObject) empty = json_object_new();
	JsonObject *args = params ? json_node_get_object(params) : empty;
	const char *name = json_node_get_string(method);
	if (!umms_web_player_dispatch(session, name, args, reply_id)) {
		/* Whole characters only: what is sent must stay UTF-8. */
		g_autofree char *shown = g_utf8_substring(name, 0, MIN(g_utf8_strlen(name, -1), 64));
		umms_web_session_error(session, reply_id, UMMS_WEB_METHOD_NOT_FOUND,
			"org.umms.Error.NotSupported", "no method \"%s\"", shown);
	}
}

static void
message_cb(SoupWebsocketConnection *conn, gint type, GBytes *message, gpointer data)
{
	struct umms_web_session *session = data;
	const struct umms_config *config = session->web->config;
	/* Closing (flooded, too big, failed): what still comes is not read. */
	if (session->closing ||
			soup_websocket_connection_get_state(conn) != SOUP_WEBSOCKET_STATE_OPEN)
		return;
	gsize length;
	const char *text = g_bytes_get_data(message, &length);
	/* umms_web_stream lets no larger message through; checked again all the same. */
	if (length > config->web.max_message_bytes) {
		soup_websocket_connection_close(conn, SOUP_WEBSOCKET_CLOSE_TOO_BIG,
			"message too big (web.max-message-bytes)");
		return;
	}
	if (!within_rate(session))
		return;
	const char *invalid = "org.umms.Error.InvalidArgument";
	if (type != SOUP_WEBSOCKET_DATA_TEXT) {
		send_error(session, NULL, UMMS_WEB_INVALID_REQUEST, invalid,
			"requests are text frames");
		return;
	}
	const char *why;
	if (!check_shape(text, length, config->web.max_depth, config->web.max_string_length,
			&why)) {
		send_error(session, NULL, UMMS_WEB_INVALID_REQUEST, invalid, why);
		return;
	}
	g_autoptr(JsonParser) parser = json_parser_new_immutable();
	g_autoptr(GError) error = NULL;
	if (!json_parser_load_from_data(parser, text, (gssize)length, &error)) {
		send_error(session, NULL, UMMS_WEB_PARSE_ERROR, invalid, "not JSON");
		return;
	}
	JsonNode *root = json_parser_get_root(parser);
	if (!root) {
		send_error(session, NULL, UMMS_WEB_PARSE_ERROR, invalid, "an empty message");
		return;
	}
	handle_request(session, root);
}

/*
 * Players go as soon as either side starts closing, not after the close
 * handshake. Never at once: libsoup may say so from inside a send, which
 * may come from inside one of the player's own callbacks.
 */
static void
release_players(struct umms_web_session *session)
{
	session->closing = true;
	umms_source_clear(&session->release_idle);
	/* Answers still to come find no session; the players' destruction completes them. */
	for (GList *l = session->calls.head; l; l = l->next)
		((struct umms_web_call *)l->data)->session = NULL;
	g_queue_clear(&session->calls);
	GList *players = g_hash_table_get_values(session->players);
	for (GList *l = players; l; l = l->next)
		umms_web_player_close(l->data);
	g_list_free(players);
	g_assert(g_hash_table_size(session->players) == 0);
}

static gboolean
release_cb(gpointer data)
{
	struct umms_web_session *session = data;
	umms_source_forget(&session->release_idle);
	release_players(session);
	return G_SOURCE_REMOVE;
}

static void
release_soon(struct umms_web_session *session)
{
	/* Nothing more is sent or read meanwhile. */
	session->closing = true;
	if (!session->release_idle)
		session->release_idle = umms_source_idle(release_cb, session);
}

static void
closing_cb(SoupWebsocketConnection *conn, gpointer data)
{
	struct umms_web_session *session = data;
	umms_info("web session %u closing", session->id);
	release_soon(session);
}

/*
 * libsoup emits error on its way to closing (a failed write, a protocol
 * error), without closing when it drops the connection: those players go
 * before its stream is closed.
 */
static void
error_cb(SoupWebsocketConnection *conn, GError *error, gpointer data)
{
	struct umms_web_session *session = data;
	umms_info("web session %u: %s", session->id, error->message);
	release_soon(session);
}

static gboolean
destroy_cb(gpointer data)
{
	struct umms_web_session *session = data;
	umms_source_forget(&session->destroy_idle);
	umms_web_session_destroy(session, 0, NULL);
	return G_SOURCE_REMOVE;
}

static void
closed_cb(SoupWebsocketConnection *conn, gpointer data)
{
	struct umms_web_session *session = data;
	umms_info("web session %u closed (%u)", session->id,
		soup_websocket_connection_get_close_code(conn));
	release_soon(session);
	if (!session->destroy_idle)
		session->destroy_idle = umms_source_idle(destroy_cb, session);
}

/* From an idle callback: the stream refused a frame inside libsoup's read. */
static gboolean
refused_cb(gpointer data)
{
	struct umms_web_session *session = data;
	umms_source_forget(&session->refused_idle);
	if (soup_websocket_connection_get_state(session->conn) == SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(session->conn, session->refused_code,
			session->refused_code == SOUP_WEBSOCKET_CLOSE_TOO_BIG ?
			"message too big (web.max-message-bytes)" : "protocol error");
	return G_SOURCE_REMOVE;
}

static void
stream_refused(gpointer data, unsigned short code, const char *reason)
{
	struct umms_web_session *session = data;
	umms_warn("web session %u: %s, closed", session->id, reason);
	session->refused_code = code;
	release_soon(session);
	if (!session->refused_idle)
		session->refused_idle = umms_source_idle(refused_cb, session);
}

static gboolean
keepalive_cb(gpointer data)
{
	struct umms_web_session *session = data;
	unsigned interval = session->web->config->web.keepalive_interval;
	int64_t silent = g_get_monotonic_time() - umms_web_stream_last_frame(session->stream);
	if (silent <= (int64_t)interval * KEEPALIVE_MISSED * G_USEC_PER_SEC)
		return G_SOURCE_CONTINUE;
	umms_source_forget(&session->keepalive_timer);
	umms_warn("web session %u: nothing received for %" G_GINT64_FORMAT
		" s, not even a pong (web.keepalive-interval): closed", session->id,
		silent / G_USEC_PER_SEC);
	release_soon(session);
	if (soup_websocket_connection_get_state(session->conn) == SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(session->conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY,
			"no answer to pings (web.keepalive-interval)");
	return G_SOURCE_REMOVE;
}

struct umms_web_session *
umms_web_session_create(struct umms_web *web, SoupWebsocketConnection *conn,
	GIOStream *stream)
{
	struct umms_web_session *session = g_new0(struct umms_web_session, 1);
	session->web = web;
	session->id = ++web->next_session;
	session->owner = g_strdup_printf("web:%u", session->id);
	session->conn = g_object_ref(conn);
	session->stream = g_object_ref(stream);
	session->players = g_hash_table_new(g_direct_hash, g_direct_equal);
	g_queue_init(&session->calls);
	session->window_start = g_get_monotonic_time();
	/*
	 * A message over the limit, in one frame or many, is stopped by the
	 * stream (stream_refused: close 1009); libsoup's own bound, which drops
	 * the connection without a close frame (3.2), is never reached.
	 */
	soup_websocket_connection_set_max_incoming_payload_size(conn,
		(guint64)web->config->web.max_message_bytes);
	umms_web_stream_watch(stream, stream_refused, session);
	unsigned interval = web->config->web.keepalive_interval;
	soup_websocket_connection_set_keepalive_interval(conn, interval);
	if (interval > 0) {
		session->keepalive_timer = g_timeout_source_new(interval * 1000);
		g_source_set_callback(session->keepalive_timer, keepalive_cb, session, NULL);
		g_source_attach(session->keepalive_timer, g_main_context_get_thread_default());
	}
	session->message_handler = g_signal_connect(conn, "message", G_CALLBACK(message_cb),
		session);
	session->closing_handler = g_signal_connect(conn, "closing", G_CALLBACK(closing_cb),
		session);
	session->error_handler = g_signal_connect(conn, "error", G_CALLBACK(error_cb), session);
	session->closed_handler = g_signal_connect(conn, "closed", G_CALLBACK(closed_cb), session);
	g_ptr_array_add(web->sessions, session);
	umms_info("web session %u opened", session->id);
	return session;
}

void
umms_web_session_destroy(struct umms_web_session *session, unsigned short code,
	const char *reason)
{
	struct umms_web *web = session->web;
	g_signal_handler_disconnect(session->conn, session->message_handler);
	g_signal_handler_disconnect(session->conn, session->closing_handler);
	g_signal_handler_disconnect(session->conn, session->error_handler);
	g_signal_handler_disconnect(session->conn, session->closed_handler);
	umms_source_clear(&session->destroy_idle);
	umms_source_clear(&session->refused_idle);
	umms_source_clear(&session->keepalive_timer);
	umms_web_stream_watch(session->stream, NULL, NULL);
	if (code && soup_websocket_connection_get_state(session->conn) ==
			SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(session->conn, code, reason);
	release_players(session);
	g_hash_table_unref(session->players);
	g_ptr_array_remove(web->sessions, session);
	g_object_unref(session->conn);
	g_object_unref(session->stream);
	g_free(session->owner);
	g_free(session);
}
