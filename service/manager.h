/*
 * org.umms.Manager1 and the object manager at /org/umms: creates and
 * destroys players, ties attended players to their creator's bus name and
 * gives each player its D-Bus and MPRIS faces.
 */
#ifndef UMMS_SERVICE_MANAGER_H
#define UMMS_SERVICE_MANAGER_H

#include <stdbool.h>
#include <gio/gio.h>

#include "config.h"

struct umms_manager;

/*
 * Exports /org/umms on @connection. @bus_address is where MPRIS connections
 * go (each player owns its own MPRIS name, so it needs its own connection).
 */
struct umms_manager *umms_manager_create(const struct umms_config *config,
	GDBusConnection *connection, const char *bus_address, GError **error);
/* Destroys every player and unexports. NULL is a no-op. */
void umms_manager_destroy(struct umms_manager *manager);

unsigned umms_manager_player_count(struct umms_manager *manager);

struct umms_player;
struct umms_parental;
/* The player at D-Bus object path @path, or NULL. */
struct umms_player *umms_manager_find_player(struct umms_manager *manager, const char *path);
const char *umms_manager_player_path(struct umms_manager *manager, struct umms_player *player);
/* The resource manager in ummsd (service/resources/resources-service.h). */
struct umms_resource_service *umms_manager_get_resources(struct umms_manager *manager);
/* The programme guide in ummsd (service/guide/guide.h); created before the recorder. */
struct umms_guide *umms_manager_get_guide(struct umms_manager *manager);
/* Parental control in ummsd (service/parental/parental.h); created after the guide. */
struct umms_parental *umms_manager_get_parental(struct umms_manager *manager);
/*
 * A player with default options owned by the caller (the video server, for
 * a Wayland client): no bus name or ttl ends it; the caller destroys it.
 */
struct umms_player *umms_manager_create_owned_player(struct umms_manager *manager,
	GError **error);
/*
 * The same for a client that is not on the bus (a browser bridge session),
 * named @owner ("web:3"): its players count in service.max-players-per-client
 * as one bus name's do.
 */
struct umms_player *umms_manager_create_owned_player_for(struct umms_manager *manager,
	const char *owner, GError **error);
void umms_manager_destroy_player(struct umms_manager *manager, struct umms_player *player);

#endif
