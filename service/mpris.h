/*
 * MPRIS 2 for one player, so playerctl and desktop media keys reach it.
 *
 * A bus connection serves one object per path, and every MPRIS player lives
 * at /org/mpris/MediaPlayer2, so each player gets its own connection to the
 * bus, owning org.mpris.MediaPlayer2.umms.player<N>. The connection is made
 * asynchronously; until it is up the player simply is not on MPRIS yet.
 */
#ifndef UMMS_SERVICE_MPRIS_H
#define UMMS_SERVICE_MPRIS_H

#include "player.h"

struct umms_mpris;

/* @player_path: the player's org.umms object path, the base of track ids. */
struct umms_mpris *umms_mpris_create(struct umms_player *player, const char *player_path,
	const char *bus_address);
/* Releases the name and closes the connection. NULL is a no-op. */
void umms_mpris_destroy(struct umms_mpris *mpris);

#endif
