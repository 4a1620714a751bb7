/*
 * A Wayland server and its clients in one thread, for tests of compositor
 * modules (service/compositor/): a real wl_display on a socket, real
 * libwayland-client connections to it, and turns that send a client's
 * requests, let the server work, and bring the client's events in. A test
 * steps both ends itself, so it needs no threads and sees the server's
 * objects (wl_client, wl_resource) beside the client's proxies.
 *
 * Any test of a module that takes a struct wl_display can share it: add
 * wl-loop.c to that test's executable in tests/meson.build. The module and
 * its globals are the test's; this file knows no protocol beyond the core.
 *
 * The socket is made in $XDG_RUNTIME_DIR, which the test points at a folder
 * of its own first. Every failure here fails the test (g_assert).
 */
#ifndef UMMS_TESTS_WL_LOOP_H
#define UMMS_TESTS_WL_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-client.h>
#include <wayland-server.h>

/* The server end: a display with a socket, no globals of its own. */
struct umms_wl_loop {
	struct wl_display *display;
	struct wl_event_loop *loop;
	const char *socket;                     /* its name in $XDG_RUNTIME_DIR */
	/* Private: which connection the server accepted last, for umms_wl_conn_open(). */
	struct wl_client *last_client;
	unsigned created_clients;
	struct wl_listener client_created;
};

/* Creates the display and its socket in @loop. */
void umms_wl_loop_start(struct umms_wl_loop *loop);
/* Destroys the display, with the clients still connected to it. */
void umms_wl_loop_stop(struct umms_wl_loop *loop);
/*
 * One turn: @client's requests out, the server's work (waiting at most
 * 2 ms for some), the server's events out, and @client's events in and
 * dispatched (at most 2 ms more). NULL @client turns the server alone.
 */
void umms_wl_loop_pump(struct umms_wl_loop *loop, struct wl_display *client);

/* One client connection, both of its ends. */
struct umms_wl_conn {
	struct umms_wl_loop *loop;
	struct wl_display *display;             /* the client's end */
	struct wl_client *server_client;        /* the same connection, seen by the server */
	bool gone;                              /* the server destroyed server_client */
	struct wl_listener server_gone;
};

/* Connects to @loop's socket; returns once the server has accepted (server_client is set). */
void umms_wl_conn_open(struct umms_wl_conn *conn, struct umms_wl_loop *loop);
/*
 * Disconnects (the test destroys its proxies first, or they go with the
 * display) and returns once the server has destroyed its wl_client.
 */
void umms_wl_conn_close(struct umms_wl_conn *conn);
/* A round trip; false when the connection failed (a protocol error) first. */
bool umms_wl_conn_roundtrip(struct umms_wl_conn *conn);
/* The server's resource for a client @proxy of @conn (NULL if the server has none). */
struct wl_resource *umms_wl_conn_resource(struct umms_wl_conn *conn, void *proxy);
/*
 * Expects the connection to end, at the next round trip, with the protocol
 * error @code on an object of @interface.
 */
void umms_wl_conn_assert_error(struct umms_wl_conn *conn, const struct wl_interface *interface,
	uint32_t code);

/* Open file descriptors of this process: both ends of every connection count. */
unsigned umms_wl_loop_fd_count(void);

#endif
