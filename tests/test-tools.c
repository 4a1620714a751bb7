/*
 * The programs a person runs: the ummsd binary (options, configuration,
 * refusing a second instance, clean shutdown), ummsctl, and playerctl
 * reaching players through MPRIS.
 */
#include <signal.h>
#include <string.h>

#include "harness.h"

struct run {
	int status;
	char *out;
	char *err;
};

static void
run_clear(struct run *run)
{
	g_free(run->out);
	g_free(run->err);
}

/* Runs argv to completion, capturing its output. */
static struct run
run_argv(const char *const *argv)
{
	GError *error = NULL;
	GSubprocess *process = g_subprocess_newv(argv,
		G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
	g_assert_no_error(error);
	struct run run = { 0 };
	g_subprocess_communicate_utf8(process, NULL, NULL, &run.out, &run.err, &error);
	g_assert_no_error(error);
	run.status = g_subprocess_get_if_exited(process) ? g_subprocess_get_exit_status(process) : -1;
	g_object_unref(process);
	return run;
}

#define RUN(...) run_argv((const char *const[]){ __VA_ARGS__, NULL })

static void
assert_contains(const char *text, const char *words)
{
	if (!strstr(text, words))
		g_error("output does not contain \"%s\":\n%s", words, text);
}

static void
test_ummsd_options(void)
{
	const char *ummsd = umms_test_program("ummsd");
	struct run r = RUN(ummsd, "--version");
	g_assert_cmpint(r.status, ==, 0);
	g_assert_cmpstr(r.out, ==, "ummsd 0.1.0\n");
	run_clear(&r);

	/* The config file, then --set on top. */
	g_autofree char *conf = g_build_filename(umms_test_tmpdir(), "tools.conf", NULL);
	g_assert_true(g_file_set_contents(conf, "[service]\nmax-players=5\nunattended-ttl=9\n",
		-1, NULL));
	r = RUN(ummsd, "--config", conf, "--set", "service.max-players=7", "--print-config");
	g_assert_cmpint(r.status, ==, 0);
	assert_contains(r.out, "max-players=7\n");
	assert_contains(r.out, "unattended-ttl=9\n");
	assert_contains(r.out, "[engine]\n");
	run_clear(&r);

	/* Mistakes are named, with exit status 2. */
	r = RUN(ummsd, "--set", "engine.colour=blue", "--print-config");
	g_assert_cmpint(r.status, ==, 2);
	assert_contains(r.err, "unknown configuration key \"engine.colour\"");
	run_clear(&r);
	r = RUN(ummsd, "--config", "/nonexistent.conf");
	g_assert_cmpint(r.status, ==, 2);
	assert_contains(r.err, "/nonexistent.conf");
	run_clear(&r);
	r = RUN(ummsd, "--set", "service.max-players=none");
	g_assert_cmpint(r.status, ==, 2);
	assert_contains(r.err, "service.max-players");
	run_clear(&r);
}

static void
test_ummsd_instance(void)
{
	GDBusConnection *bus = umms_test_connect();
	GSubprocess *first = umms_test_spawn_ummsd(NULL);
	umms_test_wait_name(bus, UMMS_NAME, true);

	/* A second one on the same bus says why it cannot start. */
	struct run r = RUN(umms_test_program("ummsd"), "--address", umms_test_bus_address());
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "already owned");
	run_clear(&r);

	/* The first one serves on, and stops cleanly on SIGTERM, releasing its name. */
	g_autofree char *p = umms_test_open(bus, "av.mp4");
	umms_test_player_do(bus, p, "Play", NULL);
	g_subprocess_send_signal(first, SIGTERM);
	GError *error = NULL;
	g_assert_true(g_subprocess_wait(first, NULL, &error));
	g_assert_true(g_subprocess_get_if_exited(first));
	g_assert_cmpint(g_subprocess_get_exit_status(first), ==, 0);
	umms_test_wait_name(bus, UMMS_NAME, false);
	g_object_unref(first);
	g_object_unref(bus);
}

/* A real ummsd for the command-line tools, stopped cleanly afterwards. */
struct daemon {
	GDBusConnection *bus;
	GSubprocess *process;
};

static void
daemon_start(struct daemon *d)
{
	d->bus = umms_test_connect();
	d->process = umms_test_spawn_ummsd(NULL);
	umms_test_wait_name(d->bus, UMMS_NAME, true);
}

static void
daemon_stop(struct daemon *d)
{
	g_subprocess_send_signal(d->process, SIGTERM);
	g_assert_true(g_subprocess_wait(d->process, NULL, NULL));
	g_assert_cmpint(g_subprocess_get_exit_status(d->process), ==, 0);
	g_object_unref(d->process);
	umms_test_wait_name(d->bus, UMMS_NAME, false);
	g_object_unref(d->bus);
}

static void
test_ummsctl(void)
{
	struct daemon d;
	daemon_start(&d);
	const char *ctl = umms_test_program("ummsctl");

	/* play prints the new player; it outlives ummsctl (unattended). */
	struct run r = RUN(ctl, "play", umms_test_clip("av.mkv"));
	g_assert_cmpint(r.status, ==, 0);
	g_assert_cmpstr(r.out, ==, "/org/umms/player/1\n");
	run_clear(&r);

	/* info shows the real codec, size, tracks and their languages. */
	r = RUN(ctl, "info");
	g_assert_cmpint(r.status, ==, 0);
	assert_contains(r.out, "State:            playing");
	assert_contains(r.out, "Container:        matroska");
	assert_contains(r.out, "Decoder:          avdec_h264 (software)");
	assert_contains(r.out, "video 0*: h264 320x240 25 fps par 1/1");
	assert_contains(r.out, "audio 0*: opus 2 ch 48000 Hz");
	assert_contains(r.out, "audio 1: opus 1 ch 48000 Hz");
	assert_contains(r.out, " fr");
	assert_contains(r.out, "title=umms test clip");
	run_clear(&r);

	r = RUN(ctl, "list");
	g_assert_cmpint(r.status, ==, 0);
	assert_contains(r.out, "/org/umms/player/1  playing");
	run_clear(&r);

	r = RUN(ctl, "pause");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	r = RUN(ctl, "seek", "2.5");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	int64_t position = umms_test_get_int64(d.bus, "/org/umms/player/1", "Position");
	g_assert_cmpint(llabs(position - US(2.5)), <=, US(0.02));
	r = RUN(ctl, "seek", "+1");
	run_clear(&r);
	position = umms_test_get_int64(d.bus, "/org/umms/player/1", "Position");
	g_assert_cmpint(llabs(position - US(3.5)), <=, US(0.02));
	r = RUN(ctl, "track", "audio", "1");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, "/org/umms/player/1", "CurrentAudio"), ==, 1);

	/* ummsd's errors come through with their names, exit status 1. */
	r = RUN(ctl, "volume", "5");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "org.umms.Error.InvalidArgument");
	run_clear(&r);
	r = RUN(ctl, "play", "/no/such/file.mkv");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "no such file: /no/such/file.mkv (org.umms.Error.NotFound)");
	run_clear(&r);
	/* Usage mistakes: exit status 2. */
	r = RUN(ctl, "fly");
	g_assert_cmpint(r.status, ==, 2);
	run_clear(&r);

	/* --wait returns at the end of the media. */
	gint64 start = g_get_monotonic_time();
	r = RUN(ctl, "play", "--wait", umms_test_clip("av.mp4"));
	g_assert_cmpint(r.status, ==, 0);
	g_assert_cmpint(g_get_monotonic_time() - start, >=, US(2.8));
	run_clear(&r);

	r = RUN(ctl, "-p", "1", "destroy");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	r = RUN(ctl, "-p", "1", "info");
	g_assert_cmpint(r.status, ==, 1);
	run_clear(&r);
	daemon_stop(&d);

	/* Without ummsd, said plainly. */
	r = RUN(ctl, "list");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "ummsd is not running");
	run_clear(&r);
}

/* ummsctl subtitles on|off|N|FILE and subtitle-delay, as a user types them. */
static void
test_ummsctl_subtitles(void)
{
	struct daemon d;
	daemon_start(&d);
	const char *ctl = umms_test_program("ummsctl");
	g_autofree char *p = umms_test_open(d.bus, "av.mkv");
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, 0);

	struct run r = RUN(ctl, "-p", "1", "subtitles", "off");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, -1);
	r = RUN(ctl, "-p", "1", "subtitles", "on");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, 0);
	/* A file: added and shown; "on" after "off" comes back to it. */
	r = RUN(ctl, "-p", "1", "subtitles", umms_test_clip("subs.en.srt"));
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, 1);
	r = RUN(ctl, "-p", "1", "subtitles", "off");
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, -1);
	r = RUN(ctl, "-p", "1", "subtitles", "on");
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, 1);
	r = RUN(ctl, "-p", "1", "subtitles", "0");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int32(d.bus, p, "CurrentSubtitle"), ==, 0);
	r = RUN(ctl, "-p", "1", "subtitles", "5");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "org.umms.Error.InvalidArgument");
	run_clear(&r);

	r = RUN(ctl, "-p", "1", "subtitle-delay", "250");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int64(d.bus, p, "SubtitleDelay"), ==, 250000);
	r = RUN(ctl, "-p", "1", "subtitle-delay", "-1500.5");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int64(d.bus, p, "SubtitleDelay"), ==, -1500500);
	r = RUN(ctl, "-p", "1", "subtitle-delay");
	g_assert_cmpstr(r.out, ==, "-1500.5 ms\n");
	run_clear(&r);
	r = RUN(ctl, "-p", "1", "info");
	assert_contains(r.out, "SubtitleDelay:    -1500.5 ms");
	assert_contains(r.out, "subtitle 1: subrip en (Subtitle) external kind=text");
	run_clear(&r);
	r = RUN(ctl, "-p", "1", "subtitle-delay", "700000");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "org.umms.Error.InvalidArgument");
	run_clear(&r);
	r = RUN(ctl, "-p", "1", "subtitle-delay", "soon");
	g_assert_cmpint(r.status, ==, 2);
	run_clear(&r);
	g_assert_cmpint(umms_test_get_int64(d.bus, p, "SubtitleDelay"), ==, -1500500);

	/* Media without subtitles: "on" says so. */
	g_autofree char *audio = umms_test_open(d.bus, "audio.ogg");
	r = RUN(ctl, "-p", audio, "subtitles", "on");
	g_assert_cmpint(r.status, ==, 1);
	assert_contains(r.err, "no subtitles");
	run_clear(&r);
	daemon_stop(&d);
}

static void
test_playerctl(void)
{
	struct daemon d;
	daemon_start(&d);
	g_autofree char *p = umms_test_open(d.bus, "av.mkv");
	umms_test_player_do(d.bus, p, "Play", NULL);

	/* MPRIS comes up on its own connection; give it a moment to own its name. */
	umms_test_wait_name(d.bus, "org.mpris.MediaPlayer2.umms.player1", true);
	struct run r = RUN("playerctl", "-l");
	g_assert_cmpint(r.status, ==, 0);
	assert_contains(r.out, "umms.player1");
	run_clear(&r);

	r = RUN("playerctl", "-p", "umms.player1", "status");
	g_assert_cmpstr(r.out, ==, "Playing\n");
	run_clear(&r);
	r = RUN("playerctl", "-p", "umms.player1", "metadata", "title");
	g_assert_cmpstr(r.out, ==, "umms test clip\n");
	run_clear(&r);
	r = RUN("playerctl", "-p", "umms.player1", "metadata", "mpris:length");
	g_assert_cmpstr(r.out, ==, "5000000\n");
	run_clear(&r);

	/* Media keys act on the player. */
	r = RUN("playerctl", "-p", "umms.player1", "pause");
	g_assert_cmpint(r.status, ==, 0);
	run_clear(&r);
	umms_test_wait_property(d.bus, p, "State", g_variant_new_string("paused"), 3000);
	r = RUN("playerctl", "-p", "umms.player1", "position", "2");
	run_clear(&r);
	int64_t position = umms_test_get_int64(d.bus, p, "Position");
	g_assert_cmpint(llabs(position - US(2)), <=, US(0.02));
	r = RUN("playerctl", "-p", "umms.player1", "volume", "0.3");
	run_clear(&r);
	umms_test_wait_property(d.bus, p, "Volume", g_variant_new_double(0.3), 3000);
	r = RUN("playerctl", "-p", "umms.player1", "play-pause");
	run_clear(&r);
	umms_test_wait_property(d.bus, p, "State", g_variant_new_string("playing"), 3000);

	/* Quit destroys the player (not ummsd), and it leaves MPRIS. */
	r = RUN("playerctl", "-p", "umms.player1", "stop");
	run_clear(&r);
	umms_test_wait_property(d.bus, p, "State", g_variant_new_string("stopped"), 3000);
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(d.bus,
		"org.mpris.MediaPlayer2.umms.player1", "/org/mpris/MediaPlayer2",
		"org.mpris.MediaPlayer2", "Quit", NULL, NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
	g_assert_nonnull(reply);
	umms_test_wait_name(d.bus, "org.mpris.MediaPlayer2.umms.player1", false);
	g_autofree char *m = umms_test_call_error(d.bus, p, UMMS_PLAYER, "Play", NULL,
		"org.umms.Error.NotFound");
	daemon_stop(&d);
}

static void
test_activation(void)
{
	/*
	 * A bus that knows ummsd only from the activation file data/ builds
	 * (the installed one, pointed at this build): the first call starts it.
	 */
	g_autofree char *dir = g_build_filename(umms_test_tmpdir(), "activation", NULL);
	g_autofree char *services = g_build_filename(dir, "services", NULL);
	g_assert_cmpint(g_mkdir_with_parents(services, 0700), ==, 0);
	g_autofree char *template = g_build_filename(umms_test_build_root(), "data",
		"org.umms.Service1.service.test", NULL);
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(template, &text, NULL, NULL));
	g_autofree char *service = g_build_filename(services, "org.umms.Service1.service", NULL);
	g_assert_true(g_file_set_contents(service, text, -1, NULL));
	g_autofree char *config = g_build_filename(dir, "bus.conf", NULL);
	g_autofree char *config_text = g_strdup_printf(
		"<busconfig><type>session</type><listen>unix:path=%s/bus</listen>"
		"<auth>EXTERNAL</auth><servicedir>%s</servicedir><policy context=\"default\">"
		"<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/>"
		"<allow own=\"*\"/></policy></busconfig>",
		dir, services);
	g_assert_true(g_file_set_contents(config, config_text, -1, NULL));
	g_autofree char *address = g_strdup_printf("unix:path=%s/bus", dir);
	GSubprocess *bus = umms_test_spawn((const char *const[]){ "dbus-daemon", "--nofork",
		"--nopidfile", "--config-file", config, NULL });
	g_autofree char *socket = g_build_filename(dir, "bus", NULL);
	for (int i = 0; i < 500 && !g_file_test(socket, G_FILE_TEST_EXISTS); i++)
		g_usleep(10000);

	const char *ctl = umms_test_program("ummsctl");
	struct run r = RUN(ctl, "--address", address, "play", umms_test_clip("av.mp4"));
	g_assert_cmpint(r.status, ==, 0);
	g_assert_cmpstr(r.out, ==, "/org/umms/player/1\n");
	run_clear(&r);
	r = RUN(ctl, "--address", address, "list");
	assert_contains(r.out, "/org/umms/player/1  playing");
	run_clear(&r);

	/* The activated ummsd serves the bus that started it, and goes with it. */
	g_subprocess_send_signal(bus, SIGTERM);
	g_assert_true(g_subprocess_wait(bus, NULL, NULL));
	g_object_unref(bus);
}

/* Stops @process with SIGTERM; returns what it wrote on stderr (piped). */
static char *
stop_reading_stderr(GSubprocess *process)
{
	g_subprocess_send_signal(process, SIGTERM);
	g_autofree char *err = NULL;
	GError *error = NULL;
	g_subprocess_communicate_utf8(process, NULL, NULL, NULL, &err, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_if_exited(process));
	g_assert_cmpint(g_subprocess_get_exit_status(process), ==, 0);
	g_object_unref(process);
	return g_steal_pointer(&err);
}

static unsigned
count_lines_saying(const char *text, const char *words)
{
	unsigned n = 0;
	for (const char *at = text; (at = strstr(at, words)); at += strlen(words))
		n++;
	return n;
}

static void
test_ummsd_no_runtime_dir(void)
{
	/* A service started outside a login session: D-Bus works, without video socket. */
	GDBusConnection *bus = umms_test_connect();
	GSubprocess *ummsd = umms_test_spawn_ummsd_env(NULL,
		(const char *const[]){ "XDG_RUNTIME_DIR", NULL }, G_SUBPROCESS_FLAGS_STDERR_PIPE);
	umms_test_wait_name(bus, UMMS_NAME, true);
	g_autofree char *p = umms_test_open(bus, "av.mp4");
	umms_test_player_do(bus, p, "Play", NULL);
	g_autofree char *state = umms_test_get_string(bus, p, "State");
	g_assert_cmpstr(state, ==, "playing");
	umms_test_wait_position(bus, p, US(0.5), false, 10000);

	g_autofree char *err = stop_reading_stderr(ummsd);
	g_test_message("ummsd said:\n%s", err);
	g_assert_cmpuint(count_lines_saying(err, "no video socket served: XDG_RUNTIME_DIR "
		"is not set"), ==, 1);
	g_assert_null(strstr(err, ".cache"));
	umms_test_wait_name(bus, UMMS_NAME, false);
	g_object_unref(bus);
}

static bool
has_sound_device(void)
{
	if (g_file_test("/dev/dsp", G_FILE_TEST_EXISTS))
		return true;
	g_autoptr(GDir) dir = g_dir_open("/dev/snd", 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)))
		if (g_str_has_prefix(name, "pcmC") && g_str_has_suffix(name, "p"))
			return true;
	return false;
}

static void
test_ummsd_no_sound(void)
{
	if (has_sound_device()) {
		g_test_skip("this machine has a sound device");
		return;
	}
	/* No sound server either (the variables point libpulse and PipeWire nowhere). */
	GDBusConnection *bus = umms_test_connect();
	GSubprocess *ummsd = umms_test_spawn_ummsd_env(
		(const char *const[]){ "--set", "engine.audio-output=auto", NULL },
		(const char *const[]){ "PULSE_SERVER=unix:/nonexistent/pulse",
			"PIPEWIRE_REMOTE=/nonexistent/pipewire", NULL },
		G_SUBPROCESS_FLAGS_STDERR_PIPE);
	umms_test_wait_name(bus, UMMS_NAME, true);

	/* Two players: the line is said once. The clip plays its 3 s, to the end. */
	g_autofree char *first = umms_test_open(bus, "av.mp4");
	g_autofree char *p = umms_test_open(bus, "av.mp4");
	g_assert_true(umms_test_get_bool(bus, p, "HasAudio"));
	struct umms_test_signals *signals = umms_test_signals_watch(bus, p);
	gint64 start = g_get_monotonic_time();
	umms_test_player_do(bus, p, "Play", NULL);
	g_variant_unref(umms_test_signals_wait(signals, "Eos", 20000));
	double seconds = (g_get_monotonic_time() - start) / 1e6;
	g_test_message("3 s of audio and video played in %.2f s", seconds);
	g_assert_cmpfloat(seconds, >=, 2.9);
	g_assert_cmpfloat(seconds, <, 10);
	umms_test_signals_free(signals);

	g_autofree char *err = stop_reading_stderr(ummsd);
	g_test_message("ummsd said:\n%s", err);
	g_assert_cmpuint(count_lines_saying(err, "no sound device or sound server"), ==, 1);
	g_assert_null(strstr(err, "ALSA lib"));
	g_assert_null(strstr(err, "AL lib"));
	umms_test_wait_name(bus, UMMS_NAME, false);
	g_object_unref(bus);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_func("/tools/ummsd-options", test_ummsd_options);
	g_test_add_func("/tools/ummsd-instance", test_ummsd_instance);
	g_test_add_func("/tools/ummsd-no-runtime-dir", test_ummsd_no_runtime_dir);
	g_test_add_func("/tools/ummsd-no-sound", test_ummsd_no_sound);
	g_test_add_func("/tools/ummsctl", test_ummsctl);
	g_test_add_func("/tools/ummsctl-subtitles", test_ummsctl_subtitles);
	g_test_add_func("/tools/playerctl", test_playerctl);
	g_test_add_func("/tools/activation", test_activation);
	return g_test_run();
}
