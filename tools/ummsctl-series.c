/*
 * ummsctl's commands about recordings of the programme guide
 * (org.umms.Recorder1): record-programme and series rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ummsctl.h"

#define ROOT_PATH "/org/umms"
#define RECORDER_IFACE "org.umms.Recorder1"

/* A Recorder1 call; its reply (of @type), or NULL with the error reported in *@status. */
static GVariant *
call(struct ctl *ctl, const char *method, GVariant *params, const char *type, int *status)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_sync(ctl->bus, SERVICE_NAME, ROOT_PATH,
		RECORDER_IFACE, method, params, G_VARIANT_TYPE(type), G_DBUS_CALL_FLAGS_NONE,
		CALL_TIMEOUT_MS, NULL, &error);
	if (!reply)
		*status = umms_ctl_report(error);
	return reply;
}

static bool
parse_int64(const char *text, gint64 min, gint64 max, gint64 *value)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max)
		return false;
	*value = v;
	return true;
}

/* "SECONDS" (before and after) or "BEFORE,AFTER". */
static bool
parse_padding(const char *text, gint64 *before, gint64 *after)
{
	g_auto(GStrv) parts = g_strsplit(text, ",", 3);
	guint n = g_strv_length(parts);
	if (n < 1 || n > 2 || !parse_int64(parts[0], 0, 4 * 3600, before))
		return false;
	*after = *before;
	return n == 1 || parse_int64(parts[1], 0, 4 * 3600, after);
}

static int
cmd_record_programme(struct ctl *ctl, char **args, int n_args)
{
	gint64 id, before = 0, after = 0;
	if (!parse_int64(args[0], 1, G_MAXINT64, &id))
		return umms_ctl_usage_error("record-programme: \"%s\" is no programme id (as "
			"`ummsctl guide` lists them)", args[0]);
	if (n_args > 1 && !parse_padding(args[1], &before, &after))
		return umms_ctl_usage_error("record-programme: padding \"%s\": SECONDS or "
			"BEFORE,AFTER (4 h at most)", args[1]);
	int status = 0;
	g_autoptr(GVariant) reply = call(ctl, "ScheduleProgramme", g_variant_new("(xuu@a{sv})",
		id, (guint32)before, (guint32)after, g_variant_new_array(G_VARIANT_TYPE("{sv}"), NULL,
		0)), "(o)", &status);
	if (!reply)
		return status;
	const char *path;
	g_variant_get(reply, "(&o)", &path);
	printf("%s\n", path);
	return 0;
}

/* `series add KEY=VALUE…`: title=, series-id=, channel=, new-only=, padding=. */
static int
series_add(struct ctl *ctl, char **args, int n_args)
{
	GVariantDict rule;
	g_variant_dict_init(&rule, NULL);
	for (int i = 0; i < n_args; i++) {
		const char *eq = strchr(args[i], '=');
		g_autofree char *key = eq ? g_strndup(args[i], (gsize)(eq - args[i])) : NULL;
		const char *value = eq ? eq + 1 : NULL;
		gint64 n, before, after;
		bool b;
		if (key && (strcmp(key, "title") == 0 || strcmp(key, "series-id") == 0)) {
			g_variant_dict_insert(&rule, key, "s", value);
		} else if (key && strcmp(key, "channel") == 0 && parse_int64(value, 1, G_MAXINT64,
				&n)) {
			g_variant_dict_insert(&rule, "channel", "x", n);
		} else if (key && strcmp(key, "new-only") == 0 && umms_ctl_parse_bool(value, &b)) {
			g_variant_dict_insert(&rule, "new-episodes-only", "b", b);
		} else if (key && strcmp(key, "padding") == 0 && parse_padding(value, &before,
				&after)) {
			g_variant_dict_insert(&rule, "padding-before", "u", (guint32)before);
			g_variant_dict_insert(&rule, "padding-after", "u", (guint32)after);
		} else {
			g_variant_dict_clear(&rule);
			return umms_ctl_usage_error("series add: \"%s\": title=PATTERN, series-id=ID, "
				"channel=N, new-only=yes|no or padding=SECONDS[,AFTER]", args[i]);
		}
	}
	int status = 0;
	g_autoptr(GVariant) reply = call(ctl, "AddSeriesRule", g_variant_new("(@a{sv})",
		g_variant_dict_end(&rule)), "(x)", &status);
	if (!reply)
		return status;
	gint64 id;
	g_variant_get(reply, "(x)", &id);
	printf("%" G_GINT64_FORMAT "\n", id);
	return 0;
}

static int
series_list(struct ctl *ctl)
{
	int status = 0;
	g_autoptr(GVariant) reply = call(ctl, "ListSeriesRules", NULL, "(aa{sv})", &status);
	if (!reply)
		return status;
	g_autoptr(GVariant) rules = g_variant_get_child_value(reply, 0);
	if (g_variant_n_children(rules) == 0)
		printf("(no series rules)\n");
	GVariantIter iter;
	GVariant *rule;
	g_variant_iter_init(&iter, rules);
	while ((rule = g_variant_iter_next_value(&iter))) {
		gint64 id = 0, channel = 0;
		const char *title = "", *series = "";
		gboolean new_only = TRUE;
		guint32 before = 0, after = 0;
		g_variant_lookup(rule, "id", "x", &id);
		g_variant_lookup(rule, "title", "&s", &title);
		g_variant_lookup(rule, "series-id", "&s", &series);
		g_variant_lookup(rule, "channel", "x", &channel);
		g_variant_lookup(rule, "new-episodes-only", "b", &new_only);
		g_variant_lookup(rule, "padding-before", "u", &before);
		g_variant_lookup(rule, "padding-after", "u", &after);
		g_autofree char *where = channel ? g_strdup_printf("channel %" G_GINT64_FORMAT,
			channel) : g_strdup("any channel");
		printf("%" G_GINT64_FORMAT "  %s%s%s%s%s, %s, %s, padding %u s before, %u s after\n",
			id, *title ? "title \"" : "", title, *title ? "\"" : "",
			*series ? (*title ? " series " : "series ") : "", series, where,
			new_only ? "new episodes only" : "every airing", before, after);
		g_variant_unref(rule);
	}
	return 0;
}

static int
cmd_series(struct ctl *ctl, char **args, int n_args)
{
	if (strcmp(args[0], "add") == 0 && n_args > 1)
		return series_add(ctl, args + 1, n_args - 1);
	if (strcmp(args[0], "list") == 0 && n_args == 1)
		return series_list(ctl);
	gint64 id;
	if (strcmp(args[0], "remove") == 0 && n_args == 2) {
		if (!parse_int64(args[1], 1, G_MAXINT64, &id))
			return umms_ctl_usage_error("series remove: \"%s\" is no rule id", args[1]);
		int status = 0;
		g_autoptr(GVariant) reply = call(ctl, "RemoveSeriesRule", g_variant_new("(x)", id),
			"()", &status);
		return reply ? 0 : status;
	}
	return umms_ctl_usage_error("series: add KEY=VALUE…, list, or remove ID");
}

const struct umms_ctl_command umms_ctl_series_commands[] = {
	{ "record-programme", "ID [SECONDS|BEFORE,AFTER]", 1, 2, false, cmd_record_programme },
	{ "series", "add KEY=VALUE…|list|remove ID", 1, 6, false, cmd_series },
	{ NULL },
};
