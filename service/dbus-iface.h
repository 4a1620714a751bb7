/*
 * A D-Bus interface served from plain C callbacks.
 *
 * UmmsDbusIface is a GDBusInterfaceSkeleton whose introspection data comes
 * from gdbus-codegen (the *_interface_info() functions) and whose behaviour
 * comes from a struct umms_dbus_iface_ops, so it can be exported on a
 * connection or through a GDBusObjectManagerServer like any skeleton, while
 * methods may reply later (asynchronously) and property writes may fail with
 * a named error, neither of which the generated skeletons allow.
 *
 * Change signals are derived, not hand-maintained: umms_dbus_iface_changed()
 * schedules a comparison of every property (but those annotated
 * org.freedesktop.DBus.Property.EmitsChangedSignal=false) with the values
 * last sent, and emits one PropertiesChanged holding the differences. A
 * property annotated org.umms.ChangedSignalInterval=MS (counters that move
 * with every frame: Player1.Stats) is sent at most once in MS: a change
 * within that time waits for a timer, or for the next signal of the
 * interface (umms_dbus_iface_emit), which carries every pending change.
 */
#ifndef UMMS_SERVICE_DBUS_IFACE_H
#define UMMS_SERVICE_DBUS_IFACE_H

#include <stdbool.h>
#include <gio/gio.h>

struct umms_dbus_iface_ops {
	/*
	 * Required. Called for every method of the interface, with parameters
	 * already checked against the signature. The callee owns @invocation
	 * and must reply to it exactly once, now or later.
	 */
	void (*method_call)(void *data, const char *sender, const char *method,
		GVariant *params, GDBusMethodInvocation *invocation);
	/*
	 * Required if the interface has properties (NULL: it has none).
	 * Returns the property's value (floating or owned; it is sunk), or
	 * NULL with @error set.
	 */
	GVariant *(*get_property)(void *data, const char *name, GError **error);
	/*
	 * Required if the interface has writable properties. @value has the
	 * declared type. Returns false with @error set to refuse the value.
	 */
	bool (*set_property)(void *data, const char *sender, const char *name,
		GVariant *value, GError **error);
};

G_DECLARE_FINAL_TYPE(UmmsDbusIface, umms_dbus_iface, UMMS, DBUS_IFACE, GDBusInterfaceSkeleton)

/*
 * Creates the interface. The current property values are taken as already
 * known to clients, so @data must be ready to answer get_property. Change
 * signals are scheduled on the thread-default main context of the caller.
 */
UmmsDbusIface *umms_dbus_iface_new(GDBusInterfaceInfo *info,
	const struct umms_dbus_iface_ops *ops, void *data);

/* Schedules a PropertiesChanged for whatever differs from the values last sent. */
void umms_dbus_iface_changed(UmmsDbusIface *iface);

/* Sends the pending PropertiesChanged now (before a reply or signal that depends on it). */
void umms_dbus_iface_flush_changes(UmmsDbusIface *iface);

/* Emits signal @name of this interface on every connection it is exported on. */
void umms_dbus_iface_emit(UmmsDbusIface *iface, const char *name, GVariant *params);

/*
 * Cuts the interface from @data before @data dies: calls already queued get
 * org.umms.Error.NotFound and no more change signals are sent. The owner
 * still unexports it (or removes it from its object manager) and drops its
 * reference.
 */
void umms_dbus_iface_detach(UmmsDbusIface *iface);

/*
 * umms_dbus_iface_new exported at @path of @connection; NULL with @error
 * (nothing left behind) if that fails.
 */
UmmsDbusIface *umms_dbus_iface_export(GDBusInterfaceInfo *info,
	const struct umms_dbus_iface_ops *ops, void *data, GDBusConnection *connection,
	const char *path, GError **error);

/*
 * The interface at *@iface (NULL: nothing) detached, unexported if it is
 * and its reference dropped; *@iface becomes NULL. For interfaces that live
 * as long as ummsd's own objects (the manager's, the guide's).
 */
void umms_dbus_iface_unexport(UmmsDbusIface **iface);

/*
 * Detaches @iface now and, from an idle of low priority on its main
 * context, unexports it (from @objects at @path if @objects, else from its
 * connection) and drops the caller's reference, which this takes over:
 * calls GDBus queued before then still find a registration to run on.
 * For objects a client can make go while ummsd runs.
 */
void umms_dbus_iface_retire(UmmsDbusIface *iface, GDBusObjectManagerServer *objects,
	const char *path);

/* Helpers for method handlers. */
void umms_dbus_return_error(GDBusMethodInvocation *invocation, GError *error);

#endif
