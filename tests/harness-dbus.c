/*
 * The harness's D-Bus calls (harness.h): methods called and checked,
 * properties read and waited for, as a client of ummsd would.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

GVariant *
umms_test_call(GDBusConnection *bus, const char *path, const char *iface, const char *method,
	GVariant *params, GError **error)
{
	/*
	 * Longer than any answer-timeout a test gives ummsd (120 s, for
	 * emulated CPUs): ummsd answers, with an error if need be, first.
	 */
	return g_dbus_connection_call_sync(bus, UMMS_NAME, path, iface, method, params, NULL,
		G_DBUS_CALL_FLAGS_NONE, 130000, NULL, error);
}

GVariant *
umms_test_call_ok(GDBusConnection *bus, const char *path, const char *iface,
	const char *method, GVariant *params)
{
	GError *error = NULL;
	GVariant *reply = umms_test_call(bus, path, iface, method, params, &error);
	if (!reply)
		g_error("%s %s.%s failed: %s", path, iface, method, error->message);
	return reply;
}

void
umms_test_player_do(GDBusConnection *bus, const char *path, const char *method, GVariant *params)
{
	g_variant_unref(umms_test_call_ok(bus, path, UMMS_PLAYER, method, params));
}

char *
umms_test_call_error(GDBusConnection *bus, const char *path, const char *iface,
	const char *method, GVariant *params, const char *name)
{
	GError *error = NULL;
	GVariant *reply = umms_test_call(bus, path, iface, method, params, &error);
	if (reply)
		g_error("%s %s.%s succeeded, expected %s", path, iface, method, name);
	g_autofree char *remote = g_dbus_error_get_remote_error(error);
	if (g_strcmp0(remote, name) != 0)
		g_error("%s.%s: expected %s, got %s: %s", iface, method, name, remote,
			error->message);
	g_dbus_error_strip_remote_error(error);
	char *message = g_strdup(error->message);
	g_error_free(error);
	g_assert_cmpstr(message, !=, "");
	return message;
}

char *
umms_test_create_player(GDBusConnection *bus, const char *options)
{
	GError *error = NULL;
	/* g_variant_parse gives a full reference: the tuple takes its own. */
	g_autoptr(GVariant) opts = g_variant_parse(G_VARIANT_TYPE("a{sv}"), options ? options : "@a{sv} {}",
		NULL, NULL, &error);
	g_assert_no_error(error);
	g_autoptr(GVariant) reply = umms_test_call_ok(bus, UMMS_ROOT, UMMS_MANAGER,
		"CreatePlayer", g_variant_new_tuple(&opts, 1));
	char *path = NULL;
	g_variant_get(reply, "(o)", &path);
	return path;
}

char *
umms_test_open(GDBusConnection *bus, const char *clip)
{
	char *path = umms_test_create_player(bus, NULL);
	g_autofree char *uri = umms_test_clip_uri(clip);
	umms_test_player_do(bus, path, "SetUri", g_variant_new("(s)", uri));
	return path;
}

GVariant *
umms_test_get(GDBusConnection *bus, const char *path, const char *iface, const char *property)
{
	g_autoptr(GVariant) reply = umms_test_call_ok(bus, path, "org.freedesktop.DBus.Properties",
		"Get", g_variant_new("(ss)", iface, property));
	GVariant *value = NULL;
	g_variant_get(reply, "(v)", &value);
	return value;
}

int64_t
umms_test_get_int64(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) value = umms_test_get(bus, path, UMMS_PLAYER, property);
	return g_variant_get_int64(value);
}

int32_t
umms_test_get_int32(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) value = umms_test_get(bus, path, UMMS_PLAYER, property);
	return g_variant_get_int32(value);
}

double
umms_test_get_double(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) value = umms_test_get(bus, path, UMMS_PLAYER, property);
	return g_variant_get_double(value);
}

bool
umms_test_get_bool(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) value = umms_test_get(bus, path, UMMS_PLAYER, property);
	return g_variant_get_boolean(value);
}

char *
umms_test_get_string(GDBusConnection *bus, const char *path, const char *property)
{
	g_autoptr(GVariant) value = umms_test_get(bus, path, UMMS_PLAYER, property);
	return g_variant_dup_string(value, NULL);
}

guint64
umms_test_stat(GDBusConnection *bus, const char *path, const char *key)
{
	g_autoptr(GVariant) stats = umms_test_get(bus, path, UMMS_PLAYER, "Stats");
	guint64 value = 0;
	if (!g_variant_lookup(stats, key, "t", &value))
		g_error("%s has no Stats %s", path, key);
	return value;
}

bool
umms_test_set(GDBusConnection *bus, const char *path, const char *property, GVariant *value,
	GError **error)
{
	g_autoptr(GVariant) reply = umms_test_call(bus, path, "org.freedesktop.DBus.Properties",
		"Set", g_variant_new("(ssv)", UMMS_PLAYER, property, value), error);
	return reply != NULL;
}

void
umms_test_sleep(unsigned ms)
{
	/*
	 * Bounded by the number of naps too: in the emulated test VM the
	 * monotonic clock was seen to stall for a program (a test sat in one
	 * 50 ms sleep until the VM's deadline, its child long gone), so a
	 * sleep must not count on that clock alone to end.
	 */
	static bool said;
	gint64 begun = g_get_monotonic_time(), end = begun + (gint64)ms * 1000;
	unsigned naps = 0;
	while (g_get_monotonic_time() < end && naps++ <= ms / 5) {
		while (g_main_context_iteration(NULL, FALSE))
			;
		g_usleep(MIN(5000, (gulong)MAX(0, end - g_get_monotonic_time())));
	}
	if (naps > ms / 5 + 1 && !said) {
		said = true;
		g_printerr("umms_test_sleep: the monotonic clock went on %.1f ms in %u naps of 5 ms\n",
			(g_get_monotonic_time() - begun) / 1e3, naps - 1);
	}
	while (g_main_context_iteration(NULL, FALSE))
		;
}

void
umms_test_wait_property(GDBusConnection *bus, const char *path, const char *property,
	GVariant *expected, unsigned timeout_ms)
{
	g_variant_ref_sink(expected);
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	GVariant *value = NULL;
	for (;;) {
		g_clear_pointer(&value, g_variant_unref);
		value = umms_test_get(bus, path, UMMS_PLAYER, property);
		if (g_variant_equal(value, expected))
			break;
		if (g_get_monotonic_time() > end) {
			g_autofree char *got = g_variant_print(value, TRUE);
			g_autofree char *want = g_variant_print(expected, TRUE);
			g_error("%s %s stayed %s, expected %s", path, property, got, want);
		}
		umms_test_sleep(10);
	}
	g_variant_unref(value);
	g_variant_unref(expected);
}

void
umms_test_wait_position(GDBusConnection *bus, const char *path, int64_t position, bool before,
	unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		int64_t now = umms_test_get_int64(bus, path, "Position");
		if (before ? now <= position : now >= position)
			return;
		if (g_get_monotonic_time() > end)
			g_error("%s Position %" G_GINT64_FORMAT " never got %s %" G_GINT64_FORMAT,
				path, now, before ? "down to" : "up to", position);
		umms_test_sleep(10);
	}
}
