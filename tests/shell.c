/* A shell client of ummsd's compositor (shell.h). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "gles2.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "pixman-renderer.h"
#include "presentation-time-client-protocol.h"
#include "renderer.h"
#include "shell.h"
#include "xdg-shell-client-protocol.h"


static void
dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format)
{
}

static void
dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format,
	uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct shell *s = data;
	struct umms_render_format pair = { format, (uint64_t)modifier_hi << 32 | modifier_lo };
	g_array_append_val(s->dmabuf_formats, pair);
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format,
	.modifier = dmabuf_modifier,
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct shell *s = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0)
		s->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	else if (strcmp(interface, wl_shm_interface.name) == 0)
		s->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
		s->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	else if (strcmp(interface, wp_presentation_interface.name) == 0)
		s->presentation = wl_registry_bind(registry, name, &wp_presentation_interface, 1);
	else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3)
	{
		s->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
		zwp_linux_dmabuf_v1_add_listener(s->dmabuf, &dmabuf_listener, s);
	}
}

static void
registry_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_remove,
};

static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	struct shell *s = data;
	s->width = width, s->height = height;
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	((struct shell *)data)->configure_serial = serial;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

/* Connects to ummsd's socket, which is the screen's compositor too. */
struct shell *
shell_connect(void)
{
	struct shell *s = g_new0(struct shell, 1);
	s->dmabuf_formats = g_array_new(FALSE, TRUE, sizeof(struct umms_render_format));
	s->display = wl_display_connect("umms-0");
	g_assert_nonnull(s->display);
	struct wl_registry *registry = wl_display_get_registry(s->display);
	wl_registry_add_listener(registry, &registry_listener, s);
	g_assert_cmpint(wl_display_roundtrip(s->display), >=, 0);
	wl_registry_destroy(registry);
	/* What the globals bound just now announce (dma-buf modifiers). */
	g_assert_cmpint(wl_display_roundtrip(s->display), >=, 0);
	g_assert_nonnull(s->compositor);
	g_assert_nonnull(s->shm);
	g_assert_nonnull(s->wm_base);
	g_assert_nonnull(s->presentation);
	return s;
}

/* A fullscreen window: the size it is given is the screen inside the margins. */
void
shell_map(struct shell *s)
{
	s->surface = wl_compositor_create_surface(s->compositor);
	s->xdg_surface = xdg_wm_base_get_xdg_surface(s->wm_base, s->surface);
	xdg_surface_add_listener(s->xdg_surface, &xdg_surface_listener, s);
	s->toplevel = xdg_surface_get_toplevel(s->xdg_surface);
	xdg_toplevel_add_listener(s->toplevel, &toplevel_listener, s);
	xdg_toplevel_set_fullscreen(s->toplevel, NULL);
	wl_surface_commit(s->surface);
	while (!s->configure_serial)
		g_assert_cmpint(wl_display_dispatch(s->display), >=, 0);
	xdg_surface_ack_configure(s->xdg_surface, s->configure_serial);
}

static void
frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
	((struct shell *)data)->frame_done = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener frame_listener = { .done = frame_done };

static void
feedback_sync_output(void *data, struct wp_presentation_feedback *fb, struct wl_output *output)
{
}

static void
feedback_presented(void *data, struct wp_presentation_feedback *fb, uint32_t sec_hi,
	uint32_t sec_lo, uint32_t nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo,
	uint32_t flags)
{
	struct shell *s = data;
	/* A page flip timed it: a real time and the mode's frame period (60 Hz). */
	g_assert_cmpuint(sec_lo | sec_hi, >, 0);
	g_assert_cmpuint(refresh, >, 15000000);
	g_assert_cmpuint(refresh, <, 18000000);
	g_assert_true(flags & WP_PRESENTATION_FEEDBACK_KIND_VSYNC);
	s->presented = true;
	wp_presentation_feedback_destroy(fb);
}

static void
feedback_discarded(void *data, struct wp_presentation_feedback *fb)
{
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

/*
 * Attaches @buffer and commits, with whatever video geometry was set
 * since; returns once the commit is on screen (frame callback and
 * presentation feedback both answered), and destroys the buffer: the
 * screen keeps showing its pixels until the next attach.
 */
void
shell_commit(struct shell *s, struct wl_buffer *buffer)
{
	shell_commit_damage(s, buffer, NULL, 0);
}

void
shell_commit_damage(struct shell *s, struct wl_buffer *buffer, const int (*damage)[4],
	int n_damage)
{
	wl_surface_attach(s->surface, buffer, 0, 0);
	if (!damage)
		wl_surface_damage_buffer(s->surface, 0, 0, INT32_MAX, INT32_MAX);
	for (int i = 0; i < n_damage; i++)
		wl_surface_damage_buffer(s->surface, damage[i][0], damage[i][1], damage[i][2],
			damage[i][3]);
	struct wl_callback *frame = wl_surface_frame(s->surface);
	wl_callback_add_listener(frame, &frame_listener, s);
	struct wp_presentation_feedback *fb = wp_presentation_feedback(s->presentation, s->surface);
	wp_presentation_feedback_add_listener(fb, &feedback_listener, s);
	s->frame_done = s->presented = false;
	wl_surface_commit(s->surface);
	while (!s->frame_done || !s->presented)
		g_assert_cmpint(wl_display_dispatch(s->display), >=, 0);
	wl_buffer_destroy(buffer);
}


/* Draws the UI (a pixel function over the whole surface) and commits it (shell_commit). */
void
shell_paint(struct shell *s, ui_pixel_fn pixel, const void *data)
{
	shell_paint_damage(s, pixel, data, NULL, 0);
}

void
shell_paint_damage(struct shell *s, ui_pixel_fn pixel, const void *data,
	const int (*damage)[4], int n_damage)
{
	int stride = s->width * 4, size = stride * s->height;
	int fd = memfd_create("kiosk-ui", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(fd, size), ==, 0);
	uint32_t *pixels = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	g_assert_true(pixels != MAP_FAILED);
	for (int y = 0; y < s->height; y++) {
		for (int x = 0; x < s->width; x++)
			pixels[y * s->width + x] = pixel(x, y, data);
	}
	munmap(pixels, (size_t)size);
	struct wl_shm_pool *pool = wl_shm_create_pool(s->shm, fd, size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, s->width, s->height, stride,
		WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	shell_commit_damage(s, buffer, damage, n_damage);
}

struct flat_ui {
	uint32_t rgb;
	const int *hole;
};

static uint32_t
flat_pixel(int x, int y, const void *data)
{
	const struct flat_ui *ui = data;
	const int *h = ui->hole;
	bool in = h && x >= h[0] && x < h[0] + h[2] && y >= h[1] && y < h[1] + h[3];
	return in ? 0 : 0xff000000u | ui->rgb;
}

/* The UI: @rgb everywhere, a transparent hole at @hole unless NULL. */
void
shell_draw(struct shell *s, uint32_t rgb, const int hole[4])
{
	struct flat_ui ui = { rgb, hole };
	shell_paint(s, flat_pixel, &ui);
}

static void
video_ready(void *data, struct umms_client_video *video, const char *path)
{
	((struct shell *)data)->player = g_strdup(path);
}

static const struct umms_client_video_listener video_listener = { .ready = video_ready };

/*
 * A player of the client's own (libumms-client, over the same connection)
 * placed at @rect with @stacking in the same commit as a UI of @rgb with
 * @hole, then opened and paused on its first frame (red).
 *
 * Placed before it is opened: a client that blocks on D-Bus calls, as this
 * test does, must not be sent frames it cannot release meanwhile.
 */
void
shell_video(struct umms_test *t, struct shell *s, enum umms_client_stacking stacking,
	const int rect[4], uint32_t rgb, const int hole[4])
{
	s->umms = umms_client_connect(s->display, NULL);
	g_assert_nonnull(s->umms);
	s->video = umms_client_video_create(s->umms, s->surface, NULL);
	umms_client_video_set_listener(s->video, &video_listener, s);
	while (!s->player)
		g_assert_cmpint(wl_display_dispatch(s->display), >=, 0);
	umms_client_video_set_stacking(s->video, stacking);
	umms_client_video_set_rect(s->video, rect[0], rect[1], rect[2], rect[3]);
	shell_draw(s, rgb, hole);
	g_autofree char *uri = umms_test_clip_uri("colors.mkv");
	umms_test_player_do(t->bus, s->player, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, s->player, "Pause", NULL);
}

void
shell_free(struct shell *s)
{
	umms_client_video_destroy(s->video);
	umms_client_disconnect(s->umms);
	if (s->toplevel)
		xdg_toplevel_destroy(s->toplevel);
	if (s->xdg_surface)
		xdg_surface_destroy(s->xdg_surface);
	if (s->surface)
		wl_surface_destroy(s->surface);
	xdg_wm_base_destroy(s->wm_base);
	wp_presentation_destroy(s->presentation);
	if (s->dmabuf)
		zwp_linux_dmabuf_v1_destroy(s->dmabuf);
	g_array_unref(s->dmabuf_formats);
	wl_shm_destroy(s->shm);
	wl_compositor_destroy(s->compositor);
	wl_display_disconnect(s->display);
	g_free(s->player);
	g_free(s);
}


static gint
format_cmp(gconstpointer a, gconstpointer b)
{
	const struct umms_render_format *x = a, *y = b;
	if (x->format != y->format)
		return x->format < y->format ? -1 : 1;
	return x->modifier < y->modifier ? -1 : x->modifier > y->modifier;
}

void
shell_sort_formats(GArray *formats)
{
	g_array_sort(formats, format_cmp);
}

GArray *
shell_renderer_formats(const char *renderer)
{
	g_autoptr(GError) error = NULL;
	struct umms_renderer *r = strcmp(renderer, "gles2") == 0 ?
		umms_gles2_renderer_create(NULL, &error) : umms_pixman_renderer_create(&error);
	g_assert_no_error(error);
	g_assert_nonnull(r);
	const struct umms_render_format *pairs = NULL;
	size_t n = umms_renderer_dmabuf_formats(r, &pairs);
	GArray *formats = g_array_new(FALSE, TRUE, sizeof(struct umms_render_format));
	g_array_append_vals(formats, pairs, (guint)n);
	umms_renderer_destroy(r);
	shell_sort_formats(formats);
	return formats;
}
