/*
 * The browser bridge: web pages drive players over a WebSocket (JSON-RPC
 * 2.0, the wire protocol of issue 16) served by ummsd with libsoup on
 * loopback only, when [web] port is set. Every connection proves the token
 * (in its query) and comes from an Origin of [web] origins; its players are
 * made by the manager (service/manager.c) like any D-Bus client's, driven
 * through the same player calls as Player1 (service/player.h), and go with
 * the socket. Bounded by the [web] max-* keys (docs/config.md).
 */
#ifndef UMMS_SERVICE_WEB_H
#define UMMS_SERVICE_WEB_H

#include <sys/types.h>
#include <glib.h>

#include "config.h"

struct umms_display;
struct umms_manager;
struct umms_web;

/*
 * Listens on 127.0.0.1 and ::1 at config->web.port (not 0), and starts
 * [web] browser when one is configured. Pages' videos are placed on
 * @display (NULL: ummsd drives no screen, and `place` says so).
 */
struct umms_web *umms_web_create(const struct umms_config *config,
	struct umms_manager *manager, struct umms_display *display, GError **error);
/* Closes every session (their players destroyed), stops the browser. NULL is a no-op. */
void umms_web_destroy(struct umms_web *web);

/* The token pages present: [web] token, or the one made at start. */
const char *umms_web_token(struct umms_web *web);
/* The browser ummsd started, while it runs; else 0. */
pid_t umms_web_browser_pid(struct umms_web *web);

#endif
