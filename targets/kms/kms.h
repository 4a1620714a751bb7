/*
 * The KMS target: ummsd drives a screen itself (a TV box, a kiosk) and puts
 * video on it with the plane ladder (kms-ladder.h): on an overlay plane
 * when the device takes the frame as it is, composited into the primary
 * plane when not, every layout tried with TEST_ONLY before it is
 * committed, the last good one kept. One atomic commit per frame;
 * page-flip events pace the commits and give the presentation times.
 *
 * The picture goes inside the screen's overscan margins, placed by a zoom
 * mode (common/layout.h) with the frame's pixel aspect ratio honoured.
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
#include "target.h"

struct umms_kms_margins {
	int left, top, right, bottom;   /* pixels, or percent of the mode's width/height */
	bool percent;
};

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
	struct umms_kms_margins margins;
	enum umms_layout_scale zoom;
	struct umms_kms_opener opener;
};

/* "5%" or "5%,3%,5%,3%" or "32,18,32,18" (left, top, right, bottom). */
bool umms_kms_margins_parse(const char *text, struct umms_kms_margins *out, GError **error);
/* "letterbox", "fill", "crop", "none", "4:3-in-16:9", "anamorphic". */
bool umms_kms_zoom_parse(const char *text, enum umms_layout_scale *out, GError **error);
const char *umms_kms_zoom_name(enum umms_layout_scale zoom);

/* Opens the device and lights the screen (black). */
struct umms_target *umms_kms_output_create(const struct umms_kms_config *config,
	GError **error);

/*
 * The session gave the device away (@active false: a VT switch): no
 * commits until it is back; frames wait, the newest kept. Back, the next
 * commit sets the mode and every plane again, with the current frame.
 */
void umms_kms_output_set_active(struct umms_target *target, bool active);

/* Changes apply with the next frame (or at once, re-showing the current one). */
bool umms_kms_output_set_mode(struct umms_target *target, const char *mode, GError **error);
/*
 * Refresh-rate matching: switches to the mode of the same size whose rate
 * suits @fps (umms_kms_match_refresh), remembering the mode before; @fps
 * 0 goes back to it. Stays (and says so in the log) when no mode suits.
 */
void umms_kms_output_match_refresh(struct umms_target *target, double fps);
void umms_kms_output_set_margins(struct umms_target *target, const struct umms_kms_margins *m);
void umms_kms_output_set_zoom(struct umms_target *target, enum umms_layout_scale zoom);

/*
 * A UI on the screen: ummsd's compositor (service/compositor/) draws its
 * clients' surfaces into the primary plane's buffer; the video goes on a
 * plane above it, or under it (the UI must be transparent there: the
 * video then has to be composited on planes that cannot go under the
 * primary), or is composited with it, as the ladder finds.
 *
 * - draw() paints the UI over @dst (x8r8g8b8, the mode's size, already
 *   black or holding the video) with its area's origin at (@x, @y). Called
 *   from a commit, whenever the UI is redrawn; what it drew reaches the
 *   screen at the next presented().
 * - presented() comes at each page flip: @when_ns on CLOCK_MONOTONIC,
 *   @refresh_ns the frame period, @seq the vblank counter.
 * - resized() (optional) gives the UI area's size: at set_ui, and after a
 *   mode or margins change.
 */
struct umms_kms_ui_impl {
	void (*draw)(void *data, pixman_image_t *dst, int x, int y);
	void (*presented)(void *data, int64_t when_ns, uint32_t refresh_ns, uint64_t seq);
	void (*resized)(void *data, int width, int height);
};
void umms_kms_output_set_ui(struct umms_target *target, const struct umms_kms_ui_impl *impl,
	void *data);
/* The UI changed (or shows nothing: !@visible): a commit soon redraws it. */
void umms_kms_output_damage_ui(struct umms_target *target, bool visible);
/* The UI's area in mode pixels: x, y, width, height (inside margins drawn by us). */
void umms_kms_output_get_ui_area(struct umms_target *target, int area[4]);

/*
 * Where the video goes, in the UI area's coordinates (a rectangle of a UI
 * surface's), with its own zoom mode; a rectangle of no size hides the
 * video. NULL: back to the whole area with the display's zoom.
 */
struct umms_kms_video_place {
	int x, y, width, height;
	enum umms_layout_scale scale;
	bool above_ui;
};
void umms_kms_output_place_video(struct umms_target *target,
	const struct umms_kms_video_place *place);

/* The device (st_rdev), the refresh rate in mHz, the formats overlay planes take. */
dev_t umms_kms_output_get_device(struct umms_target *target);
int umms_kms_output_get_refresh_mhz(struct umms_target *target);
/* Returns how many; *formats to g_free. */
int umms_kms_output_get_overlay_formats(struct umms_target *target, uint32_t **formats);

/* Reading the state, for org.umms.Display1. */
char **umms_kms_output_list_modes(struct umms_target *target);      /* g_strfreev */
char *umms_kms_output_current_mode(struct umms_target *target);     /* g_free */
/* The margins in pixels of the current mode: left, top, right, bottom. */
void umms_kms_output_get_margins_px(struct umms_target *target, int px[4]);
/* Whether margins leave a picture: each side 0 to 40% of the mode. */
bool umms_kms_output_check_margins(struct umms_target *target, const struct umms_kms_margins *m,
	GError **error);
enum umms_layout_scale umms_kms_output_get_zoom(struct umms_target *target);
/* aa{sv}: id, type, formats (as), zpos, use ("video", "background", "composition", ""). */
GVariant *umms_kms_output_describe_planes(struct umms_target *target);
/* "overlay", "primary", "composited", or "" with no video. */
const char *umms_kms_output_get_rung(struct umms_target *target);
/* Frames copied because their memory could not be scanned out as it is. */
uint64_t umms_kms_output_get_copies(struct umms_target *target);

/*
 * What the screen shows now, read back through the device's writeback
 * connector, written to @path as PNG. Blocks for up to a few frames.
 * Fails with NotSupported where the device has no writeback connector.
 */
bool umms_kms_output_capture(struct umms_target *target, const char *path, GError **error);

#endif
