/*
 * What a player may open, play and let out: the gates of the modules that
 * control content (entitlements refuse, parental control blocks) and the
 * blocked state the engine enforces. See player.h (umms_player_gate,
 * umms_player_set_blocked).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include <string.h>

#include "log.h"
#include "player-private.h"

void
umms_player_add_gate(struct umms_player *player, struct umms_player_gate *gate)
{
	wl_list_insert(player->gates.prev, &gate->link);
}

bool
umms_player_ask_gates_uri(struct umms_player *player, const char *uri, GError **error)
{
	struct umms_player_gate *gate, *tmp;
	wl_list_for_each_safe(gate, tmp, &player->gates, link) {
		if (gate->set_uri && !gate->set_uri(gate, player, uri, error))
			return false;
	}
	return true;
}

bool
umms_player_ask_gates_play(struct umms_player *player, GError **error)
{
	struct umms_player_gate *gate, *tmp;
	wl_list_for_each_safe(gate, tmp, &player->gates, link) {
		if (gate->play && !gate->play(gate, player, error))
			return false;
	}
	return true;
}

void
umms_player_set_blocked(struct umms_player *player, const char *reason, const char *rating)
{
	bool blocked = reason != NULL;
	const char *shown = blocked && rating ? rating : blocked ? "" : NULL;
	if (blocked == player->blocked && g_strcmp0(reason, player->block_reason) == 0 &&
			g_strcmp0(shown, player->block_rating) == 0)
		return;
	bool was = player->blocked;
	player->blocked = blocked;
	g_free(player->block_reason);
	g_free(player->block_rating);
	player->block_reason = g_strdup(reason);
	player->block_rating = g_strdup(shown);
	if (blocked)
		umms_info("player %u blocked: %s%s%s", player->id, reason, *shown ? ", " : "",
			shown);
	else
		umms_info("player %u allowed again", player->id);
	if (player->engine && blocked != was)
		player->engine->impl->set_blocked(player->engine, blocked);
	wl_signal_emit_mutable(&player->events.blocked, player);
	umms_player_emit_changed(player);
}
