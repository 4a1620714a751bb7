/*
 * The resource manager in ummsd: pools made from probing (hardware.h:
 * VA-API, V4L2, the engines' Hardware-class decoders) and the
 * configuration ([resources]), org.umms.Resources1 exported at /org/umms,
 * and every player made a holder: while it plays or is paused with a video
 * track whose codec has a hardware decoder pool, it holds a unit at its
 * Priority, loses it to higher ones (Player1.ResourceLost, and Decoder
 * says so) and gets it back (ResourceRestored); from SetUri of
 * v4l2://DEVICE on it holds that capture device; its units go with it.
 *
 * What holding a decoder changes in the pipeline: the engine may plug
 * hardware decoders only for the codecs whose unit the player holds or
 * could take (engine.h set_hardware_codecs), so a player without one
 * decodes in software. A player that loses its unit while a hardware
 * decoder runs reopens its media where it was (same state, same
 * position) and decodes in software; one that gets it back while a
 * software decoder runs reopens it for the hardware one.
 */
#ifndef UMMS_SERVICE_RESOURCES_SERVICE_H
#define UMMS_SERVICE_RESOURCES_SERVICE_H

#include <gio/gio.h>

#include "config.h"

struct umms_player;
struct umms_resource_service;

/* Probes, makes the pools, exports Resources1 on @connection. */
struct umms_resource_service *umms_resource_service_create(const struct umms_config *config,
	GDBusConnection *connection, GError **error);
/* Every player must have gone first. NULL: no-op. */
void umms_resource_service_destroy(struct umms_resource_service *service);

/* A new player at D-Bus @path: a holder until it is destroyed. */
void umms_resource_service_add_player(struct umms_resource_service *service,
	struct umms_player *player, const char *path);

struct umms_guide;

/*
 * A tuner for a recording of @uri (dvb://NAME), held at priority
 * "recording" by @name ("/org/umms/recording/3"): the channel looked up
 * and a tuner that receives it taken (from a player of a lower priority,
 * which stops, if none is free). The URI its pipeline opens in
 * @engine_uri (g_free). NULL with NotFound or NoResource. Given back with
 * umms_resource_service_untune (also after the service went).
 */
struct umms_tuner_hold;
struct umms_tuner_hold *umms_resource_service_tune(struct umms_resource_service *service,
	const char *name, const char *uri, char **engine_uri, GError **error);
void umms_resource_service_untune(struct umms_tuner_hold *hold);
/* The DVB tuners found. */
unsigned umms_resource_service_tuners(struct umms_resource_service *service);
/* Where Resources1.ScanTuner puts the channels it finds (NULL: nowhere but its reply). */
void umms_resource_service_set_guide(struct umms_resource_service *service,
	struct umms_guide *guide);

/* The overlay planes of the screen ummsd drives (probed), unless [resources] planes says. */
void umms_resource_service_set_planes(struct umms_resource_service *service, unsigned planes);

/*
 * A unit of @kind ("plane") taken or given back for @player, by what uses
 * it on the player's behalf (the display, for the overlay plane its video
 * is on). Acquire fails with NoResource as umms_resources_acquire does.
 */
bool umms_resource_service_acquire_for(struct umms_resource_service *service,
	struct umms_player *player, const char *kind, GError **error);
void umms_resource_service_release_for(struct umms_resource_service *service,
	struct umms_player *player, const char *kind);

#endif
