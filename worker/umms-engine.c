/*
 * umms-engine: one player's engine in a process of its own (issue 15).
 * Started by ummsd (service/engine-proxy.c) with its end of a socket as fd 3;
 * speaks worker/ipc.h on it and ends when ummsd hangs up.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <gst/gst.h>

#include "ipc.h"
#include "log.h"
#include "worker.h"

int
main(int argc, char **argv)
{
	if (fcntl(UMMS_IPC_FD, F_GETFD) < 0) {
		fprintf(stderr, "umms-engine: started by ummsd only (no socket on fd %d)\n",
			UMMS_IPC_FD);
		return 2;
	}
	/* ummsd gone, we go too, whatever we were doing. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Writes to a closed socket fail with EPIPE rather than kill us quietly. */
	signal(SIGPIPE, SIG_IGN);

	g_autoptr(GError) error = NULL;
	struct umms_worker *worker = umms_worker_create(UMMS_IPC_FD, &error);
	if (!worker) {
		fprintf(stderr, "umms-engine: %s\n", error->message);
		return 1;
	}

	/*
	 * SANDBOX: umms_sandbox_enter() (worker/sandbox.h) goes here: GStreamer
	 * is loaded and the engine created, nothing has been served yet.
	 */

	int status = umms_worker_run(worker);
	umms_worker_destroy(worker);
	gst_deinit();
	return status;
}
