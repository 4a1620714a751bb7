/*
 * A player: one media, one engine, one state machine, whoever controls it.
 *
 * The player knows nothing of D-Bus: org.umms.Player1 (player-dbus.c) and
 * MPRIS (mpris.c) are two faces over this API. Requests that change what is
 * shown are asynchronous: they return false with an UMMS_ERROR when refused
 * at once, else true, and later call @done exactly once, with NULL on
 * success or the error that stopped them (also when the player is destroyed
 * first). Queued requests complete in order; a request that starts over
 * (SetUri, Stop) completes the ones still waiting with
 * UMMS_ERROR_INVALID_STATE "interrupted".
 *
 * Signals (events.*), all emitted from the main loop:
 *   changed  — some property may have changed (cheap; listeners compare)
 *   seeked   — data: const int64_t * new position in µs
 *   eos      — the end was reached; the player is stopped already
 *   error    — data: const GError *; playback failed after its request had
 *              completed; the player is stopped already
 *   release  — the player asks its owner to destroy it: an unattended
 *              player's ttl ran out, or a client asked it to quit
 *   frame    — data: struct umms_frame *, a frame due on screen now (only
 *              while video output is wanted); listeners ref what they keep
 *   subtitle_cue — data: const struct umms_subtitle_cue * (engine.h), a cue
 *              of the selected subtitle track became due on screen
 *   destroy  — the player is going away
 *   eit      — data: const struct umms_eit * (eit.h), an EIT section of the
 *              MPEG-TS it plays, once per version (the manager gives it to
 *              the programme guide)
 *   blocked  — Blocked changed (umms_player_set_blocked): read player->blocked,
 *              block_reason, block_rating. Player1 says ContentBlocked or
 *              ContentAllowed.
 *   state    — data: const enum umms_player_state *, the state it left; the
 *              new one is player->state (entitlements count a play when it
 *              becomes playing)
 */
#ifndef UMMS_SERVICE_PLAYER_H
#define UMMS_SERVICE_PLAYER_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

#include "config.h"
#include "engine.h"

enum umms_player_state {
	UMMS_PLAYER_STOPPED,
	UMMS_PLAYER_PAUSED,
	UMMS_PLAYER_PLAYING,
};

enum umms_priority {
	UMMS_PRIORITY_BACKGROUND,
	UMMS_PRIORITY_FOREGROUND,
	UMMS_PRIORITY_RECORDING,
};

struct umms_player_options {
	bool attended;
	const char *owner;        /* unique bus name of the creator, or NULL */
	uint64_t ttl;             /* seconds; unattended players only; 0 = never */
	enum umms_priority priority;
};

typedef void (*umms_player_done_fn)(const GError *error, void *data);

struct umms_player {
	unsigned id;
	const struct umms_config *config;
	bool attended;
	char *owner;
	uint64_t ttl;
	enum umms_priority priority;

	char *uri;
	unsigned track_serial;    /* +1 each SetUri */
	enum umms_player_state state;
	double rate, volume;
	bool mute;

	struct umms_engine *engine;
	struct wl_listener engine_settled, engine_info, engine_eos, engine_error, engine_frame;
	struct wl_listener engine_cue;
	struct wl_listener engine_eit;
	/* Video output asked for, kept across engines. */
	bool video_wanted;
	/* The still picture is to be made again once the requests in flight settle. */
	bool redraw_when_settled;
	uint32_t *video_formats;
	size_t n_video_formats;
	/* The dma-bufs the output takes (umms_player_set_video_dmabuf): all, or these. */
	bool dmabuf_restricted;
	struct umms_frame_dmabuf_format *dmabuf_formats;
	size_t n_dmabuf_formats;
	/* The largest frames worth making (umms_player_set_video_size), 0: the picture's. */
	unsigned video_max_width, video_max_height;
	/* What clients' compositors said about the frames (presentation feedback). */
	uint64_t frames_displayed, frames_discarded;
	uint64_t frames_copied;    /* by whoever showed them (a GL texture upload) */
	int64_t display_latency_ns; /* smoothed, presented − due */
	int64_t video_delay_ns;     /* how early frames leave to arrive on time (the engine's) */
	int64_t video_delay_wanted_ns; /* the lip-sync integrator's, applied in steps */
	int64_t subtitle_delay;     /* µs subtitles are shown later (Player1.SubtitleDelay) */
	/*
	 * The subtitles chosen for this media (SetSubtitleUri, SelectTrack),
	 * given to the engine again when it opens the same media anew
	 * (umms_player_reopen: time-shift, a decoder lost); SetUri forgets them.
	 */
	char *subtitle_uri;         /* the external file, or NULL */
	enum umms_subtitle_pick {
		UMMS_SUBTITLE_DEFAULT,  /* as the media says */
		UMMS_SUBTITLE_OFF,
		UMMS_SUBTITLE_TRACK,    /* the media's own track subtitle_track */
		UMMS_SUBTITLE_EXTERNAL, /* the file subtitle_uri */
	} subtitle_pick;
	int subtitle_track;
	bool reopening;             /* umms_player_reopen is opening the media anew */
	GQueue pending;           /* struct pending_request * */
	GSource *ttl_timer, *stats_timer, *open_timer, *reply_timer;
	/*
	 * What the resource manager says of its hardware decoder, for Decoder:
	 * "holds decoder:h264", "decoder:h264 taken by …"; NULL: nothing.
	 * Set by service/resources/ (resources-service.c).
	 */
	char *resource_note;
	/* Codecs its engines may decode in hardware (NULL-terminated); NULL: any. */
	char **hardware_codecs;
	/*
	 * Asked before a URI is opened (SetUri): false with an error refuses
	 * it (a capture device another player holds). Asked again with the
	 * player's own Uri (or NULL) when opening fails after it said yes.
	 * NULL: every URI. Set by service/resources/ (resources-service.c).
	 */
	bool (*uri_gate)(void *data, struct umms_player *player, const char *uri,
		GError **error);
	void *uri_gate_data;
	/*
	 * The URI the engine opens for @uri (g_free), NULL: @uri itself. A
	 * dvb:// channel becomes the channel's tuning on the tuner the gate
	 * took for it. Called with uri_gate_data. Set with uri_gate.
	 */
	char *(*engine_uri)(void *data, struct umms_player *player, const char *uri);
	/* struct umms_player_gate.link, asked in order (umms_player_add_gate). */
	struct wl_list gates;
	/*
	 * Parental control's verdict (umms_player_set_blocked): while blocked
	 * the engine lets no frame and no sample out (engine.h set_blocked).
	 * block_reason: "channel-locked", "rating" or "unrated"; block_rating
	 * the rating shown to the user ("FSK 16"), "" when none. NULL when not
	 * blocked.
	 */
	bool blocked;
	char *block_reason, *block_rating;
	/* Player1.TimeshiftEnabled, off or on (timeshift.h); made with the player. */
	struct umms_timeshift *timeshift;

	struct {
		struct wl_signal changed;
		struct wl_signal seeked;
		struct wl_signal eos;
		struct wl_signal error;
		struct wl_signal release;
		/* A hardware unit was lost or given back: struct umms_player_resource_event. */
		struct wl_signal resource;
		struct wl_signal frame;
		struct wl_signal subtitle_cue;
		struct wl_signal destroy;
		struct wl_signal eit;
		struct wl_signal blocked;
		struct wl_signal state;
	} events;
};

/*
 * A check on what a player may open or play, added by the modules that
 * control content (entitlements, parental control): service/entitlement/,
 * service/parental/. Gates are asked in the order they were added, before
 * the resource manager's uri_gate; the first that says no refuses the
 * request with its error, and nothing is opened.
 */
struct umms_player_gate {
	/*
	 * SetUri of @uri (normalised). False with @error (NotEntitled, …)
	 * refuses it. A gate that only watches (parental control blocks, it
	 * does not refuse) returns true; it may call umms_player_set_blocked
	 * here, which then holds from the media's first buffer. Optional.
	 */
	bool (*set_uri)(struct umms_player_gate *gate, struct umms_player *player,
		const char *uri, GError **error);
	/* Play of the player's Uri. False with @error refuses it. Optional. */
	bool (*play)(struct umms_player_gate *gate, struct umms_player *player, GError **error);
	struct wl_list link;      /* umms_player.gates; the gate's owner removes it */
};

struct umms_player_resource_event {
	const char *kind;         /* "decoder:h264" */
	bool lost;                /* false: restored */
};

const char *umms_player_state_name(enum umms_player_state state);
const char *umms_priority_name(enum umms_priority priority);
bool umms_priority_parse(const char *name, enum umms_priority *priority);
/* A URI, or an absolute path made into one; NULL with InvalidArgument. */
char *umms_player_normalize_uri(const char *text, GError **error);

struct umms_player *umms_player_create(unsigned id, const struct umms_config *config,
	const struct umms_player_options *options);
/* Completes pending requests with NotFound, emits destroy. NULL is a no-op. */
void umms_player_destroy(struct umms_player *player);

/*
 * Opens @uri (a URI, or an absolute path). Completes when the media is open
 * and described, or after [engine] open-timeout for slow sources.
 */
bool umms_player_set_uri(struct umms_player *player, const char *uri,
	umms_player_done_fn done, void *data, GError **error);
bool umms_player_play(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error);
bool umms_player_pause(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error);
bool umms_player_stop(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error);
/* Relative: clamped to [0, duration]. */
bool umms_player_seek(struct umms_player *player, int64_t offset,
	umms_player_done_fn done, void *data, GError **error);
/* Absolute: refused outside [0, duration]. */
bool umms_player_set_position(struct umms_player *player, int64_t position,
	umms_player_done_fn done, void *data, GError **error);
bool umms_player_step(struct umms_player *player, int frames,
	umms_player_done_fn done, void *data, GError **error);
bool umms_player_select_track(struct umms_player *player, const char *kind, int index,
	umms_player_done_fn done, void *data, GError **error);
/* "" removes the external subtitles. */
bool umms_player_set_subtitle_uri(struct umms_player *player, const char *uri,
	umms_player_done_fn done, void *data, GError **error);

/*
 * For time-shift (timeshift.h) and the resource manager: the engine opens
 * @uri, the same media from elsewhere (a ring on disk, or the live source
 * again) or with other decoders, while Uri stays as it is, then goes to
 * @state (@done, optional, when it is there; never for STOPPED). Waiting
 * requests end "interrupted".
 */
bool umms_player_reopen(struct umms_player *player, const char *uri,
	enum umms_player_state state, umms_player_done_fn done, void *data, GError **error);

/* Subtitles this much later (negative: earlier); at most ±10 minutes. */
#define UMMS_PLAYER_MAX_SUBTITLE_DELAY ((int64_t)600 * G_USEC_PER_SEC)

/* Immediate. */
bool umms_player_set_subtitle_delay(struct umms_player *player, int64_t delay, GError **error);
bool umms_player_set_rate(struct umms_player *player, double rate, GError **error);
bool umms_player_set_volume(struct umms_player *player, double volume, GError **error);
void umms_player_set_mute(struct umms_player *player, bool mute);

/*
 * Frames wanted on events.frame, in these wl_shm formats (preferred first;
 * @n 0: the engine's choice). False if no format can be made.
 */
bool umms_player_set_video_output(struct umms_player *player, bool wanted,
	const uint32_t *formats, size_t n, GError **error);
/*
 * Frames are shown no larger than @max_width x @max_height pixels (0: the
 * picture's own size, the default): the engine may make them smaller, to
 * fit (engine.h set_video_size). A paused player's picture is made again
 * at the new size.
 */
void umms_player_set_video_size(struct umms_player *player, unsigned max_width,
	unsigned max_height);
/*
 * Which dma-bufs the frames' consumers take as they are: @any (ummsd's
 * screen: the default), or the @n pairs of @formats (clients' compositors;
 * none: shared memory only). Other dma-buf frames are copied into shared
 * memory by the engine and counted in Stats copies. Applies to frames made
 * from now on: set it before umms_player_set_video_output, which makes a
 * paused player's picture again.
 */
void umms_player_set_video_dmabuf(struct umms_player *player, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n);
/*
 * A new consumer of events.frame (the display taking over a player that is
 * paused) needs the picture now: sends the frame on screen again.
 */
void umms_player_redraw(struct umms_player *player);
/* A client's compositor showed a frame (@latency_ns late), or discarded it. */
void umms_player_report_display(struct umms_player *player, bool shown, int64_t latency_ns);
/*
 * The codecs this player's engine may decode with hardware decoders (the
 * resource manager's say); NULL: any. Kept for engines made later.
 */
void umms_player_set_hardware_codecs(struct umms_player *player, const char *const *codecs);
/* Whoever showed a frame had to copy its pixels: counted in Stats copies. */
void umms_player_report_copy(struct umms_player *player);

/* Adds @gate at the end of the player's gates (struct umms_player_gate). */
void umms_player_add_gate(struct umms_player *player, struct umms_player_gate *gate);
/*
 * Blocks (@reason non-NULL: "channel-locked", "rating", "unrated"; @rating
 * as shown, may be NULL) or unblocks (@reason NULL) what the player shows:
 * the engine, now and any it opens later, lets nothing out while blocked.
 * Emits events.blocked and events.changed when anything changed (a new
 * reason or rating while blocked too).
 */
void umms_player_set_blocked(struct umms_player *player, const char *reason,
	const char *rating);

/* Any call from a client counts as activity for the ttl. */
void umms_player_touch(struct umms_player *player);
/* Asks the owner to destroy the player (events.release). */
void umms_player_release(struct umms_player *player);

int64_t umms_player_get_position(struct umms_player *player);
/* Never NULL: an empty description when nothing is open. */
const struct umms_media_info *umms_player_get_info(struct umms_player *player);
void umms_player_get_stats(struct umms_player *player, struct umms_engine_stats *stats);
/* "avdec_h264 (software)", or "" without a video decoder. */
char *umms_player_describe_decoder(struct umms_player *player);
const char *umms_player_engine_name(struct umms_player *player);
bool umms_player_has_video(struct umms_player *player);
/* Seek and SetPosition can work: the media says so, or time-shift has a window. */
bool umms_player_seekable(struct umms_player *player);

#endif
