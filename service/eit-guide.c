/* Players' and recordings' EIT sections into the programme guide (eit-guide.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include "eit.h"
#include "eit-guide.h"
#include "guide.h"
#include "log.h"
#include "player.h"
#include "recorder.h"

static void
put(struct umms_guide *guide, const char *uri, const struct umms_eit *eit)
{
	struct umms_guide_dvb_ids dvb = { eit->onid, eit->tsid, eit->sid };
	g_autoptr(GError) error = NULL;
	/* The stream's own now/next names its service: the channel of this URI carries it. */
	int64_t channel = 0;
	if (eit->table_id == 0x4e && uri && !umms_guide_link_service(guide, uri, &dvb, &channel,
			&error)) {
		umms_warn("EIT: %s not linked to service %d/%d/%d: %s", uri, dvb.onid, dvb.tsid,
			dvb.sid, error->message);
		g_clear_error(&error);
	}
	struct umms_guide_eit_event *events = g_new0(struct umms_guide_eit_event,
		eit->n_events ? eit->n_events : 1);
	for (size_t i = 0; i < eit->n_events; i++) {
		const struct umms_eit_event *e = &eit->events[i];
		events[i] = (struct umms_guide_eit_event){
			.event_id = e->event_id,
			.start_us = e->start_us,
			.duration_us = e->duration_us,
			.running_status = e->running_status,
			.title = e->title ? e->title : "",
			.sub_title = e->sub_title,
			.description = e->description,
			.categories = e->categories,
			.series_id = e->series_id,
			.episode = NULL,
			.rating_country = e->rating_country,
			.rating_raw = e->rating_raw,
			.min_age = e->min_age,
		};
	}
	struct umms_guide_eit section = {
		.dvb = dvb,
		.table_id = eit->table_id,
		.version = eit->version,
		.section_number = eit->section_number,
		.present_following = eit->present_following,
		.events = events,
		.n_events = eit->n_events,
	};
	if (!umms_guide_put_eit(guide, &section, &error))
		umms_warn("EIT: service %d's section %d (table 0x%02x, version %d) not stored: %s",
			eit->sid, eit->section_number, (unsigned)eit->table_id, eit->version,
			error->message);
	else
		umms_debug("EIT: service %d/%d/%d table 0x%02x section %d version %d: %zu events",
			dvb.onid, dvb.tsid, dvb.sid, (unsigned)eit->table_id, eit->section_number,
			eit->version, eit->n_events);
	g_free(events);
}

static void
on_player_eit(struct wl_listener *listener, void *data)
{
	struct umms_eit_guide *link = wl_container_of(listener, link, eit);
	put(link->guide, link->player->uri, data);
}

static void
on_recorder_eit(struct wl_listener *listener, void *data)
{
	struct umms_eit_guide *link = wl_container_of(listener, link, eit);
	const struct umms_recorder_eit *event = data;
	put(link->guide, event->uri, event->eit);
}

void
umms_eit_guide_watch_player(struct umms_eit_guide *link, struct umms_guide *guide,
	struct umms_player *player)
{
	*link = (struct umms_eit_guide){ .guide = guide, .player = player };
	link->eit.notify = on_player_eit;
	if (guide)
		wl_signal_add(&player->events.eit, &link->eit);
	else
		wl_list_init(&link->eit.link);
}

void
umms_eit_guide_watch_recorder(struct umms_eit_guide *link, struct umms_guide *guide,
	struct umms_recorder *recorder)
{
	*link = (struct umms_eit_guide){ .guide = guide };
	link->eit.notify = on_recorder_eit;
	if (guide)
		wl_signal_add(umms_recorder_get_eit_signal(recorder), &link->eit);
	else
		wl_list_init(&link->eit.link);
}

void
umms_eit_guide_finish(struct umms_eit_guide *link)
{
	wl_list_remove(&link->eit.link);
	wl_list_init(&link->eit.link);
}
