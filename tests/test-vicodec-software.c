/*
 * vicodec's clip (test-vicodec.c: Linux's virtual V4L2 memory-to-memory
 * FWHT codec, in the KMS test VM) without vicodec's decoder: the test-only
 * software decoder (fwht-dec.c) against vicodec's, frame by frame; the clip in software with decoders.fwht=0; a
 * background player whose unit a foreground player takes (ResourceLost, on
 * in software) and gives back (ResourceRestored, vicodec again), the bars on
 * the screen each time; `ummsctl resources` with vicodec's and vivid's units.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gst/app/app.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include "fwht-dec.h"
#include "fwht-parse.h"
#include "harness.h"
#include "image.h"
#include "vicodec-util.h"

#define DISPLAY "/org/umms/display/0"
#define DISPLAY1 "org.umms.Display1"
#define RESOURCES1 "org.umms.Resources1"

/* vkms's screen and the clip on it (vicodec-util.h). */
#define W UMMS_TEST_VICODEC_SCREEN_W
#define H UMMS_TEST_VICODEC_SCREEN_H
#define CLIP_W UMMS_TEST_VICODEC_CLIP_W
#define CLIP_H UMMS_TEST_VICODEC_CLIP_H
static const uint32_t *const bars = umms_test_vicodec_bars;

/*
 * The clip, made by vicodec's encoder: raw FWHT frames, as v4l2fwhtenc
 * writes them; 10 s encoded (each frame takes vicodec a tenth of a second
 * or more under emulation), then repeated to 90 s, so that players that
 * lose their decoder and get it back, slowed down by a loaded machine,
 * stay well before the end. Each repetition starts with an I-frame.
 */
#define ENCODED_S 10
#define REPEATS 9

static void
repeat_clip(const char *path)
{
	g_autofree char *once = NULL;
	gsize size = 0;
	g_autoptr(GError) error = NULL;
	g_assert_true(g_file_get_contents(path, &once, &size, &error));
	g_assert_cmpuint(size, >, 0);
	GString *all = g_string_sized_new(size * REPEATS);
	for (int i = 0; i < REPEATS; i++)
		g_string_append_len(all, once, (gssize)size);
	g_assert_true(g_file_set_contents(path, all->str, (gssize)all->len, &error));
	g_string_free(all, TRUE);
}

static char *
make_clip(void)
{
	char *path = umms_test_vicodec_make_clip(ENCODED_S);
	repeat_clip(path);
	return path;
}

static void
show(struct umms_test *t, const char *path)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, DISPLAY, DISPLAY1, "ShowPlayer",
		g_variant_new("(o)", path));
}

/* A player of @priority (NULL: the default) with the clip, on the screen if @shown, playing. */
static char *
start_player(struct umms_test *t, const char *clip, const char *priority, bool shown)
{
	g_autofree char *options = priority ?
		g_strdup_printf("{'priority': <'%s'>}", priority) : NULL;
	char *path = umms_test_create_player(t->bus, options);
	/*
	 * On the screen before it opens: the decoder then negotiates the one
	 * format the screen takes as it is (XRGB8888), which is the stream's own.
	 */
	if (shown)
		show(t, path);
	g_autofree char *uri = g_filename_to_uri(clip, NULL, NULL);
	umms_test_player_do(t->bus, path, "SetUri", g_variant_new("(s)", uri));
	umms_test_player_do(t->bus, path, "Play", NULL);
	return path;
}

/* ---- vicodec's decoder lost and back: ummsfwhtdec in software ---------------- */

#define SOFTWARE UMMS_TEST_FWHT_DEC " (software"
#define HARDWARE "v4l2fwhtdec (hardware; holds decoder:fwht)"
/* Under emulation a player reopening its clip takes seconds. */
#define REOPEN_MS 60000
/*
 * Five frames decoded in software took up to 110 s to count in the guest
 * while another player decoded with vicodec and other VMs loaded this
 * machine (most were dropped as late).
 */
#define FRAMES_MS 120000

/* Polls until @path's Decoder starts with @prefix. */
static void
wait_decoder(struct umms_test *t, const char *path, const char *prefix)
{
	gint64 end = g_get_monotonic_time() + REOPEN_MS * 1000;
	for (;;) {
		g_autofree char *decoder = umms_test_get_string(t->bus, path, "Decoder");
		if (g_str_has_prefix(decoder, prefix))
			return;
		if (g_get_monotonic_time() > end) {
			g_autofree char *state = umms_test_get_string(t->bus, path, "State");
			g_error("%s: Decoder is \"%s\", not \"%s…\" (%s at %.1f s)", path,
				decoder, prefix, state,
				(double)umms_test_get_int64(t->bus, path, "Position") / 1e6);
		}
		umms_test_sleep(50);
	}
}

/*
 * @n more frames counted in @path's Stats[@stat] ("frames-decoded",
 * "frames-displayed"), or the count restarted with a reopening and reached
 * @n. Not at any rate: under emulation on a loaded machine, decoding in
 * software falls behind the clock and the late frames are dropped.
 */
static void
wait_frames(struct umms_test *t, const char *path, const char *stat, guint64 n)
{
	guint64 before = umms_test_stat(t->bus, path, stat), after = before;
	gint64 start = g_get_monotonic_time(), end = start + (gint64)FRAMES_MS * 1000;
	while (!(after >= before + n || (after < before && after >= n))) {
		if (g_get_monotonic_time() > end)
			g_error("%s: %s %" G_GUINT64_FORMAT " then %" G_GUINT64_FORMAT " in %d s",
				path, stat, before, after, FRAMES_MS / 1000);
		umms_test_sleep(50);
		after = umms_test_stat(t->bus, path, stat);
	}
	g_test_message("%s: %s %" G_GUINT64_FORMAT " then %" G_GUINT64_FORMAT ", %.0f ms apart",
		path, stat, before, after, (double)(g_get_monotonic_time() - start) / 1000.0);
}

/* Frames keep coming: five more decoded, and the position moves on by a second. */
static void
assert_decoding(struct umms_test *t, const char *path)
{
	int64_t position = umms_test_get_int64(t->bus, path, "Position");
	wait_frames(t, path, "frames-decoded", 5);
	umms_test_wait_position(t->bus, path, position + US(1), false, REOPEN_MS);
}

static GVariant *
fwht_pool(struct umms_test *t)
{
	g_autoptr(GVariant) all = umms_test_get(t->bus, UMMS_ROOT, RESOURCES1, "Decoders");
	for (gsize i = 0; i < g_variant_n_children(all); i++) {
		GVariant *p = g_variant_get_child_value(all, i);
		const char *kind = NULL;
		if (g_variant_lookup(p, "kind", "&s", &kind) && strcmp(kind, "decoder:fwht") == 0)
			return p;
		g_variant_unref(p);
	}
	return NULL;
}

static GVariant *
fwht_pool_present(struct umms_test *t)
{
	GVariant *p = fwht_pool(t);
	if (!p)
		g_error("no decoder:fwht pool in Resources1.Decoders");
	return p;
}

static void
wait_holders(struct umms_test *t, const char *want)
{
	umms_test_wait_pool_holders(t, fwht_pool_present, "decoder:fwht", want, REOPEN_MS);
}

static void
test_software(struct umms_test *t, gconstpointer data)
{
	/* decoders.fwht=0: no pool, vicodec's decoder never plugged, the clip in software. */
	umms_test_vicodec_restart(t,
		"resources.decoders.fwht=0 display.margins=0 display.zoom=none");
	GVariant *pool = fwht_pool(t);
	g_assert_null(pool);
	g_autofree char *path = start_player(t, data, NULL, true);
	umms_test_wait_position(t->bus, path, US(1), false, 60000);
	wait_decoder(t, path, SOFTWARE ")");
	assert_decoding(t, path);
	g_autoptr(GVariant) rung = umms_test_vicodec_display_get(t, "VideoPath");
	g_test_message("in software: video path %s, frames displayed %" G_GUINT64_FORMAT,
		g_variant_get_string(rung, NULL), umms_test_stat(t->bus, path, "frames-displayed"));
	umms_test_vicodec_assert_bars(t, "software", (W - CLIP_W) / 2, (H - CLIP_H) / 2,
		CLIP_W, CLIP_H);
}

static void
test_preempt(struct umms_test *t, gconstpointer data)
{
	/* One unit: a background player on the screen holds it. */
	umms_test_vicodec_restart(t,
		"resources.decoders.fwht=1 display.margins=0 display.zoom=none");
	int x0 = (W - CLIP_W) / 2, y0 = (H - CLIP_H) / 2;
	g_autofree char *bg = start_player(t, data, "background", true);
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, bg);
	wait_holders(t, bg);
	wait_decoder(t, bg, HARDWARE);
	umms_test_wait_position(t->bus, bg, US(1), false, 60000);
	umms_test_vicodec_assert_bars(t, "preempt-hardware", x0, y0, CLIP_W, CLIP_H);

	/*
	 * A foreground player comes on the screen and takes the unit: the
	 * background one goes on in software. (Shown first: opened where
	 * nobody showed it, so with no output format asked of vicodec's
	 * decoder, the player reached the end of the stream at once, nothing
	 * decoded; see tests/vm/README.md.)
	 */
	g_autofree char *fg = start_player(t, data, "foreground", true);
	g_autoptr(GVariant) lost = umms_test_signals_wait(signals, "ResourceLost", REOPEN_MS);
	const char *kind = NULL;
	g_variant_get(lost, "(&s)", &kind);
	g_assert_cmpstr(kind, ==, "decoder:fwht");
	wait_holders(t, fg);
	wait_decoder(t, fg, HARDWARE);
	g_autofree char *taken = g_strdup_printf(SOFTWARE "; decoder:fwht taken by %s)", fg);
	wait_decoder(t, bg, taken);
	assert_decoding(t, bg);
	g_autofree char *state = umms_test_get_string(t->bus, bg, "State");
	g_assert_cmpstr(state, ==, "playing");
	/*
	 * Back on the screen, in software. The other one keeps vicodec's
	 * decoder, off the screen, then paused (a pause keeps the unit): the
	 * emulated CPU decoding both at once dropped most of this one's frames
	 * as late, and the other, on its own clock, once reached the end of
	 * the clip meanwhile and gave the unit back.
	 */
	show(t, bg);
	wait_decoder(t, fg, HARDWARE);
	int64_t position = umms_test_get_int64(t->bus, fg, "Position");
	umms_test_wait_position(t->bus, fg, position + US(1), false, REOPEN_MS);
	umms_test_player_do(t->bus, fg, "Pause", NULL);
	umms_test_wait_property(t->bus, fg, "State", g_variant_new_string("paused"), REOPEN_MS);
	wait_frames(t, bg, "frames-displayed", 2);
	umms_test_vicodec_assert_bars(t, "preempt-software", x0, y0, CLIP_W, CLIP_H);
	wait_decoder(t, bg, taken);
	wait_holders(t, fg);

	/* The foreground player goes: the unit and vicodec's decoder are back. */
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", fg));
	g_autoptr(GVariant) back = umms_test_signals_wait(signals, "ResourceRestored", REOPEN_MS);
	g_variant_get(back, "(&s)", &kind);
	g_assert_cmpstr(kind, ==, "decoder:fwht");
	wait_holders(t, bg);
	wait_decoder(t, bg, HARDWARE);
	assert_decoding(t, bg);
	umms_test_vicodec_assert_bars(t, "preempt-restored", x0, y0, CLIP_W, CLIP_H);
	umms_test_signals_free(signals);
}

/* The line of `ummsctl resources` that starts with @kind, and the indented ones under it. */
static char *
table_entry(const char *out, const char *kind)
{
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	GString *entry = g_string_new(NULL);
	for (char **l = lines; *l; l++) {
		if (g_str_has_prefix(*l, kind) && (*l)[strlen(kind)] == ' ') {
			g_string_append_printf(entry, "%s\n", *l);
			while (l[1] && g_str_has_prefix(l[1], "    "))
				g_string_append_printf(entry, "%s\n", *++l);
			break;
		}
	}
	if (entry->len == 0)
		g_error("no %s in ummsctl resources:\n%s", kind, out);
	return g_string_free(entry, FALSE);
}

static void
assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		g_error("\"%s\" not in:\n%s", part, text);
}

/* The entry's TOTAL, FREE and SOURCE columns. */
static void
assert_columns(const char *entry, unsigned total, unsigned free_units, const char *source)
{
	char kind[64], src[64];
	unsigned n_total, n_free;
	if (sscanf(entry, "%63s %u %u %63s", kind, &n_total, &n_free, src) != 4 ||
			n_total != total || n_free != free_units || strcmp(src, source) != 0)
		g_error("not %u units, %u free, from %s:\n%s", total, free_units, source, entry);
}

static void
test_table(struct umms_test *t, gconstpointer data)
{
	/* As probed: vicodec's decoder nodes, vivid's capture device; a player holding a unit. */
	umms_test_vicodec_restart(t, "display.margins=0 display.zoom=none");
	g_autofree char *path = start_player(t, data, "foreground", true);
	wait_holders(t, path);
	g_autofree char *out = umms_test_ummsctl("resources", NULL);
	/*
	 * One unit: vicodec's stateful decoder node (after its encoder). Its
	 * stateless node is none: GStreamer has no element that drives it.
	 */
	g_autofree char *decoder = table_entry(out, "decoder:fwht");
	assert_columns(decoder, 1, 0, "v4l2");
	g_autofree char *holder = g_strdup_printf("%s (foreground) / -", path);
	assert_contains(decoder, holder);
	assert_contains(decoder, "elements: v4l2fwhtdec\n");
	assert_contains(decoder, "devices: /dev/video2\n");
	g_autofree char *capture = table_entry(out, "capture:/dev/video0");
	assert_columns(capture, 1, 1, "v4l2");
	assert_contains(capture, "name: vivid\n");
	assert_contains(capture, "sizes: 1280x720\n");
}

/* ---- ummsfwhtdec against vicodec's own decoder -------------------------------- */

/* The frames compared: from 2 s (vicodec's reference is right again by then) to 8 s. */
#define COMPARE_FROM (2 * GST_SECOND)
#define COMPARE_TO (8 * GST_SECOND)
#define SAMPLE_AT (3 * GST_SECOND)

struct decoded {
	GHashTable *sums;       /* PTS → checksum of the picture's rows */
	guint8 *sample;         /* the picture at SAMPLE_AT, BGRx rows of CLIP_W */
};

static void
decoded_add(struct decoded *d, GstSample *sample)
{
	GstVideoInfo info;
	g_assert_true(gst_video_info_from_caps(&info, gst_sample_get_caps(sample)));
	g_assert_cmpint(GST_VIDEO_INFO_WIDTH(&info), ==, CLIP_W);
	g_assert_cmpint(GST_VIDEO_INFO_HEIGHT(&info), ==, CLIP_H);
	GstBuffer *buffer = gst_sample_get_buffer(sample);
	GstVideoFrame frame;
	g_assert_true(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ));
	const guint8 *pixels = GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
	gsize stride = (gsize)GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0), row = CLIP_W * 4;
	GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
	for (int y = 0; y < CLIP_H; y++)
		g_checksum_update(sum, pixels + y * stride, row);
	GstClockTime pts = GST_BUFFER_PTS(buffer);
	g_hash_table_insert(d->sums, GUINT_TO_POINTER(pts / GST_MSECOND),
		g_strdup(g_checksum_get_string(sum)));
	g_checksum_free(sum);
	if (pts == SAMPLE_AT) {
		d->sample = g_malloc(row * CLIP_H);
		for (int y = 0; y < CLIP_H; y++)
			memcpy(d->sample + y * row, pixels + y * stride, row);
	}
	gst_video_frame_unmap(&frame);
}

/* The clip through @decoder as BGRx, to COMPARE_TO. */
static void
decode_clip(const char *clip, const char *decoder, struct decoded *d)
{
	d->sums = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	d->sample = NULL;
	g_autofree char *description = g_strdup_printf("filesrc location=%s ! ummsfwhtparse ! "
		"%s ! video/x-raw,format=BGRx ! appsink name=sink sync=false", clip, decoder);
	g_autoptr(GError) error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	for (;;) {
		/* Stopped before the end: vicodec would warn of frames left undrained. */
		GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
			60 * GST_SECOND);
		if (!sample)
			g_error("%s: no frame for a minute, or the end of the clip", decoder);
		GstClockTime pts = GST_BUFFER_PTS(gst_sample_get_buffer(sample));
		decoded_add(d, sample);
		gst_sample_unref(sample);
		if (pts >= COMPARE_TO)
			break;
	}
	gst_object_unref(sink);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(pipeline);
}

static guint32
sample_pixel(const guint8 *picture, int x, int y)
{
	const guint8 *p = picture + ((gsize)y * CLIP_W + (gsize)x) * 4;
	return (guint32)p[2] << 16 | (guint32)p[1] << 8 | p[0];
}

/* Each of R, G, B within @tolerance. */
static bool
near(guint32 a, guint32 b, int tolerance)
{
	for (int shift = 0; shift < 24; shift += 8) {
		if (abs((int)(a >> shift & 0xff) - (int)(b >> shift & 0xff)) > tolerance)
			return false;
	}
	return true;
}

static void
test_decoder(gconstpointer data)
{
	struct decoded hw, sw;
	gint64 t0 = g_get_monotonic_time();
	decode_clip(data, "v4l2fwhtdec", &hw);
	gint64 t1 = g_get_monotonic_time();
	decode_clip(data, UMMS_TEST_FWHT_DEC, &sw);
	gint64 t2 = g_get_monotonic_time();
	g_test_message("to %.0f s of the clip: %.1f s with vicodec, %.1f s in software",
		(double)COMPARE_TO / GST_SECOND, (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
	/* Every frame in software, from the first. */
	for (GstClockTime pts = 0; pts <= COMPARE_TO; pts += GST_SECOND / UMMS_TEST_FWHT_FPS) {
		if (!g_hash_table_contains(sw.sums, GUINT_TO_POINTER(pts / GST_MSECOND)))
			g_error("no frame at %" GST_TIME_FORMAT " in software", GST_TIME_ARGS(pts));
	}
	/* The bars, at three heights. */
	g_assert_nonnull(sw.sample);
	for (size_t i = 0; i < UMMS_TEST_VICODEC_N_BARS; i++) {
		int x = (int)(CLIP_W * (2 * i + 1) / (2 * UMMS_TEST_VICODEC_N_BARS));
		for (int y = 4; y < CLIP_H; y += CLIP_H / 2 - 4) {
			guint32 got = sample_pixel(sw.sample, x, y);
			if (!near(got, bars[i], 16))
				g_error("software: %06x at %d,%d, not %06x", got, x, y, bars[i]);
		}
	}
	/* The same pixels as vicodec's decoder, frame by frame. */
	unsigned same = 0, compared = 0, before = 0;
	GHashTableIter iter;
	gpointer key, value;
	g_hash_table_iter_init(&iter, hw.sums);
	while (g_hash_table_iter_next(&iter, &key, &value)) {
		GstClockTime pts = GPOINTER_TO_UINT(key) * GST_MSECOND;
		const char *other = g_hash_table_lookup(sw.sums, key);
		bool equal = other && strcmp(other, value) == 0;
		if (pts < COMPARE_FROM) {
			before += equal;
			continue;
		}
		compared++;
		same += equal;
	}
	unsigned differ = 0, worst = 0;
	g_assert_nonnull(hw.sample);
	for (gsize i = 0; i < (gsize)CLIP_W * CLIP_H * 4; i++) {
		if (i % 4 == 3)
			continue;
		unsigned d = (unsigned)abs((int)hw.sample[i] - (int)sw.sample[i]);
		differ += d > 0;
		worst = MAX(worst, d);
	}
	g_test_message("%u frames from vicodec, %u in software; from %.0f s on, %u of %u the "
		"same; before, %u; at %.0f s, %u samples differ, by %u at most",
		g_hash_table_size(hw.sums), g_hash_table_size(sw.sums),
		(double)COMPARE_FROM / GST_SECOND, same, compared, before,
		(double)SAMPLE_AT / GST_SECOND, differ, worst);
	g_assert_cmpuint(compared, >=, 50);
	g_assert_cmpuint(same, ==, compared);
	g_assert_cmpuint(differ, ==, 0);
	g_hash_table_unref(hw.sums);
	g_hash_table_unref(sw.sums);
	g_free(hw.sample);
	g_free(sw.sample);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);

	umms_test_fwht_log_undrained();
	gst_init(NULL, NULL);
	if (access("/dev/dri/card0", F_OK) != 0)
		g_error("no /dev/dri/card0: this test runs in the KMS test VM (meson test vicodec)");
	umms_test_fwht_require();
	g_autofree char *clip = make_clip();
	g_test_add_data_func("/vicodec/decoder", clip, test_decoder);
	g_test_add("/vicodec/software", struct umms_test, clip, umms_test_setup, test_software,
		umms_test_teardown);
	g_test_add("/vicodec/preempt", struct umms_test, clip, umms_test_setup, test_preempt,
		umms_test_teardown);
	g_test_add("/vicodec/table", struct umms_test, clip, umms_test_setup, test_table,
		umms_test_teardown);
	return g_test_run();
}
