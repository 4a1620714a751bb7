/*
 * Imports of M3U playlists and XMLTV files: read and parsed on a thread
 * (guide-m3u.c, guide-xmltv.c fill a struct guide_parsed and touch nothing
 * else), then applied to the tables on the guide's thread in steps of a
 * transaction each (guide-apply.c), rows that already say the same left
 * alone.
 */
#ifndef UMMS_SERVICE_GUIDE_IMPORT_H
#define UMMS_SERVICE_GUIDE_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <gio/gio.h>

struct umms_guide;

enum guide_import_kind {
	GUIDE_IMPORT_M3U,
	GUIDE_IMPORT_XMLTV,
};

/* An M3U entry, or an XMLTV <channel>. */
struct guide_parsed_channel {
	char *key;            /* XMLTV: its id */
	char *number;
	char *name;           /* M3U: after the comma; XMLTV: the first display-name */
	char **names;         /* XMLTV: every display-name */
	char *logo;
	char *groups;
	char *uri;
	char *xmltv_id;       /* tvg-id */
	char *epg_name;       /* tvg-name */
	int shift_minutes;
};

struct guide_parsed_programme {
	char *channel;        /* the XMLTV channel id */
	int64_t start_us;     /* UTC, before the channel's tvg-shift */
	int64_t stop_us;      /* -1: not given */
	char *title;
	char *sub_title;
	char *description;
	char *categories;
	char *episode;
	char *series_id;
	char *rating_system;
	char *rating;
	int min_age;
	bool previously_shown; /* <previously-shown> and no <new> */
	bool new;              /* <new>: a first showing, whatever else it says */
};

struct guide_parsed {
	GPtrArray *channels;   /* struct guide_parsed_channel * */
	GPtrArray *programmes; /* struct guide_parsed_programme * */
	unsigned skipped;      /* programmes left out (no title, bad times) */
	unsigned warnings;     /* local times that do not exist or occur twice */
};

void guide_parsed_init(struct guide_parsed *parsed);
void guide_parsed_finish(struct guide_parsed *parsed);

/*
 * Opens @path for an import: absolute, a regular file, at most @max_bytes.
 * NotFound, AccessDenied or InvalidArgument naming the problem.
 */
int guide_import_open(const char *path, uint64_t max_bytes, GError **error);

/* guide-m3u.c: the playlist in @data (@length bytes, NUL-terminated). */
bool guide_m3u_parse(const char *data, size_t length, struct guide_parsed *out,
	GError **error);
/*
 * guide-xmltv.c: the XMLTV document read from @fd (up to @max_bytes; owned:
 * closed), offset-less times read in @zone.
 */
bool guide_xmltv_parse(int fd, uint64_t max_bytes, GTimeZone *zone, struct guide_parsed *out,
	GError **error);
/* "20250330010000 +0100" → µs since 1970 UTC; @warned: the local time was odd. */
bool guide_xmltv_time(const char *text, GTimeZone *zone, int64_t previous_us, int64_t *out,
	bool *warned);

/*
 * Runs an import for a Guide1 call: parsed on a thread, then applied a step
 * at a time from the main loop, one import after the other; replies to
 * @invocation when done.
 */
void guide_import_start(struct umms_guide *guide, enum guide_import_kind kind,
	const char *path, GDBusMethodInvocation *invocation);
/* The guide goes: imports waiting are answered Failed; threads' results are dropped. */
void guide_import_finish(struct umms_guide *guide);

/* guide-apply.c: @parsed applied (kept by the caller until freed). */
struct guide_apply;
enum guide_apply_status {
	GUIDE_APPLY_MORE,
	GUIDE_APPLY_DONE,
	GUIDE_APPLY_FAILED,
};
struct guide_apply *guide_apply_new(struct umms_guide *guide, enum guide_import_kind kind,
	const char *path, struct guide_parsed *parsed);
/* One step, in a transaction of its own. */
enum guide_apply_status guide_apply_step(struct guide_apply *apply, GError **error);
/* What Guide1's import methods return (a{sv}, floating), once done. */
GVariant *guide_apply_result(struct guide_apply *apply);
void guide_apply_free(struct guide_apply *apply);

#endif
