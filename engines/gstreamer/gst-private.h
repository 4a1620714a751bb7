/*
 * Inside the GStreamer engine.
 *
 * One playbin per engine. Requests become ops in a queue (ops); one op runs
 * at a time (current) and, when GStreamer must answer first, waits for a
 * bus message (wait). The queue is pumped from the main loop only, so the
 * engine never emits events from inside a request, and GStreamer never sees
 * a seek racing a state change.
 *
 * Files: gst-engine.c (ops, state, bus), gst-media.c (streams, tags, codec
 * names → struct umms_media_info), gst-support.c (URI probing, errors,
 * decoder policy, frame counters), gst-subtitles.c (external subtitle files),
 * gst-cues.c (subtitle cues on the video's clock: SubtitleCue, pixels),
 * gst-overlay.c (the stream's own subtitles, rendered by playbin, as subpictures),
 * gst-delay.c (SubtitleDelay on those, and the cues a seek with one needs),
 * gst-captions.c (CEA-608 and CEA-708 captions carried in the video, decoded into cues),
 * gst-preload.c (hardware decoder plugins loaded at start, off the main loop),
 * gst-teletext.c (DVB teletext subtitles decoded into text for playbin),
 * gst-spu.c (DVD and Blu-ray bitmap subtitles kept from dvdspu: drawn from cues),
 * gst-eit.c (DVB EIT sections read on tsdemux's input: events.eit).
 */
#ifndef UMMS_SERVICE_GST_PRIVATE_H
#define UMMS_SERVICE_GST_PRIVATE_H

#include <gio/gio.h>
#include <gst/gst.h>

#include "cues.h"
#include "engine.h"
#include "frame.h"
#include "gst-convert.h"

/* GStreamer's nanoseconds to the engine interface's microseconds. */
#define NS_TO_US(ns) ((int64_t)((ns) / 1000))

/* The closed caption tracks a video may carry, in their list order (gst-captions.c). */
enum gst_caption_kind {
	GST_CAPTIONS_608,       /* CEA-608, CC1 */
	GST_CAPTIONS_708,       /* CEA-708 (DTVCC), service 1 */
	GST_CAPTION_KINDS,
};

enum gst_op_type {
	GST_OP_OPEN,
	GST_OP_STATE,
	GST_OP_SEEK,
	GST_OP_RATE,
	GST_OP_STEP,
	GST_OP_SELECT,
	GST_OP_SUBTITLE,
	GST_OP_APPLY_SELECTION, /* internal: after a preroll, select what was asked for */
};

struct gst_op {
	enum gst_op_type type;
	union {
		struct {
			char *uri;    /* OPEN, SUBTITLE (NULL removes) */
			int fd;       /* SUBTITLE: the file, opened (owned); -1 none */
		};
		GstState state;       /* STATE: READY, PAUSED or PLAYING */
		int64_t position;     /* SEEK, µs */
		double rate;          /* RATE */
		int frames;           /* STEP */
		struct {
			enum umms_track_kind kind;
			int index;
		} select;             /* SELECT */
	};
};

enum gst_wait {
	GST_WAIT_NONE,
	GST_WAIT_STATE,       /* the pipeline reaching want_state */
	GST_WAIT_ASYNC_DONE,  /* a flushing seek or a step prerolling again */
	GST_WAIT_SUBTITLES,   /* the external subtitle file being read */
};

/* External subtitles: a side pipeline reads the file into cues. */
struct gst_subtitles;
/* The cues a seek with a subtitle delay needs, read beside the pipeline (gst-delay.c). */
struct gst_window;
struct umms_cues;

/* The last overlay composition made into a subpicture (gst-overlay.c). */
struct gst_overlay_cache {
	guint seqnum;                  /* of the composition */
	int crop[4];                   /* the picture it was placed in */
	struct umms_subpicture *subpicture; /* NULL: nothing to show */
	/* The renderers' picture (engine lock): frames scaled after them are smaller. */
	int width, height;
};

/* gst-timeline.c: the way to the first frame after an open, in the debug log. */
enum gst_timeline_step {
	GST_TIMELINE_DECODER,
	GST_TIMELINE_DECODED,
	GST_TIMELINE_FRAME,
	GST_TIMELINE_STEPS,
};

struct gst_timeline {
	gint64 wall, cpu;      /* µs at the open: monotonic, the process's CPU */
	long faults;           /* the process's page faults at the open */
	guint seen;            /* bits by step: logged (atomic) */
};

void gst_timeline_start(struct gst_timeline *t);
/* Any thread; logs @step once after each start. */
void gst_timeline_mark(struct gst_timeline *t, enum gst_timeline_step step);

struct gst_engine {
	struct umms_engine base;
	const struct umms_config *config;

	GstElement *pipeline;          /* playbin */
	GstElement *video_sink;

	GQueue ops;                    /* struct gst_op *, waiting */
	struct gst_op *current;        /* running, NULL when none */
	enum gst_wait wait;
	GstState want_state;
	GSource *pump_source;
	GSource *wait_timeout;
	bool busy;                     /* requests made since the last settled */

	char *uri;
	double rate;
	int64_t start_position;        /* µs to seek to at the next preroll, -1 none */
	int64_t seek_target;           /* µs a seek in flight goes to, -1 unknown */
	bool buffering;
	int http_status;               /* an HTTP source's answer, 0 none, -1 not asked (gst-network.c) */
	GCancellable *probe;           /* finding out why a server did not answer */

	/* Streams, as playbin numbers them, and what was asked for. */
	int want[UMMS_TRACK_KINDS];    /* requested index, -2 = playbin's choice */
	GstTagList *tags;              /* global tags of the media */
	char *container;               /* from typefind */
	char *missing;                 /* "codec h264" when a decoder was missing */
	struct gst_subtitles *subtitles;

	/* Written by streaming threads, read in the main loop. */
	GMutex lock;
	GHashTable *stream_caps;       /* stream id → GstCaps * a decoder was given */
	GPtrArray *video_decoders;     /* GstElement * (ref), every video decoder */
	char *current_video_id;        /* stream id of the video track shown */
	guint64 decoded;
	guint64 presented;
	guint64 superseded;  /* presented, but replaced by a newer one before the main loop ran */
	guint64 skipped;               /* dropped before decoding to catch up (gst-catchup.c) */
	guint64 copies;                /* frames copied into memfd memory */
	guint64 dmabuf_frames;         /* frames handed on as a decoder's dma-buf */
	bool video_wanted;             /* someone shows frames: build them */
	char **hardware_codecs;        /* hardware decoders allowed for these; NULL: any */

	/* Video output (gst-video.c). */
	GstAllocator *memfd_allocator;
	GstBufferPool *copy_pool;      /* streaming thread only */
	GArray *dmabuf_formats;        /* struct umms_frame_dmabuf_format taken; NULL: any (lock) */
	uint32_t *shm_formats;         /* the wl_shm formats last set (gst_video_set_formats) */
	size_t n_shm_formats;
	unsigned max_width, max_height; /* frames fit in this (set_video_size), 0: the picture's */
	GstBuffer *preroll_buffer;     /* last frame shown from a preroll (lock) */
	int64_t shown_position;        /* µs of the last video frame shown, -1 none (lock) */
	bool hold_frames;              /* prerolling only to seek elsewhere: show nothing (lock) */
	bool stream_subtitles_shown;   /* the selected track is the stream's own (lock) */
	struct gst_overlay_cache overlay_cache; /* (lock) */
	GAsyncQueue *frames;           /* struct gst_frame *, streaming → main */
	GSource *frame_source;
	struct umms_frame *last_frame; /* main loop: the last frame handed on */
	GHashTable *qos_dropped;       /* element name → guint64 dropped */

	/* Subtitle cues (gst-cues.c). */
	struct umms_cues *cue_track;   /* the selected track's cues, NULL none (lock) */
	bool cue_track_drawn;          /* drawn into frames' subpictures: the file's (lock) */
	int64_t subtitle_delay;        /* µs (lock) */
	GArray *cues_due;              /* struct umms_cue active at the last frame (lock) */
	int64_t cues_checked;          /* µs, the last frame's cue time; -1 after a jump (lock) */
	GAsyncQueue *cue_events;       /* cues that became due, streaming → main */

	/* The stream's own subtitles under a delay (gst-delay.c). */
	struct gst_window *window;     /* cues read beside the seek in flight, NULL none (lock) */
	GPtrArray *old_windows;        /* struct gst_window *, their threads not joined yet */

	/* Closed captions carried in the video (gst-captions.c). */
	struct umms_captions *captions; /* CC1's decoder (lock) */
	struct umms_captions708 *captions708; /* DTVCC service 1's decoder (lock) */
	struct umms_cues *caption_cues[GST_CAPTION_KINDS]; /* what they decoded (lock) */
	unsigned captions_seen;        /* bits by kind: the video carries them (lock) */
	bool captions_upstream;        /* ... read at the decoder's input (lock) */
	GQueue caption_pending;        /* pictures' caption data, by position (lock) */
	unsigned captions_listed;      /* main loop: bits by kind, the tracks in the list */

	struct gst_timeline timeline;  /* from the last open (gst-timeline.c) */

	/* Playback that stands still (gst-stall.c). */
	gint stall_buffers;            /* buffers that reached a sink (atomic) */
	GSource *stall_source;         /* polls stall_buffers while playing */
	int stall_seen;                /* stall_buffers at the last poll */
	gint64 stall_since;            /* monotonic µs no buffer has come since */
	bool stall_ended;              /* EOS seen: standing at the end is fine */

	struct gst_eit *eit;           /* EIT sections on tsdemux's input → events.eit */

	/* Parental control's block (gst-block.c). */
	gint blocked;                  /* no buffer reaches a sink (atomic) */
	guint64 audio_buffers;         /* buffers that reached the audio sink (lock) */
	guint64 audio_bytes;           /* ... and their bytes (lock) */
};

/* gst-engine.c: the op queue, state and bus. */
struct umms_engine *gst_engine_create(const struct umms_config *config, GError **error);
void gst_engine_destroy(struct umms_engine *base);
struct gst_engine *gst_engine_from_base(struct umms_engine *base);
struct gst_op *gst_op_new(enum gst_op_type type);
/* Queues @op (taking it) behind the others; runs from the main loop. */
void gst_engine_enqueue(struct gst_engine *engine, struct gst_op *op);
/* Drops every queued op and the running one (their requesters still get settled). */
void gst_engine_drop_ops(struct gst_engine *engine);
bool gst_engine_prerolled(struct gst_engine *engine);
/* µs, or -1. */
int64_t gst_engine_query_position(struct gst_engine *engine);
/* Asks the pipeline where it can seek (µs, -1 unknown); false if nobody answered. */
bool gst_engine_query_seeking(struct gst_engine *engine, bool *seekable, int64_t *start,
	int64_t *end);
void gst_engine_emit_info(struct gst_engine *engine);

/* gst-media.c */
void gst_media_reset(struct gst_engine *engine);
/* Rebuilds the track lists and current tracks from what playbin has now. */
void gst_media_update_tracks(struct gst_engine *engine);
/* The external subtitle file's index: after the media's text tracks and captions. */
int gst_media_external_index(struct gst_engine *engine);
/* Switches playbin to the tracks in engine->want (immediate). */
void gst_media_apply_selection(struct gst_engine *engine);
void gst_media_add_tags(struct gst_engine *engine, GstTagList *tags);
/* Re-reads duration, seekability and the decoder into engine->base.info. */
void gst_media_refresh(struct gst_engine *engine);
void gst_media_set_container(struct gst_engine *engine, GstCaps *caps);
/* "h264" for video/x-h264; never NULL. */
char *gst_media_codec_name(const GstCaps *caps);
/* Hardware decoders may be plugged for @codecs only (NULL: any, empty: none). Main loop. */
void gst_support_set_hardware_codecs(struct gst_engine *engine, const char *const *codecs);

/* gst-support.c */
bool gst_support_init(const struct umms_config *config, GError **error);
void gst_support_finish(void);
/* In a pad probe on a caps event: the event replaced by one of @caps (taken). */
void gst_support_replace_caps_event(GstPadProbeInfo *info, GstCaps *caps);
/*
 * A text buffer's cue place (cues.h) rides on it in a meta of ours from
 * the element that knows it (teletext) to the probe that makes its cue.
 */
void gst_support_set_cue_place(GstBuffer *buffer, const struct umms_cue_place *place);
/* The place on @buffer: false without one. */
bool gst_support_cue_place(GstBuffer *buffer, struct umms_cue_place *place);

/* gst-overlay.c: the stream's own subtitles, as playbin's overlays render them. */
/* Streaming thread: @element joined the pipeline; renderers are made to attach. */
void gst_overlay_element_added(struct gst_engine *engine, GstElement *element);
/* Main loop: playbin's @n text pads (its selector's) send their caps on when switched to. */
void gst_overlay_watch_text_pads(struct gst_engine *engine, int n);
/* Main loop: whether the stream's own subtitle track is the one shown. */
void gst_overlay_set_shown(struct gst_engine *engine, bool shown);
/*
 * The subpicture for @buffer's overlays (a reference), or NULL: none, or
 * hidden. @crop: x, y, width, height of the picture in the buffer.
 */
struct umms_subpicture *gst_overlay_subpicture(struct gst_engine *engine, GstBuffer *buffer,
	const int crop[4]);
void gst_overlay_finish(struct gst_engine *engine);

/* gst-delay.c: SubtitleDelay on the stream's own subtitles, which the overlay renders. */
void gst_delay_init(struct gst_engine *engine);
/* Main loop: waits for the windows still being read. */
void gst_delay_finish(struct gst_engine *engine);
/* Streaming thread: @overlay (a subtitleoverlay) renders engine->subtitle_delay later. */
void gst_delay_watch_overlay(struct gst_engine *engine, GstElement *overlay);
/*
 * Main loop: a flushing seek (@seqnum) at @rate to @position µs was sent:
 * with a delay, the cues due from there that the demuxer will not send are
 * read beside it for the overlay.
 */
void gst_delay_seek(struct gst_engine *engine, guint32 seqnum, double rate, int64_t position);
/* Main loop: the window of the last seek is not needed (the seek failed). */
void gst_delay_cancel(struct gst_engine *engine);
/* gst-spu.c: @overlay (a subtitleoverlay) gets no DVD or PGS units (gst-cues.c draws them). */
void gst_spu_watch(GstElement *overlay);

/* gst-teletext.c: makes decodebin decode teletext subtitle pages (once, at start). */
void gst_teletext_register(void);
/* Registers ummsdvbsrc, the dvb:// source tuned by ummsd (gst-dvb.c), where dvbbasebin is. */
void gst_dvb_register(void);
/* Whether the selected subtitle track is the media's own teletext (drawn from its cues). */
bool gst_teletext_selected(struct gst_engine *engine);
/* Streaming thread: @element joined the pipeline (tsdemux: its PMT is read). */
void gst_teletext_element_added(struct gst_engine *engine, GstElement *element);
/* A teletext @track of stream @stream_id: its language and page, from the PMT. */
void gst_teletext_describe(struct gst_engine *engine, const char *stream_id,
	struct umms_track *track);

/* gst-preload.c: hardware decoder plugins loaded on a thread at start, once. */
void gst_preload_start(void);
/*
 * Returns once the loading gst_preload_start() began is over and its
 * thread has ended (at once if none).
 */
void gst_preload_wait(void);
bool gst_support_probe_uri(const char *uri, GError **error);
/* engine.h list_hardware_decoders. */
void gst_support_list_hardware_decoders(GPtrArray *out);
/* A GStreamer error message as an UMMS_ERROR a person understands. */
GError *gst_support_error(struct gst_engine *engine, GError *gst_error, const char *debug);

/*
 * Whether audio can be heard here: a sound server answers or a playback
 * device exists (asked once; says so once when not).
 */
bool gst_support_can_sound(void);

/* gst-network.c: why an HTTP source failed. */
void gst_network_reset(struct gst_engine *engine);
void gst_network_headers(struct gst_engine *engine, GstMessage *message);
/* NotFound, AccessDenied or Failed for an HTTP error status; NULL if none. */
GError *gst_network_status_error(struct gst_engine *engine);
/* Whether the failure @message needs a look at the server first (then gst_engine_fail_network). */
bool gst_network_probe(struct gst_engine *engine, GstMessage *message);
/* gst-engine.c: fails the media with what the look found (takes @error). */
void gst_engine_fail_network(struct gst_engine *engine, GError *error);
/* gst-engine.c: fails playback (the Error signal) and resets the pipeline (takes @error). */
void gst_engine_fail_playback(struct gst_engine *engine, GError *error);
/* gst-stall.c: counts what reaches the sinks (engine->video_sink, and @audio_sink). */
void gst_stall_init(struct gst_engine *engine, GstElement *audio_sink);
/*
 * gst-block.c: set_blocked's probes on the video sink and @audio_sink (added
 * before gst_stall_init's), and the audio sink's counters after them.
 */
void gst_block_init(struct gst_engine *engine, GstElement *audio_sink);
/* Main loop: blocks or lets data through again (engine.h set_blocked). */
void gst_block_set(struct gst_engine *engine, bool blocked);
/* Any thread. */
bool gst_block_active(struct gst_engine *engine);
/* gst-stall.c: after the state changed; fails playback that stands still. */
void gst_stall_watch(struct gst_engine *engine);
/*
 * A missing-plugin message: true when it says a selected audio or video
 * stream has no decoder (recorded in engine->missing).
 */
bool gst_support_missing_plugin(struct gst_engine *engine, GstMessage *message);
/*
 * Watches the pipeline: decoders appearing (their input caps name the
 * codecs, the shown video's decoder is counted), typefind (the container),
 * playbin's stream signals (as "umms-streams" application messages).
 */
void gst_support_watch_pipeline(struct gst_engine *engine);
/* gst-catchup.c: @decoder (video) skips to its next key frame when hopelessly late. */
void gst_catchup_watch_decoder(struct gst_engine *engine, GstElement *decoder);
void gst_support_qos(struct gst_engine *engine, GstMessage *message);
void gst_support_reset_stats(struct gst_engine *engine);
void gst_support_get_stats(struct gst_engine *engine, struct umms_engine_stats *stats);

/*
 * gst-video.c: the video sink and the memory frames live in. Returns the
 * bin for playbin's video-sink (floating); @engine's video_sink is its appsink.
 */
/* gst-memfd.c: the allocator of frames' memfd memory, and each memory's number. */
GstAllocator *gst_memfd_allocator_new(void);
uint64_t gst_memfd_memory_id(GstMemory *memory);
GstElement *gst_video_create_sink(struct gst_engine *engine, GError **error);
void gst_video_finish(struct gst_engine *engine);
/* wl_shm formats the output may produce, preferred first; none: any. */
bool gst_video_check_formats(const uint32_t *shm_formats, size_t n, GError **error);
bool gst_video_set_formats(struct gst_engine *engine, const uint32_t *shm_formats, size_t n,
	GError **error);
/* Frames scaled down to fit @max_width x @max_height; 0: the picture's size. */
void gst_video_set_size(struct gst_engine *engine, unsigned max_width, unsigned max_height);
/* Whether frames are built and emitted, or only counted. */
void gst_video_set_wanted(struct gst_engine *engine, bool wanted);
/* The dma-bufs the output takes as they are (engine.h, set_video_dmabuf). */
void gst_video_set_dmabuf(struct gst_engine *engine, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n);
/* µs of the video frame on screen (paused: exactly the one sought), -1 if none. */
int64_t gst_video_shown_position(struct gst_engine *engine);
void gst_video_forget_shown(struct gst_engine *engine);
/* Frames on their way to the main loop are dropped (the pipeline was reset). */
void gst_video_drop_pending(struct gst_engine *engine);
/*
 * Main loop: shows the last frame again if what is to be drawn over it
 * changed (subtitles turned off or on while paused), and tells the cues
 * that stand at it.
 */
void gst_video_refresh(struct gst_engine *engine);
/* While set, frames are not shown (a preroll on the way to a seek). */
void gst_video_hold(struct gst_engine *engine, bool hold);

/* gst-engine.c: the SUBTITLE op's completion. */
void gst_engine_subtitles_loaded(struct gst_engine *engine, const GError *error);

/* gst-subtitles.c */
/*
 * Starts reading @uri (SRT, WebVTT, SSA/ASS, SAMI… anything subparse
 * reads) into timed cues; gst_engine_subtitles_loaded() is called from the
 * main loop when done.
 */
/* @fd: the file @uri names, opened (taken); -1 to open @uri. */
struct gst_subtitles *gst_subtitles_create(struct gst_engine *engine, const char *uri, int fd);
void gst_subtitles_destroy(struct gst_subtitles *subtitles);
bool gst_subtitles_ready(const struct gst_subtitles *subtitles);
const char *gst_subtitles_codec(const struct gst_subtitles *subtitles);
const char *gst_subtitles_description(const struct gst_subtitles *subtitles);
const char *gst_subtitles_language(const struct gst_subtitles *subtitles);
/* The file's cues once ready, else NULL (the subtitles' reference). */
struct umms_cues *gst_subtitles_cues(const struct gst_subtitles *subtitles);

/* gst-captions.c */
/* After the video sink is made: its pictures' caption data is decoded from now on. */
void gst_captions_init(struct gst_engine *engine);
/* Streaming thread: a video decoder joined the pipeline; its input's captions are read. */
void gst_captions_watch_decoder(struct gst_engine *engine, GstElement *decoder);
void gst_captions_finish(struct gst_engine *engine);
/* Main loop: another media; no captions seen, none known. */
void gst_captions_reset(struct gst_engine *engine);
/*
 * Main loop: the caption tracks found since the last call listed (after the
 * media's own text tracks @internal, in kind order); a choice of a later
 * track follows it to its new index. Their count.
 */
int gst_captions_list(struct gst_engine *engine, int internal);
/* Main loop: how many caption tracks are listed (after the media's own). */
int gst_captions_count(struct gst_engine *engine);
/* The cues of the caption track @index of those listed (a new reference), or NULL. */
struct umms_cues *gst_captions_cues(struct gst_engine *engine, int index);
/* The caption track @index of those listed, for SubtitleTracks. */
struct umms_track *gst_captions_track(struct gst_engine *engine, int index);

/* gst-cues.c */
void gst_cues_init(struct gst_engine *engine);
void gst_cues_finish(struct gst_engine *engine);
/* Probes the media's text tracks as playbin makes them (after the pipeline is made). */
void gst_cues_watch(struct gst_engine *engine);
/*
 * Main loop: the selected subtitle track may have changed; true if it did.
 * Cues of the old one that stood end with an empty cue (engine.h).
 */
bool gst_cues_update(struct gst_engine *engine);
/* Main loop: a seek or a reset; cues on screen at the target are due again. */
void gst_cues_reset(struct gst_engine *engine);
void gst_cues_set_delay(struct gst_engine *engine, int64_t us);
/* Any thread: the cue list of the media's text track behind playbin's @pad (a reference). */
struct umms_cues *gst_cues_of_pad(GstPad *pad);
/* Streaming thread: the frame at @position µs is due; queues the cues that became due. */
void gst_cues_frame_due(struct gst_engine *engine, int64_t position);
/*
 * Streaming thread: the selected external file's cues at @position µs drawn
 * for a picture of @width x @height (a new reference), or NULL.
 */
struct umms_subpicture *gst_cues_subpicture(struct gst_engine *engine, int64_t position,
	int width, int height);
/* Main loop: emits the queued cues (events.subtitle_cue). */
void gst_cues_dispatch(struct gst_engine *engine);

#endif
