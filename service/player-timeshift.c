/*
 * The player's side of time-shift (timeshift.h): what the ring reads and
 * asks of the player, so that service/recorder/timeshift.c needs nothing
 * of player.h.
 */
#include "player.h"
#include "player-private.h"
#include "timeshift.h"

static struct umms_engine *
host_engine(void *data)
{
	struct umms_player *player = data;
	return player->engine;
}

static const char *
host_uri(void *data)
{
	struct umms_player *player = data;
	return player->uri;
}

/* A dvb:// channel's tuning on the player's tuner (resources-service.c), or NULL. */
static char *
host_source_uri(void *data)
{
	struct umms_player *player = data;
	return player->engine_uri && player->uri ?
		player->engine_uri(player->uri_gate_data, player, player->uri) : NULL;
}

static int64_t
host_position(void *data)
{
	return umms_player_get_position(data);
}

static bool
host_reopen(void *data, const char *uri, GError **error)
{
	struct umms_player *player = data;
	return umms_player_reopen(player, uri, player->state, NULL, NULL, error);
}

static void
host_changed(void *data)
{
	struct umms_player *player = data;
	wl_signal_emit_mutable(&player->events.changed, player);
}

static void
host_eit(void *data, const struct umms_eit *eit)
{
	struct umms_player *player = data;
	wl_signal_emit_mutable(&player->events.eit, (void *)eit);
}

void
umms_player_timeshift_init(struct umms_player *player)
{
	const struct umms_timeshift_host host = {
		.id = player->id,
		.config = player->config,
		.engine = host_engine,
		.uri = host_uri,
		.source_uri = host_source_uri,
		.position = host_position,
		.reopen = host_reopen,
		.changed = host_changed,
		.eit = host_eit,
		.data = player,
	};
	player->timeshift = umms_timeshift_create(&host);
}
