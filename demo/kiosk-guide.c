/*
 * The kiosk's programme guide (kiosk-guide.h), to read top to bottom:
 * find the channel, ask what it shows now and next, ask again whenever
 * ummsd says that changed, and draw it (kiosk-text.c: pango on cairo).
 *
 * The guide is ummsd's (org.umms.Guide1 on /org/umms): it imports M3U
 * playlists and XMLTV files (ummsctl, or Guide1.ImportM3U/ImportXMLTV),
 * and sends ProgrammeChanged when a channel's now or next changes: a
 * programme ended, or an import changed it.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "kiosk-guide.h"
#include "kiosk-text.h"

#define SERVICE "org.umms.Service1"
#define ROOT "/org/umms"
#define GUIDE1 "org.umms.Guide1"
#define TITLE_MAX 200   /* characters: a title is the broadcaster's, any length */

/* A programme as the kiosk shows it; title NULL: none. */
struct programme {
	char *title;
	int64_t start, stop;     /* UTC, µs since 1970 */
};

struct kiosk_guide {
	GDBusConnection *bus;
	int64_t id;              /* the channel's, in the guide */
	char *name, *uri;
	guint subscription;      /* ProgrammeChanged */
	GCancellable *asking;    /* the latest GetNowNext (cancelled when a newer one goes) */
	unsigned replies_due;    /* GetNowNext calls not answered yet, cancelled ones too */
	bool known;              /* a first answer came */
	struct programme now, next;
	kiosk_guide_changed_fn changed;
	void *data;
};

/* ---- finding the channel ----------------------------------------------------------- */

/*
 * @which is a channel's number (tvg-chno, as the user sees it on the
 * remote) or, if no channel has that number, its id in the guide.
 */
static bool
find_channel(struct kiosk_guide *guide, const char *which, GError **error)
{
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(guide->bus, SERVICE, ROOT,
		GUIDE1, "ListChannels", NULL, G_VARIANT_TYPE("(aa{sv})"), G_DBUS_CALL_FLAGS_NONE,
		10000, NULL, error);
	if (!reply)
		return false;
	g_autoptr(GVariant) list = g_variant_get_child_value(reply, 0);
	int64_t by_id = 0;
	bool numeric = g_ascii_string_to_signed(which, 10, 1, INT64_MAX, &by_id, NULL);
	g_autoptr(GVariant) found = NULL;
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		g_autoptr(GVariant) channel = g_variant_get_child_value(list, i);
		const char *number = NULL;
		int64_t id = 0;
		g_variant_lookup(channel, "id", "x", &id);
		if (g_variant_lookup(channel, "number", "&s", &number) &&
				strcmp(number, which) == 0) {
			g_clear_pointer(&found, g_variant_unref);
			found = g_variant_ref(channel);
			break;                   /* a number wins over an id */
		}
		if (numeric && id == by_id && !found)
			found = g_variant_ref(channel);
	}
	if (!found) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			"no channel \"%s\" in the guide (neither its number nor its id)", which);
		return false;
	}
	g_variant_lookup(found, "id", "x", &guide->id);
	if (!g_variant_lookup(found, "name", "s", &guide->name))
		guide->name = g_strdup(which);
	if (!g_variant_lookup(found, "uri", "s", &guide->uri))
		guide->uri = g_strdup("");
	return true;
}

/* ---- now and next ------------------------------------------------------------------ */

/* A programme of GetNowNext's answer; an empty dictionary is none. */
static void
programme_read(struct programme *p, GVariant *dict)
{
	g_clear_pointer(&p->title, g_free);
	const char *title;
	if (!g_variant_lookup(dict, "title", "&s", &title))
		return;
	/* One line each, of a length that fits on a screen (and in a log). */
	p->title = g_utf8_substring(title, 0, MIN(g_utf8_strlen(title, -1), TITLE_MAX));
	g_strdelimit(p->title, "\r\n\t", ' ');
	p->start = p->stop = 0;
	g_variant_lookup(dict, "start", "x", &p->start);
	g_variant_lookup(dict, "stop", "x", &p->stop);
}

static void
got_now_next(GObject *bus, GAsyncResult *result, gpointer data)
{
	struct kiosk_guide *guide = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	guide->replies_due--;
	if (!reply) {
		/* Cancelled: a newer question was asked, or the kiosk is closing. */
		if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
			g_dbus_error_strip_remote_error(error);
			fprintf(stderr, "umms-kiosk: GetNowNext: %s\n", error->message);
		}
		g_error_free(error);
		return;
	}
	g_autoptr(GVariant) now = g_variant_get_child_value(reply, 0);
	g_autoptr(GVariant) next = g_variant_get_child_value(reply, 1);
	programme_read(&guide->now, now);
	programme_read(&guide->next, next);
	guide->known = true;
	g_variant_unref(reply);
	const char *now_title = guide->now.title ? guide->now.title : "";
	const char *next_title = guide->next.title ? guide->next.title : "";
	guide->changed(guide->data, g_strdup_printf("now-next %" PRId64 " %s | %s", guide->id,
		now_title, next_title));
}

/* Asks GetNowNext (time 0: now); a question still in flight is dropped for it. */
static void
ask(struct kiosk_guide *guide)
{
	if (guide->asking)
		g_cancellable_cancel(guide->asking);
	g_clear_object(&guide->asking);
	guide->asking = g_cancellable_new();
	guide->replies_due++;
	g_dbus_connection_call(guide->bus, SERVICE, ROOT, GUIDE1, "GetNowNext",
		g_variant_new("(xx)", guide->id, (int64_t)0), G_VARIANT_TYPE("(a{sv}a{sv})"),
		G_DBUS_CALL_FLAGS_NONE, 10000, guide->asking, got_now_next, guide);
}

/* ProgrammeChanged(channel, now, next): ours changed, ask for its titles and times. */
static void
programme_changed(GDBusConnection *bus, const char *sender, const char *path,
	const char *interface, const char *signal, GVariant *params, gpointer data)
{
	struct kiosk_guide *guide = data;
	int64_t channel = 0, now = 0, next = 0;
	if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(xxx)")))
		return;
	g_variant_get(params, "(xxx)", &channel, &now, &next);
	if (channel == guide->id)
		ask(guide);
}

struct kiosk_guide *
kiosk_guide_create(GDBusConnection *bus, const char *which, kiosk_guide_changed_fn changed,
	void *data, GError **error)
{
	struct kiosk_guide *guide = g_new0(struct kiosk_guide, 1);
	guide->bus = g_object_ref(bus);
	guide->changed = changed;
	guide->data = data;
	if (!find_channel(guide, which, error)) {
		kiosk_guide_destroy(guide);
		return NULL;
	}
	/* Listening first, then asking: no change falls between the two. */
	guide->subscription = g_dbus_connection_signal_subscribe(bus, SERVICE, GUIDE1,
		"ProgrammeChanged", ROOT, NULL, G_DBUS_SIGNAL_FLAGS_NONE, programme_changed,
		guide, NULL);
	ask(guide);
	return guide;
}

void
kiosk_guide_destroy(struct kiosk_guide *guide)
{
	if (!guide)
		return;
	if (guide->subscription)
		g_dbus_connection_signal_unsubscribe(guide->bus, guide->subscription);
	/* A call in flight answers (cancelled) before its guide goes. */
	if (guide->asking)
		g_cancellable_cancel(guide->asking);
	while (guide->replies_due)
		g_main_context_iteration(NULL, TRUE);
	g_clear_object(&guide->asking);
	g_free(guide->now.title);
	g_free(guide->next.title);
	g_free(guide->name);
	g_free(guide->uri);
	g_object_unref(guide->bus);
	g_free(guide);
}

const char *
kiosk_guide_uri(const struct kiosk_guide *guide)
{
	return guide->uri;
}

const char *
kiosk_guide_name(const struct kiosk_guide *guide)
{
	return guide->name;
}

/* ---- drawing ----------------------------------------------------------------------- */

/* "Now  20:00–21:00  Title" in local time; "Now  –" for none. */
static void
append_line(GString *text, const char *label, const struct programme *p)
{
	g_string_append(text, label);
	if (!p->title) {
		g_string_append(text, "  –");
		return;
	}
	g_autoptr(GDateTime) start = g_date_time_new_from_unix_local(p->start / G_USEC_PER_SEC);
	g_autoptr(GDateTime) stop = g_date_time_new_from_unix_local(p->stop / G_USEC_PER_SEC);
	g_autofree char *from = start ? g_date_time_format(start, "%H:%M") : g_strdup("?");
	g_autofree char *to = stop ? g_date_time_format(stop, "%H:%M") : g_strdup("?");
	g_string_append_printf(text, "  %s–%s  %s", from, to, p->title);
}

void
kiosk_guide_draw(struct kiosk_guide *guide, uint32_t *pixels, int stride, int x, int y,
	int width, int height)
{
	if (!guide->known || width <= 0 || height <= 0)
		return;
	g_autoptr(GString) text = g_string_new(NULL);
	append_line(text, "Now", &guide->now);
	g_string_append_c(text, '\n');
	append_line(text, "Next", &guide->next);

	/* Two lines filling 3/4 of the height. */
	kiosk_text_draw(pixels, stride, x, y, width, height, text->str, height * 0.3, false);
}
