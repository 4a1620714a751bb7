/* What resources-service.c, tuners.c and tuner-scan.c share. */
#ifndef UMMS_SERVICE_RESOURCES_PRIVATE_H
#define UMMS_SERVICE_RESOURCES_PRIVATE_H

#include <gio/gio.h>
#include <wayland-server-core.h>

#include "config.h"
#include "dbus-iface.h"
#include "hardware.h"
#include "resources.h"

struct umms_guide;

struct umms_resource_service {
	const struct umms_config *config;
	struct umms_resources *resources;
	struct umms_hardware hw;
	UmmsDbusIface *iface;
	GDBusConnection *connection;
	struct wl_list holders;    /* struct player_holder.link */
	struct umms_guide *guide;  /* where a scan's channels go, or NULL */
	struct wl_list scans;      /* struct tuner_scan.link, under way */
	struct wl_list tunings;    /* struct umms_tuner_hold.link: recordings' tuners */
};

struct umms_dvb_channel;
struct umms_dvb_frontend;

/*
 * A tuner for @channel: one @holder holds already, else a free one that
 * receives its delivery system, else one taken from a lower priority
 * (told). Its kind in @kind (g_free). NULL with NoResource (tuners.c).
 */
const struct umms_dvb_frontend *umms_resource_service_take_tuner(
	struct umms_resource_service *s, struct umms_resource_holder *holder,
	const struct umms_dvb_channel *channel, char **kind, GError **error);
/* The recordings' tuner holds end (their owners free them later); at destroy. */
void umms_resource_service_tunings_finish(struct umms_resource_service *s);

/* Resources1's properties may have changed. */
void umms_resource_service_changed(struct umms_resource_service *s);

/* Resources1.ScanTuner(s tuner, s initial_file) → aa{sv} (tuner-scan.c). */
void umms_resource_service_scan(struct umms_resource_service *s, GVariant *params,
	GDBusMethodInvocation *invocation);
/* Scans under way stop (their callers get an error); at destroy. */
void umms_resource_service_scans_finish(struct umms_resource_service *s);

#endif
