/*
 * A test-only teletext writer (teletext-gen.h), written from EN 300 706
 * (packets, coding) and EN 300 472 (teletext in DVB PES).
 */
#include <string.h>

#include "teletext-gen.h"

/* Spacing attributes (EN 300 706, 12.2, table 26). */
#define ATTR_WHITE 0x07
#define ATTR_END_BOX 0x0a
#define ATTR_START_BOX 0x0b

/* EN 300 472, 4.4: data_identifier of EBU data, unit ids, the framing code as carried. */
#define DATA_IDENTIFIER 0x10
#define UNIT_SUBTITLE 0x03
#define UNIT_STUFFING 0xff
#define UNIT_LENGTH 0x2c
#define FRAMING_CODE 0xe4

uint8_t
ttx_hamming84(unsigned nibble)
{
	unsigned d1 = nibble & 1, d2 = nibble >> 1 & 1, d3 = nibble >> 2 & 1, d4 = nibble >> 3 & 1;
	unsigned p1 = 1 ^ d1 ^ d3 ^ d4;
	unsigned p2 = 1 ^ d1 ^ d2 ^ d4;
	unsigned p3 = 1 ^ d1 ^ d2 ^ d3;
	unsigned p4 = 1 ^ p1 ^ d1 ^ p2 ^ d2 ^ p3 ^ d3 ^ d4;
	/* Transmitted first, bit 0: P1 D1 P2 D2 P3 D3 P4 D4. */
	return (uint8_t)(p1 | d1 << 1 | p2 << 2 | d2 << 3 | p3 << 4 | d3 << 5 | p4 << 6 | d4 << 7);
}

uint8_t
ttx_odd_parity(unsigned c)
{
	c &= 0x7f;
	unsigned ones = 0;
	for (unsigned b = c; b; b >>= 1)
		ones += b & 1;
	return (uint8_t)(ones % 2 ? c : c | 0x80);
}

/* Magazine and row address (MRAG): 3 bits of magazine (8 is 0), 5 of packet number. */
static void
address(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine, unsigned row)
{
	packet[0] = ttx_hamming84((magazine & 7) | (row & 1) << 3);
	packet[1] = ttx_hamming84(row >> 1);
}

/* @size characters of @text from @out on, spaces after its end, odd parity. */
static void
characters(uint8_t *out, size_t size, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	for (size_t i = 0; i < size; i++)
		out[i] = ttx_odd_parity(i < len ? (unsigned char)text[i] : ' ');
}

static void
header_bytes(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine, unsigned units,
	unsigned tens, unsigned control, const char *text)
{
	address(packet, magazine, 0);
	packet[2] = ttx_hamming84(units);
	packet[3] = ttx_hamming84(tens);
	/* Subcode 0000: S1, S2 with C4, S3, S4 with C5 and C6. */
	packet[4] = ttx_hamming84(0);
	packet[5] = ttx_hamming84(control & TTX_C4_ERASE ? 8 : 0);
	packet[6] = ttx_hamming84(0);
	packet[7] = ttx_hamming84((control & TTX_C5_NEWSFLASH ? 4 : 0) |
		(control & TTX_C6_SUBTITLE ? 8 : 0));
	/* C7..C10, then C11..C14 (C12..C14 0: the English option). */
	packet[8] = ttx_hamming84((control & TTX_C7_SUPPRESS_HEADER ? 1 : 0) |
		(control & TTX_C8_UPDATE ? 2 : 0));
	packet[9] = ttx_hamming84(control & TTX_C11_SERIAL ? 1 : 0);
	characters(packet + 10, 32, text);
}

void
ttx_header(uint8_t packet[TTX_PACKET_SIZE], unsigned page, unsigned control, const char *text)
{
	unsigned magazine = page / 100 % 8, tens = page / 10 % 10, units = page % 10;
	header_bytes(packet, magazine, units, tens, control, text);
}

void
ttx_filler_header(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine)
{
	header_bytes(packet, magazine % 8, 0xf, 0xf, 0, NULL);
}

void
ttx_row(uint8_t packet[TTX_PACKET_SIZE], unsigned magazine, unsigned row, const char *text)
{
	address(packet, magazine % 8, row);
	characters(packet + 2, 40, text);
}

/* The bits of @b in the other order: EN 300 472 carries them as transmitted. */
static uint8_t
reverse(uint8_t b)
{
	uint8_t r = 0;
	for (int i = 0; i < 8; i++)
		r = (uint8_t)(r << 1 | (b >> i & 1));
	return r;
}

bool
ttx_pes_payload(uint8_t out[TTX_PES_SIZE], const uint8_t (*packets)[TTX_PACKET_SIZE], size_t n)
{
	if (n > TTX_PES_UNITS || n > 16)
		return false;
	out[0] = DATA_IDENTIFIER;
	for (size_t i = 0; i < TTX_PES_UNITS; i++) {
		uint8_t *unit = out + 1 + i * TTX_UNIT_SIZE;
		if (i >= n) {
			unit[0] = UNIT_STUFFING;
			unit[1] = UNIT_LENGTH;
			memset(unit + 2, 0xff, UNIT_LENGTH);
			continue;
		}
		unit[0] = UNIT_SUBTITLE;
		unit[1] = UNIT_LENGTH;
		/* Reserved 11, field parity 1 (the first field), line offset 7 onwards. */
		unit[2] = (uint8_t)(0xc0 | 0x20 | (7 + i));
		unit[3] = FRAMING_CODE;
		for (size_t b = 0; b < TTX_PACKET_SIZE; b++)
			unit[4 + b] = reverse(packets[i][b]);
	}
	return true;
}

bool
ttx_subtitle_pes(uint8_t out[TTX_PES_SIZE], unsigned page, const char *const *lines, size_t n)
{
	return ttx_subtitle_pes_at(out, page, lines, n, (unsigned)(23 - 2 * n), TTX_WHITE);
}

bool
ttx_subtitle_pes_at(uint8_t out[TTX_PES_SIZE], unsigned page, const char *const *lines,
	size_t n, unsigned first_row, uint8_t colour)
{
	uint8_t packets[16][TTX_PACKET_SIZE];
	size_t count = 0;
	if (n > 11 || page < 100 || page > 899 || first_row < 1 || first_row + 2 * n > 25 ||
			colour > TTX_WHITE)
		return false;
	unsigned magazine = page / 100 % 8;
	ttx_header(packets[count++], page, TTX_C4_ERASE | TTX_C6_SUBTITLE |
		TTX_C7_SUPPRESS_HEADER, "");
	for (size_t i = 0; i < n; i++) {
		char row[41];
		size_t len = strlen(lines[i]);
		if (len > 34)
			return false;
		/* A colour, boxed twice (as broadcasters do), the text, the box ended. */
		row[0] = (char)colour;
		row[1] = ATTR_START_BOX;
		row[2] = ATTR_START_BOX;
		memcpy(row + 3, lines[i], len);
		row[3 + len] = ATTR_END_BOX;
		row[4 + len] = ATTR_END_BOX;
		row[5 + len] = '\0';
		ttx_row(packets[count++], magazine, (unsigned)(first_row + 2 * i), row);
	}
	ttx_filler_header(packets[count++], magazine);
	return ttx_pes_payload(out, (const uint8_t (*)[TTX_PACKET_SIZE])packets, count);
}
