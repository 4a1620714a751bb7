/*
 * XMLTV (guide-import.h), read with libxml2's streaming xmlReader: the
 * document is never held whole, its declared encoding (ISO-8859-1…) is
 * decoded by libxml2, entities are not expanded and nothing is fetched
 * from the network.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <libxml/xmlreader.h>

#include "error.h"
#include "guide-import.h"
#include "guide-private.h"
#include "log.h"

#define MAX_PROGRAMMES 2000000
#define MAX_CHANNELS 100000
#define MAX_NAMES 16

struct source {
	int fd;
	uint64_t read, max;
	bool too_big;
	int error;
};

static int
read_cb(void *data, char *buffer, int len)
{
	struct source *src = data;
	for (;;) {
		ssize_t n = read(src->fd, buffer, (size_t)len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			src->error = errno;
			return -1;
		}
		src->read += (uint64_t)n;
		if (src->read > src->max) {
			src->too_big = true;
			return -1;
		}
		return (int)n;
	}
}

static int
close_cb(void *data)
{
	(void)data;
	return 0;
}

static int
two_digits(const char *s)
{
	return (s[0] - '0') * 10 + (s[1] - '0');
}

bool
guide_xmltv_time(const char *text, GTimeZone *zone, int64_t previous_us, int64_t *out,
	bool *warned)
{
	*warned = false;
	size_t digits = strspn(text, "0123456789");
	if (digits != 8 && digits != 10 && digits != 12 && digits != 14)
		return false;
	char d[15] = "00000000000000";
	memcpy(d, text, digits);
	int year = two_digits(d) * 100 + two_digits(d + 2);
	int month = two_digits(d + 4), day = two_digits(d + 6);
	int hour = two_digits(d + 8), minute = two_digits(d + 10), second = two_digits(d + 12);
	if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 ||
			day > g_date_get_days_in_month((GDateMonth)month, (GDateYear)year) ||
			hour > 23 || minute > 59 || second > 60)
		return false;
	const char *rest = text + digits;
	while (*rest == ' ')
		rest++;
	g_autoptr(GDateTime) utc = g_date_time_new_utc(year, month, day, hour, minute,
		second > 59 ? 59 : second);
	if (!utc)
		return false;
	int64_t as_utc = g_date_time_to_unix(utc);
	if (*rest == '+' || *rest == '-') {
		size_t n = strspn(rest + 1, "0123456789");
		int sign = *rest == '-' ? -1 : 1;
		int oh, om;
		if (n == 4) {
			oh = two_digits(rest + 1);
			om = two_digits(rest + 3);
		} else if (n == 2 && rest[3] == ':' && strspn(rest + 4, "0123456789") == 2) {
			oh = two_digits(rest + 1);
			om = two_digits(rest + 4);
		} else {
			return false;
		}
		if (oh > 14 || om > 59)
			return false;
		*out = (as_utc - sign * (oh * 3600 + om * 60)) * G_TIME_SPAN_SECOND;
		return true;
	}
	if (*rest == 'Z' || g_ascii_strncasecmp(rest, "UTC", 3) == 0 ||
			g_ascii_strncasecmp(rest, "GMT", 3) == 0) {
		*out = as_utc * G_TIME_SPAN_SECOND;
		return true;
	}
	if (*rest)
		return false;
	/*
	 * A local time in @zone. find_interval with the local time: -1 for
	 * both kinds where it does not exist; two intervals where it occurs
	 * twice (a clock going back).
	 */
	int standard = g_time_zone_find_interval(zone, G_TIME_TYPE_STANDARD, as_utc);
	int daylight = g_time_zone_find_interval(zone, G_TIME_TYPE_DAYLIGHT, as_utc);
	if (standard < 0 && daylight < 0) {
		/*
		 * In the gap: read with the offset in effect before the change
		 * (as mktime does), so 01:30 in London on 30 March is 01:30 UTC,
		 * 02:30 BST. Twelve hours earlier is before any change.
		 */
		int before = g_time_zone_find_interval(zone, G_TIME_TYPE_UNIVERSAL,
			as_utc - 12 * 3600);
		*out = (as_utc - g_time_zone_get_offset(zone, before)) * G_TIME_SPAN_SECOND;
		g_autoptr(GDateTime) read = g_date_time_new_from_unix_utc(*out / G_TIME_SPAN_SECOND);
		g_autofree char *utc_text = g_date_time_format(read, "%H:%M:%S UTC");
		umms_warn("XMLTV: %s does not exist in %s (the clock goes forward): read as %s",
			text, g_time_zone_get_identifier(zone), utc_text);
		*warned = true;
		return true;
	}
	if (standard >= 0 && daylight >= 0 && standard != daylight) {
		int64_t first = (as_utc - g_time_zone_get_offset(zone, daylight)) * G_TIME_SPAN_SECOND;
		int64_t second_us = (as_utc - g_time_zone_get_offset(zone, standard)) *
			G_TIME_SPAN_SECOND;
		if (first > second_us) {
			int64_t t = first;
			first = second_us;
			second_us = t;
		}
		/* The earlier reading, unless it would go back on this channel. */
		*out = previous_us >= first ? second_us : first;
		umms_warn("XMLTV: %s occurs twice in %s (the clock goes back): read as the %s",
			text, g_time_zone_get_identifier(zone), *out == first ? "first" : "second");
		*warned = true;
		return true;
	}
	int interval = standard >= 0 ? standard : daylight;
	*out = (as_utc - g_time_zone_get_offset(zone, interval)) * G_TIME_SPAN_SECOND;
	return true;
}

struct parser {
	xmlTextReaderPtr reader;
	char *xml_error;        /* the first error libxml2 reported */
	GTimeZone *zone;
	struct guide_parsed *out;
	GHashTable *last_start; /* channel id → int64_t *: the last start read there */
};

static char *
attribute(struct parser *p, const char *name)
{
	xmlChar *v = xmlTextReaderGetAttribute(p->reader, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = guide_clean_text((const char *)v, (size_t)-1);
	xmlFree(v);
	return s;
}

/* The text of the element the reader is on (its descendants' text joined). */
static char *
element_text(struct parser *p)
{
	xmlChar *v = xmlTextReaderReadString(p->reader);
	if (!v)
		return NULL;
	char *s = guide_clean_text((const char *)v, (size_t)-1);
	xmlFree(v);
	return s;
}

static bool
is(const xmlChar *name, const char *want)
{
	return name && strcmp((const char *)name, want) == 0;
}

/* Walks the children of the element the reader is on; @fn per child element. */
typedef void (*child_fn)(struct parser *p, const xmlChar *name, void *data);

static bool
each_child(struct parser *p, child_fn fn, void *data)
{
	if (xmlTextReaderIsEmptyElement(p->reader))
		return true;
	int depth = xmlTextReaderDepth(p->reader);
	int rc;
	while ((rc = xmlTextReaderRead(p->reader)) == 1) {
		int type = xmlTextReaderNodeType(p->reader);
		int d = xmlTextReaderDepth(p->reader);
		if (type == XML_READER_TYPE_END_ELEMENT && d == depth)
			return true;
		if (type == XML_READER_TYPE_ELEMENT && d == depth + 1)
			fn(p, xmlTextReaderConstLocalName(p->reader), data);
	}
	return rc == 0;
}

static void
channel_child(struct parser *p, const xmlChar *name, void *data)
{
	struct guide_parsed_channel *c = data;
	if (is(name, "display-name")) {
		char *text = element_text(p);
		if (!text)
			return;
		guint n = c->names ? g_strv_length(c->names) : 0;
		if (n >= MAX_NAMES) {
			g_free(text);
			return;
		}
		c->names = g_renew(char *, c->names, n + 2);
		c->names[n] = text;
		c->names[n + 1] = NULL;
		if (!c->name)
			c->name = g_strdup(text);
	} else if (is(name, "icon") && !c->logo) {
		c->logo = attribute(p, "src");
	}
}

static bool
read_channel(struct parser *p)
{
	struct guide_parsed_channel *c = g_new0(struct guide_parsed_channel, 1);
	c->key = attribute(p, "id");
	g_ptr_array_add(p->out->channels, c);
	if (!c->key)
		c->key = g_strdup("");
	return each_child(p, channel_child, c);
}

struct programme_parts {
	struct guide_parsed_programme *p;
	GString *categories;
	char *ns, *onscreen;
};

static void
rating_child(struct parser *p, const xmlChar *name, void *data)
{
	struct guide_parsed_programme *prog = data;
	if (is(name, "value") && !prog->rating)
		prog->rating = element_text(p);
}

static void
programme_child(struct parser *p, const xmlChar *name, void *data)
{
	struct programme_parts *parts = data;
	struct guide_parsed_programme *prog = parts->p;
	char **field = NULL;
	if (is(name, "title"))
		field = &prog->title;
	else if (is(name, "sub-title"))
		field = &prog->sub_title;
	else if (is(name, "desc"))
		field = &prog->description;
	if (field) {
		/* The first of each (XMLTV lists translations after it). */
		if (!*field)
			*field = element_text(p);
		return;
	}
	if (is(name, "category")) {
		g_autofree char *text = element_text(p);
		if (text && parts->categories->len < GUIDE_MAX_TEXT) {
			if (parts->categories->len)
				g_string_append_c(parts->categories, ';');
			g_string_append(parts->categories, text);
		}
	} else if (is(name, "episode-num")) {
		g_autofree char *system = attribute(p, "system");
		char *text = element_text(p);
		if (g_strcmp0(system, "xmltv_ns") == 0 && !parts->ns)
			parts->ns = text;
		else if (g_strcmp0(system, "onscreen") == 0 && !parts->onscreen)
			parts->onscreen = text;
		else if (g_strcmp0(system, "crid") == 0 && !prog->series_id)
			prog->series_id = text;
		else
			g_free(text);
	} else if (is(name, "previously-shown")) {
		prog->previously_shown = !prog->new;
	} else if (is(name, "new")) {
		prog->new = true;
		prog->previously_shown = false;
	} else if (is(name, "rating") && !prog->rating) {
		g_free(prog->rating_system);
		prog->rating_system = attribute(p, "system");
		each_child(p, rating_child, prog);
	}
}

/* The age a rating means where it says it as a number ("12", "16+", "FSK 12"); else -1. */
static int
age_of(const char *rating)
{
	if (!rating)
		return -1;
	const char *d = rating;
	while (*d && !g_ascii_isdigit(*d))
		d++;
	if (!*d || strspn(d, "0123456789") > 2)
		return -1;
	/* "PG-13" is a scheme's name for an age; "TV-14" likewise. */
	return (int)g_ascii_strtoll(d, NULL, 10);
}

static bool
read_programme(struct parser *p)
{
	g_autofree char *channel = attribute(p, "channel");
	g_autofree char *start = attribute(p, "start");
	g_autofree char *stop = attribute(p, "stop");
	struct guide_parsed_programme *prog = g_new0(struct guide_parsed_programme, 1);
	struct programme_parts parts = { .p = prog, .categories = g_string_new(NULL) };
	bool ok = each_child(p, programme_child, &parts);
	if (parts.categories->len)
		prog->categories = g_strdup(parts.categories->str);
	g_string_free(parts.categories, true);
	prog->episode = guide_episode_from_xmltv_ns(parts.ns);
	if (!prog->episode)
		prog->episode = guide_episode_from_onscreen(parts.onscreen);
	g_free(parts.ns);
	g_free(parts.onscreen);
	prog->min_age = age_of(prog->rating);
	int64_t *last = channel ? g_hash_table_lookup(p->last_start, channel) : NULL;
	bool warned_start = false, warned_stop = false;
	prog->stop_us = -1;
	if (!channel || !start || !prog->title ||
			!guide_xmltv_time(start, p->zone, last ? *last : INT64_MIN, &prog->start_us,
			&warned_start) ||
			(stop && !guide_xmltv_time(stop, p->zone, prog->start_us, &prog->stop_us,
			&warned_stop))) {
		if (ok)
			umms_debug("XMLTV: a programme on %s at %s left out: %s", channel, start,
				!prog->title ? "no title" : "bad time");
		p->out->skipped++;
		g_free(prog->title);
		prog->title = NULL;
		prog->channel = NULL;
		g_free(prog->sub_title);
		g_free(prog->description);
		g_free(prog->categories);
		g_free(prog->episode);
		g_free(prog->series_id);
		g_free(prog->rating_system);
		g_free(prog->rating);
		g_free(prog);
		return ok;
	}
	p->out->warnings += warned_start + warned_stop;
	if (!last) {
		last = g_new(int64_t, 1);
		g_hash_table_insert(p->last_start, g_strdup(channel), last);
	}
	*last = prog->start_us;
	prog->channel = g_steal_pointer(&channel);
	g_ptr_array_add(p->out->programmes, prog);
	return ok;
}

static void
keep_error(void *arg, const char *msg, xmlParserSeverities severity,
	xmlTextReaderLocatorPtr locator)
{
	struct parser *p = arg;
	if (p->xml_error || (severity != XML_PARSER_SEVERITY_ERROR &&
			severity != XML_PARSER_SEVERITY_VALIDITY_ERROR))
		return;
	g_autofree char *text = guide_clean_text(msg, 512);
	p->xml_error = g_strdup_printf("line %d: %s", xmlTextReaderLocatorLineNumber(locator),
		text ? text : "error");
}

bool
guide_xmltv_parse(int fd, uint64_t max_bytes, GTimeZone *zone, struct guide_parsed *out,
	GError **error)
{
	struct source src = { .fd = fd, .max = max_bytes };
	struct parser p = {
		.zone = zone,
		.out = out,
		.last_start = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
	};
	bool ok = false;
	bool seen_tv = false;
	p.reader = xmlReaderForIO(read_cb, close_cb, &src, NULL, NULL,
		XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_COMPACT);
	if (!p.reader) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot start an XML reader");
		goto out;
	}
	xmlTextReaderSetErrorHandler(p.reader, keep_error, &p);
	int rc;
	while ((rc = xmlTextReaderRead(p.reader)) == 1) {
		if (p.xml_error)
			break;
		if (xmlTextReaderNodeType(p.reader) != XML_READER_TYPE_ELEMENT)
			continue;
		const xmlChar *name = xmlTextReaderConstLocalName(p.reader);
		int depth = xmlTextReaderDepth(p.reader);
		if (depth == 0) {
			if (!is(name, "tv")) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"not XMLTV: the root element is <%s>, not <tv>", name);
				goto out;
			}
			seen_tv = true;
		} else if (depth == 1 && is(name, "channel")) {
			if (out->channels->len >= MAX_CHANNELS) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"more than %d channels", MAX_CHANNELS);
				goto out;
			}
			if (!read_channel(&p)) {
				rc = -1;
				break;
			}
		} else if (depth == 1 && is(name, "programme")) {
			if (out->programmes->len >= MAX_PROGRAMMES) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"more than %d programmes", MAX_PROGRAMMES);
				goto out;
			}
			if (!read_programme(&p)) {
				rc = -1;
				break;
			}
		}
	}
	if (src.too_big) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"more than guide.max-import-size (%" G_GUINT64_FORMAT " bytes)", max_bytes);
		goto out;
	}
	if (src.error) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "reading: %s",
			g_strerror(src.error));
		goto out;
	}
	if (rc != 0 || p.xml_error) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not well-formed XML: %s", p.xml_error ? p.xml_error : "cannot be read");
		goto out;
	}
	if (!seen_tv) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not XMLTV: no <tv> element");
		goto out;
	}
	ok = true;
out:
	if (p.reader)
		xmlFreeTextReader(p.reader);
	close(fd);
	g_hash_table_unref(p.last_start);
	g_free(p.xml_error);
	return ok;
}
