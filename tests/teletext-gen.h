/*
 * A test-only teletext writer: subtitle pages as EN 300 706 packets,
 * carried in the PES payload EN 300 472 defines for DVB (what mpegtsmux
 * takes as application/x-teletext and tsdemux gives back). No GStreamer
 * element encodes teletext; the tests check this writer against
 * teletextdec (test-teletext-gen.c).
 *
 * Pages are numbered as people say them: 888 is magazine 8, page 0x88.
 * Text is 7-bit; the Latin G0 set with the English national option, so
 * letters, digits, spaces and most punctuation read back as they are
 * (#, [, \, ], ^, _, `, {, |, }, ~ do not).
 */
#ifndef UMMS_TESTS_TELETEXT_GEN_H
#define UMMS_TESTS_TELETEXT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of one teletext packet after its framing code (EN 300 706, 3.1). */
#define TTX_PACKET_SIZE 42
/* One EN 300 472 data unit: id, length, line, framing code, packet. */
#define TTX_UNIT_SIZE 46
/* A PES payload of this writer: data_identifier and 15 units (184 bytes with its header). */
#define TTX_PES_UNITS 15
#define TTX_PES_SIZE (1 + TTX_PES_UNITS * TTX_UNIT_SIZE)

/* Page header control bits (EN 300 706, 9.3.1.3). */
enum ttx_control {
	TTX_C4_ERASE = 1 << 0,
	TTX_C5_NEWSFLASH = 1 << 1,
	TTX_C6_SUBTITLE = 1 << 2,
	TTX_C7_SUPPRESS_HEADER = 1 << 3,
	TTX_C8_UPDATE = 1 << 4,
	TTX_C11_SERIAL = 1 << 5,
};

/* Hamming 8/4 of the low 4 bits of @nibble (EN 300 706, 8.2). */
uint8_t ttx_hamming84(unsigned nibble);
/* @c (7 bits) with odd parity in bit 7 (EN 300 706, 8.1). */
uint8_t ttx_odd_parity(unsigned c);

/*
 * Packet X/0, the page header of @page (100..899; page units FF, "time
 * filling", with @page % 100 > 99 is not expressible here: see
 * ttx_filler_header) with @control bits and 32 characters of @text.
 */
void ttx_header(uint8_t packet[TTX_PACKET_SIZE], unsigned page, unsigned control,
	const char *text);
/* A time filling header in @magazine (page xFF): ends the page in transmission. */
void ttx_filler_header(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine);
/* Packet X/@row (1..23) of magazine @magazine: 40 characters of @text, spaces after. */
void ttx_row(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine, unsigned row,
	const char *text);

/*
 * A PES payload (TTX_PES_SIZE bytes into @out) carrying @n packets (at
 * most TTX_PES_UNITS and 16, one per line of the first field, 7..22),
 * as EBU teletext subtitle data units, stuffing after them.
 */
bool ttx_pes_payload(uint8_t out[TTX_PES_SIZE], const uint8_t (*packets)[TTX_PACKET_SIZE],
	size_t n);

/*
 * A subtitle page as broadcasters send it, in one PES payload: the header
 * of @page (subtitle, erase, header suppressed), each of the @n lines of
 * @lines in a box from row 23 - 2 * @n up, every other row (room for
 * double height), then a time filling header that ends the page. @n 0: the
 * blank page that takes a subtitle off the screen.
 */
bool ttx_subtitle_pes(uint8_t out[TTX_PES_SIZE], unsigned page, const char *const *lines,
	size_t n);

/* Teletext's alphanumeric colour codes (spacing attributes), for ttx_subtitle_pes_at. */
#define TTX_RED 0x01
#define TTX_GREEN 0x02
#define TTX_YELLOW 0x03
#define TTX_BLUE 0x04
#define TTX_MAGENTA 0x05
#define TTX_CYAN 0x06
#define TTX_WHITE 0x07

/*
 * The same with the lines from row @first_row (1..) down, every other
 * row, in @colour (TTX_RED..TTX_WHITE); false when they do not fit rows
 * 1 to 23.
 */
bool ttx_subtitle_pes_at(uint8_t out[TTX_PES_SIZE], unsigned page, const char *const *lines,
	size_t n, unsigned first_row, uint8_t colour);

#endif
