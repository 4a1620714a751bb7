/*
 * The time-shift tests' live source and screen (timeshift-live.h). Every
 * frame of the source says when it was made: its left half is grey level
 * (t mod 16), its right half (t / 16 mod 16), t counting half seconds of
 * the source's clock.
 */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include "harness.h"
#include "image.h"
#include "sources.h"
#include "timeshift-live.h"

/* Streaming thread: paints the frame's time into it (see the top). */
static GstPadProbeReturn
paint_cb(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	return umms_test_live_paint_time(info, GST_SECOND / 2);
}

void
live_start(struct live *live)
{
	live->port = umms_test_free_udp_port();
	/* A key frame a second: the ring's files are a second each. */
	live->pipeline = umms_test_live_udp_start(live->port, 25, paint_cb);
}

/* The source's present, in half seconds (as painted now). */
int
live_now(struct live *live)
{
	gint64 position = 0;
	g_assert_true(gst_element_query_position(live->pipeline, GST_FORMAT_TIME, &position));
	return (int)(position / (GST_SECOND / 2));
}

void
live_stop(struct live *live)
{
	umms_test_live_udp_stop(live->pipeline);
}

/* ---- ummsd and its screen ---------------------------------------------------- */

/* ummsd on a headless screen, time-shift in files of 1 s (@extra: one more setting). */
void
start_with(struct umms_test *t, const char *extra)
{
	g_autofree char *window = g_strdup_printf("recording.timeshift-window=%d", WINDOW_S);
	g_autofree char *mode = g_strdup_printf("display.mode=%dx%d", W, H);
	const char *const overrides[] = { "display.enabled=true", "display.headless=true",
		"display.renderer=pixman", mode, "display.compositor=false", "display.input=false",
		"recording.timeshift-segment=1", window, extra, NULL };
	umms_test_restart(t, overrides);
}

void
start(struct umms_test *t)
{
	start_with(t, NULL);
}

/* The moment of the source on screen now, in half seconds (mod 256). */
int
shown(struct umms_test *t, const char *what)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "Capture",
		g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	int code[2];
	for (int half = 0; half < 2; half++) {
		uint32_t pixel = umms_test_image_pixel(image, W / 4 + half * W / 2, H / 2);
		int grey = (int)(pixel >> 8 & 0xff);
		/* Limited range: Y 16 + 14 k is grey 14 k × 255 / 219. */
		double k = grey * 219.0 / 255.0 / 14.0;
		code[half] = (int)(k + 0.5);
		if (fabs(k - code[half]) > 0.35 || code[half] > 15)
			g_error("%s: grey %d at the %s half is no level of the code (%06x)", what, grey,
				half ? "right" : "left", pixel);
	}
	umms_test_image_free(image);
	return code[0] + 16 * code[1];
}

/* Half seconds from @from to @to, in the painted code's cycle of 256. */
int
ticks(int from, int to)
{
	return ((to - from) % 256 + 256 + 128) % 256 - 128;
}

void
window(struct umms_test *t, const char *player, int64_t *start_us, int64_t *end_us)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, player, UMMS_PLAYER, "TimeshiftWindow");
	g_variant_get(v, "(xx)", start_us, end_us);
}

void
wait_frames(struct umms_test *t, const char *player)
{
	for (int i = 0; i < 600; i++) {
		g_autoptr(GVariant) stats = umms_test_get(t->bus, player, UMMS_PLAYER, "Stats");
		guint64 displayed = 0;
		g_variant_lookup(stats, "frames-displayed", "t", &displayed);
		if (displayed > 0)
			return;
		umms_test_sleep(100);
	}
	g_error("no frame of %s reached the screen in 60 s", player);
}

void
set_timeshift(struct umms_test *t, const char *player, bool on)
{
	GError *error = NULL;
	if (!umms_test_set(t->bus, player, "TimeshiftEnabled", g_variant_new_boolean(on), &error))
		g_error("TimeshiftEnabled=%d: %s", on, error->message);
}

/* `ummsctl -p @player @command @arg`: its output; its exit status in @status. */
char *
ummsctl(const char *player, const char *command, const char *arg, int *status)
{
	const char *const argv[] = { umms_test_program("ummsctl"), "-p", player, command, arg,
		NULL };
	g_autoptr(GError) error = NULL;
	g_autoptr(GSubprocess) p = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDOUT_PIPE |
		G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
	g_assert_no_error(error);
	char *out = NULL;
	g_subprocess_communicate_utf8(p, NULL, NULL, &out, NULL, &error);
	g_assert_no_error(error);
	*status = g_subprocess_get_exit_status(p);
	return out;
}

/* Every State a player's PropertiesChanged said, in order, joined by spaces. */
static void
state_changed_cb(GDBusConnection *bus, const char *sender, const char *path,
	const char *iface, const char *signal, GVariant *params, gpointer data)
{
	GString *states = data;
	g_autoptr(GVariant) changed = g_variant_get_child_value(params, 1);
	const char *state;
	if (g_variant_lookup(changed, "State", "&s", &state))
		g_string_append_printf(states, "%s ", state);
}

/* MPRIS's CanSeek for @player (org.mpris.MediaPlayer2.umms.playerN). */
static bool
mpris_can_seek(struct umms_test *t, const char *player)
{
	g_autofree char *name = g_strdup_printf("org.mpris.MediaPlayer2.umms.player%s",
		strrchr(player, '/') + 1);
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) r = g_dbus_connection_call_sync(t->bus, name,
		"/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", "org.mpris.MediaPlayer2.Player", "CanSeek"),
		G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, 10000, NULL, &error);
	g_assert_no_error(error);
	g_autoptr(GVariant) v = NULL;
	g_variant_get(r, "(v)", &v);
	return g_variant_get_boolean(v);
}

static char *
live_uri(struct live *live)
{
	return g_strdup_printf("udp://127.0.0.1:%d", live->port);
}

/* A player of the live source, playing it on the screen, time-shift off. */
char *
live_source_player(struct umms_test *t, struct live *live)
{
	g_autofree char *uri = live_uri(live);
	char *player = umms_test_create_player(t->bus, NULL);
	umms_test_player_do(t->bus, player, "SetUri", g_variant_new("(s)", uri));
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", player));
	umms_test_player_do(t->bus, player, "Play", NULL);
	wait_frames(t, player);
	g_assert_true(umms_test_get_bool(t->bus, player, "IsLive"));
	g_assert_false(umms_test_get_bool(t->bus, player, "TimeshiftEnabled"));
	g_assert_false(mpris_can_seek(t, player));
	int64_t s, e;
	window(t, player, &s, &e);
	g_assert_cmpint(s, ==, -1);
	g_assert_cmpint(e, ==, -1);
	return player;
}

/* Waits for the ring to be played, in @state; seconds since @begun. */
double
wait_ring(struct umms_test *t, const char *player, const char *state, gint64 begun)
{
	for (;;) {
		int64_t s, e;
		window(t, player, &s, &e);
		g_autofree char *now = umms_test_get_string(t->bus, player, "State");
		if (s >= 0 && strcmp(now, state) == 0)
			return (g_get_monotonic_time() - begun) / 1e6;
		if (g_get_monotonic_time() - begun > 60 * G_USEC_PER_SEC)
			g_error("time-shift gave no window in 60 s (state %s)", now);
		umms_test_sleep(100);
	}
}

/* A live player playing from its ring, shown on the screen (@ctl: ummsctl turns it on). */
char *
live_player(struct umms_test *t, struct live *live, bool ctl)
{
	char *player = live_source_player(t, live);
	g_autofree char *uri = live_uri(live);
	int64_t s, e;

	/* The switch to the ring is no stop for the player's clients. */
	GString *states = g_string_new(NULL);
	guint watch = g_dbus_connection_signal_subscribe(t->bus, NULL,
		"org.freedesktop.DBus.Properties", "PropertiesChanged", player, UMMS_PLAYER,
		G_DBUS_SIGNAL_FLAGS_NONE, state_changed_cb, states, NULL);
	guint64 live_worker = umms_test_stat(t->bus, player, "engine-pid");
	if (ctl) {
		int status;
		g_autofree char *out = ummsctl(player, "timeshift", "on", &status);
		g_assert_cmpint(status, ==, 0);
	} else {
		set_timeshift(t, player, true);
	}
	g_assert_true(umms_test_get_bool(t->bus, player, "TimeshiftEnabled"));
	double took = wait_ring(t, player, "playing", g_get_monotonic_time());
	window(t, player, &s, &e);
	g_test_message("playing from the ring %.1f s after asking; window %.1f to %.1f s",
		took, s / 1e6, e / 1e6);
	g_dbus_connection_signal_unsubscribe(t->bus, watch);
	/*
	 * The ring plays in a worker of its own (its first URI), without the
	 * network the live source's worker has.
	 */
	guint64 ring_worker = umms_test_stat(t->bus, player, "engine-pid");
	g_assert_cmpuint(live_worker, >, 0);
	g_assert_cmpuint(ring_worker, >, 0);
	g_assert_cmpuint(ring_worker, !=, live_worker);
	g_test_message("State meanwhile: %s", states->str);
	g_assert_null(strstr(states->str, "stopped"));
	g_string_free(states, TRUE);
	g_assert_true(umms_test_get_bool(t->bus, player, "IsLive"));
	g_assert_true(umms_test_get_bool(t->bus, player, "Seekable"));
	/* Desktop media controls (MPRIS) get a seek bar too. */
	g_assert_true(mpris_can_seek(t, player));
	g_autofree char *still = umms_test_get_string(t->bus, player, "Uri");
	g_assert_cmpstr(still, ==, uri);
	return player;
}
