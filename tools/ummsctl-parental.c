/*
 * ummsctl parental (org.umms.Parental1): status, enable, disable, set-pin,
 * threshold, block-unrated, lock-channel, unlock-channel, unlock. The PIN
 * comes from --pin, else it is asked for on stdin (without echo on a
 * terminal); while none is set, none is asked for.
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ummsctl.h"

#define ROOT_PATH "/org/umms"
#define PARENTAL_IFACE "org.umms.Parental1"
#define MAX_PIN_LINE 64

static GVariant *
get(struct ctl *ctl, const char *name, GError **error)
{
	return umms_ctl_get_property(ctl->bus, ROOT_PATH, PARENTAL_IFACE, name, error);
}

/* A line from stdin, without echo on a terminal; NULL at its end. */
static char *
prompt(const char *what)
{
	bool tty = isatty(STDIN_FILENO);
	struct termios saved, quiet;
	if (tty) {
		fprintf(stderr, "%s: ", what);
		fflush(stderr);
		if (tcgetattr(STDIN_FILENO, &saved) == 0) {
			quiet = saved;
			quiet.c_lflag &= ~(tcflag_t)ECHO;
			tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
		} else {
			tty = false;
		}
	}
	char line[MAX_PIN_LINE];
	char *got = fgets(line, sizeof(line), stdin);
	if (tty) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
		fprintf(stderr, "\n");
	}
	if (!got)
		return NULL;
	line[strcspn(line, "\r\n")] = '\0';
	return g_strdup(line);
}

/* The PIN to send: --pin, "" while none is set, else asked for. NULL: none given. */
static char *
pin_for(struct ctl *ctl, GError **error)
{
	if (ctl->pin)
		return g_strdup(ctl->pin);
	g_autoptr(GVariant) set = get(ctl, "PinSet", error);
	if (!set)
		return NULL;
	if (!g_variant_get_boolean(set))
		return g_strdup("");
	char *pin = prompt("PIN");
	if (!pin)
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			"no PIN (give --pin PIN or type it on stdin)");
	return pin;
}

static int
call(struct ctl *ctl, const char *method, GVariant *params)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(ctl->bus, SERVICE_NAME,
		ROOT_PATH, PARENTAL_IFACE, method, params, G_VARIANT_TYPE("()"),
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, &error);
	if (!reply)
		return umms_ctl_report(error);
	return STATUS_OK;
}

static int
status(struct ctl *ctl)
{
	GError *error = NULL;
	const char *const names[] = { "Enabled", "BlockUnrated", "PinSet", "Thresholds",
		"LockedChannels" };
	GVariant *v[G_N_ELEMENTS(names)] = { NULL };
	int rc = STATUS_OK;
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		v[i] = get(ctl, names[i], &error);
		if (!v[i]) {
			rc = umms_ctl_report(error);
			goto out;
		}
	}
	printf("enabled: %s\n", g_variant_get_boolean(v[0]) ? "yes" : "no");
	printf("block unrated: %s\n", g_variant_get_boolean(v[1]) ? "yes" : "no");
	printf("PIN: %s\n", g_variant_get_boolean(v[2]) ? "set" : "not set");
	printf("thresholds:");
	GVariantIter iter;
	const char *scheme;
	int32_t age;
	g_variant_iter_init(&iter, v[3]);
	bool any = false;
	while (g_variant_iter_next(&iter, "{&si}", &scheme, &age)) {
		printf("%s %s %d", any ? "," : "", scheme, age);
		any = true;
	}
	printf("%s\nlocked channels:", any ? "" : " none");
	gsize n = 0;
	const int64_t *ids = g_variant_get_fixed_array(v[4], &n, sizeof(int64_t));
	for (gsize i = 0; i < n; i++)
		printf("%s %" G_GINT64_FORMAT, i ? "," : "", ids[i]);
	printf("%s\n", n ? "" : " none");
out:
	for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
		if (v[i])
			g_variant_unref(v[i]);
	}
	return rc;
}

static bool
parse_int(const char *text, int64_t min, int64_t max, int64_t *value)
{
	char *end = NULL;
	if (!*text)
		return false;
	long long v = strtoll(text, &end, 10);
	if (*end || v < min || v > max)
		return false;
	*value = v;
	return true;
}

/* The subcommand @args[0] with its arguments; the PIN asked for only when it is needed. */
static int
cmd_parental(struct ctl *ctl, char **args, int n_args)
{
	const char *sub = args[0];
	int n = n_args - 1;
	if (strcmp(sub, "status") == 0) {
		if (n != 0)
			return umms_ctl_usage_error("ummsctl parental status");
		return status(ctl);
	}
	/* Check the arguments before asking for the PIN. */
	GVariant *params = NULL;
	const char *method = NULL;
	bool flag = false;
	int64_t number = 0;
	if (strcmp(sub, "enable") == 0 || strcmp(sub, "disable") == 0) {
		if (n != 0)
			return umms_ctl_usage_error("ummsctl parental %s", sub);
		method = "SetEnabled";
		flag = strcmp(sub, "enable") == 0;
	} else if (strcmp(sub, "block-unrated") == 0) {
		if (n != 1 || !umms_ctl_parse_bool(args[1], &flag))
			return umms_ctl_usage_error("ummsctl parental block-unrated on|off");
		method = "SetBlockUnrated";
	} else if (strcmp(sub, "threshold") == 0) {
		if (n != 2 || (strcmp(args[2], "none") != 0 &&
				!parse_int(args[2], 0, 99, &number)))
			return umms_ctl_usage_error("ummsctl parental threshold SCHEME AGE|none "
				"(AGE 0 to 99; SCHEME \"age\" for every rating)");
		if (strcmp(args[2], "none") == 0)
			number = -1;
		method = "SetThreshold";
	} else if (strcmp(sub, "lock-channel") == 0 || strcmp(sub, "unlock-channel") == 0) {
		if (n != 1 || !parse_int(args[1], 1, G_MAXINT64, &number))
			return umms_ctl_usage_error("ummsctl parental %s ID (a guide channel id)",
				sub);
		method = "LockChannel";
		flag = strcmp(sub, "lock-channel") == 0;
	} else if (strcmp(sub, "unlock") == 0) {
		if (n < 2 || n > 3 || !g_variant_is_object_path(args[1]) ||
				(n == 3 && !parse_int(args[3], 1, 86400, &number)) ||
				(strcmp(args[2], "time") == 0) != (n == 3))
			return umms_ctl_usage_error("ummsctl parental unlock PLAYER programme|"
				"channel|time [SECONDS] (SECONDS 1 to 86400, for time only)");
		method = "Unlock";
	} else if (strcmp(sub, "set-pin") == 0) {
		if (n != 0)
			return umms_ctl_usage_error("ummsctl parental set-pin (--pin OLD, "
				"--new-pin NEW, or both asked for)");
		method = "SetPin";
	} else {
		return umms_ctl_usage_error("unknown parental command \"%s\": status, enable, "
			"disable, set-pin, threshold, block-unrated, lock-channel, "
			"unlock-channel, unlock", sub);
	}

	GError *error = NULL;
	g_autofree char *pin = pin_for(ctl, &error);
	if (!pin)
		return umms_ctl_report(error);
	if (strcmp(method, "SetEnabled") == 0 || strcmp(method, "SetBlockUnrated") == 0) {
		params = g_variant_new("(sb)", pin, flag);
	} else if (strcmp(method, "SetThreshold") == 0) {
		params = g_variant_new("(ssi)", pin, args[1], (int32_t)number);
	} else if (strcmp(method, "LockChannel") == 0) {
		params = g_variant_new("(sxb)", pin, number, flag);
	} else if (strcmp(method, "Unlock") == 0) {
		params = g_variant_new("(ossu)", args[1], pin, args[2], (uint32_t)number);
	} else {
		g_autofree char *new_pin = ctl->new_pin ? g_strdup(ctl->new_pin) :
			prompt("New PIN (4 to 8 digits)");
		if (!new_pin)
			return umms_ctl_fail("no new PIN (give --new-pin PIN or type it on stdin)");
		params = g_variant_new("(ss)", pin, new_pin);
	}
	return call(ctl, method, params);
}

const struct umms_ctl_command umms_ctl_parental_commands[] = {
	{ "parental", "status|enable|disable|set-pin|threshold|block-unrated|lock-channel|"
		"unlock-channel|unlock [ARGUMENTS]", 1, 4, false, cmd_parental },
	{ NULL },
};
