/*
 * EIT sections decoded (EN 300 468: 5.2.4 the section, 6.2.37 short event,
 * 6.2.15 extended event, 6.2.9 content, 6.2.28 parental rating, TS 102
 * 323 12.1 content identifier; Annex A the text). eit-reader.c finds the
 * sections in the transport stream.
 */
#include <string.h>

#include "eit.h"
#include "error.h"

uint32_t
umms_eit_crc32(const uint8_t *data, size_t size)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < size; i++) {
		crc ^= (uint32_t)data[i] << 24;
		for (int bit = 0; bit < 8; bit++)
			crc = crc & 0x80000000u ? crc << 1 ^ 0x04c11db7u : crc << 1;
	}
	return crc;
}

/* Drops control characters (DVB's emphasis codes, C0/C1), 0x8A → newline; cuts at @max. */
static char *
tidy_utf8(const char *text, size_t max)
{
	GString *out = g_string_new(NULL);
	for (const char *p = text; *p; p = g_utf8_next_char(p)) {
		gunichar c = g_utf8_get_char(p);
		if (c == 0xe08a || c == 0x8a || c == '\n')
			c = '\n';
		else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xe080 && c <= 0xe09f))
			continue;
		char bytes[6];
		int n = g_unichar_to_utf8(c, bytes);
		if (out->len + (size_t)n > max)
			break;
		g_string_append_len(out, bytes, n);
	}
	/* No newline at either end. */
	while (out->len && out->str[out->len - 1] == '\n')
		g_string_truncate(out, out->len - 1);
	size_t lead = strspn(out->str, "\n");
	g_string_erase(out, 0, (gssize)lead);
	if (out->len == 0) {
		g_string_free(out, TRUE);
		return NULL;
	}
	return g_string_free(out, FALSE);
}

char *
umms_eit_text(const uint8_t *data, size_t size, size_t max)
{
	if (size == 0)
		return NULL;
	const char *charset = "ISO_6937";
	size_t skip = 0;
	bool single_byte = true;
	char name[16];
	uint8_t first = data[0];
	if (first >= 0x20) {
		/* Table 00: ISO/IEC 6937 (figure A.1). */
	} else if (first >= 0x01 && first <= 0x0b) {
		static const int parts[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
		if (first == 0x08)
			return NULL; /* reserved (ISO/IEC 8859-12 does not exist) */
		g_snprintf(name, sizeof(name), "ISO-8859-%d", parts[first - 1]);
		charset = name;
		skip = 1;
	} else if (first == 0x10) {
		if (size < 3 || data[1] != 0x00 || data[2] < 1 || data[2] > 15 || data[2] == 12)
			return NULL;
		g_snprintf(name, sizeof(name), "ISO-8859-%d", data[2]);
		charset = name;
		skip = 3;
	} else if (first == 0x11) {
		charset = "UCS-2BE";
		skip = 1;
		single_byte = false;
	} else if (first == 0x12 || first == 0x13 || first == 0x14) {
		charset = first == 0x12 ? "EUC-KR" : first == 0x13 ? "GB2312" : "UCS-2BE";
		skip = 1;
		single_byte = false;
	} else if (first == 0x15) {
		charset = "UTF-8";
		skip = 1;
		single_byte = false;
	} else {
		return NULL; /* 0x1F (encoding_type_id) and the reserved values */
	}
	data += skip;
	size -= skip;
	if (size == 0)
		return NULL;
	g_autofree char *bytes = g_malloc(size);
	size_t n = 0;
	for (size_t i = 0; i < size; i++) {
		uint8_t c = data[i];
		/* Single-byte tables: 0x80–0x9F are DVB's control codes, not characters. */
		if (single_byte && c >= 0x80 && c <= 0x9f) {
			if (c == 0x8a)
				bytes[n++] = '\n';
			continue;
		}
		bytes[n++] = (char)c;
	}
	if (!single_byte && strcmp(charset, "UCS-2BE") == 0)
		n &= ~(size_t)1;
	g_autofree char *utf8 = NULL;
	if (strcmp(charset, "UTF-8") == 0)
		utf8 = g_utf8_make_valid(bytes, (gssize)n);
	else
		utf8 = g_convert_with_fallback(bytes, (gssize)n, "UTF-8", charset, "?", NULL,
			NULL, NULL);
	if (!utf8)
		return NULL;
	return tidy_utf8(utf8, max);
}

/* EN 300 468 table 28, content_nibble_level_1. */
static const char *const genres[16] = {
	[0x1] = "Movie/Drama",
	[0x2] = "News/Current affairs",
	[0x3] = "Show/Game show",
	[0x4] = "Sports",
	[0x5] = "Children's/Youth programmes",
	[0x6] = "Music/Ballet/Dance",
	[0x7] = "Arts/Culture",
	[0x8] = "Social/Political issues/Economics",
	[0x9] = "Education/Science/Factual topics",
	[0xa] = "Leisure hobbies",
	[0xb] = "Special characteristics",
};

static void
read_content(struct umms_eit_event *event, const uint8_t *d, size_t size)
{
	GString *names = NULL;
	unsigned seen = 0;
	for (size_t at = 0; at + 2 <= size; at += 2) {
		unsigned level1 = d[at] >> 4;
		if (!genres[level1] || (seen & 1u << level1))
			continue;
		seen |= 1u << level1;
		if (!names)
			names = g_string_new(NULL);
		else
			g_string_append_c(names, ';');
		g_string_append(names, genres[level1]);
	}
	if (names && !event->categories)
		event->categories = g_string_free(names, FALSE);
	else if (names)
		g_string_free(names, TRUE);
}

static void
read_parental_rating(struct umms_eit_event *event, const uint8_t *d, size_t size)
{
	/* The first country's entry: 3 letters, then the rating byte. */
	if (size < 4 || event->rating_raw >= 0)
		return;
	event->rating_raw = d[3];
	event->min_age = d[3] >= 0x01 && d[3] <= 0x0f ? d[3] + 3 : -1;
	if (g_ascii_isalpha(d[0]) && g_ascii_isalpha(d[1]) && g_ascii_isalpha(d[2]))
		event->rating_country = g_ascii_strdown((const char *)d, 3);
}

static void
read_content_identifier(struct umms_eit_event *event, const uint8_t *d, size_t size)
{
	size_t at = 0;
	while (at < size) {
		unsigned type = d[at] >> 2, location = d[at] & 3;
		at++;
		if (location == 1) {
			at += 2; /* a reference into a CIT: not followed */
			continue;
		}
		if (location != 0 || at >= size || at + 1 + d[at] > size)
			return;
		size_t length = d[at];
		/* 0x02 (TS 102 323) and 0x32 (the D-Book's): a series. */
		if ((type == 0x02 || type == 0x32) && !event->series_id && length > 0 &&
				length <= UMMS_EIT_MAX_SHORT)
			event->series_id = g_utf8_make_valid((const char *)d + at + 1,
				(gssize)length);
		at += 1 + length;
	}
}

static void
read_short_event(struct umms_eit_event *event, const uint8_t *d, size_t size)
{
	/* The first one only (one per language). */
	if (event->title || size < 5)
		return;
	size_t name = d[3];
	if (4 + name + 1 > size)
		return;
	size_t text = d[4 + name];
	if (5 + name + text > size)
		return;
	event->title = umms_eit_text(d + 4, name, UMMS_EIT_MAX_TITLE);
	if (!event->title)
		event->title = g_strdup("");
	event->sub_title = umms_eit_text(d + 5 + name, text, UMMS_EIT_MAX_TITLE);
}

/* Extended event descriptors' text, of the first language met, in order. */
static void
read_extended_event(GString *text, char language[4], const uint8_t *d, size_t size)
{
	if (size < 5)
		return;
	if (!language[0])
		memcpy(language, d + 1, 3);
	else if (memcmp(language, d + 1, 3) != 0)
		return;
	size_t items = d[4];
	if (5 + items + 1 > size)
		return;
	size_t length = d[5 + items];
	if (6 + items + length > size)
		return;
	/* Each descriptor's text is decoded alone: each says its table again. */
	g_autofree char *part = umms_eit_text(d + 6 + items, length, UMMS_EIT_MAX_TEXT);
	if (part && text->len + strlen(part) <= UMMS_EIT_MAX_TEXT)
		g_string_append(text, part);
}

static bool
bcd(uint8_t byte, unsigned max, unsigned *value)
{
	unsigned tens = byte >> 4, units = byte & 0x0f;
	if (tens > 9 || units > 9 || tens * 10 + units > max)
		return false;
	*value = tens * 10 + units;
	return true;
}

/* The 40-bit start time (MJD + BCD UTC) in µs; false: undefined or malformed. */
static bool
read_start(const uint8_t *d, int64_t *us)
{
	unsigned h, m, s;
	if (!bcd(d[2], 23, &h) || !bcd(d[3], 59, &m) || !bcd(d[4], 59, &s))
		return false;
	int64_t mjd = (int64_t)d[0] << 8 | d[1];
	*us = ((mjd - 40587) * 86400 + h * 3600 + m * 60 + s) * G_USEC_PER_SEC;
	return true;
}

static bool
read_duration(const uint8_t *d, int64_t *us)
{
	unsigned h, m, s;
	if (!bcd(d[0], 99, &h) || !bcd(d[1], 59, &m) || !bcd(d[2], 59, &s))
		return false;
	*us = (int64_t)(h * 3600 + m * 60 + s) * G_USEC_PER_SEC;
	return true;
}

static void
event_clear(struct umms_eit_event *event)
{
	g_free(event->title);
	g_free(event->sub_title);
	g_free(event->description);
	g_free(event->categories);
	g_free(event->series_id);
	g_free(event->rating_country);
}

void
umms_eit_clear(struct umms_eit *eit)
{
	for (size_t i = 0; i < eit->n_events; i++)
		event_clear(&eit->events[i]);
	g_free(eit->events);
	memset(eit, 0, sizeof(*eit));
}

/* The descriptors of one event. */
static void
read_descriptors(struct umms_eit_event *event, const uint8_t *d, size_t size)
{
	GString *text = g_string_new(NULL);
	char language[4] = "";
	size_t at = 0;
	while (at + 2 <= size && at + 2 + d[at + 1] <= size) {
		const uint8_t *body = d + at + 2;
		size_t length = d[at + 1];
		switch (d[at]) {
		case 0x4d: read_short_event(event, body, length); break;
		case 0x4e: read_extended_event(text, language, body, length); break;
		case 0x54: read_content(event, body, length); break;
		case 0x55: read_parental_rating(event, body, length); break;
		case 0x76: read_content_identifier(event, body, length); break;
		default: break;
		}
		at += 2 + length;
	}
	if (text->len) {
		event->description = tidy_utf8(text->str, UMMS_EIT_MAX_TEXT);
		g_string_free(text, TRUE);
	} else {
		g_string_free(text, TRUE);
	}
	if (!event->title)
		event->title = g_strdup("");
}

bool
umms_eit_parse(const uint8_t *section, size_t size, struct umms_eit *eit, GError **error)
{
	memset(eit, 0, sizeof(*eit));
	/* Header (14 bytes) and CRC (4). */
	if (size < 18 || size > UMMS_EIT_MAX_SECTION) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"an EIT section of %zu bytes", size);
		return false;
	}
	unsigned table = section[0];
	size_t length = 3 + ((size_t)(section[1] & 0x0f) << 8 | section[2]);
	if (table < 0x4e || table > 0x6f || !(section[1] & 0x80)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"table 0x%02x is not an EIT", table);
		return false;
	}
	if (length != size) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"an EIT section says %zu bytes, %zu came", length, size);
		return false;
	}
	if (umms_eit_crc32(section, size) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"an EIT section's CRC does not match");
		return false;
	}
	if (!(section[5] & 0x01)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"an EIT section not applicable yet (current_next 0)");
		return false;
	}
	eit->table_id = (int)table;
	eit->sid = section[3] << 8 | section[4];
	eit->version = (section[5] >> 1) & 0x1f;
	eit->section_number = section[6];
	eit->tsid = section[8] << 8 | section[9];
	eit->onid = section[10] << 8 | section[11];
	eit->present_following = table == 0x4e || table == 0x4f;
	size_t end = size - 4;
	GArray *events = g_array_new(FALSE, TRUE, sizeof(struct umms_eit_event));
	size_t at = 14;
	while (at + 12 <= end && events->len < UMMS_EIT_MAX_EVENTS) {
		const uint8_t *e = section + at;
		size_t loop = (size_t)(e[10] & 0x0f) << 8 | e[11];
		if (at + 12 + loop > end)
			break; /* the rest is malformed: keep what was whole */
		struct umms_eit_event event = {
			.event_id = e[0] << 8 | e[1],
			.running_status = e[10] >> 5,
			.rating_raw = -1,
			.min_age = -1,
		};
		/* An undefined time (a following event not known yet) is no event. */
		if (read_start(e + 2, &event.start_us) && read_duration(e + 7, &event.duration_us)) {
			read_descriptors(&event, e + 12, loop);
			g_array_append_val(events, event);
		}
		at += 12 + loop;
	}
	eit->n_events = events->len;
	eit->events = (struct umms_eit_event *)(void *)g_array_free(events, FALSE);
	return true;
}
