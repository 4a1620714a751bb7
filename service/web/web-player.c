/*
 * The bridge's methods on a session's players. Each drives the player
 * through the same calls org.umms.Player1 uses (player-dbus.c →
 * player.h), so a page and a D-Bus client get the same checks and answers;
 * only the units differ (seconds here, µs there). Players are made by the
 * manager with the session as their creator, so service.max-players and
 * max-players-per-client count them like D-Bus players, and they show on
 * D-Bus (Manager1.Players) while they live.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <math.h>
#include <string.h>

#include "display.h"
#include "error.h"
#include "log.h"
#include "manager.h"
#include "media-info.h"
#include "player.h"
#include "source.h"
#include "web-private.h"

#define INVALID "org.umms.Error.InvalidArgument"
/* Positions while playing: at most one per this many µs. */
#define POSITION_INTERVAL_US 250000
/* place: |coordinate| and sizes in CSS pixels; the largest scale. */
#define MAX_COORDINATE 32768.0
#define MAX_SCALE 64.0
/* seek: seconds (µs must fit in 63 bits with room). */
#define MAX_TIME 1e9

static void player_free(struct umms_web_player *wp);

/* ---- reading params ---- */

static bool
bad_param(struct umms_web_session *session, JsonNode *id, const char *name, const char *want)
{
	umms_web_session_error(session, id, UMMS_WEB_INVALID_PARAMS, INVALID,
		"%s must be %s", name, want);
	return false;
}

/* A number member: false (answered) if missing and required, or not a finite number. */
static bool
get_number(struct umms_web_session *session, JsonNode *id, JsonObject *params,
	const char *name, bool required, bool *present, double *out)
{
	JsonNode *node = json_object_get_member(params, name);
	if (present)
		*present = node != NULL;
	if (!node && !required)
		return true;
	if (!node || !JSON_NODE_HOLDS_VALUE(node))
		return bad_param(session, id, name, "a number");
	GType type = json_node_get_value_type(node);
	if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
		return bad_param(session, id, name, "a number");
	*out = json_node_get_double(node);
	if (!isfinite(*out))
		return bad_param(session, id, name, "a finite number");
	return true;
}

static bool
get_int(struct umms_web_session *session, JsonNode *id, JsonObject *params, const char *name,
	int64_t min, int64_t max, int64_t *out)
{
	JsonNode *node = json_object_get_member(params, name);
	if (!node || !JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
		return bad_param(session, id, name, "a whole number");
	*out = json_node_get_int(node);
	if (*out < min || *out > max) {
		umms_web_session_error(session, id, UMMS_WEB_INVALID_PARAMS, INVALID,
			"%s must be from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, name, min, max);
		return false;
	}
	return true;
}

static bool
get_bool(struct umms_web_session *session, JsonNode *id, JsonObject *params, const char *name,
	bool *present, bool *out)
{
	JsonNode *node = json_object_get_member(params, name);
	*present = node != NULL;
	if (!node)
		return true;
	if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_BOOLEAN)
		return bad_param(session, id, name, "true or false");
	*out = json_node_get_boolean(node);
	return true;
}

static const char *
get_string(struct umms_web_session *session, JsonNode *id, JsonObject *params,
	const char *name)
{
	JsonNode *node = json_object_get_member(params, name);
	if (!node || !JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_STRING) {
		bad_param(session, id, name, "a string");
		return NULL;
	}
	return json_node_get_string(node);
}

/* params.player: one of this session's; else answered InvalidArgument or NotFound. */
static struct umms_web_player *
get_player(struct umms_web_session *session, JsonNode *id, JsonObject *params)
{
	int64_t number;
	if (!get_int(session, id, params, "player", 1, G_MAXUINT32, &number))
		return NULL;
	struct umms_web_player *wp = g_hash_table_lookup(session->players,
		GUINT_TO_POINTER((unsigned)number));
	if (!wp || wp->destroy_idle) {
		umms_web_session_error(session, id, UMMS_WEB_SERVICE_ERROR, "org.umms.Error.NotFound",
			"no player %" G_GINT64_FORMAT " in this session", number);
		return NULL;
	}
	return wp;
}

/* ---- notifications ---- */

static JsonObject *
player_params(struct umms_web_player *wp, JsonNode **node)
{
	*node = json_node_new(JSON_NODE_OBJECT);
	JsonObject *object = json_object_new();
	json_object_set_int_member(object, "player", wp->id);
	json_node_take_object(*node, object);
	return object;
}

static const char *
state_name(struct umms_player *player)
{
	switch (player->state) {
	case UMMS_PLAYER_STOPPED:
		return "stopped";
	case UMMS_PLAYER_PAUSED:
		return "paused";
	case UMMS_PLAYER_PLAYING:
		return umms_player_get_info(player)->buffering < 100 ? "buffering" : "playing";
	}
	return "stopped";
}

static JsonNode *
tracks_node(struct umms_player *player)
{
	static const char *const kinds[UMMS_TRACK_KINDS] = { "video", "audio", "text" };
	const struct umms_media_info *info = umms_player_get_info(player);
	JsonArray *array = json_array_new();
	for (int kind = 0; kind < UMMS_TRACK_KINDS; kind++) {
		for (guint i = 0; i < info->tracks[kind]->len; i++) {
			const struct umms_track *track = info->tracks[kind]->pdata[i];
			JsonObject *object = json_object_new();
			json_object_set_int_member(object, "id", i);
			json_object_set_string_member(object, "kind", kinds[kind]);
			json_object_set_string_member(object, "language",
				track->language ? track->language : "");
			const char *label = track->codec_description ? track->codec_description :
				track->codec;
			json_object_set_string_member(object, "label", label ? label : "");
			json_object_set_boolean_member(object, "selected", info->current[kind] == (int)i);
			json_array_add_object_element(array, object);
		}
	}
	JsonNode *node = json_node_new(JSON_NODE_ARRAY);
	json_node_take_array(node, array);
	return node;
}

/*
 * Sends the position if it moved (or @force), at most once a
 * POSITION_INTERVAL_US while playing.
 */
static void
send_position(struct umms_web_player *wp, bool force)
{
	int64_t now = g_get_monotonic_time();
	if (wp->player->state == UMMS_PLAYER_PLAYING &&
			now - wp->last_position_at < POSITION_INTERVAL_US)
		return;
	int64_t position = umms_player_get_position(wp->player);
	if (!force && position == wp->last_position)
		return;
	wp->last_position = position;
	wp->last_position_at = now;
	JsonNode *node;
	JsonObject *params = player_params(wp, &node);
	json_object_set_double_member(params, "time", (double)position / G_USEC_PER_SEC);
	umms_web_session_notify(wp->session, "position", node);
}

static gboolean
position_cb(gpointer data)
{
	send_position(data, false);
	return G_SOURCE_CONTINUE;
}

/* Sends what changed since the page was last told: state, duration, tracks. */
static void
send_changes(struct umms_web_player *wp)
{
	if (!wp->announced || wp->destroy_idle)
		return;
	struct umms_player *player = wp->player;
	const char *state = state_name(player);
	if (state != wp->last_state) {
		wp->last_state = state;
		JsonNode *node;
		JsonObject *params = player_params(wp, &node);
		json_object_set_string_member(params, "state", state);
		umms_web_session_notify(wp->session, "state", node);
		send_position(wp, true);
	}
	bool playing = player->state == UMMS_PLAYER_PLAYING;
	if (playing && !wp->position_timer)
		wp->position_timer = umms_source_timeout(POSITION_INTERVAL_US / 1000, position_cb, wp);
	else if (!playing)
		umms_source_clear(&wp->position_timer);
	int64_t duration = umms_player_get_info(player)->duration;
	if (duration != wp->last_duration) {
		wp->last_duration = duration;
		JsonNode *node;
		JsonObject *params = player_params(wp, &node);
		json_object_set_double_member(params, "duration",
			duration < 0 ? -1.0 : (double)duration / G_USEC_PER_SEC);
		umms_web_session_notify(wp->session, "duration", node);
	}
	JsonNode *tracks = tracks_node(player);
	g_autoptr(JsonGenerator) generator = json_generator_new();
	json_generator_set_root(generator, tracks);
	g_autofree char *text = json_generator_to_data(generator, NULL);
	if (g_strcmp0(text, wp->last_tracks) != 0) {
		g_free(wp->last_tracks);
		wp->last_tracks = g_steal_pointer(&text);
		JsonNode *node;
		JsonObject *params = player_params(wp, &node);
		json_object_set_member(params, "tracks", tracks);
		umms_web_session_notify(wp->session, "tracks", node);
	} else {
		json_node_unref(tracks);
	}
}

static void
on_changed(struct wl_listener *listener, void *data)
{
	struct umms_web_player *wp = wl_container_of(listener, wp, changed);
	send_changes(wp);
}

/* A seek settled (Seeked on D-Bus): paused, the page learns the new time only so. */
static void
on_seeked(struct wl_listener *listener, void *data)
{
	struct umms_web_player *wp = wl_container_of(listener, wp, seeked);
	if (wp->announced && !wp->destroy_idle)
		send_position(wp, true);
}

static void
on_eos(struct wl_listener *listener, void *data)
{
	struct umms_web_player *wp = wl_container_of(listener, wp, eos);
	if (!wp->announced)
		return;
	send_changes(wp);
	JsonNode *node;
	player_params(wp, &node);
	umms_web_session_notify(wp->session, "ended", node);
}

static void
on_error(struct wl_listener *listener, void *data)
{
	struct umms_web_player *wp = wl_container_of(listener, wp, error);
	const GError *error = data;
	if (!wp->announced)
		return;
	send_changes(wp);
	JsonNode *node;
	JsonObject *params = player_params(wp, &node);
	json_object_set_string_member(params, "name", umms_error_dbus_name_of(error));
	json_object_set_string_member(params, "message", error->message);
	umms_web_session_notify(wp->session, "error", node);
}

static void
on_destroy(struct wl_listener *listener, void *data)
{
	struct umms_web_player *wp = wl_container_of(listener, wp, destroy);
	/* Destroyed from elsewhere (DestroyPlayer, MPRIS Quit): the page is told. */
	if (wp->announced && !wp->session->closing && !wp->destroy_idle) {
		JsonNode *node;
		JsonObject *params = player_params(wp, &node);
		json_object_set_string_member(params, "name", "org.umms.Error.NotFound");
		json_object_set_string_member(params, "message", "the player was destroyed");
		umms_web_session_notify(wp->session, "error", node);
	}
	player_free(wp);
}

/* ---- lifetime ---- */

static void
player_free(struct umms_web_player *wp)
{
	/* An open still to be answered answers without it. */
	for (GList *l = wp->session->calls.head; l; l = l->next) {
		struct umms_web_call *call = l->data;
		if (call->opening == wp)
			call->opening = NULL;
	}
	wl_list_remove(&wp->changed.link);
	wl_list_remove(&wp->seeked.link);
	wl_list_remove(&wp->eos.link);
	wl_list_remove(&wp->error.link);
	wl_list_remove(&wp->destroy.link);
	umms_source_clear(&wp->position_timer);
	umms_source_clear(&wp->destroy_idle);
	g_hash_table_remove(wp->session->players, GUINT_TO_POINTER(wp->id));
	g_free(wp->last_tracks);
	g_free(wp);
}

void
umms_web_player_close(struct umms_web_player *wp)
{
	/* Its destroy event frees @wp. */
	umms_manager_destroy_player(wp->session->web->manager, wp->player);
}

static gboolean
destroy_idle_cb(gpointer data)
{
	struct umms_web_player *wp = data;
	umms_source_forget(&wp->destroy_idle);
	umms_web_player_close(wp);
	return G_SOURCE_REMOVE;
}

static struct umms_web_player *
player_new(struct umms_web_session *session, GError **error)
{
	const struct umms_config *config = session->web->config;
	if (g_hash_table_size(session->players) >= config->web.max_players) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"too many players: this session has %u (web.max-players)",
			g_hash_table_size(session->players));
		return NULL;
	}
	struct umms_player *player = umms_manager_create_owned_player_for(
		session->web->manager, session->owner, error);
	if (!player)
		return NULL;
	struct umms_web_player *wp = g_new0(struct umms_web_player, 1);
	wp->session = session;
	wp->player = player;
	do
		wp->id = ++session->next_player;
	while (wp->id == 0 || g_hash_table_contains(session->players, GUINT_TO_POINTER(wp->id)));
	wp->last_duration = G_MININT64;
	wp->last_position = -1;
	wp->last_position_at = G_MININT64 / 2;
	wp->changed.notify = on_changed;
	wl_signal_add(&player->events.changed, &wp->changed);
	wp->seeked.notify = on_seeked;
	wl_signal_add(&player->events.seeked, &wp->seeked);
	wp->eos.notify = on_eos;
	wl_signal_add(&player->events.eos, &wp->eos);
	wp->error.notify = on_error;
	wl_signal_add(&player->events.error, &wp->error);
	wp->destroy.notify = on_destroy;
	wl_signal_add(&player->events.destroy, &wp->destroy);
	g_hash_table_insert(session->players, GUINT_TO_POINTER(wp->id), wp);
	return wp;
}

/* ---- methods ---- */

static JsonNode *
empty_result(void)
{
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);
	json_node_take_object(node, json_object_new());
	return node;
}

/* A request's answer once the player completed it (player_done_fn). */
static void
call_done(const GError *error, void *data)
{
	struct umms_web_call *call = data;
	if (call->session) {
		if (error)
			umms_web_session_gerror(call->session, call->id, error);
		else
			umms_web_session_reply(call->session, call->id, empty_result());
	}
	umms_web_call_free(call);
}

static void
open_done(const GError *error, void *data)
{
	struct umms_web_call *call = data;
	struct umms_web_player *wp = call->opening;
	if (!call->session) {
		umms_web_call_free(call);
		return;
	}
	if (error || !wp) {
		/* Destroyed before it opened (close, DestroyPlayer): NotFound came. */
		if (error)
			umms_web_session_gerror(call->session, call->id, error);
		else
			umms_web_session_error(call->session, call->id, UMMS_WEB_SERVICE_ERROR,
				"org.umms.Error.NotFound", "the player was destroyed");
		/* The page never learnt its id: it goes, but not from inside its own callback. */
		if (wp && !wp->destroy_idle)
			wp->destroy_idle = umms_source_idle(destroy_idle_cb, wp);
	} else {
		JsonNode *node = json_node_new(JSON_NODE_OBJECT);
		JsonObject *object = json_object_new();
		json_object_set_int_member(object, "player", wp->id);
		json_node_take_object(node, object);
		umms_web_session_reply(call->session, call->id, node);
		wp->announced = true;
		send_changes(wp);
	}
	umms_web_call_free(call);
}

static void
method_open(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	const char *uri = get_string(session, id, params, "uri");
	if (!uri)
		return;
	GError *error = NULL;
	struct umms_web_player *wp = player_new(session, &error);
	if (!wp)
		goto fail;
	struct umms_web_call *call = umms_web_call_new(session, id);
	call->opening = wp;
	if (!umms_player_set_uri(wp->player, uri, open_done, call, &error)) {
		umms_web_call_free(call);
		umms_web_player_close(wp);
		goto fail;
	}
	return;

fail:
	umms_web_session_gerror(session, id, error);
	g_error_free(error);
}

typedef bool (*async_fn)(struct umms_player *player, umms_player_done_fn done, void *data,
	GError **error);

static void
run_async(struct umms_web_session *session, JsonNode *id, JsonObject *params, async_fn fn)
{
	struct umms_web_player *wp = get_player(session, id, params);
	if (!wp)
		return;
	GError *error = NULL;
	struct umms_web_call *call = umms_web_call_new(session, id);
	if (!fn(wp->player, call_done, call, &error)) {
		umms_web_call_free(call);
		umms_web_session_gerror(session, id, error);
		g_error_free(error);
	}
}

static void
method_play(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	run_async(session, id, params, umms_player_play);
}

static void
method_pause(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	run_async(session, id, params, umms_player_pause);
}

static void
method_seek(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	double time;
	if (!wp || !get_number(session, id, params, "time", true, NULL, &time))
		return;
	if (time < 0 || time > MAX_TIME) {
		bad_param(session, id, "time", "seconds from 0");
		return;
	}
	GError *error = NULL;
	struct umms_web_call *call = umms_web_call_new(session, id);
	/* Player1.SetPosition's call. */
	if (!umms_player_set_position(wp->player, (int64_t)llround(time * G_USEC_PER_SEC),
			call_done, call, &error)) {
		umms_web_call_free(call);
		umms_web_session_gerror(session, id, error);
		g_error_free(error);
	}
}

static void
answer(struct umms_web_session *session, JsonNode *id, bool ok, GError *error)
{
	if (ok) {
		umms_web_session_reply(session, id, empty_result());
	} else {
		umms_web_session_gerror(session, id, error);
		g_error_free(error);
	}
}

static void
method_rate(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	double rate;
	if (!wp || !get_number(session, id, params, "rate", true, NULL, &rate))
		return;
	if (rate == 0) {
		bad_param(session, id, "rate", "non-zero");
		return;
	}
	GError *error = NULL;
	/* Player1's Rate property. */
	bool ok = umms_player_set_rate(wp->player, rate, &error);
	answer(session, id, ok, error);
}

static void
method_volume(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	double volume = 0;
	bool has_volume, has_muted, muted = false;
	if (!wp || !get_number(session, id, params, "volume", false, &has_volume, &volume) ||
			!get_bool(session, id, params, "muted", &has_muted, &muted))
		return;
	if (!has_volume && !has_muted) {
		bad_param(session, id, "volume or muted", "given");
		return;
	}
	if (has_volume && (volume < 0 || volume > 1)) {
		bad_param(session, id, "volume", "from 0 to 1");
		return;
	}
	GError *error = NULL;
	/* Player1's Volume and Mute properties. */
	if (has_volume && !umms_player_set_volume(wp->player, volume, &error)) {
		answer(session, id, false, error);
		return;
	}
	if (has_muted)
		umms_player_set_mute(wp->player, muted);
	answer(session, id, true, NULL);
}

static void
method_tracks(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	if (!wp)
		return;
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);
	JsonObject *object = json_object_new();
	json_object_set_member(object, "tracks", tracks_node(wp->player));
	json_node_take_object(node, object);
	umms_web_session_reply(session, id, node);
}

static void
method_select_track(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	if (!wp)
		return;
	const char *kind = get_string(session, id, params, "kind");
	int64_t index;
	if (!kind || !get_int(session, id, params, "id", -1, G_MAXINT32, &index))
		return;
	/* The page's "text" tracks are Player1's subtitle tracks. */
	const char *player_kind = strcmp(kind, "text") == 0 ? "subtitle" :
		strcmp(kind, "audio") == 0 ? "audio" : strcmp(kind, "video") == 0 ? "video" : NULL;
	if (!player_kind) {
		bad_param(session, id, "kind", "\"audio\", \"video\" or \"text\"");
		return;
	}
	GError *error = NULL;
	struct umms_web_call *call = umms_web_call_new(session, id);
	/* Player1.SelectTrack's call. */
	if (!umms_player_select_track(wp->player, player_kind, (int)index, call_done, call,
			&error)) {
		umms_web_call_free(call);
		umms_web_session_gerror(session, id, error);
		g_error_free(error);
	}
}

static void
method_close(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	if (!wp)
		return;
	/* Manager1.DestroyPlayer's way out. */
	umms_web_player_close(wp);
	umms_web_session_reply(session, id, empty_result());
}

static bool
get_rect(struct umms_web_session *session, JsonNode *id, JsonObject *params, const char *name,
	struct umms_web_rect *rect)
{
	JsonNode *node = json_object_get_member(params, name);
	if (!node || !JSON_NODE_HOLDS_OBJECT(node))
		return bad_param(session, id, name, "an object {x, y, width, height}");
	JsonObject *object = json_node_get_object(node);
	static const char *const fields[] = { "x", "y", "width", "height" };
	double values[4];
	for (int i = 0; i < 4; i++) {
		if (!get_number(session, id, object, fields[i], true, NULL, &values[i]))
			return false;
		double min = i < 2 ? -MAX_COORDINATE : 0;
		if (values[i] < min || values[i] > MAX_COORDINATE) {
			umms_web_session_error(session, id, UMMS_WEB_INVALID_PARAMS, INVALID,
				"%s.%s must be from %g to %g CSS pixels", name, fields[i], min,
				MAX_COORDINATE);
			return false;
		}
	}
	*rect = (struct umms_web_rect){ values[0], values[1], values[2], values[3] };
	return true;
}

static void
method_place(struct umms_web_session *session, JsonObject *params, JsonNode *id)
{
	struct umms_web_player *wp = get_player(session, id, params);
	if (!wp)
		return;
	struct umms_web_placement placement = { .visible = true, .scale = 1 };
	if (!get_rect(session, id, params, "rect", &placement.rect))
		return;
	JsonNode *clip = json_object_get_member(params, "clip");
	if (clip && !JSON_NODE_HOLDS_NULL(clip)) {
		if (!get_rect(session, id, params, "clip", &placement.clip))
			return;
		placement.has_clip = true;
	}
	bool present;
	if (json_object_has_member(params, "z")) {
		int64_t z;
		if (!get_int(session, id, params, "z", G_MININT32, G_MAXINT32, &z))
			return;
		placement.z = (int)z;
	}
	if (!get_bool(session, id, params, "visible", &present, &placement.visible) ||
			!get_bool(session, id, params, "over", &present, &placement.over) ||
			!get_number(session, id, params, "scale", false, &present, &placement.scale))
		return;
	if (placement.scale <= 0 || placement.scale > MAX_SCALE) {
		bad_param(session, id, "scale", "above 0 and at most 64");
		return;
	}
	/* The latest placement is kept, whether or not the screen can show it yet. */
	wp->placement = placement;
	wp->placed = true;
	GError *error = NULL;
	bool ok = umms_web_apply_placement(wp, &error);
	answer(session, id, ok, error);
}

bool
umms_web_apply_placement(struct umms_web_player *wp, GError **error)
{
	struct umms_web *web = wp->session->web;
	if (!web->display) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"ummsd drives no screen ([display] enabled is off): "
			"a page's video has nowhere to go");
		return false;
	}
	/*
	 * The same placement as Display1.PlacePlayer and umms_video_player_v1
	 * (service/compositor/placement.c), relative to the window of the
	 * browser ummsd started, else the newest window. Like <video>'s
	 * default object-fit (contain): letterboxed in the element's box.
	 */
	const struct umms_web_placement *w = &wp->placement;
	struct umms_placement p = {
		.x = w->rect.x, .y = w->rect.y, .width = w->rect.width, .height = w->rect.height,
		.clipped = w->has_clip,
		.clip_x = w->clip.x, .clip_y = w->clip.y,
		.clip_width = w->clip.width, .clip_height = w->clip.height,
		.z = w->z, .over = w->over, .visible = w->visible, .scale = w->scale,
		.zoom = UMMS_LAYOUT_SCALE_LETTERBOX, .subtitles = true,
	};
	return umms_display_place(web->display, wp->player, umms_web_browser_pid(web), &p,
		error);
}

static const struct {
	const char *name;
	void (*fn)(struct umms_web_session *session, JsonObject *params, JsonNode *id);
} methods[] = {
	{ "open", method_open },
	{ "play", method_play },
	{ "pause", method_pause },
	{ "seek", method_seek },
	{ "rate", method_rate },
	{ "volume", method_volume },
	{ "tracks", method_tracks },
	{ "select-track", method_select_track },
	{ "close", method_close },
	{ "place", method_place },
};

bool
umms_web_player_dispatch(struct umms_web_session *session, const char *method,
	JsonObject *params, JsonNode *id)
{
	for (size_t i = 0; i < G_N_ELEMENTS(methods); i++) {
		if (strcmp(methods[i].name, method) == 0) {
			methods[i].fn(session, params, id);
			return true;
		}
	}
	return false;
}
