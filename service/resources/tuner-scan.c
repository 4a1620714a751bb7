/*
 * Resources1.ScanTuner: a channel scan on one of the tuners (dvb.h's
 * umms_dvb_scan), the tuner held meanwhile like any other unit, what it
 * found written to the channel list and put in the guide (Guide1's
 * channels, source "dvb-scan"), and said in the reply.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "dvb-probe.h"
#include "dvb.h"
#include "error.h"
#include "guide.h"
#include "log.h"
#include "resources-private.h"

struct tuner_scan {
	struct umms_resource_service *service;  /* NULL once it went */
	GDBusMethodInvocation *invocation;      /* NULL once answered */
	struct umms_resource_holder holder;
	char *kind;
	char *device;
	GCancellable *cancellable;
	struct wl_list link;
};

/* Nothing takes a scan's tuner: it holds it at the highest priority. */
static void
scan_lost(struct umms_resource_holder *holder, const char *kind, const char *by)
{
}

static void
scan_restored(struct umms_resource_holder *holder, const char *kind)
{
}

static const struct umms_resource_holder_impl scan_impl = {
	.lost = scan_lost,
	.restored = scan_restored,
};

static void
scan_end(struct tuner_scan *scan)
{
	struct umms_resource_service *s = scan->service;
	if (s) {
		umms_resources_forget(s->resources, &scan->holder);
		wl_list_remove(&scan->link);
		umms_resource_service_changed(s);
	}
	scan->service = NULL;
}

static void
scan_free(struct tuner_scan *scan)
{
	g_clear_object(&scan->cancellable);
	g_free(scan->kind);
	g_free(scan->device);
	g_free((char *)scan->holder.name);
	g_free(scan);
}

/* The scan's channels into the guide; their numbers the LCN, else their order. */
static void
put_channels(struct umms_resource_service *s, GPtrArray *channels)
{
	if (!s->guide)
		return;
	for (guint i = 0; i < channels->len; i++) {
		const struct umms_dvb_channel *c = channels->pdata[i];
		g_autofree char *order = g_strdup_printf("%u", i + 1);
		struct umms_guide_channel row = {
			.number = c->number ? c->number : order,
			.name = c->name,
			.uri = c->uri,
			.source = "dvb-scan",
			.dvb = { .onid = c->onid, .tsid = c->tsid, .sid = c->sid },
		};
		g_autoptr(GError) error = NULL;
		if (!umms_guide_put_channel(s->guide, &row, &error))
			umms_warn("dvb scan: %s not put in the guide: %s", c->name, error->message);
	}
}

static GVariant *
describe(GPtrArray *channels)
{
	GVariantBuilder list;
	g_variant_builder_init(&list, G_VARIANT_TYPE("aa{sv}"));
	for (guint i = 0; i < channels->len; i++) {
		const struct umms_dvb_channel *c = channels->pdata[i];
		GVariantDict d;
		g_variant_dict_init(&d, NULL);
		g_variant_dict_insert(&d, "name", "s", c->name);
		g_variant_dict_insert(&d, "uri", "s", c->uri);
		if (c->number)
			g_variant_dict_insert(&d, "number", "s", c->number);
		g_variant_dict_insert(&d, "onid", "i", c->onid);
		g_variant_dict_insert(&d, "tsid", "i", c->tsid);
		g_variant_dict_insert(&d, "sid", "i", c->sid);
		g_variant_dict_insert(&d, "delivery-system", "u", c->delsys);
		g_variant_builder_add_value(&list, g_variant_dict_end(&d));
	}
	return g_variant_builder_end(&list);
}

static void
scan_done(GObject *source, GAsyncResult *result, void *data)
{
	struct tuner_scan *scan = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) channels = umms_dvb_scan_finish(result, &error);
	struct umms_resource_service *s = scan->service;
	if (s && channels) {
		umms_info("dvb scan on %s: %u channel%s", scan->device, channels->len,
			channels->len == 1 ? "" : "s");
		put_channels(s, channels);
	} else if (s) {
		umms_warn("dvb scan on %s: %s", scan->device, error->message);
	}
	if (scan->invocation) {
		if (channels)
			g_dbus_method_invocation_return_value(scan->invocation,
				g_variant_new_tuple((GVariant *[]){ describe(channels) }, 1));
		else if (error->domain == UMMS_ERROR)
			g_dbus_method_invocation_return_gerror(scan->invocation, error);
		else
			g_dbus_method_invocation_return_error(scan->invocation, UMMS_ERROR,
				UMMS_ERROR_FAILED, "%s", error->message);
	}
	scan_end(scan);
	scan_free(scan);
}

/* The tuner @name names ("": the first free; a device path, or its pool's kind). */
static const struct umms_dvb_frontend *
find_tuner(struct umms_resource_service *s, const char *name, GError **error)
{
	GPtrArray *frontends = s->hw.dvb.frontends;
	for (guint i = 0; i < frontends->len; i++) {
		const struct umms_dvb_frontend *fe = frontends->pdata[i];
		g_autofree char *kind = umms_hardware_tuner_kind(fe);
		if (*name ? strcmp(name, fe->path) == 0 || strcmp(name, kind) == 0 :
				umms_resources_free(s->resources, kind) > 0)
			return fe;
	}
	/* None free: the first one, which says it is busy. */
	if (!*name && frontends->len > 0)
		return frontends->pdata[0];
	g_set_error(error, UMMS_ERROR, frontends->len ? UMMS_ERROR_NOT_FOUND :
		UMMS_ERROR_NO_RESOURCE, frontends->len ? "no tuner %s (Resources1 Tuners)" :
		"no DVB tuner on this machine", name);
	return NULL;
}

void
umms_resource_service_scan(struct umms_resource_service *s, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	const char *name, *initial;
	g_variant_get(params, "(&s&s)", &name, &initial);
	g_autoptr(GError) error = NULL;
	const struct umms_dvb_frontend *fe = find_tuner(s, name, &error);
	if (!*initial)
		initial = s->config->dvb.scan_file;
	if (fe && (!initial || !*initial)) {
		g_set_error(&error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"no initial tuning file: give one, or set [dvb] scan-file");
		fe = NULL;
	}
	if (fe && !g_file_test(initial, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(&error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"no initial tuning file %s", initial);
		fe = NULL;
	}
	if (!fe) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		return;
	}
	struct tuner_scan *scan = g_new0(struct tuner_scan, 1);
	scan->service = s;
	scan->kind = umms_hardware_tuner_kind(fe);
	scan->device = g_strdup(fe->path);
	g_autofree char *holder_name = g_strdup_printf("scan of %s", fe->path);
	/* The highest priority: a scan is short, and a player in its middle would break it. */
	g_auto(GStrv) order = g_strsplit(s->config->resources.priorities ?
		s->config->resources.priorities : "recording", ",", 2);
	scan->holder = (struct umms_resource_holder){ .impl = &scan_impl,
		.name = g_steal_pointer(&holder_name), .priority = "recording",
		.rank = umms_resources_rank(s->config->resources.priorities, g_strstrip(order[0])) };
	/* Free only: a scan takes no tuner from a player or a recording. */
	if (umms_resources_free(s->resources, scan->kind) == 0) {
		g_dbus_method_invocation_return_error(invocation, UMMS_ERROR,
			UMMS_ERROR_NO_RESOURCE, "the tuner %s is busy (Resources1 Tuners: holders)",
			fe->path);
		scan_free(scan);
		return;
	}
	if (!umms_resources_acquire(s->resources, &scan->holder, scan->kind, &error)) {
		g_dbus_method_invocation_return_gerror(invocation, error);
		scan_free(scan);
		return;
	}
	scan->invocation = invocation;
	scan->cancellable = g_cancellable_new();
	wl_list_insert(&s->scans, &scan->link);
	umms_resource_service_changed(s);
	g_autofree char *channels = umms_dvb_channels_path(s->config);
	umms_info("dvb scan on %s with %s into %s", fe->path, initial, channels);
	umms_dvb_scan(fe, initial, channels, scan->cancellable, scan_done, scan);
}

void
umms_resource_service_scans_finish(struct umms_resource_service *s)
{
	while (!wl_list_empty(&s->scans)) {
		struct tuner_scan *scan = wl_container_of(s->scans.next, scan, link);
		g_cancellable_cancel(scan->cancellable);
		if (scan->invocation)
			g_dbus_method_invocation_return_error(scan->invocation, UMMS_ERROR,
				UMMS_ERROR_FAILED, "ummsd stopped during the scan");
		scan->invocation = NULL;
		/* Freed by scan_done, whenever the thread ends. */
		scan_end(scan);
	}
}
