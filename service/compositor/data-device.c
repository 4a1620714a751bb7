/*
 * wl_data_device_manager, wl_data_source and wl_data_device without a
 * clipboard (data-device.h says why and what that means for clients).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_SEAT

#include <stdbool.h>
#include <glib.h>
#include <wayland-server-protocol.h>

#include "data-device.h"
#include "log.h"

#define MANAGER_VERSION 3

/* Every action wl_data_device_manager.dnd_action defines. */
#define ALL_ACTIONS (WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY | \
	WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE | WL_DATA_DEVICE_MANAGER_DND_ACTION_ASK)

/* A wl_data_source's user data. */
struct source {
	bool actions_set;  /* set_actions was called: drag and drop only */
	bool used;         /* given to set_selection or start_drag once */
};

static void
resource_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

/* ---- wl_data_source ------------------------------------------------------- */

static void
source_offer(struct wl_client *client, struct wl_resource *resource, const char *mime_type)
{
	/* Nobody is offered the data, so the types are not kept. */
}

static void
source_set_actions(struct wl_client *client, struct wl_resource *resource, uint32_t actions)
{
	struct source *source = wl_resource_get_user_data(resource);
	if (actions & ~(uint32_t)ALL_ACTIONS) {
		wl_resource_post_error(resource, WL_DATA_SOURCE_ERROR_INVALID_ACTION_MASK,
			"action mask 0x%x has unknown actions", actions);
		return;
	}
	if (source->actions_set || source->used) {
		wl_resource_post_error(resource, WL_DATA_SOURCE_ERROR_INVALID_SOURCE,
			"set_actions may be sent once, before the source is used");
		return;
	}
	source->actions_set = true;
}

static const struct wl_data_source_interface source_impl = {
	.offer = source_offer,
	.destroy = resource_destroy,
	.set_actions = source_set_actions,
};

static void
source_free(struct wl_resource *resource)
{
	g_free(wl_resource_get_user_data(resource));
}

/*
 * The source of a set_selection or start_drag, checked; false after a
 * protocol error on @device.
 */
static bool
take_source(struct wl_resource *device, struct wl_resource *resource, bool for_drag)
{
	struct source *source = wl_resource_get_user_data(resource);
	if (source->used || (source->actions_set && !for_drag)) {
		wl_resource_post_error(device, WL_DATA_DEVICE_ERROR_ROLE,
			source->used ? "this data source was used already" :
			"a data source with drag-and-drop actions cannot be the selection");
		return false;
	}
	source->used = true;
	return true;
}

/* ---- wl_data_device ------------------------------------------------------- */

static void
device_start_drag(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *source, struct wl_resource *origin, struct wl_resource *icon,
	uint32_t serial)
{
	/* No drag and drop here: the drag ends before it begins. */
	if (source && take_source(resource, source, true))
		wl_data_source_send_cancelled(source);
}

static void
device_set_selection(struct wl_client *client, struct wl_resource *resource,
	struct wl_resource *source, uint32_t serial)
{
	/* No clipboard: the selection stays empty and the source is told it is not it. */
	if (source && take_source(resource, source, false))
		wl_data_source_send_cancelled(source);
}

static const struct wl_data_device_interface device_impl = {
	.start_drag = device_start_drag,
	.set_selection = device_set_selection,
	.release = resource_destroy,
};

/* ---- wl_data_device_manager ----------------------------------------------- */

static void
manager_create_data_source(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct wl_resource *source = wl_resource_create(client, &wl_data_source_interface,
		wl_resource_get_version(resource), id);
	if (!source) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(source, &source_impl, g_new0(struct source, 1),
		source_free);
}

static void
manager_get_data_device(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	struct wl_resource *seat)
{
	struct wl_resource *device = wl_resource_create(client, &wl_data_device_interface,
		wl_resource_get_version(resource), id);
	if (!device) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(device, &device_impl, NULL, NULL);
}

static const struct wl_data_device_manager_interface manager_impl = {
	.create_data_source = manager_create_data_source,
	.get_data_device = manager_get_data_device,
};

static void
manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(client,
		&wl_data_device_manager_interface, (int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, NULL, NULL);
}

struct wl_global *
umms_data_device_manager_create(struct wl_display *display)
{
	struct wl_global *global = wl_global_create(display, &wl_data_device_manager_interface,
		MANAGER_VERSION, NULL, manager_bind);
	if (!global)
		umms_warn("seat: cannot create the wl_data_device_manager global");
	return global;
}
