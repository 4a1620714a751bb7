/*
 * What the player's own files share (player.c, player-tracks.c): the
 * queue of requests waiting for the engine to settle, and the checks and
 * signals every request uses. Not for the rest of the service: player.h.
 */
#ifndef UMMS_SERVICE_PLAYER_PRIVATE_H
#define UMMS_SERVICE_PLAYER_PRIVATE_H

#include <stdbool.h>
#include <glib.h>

#include "player.h"

enum request_kind {
	REQUEST_OPEN,
	REQUEST_STATE,   /* Play, Pause, Stop: sets state once done */
	REQUEST_SEEK,    /* Seek, SetPosition, StepFrame: Seeked once done */
	REQUEST_OTHER,
};

/*
 * While the clock stands, the frame on screen is made again (seeking to
 * where the player is), once the requests in flight settle (player.c).
 */
void umms_player_redraw_still(struct umms_player *player);
/* Waits for the engine to settle, then calls @done (may be NULL) with the outcome. */
void umms_player_push_request(struct umms_player *player, enum request_kind kind,
	enum umms_player_state state, umms_player_done_fn done, void *data);
/*
 * The same for a request a caller waits on: on a network source the caller
 * is answered after [engine] reply-timeout if it has not settled by then.
 */
void umms_player_push_answered(struct umms_player *player, enum request_kind kind,
	enum umms_player_state state, umms_player_done_fn done, void *data);
/* Seeks to @position µs (player-seek.c); the caller has checked it. */
bool umms_player_request_position(struct umms_player *player, int64_t position,
	umms_player_done_fn done, void *data, GError **error);
/* True if the player has media; else InvalidState ("call SetUri first"). */
bool umms_player_need_media(struct umms_player *player, GError **error);
/* SetUri: the subtitles chosen for the old media go (player-tracks.c). */
void umms_player_forget_subtitles(struct umms_player *player);
/* The media opened anew: its subtitles as they were chosen. */
void umms_player_restore_subtitles(struct umms_player *player);
/* Makes its time-shift, off (player-timeshift.c). */
void umms_player_timeshift_init(struct umms_player *player);
/* The gates' say on SetUri of @uri, on Play (player-content.c). */
bool umms_player_ask_gates_uri(struct umms_player *player, const char *uri, GError **error);
bool umms_player_ask_gates_play(struct umms_player *player, GError **error);
/* Its properties may have changed: events.changed. */
void umms_player_emit_changed(struct umms_player *player);

#endif
