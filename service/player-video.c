/*
 * What the player's frames are made for (player.h): the formats and
 * dma-bufs their consumers take and the size they are shown at, kept
 * across engines and passed to the engine there is; a paused picture
 * made again when they change.
 */
#include <string.h>

#include "player.h"
#include "player-private.h"

bool
umms_player_set_video_output(struct umms_player *player, bool wanted,
	const uint32_t *formats, size_t n, GError **error)
{
	bool changed = wanted && (!player->video_wanted || n != player->n_video_formats ||
		(n && memcmp(formats, player->video_formats, n * sizeof(*formats)) != 0));
	if (player->engine && !player->engine->impl->set_video_output(player->engine, wanted,
			formats, n, error))
		return false;
	player->video_wanted = wanted;
	g_free(player->video_formats);
	player->video_formats = n ? g_memdup2(formats, n * sizeof(*formats)) : NULL;
	player->n_video_formats = wanted ? n : 0;
	if (changed)
		umms_player_redraw_still(player);
	return true;
}

void
umms_player_set_video_size(struct umms_player *player, unsigned max_width, unsigned max_height)
{
	if (max_width == 0 || max_height == 0)
		max_width = max_height = 0;
	if (max_width == player->video_max_width && max_height == player->video_max_height)
		return;
	player->video_max_width = max_width;
	player->video_max_height = max_height;
	if (!player->engine || !player->engine->impl->set_video_size)
		return;
	player->engine->impl->set_video_size(player->engine, max_width, max_height);
	if (player->video_wanted)
		umms_player_redraw_still(player);
}

void
umms_player_set_video_dmabuf(struct umms_player *player, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n)
{
	if (any)
		n = 0;
	bool changed = any != !player->dmabuf_restricted || n != player->n_dmabuf_formats ||
		(n && memcmp(formats, player->dmabuf_formats, n * sizeof(*formats)) != 0);
	if (!changed)
		return;
	player->dmabuf_restricted = !any;
	g_free(player->dmabuf_formats);
	player->dmabuf_formats = n ? g_memdup2(formats, n * sizeof(*formats)) : NULL;
	player->n_dmabuf_formats = n;
	if (player->engine && player->engine->impl->set_video_dmabuf)
		player->engine->impl->set_video_dmabuf(player->engine, any, formats, n);
}

void
umms_player_redraw(struct umms_player *player)
{
	if (player->video_wanted)
		umms_player_redraw_still(player);
}
