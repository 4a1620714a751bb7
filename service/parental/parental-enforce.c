/*
 * Parental control's enforcement (parental.h): for each player the manager
 * makes, what it shows now and whether that may be shown.
 *
 * What it shows comes from its Uri: the guide's channel whose URI it is
 * (dvb://NAME, a playlist's URL: a locked channel is blocked however it
 * is reached), and the programme on that channel now by the guide's times
 * (XMLTV, or EIT present/following read from the stream itself). A URI
 * that is no channel is the user's own media: not TV, never "unrated".
 *
 * When it is looked at again:
 *  - SetUri, through a gate (player.h umms_player_gate), before anything
 *    is opened: the engine is blocked from the first buffer;
 *  - the policy changed (Parental1 settings, locks, an Unlock);
 *  - the programme ends or the next begins: a timer at that time, not a tick;
 *  - the guide says now/next of the channel changed (EIT present/following
 *    of the stream, an import), or its content changed.
 * The verdict goes to umms_player_set_blocked, which changes nothing when
 * it is the same.
 *
 * A recording's file played back (file:// of one of its parts) is judged
 * by what the recorder stored with it (recorder.h umms_recorder_find_rating):
 * its channel (a lock holds) and the highest rating it covered.
 *
 * Time-shift: a player that plays its ring shows a moment of the past: its
 * wall-clock time is taken as now less how far Position is behind the
 * window's end (TimeshiftWindow) less the HLS demuxer's margin of three
 * files ([recording] timeshift-segment), an estimate within about a file.
 * The programme of that moment is judged, the timer set by it, and a seek
 * or time-shift starting or ending looks again.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include "guide.h"
#include "log.h"
#include "parental.h"
#include "player.h"
#include "recorder.h"
#include "source.h"
#include "timeshift.h"

/* A timer further out than this is set again when it fires (g_timeout's range). */
#define MAX_TIMER_MS (60u * 60u * 1000u)

struct umms_parental_enforcer {
	struct umms_parental *parental;
	struct umms_guide *guide;
	struct umms_recorder *recorder;
	struct wl_list players;        /* struct watched.link */
	struct wl_listener policy_changed, guide_changed, now_next;
};

struct watched {
	struct umms_parental_enforcer *enforcer;
	struct umms_player *player;
	char *path;
	char *uri;                     /* what it shows (the gate's), NULL none yet */
	int64_t channel;               /* the guide's, 0 none */
	GSource *timer;                /* at the programme's end or the next one's start */
	bool shifted;                  /* it plays its time-shift ring: shows the past */
	bool opening;                  /* in the gate: a new URI, shown live (SetUri ends time-shift) */
	bool allow_pending;            /* allowed, but the URI not taken yet: still blocked */
	GSource *settle;               /* after SetUri: settle_cb */
	struct umms_player_gate gate;
	struct wl_listener destroy, seeked, changed;
	struct wl_list link;
};

static gboolean timer_cb(gpointer data);

/*
 * The wall-clock time of what @w's player shows at @now: @now, or in
 * time-shift the moment of its ring it is at (see the top of the file).
 */
static int64_t
moment_shown(struct watched *w, int64_t now)
{
	struct umms_player *player = w->player;
	int64_t start, end;
	w->shifted = !w->opening && umms_timeshift_enabled(player->timeshift) &&
		umms_timeshift_get_window(player->timeshift, &start, &end);
	if (!w->shifted)
		return now;
	int64_t position = umms_player_get_position(player);
	int64_t margin = 3 * (int64_t)player->config->recording.timeshift_segment * G_USEC_PER_SEC;
	return now - MAX(end - position, 0) - margin;
}

/*
 * Looks at what @w shows at the wall-clock time now and blocks or allows
 * it; with !@may_allow (a URI not opened yet) it only blocks, and an
 * allowed verdict waits for settle().
 */
static void
judge(struct watched *w, bool may_allow)
{
	struct umms_parental_enforcer *enforcer = w->enforcer;
	umms_source_clear(&w->timer);
	if (!w->uri)
		return;
	int64_t now = moment_shown(w, g_get_real_time());
	struct umms_parental_content content = {
		.uri = w->uri,
		.min_age = -1,
	};
	/* The guide's strings live until its next call: copied. */
	g_autofree char *system = NULL, *rating = NULL;
	int64_t change_at = -1;
	w->channel = umms_guide_find_channel_by_uri(enforcer->guide, w->uri);
	if (w->channel) {
		content.channel = w->channel;
		content.tv = true;
		struct umms_guide_programme p;
		int64_t next_start = -1;
		if (umms_guide_programme_at(enforcer->guide, w->channel, now, &p, &next_start)) {
			content.programme = p.id;
			system = g_strdup(p.rating_system);
			rating = g_strdup(p.rating);
			content.min_age = p.min_age;
			change_at = p.stop_us;
		}
		if (next_start > 0 && (change_at < 0 || next_start < change_at))
			change_at = next_start;
	} else if (g_str_has_prefix(w->uri, "file:")) {
		/* A recording's file: the rating stored with it (recorder.h). */
		g_autofree char *path = g_filename_from_uri(w->uri, NULL, NULL);
		struct umms_recorder_rating stored;
		if (path && umms_recorder_find_rating(enforcer->recorder, path, &stored)) {
			content.channel = stored.channel;
			content.tv = true;
			system = g_steal_pointer(&stored.rating_system);
			rating = g_steal_pointer(&stored.rating);
			content.min_age = stored.min_age;
			umms_recorder_rating_clear(&stored);
		}
	}
	content.rating_system = system;
	content.rating = rating;

	struct umms_parental_verdict verdict = { 0 };
	umms_parental_check(enforcer->parental, w->path, &content, &verdict);
	umms_debug("parental: %s shows %s%s (channel %" G_GINT64_FORMAT ", programme %"
		G_GINT64_FORMAT ", %s %s, age %d): %s", w->path, w->uri,
		w->shifted ? " in time-shift" : "", content.channel,
		content.programme, system ? system : "-", rating ? rating : "-", content.min_age,
		verdict.blocked ? verdict.reason : "allowed");
	w->allow_pending = !may_allow && !verdict.blocked && w->player->blocked;
	if (!w->allow_pending)
		umms_player_set_blocked(w->player, verdict.blocked ? verdict.reason : NULL,
			verdict.blocked ? verdict.rating : NULL);

	if (change_at > 0) {
		/* In time-shift the moment shown moves at the clock's pace too (while playing). */
		int64_t ms = (change_at - now + 999) / 1000;
		ms = CLAMP(ms, 1, (int64_t)MAX_TIMER_MS);
		w->timer = umms_source_timeout((unsigned)ms, timer_cb, w);
	}
}

static void
check(struct watched *w)
{
	judge(w, true);
}

static gboolean
timer_cb(gpointer data)
{
	struct watched *w = data;
	umms_source_forget(&w->timer);
	check(w);
	return G_SOURCE_REMOVE;
}

/*
 * After SetUri returned: the URI refused (the player's is another), what
 * it shows is judged again; taken, an allowed verdict applies now.
 */
static gboolean
settle_cb(gpointer data)
{
	struct watched *w = data;
	umms_source_forget(&w->settle);
	const char *uri = w->player->uri;
	if (g_strcmp0(uri, w->uri) != 0) {
		g_free(w->uri);
		w->uri = g_strdup(uri);
		check(w);
	} else if (w->allow_pending) {
		check(w);
	}
	return G_SOURCE_REMOVE;
}

static bool
gate_set_uri(struct umms_player_gate *gate, struct umms_player *player, const char *uri,
	GError **error)
{
	struct watched *w = wl_container_of(gate, w, gate);
	g_free(w->uri);
	w->uri = g_strdup(uri);
	/*
	 * Blocked now, before anything opens; allowed only once the URI is the
	 * player's: a later gate, the resource manager or the open may still
	 * refuse it, and what plays now must not be let out meanwhile.
	 */
	w->opening = true;
	judge(w, false);
	w->opening = false;
	if (!w->settle) {
		w->settle = umms_source_idle(settle_cb, w);
		g_source_set_priority(w->settle, G_PRIORITY_HIGH);
	}
	/* Parental control blocks; it does not refuse. */
	return true;
}

/* A seek moves the moment shown. */
static void
on_seeked(struct wl_listener *listener, void *data)
{
	struct watched *w = wl_container_of(listener, w, seeked);
	check(w);
}

/* Time-shift started or stopped playing the ring: the moment shown jumped. */
static void
on_changed(struct wl_listener *listener, void *data)
{
	struct watched *w = wl_container_of(listener, w, changed);
	int64_t start, end;
	bool shifted = umms_timeshift_enabled(w->player->timeshift) &&
		umms_timeshift_get_window(w->player->timeshift, &start, &end);
	if (shifted != w->shifted)
		check(w);
}

static void
watched_free(struct watched *w)
{
	wl_list_remove(&w->link);
	wl_list_remove(&w->destroy.link);
	wl_list_remove(&w->seeked.link);
	wl_list_remove(&w->changed.link);
	wl_list_remove(&w->gate.link);
	umms_source_clear(&w->timer);
	umms_source_clear(&w->settle);
	umms_parental_forget_player(w->enforcer->parental, w->path);
	g_free(w->uri);
	g_free(w->path);
	g_free(w);
}

static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct watched *w = wl_container_of(listener, w, destroy);
	watched_free(w);
}

static void
check_all(struct umms_parental_enforcer *enforcer)
{
	struct watched *w, *tmp;
	wl_list_for_each_safe(w, tmp, &enforcer->players, link)
		check(w);
}

static void
on_policy_changed(struct wl_listener *listener, void *data)
{
	struct umms_parental_enforcer *enforcer =
		wl_container_of(listener, enforcer, policy_changed);
	check_all(enforcer);
}

static void
on_guide_changed(struct wl_listener *listener, void *data)
{
	struct umms_parental_enforcer *enforcer =
		wl_container_of(listener, enforcer, guide_changed);
	check_all(enforcer);
}

/* EIT present/following (or an import) changed what is on @data's channel. */
static void
on_now_next(struct wl_listener *listener, void *data)
{
	struct umms_parental_enforcer *enforcer = wl_container_of(listener, enforcer, now_next);
	int64_t channel = *(const int64_t *)data;
	struct watched *w, *tmp;
	wl_list_for_each_safe(w, tmp, &enforcer->players, link) {
		if (w->channel == channel)
			check(w);
	}
}

struct umms_parental_enforcer *
umms_parental_enforcer_create(struct umms_parental *parental, struct umms_guide *guide,
	struct umms_recorder *recorder)
{
	struct umms_parental_enforcer *enforcer = g_new0(struct umms_parental_enforcer, 1);
	enforcer->parental = parental;
	enforcer->guide = guide;
	enforcer->recorder = recorder;
	wl_list_init(&enforcer->players);
	enforcer->policy_changed.notify = on_policy_changed;
	wl_signal_add(&umms_parental_get_events(parental)->changed, &enforcer->policy_changed);
	struct umms_guide_events *events = umms_guide_get_events(guide);
	enforcer->guide_changed.notify = on_guide_changed;
	wl_signal_add(&events->changed, &enforcer->guide_changed);
	enforcer->now_next.notify = on_now_next;
	wl_signal_add(&events->now_next, &enforcer->now_next);
	return enforcer;
}

void
umms_parental_enforcer_destroy(struct umms_parental_enforcer *enforcer)
{
	if (!enforcer)
		return;
	struct watched *w, *tmp;
	wl_list_for_each_safe(w, tmp, &enforcer->players, link)
		watched_free(w);
	wl_list_remove(&enforcer->policy_changed.link);
	wl_list_remove(&enforcer->guide_changed.link);
	wl_list_remove(&enforcer->now_next.link);
	g_free(enforcer);
}

void
umms_parental_enforcer_add_player(struct umms_parental_enforcer *enforcer,
	struct umms_player *player, const char *path)
{
	struct watched *w = g_new0(struct watched, 1);
	w->enforcer = enforcer;
	w->player = player;
	w->path = g_strdup(path);
	w->gate.set_uri = gate_set_uri;
	umms_player_add_gate(player, &w->gate);
	w->destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &w->destroy);
	w->seeked.notify = on_seeked;
	wl_signal_add(&player->events.seeked, &w->seeked);
	w->changed.notify = on_changed;
	wl_signal_add(&player->events.changed, &w->changed);
	wl_list_insert(&enforcer->players, &w->link);
	/* A player made with a Uri already (none is, today) is looked at now. */
	if (player->uri) {
		w->uri = g_strdup(player->uri);
		check(w);
	}
}
