/* A plain umms_video_v1 client for tests: see video-raw.h. */
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "video-raw.h"

/* Now on CLOCK_MONOTONIC, the clock of show times, in ns. */
int64_t
monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec * 1000000000LL + now.tv_nsec;
}

const char *
video_socket(void)
{
	static char *path;
	if (!path)
		path = g_build_filename(umms_test_tmpdir(), "umms-0", NULL);
	return path;
}

static void
buffer_plane(void *data, struct umms_video_buffer_v1 *proxy, int32_t fd, uint32_t offset,
	uint32_t stride)
{
	struct raw_buffer *buffer = data;
	g_assert_cmpint(buffer->n_planes, <, 4);
	buffer->fds[buffer->n_planes] = fd;
	buffer->offsets[buffer->n_planes] = offset;
	buffer->strides[buffer->n_planes] = stride;
	buffer->n_planes++;
}

static void
buffer_done(void *data, struct umms_video_buffer_v1 *proxy)
{
	((struct raw_buffer *)data)->done = true;
}

static void
buffer_retired(void *data, struct umms_video_buffer_v1 *proxy)
{
	((struct raw_buffer *)data)->retired = true;
}

static const struct umms_video_buffer_v1_listener buffer_listener = {
	.plane = buffer_plane,
	.done = buffer_done,
	.retired = buffer_retired,
};

static void
player_path(void *data, struct umms_video_player_v1 *player, const char *path)
{
	((struct raw_client *)data)->path = g_strdup(path);
}

static void
player_failed(void *data, struct umms_video_player_v1 *player, const char *reason)
{
	((struct raw_client *)data)->failed = g_strdup(reason);
}

static void
player_geometry(void *data, struct umms_video_player_v1 *player, int32_t width, int32_t height,
	int32_t crop_x, int32_t crop_y, int32_t crop_width, int32_t crop_height, uint32_t par_n,
	uint32_t par_d)
{
	struct raw_client *c = data;
	int values[8] = { width, height, crop_x, crop_y, crop_width, crop_height,
		(int)par_n, (int)par_d };
	memcpy(c->geometry, values, sizeof(values));
}

static void
player_buffer(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *id,
	uint32_t kind, uint32_t format, int32_t width, int32_t height, uint32_t mod_hi,
	uint32_t mod_lo)
{
	struct raw_client *c = data;
	struct raw_buffer *buffer = g_new0(struct raw_buffer, 1);
	buffer->proxy = id;
	buffer->kind = kind;
	buffer->format = format;
	buffer->width = width;
	buffer->height = height;
	umms_video_buffer_v1_add_listener(id, &buffer_listener, buffer);
	g_ptr_array_add(c->buffers, buffer);
}

static void
player_show(void *data, struct umms_video_player_v1 *player, struct umms_video_buffer_v1 *proxy,
	uint32_t serial, uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec)
{
	struct raw_client *c = data;
	struct raw_buffer *buffer = umms_video_buffer_v1_get_user_data(proxy);
	g_assert_true(buffer->done);
	g_assert_false(buffer->retired);
	c->shows++;
	c->last_serial = serial;
	c->last_due_ns = (int64_t)(((uint64_t)sec_hi << 32 | sec_lo) * 1000000000 + nsec);
	c->last_received_ns = monotonic_ns();
	if (c->auto_release && c->last) {
		umms_video_buffer_v1_release(c->last->proxy);
		c->last->held--;
	}
	buffer->held++;
	buffer->shows++;
	c->last = buffer;
}

static void
player_eos(void *data, struct umms_video_player_v1 *player)
{
	((struct raw_client *)data)->eos++;
}

static void
player_clear(void *data, struct umms_video_player_v1 *player)
{
	((struct raw_client *)data)->clears++;
}

static void
player_error(void *data, struct umms_video_player_v1 *player, const char *name, const char *message)
{
	((struct raw_client *)data)->errors++;
}

static void
player_subpicture(void *data, struct umms_video_player_v1 *player, int32_t fd, uint32_t serial,
	int32_t x, int32_t y, int32_t width, int32_t height, uint32_t stride,
	int32_t picture_width, int32_t picture_height)
{
	close(fd);
	((struct raw_client *)data)->subpictures++;
}

static void
player_subpicture_clear(void *data, struct umms_video_player_v1 *player)
{
	((struct raw_client *)data)->subpictures++;
}

static void
player_cue(void *data, struct umms_video_player_v1 *player, const char *text)
{
}

static const struct umms_video_player_v1_listener player_listener = {
	.path = player_path,
	.failed = player_failed,
	.geometry = player_geometry,
	.buffer = player_buffer,
	.show = player_show,
	.end_of_stream = player_eos,
	.clear = player_clear,
	.error = player_error,
	.subpicture = player_subpicture,
	.subpicture_clear = player_subpicture_clear,
	.cue = player_cue,
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct raw_client *c = data;
	if (strcmp(interface, umms_video_manager_v1_interface.name) == 0)
		c->manager = wl_registry_bind(registry, name, &umms_video_manager_v1_interface,
			c->version);
}

static void
registry_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_remove,
};

/*
 * Connects with manager version @version; @formats: wl_shm formats to
 * announce (0-terminated), NULL: none.
 */
struct raw_client *
raw_connect_version(const uint32_t *formats, uint32_t version)
{
	struct raw_client *c = g_new0(struct raw_client, 1);
	c->version = version;
	c->buffers = g_ptr_array_new();
	c->auto_release = true;
	c->display = wl_display_connect(video_socket());
	g_assert_nonnull(c->display);
	struct wl_registry *registry = wl_display_get_registry(c->display);
	wl_registry_add_listener(registry, &registry_listener, c);
	g_assert_cmpint(wl_display_roundtrip(c->display), >=, 0);
	wl_registry_destroy(registry);
	g_assert_nonnull(c->manager);
	for (const uint32_t *f = formats; f && *f; f++)
		umms_video_manager_v1_shm_format(c->manager, *f == 1000 ? 0 : *f);
	return c;
}

struct raw_client *
raw_connect(const uint32_t *formats)
{
	return raw_connect_version(formats, 1);
}

void
raw_player(struct raw_client *c, const char *path)
{
	c->player = path ? umms_video_manager_v1_attach(c->manager, path) :
		umms_video_manager_v1_create_player(c->manager);
	umms_video_player_v1_add_listener(c->player, &player_listener, c);
	g_assert_cmpint(wl_display_roundtrip(c->display), >=, 0);
}

/* Reads what arrives for @ms; false once the server has disconnected us. */
bool
raw_pump(struct raw_client *c, unsigned ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
	do {
		while (g_main_context_iteration(NULL, FALSE))
			;
		while (wl_display_prepare_read(c->display) != 0) {
			if (wl_display_dispatch_pending(c->display) < 0)
				return false;
		}
		wl_display_flush(c->display);
		struct pollfd pfd = { .fd = wl_display_get_fd(c->display), .events = POLLIN };
		if (poll(&pfd, 1, 5) > 0) {
			if (wl_display_read_events(c->display) < 0)
				return false;
		} else {
			wl_display_cancel_read(c->display);
		}
		if (wl_display_dispatch_pending(c->display) < 0)
			return false;
	} while (g_get_monotonic_time() < end);
	return true;
}

void
raw_wait_shows(struct raw_client *c, unsigned shows, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (c->shows < shows) {
		if (g_get_monotonic_time() > end)
			g_error("only %u of %u frames arrived", c->shows, shows);
		g_assert_true(raw_pump(c, 10));
	}
}

void
raw_free(struct raw_client *c)
{
	for (guint i = 0; i < c->buffers->len; i++) {
		struct raw_buffer *b = c->buffers->pdata[i];
		for (int p = 0; p < b->n_planes; p++)
			close(b->fds[p]);
		/* Only the proxy: the connection may be gone (protocol error tests). */
		if (b->proxy)
			wl_proxy_destroy((struct wl_proxy *)b->proxy);
		g_free(b);
	}
	g_ptr_array_unref(c->buffers);
	if (c->player)
		wl_proxy_destroy((struct wl_proxy *)c->player);
	if (c->manager)
		wl_proxy_destroy((struct wl_proxy *)c->manager);
	wl_display_disconnect(c->display);
	g_free(c->path);
	g_free(c->failed);
	g_free(c);
}

/* The pixel at (x, y) of an XRGB8888 memfd buffer, as 0xRRGGBB. */
uint32_t
raw_pixel(struct raw_buffer *buffer, int x, int y)
{
	struct stat st;
	g_assert_cmpint(fstat(buffer->fds[0], &st), ==, 0);
	uint8_t *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, buffer->fds[0], 0);
	g_assert_true(data != MAP_FAILED);
	uint32_t pixel = *(uint32_t *)(data + buffer->offsets[0] + (size_t)y * buffer->strides[0] +
		(size_t)x * 4);
	munmap(data, (size_t)st.st_size);
	return pixel & 0xffffff;
}
