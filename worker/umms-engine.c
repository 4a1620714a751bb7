/*
 * umms-engine: one player's engine in a process of its own (issue 15).
 * Started by ummsd (service/engine-supervisor.c) with its end of a socket as
 * fd 3; speaks worker/ipc.h on it and ends when ummsd hangs up. With
 * --zygote it is the fork server instead (zygote.h), and its workers go on
 * here once forked.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <gst/gst.h>

#include "ipc.h"
#include "log.h"
#include "worker.h"
#include "worker-heap.h"
#include "zygote.h"

int
main(int argc, char **argv)
{
	if (fcntl(UMMS_IPC_FD, F_GETFD) < 0) {
		fprintf(stderr, "umms-engine: started by ummsd only (no socket on fd %d)\n",
			UMMS_IPC_FD);
		return 2;
	}
	/* Before GStreamer makes any thread (worker-heap.h). */
	umms_worker_heap_setup();
	/* ummsd gone, we go too, whatever we were doing. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Writes to a closed socket fail with EPIPE rather than kill us quietly. */
	signal(SIGPIPE, SIG_IGN);

	g_autoptr(GError) error = NULL;
	struct umms_worker *worker = NULL;
	if (argc == 2 && strcmp(argv[1], "--zygote") == 0) {
		/* The fork server (zygote.h): returns in each worker it forks. */
		worker = umms_zygote_run(UMMS_IPC_FD, &error);
		if (worker && !umms_worker_adopt(worker, UMMS_IPC_FD, &error)) {
			umms_worker_destroy(worker);
			worker = NULL;
		}
	} else {
		worker = umms_worker_create(UMMS_IPC_FD, &error);
	}
	if (!worker) {
		fprintf(stderr, "umms-engine: %s\n", error->message);
		return 1;
	}

	/*
	 * The sandbox (worker/sandbox.h) is entered by the worker at the first
	 * OPEN: a spare is started before its URI is known, and the URI decides
	 * whether the network is allowed. The plugin ranks it needs are set
	 * while the spare waits.
	 */
	int status = umms_worker_run(worker);
	bool sandboxed = umms_worker_sandboxed(worker);
	umms_worker_destroy(worker);
	/*
	 * Torn down in order; but inside the sandbox the exit handlers would
	 * run LeakSanitizer, which cannot work there (it needs ptrace and a new
	 * process): leave without them.
	 */
	if (sandboxed)
		_exit(status);
	gst_deinit();
	return status;
}
