/* org.umms.Entitlement1 on /org/umms (protocol/org.umms.Entitlement1.xml). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-iface.h"
#include "entitlement-private.h"
#include "error.h"
#include "log.h"
#include "umms-dbus.h"

struct entitlement_dbus {
	struct umms_entitlement *entitlement;
	UmmsDbusIface *iface;
};

/* @value of term @key has type @type; else InvalidArgument naming both. */
static bool
term_type(const char *key, GVariant *value, const GVariantType *type, GError **error)
{
	if (g_variant_is_of_type(value, type))
		return true;
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
		"term \"%s\" must be of type %.*s, not %s", key,
		(int)g_variant_type_get_string_length(type), g_variant_type_peek_string(type),
		g_variant_get_type_string(value));
	return false;
}

static bool
parse_terms(GVariant *dict, struct entitlement_terms *terms, GError **error)
{
	memset(terms, 0, sizeof(*terms));
	GVariantIter iter;
	const char *key;
	GVariant *value;
	g_variant_iter_init(&iter, dict);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		g_autoptr(GVariant) owned = value;
		if (strcmp(key, "max-plays") == 0 || strcmp(key, "window") == 0) {
			if (!term_type(key, value, G_VARIANT_TYPE_UINT32, error))
				return false;
			uint32_t v = g_variant_get_uint32(value);
			if (v == 0) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"term \"%s\" must be at least 1 (leave it out for no limit)", key);
				return false;
			}
			*(key[0] == 'm' ? &terms->max_plays : &terms->window) = v;
		} else if (strcmp(key, "not-before") == 0 || strcmp(key, "not-after") == 0) {
			if (!term_type(key, value, G_VARIANT_TYPE_INT64, error))
				return false;
			int64_t v = g_variant_get_int64(value);
			if (v <= 0) {
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
					"term \"%s\" must be a time after 1970 (µs), not %" G_GINT64_FORMAT,
					key, v);
				return false;
			}
			*(strcmp(key, "not-before") == 0 ? &terms->not_before : &terms->not_after) = v;
		} else {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"unknown term \"%.64s\" (max-plays, not-before, not-after, window)", key);
			return false;
		}
	}
	if (terms->not_before && terms->not_after && terms->not_before > terms->not_after) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not-before is later than not-after");
		return false;
	}
	return true;
}

static GVariant *
item_variant(struct umms_entitlement *entitlement, struct entitlement_item *item)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	const struct entitlement_terms *terms = &item->terms;
	g_variant_builder_add(&b, "{sv}", "item", g_variant_new_string(item->item));
	if (terms->max_plays)
		g_variant_builder_add(&b, "{sv}", "max-plays", g_variant_new_uint32(terms->max_plays));
	if (terms->not_before)
		g_variant_builder_add(&b, "{sv}", "not-before",
			g_variant_new_int64(terms->not_before));
	if (terms->not_after)
		g_variant_builder_add(&b, "{sv}", "not-after", g_variant_new_int64(terms->not_after));
	if (terms->window)
		g_variant_builder_add(&b, "{sv}", "window", g_variant_new_uint32(terms->window));
	g_variant_builder_add(&b, "{sv}", "plays", g_variant_new_uint32(item->plays));
	if (item->first_play)
		g_variant_builder_add(&b, "{sv}", "first-play", g_variant_new_int64(item->first_play));
	g_variant_builder_add(&b, "{sv}", "revoked", g_variant_new_boolean(item->revoked));
	GError *why = NULL;
	bool valid = entitlement_check(entitlement, item, false,
		entitlement_starting(entitlement, item, NULL), &why);
	g_variant_builder_add(&b, "{sv}", "valid", g_variant_new_boolean(valid));
	g_variant_builder_add(&b, "{sv}", "why", g_variant_new_string(valid ? "" : why->message));
	g_clear_error(&why);
	return g_variant_builder_end(&b);
}

static int
compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
list(struct umms_entitlement *entitlement, GDBusMethodInvocation *invocation)
{
	guint n = 0;
	g_autofree const char **items = (const char **)g_hash_table_get_keys_as_array(
		entitlement->items, &n);
	qsort(items, n, sizeof(*items), compare_strings);
	g_dbus_method_invocation_return_value(invocation, g_variant_new("(^as)", items));
}

static void
method_call(void *data, const char *sender, const char *method, GVariant *params,
	GDBusMethodInvocation *invocation)
{
	struct entitlement_dbus *dbus = data;
	struct umms_entitlement *entitlement = dbus->entitlement;
	(void)sender;
	if (strcmp(method, "List") == 0) {
		list(entitlement, invocation);
		return;
	}
	const char *text;
	g_autoptr(GVariant) first = g_variant_get_child_value(params, 0);
	text = g_variant_get_string(first, NULL);
	GError *error = NULL;
	g_autofree char *item = entitlement_normalize_item(text, &error);
	if (!item) {
		umms_dbus_return_error(invocation, error);
		return;
	}
	if (strcmp(method, "Grant") == 0) {
		g_autoptr(GVariant) dict = g_variant_get_child_value(params, 1);
		struct entitlement_terms terms;
		if (!parse_terms(dict, &terms, &error) ||
				!entitlement_grant(entitlement, item, &terms, &error))
			umms_dbus_return_error(invocation, error);
		else
			g_dbus_method_invocation_return_value(invocation, NULL);
	} else if (strcmp(method, "Revoke") == 0) {
		if (!entitlement_revoke(entitlement, item, &error))
			umms_dbus_return_error(invocation, error);
		else
			g_dbus_method_invocation_return_value(invocation, NULL);
	} else if (strcmp(method, "Get") == 0) {
		struct entitlement_item *found = entitlement_find(entitlement, item);
		if (!found)
			umms_dbus_return_error(invocation, g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
				"no item is or covers %s", item));
		else
			g_dbus_method_invocation_return_value(invocation,
				g_variant_new("(@a{sv})", item_variant(entitlement, found)));
	} else {
		g_assert_not_reached();
	}
}

static const struct umms_dbus_iface_ops entitlement_ops = {
	.method_call = method_call,
};

struct entitlement_dbus *
entitlement_dbus_create(struct umms_entitlement *entitlement, GError **error)
{
	struct entitlement_dbus *dbus = g_new0(struct entitlement_dbus, 1);
	dbus->entitlement = entitlement;
	dbus->iface = umms_dbus_iface_export(umms_entitlement1_interface_info(), &entitlement_ops,
		dbus, entitlement->connection, "/org/umms", error);
	if (!dbus->iface) {
		entitlement_dbus_destroy(dbus);
		return NULL;
	}
	return dbus;
}

void
entitlement_dbus_destroy(struct entitlement_dbus *dbus)
{
	if (!dbus)
		return;
	umms_dbus_iface_unexport(&dbus->iface);
	g_free(dbus);
}

void
entitlement_dbus_changed(struct entitlement_dbus *dbus, const char *item)
{
	if (dbus)
		umms_dbus_iface_emit(dbus->iface, "Changed", g_variant_new("(s)", item));
}
