/* A Wayland server and its clients in one thread, for tests: see wl-loop.h. */
#include <poll.h>
#include <glib.h>

#include "wl-loop.h"

/* Tries of a loop waiting for the other end: 2 ms each at most, 4 s in all. */
#define TURNS 2000

static void
client_created(struct wl_listener *listener, void *data)
{
	struct umms_wl_loop *loop = wl_container_of(listener, loop, client_created);
	loop->last_client = data;
	loop->created_clients++;
}

void
umms_wl_loop_start(struct umms_wl_loop *loop)
{
	*loop = (struct umms_wl_loop){ 0 };
	loop->display = wl_display_create();
	g_assert_nonnull(loop->display);
	loop->loop = wl_display_get_event_loop(loop->display);
	loop->socket = wl_display_add_socket_auto(loop->display);
	g_assert_nonnull(loop->socket);
	/* wl_display_connect() tells nothing of the server's end: this does. */
	loop->client_created.notify = client_created;
	wl_display_add_client_created_listener(loop->display, &loop->client_created);
}

void
umms_wl_loop_stop(struct umms_wl_loop *loop)
{
	wl_list_remove(&loop->client_created.link);
	wl_display_destroy(loop->display);
	loop->display = NULL;
}

void
umms_wl_loop_pump(struct umms_wl_loop *loop, struct wl_display *client)
{
	if (client)
		wl_display_flush(client);
	wl_event_loop_dispatch(loop->loop, 2);
	wl_display_flush_clients(loop->display);
	if (!client)
		return;
	/* Events already queued are dispatched before reading, as libwayland requires. */
	while (wl_display_prepare_read(client) != 0) {
		if (wl_display_dispatch_pending(client) < 0)
			return;
	}
	struct pollfd pfd = { .fd = wl_display_get_fd(client), .events = POLLIN };
	if (poll(&pfd, 1, 2) > 0)
		wl_display_read_events(client);
	else
		wl_display_cancel_read(client);
	wl_display_dispatch_pending(client);
}

static void
server_gone(struct wl_listener *listener, void *data)
{
	struct umms_wl_conn *conn = wl_container_of(listener, conn, server_gone);
	conn->gone = true;
	wl_list_remove(&conn->server_gone.link);
}

void
umms_wl_conn_open(struct umms_wl_conn *conn, struct umms_wl_loop *loop)
{
	*conn = (struct umms_wl_conn){ .loop = loop };
	conn->display = wl_display_connect(loop->socket);
	g_assert_nonnull(conn->display);
	/* The server accepts the connection on its next dispatch. */
	unsigned before = loop->created_clients;
	for (int i = 0; i < TURNS && loop->created_clients == before; i++)
		umms_wl_loop_pump(loop, NULL);
	g_assert_cmpuint(loop->created_clients, ==, before + 1);
	conn->server_client = loop->last_client;
	conn->server_gone.notify = server_gone;
	wl_client_add_destroy_listener(conn->server_client, &conn->server_gone);
}

void
umms_wl_conn_close(struct umms_wl_conn *conn)
{
	wl_display_disconnect(conn->display);
	conn->display = NULL;
	for (int i = 0; i < TURNS && !conn->gone; i++)
		umms_wl_loop_pump(conn->loop, NULL);
	g_assert_true(conn->gone);
}

static void
sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	*(bool *)data = true;
}

static const struct wl_callback_listener sync_listener = { .done = sync_done };

bool
umms_wl_conn_roundtrip(struct umms_wl_conn *conn)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(conn->display);
	wl_callback_add_listener(callback, &sync_listener, &done);
	for (int i = 0; i < TURNS && !done && !wl_display_get_error(conn->display); i++)
		umms_wl_loop_pump(conn->loop, conn->display);
	wl_callback_destroy(callback);
	/* Neither answered nor failed: the server is stuck, which is a failure too. */
	g_assert_true(done || wl_display_get_error(conn->display));
	return done;
}

struct wl_resource *
umms_wl_conn_resource(struct umms_wl_conn *conn, void *proxy)
{
	/* Both ends number an object alike: the id the client chose is the server's too. */
	return wl_client_get_object(conn->server_client, wl_proxy_get_id(proxy));
}

void
umms_wl_conn_assert_error(struct umms_wl_conn *conn, const struct wl_interface *interface,
	uint32_t code)
{
	g_assert_false(umms_wl_conn_roundtrip(conn));
	const struct wl_interface *got_interface = NULL;
	uint32_t id = 0;
	uint32_t got = wl_display_get_protocol_error(conn->display, &got_interface, &id);
	/* Names, not pointers: a message that says which object it was if it fails. */
	g_assert_nonnull(got_interface);
	g_assert_cmpstr(got_interface->name, ==, interface->name);
	g_assert_cmpuint(got, ==, code);
}

unsigned
umms_wl_loop_fd_count(void)
{
	unsigned count = 0;
	GDir *dir = g_dir_open("/proc/self/fd", 0, NULL);
	g_assert_nonnull(dir);
	while (g_dir_read_name(dir))
		count++;
	g_dir_close(dir);
	return count;
}
