/*
 * The resource manager in ummsd (resources-service.h): pools, Resources1,
 * players as holders.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "dbus-iface.h"
#include "dvb.h"
#include "error.h"
#include "hardware.h"
#include "log.h"
#include "media-info.h"
#include "player.h"
#include "resources-private.h"
#include "resources-service.h"
#include "resources.h"
#include "source.h"
#include "timeshift.h"
#include "umms-dbus.h"

#define RESOURCES_PATH "/org/umms"

/* A player as a holder of units. */
struct player_holder {
	struct umms_resource_holder base;
	struct umms_resource_service *service;
	struct umms_player *player;
	struct wl_list link;
	struct wl_listener changed, destroy;
	char *path;
	char *kind;                /* the decoder it holds or waits for, NULL: none */
	char *capture;             /* the capture device it holds or waits for, NULL: none */
	bool capture_playing;      /* it played when it lost the device: plays again */
	char *tuner;               /* the tuner it holds for its dvb:// Uri, NULL: none */
	char *tuned_uri;           /* that Uri */
	char *engine_uri;          /* what its engine opens for it (dvb.h) */
	char *hold;                /* what it holds: "holds decoder:h264", … or NULL */
	char *why_track;           /* the codec policy's choice, or NULL */
	unsigned chosen_serial;    /* the player's track_serial it chose for */
	bool told;                 /* the player was told which hardware it may use */
	char *hardware_told;       /* what: codecs joined by ",", NULL: any */
	bool busy;                 /* inside our own change: no recursion */
	GSource *replug_idle;      /* a reopening for other decoders, due */
	GSource *resume_idle;      /* playing again on a capture device given back, due */
	bool reopening;            /* under way: what it holds or waits for stays */
};

static void
changed(struct umms_resource_service *s)
{
	if (s->iface)
		umms_dbus_iface_changed(s->iface);
}

void
umms_resource_service_changed(struct umms_resource_service *s)
{
	changed(s);
}

/* ---- players ------------------------------------------------------------------- */

/* Decoder's note: what it holds, and why its video track, when the policy chose. */
static void
set_note(struct player_holder *h, char *hold)
{
	g_free(h->hold);
	h->hold = hold;
	struct umms_player *player = h->player;
	char *note = h->hold && h->why_track ? g_strdup_printf("%s; %s", h->hold, h->why_track) :
		g_strdup(h->hold ? h->hold : h->why_track);
	if (g_strcmp0(note, player->resource_note) == 0) {
		g_free(note);
		return;
	}
	g_free(player->resource_note);
	player->resource_note = note;
	/* Decoder changed: tell whoever shows the player's properties. */
	h->busy = true;
	wl_signal_emit_mutable(&player->events.changed, player);
	h->busy = false;
}

/*
 * Which codecs the player's engine may decode with hardware decoders:
 * those whose decoder pool it holds a unit of or could take one. Every
 * hardware decoder is in a pool (hardware.h), so a codec without one (none
 * found, or decoders.CODEC = 0) is decoded in software.
 */
static void
tell_engine(struct player_holder *h)
{
	struct umms_resource_service *s = h->service;
	g_autoptr(GPtrArray) codecs = g_ptr_array_new();
	for (guint i = 0; i < s->hw.decoder_codecs->len; i++) {
		const char *codec = s->hw.decoder_codecs->pdata[i];
		g_autofree char *kind = g_strdup_printf("decoder:%s", codec);
		if (umms_resources_can_take(s->resources, &h->base, kind))
			g_ptr_array_add(codecs, (gpointer)codec);
	}
	g_ptr_array_add(codecs, NULL);
	g_autofree char *joined = g_strjoinv(",", (char **)codecs->pdata);
	if (h->told && g_strcmp0(joined, h->hardware_told) == 0)
		return;
	h->told = true;
	g_free(h->hardware_told);
	h->hardware_told = g_steal_pointer(&joined);
	umms_player_set_hardware_codecs(h->player, (const char *const *)codecs->pdata);
}

/* A reopening under way, found again by the player's path (it may go meanwhile). */
struct replug {
	struct umms_resource_service *service;
	char *path;
	int64_t position;
};

static struct player_holder *
replug_holder(struct replug *r)
{
	struct player_holder *h;
	wl_list_for_each(h, &r->service->holders, link) {
		if (strcmp(h->path, r->path) == 0)
			return h;
	}
	return NULL;
}

static void
replug_free(struct replug *r)
{
	g_free(r->path);
	g_free(r);
}

/* Open again and back where it was: on to the position it played at. */
static void update_holder(struct player_holder *h);

static void
replug_opened(const GError *error, void *data)
{
	struct replug *r = data;
	struct player_holder *h = replug_holder(r);
	if (error)
		umms_warn("resources: %s could not reopen: %s", r->path, error->message);
	else if (h && r->position > 0)
		umms_player_set_position(h->player, r->position, NULL, NULL, NULL);
	if (h) {
		h->reopening = false;
		update_holder(h);
	}
	replug_free(r);
}

/*
 * The decoder running is not the one the player may have now: hardware
 * without its unit (lost), or software with a unit back (restored) and a
 * hardware decoder for its codec. The media is opened again where it was,
 * in the state it was in, and the engine (told what it may plug) plugs the
 * other decoder. From the main loop, outside the policy's own calls.
 */
static gboolean
replug_cb(void *data)
{
	struct player_holder *h = data;
	umms_source_forget(&h->replug_idle);
	struct umms_resource_service *s = h->service;
	struct umms_player *player = h->player;
	const struct umms_media_info *info = umms_player_get_info(player);
	bool hardware_allowed = h->kind && umms_resources_holds(s->resources, &h->base, h->kind);
	if (!player->uri || player->state == UMMS_PLAYER_STOPPED || !info->decoder ||
			info->decoder_hardware == hardware_allowed)
		return G_SOURCE_REMOVE;
	if (hardware_allowed && !umms_hardware_has_element(&s->hw,
			h->kind + strlen("decoder:")))
		return G_SOURCE_REMOVE;
	struct replug *r = g_new0(struct replug, 1);
	r->service = s;
	r->path = g_strdup(h->path);
	r->position = umms_player_get_position(player);
	umms_info("resources: %s reopens at %.3f s to decode in %s", h->path,
		(double)r->position / 1e6, hardware_allowed ? "hardware" : "software");
	g_autofree char *uri = g_strdup(player->uri);
	g_autoptr(GError) error = NULL;
	/* Its tracks are unknown until the media is open again: no release meanwhile. */
	h->reopening = true;
	if (!umms_player_reopen(player, uri, player->state, replug_opened, r, &error)) {
		umms_warn("resources: %s could not reopen: %s", h->path, error->message);
		h->reopening = false;
		replug_free(r);
	}
	return G_SOURCE_REMOVE;
}

static void
replug(struct player_holder *h)
{
	if (!h->replug_idle)
		h->replug_idle = umms_source_idle(replug_cb, h);
}

static void
holder_lost(struct umms_resource_holder *base, const char *kind, const char *by)
{
	struct player_holder *h = wl_container_of(base, h, base);
	if (g_str_has_prefix(kind, "capture:") || g_str_has_prefix(kind, "tuner:")) {
		/* Nothing stands in for a capture device or a tuner: stopped until it is back. */
		h->capture_playing = h->player->state == UMMS_PLAYER_PLAYING ||
			h->resume_idle != NULL;
		umms_source_clear(&h->resume_idle);
		umms_player_stop(h->player, NULL, NULL, NULL);
	} else {
		/* Software decoding stands in: the player goes on. */
		tell_engine(h);
		replug(h);
	}
	set_note(h, g_strdup_printf("%s taken by %s", kind, by));
	struct umms_player_resource_event event = { .kind = kind, .lost = true };
	wl_signal_emit_mutable(&h->player->events.resource, &event);
}

/*
 * From the main loop, once the call that freed the device is over: the
 * player that had it (being destroyed: its engine goes after its destroy
 * signal) has closed it by then.
 */
static gboolean
resume_cb(void *data)
{
	struct player_holder *h = data;
	umms_source_forget(&h->resume_idle);
	g_autoptr(GError) error = NULL;
	if (!umms_player_play(h->player, NULL, NULL, &error))
		umms_warn("resources: %s could not play again: %s", h->path, error->message);
	return G_SOURCE_REMOVE;
}

static void
holder_restored(struct umms_resource_holder *base, const char *kind)
{
	struct player_holder *h = wl_container_of(base, h, base);
	if (g_str_has_prefix(kind, "capture:") || g_str_has_prefix(kind, "tuner:")) {
		if (h->capture_playing && !h->resume_idle)
			h->resume_idle = umms_source_idle(resume_cb, h);
		h->capture_playing = false;
	} else {
		/* Hardware again: a software decoder running is replaced. */
		tell_engine(h);
		replug(h);
	}
	set_note(h, g_strdup_printf("holds %s", kind));
	struct umms_player_resource_event event = { .kind = kind, .lost = false };
	wl_signal_emit_mutable(&h->player->events.resource, &event);
}

static const struct umms_resource_holder_impl holder_impl = {
	.lost = holder_lost,
	.restored = holder_restored,
};

/* The decoder pool the player needs now: its video codec's, while it is not stopped. */
static char *
wanted_kind(struct player_holder *h)
{
	struct umms_player *player = h->player;
	if (player->state == UMMS_PLAYER_STOPPED || !player->uri)
		return NULL;
	const struct umms_media_info *info = umms_player_get_info(player);
	GPtrArray *tracks = info->tracks[UMMS_TRACK_VIDEO];
	int current = info->current[UMMS_TRACK_VIDEO];
	if (!tracks || current < 0 || (guint)current >= tracks->len)
		return NULL;
	const struct umms_track *track = g_ptr_array_index(tracks, current);
	if (!track->codec)
		return NULL;
	char *kind = g_strdup_printf("decoder:%s", track->codec);
	if (umms_resources_total(h->service->resources, kind) == 0)
		g_clear_pointer(&kind, g_free);
	return kind;
}

/*
 * The codec-selection policy, once per media: with several video tracks
 * (different codecs), the one a hardware decoder can take, else the
 * cheapest to decode ([resources] codec-costs).
 */
static void
choose_track(struct player_holder *h)
{
	struct umms_player *player = h->player;
	if (!player->uri || player->track_serial == h->chosen_serial)
		return;
	const struct umms_media_info *info = umms_player_get_info(player);
	GPtrArray *tracks = info->tracks[UMMS_TRACK_VIDEO];
	if (!tracks || tracks->len == 0)
		return;   /* not open yet */
	h->chosen_serial = player->track_serial;
	g_clear_pointer(&h->why_track, g_free);
	if (tracks->len < 2)
		return;
	g_autofree const char **codecs = g_new0(const char *, tracks->len + 1);
	for (guint i = 0; i < tracks->len; i++) {
		const struct umms_track *track = g_ptr_array_index(tracks, i);
		codecs[i] = track->codec ? track->codec : "";
	}
	char *why = NULL;
	int best = umms_resources_choose(h->service->resources, &h->base, codecs,
		(int)tracks->len, h->service->config->resources.codec_costs, &why);
	h->why_track = why;
	umms_info("resources: %s plays %s", h->path, why);
	if (best == info->current[UMMS_TRACK_VIDEO])
		return;
	g_autoptr(GError) error = NULL;
	h->busy = true;
	if (!umms_player_select_track(player, "video", best, NULL, NULL, &error))
		umms_warn("resources: %s: %s", h->path, error->message);
	h->busy = false;
}

/*
 * SetUri of v4l2://DEVICE: the capture device's unit is taken first (from
 * a lower priority, which stops), else the URI is refused with
 * NoResource naming who holds it. It is held until another URI is set or
 * the player goes, stopped or not: the device is the player's media.
 */
static void
release_tuner(struct player_holder *h)
{
	if (!h->tuner)
		return;
	umms_resources_release(h->service->resources, &h->base, h->tuner);
	g_clear_pointer(&h->tuner, g_free);
	g_clear_pointer(&h->tuned_uri, g_free);
	g_clear_pointer(&h->engine_uri, g_free);
	changed(h->service);
}

/*
 * A tuner for @channel: one @holder holds already, else a free one that
 * receives its delivery system, else one taken from a lower priority
 * (told). Its kind in @kind (g_free). False with NoResource.
 */
static const struct umms_dvb_frontend *
take_tuner(struct umms_resource_service *s, struct umms_resource_holder *holder,
	const struct umms_dvb_channel *channel, char **kind, GError **error)
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

/*
 * SetUri of dvb://NAME: the channel is looked up in the channel list and
 * a tuner that receives it taken (as a capture device is, below); the
 * engine is given the channel's tuning on that tuner (engine_uri_cb).
 */
static bool
tune_gate(struct player_holder *h, const char *uri, GError **error)
{
	struct umms_resource_service *s = h->service;
	if (h->tuner && g_strcmp0(uri, h->tuned_uri) == 0)
		return true;
	release_tuner(h);
	if (!umms_dvb_is_uri(uri))
		return true;
	g_autofree char *path = umms_dvb_channels_path(s->config);
	struct umms_dvb_channel *channel = umms_dvb_lookup(path, uri, error);
	if (!channel)
		return false;
	char *kind = NULL;
	const struct umms_dvb_frontend *fe = take_tuner(s, &h->base, channel, &kind, error);
	if (fe) {
		h->tuner = kind;
		h->tuned_uri = g_strdup(uri);
		h->engine_uri = umms_dvb_engine_uri(channel, fe);
		umms_info("resources: %s tunes %s on %s", h->path, channel->name, fe->path);
		changed(s);
	}
	umms_dvb_channel_free(channel);
	return fe != NULL;
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
	const struct umms_dvb_frontend *fe = take_tuner(s, &hold->base, channel, &hold->kind,
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
	changed(s);
	return hold;
}

static void
hold_end(struct umms_tuner_hold *hold)
{
	if (!hold->service)
		return;
	umms_resources_forget(hold->service->resources, &hold->base);
	wl_list_remove(&hold->link);
	changed(hold->service);
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

static char *
engine_uri_cb(void *data, struct umms_player *player, const char *uri)
{
	struct player_holder *h = data;
	return h->engine_uri && g_strcmp0(uri, h->tuned_uri) == 0 ? g_strdup(h->engine_uri) :
		NULL;
}

static bool
uri_gate(void *data, struct umms_player *player, const char *uri, GError **error)
{
	struct player_holder *h = data;
	struct umms_resource_service *s = h->service;
	if (!tune_gate(h, uri, error))
		return false;
	g_autofree char *kind = umms_hardware_capture_kind(uri);
	if (h->capture && g_strcmp0(kind, h->capture) != 0) {
		umms_resources_release(s->resources, &h->base, h->capture);
		g_clear_pointer(&h->capture, g_free);
		h->capture_playing = false;
		changed(s);
	}
	/* A device nobody probed: v4l2src says what is wrong with it. */
	if (!kind || h->capture || umms_resources_total(s->resources, kind) == 0)
		return true;
	if (!umms_resources_acquire(s->resources, &h->base, kind, error))
		return false;
	h->capture = g_steal_pointer(&kind);
	changed(s);
	return true;
}

static void
update_holder(struct player_holder *h)
{
	struct umms_resource_service *s = h->service;
	/* A SetUri the gate let through that failed after: the device is not its media. */
	g_autofree char *capture = umms_hardware_capture_kind(h->player->uri);
	if (h->capture && g_strcmp0(capture, h->capture) != 0) {
		umms_resources_release(s->resources, &h->base, h->capture);
		g_clear_pointer(&h->capture, g_free);
		changed(s);
	}
	if (h->tuner && g_strcmp0(h->player->uri, h->tuned_uri) != 0 &&
			!umms_timeshift_switching(h->player->timeshift))
		release_tuner(h);
	tell_engine(h);
	if (h->reopening)
		return;
	choose_track(h);
	g_autofree char *want = wanted_kind(h);
	if (g_strcmp0(want, h->kind) == 0) {
		set_note(h, g_strdup(h->hold));
		return;
	}
	if (h->kind) {
		umms_resources_release(s->resources, &h->base, h->kind);
		g_clear_pointer(&h->kind, g_free);
	}
	char *note = NULL;
	if (want) {
		g_autoptr(GError) error = NULL;
		h->kind = g_strdup(want);
		if (umms_resources_acquire(s->resources, &h->base, want, &error)) {
			note = g_strdup_printf("holds %s", want);
		} else {
			umms_info("resources: %s decodes in software: %s", h->path, error->message);
			note = g_strdup_printf("no free %s", want);
			g_clear_pointer(&h->kind, g_free);
		}
	}
	set_note(h, note);
	changed(s);
}

static void
on_player_changed(struct wl_listener *listener, void *data)
{
	struct player_holder *h = wl_container_of(listener, h, changed);
	if (!h->busy)
		update_holder(h);
}

static void
holder_free(struct player_holder *h)
{
	umms_resources_forget(h->service->resources, &h->base);
	umms_source_clear(&h->replug_idle);
	umms_source_clear(&h->resume_idle);
	h->player->uri_gate = NULL;
	h->player->engine_uri = NULL;
	h->player->uri_gate_data = NULL;
	wl_list_remove(&h->changed.link);
	wl_list_remove(&h->destroy.link);
	wl_list_remove(&h->link);
	changed(h->service);
	g_free(h->kind);
	g_free(h->capture);
	g_free(h->tuner);
	g_free(h->tuned_uri);
	g_free(h->engine_uri);
	g_free(h->hold);
	g_free(h->why_track);
	g_free(h->hardware_told);
	g_free(h->path);
	g_free(h);
}

static void
on_player_destroy(struct wl_listener *listener, void *data)
{
	struct player_holder *h = wl_container_of(listener, h, destroy);
	holder_free(h);
}

void
umms_resource_service_add_player(struct umms_resource_service *s, struct umms_player *player,
	const char *path)
{
	struct player_holder *h = g_new0(struct player_holder, 1);
	h->service = s;
	h->player = player;
	h->path = g_strdup(path);
	const char *priority = umms_priority_name(player->priority);
	h->base = (struct umms_resource_holder){ .impl = &holder_impl, .name = h->path,
		.priority = priority,
		.rank = umms_resources_rank(s->config->resources.priorities, priority) };
	h->changed.notify = on_player_changed;
	wl_signal_add(&player->events.changed, &h->changed);
	h->destroy.notify = on_player_destroy;
	wl_signal_add(&player->events.destroy, &h->destroy);
	wl_list_insert(&s->holders, &h->link);
	player->uri_gate = uri_gate;
	player->engine_uri = engine_uri_cb;
	player->uri_gate_data = h;
	/* Before its first engine is made. */
	tell_engine(h);
}

/* ---- pools ----------------------------------------------------------------------- */

static void
make_pools(struct umms_resource_service *s)
{
	const struct umms_config *config = s->config;
	umms_hardware_make_pools(&s->hw, config, s->resources);
	if (config->resources.planes >= 0)
		umms_resources_set_pool(s->resources, "plane", (unsigned)config->resources.planes,
			NULL);
	if (config->resources.tuners > 0)
		umms_resources_set_pool(s->resources, "tuner", config->resources.tuners, NULL);
}

void
umms_resource_service_set_planes(struct umms_resource_service *s, unsigned planes)
{
	if (s->config->resources.planes >= 0)
		return;
	struct umms_resource_pool_info info = { .hardware = true, .source = "kms" };
	umms_resources_set_pool(s->resources, "plane", planes, &info);
	changed(s);
}

static struct player_holder *
find_holder(struct umms_resource_service *s, struct umms_player *player)
{
	struct player_holder *h;
	wl_list_for_each(h, &s->holders, link) {
		if (h->player == player)
			return h;
	}
	return NULL;
}

bool
umms_resource_service_acquire_for(struct umms_resource_service *s, struct umms_player *player,
	const char *kind, GError **error)
{
	struct player_holder *h = find_holder(s, player);
	if (!h) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no such player");
		return false;
	}
	bool ok = umms_resources_acquire(s->resources, &h->base, kind, error);
	changed(s);
	return ok;
}

void
umms_resource_service_release_for(struct umms_resource_service *s, struct umms_player *player,
	const char *kind)
{
	struct player_holder *h = find_holder(s, player);
	if (!h)
		return;
	umms_resources_release(s->resources, &h->base, kind);
	changed(s);
}

/* ---- D-Bus ----------------------------------------------------------------------- */

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct umms_resource_service *s = data;
	if (strcmp(method, "ScanTuner") == 0) {
		umms_resource_service_scan(s, params, invocation);
		return;
	}
	g_dbus_method_invocation_return_error(invocation, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
		"no method %s", method);
}

static GVariant *
get_property(void *data, const char *name, GError **error)
{
	struct umms_resource_service *s = data;
	if (strcmp(name, "Decoders") == 0)
		return umms_resources_describe(s->resources, "decoder:");
	if (strcmp(name, "Planes") == 0)
		return umms_resources_describe(s->resources, "plane");
	if (strcmp(name, "Tuners") == 0)
		return umms_resources_describe(s->resources, "tuner");
	if (strcmp(name, "Captures") == 0)
		return umms_resources_describe(s->resources, "capture:");
	if (strcmp(name, "VaApi") == 0) {
		const struct umms_va_probe *va = &s->hw.va;
		if (!va->driver)
			return g_variant_new_take_string(g_strdup_printf("none: %s", va->why_none));
		return g_variant_new_take_string(g_strdup_printf("%s on %s", va->driver,
			va->device));
	}
	if (strcmp(name, "Priorities") == 0) {
		g_auto(GStrv) names = g_strsplit(s->config->resources.priorities ?
			s->config->resources.priorities : "recording,foreground,background", ",", -1);
		for (char **n = names; *n; n++)
			g_strstrip(*n);
		return g_variant_new_strv((const char *const *)names, -1);
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops resources_ops = {
	.method_call = method_call,
	.get_property = get_property,
};

void
umms_resource_service_set_guide(struct umms_resource_service *s, struct umms_guide *guide)
{
	s->guide = guide;
}

/* ---- life ------------------------------------------------------------------------- */

struct umms_resource_service *
umms_resource_service_create(const struct umms_config *config, GDBusConnection *connection,
	GError **error)
{
	const char *order = config->resources.priorities;
	static const char *const classes[] = { "recording", "foreground", "background" };
	for (size_t i = 0; i < G_N_ELEMENTS(classes); i++) {
		if (umms_resources_rank(order, classes[i]) < 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"resources.priorities = \"%s\": name recording, foreground and "
				"background, highest first", order ? order : "");
			return NULL;
		}
	}
	struct umms_resource_service *s = g_new0(struct umms_resource_service, 1);
	s->config = config;
	s->resources = umms_resources_create();
	wl_list_init(&s->holders);
	wl_list_init(&s->scans);
	wl_list_init(&s->tunings);
	umms_hardware_probe(&s->hw, config);
	make_pools(s);
	s->connection = g_object_ref(connection);
	s->iface = umms_dbus_iface_export(umms_resources1_interface_info(), &resources_ops, s,
		connection, RESOURCES_PATH, error);
	if (!s->iface) {
		umms_resource_service_destroy(s);
		return NULL;
	}
	return s;
}

void
umms_resource_service_destroy(struct umms_resource_service *s)
{
	if (!s)
		return;
	umms_resource_service_scans_finish(s);
	while (!wl_list_empty(&s->tunings)) {
		struct umms_tuner_hold *hold = wl_container_of(s->tunings.next, hold, link);
		hold_end(hold);
	}
	while (!wl_list_empty(&s->holders)) {
		struct player_holder *h = wl_container_of(s->holders.next, h, link);
		holder_free(h);
	}
	umms_dbus_iface_unexport(&s->iface);
	g_clear_object(&s->connection);
	umms_resources_destroy(s->resources);
	umms_hardware_finish(&s->hw);
	g_free(s);
}
