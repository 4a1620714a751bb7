/*
 * M3U playlists (guide-import.h): "#EXTM3U", then for each channel
 * "#EXTINF:-1 tvg-id="…" group-title="A;B",Name" and its URI on the next
 * line that is not a directive.
 *
 * The attributes are read one by one, quotes respected, so a comma inside
 * a quoted value (tvg-name="News, Weather") does not end them: the name is
 * everything after the first comma outside an attribute, commas included.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "guide-import.h"
#include "guide-private.h"

/* Entries beyond this are an error (a playlist of a million channels is an attack). */
#define MAX_CHANNELS 100000
#define MAX_LINE 65536

struct extinf {
	char *name;
	char *tvg_id, *tvg_name, *chno, *logo, *groups, *shift;
	GString *extra_groups; /* #EXTGRP */
};

static void
extinf_clear(struct extinf *e)
{
	g_free(e->name);
	g_free(e->tvg_id);
	g_free(e->tvg_name);
	g_free(e->chno);
	g_free(e->logo);
	g_free(e->groups);
	g_free(e->shift);
	if (e->extra_groups)
		g_string_free(e->extra_groups, true);
	*e = (struct extinf){ 0 };
}

static void
set_attribute(struct extinf *e, const char *key, size_t key_len, const char *value,
	size_t value_len)
{
	static const struct {
		const char *name;
		size_t offset;
	} known[] = {
		{ "tvg-id", offsetof(struct extinf, tvg_id) },
		{ "tvg-name", offsetof(struct extinf, tvg_name) },
		{ "tvg-chno", offsetof(struct extinf, chno) },
		{ "channel-number", offsetof(struct extinf, chno) },
		{ "tvg-logo", offsetof(struct extinf, logo) },
		{ "group-title", offsetof(struct extinf, groups) },
		{ "tvg-shift", offsetof(struct extinf, shift) },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(known); i++) {
		if (strlen(known[i].name) == key_len &&
				g_ascii_strncasecmp(known[i].name, key, key_len) == 0) {
			char **field = (char **)((char *)e + known[i].offset);
			g_free(*field);
			*field = guide_clean_text(value, value_len);
			return;
		}
	}
}

/* "#EXTINF:" has been read; @p is what follows. */
static void
parse_extinf(const char *p, struct extinf *e)
{
	/* The duration: up to a space or the comma. */
	while (*p && *p != ' ' && *p != '\t' && *p != ',')
		p++;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ',' || !*p)
			break;
		const char *key = p;
		while (*p && *p != '=' && *p != ' ' && *p != '\t' && *p != ',')
			p++;
		size_t key_len = (size_t)(p - key);
		if (*p != '=')
			continue; /* a bare word: ignored */
		p++;
		const char *value;
		size_t value_len;
		if (*p == '"' || *p == '\'') {
			char quote = *p++;
			value = p;
			const char *close = strchr(p, quote);
			if (!close) {
				/* Unterminated: the value runs to the end; no name. */
				value_len = strlen(p);
				p += value_len;
			} else {
				value_len = (size_t)(close - p);
				p = close + 1;
			}
		} else {
			value = p;
			while (*p && *p != ' ' && *p != '\t' && *p != ',')
				p++;
			value_len = (size_t)(p - value);
		}
		set_attribute(e, key, key_len, value, value_len);
	}
	if (*p == ',')
		e->name = guide_clean_text(p + 1, (size_t)-1);
}

/* Groups "A;B" (also "A|B") into the ';'-separated list, without empties or repeats. */
static char *
groups_of(const struct extinf *e)
{
	GString *out = g_string_new(NULL);
	const char *sources[2] = { e->groups, e->extra_groups ? e->extra_groups->str : NULL };
	for (int i = 0; i < 2; i++) {
		if (!sources[i])
			continue;
		g_auto(GStrv) parts = g_strsplit_set(sources[i], ";|", -1);
		for (char **part = parts; *part; part++) {
			char *g = g_strstrip(*part);
			if (!*g)
				continue;
			g_autofree char *bounded = g_strdup_printf(";%s;", g);
			g_autofree char *have = g_strdup_printf(";%s;", out->str);
			if (strstr(have, bounded))
				continue;
			if (out->len)
				g_string_append_c(out, ';');
			g_string_append(out, g);
		}
	}
	if (!out->len) {
		g_string_free(out, true);
		return NULL;
	}
	return g_string_free(out, false);
}

static void
add_channel(struct guide_parsed *out, struct extinf *e, const char *uri)
{
	struct guide_parsed_channel *c = g_new0(struct guide_parsed_channel, 1);
	c->uri = guide_clean_text(uri, (size_t)-1);
	c->name = g_strdup(e->name ? e->name : e->tvg_name ? e->tvg_name : c->uri);
	c->number = g_strdup(e->chno);
	c->logo = g_strdup(e->logo);
	c->groups = groups_of(e);
	c->xmltv_id = g_strdup(e->tvg_id);
	c->epg_name = g_strdup(e->tvg_name);
	if (e->shift) {
		/* Hours, maybe with a fraction: "-1", "+2", "0.5". */
		char *end;
		double hours = g_ascii_strtod(e->shift, &end);
		if (end != e->shift && hours >= -24.0 && hours <= 24.0)
			c->shift_minutes = (int)(hours * 60.0 + (hours < 0 ? -0.5 : 0.5));
	}
	g_ptr_array_add(out->channels, c);
}

bool
guide_m3u_parse(const char *data, size_t length, struct guide_parsed *out, GError **error)
{
	if (length >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		data += 3;
		length -= 3;
	}
	if (memchr(data, '\0', length)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not an M3U playlist: binary data");
		return false;
	}
	if (strncmp(data, "#EXTM3U", 7) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not an M3U playlist: it does not begin with #EXTM3U");
		return false;
	}
	struct extinf entry = { 0 };
	bool in_entry = false;
	const char *p = data;
	while (*p) {
		const char *eol = strpbrk(p, "\r\n");
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (len > MAX_LINE) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"M3U line longer than %d bytes", MAX_LINE);
			extinf_clear(&entry);
			return false;
		}
		g_autofree char *line = g_strndup(p, len);
		p += len;
		while (*p == '\r' || *p == '\n')
			p++;
		g_strstrip(line);
		if (!*line)
			continue;
		if (g_str_has_prefix(line, "#EXTINF:")) {
			extinf_clear(&entry);
			parse_extinf(line + 8, &entry);
			in_entry = true;
		} else if (g_str_has_prefix(line, "#EXTGRP:") && in_entry) {
			if (!entry.extra_groups)
				entry.extra_groups = g_string_new(NULL);
			g_autofree char *g = guide_clean_text(line + 8, (size_t)-1);
			if (g)
				g_string_append_printf(entry.extra_groups, ";%s", g);
		} else if (line[0] == '#') {
			continue; /* #EXTVLCOPT, comments */
		} else if (in_entry) {
			if (out->channels->len >= MAX_CHANNELS) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"more than %d channels in one playlist", MAX_CHANNELS);
				extinf_clear(&entry);
				return false;
			}
			add_channel(out, &entry, line);
			extinf_clear(&entry);
			in_entry = false;
		}
		/* A URI without #EXTINF: no name to give it; left out. */
	}
	extinf_clear(&entry);
	return true;
}
