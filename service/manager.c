#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-guard.h"
#include "dbus-iface.h"
#include "engine.h"
#include "eit-guide.h"
#include "entitlement.h"
#include "error.h"
#include "guide.h"
#include "parental.h"
#include "log.h"
#include "manager.h"
#include "mpris.h"
#include "player-dbus.h"
#include "recorder.h"
#include "resources-service.h"
#include "player.h"
#include "source.h"
#include "umms-config.h"
#include "umms-dbus.h"

#define ROOT_PATH "/org/umms"
#define PLAYER_PREFIX "/org/umms/player"

struct client {
	struct umms_manager *manager;
	char *name;          /* unique bus name */
	guint watch;
	unsigned players;
};

struct entry {
	struct umms_manager *manager;
	struct umms_player *player;
	struct umms_player_dbus *dbus;
	struct umms_mpris *mpris;
	struct client *client; /* attended players only */
	char *creator;         /* bus name that created it, attended or not; NULL: ummsd */
	char *path;
	struct wl_listener release;
	GSource *release_idle;
	struct umms_eit_guide eit;   /* its EIT sections into the guide */
};

struct umms_manager {
	const struct umms_config *config;
	GDBusConnection *connection;
	char *bus_address;
	GDBusObjectManagerServer *objects;
	UmmsDbusIface *iface;
	struct umms_dbus_guard *guard;
	guint ghosts;
	GPtrArray *entries;    /* struct entry *, oldest first */
	GHashTable *clients;   /* name → struct client * */
	unsigned next_id;
	struct umms_resource_service *resources;
	struct umms_recorder *recorder;
	guint recording_ghosts;
	struct umms_guide *guide;
	struct umms_parental *parental;
	struct umms_parental_enforcer *enforcer; /* parental control on every player */
	struct umms_entitlement *entitlement;
	struct umms_eit_guide recorder_eit;
};

static void entry_destroy(struct entry *entry);

static struct entry *
find_entry(struct umms_manager *manager, const char *path)
{
	for (guint i = 0; i < manager->entries->len; i++) {
		struct entry *entry = manager->entries->pdata[i];
		if (strcmp(entry->path, path) == 0)
			return entry;
	}
	return NULL;
}

static void
client_vanished(GDBusConnection *connection, const char *name, gpointer data)
{
	struct client *client = data;
	struct umms_manager *manager = client->manager;
	umms_info("%s left: destroying its %u attended player(s)", name, client->players);
	/* entry_destroy frees @client with its last player. */
	for (guint i = manager->entries->len; i > 0; i--) {
		struct entry *entry = manager->entries->pdata[i - 1];
		if (entry->client == client)
			entry_destroy(entry);
	}
}

static struct client *
client_ref(struct umms_manager *manager, const char *name)
{
	struct client *client = g_hash_table_lookup(manager->clients, name);
	if (!client) {
		client = g_new0(struct client, 1);
		client->manager = manager;
		client->name = g_strdup(name);
		g_hash_table_insert(manager->clients, client->name, client);
		client->watch = g_bus_watch_name_on_connection(manager->connection, name,
			G_BUS_NAME_WATCHER_FLAGS_NONE, NULL, client_vanished, client, NULL);
	}
	client->players++;
	return client;
}

static void
client_unref(struct client *client)
{
	if (--client->players > 0)
		return;
	g_bus_unwatch_name(client->watch);
	g_hash_table_remove(client->manager->clients, client->name);
	g_free(client->name);
	g_free(client);
}

static void
entry_destroy(struct entry *entry)
{
	struct umms_manager *manager = entry->manager;
	umms_source_clear(&entry->release_idle);
	wl_list_remove(&entry->release.link);
	umms_eit_guide_finish(&entry->eit);
	/* Its unlock grants go with it (a new player may get its path back). */
	umms_parental_forget_player(manager->parental, entry->path);
	g_ptr_array_remove(manager->entries, entry);
	/*
	 * Off org.umms first: once its MPRIS name is seen gone, a call to the
	 * player already finds no object and gets NotFound.
	 */
	umms_player_dbus_destroy(entry->dbus);
	umms_mpris_destroy(entry->mpris);
	umms_player_destroy(entry->player);
	if (entry->client)
		client_unref(entry->client);
	g_free(entry->creator);
	g_free(entry->path);
	g_free(entry);
	umms_dbus_iface_changed(manager->iface);
}

static gboolean
release_cb(gpointer data)
{
	struct entry *entry = data;
	umms_source_forget(&entry->release_idle);
	entry_destroy(entry);
	return G_SOURCE_REMOVE;
}

static void
on_release(struct wl_listener *listener, void *data)
{
	struct entry *entry = wl_container_of(listener, entry, release);
	/* Not from inside the player's own callbacks. */
	if (!entry->release_idle)
		entry->release_idle = umms_source_idle(release_cb, entry);
}

static bool
option_uint(GVariant *value, uint64_t *out)
{
	if (g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64))
		*out = g_variant_get_uint64(value);
	else if (g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
		*out = g_variant_get_uint32(value);
	else if (g_variant_is_of_type(value, G_VARIANT_TYPE_INT64) && g_variant_get_int64(value) >= 0)
		*out = (uint64_t)g_variant_get_int64(value);
	else if (g_variant_is_of_type(value, G_VARIANT_TYPE_INT32) && g_variant_get_int32(value) >= 0)
		*out = (uint64_t)g_variant_get_int32(value);
	else
		return false;
	return true;
}

static bool
parse_options(struct umms_manager *manager, GVariant *options,
	struct umms_player_options *out, GError **error)
{
	*out = (struct umms_player_options){
		.attended = true,
		.ttl = manager->config->service.unattended_ttl,
		.priority = UMMS_PRIORITY_FOREGROUND,
	};
	GVariantIter iter;
	const char *key;
	GVariant *value;
	g_variant_iter_init(&iter, options);
	while (g_variant_iter_loop(&iter, "{&sv}", &key, &value)) {
		if (strcmp(key, "attended") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN))
				goto bad_type;
			out->attended = g_variant_get_boolean(value);
		} else if (strcmp(key, "ttl") == 0) {
			if (!option_uint(value, &out->ttl))
				goto bad_type;
		} else if (strcmp(key, "priority") == 0) {
			if (!g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
				goto bad_type;
			if (!umms_priority_parse(g_variant_get_string(value, NULL), &out->priority)) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"unknown priority \"%s\" (foreground, background or recording)",
					g_variant_get_string(value, NULL));
				g_variant_unref(value);
				return false;
			}
		} else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown option \"%s\" (attended, ttl, priority)", key);
			g_variant_unref(value);
			return false;
		}
	}
	return true;

bad_type:
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"option \"%s\" has the wrong type %s (attended: b, ttl: t, priority: s)",
		key, g_variant_get_type_string(value));
	g_variant_unref(value);
	return false;
}

static struct entry *
add_entry(struct umms_manager *manager, const struct umms_player_options *opts,
	GError **error)
{
	if (manager->entries->len >= manager->config->service.max_players) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"too many players: %u exist (service.max-players)", manager->entries->len);
		return NULL;
	}
	unsigned mine = 0;
	for (guint i = 0; opts->owner && i < manager->entries->len; i++) {
		struct entry *other = manager->entries->pdata[i];
		if (g_strcmp0(other->creator, opts->owner) == 0)
			mine++;
	}
	if (mine >= manager->config->service.max_players_per_client) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"too many players: this client has %u (service.max-players-per-client)", mine);
		return NULL;
	}
	struct entry *entry = g_new0(struct entry, 1);
	entry->manager = manager;
	entry->creator = g_strdup(opts->owner);
	unsigned id = ++manager->next_id;
	entry->path = g_strdup_printf(PLAYER_PREFIX "/%u", id);
	entry->player = umms_player_create(id, manager->config, opts);
	entry->release.notify = on_release;
	wl_signal_add(&entry->player->events.release, &entry->release);
	umms_eit_guide_watch_player(&entry->eit, manager->guide, entry->player);
	if (opts->attended && opts->owner)
		entry->client = client_ref(manager, opts->owner);
	entry->dbus = umms_player_dbus_create(entry->player, manager->objects, entry->path);
	umms_entitlement_add_player(manager->entitlement, entry->player);
	umms_resource_service_add_player(manager->resources, entry->player, entry->path);
	umms_parental_enforcer_add_player(manager->enforcer, entry->player, entry->path);
	if (manager->config->service.mpris)
		entry->mpris = umms_mpris_create(entry->player, entry->path, manager->bus_address);
	g_ptr_array_add(manager->entries, entry);
	umms_dbus_iface_changed(manager->iface);
	umms_dbus_iface_flush_changes(manager->iface);
	return entry;
}

static void
create_player(struct umms_manager *manager, const char *sender, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	g_autoptr(GVariant) options = g_variant_get_child_value(params, 0);
	struct umms_player_options opts;
	GError *error = NULL;
	if (!parse_options(manager, options, &opts, &error)) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	opts.owner = sender;
	struct entry *entry = add_entry(manager, &opts, &error);
	if (!entry) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(o)", entry->path));
}

struct umms_player *
umms_manager_find_player(struct umms_manager *manager, const char *path)
{
	struct entry *entry = find_entry(manager, path);
	return entry ? entry->player : NULL;
}

const char *
umms_manager_player_path(struct umms_manager *manager, struct umms_player *player)
{
	for (guint i = 0; i < manager->entries->len; i++) {
		struct entry *entry = manager->entries->pdata[i];
		if (entry->player == player)
			return entry->path;
	}
	return NULL;
}

struct umms_player *
umms_manager_create_owned_player_for(struct umms_manager *manager, const char *owner,
	GError **error)
{
	/* Its owner destroys it; neither a bus name nor a ttl does. */
	struct umms_player_options opts = {
		.attended = false,
		.owner = owner,
		.ttl = 0,
		.priority = UMMS_PRIORITY_FOREGROUND,
	};
	struct entry *entry = add_entry(manager, &opts, error);
	return entry ? entry->player : NULL;
}

struct umms_player *
umms_manager_create_owned_player(struct umms_manager *manager, GError **error)
{
	return umms_manager_create_owned_player_for(manager, NULL, error);
}

void
umms_manager_destroy_player(struct umms_manager *manager, struct umms_player *player)
{
	for (guint i = 0; i < manager->entries->len; i++) {
		struct entry *entry = manager->entries->pdata[i];
		if (entry->player == player) {
			entry_destroy(entry);
			return;
		}
	}
}

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_manager *manager = data;
	if (strcmp(method, "CreatePlayer") == 0) {
		create_player(manager, sender, params, invocation);
	} else if (strcmp(method, "DestroyPlayer") == 0) {
		const char *path;
		g_variant_get(params, "(&o)", &path);
		struct entry *entry = find_entry(manager, path);
		if (!entry) {
			umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR,
				UMMS_ERROR_NOT_FOUND, "no such player: %s", path));
			return;
		}
		entry_destroy(entry);
		umms_dbus_iface_flush_changes(manager->iface);
		g_dbus_method_invocation_return_value(invocation, NULL);
	} else {
		g_assert_not_reached();
	}
}

static GVariant *
get_property(void *data, const char *name, GError **error)
{
	struct umms_manager *manager = data;
	if (strcmp(name, "Players") == 0) {
		GVariantBuilder builder;
		g_variant_builder_init(&builder, G_VARIANT_TYPE("ao"));
		for (guint i = 0; i < manager->entries->len; i++)
			g_variant_builder_add(&builder, "o",
				((struct entry *)manager->entries->pdata[i])->path);
		return g_variant_builder_end(&builder);
	}
	if (strcmp(name, "Version") == 0)
		return g_variant_new_string(UMMS_VERSION);
	if (strcmp(name, "Engines") == 0) {
		GVariantBuilder builder;
		g_variant_builder_init(&builder, G_VARIANT_TYPE("as"));
		for (const struct umms_engine_impl *const *impl = umms_engines_list(); *impl; impl++)
			g_variant_builder_add(&builder, "s", (*impl)->name);
		return g_variant_builder_end(&builder);
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops manager_ops = {
	.method_call = method_call,
	.get_property = get_property,
};

struct umms_manager *
umms_manager_create(const struct umms_config *config, GDBusConnection *connection,
	const char *bus_address, GError **error)
{
	struct umms_manager *manager = g_new0(struct umms_manager, 1);
	manager->config = config;
	manager->connection = g_object_ref(connection);
	manager->bus_address = g_strdup(bus_address);
	manager->entries = g_ptr_array_new();
	manager->clients = g_hash_table_new(g_str_hash, g_str_equal);
	wl_list_init(&manager->recorder_eit.eit.link);

	GDBusInterfaceInfo *const interfaces[] = {
		umms_manager1_interface_info(), umms_player1_interface_info(),
		umms_display1_interface_info(), umms_resources1_interface_info(),
		umms_recorder1_interface_info(), umms_recording1_interface_info(),
		umms_guide1_interface_info(), umms_parental1_interface_info(),
		umms_entitlement1_interface_info(), NULL,
	};
	GDBusInterfaceInfo *const recording_interfaces[] = { umms_recording1_interface_info(),
		NULL };
	GDBusInterfaceInfo *const player_interfaces[] = { umms_player1_interface_info(), NULL };
	manager->guard = umms_dbus_guard_install(connection, interfaces, config);

	manager->objects = g_dbus_object_manager_server_new(ROOT_PATH);
	manager->iface = umms_dbus_iface_export(umms_manager1_interface_info(), &manager_ops,
		manager, connection, ROOT_PATH, error);
	if (!manager->iface)
		goto fail;
	manager->ghosts = umms_dbus_guard_ghosts(connection, PLAYER_PREFIX, "player",
		player_interfaces, error);
	if (!manager->ghosts)
		goto fail;
	manager->resources = umms_resource_service_create(config, connection, error);
	if (!manager->resources)
		goto fail;
	manager->recording_ghosts = umms_dbus_guard_ghosts(connection, "/org/umms/recording",
		"recording", recording_interfaces, error);
	if (!manager->recording_ghosts)
		goto fail;
	/* Before the recorder, whose programme schedules read it. */
	manager->guide = umms_guide_create(config, connection, error);
	if (!manager->guide)
		goto fail;
	umms_resource_service_set_guide(manager->resources, manager->guide);
	manager->parental = umms_parental_create(config, connection, error);
	if (!manager->parental)
		goto fail;
	manager->recorder = umms_recorder_create(config, connection, manager->guide, error);
	if (!manager->recorder)
		goto fail;
	umms_recorder_set_resources(manager->recorder, manager->resources);
	umms_eit_guide_watch_recorder(&manager->recorder_eit, manager->guide, manager->recorder);
	manager->enforcer = umms_parental_enforcer_create(manager->parental, manager->guide,
		manager->recorder);
	manager->entitlement = umms_entitlement_create(config, connection, error);
	if (!manager->entitlement)
		goto fail;
	g_dbus_object_manager_server_set_connection(manager->objects, connection);
	return manager;

fail:
	umms_manager_destroy(manager);
	return NULL;
}

void
umms_manager_destroy(struct umms_manager *manager)
{
	if (!manager)
		return;
	while (manager->entries->len > 0)
		entry_destroy(manager->entries->pdata[manager->entries->len - 1]);
	umms_parental_enforcer_destroy(manager->enforcer);
	umms_entitlement_destroy(manager->entitlement);
	umms_resource_service_destroy(manager->resources);
	umms_eit_guide_finish(&manager->recorder_eit);
	umms_recorder_destroy(manager->recorder);
	umms_parental_destroy(manager->parental);
	umms_guide_destroy(manager->guide);
	if (manager->recording_ghosts)
		g_dbus_connection_unregister_subtree(manager->connection, manager->recording_ghosts);
	if (manager->ghosts)
		g_dbus_connection_unregister_subtree(manager->connection, manager->ghosts);
	umms_dbus_iface_unexport(&manager->iface);
	if (manager->objects) {
		g_dbus_object_manager_server_set_connection(manager->objects, NULL);
		g_object_unref(manager->objects);
	}
	umms_dbus_guard_remove(manager->guard);
	g_ptr_array_unref(manager->entries);
	g_hash_table_unref(manager->clients);
	g_object_unref(manager->connection);
	g_free(manager->bus_address);
	g_free(manager);
}

unsigned
umms_manager_player_count(struct umms_manager *manager)
{
	return manager->entries->len;
}

struct umms_resource_service *
umms_manager_get_resources(struct umms_manager *manager)
{
	return manager->resources;
}

struct umms_guide *
umms_manager_get_guide(struct umms_manager *manager)
{
	return manager->guide;
}

struct umms_parental *
umms_manager_get_parental(struct umms_manager *manager)
{
	return manager->parental;
}
