#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-guard.h"
#include "error.h"
#include "log.h"

struct umms_dbus_guard {
	GDBusConnection *connection;
	guint filter;
	GPtrArray *interfaces; /* GDBusInterfaceInfo * */
	unsigned max_string;   /* bytes; 0: no limit */
	unsigned max_array;    /* elements; 0: no limit */
};

static GDBusInterfaceInfo *
find_interface(struct umms_dbus_guard *guard, const char *name)
{
	for (guint i = 0; name && i < guard->interfaces->len; i++) {
		GDBusInterfaceInfo *info = guard->interfaces->pdata[i];
		if (strcmp(info->name, name) == 0)
			return info;
	}
	return NULL;
}

static char *
in_signature(const GDBusMethodInfo *method)
{
	GString *sig = g_string_new("");
	for (GDBusArgInfo **arg = method->in_args; arg && *arg; arg++)
		g_string_append(sig, (*arg)->signature);
	return g_string_free(sig, FALSE);
}

static GDBusMessage *
refuse(GDBusConnection *connection, GDBusMessage *message, char *text)
{
	umms_debug("refused %s.%s: %s", g_dbus_message_get_interface(message),
		g_dbus_message_get_member(message), text);
	GDBusMessage *reply = g_dbus_message_new_method_error_literal(message,
		umms_error_dbus_name(UMMS_ERROR_INVALID_ARGUMENT), text);
	g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
		NULL, NULL);
	g_object_unref(reply);
	g_free(text);
	g_object_unref(message);
	return NULL;
}

/* Properties.Set(interface, property, value) on one of ours. */
static GDBusMessage *
check_set(struct umms_dbus_guard *guard, GDBusConnection *connection, GDBusMessage *message)
{
	GVariant *body = g_dbus_message_get_body(message);
	if (!body || !g_variant_is_of_type(body, G_VARIANT_TYPE("(ssv)")))
		return message;
	const char *iface_name, *prop_name;
	g_autoptr(GVariant) value = NULL;
	g_variant_get(body, "(&s&sv)", &iface_name, &prop_name, &value);
	GDBusInterfaceInfo *info = find_interface(guard, iface_name);
	GDBusPropertyInfo *prop = info ? g_dbus_interface_info_lookup_property(info, prop_name) : NULL;
	if (!prop)
		return message;
	if (!(prop->flags & G_DBUS_PROPERTY_INFO_FLAGS_WRITABLE))
		return refuse(connection, message, g_strdup_printf("property %s is read-only",
			prop_name));
	if (g_variant_is_of_type(value, G_VARIANT_TYPE(prop->signature)))
		return message;
	return refuse(connection, message, g_strdup_printf(
		"property %s is of type %s, not %s", prop_name, prop->signature,
		g_variant_get_type_string(value)));
}

/*
 * A string longer than max_string or an array longer than max_array
 * anywhere in @value: a sentence saying which and which key, else NULL.
 * D-Bus bounds the nesting (64 levels), so the recursion is bounded too.
 */
static bool
is_text(const GVariantType *type)
{
	return g_variant_type_equal(type, G_VARIANT_TYPE_STRING) ||
		g_variant_type_equal(type, G_VARIANT_TYPE_OBJECT_PATH) ||
		g_variant_type_equal(type, G_VARIANT_TYPE_SIGNATURE);
}

static char *
oversized(const struct umms_dbus_guard *guard, GVariant *value)
{
	const GVariantType *type = g_variant_get_type(value);
	if (g_variant_type_is_basic(type)) {
		gsize length = 0;
		if (is_text(type))
			g_variant_get_string(value, &length);
		if (guard->max_string && length > guard->max_string)
			return g_strdup_printf("a string of %" G_GSIZE_FORMAT " bytes is longer than "
				"service.max-string-length (%u)", length, guard->max_string);
		return NULL;
	}
	gsize n = g_variant_n_children(value);
	if (g_variant_type_is_array(type)) {
		if (guard->max_array && n > guard->max_array)
			return g_strdup_printf("an array of %" G_GSIZE_FORMAT " elements is longer "
				"than service.max-array-length (%u)", n, guard->max_array);
		/* Arrays of numbers hold nothing more to look at. */
		const GVariantType *element = g_variant_type_element(type);
		if (g_variant_type_is_basic(element) && !is_text(element))
			return NULL;
	}
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GVariant) child = g_variant_get_child_value(value, i);
		char *why = oversized(guard, child);
		if (why)
			return why;
	}
	return NULL;
}

/*
 * Paths of objects on their way out (umms_dbus_guard_retiring), shared by
 * every guarded connection; the filter runs on GDBus's worker thread.
 */
static GMutex retiring_lock;
static GHashTable *retiring; /* path → count */

void
umms_dbus_guard_retiring(const char *path, bool retiring_now)
{
	g_mutex_lock(&retiring_lock);
	if (!retiring)
		retiring = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	unsigned count = GPOINTER_TO_UINT(g_hash_table_lookup(retiring, path));
	count = retiring_now ? count + 1 : count ? count - 1 : 0;
	if (count)
		g_hash_table_replace(retiring, g_strdup(path), GUINT_TO_POINTER(count));
	else
		g_hash_table_remove(retiring, path);
	g_mutex_unlock(&retiring_lock);
}

static bool
is_retiring(const char *path)
{
	g_mutex_lock(&retiring_lock);
	bool found = path && retiring && g_hash_table_contains(retiring, path);
	g_mutex_unlock(&retiring_lock);
	return found;
}

static GDBusMessage *
gone(GDBusConnection *connection, GDBusMessage *message)
{
	g_autofree char *text = g_strdup_printf("%s no longer exists",
		g_dbus_message_get_path(message));
	GDBusMessage *reply = g_dbus_message_new_method_error_literal(message,
		umms_error_dbus_name(UMMS_ERROR_NOT_FOUND), text);
	g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
		NULL, NULL);
	g_object_unref(reply);
	g_object_unref(message);
	return NULL;
}

/* Runs on GDBus's worker thread, for every incoming message. */
static GDBusMessage *
filter(GDBusConnection *connection, GDBusMessage *message, gboolean incoming, gpointer data)
{
	struct umms_dbus_guard *guard = data;
	if (!incoming || g_dbus_message_get_message_type(message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
		return message;
	if (is_retiring(g_dbus_message_get_path(message)))
		return gone(connection, message);
	GVariant *body = g_dbus_message_get_body(message);
	char *why = body ? oversized(guard, body) : NULL;
	if (why)
		return refuse(connection, message, why);
	const char *iface_name = g_dbus_message_get_interface(message);
	const char *member = g_dbus_message_get_member(message);
	if (!iface_name || !member)
		return message;

	if (strcmp(iface_name, "org.freedesktop.DBus.Properties") == 0 &&
			strcmp(member, "Set") == 0)
		return check_set(guard, connection, message);

	GDBusInterfaceInfo *info = find_interface(guard, iface_name);
	GDBusMethodInfo *method = info ? g_dbus_interface_info_lookup_method(info, member) : NULL;
	if (!method)
		return message;
	g_autofree char *expected = in_signature(method);
	const char *got = g_dbus_message_get_signature(message);
	if (g_strcmp0(expected, got ? got : "") == 0)
		return message;
	return refuse(connection, message, g_strdup_printf(
		"%s takes arguments (%s), not (%s)", member, expected, got ? got : ""));
}

static void
guard_free(gpointer data)
{
	struct umms_dbus_guard *guard = data;
	g_ptr_array_unref(guard->interfaces);
	g_free(guard);
}

struct umms_dbus_guard *
umms_dbus_guard_install(GDBusConnection *connection, GDBusInterfaceInfo *const *interfaces,
	const struct umms_config *config)
{
	struct umms_dbus_guard *guard = g_new0(struct umms_dbus_guard, 1);
	guard->connection = g_object_ref(connection);
	guard->max_string = config->service.max_string_length;
	guard->max_array = config->service.max_array_length;
	guard->interfaces = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_dbus_interface_info_unref);
	for (GDBusInterfaceInfo *const *info = interfaces; *info; info++)
		g_ptr_array_add(guard->interfaces, g_dbus_interface_info_ref(*info));
	guard->filter = g_dbus_connection_add_filter(connection, filter, guard, guard_free);
	return guard;
}

void
umms_dbus_guard_remove(struct umms_dbus_guard *guard)
{
	if (!guard)
		return;
	/*
	 * The filter may still be running on the worker thread when this
	 * returns (an MPRIS connection stays open a while): GDBus frees the
	 * guard (guard_free) once it no longer can.
	 */
	GDBusConnection *connection = guard->connection;
	g_dbus_connection_remove_filter(connection, guard->filter);
	g_object_unref(connection);
}

struct ghosts {
	char *what;
	GDBusInterfaceInfo **interfaces;
};

static void
ghosts_free(gpointer data)
{
	struct ghosts *ghosts = data;
	for (GDBusInterfaceInfo **info = ghosts->interfaces; *info; info++)
		g_dbus_interface_info_unref(*info);
	g_free(ghosts->interfaces);
	g_free(ghosts->what);
	g_free(ghosts);
}

static void
ghost_method_call(GDBusConnection *connection, const char *sender, const char *object_path,
	const char *interface_name, const char *method_name, GVariant *parameters,
	GDBusMethodInvocation *invocation, gpointer data)
{
	struct ghosts *ghosts = data;
	g_autofree char *message = g_strdup_printf("no such %s: %s", ghosts->what, object_path);
	g_dbus_method_invocation_return_dbus_error(invocation,
		umms_error_dbus_name(UMMS_ERROR_NOT_FOUND), message);
}

static GVariant *
ghost_get_property(GDBusConnection *connection, const char *sender, const char *object_path,
	const char *interface_name, const char *property_name, GError **error, gpointer data)
{
	struct ghosts *ghosts = data;
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no such %s: %s",
		ghosts->what, object_path);
	return NULL;
}

static gboolean
ghost_set_property(GDBusConnection *connection, const char *sender, const char *object_path,
	const char *interface_name, const char *property_name, GVariant *value, GError **error,
	gpointer data)
{
	ghost_get_property(connection, sender, object_path, interface_name, property_name,
		error, data);
	return FALSE;
}

static const GDBusInterfaceVTable ghost_vtable = {
	.method_call = ghost_method_call,
	.get_property = ghost_get_property,
	.set_property = ghost_set_property,
};

static char **
ghost_enumerate(GDBusConnection *connection, const char *sender, const char *object_path,
	gpointer data)
{
	return g_new0(char *, 1);
}

static GDBusInterfaceInfo **
ghost_introspect(GDBusConnection *connection, const char *sender, const char *object_path,
	const char *node, gpointer data)
{
	struct ghosts *ghosts = data;
	if (!node)
		return NULL;
	guint n = 0;
	while (ghosts->interfaces[n])
		n++;
	GDBusInterfaceInfo **infos = g_new0(GDBusInterfaceInfo *, n + 1);
	for (guint i = 0; i < n; i++)
		infos[i] = g_dbus_interface_info_ref(ghosts->interfaces[i]);
	return infos;
}

static const GDBusInterfaceVTable *
ghost_dispatch(GDBusConnection *connection, const char *sender, const char *object_path,
	const char *interface_name, const char *node, gpointer *out_user_data, gpointer data)
{
	*out_user_data = data;
	return &ghost_vtable;
}

static const GDBusSubtreeVTable ghost_subtree = {
	.enumerate = ghost_enumerate,
	.introspect = ghost_introspect,
	.dispatch = ghost_dispatch,
};

guint
umms_dbus_guard_ghosts(GDBusConnection *connection, const char *prefix, const char *what,
	GDBusInterfaceInfo *const *interfaces, GError **error)
{
	struct ghosts *ghosts = g_new0(struct ghosts, 1);
	ghosts->what = g_strdup(what);
	guint n = 0;
	while (interfaces[n])
		n++;
	ghosts->interfaces = g_new0(GDBusInterfaceInfo *, n + 1);
	for (guint i = 0; i < n; i++)
		ghosts->interfaces[i] = g_dbus_interface_info_ref(interfaces[i]);
	/*
	 * Objects that exist are registered on their own paths and win; only
	 * calls that find no object fall through to this subtree.
	 */
	return g_dbus_connection_register_subtree(connection, prefix, &ghost_subtree,
		G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES, ghosts, ghosts_free, error);
}
