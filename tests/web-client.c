/*
 * The WebSocket client of test-web.c: a real libsoup client that keeps what
 * ummsd sends, in order, and waits for answers and notifications.
 */
#include <string.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "harness.h"
#include "sources.h"
#include "web-client.h"

unsigned web_port;

static void
message_cb(SoupWebsocketConnection *conn, gint type, GBytes *message, gpointer data)
{
	struct client *c = data;
	g_autoptr(JsonParser) parser = json_parser_new();
	gsize length;
	const char *text = g_bytes_get_data(message, &length);
	g_autoptr(GError) error = NULL;
	if (!json_parser_load_from_data(parser, text, (gssize)length, &error))
		g_error("ummsd sent what is not JSON: %.*s", (int)length, text);
	JsonNode *root = json_parser_get_root(parser);
	JsonObject *object = json_node_get_object(root);
	if (json_object_has_member(object, "method") &&
			strcmp(json_object_get_string_member(object, "method"), "position") == 0) {
		gint64 *at = g_new(gint64, 1);
		*at = g_get_monotonic_time();
		g_ptr_array_add(c->position_times, at);
	}
	g_queue_push_tail(&c->messages, json_node_copy(root));
}

static void
closed_cb(SoupWebsocketConnection *conn, gpointer data)
{
	struct client *c = data;
	c->closed = true;
	c->close_code = soup_websocket_connection_get_close_code(conn);
}

static void
connect_done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct client *c = data;
	g_autoptr(GError) error = NULL;
	c->conn = soup_session_websocket_connect_finish(SOUP_SESSION(source), result, &error);
	c->closed = !c->conn;
}

/*
 * Connects with @token and @origin (NULL: none sent); returns the client,
 * or NULL with the HTTP status that refused it in @status.
 */
struct client *
try_connect(const char *token, const char *origin, guint *status)
{
	struct client *c = g_new0(struct client, 1);
	c->session = soup_session_new();
	c->position_times = g_ptr_array_new_with_free_func(g_free);
	g_queue_init(&c->messages);
	g_autofree char *url = token ?
		g_strdup_printf("ws://127.0.0.1:%u/umms?token=%s", web_port, token) :
		g_strdup_printf("ws://127.0.0.1:%u/umms", web_port);
	g_autoptr(SoupMessage) msg = soup_message_new("GET", url);
	if (origin)
		soup_message_headers_replace(soup_message_get_request_headers(msg), "Origin", origin);
	soup_session_websocket_connect_async(c->session, msg, NULL, NULL, G_PRIORITY_DEFAULT,
		NULL, connect_done, c);
	gint64 end = g_get_monotonic_time() + UMMS_TEST_TIMEOUT_MS * 1000;
	while (!c->conn && !c->closed && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, TRUE);
	*status = soup_message_get_status(msg);
	if (!c->conn) {
		g_object_unref(c->session);
		g_ptr_array_unref(c->position_times);
		g_free(c);
		return NULL;
	}
	g_signal_connect(c->conn, "message", G_CALLBACK(message_cb), c);
	g_signal_connect(c->conn, "closed", G_CALLBACK(closed_cb), c);
	return c;
}

struct client *
client_connect(void)
{
	guint status;
	struct client *c = try_connect(TOKEN, ORIGIN, &status);
	if (!c)
		g_error("the bridge refused a good handshake: HTTP %u", status);
	g_assert_cmpuint(status, ==, 101);
	return c;
}

void
client_free(struct client *c)
{
	g_signal_handlers_disconnect_by_data(c->conn, c);
	if (soup_websocket_connection_get_state(c->conn) == SOUP_WEBSOCKET_STATE_OPEN)
		soup_websocket_connection_close(c->conn, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
	g_object_unref(c->conn);
	g_object_unref(c->session);
	g_queue_clear_full(&c->messages, (GDestroyNotify)json_node_unref);
	g_ptr_array_unref(c->position_times);
	g_free(c);
}

void
send_text(struct client *c, const char *text)
{
	soup_websocket_connection_send_text(c->conn, text);
}

/* Sends a request; returns its id. @params: JSON object text or NULL. */
unsigned
send_request(struct client *c, const char *method, const char *params)
{
	unsigned id = ++c->next_id;
	g_autofree char *text = params ?
		g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\",\"params\":%s}",
			id, method, params) :
		g_strdup_printf("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\"}", id, method);
	send_text(c, text);
	return id;
}

/* Waits for (and takes) the first message @match accepts. */
JsonNode *
wait_message(struct client *c, match_fn match, const void *data, unsigned timeout_ms,
	const char *what)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		for (GList *l = c->messages.head; l; l = l->next) {
			if (match(json_node_get_object(l->data), data)) {
				JsonNode *node = l->data;
				g_queue_delete_link(&c->messages, l);
				return node;
			}
		}
		if (c->closed)
			g_error("the socket closed (%u) while waiting for %s", c->close_code, what);
		if (g_get_monotonic_time() > end) {
			for (GList *l = c->messages.head; l; l = l->next) {
				g_autofree char *text = json_to_string(l->data, FALSE);
				g_test_message("unmatched: %s", text);
			}
			g_error("no %s within %u ms", what, timeout_ms);
		}
		g_main_context_iteration(NULL, FALSE);
		g_usleep(1000);
	}
}

static bool
match_id(JsonObject *message, const void *data)
{
	JsonNode *id = json_object_get_member(message, "id");
	return id && JSON_NODE_HOLDS_VALUE(id) &&
		json_node_get_int(id) == (gint64)GPOINTER_TO_UINT(data);
}

/* The answer to request @id. */
JsonNode *
wait_answer(struct client *c, unsigned id)
{
	return wait_message(c, match_id, GUINT_TO_POINTER(id), UMMS_TEST_TIMEOUT_MS, "an answer");
}

static bool
match_null_id_error(JsonObject *message, const void *data)
{
	JsonNode *id = json_object_get_member(message, "id");
	/* The raw requests of test_abuse use id 0, where they have a good one. */
	return id && (JSON_NODE_HOLDS_NULL(id) || (JSON_NODE_HOLDS_VALUE(id) &&
		json_node_get_value_type(id) == G_TYPE_INT64 && json_node_get_int(id) == 0)) &&
		json_object_has_member(message, "error");
}

struct notice {
	const char *method;
	const char *state;    /* for "state", or NULL: any */
};

static bool
match_notice(JsonObject *message, const void *data)
{
	const struct notice *n = data;
	if (!json_object_has_member(message, "method") ||
			strcmp(json_object_get_string_member(message, "method"), n->method) != 0)
		return false;
	JsonObject *params = json_object_get_object_member(message, "params");
	return !n->state || g_strcmp0(json_object_get_string_member(params, "state"),
		n->state) == 0;
}

JsonObject *
wait_notice(struct client *c, const char *method, const char *state, unsigned timeout_ms)
{
	struct notice n = { method, state };
	JsonNode *node = wait_message(c, match_notice, &n, timeout_ms, method);
	/* Its params. */
	JsonObject *object = json_object_ref(json_object_get_object_member(
		json_node_get_object(node), "params"));
	json_node_unref(node);
	return object;
}

/* Forgets the @method notifications that came so far. */
void
drop_notices(struct client *c, const char *method)
{
	struct notice n = { method, NULL };
	for (GList *l = c->messages.head, *next; l; l = next) {
		next = l->next;
		if (match_notice(json_node_get_object(l->data), &n)) {
			json_node_unref(l->data);
			g_queue_delete_link(&c->messages, l);
		}
	}
}

/* Calls and asserts a result; returns it (an object). */
JsonObject *
call_ok(struct client *c, const char *method, const char *params)
{
	unsigned id = send_request(c, method, params);
	g_autoptr(JsonNode) answer = wait_answer(c, id);
	JsonObject *object = json_node_get_object(answer);
	if (json_object_has_member(object, "error"))
		g_error("%s %s: %s", method, params, json_object_get_string_member(
			json_object_get_object_member(object, "error"), "message"));
	return json_object_ref(json_object_get_object_member(object, "result"));
}

/* Checks an error object: its code and data.name; returns its message. */
const char *
check_error(JsonObject *answer, int code, const char *name)
{
	g_assert_true(json_object_has_member(answer, "error"));
	JsonObject *error = json_object_get_object_member(answer, "error");
	if (json_object_get_int_member(error, "code") != code)
		g_test_message("unexpected error: %s", json_object_get_string_member(error, "message"));
	g_assert_cmpint(json_object_get_int_member(error, "code"), ==, code);
	JsonObject *data = json_object_get_object_member(error, "data");
	g_assert_cmpstr(json_object_get_string_member(data, "name"), ==, name);
	const char *message = json_object_get_string_member(error, "message");
	g_assert_true(message && *message);
	return message;
}

/* Calls and asserts the error @code with data.name @name. */
void
call_error(struct client *c, const char *method, const char *params, int code,
	const char *name)
{
	unsigned id = send_request(c, method, params);
	g_autoptr(JsonNode) answer = wait_answer(c, id);
	check_error(json_node_get_object(answer), code, name);
}

/* Sends raw text; asserts the error answered (id null, or 0 where it was). */
const char *
raw_error(struct client *c, const char *text, int code, const char *name)
{
	send_text(c, text);
	JsonNode *answer = wait_message(c, match_null_id_error, NULL, UMMS_TEST_TIMEOUT_MS,
		"an error with id null or 0");
	const char *message = check_error(json_node_get_object(answer), code, name);
	/* Kept alive by the caller's test only as long as it needs the text. */
	g_object_set_data_full(G_OBJECT(c->conn), "last", answer, (GDestroyNotify)json_node_unref);
	return message;
}

unsigned
open_clip(struct client *c, const char *clip)
{
	g_autofree char *uri = umms_test_clip_uri(clip);
	g_autofree char *params = g_strdup_printf("{\"uri\":\"%s\"}", uri);
	JsonObject *result = call_ok(c, "open", params);
	unsigned player = (unsigned)json_object_get_int_member(result, "player");
	json_object_unref(result);
	return player;
}

GVariant *
players(GDBusConnection *bus)
{
	return umms_test_get(bus, UMMS_ROOT, UMMS_MANAGER, "Players");
}

void
wait_closed(struct client *c, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (!c->closed && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, FALSE), g_usleep(1000);
	g_assert_true(c->closed);
}

/* A fresh ummsd serving the bridge on a free port, with @extra overrides. */
void
web_start(struct umms_test *t, const char *const *extra)
{
	web_port = umms_test_free_tcp_port();
	g_autofree char *port = g_strdup_printf("web.port=%u", web_port);
	GPtrArray *o = g_ptr_array_new();
	g_ptr_array_add(o, port);
	g_ptr_array_add(o, (char *)"web.token=" TOKEN);
	g_ptr_array_add(o, (char *)"web.origins=" ORIGIN);
	for (const char *const *e = extra; e && *e; e++)
		g_ptr_array_add(o, (char *)*e);
	g_ptr_array_add(o, NULL);
	umms_test_restart(t, (const char *const *)o->pdata);
	g_ptr_array_unref(o);
}

