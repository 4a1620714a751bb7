/*
 * Time-shift (timeshift.h): a ring recording of the live source, and the
 * player's engine moved onto its playlist once it exists.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_PLAYER

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "config.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "recording.h"
#include "source.h"
#include "timeshift.h"

#define WAIT_PERIOD_MS 100
/* How long the first file may take to come: a key frame, then a file's length. */
#define WAIT_MIN_MS 20000
/*
 * Complete files the ring holds beyond the one played first when the
 * engine starts on it. The HLS demuxer starts a live playlist three files
 * from its end, but at its first file while it lists fewer: played from
 * the moment the first file is listed, playback would run at the writer's
 * edge, each next file listed just about when it is due on screen, and
 * the demuxer, which reads the playlist again once a file's length, sees
 * it up to that much later: the picture stalls, then jumps, every file.
 * One file ahead keeps playback a file behind the writer, more than the
 * demuxer's lag in seeing a file, at the cost of a file's length more
 * before the ring is shown (the demuxer's own margin of two would cost
 * another; a later seek to the live edge gets that margin anyway).
 */
#define RING_LEAD 1

/* One player's time-shift: what it asks of the player, and while on, the ring. */
struct umms_timeshift {
	struct umms_timeshift_host host;
	struct shift *on;           /* NULL: off */
};

/* On: the ring, from start() to umms_timeshift_stop(). */
struct shift {
	struct umms_timeshift *owner;
	char *dir;
	char *playlist;             /* file:// URI of the ring's playlist */
	struct umms_recording *ring;
	struct wl_listener ring_changed;
	struct wl_listener ring_eit;
	GSource *wait_timer;        /* until the playlist lists enough files */
	gint64 wait_end;            /* monotonic µs */
	unsigned wait_ms;
	bool playing_ring;          /* the engine opened the playlist */
	bool ring_failed;           /* the ring stopped with an error: no more to come */
	int64_t announced[2];       /* the seek range TimeshiftWindow last changed with */
};

/* The ring's files, and its folder. */
static void
remove_ring(const char *dir)
{
	GDir *d = g_dir_open(dir, 0, NULL);
	if (!d)
		return;
	const char *name;
	while ((name = g_dir_read_name(d))) {
		if (!g_str_has_suffix(name, ".ts") && strcmp(name, UMMS_RECORDING_RING_PLAYLIST) &&
				strcmp(name, UMMS_RECORDING_RING_PLAYLIST_NEW))
			continue;
		g_autofree char *path = g_build_filename(dir, name, NULL);
		g_remove(path);
	}
	g_dir_close(d);
	g_rmdir(dir);
}

static void
emit_changed(struct umms_timeshift *owner)
{
	owner->host.changed(owner->host.data);
}

struct umms_timeshift *
umms_timeshift_create(const struct umms_timeshift_host *host)
{
	struct umms_timeshift *owner = g_new0(struct umms_timeshift, 1);
	owner->host = *host;
	return owner;
}

void
umms_timeshift_destroy(struct umms_timeshift *owner)
{
	if (!owner)
		return;
	umms_timeshift_stop(owner);
	g_free(owner);
}

void
umms_timeshift_stop(struct umms_timeshift *owner)
{
	struct shift *ts = owner ? owner->on : NULL;
	if (!ts)
		return;
	owner->on = NULL;
	umms_source_clear(&ts->wait_timer);
	if (ts->ring) {
		wl_list_remove(&ts->ring_changed.link);
		wl_list_remove(&ts->ring_eit.link);
		umms_recording_destroy(ts->ring);
	}
	remove_ring(ts->dir);
	umms_info("player %u: time-shift off", owner->host.id);
	g_free(ts->dir);
	g_free(ts->playlist);
	g_free(ts);
	emit_changed(owner);
}

static bool seek_range(struct umms_timeshift *owner, int64_t *start, int64_t *end);
static int64_t margin(struct umms_timeshift *owner);

/*
 * The ring wrote more: once the engine's seek range moved by a file's
 * length (hlsdemux moves its live end with the clock), the player's
 * properties are looked at again, so TimeshiftWindow is announced about
 * once a file rather than with every step.
 */
static void
announce_window(struct shift *ts)
{
	int64_t start, end, step = margin(ts->owner);
	if (!seek_range(ts->owner, &start, &end) ||
			(ABS(start - ts->announced[0]) < step && ABS(end - ts->announced[1]) < step))
		return;
	ts->announced[0] = start;
	ts->announced[1] = end;
	emit_changed(ts->owner);
}

/* An EIT section the ring read: the player's, as its engine would have read it. */
static void
ring_eit(struct wl_listener *listener, void *data)
{
	struct shift *ts = wl_container_of(listener, ts, ring_eit);
	const struct umms_timeshift_host *host = &ts->owner->host;
	if (host->eit)
		host->eit(host->data, data);
}

/*
 * The ring wrote more (announce_window), or ended (the source did, or
 * failed): wait_cb gives up, if still waiting.
 */
static void
ring_changed(struct wl_listener *listener, void *data)
{
	struct shift *ts = wl_container_of(listener, ts, ring_changed);
	if (ts->ring->state == UMMS_RECORDING_RECORDING) {
		announce_window(ts);
		return;
	}
	/* Ended: nothing more to hear (its bytes may still be reported once). */
	wl_list_remove(&ts->ring_changed.link);
	wl_list_init(&ts->ring_changed.link);
	ts->ring_failed = ts->ring->error != NULL;
	umms_log(ts->ring->error ? UMMS_LOG_WARNING : UMMS_LOG_INFO,
		"player %u: the time-shift ring stopped (%s)%s%s", ts->owner->host.id,
		umms_recording_state_name(ts->ring->state), ts->ring->error ? ": " : "",
		ts->ring->error ? ts->ring->error : "");
	/*
	 * Played from already: the playlist says it is complete (hlssink2 does
	 * when the source ends, not when it fails), so playback goes to its
	 * end and stops there, with Eos, instead of waiting for more.
	 */
	g_autofree char *text = NULL;
	if (ts->playing_ring && g_file_get_contents(ts->ring->path, &text, NULL, NULL) &&
			!strstr(text, "#EXT-X-ENDLIST")) {
		g_autofree char *ended = g_strconcat(text, "#EXT-X-ENDLIST\n", NULL);
		g_file_set_contents(ts->ring->path, ended, -1, NULL);
	}
}

/* Time-shift ends before it began: the source itself again, as the player was. */
static void
back_to_source(struct umms_timeshift *owner)
{
	const struct umms_timeshift_host *host = &owner->host;
	umms_timeshift_stop(owner);
	g_autoptr(GError) error = NULL;
	const char *uri = host->uri(host->data);
	if (!host->reopen(host->data, uri, &error))
		umms_warn("player %u: cannot reopen %s: %s", host->id, uri, error->message);
}

/* Files the playlist lists (0: none, or unreadable). */
static unsigned
ring_files(struct shift *ts)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(ts->ring->path, &text, NULL, NULL))
		return 0;
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, "#EXTINF")); p++)
		n++;
	return n;
}

/*
 * Whether to play the ring now: it lists the file to start with and
 * RING_LEAD more, or it ended (the source did) with at least one.
 */
static bool
ring_ready(struct shift *ts, bool ended)
{
	unsigned n = ring_files(ts);
	return n > RING_LEAD || (ended && n > 0);
}

static bool start_ring(struct shift *ts);

/*
 * Every WAIT_PERIOD_MS while switching: the engine lets go of the source
 * (a UDP port has one reader), the ring starts, then once the playlist
 * lists enough files (RING_LEAD) the engine plays it.
 */
static gboolean
wait_cb(gpointer data)
{
	struct shift *ts = data;
	struct umms_timeshift *owner = ts->owner;
	const struct umms_timeshift_host *host = &owner->host;
	if (!ts->ring && host->engine(host->data)->state == UMMS_ENGINE_IDLE && !start_ring(ts)) {
		umms_source_forget(&ts->wait_timer);
		back_to_source(owner);
		return G_SOURCE_REMOVE;
	}
	bool ended = ts->ring && ts->ring->state != UMMS_RECORDING_RECORDING;
	if (!ts->ring || !ring_ready(ts, ended)) {
		if (g_get_monotonic_time() < ts->wait_end && !ended)
			return G_SOURCE_CONTINUE;
		umms_source_forget(&ts->wait_timer);
		umms_warn("player %u: no time-shift: %u files of %s recorded in %u ms, %u needed",
			host->id, ts->ring ? ring_files(ts) : 0, host->uri(host->data), ts->wait_ms,
			RING_LEAD + 1);
		back_to_source(owner);
		return G_SOURCE_REMOVE;
	}
	umms_source_forget(&ts->wait_timer);
	umms_info("player %u: playing %s from the time-shift ring %s", host->id,
		host->uri(host->data), ts->dir);
	ts->playing_ring = true;
	g_autoptr(GError) error = NULL;
	if (!host->reopen(host->data, ts->playlist, &error)) {
		umms_warn("player %u: cannot play the time-shift ring: %s", host->id,
			error->message);
		back_to_source(owner);
	}
	return G_SOURCE_REMOVE;
}

static gboolean
give_up_cb(gpointer data)
{
	struct shift *ts = data;
	umms_source_forget(&ts->wait_timer);
	back_to_source(ts->owner);
	return G_SOURCE_REMOVE;
}

bool
umms_timeshift_give_up(struct umms_timeshift *owner)
{
	struct shift *ts = owner ? owner->on : NULL;
	if (!ts || !ts->playing_ring || !ts->ring_failed)
		return false;
	if (!ts->wait_timer) {
		umms_warn("player %u: the time-shift ring failed, and playing what it recorded "
			"ended: time-shift off, %s live again", owner->host.id,
			owner->host.uri(owner->host.data));
		/* From the main loop: the engine is still emitting the event that ended it. */
		ts->wait_timer = umms_source_timeout(0, give_up_cb, ts);
	}
	return true;
}

/* Rings of an ummsd that died without removing them (player-N-PID, PID gone). */
static void
remove_stale_rings(const char *base)
{
	GDir *d = g_dir_open(base, 0, NULL);
	if (!d)
		return;
	const char *name;
	while ((name = g_dir_read_name(d))) {
		unsigned id;
		int pid;
		if (sscanf(name, "player-%u-%d", &id, &pid) != 2 || pid <= 0 ||
				kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		g_autofree char *path = g_build_filename(base, name, NULL);
		umms_info("removing the time-shift ring of a stopped ummsd: %s", path);
		remove_ring(path);
	}
	g_dir_close(d);
}

/* Where @owner's ring goes: one folder per player of this ummsd. */
static char *
ring_dir(struct umms_timeshift *owner)
{
	const char *base = owner->host.config->recording.timeshift_directory;
	g_autofree char *fallback = NULL;
	if (!base || !base[0])
		base = fallback = g_build_filename(g_get_user_cache_dir(), "umms", "timeshift", NULL);
	remove_stale_rings(base);
	g_autofree char *name = g_strdup_printf("player-%u-%d", owner->host.id, (int)getpid());
	return g_build_filename(base, name, NULL);
}

static bool
start_ring(struct shift *ts)
{
	const struct umms_timeshift_host *host = &ts->owner->host;
	const struct umms_config *config = host->config;
	const char *uri = host->uri(host->data);
	g_autofree char *source = host->source_uri ? host->source_uri(host->data) : NULL;
	g_autoptr(GError) error = NULL;
	unsigned segment = config->recording.timeshift_segment;
	unsigned n = MAX(config->recording.timeshift_window / segment, 3u);
	ts->ring = umms_recording_start_ring(host->id, source ? source : uri, ts->dir, segment, n,
		&error);
	if (!ts->ring) {
		umms_warn("player %u: no time-shift: %s", host->id, error->message);
		return false;
	}
	ts->playlist = g_filename_to_uri(ts->ring->path, NULL, NULL);
	ts->ring_changed.notify = ring_changed;
	wl_signal_add(&ts->ring->events.changed, &ts->ring_changed);
	ts->ring_eit.notify = ring_eit;
	wl_signal_add(&ts->ring->events.eit, &ts->ring_eit);
	umms_info("player %u: time-shift on: %u s of %s in %s (files of %u s)", host->id,
		n * segment, uri, ts->dir, segment);
	return true;
}

static bool
start(struct umms_timeshift *owner, GError **error)
{
	const struct umms_timeshift_host *host = &owner->host;
	const char *uri = host->uri(host->data);
	struct umms_engine *engine = host->engine(host->data);
	if (!uri || !engine) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE, "no media: call SetUri first");
		return false;
	}
	if (!engine->info.live) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"time-shift needs a live source (IPTV, a tuner, a camera); %s is not live: "
			"it can pause and seek as it is", uri);
		return false;
	}
	g_autofree char *dir = ring_dir(owner);
	remove_ring(dir);
	if (g_mkdir_with_parents(dir, 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot make %s: %s", dir,
			g_strerror(errno));
		return false;
	}
	/* The engine lets go of the source first: the ring takes it over. */
	if (!engine->impl->set_state(engine, UMMS_ENGINE_IDLE, error))
		return false;
	struct shift *ts = g_new0(struct shift, 1);
	ts->owner = owner;
	ts->announced[0] = ts->announced[1] = -1;
	ts->dir = g_steal_pointer(&dir);
	ts->wait_ms = MAX(host->config->engine.open_timeout, WAIT_MIN_MS) +
		RING_LEAD * host->config->recording.timeshift_segment * 1000;
	ts->wait_end = g_get_monotonic_time() + (gint64)ts->wait_ms * 1000;
	ts->wait_timer = umms_source_timeout(WAIT_PERIOD_MS, wait_cb, ts);
	owner->on = ts;
	emit_changed(owner);
	return true;
}

bool
umms_timeshift_set(struct umms_timeshift *owner, bool enabled, GError **error)
{
	struct shift *ts = owner->on;
	if (enabled)
		return ts || start(owner, error);
	if (!ts)
		return true;
	/* The ring's socket is closed first: the source is the engine's again. */
	umms_timeshift_stop(owner);
	return owner->host.reopen(owner->host.data, owner->host.uri(owner->host.data), error);
}

bool
umms_timeshift_enabled(struct umms_timeshift *owner)
{
	return owner && owner->on != NULL;
}

pid_t
umms_timeshift_engine_pid(struct umms_timeshift *owner)
{
	return owner && owner->on && owner->on->ring ?
		umms_recording_engine_pid(owner->on->ring) : 0;
}

bool
umms_timeshift_switching(struct umms_timeshift *owner)
{
	return owner && owner->on && !owner->on->playing_ring;
}

/* The engine's seek range: its end stays three files behind the newest. */
static bool
seek_range(struct umms_timeshift *owner, int64_t *start, int64_t *end)
{
	struct shift *ts = owner ? owner->on : NULL;
	if (!ts)
		return false;
	struct umms_engine *engine = owner->host.engine(owner->host.data);
	return ts && ts->playing_ring && engine && engine->impl->get_seek_range &&
		engine->impl->get_seek_range(engine, start, end);
}

/* A file's length: what the window's start gives up in the time a seek takes. */
static int64_t
margin(struct umms_timeshift *owner)
{
	return (int64_t)owner->host.config->recording.timeshift_segment * G_USEC_PER_SEC;
}

/*
 * The window: from the engine's seek range start to its end, or to where
 * playback is if that is nearer the source already (@seek_end: the range's
 * own end, the nearest the engine seeks to).
 */
static bool
window(struct umms_timeshift *owner, int64_t *start, int64_t *seek_end, int64_t *end)
{
	if (!seek_range(owner, start, seek_end))
		return false;
	*end = MAX(*seek_end, owner->host.position(owner->host.data));
	return true;
}

bool
umms_timeshift_get_window(struct umms_timeshift *owner, int64_t *start, int64_t *end)
{
	int64_t seek_end;
	return window(owner, start, &seek_end, end);
}

bool
umms_timeshift_check_position(struct umms_timeshift *owner, int64_t *position,
	GError **error)
{
	if (!umms_timeshift_enabled(owner))
		return true;
	int64_t start, seek_end, end;
	if (!window(owner, &start, &seek_end, &end)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_STATE,
			"time-shift is starting: nothing recorded to seek in yet");
		return false;
	}
	if (*position < start || *position > end) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"position %.3f s is outside the time-shift window (%.3f to %.3f s): "
			"the ring keeps %u s", *position / 1e6, start / 1e6, end / 1e6,
			owner->host.config->recording.timeshift_window);
		return false;
	}
	/*
	 * Past what the engine seeks to, towards the live edge: as near it as
	 * can be (where playback is, or the range's end). At the oldest file,
	 * which may be gone by the time the engine seeks: the next one.
	 */
	if (*position > seek_end)
		*position = end;
	*position = MAX(*position, MIN(start + margin(owner), end));
	return true;
}

bool
umms_timeshift_catch_up(struct umms_timeshift *owner, int64_t *position)
{
	int64_t start, end;
	if (!umms_timeshift_get_window(owner, &start, &end))
		return false;
	int64_t now = owner->host.position(owner->host.data);
	if (now >= start)
		return false;
	umms_info("player %u: paused longer than the time-shift window: resuming %.1f s later, "
		"at its oldest moment", owner->host.id, (start - now) / 1e6);
	*position = MIN(start + margin(owner), end);
	return true;
}
