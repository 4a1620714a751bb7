#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <gio/gio.h>

#include "engine.h"
#include "engine-supervisor.h"
#include "error.h"
#include "log.h"
#include "manager.h"
#include "server.h"
#include "socket-name.h"
#include "display.h"
#include "video-server.h"
#include "web.h"

struct server {
	struct umms_server base;
	GDBusConnection *connection;
	char *bus_address;
	struct umms_manager *manager;
	struct umms_video_server *video;
	struct umms_display *display;
	struct umms_web *web;
	gulong closed_handler;
};

static void
closed_cb(GDBusConnection *connection, gboolean remote_peer_vanished, GError *error,
	gpointer data)
{
	struct server *server = data;
	umms_warn("lost the bus connection%s%s", error ? ": " : "", error ? error->message : "");
	wl_signal_emit_mutable(&server->base.events.disconnected, NULL);
}

static char *
bus_address(const struct umms_config *config, GError **error)
{
	if (config->service.bus_address)
		return g_strdup(config->service.bus_address);
	/* Started by D-Bus activation: serve the bus that started us. */
	char *starter = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_STARTER, NULL, NULL);
	if (starter)
		return starter;
	return g_dbus_address_get_for_bus_sync(config->service.bus == UMMS_BUS_SYSTEM ?
		G_BUS_TYPE_SYSTEM : G_BUS_TYPE_SESSION, NULL, error);
}

static bool
request_name(struct server *server, GError **error)
{
	const char *name = server->base.config->service.bus_name;
	/* DBUS_NAME_FLAG_DO_NOT_QUEUE: fail instead of waiting in line. */
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(server->connection,
		"org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
		"RequestName", g_variant_new("(su)", name, 4u), G_VARIANT_TYPE("(u)"),
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
	if (!reply)
		return false;
	guint32 result;
	g_variant_get(reply, "(u)", &result);
	if (result != 1 && result != 4) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%s is already owned: is another ummsd running on this bus?", name);
		return false;
	}
	return true;
}

struct umms_server *
umms_server_create(const struct umms_config *config, GError **error)
{
	struct server *server = g_new0(struct server, 1);
	server->base.config = config;
	wl_signal_init(&server->base.events.disconnected);

	umms_log_set_level(config->log.level);
	if (config->log.scopes && !umms_log_set_scopes(config->log.scopes, error))
		goto fail;
	if (!umms_engines_prepare(config, error))
		goto fail;
	/*
	 * With engines in workers ummsd decodes nothing: the hardware decoder
	 * plugins, which set up drivers as they load (engine.h's start), are
	 * the workers' to load.
	 */
	if (!umms_supervisor_init(config))
		umms_engines_start();

	server->bus_address = bus_address(config, error);
	if (!server->bus_address)
		goto fail;
	server->connection = g_dbus_connection_new_for_address_sync(server->bus_address,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, error);
	if (!server->connection)
		goto fail;
	g_dbus_connection_set_exit_on_close(server->connection, FALSE);
	server->closed_handler = g_signal_connect(server->connection, "closed",
		G_CALLBACK(closed_cb), server);

	/* Objects first, then the name: whoever sees the name finds them. */
	server->manager = umms_manager_create(config, server->connection,
		server->bus_address, error);
	if (!server->manager || !request_name(server, error))
		goto fail;
	/* After the name: a second ummsd is told the name is taken, not the socket. */
	if (config->video.enabled && config->video.socket[0] != '/' && !umms_runtime_dir()) {
		/* D-Bus and audio work without it; only the named socket has no home. */
		umms_warn("no video socket served: XDG_RUNTIME_DIR is not set (set it, or "
			"[video] socket to an absolute path); players play, with no picture "
			"for applications");
	} else if (config->video.enabled &&
			!(server->video = umms_video_server_create(config, server->manager, error))) {
		goto fail;
	}
	if (config->display.enabled && !(server->display = umms_display_create(config,
			server->manager, server->connection, server->video, error)))
		goto fail;
	/* After the screen: the browser it may start shows there. */
	if (config->web.port && !(server->web = umms_web_create(config, server->manager,
			server->display, error)))
		goto fail;
	umms_info("serving %s on %s", config->service.bus_name, server->bus_address);
	return &server->base;

fail:
	umms_server_destroy(&server->base);
	return NULL;
}

void
umms_server_destroy(struct umms_server *base)
{
	if (!base)
		return;
	struct server *server = wl_container_of(base, server, base);
	umms_web_destroy(server->web);
	umms_display_destroy(server->display);
	umms_video_server_destroy(server->video);
	umms_manager_destroy(server->manager);
	/* The players' workers were released; the spare and any left go now. */
	umms_supervisor_finish();
	if (server->connection) {
		g_signal_handler_disconnect(server->connection, server->closed_handler);
		/* Flushes what is queued (last replies and signals), then closes. */
		g_dbus_connection_flush_sync(server->connection, NULL, NULL);
		g_dbus_connection_close_sync(server->connection, NULL, NULL);
		g_object_unref(server->connection);
	}
	g_free(server->bus_address);
	g_free(server);
}

const char *
umms_server_get_bus_address(struct umms_server *base)
{
	struct server *server = wl_container_of(base, server, base);
	return server->bus_address;
}
