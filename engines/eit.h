/*
 * DVB event information (EN 300 468, 5.2.4): EIT sections read from the
 * bytes of an MPEG-TS, decoded into events for the programme guide.
 *
 * A reader is fed the transport stream as it goes into a demuxer (any
 * cut: packets may straddle feeds); it reassembles the sections of PID
 * 0x12, drops those whose CRC32 does not match, that are cut short, or
 * that are not EIT, decodes each, and calls back only for a section whose
 * (onid, tsid, service, table, section number, version) it has not told
 * yet. Every byte is hostile: sizes are checked against the section, text
 * is converted to UTF-8 (EN 300 468 Annex A, GLib's iconv) and bounded.
 *
 * The reader is not thread-safe: one thread feeds it (a streaming thread).
 *
 * GStreamer's own mpegts library (gst-plugins-bad 1.22) was not used: its
 * headers come only with libgstreamer-plugins-bad1.0-dev, which in Debian
 * 12 pulls in OpenCV and Qt (570 MB), and its parental rating parser turns
 * "undefined" 0 and the broadcaster's own 0x10–0xFF into ages.
 */
#ifndef UMMS_ENGINES_EIT_H
#define UMMS_ENGINES_EIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#define UMMS_EIT_PID 0x12
#define UMMS_EIT_MAX_SECTION 4096     /* bytes, table id to CRC (EN 300 468) */
#define UMMS_EIT_MAX_EVENTS 256       /* of one section: more cannot fit */
#define UMMS_EIT_MAX_TITLE 1024       /* bytes of UTF-8: a title or sub-title */
#define UMMS_EIT_MAX_TEXT 8192        /* bytes of UTF-8: a description */
#define UMMS_EIT_MAX_SHORT 256        /* categories, series id, country */

/* One event (the strings owned; NULL: none). */
struct umms_eit_event {
	int event_id;            /* 0–65535 */
	int64_t start_us;        /* UTC, µs since 1970 */
	int64_t duration_us;
	int running_status;      /* 0–7 as broadcast; 4: running */
	char *title;             /* short_event_descriptor's event_name; "" when none */
	char *sub_title;         /* its text */
	char *description;       /* extended_event_descriptors' text, joined */
	char *categories;        /* content_descriptor's level-1 genres, ';' between */
	char *series_id;         /* content_identifier_descriptor's series CRID */
	char *rating_country;    /* parental_rating_descriptor's first country code */
	int rating_raw;          /* its rating byte, -1: no descriptor */
	int min_age;             /* 0x01–0x0F: rating + 3; else -1 */
};

/* One EIT section, decoded. */
struct umms_eit {
	int onid, tsid, sid;     /* original_network_id, transport_stream_id, service_id */
	int table_id;            /* 0x4E–0x6F */
	int version;             /* 0–31 */
	int section_number;
	bool present_following;  /* table 0x4E or 0x4F */
	struct umms_eit_event *events;
	size_t n_events;
};

void umms_eit_clear(struct umms_eit *eit);

/*
 * Decodes one whole section (@size bytes from its table id; the CRC is
 * checked). False with @error when it is not a current EIT section or is
 * malformed; @eit is then cleared.
 */
bool umms_eit_parse(const uint8_t *section, size_t size, struct umms_eit *eit, GError **error);

/* The MPEG-2 CRC32 (polynomial 0x04C11DB7, initial 0xFFFFFFFF) of @size bytes. */
uint32_t umms_eit_crc32(const uint8_t *data, size_t size);

/*
 * EN 300 468 Annex A text (its first bytes may name the character table)
 * as UTF-8 of at most @max bytes, control codes dropped, CR/LF (0x8A) a
 * newline; NULL when empty or the table is unknown.
 */
char *umms_eit_text(const uint8_t *data, size_t size, size_t max);

/*
 * A section told. True: @eit was taken (the callee clears it) and this
 * version is not told again; false: not taken (the reader clears it), told
 * again when the broadcaster repeats it.
 */
typedef bool (*umms_eit_fn)(struct umms_eit *eit, void *data);

struct umms_eit_reader;

struct umms_eit_reader *umms_eit_reader_create(umms_eit_fn fn, void *data);
void umms_eit_reader_destroy(struct umms_eit_reader *reader);
/* Bytes of the transport stream (188-byte packets), in order. */
void umms_eit_reader_feed(struct umms_eit_reader *reader, const uint8_t *data, size_t size);
/* Sections dropped (bad CRC, cut short, malformed) so far. */
unsigned umms_eit_reader_dropped(const struct umms_eit_reader *reader);

#endif
