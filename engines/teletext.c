#include <string.h>
#include <glib.h>

#include "teletext.h"

/* EN 300 472: data_identifier range of EBU data; teletext data units and their length. */
#define DATA_IDENTIFIER_MIN 0x10
#define DATA_IDENTIFIER_MAX 0x1f
#define UNIT_NON_SUBTITLE 0x02
#define UNIT_SUBTITLE 0x03
#define UNIT_LENGTH 0x2c
#define PACKET_SIZE 42
/* Complete pages kept until teletextdec tells them (it is one PES late). */
#define COMPLETE_MAX 4

/* Spacing attributes (EN 300 706, 12.2). */
#define ATTR_END_BOX 0x0a
#define ATTR_START_BOX 0x0b
#define WHITE 7

struct umms_teletext_rows {
	bool assembling;        /* the subtitle page's header seen, its rows coming */
	unsigned magazine;      /* of the page assembled, 1..8 */
	struct umms_teletext_layout page;
	struct umms_teletext_layout complete[COMPLETE_MAX];
	unsigned n_complete;
};

/* Hamming 8/4 (EN 300 706, 8.2) as transmitted; -1 for any error (none is corrected). */
static int
unham(uint8_t byte)
{
	unsigned d1 = byte >> 1 & 1, d2 = byte >> 3 & 1, d3 = byte >> 5 & 1, d4 = byte >> 7 & 1;
	unsigned p1 = byte & 1, p2 = byte >> 2 & 1, p3 = byte >> 4 & 1, p4 = byte >> 6 & 1;
	bool ok = p1 == (1 ^ d1 ^ d3 ^ d4) && p2 == (1 ^ d1 ^ d2 ^ d4) &&
		p3 == (1 ^ d1 ^ d2 ^ d3) && p4 == (1 ^ p1 ^ d1 ^ p2 ^ d2 ^ p3 ^ d3 ^ d4);
	return ok ? (int)(d1 | d2 << 1 | d3 << 2 | d4 << 3) : -1;
}

/* EN 300 472 carries each byte's bits in transmission order. */
static uint8_t
reverse(uint8_t b)
{
	uint8_t r = 0;
	for (int i = 0; i < 8; i++)
		r = (uint8_t)(r << 1 | (b >> i & 1));
	return r;
}

/* A packet's magazine (1..8) and number (0..31); false on a Hamming error. */
static bool
address(const uint8_t *packet, unsigned *magazine, unsigned *number)
{
	int a = unham(packet[0]), b = unham(packet[1]);
	if (a < 0 || b < 0)
		return false;
	*magazine = (a & 7) ? (unsigned)(a & 7) : 8;
	*number = (unsigned)(a >> 3 | b << 1);
	return true;
}

/* A header's page number (100..899), 0 for a time filling header or an error; @subtitle: C6. */
static int
header_page(const uint8_t *packet, unsigned magazine, bool *subtitle)
{
	int units = unham(packet[2]), tens = unham(packet[3]), s4c = unham(packet[7]);
	/* Units or tens past 9: a time filling header (xFF) or an unusual page. */
	if (units < 0 || tens < 0 || s4c < 0 || units > 9 || tens > 9)
		return 0;
	*subtitle = s4c & 8;
	return (int)magazine * 100 + tens * 10 + units;
}

/*
 * Calls @fn for each teletext packet (42 bytes, in transmission order) of
 * a PES payload; stops where it returns false.
 */
static void
each_packet(const uint8_t *data, size_t size, bool (*fn)(const uint8_t *packet, void *user),
	void *user)
{
	if (size < 1 || data[0] < DATA_IDENTIFIER_MIN || data[0] > DATA_IDENTIFIER_MAX)
		return;
	size_t at = 1;
	while (at + 2 <= size) {
		uint8_t id = data[at];
		size_t length = data[at + 1];
		if (at + 2 + length > size)
			break;
		if ((id == UNIT_SUBTITLE || id == UNIT_NON_SUBTITLE) && length == UNIT_LENGTH) {
			/* Line and field, framing code, then the packet. */
			uint8_t packet[PACKET_SIZE];
			for (size_t i = 0; i < PACKET_SIZE; i++)
				packet[i] = reverse(data[at + 4 + i]);
			if (!fn(packet, user))
				return;
		}
		at += 2 + length;
	}
}

static bool
find_page(const uint8_t *packet, void *user)
{
	int *page = user;
	unsigned magazine, number;
	bool subtitle = false;
	if (!address(packet, &magazine, &number) || number != 0)
		return true;
	int found = header_page(packet, magazine, &subtitle);
	if (found && subtitle)
		*page = found;
	return *page == 0;
}

int
umms_teletext_find_subtitle_page(const uint8_t *data, size_t size)
{
	int page = 0;
	each_packet(data, size, find_page, &page);
	return page;
}

struct umms_teletext_rows *
umms_teletext_rows_create(void)
{
	return g_new0(struct umms_teletext_rows, 1);
}

void
umms_teletext_rows_destroy(struct umms_teletext_rows *rows)
{
	g_free(rows);
}

void
umms_teletext_rows_reset(struct umms_teletext_rows *rows)
{
	memset(rows, 0, sizeof(*rows));
}

/* The page assembled is complete: kept for umms_teletext_rows_take. */
static void
complete(struct umms_teletext_rows *rows)
{
	if (rows->n_complete == COMPLETE_MAX) {
		memmove(rows->complete, rows->complete + 1,
			sizeof(rows->complete[0]) * (COMPLETE_MAX - 1));
		rows->n_complete--;
	}
	rows->complete[rows->n_complete++] = rows->page;
	rows->assembling = false;
}

/* Row @number's 40 bytes (odd parity): kept when it has boxed text. */
static void
text_row(struct umms_teletext_rows *rows, unsigned number, const uint8_t *bytes)
{
	unsigned colour = WHITE;
	bool boxed = false, found = false;
	for (int i = 0; i < 40 && !found; i++) {
		if (!__builtin_parity(bytes[i]))
			continue;
		uint8_t c = bytes[i] & 0x7f;
		if (c < 0x08)
			colour = c;
		else if (c == ATTR_START_BOX)
			boxed = true;
		else if (c == ATTR_END_BOX)
			boxed = false;
		else if (c > 0x20 && boxed)
			found = true;
	}
	struct umms_teletext_layout *page = &rows->page;
	/* Sent again: its place kept, its colour the last sent. */
	unsigned at = 0;
	while (at < page->n && page->row[at] < number)
		at++;
	bool again = at < page->n && page->row[at] == number;
	if (!found) {
		if (again) {
			memmove(page->row + at, page->row + at + 1, page->n - at - 1);
			memmove(page->colour + at, page->colour + at + 1, page->n - at - 1);
			page->n--;
		}
		return;
	}
	if (!again) {
		memmove(page->row + at + 1, page->row + at, page->n - at);
		memmove(page->colour + at + 1, page->colour + at, page->n - at);
		page->n++;
	}
	page->row[at] = (uint8_t)number;
	page->colour[at] = (uint8_t)colour;
}

struct feed {
	struct umms_teletext_rows *rows;
	int page;
};

static bool
feed_packet(const uint8_t *packet, void *user)
{
	struct feed *feed = user;
	struct umms_teletext_rows *rows = feed->rows;
	unsigned magazine, number;
	if (!address(packet, &magazine, &number))
		return true;
	if (number == 0) {
		/* Any header of its magazine ends the page assembled. */
		if (rows->assembling && magazine == rows->magazine)
			complete(rows);
		bool subtitle = false;
		if (header_page(packet, magazine, &subtitle) == feed->page) {
			rows->assembling = true;
			rows->magazine = magazine;
			memset(&rows->page, 0, sizeof(rows->page));
		}
	} else if (number <= UMMS_TELETEXT_TEXT_ROWS && rows->assembling &&
			magazine == rows->magazine) {
		text_row(rows, number, packet + 2);
	}
	return true;
}

void
umms_teletext_rows_feed(struct umms_teletext_rows *rows, int page, const uint8_t *data,
	size_t size)
{
	struct feed feed = { rows, page };
	if (page >= 100 && page <= 899)
		each_packet(data, size, feed_packet, &feed);
}

bool
umms_teletext_rows_take(struct umms_teletext_rows *rows, unsigned n,
	struct umms_teletext_layout *layout)
{
	while (rows->n_complete > 0) {
		struct umms_teletext_layout first = rows->complete[0];
		memmove(rows->complete, rows->complete + 1,
			sizeof(rows->complete[0]) * (COMPLETE_MAX - 1));
		rows->n_complete--;
		if (first.n == n) {
			*layout = first;
			return true;
		}
	}
	return false;
}

const char *
umms_teletext_colour(unsigned colour)
{
	static const char *const colours[8] = {
		"#000000", "#FF0000", "#00FF00", "#FFFF00",
		"#0000FF", "#FF00FF", "#00FFFF", "#FFFFFF",
	};
	return colours[colour & 7];
}
