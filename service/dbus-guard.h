/*
 * Named errors for malformed calls and vanished objects.
 *
 * GDBus answers a call whose arguments have the wrong types with the generic
 * org.freedesktop.DBus.Error.InvalidArgs, and a call to an object that no
 * longer exists with UnknownObject. ummsd promises org.umms.Error.* names, so:
 *
 * - umms_dbus_guard_install() adds a connection filter that answers calls
 *   (and Properties.Set) to the given interfaces whose argument types do
 *   not match the introspection data with org.umms.Error.InvalidArgument,
 *   naming the expected and received signatures;
 * - umms_dbus_guard_ghosts() registers a subtree under a path prefix that
 *   answers calls to objects that do not (or no longer) exist with
 *   org.umms.Error.NotFound "no such player: /org/umms/player/7";
 * - the same filter refuses arguments beyond the configured sizes.
 */
#ifndef UMMS_SERVICE_DBUS_GUARD_H
#define UMMS_SERVICE_DBUS_GUARD_H

#include <stdbool.h>
#include <gio/gio.h>

#include "config.h"

struct umms_dbus_guard;

/*
 * @interfaces: NULL-terminated (may be empty); the guard keeps references.
 * Every incoming call, to any interface, whose arguments hold a string
 * longer than @config's service.max-string-length or an array longer than
 * service.max-array-length is answered org.umms.Error.InvalidArgument
 * naming the key, before any handler sees it.
 */
struct umms_dbus_guard *umms_dbus_guard_install(GDBusConnection *connection,
	GDBusInterfaceInfo *const *interfaces, const struct umms_config *config);
void umms_dbus_guard_remove(struct umms_dbus_guard *guard);

/*
 * A call to @path from now on (@retiring_now) is answered
 * org.umms.Error.NotFound "PATH no longer exists" by every guarded
 * connection's filter, before GDBus dispatches it: a call GDBus queued
 * for an object it then unexports gets the generic UnknownMethod ("No such
 * interface") instead. Called again with false once the object is gone
 * (counted: the same path may retire twice).
 */
void umms_dbus_guard_retiring(const char *path, bool retiring_now);

/*
 * @prefix e.g. "/org/umms/player"; @what e.g. "player" for the message;
 * @interfaces what the missing objects would have implemented.
 * Returns the registration id (0 on failure, with @error set).
 */
guint umms_dbus_guard_ghosts(GDBusConnection *connection, const char *prefix,
	const char *what, GDBusInterfaceInfo *const *interfaces, GError **error);

#endif
