/*
 * Where the player is in its media: Seek, SetPosition and StepFrame
 * (player.h), checked here, carried out by the engine.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include "error.h"
#include "player.h"
#include "player-private.h"
#include "timeshift.h"

static bool
need_seekable(struct umms_player *player, GError **error)
{
	if (!umms_player_need_media(player, error))
		return false;
	if (!umms_player_seekable(player)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			player->engine->info.live ? "a live stream cannot seek" :
			"this media cannot seek");
		return false;
	}
	return true;
}

bool
umms_player_request_position(struct umms_player *player, int64_t position,
	umms_player_done_fn done, void *data, GError **error)
{
	if (!player->engine->impl->seek(player->engine, position, error))
		return false;
	umms_player_push_answered(player, REQUEST_SEEK, player->state, done, data);
	return true;
}

bool
umms_player_seek(struct umms_player *player, int64_t offset,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	if (!need_seekable(player, error))
		return false;
	int64_t now = umms_player_get_position(player);
	/* Any offset a client sends (MPRIS Seek INT64_MIN too): saturated, never overflowed. */
	int64_t position;
	if (__builtin_add_overflow(now, offset, &position))
		position = offset < 0 ? INT64_MIN : INT64_MAX;
	/* Time-shifted, the window is the bound (checked below), not the media's ends. */
	if (!umms_timeshift_enabled(player->timeshift)) {
		int64_t duration = player->engine->info.duration;
		position = MAX(position, 0);
		if (duration >= 0 && position > duration)
			position = duration;
	}
	if (!umms_timeshift_check_position(player->timeshift, &position, error))
		return false;
	return umms_player_request_position(player, position, done, data, error);
}

bool
umms_player_set_position(struct umms_player *player, int64_t position,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	if (!need_seekable(player, error))
		return false;
	int64_t duration = player->engine->info.duration;
	if (!umms_timeshift_enabled(player->timeshift) &&
			(position < 0 || (duration >= 0 && position > duration))) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"position %.3f s is outside the media (0 to %.3f s)",
			position / 1e6, duration / 1e6);
		return false;
	}
	if (!umms_timeshift_check_position(player->timeshift, &position, error))
		return false;
	return umms_player_request_position(player, position, done, data, error);
}

bool
umms_player_step(struct umms_player *player, int frames,
	umms_player_done_fn done, void *data, GError **error)
{
	umms_player_touch(player);
	if (!umms_player_need_media(player, error))
		return false;
	if (frames == 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"StepFrame needs a number of frames other than 0");
		return false;
	}
	if (!umms_player_has_video(player)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"this media has no video to step through");
		return false;
	}
	/* Stepping shows single frames: the player ends up paused. */
	if (!player->engine->impl->set_state(player->engine, UMMS_ENGINE_PAUSED, error) ||
			!player->engine->impl->step(player->engine, frames, error))
		return false;
	umms_player_push_request(player, REQUEST_STATE, UMMS_PLAYER_PAUSED, NULL, NULL);
	umms_player_push_answered(player, REQUEST_SEEK, UMMS_PLAYER_PAUSED, done, data);
	return true;
}
