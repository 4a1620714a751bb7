/*
 * The messages between ummsd and an engine worker (umms-engine).
 *
 * Transport: one socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC) per
 * worker; the worker gets its end as fd 3. One datagram is one message:
 *
 *   struct umms_ipc_header (16 bytes, host byte order: both ends are the
 *   same machine) followed by header.length bytes of payload,
 *   plus up to UMMS_IPC_MAX_FDS file descriptors (SCM_RIGHTS).
 *
 * A message is at most UMMS_IPC_MAX_MESSAGE bytes. The payload is a sequence
 * of fixed-size integers (u8, u32, i32, u64, i64, f64) and strings (u32
 * length, then the bytes: valid UTF-8, no NUL; length 0xffffffff is NULL),
 * read back with the reader below, which fails (and stays failed) at the
 * first value that would read past the end, a string that is too long or
 * not UTF-8, or a count over its bound. A message with bytes left over after
 * its last value, a truncated datagram (MSG_TRUNC, MSG_CTRUNC) or a type
 * the receiver does not expect is malformed.
 *
 * ummsd treats the worker as hostile: a malformed message from a worker
 * kills it (EngineCrashed, "sent a malformed message"). The worker trusts
 * ummsd but checks lengths all the same and exits on a malformed message.
 *
 * Conversation
 *
 *   ummsd → worker: INIT first (the worker number, ummsd's configuration),
 *   then requests in order, fire and forget. Requests the player makes in
 *   one go (StepFrame: PAUSED, then a step) come as a batch, every one but
 *   the last with id UMMS_IPC_MORE: the worker hands the whole batch to its
 *   engine before returning to its main loop, so the engine settles it once. The worker answers INIT with
 *   READY once GStreamer is loaded and its engine created, and PING with
 *   PONG (same id) from its main loop: a worker whose main loop is stuck
 *   answers no ping (hang detection).
 *
 *   worker → ummsd: events, each carrying the status block (state, position,
 *   seek range, statistics, the CLOCK_MONOTONIC time they were taken), and a
 *   STATUS message every UMMS_IPC_STATUS_MS while playing (while frames
 *   come, right after the first FRAME ¾ of that or more since the last
 *   status, so ummsd reads both in one wake-up: 75 to 150 ms apart; none
 *   while paused or idle: no wake-ups; but live media, or media of no known
 *   length whose seek range moves, every 5 × UMMS_IPC_STATUS_MS while
 *   paused). ummsd answers get_position, get_seek_range and get_stats from
 *   the latest status without asking the worker.
 *
 *   A request the worker's engine refuses outright (which ummsd's proxy
 *   checks first, so it should not happen) comes back as REFUSED with the
 *   error, and the proxy reports it as a failed settle.
 *
 * Frames cross as file descriptors, never copied: a FRAME message carries
 * the geometry, the planes (each naming the index of its fd in the
 * message), memory_id, present_ns (CLOCK_MONOTONIC is system-wide), the
 * position and the subpicture (its sealed memfd, serial and placement),
 * with a frame id. The worker keeps a reference to the frame until ummsd
 * sends RELEASE with that id (or the connection ends), so the decoder's
 * buffer goes back to its pool only when every client is done with it.
 */
#ifndef UMMS_WORKER_IPC_H
#define UMMS_WORKER_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <glib.h>

#include "media-info.h"

#define UMMS_IPC_FD 3                    /* the worker's end of the socket */
#define UMMS_IPC_MAX_MESSAGE (128 * 1024) /* bytes, header included */
#define UMMS_IPC_MAX_FDS 5               /* 4 planes + a subpicture */
#define UMMS_IPC_MAX_STRING (64 * 1024)  /* bytes of one string */
#define UMMS_IPC_MAX_TRACKS 256          /* of one kind */
#define UMMS_IPC_MAX_FORMATS 64          /* in SET_VIDEO_OUTPUT, SET_VIDEO_DMABUF */
#define UMMS_IPC_MAX_VIDEO_SIZE 65536    /* in SET_VIDEO_SIZE: pixels either way */
#define UMMS_IPC_MAX_CODECS 32           /* in SET_HARDWARE_CODECS */
#define UMMS_IPC_STATUS_MS 100           /* STATUS while playing */

enum umms_ipc_type {
	/* ummsd → worker */
	UMMS_IPC_INIT = 1,        /* u32 worker number, string configuration */
	UMMS_IPC_PING,            /* (id) */
	UMMS_IPC_OPEN,            /* string uri; fd: what a sandboxed worker may read */
	UMMS_IPC_SET_STATE,       /* u32 enum umms_engine_state */
	UMMS_IPC_SEEK,            /* i64 µs */
	UMMS_IPC_SET_RATE,        /* f64 */
	UMMS_IPC_STEP,            /* i32 */
	UMMS_IPC_SELECT_TRACK,    /* u32 kind, i32 index */
	UMMS_IPC_SET_SUBTITLE_URI, /* string or NULL; fd: the local file, opened */
	UMMS_IPC_SET_VOLUME,      /* f64, u8 mute */
	UMMS_IPC_SET_VIDEO_OUTPUT, /* u8 wanted, u32 n, n × u32 */
	UMMS_IPC_SET_VIDEO_DMABUF, /* u8 any, u32 n, n × (u32, u64) */
	UMMS_IPC_SET_VIDEO_DELAY, /* i64 ns */
	UMMS_IPC_SET_SUBTITLE_DELAY, /* i64 µs */
	UMMS_IPC_SET_HARDWARE_CODECS, /* i32 n (-1: NULL, any), n × string */
	UMMS_IPC_RELEASE,         /* u64 frame id */
	/*
	 * A recording instead of a player (first request, instead of OPEN):
	 * string uri, string muxer ("matroskamux" or "mpegtsmux"), i64 start
	 * (µs since 1970: a scheduled start the file begins at, the source
	 * opened ahead; 0: now; not for a ring), and one fd:
	 * the file ummsd opened for writing (a time-shift ring: "hlssink2",
	 * see RING_FILE), then one more: what ummsd opened of a local uri.
	 * The worker answers SETTLED once
	 * its pipeline started (REFUSED if it cannot), one STATUS when the
	 * first data reached the file (the duration counts from there), EOS once the file
	 * is complete or ERROR if it fails; nothing else but PING and
	 * RECORD_STOP follows (and a ring's RING_FILE).
	 */
	UMMS_IPC_RECORD,
	UMMS_IPC_RECORD_STOP,     /* (nothing): end the stream, close the file properly */
	/*
	 * A time-shift ring's file (RECORD with muxer "hlssink2": then u32
	 * segment seconds, u32 segments listed, and no file: the worker asks
	 * RING_WANT for each, ummsd makes them): u32 the number asked, and one
	 * fd open for writing, or none (it cannot be had: the ring fails).
	 */
	UMMS_IPC_RING_FILE,
	/* To the fork server only (worker/zygote.h): u32 worker number; fd: its socket. */
	UMMS_IPC_FORK,
	UMMS_IPC_SET_BLOCKED,     /* u8 blocked (engine.h set_blocked) */
	UMMS_IPC_SET_VIDEO_SIZE,  /* u32 max width, u32 max height (engine.h set_video_size) */

	/* worker → ummsd */
	UMMS_IPC_READY = 64,      /* status */
	UMMS_IPC_PONG,            /* (id) */
	UMMS_IPC_STATUS,          /* status */
	UMMS_IPC_SETTLED,         /* status, error (u8 present first) */
	UMMS_IPC_REFUSED,         /* status, error */
	UMMS_IPC_INFO,            /* status, media info */
	UMMS_IPC_EOS,             /* status */
	UMMS_IPC_ERROR,           /* status, error */
	UMMS_IPC_FRAME,           /* frame (see umms_ipc_frame), fds */
	UMMS_IPC_CUE,             /* i64 start, i64 end, string text, markup, format */
	UMMS_IPC_RING_WANT,       /* u32 segment number, or UMMS_IPC_RING_PLAYLIST: RING_FILE answers */
	UMMS_IPC_RING_DONE,       /* (nothing): the playlist asked for is written: it replaces the last */
	UMMS_IPC_RING_DELETE,     /* u32 segment number: it left the ring */
	UMMS_IPC_FORKED,          /* the fork server's answer: i32 pid, or 0 and string why not */
	UMMS_IPC_EIT,             /* one EIT section's events (umms_ipc_put_eit) */
};

/* RING_WANT's number for the ring's next playlist. */
#define UMMS_IPC_RING_PLAYLIST 0xffffffffu

/* A request's header.id: more requests of the same batch follow. */
#define UMMS_IPC_MORE 1u

struct umms_ipc_header {
	uint32_t type;
	uint32_t id;      /* PING/PONG: the ping's number; requests: UMMS_IPC_MORE or 0 */
	uint32_t length;  /* payload bytes after the header */
	uint32_t reserved;
};

/* What every event carries about where the worker's engine is. */
struct umms_ipc_status {
	uint32_t state;          /* enum umms_engine_state */
	int64_t position;        /* µs, -1 unknown */
	int64_t taken_ns;        /* CLOCK_MONOTONIC when position was read */
	double rate;
	bool has_range;
	int64_t range_start, range_end;
	uint64_t decoded, presented, dropped, copies, dmabuf;
	uint64_t audio_buffers, audio_bytes; /* that reached the audio sink */
};

/* A FRAME message's fixed part; the planes' fds travel with it. */
struct umms_ipc_frame {
	uint64_t frame_id;
	uint32_t kind;           /* enum umms_frame_kind */
	uint32_t format;
	int32_t width, height, crop_x, crop_y, crop_width, crop_height;
	uint32_t par_n, par_d;
	uint64_t modifier;
	uint32_t n_planes;
	struct {
		uint32_t fd_index;   /* into the message's fds */
		uint32_t offset, stride;
	} planes[4];
	uint64_t memory_id;
	int64_t present_ns, position;
	bool has_subpicture;
	struct {
		uint32_t fd_index;
		uint64_t serial;
		uint32_t stride;
		int32_t x, y, width, height, picture_width, picture_height;
	} subpicture;
};

/* Building a payload. */
struct umms_ipc_writer {
	GByteArray *data;
	int fds[UMMS_IPC_MAX_FDS];  /* borrowed: sent as they are, not closed */
	int n_fds;
};

void umms_ipc_writer_init(struct umms_ipc_writer *w);
void umms_ipc_writer_finish(struct umms_ipc_writer *w);
void umms_ipc_put_u8(struct umms_ipc_writer *w, uint8_t v);
void umms_ipc_put_u32(struct umms_ipc_writer *w, uint32_t v);
void umms_ipc_put_i32(struct umms_ipc_writer *w, int32_t v);
void umms_ipc_put_u64(struct umms_ipc_writer *w, uint64_t v);
void umms_ipc_put_i64(struct umms_ipc_writer *w, int64_t v);
void umms_ipc_put_f64(struct umms_ipc_writer *w, double v);
/* NULL allowed; longer than UMMS_IPC_MAX_STRING: cut at a character boundary. */
void umms_ipc_put_string(struct umms_ipc_writer *w, const char *s);
/* The index the fd will have in the message; -1 when the message is full. */
int umms_ipc_put_fd(struct umms_ipc_writer *w, int fd);

/* Reading one. */
struct umms_ipc_reader {
	const uint8_t *data;
	size_t length, offset;
	bool failed;
};

void umms_ipc_reader_init(struct umms_ipc_reader *r, const void *data, size_t length);
uint8_t umms_ipc_get_u8(struct umms_ipc_reader *r);
bool umms_ipc_get_bool(struct umms_ipc_reader *r); /* a u8 of 0 or 1 */
uint32_t umms_ipc_get_u32(struct umms_ipc_reader *r);
int32_t umms_ipc_get_i32(struct umms_ipc_reader *r);
uint64_t umms_ipc_get_u64(struct umms_ipc_reader *r);
int64_t umms_ipc_get_i64(struct umms_ipc_reader *r);
double umms_ipc_get_f64(struct umms_ipc_reader *r); /* fails on NaN */
/* A new string (NULL for NULL) or NULL with r->failed set. */
char *umms_ipc_get_string(struct umms_ipc_reader *r);
/* Whether every byte was read and nothing failed. */
bool umms_ipc_reader_done(const struct umms_ipc_reader *r);

/*
 * Sends one message on @sock. @nonblocking: EAGAIN is a failure (ummsd does
 * not wait for a worker). False with @error on any failure.
 */
bool umms_ipc_send(int sock, uint32_t type, uint32_t id, const struct umms_ipc_writer *w,
	bool nonblocking, GError **error);

/* One received message: its payload and fds (owned: close what you keep not). */
struct umms_ipc_message {
	struct umms_ipc_header header;
	uint8_t *payload;        /* header.length bytes */
	int fds[UMMS_IPC_MAX_FDS];
	int n_fds;
};

/*
 * Receives one message. Returns 1 with @message filled, 0 when the peer
 * closed the connection, 0 with *again set when nothing is waiting
 * (nonblocking sockets), -1 with @error when the message is malformed
 * (truncated, over a bound, a header that does not match) or the socket
 * failed. Fds of a malformed message are closed.
 */
int umms_ipc_receive(int sock, struct umms_ipc_message *message, bool *again, GError **error);
void umms_ipc_message_clear(struct umms_ipc_message *message);

/* The status block. */
void umms_ipc_put_status(struct umms_ipc_writer *w, const struct umms_ipc_status *status);
bool umms_ipc_get_status(struct umms_ipc_reader *r, struct umms_ipc_status *status);

/* An error as code + message; the code of a non-UMMS_ERROR is Failed. */
void umms_ipc_put_error(struct umms_ipc_writer *w, const GError *error);
/* NULL with r->failed on a bad code or string. */
GError *umms_ipc_get_error(struct umms_ipc_reader *r);

/* A whole struct umms_media_info (tracks, tags, flags). */
void umms_ipc_put_media_info(struct umms_ipc_writer *w, const struct umms_media_info *info);
/* Replaces @info's contents; false (info reset) when malformed. */
bool umms_ipc_get_media_info(struct umms_ipc_reader *r, struct umms_media_info *info);

void umms_ipc_put_frame(struct umms_ipc_writer *w, const struct umms_ipc_frame *frame);
/* Checks counts and that fd indexes are below @n_fds; geometry is the caller's. */
bool umms_ipc_get_frame(struct umms_ipc_reader *r, int n_fds, struct umms_ipc_frame *frame);

/*
 * An EIT section (eit.h): its ids, then u32 n (at most
 * UMMS_EIT_MAX_EVENTS) events, each its numbers and strings. ummsd checks
 * every value: ids and numbers in their ranges, min_age what rating_raw
 * says, strings within eit.h's bounds; anything else is malformed.
 */
struct umms_eit;
void umms_ipc_put_eit(struct umms_ipc_writer *w, const struct umms_eit *eit);
/*
 * The worker's side: one UMMS_IPC_EIT on @sock (blocking). A section that
 * would not fit one message is left out (true, logged): eit.h's bounds
 * make that unlikely.
 */
bool umms_ipc_send_eit(int sock, const struct umms_eit *eit, GError **error);
/* Fills @eit (free it with umms_eit_clear); false (@eit empty) when malformed. */
bool umms_ipc_get_eit(struct umms_ipc_reader *r, struct umms_eit *eit);

/*
 * Whether a worker opening @uri needs the network in its sandbox: anything
 * but file: and v4l2: (http, https, rtsp, udp, rtp, HLS and DASH
 * manifests...), as the engine's reply-timeout counts network sources. A
 * capture device is local: its worker gets the device node, not sockets,
 * and as a local URI a fresh worker (Landlock's allowance cannot grow).
 * Both ends decide alike: ummsd gives a network URI after a file (and a
 * file after one) a fresh worker.
 */
bool umms_ipc_uri_is_network(const char *uri);

#endif
