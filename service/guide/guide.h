/*
 * The programme guide: channels and programmes kept in ummsd's SQLite
 * database (the [recording] database file, tables of its own), exported as
 * org.umms.Guide1 on /org/umms (protocol/org.umms.Guide1.xml).
 *
 * What fills it: ImportM3U and ImportXMLTV (guide-m3u.c, guide-xmltv.c),
 * the EIT sections players and recordings read from MPEG-TS
 * (umms_guide_put_eit), and a DVB channel scan (umms_guide_put_channel).
 * What reads it: applications over D-Bus, the recorder (ScheduleProgramme
 * and series rules, which listen to events.changed) and umms-kiosk's
 * now/next.
 *
 * Times are UTC, microseconds since 1970. Strings handed out by getters
 * live until the next call into the guide unless said otherwise; copy what
 * you keep. The guide runs on the thread-default main context of the
 * thread that created it.
 *
 * This header is the contract the guide's other users (EIT, DVB scan,
 * recorder) are written against: change a signature only together with
 * every caller.
 */
#ifndef UMMS_SERVICE_GUIDE_H
#define UMMS_SERVICE_GUIDE_H

#include <stdbool.h>
#include <stdint.h>
#include <gio/gio.h>
#include <wayland-server-core.h>

#include "config.h"

struct umms_guide;

/* A DVB service's identity; -1 members: none (an IPTV or XMLTV-only channel). */
struct umms_guide_dvb_ids {
	int onid;  /* original_network_id */
	int tsid;  /* transport_stream_id */
	int sid;   /* service_id (program_number) */
};

struct umms_guide_channel {
	int64_t id;              /* the row's; 0 when putting a new one */
	const char *number;      /* "7", "101", "1.2"; NULL or "" when none */
	const char *name;        /* never NULL */
	const char *logo;        /* URI or NULL */
	const char *groups;      /* group names separated by ';', or NULL */
	const char *uri;         /* what a player opens: http://…, udp://…, dvb://NAME */
	const char *xmltv_id;    /* tvg-id / XMLTV channel id, or NULL */
	int shift_minutes;       /* tvg-shift: added to this channel's XMLTV times */
	const char *source;      /* who put it: "m3u:PATH", "dvb-scan", … */
	struct umms_guide_dvb_ids dvb;
};

struct umms_guide_programme {
	int64_t id;              /* the row's, stable across re-imports and EIT updates */
	int64_t channel;         /* the channel's id; 0: a DVB service no channel names yet */
	int64_t start_us;
	int64_t stop_us;
	const char *title;
	const char *sub_title;   /* or NULL */
	const char *description; /* or NULL */
	const char *categories;  /* separated by ';', or NULL */
	const char *episode;     /* normalised "S<season>E<episode>" (either part may be
	                          * missing: "E12"), or NULL when unknown */
	const char *series_id;   /* a series CRID or XMLTV series id, or NULL */
	const char *rating_system; /* "DVB", "MPAA", "FSK"…, or NULL */
	const char *rating;      /* the scheme's value as given ("12", "PG-13"), or NULL */
	int min_age;             /* the age the rating means, -1: none or unknown */
	struct umms_guide_dvb_ids dvb;
	int event_id;            /* EIT event_id, -1: not from EIT */
	bool previously_shown;   /* a repeat: XMLTV <previously-shown> without <new> */
};

/* One event of an EIT section, as the EIT reader decoded it. */
struct umms_guide_eit_event {
	int event_id;
	int64_t start_us;
	int64_t duration_us;
	int running_status;      /* 0–4 as EN 300 468 says; 4: running */
	const char *title;       /* short_event_descriptor's event_name (UTF-8) */
	const char *sub_title;   /* its text, or NULL */
	const char *description; /* extended_event_descriptors' text joined, or NULL */
	const char *categories;  /* content_descriptor nibbles as names, ';', or NULL */
	const char *series_id;   /* content_identifier_descriptor's series CRID, or NULL */
	const char *episode;     /* as umms_guide_programme's, or NULL */
	const char *rating_country; /* parental_rating_descriptor's country code, or NULL */
	int rating_raw;          /* its rating byte as broadcast, -1: no descriptor */
	int min_age;             /* 0x01–0x0F → rating + 3; else -1 (undefined, or the
	                          * broadcaster's own 0x10–0xFF: kept in rating_raw) */
};

/* One EIT section (or the events of several with the same table and version). */
struct umms_guide_eit {
	struct umms_guide_dvb_ids dvb;
	int table_id;            /* 0x4E present/following actual, 0x50–0x5F schedule… */
	int version;             /* version_number, 0–31 */
	int section_number;
	bool present_following;  /* table 0x4E or 0x4F: events[0] is now, events[1] next */
	const struct umms_guide_eit_event *events;
	size_t n_events;
};

struct umms_guide_events {
	/*
	 * The guide's content changed: after an import, a batch of EIT
	 * updates, a scan. Data: NULL. Listeners (the recorder's series rules)
	 * look again at what they care about; programmes keep their ids.
	 */
	struct wl_signal changed;
	/* Now or next of channel changed. Data: int64_t * (the channel id). */
	struct wl_signal now_next;
};

/* Opens the guide's tables in @config's database and exports Guide1. */
struct umms_guide *umms_guide_create(const struct umms_config *config,
	GDBusConnection *connection, GError **error);
/* NULL: no-op. */
void umms_guide_destroy(struct umms_guide *guide);

struct umms_guide_events *umms_guide_get_events(struct umms_guide *guide);

/*
 * Adds @channel, or updates the channel of the same URI (or, for a DVB
 * service, of the same ids); its id is set in @channel. False with @error.
 */
bool umms_guide_put_channel(struct umms_guide *guide, struct umms_guide_channel *channel,
	GError **error);

/*
 * The channel whose URI is @uri carries DVB service @dvb (the EIT of an
 * IPTV stream names it): a channel without DVB ids takes these, and the
 * programmes EIT put for that service before become its. @channel (may be
 * NULL): that channel's id, 0 when no channel has that URI (nothing done).
 * False with @error only when the database fails.
 */
bool umms_guide_link_service(struct umms_guide *guide, const char *uri,
	const struct umms_guide_dvb_ids *dvb, int64_t *channel, GError **error);

/*
 * Stores what an EIT section says. A version already seen for that
 * service, table and section changes nothing (returns true). Programmes
 * are keyed by (onid, tsid, sid, event id): a moved event keeps its
 * programme id. Emits changed (and now_next where it applies) once the
 * main loop is idle, so a burst of sections makes one emission.
 */
bool umms_guide_put_eit(struct umms_guide *guide, const struct umms_guide_eit *eit,
	GError **error);

/* Programme @id into @out (strings valid until the next call). False: no such programme. */
bool umms_guide_get_programme(struct umms_guide *guide, int64_t id,
	struct umms_guide_programme *out);
/* Channel @id into @out (strings as above). False: no such channel. */
bool umms_guide_get_channel(struct umms_guide *guide, int64_t id,
	struct umms_guide_channel *out);

/*
 * The id of the channel whose URI is @uri exactly (the M3U's URL, a scan's
 * dvb://NAME); the oldest when several have it. 0: none.
 */
int64_t umms_guide_find_channel_by_uri(struct umms_guide *guide, const char *uri);
/*
 * The programme on @channel at @at_us (start <= at < stop) into @out
 * (strings as umms_guide_get_programme's); false when none is. @next_start_us
 * (may be NULL): the start of the first programme after @at_us, -1 none,
 * so a caller knows when what is on changes even across a gap.
 */
bool umms_guide_programme_at(struct umms_guide *guide, int64_t channel, int64_t at_us,
	struct umms_guide_programme *out, int64_t *next_start_us);

typedef bool (*umms_guide_programme_fn)(const struct umms_guide_programme *programme,
	void *data);
/*
 * Calls @fn for each programme starting at or after @from_us (and before
 * @to_us, -1: no end) on channel @channel (0: every channel), in start
 * order; @fn returns false to stop. Strings are valid during the call.
 */
void umms_guide_for_each_programme(struct umms_guide *guide, int64_t channel,
	int64_t from_us, int64_t to_us, umms_guide_programme_fn fn, void *data);

#endif
