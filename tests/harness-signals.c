/*
 * The harness's recorder of ummsd's signals on one object path
 * (umms_test_signals_*, harness.h).
 */
#include <string.h>

#include "harness.h"

struct recorded {
	char *member;
	GVariant *params;
	gint64 when;
};

struct umms_test_signals {
	GDBusConnection *bus;
	guint subscription;
	GQueue queue;          /* struct recorded * */
	gint64 start;
	double last_ms;
};

static void
recorded_free(struct recorded *recorded)
{
	g_free(recorded->member);
	g_variant_unref(recorded->params);
	g_free(recorded);
}

static void
signal_cb(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *member, GVariant *params, gpointer data)
{
	struct umms_test_signals *signals = data;
	struct recorded *recorded = g_new0(struct recorded, 1);
	recorded->member = g_strdup(member);
	recorded->params = g_variant_ref(params);
	recorded->when = g_get_monotonic_time();
	g_queue_push_tail(&signals->queue, recorded);
}

struct umms_test_signals *
umms_test_signals_watch(GDBusConnection *bus, const char *path)
{
	struct umms_test_signals *signals = g_new0(struct umms_test_signals, 1);
	signals->bus = g_object_ref(bus);
	signals->start = g_get_monotonic_time();
	signals->subscription = g_dbus_connection_signal_subscribe(bus, NULL, NULL, NULL, path,
		NULL, G_DBUS_SIGNAL_FLAGS_NONE, signal_cb, signals, NULL);
	/* Round trip: the match rule is in place before the test goes on. */
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", NULL, NULL,
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
	return signals;
}

void
umms_test_signals_clear(struct umms_test_signals *signals)
{
	umms_test_sleep(0);
	g_queue_clear_full(&signals->queue, (GDestroyNotify)recorded_free);
}

void
umms_test_signals_free(struct umms_test_signals *signals)
{
	g_dbus_connection_signal_unsubscribe(signals->bus, signals->subscription);
	g_queue_clear_full(&signals->queue, (GDestroyNotify)recorded_free);
	g_object_unref(signals->bus);
	g_free(signals);
}

GVariant *
umms_test_signals_wait(struct umms_test_signals *signals, const char *member, unsigned timeout_ms)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		struct recorded *recorded;
		while ((recorded = g_queue_pop_head(&signals->queue))) {
			if (strcmp(recorded->member, member) == 0) {
				GVariant *params = g_variant_ref(recorded->params);
				signals->last_ms = (recorded->when - signals->start) / 1000.0;
				recorded_free(recorded);
				return params;
			}
			recorded_free(recorded);
		}
		if (g_get_monotonic_time() > end)
			g_error("no %s signal within %u ms", member, timeout_ms);
		g_main_context_iteration(NULL, FALSE);
		g_usleep(2000);
	}
}

/* @property's value in @recorded, a PropertiesChanged carrying it; NULL otherwise. */
static GVariant *
changed_value(const struct recorded *recorded, const char *property)
{
	if (strcmp(recorded->member, "PropertiesChanged") != 0)
		return NULL;
	g_autoptr(GVariant) changed = g_variant_get_child_value(recorded->params, 1);
	return g_variant_lookup_value(changed, property, NULL);
}

GVariant *
umms_test_signals_find_change(struct umms_test_signals *signals, const char *property)
{
	umms_test_sleep(0);
	for (GList *l = signals->queue.head; l; l = l->next) {
		GVariant *value = changed_value(l->data, property);
		if (value)
			return value;
	}
	return NULL;
}

unsigned
umms_test_signals_count_changes(struct umms_test_signals *signals, const char *property,
	GVariant **last)
{
	umms_test_sleep(0);
	unsigned n = 0;
	for (GList *l = signals->queue.head; l; l = l->next) {
		GVariant *value = changed_value(l->data, property);
		if (!value)
			continue;
		n++;
		if (last) {
			g_clear_pointer(last, g_variant_unref);
			*last = value;
		} else {
			g_variant_unref(value);
		}
	}
	return n;
}

double
umms_test_signals_last_ms(struct umms_test_signals *signals)
{
	return signals->last_ms;
}
