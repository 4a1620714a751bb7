/*
 * A screen: a target (target.h) that is a whole display ummsd drives
 * itself, with modes, overscan margins, a zoom mode, and a UI layer for
 * ummsd's own Wayland compositor (service/compositor/). Two implement it:
 * targets/kms/ (a real screen through KMS, video on planes where it can)
 * and targets/headless/ (no screen at all: frames composited with a
 * renderer into memory, for tests, CI and machines without a display).
 * org.umms.Display1 (service/display.c) and the compositor use only this
 * interface, so everything they offer works on both.
 *
 * A screen target's impl->screen points at its `static const struct
 * umms_screen_impl`; the wrappers below must only be given such a target.
 *
 * Contract for every implementation (on the main loop, like target.h):
 * - Geometry: the mode is the screen's size; the margins (overscan) shrink
 *   the UI area, which is where the video and the UI go. Changes apply
 *   with the next frame or at once, re-showing the current one.
 * - The video goes in the whole UI area with the screen's zoom, or where
 *   place_video() says (in the UI area's coordinates, with its own zoom),
 *   over or under the UI. Without a UI the rest is black.
 * - The UI (set_ui): draw() is called with a renderer (renderers/renderer.h)
 *   already begun on the screen's buffer, black or holding the video
 *   there, and paints the UI's surfaces with it, clipped to @area (the UI
 *   area in buffer pixels); presented() comes when what was drawn reached
 *   the screen (page flip, or the headless screen's virtual vblank) with
 *   the time, the refresh period and a counter; resized() gives the UI
 *   area's size at set_ui and whenever it changes. damage_ui() asks for a
 *   redraw soon; a screen redraws the UI only after damage_ui() or when
 *   the video under or over it changed.
 * - get_video_formats() lists the wl_shm formats (in order of preference)
 *   the screen takes frames in, so the engine decodes or converts straight
 *   into one of them.
 * - capture() writes what the screen shows now as PNG, or fails with
 *   NotSupported naming why.
 * - describe_planes(), get_rung() and get_copies() are what Display1
 *   reports: "overlay", "primary", "composited" or "" (no video); copies
 *   are frames copied on their way (a dumb-buffer copy, a GPU upload).
 *   get_stats() counts the renderer's work: pictures composited (none
 *   while nothing changes) and uploads (a static UI is uploaded once).
 */
#ifndef UMMS_TARGETS_SCREEN_H
#define UMMS_TARGETS_SCREEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <glib.h>

#include "layout.h"
#include "target.h"

struct umms_renderer;
struct umms_render_box;

struct umms_screen_margins {
	int left, top, right, bottom;   /* pixels, or percent of the mode's width/height */
	bool percent;
};

/* "5%" or "5%,3%,5%,3%" or "32,18,32,18" (left, top, right, bottom). */
bool umms_screen_margins_parse(const char *text, struct umms_screen_margins *out,
	GError **error);
/* The margins in pixels of a @width x @height mode: left, top, right, bottom. */
void umms_screen_margins_px(const struct umms_screen_margins *m, int width, int height,
	int px[4]);
/* Whether @m leaves a picture on a @width x @height mode: each side 0 to 40%. */
bool umms_screen_margins_check(const struct umms_screen_margins *m, int width, int height,
	GError **error);
/* "letterbox", "fill", "crop", "none", "4:3-in-16:9", "anamorphic". */
bool umms_screen_zoom_parse(const char *text, enum umms_layout_scale *out, GError **error);
const char *umms_screen_zoom_name(enum umms_layout_scale zoom);

/* Where the video goes, in the UI area's coordinates; no size: hidden. */
struct umms_screen_video_place {
	int x, y, width, height;
	enum umms_layout_scale scale;
	bool above_ui;
	/* The placing client draws its own captions: frames' subpictures are not shown. */
	bool no_subtitles;
};

struct umms_screen_ui_impl {
	void (*draw)(void *data, struct umms_renderer *renderer, const struct umms_render_box *area);
	void (*presented)(void *data, int64_t when_ns, uint32_t refresh_ns, uint64_t seq);
	void (*resized)(void *data, int width, int height);
	/*
	 * Optional (NULL: the UI is repainted whole each draw): the part of
	 * @area (target pixels) that changed since the last draw, in *@box;
	 * false when all of it may have (or the UI cannot tell). An empty box:
	 * nothing changed. Asked just before a draw, whose draw() then
	 * repaints (renderer.h target damage) only that, the screen's own
	 * changes added.
	 */
	bool (*damage)(void *data, const struct umms_render_box *area,
		struct umms_render_box *box);
};

/* How the screen's pictures were drawn, for Display1.RenderStats. */
struct umms_screen_stats {
	const char *renderer;     /* "gles2 (…)", "pixman" */
	uint64_t redraws;         /* pictures composited by the renderer */
	uint64_t uploads;         /* images it uploaded (video frames and UI surfaces) */
	uint64_t subpictures;     /* subtitle images new to the screen: one per serial */
	uint64_t upload_bytes;    /* what those uploads copied */
	uint64_t damaged_pixels;  /* pixels repainted, over all redraws */
};

struct umms_screen_impl {
	/* Modes, "1920x1080@60.00", the preferred first (g_strfreev). */
	char **(*list_modes)(struct umms_target *t);
	char *(*current_mode)(struct umms_target *t);            /* g_free */
	/* "WxH" or "WxH@Hz"; NotSupported when the screen has no such mode. */
	bool (*set_mode)(struct umms_target *t, const char *mode, GError **error);
	/* A mode whose rate suits @fps, or back to the mode before (@fps 0). */
	void (*match_refresh)(struct umms_target *t, double fps);
	int (*get_refresh_mhz)(struct umms_target *t);
	bool (*check_margins)(struct umms_target *t, const struct umms_screen_margins *m,
		GError **error);
	void (*set_margins)(struct umms_target *t, const struct umms_screen_margins *m);
	void (*get_margins_px)(struct umms_target *t, int px[4]);
	void (*set_zoom)(struct umms_target *t, enum umms_layout_scale zoom);
	enum umms_layout_scale (*get_zoom)(struct umms_target *t);
	/* NULL: the whole UI area with the screen's zoom. */
	void (*place_video)(struct umms_target *t, const struct umms_screen_video_place *place);
	int (*get_video_formats)(struct umms_target *t, const uint32_t **shm_formats);

	void (*set_ui)(struct umms_target *t, const struct umms_screen_ui_impl *impl, void *data);
	void (*damage_ui)(struct umms_target *t, bool visible);
	/* x, y, width, height of the UI area in the mode's pixels. */
	void (*get_ui_area)(struct umms_target *t, int area[4]);
	/* The DRM device clients' dma-bufs should come from (0: none) and what planes take. */
	dev_t (*get_device)(struct umms_target *t);
	int (*get_overlay_formats)(struct umms_target *t, uint32_t **formats); /* g_free */
	/*
	 * The renderer that composes the UI (the one set_ui's draw gets), the
	 * screen's from create to destroy: what it imports
	 * (umms_renderer_dmabuf_formats) is what clients' dma-bufs may be.
	 */
	struct umms_renderer *(*get_renderer)(struct umms_target *t);

	GVariant *(*describe_planes)(struct umms_target *t);   /* aa{sv} */
	const char *(*get_rung)(struct umms_target *t);
	uint64_t (*get_copies)(struct umms_target *t);
	bool (*capture)(struct umms_target *t, const char *path, GError **error);
	void (*get_stats)(struct umms_target *t, struct umms_screen_stats *stats);
};

#define UMMS_SCREEN(t) ((t)->impl->screen)

static inline char **umms_screen_list_modes(struct umms_target *t)
{ return UMMS_SCREEN(t)->list_modes(t); }
static inline char *umms_screen_current_mode(struct umms_target *t)
{ return UMMS_SCREEN(t)->current_mode(t); }
static inline bool umms_screen_set_mode(struct umms_target *t, const char *mode, GError **error)
{ return UMMS_SCREEN(t)->set_mode(t, mode, error); }
static inline void umms_screen_match_refresh(struct umms_target *t, double fps)
{ UMMS_SCREEN(t)->match_refresh(t, fps); }
static inline int umms_screen_get_refresh_mhz(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_refresh_mhz(t); }
static inline bool umms_screen_check_margins(struct umms_target *t,
	const struct umms_screen_margins *m, GError **error)
{ return UMMS_SCREEN(t)->check_margins(t, m, error); }
static inline void umms_screen_set_margins(struct umms_target *t,
	const struct umms_screen_margins *m)
{ UMMS_SCREEN(t)->set_margins(t, m); }
static inline void umms_screen_get_margins_px(struct umms_target *t, int px[4])
{ UMMS_SCREEN(t)->get_margins_px(t, px); }
static inline void umms_screen_set_zoom(struct umms_target *t, enum umms_layout_scale zoom)
{ UMMS_SCREEN(t)->set_zoom(t, zoom); }
static inline enum umms_layout_scale umms_screen_get_zoom(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_zoom(t); }
static inline void umms_screen_place_video(struct umms_target *t,
	const struct umms_screen_video_place *place)
{ UMMS_SCREEN(t)->place_video(t, place); }
static inline int umms_screen_get_video_formats(struct umms_target *t, const uint32_t **formats)
{ return UMMS_SCREEN(t)->get_video_formats(t, formats); }
static inline void umms_screen_set_ui(struct umms_target *t,
	const struct umms_screen_ui_impl *impl, void *data)
{ UMMS_SCREEN(t)->set_ui(t, impl, data); }
static inline void umms_screen_damage_ui(struct umms_target *t, bool visible)
{ UMMS_SCREEN(t)->damage_ui(t, visible); }
static inline void umms_screen_get_ui_area(struct umms_target *t, int area[4])
{ UMMS_SCREEN(t)->get_ui_area(t, area); }
static inline dev_t umms_screen_get_device(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_device(t); }
static inline int umms_screen_get_overlay_formats(struct umms_target *t, uint32_t **formats)
{ return UMMS_SCREEN(t)->get_overlay_formats(t, formats); }
static inline struct umms_renderer *umms_screen_get_renderer(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_renderer(t); }
static inline GVariant *umms_screen_describe_planes(struct umms_target *t)
{ return UMMS_SCREEN(t)->describe_planes(t); }
static inline const char *umms_screen_get_rung(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_rung(t); }
static inline uint64_t umms_screen_get_copies(struct umms_target *t)
{ return UMMS_SCREEN(t)->get_copies(t); }
static inline bool umms_screen_capture(struct umms_target *t, const char *path, GError **error)
{ return UMMS_SCREEN(t)->capture(t, path, error); }
static inline void umms_screen_get_stats(struct umms_target *t, struct umms_screen_stats *stats)
{ UMMS_SCREEN(t)->get_stats(t, stats); }

#endif
