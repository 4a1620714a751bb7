/*
 * Parental control: what may be shown, decided inside ummsd (issue 18).
 *
 * Two halves, written against this header:
 *  - the policy (parental.c, parental-db.c, parental-pin.c, parental-dbus.c):
 *    org.umms.Parental1 on /org/umms (protocol/org.umms.Parental1.xml),
 *    settings, locked channels, the PIN (an Argon2id hash, libsodium) and
 *    its lockout, unlock grants; kept in ummsd's SQLite database (the
 *    [recording] database file, tables of its own, the file mode 0600);
 *  - the enforcement (parental-enforce.c): for each player, what it shows
 *    now (channel, programme, rating) from its URI, the guide, EIT, the
 *    time-shift position, a recording's stored rating; asks
 *    umms_parental_check and sets umms_player_set_blocked.
 *
 * Org.umms.Parental1 in short (the XML is the reference):
 *   properties Enabled b, BlockUnrated b, Thresholds a{si} (rating scheme →
 *     the highest minimum age allowed; scheme "age" applies to every rating
 *     that maps to an age, a named scheme ("MPAA") overrides it for its
 *     ratings), LockedChannels ax (guide channel ids), PinSet b;
 *   SetEnabled(s pin, b), SetBlockUnrated(s pin, b), SetThreshold(s pin,
 *     s scheme, i age; -1 removes), LockChannel(s pin, x channel, b locked),
 *     SetPin(s old, s new) (old "" while none is set), Unlock(o player,
 *     s pin, s scope "programme" | "channel" | "time", u seconds);
 *   every method taking a PIN: WrongPin, after 5 wrong ones in a row
 *     LockedOut "N seconds left" (60 s, doubled with each lockout, kept
 *     across restarts); while no PIN is set any PIN is right;
 *   Changed() after any setting or grant changed.
 * Ratings map to minimum ages through a table (DVB: the descriptor's byte,
 * 1–15 meaning byte + 3 years; MPAA
 * G 0, PG 8, PG-13 13, R 17, NC-17 18; BBFC U 0, PG 8, 12/12A 12, 15 15,
 * 18 18, R18 18; FSK 0/6/12/16/18; US_TV TV-Y 0, TV-Y7 7, TV-G 0, TV-PG 10,
 * TV-14 14, TV-MA 17), extended or overridden by [parental] ratings.
 *
 * All on the main loop of the thread that created it.
 */
#ifndef UMMS_SERVICE_PARENTAL_H
#define UMMS_SERVICE_PARENTAL_H

#include <stdbool.h>
#include <stdint.h>
#include <gio/gio.h>
#include <wayland-server-core.h>

#include "config.h"

struct umms_parental;
struct umms_guide;
struct umms_player;
struct umms_recorder;

/* What a player shows at one moment, as the enforcement found it. */
struct umms_parental_content {
	const char *uri;          /* the player's Uri */
	int64_t channel;          /* the guide's channel id, 0: not a channel (or unknown) */
	int64_t programme;        /* the guide's programme id on now, 0: none known */
	const char *rating_system; /* "DVB", "MPAA", "FSK", …; NULL: unrated */
	const char *rating;       /* the scheme's value ("PG-13", "16"); NULL: unrated */
	int min_age;              /* the age the guide or EIT gave, -1: none */
	bool tv;                  /* from a channel or a recording of one: block-unrated
	                           * applies (a file of the user's own is never "unrated") */
};

struct umms_parental_verdict {
	bool blocked;
	const char *reason;       /* "channel-locked", "rating", "unrated"; NULL: allowed */
	char rating[64];          /* as shown to the user: "FSK 16", "DVB 18"; "" when none */
};

struct umms_parental_events {
	/* Settings, locks or unlock grants changed: check every player again. Data: NULL. */
	struct wl_signal changed;
};

/* Opens its tables in @config's database and exports Parental1 on @connection. */
struct umms_parental *umms_parental_create(const struct umms_config *config,
	GDBusConnection *connection, GError **error);
/* NULL: no-op. Every events.changed listener must be removed first (asserted). */
void umms_parental_destroy(struct umms_parental *parental);

struct umms_parental_events *umms_parental_get_events(struct umms_parental *parental);

/*
 * The verdict on @content shown by the player at D-Bus path @player (its
 * unlock grants apply: scope programme while content->programme is the one
 * unlocked, channel while content->channel is, time until it runs out).
 * Disabled: never blocked. Order: a locked channel, then the rating above
 * its threshold, then unrated (BlockUnrated and content->tv).
 *
 * Grants (the policy's choice): Unlock keeps one grant per player path,
 * not yet bound to any content, and emits events.changed; the first
 * check of that player after it (the enforcement checking every player
 * on changed) binds a programme grant to content->programme and a channel
 * grant to content->channel (to content->uri where that id is 0). The
 * first check that shows another programme (channel, URI) ends the grant,
 * so coming back to it needs the PIN again; a time grant allows anything
 * on that player until it runs out. The rating's age: the table's for
 * rating_system/rating, else content->min_age, else unrated. Never emits
 * changed itself, so it may be called from a changed listener.
 */
void umms_parental_check(struct umms_parental *parental, const char *player,
	const struct umms_parental_content *content, struct umms_parental_verdict *out);

/* The minimum age @rating of @system means, -1 when the table does not know it. */
int umms_parental_rating_age(struct umms_parental *parental, const char *system,
	const char *rating);

/* A player went: its grants go with it. */
void umms_parental_forget_player(struct umms_parental *parental, const char *player);

/*
 * Enforcement (parental-enforce.c). The manager calls add_player for every
 * player it makes (not for a recording's own pipeline: recording blocked
 * content is allowed, playing the file back is not).
 */
struct umms_parental_enforcer;
struct umms_parental_enforcer *umms_parental_enforcer_create(struct umms_parental *parental,
	struct umms_guide *guide, struct umms_recorder *recorder);
void umms_parental_enforcer_destroy(struct umms_parental_enforcer *enforcer);
void umms_parental_enforcer_add_player(struct umms_parental_enforcer *enforcer,
	struct umms_player *player, const char *path);

#endif
