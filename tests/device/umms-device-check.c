/*
 * umms-device-check: what tests/device/check asserts on a lent GPU machine
 * (NVIDIA NVDEC, NVIDIA's EGL), as a client of an ummsd already serving
 * the session bus with a headless gles2 screen and a pool of one hardware
 * H.264 decoder ([resources] decoders.h264=1). See tests/device/README.md.
 *
 *   umms-device-check check CLIP REFERENCE.png OUT_DIR DECODER
 *     (a) the first SetUri: DECODER (e.g. nvh264dec) decodes, copies 0, the
 *         time to the first frame; (b) a background and a foreground player
 *         competing for the one unit: ResourceLost, software meanwhile,
 *         ResourceRestored and DECODER again; (c) the screen captured with
 *         the clip paused at 2 s, compared with REFERENCE.png.
 *     One "PASS: ..." or "FAIL: ..." line per check, then
 *     "umms-device-check: N passed, M failed"; exit status 0 when none failed.
 *   umms-device-check reference CLIP OUT.png
 *     Writes the picture (c) compares with: run by tests/device/pack on
 *     Mesa's llvmpipe.
 *
 * Every wait has a bound, and a watchdog ends the program after
 * WATCHDOG_S seconds whatever it waits for.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#define SERVICE "org.umms.Service1"
#define ROOT "/org/umms"
#define MANAGER "org.umms.Manager1"
#define PLAYER "org.umms.Player1"
#define RESOURCES "org.umms.Resources1"
#define DISPLAY_PATH "/org/umms/display/0"
#define DISPLAY "org.umms.Display1"

#define CALL_TIMEOUT_MS 20000
#define WAIT_MS 10000
#define WATCHDOG_S 120
/* The first frame after the first SetUri, plugins loaded at start. */
#define FIRST_FRAME_BOUND_MS 1500.0
/* The paused frame the screen is captured with, µs. */
#define CAPTURE_POSITION 2000000
/* Screens alike: mean difference per channel, share of pixels within PIXEL_TOLERANCE. */
#define MEAN_TOLERANCE 2.0
#define PIXEL_TOLERANCE 16
#define PIXEL_SHARE 0.99

static GDBusConnection *bus;
static GPtrArray *signals_seen; /* "PATH MEMBER" */
static int passed, failed;

static double
now_ms(void)
{
	return (double)g_get_monotonic_time() / 1000.0;
}

G_GNUC_PRINTF(2, 3) static bool
report(bool ok, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	printf("%s: %s\n", ok ? "PASS" : "FAIL", text);
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
	return ok;
}

G_GNUC_PRINTF(1, 2) static void
note(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	printf("info: %s\n", text);
	fflush(stdout);
}

static gpointer
watchdog_thread(gpointer data)
{
	g_usleep((gulong)WATCHDOG_S * G_USEC_PER_SEC);
	printf("FAIL: the check did not end within %d s (watchdog)\n", WATCHDOG_S);
	printf("umms-device-check: %d passed, %d failed\n", passed, failed + 1);
	fflush(stdout);
	_exit(3);
}

/* Runs the main context (signals) for @ms. */
static void
pump(int ms)
{
	double end = now_ms() + ms;
	while (now_ms() < end) {
		while (g_main_context_iteration(NULL, FALSE))
			;
		g_usleep(2000);
	}
}

static void
signal_cb(GDBusConnection *connection, const char *sender, const char *path,
	const char *interface, const char *member, GVariant *parameters, gpointer data)
{
	g_ptr_array_add(signals_seen, g_strdup_printf("%s %s", path, member));
	note("signal %s.%s on %s", interface, member, path);
}

/* Waits up to @ms for @member on @path, and forgets it. */
static bool
wait_signal(const char *path, const char *member, int ms)
{
	g_autofree char *want = g_strdup_printf("%s %s", path, member);
	double end = now_ms() + ms;
	do {
		for (guint i = 0; i < signals_seen->len; i++) {
			if (strcmp(signals_seen->pdata[i], want) == 0) {
				g_ptr_array_remove_index(signals_seen, i);
				return true;
			}
		}
		pump(5);
	} while (now_ms() < end);
	return false;
}

static GVariant *
call(const char *path, const char *interface, const char *method, GVariant *params,
	GError **error)
{
	return g_dbus_connection_call_sync(bus, SERVICE, path, interface, method, params, NULL,
		G_DBUS_CALL_FLAGS_NONE, CALL_TIMEOUT_MS, NULL, error);
}

/* A call whose failure is reported (as a failed check) and returns false. */
static bool
call_ok(const char *path, const char *interface, const char *method, GVariant *params)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = call(path, interface, method, params, &error);
	if (!reply)
		report(false, "%s.%s on %s: %s", interface, method, path, error->message);
	return reply != NULL;
}

static GVariant *
get(const char *path, const char *interface, const char *property)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GVariant) reply = call(path, "org.freedesktop.DBus.Properties", "Get",
		g_variant_new("(ss)", interface, property), &error);
	if (!reply) {
		note("%s.%s of %s: %s", interface, property, path, error->message);
		return NULL;
	}
	GVariant *value = NULL;
	g_variant_get(reply, "(v)", &value);
	return value;
}

static char *
get_string(const char *path, const char *interface, const char *property)
{
	g_autoptr(GVariant) v = get(path, interface, property);
	return g_strdup(v && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING) ?
		g_variant_get_string(v, NULL) : "");
}

static uint64_t
stat_u64(const char *player, const char *key)
{
	g_autoptr(GVariant) stats = get(player, PLAYER, "Stats");
	guint64 value = 0;
	if (stats)
		g_variant_lookup(stats, key, "t", &value);
	return value;
}

static int64_t
position(const char *player)
{
	g_autoptr(GVariant) v = get(player, PLAYER, "Position");
	return v ? g_variant_get_int64(v) : -1;
}

static char *
create_player(const char *priority)
{
	g_autoptr(GError) error = NULL;
	GVariantBuilder options;
	g_variant_builder_init(&options, G_VARIANT_TYPE_VARDICT);
	g_variant_builder_add(&options, "{sv}", "priority", g_variant_new_string(priority));
	g_autoptr(GVariant) reply = call(ROOT, MANAGER, "CreatePlayer",
		g_variant_new("(a{sv})", &options), &error);
	if (!reply) {
		report(false, "CreatePlayer (%s): %s", priority, error->message);
		return NULL;
	}
	char *path = NULL;
	g_variant_get(reply, "(o)", &path);
	return path;
}

static void
destroy_player(const char *path)
{
	if (path)
		call_ok(ROOT, MANAGER, "DestroyPlayer", g_variant_new("(o)", path));
}

/*
 * Waits up to @ms for the player's Decoder to name @decoder (@named) or
 * not (!@named); returns the last Decoder seen.
 */
static char *
wait_decoder(const char *player, const char *decoder, bool named, int ms)
{
	double end = now_ms() + ms;
	for (;;) {
		char *now = get_string(player, PLAYER, "Decoder");
		if (*now && (strstr(now, decoder) != NULL) == named)
			return now;
		if (now_ms() >= end)
			return now;
		g_free(now);
		pump(20);
	}
}

static void
note_pool(void)
{
	g_autoptr(GVariant) pools = get(ROOT, RESOURCES, "Decoders");
	g_autofree char *text = pools ? g_variant_print(pools, FALSE) : g_strdup("?");
	note("Resources1.Decoders: %s", text);
}

/* (a) The first SetUri of the service: hardware, no copies, how soon. */
static void
check_first(const char *uri, const char *decoder)
{
	g_autofree char *player = create_player("foreground");
	g_autofree char *name = NULL;
	if (!player)
		return;
	double t0 = now_ms();
	if (!call_ok(player, PLAYER, "SetUri", g_variant_new("(s)", uri)))
		goto out;
	double opened = now_ms() - t0;
	if (!call_ok(player, PLAYER, "Play", NULL))
		goto out;
	double first = -1;
	while (now_ms() - t0 < WAIT_MS) {
		if (stat_u64(player, "frames-decoded") > 0) {
			first = now_ms() - t0;
			break;
		}
		g_usleep(2000);
	}
	report(first >= 0 && first < FIRST_FRAME_BOUND_MS,
		"first SetUri: opened in %.0f ms, first frame decoded %.0f ms after SetUri "
		"(bound %.0f ms)", opened, first, FIRST_FRAME_BOUND_MS);
	call_ok(DISPLAY_PATH, DISPLAY, "ShowPlayer", g_variant_new("(o)", player));
	pump(1500);
	name = get_string(player, PLAYER, "Decoder");
	report(strstr(name, decoder) != NULL, "first player's Decoder is \"%s\" (want %s)",
		name, decoder);
	uint64_t copies = stat_u64(player, "copies");
	uint64_t decoded = stat_u64(player, "frames-decoded");
	uint64_t presented = stat_u64(player, "frames-presented");
	report(copies == 0 && decoded > 0 && presented > 0,
		"first player's Stats: copies %" G_GUINT64_FORMAT " (want 0), frames decoded %"
		G_GUINT64_FORMAT ", presented %" G_GUINT64_FORMAT " (want > 0)",
		copies, decoded, presented);
	call_ok(DISPLAY_PATH, DISPLAY, "ShowPlayer", g_variant_new("(o)", "/"));
out:
	destroy_player(player);
}

/* Frames @player decodes in @ms (a counter reset by a reopen counts from 0). */
static uint64_t
frames_in(const char *player, int ms, double *moved_s)
{
	uint64_t f0 = stat_u64(player, "frames-decoded");
	int64_t p0 = position(player);
	pump(ms);
	uint64_t f1 = stat_u64(player, "frames-decoded");
	*moved_s = (double)(position(player) - p0) / 1e6;
	return f1 >= f0 ? f1 - f0 : f1;
}

/* (b) Two priorities, one unit: preemption and the reopen both ways. */
static void
check_compete(const char *uri, const char *decoder)
{
	g_autofree char *low = create_player("background");
	g_autofree char *high = NULL, *d1 = NULL, *d2 = NULL, *d3 = NULL, *d4 = NULL;
	g_autofree char *state = NULL;
	if (!low)
		return;
	if (!call_ok(low, PLAYER, "SetUri", g_variant_new("(s)", uri)) ||
			!call_ok(low, PLAYER, "Play", NULL))
		goto out;
	d1 = wait_decoder(low, decoder, true, WAIT_MS);
	report(strstr(d1, decoder) != NULL, "background player alone: Decoder \"%s\"", d1);
	note_pool();

	high = create_player("foreground");
	if (!high || !call_ok(high, PLAYER, "SetUri", g_variant_new("(s)", uri)) ||
			!call_ok(high, PLAYER, "Play", NULL))
		goto out;
	report(wait_signal(low, "ResourceLost", WAIT_MS),
		"background player told ResourceLost when the foreground one played");
	d2 = wait_decoder(high, decoder, true, WAIT_MS);
	report(strstr(d2, decoder) != NULL, "foreground player took the unit: Decoder \"%s\"",
		d2);
	d3 = wait_decoder(low, decoder, false, WAIT_MS);
	report(!strstr(d3, decoder) && strstr(d3, "software"),
		"background player went on in software: Decoder \"%s\"", d3);
	note_pool();
	double moved = 0;
	uint64_t frames = frames_in(low, 2000, &moved);
	state = get_string(low, PLAYER, "State");
	report(frames >= 20 && moved > 1.0 && strcmp(state, "playing") == 0,
		"background player kept playing in software: %" G_GUINT64_FORMAT
		" frames decoded and %.2f s played in 2 s, state %s", frames, moved, state);

	destroy_player(high);
	report(wait_signal(low, "ResourceRestored", WAIT_MS),
		"background player told ResourceRestored when the foreground one was destroyed");
	d4 = wait_decoder(low, decoder, true, WAIT_MS);
	report(strstr(d4, decoder) != NULL, "background player back on hardware: Decoder \"%s\"",
		d4);
	note_pool();
	frames = frames_in(low, 1000, &moved);
	report(frames >= 10 && moved > 0.5,
		"background player kept playing after the reopen: %" G_GUINT64_FORMAT
		" frames decoded and %.2f s played in 1 s", frames, moved);
	destroy_player(low);
	return;
out:
	destroy_player(high);
	destroy_player(low);
}

/* The screen showing @uri paused at CAPTURE_POSITION, as PNG at @png; the Decoder used. */
static char *
capture_frame(const char *uri, const char *png, GError **error)
{
	g_autofree char *player = create_player("foreground");
	g_autoptr(GVariant) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL, stats = NULL;
	g_autofree char *path = NULL, *text = NULL;
	char *decoder = NULL;
	if (!player) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "no player");
		return NULL;
	}
	r1 = call(player, PLAYER, "SetUri", g_variant_new("(s)", uri), error);
	r2 = r1 ? call(player, PLAYER, "Pause", NULL, error) : NULL;
	r3 = r2 ? call(player, PLAYER, "SetPosition", g_variant_new("(x)",
		(gint64)CAPTURE_POSITION), error) : NULL;
	if (!r3)
		goto out;
	/* Seeked, and at the position asked (an earlier Seeked may come first). */
	double end = now_ms() + WAIT_MS;
	int64_t at = -1;
	while (!(wait_signal(player, "Seeked", 100) &&
			llabs((at = position(player)) - CAPTURE_POSITION) < 20000)) {
		if (now_ms() > end) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
				"no Seeked to %d µs after SetPosition (Position %" G_GINT64_FORMAT ")",
				CAPTURE_POSITION, at);
			goto out;
		}
	}
	r4 = call(DISPLAY_PATH, DISPLAY, "ShowPlayer", g_variant_new("(o)", player), error);
	if (!r4)
		goto out;
	end = now_ms() + WAIT_MS;
	for (;;) {
		g_free(path);
		path = get_string(DISPLAY_PATH, DISPLAY, "VideoPath");
		if (strcmp(path, "composited") == 0)
			break;
		if (now_ms() > end) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
				"VideoPath is \"%s\", never \"composited\"", path);
			goto out;
		}
		pump(20);
	}
	/* A few frames of the virtual vblank: the paused picture is on screen. */
	pump(500);
	r5 = call(DISPLAY_PATH, DISPLAY, "Capture", g_variant_new("(s)", png), error);
	if (r5)
		decoder = get_string(player, PLAYER, "Decoder");
	stats = get(DISPLAY_PATH, DISPLAY, "RenderStats");
	text = stats ? g_variant_print(stats, FALSE) : g_strdup("?");
	note("Display1.RenderStats: %s", text);
out:
	call_ok(DISPLAY_PATH, DISPLAY, "ShowPlayer", g_variant_new("(o)", "/"));
	destroy_player(player);
	return decoder;
}

/* A PNG as packed RGB (GStreamer's pngdec), NULL with @error. */
static guint8 *
load_png(const char *path, int *width, int *height, GError **error)
{
	g_autofree char *quoted = g_strescape(path, NULL);
	g_autofree char *description = g_strdup_printf("filesrc location=\"%s\" blocksize=%d "
		"! pngdec ! videoconvert ! appsink name=sink caps=video/x-raw,format=RGB "
		"sync=false", quoted, 16 << 20);
	GstElement *pipeline = gst_parse_launch(description, error);
	if (!pipeline)
		return NULL;
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
	guint8 *rgb = NULL;
	GstVideoInfo info;
	GstVideoFrame frame;
	if (sample && gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
			gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample),
				GST_MAP_READ)) {
		*width = GST_VIDEO_INFO_WIDTH(&info);
		*height = GST_VIDEO_INFO_HEIGHT(&info);
		rgb = g_malloc((size_t)*width * (size_t)*height * 3);
		const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
		int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
		for (int y = 0; y < *height; y++)
			memcpy(rgb + (size_t)y * (size_t)*width * 3, data + (size_t)y * (size_t)stride,
				(size_t)*width * 3);
		gst_video_frame_unmap(&frame);
	} else {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot decode %s", path);
	}
	if (sample)
		gst_sample_unref(sample);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	return rgb;
}

/* (c) The gles2 screen on this machine's EGL against llvmpipe's. */
static void
check_screen(const char *uri, const char *reference, const char *out_dir, const char *want)
{
	g_autofree char *png = g_build_filename(out_dir, "capture-device.png", NULL);
	g_autoptr(GError) error = NULL;
	g_autofree char *decoder = capture_frame(uri, png, &error);
	if (!decoder) {
		report(false, "screen capture: %s", error->message);
		return;
	}
	note("captured with Decoder \"%s\" (%s expected)", decoder, want);
	int w1 = 0, h1 = 0, w2 = 0, h2 = 0;
	g_autofree guint8 *a = load_png(png, &w1, &h1, &error);
	g_autofree guint8 *b = a ? load_png(reference, &w2, &h2, &error) : NULL;
	if (!a || !b) {
		report(false, "screen capture: %s", error->message);
		return;
	}
	if (w1 != w2 || h1 != h2) {
		report(false, "screen capture is %dx%d, the reference %dx%d", w1, h1, w2, h2);
		return;
	}
	size_t pixels = (size_t)w1 * (size_t)h1, near = 0;
	double sum = 0;
	int worst = 0;
	for (size_t i = 0; i < pixels; i++) {
		int most = 0;
		for (int c = 0; c < 3; c++) {
			int d = abs((int)a[i * 3 + c] - (int)b[i * 3 + c]);
			sum += d;
			most = MAX(most, d);
		}
		worst = MAX(worst, most);
		if (most <= PIXEL_TOLERANCE)
			near++;
	}
	double mean = sum / (double)(pixels * 3), share = (double)near / (double)pixels;
	report(mean <= MEAN_TOLERANCE && share >= PIXEL_SHARE,
		"gles2 screen %dx%d against llvmpipe's: mean difference %.3f per channel (bound "
		"%.1f), %.2f%% of pixels within %d (bound %.0f%%), largest %d",
		w1, h1, mean, MEAN_TOLERANCE, share * 100, PIXEL_TOLERANCE, PIXEL_SHARE * 100, worst);
}

/* Waits up to @ms for ummsd to own its name on the bus. */
static bool
wait_service(int ms)
{
	double end = now_ms() + ms;
	do {
		g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
			"/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
			g_variant_new("(s)", SERVICE), G_VARIANT_TYPE("(b)"), G_DBUS_CALL_FLAGS_NONE,
			CALL_TIMEOUT_MS, NULL, NULL);
		gboolean owned = FALSE;
		if (reply)
			g_variant_get(reply, "(b)", &owned);
		if (owned)
			return true;
		g_usleep(20000);
	} while (now_ms() < end);
	return false;
}

/* The decoders of class Hardware GStreamer registered here (its registry, not ummsd's). */
static void
note_hardware_decoders(void)
{
	GList *features = gst_registry_get_feature_list(gst_registry_get(),
		GST_TYPE_ELEMENT_FACTORY);
	GString *names = g_string_new(NULL);
	for (GList *l = features; l; l = l->next) {
		const char *klass = gst_element_factory_get_metadata(l->data,
			GST_ELEMENT_METADATA_KLASS);
		if (klass && strstr(klass, "Decoder") && strstr(klass, "Hardware"))
			g_string_append_printf(names, "%s%s", names->len ? " " : "",
				gst_plugin_feature_get_name(l->data));
	}
	gst_plugin_feature_list_free(features);
	note("hardware decoders in GStreamer's registry: %s", names->len ? names->str : "none");
	g_string_free(names, TRUE);
}

static int
usage(void)
{
	fprintf(stderr, "usage: umms-device-check check CLIP REFERENCE.png OUT_DIR DECODER\n"
		"       umms-device-check reference CLIP OUT.png\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	gst_init(&argc, &argv);
	bool check = argc == 6 && strcmp(argv[1], "check") == 0;
	bool reference = argc == 4 && strcmp(argv[1], "reference") == 0;
	if (!check && !reference)
		return usage();
	g_thread_unref(g_thread_new("watchdog", watchdog_thread, NULL));
	g_autoptr(GError) error = NULL;
	bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!bus) {
		printf("FAIL: no session bus: %s\numms-device-check: 0 passed, 1 failed\n",
			error->message);
		return 1;
	}
	if (!wait_service(30000)) {
		printf("FAIL: %s never appeared on the bus\n"
			"umms-device-check: 0 passed, 1 failed\n", SERVICE);
		return 1;
	}
	signals_seen = g_ptr_array_new_with_free_func(g_free);
	g_dbus_connection_signal_subscribe(bus, SERVICE, PLAYER, NULL, NULL, NULL,
		G_DBUS_SIGNAL_FLAGS_NONE, signal_cb, NULL, NULL);
	g_autofree char *absolute = g_canonicalize_filename(argv[2], NULL);
	g_autofree char *uri = g_filename_to_uri(absolute, NULL, &error);
	if (!uri) {
		printf("FAIL: %s\numms-device-check: 0 passed, 1 failed\n", error->message);
		return 1;
	}

	if (reference) {
		g_autofree char *decoder = capture_frame(uri, argv[3], &error);
		if (!decoder) {
			fprintf(stderr, "umms-device-check: %s\n", error->message);
			return 1;
		}
		printf("reference %s written, Decoder \"%s\"\n", argv[3], decoder);
		return 0;
	}

	note_hardware_decoders();
	g_autofree char *va = get_string(ROOT, RESOURCES, "VaApi");
	note("Resources1.VaApi: %s", va);
	note_pool();
	check_first(uri, argv[5]);
	check_compete(uri, argv[5]);
	check_screen(uri, argv[3], argv[4], argv[5]);
	printf("umms-device-check: %d passed, %d failed\n", passed, failed);
	g_ptr_array_free(signals_seen, TRUE);
	g_object_unref(bus);
	return failed == 0 ? 0 : 1;
}
