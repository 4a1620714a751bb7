/*
 * A recording's pipeline in an engine worker (issue 15): ummsd opens
 * (creates) the file and hands the worker its descriptor; the worker
 * (umms-engine, sandboxed as for players: it can create no file, and
 * reaches the network only for a network URI) remuxes into it. A worker
 * that crashes, stops answering pings ([engine] hang-timeout) or passes
 * [engine] worker-memory-max is killed and reported: what it wrote stays
 * in the file. Private to recording.c.
 */
#ifndef UMMS_SERVICE_RECORDING_WORKER_H
#define UMMS_SERVICE_RECORDING_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>

struct recording_worker;
struct umms_eit;

struct recording_worker_handler {
	/* The first data reached the file. */
	void (*flowing)(void *data);
	/*
	 * Once: @code 0 and @error NULL: the file is complete; @code 0 and
	 * @error: the worker's pipeline failed; @code UMMS_ERROR_ENGINE_CRASHED
	 * or _HUNG: the worker died, @error says how. @removed: it failed
	 * before writing a byte, and the empty file it had been given, created
	 * by ummsd, was removed.
	 */
	void (*ended)(void *data, int code, const char *error, bool removed);
	/* Optional: an EIT section of the MPEG-TS recorded (eit.h), checked. */
	void (*eit)(void *data, const struct umms_eit *eit);
};

/*
 * Started (the file created, the worker asked); NULL with @error, the file
 * removed again if it was created here (an existing one is truncated and
 * stays). @start_us > 0: the file begins then (recording.h), the source
 * opened now.
 */
struct recording_worker *umms_recording_worker_start(const char *uri, const char *path,
	const char *mux, int64_t start_us, const struct recording_worker_handler *handler,
	void *data, GError **error);
/*
 * A time-shift ring (recording.h) in a worker: hlssink2 there, its files
 * made and deleted here through @files (ring-files.h, kept by the caller
 * until this is freed) as it asks.
 */
struct umms_ring_files;
struct recording_worker *umms_recording_worker_start_ring(const char *uri,
	struct umms_ring_files *files, unsigned segment_s, unsigned n_segments,
	const struct recording_worker_handler *handler, void *data, GError **error);
/* Asks the worker to end the stream and close the file properly. */
void umms_recording_worker_stop(struct recording_worker *w);
/* Lets the worker go now (it ends; what it wrote stays): no call to the handler after. */
void umms_recording_worker_abandon(struct recording_worker *w);
void umms_recording_worker_free(struct recording_worker *w);
/* The worker's process id; 0 once it is gone. */
pid_t umms_recording_worker_pid(const struct recording_worker *w);

#endif
