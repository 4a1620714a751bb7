/*
 * A player's tracks and subtitles (player.h): which track of each kind
 * plays, an external subtitle file, the subtitles' delay.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include "error.h"
#include "player.h"
#include "player-private.h"

bool
umms_player_select_track(struct umms_player *player, const char *kind_name, int index,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	enum umms_track_kind kind;
	if (!umms_track_kind_parse(kind_name, &kind)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"unknown track kind \"%s\" (video, audio or subtitle)", kind_name);
		return false;
	}
	if (!umms_player_need_media(player, error))
		return false;
	int count = (int)player->engine->info.tracks[kind]->len;
	if (index == -1 && kind != UMMS_TRACK_SUBTITLE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"only subtitles can be turned off with -1");
		return false;
	}
	if (index < -1 || index >= count) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"no %s track %d: the media has %d", kind_name, index, count);
		return false;
	}
	if (!player->engine->impl->select_track(player->engine, kind, index, error))
		return false;
	umms_player_push_request(player, REQUEST_OTHER, player->state, done, data);
	return true;
}

bool
umms_player_set_subtitle_uri(struct umms_player *player, const char *text,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	if (!umms_player_need_media(player, error))
		return false;
	g_autofree char *uri = NULL;
	if (text[0] && !(uri = umms_player_normalize_uri(text, error)))
		return false;
	if (!player->engine->impl->set_subtitle_uri(player->engine, uri, error))
		return false;
	umms_player_push_request(player, REQUEST_OTHER, player->state, done, data);
	return true;
}

bool
umms_player_set_subtitle_delay(struct umms_player *player, int64_t delay, GError **error)
{
	umms_player_touch(player);
	if (delay < -UMMS_PLAYER_MAX_SUBTITLE_DELAY || delay > UMMS_PLAYER_MAX_SUBTITLE_DELAY) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a subtitle delay of %" G_GINT64_FORMAT " µs is beyond ±%d s", delay,
			(int)(UMMS_PLAYER_MAX_SUBTITLE_DELAY / G_USEC_PER_SEC));
		return false;
	}
	player->subtitle_delay = delay;
	if (player->engine && player->engine->impl->set_subtitle_delay)
		player->engine->impl->set_subtitle_delay(player->engine, delay);
	umms_player_emit_changed(player);
	return true;
}
