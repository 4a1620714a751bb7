/*
 * ummsd as a library: one server is one bus connection, the name
 * org.umms.Service1 and the objects under /org/umms. umms_main() (ummsd.c)
 * wraps it in a program; tests create servers in-process.
 *
 * A server runs on the thread-default main context of the thread that
 * created it, and must be destroyed there.
 */
#ifndef UMMS_SERVICE_SERVER_H
#define UMMS_SERVICE_SERVER_H

#include <stdbool.h>
#include <glib.h>
#include <wayland-server-core.h>

#include "config.h"

struct umms_server {
	const struct umms_config *config;
	struct {
		/* The bus connection closed (the bus went away); data NULL. */
		struct wl_signal disconnected;
	} events;
};

/*
 * Connects to the bus the config names, exports the objects and takes the
 * bus name. Fails if another process owns the name. @config must outlive
 * the server.
 */
struct umms_server *umms_server_create(const struct umms_config *config, GError **error);
void umms_server_destroy(struct umms_server *server);

/* The address of the bus the server is on. */
const char *umms_server_get_bus_address(struct umms_server *server);

/* The whole program: options, configuration, main loop. Returns the exit status. */
int umms_main(int argc, char *argv[]);

#endif
