/*
 * The tests' EIT writer (EN 300 468 5.2.4): sections of events with short
 * and extended event, content and parental rating descriptors, their CRC32
 * computed here (not with the engine's), cut into 188-byte MPEG-TS packets
 * on PID 0x12 and spliced into a transport stream. For test-eit and
 * whoever else needs a stream with a guide in it (a DVB test).
 */
#ifndef UMMS_TESTS_EIT_GEN_H
#define UMMS_TESTS_EIT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#define EIT_GEN_PACKET 188
#define EIT_GEN_MAX_SECTION 4096

struct eit_gen_event {
	unsigned event_id;
	int64_t start_us;          /* UTC, µs since 1970 (whole seconds); -1: undefined */
	unsigned duration_s;
	unsigned running_status;   /* 4: running */
	/* Text as written, bytes (an Annex A table byte first, if any); NULL: none. */
	const char *title;
	const char *text;          /* the short event's text */
	const char *description;   /* in extended event descriptors of 200 bytes each */
	const char *language;      /* "eng" when NULL */
	int rating;                /* parental_rating_descriptor's byte, -1: none */
	const char *country;       /* its country code, "DEU" when NULL */
	int content;               /* content_descriptor's nibbles byte, -1: none */
};

struct eit_gen_section {
	unsigned table_id;         /* 0x4E: present/following of this stream */
	unsigned sid, tsid, onid;
	unsigned version, section_number, last_section_number;
	const struct eit_gen_event *events;
	size_t n_events;
};

/* MPEG-2's CRC32. */
uint32_t eit_gen_crc32(const uint8_t *data, size_t size);
/* Writes @section into @out (EIT_GEN_MAX_SECTION bytes); its size, CRC included. */
size_t eit_gen_section(const struct eit_gen_section *section, uint8_t *out);
/*
 * Cuts @size bytes of section into packets on PID 0x12 (continuity counter
 * from *@cc on), appended to @out; the number of packets.
 */
size_t eit_gen_packets(const uint8_t *section, size_t size, unsigned *cc, GByteArray *out);
/*
 * Reads the MPEG-TS at @path and writes it to @out with @packets (whole
 * 188-byte packets, @n_sets sets) spliced in: set i after i/n_sets of its
 * packets (set 0 before the first). False with @error.
 */
bool eit_gen_splice(const char *path, const char *out, GByteArray *const *packets,
	size_t n_sets, GError **error);

#endif
