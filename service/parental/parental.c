/*
 * Parental control's policy (parental.h): the settings in memory, the
 * rating table, the verdict on what a player shows and its unlock grants.
 * The tables are parental-db.c's, the PIN parental-pin.c's, the D-Bus
 * interface parental-dbus.c's.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "parental-private.h"

/* The built-in table (parental.h); DVB ages are read from the rating itself. */
static const struct {
	const char *system, *rating;
	int age;
} builtin_ratings[] = {
	{ "MPAA", "G", 0 }, { "MPAA", "PG", 8 }, { "MPAA", "PG-13", 13 },
	{ "MPAA", "R", 17 }, { "MPAA", "NC-17", 18 },
	{ "BBFC", "U", 0 }, { "BBFC", "PG", 8 }, { "BBFC", "12", 12 }, { "BBFC", "12A", 12 },
	{ "BBFC", "15", 15 }, { "BBFC", "18", 18 }, { "BBFC", "R18", 18 },
	{ "FSK", "0", 0 }, { "FSK", "6", 6 }, { "FSK", "12", 12 }, { "FSK", "16", 16 },
	{ "FSK", "18", 18 },
	{ "US_TV", "TV-Y", 0 }, { "US_TV", "TV-Y7", 7 }, { "US_TV", "TV-G", 0 },
	{ "US_TV", "TV-PG", 10 }, { "US_TV", "TV-14", 14 }, { "US_TV", "TV-MA", 17 },
};

static char *
rating_key(const char *system, size_t system_len, const char *rating)
{
	g_autofree char *key = g_strdup_printf("%.*s:%s", (int)system_len, system, rating);
	return g_ascii_strup(key, -1);
}

static bool
parse_age(const char *text, int *age)
{
	char *end = NULL;
	if (!g_ascii_isdigit(text[0]))
		return false;
	long v = strtol(text, &end, 10);
	if (*end || v < 0 || v > PARENTAL_MAX_AGE)
		return false;
	*age = (int)v;
	return true;
}

/*
 * [parental] ratings: "SYSTEM:RATING=AGE,…" over the built-in table. The
 * rating is what follows the first ':' up to the last '=' (so "DVB:GBR"
 * cannot be a system here: "MPAA:PG-13=13", "Local:X=18").
 */
static bool
load_ratings(struct umms_parental *parental, GError **error)
{
	parental->ratings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(builtin_ratings); i++)
		g_hash_table_replace(parental->ratings, rating_key(builtin_ratings[i].system,
			strlen(builtin_ratings[i].system), builtin_ratings[i].rating),
			GINT_TO_POINTER(builtin_ratings[i].age + 1));
	const char *text = parental->config->parental.ratings;
	if (!text || !*text)
		return true;
	g_auto(GStrv) items = g_strsplit(text, ",", -1);
	for (char **item = items; *item; item++) {
		g_autofree char *entry = g_strstrip(g_strdup(*item));
		if (!*entry)
			continue;
		char *colon = strchr(entry, ':');
		char *equals = strrchr(entry, '=');
		int age;
		if (!colon || !equals || equals < colon || colon == entry || equals == colon + 1 ||
				!parse_age(g_strstrip(equals + 1), &age)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"parental.ratings: \"%s\" is not SYSTEM:RATING=AGE (AGE 0 to %d)",
				entry, PARENTAL_MAX_AGE);
			return false;
		}
		*equals = '\0';
		g_hash_table_replace(parental->ratings, rating_key(entry, colon - entry,
			g_strstrip(colon + 1)), GINT_TO_POINTER(age + 1));
	}
	return true;
}

/* The length of @system's family: "DVB:GBR" → 3 ("DVB"). */
static size_t
system_family(const char *system)
{
	const char *colon = strchr(system, ':');
	return colon ? (size_t)(colon - system) : strlen(system);
}

static bool
is_dvb(const char *system, size_t family)
{
	return family == 3 && g_ascii_strncasecmp(system, "DVB", 3) == 0;
}

int
umms_parental_rating_age(struct umms_parental *parental, const char *system,
	const char *rating)
{
	if (!system || !rating || !*system || !*rating)
		return -1;
	size_t family = system_family(system);
	/* The full system first ("DVB:GBR:X" from the config), then its family. */
	g_autofree char *full = rating_key(system, strlen(system), rating);
	void *found = g_hash_table_lookup(parental->ratings, full);
	if (!found && family != strlen(system)) {
		g_autofree char *key = rating_key(system, family, rating);
		found = g_hash_table_lookup(parental->ratings, key);
	}
	if (found)
		return GPOINTER_TO_INT(found) - 1;
	/*
	 * DVB: the parental_rating_descriptor's byte as broadcast (the guide
	 * keeps it so): 0x01–0x0F mean the byte + 3 years; 0 is undefined and
	 * 0x10–0xFF the broadcaster's own, unknown unless [parental] ratings
	 * names them ("DVB:16=…").
	 */
	int byte;
	if (is_dvb(system, family) && parse_age(rating, &byte) && byte >= 1 && byte <= 0x0f)
		return byte + 3;
	return -1;
}

/* The threshold for @system: its own, its family's, else "age"; -1: none. */
static int
threshold_for(struct umms_parental *parental, const char *system)
{
	GHashTableIter iter;
	void *key, *value;
	int family_match = -1, age_match = -1;
	size_t family = system ? system_family(system) : 0;
	g_hash_table_iter_init(&iter, parental->thresholds);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		const char *scheme = key;
		int age = GPOINTER_TO_INT(value) - 1;
		if (system && g_ascii_strcasecmp(scheme, system) == 0)
			return age;
		if (system && strlen(scheme) == family &&
				g_ascii_strncasecmp(scheme, system, family) == 0)
			family_match = age;
		else if (g_ascii_strcasecmp(scheme, "age") == 0)
			age_match = age;
	}
	return family_match >= 0 ? family_match : age_match;
}

bool
parental_scheme_valid(const char *scheme)
{
	size_t n = strlen(scheme);
	if (n == 0 || n > PARENTAL_MAX_SCHEME)
		return false;
	for (const char *p = scheme; *p; p++) {
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_' && *p != ':')
			return false;
	}
	return true;
}

bool
parental_parse_scope(const char *text, enum parental_scope *scope)
{
	if (strcmp(text, "programme") == 0)
		*scope = PARENTAL_SCOPE_PROGRAMME;
	else if (strcmp(text, "channel") == 0)
		*scope = PARENTAL_SCOPE_CHANNEL;
	else if (strcmp(text, "time") == 0)
		*scope = PARENTAL_SCOPE_TIME;
	else
		return false;
	return true;
}

static void
grant_free(void *data)
{
	struct parental_grant *grant = data;
	g_free(grant->uri);
	g_free(grant);
}

bool
parental_grant(struct umms_parental *parental, const char *player, enum parental_scope scope,
	unsigned seconds, GError **error)
{
	if (!g_hash_table_contains(parental->grants, player) &&
			g_hash_table_size(parental->grants) >= PARENTAL_MAX_GRANTS) {
		/* Time grants that ran out make room first. */
		int64_t now = g_get_monotonic_time();
		GHashTableIter iter;
		void *value;
		g_hash_table_iter_init(&iter, parental->grants);
		while (g_hash_table_iter_next(&iter, NULL, &value)) {
			const struct parental_grant *old = value;
			if (old->scope == PARENTAL_SCOPE_TIME && old->until_us <= now)
				g_hash_table_iter_remove(&iter);
		}
	}
	if (!g_hash_table_contains(parental->grants, player) &&
			g_hash_table_size(parental->grants) >= PARENTAL_MAX_GRANTS) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%d players hold unlock grants already", PARENTAL_MAX_GRANTS);
		return false;
	}
	struct parental_grant *grant = g_new0(struct parental_grant, 1);
	grant->scope = scope;
	if (scope == PARENTAL_SCOPE_TIME)
		grant->until_us = g_get_monotonic_time() + (int64_t)seconds * G_USEC_PER_SEC;
	g_hash_table_replace(parental->grants, g_strdup(player), grant);
	return true;
}

/* What a programme or channel grant binds to: the id, else the URI. */
static void
grant_bind(struct parental_grant *grant, int64_t id, const char *uri)
{
	grant->bound = true;
	grant->id = id;
	grant->uri = id ? NULL : g_strdup(uri ? uri : "");
}

static bool
grant_matches(const struct parental_grant *grant, int64_t id, const char *uri)
{
	if (grant->id || id)
		return grant->id == id;
	return g_strcmp0(grant->uri, uri ? uri : "") == 0;
}

/* Whether @player's grant allows @content; a grant that no longer can goes. */
static bool
granted(struct umms_parental *parental, const char *player,
	const struct umms_parental_content *content)
{
	struct parental_grant *grant = player ? g_hash_table_lookup(parental->grants, player) :
		NULL;
	if (!grant)
		return false;
	bool ok;
	switch (grant->scope) {
	case PARENTAL_SCOPE_TIME:
		ok = g_get_monotonic_time() < grant->until_us;
		break;
	case PARENTAL_SCOPE_PROGRAMME:
	case PARENTAL_SCOPE_CHANNEL: {
		int64_t id = grant->scope == PARENTAL_SCOPE_PROGRAMME ? content->programme :
			content->channel;
		if (!grant->bound)
			grant_bind(grant, id, content->uri);
		ok = grant_matches(grant, id, content->uri);
		break;
	}
	default:
		ok = false;
	}
	if (!ok) {
		umms_info("parental: the unlock grant of %s ended", player);
		g_hash_table_remove(parental->grants, player);
	}
	return ok;
}

static void
verdict_rating(struct umms_parental_verdict *out, const char *system, const char *rating)
{
	if (system && rating && *system && *rating)
		snprintf(out->rating, sizeof(out->rating), "%s %s", system, rating);
	else if (rating && *rating)
		snprintf(out->rating, sizeof(out->rating), "%s", rating);
}

void
umms_parental_check(struct umms_parental *parental, const char *player,
	const struct umms_parental_content *content, struct umms_parental_verdict *out)
{
	*out = (struct umms_parental_verdict){ 0 };
	verdict_rating(out, content->rating_system, content->rating);
	if (!parental->enabled || granted(parental, player, content))
		return;
	if (content->channel > 0 &&
			g_hash_table_contains(parental->locked, &content->channel)) {
		out->blocked = true;
		out->reason = "channel-locked";
		return;
	}
	int age = umms_parental_rating_age(parental, content->rating_system, content->rating);
	if (age < 0)
		age = content->min_age;
	if (age >= 0) {
		/* A DVB byte is no age a person knows: "DVB:deu 18", not "DVB:deu 15". */
		if (!out->rating[0] || (content->rating_system &&
				is_dvb(content->rating_system, system_family(content->rating_system))))
			snprintf(out->rating, sizeof(out->rating), "%s%s%d+",
				content->rating_system ? content->rating_system : "",
				content->rating_system ? " " : "", age);
		int threshold = threshold_for(parental, content->rating_system);
		if (threshold >= 0 && age > threshold) {
			out->blocked = true;
			out->reason = "rating";
		}
		return;
	}
	if (parental->block_unrated && content->tv) {
		out->blocked = true;
		out->reason = "unrated";
	}
}

void
umms_parental_forget_player(struct umms_parental *parental, const char *player)
{
	if (parental && player)
		g_hash_table_remove(parental->grants, player);
}

struct umms_parental_events *
umms_parental_get_events(struct umms_parental *parental)
{
	return &parental->events;
}

void
parental_changed(struct umms_parental *parental)
{
	parental_dbus_changed(parental->dbus);
	wl_signal_emit_mutable(&parental->events.changed, NULL);
}

struct umms_parental *
umms_parental_create(const struct umms_config *config, GDBusConnection *connection,
	GError **error)
{
	g_autofree char *db = config->recording.database ? g_strdup(config->recording.database) :
		g_build_filename(g_get_user_state_dir(), "umms", "umms.db", NULL);
	struct umms_parental *parental = g_new0(struct umms_parental, 1);
	parental->config = config;
	parental->connection = g_object_ref(connection);
	wl_signal_init(&parental->events.changed);
	parental->thresholds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	parental->locked = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	parental->grants = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, grant_free);
	if (!load_ratings(parental, error))
		goto fail;
	if (!parental_db_open(parental, db, error) || !parental_db_load(parental, error))
		goto fail;
	parental->checks = parental_pin_create(parental, error);
	if (!parental->checks)
		goto fail;
	parental->dbus = parental_dbus_create(parental, error);
	if (!parental->dbus)
		goto fail;
	umms_info("parental control: %s, %u thresholds, %u locked channels, %s",
		parental->enabled ? "on" : "off", g_hash_table_size(parental->thresholds),
		g_hash_table_size(parental->locked), parental->pin.hash ? "a PIN" : "no PIN");
	return parental;
fail:
	umms_parental_destroy(parental);
	return NULL;
}

void
umms_parental_destroy(struct umms_parental *parental)
{
	if (!parental)
		return;
	g_assert(wl_list_empty(&parental->events.changed.listener_list));
	parental_dbus_destroy(parental->dbus);
	parental_pin_destroy(parental->checks);
	parental_db_close(parental);
	g_free(parental->pin.hash);
	g_hash_table_unref(parental->thresholds);
	g_hash_table_unref(parental->locked);
	g_hash_table_unref(parental->grants);
	if (parental->ratings)
		g_hash_table_unref(parental->ratings);
	g_object_unref(parental->connection);
	g_free(parental);
}
