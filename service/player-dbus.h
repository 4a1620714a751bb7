/*
 * org.umms.Player1: a player's face on the bus, at /org/umms/player/N.
 *
 * Maps methods and properties onto the player API, and the player's signals
 * onto D-Bus signals and PropertiesChanged. Replies are sent after pending
 * property changes, so a client that gets Play's reply and then reads State
 * sees "playing", and a client watching signals sees the change first.
 */
#ifndef UMMS_SERVICE_PLAYER_DBUS_H
#define UMMS_SERVICE_PLAYER_DBUS_H

#include <gio/gio.h>

#include "player.h"

struct umms_player_dbus;

/* Exports the player through @manager at @path. */
struct umms_player_dbus *umms_player_dbus_create(struct umms_player *player,
	GDBusObjectManagerServer *manager, const char *path);
/* Unexports; the player itself is left alone. NULL is a no-op. */
void umms_player_dbus_destroy(struct umms_player_dbus *dbus);

/* Replies to @invocation (passed as the player's done data). */
void umms_player_dbus_reply(const GError *error, void *invocation);

#endif
