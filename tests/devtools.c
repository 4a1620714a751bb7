/* A small DevTools client: see devtools.h. */
#include <string.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "devtools.h"
#include "harness.h"

/* A DevTools message can hold a page's whole answer; a test's are small. */
#define MAX_MESSAGE (1024 * 1024)

struct devtools {
	SoupSession *session;
	SoupWebsocketConnection *socket;
	unsigned next_id;
	JsonNode *answer;    /* the reply to the message being waited for */
	unsigned waiting;    /* its id */
	bool closed;
};

struct pending {
	bool done;
	GObject *object;
	GAsyncResult *result;
};

static void
done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct pending *p = data;
	p->object = g_object_ref(source);
	p->result = g_object_ref(result);
	p->done = true;
}

/* Iterates the main context until @done or @end (monotonic µs): false if the time ran out. */
static bool
wait_until(const bool *flag, gint64 end)
{
	while (!*flag) {
		if (g_get_monotonic_time() > end)
			return false;
		umms_test_sleep(10);
	}
	return true;
}

/* GET @url: its body, or NULL (not up yet, an error). */
static GBytes *
get(SoupSession *session, const char *url, gint64 end)
{
	g_autoptr(SoupMessage) msg = soup_message_new("GET", url);
	g_assert_nonnull(msg);
	struct pending p = { 0 };
	soup_session_send_and_read_async(session, msg, G_PRIORITY_DEFAULT, NULL, done, &p);
	if (!wait_until(&p.done, end + 5 * G_USEC_PER_SEC))
		g_error("DevTools: no answer to GET %s", url);
	GBytes *body = soup_session_send_and_read_finish(session, p.result, NULL);
	g_object_unref(p.object);
	g_object_unref(p.result);
	if (body && soup_message_get_status(msg) != SOUP_STATUS_OK)
		g_clear_pointer(&body, g_bytes_unref);
	return body;
}

/* The webSocketDebuggerUrl of the first page at @url_prefix in /json's @body, or NULL. */
static char *
page_socket(GBytes *body, const char *url_prefix)
{
	gsize size;
	const char *text = g_bytes_get_data(body, &size);
	g_autoptr(JsonParser) parser = json_parser_new();
	if (!json_parser_load_from_data(parser, text, (gssize)size, NULL))
		return NULL;
	JsonNode *root = json_parser_get_root(parser);
	if (!root || !JSON_NODE_HOLDS_ARRAY(root))
		return NULL;
	JsonArray *targets = json_node_get_array(root);
	for (guint i = 0; i < json_array_get_length(targets); i++) {
		JsonNode *node = json_array_get_element(targets, i);
		if (!JSON_NODE_HOLDS_OBJECT(node))
			continue;
		JsonObject *t = json_node_get_object(node);
		const char *type = json_object_get_string_member_with_default(t, "type", "");
		const char *url = json_object_get_string_member_with_default(t, "url", "");
		const char *ws = json_object_get_string_member_with_default(t,
			"webSocketDebuggerUrl", NULL);
		if (strcmp(type, "page") == 0 && g_str_has_prefix(url, url_prefix) && ws)
			return g_strdup(ws);
	}
	return NULL;
}

static void
on_message(SoupWebsocketConnection *socket, gint type, GBytes *message, gpointer data)
{
	struct devtools *d = data;
	gsize size;
	const char *text = g_bytes_get_data(message, &size);
	if (type != SOUP_WEBSOCKET_DATA_TEXT || size > MAX_MESSAGE)
		g_error("DevTools: a message not text, or of %zu bytes", size);
	g_autoptr(JsonParser) parser = json_parser_new();
	if (!json_parser_load_from_data(parser, text, (gssize)size, NULL))
		g_error("DevTools: not JSON: %.200s", text);
	JsonNode *root = json_parser_get_root(parser);
	if (!root || !JSON_NODE_HOLDS_OBJECT(root))
		return;
	JsonObject *o = json_node_get_object(root);
	/* Events (no id) are not asked for; only the awaited reply counts. */
	if (json_object_has_member(o, "id") && !d->answer &&
		(unsigned)json_object_get_int_member(o, "id") == d->waiting)
		d->answer = json_node_copy(root);
}

static void
on_closed(SoupWebsocketConnection *socket, gpointer data)
{
	((struct devtools *)data)->closed = true;
}

struct devtools *
devtools_connect(unsigned port, const char *url_prefix, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	struct devtools *d = g_new0(struct devtools, 1);
	d->session = soup_session_new();
	g_autofree char *list = g_strdup_printf("http://127.0.0.1:%u/json", port);
	g_autofree char *ws = NULL;
	while (!ws) {
		g_autoptr(GBytes) body = get(d->session, list, end);
		if (body)
			ws = page_socket(body, url_prefix);
		if (!ws && g_get_monotonic_time() > end)
			g_error("DevTools: no page at %s on port %u", url_prefix, port);
		if (!ws)
			umms_test_sleep(100);
	}
	g_autoptr(SoupMessage) msg = soup_message_new("GET", ws);
	g_assert_nonnull(msg);
	struct pending p = { 0 };
	soup_session_websocket_connect_async(d->session, msg, NULL, NULL, G_PRIORITY_DEFAULT,
		NULL, done, &p);
	if (!wait_until(&p.done, end))
		g_error("DevTools: %s did not open", ws);
	g_autoptr(GError) error = NULL;
	d->socket = soup_session_websocket_connect_finish(d->session, p.result, &error);
	g_object_unref(p.object);
	g_object_unref(p.result);
	g_assert_no_error(error);
	soup_websocket_connection_set_max_incoming_payload_size(d->socket, MAX_MESSAGE);
	g_signal_connect(d->socket, "message", G_CALLBACK(on_message), d);
	g_signal_connect(d->socket, "closed", G_CALLBACK(on_closed), d);
	return d;
}

/* Sends @method with @params (an object, taken), waits for its reply: the reply's "result". */
static JsonNode *
call(struct devtools *d, const char *method, JsonNode *params, unsigned timeout_ms)
{
	JsonObject *request = json_object_new();
	json_object_set_int_member(request, "id", d->waiting = ++d->next_id);
	json_object_set_string_member(request, "method", method);
	json_object_set_member(request, "params", params);
	g_autoptr(JsonNode) node = json_node_init_object(json_node_alloc(), request);
	json_object_unref(request);
	g_autofree char *text = json_to_string(node, FALSE);
	g_assert_false(d->closed);
	soup_websocket_connection_send_text(d->socket, text);

	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (!d->answer) {
		if (d->closed)
			g_error("DevTools: the page's socket closed while waiting for %s", text);
		if (g_get_monotonic_time() > end)
			g_error("DevTools: no reply in %u ms to %s", timeout_ms, text);
		umms_test_sleep(10);
	}
	g_autoptr(JsonNode) answer = g_steal_pointer(&d->answer);
	JsonNode *result = json_object_get_member(json_node_get_object(answer), "result");
	if (!result || !JSON_NODE_HOLDS_OBJECT(result)) {
		g_autofree char *all = json_to_string(answer, FALSE);
		g_error("DevTools: %s: %.500s", text, all);
	}
	return json_node_copy(result);
}

char *
devtools_call(struct devtools *d, const char *method, const char *params, unsigned timeout_ms)
{
	g_autoptr(GError) error = NULL;
	JsonNode *p = json_from_string(params, &error);
	g_assert_no_error(error);
	g_assert_true(JSON_NODE_HOLDS_OBJECT(p));
	g_autoptr(JsonNode) result = call(d, method, p, timeout_ms);
	return json_to_string(result, FALSE);
}

char *
devtools_evaluate(struct devtools *d, const char *expression, unsigned timeout_ms)
{
	JsonObject *params = json_object_new();
	json_object_set_string_member(params, "expression", expression);
	json_object_set_boolean_member(params, "userGesture", TRUE);
	json_object_set_boolean_member(params, "awaitPromise", TRUE);
	json_object_set_boolean_member(params, "returnByValue", TRUE);
	JsonNode *node = json_node_init_object(json_node_alloc(), params);
	json_object_unref(params);
	g_autoptr(JsonNode) answer = call(d, "Runtime.evaluate", node, timeout_ms);
	JsonObject *result = json_node_get_object(answer);
	JsonNode *v = json_object_get_member(result, "result");
	if (json_object_has_member(result, "exceptionDetails") || !v || !JSON_NODE_HOLDS_OBJECT(v)) {
		g_autofree char *all = json_to_string(answer, FALSE);
		g_error("DevTools: %s: %.500s", expression, all);
	}
	JsonObject *value = json_node_get_object(v);
	if (!json_object_has_member(value, "value"))
		return g_strdup("undefined");
	return json_to_string(json_object_get_member(value, "value"), FALSE);
}

void
devtools_free(struct devtools *d)
{
	if (!d)
		return;
	if (d->socket) {
		g_signal_handlers_disconnect_by_data(d->socket, d);
		if (soup_websocket_connection_get_state(d->socket) == SOUP_WEBSOCKET_STATE_OPEN)
			soup_websocket_connection_close(d->socket, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
		g_object_unref(d->socket);
	}
	g_clear_pointer(&d->answer, json_node_unref);
	g_object_unref(d->session);
	g_free(d);
}
