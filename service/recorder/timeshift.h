/*
 * Time-shift of a live player (org.umms.Player1.TimeshiftEnabled).
 *
 * Turned on, the live source is recorded into a ring on disk (recording.h:
 * MPEG-TS files of [recording] timeshift-segment seconds, the newest
 * timeshift-window seconds of them listed in an HLS playlist, older ones
 * deleted) and the player's engine, once two files are written, plays
 * that playlist from its first instead of the source (a file behind the
 * writer, so that each next file is there before it is due): Pause holds the picture while the
 * ring goes on filling, Play resumes where it paused, Seek and SetPosition
 * move within the window, and a position outside it is refused with
 * InvalidArgument naming the window. Play, Pause or Stop while the engine
 * waits for the ring's files become the state the ring is played in.
 * Uri stays the live source's; a dvb:// channel's ring is recorded on the
 * player's own tuner (umms_timeshift_host.source_uri). The
 * newest moment playable ("the live edge") is about three files behind the
 * source: the HLS demuxer keeps that margin. A player paused for longer than
 * the window resumes a file after its oldest moment (the oldest file may
 * be gone by the time the engine gets there); so does a seek to the start.
 *
 * If the source ends or fails, the ring's playlist is closed: playback
 * goes on to the last moment recorded and ends there (Eos). If the ring
 * itself fails (its folder gone, the disk full, timestamps the muxer
 * refuses), what it recorded is still played, and at its end (or when
 * playing it fails) time-shift turns off and the player shows the source
 * live again, in the state it was in, rather than stop.
 *
 * Turned off, the ring is stopped and removed and the player goes back to
 * the source itself, in the state it was in. SetUri and the player's end
 * turn it off too.
 */
#ifndef UMMS_SERVICE_TIMESHIFT_H
#define UMMS_SERVICE_TIMESHIFT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>

struct umms_config;
struct umms_engine;

/*
 * What time-shift reads and asks of its player (player-timeshift.c makes
 * it): the player owns its struct umms_timeshift and calls the functions
 * below; time-shift reaches the player only through these, so neither
 * includes the other's header.
 */
struct umms_eit;

struct umms_timeshift_host {
	unsigned id;                        /* the player's, for logs and the ring's folder */
	const struct umms_config *config;
	/* The player's engine now (NULL: none), and its Uri (NULL: none). */
	struct umms_engine *(*engine)(void *data);
	const char *(*uri)(void *data);
	/*
	 * Optional: what the ring records for that Uri (g_free), NULL: the Uri
	 * itself. A dvb:// channel's is its tuning on the tuner the player
	 * holds (player.h engine_uri): the ring takes the player's tuner over
	 * while the engine has let go of it, and asks for no other.
	 */
	char *(*source_uri)(void *data);
	/* Its Position, µs. */
	int64_t (*position)(void *data);
	/* The engine opens @uri (the ring, or the source again) in the player's State. */
	bool (*reopen)(void *data, const char *uri, GError **error);
	/* Its properties may have changed (TimeshiftEnabled, TimeshiftWindow). */
	void (*changed)(void *data);
	/*
	 * Optional: an EIT section the ring read from the source (eit.h):
	 * the engine, playing the ring, reads none.
	 */
	void (*eit)(void *data, const struct umms_eit *eit);
	void *data;
};

/* Off until umms_timeshift_set; @host is copied. */
struct umms_timeshift *umms_timeshift_create(const struct umms_timeshift_host *host);
/* Stops it (umms_timeshift_stop) and frees it; NULL is fine. */
void umms_timeshift_destroy(struct umms_timeshift *ts);

/*
 * The functions below take the player's struct umms_timeshift; NULL reads
 * as off.
 *
 * Turns time-shift on or off; false with an error if it cannot be (no
 * media: InvalidState; not live: NotSupported; the ring cannot be made).
 * Switching the engine over happens later, from the main loop.
 */
bool umms_timeshift_set(struct umms_timeshift *ts, bool enabled, GError **error);
/* Ends time-shift without reopening anything (SetUri, the player's end). */
void umms_timeshift_stop(struct umms_timeshift *ts);
/* Whether it is on (the ring recording, maybe not played yet). */
bool umms_timeshift_enabled(struct umms_timeshift *ts);
/*
 * Whether it is on and the engine not yet on the ring (it let go of the
 * source): a state asked for meanwhile (Pause at once) is the player's
 * State, and the one the ring is played in.
 */
bool umms_timeshift_switching(struct umms_timeshift *ts);
/* The engine worker recording the ring, while one does; else 0. */
pid_t umms_timeshift_engine_pid(struct umms_timeshift *ts);
/*
 * The window playback can reach now, µs in Position's timeline; false
 * while off or not yet playing from the ring.
 */
bool umms_timeshift_get_window(struct umms_timeshift *ts, int64_t *start, int64_t *end);
/*
 * True without time-shift, or if *@position is in the window (moved, past
 * the engine's reach, to the nearest the live edge can be); else
 * InvalidArgument naming the window.
 */
bool umms_timeshift_check_position(struct umms_timeshift *ts, int64_t *position,
	GError **error);
/*
 * Before Play: a position the window has left behind (paused too long)
 * moves to the oldest moment kept. True if it asked the engine to seek.
 */
bool umms_timeshift_catch_up(struct umms_timeshift *ts, int64_t *position);
/*
 * The engine reached the end of, or failed on, what the ring recorded
 * (Eos or an error): if the ring itself failed, time-shift gives up (off,
 * the source live again, from the main loop) and true is returned: the
 * player reports neither Eos nor the error.
 */
bool umms_timeshift_give_up(struct umms_timeshift *ts);

#endif
