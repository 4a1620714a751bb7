/*
 * The browser bridge's HTTP side (libsoup 3): listening on loopback only,
 * the WebSocket handshake's checks (token, Origin, sessions), the element
 * script, and the browser ummsd starts.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "source.h"
#include "web-private.h"

#define WS_PATH "/umms"
#define SCRIPT_PATH "/umms-video.js"
/* The script is small; a file larger than this is not served. */
#define MAX_SCRIPT_BYTES (1024 * 1024)
/* A configured token shorter than this is refused at start. */
#define MIN_TOKEN_LENGTH 16
/* How long the browser has to leave after SIGTERM at shutdown, in 10 ms steps. */
#define BROWSER_GRACE_STEPS 200
/* Seconds before starting it again: from the first, doubling up to the last. */
#define BROWSER_BACKOFF_FIRST 1
#define BROWSER_BACKOFF_MAX 30
/* A browser that ran this long before it exited starts the back-off over. */
#define BROWSER_STEADY_US (60 * G_USEC_PER_SEC)

static char *
make_token(GError **error)
{
	unsigned char bytes[32];
	size_t got = 0;
	while (got < sizeof(bytes)) {
		ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
				"web: no random token: getrandom: %s", g_strerror(errno));
			return NULL;
		}
		got += (size_t)n;
	}
	char *token = g_malloc(sizeof(bytes) * 2 + 1);
	for (size_t i = 0; i < sizeof(bytes); i++)
		g_snprintf(token + 2 * i, 3, "%02x", bytes[i]);
	explicit_bzero(bytes, sizeof(bytes));
	return token;
}

/* Compares in time that depends on @want's length only. */
static bool
token_equal(const char *want, const char *given)
{
	size_t want_len = strlen(want), given_len = given ? strlen(given) : 0;
	unsigned char diff = want_len != given_len;
	for (size_t i = 0; i < want_len; i++)
		diff |= (unsigned char)want[i] ^ (unsigned char)(i < given_len ? given[i] : 0);
	return diff == 0;
}

static bool
origin_allowed(struct umms_web *web, SoupServerMessage *msg)
{
	SoupMessageHeaders *headers = soup_server_message_get_request_headers(msg);
	/* Every Origin header joined: two of them never match one entry. */
	const char *origin = soup_message_headers_get_list(headers, "Origin");
	const char *want = origin ? origin : "null";
	for (char **o = web->config->web.origins; *o; o++) {
		if (strcmp(*o, want) == 0)
			return true;
	}
	return false;
}

static void
refuse(SoupServerMessage *msg, unsigned status, const char *reason)
{
	umms_info("web: refused %s: %s", soup_server_message_get_method(msg), reason);
	soup_server_message_set_status(msg, status, NULL);
	g_autofree char *line = g_strdup_printf("%s\n", reason);
	soup_server_message_set_response(msg, "text/plain; charset=utf-8", SOUP_MEMORY_COPY,
		line, strlen(line));
}

/* ---- connections before they are a WebSocket ---- */

static gboolean
handshake_timeout_cb(gpointer data)
{
	GSocket *socket = data;
	/* libsoup reads the end and drops the connection itself. */
	umms_info("web: a connection did not become a WebSocket in time (web.handshake-timeout)");
	g_socket_shutdown(socket, TRUE, TRUE, NULL);
	return G_SOURCE_REMOVE;
}

static void
handshake_forget(struct umms_web *web, GSocket *socket)
{
	GSource *timer = g_hash_table_lookup(web->handshakes, socket);
	if (!timer)
		return;
	g_source_destroy(timer);
	g_hash_table_remove(web->handshakes, socket);
}

/* Each request; the first of a connection starts its handshake-timeout. */
static void
request_started_cb(SoupServer *server, SoupServerMessage *msg, gpointer data)
{
	struct umms_web *web = data;
	GSocket *socket = soup_server_message_get_socket(msg);
	if (!socket || g_hash_table_contains(web->handshakes, socket))
		return;
	/* Those libsoup closed (served, or the peer left) count no more. */
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, web->handshakes);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		if (g_socket_is_closed(key)) {
			g_source_destroy(value);
			g_hash_table_iter_remove(&iter);
		}
	}
	if (g_hash_table_size(web->handshakes) >= web->config->web.max_handshakes) {
		umms_info("web: refused a connection: too many not yet a WebSocket "
			"(web.max-handshakes)");
		g_socket_shutdown(socket, TRUE, TRUE, NULL);
		return;
	}
	GSource *timer = g_timeout_source_new(web->config->web.handshake_timeout * 1000);
	g_source_set_callback(timer, handshake_timeout_cb, g_object_ref(socket), g_object_unref);
	g_source_attach(timer, g_main_context_get_thread_default());
	g_hash_table_insert(web->handshakes, g_object_ref(socket), timer);
}

/* The 101 is out: the connection becomes a session. */
static void
upgrade_cb(SoupServerMessage *msg, gpointer data)
{
	struct umms_web *web = data;
	GSocket *socket = soup_server_message_get_socket(msg);
	if (socket)
		handshake_forget(web, socket);
	g_object_ref(msg);
	GUri *uri = g_uri_ref(soup_server_message_get_uri(msg));
	g_autofree char *origin = g_strdup(soup_message_headers_get_one(
		soup_server_message_get_request_headers(msg), "Origin"));
	GIOStream *base = soup_server_message_steal_connection(msg);
	g_object_unref(msg);
	if (!base) {
		g_uri_unref(uri);
		return;
	}
	GIOStream *stream = umms_web_stream_new(base, web->config->web.max_message_bytes);
	g_object_unref(base);
	SoupWebsocketConnection *conn = soup_websocket_connection_new(stream, uri,
		SOUP_WEBSOCKET_CONNECTION_SERVER, origin, NULL, NULL);
	g_uri_unref(uri);
	/* Two handshakes may have passed the check together. */
	if (web->sessions->len >= web->config->web.max_sessions)
		soup_websocket_connection_close(conn, SOUP_WEBSOCKET_CLOSE_POLICY_VIOLATION,
			"too many sessions (web.max-sessions)");
	else
		umms_web_session_create(web, conn, stream);
	g_object_unref(stream);
	g_object_unref(conn);
}

/* Runs before the WebSocket handshake: a status set here refuses it. */
static void
ws_check_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	gpointer data)
{
	struct umms_web *web = data;
	if (strcmp(path, WS_PATH) != 0) {
		refuse(msg, SOUP_STATUS_NOT_FOUND, "not found");
		return;
	}
	const char *token = query ? g_hash_table_lookup(query, "token") : NULL;
	if (!token_equal(web->token, token)) {
		refuse(msg, SOUP_STATUS_FORBIDDEN, "wrong or missing token");
		return;
	}
	if (!origin_allowed(web, msg)) {
		refuse(msg, SOUP_STATUS_FORBIDDEN, "this Origin is not in web.origins");
		return;
	}
	if (web->sessions->len >= web->config->web.max_sessions) {
		refuse(msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "too many sessions (web.max-sessions)");
		return;
	}
	/*
	 * The upgrade is ours (not soup_server_add_websocket_handler's): no
	 * extensions (permessage-deflate would inflate a small frame without
	 * a bound) and the socket read through umms_web_stream.
	 */
	if (!soup_websocket_server_process_handshake(msg, NULL, NULL, NULL, NULL)) {
		umms_info("web: refused: not a WebSocket handshake");
		return;
	}
	g_signal_connect(msg, "wrote-informational", G_CALLBACK(upgrade_cb), web);
}

static void
script_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	gpointer data)
{
	struct umms_web *web = data;
	if (strcmp(path, SCRIPT_PATH) != 0) {
		refuse(msg, SOUP_STATUS_NOT_FOUND, "not found");
		return;
	}
	char *contents = NULL;
	gsize length = 0;
	g_autoptr(GError) error = NULL;
	if (!web->config->web.script ||
			!g_file_get_contents(web->config->web.script, &contents, &length, &error) ||
			length > MAX_SCRIPT_BYTES) {
		umms_warn("web: cannot serve %s: %s", web->config->web.script ?
			web->config->web.script : "(web.script unset)",
			error ? error->message : "missing or too large");
		g_free(contents);
		refuse(msg, SOUP_STATUS_NOT_FOUND, "no script installed");
		return;
	}
	SoupMessageHeaders *headers = soup_server_message_get_response_headers(msg);
	soup_message_headers_replace(headers, "Cache-Control", "no-cache");
	soup_message_headers_replace(headers, "X-Content-Type-Options", "nosniff");
	soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
	soup_server_message_set_response(msg, "text/javascript; charset=utf-8",
		SOUP_MEMORY_TAKE, contents, length);
}

/*
 * At the headers, before any body: GET and HEAD only, and a body (none is
 * wanted here) is read past, never kept.
 */
static void
early_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	gpointer data)
{
	soup_message_body_set_accumulate(soup_server_message_get_request_body(msg), FALSE);
	const char *method = soup_server_message_get_method(msg);
	if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD)
		refuse(msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "GET only");
}

/* Anything else on the port. */
static void
default_cb(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
	gpointer data)
{
	refuse(msg, SOUP_STATUS_NOT_FOUND, "not found");
}

/* ---- the browser ---- */

static char *
substitute(const char *text, struct umms_web *web, const char *url)
{
	g_autofree char *port = g_strdup_printf("%u", web->config->web.port);
	GString *out = g_string_new(NULL);
	for (const char *p = text; *p; p++) {
		if (g_str_has_prefix(p, "{token}")) {
			g_string_append(out, web->token);
			p += strlen("{token}") - 1;
		} else if (g_str_has_prefix(p, "{port}")) {
			g_string_append(out, port);
			p += strlen("{port}") - 1;
		} else if (url && g_str_has_prefix(p, "{url}")) {
			g_string_append(out, url);
			p += strlen("{url}") - 1;
		} else {
			g_string_append_c(out, *p);
		}
	}
	return g_string_free(out, FALSE);
}

static void
browser_child_setup(gpointer data)
{
	/* Its own process group: its helpers are stopped with it. */
	setpgid(0, 0);
}

static void try_browser(struct umms_web *web);

static gboolean
browser_restart_cb(gpointer data)
{
	struct umms_web *web = data;
	umms_source_forget(&web->browser_restart);
	try_browser(web);
	return G_SOURCE_REMOVE;
}

/* Returns the delay it chose, in seconds. */
static unsigned
schedule_restart(struct umms_web *web)
{
	unsigned delay = web->browser_backoff;
	web->browser_backoff = MIN(delay * 2, BROWSER_BACKOFF_MAX);
	umms_source_clear(&web->browser_restart);
	web->browser_restart = g_timeout_source_new(delay * 1000);
	g_source_set_callback(web->browser_restart, browser_restart_cb, web, NULL);
	g_source_attach(web->browser_restart, g_main_context_get_thread_default());
	return delay;
}

static void
browser_exited(GPid pid, gint status, gpointer data)
{
	struct umms_web *web = data;
	g_spawn_close_pid(pid);
	web->browser = 0;
	umms_source_forget(&web->browser_watch);
	int64_t ran = g_get_monotonic_time() - web->browser_started;
	if (ran >= BROWSER_STEADY_US)
		web->browser_backoff = BROWSER_BACKOFF_FIRST;
	g_autofree char *how = WIFSIGNALED(status) ?
		g_strdup_printf("was killed by signal %d", WTERMSIG(status)) :
		g_strdup_printf("exited with status %d", WEXITSTATUS(status));
	unsigned delay = schedule_restart(web);
	umms_warn("web: the browser (pid %d) %s after %.1f s; starting it again in %u s",
		pid, how, (double)ran / G_USEC_PER_SEC, delay);
}

static bool
start_browser(struct umms_web *web, GError **error)
{
	const struct umms_config *config = web->config;
	g_autofree char *url = substitute(config->web.start_url ? config->web.start_url : "",
		web, NULL);
	g_auto(GStrv) argv = NULL;
	if (!g_shell_parse_argv(config->web.browser, NULL, &argv, error)) {
		g_prefix_error(error, "web.browser: ");
		return false;
	}
	bool has_url = false;
	GPtrArray *args = g_ptr_array_new_with_free_func(g_free);
	for (char **a = argv; *a; a++) {
		has_url |= strstr(*a, "{url}") != NULL;
		g_ptr_array_add(args, substitute(*a, web, url));
	}
	if (!has_url && url[0])
		g_ptr_array_add(args, g_strdup(url));
	g_ptr_array_add(args, NULL);
	g_auto(GStrv) envp = g_get_environ();
	/* On ummsd's own screen: its compositor's socket. */
	if (config->display.enabled && config->display.compositor && config->video.socket)
		envp = g_environ_setenv(envp, "WAYLAND_DISPLAY", config->video.socket, TRUE);
	bool ok = g_spawn_async(NULL, (char **)args->pdata, envp,
		G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, browser_child_setup, NULL,
		&web->browser, error);
	g_ptr_array_unref(args);
	if (!ok) {
		g_prefix_error(error, "web.browser: ");
		return false;
	}
	GSource *watch = g_child_watch_source_new(web->browser);
	g_source_set_callback(watch, G_SOURCE_FUNC(browser_exited), web, NULL);
	g_source_attach(watch, g_main_context_get_thread_default());
	web->browser_watch = watch;
	web->browser_started = g_get_monotonic_time();
	umms_info("web: started the browser (pid %d)", web->browser);
	return true;
}

/*
 * A kiosk's browser: one that cannot start, or exits, is started again
 * after a back-off while ummsd goes on serving D-Bus. A command line that
 * cannot be parsed never will be: said once.
 */
static void
try_browser(struct umms_web *web)
{
	g_autoptr(GError) error = NULL;
	if (start_browser(web, &error))
		return;
	if (error->domain == G_SHELL_ERROR) {
		umms_warn("web: no browser: %s", error->message);
		return;
	}
	unsigned delay = schedule_restart(web);
	umms_warn("web: the browser did not start (%s); starting it again in %u s",
		error->message, delay);
}

static void
stop_browser(struct umms_web *web)
{
	umms_source_clear(&web->browser_restart);
	if (!web->browser)
		return;
	pid_t pid = web->browser;
	umms_source_clear(&web->browser_watch);
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	for (int i = 0; i < BROWSER_GRACE_STEPS; i++) {
		if (waitpid(pid, NULL, WNOHANG) != 0)
			goto done;
		g_usleep(10000);
	}
	umms_warn("web: the browser (pid %d) did not stop: killed", pid);
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
done:
	g_spawn_close_pid(pid);
	web->browser = 0;
}

/* ---- the bridge ---- */

struct umms_web *
umms_web_create(const struct umms_config *config, struct umms_manager *manager,
	struct umms_display *display, GError **error)
{
	struct umms_web *web = g_new0(struct umms_web, 1);
	web->config = config;
	web->manager = manager;
	web->display = display;
	web->sessions = g_ptr_array_new();
	for (char **o = config->web.origins; *o; o++) {
		if (strcmp(*o, "*") == 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"web.origins: \"*\" is not allowed; list each page's origin");
			goto fail;
		}
	}
	if (config->web.token && strlen(config->web.token) < MIN_TOKEN_LENGTH) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"web.token: at least %d characters", MIN_TOKEN_LENGTH);
		goto fail;
	}
	web->token = config->web.token ? g_strdup(config->web.token) : make_token(error);
	if (!web->token)
		goto fail;
	if (!config->web.origins[0])
		umms_warn("web: web.origins is empty: no page may connect");

	web->handshakes = g_hash_table_new_full(g_direct_hash, g_direct_equal, g_object_unref,
		(GDestroyNotify)g_source_unref);
	web->server = soup_server_new("server-header", "ummsd", NULL);
	g_signal_connect(web->server, "request-started", G_CALLBACK(request_started_cb), web);
	soup_server_add_handler(web->server, NULL, default_cb, web, NULL);
	soup_server_add_handler(web->server, WS_PATH, ws_check_cb, web, NULL);
	soup_server_add_handler(web->server, SCRIPT_PATH, script_cb, web, NULL);
	soup_server_add_early_handler(web->server, NULL, early_cb, web, NULL);
	soup_server_add_early_handler(web->server, WS_PATH, early_cb, web, NULL);
	soup_server_add_early_handler(web->server, SCRIPT_PATH, early_cb, web, NULL);
	/* 127.0.0.1 and ::1, nothing else; 127.0.0.1 alone where ::1 cannot be had. */
	GError *both = NULL;
	if (!soup_server_listen_local(web->server, config->web.port, 0, &both)) {
		bool ok = soup_server_listen_local(web->server, config->web.port,
			SOUP_SERVER_LISTEN_IPV4_ONLY, error);
		if (ok)
			umms_warn("web: on 127.0.0.1 only (::1: %s)", both->message);
		g_error_free(both);
		if (!ok) {
			g_prefix_error(error, "web: cannot listen on port %u: ", config->web.port);
			goto fail;
		}
	}
	umms_info("web: serving ws://127.0.0.1:%u" WS_PATH, config->web.port);
	web->browser_backoff = BROWSER_BACKOFF_FIRST;
	if (config->web.browser)
		try_browser(web);
	return web;

fail:
	umms_web_destroy(web);
	return NULL;
}

void
umms_web_destroy(struct umms_web *web)
{
	if (!web)
		return;
	/* ummsd stops: every session's players go, each socket told "going away". */
	while (web->sessions->len > 0)
		umms_web_session_destroy(web->sessions->pdata[web->sessions->len - 1],
			SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "ummsd stops");
	if (web->server) {
		soup_server_disconnect(web->server);
		g_object_unref(web->server);
	}
	stop_browser(web);
	if (web->handshakes) {
		GHashTableIter iter;
		gpointer value;
		g_hash_table_iter_init(&iter, web->handshakes);
		while (g_hash_table_iter_next(&iter, NULL, &value))
			g_source_destroy(value);
		g_hash_table_unref(web->handshakes);
	}
	g_ptr_array_unref(web->sessions);
	if (web->token)
		explicit_bzero(web->token, strlen(web->token));
	g_free(web->token);
	g_free(web);
}

const char *
umms_web_token(struct umms_web *web)
{
	return web->token;
}

pid_t
umms_web_browser_pid(struct umms_web *web)
{
	return web ? web->browser : 0;
}
