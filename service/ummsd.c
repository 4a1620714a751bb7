/*
 * umms_main(): ummsd's command line around a server. Kept apart from
 * server.c so that tests link the service without a main loop of its own.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <stdio.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <gst/gst.h>

#include "engine.h"
#include "log.h"
#include "server.h"
#include "umms-config.h"

static int verbosity;
static char *drm_device;
static bool drm;
static char *headless_mode;
static bool headless;

/* --headless, or --headless=WxH[@Hz]: a screen of no display, composited into memory. */
static gboolean
headless_cb(const char *name, const char *value, gpointer data, GError **error)
{
	headless = true;
	g_free(headless_mode);
	headless_mode = g_strdup(value);
	return TRUE;
}

/* --drm, or --drm=DEVICE: drive a screen through KMS. */
static gboolean
drm_cb(const char *name, const char *value, gpointer data, GError **error)
{
	drm = true;
	g_free(drm_device);
	drm_device = g_strdup(value);
	return TRUE;
}

static gboolean
verbose_cb(const char *name, const char *value, gpointer data, GError **error)
{
	verbosity++;
	return TRUE;
}

struct run {
	GMainLoop *loop;
	int status;
	struct wl_listener disconnected;
};

static gboolean
quit_cb(gpointer data)
{
	struct run *run = data;
	umms_info("signal received, shutting down");
	g_main_loop_quit(run->loop);
	return G_SOURCE_CONTINUE;
}

static void
on_disconnected(struct wl_listener *listener, void *data)
{
	struct run *run = wl_container_of(listener, run, disconnected);
	run->status = 1;
	g_main_loop_quit(run->loop);
}

static bool
load_config(struct umms_config *config, const char *file, char **sets, bool session,
	bool system, const char *address, int verbose, GError **error)
{
	g_autofree char *path = file ? g_strdup(file) : umms_config_default_path();
	if (!umms_config_load_file(config, path, file != NULL, error))
		return false;
	for (char **set = sets; set && *set; set++) {
		char *eq = strchr(*set, '=');
		if (!eq) {
			g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
				"--set %s: expected section.key=value", *set);
			return false;
		}
		g_autofree char *key = g_strndup(*set, (gsize)(eq - *set));
		if (!umms_config_set(config, key, eq + 1, error))
			return false;
	}
	if (session && !umms_config_set(config, "service.bus", "session", error))
		return false;
	if (system && !umms_config_set(config, "service.bus", "system", error))
		return false;
	if (address && !umms_config_set(config, "service.bus-address", address, error))
		return false;
	if (drm && !umms_config_set(config, "display.enabled", "true", error))
		return false;
	if (drm_device && !umms_config_set(config, "display.drm-device", drm_device, error))
		return false;
	if (headless && (!umms_config_set(config, "display.enabled", "true", error) ||
			!umms_config_set(config, "display.headless", "true", error)))
		return false;
	if (headless_mode && !umms_config_set(config, "display.mode", headless_mode, error))
		return false;
	if (verbose >= 2)
		config->log.level = UMMS_LOG_DEBUG;
	else if (verbose == 1 && config->log.level < UMMS_LOG_INFO)
		config->log.level = UMMS_LOG_INFO;
	return true;
}

int
umms_main(int argc, char *argv[])
{
	g_autofree char *file = NULL;
	g_autofree char *address = NULL;
	g_auto(GStrv) sets = NULL;
	gboolean session = FALSE, system = FALSE, print = FALSE, version = FALSE;

	const GOptionEntry entries[] = {
		{ "config", 'c', 0, G_OPTION_ARG_FILENAME, &file,
			"Configuration file (default $XDG_CONFIG_HOME/umms/ummsd.conf)", "FILE" },
		{ "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
			"Override one configuration key, e.g. engine.audio-output=none", "SECTION.KEY=VALUE" },
		{ "session", 0, 0, G_OPTION_ARG_NONE, &session, "Serve on the session bus (default)", NULL },
		{ "system", 0, 0, G_OPTION_ARG_NONE, &system, "Serve on the system bus", NULL },
		{ "address", 0, 0, G_OPTION_ARG_STRING, &address, "Serve on the bus at ADDRESS", "ADDRESS" },
		{ "drm", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer)drm_cb,
			"Drive a screen through KMS (the first card with one, or DEVICE)", "DEVICE" },
		{ "headless", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
			(gpointer)headless_cb,
			"A screen of no display: composited in memory (1280x720, or MODE), "
			"captured as PNG with Display1.Capture", "MODE" },
		{ "verbose", 'v', G_OPTION_FLAG_NO_ARG, G_OPTION_ARG_CALLBACK, (gpointer)verbose_cb,
			"More messages (twice for debug)", NULL },
		{ "print-config", 0, 0, G_OPTION_ARG_NONE, &print,
			"Print the configuration in effect and exit", NULL },
		{ "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
		{ NULL },
	};
	g_autoptr(GOptionContext) context = g_option_context_new("- the umms media service");
	g_option_context_set_summary(context,
		"Plays media for other programs over D-Bus (org.umms.Service1).\n"
		"Configuration keys: see docs/config.md.");
	g_option_context_add_main_entries(context, entries, NULL);
	g_option_context_add_group(context, gst_init_get_option_group());
	g_autoptr(GError) error = NULL;
	if (!g_option_context_parse(context, &argc, &argv, &error)) {
		fprintf(stderr, "ummsd: %s\n", error->message);
		return 2;
	}
	if (version) {
		printf("ummsd %s\n", UMMS_VERSION);
		return 0;
	}

	struct umms_config config;
	umms_config_init(&config);
	if (!load_config(&config, file, sets, session, system, address, verbosity, &error)) {
		fprintf(stderr, "ummsd: %s\n", error->message);
		umms_config_finish(&config);
		return 2;
	}
	if (print) {
		umms_config_print(&config, stdout);
		umms_config_finish(&config);
		return 0;
	}

	struct run run = { .loop = g_main_loop_new(NULL, FALSE) };
	struct umms_server *server = umms_server_create(&config, &error);
	if (!server) {
		fprintf(stderr, "ummsd: %s\n", error->message);
		run.status = 1;
		goto out;
	}
	run.disconnected.notify = on_disconnected;
	wl_signal_add(&server->events.disconnected, &run.disconnected);
	guint sigint = g_unix_signal_add(SIGINT, quit_cb, &run);
	guint sigterm = g_unix_signal_add(SIGTERM, quit_cb, &run);
	g_main_loop_run(run.loop);
	g_source_remove(sigint);
	g_source_remove(sigterm);
	wl_list_remove(&run.disconnected.link);
	umms_server_destroy(server);
	/* What the shutdown left queued (D-Bus objects kept for late calls) runs out. */
	while (g_main_context_iteration(NULL, FALSE))
		;
out:
	g_main_loop_unref(run.loop);
	umms_config_finish(&config);
	umms_engines_finish();
	gst_deinit();
	return run.status;
}
