/* Text the guide keeps: bounded, valid UTF-8, episode numbers normalised (guide-private.h). */
#include <stdlib.h>
#include <string.h>

#include "guide-private.h"

char *
guide_clean_text(const char *s, size_t length)
{
	if (!s)
		return NULL;
	if (length == (size_t)-1)
		length = strnlen(s, GUIDE_MAX_TEXT * 4);
	g_autofree char *valid = g_utf8_make_valid(s, (gssize)MIN(length, GUIDE_MAX_TEXT * 4));
	/* Control characters (but line breaks) become spaces. */
	for (char *p = valid; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\n')
			*p = ' ';
	}
	char *text = g_strstrip(valid);
	size_t n = strlen(text);
	if (n > GUIDE_MAX_TEXT) {
		const char *end = text + GUIDE_MAX_TEXT;
		/* Back to a character boundary. */
		while (end > text && ((unsigned char)*end & 0xc0) == 0x80)
			end--;
		n = (size_t)(end - text);
	}
	if (n == 0)
		return NULL;
	return g_strndup(text, n);
}

static char *
format_episode(long season, long episode)
{
	if (season >= 0 && episode >= 0)
		return g_strdup_printf("S%ldE%ld", season, episode);
	if (episode >= 0)
		return g_strdup_printf("E%ld", episode);
	if (season >= 0)
		return g_strdup_printf("S%ld", season);
	return NULL;
}

/* A whole number at @s (after spaces), < 100000; -1 if none. */
static long
number_at(const char *s, const char **end)
{
	while (*s == ' ')
		s++;
	if (!g_ascii_isdigit(*s)) {
		if (end)
			*end = s;
		return -1;
	}
	char *e;
	long v = strtol(s, &e, 10);
	if (end)
		*end = e;
	return v >= 0 && v < 100000 ? v : -1;
}

char *
guide_episode_from_xmltv_ns(const char *ns)
{
	/* "season/total . episode/total . part/total", zero-based, parts optional. */
	if (!ns)
		return NULL;
	const char *dot = strchr(ns, '.');
	if (!dot)
		return NULL;
	long season = number_at(ns, NULL);
	long episode = number_at(dot + 1, NULL);
	return format_episode(season >= 0 ? season + 1 : -1, episode >= 0 ? episode + 1 : -1);
}

char *
guide_episode_from_onscreen(const char *text)
{
	if (!text)
		return NULL;
	long season = -1, episode = -1;
	for (const char *p = text; *p; p++) {
		const char *end;
		if (g_ascii_strncasecmp(p, "season", 6) == 0 && season < 0) {
			season = number_at(p + 6, &end);
		} else if (g_ascii_strncasecmp(p, "episode", 7) == 0 && episode < 0) {
			episode = number_at(p + 7, &end);
		} else if ((*p == 'S' || *p == 's') && season < 0 && g_ascii_isdigit(p[1]) &&
				(p == text || !g_ascii_isalpha(p[-1]))) {
			season = number_at(p + 1, &end);
			p = end - 1;
		} else if ((*p == 'E' || *p == 'e') && episode < 0 && g_ascii_isdigit(p[1]) &&
				(p == text || !g_ascii_isalpha(p[-1]) || season >= 0)) {
			episode = number_at(p + 1, &end);
			p = end - 1;
		} else if (g_ascii_isdigit(*p) && season < 0 && episode < 0 &&
				(p == text || !g_ascii_isalnum(p[-1]))) {
			/* "2x05" */
			long s = number_at(p, &end);
			if ((*end == 'x' || *end == 'X') && g_ascii_isdigit(end[1])) {
				season = s;
				episode = number_at(end + 1, &end);
				p = end - 1;
			}
		}
		if (!*p)
			break;
	}
	return format_episode(season, episode);
}
