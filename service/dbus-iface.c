#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "dbus-guard.h"
#include "dbus-iface.h"
#include "error.h"
#include "log.h"
#include "source.h"

struct _UmmsDbusIface {
	GDBusInterfaceSkeleton parent;
	GDBusInterfaceInfo *info;
	const struct umms_dbus_iface_ops *ops;
	void *data;
	GHashTable *sent;       /* property name → GVariant last sent */
	GMainContext *context;
	GSource *pending;       /* idle source computing the changes */
	/* Per property, in info's order: INTERVAL_ANNOTATION's µs (0: none), last sent. */
	gint64 *interval_us, *sent_us;
	GSource *later;         /* a change held back by its interval comes out then */
};

/* This project's annotation: the least time between two signals of a property, ms. */
#define INTERVAL_ANNOTATION "org.umms.ChangedSignalInterval"

G_DEFINE_FINAL_TYPE(UmmsDbusIface, umms_dbus_iface, G_TYPE_DBUS_INTERFACE_SKELETON)

static GError *
gone_error(UmmsDbusIface *self)
{
	const char *path = g_dbus_interface_skeleton_get_object_path(
		G_DBUS_INTERFACE_SKELETON(self));
	return g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "%s no longer exists",
		path ? path : "this object");
}

static void
handle_method_call(GDBusConnection *connection, const char *sender,
	const char *object_path, const char *interface_name, const char *method_name,
	GVariant *parameters, GDBusMethodInvocation *invocation, gpointer user_data)
{
	UmmsDbusIface *self = user_data;
	if (!self->ops) {
		umms_dbus_return_error(invocation, gone_error(self));
		return;
	}
	if (umms_log_enabled(UMMS_LOG_SCOPE, UMMS_LOG_DEBUG)) {
		g_autofree char *args = g_variant_print(parameters, FALSE);
		umms_debug("%s %s.%s%s from %s", object_path, interface_name,
			method_name, args, sender);
	}
	/* A method may end its own object (Recording1.Delete): it lives until here. */
	g_object_ref(self);
	self->ops->method_call(self->data, sender, method_name, parameters, invocation);
	g_object_unref(self);
}

static GVariant *
get_value(UmmsDbusIface *self, const char *name, GError **error)
{
	if (!self->ops) {
		g_propagate_error(error, gone_error(self));
		return NULL;
	}
	if (!self->ops->get_property) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED, "no property %s", name);
		return NULL;
	}
	GVariant *value = self->ops->get_property(self->data, name, error);
	/* A floating value is sunk, a full reference (a cached GVariant) taken over. */
	return value ? g_variant_take_ref(value) : NULL;
}

static GVariant *
handle_get_property(GDBusConnection *connection, const char *sender,
	const char *object_path, const char *interface_name, const char *property_name,
	GError **error, gpointer user_data)
{
	/* GDBus takes ownership of a floating or full reference. */
	return get_value(user_data, property_name, error);
}

static gboolean
handle_set_property(GDBusConnection *connection, const char *sender,
	const char *object_path, const char *interface_name, const char *property_name,
	GVariant *value, GError **error, gpointer user_data)
{
	UmmsDbusIface *self = user_data;
	if (!self->ops) {
		g_propagate_error(error, gone_error(self));
		return FALSE;
	}
	if (!self->ops->set_property) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"property %s is read-only", property_name);
		return FALSE;
	}
	if (umms_log_enabled(UMMS_LOG_SCOPE, UMMS_LOG_DEBUG)) {
		g_autofree char *text = g_variant_print(value, FALSE);
		umms_debug("%s set %s.%s = %s from %s", object_path, interface_name,
			property_name, text, sender);
	}
	if (!self->ops->set_property(self->data, sender, property_name, value, error))
		return FALSE;
	umms_dbus_iface_changed(self);
	return TRUE;
}

static const GDBusInterfaceVTable iface_vtable = {
	.method_call = handle_method_call,
	.get_property = handle_get_property,
	.set_property = handle_set_property,
};

static GDBusInterfaceInfo *
iface_get_info(GDBusInterfaceSkeleton *skeleton)
{
	return UMMS_DBUS_IFACE(skeleton)->info;
}

static GDBusInterfaceVTable *
iface_get_vtable(GDBusInterfaceSkeleton *skeleton)
{
	return (GDBusInterfaceVTable *)&iface_vtable;
}

static bool
emits_changes(const GDBusPropertyInfo *prop)
{
	const char *emits = g_dbus_annotation_info_lookup(prop->annotations,
		"org.freedesktop.DBus.Property.EmitsChangedSignal");
	return !emits || strcmp(emits, "false") != 0;
}

static GVariant *
iface_get_properties(GDBusInterfaceSkeleton *skeleton)
{
	UmmsDbusIface *self = UMMS_DBUS_IFACE(skeleton);
	GVariantBuilder builder;
	g_variant_builder_init(&builder, G_VARIANT_TYPE("a{sv}"));
	for (GDBusPropertyInfo **prop = self->info->properties; prop && *prop; prop++) {
		if (!((*prop)->flags & G_DBUS_PROPERTY_INFO_FLAGS_READABLE))
			continue;
		g_autoptr(GVariant) value = get_value(self, (*prop)->name, NULL);
		if (value)
			g_variant_builder_add(&builder, "{sv}", (*prop)->name, value);
	}
	return g_variant_builder_end(&builder);
}

static void
iface_flush(GDBusInterfaceSkeleton *skeleton)
{
	umms_dbus_iface_flush_changes(UMMS_DBUS_IFACE(skeleton));
}

static void
iface_finalize(GObject *object)
{
	UmmsDbusIface *self = UMMS_DBUS_IFACE(object);
	if (self->pending) {
		g_source_destroy(self->pending);
		g_source_unref(self->pending);
	}
	umms_source_clear(&self->later);
	g_free(self->interval_us);
	g_free(self->sent_us);
	g_hash_table_unref(self->sent);
	g_dbus_interface_info_unref(self->info);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(umms_dbus_iface_parent_class)->finalize(object);
}

static void
umms_dbus_iface_class_init(UmmsDbusIfaceClass *klass)
{
	GDBusInterfaceSkeletonClass *skeleton = G_DBUS_INTERFACE_SKELETON_CLASS(klass);
	skeleton->get_info = iface_get_info;
	skeleton->get_vtable = iface_get_vtable;
	skeleton->get_properties = iface_get_properties;
	skeleton->flush = iface_flush;
	G_OBJECT_CLASS(klass)->finalize = iface_finalize;
}

static void
umms_dbus_iface_init(UmmsDbusIface *self)
{
	self->sent = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
		(GDestroyNotify)g_variant_unref);
}

UmmsDbusIface *
umms_dbus_iface_new(GDBusInterfaceInfo *info, const struct umms_dbus_iface_ops *ops,
	void *data)
{
	UmmsDbusIface *self = g_object_new(umms_dbus_iface_get_type(), NULL);
	self->info = g_dbus_interface_info_ref(info);
	self->ops = ops;
	self->data = data;
	self->context = g_main_context_ref_thread_default();
	guint n = 0;
	while (info->properties && info->properties[n])
		n++;
	self->interval_us = g_new0(gint64, n + 1);
	self->sent_us = g_new0(gint64, n + 1);
	for (guint i = 0; i < n; i++) {
		const char *ms = g_dbus_annotation_info_lookup(info->properties[i]->annotations,
			INTERVAL_ANNOTATION);
		if (ms)
			self->interval_us[i] = (gint64)g_ascii_strtoull(ms, NULL, 10) * 1000;
	}
	/* Method calls run in the thread that owns the service's main context. */
	g_dbus_interface_skeleton_set_flags(G_DBUS_INTERFACE_SKELETON(self),
		G_DBUS_INTERFACE_SKELETON_FLAGS_NONE);

	for (GDBusPropertyInfo **prop = info->properties; prop && *prop; prop++) {
		if (!emits_changes(*prop) || !((*prop)->flags & G_DBUS_PROPERTY_INFO_FLAGS_READABLE))
			continue;
		GVariant *value = get_value(self, (*prop)->name, NULL);
		if (value)
			g_hash_table_insert(self->sent, (*prop)->name, value);
	}
	return self;
}

static gboolean
pending_cb(gpointer user_data)
{
	umms_dbus_iface_flush_changes(user_data);
	return G_SOURCE_REMOVE;
}

void
umms_dbus_iface_changed(UmmsDbusIface *self)
{
	if (self->pending || !self->ops)
		return;
	self->pending = g_idle_source_new();
	g_source_set_priority(self->pending, G_PRIORITY_DEFAULT);
	g_source_set_callback(self->pending, pending_cb, self, NULL);
	g_source_attach(self->pending, self->context);
}

static void
emit_on_all(UmmsDbusIface *self, const char *interface, const char *name, GVariant *params)
{
	GDBusInterfaceSkeleton *skeleton = G_DBUS_INTERFACE_SKELETON(self);
	const char *path = g_dbus_interface_skeleton_get_object_path(skeleton);
	if (params)
		g_variant_ref_sink(params);
	if (path) {
		GList *connections = g_dbus_interface_skeleton_get_connections(skeleton);
		for (GList *l = connections; l; l = l->next) {
			g_autoptr(GError) error = NULL;
			if (!g_dbus_connection_emit_signal(l->data, NULL, path, interface,
					name, params, &error))
				umms_warn("%s: cannot emit %s: %s", path, name, error->message);
		}
		g_list_free_full(connections, g_object_unref);
	}
	if (params)
		g_variant_unref(params);
}

static void flush(UmmsDbusIface *self, bool all);

static gboolean
later_cb(gpointer data)
{
	UmmsDbusIface *self = data;
	umms_source_forget(&self->later);
	flush(self, false);
	return G_SOURCE_REMOVE;
}

/*
 * Compares and sends. A property with an interval that was sent less than
 * its interval ago waits (a timer brings it out then), unless @all: a
 * signal about to follow must find every value it reports already sent.
 */
static void
flush(UmmsDbusIface *self, bool all)
{
	if (self->pending) {
		g_source_destroy(self->pending);
		g_source_unref(self->pending);
		self->pending = NULL;
	}
	if (!self->ops)
		return;

	GVariantBuilder changed;
	bool any = false;
	gint64 now = g_get_monotonic_time(), due = G_MAXINT64;
	g_variant_builder_init(&changed, G_VARIANT_TYPE("a{sv}"));
	for (guint i = 0; self->info->properties && self->info->properties[i]; i++) {
		const GDBusPropertyInfo *prop = self->info->properties[i];
		if (!emits_changes(prop) || !(prop->flags & G_DBUS_PROPERTY_INFO_FLAGS_READABLE))
			continue;
		GVariant *value = get_value(self, prop->name, NULL);
		if (!value)
			continue;
		GVariant *old = g_hash_table_lookup(self->sent, prop->name);
		if (old && g_variant_equal(old, value)) {
			g_variant_unref(value);
			continue;
		}
		if (!all && self->interval_us[i] && now - self->sent_us[i] < self->interval_us[i]) {
			due = MIN(due, self->sent_us[i] + self->interval_us[i]);
			g_variant_unref(value);
			continue;
		}
		self->sent_us[i] = now;
		g_variant_builder_add(&changed, "{sv}", prop->name, value);
		g_hash_table_insert(self->sent, prop->name, value);
		any = true;
	}
	if (due != G_MAXINT64 && !self->later) {
		self->later = umms_source_timeout((unsigned)((due - now + 999) / 1000), later_cb,
			self);
	}
	if (!any) {
		g_variant_builder_clear(&changed);
		return;
	}
	emit_on_all(self, "org.freedesktop.DBus.Properties", "PropertiesChanged",
		g_variant_new("(sa{sv}as)", self->info->name, &changed, NULL));
}

void
umms_dbus_iface_flush_changes(UmmsDbusIface *self)
{
	flush(self, false);
}

void
umms_dbus_iface_emit(UmmsDbusIface *self, const char *name, GVariant *params)
{
	/* Clients see the state a signal reports before the signal itself. */
	flush(self, true);
	emit_on_all(self, self->info->name, name, params);
}

struct retired {
	UmmsDbusIface *iface;
	GDBusObjectManagerServer *objects;
	char *path;
	bool unexported;
};

static void
retired_free(gpointer data)
{
	struct retired *r = data;
	if (r->unexported) {
		g_free(r);      /* its references went to the second source */
		return;
	}
	if (r->path)
		umms_dbus_guard_retiring(r->path, false);
	g_object_unref(r->iface);
	g_clear_object(&r->objects);
	g_free(r->path);
	g_free(r);
}

static gboolean
release_cb(gpointer data)
{
	return G_SOURCE_REMOVE;
}

static gboolean
retire_cb(gpointer data)
{
	struct retired *r = data;
	if (r->objects)
		g_dbus_object_manager_server_unexport(r->objects, r->path);
	else if (g_dbus_interface_skeleton_get_connection(G_DBUS_INTERFACE_SKELETON(r->iface)))
		g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(r->iface));
	/*
	 * GDBus's worker thread may have queued a call for the registration
	 * while we waited for its lock to unexport: that call runs with the
	 * skeleton as its data, which GDBus holds no reference to (a fuzzed
	 * Set racing DestroyPlayer: "invalid unclassed pointer in cast to
	 * GDBusInterfaceSkeleton"). It waits at the default priority; the last
	 * reference goes after it, at a lower one.
	 */
	r->unexported = true;
	struct retired *later = g_memdup2(r, sizeof(*r));
	later->unexported = false;
	GSource *idle = g_idle_source_new();
	g_source_set_priority(idle, G_PRIORITY_LOW);
	g_source_set_callback(idle, release_cb, later, retired_free);
	g_source_attach(idle, later->iface->context);
	g_source_unref(idle);
	return G_SOURCE_REMOVE;
}

void
umms_dbus_iface_retire(UmmsDbusIface *self, GDBusObjectManagerServer *objects,
	const char *path)
{
	umms_dbus_iface_detach(self);
	struct retired *r = g_new0(struct retired, 1);
	r->iface = self;
	r->objects = objects ? g_object_ref(objects) : NULL;
	r->path = g_strdup(path);
	/*
	 * New calls are answered NotFound before GDBus queues them (dbus-guard.h).
	 * Only for objects of the object manager, whose paths are ummsd's
	 * alone; MPRIS's one path is on each player's own connection.
	 */
	if (r->path)
		umms_dbus_guard_retiring(r->path, true);
	/*
	 * GDBus (2.74) may already have queued a Properties.Get, Set or GetAll
	 * for this object on the main context, to run with the registration's
	 * vtable and data, which unexporting frees: a hostile client's Set
	 * racing DestroyPlayer crashed ummsd. Those calls wait at the default
	 * priority, this at a lower one; meanwhile they, and any new call, find
	 * the interface detached and get NotFound.
	 */
	GSource *idle = g_idle_source_new();
	g_source_set_priority(idle, G_PRIORITY_LOW);
	g_source_set_callback(idle, retire_cb, r, retired_free);
	g_source_attach(idle, self->context);
	g_source_unref(idle);
}

void
umms_dbus_iface_detach(UmmsDbusIface *self)
{
	if (self->pending) {
		g_source_destroy(self->pending);
		g_source_unref(self->pending);
		self->pending = NULL;
	}
	umms_source_clear(&self->later);
	self->ops = NULL;
	self->data = NULL;
}

UmmsDbusIface *
umms_dbus_iface_export(GDBusInterfaceInfo *info, const struct umms_dbus_iface_ops *ops,
	void *data, GDBusConnection *connection, const char *path, GError **error)
{
	UmmsDbusIface *iface = umms_dbus_iface_new(info, ops, data);
	if (!g_dbus_interface_skeleton_export(G_DBUS_INTERFACE_SKELETON(iface), connection, path,
			error)) {
		umms_dbus_iface_detach(iface);
		g_object_unref(iface);
		return NULL;
	}
	return iface;
}

void
umms_dbus_iface_unexport(UmmsDbusIface **iface)
{
	if (!*iface)
		return;
	umms_dbus_iface_detach(*iface);
	if (g_dbus_interface_skeleton_get_connection(G_DBUS_INTERFACE_SKELETON(*iface)))
		g_dbus_interface_skeleton_unexport(G_DBUS_INTERFACE_SKELETON(*iface));
	g_clear_object(iface);
}

void
umms_dbus_return_error(GDBusMethodInvocation *invocation, GError *error)
{
	umms_debug("%s.%s → %s: %s", g_dbus_method_invocation_get_interface_name(invocation),
		g_dbus_method_invocation_get_method_name(invocation),
		umms_error_dbus_name_of(error), error->message);
	if (error->domain != UMMS_ERROR) {
		/* Foreign domains (GStreamer, GIO) all read as Failed. */
		g_dbus_method_invocation_return_dbus_error(invocation,
			umms_error_dbus_name_of(error), error->message);
		g_error_free(error);
		return;
	}
	g_dbus_method_invocation_take_error(invocation, error);
}
