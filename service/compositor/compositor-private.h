/*
 * Inside the compositor: what surface.c (wl_compositor, wl_surface,
 * wl_region, wl_subcompositor), shell.c (xdg_wm_base, wl_output,
 * wp_viewporter, wp_presentation) and scene.c (drawing, frame callbacks,
 * presentation feedback, video placements) share.
 *
 * Surface state is double-buffered as Wayland says: requests fill
 * `pending`, a commit moves it to `current` (or, for a synchronized
 * subsurface, to `cached` until its parent commits).
 */
#ifndef UMMS_SERVICE_COMPOSITOR_PRIVATE_H
#define UMMS_SERVICE_COMPOSITOR_PRIVATE_H

#include <pixman.h>
#include <wayland-server-core.h>

#include "compositor.h"

struct umms_seat;
struct umms_dmabuf;

struct video_place {
	bool set;                 /* this state changes the placement */
	void *owner;              /* the view that placed it; NULL: removed */
	struct umms_player *player;
	struct umms_placement p;
};

/* A placement in effect (or latched, waiting for its surface's commit). */
struct placement {
	void *owner;
	struct umms_player *player;
	struct surface *surface;  /* relative to it */
	struct umms_placement p;
	uint64_t order;           /* when placed: ties in z keep this order */
	int64_t deadline_us;      /* latched: applied by then without a commit */
	struct wl_listener player_destroy;
	struct umms_compositor *compositor;
};

/* What changed in a state, so that merging only moves what was set. */
enum {
	STATE_BUFFER = 1 << 0,
	STATE_VIEWPORT_SRC = 1 << 1,
	STATE_VIEWPORT_DST = 1 << 2,
	STATE_SCALE = 1 << 3,
	STATE_DAMAGE = 1 << 4,        /* the pixels changed (damage or damage_buffer) */
};

struct surface_state {
	uint32_t committed;       /* STATE_* */
	struct wl_resource *buffer;   /* NULL: attached nothing */
	struct wl_listener buffer_destroy;
	int32_t dx, dy;
	int32_t scale;
	double src_x, src_y, src_w, src_h;   /* viewport source; src_w < 0: unset */
	int32_t dst_w, dst_h;                /* viewport destination; dst_w < 0: unset */
	struct wl_list frames;    /* wl_callback resources (their link) */
	struct wl_list feedbacks; /* struct feedback.link */
	struct video_place video;
	struct surface *owner;    /* set for a surface's current state only */
	/*
	 * Where the pixels changed (damage_buffer in buffer pixels, damage in
	 * surface coordinates): bounding boxes x0, y0, x1, y1; x1 <= x0: none.
	 */
	int32_t buffer_damage[4], surface_damage[4];
};

struct subsurface;

struct surface {
	struct umms_compositor *compositor;
	struct wl_resource *resource;
	struct wl_list link;      /* umms_compositor.surfaces */
	struct surface_state pending, cached, current;
	bool has_cache;
	const char *role;         /* "wl_subsurface", "xdg_toplevel"…, NULL: none yet */
	struct subsurface *subsurface;  /* with that role */
	struct toplevel *toplevel;      /* with the xdg_toplevel role */
	struct wl_resource *viewport;
	/* Stacking of this surface and its subsurfaces, bottom first. */
	struct wl_list below;     /* struct subsurface.link: those under it */
	struct wl_list above;     /* over it */
	int width, height;        /* surface size of the current state, 0: no buffer */
	/*
	 * Damage tracking: content_serial counts commits that changed the
	 * pixels (a buffer attached, or damage); drawn_serial is the one last
	 * drawn, so an unchanged surface is not uploaded again.
	 */
	uint64_t image_id;        /* for the renderer's cache, unique in the process */
	uint64_t content_serial, drawn_serial;
	/*
	 * Since drawn: the buffer pixels that changed (x0, y0, x1, y1; x1 <= x0:
	 * none), or all of them. Where it was drawn last (target pixels, the
	 * same form; none when it was not): a move or resize repaints both.
	 */
	int32_t damage[4];
	bool damage_all;
	int32_t drawn_box[4];
	/*
	 * The pixels of the current wl_shm buffer, copied when its client
	 * destroyed it while it was still shown: Wayland keeps a surface's
	 * contents until the next attach, and the screen may redraw before.
	 */
	struct {
		void *data;
		uint32_t format;      /* wl_shm */
		int width, height, stride;
	} kept;
	struct {
		struct wl_signal destroy;
	} events;
};

struct subsurface {
	struct wl_resource *resource;
	struct surface *surface, *parent;
	struct wl_listener parent_destroy, surface_destroy;
	struct wl_list link;      /* in parent->below or parent->above */
	int32_t x, y;             /* current position */
	int32_t pending_x, pending_y;
	bool position_pending;
	bool sync;
};

struct toplevel {
	struct surface *surface;
	struct wl_resource *xdg_surface, *resource;
	struct wl_list link;      /* umms_compositor.toplevels, oldest first */
	uint32_t configure_serial;
	uint32_t acked_serial;    /* the last serial acked */
	bool configured;          /* a configure was acked */
	bool mapped;              /* has a buffer */
	int sent_w, sent_h;
};

struct feedback {
	struct wl_resource *resource;
	struct wl_list link;
	struct surface *surface;  /* NULL once the surface is gone */
};

struct umms_compositor {
	struct wl_display *display;
	struct umms_target *screen;       /* screen.h: KMS or headless */
	struct umms_compositor_hooks hooks;
	void *hooks_data;
	struct wl_global *compositor, *subcompositor, *wm_base, *output, *viewporter,
		*presentation;
	struct umms_seat *seat;
	struct umms_dmabuf *dmabuf;
	struct wl_list surfaces;  /* struct surface.link */
	struct wl_list toplevels; /* struct toplevel.link */
	struct wl_list outputs;   /* wl_output resources */
	struct wl_list frames_drawn;    /* callbacks whose surfaces were drawn, to fire at the flip */
	struct wl_list feedbacks_drawn; /* struct feedback.link, likewise */
	int width, height;        /* the UI area */
	/* Placements (placement.c): in effect, and latched to a surface's commit. */
	GPtrArray *placements, *latched;   /* struct placement */
	uint64_t next_order;
	guint latch_timer;         /* the next latched deadline */
	GArray *videos;           /* struct umms_compositor_video: as last told */
	bool videos_told;
	bool drawing_ui;          /* in ui_draw: a damage there is not new */
	bool whole;               /* the next draw repaints the whole UI area */
	bool destroying;
	bool said_dmabuf_fallback;  /* logged once */
};

/* surface.c */
/* Whether the surface shows something: a buffer, or the pixels kept of one. */
bool compositor_surface_has_content(const struct surface *surface);
bool compositor_surface_init(struct umms_compositor *c);
/* wl_resource_create and its implementation; NULL (the client told: no memory) on failure. */
struct wl_resource *compositor_resource_create(struct wl_client *client,
	const struct wl_interface *interface, int version, uint32_t id, const void *impl,
	void *data, wl_resource_destroy_func_t destroy);
struct surface *compositor_surface_from_resource(struct wl_resource *resource);
/* Claims @role for @surface: false (and a protocol error on @error_resource) if it has another. */
bool compositor_surface_set_role(struct surface *surface, const char *role,
	struct wl_resource *error_resource, uint32_t error_code);
/* The surface's position in the UI area (toplevels sit at 0,0), false if not shown. */
bool compositor_surface_position(struct surface *surface, int *x, int *y);
void compositor_state_init(struct surface_state *state);
void compositor_state_finish(struct surface_state *state);

/* shell.c */
bool compositor_shell_init(struct umms_compositor *c);
void compositor_shell_finish(struct umms_compositor *c);
/* A toplevel's surface committed (its first commit asks for a configure). */
void compositor_toplevel_committed(struct toplevel *toplevel);
/* The UI area changed size: every toplevel is configured again. */
void compositor_shell_resize(struct umms_compositor *c);
/* A commit may go on (xdg rules: no buffer before the first configure is acked). */
bool compositor_shell_check_commit(struct surface *surface);
/* Checks a committed viewport against its buffer; false after a protocol error. */
bool compositor_viewport_check(struct surface *surface);

/* scene.c */
extern const struct umms_screen_ui_impl compositor_ui_impl;
/* Something on screen changed: redraw with the next commit. */
void compositor_scene_damage(struct umms_compositor *c);
/* A surface's commit: only what changed in surfaces is repainted (scene.c). */
void compositor_scene_damage_commit(struct umms_compositor *c);
/* A commit's damage (in s->current, then cleared) added to what changed since drawn. */
void compositor_surface_add_damage(struct surface *s, bool resized);
/* @box (x0, y0, x1, y1) grown to take in the box @x0 … @y1 (x1 <= x0: none). */
void compositor_box_add(int32_t box[4], int32_t x0, int32_t y0, int32_t x1, int32_t y1);
/* Presentation feedback (shell.c makes them, scene.c answers them). */
void compositor_feedback_discard(struct feedback *feedback);

/* placement.c */
void compositor_placement_init(struct umms_compositor *c);
void compositor_placement_finish(struct umms_compositor *c);
/* A committed state's placement (if set) takes effect for @surface. */
void compositor_placement_apply(struct umms_compositor *c, struct surface *surface,
	const struct video_place *video);
/* @surface committed: the placements latched to it take effect. */
void compositor_placement_committed(struct umms_compositor *c, struct surface *surface);
void compositor_placement_surface_gone(struct umms_compositor *c, struct surface *surface);
/* Recomputes where the videos are; tells the display if that changed. */
void compositor_placement_update(struct umms_compositor *c);
/* Draws the videos of toplevel @layer on one side of it (the scene's part). */
void compositor_placement_draw(struct umms_compositor *c, int layer, bool over,
	struct umms_renderer *renderer, const struct umms_render_box *area);

#endif
