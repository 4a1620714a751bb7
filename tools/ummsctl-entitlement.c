/*
 * ummsctl's entitlements command (org.umms.Entitlement1): list, get ITEM,
 * grant ITEM [--max-plays N] [--not-before T] [--not-after T]
 * [--window SECONDS], revoke ITEM. Its options follow the subcommand, so
 * main() passes them on (own_options).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ummsctl.h"

#define ROOT_PATH "/org/umms"
#define ENTITLEMENT_IFACE "org.umms.Entitlement1"

static GVariant *
call(struct ctl *ctl, const char *method, GVariant *params, const char *reply_type,
	GError **error)
{
	return g_dbus_connection_call_sync(ctl->bus, SERVICE_NAME, ROOT_PATH, ENTITLEMENT_IFACE,
		method, params, G_VARIANT_TYPE(reply_type), G_DBUS_CALL_FLAGS_NONE,
		CALL_TIMEOUT_MS, NULL, error);
}

/* An item as ummsd takes it: a URI, or a local path made absolute (a prefix too). */
static char *
item_arg(const char *arg)
{
	g_autofree char *scheme = g_uri_parse_scheme(arg);
	if (scheme || arg[0] == '/')
		return g_strdup(arg);
	return g_canonicalize_filename(arg, NULL);
}

static char *
utc_text(int64_t us)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(us / G_USEC_PER_SEC);
	return t ? g_date_time_format(t, "%Y-%m-%d %H:%M:%S UTC") : g_strdup("?");
}

/* "48 h", "90 min", "100 s", as ummsd says it. */
static char *
duration_text(guint32 s)
{
	if (s % 3600 == 0)
		return g_strdup_printf("%u h", s / 3600);
	if (s % 60 == 0)
		return g_strdup_printf("%u min", s / 60);
	return g_strdup_printf("%u s", s);
}

static void
print_entitlement(GVariant *d)
{
	const char *item = "", *why = "";
	guint32 u;
	gint64 x;
	gboolean valid = FALSE;
	g_variant_lookup(d, "item", "&s", &item);
	printf("%s\n", item);
	if (g_variant_lookup(d, "max-plays", "u", &u))
		printf("  max-plays %u\n", u);
	if (g_variant_lookup(d, "plays", "u", &u))
		printf("  plays %u\n", u);
	const char *const times[] = { "not-before", "not-after", "first-play" };
	for (size_t i = 0; i < G_N_ELEMENTS(times); i++) {
		if (g_variant_lookup(d, times[i], "x", &x)) {
			g_autofree char *text = utc_text(x);
			printf("  %s %s\n", times[i], text);
		}
	}
	if (g_variant_lookup(d, "window", "u", &u)) {
		g_autofree char *text = duration_text(u);
		printf("  window %s\n", text);
	}
	g_variant_lookup(d, "valid", "b", &valid);
	g_variant_lookup(d, "why", "&s", &why);
	if (valid)
		printf("  valid\n");
	else
		printf("  not valid: %s\n", why);
}

static int
get(struct ctl *ctl, const char *item)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = call(ctl, "Get", g_variant_new("(s)", item), "(a{sv})",
		&error);
	if (!reply)
		return umms_ctl_report(error);
	g_autoptr(GVariant) d = g_variant_get_child_value(reply, 0);
	print_entitlement(d);
	return STATUS_OK;
}

static int
list(struct ctl *ctl)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = call(ctl, "List", NULL, "(as)", &error);
	if (!reply)
		return umms_ctl_report(error);
	g_autofree const char **items = NULL;
	g_variant_get(reply, "(^a&s)", &items);
	for (const char **i = items; *i; i++) {
		int status = get(ctl, *i);
		if (status != STATUS_OK)
			return status;
	}
	return STATUS_OK;
}

/* T: "+SECONDS" or "-SECONDS" from now, or ISO 8601 ("2026-12-24T20:00", local without a zone). */
static bool
parse_time(const char *text, gint64 *us)
{
	if (text[0] == '+' || text[0] == '-') {
		char *end;
		gint64 s = g_ascii_strtoll(text, &end, 10);
		if (end == text + 1 || *end)
			return false;
		*us = g_get_real_time() + s * G_USEC_PER_SEC;
		return true;
	}
	g_autoptr(GTimeZone) local = g_time_zone_new_local();
	g_autoptr(GDateTime) t = g_date_time_new_from_iso8601(text, local);
	if (!t)
		return false;
	*us = g_date_time_to_unix(t) * G_USEC_PER_SEC;
	return true;
}

static bool
parse_u32(const char *text, guint32 *value)
{
	guint64 v;
	if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXUINT32, &v, NULL))
		return false;
	*value = (guint32)v;
	return true;
}

static int
grant(struct ctl *ctl, const char *item, char **opts, int n)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_VARDICT);
	for (int i = 0; i < n; i += 2) {
		const char *name = opts[i], *value = i + 1 < n ? opts[i + 1] : NULL;
		guint32 u;
		gint64 x;
		if (!value) {
			g_variant_builder_clear(&b);
			return umms_ctl_usage_error("%s needs a value", name);
		}
		if (strcmp(name, "--max-plays") == 0 || strcmp(name, "--window") == 0) {
			if (!parse_u32(value, &u)) {
				g_variant_builder_clear(&b);
				return umms_ctl_usage_error("%s: not a whole number from 1: %s", name,
					value);
			}
			g_variant_builder_add(&b, "{sv}", name + 2, g_variant_new_uint32(u));
		} else if (strcmp(name, "--not-before") == 0 || strcmp(name, "--not-after") == 0) {
			if (!parse_time(value, &x)) {
				g_variant_builder_clear(&b);
				return umms_ctl_usage_error("%s: not a time (+SECONDS or ISO 8601): %s",
					name, value);
			}
			g_variant_builder_add(&b, "{sv}", name + 2, g_variant_new_int64(x));
		} else {
			g_variant_builder_clear(&b);
			return umms_ctl_usage_error("entitlements grant: unknown option %s", name);
		}
	}
	GError *error = NULL;
	g_autoptr(GVariant) reply = call(ctl, "Grant", g_variant_new("(sa{sv})", item, &b), "()",
		&error);
	if (!reply)
		return umms_ctl_report(error);
	return get(ctl, item);
}

static int
cmd_entitlements(struct ctl *ctl, char **args, int n_args)
{
	const char *what = args[0];
	if (strcmp(what, "list") == 0 && n_args == 1)
		return list(ctl);
	if (n_args < 2)
		return umms_ctl_usage_error("ummsctl entitlements list|get ITEM|grant ITEM …|"
			"revoke ITEM");
	g_autofree char *item = item_arg(args[1]);
	if (strcmp(what, "get") == 0 && n_args == 2)
		return get(ctl, item);
	if (strcmp(what, "grant") == 0)
		return grant(ctl, item, args + 2, n_args - 2);
	if (strcmp(what, "revoke") == 0 && n_args == 2) {
		GError *error = NULL;
		g_autoptr(GVariant) reply = call(ctl, "Revoke", g_variant_new("(s)", item), "()",
			&error);
		return reply ? STATUS_OK : umms_ctl_report(error);
	}
	return umms_ctl_usage_error("ummsctl entitlements list|get ITEM|grant ITEM "
		"[--max-plays N] [--not-before T] [--not-after T] [--window SECONDS]|revoke ITEM");
}

const struct umms_ctl_command umms_ctl_entitlement_commands[] = {
	{ "entitlements", "list|get ITEM|grant ITEM [OPTIONS]|revoke ITEM", 1, 10, false,
		cmd_entitlements, true },
	{ NULL },
};
