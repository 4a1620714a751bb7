/*
 * The KMS target: ummsd drives a screen itself (a TV box, a kiosk) and puts
 * video on it with the plane ladder (kms-ladder.h): on an overlay plane
 * when the device takes the frame as it is, composited into the primary
 * plane when not, every layout tried with TEST_ONLY before it is
 * committed, the last good one kept. One atomic commit per frame;
 * page-flip events pace the commits and give the presentation times.
 *
 * The picture goes inside the screen's overscan margins, placed by a zoom
 * mode (base/layout.h) with the frame's pixel aspect ratio honoured.
 * Margins use the connector's own "left/right/top/bottom margin"
 * properties where the driver has them, else shrink the picture's area.
 *
 * umms_kms_output_create() returns a target (targets/target.h); the
 * functions below take that target and must only be given a KMS one.
 */
#ifndef UMMS_TARGETS_KMS_H
#define UMMS_TARGETS_KMS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>
#include <pixman.h>

#include "layout.h"
#include "screen.h"
#include "target.h"

/*
 * How device nodes are opened and closed (ummsd: in its session, through
 * libseat or directly). Without open: open(O_RDWR | O_CLOEXEC) and close().
 * open returns an fd, or -1 with @error naming the path.
 */
struct umms_kms_opener {
	int (*open)(void *data, const char *path, GError **error);
	void (*close)(void *data, int fd);
	void *data;
};

struct umms_kms_config {
	const char *device;      /* NULL/"": the first card with a screen */
	const char *connector;   /* NULL/"": the first connected */
	const char *mode;        /* NULL/"": preferred; "WxH" or "WxH@Hz" */
	struct umms_screen_margins margins;
	enum umms_layout_scale zoom;
	struct umms_kms_opener opener;
	const char *renderer;    /* what composes: "auto" or "pixman"; "gles2" (GBM) when asked */
};

/* Opens the device and lights the screen (black). */
struct umms_target *umms_kms_output_create(const struct umms_kms_config *config,
	GError **error);

/*
 * The session gave the device away (@active false: a VT switch): no
 * commits until it is back; frames wait, the newest kept. Back, the next
 * commit sets the mode and every plane again, with the current frame.
 */
void umms_kms_output_set_active(struct umms_target *target, bool active);

/*
 * Everything else (modes, margins, zoom, the UI layer, video placement,
 * capture through the writeback connector) goes through the screen
 * interface (screen.h): the KMS output's impl->screen.
 */

#endif
