#define UMMS_LOG_SCOPE UMMS_SCOPE_VIDEO

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "manager.h"
#include "umms-video-v1-protocol.h"
#include "video-private.h"

/* wl_shm.format XRGB8888: what every compositor takes. */
#define SHM_XRGB8888 1u
/*
 * The most dma-buf formats kept from one client: more than any compositor
 * lists (formats times modifiers), fewer than a hostile client could send.
 */
#define MAX_DMABUF_FORMATS 512

/* ---- the display inside the GLib main loop ------------------------------- */

struct display_source {
	GSource base;
	struct wl_display *display;
};

static gboolean
display_prepare(GSource *base, gint *timeout)
{
	struct display_source *source = (struct display_source *)base;
	/* Events queued since the last dispatch leave before we sleep. */
	wl_display_flush_clients(source->display);
	*timeout = -1;
	return FALSE;
}

static gboolean
display_dispatch(GSource *base, GSourceFunc callback, gpointer data)
{
	struct display_source *source = (struct display_source *)base;
	wl_event_loop_dispatch(wl_display_get_event_loop(source->display), 0);
	wl_display_flush_clients(source->display);
	return G_SOURCE_CONTINUE;
}

static GSourceFuncs display_source_funcs = {
	.prepare = display_prepare,
	.dispatch = display_dispatch,
};

/* ---- umms_video_manager_v1 ------------------------------------------------ */

struct manager_object {
	struct umms_video_server *server;
	GArray *formats; /* uint32_t wl_shm formats, preferred first */
	GArray *dmabuf;  /* struct umms_frame_dmabuf_format the client's compositor imports */
	bool attached;
};

static void
manager_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
manager_shm_format(struct wl_client *client, struct wl_resource *resource, uint32_t format)
{
	struct manager_object *object = wl_resource_get_user_data(resource);
	if (object->attached) {
		wl_resource_post_error(resource, UMMS_VIDEO_MANAGER_V1_ERROR_ATTACHED,
			"shm_format after a player was attached");
		return;
	}
	g_array_append_val(object->formats, format);
}

static void
manager_dmabuf_format(struct wl_client *client, struct wl_resource *resource,
	uint32_t format, uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct manager_object *object = wl_resource_get_user_data(resource);
	if (object->attached) {
		wl_resource_post_error(resource, UMMS_VIDEO_MANAGER_V1_ERROR_ATTACHED,
			"dmabuf_format after a player was attached");
		return;
	}
	/*
	 * A hardware decoder's dma-buf frames go to this client as they are
	 * only in a pair it listed; others come in shared memory (video-view.c).
	 */
	struct umms_frame_dmabuf_format pair = { format,
		(uint64_t)modifier_hi << 32 | modifier_lo };
	for (guint i = 0; i < object->dmabuf->len; i++) {
		const struct umms_frame_dmabuf_format *had = &g_array_index(object->dmabuf,
			struct umms_frame_dmabuf_format, i);
		if (had->format == pair.format && had->modifier == pair.modifier)
			return;
	}
	if (object->dmabuf->len >= MAX_DMABUF_FORMATS) {
		umms_debug("client listed over %d dma-buf formats: %.4s modifier %#llx left out",
			MAX_DMABUF_FORMATS, (const char *)&format,
			(unsigned long long)pair.modifier);
		return;
	}
	g_array_append_val(object->dmabuf, pair);
}

static void
make_view(struct manager_object *object, struct wl_client *client, struct wl_resource *resource,
	uint32_t id, struct umms_player *player, bool owned)
{
	object->attached = true;
	/* A client that said nothing gets what every compositor takes. */
	static const uint32_t fallback = SHM_XRGB8888;
	const uint32_t *formats = object->formats->len ?
		(const uint32_t *)(void *)object->formats->data : &fallback;
	size_t n = object->formats->len ? object->formats->len : 1;
	video_view_create(object->server, client, wl_resource_get_version(resource), id,
		player, owned, formats, n,
		(const struct umms_frame_dmabuf_format *)(void *)object->dmabuf->data,
		object->dmabuf->len);
}

static void
manager_attach(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	const char *path)
{
	struct manager_object *object = wl_resource_get_user_data(resource);
	make_view(object, client, resource, id,
		umms_manager_find_player(object->server->manager, path), false);
}

static void
manager_create_player(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct manager_object *object = wl_resource_get_user_data(resource);
	g_autoptr(GError) error = NULL;
	struct umms_player *player = umms_manager_create_owned_player(object->server->manager,
		&error);
	if (!player)
		umms_info("create_player refused: %s", error->message);
	make_view(object, client, resource, id, player, player != NULL);
}

static const struct umms_video_manager_v1_interface manager_impl = {
	.destroy = manager_destroy,
	.shm_format = manager_shm_format,
	.dmabuf_format = manager_dmabuf_format,
	.attach = manager_attach,
	.create_player = manager_create_player,
};

static void
manager_resource_destroy(struct wl_resource *resource)
{
	struct manager_object *object = wl_resource_get_user_data(resource);
	g_array_unref(object->formats);
	g_array_unref(object->dmabuf);
	g_free(object);
}

static void
bind_manager(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct manager_object *object = g_new0(struct manager_object, 1);
	object->server = data;
	object->formats = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	object->dmabuf = g_array_new(FALSE, FALSE, sizeof(struct umms_frame_dmabuf_format));
	struct wl_resource *resource = wl_resource_create(client,
		&umms_video_manager_v1_interface, (int)version, id);
	if (!resource) {
		g_array_unref(object->formats);
		g_array_unref(object->dmabuf);
		g_free(object);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, object, manager_resource_destroy);
}

/* ---- the socket ---------------------------------------------------------- */

/*
 * An absolute socket path (libwayland 1.21 takes only names in
 * $XDG_RUNTIME_DIR): bound here, with a lock file like libwayland's.
 */
static bool
add_socket_path(struct umms_video_server *server, const char *path, GError **error)
{
	server->lock_path = g_strdup_printf("%s.lock", path);
	int lock = open(server->lock_path, O_CREAT | O_CLOEXEC | O_RDWR, 0640);
	if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"video socket %s is in use (is another ummsd running?)", path);
		if (lock >= 0)
			close(lock);
		return false;
	}
	server->lock_fd = lock;
	struct sockaddr_un address = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(address.sun_path)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"video socket path %s is too long", path);
		return false;
	}
	strcpy(address.sun_path, path);
	unlink(path);
	server->socket_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (server->socket_fd < 0 ||
			bind(server->socket_fd, (struct sockaddr *)&address, sizeof(address)) < 0 ||
			listen(server->socket_fd, 128) < 0 ||
			wl_display_add_socket_fd(server->display, server->socket_fd) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot serve video on %s: %s", path, strerror(errno));
		return false;
	}
	server->socket_path = g_strdup(path);
	return true;
}

static bool
add_socket(struct umms_video_server *server, const char *name, GError **error)
{
	if (name[0] == '/')
		return add_socket_path(server, name, error);
	if (wl_display_add_socket(server->display, name) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"video socket %s in %s is in use (is another ummsd running?)", name,
			g_get_user_runtime_dir());
		return false;
	}
	server->socket_path = g_build_filename(g_get_user_runtime_dir(), name, NULL);
	return true;
}

/* ---- the limit on connections ------------------------------------------- */

/* A connection over video.max-clients, closed once libwayland has finished making it. */
struct refused_client {
	struct wl_list link;
	struct wl_client *client;
	struct wl_listener destroy;
	struct wl_event_source *idle;
};

static void
refused_free(struct refused_client *refused)
{
	wl_list_remove(&refused->link);
	wl_list_remove(&refused->destroy.link);
	if (refused->idle)
		wl_event_source_remove(refused->idle);
	g_free(refused);
}

static void
refused_destroyed(struct wl_listener *listener, void *data)
{
	struct refused_client *refused = wl_container_of(listener, refused, destroy);
	refused_free(refused);
}

static void
refused_close(void *data)
{
	struct refused_client *refused = data;
	struct wl_client *client = refused->client;
	refused->idle = NULL;
	/* Its destroy listener frees @refused. */
	wl_client_destroy(client);
}

static void
on_client_created(struct wl_listener *listener, void *data)
{
	struct umms_video_server *server = wl_container_of(listener, server, client_created);
	struct wl_client *client = data;
	unsigned n = (unsigned)wl_list_length(wl_display_get_client_list(server->display));
	if (n <= server->config->video.max_clients)
		return;
	pid_t pid = 0;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	umms_warn("video socket: connection from pid %d closed: over video.max-clients (%u)",
		(int)pid, server->config->video.max_clients);
	struct refused_client *refused = g_new0(struct refused_client, 1);
	refused->client = client;
	refused->destroy.notify = refused_destroyed;
	wl_client_add_destroy_listener(client, &refused->destroy);
	wl_list_insert(&server->refused, &refused->link);
	/* Not destroyed here: other listeners of the same signal still get it. */
	refused->idle = wl_event_loop_add_idle(wl_display_get_event_loop(server->display),
		refused_close, refused);
}

struct umms_video_server *
umms_video_server_create(const struct umms_config *config, struct umms_manager *manager,
	GError **error)
{
	struct umms_video_server *server = g_new0(struct umms_video_server, 1);
	server->config = config;
	server->manager = manager;
	server->socket_fd = -1;
	server->lock_fd = -1;
	wl_list_init(&server->views);
	wl_list_init(&server->refused);
	server->display = wl_display_create();
	if (!server->display) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "cannot create a Wayland display");
		goto fail;
	}
	server->client_created.notify = on_client_created;
	wl_display_add_client_created_listener(server->display, &server->client_created);
	if (!add_socket(server, config->video.socket, error))
		goto fail;
	server->global = wl_global_create(server->display, &umms_video_manager_v1_interface, 6,
		server, bind_manager);

	struct display_source *source = (struct display_source *)g_source_new(
		&display_source_funcs, sizeof(struct display_source));
	source->display = server->display;
	g_source_add_unix_fd(&source->base,
		wl_event_loop_get_fd(wl_display_get_event_loop(server->display)),
		G_IO_IN | G_IO_ERR | G_IO_HUP);
	/* Clients' requests come with every frame: no wake-up around each (engine-supervisor.c). */
	g_source_set_can_recurse(&source->base, TRUE);
	g_source_attach(&source->base, g_main_context_get_thread_default());
	server->source = &source->base;
	umms_info("serving video on %s", server->socket_path);
	return server;

fail:
	umms_video_server_destroy(server);
	return NULL;
}

void
umms_video_server_destroy(struct umms_video_server *server)
{
	if (!server)
		return;
	if (server->source) {
		g_source_destroy(server->source);
		g_source_unref(server->source);
	}
	if (server->display) {
		video_views_finish(server);
		wl_display_destroy_clients(server->display);
		struct refused_client *refused, *tmp;
		wl_list_for_each_safe(refused, tmp, &server->refused, link)
			refused_free(refused);
		wl_display_destroy(server->display);
	}
	if (server->socket_fd >= 0 && server->socket_path)
		unlink(server->socket_path);
	if (server->lock_fd >= 0) {
		unlink(server->lock_path);
		close(server->lock_fd);
	}
	g_free(server->lock_path);
	g_free(server->socket_path);
	g_free(server);
}

const char *
umms_video_server_socket(struct umms_video_server *server)
{
	return server->socket_path;
}

struct wl_display *
umms_video_server_get_display(struct umms_video_server *server)
{
	return server->display;
}

void
umms_video_server_set_compositor(struct umms_video_server *server,
	struct umms_compositor *compositor)
{
	server->compositor = compositor;
}
