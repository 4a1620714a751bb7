/*
 * Playback engines.
 *
 * An engine turns a URI into decoded frames on a clock: it opens media,
 * changes state, seeks, selects tracks and reports what it knows in a
 * struct umms_media_info. Each engine is one folder under engines/
 * with one `static const struct umms_engine_impl` exported by name; the
 * registry (engine.c) picks the first engine whose probe_uri accepts a URI.
 *
 * Contract for implementations
 *
 * Requests (open, set_state, seek, set_rate, step, select_track,
 * set_subtitle_uri) are asynchronous and serialised: each returns false with
 * an UMMS_ERROR only when the request is refused outright (bad argument,
 * wrong state); otherwise it is queued behind the requests before it and
 * true is returned. Once every queued request has finished, the engine
 * emits events.settled exactly once with data NULL; if one fails, the
 * remaining ones are dropped, the engine falls back to UMMS_ENGINE_IDLE and
 * events.settled carries the const GError *. events.settled is never
 * emitted from inside a request call, only from the main loop.
 *
 * Failures while no request is queued (a decode error during playback) are
 * reported by events.error (data: const GError *) and leave the engine IDLE.
 * One exception, an engine lost as a whole (a worker that crashed or hung:
 * umms_engine_error_is_lost): queued requests settle with the error, then
 * events.error carries it too, as nothing of the media is left.
 * The end of the media emits events.eos; the engine stays where it is until
 * asked to move. events.info (data NULL) says engine->info may have changed;
 * it may be emitted more often than needed. While video output is wanted
 * (set_video_output), every frame due on screen is emitted by events.frame
 * (data: struct umms_frame *; a listener that keeps it takes a reference).
 * Frames carry the selected subtitle track's pixels where the engine draws
 * them (frame->subpicture). Each subtitle cue of the selected track is
 * emitted by events.subtitle_cue (data: const struct umms_subtitle_cue *)
 * when it becomes due on the video's clock: when the first frame at or
 * past its start (the subtitle delay included) is due on screen; a cue
 * already on screen at a seek's target is emitted again after the seek.
 * When the track changes (turned off, another chosen, its file removed)
 * while cues of it stand, an empty cue (text "", end -1) says they ended.
 * Each EIT section of an MPEG-TS the engine reads (eit.h) is emitted by
 * events.eit (data: const struct umms_eit *) once per version, from the
 * main loop; a new open tells them all again.
 *
 * Engines run on the thread-default main context of the thread that created
 * them; streaming threads never emit events directly.
 *
 * Mandatory members: name, probe_uri, create, destroy, open, set_state,
 * seek, set_rate, step, select_track, set_subtitle_uri, set_volume,
 * get_position, get_stats, set_video_output, set_video_delay. Optional: init, finish,
 * list_hardware_decoders, set_hardware_codecs, get_seek_range, set_subtitle_delay,
 * check_video_output. Required of every engine a player may open: set_blocked.
 */
#ifndef UMMS_SERVICE_ENGINE_H
#define UMMS_SERVICE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <wayland-server-core.h>

#include "config.h"
#include "frame.h"
#include "media-info.h"

enum umms_engine_state {
	UMMS_ENGINE_IDLE,    /* nothing decoding, nothing held */
	UMMS_ENGINE_PAUSED,  /* prerolled: the current frame is ready, the clock stands */
	UMMS_ENGINE_PLAYING,
};

struct umms_engine_stats {
	uint64_t decoded;    /* video frames out of the decoder */
	uint64_t presented;  /* video frames handed to the output on time */
	uint64_t dropped;    /* frames dropped late, by the decoder or the output */
	uint64_t copies;     /* frames copied on their way to the output */
	uint64_t dmabuf;     /* frames handed on as the decoder's own dma-buf */
	uint64_t audio_buffers; /* audio buffers that reached the audio sink (none while blocked) */
	uint64_t audio_bytes;   /* ... their bytes */
};

struct umms_engine;

/* A subtitle cue due on screen (events.subtitle_cue); the strings live for the emission. */
struct umms_subtitle_cue {
	int64_t start, end;     /* µs on Position's timeline, the delay included; end -1: unknown */
	const char *text;       /* plain text, styling stripped; lines separated by newlines */
	const char *markup;     /* styled: as @format says */
	const char *format;     /* "pango" (Pango markup), "ass" (an SSA/ASS event's text),
	                         * or "bitmap" (a DVD or PGS image: times only, text "") */
};

/* A hardware video decoder an engine may plug, for the resource manager's pools. */
struct umms_engine_decoder {
	char *element;   /* "nvh264dec", "v4l2h264dec", "vah264dec" */
	char *codec;     /* what it decodes, the short name tracks use: "h264", "fwht" */
	char *plugin;    /* "nvcodec", "va", "vaapi", "video4linux2"; "" for none */
};

void umms_engine_decoder_free(struct umms_engine_decoder *decoder);

struct umms_engine_impl {
	const char *name;

	/* Process-wide set-up, once, before any create. Optional. */
	bool (*init)(const struct umms_config *config, GError **error);
	/*
	 * Process-wide tear-down, once, before the process ends its media
	 * library (gst_deinit): waits for work init left running. Optional.
	 */
	void (*finish)(void);
	/*
	 * Process-wide, once, after init: starts what init leaves running in
	 * the background (the GStreamer engine's loading of hardware decoder
	 * plugins, which opens drivers and devices on a thread). Optional. A
	 * fork server calls init only: its children must share neither a
	 * thread nor a device's or a library's descriptors, so each forked
	 * worker calls start itself (umms_engines_start).
	 */
	void (*start)(void);
	/*
	 * Returns once what start began is over and its threads have ended
	 * (a worker enters its sandbox with one thread). Optional; mandatory
	 * if start leaves a thread running.
	 */
	void (*wait)(void);
	/*
	 * Whether sound can be heard here (a sound device or a sound server);
	 * the first call says so in the log when not. Optional (then: yes).
	 * ummsd asks once for its workers (engine-supervisor.c), which its
	 * configuration then tells: the log says it once, not once a worker.
	 */
	bool (*can_sound)(void);
	/*
	 * Optional, after init. Appends to @out (struct umms_engine_decoder *,
	 * umms_engine_decoder_free) every hardware video decoder this engine
	 * could plug, once per codec it decodes: what set_hardware_codecs
	 * gates, so the resource manager can count all of them.
	 */
	void (*list_hardware_decoders)(GPtrArray *out);

	/*
	 * Whether this engine can try @uri. On false, @error says why in
	 * words a person understands (NotSupported, NotFound, AccessDenied).
	 */
	bool (*probe_uri)(const char *uri, GError **error);

	/* The config outlives the engine. */
	struct umms_engine *(*create)(const struct umms_config *config, GError **error);
	/* Emits events.destroy first; pending requests are dropped silently. */
	void (*destroy)(struct umms_engine *engine);

	/* Opens @uri (probe_uri passed) and prerolls it: state PAUSED at 0. */
	bool (*open)(struct umms_engine *engine, const char *uri, GError **error);
	/* IDLE releases everything; PAUSED/PLAYING (re)preroll as needed. */
	bool (*set_state)(struct umms_engine *engine, enum umms_engine_state state,
		GError **error);
	/* Frame-accurate seek to @position µs. Kept for the next preroll when IDLE. */
	bool (*seek)(struct umms_engine *engine, int64_t position, GError **error);
	/* Non-zero playback rate; negative plays backwards. */
	bool (*set_rate)(struct umms_engine *engine, double rate, GError **error);
	/* Moves @frames video frames (negative: backwards) while PAUSED. */
	bool (*step)(struct umms_engine *engine, int frames, GError **error);
	/* @index into info.tracks[@kind]; -1 deselects (subtitles only). */
	bool (*select_track)(struct umms_engine *engine, enum umms_track_kind kind,
		int index, GError **error);
	/* External subtitles; NULL removes them. */
	bool (*set_subtitle_uri)(struct umms_engine *engine, const char *uri,
		GError **error);
	/*
	 * Optional: external subtitles read from @fd (a regular file, read at
	 * once; taken, closed by the engine even on failure), the file @uri names, opened by someone who
	 * may (a sandboxed worker cannot open it). @uri still names the format
	 * (by its extension) and the language.
	 */
	bool (*set_subtitle_file)(struct umms_engine *engine, const char *uri, int fd,
		GError **error);

	/* Immediate. */
	void (*set_volume)(struct umms_engine *engine, double volume, bool mute);
	/*
	 * Whether frames are wanted on events.frame, and in which wl_shm
	 * formats (@formats, preferred first; @n 0: the engine's choice).
	 * Without a wanted output, frames are clocked, counted and dropped.
	 * False when none of the formats can be made.
	 */
	bool (*set_video_output)(struct umms_engine *engine, bool wanted,
		const uint32_t *formats, size_t n, GError **error);
	/*
	 * Optional, no engine needed: whether set_video_output would take
	 * @formats, with its error if not (for a proxy that must refuse as
	 * the engine would, service/engine-proxy.c).
	 */
	bool (*check_video_output)(const uint32_t *formats, size_t n, GError **error);
	/*
	 * Optional, immediate. Which dma-bufs (a hardware decoder's frames)
	 * the output takes as they are: @any (ummsd's own screen, which scans
	 * out or maps what it gets: the default), or only the pairs in
	 * @formats (what every client's compositor imports; @n 0: none). A
	 * frame in any other dma-buf goes out copied into shared memory, one
	 * more in Stats copies. Kept across open.
	 */
	void (*set_video_dmabuf)(struct umms_engine *engine, bool any,
		const struct umms_frame_dmabuf_format *formats, size_t n);
	/*
	 * Optional, immediate. The frames are shown no larger than
	 * @max_width x @max_height pixels: frames larger than that may come
	 * scaled down to fit it (square pixels, the picture's shape kept,
	 * never larger than the picture), from the next frame made on. 0 (either):
	 * the picture's own size, the default. Kept across open.
	 */
	void (*set_video_size)(struct umms_engine *engine, unsigned max_width,
		unsigned max_height);
	/*
	 * Frames reach the screen @ns after they leave: emit them that much
	 * before they are due, so picture and sound meet.
	 */
	void (*set_video_delay)(struct umms_engine *engine, int64_t ns);
	/*
	 * Optional, immediate. Subtitles are shown @us later than the media
	 * says (negative: earlier), on every subtitle track, external or not,
	 * from the next frame on; events.subtitle_cue times include it. Kept
	 * across open.
	 */
	void (*set_subtitle_delay)(struct umms_engine *engine, int64_t us);
	/*
	 * Optional. Which codecs may be decoded by hardware decoders (decoder
	 * elements of class Hardware): @codecs, NULL-terminated short names
	 * ("h264"); NULL: any (no policy), empty: none. The resource manager sets it; it
	 * applies to decoders plugged from now on (the next open or track
	 * change), not to one already running.
	 */
	void (*set_hardware_codecs)(struct umms_engine *engine, const char *const *codecs);
	/*
	 * Parental control (service/parental/): while @blocked, no decoded
	 * video frame and no audio sample leaves the engine: none reaches the
	 * audio sink, no frame is emitted on events.frame (nor made again by a
	 * redraw), from the next buffer on; the media goes on underneath
	 * (the clock runs, position moves, EIT sections and subtitle cues are
	 * still read, but cues are not emitted either). Set before open, it
	 * holds from the first buffer. Unblocked, data flows again from the
	 * next buffer (PAUSED: the frame where it stands is made again, so the
	 * picture comes back without Play). Kept across open/close until set
	 * again; a new engine starts unblocked (the player sets it before it
	 * opens).
	 */
	void (*set_blocked)(struct umms_engine *engine, bool blocked);
	/* µs, or -1 if unknown. */
	int64_t (*get_position)(struct umms_engine *engine);
	/*
	 * Optional. The positions seek can reach now, µs, in get_position's
	 * timeline; false when unknown or not seekable. A live window (an HLS
	 * playlist that slides) moves between calls.
	 */
	bool (*get_seek_range)(struct umms_engine *engine, int64_t *start, int64_t *end);
	void (*get_stats)(struct umms_engine *engine, struct umms_engine_stats *stats);
};

struct umms_engine {
	const struct umms_engine_impl *impl;
	enum umms_engine_state state; /* the last state reached */
	struct umms_media_info info;  /* kept current by the engine */

	struct {
		struct wl_signal settled; /* const GError * or NULL */
		struct wl_signal info;
		struct wl_signal eos;
		struct wl_signal error;   /* const GError * */
		struct wl_signal frame;   /* struct umms_frame * */
		struct wl_signal subtitle_cue; /* const struct umms_subtitle_cue * */
		struct wl_signal destroy;
		struct wl_signal eit;     /* const struct umms_eit * (eit.h) */
	} events;
};

/* Whether @error says the engine was lost (EngineCrashed, EngineHung). */
bool umms_engine_error_is_lost(const GError *error);

/* For implementations: fills the common part. */
void umms_engine_init(struct umms_engine *engine, const struct umms_engine_impl *impl);
/* For implementations: emits destroy, frees the common part. */
void umms_engine_finish(struct umms_engine *engine);

/* The registry. Every engine's init, then its start. */
bool umms_engines_init(const struct umms_config *config, GError **error);
/* Every engine's init only: a process that forks workers (worker/zygote.h). */
bool umms_engines_prepare(const struct umms_config *config, GError **error);
/* Every engine's start, once umms_engines_prepare() succeeded. */
void umms_engines_start(void);
/* Every engine's wait: what start began is over, its threads gone. */
void umms_engines_wait(void);
/* Whether sound can be heard, as the first engine says (can_sound). */
bool umms_engines_can_sound(void);
/* Every engine's finish, at exit. */
void umms_engines_finish(void);
/* NULL-terminated list of every engine built in. */
const struct umms_engine_impl *const *umms_engines_list(void);
/* The first engine that accepts @uri, or NULL with the first engine's reason. */
const struct umms_engine_impl *umms_engines_select(const char *uri, GError **error);

static inline void
umms_engine_destroy(struct umms_engine *engine)
{
	if (engine)
		engine->impl->destroy(engine);
}

#endif
