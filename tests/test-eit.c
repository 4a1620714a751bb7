/*
 * DVB EIT into the programme guide. First the engine's reader (eit.h)
 * against the tests' own writer (eit-gen.h): fields, text tables,
 * parental ratings from their byte, sections across packets and feeds,
 * versions told once, damaged sections dropped; and the worker's message
 * (ipc.h), whose hostile values ummsd refuses. Then through ummsd and
 * Guide1, for an IPTV channel a playlist named (its DVB ids come from its
 * stream's EIT): a file with EIT spliced in, played to its end past
 * damaged sections; a live UDP stream whose present/following changes
 * version while it plays (ProgrammeChanged each time); the same stream
 * recorded with no player.
 */
#include <string.h>

#include <gst/gst.h>

#include "eit.h"
#include "eit-gen.h"
#include "error.h"
#include "harness.h"
#include "ipc.h"

#define SID 1         /* mpegtsmux's program number */
#define TSID 0x0457
#define ONID 0x2174

/* A minute's whole seconds, so the writer's BCD carries them exactly. */
static int64_t
whole_minute(int64_t us)
{
	return us / ((int64_t)60 * G_USEC_PER_SEC) * (int64_t)60 * G_USEC_PER_SEC;
}

/* ---- decoding --------------------------------------------------------------- */

static void
test_parse(void)
{
	int64_t now = whole_minute(g_get_real_time());
	const struct eit_gen_event events[] = {
		{ .event_id = 0x1001, .start_us = now - (int64_t)600 * G_USEC_PER_SEC, .duration_s = 1800,
		  .running_status = 4, .title = "News at Nine", .text = "Headlines",
		  .description = "First part of a long text. ", .rating = 0x00, .content = 0x20 },
		{ .event_id = 0x1002, .start_us = now + (int64_t)1200 * G_USEC_PER_SEC, .duration_s = 3600,
		  .running_status = 1, .title = "Film", .rating = 0x05, .country = "GBR",
		  .content = 0x10 },
		{ .event_id = 0x1003, .start_us = now + (int64_t)4800 * G_USEC_PER_SEC, .duration_s = 90,
		  .title = "Late", .rating = 0x12, .content = -1 },
		/* Undefined start: no event. */
		{ .event_id = 0x1004, .start_us = -1, .duration_s = 60, .title = "Unknown",
		  .rating = -1, .content = -1 },
	};
	struct eit_gen_section s = { .table_id = 0x4e, .sid = SID, .tsid = TSID, .onid = ONID,
		.version = 7, .events = events, .n_events = G_N_ELEMENTS(events) };
	uint8_t section[EIT_GEN_MAX_SECTION];
	size_t size = eit_gen_section(&s, section);
	g_assert_cmpuint(umms_eit_crc32(section, size), ==, 0);

	struct umms_eit eit;
	GError *error = NULL;
	g_assert_true(umms_eit_parse(section, size, &eit, &error));
	g_assert_no_error(error);
	g_assert_cmpint(eit.onid, ==, ONID);
	g_assert_cmpint(eit.tsid, ==, TSID);
	g_assert_cmpint(eit.sid, ==, SID);
	g_assert_cmpint(eit.table_id, ==, 0x4e);
	g_assert_cmpint(eit.version, ==, 7);
	g_assert_true(eit.present_following);
	g_assert_cmpuint(eit.n_events, ==, 3);
	const struct umms_eit_event *e = eit.events;
	g_assert_cmpint(e[0].event_id, ==, 0x1001);
	g_assert_cmpint(e[0].start_us, ==, now - (int64_t)600 * G_USEC_PER_SEC);
	g_assert_cmpint(e[0].duration_us, ==, (int64_t)1800 * G_USEC_PER_SEC);
	g_assert_cmpint(e[0].running_status, ==, 4);
	g_assert_cmpstr(e[0].title, ==, "News at Nine");
	g_assert_cmpstr(e[0].sub_title, ==, "Headlines");
	g_assert_cmpstr(e[0].description, ==, "First part of a long text. ");
	g_assert_cmpstr(e[0].categories, ==, "News/Current affairs");
	/* The rating from its byte: 0 undefined, 0x05 = 8 years, 0x12 the broadcaster's. */
	g_assert_cmpint(e[0].rating_raw, ==, 0x00);
	g_assert_cmpint(e[0].min_age, ==, -1);
	g_assert_cmpstr(e[0].rating_country, ==, "deu");
	g_assert_cmpint(e[1].rating_raw, ==, 0x05);
	g_assert_cmpint(e[1].min_age, ==, 8);
	g_assert_cmpstr(e[1].rating_country, ==, "gbr");
	g_assert_cmpstr(e[1].categories, ==, "Movie/Drama");
	g_assert_null(e[1].sub_title);
	g_assert_null(e[1].description);
	g_assert_cmpint(e[2].rating_raw, ==, 0x12);
	g_assert_cmpint(e[2].min_age, ==, -1);
	g_assert_null(e[2].categories);
	umms_eit_clear(&eit);

	/* A long description over several extended event descriptors, joined. */
	GString *text = g_string_new(NULL);
	for (int i = 0; i < 40; i++)
		g_string_append_printf(text, "Sentence %02d. ", i);
	struct eit_gen_event long_event = { .event_id = 9, .start_us = now, .duration_s = 60,
		.title = "Long", .description = text->str, .rating = -1, .content = -1 };
	s.events = &long_event;
	s.n_events = 1;
	size = eit_gen_section(&s, section);
	g_assert_true(umms_eit_parse(section, size, &eit, NULL));
	g_assert_cmpstr(eit.events[0].description, ==, text->str);
	umms_eit_clear(&eit);
	g_string_free(text, TRUE);

	/* Damaged: a bit flipped (CRC), cut short, a length past its end, not an EIT. */
	section[20] ^= 0x01;
	g_assert_false(umms_eit_parse(section, size, &eit, &error));
	g_assert_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT);
	g_clear_error(&error);
	section[20] ^= 0x01;
	g_assert_false(umms_eit_parse(section, size - 10, &eit, NULL));
	g_assert_false(umms_eit_parse(section, 10, &eit, NULL));
	section[0] = 0x42;
	g_assert_false(umms_eit_parse(section, size, &eit, NULL));
	g_assert_cmpuint(eit.n_events, ==, 0);
}

static void
check_text(const char *bytes, size_t size, const char *expected)
{
	g_autofree char *text = umms_eit_text((const uint8_t *)bytes, size, 1024);
	g_assert_cmpstr(text, ==, expected);
}

#define TEXT(literal, expected) check_text(literal, sizeof(literal) - 1, expected)

static void
test_text(void)
{
	/* Table 00, ISO/IEC 6937: a non-spacing acute (0xC2) before its letter. */
	TEXT("Caf\xc2" "e", "Café");
	/* 0x05: ISO/IEC 8859-9 (Turkish ğ is 0xF0). */
	TEXT("\x05" "Da\xf0", "Dağ");
	/* 0x10 0x00 0x02: ISO/IEC 8859-2 (ł is 0xB3). */
	TEXT("\x10\x00\x02" "\xb3" "ad", "ład");
	/* 0x11: UCS-2, big-endian; DVB's CR/LF control U+E08A a newline. */
	TEXT("\x11\x00" "A" "\xe0\x8a" "\x00" "B", "A\nB");
	/* 0x15: UTF-8. */
	TEXT("\x15" "Gr\xc3\xbc\xc3\x9f" "e", "Grüße");
	/* Emphasis on and off (0x86, 0x87) dropped, 0x8A a newline. */
	TEXT("\x86" "Bold" "\x87" "\x8a" "next", "Bold\nnext");
	/* Tables it cannot read, and nothing at all. */
	TEXT("\x1f\x01" "x", NULL);
	TEXT("\x08" "x", NULL);
	TEXT("\x15", NULL);
	check_text("", 0, NULL);
	/* Bounded, at a character's edge. */
	g_autofree char *cut = umms_eit_text((const uint8_t *)"\x15\xc3\xa9\xc3\xa9", 5, 3);
	g_assert_cmpstr(cut, ==, "é");
}

/* ---- the reader --------------------------------------------------------------- */

struct told {
	GPtrArray *titles;   /* "sid/table/section/version:title", one per section told */
};

static bool
told_cb(struct umms_eit *eit, void *data)
{
	struct told *told = data;
	g_ptr_array_add(told->titles, g_strdup_printf("%d/%x/%d/%d:%s", eit->sid,
		(unsigned)eit->table_id, eit->section_number, eit->version,
		eit->n_events ? eit->events[0].title : ""));
	umms_eit_clear(eit);
	return true;
}

static GByteArray *
section_packets(unsigned version, const char *title, size_t description, unsigned *cc)
{
	int64_t now = whole_minute(g_get_real_time());
	g_autofree char *text = description ? g_strnfill(description, 'x') : NULL;
	struct eit_gen_event e = { .event_id = 1, .start_us = now, .duration_s = 60,
		.running_status = 4, .title = title, .description = text, .rating = -1,
		.content = -1 };
	struct eit_gen_section s = { .table_id = 0x4e, .sid = SID, .tsid = TSID, .onid = ONID,
		.version = version, .events = &e, .n_events = 1 };
	uint8_t section[EIT_GEN_MAX_SECTION];
	size_t size = eit_gen_section(&s, section);
	GByteArray *packets = g_byte_array_new();
	eit_gen_packets(section, size, cc, packets);
	return packets;
}

/* Feeds @packets in pieces of @step bytes. */
static void
feed(struct umms_eit_reader *reader, const GByteArray *packets, size_t step)
{
	for (size_t at = 0; at < packets->len; at += step)
		umms_eit_reader_feed(reader, packets->data + at, MIN(step, packets->len - at));
}

static void
test_reader(void)
{
	struct told told = { g_ptr_array_new_with_free_func(g_free) };
	struct umms_eit_reader *reader = umms_eit_reader_create(told_cb, &told);
	unsigned cc = 0;
	/* 700 bytes of description: the section spans five packets; fed 7 bytes at a time. */
	g_autoptr(GByteArray) v0 = section_packets(0, "Zero", 700, &cc);
	g_assert_cmpuint(v0->len, ==, 5 * EIT_GEN_PACKET);
	feed(reader, v0, 7);
	g_assert_cmpuint(told.titles->len, ==, 1);
	g_assert_cmpstr(told.titles->pdata[0], ==, "1/4e/0/0:Zero");
	/* The same version again (the carousel repeats): not told. */
	g_autoptr(GByteArray) again = section_packets(0, "Zero", 700, &cc);
	feed(reader, again, 1000);
	g_assert_cmpuint(told.titles->len, ==, 1);
	/* A new version is. */
	g_autoptr(GByteArray) v1 = section_packets(1, "One", 0, &cc);
	feed(reader, v1, 188);
	g_assert_cmpuint(told.titles->len, ==, 2);
	g_assert_cmpstr(told.titles->pdata[1], ==, "1/4e/0/1:One");

	/* A bit flipped inside: the CRC drops it. */
	g_autoptr(GByteArray) bad = section_packets(2, "Bad CRC", 0, &cc);
	bad->data[4 + 1 + 30] ^= 0x10;
	feed(reader, bad, 188);
	g_assert_cmpuint(told.titles->len, ==, 2);
	g_assert_cmpuint(umms_eit_reader_dropped(reader), ==, 1);
	/* A packet of a long section lost (its counter jumps): dropped. */
	g_autoptr(GByteArray) lost = section_packets(3, "Lost", 700, &cc);
	g_byte_array_remove_range(lost, 2 * EIT_GEN_PACKET, EIT_GEN_PACKET);
	feed(reader, lost, 188);
	g_assert_cmpuint(told.titles->len, ==, 2);
	g_assert_cmpuint(umms_eit_reader_dropped(reader), ==, 2);
	/* Cut short: its length says more than came before the next section. */
	g_autoptr(GByteArray) cut = section_packets(4, "Cut", 700, &cc);
	g_byte_array_set_size(cut, 2 * EIT_GEN_PACKET);
	cc = (cc - 3) & 0x0f; /* the three packets left out were never sent */
	feed(reader, cut, 188);
	g_autoptr(GByteArray) after = section_packets(5, "After", 0, &cc);
	feed(reader, after, 188);
	g_assert_cmpuint(umms_eit_reader_dropped(reader), ==, 3);
	g_assert_cmpuint(told.titles->len, ==, 3);
	g_assert_cmpstr(told.titles->pdata[2], ==, "1/4e/0/5:After");
	/* Garbage before it, and other PIDs between: found again. */
	g_autoptr(GByteArray) mixed = g_byte_array_new();
	uint8_t junk[100];
	memset(junk, 0x47, sizeof(junk));
	g_byte_array_append(mixed, junk, sizeof(junk));
	uint8_t other[EIT_GEN_PACKET] = { 0x47, 0x40, 0x11, 0x10, 0x00, 0x42 };
	memset(other + 6, 0xff, sizeof(other) - 6);
	g_byte_array_append(mixed, other, sizeof(other));
	g_autoptr(GByteArray) v6 = section_packets(6, "Six", 0, &cc);
	g_byte_array_append(mixed, v6->data, v6->len);
	g_byte_array_append(mixed, other, sizeof(other));
	feed(reader, mixed, 50);
	g_assert_cmpuint(told.titles->len, ==, 4);
	g_assert_cmpstr(told.titles->pdata[3], ==, "1/4e/0/6:Six");

	umms_eit_reader_destroy(reader);
	g_ptr_array_unref(told.titles);
}

/*
 * Hostile streams: PID 0x12 packets of random bytes, and valid sections
 * with random bytes changed, fed in random cuts. Nothing is read out of
 * bounds (AddressSanitizer), and whatever is told is a decoded section
 * within the bounds of eit.h.
 */
static bool
check_cb(struct umms_eit *eit, void *data)
{
	unsigned *n = data;
	g_assert_cmpint(eit->table_id, >=, 0x4e);
	g_assert_cmpint(eit->table_id, <=, 0x6f);
	g_assert_cmpuint(eit->n_events, <=, UMMS_EIT_MAX_EVENTS);
	for (size_t i = 0; i < eit->n_events; i++) {
		const struct umms_eit_event *e = &eit->events[i];
		g_assert_true(g_utf8_validate(e->title, -1, NULL));
		g_assert_cmpuint(strlen(e->title), <=, UMMS_EIT_MAX_TITLE);
		g_assert_true(!e->description || strlen(e->description) <= UMMS_EIT_MAX_TEXT);
		g_assert_true(e->min_age == -1 || (e->min_age >= 4 && e->min_age <= 18));
	}
	(*n)++;
	umms_eit_clear(eit);
	return true;
}

static void
test_hostile(void)
{
	GRand *rand = g_rand_new_with_seed(umms_test_seed());
	unsigned told = 0;
	struct umms_eit_reader *reader = umms_eit_reader_create(check_cb, &told);
	GByteArray *stream = g_byte_array_new();
	for (int i = 0; i < 3000; i++) {
		uint8_t packet[EIT_GEN_PACKET];
		for (size_t b = 0; b < sizeof(packet); b++)
			packet[b] = (uint8_t)g_rand_int(rand);
		packet[0] = 0x47;
		packet[1] = (uint8_t)((packet[1] & 0x40) | 0x00);
		packet[2] = 0x12;
		packet[3] = (uint8_t)(0x10 | (packet[3] & 0x2f));
		if (i % 7 == 0)
			packet[5] = (uint8_t)(0x4e + g_rand_int_range(rand, 0, 0x22));
		g_byte_array_append(stream, packet, sizeof(packet));
	}
	for (size_t at = 0; at < stream->len;) {
		size_t n = (size_t)g_rand_int_range(rand, 1, 1000);
		umms_eit_reader_feed(reader, stream->data + at, MIN(n, stream->len - at));
		at += n;
	}
	/* Valid sections, long ones across packets, with a few bytes changed. */
	unsigned cc = 0;
	for (int i = 0; i < 400; i++) {
		g_autoptr(GByteArray) packets = section_packets((unsigned)i % 32, "Mutant",
			(size_t)g_rand_int_range(rand, 0, 1500), &cc);
		for (int k = g_rand_int_range(rand, 1, 4); k > 0; k--)
			packets->data[g_rand_int_range(rand, 4, (gint32)packets->len)] =
				(uint8_t)g_rand_int(rand);
		feed(reader, packets, (size_t)g_rand_int_range(rand, 1, 400));
	}
	g_assert_cmpuint(told + umms_eit_reader_dropped(reader), >, 0);
	umms_eit_reader_destroy(reader);
	g_byte_array_unref(stream);
	g_rand_free(rand);
	/* The text decoder alone, on random bytes of every table. */
	GRand *rand2 = g_rand_new_with_seed(umms_test_seed() + 1);
	for (int i = 0; i < 2000; i++) {
		uint8_t bytes[64];
		size_t n = (size_t)g_rand_int_range(rand2, 0, sizeof(bytes));
		for (size_t b = 0; b < n; b++)
			bytes[b] = (uint8_t)g_rand_int(rand2);
		g_autofree char *text = umms_eit_text(bytes, n, 100);
		g_assert_true(!text || (g_utf8_validate(text, -1, NULL) && strlen(text) <= 100));
	}
	g_rand_free(rand2);
}

/* ---- the worker's message ------------------------------------------------------ */

/* @eit through a writer and a reader: whether ummsd takes it. */
static bool
round_trip(const struct umms_eit *eit, struct umms_eit *out)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_eit(&w, eit);
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	bool ok = umms_ipc_get_eit(&r, out) && umms_ipc_reader_done(&r);
	umms_ipc_writer_finish(&w);
	if (!ok)
		umms_eit_clear(out);
	return ok;
}

static void
test_ipc(void)
{
	struct umms_eit_event event = { .event_id = 5, .start_us = US(1.7e9), .duration_us = US(60),
		.running_status = 4, .title = "T", .sub_title = "S", .rating_country = "deu",
		.rating_raw = 0x05, .min_age = 8 };
	struct umms_eit eit = { .onid = ONID, .tsid = TSID, .sid = SID, .table_id = 0x4e,
		.version = 3, .events = &event, .n_events = 1 };
	struct umms_eit out;
	g_assert_true(round_trip(&eit, &out));
	g_assert_cmpint(out.onid, ==, ONID);
	g_assert_true(out.present_following);
	g_assert_cmpstr(out.events[0].title, ==, "T");
	g_assert_cmpstr(out.events[0].sub_title, ==, "S");
	g_assert_null(out.events[0].description);
	g_assert_cmpint(out.events[0].min_age, ==, 8);
	umms_eit_clear(&out);

	/* A worker's word is not taken for the age: it is worked out from the byte. */
	event.rating_raw = 0x12;
	event.min_age = 21;
	g_assert_true(round_trip(&eit, &out));
	g_assert_cmpint(out.events[0].min_age, ==, -1);
	umms_eit_clear(&out);
	event.rating_raw = 0x05;

	/* Values out of range: malformed (the worker is killed). */
	eit.table_id = 0x42;
	g_assert_false(round_trip(&eit, &out));
	eit.table_id = 0x4e;
	eit.version = 32;
	g_assert_false(round_trip(&eit, &out));
	eit.version = 3;
	event.rating_raw = 256;
	g_assert_false(round_trip(&eit, &out));
	event.rating_raw = 5;
	event.rating_country = "DE1";
	g_assert_false(round_trip(&eit, &out));
	event.rating_country = NULL;
	event.duration_us = -1;
	g_assert_false(round_trip(&eit, &out));
	event.duration_us = US(60);
	g_autofree char *huge = g_strnfill(UMMS_EIT_MAX_TITLE + 1, 'a');
	event.title = huge;
	g_assert_false(round_trip(&eit, &out));
	event.title = "T";
	g_assert_true(round_trip(&eit, &out));
	umms_eit_clear(&out);
}


/* ---- through ummsd ------------------------------------------------------------- */

#define GUIDE "org.umms.Guide1"

/* What the stream's guide says, version 0 and then 1 of its present/following. */
struct stream_guide {
	int64_t now;
	struct eit_gen_event pf0[2], pf1[2], late;
};

static void
stream_guide_init(struct stream_guide *g)
{
	g->now = whole_minute(g_get_real_time());
	int64_t m = 60 * G_USEC_PER_SEC;
	g->pf0[0] = (struct eit_gen_event){ .event_id = 0x1001, .start_us = g->now - 10 * m,
		.duration_s = 1800, .running_status = 4, .title = "Morning News",
		.rating = 0x00, .content = 0x20 };
	g->pf0[1] = (struct eit_gen_event){ .event_id = 0x1002, .start_us = g->now + 20 * m,
		.duration_s = 5400, .running_status = 1, .title = "Film at Noon",
		.text = "A drama", .rating = 0x05, .country = "GBR", .content = 0x10 };
	/* Version 1: the news replaced, the film moved five minutes later. */
	g->pf1[0] = (struct eit_gen_event){ .event_id = 0x2001, .start_us = g->now - 5 * m,
		.duration_s = 1800, .running_status = 4, .title = "Breaking News",
		.rating = -1, .content = 0x20 };
	g->pf1[1] = g->pf0[1];
	g->pf1[1].start_us += 5 * m;
	g->late = (struct eit_gen_event){ .event_id = 0x1003, .start_us = g->now + 180 * m,
		.duration_s = 3600, .title = "Late Show", .rating = 0x12, .content = -1 };
}

/* One section's packets appended to @out. */
static void
put_section(GByteArray *out, unsigned table, unsigned version, const struct eit_gen_event *events,
	size_t n, unsigned *cc)
{
	struct eit_gen_section s = { .table_id = table, .sid = SID, .tsid = TSID, .onid = ONID,
		.version = version, .events = events, .n_events = n };
	uint8_t section[EIT_GEN_MAX_SECTION];
	size_t size = eit_gen_section(&s, section);
	eit_gen_packets(section, size, cc, out);
}

/* A service with a database of this test's own (the guide keeps what it saw). */
static void
fresh(struct umms_test *t, const char *name)
{
	g_autofree char *db = g_strdup_printf("recording.database=%s/%s.db", umms_test_tmpdir(),
		name);
	const char *const overrides[] = { db, NULL };
	umms_test_restart(t, overrides);
}

/*
 * An IPTV channel for @uri, as a playlist gives it (Guide1.ImportM3U): no
 * DVB ids until the stream's EIT names its service. Its id.
 */
static int64_t
put_channel(struct umms_test *t, const char *uri)
{
	static unsigned n;
	g_autofree char *name = g_strdup_printf("eit-%u.m3u", ++n);
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	g_autofree char *m3u = g_strdup_printf("#EXTM3U\n"
		"#EXTINF:-1 tvg-id=\"eit.one\" group-title=\"Tests\",EIT One\n%s\n", uri);
	GError *error = NULL;
	g_assert_true(g_file_set_contents(path, m3u, -1, &error));
	g_assert_no_error(error);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ImportM3U",
		g_variant_new("(s)", path)));
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "ListChannels",
		NULL);
	g_autoptr(GVariant) channels = g_variant_get_child_value(reply, 0);
	int64_t id = 0;
	for (gsize i = 0; i < g_variant_n_children(channels); i++) {
		g_autoptr(GVariant) channel = g_variant_get_child_value(channels, i);
		g_autofree char *channel_uri = NULL;
		if (g_variant_lookup(channel, "uri", "s", &channel_uri) &&
				strcmp(channel_uri, uri) == 0)
			g_assert_true(g_variant_lookup(channel, "id", "x", &id));
	}
	g_assert_cmpint(id, >, 0);
	return id;
}

/* The channel has the stream's DVB ids now (its EIT linked it). */
static void
assert_linked(struct umms_test *t, int64_t id)
{
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetChannel",
		g_variant_new("(x)", id));
	g_autoptr(GVariant) channel = g_variant_get_child_value(reply, 0);
	gint32 onid = -1, tsid = -1, sid = -1;
	g_assert_true(g_variant_lookup(channel, "dvb-ids", "(iii)", &onid, &tsid, &sid));
	g_assert_cmpint(onid, ==, ONID);
	g_assert_cmpint(tsid, ==, TSID);
	g_assert_cmpint(sid, ==, SID);
}

static GVariant *
get_programme(struct umms_test *t, int64_t id)
{
	GVariant *reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetProgramme",
		g_variant_new("(x)", id));
	GVariant *programme = g_variant_get_child_value(reply, 0);
	g_variant_unref(reply);
	return programme;
}

static char *
programme_string(GVariant *programme, const char *key)
{
	char *value = NULL;
	if (!g_variant_lookup(programme, key, "s", &value))
		return NULL;
	return value;
}

static int
min_age_of(GVariant *programme)
{
	int age = -1;
	if (!g_variant_lookup(programme, "min-age", "i", &age))
		return -1;
	return age;
}

/* GetNowNext(@channel): the titles of now and next ("" for none). */
static void
now_next(struct umms_test *t, int64_t channel, char **now, char **next, int64_t *next_id)
{
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "GetNowNext",
		g_variant_new("(xx)", channel, (gint64)0));
	g_autoptr(GVariant) a = g_variant_get_child_value(reply, 0);
	g_autoptr(GVariant) b = g_variant_get_child_value(reply, 1);
	*now = programme_string(a, "title");
	*next = programme_string(b, "title");
	if (next_id && !g_variant_lookup(b, "id", "x", next_id))
		*next_id = 0;
}

/*
 * Waits for ProgrammeChanged on @channel whose now is titled @title; the
 * next programme's id.
 */
static int64_t
wait_programme(struct umms_test *t, struct umms_test_signals *signals, int64_t channel,
	const char *title)
{
	gint64 end = g_get_monotonic_time() + 30 * G_USEC_PER_SEC;
	while (g_get_monotonic_time() < end) {
		g_autoptr(GVariant) params = umms_test_signals_wait(signals, "ProgrammeChanged",
			30000);
		gint64 ch, now, next;
		g_variant_get(params, "(xxx)", &ch, &now, &next);
		if (ch != channel || now == 0)
			continue;
		/* An older signal's programme may be gone already (replaced). */
		g_autoptr(GVariant) reply = g_dbus_connection_call_sync(t->bus, UMMS_NAME,
			UMMS_ROOT, GUIDE, "GetProgramme", g_variant_new("(x)", now), NULL,
			G_DBUS_CALL_FLAGS_NONE, UMMS_TEST_TIMEOUT_MS, NULL, NULL);
		if (!reply)
			continue;
		g_autoptr(GVariant) programme = g_variant_get_child_value(reply, 0);
		g_autofree char *now_title = programme_string(programme, "title");
		if (g_strcmp0(now_title, title) == 0)
			return next;
	}
	g_error("no ProgrammeChanged to \"%s\"", title);
	return 0;
}

/*
 * A file (av.ts) with the EIT spliced in: present/following version 0 and
 * a schedule section at the start, then a section with a bad CRC and one
 * cut short; version 1 half-way. The player plays it to the end; the
 * guide ends with version 1's now and next, the ratings as broadcast.
 */
static void
test_file(struct umms_test *t, gconstpointer data)
{
	fresh(t, "eit-file");
	struct stream_guide g;
	stream_guide_init(&g);
	unsigned cc = 0;
	g_autoptr(GByteArray) first = g_byte_array_new();
	put_section(first, 0x4e, 0, g.pf0, 2, &cc);
	put_section(first, 0x50, 0, &g.late, 1, &cc);
	/* A bit flipped: the CRC drops it. */
	struct eit_gen_event corrupt = g.pf0[0];
	corrupt.title = "Corrupt CRC";
	size_t at = first->len;
	put_section(first, 0x4e, 9, &corrupt, 1, &cc);
	first->data[at + 5 + 20] ^= 0x04;
	/* Cut short: its first packet only, the next section starts instead. */
	g_autofree char *long_text = g_strnfill(600, 'y');
	struct eit_gen_event cut = g.pf0[0];
	cut.title = "Cut Short";
	cut.description = long_text;
	g_autoptr(GByteArray) cut_packets = g_byte_array_new();
	size_t n_cut = 0;
	{
		unsigned cut_cc = cc;
		put_section(cut_packets, 0x4e, 10, &cut, 1, &cut_cc);
		n_cut = cut_packets->len / EIT_GEN_PACKET;
	}
	g_assert_cmpuint(n_cut, >, 1);
	g_byte_array_append(first, cut_packets->data, EIT_GEN_PACKET);
	cc = (cc + 1) & 0x0f;
	g_autoptr(GByteArray) second = g_byte_array_new();
	put_section(second, 0x4e, 1, g.pf1, 2, &cc);

	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "eit.ts", NULL);
	GByteArray *sets[] = { first, second };
	GError *error = NULL;
	g_assert_true(eit_gen_splice(umms_test_clip("av.ts"), path, sets, 2, &error));
	g_assert_no_error(error);
	g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
	int64_t channel = put_channel(t, uri);

	struct umms_test_signals *guide_signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	struct umms_test_signals *player_signals = umms_test_signals_watch(t->bus, player);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, player, "Play", NULL);
	/* It plays to its end: nothing of the EIT, good or bad, stops it. */
	g_variant_unref(umms_test_signals_wait(player_signals, "Eos", UMMS_TEST_TIMEOUT_MS));

	int64_t next_id = wait_programme(t, guide_signals, channel, "Breaking News");
	assert_linked(t, channel);
	g_autofree char *now = NULL, *next = NULL;
	int64_t next_again = 0;
	now_next(t, channel, &now, &next, &next_again);
	g_assert_cmpstr(now, ==, "Breaking News");
	g_assert_cmpstr(next, ==, "Film at Noon");
	g_assert_cmpint(next_again, ==, next_id);

	/* The film as broadcast: moved (version 1's time), 0x05 → 8 years, the byte kept. */
	g_autoptr(GVariant) film = get_programme(t, next_id);
	int64_t start = 0;
	g_assert_true(g_variant_lookup(film, "start", "x", &start));
	g_assert_cmpint(start, ==, g.pf1[1].start_us);
	g_assert_cmpint(min_age_of(film), ==, 8);
	g_autofree char *rating = programme_string(film, "rating");
	g_assert_cmpstr(rating, ==, "5");
	g_autofree char *sub_title = programme_string(film, "sub-title");
	g_assert_cmpstr(sub_title, ==, "A drama");
	int event_id = -1;
	g_assert_true(g_variant_lookup(film, "event-id", "i", &event_id));
	g_assert_cmpint(event_id, ==, 0x1002);

	/* The schedule's late show: 0x12 is the broadcaster's own, no age; byte kept. */
	g_autoptr(GVariant) found = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "Search",
		g_variant_new("(s)", "late show"));
	g_autoptr(GVariant) list = g_variant_get_child_value(found, 0);
	g_assert_cmpuint(g_variant_n_children(list), ==, 1);
	g_autoptr(GVariant) late = g_variant_get_child_value(list, 0);
	g_assert_cmpint(min_age_of(late), ==, -1);
	g_autofree char *late_rating = programme_string(late, "rating");
	g_assert_cmpstr(late_rating, ==, "18");

	/* The damaged sections never reached the guide. */
	static const char *const dropped[] = { "corrupt", "cut short" };
	for (size_t i = 0; i < G_N_ELEMENTS(dropped); i++) {
		g_autoptr(GVariant) none = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE, "Search",
			g_variant_new("(s)", dropped[i]));
		g_autoptr(GVariant) empty = g_variant_get_child_value(none, 0);
		g_assert_cmpuint(g_variant_n_children(empty), ==, 0);
	}
	umms_test_signals_free(player_signals);
	umms_test_signals_free(guide_signals);
}

/* ---- a live stream over UDP, its EIT changing while it plays ------------------ */

struct injector {
	GMutex lock;
	GByteArray *packets;          /* the sections sent over and over (lock) */
	size_t next;                  /* the next packet's index (lock) */
	unsigned cc;                  /* PID 0x12's counter (lock) */
	unsigned buffers;
};

/*
 * The muxer's output (buffer lists, 1.22's mpegtsmux): one EIT packet
 * added to every third, as a carousel, in a datagram of its own.
 */
static GstPadProbeReturn
inject_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	struct injector *inj = data;
	if (inj->buffers++ % 3 != 0)
		return GST_PAD_PROBE_OK;
	uint8_t *packet = g_malloc(EIT_GEN_PACKET);
	g_mutex_lock(&inj->lock);
	size_t n = inj->packets->len / EIT_GEN_PACKET;
	memcpy(packet, inj->packets->data + (inj->next % n) * EIT_GEN_PACKET, EIT_GEN_PACKET);
	inj->next = (inj->next + 1) % n;
	packet[3] = (uint8_t)((packet[3] & 0xf0) | inj->cc);
	inj->cc = (inj->cc + 1) & 0x0f;
	g_mutex_unlock(&inj->lock);
	GstBuffer *eit = gst_buffer_new_wrapped(packet, EIT_GEN_PACKET);
	if (info->type & GST_PAD_PROBE_TYPE_BUFFER_LIST) {
		GstBufferList *list = gst_buffer_list_make_writable(
			GST_PAD_PROBE_INFO_BUFFER_LIST(info));
		gst_buffer_list_add(list, eit);
		GST_PAD_PROBE_INFO_DATA(info) = list;
	} else {
		GstBuffer *buffer = gst_buffer_make_writable(GST_PAD_PROBE_INFO_BUFFER(info));
		gst_buffer_append(buffer, eit);
		GST_PAD_PROBE_INFO_DATA(info) = buffer;
	}
	return GST_PAD_PROBE_OK;
}

static void
injector_set(struct injector *inj, GByteArray *packets)
{
	g_mutex_lock(&inj->lock);
	g_byte_array_set_size(inj->packets, 0);
	g_byte_array_append(inj->packets, packets->data, packets->len);
	inj->next = 0;
	g_mutex_unlock(&inj->lock);
}

/* A live stream to udp://127.0.0.1:PORT with the injector's EIT in it. */
struct live {
	struct injector inj;
	GstElement *pipeline;
	char *uri;
	GByteArray *v0, *v1, *v2; /* present/following, versions 0, 1 and 2 */
};

static void
live_start(struct live *live)
{
	struct stream_guide g;
	stream_guide_init(&g);
	unsigned cc = 0;
	live->v0 = g_byte_array_new();
	put_section(live->v0, 0x4e, 0, g.pf0, 2, &cc);
	live->v1 = g_byte_array_new();
	put_section(live->v1, 0x4e, 1, g.pf1, 2, &cc);
	struct eit_gen_event pf2[2] = { g.pf1[0], g.pf1[1] };
	pf2[0].event_id = 0x3001;
	pf2[0].title = "Weather";
	live->v2 = g_byte_array_new();
	put_section(live->v2, 0x4e, 2, pf2, 2, &cc);
	live->inj = (struct injector){ .packets = g_byte_array_new() };
	g_mutex_init(&live->inj.lock);
	injector_set(&live->inj, live->v0);
	int port = umms_test_free_udp_port();
	/* Six packets a datagram (1128 bytes), the EIT's in datagrams of their own. */
	g_autofree char *description = g_strdup_printf(
		"videotestsrc is-live=true ! "
		"video/x-raw,format=I420,width=160,height=120,framerate=25/1 ! "
		"x264enc tune=zerolatency key-int-max=5 speed-preset=ultrafast ! h264parse ! "
		"mpegtsmux name=mux alignment=6 ! udpsink host=127.0.0.1 port=%d", port);
	GError *error = NULL;
	live->pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	GstElement *mux = gst_bin_get_by_name(GST_BIN(live->pipeline), "mux");
	GstPad *src = gst_element_get_static_pad(mux, "src");
	gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST,
		inject_probe, &live->inj, NULL);
	gst_object_unref(src);
	gst_object_unref(mux);
	g_assert_cmpint(gst_element_set_state(live->pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	live->uri = g_strdup_printf("udp://127.0.0.1:%d", port);
}

static void
live_stop(struct live *live)
{
	gst_element_set_state(live->pipeline, GST_STATE_NULL);
	gst_object_unref(live->pipeline);
	g_byte_array_unref(live->inj.packets);
	g_mutex_clear(&live->inj.lock);
	g_byte_array_unref(live->v0);
	g_byte_array_unref(live->v1);
	g_byte_array_unref(live->v2);
	g_free(live->uri);
}

/*
 * IPTV: live H.264 in MPEG-TS over UDP with the EIT carousel in it. Its
 * present/following goes from version 0 to 1 while the player plays:
 * ProgrammeChanged follows, each time with the stream's own titles; and to
 * 2 while it plays from its time-shift ring.
 */
static void
test_live(struct umms_test *t, gconstpointer data)
{
	fresh(t, "eit-live");
	struct live live;
	live_start(&live);
	int64_t channel = put_channel(t, live.uri);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	g_autofree char *player = umms_test_create_player(t->bus, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", live.uri));
	umms_test_player_do(t->bus, player, "Play", NULL);

	wait_programme(t, signals, channel, "Morning News");
	assert_linked(t, channel);
	g_autofree char *now = NULL, *next = NULL;
	now_next(t, channel, &now, &next, NULL);
	g_assert_cmpstr(now, ==, "Morning News");
	g_assert_cmpstr(next, ==, "Film at Noon");

	/* The broadcaster changes its mind mid-stream. */
	injector_set(&live.inj, live.v1);
	wait_programme(t, signals, channel, "Breaking News");
	g_autofree char *now1 = NULL, *next1 = NULL;
	now_next(t, channel, &now1, &next1, NULL);
	g_assert_cmpstr(now1, ==, "Breaking News");
	g_assert_cmpstr(next1, ==, "Film at Noon");
	/* Still playing. */
	g_autofree char *state = umms_test_get_string(t->bus, player, "State");
	g_assert_cmpstr(state, ==, "playing");

	/*
	 * Time-shift on: the engine plays the ring, which mpegtsmux wrote
	 * without EIT; the ring's recording reads the source, so a new
	 * version still reaches the guide.
	 */
	GError *error = NULL;
	g_assert_true(umms_test_set(t->bus, player, "TimeshiftEnabled",
		g_variant_new_boolean(TRUE), &error));
	g_assert_no_error(error);
	for (gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;;) {
		g_autoptr(GVariant) window = umms_test_get(t->bus, player, UMMS_PLAYER,
			"TimeshiftWindow");
		gint64 start = -1, stop = -1;
		g_variant_get(window, "(xx)", &start, &stop);
		if (start >= 0)
			break;
		if (g_get_monotonic_time() > end)
			g_error("time-shift gave no window in 60 s");
		umms_test_sleep(100);
	}
	injector_set(&live.inj, live.v2);
	wait_programme(t, signals, channel, "Weather");

	umms_test_signals_free(signals);
	live_stop(&live);
}

/* A recording of that stream, with no player: its EIT fills the guide too. */
static void
test_recording(struct umms_test *t, gconstpointer data)
{
	fresh(t, "eit-recording");
	struct live live;
	live_start(&live);
	int64_t channel = put_channel(t, live.uri);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, UMMS_ROOT);
	GVariantDict options;
	g_variant_dict_init(&options, NULL);
	g_variant_dict_insert(&options, "duration", "x", US(60));
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, "org.umms.Recorder1",
		"Record", g_variant_new("(ss@a{sv})", live.uri, "eit-live.ts",
			g_variant_dict_end(&options)));
	g_autofree char *recording = NULL;
	g_variant_get(r, "(o)", &recording);
	wait_programme(t, signals, channel, "Morning News");
	injector_set(&live.inj, live.v1);
	wait_programme(t, signals, channel, "Breaking News");
	g_variant_unref(umms_test_call_ok(t->bus, recording, "org.umms.Recording1", "Cancel",
		NULL));
	umms_test_signals_free(signals);
	live_stop(&live);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	g_test_add_func("/eit/parse", test_parse);
	g_test_add_func("/eit/text", test_text);
	g_test_add_func("/eit/reader", test_reader);
	g_test_add_func("/eit/hostile", test_hostile);
	g_test_add_func("/eit/ipc", test_ipc);
	UMMS_TEST_ADD("/eit/file", test_file);
	UMMS_TEST_ADD("/eit/live", test_live);
	UMMS_TEST_ADD("/eit/recording", test_recording);
	return g_test_run();
}
