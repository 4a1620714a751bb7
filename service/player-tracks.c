/*
 * A player's tracks and subtitles (player.h): which track of each kind
 * plays, an external subtitle file, the subtitles' delay.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include "error.h"
#include "log.h"
#include "player.h"
#include "player-private.h"

/* SelectTrack of subtitle @index (-1: off) of the media's tracks as they are now. */
static void
remember_pick(struct umms_player *player, int index)
{
	GPtrArray *tracks = player->engine->info.tracks[UMMS_TRACK_SUBTITLE];
	const struct umms_track *track = index >= 0 ? tracks->pdata[index] : NULL;
	player->subtitle_track = index;
	player->subtitle_pick = index == -1 ? UMMS_SUBTITLE_OFF :
		track->external ? UMMS_SUBTITLE_EXTERNAL : UMMS_SUBTITLE_TRACK;
}

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
	if (kind == UMMS_TRACK_SUBTITLE)
		remember_pick(player, index);
	umms_player_push_request(player, REQUEST_OTHER, player->state, done, data);
	return true;
}

struct subtitle_request {
	struct umms_player *player;
	char *uri;                 /* NULL: removed */
	umms_player_done_fn done;
	void *data;
};

/*
 * SetSubtitleUri answered: a file that did not load is no choice to keep
 * (unless another came since, or the media was opened again meanwhile and
 * loads it anew).
 */
static void
subtitle_uri_done(const GError *error, void *data)
{
	struct subtitle_request *request = data;
	struct umms_player *player = request->player;
	if (error && request->uri && !player->reopening &&
			g_strcmp0(player->subtitle_uri, request->uri) == 0)
		umms_player_forget_subtitles(player);
	if (request->done)
		request->done(error, request->data);
	g_free(request->uri);
	g_free(request);
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
	struct subtitle_request *request = g_new0(struct subtitle_request, 1);
	request->player = player;
	request->uri = g_strdup(uri);
	request->done = done;
	request->data = data;
	/* Chosen now: a reopen before it loaded loads it again. */
	g_free(player->subtitle_uri);
	player->subtitle_uri = g_steal_pointer(&uri);
	if (player->subtitle_uri)
		player->subtitle_pick = UMMS_SUBTITLE_EXTERNAL;
	else if (player->subtitle_pick == UMMS_SUBTITLE_EXTERNAL)
		player->subtitle_pick = UMMS_SUBTITLE_DEFAULT;
	umms_player_push_request(player, REQUEST_OTHER, player->state, subtitle_uri_done,
		request);
	return true;
}

void
umms_player_forget_subtitles(struct umms_player *player)
{
	g_clear_pointer(&player->subtitle_uri, g_free);
	player->subtitle_pick = UMMS_SUBTITLE_DEFAULT;
	player->subtitle_track = -1;
}

void
umms_player_restore_subtitles(struct umms_player *player)
{
	struct umms_engine *engine = player->engine;
	g_autoptr(GError) error = NULL;
	if (player->subtitle_uri &&
			!engine->impl->set_subtitle_uri(engine, player->subtitle_uri, &error)) {
		umms_warn("player %u: subtitles %s not loaded again: %s", player->id,
			player->subtitle_uri, error->message);
		umms_player_forget_subtitles(player);
		return;
	}
	int index = player->subtitle_pick == UMMS_SUBTITLE_OFF ? -1 :
		player->subtitle_pick == UMMS_SUBTITLE_TRACK ? player->subtitle_track : -2;
	if (index != -2 && !engine->impl->select_track(engine, UMMS_TRACK_SUBTITLE, index, &error))
		umms_warn("player %u: subtitle track %d not chosen again: %s", player->id, index,
			error->message);
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
