/*
 * EIT sections out of an MPEG-TS (ISO/IEC 13818-1 2.4.3 packets, 2.4.4
 * sections): PID 0x12's packets reassembled into sections, each decoded by
 * eit.c and told once per version.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "eit.h"
#include "log.h"

#define TS_PACKET 188
#define TS_SYNC 0x47
/* Versions remembered; past this many sections the memory starts again. */
#define MAX_SEEN 8192

struct umms_eit_reader {
	umms_eit_fn fn;
	void *data;
	uint8_t carry[TS_PACKET];     /* a packet cut by the end of a feed */
	size_t n_carry;
	uint8_t section[UMMS_EIT_MAX_SECTION];
	size_t have;                  /* bytes of the section being assembled, 0: none */
	int continuity;               /* the last packet's counter, -1: none */
	GHashTable *seen;             /* (onid, tsid, sid, table, section) → version + 1 */
	bool pat_seen;
	int pat_program;              /* the PAT's only programme; -1: several or none */
	unsigned dropped;
	bool logged_drop;
};

struct umms_eit_reader *
umms_eit_reader_create(umms_eit_fn fn, void *data)
{
	struct umms_eit_reader *reader = g_new0(struct umms_eit_reader, 1);
	reader->fn = fn;
	reader->data = data;
	reader->continuity = -1;
	reader->pat_program = -1;
	reader->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	return reader;
}

void
umms_eit_reader_destroy(struct umms_eit_reader *reader)
{
	if (!reader)
		return;
	g_hash_table_unref(reader->seen);
	g_free(reader);
}

unsigned
umms_eit_reader_dropped(const struct umms_eit_reader *reader)
{
	return reader->dropped;
}

static void
drop(struct umms_eit_reader *reader, const char *why)
{
	reader->dropped++;
	if (!reader->logged_drop) {
		umms_info("EIT: a section dropped: %s (further drops counted, not logged)", why);
		reader->logged_drop = true;
	}
}

/* A whole section: decoded, told if its version is new. */
static void
section_done(struct umms_eit_reader *reader, const uint8_t *section, size_t size)
{
	/* Other tables on PID 0x12 (ST 0x72, TS 102 323's CIT 0x77) are not ours. */
	if (section[0] < 0x4e || section[0] > 0x6f)
		return;
	struct umms_eit eit;
	g_autoptr(GError) error = NULL;
	if (!umms_eit_parse(section, size, &eit, &error)) {
		drop(reader, error->message);
		return;
	}
	/* Unsigned: an onid of 0x8000 or more (vidtv's 0xff44) shifted into the sign is UB. */
	gint64 key = (gint64)((guint64)eit.onid << 48 | (guint64)eit.tsid << 32 |
		(guint64)eit.sid << 16 | (guint64)eit.table_id << 8 | (guint64)eit.section_number);
	gpointer seen = g_hash_table_lookup(reader->seen, &key);
	if (seen && GPOINTER_TO_INT(seen) == eit.version + 1) {
		umms_eit_clear(&eit);
		return;
	}
	if (eit.table_id == 0x4e) {
		/* Its own now/next: whether it is the stream's programme needs the PAT. */
		if (!reader->pat_seen) {
			umms_eit_clear(&eit);
			return;
		}
		eit.stream_service = eit.sid == reader->pat_program;
	}
	int version = eit.version;
	if (!reader->fn(&eit, reader->data)) {
		umms_eit_clear(&eit);
		return;
	}
	if (g_hash_table_size(reader->seen) >= MAX_SEEN)
		g_hash_table_remove_all(reader->seen);
	g_hash_table_insert(reader->seen, g_memdup2(&key, sizeof(key)),
		GINT_TO_POINTER(version + 1));
}

/* The bytes the section being assembled has in all (3 until its header is here). */
static size_t
section_size(const struct umms_eit_reader *reader)
{
	if (reader->have < 3)
		return 3;
	return 3 + ((size_t)(reader->section[1] & 0x0f) << 8 | reader->section[2]);
}

/*
 * Up to @size more bytes of the section being assembled (or of a new one
 * when none is); returns how many it took. A whole section is told and
 * the reader is then between sections.
 */
static size_t
append(struct umms_eit_reader *reader, const uint8_t *data, size_t size)
{
	size_t used = 0;
	while (used < size) {
		size_t want = section_size(reader);
		size_t take = MIN(want - reader->have, size - used);
		memcpy(reader->section + reader->have, data + used, take);
		reader->have += take;
		used += take;
		if (reader->have < want)
			break;
		if (want == 3 && section_size(reader) > 3) {
			if (section_size(reader) > UMMS_EIT_MAX_SECTION) {
				drop(reader, "a section longer than 4096 bytes");
				reader->have = 0;
				return size;
			}
			continue; /* the header: now the rest */
		}
		section_done(reader, reader->section, reader->have);
		reader->have = 0;
		break;
	}
	return used;
}

/* New sections from @data on, until stuffing (0xFF) or the packet's end. */
static void
start_sections(struct umms_eit_reader *reader, const uint8_t *data, size_t size)
{
	size_t at = 0;
	while (at < size && data[at] != 0xff) {
		reader->have = 0;
		at += append(reader, data + at, size - at);
	}
}

/*
 * A PAT (PID 0) that fits its packet, as they do (a programme is 4 bytes):
 * its programmes, network PID 0 aside.
 */
static void
read_pat(struct umms_eit_reader *reader, const uint8_t *packet)
{
	if (!(packet[1] & 0x40) || !(packet[3] & 0x10) || (packet[1] & 0x80) || (packet[3] >> 6))
		return;
	size_t at = 4;
	if (packet[3] & 0x20)
		at += 1 + packet[4];
	if (at >= TS_PACKET || at + 1 + packet[at] >= TS_PACKET)
		return;
	at += 1 + packet[at];
	const uint8_t *s = packet + at;
	size_t room = TS_PACKET - at;
	if (room < 12 || s[0] != 0x00 || !(s[1] & 0x80) || !(s[5] & 0x01))
		return;
	size_t size = 3 + ((size_t)(s[1] & 0x0f) << 8 | s[2]);
	if (size < 12 || size > room || umms_eit_crc32(s, size) != 0)
		return;
	int program = -1;
	unsigned n = 0;
	for (size_t p = 8; p + 4 <= size - 4; p += 4) {
		int number = s[p] << 8 | s[p + 1];
		if (number == 0)
			continue;
		program = number;
		n++;
	}
	reader->pat_seen = true;
	reader->pat_program = n == 1 ? program : -1;
}

static void
read_packet(struct umms_eit_reader *reader, const uint8_t *packet)
{
	unsigned pid = (unsigned)(packet[1] & 0x1f) << 8 | packet[2];
	if (pid == 0) {
		read_pat(reader, packet);
		return;
	}
	if (pid != UMMS_EIT_PID)
		return;
	bool error = packet[1] & 0x80, start = packet[1] & 0x40;
	unsigned scrambled = packet[3] >> 6, control = (packet[3] >> 4) & 3;
	int continuity = packet[3] & 0x0f;
	if (error || scrambled) {
		if (reader->have)
			drop(reader, "a packet of it was damaged");
		reader->have = 0;
		return;
	}
	if (!(control & 1))
		return; /* no payload (the counter does not move) */
	if (reader->continuity >= 0 && continuity == reader->continuity)
		return; /* a duplicate packet */
	bool lost = reader->continuity >= 0 && continuity != ((reader->continuity + 1) & 0x0f);
	reader->continuity = continuity;
	if (lost && reader->have) {
		drop(reader, "a packet of it was lost");
		reader->have = 0;
	}
	size_t at = 4;
	if (control & 2)
		at += 1 + packet[4];
	if (at >= TS_PACKET)
		return;
	const uint8_t *payload = packet + at;
	size_t size = TS_PACKET - at;
	if (!start) {
		if (reader->have)
			append(reader, payload, size);
		return;
	}
	size_t pointer = payload[0];
	if (1 + pointer > size) {
		if (reader->have)
			drop(reader, "a pointer past its packet");
		reader->have = 0;
		return;
	}
	if (reader->have) {
		append(reader, payload + 1, pointer);
		if (reader->have) {
			drop(reader, "cut short by the next section");
			reader->have = 0;
		}
	}
	start_sections(reader, payload + 1 + pointer, size - 1 - pointer);
}

void
umms_eit_reader_feed(struct umms_eit_reader *reader, const uint8_t *data, size_t size)
{
	size_t at = 0;
	if (reader->n_carry) {
		size_t take = MIN(TS_PACKET - reader->n_carry, size);
		memcpy(reader->carry + reader->n_carry, data, take);
		reader->n_carry += take;
		at = take;
		if (reader->n_carry < TS_PACKET)
			return;
		/* In step where the next packet starts where this one ends. */
		if (at >= size || data[at] == TS_SYNC)
			read_packet(reader, reader->carry);
		else
			at = 0; /* out of step: look for the sync byte from the feed's start */
		reader->n_carry = 0;
	}
	while (at < size) {
		if (data[at] != TS_SYNC || (at + TS_PACKET < size && data[at + TS_PACKET] != TS_SYNC)) {
			at++;
			continue;
		}
		if (at + TS_PACKET > size) {
			reader->n_carry = size - at;
			memcpy(reader->carry, data + at, reader->n_carry);
			return;
		}
		read_packet(reader, data + at);
		at += TS_PACKET;
	}
}
