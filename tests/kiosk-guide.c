/*
 * umms-kiosk --channel (part of test-kiosk): a channel of the programme
 * guide (an M3U naming the looping clip, an XMLTV file with a programme
 * now and one next, both imported through Guide1), played, its now/next
 * drawn in white in the header; an import changing next makes
 * ProgrammeChanged and the new titles on screen. An unknown channel is an
 * error.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kiosk-tests.h"

#define GUIDE1 "org.umms.Guide1"

/* An XMLTV file on channel "kiosk.1": @now_title around @now, @next_title after it. */
static char *
write_xmltv(const char *name, int64_t now, const char *now_title, const char *next_title)
{
	int64_t minute = 60 * G_TIME_SPAN_SECOND;
	int64_t times[3] = { now - 30 * minute, now + 30 * minute, now + 90 * minute };
	char *text[3];
	for (int i = 0; i < 3; i++) {
		g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(
			times[i] / G_TIME_SPAN_SECOND);
		text[i] = g_date_time_format(dt, "%Y%m%d%H%M%S +0000");
	}
	g_autofree char *xml = g_strdup_printf("<tv><channel id=\"kiosk.1\"><display-name>"
		"Kiosk One</display-name></channel>"
		"<programme channel=\"kiosk.1\" start=\"%s\" stop=\"%s\">"
		"<title>%s</title></programme>"
		"<programme channel=\"kiosk.1\" start=\"%s\" stop=\"%s\">"
		"<title>%s</title></programme>"
		"</tv>", text[0], text[1], now_title, text[1], text[2], next_title);
	char *path = g_build_filename(umms_test_tmpdir(), name, NULL);
	g_assert_true(g_file_set_contents(path, xml, -1, NULL));
	for (int i = 0; i < 3; i++)
		g_free(text[i]);
	return path;
}

/* Guide1.@method(@path), asserted to succeed. */
static void
guide_import(struct umms_test *t, const char *method, const char *path)
{
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, method,
		g_variant_new("(s)", path));
	g_autofree char *text = g_variant_print(r, false);
	g_test_message("%s: %s", method, text);
}

/* What the kiosk said so far. */
struct said {
	bool ready;
	int windowed[4];        /* the video's rectangle; width 0 before the line */
	char *now_next;         /* the latest "now-next ..." line */
};

/* Reads the kiosk's lines until one says now/next. */
static void
read_now_next(GDataInputStream *out, struct said *said)
{
	for (int i = 0; i < 20; i++) {
		g_auto(GStrv) words = kiosk_test_demo_line(out);
		if (strcmp(words[0], "ready") == 0)
			said->ready = true;
		if (strcmp(words[0], "windowed") == 0 && g_strv_length(words) == 5) {
			for (int k = 0; k < 4; k++)
				said->windowed[k] = atoi(words[k + 1]);
		}
		if (strcmp(words[0], "now-next") == 0) {
			g_free(said->now_next);
			said->now_next = g_strjoinv(" ", words);
			return;
		}
	}
	g_error("no now-next line from umms-kiosk");
}

/* Near white: all channels over 200 (the guide's text). */
static bool
is_white(uint32_t p, const void *data)
{
	return (p >> 16 & 0xff) > 200 && (p >> 8 & 0xff) > 200 && (p & 0xff) > 200;
}

/* Near-white pixels in a rectangle of the screen. */
static unsigned
count_white(const struct umms_test_image *image, int x, int y, int w, int h)
{
	return umms_test_image_count(image, x, y, w, h, is_white, NULL);
}

/*
 * The header's text area (umms-kiosk.c's comment: right of the logo, the
 * header's height) has white text; the header around it and the menu
 * have none, and keep their colour.
 */
static void
assert_guide_text(struct umms_test *t, const char *what)
{
	int w = W - 2 * M, h = H - 2 * M, x = w / 40 + h / 20 * 2 + w / 40;
	struct umms_test_image *image = kiosk_test_capture(t, what);
	unsigned text = count_white(image, M + x, M, w - w / 40 - x, h / 10);
	unsigned outside = count_white(image, M, M, x, h / 10) +
		count_white(image, M + w - w / 40, M, w / 40, h / 10) +
		count_white(image, M, M + h / 10, w * 3 / 10, h / 10);
	g_test_message("%s: %u white pixels in the text area, %u around it", what, text, outside);
	if (text < 200 || outside != 0) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_error("%s: %u white pixels in the header's text area, %u outside (%s)", what,
			text, outside, saved);
	}
	umms_test_image_assert_pixel(image, M + 2, M + 2, UI, 4, what);
	umms_test_image_assert_pixel(image, M + w - 2, M + h / 10 - 2, UI, 4, what);
	umms_test_image_free(image);
}

void
kiosk_test_guide(struct umms_test *t, gconstpointer data)
{
	kiosk_test_start(t);
	g_autofree char *clip = umms_test_clip_uri("colors.mkv");
	g_autofree char *m3u_text = g_strdup_printf("#EXTM3U\n#EXTINF:-1 tvg-id=\"kiosk.1\" "
		"tvg-chno=\"7\",Kiosk One\n%s\n", clip);
	g_autofree char *m3u = g_build_filename(umms_test_tmpdir(), "kiosk.m3u", NULL);
	g_assert_true(g_file_set_contents(m3u, m3u_text, -1, NULL));
	guide_import(t, "ImportM3U", m3u);
	int64_t now = g_get_real_time();
	g_autofree char *xmltv = write_xmltv("kiosk.xml", now, "Morning Show", "Cartoons");
	guide_import(t, "ImportXMLTV", xmltv);
	g_autoptr(GVariant) reply = umms_test_call_ok(t->bus, UMMS_ROOT, GUIDE1, "ListChannels",
		NULL);
	g_autoptr(GVariant) list = g_variant_get_child_value(reply, 0);
	g_assert_cmpuint(g_variant_n_children(list), ==, 1);
	g_autoptr(GVariant) channel = g_variant_get_child_value(list, 0);
	int64_t id = 0;
	g_assert_true(g_variant_lookup(channel, "id", "x", &id));

	/*
	 * The channel by its number (tvg-chno), as a remote control would pick
	 * it; --seconds: a kiosk that never says what the test waits for ends,
	 * and so does the wait.
	 */
	const char *const args[] = { "--seconds", "60", "--channel", "7", NULL };
	g_autoptr(GDataInputStream) out = NULL;
	g_autoptr(GSubprocess) kiosk = kiosk_test_demo_spawn(args, &out);
	g_autoptr(GError) error = NULL;
	struct said said = { 0 };
	read_now_next(out, &said);
	g_autofree char *want = g_strdup_printf("now-next %" G_GINT64_FORMAT
		" Morning Show | Cartoons", id);
	g_assert_cmpstr(said.now_next, ==, want);

	/* The text, while the video plays through the hole. */
	for (int i = 0; i < 10 && (!said.ready || !said.windowed[2]); i++) {
		g_auto(GStrv) words = kiosk_test_demo_line(out);
		said.ready |= strcmp(words[0], "ready") == 0;
		if (strcmp(words[0], "windowed") == 0 && g_strv_length(words) == 5) {
			for (int k = 0; k < 4; k++)
				said.windowed[k] = atoi(words[k + 1]);
		}
	}
	g_assert_true(said.ready);
	g_assert_cmpint(said.windowed[2], >, 0);
	assert_guide_text(t, "guide");
	struct umms_test_image *image = kiosk_test_capture(t, "guide-video");
	kiosk_test_assert_video(image, M + said.windowed[0] + said.windowed[2] / 2,
		M + said.windowed[1] + said.windowed[3] / 2, "guide video");
	umms_test_image_free(image);

	/* Next changes: ProgrammeChanged, the kiosk asks again and shows it. */
	g_autofree char *changed = write_xmltv("kiosk2.xml", now, "Morning Show",
		"Breaking News");
	guide_import(t, "ImportXMLTV", changed);
	g_autofree char *want2 = g_strdup_printf("now-next %" G_GINT64_FORMAT
		" Morning Show | Breaking News", id);
	for (int i = 0; i < 5 && strcmp(said.now_next, want2) != 0; i++)
		read_now_next(out, &said);
	g_assert_cmpstr(said.now_next, ==, want2);
	assert_guide_text(t, "guide-changed");
	g_free(said.now_next);

	g_subprocess_send_signal(kiosk, SIGTERM);
	g_subprocess_wait(kiosk, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_successful(kiosk));

	/* By its id in the guide, where no channel has that number. */
	g_autofree char *by_id = g_strdup_printf("%" G_GINT64_FORMAT, id);
	g_assert_cmpstr(by_id, !=, "7");
	const char *const again_args[] = { "--seconds", "60", "--channel", by_id, NULL };
	g_autoptr(GDataInputStream) again_out = NULL;
	g_autoptr(GSubprocess) again = kiosk_test_demo_spawn(again_args, &again_out);
	struct said again_said = { 0 };
	read_now_next(again_out, &again_said);
	g_assert_cmpstr(again_said.now_next, ==, want2);
	g_free(again_said.now_next);
	/* Stopped once it plays: no call of its own in flight when it goes. */
	for (int i = 0; i < 10 && !again_said.ready; i++) {
		g_auto(GStrv) words = kiosk_test_demo_line(again_out);
		again_said.ready = strcmp(words[0], "ready") == 0;
	}
	g_assert_true(again_said.ready);
	g_subprocess_send_signal(again, SIGTERM);
	g_subprocess_wait(again, NULL, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_get_successful(again));

	/* No such channel (neither a number nor an id): exit 1, and says so. */
	g_autofree char *demo = g_build_filename(umms_test_build_root(), "demo", "umms-kiosk",
		NULL);
	g_autoptr(GSubprocess) unknown = g_subprocess_new(G_SUBPROCESS_FLAGS_STDERR_PIPE |
		G_SUBPROCESS_FLAGS_STDOUT_SILENCE, &error, demo, "--channel", "99", NULL);
	g_assert_no_error(error);
	g_autofree char *err = NULL;
	g_subprocess_communicate_utf8(unknown, NULL, NULL, NULL, &err, &error);
	g_assert_no_error(error);
	g_test_message("umms-kiosk --channel 99: %s", err);
	g_assert_true(g_subprocess_get_if_exited(unknown));
	g_assert_cmpint(g_subprocess_get_exit_status(unknown), ==, 1);
	g_assert_nonnull(strstr(err, "umms-kiosk: no channel"));
}
