/*
 * What the entitlements' files share: the object and its items
 * (entitlement.c: the checks, the gates, the counting of plays and the
 * clock), their rows in ummsd's SQLite file (entitlement-db.c) and
 * org.umms.Entitlement1 (entitlement-dbus.c).
 */
#ifndef UMMS_SERVICE_ENTITLEMENT_PRIVATE_H
#define UMMS_SERVICE_ENTITLEMENT_PRIVATE_H

#include <stdint.h>
#include <sqlite3.h>
#include <wayland-server-core.h>

#include "entitlement.h"

/* Items at most; a Grant beyond is refused NoResource. */
#define ENTITLEMENT_MAX_ITEMS 10000
/* Bytes of an item at most. */
#define ENTITLEMENT_MAX_ITEM 4096
/* How often the highest wall-clock time is stored while something plays. */
#define ENTITLEMENT_CLOCK_INTERVAL_MS 60000

/* An item's terms; 0 members: no such limit. */
struct entitlement_terms {
	uint32_t max_plays;
	int64_t not_before;   /* µs since 1970, UTC */
	int64_t not_after;
	uint32_t window;      /* seconds from the first play */
};

struct entitlement_item {
	char *item;           /* a URI, or a prefix ending in '*' */
	struct entitlement_terms terms;
	bool revoked;
	uint32_t plays;
	int64_t first_play;   /* 0: never played */
};

struct entitlement_dbus;

struct umms_entitlement {
	const struct umms_config *config;
	GDBusConnection *connection;
	sqlite3 *db;
	/* char *item → struct entitlement_item * (owns both). */
	GHashTable *items;
	/* The highest wall-clock time seen (µs), and the last one stored. */
	int64_t clock_high, clock_stored;
	struct wl_list players;  /* struct entitlement_player.link */
	GSource *clock_timer;    /* while a player plays */
	struct entitlement_dbus *dbus;
};

/* entitlement.c */
/* Now for the checks: the wall clock, or the highest time seen if later (stored). */
int64_t entitlement_now(struct umms_entitlement *entitlement);
/* The item covering @uri: the item @uri itself, else the longest prefix; NULL: none. */
struct entitlement_item *entitlement_find(struct umms_entitlement *entitlement,
	const char *uri);
struct entitlement_player;
/*
 * Whether @item may be played now; false with NotEntitled naming why.
 * @counted: the playback was counted already (a pause and Play again),
 * so the plays left do not matter. @starting: plays other players are
 * about to take (entitlement_starting).
 */
bool entitlement_check(struct umms_entitlement *entitlement, struct entitlement_item *item,
	bool counted, uint32_t starting, GError **error);
/* Players but @except (may be NULL) whose Play of @item passed and is not counted yet. */
uint32_t entitlement_starting(struct umms_entitlement *entitlement,
	struct entitlement_item *item, const struct entitlement_player *except);
/* An item as stored: a URI (an absolute path made one), or a prefix ending in '*'. */
char *entitlement_normalize_item(const char *text, GError **error);
/* Replaces @item's terms, plays start anew; false with @error (the database, too many). */
bool entitlement_grant(struct umms_entitlement *entitlement, const char *item,
	const struct entitlement_terms *terms, GError **error);
bool entitlement_revoke(struct umms_entitlement *entitlement, const char *item,
	GError **error);

/* entitlement-db.c */
bool entitlement_db_open(struct umms_entitlement *entitlement, const char *path,
	GError **error);
void entitlement_db_close(struct umms_entitlement *entitlement);
/* Every item into entitlement->items, the clock into clock_high. */
bool entitlement_db_load(struct umms_entitlement *entitlement, GError **error);
bool entitlement_db_store(struct umms_entitlement *entitlement,
	const struct entitlement_item *item, GError **error);
bool entitlement_db_store_clock(struct umms_entitlement *entitlement, int64_t high,
	GError **error);
void entitlement_item_free(struct entitlement_item *item);

/* entitlement-dbus.c */
struct entitlement_dbus *entitlement_dbus_create(struct umms_entitlement *entitlement,
	GError **error);
void entitlement_dbus_destroy(struct entitlement_dbus *dbus);
/* Changed(item). */
void entitlement_dbus_changed(struct entitlement_dbus *dbus, const char *item);
/* "the 48 h window…": UTC "2026-12-01 10:00 UTC" of @us (g_free). */
char *entitlement_format_time(int64_t us);

#endif
