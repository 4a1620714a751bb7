/*
 * Entitlements (entitlement.h): the items and their checks, the gates on
 * every player's SetUri and Play, the plays counted and the clock.
 *
 * A playback: what a player plays from a SetUri, or from a Stop (or the
 * end of the media, or an error, which stop it), to the next of these.
 * It counts once, when the player first becomes playing in it; a pause
 * and Play again is the same playback. The play is counted against the
 * item that covers the player's Uri then, and the first counted play of
 * an item starts its window.
 *
 * The clock: every check asks entitlement_now(), the wall clock or the
 * highest time ever seen if that is later, and stores a new highest time
 * (a second apart at most, and at exit); a timer does the same every ENTITLEMENT_CLOCK_INTERVAL_MS while
 * a player plays, so a clock set back while ummsd runs, or while it does
 * not, reopens no window and brings no not-after back. The same timer
 * stops a playback whose entitlement ended meanwhile (not-after, the
 * window, a Revoke, which sweeps at once).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "entitlement-private.h"
#include "error.h"
#include "log.h"
#include "player.h"
#include "source.h"

struct entitlement_player {
	struct umms_entitlement *entitlement;
	struct umms_player *player;
	struct umms_player_gate gate;
	struct wl_listener state, destroy;
	/* The playback going on was counted: track_serial then. */
	bool counted;
	unsigned counted_serial;
	GSource *stop_idle;      /* stops a playback no longer entitled */
	/*
	 * A Play passed the gate and the playback is not counted yet: the item
	 * (a copy) whose play it is about to take, held while a request is in
	 * flight in the same track (reserved_serial), so two players cannot
	 * both start the last play.
	 */
	char *reserved;
	unsigned reserved_serial;
	struct wl_list link;     /* umms_entitlement.players */
};

int64_t
entitlement_now(struct umms_entitlement *entitlement)
{
	int64_t real = g_get_real_time();
	if (real <= entitlement->clock_high)
		return entitlement->clock_high;
	entitlement->clock_high = real;
	/* Written a second apart at most: a burst of checks is not a burst of writes. */
	if (real >= entitlement->clock_stored + G_USEC_PER_SEC) {
		GError *error = NULL;
		if (entitlement_db_store_clock(entitlement, real, &error)) {
			entitlement->clock_stored = real;
		} else {
			umms_warn("%s", error->message);
			g_error_free(error);
		}
	}
	return real;
}

struct entitlement_item *
entitlement_find(struct umms_entitlement *entitlement, const char *uri)
{
	if (!uri)
		return NULL;
	struct entitlement_item *exact = g_hash_table_lookup(entitlement->items, uri);
	if (exact)
		return exact;
	struct entitlement_item *best = NULL;
	size_t best_len = 0;
	GHashTableIter iter;
	void *value;
	g_hash_table_iter_init(&iter, entitlement->items);
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct entitlement_item *item = value;
		size_t len = strlen(item->item);
		if (len == 0 || item->item[len - 1] != '*')
			continue;
		len--;
		if (len >= best_len && strncmp(uri, item->item, len) == 0 &&
				(!best || len > best_len)) {
			best = item;
			best_len = len;
		}
	}
	return best;
}

/* "48 h", "90 min", "100 s". */
static char *
format_duration(uint32_t seconds)
{
	if (seconds % 3600 == 0)
		return g_strdup_printf("%u h", seconds / 3600);
	if (seconds % 60 == 0)
		return g_strdup_printf("%u min", seconds / 60);
	return g_strdup_printf("%u s", seconds);
}

char *
entitlement_format_time(int64_t us)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(us / G_USEC_PER_SEC);
	if (!t)
		return g_strdup_printf("%" G_GINT64_FORMAT " µs", us);
	return g_date_time_format(t, "%Y-%m-%d %H:%M:%S UTC");
}

uint32_t
entitlement_starting(struct umms_entitlement *entitlement, struct entitlement_item *item,
	const struct entitlement_player *except)
{
	uint32_t n = 0;
	const struct entitlement_player *ep;
	wl_list_for_each(ep, &entitlement->players, link) {
		if (ep != except && ep->reserved && strcmp(ep->reserved, item->item) == 0 &&
				ep->reserved_serial == ep->player->track_serial &&
				ep->player->pending.length > 0)
			n++;
	}
	return n;
}

bool
entitlement_check(struct umms_entitlement *entitlement, struct entitlement_item *item,
	bool counted, uint32_t starting, GError **error)
{
	const struct entitlement_terms *terms = &item->terms;
	int64_t now = entitlement_now(entitlement);
	if (item->revoked) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED, "revoked");
		return false;
	}
	if (terms->not_before && now < terms->not_before) {
		g_autofree char *at = entitlement_format_time(terms->not_before);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED, "not before %s", at);
		return false;
	}
	if (terms->not_after && now > terms->not_after) {
		g_autofree char *at = entitlement_format_time(terms->not_after);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED, "not after %s", at);
		return false;
	}
	if (terms->window && item->first_play &&
			now >= item->first_play + (int64_t)terms->window * G_USEC_PER_SEC) {
		g_autofree char *length = format_duration(terms->window);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED,
			"the %s window from the first play ended", length);
		return false;
	}
	if (!counted && terms->max_plays && item->plays >= terms->max_plays) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED,
			"no plays left: %u of %u used", item->plays, terms->max_plays);
		return false;
	}
	if (!counted && terms->max_plays && item->plays + starting >= terms->max_plays) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_ENTITLED,
			"no plays left: %u of %u used, %u starting in other players", item->plays,
			terms->max_plays, starting);
		return false;
	}
	return true;
}

char *
entitlement_normalize_item(const char *text, GError **error)
{
	size_t len = strlen(text);
	if (len > ENTITLEMENT_MAX_ITEM) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"the item is %zu bytes long, more than %d", len, ENTITLEMENT_MAX_ITEM);
		return NULL;
	}
	if (len == 0 || text[len - 1] != '*')
		return umms_player_normalize_uri(text, error);
	g_autofree char *prefix = g_strndup(text, len - 1);
	if (prefix[0] == '/') {
		g_autofree char *uri = g_filename_to_uri(prefix, NULL, error);
		return uri ? g_strconcat(uri, "*", NULL) : NULL;
	}
	g_autofree char *scheme = g_uri_parse_scheme(prefix);
	if (!scheme) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a prefix item must begin with a URI scheme or be an absolute path: \"%s\"",
			text);
		return NULL;
	}
	return g_strdup(text);
}

static void
changed(struct umms_entitlement *entitlement, const char *item)
{
	entitlement_dbus_changed(entitlement->dbus, item);
}

static gboolean
stop_idle_cb(void *data)
{
	struct entitlement_player *ep = data;
	umms_source_forget(&ep->stop_idle);
	GError *error = NULL;
	if (ep->player->state != UMMS_PLAYER_STOPPED &&
			!umms_player_stop(ep->player, NULL, NULL, &error)) {
		umms_warn("player %u: cannot stop it: %s", ep->player->id, error->message);
		g_error_free(error);
	}
	return G_SOURCE_REMOVE;
}

/* Stops the playbacks whose entitlement ended (time, Revoke). */
static void
sweep(struct umms_entitlement *entitlement)
{
	struct entitlement_player *ep;
	wl_list_for_each(ep, &entitlement->players, link) {
		if (ep->player->state == UMMS_PLAYER_STOPPED || ep->stop_idle)
			continue;
		struct entitlement_item *item = entitlement_find(entitlement, ep->player->uri);
		GError *error = NULL;
		if (!item || entitlement_check(entitlement, item, true, 0, &error))
			continue;
		umms_info("player %u: %s no longer entitled (%s): stopped", ep->player->id,
			ep->player->uri, error->message);
		g_error_free(error);
		ep->stop_idle = umms_source_idle(stop_idle_cb, ep);
	}
}

static gboolean
clock_tick(void *data)
{
	struct umms_entitlement *entitlement = data;
	entitlement_now(entitlement);
	sweep(entitlement);
	return G_SOURCE_CONTINUE;
}

/* The clock's timer runs while a player plays. */
static void
update_clock_timer(struct umms_entitlement *entitlement)
{
	bool playing = false;
	struct entitlement_player *ep;
	wl_list_for_each(ep, &entitlement->players, link)
		playing |= ep->player->state == UMMS_PLAYER_PLAYING;
	if (playing && !entitlement->clock_timer)
		entitlement->clock_timer = umms_source_timeout(ENTITLEMENT_CLOCK_INTERVAL_MS,
			clock_tick, entitlement);
	else if (!playing)
		umms_source_clear(&entitlement->clock_timer);
}

bool
entitlement_grant(struct umms_entitlement *entitlement, const char *text,
	const struct entitlement_terms *terms, GError **error)
{
	struct entitlement_item *old = g_hash_table_lookup(entitlement->items, text);
	if (!old && g_hash_table_size(entitlement->items) >= ENTITLEMENT_MAX_ITEMS) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%d items are entitled already, the most there may be", ENTITLEMENT_MAX_ITEMS);
		return false;
	}
	struct entitlement_item *item = g_new0(struct entitlement_item, 1);
	item->item = g_strdup(text);
	item->terms = *terms;
	if (!entitlement_db_store(entitlement, item, error)) {
		entitlement_item_free(item);
		return false;
	}
	g_hash_table_replace(entitlement->items, item->item, item);
	umms_info("entitlement granted: %s (max-plays %u, not-before %" G_GINT64_FORMAT
		", not-after %" G_GINT64_FORMAT ", window %u s)", item->item, terms->max_plays,
		terms->not_before, terms->not_after, terms->window);
	changed(entitlement, item->item);
	return true;
}

bool
entitlement_revoke(struct umms_entitlement *entitlement, const char *text, GError **error)
{
	struct entitlement_item *item = g_hash_table_lookup(entitlement->items, text);
	if (!item) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no such item: %s", text);
		return false;
	}
	bool was = item->revoked;
	item->revoked = true;
	if (!entitlement_db_store(entitlement, item, error)) {
		item->revoked = was;
		return false;
	}
	umms_info("entitlement revoked: %s", item->item);
	changed(entitlement, item->item);
	sweep(entitlement);
	return true;
}

/* @what ("SetUri", "Play") of @uri by the player: refused NotEntitled naming why. */
static void
unreserve(struct entitlement_player *ep)
{
	g_clear_pointer(&ep->reserved, g_free);
}

/* A Play passed the gate: the play is @ep's until it counts it (or does not start). */
static void
reserve(struct entitlement_player *ep, const struct entitlement_item *item)
{
	unreserve(ep);
	ep->reserved = g_strdup(item->item);
	ep->reserved_serial = ep->player->track_serial;
}

static bool
check_player(struct entitlement_player *ep, const char *what, const char *uri, bool counted,
	GError **error)
{
	struct entitlement_item *item = entitlement_find(ep->entitlement, uri);
	GError *refused = NULL;
	if (!item)
		return true;
	if (entitlement_check(ep->entitlement, item, counted,
			entitlement_starting(ep->entitlement, item, ep), &refused)) {
		if (!counted && strcmp(what, "Play") == 0 && item->terms.max_plays)
			reserve(ep, item);
		return true;
	}
	umms_info("player %u: %s of %s refused: %s", ep->player->id, what, uri,
		refused->message);
	g_propagate_prefixed_error(error, refused, "not entitled to %s: ", uri);
	return false;
}

static bool
gate_set_uri(struct umms_player_gate *gate, struct umms_player *player, const char *uri,
	GError **error)
{
	struct entitlement_player *ep = wl_container_of(gate, ep, gate);
	return check_player(ep, "SetUri", uri, false, error);
}

/* The playback going on was counted already. */
static bool
playback_counted(struct entitlement_player *ep)
{
	return ep->counted && ep->counted_serial == ep->player->track_serial &&
		ep->player->state != UMMS_PLAYER_STOPPED;
}

static bool
gate_play(struct umms_player_gate *gate, struct umms_player *player, GError **error)
{
	struct entitlement_player *ep = wl_container_of(gate, ep, gate);
	return check_player(ep, "Play", player->uri, playback_counted(ep), error);
}

/* A new playback reached playing: counts against its item. */
static void
count_play(struct entitlement_player *ep)
{
	struct umms_entitlement *entitlement = ep->entitlement;
	struct umms_player *player = ep->player;
	ep->counted = true;
	ep->counted_serial = player->track_serial;
	unreserve(ep);
	struct entitlement_item *item = entitlement_find(entitlement, player->uri);
	if (!item)
		return;
	GError *error = NULL;
	/*
	 * Another player took the last play between this one's Play and now
	 * (a play that started without Play: after a reopen, a timeshift).
	 */
	if (!entitlement_check(entitlement, item, false,
			entitlement_starting(entitlement, item, ep), &error)) {
		umms_info("player %u: %s no longer entitled (%s): stopped", player->id,
			player->uri, error->message);
		g_error_free(error);
		if (!ep->stop_idle)
			ep->stop_idle = umms_source_idle(stop_idle_cb, ep);
		return;
	}
	item->plays++;
	if (!item->first_play)
		item->first_play = entitlement_now(entitlement);
	if (!entitlement_db_store(entitlement, item, &error)) {
		umms_warn("%s", error->message);
		g_error_free(error);
	}
	umms_info("player %u: play %u of %s (%s)", player->id, item->plays, item->item,
		player->uri);
	changed(entitlement, item->item);
}

static void
on_state(struct wl_listener *listener, void *data)
{
	struct entitlement_player *ep = wl_container_of(listener, ep, state);
	(void)data;
	if (ep->player->state == UMMS_PLAYER_STOPPED) {
		ep->counted = false;
		unreserve(ep);
	}
	else if (ep->player->state == UMMS_PLAYER_PLAYING && !playback_counted(ep))
		count_play(ep);
	update_clock_timer(ep->entitlement);
}

static void
player_forget(struct entitlement_player *ep)
{
	wl_list_remove(&ep->gate.link);
	wl_list_remove(&ep->state.link);
	wl_list_remove(&ep->destroy.link);
	wl_list_remove(&ep->link);
	umms_source_clear(&ep->stop_idle);
	unreserve(ep);
	g_free(ep);
}

static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct entitlement_player *ep = wl_container_of(listener, ep, destroy);
	struct umms_entitlement *entitlement = ep->entitlement;
	(void)data;
	player_forget(ep);
	update_clock_timer(entitlement);
}

void
umms_entitlement_add_player(struct umms_entitlement *entitlement, struct umms_player *player)
{
	struct entitlement_player *ep = g_new0(struct entitlement_player, 1);
	ep->entitlement = entitlement;
	ep->player = player;
	ep->gate.set_uri = gate_set_uri;
	ep->gate.play = gate_play;
	umms_player_add_gate(player, &ep->gate);
	ep->state.notify = on_state;
	wl_signal_add(&player->events.state, &ep->state);
	ep->destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &ep->destroy);
	wl_list_insert(&entitlement->players, &ep->link);
}

struct umms_entitlement *
umms_entitlement_create(const struct umms_config *config, GDBusConnection *connection,
	GError **error)
{
	struct umms_entitlement *entitlement = g_new0(struct umms_entitlement, 1);
	entitlement->config = config;
	entitlement->connection = g_object_ref(connection);
	entitlement->items = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
		(GDestroyNotify)entitlement_item_free);
	wl_list_init(&entitlement->players);
	g_autofree char *db = config->recording.database ? g_strdup(config->recording.database) :
		g_build_filename(g_get_user_state_dir(), "umms", "umms.db", NULL);
	if (!entitlement_db_open(entitlement, db, error) ||
			!entitlement_db_load(entitlement, error))
		goto fail;
	entitlement_now(entitlement);
	entitlement->dbus = entitlement_dbus_create(entitlement, error);
	if (!entitlement->dbus)
		goto fail;
	return entitlement;
fail:
	umms_entitlement_destroy(entitlement);
	return NULL;
}

void
umms_entitlement_destroy(struct umms_entitlement *entitlement)
{
	if (!entitlement)
		return;
	struct entitlement_player *ep, *tmp;
	wl_list_for_each_safe(ep, tmp, &entitlement->players, link)
		player_forget(ep);
	umms_source_clear(&entitlement->clock_timer);
	entitlement_dbus_destroy(entitlement->dbus);
	if (entitlement->db) {
		entitlement_now(entitlement);
		if (entitlement->clock_stored < entitlement->clock_high)
			entitlement_db_store_clock(entitlement, entitlement->clock_high, NULL);
	}
	entitlement_db_close(entitlement);
	g_hash_table_unref(entitlement->items);
	g_object_unref(entitlement->connection);
	g_free(entitlement);
}
