/*
 * Entitlements: which items may be played, how often and when (issue 18).
 *
 * org.umms.Entitlement1 on /org/umms (protocol/org.umms.Entitlement1.xml):
 *   Grant(s item, a{sv} terms: "max-plays" u, "not-before" x and "not-after"
 *     x (µs since 1970, UTC), "window" u (seconds of play from the first
 *     play)), Revoke(s item), Get(s item) → a{sv} (the terms, "plays" u,
 *     "first-play" x, "valid" b, "why" s), List() → as; Changed(s item).
 *   An item is a URI as SetUri takes it (normalised), or a prefix of URIs
 *   ending in '*'. An item once granted stays controlled: revoked, it is
 *   refused, never free. URIs no item covers play freely.
 * SetUri or Play of a controlled URI without a valid entitlement fails with
 * org.umms.Error.NotEntitled naming why ("no plays left: 2 of 2 used",
 * "not after 2026-12-01 10:00 UTC", "the 48 h window from the first play
 * ended", "revoked"). A play counts once per playback that reaches
 * playing (a pause and play again is the same playback; SetUri or Stop
 * then Play is a new one). Kept across restarts in ummsd's database; time
 * checks use the highest wall-clock time ever seen (stored), so a clock
 * set back reopens nothing.
 *
 * All on the main loop of the thread that created it.
 */
#ifndef UMMS_SERVICE_ENTITLEMENT_H
#define UMMS_SERVICE_ENTITLEMENT_H

#include <stdbool.h>
#include <gio/gio.h>

#include "config.h"

struct umms_entitlement;
struct umms_player;

struct umms_entitlement *umms_entitlement_create(const struct umms_config *config,
	GDBusConnection *connection, GError **error);
/* NULL: no-op. */
void umms_entitlement_destroy(struct umms_entitlement *entitlement);

/*
 * The manager calls this for every player it makes: a gate
 * (umms_player_add_gate) on SetUri and Play, and the count of plays on
 * events.state. Removed when the player goes.
 */
void umms_entitlement_add_player(struct umms_entitlement *entitlement,
	struct umms_player *player);

#endif
