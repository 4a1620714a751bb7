/*
 * The browser bridge's bounds on what a connection may make ummsd hold,
 * spoken at the level of frames and bytes (web-raw.c): a message's
 * fragments together within web.max-message-bytes (close 1009, players
 * released), connections that never become a WebSocket
 * (web.handshake-timeout, web.max-handshakes), and sessions that stop
 * answering (web.keepalive-interval).
 */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "web-client.h"
#include "web-raw.h"

static void
send_open(int fd, const char *clip)
{
	g_autofree char *uri = umms_test_clip_uri(clip);
	g_autofree char *text = g_strdup_printf(
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"open\",\"params\":{\"uri\":\"%s\"}}", uri);
	g_assert_true(raw_send_frame(fd, true, 1, text, strlen(text)));
}

/* Answers ummsd's close and checks that it ends the connection soon after. */
static void
finish_close(int fd)
{
	const guint8 code[2] = { 0x03, 0xe8 };
	g_assert_true(raw_send_frame(fd, true, 8, code, 2));
	/* Before libsoup's 5 s wait for a close that never came. */
	g_assert_true(raw_wait_end(fd, 3000));
	close(fd);
}

static void
test_fragments(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "web.max-message-bytes=1024", NULL };
	web_start(t, overrides);

	/* A request in three fragments within the limit is one message: a player. */
	int fd = raw_upgrade(web_port, TOKEN, ORIGIN);
	g_autofree char *uri = umms_test_clip_uri("av.mkv");
	g_autofree char *text = g_strdup_printf(
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"open\",\"params\":{\"uri\":\"%s\"}}", uri);
	size_t third = strlen(text) / 3;
	g_assert_true(raw_send_frame(fd, false, 1, text, third));
	g_assert_true(raw_send_frame(fd, false, 0, text + third, third));
	g_assert_true(raw_send_frame(fd, true, 0, text + 2 * third, strlen(text) - 2 * third));
	umms_test_wait_players(t->bus, 1, 5000);

	/*
	 * Fragments of 100 bytes that pass the limit together, the message never
	 * finished: closed with 1009 while it is still coming, the player gone.
	 */
	char filler[100];
	memset(filler, ' ', sizeof(filler));
	g_assert_true(raw_send_frame(fd, false, 1, filler, sizeof(filler)));
	for (int i = 0; i < 11; i++)
		g_assert_true(raw_send_frame(fd, false, 0, filler, sizeof(filler)));
	g_assert_cmpint(raw_wait_close(fd, 5000, NULL), ==, 1009);
	umms_test_wait_players(t->bus, 0, 5000);
	/* Fragments after the refusal are dropped; the close handshake completes. */
	raw_send_frame(fd, false, 0, filler, sizeof(filler));
	finish_close(fd);

	/* One frame four times over: 1009 as well, not a dropped connection. */
	fd = raw_upgrade(web_port, TOKEN, ORIGIN);
	send_open(fd, "av.mkv");
	umms_test_wait_players(t->bus, 1, 5000);
	g_autofree char *big = g_strnfill(5000, ' ');
	g_assert_true(raw_send_frame(fd, true, 1, big, 5000));
	g_assert_cmpint(raw_wait_close(fd, 5000, NULL), ==, 1009);
	umms_test_wait_players(t->bus, 0, 5000);
	finish_close(fd);

	/* A header that announces 2^40 bytes, a few sent: refused at the header. */
	fd = raw_upgrade(web_port, TOKEN, ORIGIN);
	const guint8 header[] = { 0x81, 0x80 | 127, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4 };
	g_assert_cmpint(write(fd, header, sizeof(header)), ==, sizeof(header));
	g_assert_cmpint(write(fd, filler, sizeof(filler)), ==, sizeof(filler));
	g_assert_cmpint(raw_wait_close(fd, 5000, NULL), ==, 1009);
	close(fd);

	/* A ping longer than a control frame may be: a protocol error (1002). */
	fd = raw_upgrade(web_port, TOKEN, ORIGIN);
	char ping[126];
	memset(ping, 'p', sizeof(ping));
	g_assert_true(raw_send_frame(fd, true, 9, ping, sizeof(ping)));
	g_assert_cmpint(raw_wait_close(fd, 5000, NULL), ==, 1002);
	close(fd);

	/* ummsd still serves: a session opens and plays. */
	struct client *c = client_connect();
	g_assert_cmpuint(open_clip(c, "av.mkv"), ==, 1);
	client_free(c);
}

static void
test_handshake_timeout(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "web.handshake-timeout=1", NULL };
	web_start(t, overrides);
	/* Connected, nothing sent: ended after a second. */
	gint64 from = g_get_monotonic_time();
	int silent = raw_connect(web_port);
	/* Half a request line. */
	int half = raw_connect(web_port);
	g_assert_cmpint(write(half, "GET /umms?tok", 13), ==, 13);
	g_assert_true(raw_wait_end(silent, 5000));
	g_assert_true(raw_wait_end(half, 5000));
	double took = (double)(g_get_monotonic_time() - from) / 1e6;
	g_test_message("ended after %.2f s", took);
	g_assert_cmpfloat(took, >=, 0.9);
	close(silent);
	close(half);
	/* A session is not a handshake: it stays past the timeout. */
	struct client *c = client_connect();
	umms_test_sleep(2500);
	g_assert_false(c->closed);
	g_assert_cmpuint(open_clip(c, "av.mkv"), ==, 1);
	client_free(c);
}

static void
test_max_handshakes(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "web.max-handshakes=2", "web.handshake-timeout=60",
		NULL };
	web_start(t, overrides);
	/* Sessions do not count: three at once. */
	struct client *s[3];
	for (int i = 0; i < 3; i++)
		s[i] = client_connect();
	int a = raw_connect(web_port), b = raw_connect(web_port);
	/* Let ummsd see them both before the third. */
	umms_test_sleep(300);
	int third = raw_connect(web_port);
	g_assert_true(raw_wait_end(third, 3000));
	close(third);
	guint status = 0;
	g_assert_null(try_connect(TOKEN, ORIGIN, &status));
	/* The two gone, a page connects again. */
	close(a);
	close(b);
	struct client *c = NULL;
	gint64 end = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
	while (!(c = try_connect(TOKEN, ORIGIN, &status)) && g_get_monotonic_time() < end)
		umms_test_sleep(50);
	g_assert_nonnull(c);
	/* The sessions were not touched. */
	for (int i = 0; i < 3; i++) {
		g_assert_false(s[i]->closed);
		client_free(s[i]);
	}
	client_free(c);
}

static void
test_keepalive(struct umms_test *t, gconstpointer data)
{
	const char *const overrides[] = { "web.keepalive-interval=1", NULL };
	web_start(t, overrides);
	/* libsoup's client answers pings: open well past the interval. */
	struct client *c = client_connect();
	g_assert_cmpuint(open_clip(c, "av.mkv"), ==, 1);
	/* One that answers nothing: pinged, then closed "going away", its player gone. */
	int fd = raw_upgrade(web_port, TOKEN, ORIGIN);
	send_open(fd, "av.mkv");
	umms_test_wait_players(t->bus, 2, 5000);
	unsigned pings = 0;
	gint64 from = g_get_monotonic_time();
	g_assert_cmpint(raw_wait_close(fd, 10000, &pings), ==, 1001);
	double took = (double)(g_get_monotonic_time() - from) / 1e6;
	g_test_message("closed after %.2f s, %u pings", took, pings);
	g_assert_cmpuint(pings, >=, 1);
	g_assert_cmpfloat(took, >=, 1.0);
	umms_test_wait_players(t->bus, 1, 5000);
	close(fd);
	umms_test_sleep(1000);
	g_assert_false(c->closed);
	json_object_unref(call_ok(c, "play", "{\"player\":1}"));
	client_free(c);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	umms_test_fixture_without_service();
	UMMS_TEST_ADD("/web-guard/fragments", test_fragments);
	UMMS_TEST_ADD("/web-guard/handshake-timeout", test_handshake_timeout);
	UMMS_TEST_ADD("/web-guard/max-handshakes", test_max_handshakes);
	UMMS_TEST_ADD("/web-guard/keepalive", test_keepalive);
	return g_test_run();
}
