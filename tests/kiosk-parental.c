/*
 * umms-kiosk under parental control (part of test-kiosk): a channel whose
 * programme on now is rated FSK 18, a threshold of 12: ummsd blocks the
 * video from SetUri on, the kiosk says "blocked" and draws its PIN prompt
 * in the video's window (no picture there); Unlock for the programme (as
 * the kiosk's Return sends it: the headless screen has no keyboard to type
 * on) and the kiosk says "allowed", the prompt goes and the video shows.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kiosk-tests.h"

#define GUIDE1 "org.umms.Guide1"
#define PARENTAL1 "org.umms.Parental1"
#define PROMPT 0x400000
#define PIN "4711"

static char *
xmltv_time(int64_t t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t / G_TIME_SPAN_SECOND);
	return g_date_time_format(dt, "%Y%m%d%H%M%S +0000");
}

/* Channel "8" (a copy of colors.mkv, looping), an FSK 18 programme on it for the next hour. */
static void
fill_guide(struct umms_test *t)
{
	/*
	 * A copy of the clip of its own: the guide and the settings outlive
	 * this case (ummsd's database), and no other case may find its video
	 * on a channel that is blocked.
	 */
	g_autofree char *copy = g_build_filename(umms_test_tmpdir(), "late-one.mkv", NULL);
	g_autofree char *bytes = NULL;
	gsize size = 0;
	g_assert_true(g_file_get_contents(umms_test_clip("colors.mkv"), &bytes, &size, NULL));
	g_assert_true(g_file_set_contents(copy, bytes, (gssize)size, NULL));
	g_autofree char *clip = g_filename_to_uri(copy, NULL, NULL);
	g_autofree char *m3u_text = g_strdup_printf("#EXTM3U\n#EXTINF:-1 tvg-id=\"late.1\" "
		"tvg-chno=\"8\",Late One\n%s\n", clip);
	g_autofree char *m3u = g_build_filename(umms_test_tmpdir(), "late.m3u", NULL);
	g_assert_true(g_file_set_contents(m3u, m3u_text, -1, NULL));
	g_autoptr(GVariant) r1 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ImportM3U",
		g_variant_new("(s)", m3u));
	int64_t now = g_get_real_time();
	g_autofree char *start = xmltv_time(now - 600 * G_TIME_SPAN_SECOND);
	g_autofree char *stop = xmltv_time(now + 3600 * G_TIME_SPAN_SECOND);
	g_autofree char *xml = g_strdup_printf("<tv><channel id=\"late.1\"><display-name>"
		"Late One</display-name></channel><programme channel=\"late.1\" start=\"%s\" "
		"stop=\"%s\"><title>Night Film</title><rating system=\"FSK\"><value>18</value>"
		"</rating></programme></tv>", start, stop);
	g_autofree char *path = g_build_filename(umms_test_tmpdir(), "late.xml", NULL);
	g_assert_true(g_file_set_contents(path, xml, -1, NULL));
	g_autoptr(GVariant) r2 = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ImportXMLTV",
		g_variant_new("(s)", path));
}

static void
parental(struct umms_test *t, const char *method, GVariant *args)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, PARENTAL1, method, args);
}

/* Reads the kiosk's lines until one starts with @word; the video's window meanwhile. */
static char **
read_until(GDataInputStream *out, const char *word, int window[4])
{
	for (int i = 0; i < 30; i++) {
		char **words = kiosk_test_demo_line(out);
		if (strcmp(words[0], "windowed") == 0 && g_strv_length(words) == 5) {
			for (int k = 0; k < 4; k++)
				window[k] = atoi(words[k + 1]);
		}
		if (strcmp(words[0], word) == 0)
			return words;
		g_strfreev(words);
	}
	g_error("no \"%s\" line from umms-kiosk", word);
}

void
kiosk_test_parental(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	fill_guide(t);
	parental(t, "SetPin", g_variant_new("(ss)", "", PIN));
	parental(t, "SetThreshold", g_variant_new("(ssi)", PIN, "age", 12));
	parental(t, "SetEnabled", g_variant_new("(sb)", PIN, TRUE));

	const char *const args[] = { "--seconds", "60", "--channel", "8", NULL };
	g_autoptr(GDataInputStream) out = NULL;
	g_autoptr(GSubprocess) kiosk = kiosk_test_demo_spawn(args, &out);
	g_autoptr(GError) error = NULL;

	/* Blocked for its rating: the prompt, dark red, fills the video's window. */
	int window[4] = { 0 };
	g_auto(GStrv) blocked = read_until(out, "blocked", window);
	g_autofree char *said = g_strjoinv(" ", blocked);
	g_assert_cmpstr(blocked[1], ==, "rating");
	g_assert_nonnull(strstr(said, "18"));
	for (int i = 0; i < 10 && window[2] == 0; i++)
		g_strfreev(read_until(out, "windowed", window));
	g_assert_cmpint(window[2], >, 0);
	struct umms_test_image *image = kiosk_test_capture(t, "parental-blocked");
	umms_test_image_assert_pixel(image, M + window[0] + 2, M + window[1] + 2, PROMPT, 4,
		"prompt's corner");
	umms_test_image_assert_pixel(image, M + window[0] + window[2] - 3,
		M + window[1] + window[3] - 3, PROMPT, 4, "prompt's other corner");
	umms_test_image_free(image);

	/* The programme unlocked, as the kiosk's Return does: allowed, the video shows. */
	g_autoptr(GVariant) players = umms_test_get(t->bus, UMMS_ROOT, "org.umms.Manager1",
		"Players");
	g_assert_cmpuint(g_variant_n_children(players), ==, 1);
	const char *player = NULL;
	g_variant_get_child(players, 0, "&o", &player);
	parental(t, "Unlock", g_variant_new("(ossu)", player, PIN, "programme", 0u));
	g_strfreev(read_until(out, "allowed", window));
	/*
	 * Frames flow again from the engine's next buffer (engine.h
	 * set_blocked): the picture is back within a few frames.
	 */
	gint64 allowed = g_get_monotonic_time();
	for (int i = 0;; i++) {
		image = kiosk_test_capture(t, "parental-allowed");
		uint32_t p = umms_test_image_pixel(image, M + window[0] + window[2] / 2,
			M + window[1] + window[3] / 2);
		if (p != 0x000000 && p != PROMPT)
			break;
		g_assert_cmpint(g_get_monotonic_time() - allowed, <, 5 * G_USEC_PER_SEC);
		umms_test_image_free(image);
		umms_test_sleep(50);
	}
	g_test_message("the video is back %.0f ms after \"allowed\"",
		(double)(g_get_monotonic_time() - allowed) / 1000);
	kiosk_test_assert_video(image, M + window[0] + window[2] / 2,
		M + window[1] + window[3] / 2, "video once allowed");
	umms_test_image_free(image);

	g_subprocess_send_signal(kiosk, SIGTERM);
	g_subprocess_wait(kiosk, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_successful(kiosk));
}
