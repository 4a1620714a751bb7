/*
 * The connection: the application's compositor (globals found on a private
 * queue, then used on the default one) and ummsd's video socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "client-private.h"

/* wl_shm formats ummsd can produce in shared memory, most useful first. */
static const uint32_t usable_formats[] = {
	WL_SHM_FORMAT_XRGB8888, WL_SHM_FORMAT_ARGB8888,
	WL_SHM_FORMAT_XBGR8888, WL_SHM_FORMAT_ABGR8888,
	WL_SHM_FORMAT_BGRX8888, WL_SHM_FORMAT_BGRA8888,
	WL_SHM_FORMAT_RGBX8888, WL_SHM_FORMAT_RGBA8888,
	WL_SHM_FORMAT_RGB565,
};

static void
shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
	struct umms_client *client = data;
	if (client->n_shm_formats < UMMS_CLIENT_MAX_FORMATS)
		client->shm_formats[client->n_shm_formats++] = format;
}

static const struct wl_shm_listener shm_listener = { .format = shm_format };

/* The DRM fourcc of a wl_shm format: the same, except the two oldest. */
static uint32_t
drm_of_shm(uint32_t format)
{
	if (format == WL_SHM_FORMAT_ARGB8888)
		return 0x34325241; /* AR24 */
	if (format == WL_SHM_FORMAT_XRGB8888)
		return 0x34325258; /* XR24 */
	return format;
}

static void
dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format,
	uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct umms_client *client = data;
	/* ummsd's frames come in one of the formats we ask for in shared memory. */
	bool usable = false;
	for (size_t i = 0; i < sizeof(usable_formats) / sizeof(usable_formats[0]); i++)
		usable = usable || drm_of_shm(usable_formats[i]) == format;
	if (!usable || client->n_dmabuf_formats >= UMMS_CLIENT_MAX_DMABUF)
		return;
	client->dmabuf_formats[client->n_dmabuf_formats].format = format;
	client->dmabuf_formats[client->n_dmabuf_formats].modifier =
		(uint64_t)modifier_hi << 32 | modifier_lo;
	client->n_dmabuf_formats++;
}

static void
dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf, uint32_t format)
{
	/* Version 3 says the same with modifier events. */
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format,
	.modifier = dmabuf_modifier,
};

static void
presentation_clock_id(void *data, struct wp_presentation *presentation, uint32_t clock_id)
{
	((struct umms_client *)data)->presentation_clock = (clockid_t)clock_id;
}

static const struct wp_presentation_listener presentation_listener = {
	.clock_id = presentation_clock_id,
};

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name,
	const char *interface, uint32_t version)
{
	struct umms_client *client = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		client->compositor = wl_registry_bind(registry, name, &wl_compositor_interface,
			version < 4 ? version : 4);
	} else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
		client->subcompositor = wl_registry_bind(registry, name,
			&wl_subcompositor_interface, 1);
	} else if (strcmp(interface, wp_viewporter_interface.name) == 0) {
		client->viewporter = wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		client->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
		wl_shm_add_listener(client->shm, &shm_listener, client);
	} else if (strcmp(interface, wp_presentation_interface.name) == 0) {
		client->presentation = wl_registry_bind(registry, name,
			&wp_presentation_interface, 1);
		wp_presentation_add_listener(client->presentation, &presentation_listener, client);
	} else if (strcmp(interface, wp_single_pixel_buffer_manager_v1_interface.name) == 0) {
		client->single_pixel = wl_registry_bind(registry, name,
			&wp_single_pixel_buffer_manager_v1_interface, 1);
	} else if (strcmp(interface, zwp_linux_dmabuf_v1_interface.name) == 0 && version >= 3) {
		client->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, 3);
		zwp_linux_dmabuf_v1_add_listener(client->dmabuf, &dmabuf_listener, client);
	} else if (strcmp(interface, umms_video_manager_v1_interface.name) == 0 && version >= 2) {
		/*
		 * The compositor is ummsd: it shows the video itself (and its
		 * subtitles, unless set_subtitles of version 4 says otherwise).
		 */
		client->core.manager = wl_registry_bind(registry, name,
			&umms_video_manager_v1_interface, version < 4 ? version : 4);
		client->direct = true;
	}
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* Binds the compositor's globals without running the application's handlers. */
static bool
find_globals(struct umms_client *client)
{
	struct wl_event_queue *queue = wl_display_create_queue(client->display);
	struct wl_display *wrapper = wl_proxy_create_wrapper(client->display);
	wl_proxy_set_queue((struct wl_proxy *)wrapper, queue);
	struct wl_registry *registry = wl_display_get_registry(wrapper);
	wl_registry_add_listener(registry, &registry_listener, client);
	/* Globals, then what they announce (wl_shm formats, dma-buf modifiers). */
	bool ok = wl_display_roundtrip_queue(client->display, queue) >= 0 &&
		wl_display_roundtrip_queue(client->display, queue) >= 0;
	wl_registry_destroy(registry);
	wl_proxy_wrapper_destroy(wrapper);

	/* From now on their events arrive with the application's own. */
	struct wl_proxy *globals[] = {
		(struct wl_proxy *)client->compositor, (struct wl_proxy *)client->subcompositor,
		(struct wl_proxy *)client->viewporter, (struct wl_proxy *)client->shm,
		(struct wl_proxy *)client->presentation, (struct wl_proxy *)client->single_pixel,
		(struct wl_proxy *)client->dmabuf, (struct wl_proxy *)client->core.manager,
	};
	for (size_t i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		if (globals[i])
			wl_proxy_set_queue(globals[i], NULL);
	}
	wl_event_queue_destroy(queue);
	return ok;
}

static bool
compositor_takes(struct umms_client *client, uint32_t format)
{
	for (int i = 0; i < client->n_shm_formats; i++) {
		if (client->shm_formats[i] == format)
			return true;
	}
	return false;
}

struct umms_client *
umms_client_connect(struct wl_display *display, const char *name)
{
	struct umms_client *client = calloc(1, sizeof(*client));
	if (!client)
		return NULL;
	client->display = display;
	client->presentation_clock = CLOCK_MONOTONIC;
	wl_list_init(&client->videos);
	if (!find_globals(client)) {
		umms_client_disconnect(client);
		errno = ENOTSUP;
		return NULL;
	}
	if (client->direct) {
		/* Everything goes over the application's own connection. */
		umms_core_init_direct(&client->core, display, client->core.manager);
		return client;
	}
	if (!client->compositor || !client->subcompositor || !client->viewporter ||
			!client->shm) {
		umms_client_disconnect(client);
		errno = ENOTSUP;
		return NULL;
	}
	/* Version 3: presented's copied flag, for a dma-buf the compositor refused; 4: subtitles. */
	if (!umms_core_connect(&client->core, name, 1, 6)) {
		int saved = errno;
		umms_client_disconnect(client);
		errno = saved;
		return NULL;
	}
	/* What the compositor shows from shared memory, in ummsd's formats. */
	for (size_t i = 0; i < sizeof(usable_formats) / sizeof(usable_formats[0]); i++) {
		if (compositor_takes(client, usable_formats[i]))
			umms_video_manager_v1_shm_format(client->core.manager, usable_formats[i]);
	}
	/*
	 * And what it imports as dma-buf: a hardware decoder's frames in
	 * anything else come in shared memory (ummsd copies them), as they
	 * do to a compositor without zwp_linux_dmabuf_v1.
	 */
	for (int i = 0; i < client->n_dmabuf_formats; i++) {
		uint64_t modifier = client->dmabuf_formats[i].modifier;
		umms_video_manager_v1_dmabuf_format(client->core.manager,
			client->dmabuf_formats[i].format, (uint32_t)(modifier >> 32),
			(uint32_t)modifier);
	}
	umms_core_flush(&client->core);
	return client;
}

void
umms_client_disconnect(struct umms_client *client)
{
	if (!client)
		return;
	struct umms_client_video *video, *tmp;
	wl_list_for_each_safe(video, tmp, &client->videos, link)
		umms_client_video_destroy(video);
	if (client->core.manager && !client->core.display)
		umms_video_manager_v1_destroy(client->core.manager);   /* direct, never started */
	else
		umms_core_finish(&client->core);
	if (client->dmabuf)
		zwp_linux_dmabuf_v1_destroy(client->dmabuf);
	if (client->single_pixel)
		wp_single_pixel_buffer_manager_v1_destroy(client->single_pixel);
	if (client->presentation)
		wp_presentation_destroy(client->presentation);
	if (client->viewporter)
		wp_viewporter_destroy(client->viewporter);
	if (client->subcompositor)
		wl_subcompositor_destroy(client->subcompositor);
	if (client->shm)
		wl_shm_destroy(client->shm);
	if (client->compositor)
		wl_compositor_destroy(client->compositor);
	wl_display_flush(client->display);
	free(client);
}

int
umms_client_get_fd(struct umms_client *client)
{
	return wl_display_get_fd(client->core.display);
}

int
umms_client_dispatch(struct umms_client *client)
{
	if (umms_core_dispatch(&client->core) < 0)
		return -1;
	/* Frames attached just now reach the compositor. */
	wl_display_flush(client->display);
	return 0;
}

int
umms_client_roundtrip(struct umms_client *client)
{
	int ret = wl_display_roundtrip(client->core.display);
	wl_display_flush(client->display);
	return ret < 0 ? -1 : 0;
}
