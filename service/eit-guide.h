/*
 * The EIT sections players and recordings read (engine events.eit, eit.h)
 * into the programme guide (guide/guide.h): the manager watches each
 * player, and the recorder, through one of these. A present/following
 * section of the stream itself (table 0x4E) also links the channel whose
 * URI is the one read to the service it names (umms_guide_link_service):
 * an IPTV channel from a playlist has no DVB ids until its stream says.
 */
#ifndef UMMS_SERVICE_EIT_GUIDE_H
#define UMMS_SERVICE_EIT_GUIDE_H

#include <wayland-server-core.h>

struct umms_guide;
struct umms_player;
struct umms_recorder;

struct umms_eit_guide {
	struct umms_guide *guide;
	struct umms_player *player;   /* NULL: the recorder's */
	struct wl_listener eit;
};

/* @player's sections (its Uri the stream's) into @guide (NULL: none), until finish. */
void umms_eit_guide_watch_player(struct umms_eit_guide *link, struct umms_guide *guide,
	struct umms_player *player);
/* The recorder's running recordings' sections (umms_recorder_get_eit_signal). */
void umms_eit_guide_watch_recorder(struct umms_eit_guide *link, struct umms_guide *guide,
	struct umms_recorder *recorder);
void umms_eit_guide_finish(struct umms_eit_guide *link);

#endif
