/*
 * The engine's fork server ("zygote", issue 15): one long-lived,
 * single-threaded umms-engine (started with --zygote) that has loaded
 * GStreamer, its registry, the sandbox's plugin ranks and the plugins a
 * spare warms up, once; each worker ummsd asks for is forked from it and
 * then goes on as a worker started by exec does (worker.h), from INIT on.
 *
 * The control socket is fd 3 (a SOCK_SEQPACKET, worker/ipc.h's framing):
 * ummsd sends INIT (u32 0, string configuration), the zygote answers READY
 * once loaded; then each FORK (u32 worker number; fd: the worker's end of
 * its socket) is answered with FORKED (i32 pid, or 0 and a string: why
 * not). A worker is forked twice (the middle process exits at once), so
 * it becomes the child of ummsd, which is a child subreaper while it asks
 * (PR_SET_CHILD_SUBREAPER): ummsd waits for it, reads its exit status and
 * watches its pidfd as for any worker it started, and the worker outlives
 * the zygote. The zygote refuses to fork (FORKED 0) while it has more
 * than one thread or any descriptor beyond 0 to 3 and the one passed.
 */
#ifndef UMMS_WORKER_ZYGOTE_H
#define UMMS_WORKER_ZYGOTE_H

#include <glib.h>

/*
 * Serves ummsd's FORK requests on @ctl. Returns only in a forked worker,
 * whose end of the socket is then UMMS_IPC_FD (the control socket
 * closed), with the worker prepared (umms_worker_adopt() goes on); the
 * zygote itself exits when ummsd hangs up. NULL with @error when the zygote
 * could not be set up.
 */
struct umms_worker;
struct umms_worker *umms_zygote_run(int ctl, GError **error);

#endif
