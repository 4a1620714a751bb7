/*
 * A WebSocket client at the level of frames and bytes (see web-raw.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <glib.h>

#include "web-raw.h"

int
raw_connect(unsigned port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	g_assert_cmpint(fd, >=, 0);
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	g_assert_cmpint(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), ==, 0);
	return fd;
}

static void
write_all(int fd, const void *data, size_t length)
{
	const char *p = data;
	while (length > 0) {
		ssize_t n = send(fd, p, length, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		g_assert_cmpint(n, >, 0);
		p += n;
		length -= (size_t)n;
	}
}

/*
 * Waits up to 10 ms for @fd to be readable, the test's own clients
 * (libsoup's, answering pings) going on meanwhile: 1 readable, 0 not yet,
 * -1 past @end (monotonic µs).
 */
static int
readable(int fd, gint64 end)
{
	gint64 left = (end - g_get_monotonic_time()) / 1000;
	if (left <= 0)
		return -1;
	while (g_main_context_iteration(NULL, FALSE))
		;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	return poll(&pfd, 1, (int)MIN(left, 10)) > 0;
}

/* Reads @length bytes, waiting at most until @end; false: ended or late. */
static bool
read_exact(int fd, void *data, size_t length, gint64 end)
{
	char *p = data;
	while (length > 0) {
		int ready = readable(fd, end);
		if (ready < 0)
			return false;
		if (!ready)
			continue;
		ssize_t n = recv(fd, p, length, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		length -= (size_t)n;
	}
	return true;
}

int
raw_upgrade(unsigned port, const char *token, const char *origin)
{
	int fd = raw_connect(port);
	g_autofree char *request = g_strdup_printf(
		"GET /umms?token=%s HTTP/1.1\r\n"
		"Host: 127.0.0.1:%u\r\n"
		"Upgrade: websocket\r\n"
		"Connection: Upgrade\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
		"Sec-WebSocket-Version: 13\r\n"
		"Origin: %s\r\n\r\n", token, port, origin);
	write_all(fd, request, strlen(request));
	/* The response, byte by byte up to its blank line: nothing after it is taken. */
	GString *response = g_string_new(NULL);
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
	while (!g_str_has_suffix(response->str, "\r\n\r\n")) {
		char c;
		g_assert_true(read_exact(fd, &c, 1, end));
		g_string_append_c(response, c);
		g_assert_cmpuint(response->len, <, 4096);
	}
	g_assert_true(g_str_has_prefix(response->str, "HTTP/1.1 101"));
	g_string_free(response, TRUE);
	return fd;
}

bool
raw_send_frame(int fd, bool fin, unsigned opcode, const void *data, size_t length)
{
	guint8 header[14];
	size_t at = 0;
	header[at++] = (guint8)((fin ? 0x80 : 0) | (opcode & 0x0f));
	if (length < 126) {
		header[at++] = (guint8)(0x80 | length);
	} else if (length <= 0xffff) {
		header[at++] = 0x80 | 126;
		header[at++] = (guint8)(length >> 8);
		header[at++] = (guint8)length;
	} else {
		header[at++] = 0x80 | 127;
		for (int i = 7; i >= 0; i--)
			header[at++] = (guint8)((guint64)length >> (8 * i));
	}
	const guint8 mask[4] = { 0x12, 0x34, 0x56, 0x78 };
	memcpy(header + at, mask, 4);
	at += 4;
	guint8 *masked = g_malloc(length + 1);
	for (size_t i = 0; i < length; i++)
		masked[i] = ((const guint8 *)data)[i] ^ mask[i & 3];
	bool ok = send(fd, header, at, MSG_NOSIGNAL) == (ssize_t)at;
	size_t sent = 0;
	while (ok && sent < length) {
		ssize_t n = send(fd, masked + sent, length - sent, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0;
		if (ok)
			sent += (size_t)n;
	}
	g_free(masked);
	return ok;
}

int
raw_wait_close(int fd, unsigned timeout_ms, unsigned *pings)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		guint8 header[2];
		if (!read_exact(fd, header, 2, end))
			return g_get_monotonic_time() >= end ? -1 : 0;
		guint64 length = header[1] & 0x7f;
		/* From the server: never masked. */
		g_assert_false(header[1] & 0x80);
		if (length >= 126) {
			guint8 ext[8];
			size_t n = length == 126 ? 2 : 8;
			if (!read_exact(fd, ext, n, end))
				return 0;
			length = 0;
			for (size_t i = 0; i < n; i++)
				length = length << 8 | ext[i];
		}
		g_assert_cmpuint(length, <=, 1 << 20);
		g_autofree guint8 *payload = g_malloc(length + 1);
		if (!read_exact(fd, payload, length, end))
			return 0;
		unsigned opcode = header[0] & 0x0f;
		if (opcode == 0x9 && pings)
			(*pings)++;
		if (opcode == 0x8)
			return length >= 2 ? payload[0] << 8 | payload[1] : 1005;
	}
}

bool
raw_wait_end(int fd, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	char buffer[4096];
	for (;;) {
		int ready = readable(fd, end);
		if (ready < 0)
			return false;
		if (!ready)
			continue;
		ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
	}
}
