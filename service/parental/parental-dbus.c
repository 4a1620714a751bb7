/*
 * org.umms.Parental1 on /org/umms (protocol/org.umms.Parental1.xml): the
 * arguments checked first (a malformed call costs no PIN try), then the
 * PIN (parental-pin.c), then the change, stored before the answer.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <stdlib.h>
#include <string.h>

#include "dbus-iface.h"
#include "error.h"
#include "log.h"
#include "parental-private.h"
#include "umms-dbus.h"

#define PLAYER_PREFIX "/org/umms/player/"

struct parental_dbus {
	struct umms_parental *parental;
	UmmsDbusIface *iface;
};

enum call_kind {
	CALL_SET_ENABLED,
	CALL_SET_BLOCK_UNRATED,
	CALL_SET_THRESHOLD,
	CALL_LOCK_CHANNEL,
	CALL_SET_PIN,
	CALL_UNLOCK,
};

/* A call waiting for its PIN check. */
struct call {
	enum call_kind kind;
	bool flag;
	char *scheme;
	int age;
	int64_t channel;
	char *player;
	enum parental_scope scope;
	unsigned seconds;
};

static void
call_free(void *data)
{
	struct call *call = data;
	g_free(call->scheme);
	g_free(call->player);
	g_free(call);
}

static bool
apply(struct umms_parental *parental, struct call *call, GError **error)
{
	switch (call->kind) {
	case CALL_SET_ENABLED:
		if (!parental_db_set_flag(parental, "enabled", call->flag, error))
			return false;
		if (parental->enabled != call->flag)
			umms_info("parental control %s", call->flag ? "on" : "off");
		parental->enabled = call->flag;
		return true;
	case CALL_SET_BLOCK_UNRATED:
		if (!parental_db_set_flag(parental, "block-unrated", call->flag, error))
			return false;
		parental->block_unrated = call->flag;
		return true;
	case CALL_SET_THRESHOLD: {
		/* One entry per scheme whatever its case: the one set replaces it. */
		GHashTableIter iter;
		void *key;
		g_hash_table_iter_init(&iter, parental->thresholds);
		while (g_hash_table_iter_next(&iter, &key, NULL)) {
			if (g_ascii_strcasecmp(key, call->scheme) != 0)
				continue;
			if (!parental_db_set_threshold(parental, key, -1, error))
				return false;
			g_hash_table_iter_remove(&iter);
		}
		if (call->age >= 0 && g_hash_table_size(parental->thresholds) >=
				PARENTAL_MAX_THRESHOLDS) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
				"%d thresholds are set already", PARENTAL_MAX_THRESHOLDS);
			return false;
		}
		if (call->age >= 0) {
			if (!parental_db_set_threshold(parental, call->scheme, call->age, error))
				return false;
			g_hash_table_replace(parental->thresholds, g_strdup(call->scheme),
				GINT_TO_POINTER(call->age + 1));
		}
		return true;
	}
	case CALL_LOCK_CHANNEL:
		if (call->flag && !g_hash_table_contains(parental->locked, &call->channel) &&
				g_hash_table_size(parental->locked) >= PARENTAL_MAX_LOCKED) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
				"%d channels are locked already", PARENTAL_MAX_LOCKED);
			return false;
		}
		if (!parental_db_lock_channel(parental, call->channel, call->flag, error))
			return false;
		if (call->flag)
			g_hash_table_add(parental->locked, g_memdup2(&call->channel, sizeof(int64_t)));
		else
			g_hash_table_remove(parental->locked, &call->channel);
		return true;
	case CALL_SET_PIN:
		/* parental-pin.c stored it. */
		umms_info("parental: the PIN was set");
		return true;
	case CALL_UNLOCK:
		if (!parental_grant(parental, call->player, call->scope, call->seconds, error))
			return false;
		umms_info("parental: %s unlocked (%s)", call->player,
			call->scope == PARENTAL_SCOPE_TIME ? "time" :
			call->scope == PARENTAL_SCOPE_CHANNEL ? "channel" : "programme");
		return true;
	}
	return true;
}

static void
pin_done(struct umms_parental *parental, GDBusMethodInvocation *invocation, void *data,
	GError *error)
{
	if (!error)
		apply(parental, data, &error);
	if (error) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	parental_changed(parental);
	g_dbus_method_invocation_return_value(invocation, NULL);
}

static void
refuse(GDBusMethodInvocation *invocation, struct call *call, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);

static void
refuse(GDBusMethodInvocation *invocation, struct call *call, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	g_autofree char *message = g_strdup_vprintf(fmt, args);
	va_end(args);
	call_free(call);
	umms_dbus_return_error(invocation, g_error_new_literal(UMMS_ERROR,
		UMMS_ERROR_INVALID_ARGUMENT, message));
}

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct parental_dbus *dbus = data;
	(void)sender;
	struct call *call = g_new0(struct call, 1);
	const char *pin = "", *new_pin = NULL;
	if (strcmp(method, "SetEnabled") == 0) {
		call->kind = CALL_SET_ENABLED;
		gboolean flag;
		g_variant_get(params, "(&sb)", &pin, &flag);
		call->flag = flag;
	} else if (strcmp(method, "SetBlockUnrated") == 0) {
		call->kind = CALL_SET_BLOCK_UNRATED;
		gboolean flag;
		g_variant_get(params, "(&sb)", &pin, &flag);
		call->flag = flag;
	} else if (strcmp(method, "SetThreshold") == 0) {
		call->kind = CALL_SET_THRESHOLD;
		const char *scheme;
		g_variant_get(params, "(&s&si)", &pin, &scheme, &call->age);
		if (!parental_scheme_valid(scheme)) {
			refuse(invocation, call, "not a rating scheme: \"%.64s\" (1 to %d "
				"letters, digits, '-', '_', ':')", scheme, PARENTAL_MAX_SCHEME);
			return;
		}
		if (call->age < -1 || call->age > PARENTAL_MAX_AGE) {
			refuse(invocation, call, "age %d: 0 to %d, or -1 to remove",
				call->age, PARENTAL_MAX_AGE);
			return;
		}
		call->scheme = g_strdup(scheme);
	} else if (strcmp(method, "LockChannel") == 0) {
		call->kind = CALL_LOCK_CHANNEL;
		gboolean flag;
		g_variant_get(params, "(&sxb)", &pin, &call->channel, &flag);
		call->flag = flag;
		if (call->channel <= 0) {
			refuse(invocation, call, "channel %" G_GINT64_FORMAT
				": a guide channel id is above 0", call->channel);
			return;
		}
	} else if (strcmp(method, "SetPin") == 0) {
		call->kind = CALL_SET_PIN;
		g_variant_get(params, "(&s&s)", &pin, &new_pin);
		if (!parental_pin_valid(new_pin)) {
			refuse(invocation, call, "a PIN is 4 to 8 digits");
			return;
		}
	} else if (strcmp(method, "Unlock") == 0) {
		call->kind = CALL_UNLOCK;
		const char *player, *scope;
		g_variant_get(params, "(&o&s&su)", &player, &pin, &scope, &call->seconds);
		if (!g_str_has_prefix(player, PLAYER_PREFIX) || !player[strlen(PLAYER_PREFIX)]) {
			refuse(invocation, call, "%.200s is no player's path (%s…)", player,
				PLAYER_PREFIX);
			return;
		}
		if (!parental_parse_scope(scope, &call->scope)) {
			refuse(invocation, call, "scope \"%.64s\": programme, channel or time",
				scope);
			return;
		}
		if (call->scope == PARENTAL_SCOPE_TIME && (call->seconds < 1 ||
				call->seconds > PARENTAL_MAX_UNLOCK_SECONDS)) {
			refuse(invocation, call, "seconds %u: 1 to %d for scope time",
				call->seconds, PARENTAL_MAX_UNLOCK_SECONDS);
			return;
		}
		call->player = g_strdup(player);
	} else {
		g_assert_not_reached();
	}
	parental_pin_check(dbus->parental->checks, pin, new_pin, invocation, pin_done, call,
		call_free);
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int
compare_int64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static GVariant *
thresholds_variant(struct umms_parental *parental)
{
	guint n = 0;
	g_autofree const char **schemes = (const char **)g_hash_table_get_keys_as_array(
		parental->thresholds, &n);
	qsort(schemes, n, sizeof(*schemes), compare_strings);
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("a{si}"));
	for (guint i = 0; i < n; i++)
		g_variant_builder_add(&b, "{si}", schemes[i],
			GPOINTER_TO_INT(g_hash_table_lookup(parental->thresholds, schemes[i])) - 1);
	return g_variant_builder_end(&b);
}

static GVariant *
locked_variant(struct umms_parental *parental)
{
	g_autoptr(GArray) ids = g_array_new(false, false, sizeof(int64_t));
	GHashTableIter iter;
	void *key;
	g_hash_table_iter_init(&iter, parental->locked);
	while (g_hash_table_iter_next(&iter, &key, NULL))
		g_array_append_val(ids, *(int64_t *)key);
	g_array_sort(ids, compare_int64);
	return g_variant_new_fixed_array(G_VARIANT_TYPE_INT64, ids->data, ids->len,
		sizeof(int64_t));
}

static GVariant *
get_property(void *data, const char *name, GError **error)
{
	struct parental_dbus *dbus = data;
	struct umms_parental *parental = dbus->parental;
	if (strcmp(name, "Enabled") == 0)
		return g_variant_new_boolean(parental->enabled);
	if (strcmp(name, "BlockUnrated") == 0)
		return g_variant_new_boolean(parental->block_unrated);
	if (strcmp(name, "Thresholds") == 0)
		return thresholds_variant(parental);
	if (strcmp(name, "LockedChannels") == 0)
		return locked_variant(parental);
	if (strcmp(name, "PinSet") == 0)
		return g_variant_new_boolean(parental->pin.hash != NULL);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
	return NULL;
}

static const struct umms_dbus_iface_ops parental_ops = {
	.method_call = method_call,
	.get_property = get_property,
};

struct parental_dbus *
parental_dbus_create(struct umms_parental *parental, GError **error)
{
	struct parental_dbus *dbus = g_new0(struct parental_dbus, 1);
	dbus->parental = parental;
	dbus->iface = umms_dbus_iface_export(umms_parental1_interface_info(), &parental_ops, dbus,
		parental->connection, "/org/umms", error);
	if (!dbus->iface) {
		parental_dbus_destroy(dbus);
		return NULL;
	}
	return dbus;
}

void
parental_dbus_destroy(struct parental_dbus *dbus)
{
	if (!dbus)
		return;
	umms_dbus_iface_unexport(&dbus->iface);
	g_free(dbus);
}

void
parental_dbus_changed(struct parental_dbus *dbus)
{
	if (!dbus)
		return;
	umms_dbus_iface_changed(dbus->iface);
	umms_dbus_iface_flush_changes(dbus->iface);
	umms_dbus_iface_emit(dbus->iface, "Changed", NULL);
}
