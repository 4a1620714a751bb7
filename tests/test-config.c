/*
 * Configuration and logging: what an administrator writes in ummsd.conf or
 * on the command line is what ummsd uses, and every mistake is named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "config.h"
#include "harness.h"
#include "log.h"

static char *
write_file(const char *name, const char *text)
{
	char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	g_assert_true(g_file_set_contents(path, text, -1, NULL));
	return path;
}

static void
test_defaults(void)
{
	struct umms_config config;
	umms_config_init(&config);
	g_assert_cmpint(config.service.bus, ==, UMMS_BUS_SESSION);
	g_assert_cmpstr(config.service.bus_name, ==, "org.umms.Service1");
	g_assert_cmpuint(config.service.max_players, ==, 100);
	g_assert_true(config.service.mpris);
	g_assert_cmpint(config.engine.audio_output, ==, UMMS_AUDIO_AUTO);
	g_assert_cmpuint(g_strv_length(config.engine.disable_decoders), ==, 0);
	umms_config_finish(&config);
}

static void
test_file(void)
{
	g_autofree char *path = write_file("good.conf",
		"# a comment\n"
		"[service]\nbus=system\nmax-players=7\nunattended-ttl=30\nmpris=false\n"
		"[log]\nlevel=debug\nscopes=engine=warning,dbus=info\n"
		"[engine]\naudio-output=none\ndisable-decoders=avdec_h264, vp9dec\n"
		"open-timeout=2500\n");
	struct umms_config config;
	umms_config_init(&config);
	GError *error = NULL;
	g_assert_true(umms_config_load_file(&config, path, true, &error));
	g_assert_no_error(error);
	g_assert_cmpint(config.service.bus, ==, UMMS_BUS_SYSTEM);
	g_assert_cmpuint(config.service.max_players, ==, 7);
	g_assert_cmpuint(config.service.unattended_ttl, ==, 30);
	g_assert_false(config.service.mpris);
	g_assert_cmpint(config.log.level, ==, UMMS_LOG_DEBUG);
	g_assert_cmpstr(config.log.scopes, ==, "engine=warning,dbus=info");
	g_assert_cmpint(config.engine.audio_output, ==, UMMS_AUDIO_NONE);
	g_assert_cmpuint(g_strv_length(config.engine.disable_decoders), ==, 2);
	g_assert_cmpstr(config.engine.disable_decoders[1], ==, "vp9dec");
	g_assert_cmpuint(config.engine.open_timeout, ==, 2500);
	g_assert_cmpstr(config.loaded_file, ==, path);

	g_assert_cmpuint(config.video.max_clients, ==, 64);   /* the default */
	g_assert_true(umms_config_set(&config, "video.max-clients", "3", &error));
	g_assert_cmpuint(config.video.max_clients, ==, 3);

	/* A command-line override wins over the file. */
	g_assert_true(umms_config_set(&config, "service.max-players", "9", &error));
	g_assert_cmpuint(config.service.max_players, ==, 9);

	/* What --print-config shows loads back to the same values. */
	g_autofree char *printed = g_build_filename(umms_test_tmpdir(), "printed.conf", NULL);
	FILE *out = fopen(printed, "w");
	umms_config_print(&config, out);
	fclose(out);
	struct umms_config again;
	umms_config_init(&again);
	g_assert_true(umms_config_load_file(&again, printed, true, &error));
	g_assert_cmpuint(again.service.max_players, ==, 9);
	g_assert_cmpstr(again.engine.disable_decoders[0], ==, "avdec_h264");
	g_assert_cmpint(again.log.level, ==, UMMS_LOG_DEBUG);
	umms_config_finish(&again);
	umms_config_finish(&config);
}

static void
expect_file_error(const char *text, const char *words)
{
	g_autofree char *path = write_file("bad.conf", text);
	struct umms_config config;
	umms_config_init(&config);
	GError *error = NULL;
	g_assert_false(umms_config_load_file(&config, path, true, &error));
	g_assert_nonnull(error);
	if (!strstr(error->message, words))
		g_error("error \"%s\" does not mention \"%s\"", error->message, words);
	g_assert_nonnull(strstr(error->message, path));
	g_error_free(error);
	umms_config_finish(&config);
}

static void
test_file_errors(void)
{
	expect_file_error("[service]\nmax-players=lots\n", "service.max-players");
	expect_file_error("[service]\nmax-players=0\n", "1 to 10000");
	expect_file_error("[video]\nmax-clients=0\n", "1 to 4096");
	expect_file_error("[video]\nmax-clients=4097\n", "1 to 4096");
	expect_file_error("[engine]\ncatch-up=60001\n", "0 to 60000");
	expect_file_error("[engine]\ncatch-up=-1\n", "engine.catch-up");
	expect_file_error("[engine]\ndecoder-threads=65\n", "0 to 64");
	expect_file_error("[service]\nbus=fancy\n", "service.bus");
	expect_file_error("[service]\nspeed=fast\n", "unknown key [service] speed");
	expect_file_error("[nowhere]\nkey=1\n", "unknown key [nowhere] key");
	expect_file_error("[log]\nscopes=engine=loud\n", "unknown level");
	expect_file_error("[log]\nscopes=gpu=debug\n", "unknown scope");
	expect_file_error("[service\n", "bad.conf");

	struct umms_config config;
	umms_config_init(&config);
	GError *error = NULL;
	/* The default file may be missing; a file named on purpose may not. */
	g_assert_true(umms_config_load_file(&config, "/nonexistent/ummsd.conf", false, &error));
	g_assert_false(umms_config_load_file(&config, "/nonexistent/ummsd.conf", true, &error));
	g_assert_nonnull(strstr(error->message, "/nonexistent/ummsd.conf"));
	g_clear_error(&error);
	g_assert_false(umms_config_set(&config, "nodot", "1", &error));
	g_clear_error(&error);
	g_assert_false(umms_config_set(&config, "engine.nothing", "1", &error));
	g_assert_nonnull(strstr(error->message, "engine.nothing"));
	g_clear_error(&error);
	umms_config_finish(&config);
}

static void
test_example_file(void)
{
	/* data/ummsd.conf, installed as the example, states exactly the defaults. */
	g_autofree char *path = g_build_filename(umms_test_source_root(), "data", "ummsd.conf", NULL);
	struct umms_config example, defaults;
	umms_config_init(&example);
	umms_config_init(&defaults);
	GError *error = NULL;
	g_assert_true(umms_config_load_file(&example, path, true, &error));
	g_assert_no_error(error);
	char *a = NULL, *b = NULL;
	size_t na, nb;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb);
	umms_config_print(&example, fa);
	umms_config_print(&defaults, fb);
	fclose(fa);
	fclose(fb);
	g_assert_cmpstr(a, ==, b);
	free(a);
	free(b);
	umms_config_finish(&example);
	umms_config_finish(&defaults);

	/* Its comment on [log] scopes names every scope there is. */
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	const char *comment = strstr(text, "# Per-module levels:");
	g_assert_nonnull(comment);
	g_autofree char *listed = g_strndup(comment, (gsize)(strstr(comment, "#scopes=") - comment));
	for (int s = 0; s < UMMS_SCOPE_COUNT; s++) {
		g_autofree char *word = g_strdup_printf(" %s", umms_log_scope_name(s));
		if (!strstr(listed, word))
			g_error("data/ummsd.conf's scopes comment leaves out %s", word + 1);
	}
}

static void
test_default_path(void)
{
	/* The harness points XDG_CONFIG_HOME at its scratch folder. */
	g_autofree char *path = umms_config_default_path();
	g_autofree char *expected = g_build_filename(umms_test_tmpdir(), "umms", "ummsd.conf", NULL);
	g_assert_cmpstr(path, ==, expected);
}

static void
test_log_scopes(void)
{
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "log.txt", NULL);
	FILE *out = fopen(path, "w+");
	umms_log_set_stream(out);
	umms_log_set_level(UMMS_LOG_WARNING);
	GError *error = NULL;
	g_assert_true(umms_log_set_scopes("engine=debug,dbus=silent", &error));
	g_assert_true(umms_log_enabled(UMMS_SCOPE_ENGINE, UMMS_LOG_DEBUG));
	g_assert_false(umms_log_enabled(UMMS_SCOPE_DBUS, UMMS_LOG_ERROR));
	g_assert_true(umms_log_enabled(UMMS_SCOPE_PLAYER, UMMS_LOG_WARNING));
	g_assert_false(umms_log_enabled(UMMS_SCOPE_PLAYER, UMMS_LOG_INFO));

	umms_log_write(UMMS_SCOPE_ENGINE, UMMS_LOG_DEBUG, "x/file.c", 12, "hello %d", 42);
	fflush(out);
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_assert_nonnull(strstr(text, "DEBUG [engine] file.c:12: hello 42"));

	/* A bad spec changes nothing. */
	g_assert_false(umms_log_set_scopes("engine=info,bogus=debug", &error));
	g_clear_error(&error);
	g_assert_true(umms_log_enabled(UMMS_SCOPE_ENGINE, UMMS_LOG_DEBUG));

	g_assert_true(umms_log_set_scopes("", &error));
	g_assert_false(umms_log_enabled(UMMS_SCOPE_ENGINE, UMMS_LOG_DEBUG));
	umms_log_set_stream(NULL);
	fclose(out);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_func("/config/defaults", test_defaults);
	g_test_add_func("/config/file", test_file);
	g_test_add_func("/config/file-errors", test_file_errors);
	g_test_add_func("/config/example-file", test_example_file);
	g_test_add_func("/config/default-path", test_default_path);
	g_test_add_func("/log/scopes", test_log_scopes);
	return g_test_run();
}
