/* The tests' EIT writer (eit-gen.h). */
#include <string.h>

#include "eit-gen.h"

uint32_t
eit_gen_crc32(const uint8_t *data, size_t size)
{
	/* Bit by bit, from the polynomial, as ISO/IEC 13818-1 Annex A draws it. */
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < size; i++) {
		for (int bit = 7; bit >= 0; bit--) {
			bool in = (data[i] >> bit & 1) ^ (crc >> 31);
			crc <<= 1;
			if (in)
				crc ^= 0x04c11db7u;
		}
	}
	return crc;
}

static unsigned
to_bcd(unsigned value)
{
	return (value / 10) << 4 | (value % 10);
}

/* A descriptor: tag, length, body. */
static void
put_descriptor(GByteArray *out, uint8_t tag, const uint8_t *body, size_t size)
{
	g_assert_cmpuint(size, <=, 255);
	uint8_t head[2] = { tag, (uint8_t)size };
	g_byte_array_append(out, head, 2);
	g_byte_array_append(out, body, (guint)size);
}

static void
put_event(GByteArray *out, const struct eit_gen_event *e)
{
	uint8_t head[12];
	head[0] = (uint8_t)(e->event_id >> 8);
	head[1] = (uint8_t)e->event_id;
	if (e->start_us < 0) {
		memset(head + 2, 0xff, 5);
	} else {
		int64_t s = e->start_us / G_USEC_PER_SEC;
		unsigned mjd = (unsigned)(s / 86400 + 40587), day = (unsigned)(s % 86400);
		head[2] = (uint8_t)(mjd >> 8);
		head[3] = (uint8_t)mjd;
		head[4] = (uint8_t)to_bcd(day / 3600);
		head[5] = (uint8_t)to_bcd(day / 60 % 60);
		head[6] = (uint8_t)to_bcd(day % 60);
	}
	head[7] = (uint8_t)to_bcd(e->duration_s / 3600);
	head[8] = (uint8_t)to_bcd(e->duration_s / 60 % 60);
	head[9] = (uint8_t)to_bcd(e->duration_s % 60);
	GByteArray *d = g_byte_array_new();
	const char *language = e->language ? e->language : "eng";
	if (e->title) {
		uint8_t body[255];
		size_t name = strlen(e->title), text = e->text ? strlen(e->text) : 0;
		g_assert_cmpuint(5 + name + text, <=, sizeof(body));
		memcpy(body, language, 3);
		body[3] = (uint8_t)name;
		memcpy(body + 4, e->title, name);
		body[4 + name] = (uint8_t)text;
		if (text)
			memcpy(body + 5 + name, e->text, text);
		put_descriptor(d, 0x4d, body, 5 + name + text);
	}
	if (e->description) {
		size_t total = strlen(e->description), parts = (total + 199) / 200;
		for (size_t i = 0; i < parts; i++) {
			uint8_t body[255];
			size_t n = MIN(200, total - i * 200);
			body[0] = (uint8_t)(i << 4 | (parts - 1));
			memcpy(body + 1, language, 3);
			body[4] = 0; /* no items */
			body[5] = (uint8_t)n;
			memcpy(body + 6, e->description + i * 200, n);
			put_descriptor(d, 0x4e, body, 6 + n);
		}
	}
	if (e->content >= 0) {
		uint8_t body[2] = { (uint8_t)e->content, 0 };
		put_descriptor(d, 0x54, body, 2);
	}
	if (e->rating >= 0) {
		uint8_t body[4];
		memcpy(body, e->country ? e->country : "DEU", 3);
		body[3] = (uint8_t)e->rating;
		put_descriptor(d, 0x55, body, 4);
	}
	head[10] = (uint8_t)(e->running_status << 5 | (d->len >> 8 & 0x0f));
	head[11] = (uint8_t)d->len;
	g_byte_array_append(out, head, 12);
	g_byte_array_append(out, d->data, d->len);
	g_byte_array_unref(d);
}

size_t
eit_gen_section(const struct eit_gen_section *s, uint8_t *out)
{
	GByteArray *b = g_byte_array_new();
	uint8_t head[14] = {
		(uint8_t)s->table_id, 0, 0,
		(uint8_t)(s->sid >> 8), (uint8_t)s->sid,
		(uint8_t)(0xc0 | s->version << 1 | 1),
		(uint8_t)s->section_number, (uint8_t)s->last_section_number,
		(uint8_t)(s->tsid >> 8), (uint8_t)s->tsid,
		(uint8_t)(s->onid >> 8), (uint8_t)s->onid,
		(uint8_t)s->section_number, (uint8_t)s->table_id,
	};
	g_byte_array_append(b, head, sizeof(head));
	for (size_t i = 0; i < s->n_events; i++)
		put_event(b, &s->events[i]);
	size_t length = b->len + 4 - 3;
	g_assert_cmpuint(b->len + 4, <=, EIT_GEN_MAX_SECTION);
	b->data[1] = (uint8_t)(0xf0 | length >> 8);
	b->data[2] = (uint8_t)length;
	uint32_t crc = eit_gen_crc32(b->data, b->len);
	uint8_t tail[4] = { (uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
		(uint8_t)crc };
	g_byte_array_append(b, tail, 4);
	size_t size = b->len;
	memcpy(out, b->data, size);
	g_byte_array_unref(b);
	return size;
}

size_t
eit_gen_packets(const uint8_t *section, size_t size, unsigned *cc, GByteArray *out)
{
	size_t at = 0, n = 0;
	while (at < size) {
		uint8_t packet[EIT_GEN_PACKET];
		memset(packet, 0xff, sizeof(packet));
		bool first = at == 0;
		packet[0] = 0x47;
		packet[1] = (uint8_t)((first ? 0x40 : 0) | 0x00);
		packet[2] = 0x12;
		packet[3] = (uint8_t)(0x10 | (*cc & 0x0f));
		*cc = (*cc + 1) & 0x0f;
		size_t p = 4;
		if (first)
			packet[p++] = 0; /* pointer_field */
		size_t n_bytes = MIN(size - at, EIT_GEN_PACKET - p);
		memcpy(packet + p, section + at, n_bytes);
		at += n_bytes;
		g_byte_array_append(out, packet, sizeof(packet));
		n++;
	}
	return n;
}

bool
eit_gen_splice(const char *path, const char *out, GByteArray *const *packets, size_t n_sets,
	GError **error)
{
	g_autofree char *data = NULL;
	gsize size = 0;
	if (!g_file_get_contents(path, &data, &size, error))
		return false;
	size_t total = size / EIT_GEN_PACKET;
	GByteArray *b = g_byte_array_sized_new((guint)(size + 64 * 1024));
	size_t next = 0;
	for (size_t i = 0; i <= total; i++) {
		while (next < n_sets && i >= next * total / n_sets) {
			g_byte_array_append(b, packets[next]->data, packets[next]->len);
			next++;
		}
		if (i < total)
			g_byte_array_append(b, (const uint8_t *)data + i * EIT_GEN_PACKET,
				EIT_GEN_PACKET);
	}
	bool ok = g_file_set_contents(out, (const char *)b->data, b->len, error);
	g_byte_array_unref(b);
	return ok;
}
