/*
 * The resource manager in ummsd (resources-service.h): pools, Resources1,
 * players as holders.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "dbus-iface.h"
#include "error.h"
#include "log.h"
#include "media-info.h"
#include "player.h"
#include "resources-service.h"
#include "resources.h"
#include "umms-dbus.h"
#include "va-probe.h"

#define RESOURCES_PATH "/org/umms"

struct umms_resource_service {
	const struct umms_config *config;
	struct umms_resources *resources;
	struct umms_va_probe va;
	UmmsDbusIface *iface;
	GDBusConnection *connection;
	struct wl_list holders;    /* struct player_holder.link */
};

/* A player as a holder of units. */
struct player_holder {
	struct umms_resource_holder base;
	struct umms_resource_service *service;
	struct umms_player *player;
	struct wl_list link;
	struct wl_listener changed, destroy;
	char *path;
	char *kind;                /* the decoder it holds or waits for, NULL: none */
	char *hold;                /* what it holds: "holds decoder:h264", … or NULL */
	char *why_track;           /* the codec policy's choice, or NULL */
	unsigned chosen_serial;    /* the player's track_serial it chose for */
	bool told;                 /* the player was told which hardware it may use */
	char *hardware_told;       /* what: codecs joined by ",", NULL: any */
	bool busy;                 /* inside our own change: no recursion */
};

static void
changed(struct umms_resource_service *s)
{
	if (s->iface)
		umms_dbus_iface_changed(s->iface);
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
 * Which codecs the player's engine may decode with hardware decoders: with
 * a VA-API driver, those whose decoder it holds or could take; without
 * one, no policy (other hardware decoders, V4L2 ones, are not ours to
 * count).
 */
static void
tell_engine(struct player_holder *h)
{
	struct umms_resource_service *s = h->service;
	g_autoptr(GPtrArray) codecs = g_ptr_array_new();
	for (guint i = 0; s->va.driver && i < s->va.codecs->len; i++) {
		const struct umms_va_codec *c = &g_array_index(s->va.codecs, struct umms_va_codec, i);
		g_autofree char *kind = g_strdup_printf("decoder:%s", c->codec);
		if (umms_resources_can_take(s->resources, &h->base, kind))
			g_ptr_array_add(codecs, (gpointer)c->codec);
	}
	g_ptr_array_add(codecs, NULL);
	g_autofree char *joined = s->va.driver ? g_strjoinv(",", (char **)codecs->pdata) : NULL;
	if (h->told && g_strcmp0(joined, h->hardware_told) == 0)
		return;
	h->told = true;
	g_free(h->hardware_told);
	h->hardware_told = g_steal_pointer(&joined);
	umms_player_set_hardware_codecs(h->player,
		s->va.driver ? (const char *const *)codecs->pdata : NULL);
}

/* A reopening under way, found again by the player's path (it may go meanwhile). */
struct replug {
	struct umms_resource_service *service;
	char *path;
	int64_t position;
	bool playing;
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

static void
replug_sought(const GError *error, void *data)
{
	struct replug *r = data;
	struct player_holder *h = replug_holder(r);
	if (h && !error && r->playing)
		umms_player_play(h->player, NULL, NULL, NULL);
	replug_free(r);
}

static void
replug_opened(const GError *error, void *data)
{
	struct replug *r = data;
	struct player_holder *h = replug_holder(r);
	if (!h || error) {
		if (error)
			umms_warn("resources: %s could not reopen: %s", r->path, error->message);
		replug_free(r);
		return;
	}
	if (!umms_player_set_position(h->player, r->position, replug_sought, r, NULL))
		replug_sought(NULL, r);
}

/*
 * A hardware decoder runs without its unit now: the media is opened again
 * where it was, and the engine (told it may not) plugs a software decoder.
 * Not run in CI: no hardware decoder exists there.
 */
static void
replug(struct player_holder *h)
{
	struct umms_player *player = h->player;
	if (!player->uri || !umms_player_get_info(player)->decoder_hardware)
		return;
	struct replug *r = g_new0(struct replug, 1);
	r->service = h->service;
	r->path = g_strdup(h->path);
	r->position = umms_player_get_position(player);
	r->playing = player->state == UMMS_PLAYER_PLAYING;
	umms_info("resources: %s reopens at %.3f s to decode in software", h->path,
		(double)r->position / 1e6);
	g_autofree char *uri = g_strdup(player->uri);
	g_autoptr(GError) error = NULL;
	if (!umms_player_set_uri(player, uri, replug_opened, r, &error)) {
		umms_warn("resources: %s could not reopen: %s", h->path, error->message);
		replug_free(r);
	}
}

static void
holder_lost(struct umms_resource_holder *base, const char *kind, const char *by)
{
	struct player_holder *h = wl_container_of(base, h, base);
	/* Software decoding stands in: the player goes on. */
	tell_engine(h);
	replug(h);
	set_note(h, g_strdup_printf("%s taken by %s", kind, by));
	struct umms_player_resource_event event = { .kind = kind, .lost = true };
	wl_signal_emit_mutable(&h->player->events.resource, &event);
}

static void
holder_restored(struct umms_resource_holder *base, const char *kind)
{
	struct player_holder *h = wl_container_of(base, h, base);
	/* Hardware again for what is plugged next (a running software decoder stays). */
	tell_engine(h);
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

static void
update_holder(struct player_holder *h)
{
	struct umms_resource_service *s = h->service;
	tell_engine(h);
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
	wl_list_remove(&h->changed.link);
	wl_list_remove(&h->destroy.link);
	wl_list_remove(&h->link);
	changed(h->service);
	g_free(h->kind);
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
	/* Before its first engine is made. */
	tell_engine(h);
}

/* ---- pools ----------------------------------------------------------------------- */

static void
make_pools(struct umms_resource_service *s)
{
	const struct umms_config *config = s->config;
	for (int i = 0; i < UMMS_RESOURCE_CODECS; i++) {
		const char *codec = umms_resource_codecs[i];
		const struct umms_va_codec *va = umms_va_probe_find(&s->va, codec);
		int n = config->resources.decoders[i];
		/* VA-API says which codecs, never how many: one unit each unless configured. */
		if (n < 0)
			n = va ? 1 : 0;
		if (n == 0)
			continue;
		struct umms_resource_pool_info info = { .hardware = va != NULL,
			.max_width = va ? va->max_width : 0, .max_height = va ? va->max_height : 0,
			.source = va ? "va-api" : "configured" };
		g_autofree char *kind = g_strdup_printf("decoder:%s", codec);
		umms_resources_set_pool(s->resources, kind, (unsigned)n, &info);
	}
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
	if (strcmp(name, "VaApi") == 0) {
		if (!s->va.driver)
			return g_variant_new_take_string(g_strdup_printf("none: %s", s->va.why_none));
		return g_variant_new_take_string(g_strdup_printf("%s on %s", s->va.driver,
			s->va.device));
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
	umms_va_probe_run(&s->va, config->resources.va_device);
	make_pools(s);
	s->connection = g_object_ref(connection);
	s->iface = umms_dbus_iface_new(umms_resources1_interface_info(), &resources_ops, s);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(s->iface), connection,
			RESOURCES_PATH, error)) {
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
	while (!wl_list_empty(&s->holders)) {
		struct player_holder *h = wl_container_of(s->holders.next, h, link);
		holder_free(h);
	}
	if (s->iface) {
		umms_dbus_iface_detach(s->iface);
		if (g_dbus_interface_skeleton_get_connection(G_DBUS_INTERFACE_SKELETON(s->iface)))
			g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(s->iface));
		g_object_unref(s->iface);
	}
	g_clear_object(&s->connection);
	umms_resources_destroy(s->resources);
	umms_va_probe_finish(&s->va);
	g_free(s);
}
