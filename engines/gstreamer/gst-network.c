/*
 * Why an HTTP source failed, in words a user can act on.
 *
 * GStreamer 1.22's souphttpsrc (libsoup 3) reports a refused connection,
 * an unknown host and an HTTP error status alike as "Internal data stream
 * error": the cause stays in its debug log. The status the server answered
 * comes in its http-headers element message (0: no answer at all); with no
 * answer, connecting to the host ourselves tells which it was.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <gio/gio.h>

#include "error.h"
#include "gst-private.h"
#include "log.h"

/* How long the check for a source that never answered may take. */
#define PROBE_TIMEOUT_S 5

struct probe {
	struct gst_engine *engine;     /* valid while cancellable is not cancelled */
	GCancellable *cancellable;
	char *uri;
};

static bool
is_http(const char *uri)
{
	return uri && (g_str_has_prefix(uri, "http:") || g_str_has_prefix(uri, "https:"));
}

void
gst_network_reset(struct gst_engine *engine)
{
	engine->http_status = -1;
	if (engine->probe) {
		g_cancellable_cancel(engine->probe);
		g_clear_object(&engine->probe);
	}
}

void
gst_network_headers(struct gst_engine *engine, GstMessage *message)
{
	const GstStructure *s = gst_message_get_structure(message);
	guint status;
	if (!s || !gst_structure_has_name(s, "http-headers") ||
			!gst_structure_get_uint(s, "http-status-code", &status))
		return;
	/* A redirect is followed by the answer of where it led. */
	engine->http_status = status > 999 ? 999 : (int)status;
}

GError *
gst_network_status_error(struct gst_engine *engine)
{
	int status = engine->http_status;
	if (!is_http(engine->uri) || status < 400)
		return NULL;
	if (status == 404 || status == 410)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"not found on the server: %s (HTTP %d)", engine->uri, status);
	if (status == 401 || status == 403 || status == 407)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
			"the server refused access to %s (HTTP %d)", engine->uri, status);
	return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
		"the server could not give %s (HTTP %d)", engine->uri, status);
}

static GError *
probe_error(const char *uri, const GError *error)
{
	g_autoptr(GUri) parsed = g_uri_parse(uri, G_URI_FLAGS_NONE, NULL);
	const char *host = parsed ? g_uri_get_host(parsed) : NULL;
	int port = parsed ? g_uri_get_port(parsed) : -1;
	if (port < 0)
		port = g_str_has_prefix(uri, "https:") ? 443 : 80;
	if (!host)
		host = "?";
	if (!error)
		return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"%s: the server accepted the connection but sent nothing usable", uri);
	if (g_error_matches(error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_NOT_FOUND))
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"unknown host %s (%s)", host, uri);
	if (g_error_matches(error, G_RESOLVER_ERROR, G_RESOLVER_ERROR_TEMPORARY_FAILURE))
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"cannot look up host %s now: %s (%s)", host, error->message, uri);
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
		return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"connection refused by %s:%d: no server there (%s)", host, port, uri);
	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
		return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"no answer from %s:%d within %d s (%s)", host, port, PROBE_TIMEOUT_S, uri);
	return g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED, "cannot connect to %s:%d: %s (%s)",
		host, port, error->message, uri);
}

static void
probe_done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct probe *probe = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GSocketConnection) connection = g_socket_client_connect_to_uri_finish(
		G_SOCKET_CLIENT(source), result, &error);
	if (!g_cancellable_is_cancelled(probe->cancellable)) {
		struct gst_engine *engine = probe->engine;
		g_clear_object(&engine->probe);
		gst_engine_fail_network(engine, probe_error(probe->uri, error));
	}
	g_object_unref(probe->cancellable);
	g_free(probe->uri);
	g_free(probe);
}

bool
gst_network_probe(struct gst_engine *engine, GstMessage *message)
{
	if (!is_http(engine->uri) || engine->http_status > 0 || engine->probe)
		return false;
	GError *gst_error = NULL;
	gst_message_parse_error(message, &gst_error, NULL);
	bool source_broke = g_error_matches(gst_error, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED);
	g_error_free(gst_error);
	if (!source_broke)
		return false;

	umms_info("%s: no answer from the server; finding out why", engine->uri);
	struct probe *probe = g_new0(struct probe, 1);
	probe->engine = engine;
	probe->cancellable = g_cancellable_new();
	probe->uri = g_strdup(engine->uri);
	engine->probe = g_object_ref(probe->cancellable);
	g_autoptr(GSocketClient) client = g_socket_client_new();
	g_socket_client_set_timeout(client, PROBE_TIMEOUT_S);
	g_socket_client_connect_to_uri_async(client, engine->uri,
		g_str_has_prefix(engine->uri, "https:") ? 443 : 80, probe->cancellable,
		probe_done, probe);
	return true;
}
