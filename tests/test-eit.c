/*
 * DVB EIT, the engine's reader (eit.h) against the tests' own writer
 * (eit-gen.h): fields, text tables, parental ratings from their byte,
 * sections across packets and feeds, the PAT it needs for a stream's own
 * now/next, versions told once, damaged sections dropped, hostile
 * streams; and the worker's message (ipc.h), whose hostile values ummsd
 * refuses. Through ummsd and Guide1: test-eit-guide.c.
 */
#include <string.h>

#include "eit.h"
#include "eit-gen.h"
#include "error.h"
#include "harness.h"
#include "ipc.h"

#define SID 1
#define TSID 0x0457
#define ONID 0x2174

/* A minute's whole seconds, so the writer's BCD carries them exactly. */
static int64_t
whole_minute(int64_t us)
{
	return us / (60 * G_USEC_PER_SEC) * 60 * G_USEC_PER_SEC;
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
	/* "*": the stream's own programme (its PAT lists it alone). */
	g_ptr_array_add(told->titles, g_strdup_printf("%d/%x/%d/%d%s:%s", eit->sid,
		(unsigned)eit->table_id, eit->section_number, eit->version,
		eit->stream_service ? "*" : "", eit->n_events ? eit->events[0].title : ""));
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
	unsigned cc = 0, pat_cc = 0;
	/* Before a PAT: the stream's own now/next waits (told at its next repetition). */
	g_autoptr(GByteArray) early = section_packets(0, "Zero", 0, &cc);
	feed(reader, early, 188);
	g_assert_cmpuint(told.titles->len, ==, 0);
	g_autoptr(GByteArray) pat = g_byte_array_new();
	const unsigned one[] = { SID }, two[] = { SID, 7 };
	eit_gen_pat(TSID, one, 1, &pat_cc, pat);
	feed(reader, pat, 188);
	/* 700 bytes of description: the section spans five packets; fed 7 bytes at a time. */
	g_autoptr(GByteArray) v0 = section_packets(0, "Zero", 700, &cc);
	g_assert_cmpuint(v0->len, ==, 5 * EIT_GEN_PACKET);
	feed(reader, v0, 7);
	g_assert_cmpuint(told.titles->len, ==, 1);
	g_assert_cmpstr(told.titles->pdata[0], ==, "1/4e/0/0*:Zero");
	/* The same version again (the carousel repeats): not told. */
	g_autoptr(GByteArray) again = section_packets(0, "Zero", 700, &cc);
	feed(reader, again, 1000);
	g_assert_cmpuint(told.titles->len, ==, 1);
	/* A new version is. */
	g_autoptr(GByteArray) v1 = section_packets(1, "One", 0, &cc);
	feed(reader, v1, 188);
	g_assert_cmpuint(told.titles->len, ==, 2);
	g_assert_cmpstr(told.titles->pdata[1], ==, "1/4e/0/1*:One");

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
	g_assert_cmpstr(told.titles->pdata[2], ==, "1/4e/0/5*:After");
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
	g_assert_cmpstr(told.titles->pdata[3], ==, "1/4e/0/6*:Six");
	/* A stream of two programmes: which one a player shows is not guessed. */
	g_byte_array_set_size(pat, 0);
	eit_gen_pat(TSID, two, 2, &pat_cc, pat);
	feed(reader, pat, 188);
	g_autoptr(GByteArray) v7 = section_packets(7, "Seven", 0, &cc);
	feed(reader, v7, 188);
	g_assert_cmpuint(told.titles->len, ==, 5);
	g_assert_cmpstr(told.titles->pdata[4], ==, "1/4e/0/7:Seven");

	umms_eit_reader_destroy(reader);
	g_ptr_array_unref(told.titles);
}

/*
 * Hostile streams: PID 0x12 and PAT packets of random bytes, valid sections
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
		packet[2] = i % 5 == 0 ? 0x00 : 0x12; /* PATs among them */
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
		.version = 3, .stream_service = true, .events = &event, .n_events = 1 };
	struct umms_eit out;
	g_assert_true(round_trip(&eit, &out));
	g_assert_cmpint(out.onid, ==, ONID);
	g_assert_true(out.present_following);
	g_assert_true(out.stream_service);
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
	eit.table_id = 0x50;
	eit.stream_service = true; /* only a stream's own now/next can say so */
	g_assert_false(round_trip(&eit, &out));
	eit.stream_service = false;
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


int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	g_test_add_func("/eit/parse", test_parse);
	g_test_add_func("/eit/text", test_text);
	g_test_add_func("/eit/reader", test_reader);
	g_test_add_func("/eit/hostile", test_hostile);
	g_test_add_func("/eit/ipc", test_ipc);
	return g_test_run();
}
