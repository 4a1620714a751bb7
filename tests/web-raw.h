/*
 * A WebSocket client at the level of frames and bytes (test-web.c): what
 * no browser sends (fragments, bad lengths, silence), on a plain socket.
 */
#ifndef UMMS_TESTS_WEB_RAW_H
#define UMMS_TESTS_WEB_RAW_H

#include <stdbool.h>
#include <stddef.h>

/* A TCP connection to 127.0.0.1:@port (blocking). */
int raw_connect(unsigned port);
/* Connects and upgrades with @token and @origin; asserts the 101. */
int raw_upgrade(unsigned port, const char *token, const char *origin);
/* One masked frame; false if the socket would not take it (closed). */
bool raw_send_frame(int fd, bool fin, unsigned opcode, const void *data, size_t length);
/*
 * Reads until ummsd's close frame (its code), answering nothing; 0 when
 * the connection ended without one, -1 when it is still open after
 * @timeout_ms. Pings are counted in @pings when not NULL.
 */
int raw_wait_close(int fd, unsigned timeout_ms, unsigned *pings);
/* Whether ummsd ended the connection (EOF or reset) within @timeout_ms; reads past data. */
bool raw_wait_end(int fd, unsigned timeout_ms);

#endif
