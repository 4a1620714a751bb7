/*
 * One recording: a URI ummsd can play, written to a file without
 * transcoding. GStreamer's urisourcebin and parsebin take the streams
 * apart (a demuxer and parsers, no decoder), matroskamux or mpegtsmux (by
 * the destination's extension) put them in the file. Streams the muxer
 * cannot carry are left out, and the log says which. Both formats stay
 * playable up to their last seconds if ummsd dies mid-way: Matroska is
 * written cluster by cluster, MPEG-TS packet by packet.
 *
 * States: "recording" → "completed" (the source ended, or the duration
 * asked for passed), "failed" (Error says why; what was written is kept),
 * "cancelled" (Cancel: the file is closed properly first).
 *
 * With [engine] isolation = worker (engine-supervisor.h) a recording's
 * pipeline runs in an engine worker of its own (recording-worker.h): ummsd
 * creates the file and passes its descriptor. A worker that crashes, hangs
 * or passes its memory limit fails the recording with error_code
 * UMMS_ERROR_ENGINE_CRASHED or _HUNG, its D-Bus name in the error's words,
 * and the bytes written kept. A ring (time-shift) stays in ummsd: hlssink2
 * creates and deletes its segments by name, which the sandbox refuses.
 */
#ifndef UMMS_SERVICE_RECORDING_H
#define UMMS_SERVICE_RECORDING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>
#include <wayland-server-core.h>

enum umms_recording_state {
	UMMS_RECORDING_RECORDING,
	UMMS_RECORDING_COMPLETED,
	UMMS_RECORDING_FAILED,
	UMMS_RECORDING_CANCELLED,
};

struct umms_recording {
	unsigned id;
	char *uri;
	char *path;                /* the file written (destination resolved) */
	int64_t start_us;          /* wall clock (µs since 1970) it started, or starts at */
	int64_t duration_us;       /* asked for; -1: until the source ends */
	enum umms_recording_state state;
	uint64_t bytes_written;
	char *error;               /* failed: why; else NULL */
	int error_code;            /* failed as its worker died: UMMS_ERROR_ENGINE_*; else 0 */
	bool file_removed;         /* failed before its first byte: the empty file is gone */

	struct {
		struct wl_signal changed;  /* state or bytes; data: the recording */
		/* An EIT section of the MPEG-TS recorded; data: const struct umms_eit * (eit.h). */
		struct wl_signal eit;
	} events;
};

const char *umms_recording_state_name(enum umms_recording_state state);

/*
 * Starts recording @uri into @path (already checked: destination.h) now,
 * for @duration_us (-1: until the source ends), counted from when its first
 * data reaches the file (a worker may take a moment to start, a network
 * source to answer), or, @firm, from now: the end of a window scheduled,
 * which the worker's start-up must not push back. @at_us > 0 (wall clock,
 * µs since 1970, later than now): a scheduled start, the source opened now
 * and the file beginning at its key frame at or before @at_us
 * (engines/gstreamer/gst-record-gate.h); @duration_us still counts from
 * now. NULL with an error when the pipeline cannot be made; failures later
 * end in state "failed".
 */
struct umms_recording *umms_recording_start(unsigned id, const char *uri, const char *path,
	int64_t duration_us, bool firm, int64_t at_us, GError **error);
/*
 * A ring for time-shift: @uri remuxed into MPEG-TS segments of about
 * @segment_s seconds (cut at key frames) in @dir, the newest @n_segments
 * listed in the HLS playlist @dir/live.m3u8 (path), a few more kept on
 * disk, older ones deleted. Runs until the source ends or it is
 * destroyed; one video and one audio stream are kept, audio MPEG-TS
 * cannot carry (SMPTE 302M) encoded again (engines/gstreamer/gst-record.h).
 */
#define UMMS_RECORDING_RING_PLAYLIST "live.m3u8"
/* The next playlist, while written. */
#define UMMS_RECORDING_RING_PLAYLIST_NEW "live.m3u8.new"
struct umms_recording *umms_recording_start_ring(unsigned id, const char *uri,
	const char *dir, unsigned segment_s, unsigned n_segments, GError **error);
/* The process id of its engine worker while it runs; 0 when it runs in ummsd. */
pid_t umms_recording_engine_pid(const struct umms_recording *recording);
/*
 * Ends it at @end_us (wall clock, µs since 1970) instead of when its
 * duration would; no-op unless recording with an end still to come.
 */
void umms_recording_set_end(struct umms_recording *recording, int64_t end_us);
/* Ends it cleanly (the file closed); "cancelled" once done. No-op unless recording. */
void umms_recording_cancel(struct umms_recording *recording);
/* Stops at once (what is written stays) and frees it. */
void umms_recording_destroy(struct umms_recording *recording);

#endif
