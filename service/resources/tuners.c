/*
 * Tuners (resources-service.h): the one a dvb:// player or a recording
 * takes for a channel, and the recordings' holds on theirs.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include "dvb.h"
#include "error.h"
#include "log.h"
#include "resources-private.h"
#include "resources-service.h"

/*
 * A tuner for @channel: one @holder holds already, else a free one that
 * receives its delivery system, else one taken from a lower priority
 * (told). Its kind in @kind (g_free). NULL with NoResource.
 */
const struct umms_dvb_frontend *
umms_resource_service_take_tuner(struct umms_resource_service *s,
	struct umms_resource_holder *holder, const struct umms_dvb_channel *channel, char **kind,
	GError **error)
{
	GPtrArray *frontends = s->hw.dvb.frontends;
	const struct umms_dvb_frontend *best = NULL;
	/* Held already, then free, then any it could take. */
	for (int pass = 0; pass < 3 && !best; pass++) {
		for (guint i = 0; i < frontends->len && !best; i++) {
			const struct umms_dvb_frontend *fe = frontends->pdata[i];
			if (!umms_dvb_frontend_tunes(fe, channel->delsys))
				continue;
			g_autofree char *k = umms_hardware_tuner_kind(fe);
			bool ok = pass == 0 ? umms_resources_holds(s->resources, holder, k) :
				pass == 1 ? umms_resources_free(s->resources, k) > 0 :
				umms_resources_can_take(s->resources, holder, k);
			if (ok)
				best = fe;
		}
	}
	if (!best) {
		/* The first that could receive it says who holds it. */
		for (guint i = 0; i < frontends->len; i++) {
			const struct umms_dvb_frontend *fe = frontends->pdata[i];
			if (!umms_dvb_frontend_tunes(fe, channel->delsys))
				continue;
			g_autofree char *k = umms_hardware_tuner_kind(fe);
			return umms_resources_acquire(s->resources, holder, k, error) ? fe : NULL;
		}
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"no tuner on this machine receives %s (delivery system %u)",
			channel->name, channel->delsys);
		return NULL;
	}
	*kind = umms_hardware_tuner_kind(best);
	if (!umms_resources_acquire(s->resources, holder, *kind, error)) {
		g_clear_pointer(kind, g_free);
		return NULL;
	}
	return best;
}

struct umms_tuner_hold {
	struct umms_resource_holder base;
	struct umms_resource_service *service;  /* NULL once it went */
	char *kind;
	struct wl_list link;
};

/* A recording's tuner is taken by nothing (the highest priority) but a higher configured one. */
static void
hold_lost(struct umms_resource_holder *base, const char *kind, const char *by)
{
	umms_warn("resources: %s lost %s to %s", base->name, kind, by);
}

static void
hold_restored(struct umms_resource_holder *base, const char *kind)
{
}

static const struct umms_resource_holder_impl hold_impl = {
	.lost = hold_lost,
	.restored = hold_restored,
};

struct umms_tuner_hold *
umms_resource_service_tune(struct umms_resource_service *s, const char *name, const char *uri,
	char **engine_uri, GError **error)
{
	g_autofree char *path = umms_dvb_channels_path(s->config);
	struct umms_dvb_channel *channel = umms_dvb_lookup(path, uri, error);
	if (!channel)
		return NULL;
	struct umms_tuner_hold *hold = g_new0(struct umms_tuner_hold, 1);
	hold->base = (struct umms_resource_holder){ .impl = &hold_impl, .name = g_strdup(name),
		.priority = "recording",
		.rank = umms_resources_rank(s->config->resources.priorities, "recording") };
	const struct umms_dvb_frontend *fe = umms_resource_service_take_tuner(s, &hold->base, channel, &hold->kind,
		error);
	if (!fe) {
		umms_dvb_channel_free(channel);
		g_free((char *)hold->base.name);
		g_free(hold);
		return NULL;
	}
	hold->service = s;
	wl_list_insert(&s->tunings, &hold->link);
	*engine_uri = umms_dvb_engine_uri(channel, fe);
	umms_info("resources: %s tunes %s on %s", name, channel->name, fe->path);
	umms_dvb_channel_free(channel);
	umms_resource_service_changed(s);
	return hold;
}

static void
hold_end(struct umms_tuner_hold *hold)
{
	if (!hold->service)
		return;
	umms_resources_forget(hold->service->resources, &hold->base);
	wl_list_remove(&hold->link);
	umms_resource_service_changed(hold->service);
	hold->service = NULL;
}

unsigned
umms_resource_service_tuners(struct umms_resource_service *s)
{
	return s->hw.dvb.frontends ? s->hw.dvb.frontends->len : 0;
}

void
umms_resource_service_untune(struct umms_tuner_hold *hold)
{
	if (!hold)
		return;
	hold_end(hold);
	g_free(hold->kind);
	g_free((char *)hold->base.name);
	g_free(hold);
}

void
umms_resource_service_tunings_finish(struct umms_resource_service *s)
{
	while (!wl_list_empty(&s->tunings)) {
		struct umms_tuner_hold *hold = wl_container_of(s->tunings.next, hold, link);
		hold_end(hold);
	}
}
