/*
 * Subtitle cues rendered into subpictures (engines/cues.h), without a
 * player: text cues in white with an outline near the bottom centre and
 * nothing elsewhere, SSA/ASS styles (colour, alignment) honoured by libass,
 * the same subpicture while the same cues stand, a new one when they
 * change, and which cues are active at a position. Then on a player's
 * frames (no D-Bus, no screen): the external file's cue rides on the
 * frames it belongs to, for the picture's size, drawn once.
 */
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "config.h"
#include "cues.h"
#include "engine.h"
#include "frame.h"
#include "harness.h"
#include "player.h"
#include "subpicture.h"

#define W 640
#define H 360

struct pixel {
	int b, g, r, a;
};

/* The pixel at (x, y) of the picture, transparent outside the subpicture. */
static struct pixel
pixel_at(const struct umms_subpicture *s, int x, int y)
{
	struct pixel p = { 0, 0, 0, 0 };
	int sx = x - s->x, sy = y - s->y;
	if (sx < 0 || sy < 0 || sx >= s->width || sy >= s->height)
		return p;
	const uint8_t *px = (const uint8_t *)s->data + (size_t)sy * s->stride + (size_t)sx * 4;
	p.b = px[0];
	p.g = px[1];
	p.r = px[2];
	p.a = px[3];
	return p;
}

/* Opaque pixels in a box of the picture that are near @r, @g, @b. */
static int
count_colour(const struct umms_subpicture *s, int x0, int y0, int x1, int y1, int r, int g,
	int b)
{
	int n = 0;
	for (int y = y0; y < y1; y++) {
		for (int x = x0; x < x1; x++) {
			struct pixel p = pixel_at(s, x, y);
			if (p.a > 240 && abs(p.r - r) < 40 && abs(p.g - g) < 40 && abs(p.b - b) < 40)
				n++;
		}
	}
	return n;
}

static int
count_visible(const struct umms_subpicture *s, int x0, int y0, int x1, int y1)
{
	int n = 0;
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++)
			n += pixel_at(s, x, y).a > 0;
	return n;
}

static void
test_text(void)
{
	struct umms_cues *cues = umms_cues_create_text();
	umms_cues_add(cues, 1000000, 2000000, "Hello <i>there</i>");
	umms_cues_add(cues, 3000000, 4000000, "Second cue");

	g_assert_null(umms_cues_render(cues, 500000, W, H));
	struct umms_subpicture *s = umms_cues_render(cues, 1500000, W, H);
	g_assert_nonnull(s);
	g_assert_cmpint(s->picture_width, ==, W);
	g_assert_cmpint(s->picture_height, ==, H);
	/* Sealed: nobody may write it any more. */
	g_assert_cmpint(s->stride, ==, (uint32_t)s->width * 4);

	/* White text in the lower middle, its bottom above the margin (5 %: 18 rows). */
	int white = count_colour(s, W / 4, H * 3 / 4, W * 3 / 4, H, 255, 255, 255);
	g_assert_cmpint(white, >, 100);
	g_assert_cmpint(count_visible(s, 0, H - 12, W, H), ==, 0);
	/* A dark outline around it. */
	g_assert_cmpint(count_colour(s, W / 4, H * 3 / 4, W * 3 / 4, H, 0, 0, 0), >, 50);
	/* Nothing in the upper two thirds, nor at the sides. */
	g_assert_cmpint(count_visible(s, 0, 0, W, H * 2 / 3), ==, 0);
	g_assert_cmpint(count_visible(s, 0, 0, W / 8, H), ==, 0);
	g_assert_cmpint(count_visible(s, W * 7 / 8, 0, W, H), ==, 0);
	/* Centred: as much text left of the middle as right of it, about. */
	int left = count_colour(s, 0, 0, W / 2, H, 255, 255, 255);
	int right = count_colour(s, W / 2, 0, W, H, 255, 255, 255);
	g_assert_cmpint(abs(left - right), <, (left + right) / 4);

	/* The same cue at the same size: the same subpicture, not drawn again. */
	struct umms_subpicture *again = umms_cues_render(cues, 1900000, W, H);
	g_assert_true(again == s);
	g_assert_cmpuint(again->serial, ==, s->serial);
	umms_subpicture_unref(again);
	/* Another size: drawn again for it. */
	struct umms_subpicture *big = umms_cues_render(cues, 1900000, W * 2, H * 2);
	g_assert_nonnull(big);
	g_assert_cmpuint(big->serial, !=, s->serial);
	g_assert_cmpint(big->height, >, s->height);
	umms_subpicture_unref(big);
	/* Another cue: another rendering. */
	g_assert_null(umms_cues_render(cues, 2500000, W, H));
	struct umms_subpicture *second = umms_cues_render(cues, 3000000, W, H);
	g_assert_nonnull(second);
	g_assert_cmpuint(second->serial, !=, s->serial);
	umms_subpicture_unref(second);
	umms_subpicture_unref(s);

	/* Active cues, their text plain and as markup. */
	g_autoptr(GArray) active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, 1999999, active);
	g_assert_cmpuint(active->len, ==, 1);
	struct umms_cue *cue = &g_array_index(active, struct umms_cue, 0);
	g_assert_cmpint(cue->start, ==, 1000000);
	g_assert_cmpint(cue->end, ==, 2000000);
	g_assert_cmpstr(cue->plain, ==, "Hello there");
	g_assert_cmpstr(cue->markup, ==, "Hello <i>there</i>");
	g_array_set_size(active, 0);
	umms_cues_active(cues, 2000000, active);
	g_assert_cmpuint(active->len, ==, 0);
	umms_cues_unref(cues);
}

/* Text that is not markup is shown as it is; hostile sizes are refused. */
static void
test_text_not_markup(void)
{
	struct umms_cues *cues = umms_cues_create_text();
	umms_cues_add(cues, 0, 1000000, "a < b & <c");
	umms_cues_add(cues, 0, 1000000, "\xff\xfe broken UTF-8");
	g_autoptr(GArray) active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, 0, active);
	g_assert_cmpuint(active->len, ==, 2);
	g_assert_cmpstr(g_array_index(active, struct umms_cue, 0).plain, ==, "a < b & <c");
	g_assert_true(g_utf8_validate(g_array_index(active, struct umms_cue, 1).plain, -1, NULL));
	struct umms_subpicture *s = umms_cues_render(cues, 0, W, H);
	g_assert_nonnull(s);
	umms_subpicture_unref(s);
	g_assert_null(umms_cues_render(cues, 0, 0, H));
	g_assert_null(umms_cues_render(cues, 0, W, UMMS_SUBPICTURE_MAX_SIDE + 1));
	umms_cues_unref(cues);
}

/* A larger bottom margin (room for a UI) moves the text up. */
static void
test_text_margin(void)
{
	struct umms_cues *cues = umms_cues_create_text();
	umms_cues_add(cues, 0, -1, "Above the UI");
	struct umms_subpicture *low = umms_cues_render(cues, 10, W, H);
	struct umms_cue_style style;
	umms_cue_style_init(&style);
	style.margin_permille = 300;
	style.size_permille = 100;
	umms_cues_set_style(cues, &style);
	struct umms_subpicture *high = umms_cues_render(cues, 10, W, H);
	g_assert_nonnull(low);
	g_assert_nonnull(high);
	g_assert_cmpint(high->y + high->height, <=, H - H * 3 / 10 + 4);
	g_assert_cmpint(high->height, >, low->height * 3 / 2);
	g_assert_cmpint(count_visible(high, 0, H - H * 3 / 10 + 4, W, H), ==, 0);
	umms_subpicture_unref(low);
	umms_subpicture_unref(high);
	umms_cues_unref(cues);
}

/* A place on the 15 x 32 caption grid: one line at @row, @column. */
static struct umms_cue_place
grid_place(unsigned row, unsigned column)
{
	struct umms_cue_place place = { .rows = 15, .columns = 32, .lines = 1 };
	place.row[0] = (uint8_t)row;
	place.column[0] = (uint8_t)column;
	return place;
}

/* The leftmost column with a visible pixel, W when none. */
static int
left_edge(const struct umms_subpicture *s)
{
	for (int x = 0; x < W; x++) {
		if (count_visible(s, x, 0, x + 1, H))
			return x;
	}
	return W;
}

/*
 * A placed cue: drawn at its row and column of the grid over the safe
 * area (the middle 80 %), in the colour its markup names, beside the cues
 * without a place (at the bottom, as before); kept inside the picture
 * when the style's margin pushes it up; the same text at another place is
 * another cue.
 */
static void
test_text_placed(void)
{
	struct umms_cues *cues = umms_cues_create_text();
	struct umms_cue_place top = grid_place(0, 0);
	umms_cues_add_placed(cues, 0, 1000000, "<span foreground=\"#00FF00\">Green top</span>",
		&top);
	struct umms_subpicture *s = umms_cues_render(cues, 10, W, H);
	g_assert_nonnull(s);
	/* Its row: the top of the safe area (10 % down), the font 5 % tall. */
	g_assert_cmpint(count_visible(s, 0, 0, W, H / 10 - 3), ==, 0);
	g_assert_cmpint(count_visible(s, 0, H / 4, W, H), ==, 0);
	g_assert_cmpint(count_colour(s, 0, 0, W, H / 4, 0, 255, 0), >, 100);
	g_assert_cmpint(count_colour(s, 0, 0, W, H, 255, 255, 255), ==, 0);
	/* Column 0: the safe area's left edge, less the outline; not centred. */
	int edge = left_edge(s);
	g_assert_cmpint(edge, >=, W / 10 - 4);
	g_assert_cmpint(edge, <=, W / 10 + 4);
	umms_subpicture_unref(s);

	/* Column 16 of 32: the middle of the safe area. */
	struct umms_cue_place middle = grid_place(7, 16);
	umms_cues_add_placed(cues, 1000000, 2000000, "Middle", &middle);
	s = umms_cues_render(cues, 1000010, W, H);
	edge = left_edge(s);
	g_assert_cmpint(edge, >=, W / 2 - 4);
	g_assert_cmpint(edge, <=, W / 2 + 4);
	umms_subpicture_unref(s);

	/* A long line at the last column: moved left, inside the picture. */
	struct umms_cue_place right = grid_place(14, 31);
	umms_cues_add_placed(cues, 2000000, 3000000, "A long line at the last column", &right);
	s = umms_cues_render(cues, 2000010, W, H);
	g_assert_cmpint(s->x, >=, 0);
	g_assert_cmpint(s->x + s->width, <=, W);
	g_assert_cmpint(count_visible(s, 0, H * 3 / 4, W, H * 19 / 20), >, 100);
	umms_subpicture_unref(s);

	/* With a cue without a place: both, that one as it is alone. */
	umms_cues_add(cues, 3000000, 4000000, "Bottom");
	s = umms_cues_render(cues, 3000010, W, H);
	int bottom_alone = count_visible(s, 0, 0, W, H);
	g_assert_cmpint(count_visible(s, 0, 0, W, H / 2), ==, 0);
	umms_subpicture_unref(s);
	umms_cues_add_placed(cues, 3000000, 4000000, "<span foreground=\"#00FF00\">Top</span>",
		&top);
	s = umms_cues_render(cues, 3000010, W, H);
	g_assert_cmpint(count_visible(s, 0, H / 2, W, H), ==, bottom_alone);
	g_assert_cmpint(count_colour(s, 0, 0, W, H / 4, 0, 255, 0), >, 50);
	umms_subpicture_unref(s);

	/* The same cue again (a seek back): not added; at another place: another cue. */
	unsigned n = umms_cues_count(cues);
	umms_cues_add_placed(cues, 3000000, 4000000, "<span foreground=\"#00FF00\">Top</span>",
		&top);
	g_assert_cmpuint(umms_cues_count(cues), ==, n);
	umms_cues_add_placed(cues, 3000000, 4000000, "<span foreground=\"#00FF00\">Top</span>",
		&middle);
	g_assert_cmpuint(umms_cues_count(cues), ==, n + 1);
	/* Ended by its place: the other stays. */
	umms_cues_end_placed(cues, 3000000, "<span foreground=\"#00FF00\">Top</span>", &middle,
		3000000);
	g_assert_cmpuint(umms_cues_count(cues), ==, n);
	g_autoptr(GArray) active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, 3000010, active);
	g_assert_cmpuint(active->len, ==, 2);
	g_assert_cmpuint(g_array_index(active, struct umms_cue, 1).place.row[0], ==, 0);

	/* The bottom row with a margin that asks for half the picture: up, but inside it. */
	struct umms_cue_place low = grid_place(14, 0);
	umms_cues_add_placed(cues, 5000000, 6000000, "Low\nand under", &low);
	struct umms_cue_style style;
	umms_cue_style_init(&style);
	s = umms_cues_render(cues, 5000010, W, H);
	g_assert_cmpint(count_visible(s, 0, H * 3 / 4, W, H), >, 100);
	umms_subpicture_unref(s);
	style.margin_permille = 500;
	umms_cues_set_style(cues, &style);
	s = umms_cues_render(cues, 5000010, W, H);
	g_assert_cmpint(count_visible(s, 0, H / 2 + 2, W, H), ==, 0);
	g_assert_cmpint(count_visible(s, 0, 0, W, H / 2), >, 100);
	umms_subpicture_unref(s);
	style.margin_permille = 900;
	style.size_permille = 300;
	umms_cues_set_style(cues, &style);
	s = umms_cues_render(cues, 5000010, W, H);
	g_assert_cmpint(count_visible(s, 0, -H, W, 0), ==, 0);
	g_assert_cmpint(count_visible(s, 0, 0, W, H / 4), >, 100);
	umms_subpicture_unref(s);
	umms_cues_unref(cues);
}

/*
 * Lines out of row order (CEA-708 windows by priority: the bottom one's
 * line, then the top one's): each at its own row, the second not pushed
 * under the first.
 */
static void
test_text_placed_order(void)
{
	struct umms_cues *cues = umms_cues_create_text();
	struct umms_cue_place place = { .rows = 15, .columns = 42, .lines = 2 };
	place.row[0] = 14;
	place.column[0] = 0;
	place.row[1] = 0;
	place.column[1] = 0;
	umms_cues_add_placed(cues, 0, 1000000, "Bottom\n<span foreground=\"#FF0000\">Top</span>",
		&place);
	struct umms_subpicture *s = umms_cues_render(cues, 10, W, H);
	g_assert_nonnull(s);
	/* Red in the top quarter, white in the bottom quarter, nothing between. */
	g_assert_cmpint(count_colour(s, 0, 0, W, H / 4, 255, 0, 0), >, 50);
	g_assert_cmpint(count_colour(s, 0, H * 3 / 4, W, H, 255, 255, 255), >, 50);
	g_assert_cmpint(count_visible(s, 0, H / 4, W, H * 3 / 4), ==, 0);
	umms_subpicture_unref(s);
	umms_cues_unref(cues);
}

static const char ass_script[] =
	"[Script Info]\n"
	"ScriptType: v4.00+\n"
	"PlayResX: 640\n"
	"PlayResY: 360\n"
	"\n"
	"[V4+ Styles]\n"
	"Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, "
	"BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, "
	"BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"
	/* Yellow (&HBBGGRR), no outline, top left (alignment 7). */
	"Style: Top,DejaVu Sans,40,&H0000FFFF,&H000000FF,&H00000000,&H00000000,1,0,0,0,"
	"100,100,0,0,1,0,0,7,20,20,20,1\n"
	/* Red, bottom right (3). */
	"Style: Red,DejaVu Sans,40,&H000000FF,&H000000FF,&H00000000,&H00000000,1,0,0,0,"
	"100,100,0,0,1,0,0,3,20,20,20,1\n"
	"\n"
	"[Events]\n"
	"Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
	"Dialogue: 0,0:00:01.00,0:00:02.00,Top,,0,0,0,,Yellow {\\i1}top{\\i0}\\Nleft\n"
	"Dialogue: 0,0:00:03.00,0:00:04.00,Red,,0,0,0,,Red corner\n";

static void
test_ass(void)
{
	GError *error = NULL;
	struct umms_cues *cues = umms_cues_create_ass(ass_script, sizeof(ass_script) - 1, &error);
	g_assert_no_error(error);
	g_assert_true(umms_cues_is_ass(cues));
	g_assert_cmpuint(umms_cues_count(cues), ==, 2);

	g_autoptr(GArray) active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, 1500000, active);
	g_assert_cmpuint(active->len, ==, 1);
	g_assert_cmpstr(g_array_index(active, struct umms_cue, 0).plain, ==, "Yellow top\nleft");
	g_assert_cmpstr(g_array_index(active, struct umms_cue, 0).markup, ==,
		"Yellow {\\i1}top{\\i0}\\Nleft");

	g_assert_null(umms_cues_render(cues, 500000, W, H));
	struct umms_subpicture *s = umms_cues_render(cues, 1500000, W, H);
	g_assert_nonnull(s);
	/* Yellow, in the top left quarter; nothing in the bottom half. */
	g_assert_cmpint(count_colour(s, 0, 0, W / 2, H / 2, 255, 255, 0), >, 100);
	g_assert_cmpint(count_visible(s, 0, H / 2, W, H), ==, 0);
	g_assert_cmpint(count_visible(s, W * 3 / 4, 0, W, H), ==, 0);
	struct umms_subpicture *again = umms_cues_render(cues, 1600000, W, H);
	g_assert_true(again == s);
	umms_subpicture_unref(again);

	struct umms_subpicture *red = umms_cues_render(cues, 3500000, W, H);
	g_assert_nonnull(red);
	g_assert_cmpuint(red->serial, !=, s->serial);
	g_assert_cmpint(count_colour(red, W / 2, H / 2, W, H, 255, 0, 0), >, 100);
	g_assert_cmpint(count_visible(red, 0, 0, W / 2, H), ==, 0);
	g_assert_cmpint(count_visible(red, 0, 0, W, H / 2), ==, 0);
	umms_subpicture_unref(red);
	umms_subpicture_unref(s);
	umms_cues_unref(cues);

	/* Not a script. */
	g_assert_null(umms_cues_create_ass("hello", 5, &error));
	g_assert_nonnull(error);
	g_clear_error(&error);
	g_assert_null(umms_cues_create_ass("", 0, &error));
	g_clear_error(&error);
}

/* ---- on a player's frames ---------------------------------------------------- */

struct watch {
	struct wl_listener frame;
	struct umms_frame *last;
	bool done;
	GError *error;
};

static void
frame_cb(struct wl_listener *listener, void *data)
{
	struct watch *watch = wl_container_of(listener, watch, frame);
	if (watch->last)
		umms_frame_unref(watch->last);
	watch->last = umms_frame_ref(data);
}

static void
done_cb(const GError *error, void *data)
{
	struct watch *watch = data;
	watch->done = true;
	if (error)
		watch->error = g_error_copy(error);
}

/* Iterates until the request is done and a frame came after it. */
static void
wait_done(struct watch *watch)
{
	gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	while (!watch->done && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, FALSE);
	g_assert_true(watch->done);
	g_assert_no_error(watch->error);
	/* The frame the request showed reaches the main loop on its own. */
	for (int i = 0; i < 50; i++) {
		g_main_context_iteration(NULL, FALSE);
		g_usleep(2000);
	}
	watch->done = false;
}

static struct umms_subpicture *
seek_and_take(struct umms_player *player, struct watch *watch, int64_t position)
{
	GError *error = NULL;
	g_clear_pointer(&watch->last, umms_frame_unref);
	g_assert_true(umms_player_set_position(player, position, done_cb, watch, &error));
	wait_done(watch);
	g_assert_nonnull(watch->last);
	g_assert_cmpint(llabs(watch->last->position - position), <, 40000);
	return watch->last->subpicture;
}

static void
test_frames(void)
{
	const char *video = umms_test_clip("av.mkv");
	const char *subs = umms_test_clip("subs.en.srt");
	struct umms_config config;
	umms_config_init(&config);
	GError *error = NULL;
	g_assert_true(umms_config_set(&config, "engine.audio-output", "none", &error));
	/* Sanitizer builds on a loaded machine open slowly. */
	g_assert_true(umms_config_set(&config, "engine.open-timeout", "50000", &error));
	g_assert_true(umms_config_set(&config, "engine.answer-timeout", "50000", &error));
	/* Room for a UI along the bottom: the text's last line 30 % up. */
	g_assert_true(umms_config_set(&config, "engine.subtitle-margin", "300", &error));
	g_assert_true(umms_engines_init(&config, &error));
	struct umms_player_options options = { .attended = false };
	struct umms_player *player = umms_player_create(1, &config, &options);
	struct watch watch = { .frame.notify = frame_cb };
	wl_signal_add(&player->events.frame, &watch.frame);
	g_assert_true(umms_player_set_video_output(player, true, NULL, 0, &error));
	g_assert_true(umms_player_set_uri(player, video, done_cb, &watch, &error));
	wait_done(&watch);
	g_assert_true(umms_player_set_subtitle_uri(player, subs, done_cb, &watch, &error));
	wait_done(&watch);

	/* "Subtitle two" (0.5 to 0.95 s), on a 320x240 picture. */
	struct umms_subpicture *two = seek_and_take(player, &watch, 600000);
	g_assert_nonnull(two);
	g_assert_cmpint(two->picture_width, ==, 320);
	g_assert_cmpint(two->picture_height, ==, 240);
	g_assert_cmpint(count_colour(two, 0, 80, 320, 240 - 72, 255, 255, 255), >, 50);
	g_assert_cmpint(count_visible(two, 0, 0, 320, 80), ==, 0);
	g_assert_cmpint(count_visible(two, 0, 240 - 72 + 4, 320, 240), ==, 0);
	uint64_t serial = two->serial;
	/* The same cue a frame later: the same subpicture. */
	struct umms_subpicture *same = seek_and_take(player, &watch, 640000);
	g_assert_nonnull(same);
	g_assert_cmpuint(same->serial, ==, serial);
	/* Between cues: nothing. */
	g_assert_null(seek_and_take(player, &watch, 960000));
	/* Subtitles off: nothing on frames either. */
	g_assert_true(umms_player_select_track(player, "subtitle", -1, done_cb, &watch, &error));
	wait_done(&watch);
	g_assert_null(seek_and_take(player, &watch, 600000));
	/* A second later with the delay: "one" (0 to 0.45 s) is on at 1.2 s. */
	g_assert_true(umms_player_select_track(player, "subtitle", 1, done_cb, &watch, &error));
	wait_done(&watch);
	g_assert_true(umms_player_set_subtitle_delay(player, 1000000, &error));
	struct umms_subpicture *one = seek_and_take(player, &watch, 1200000);
	g_assert_nonnull(one);
	g_assert_cmpuint(one->serial, !=, serial);

	g_clear_pointer(&watch.last, umms_frame_unref);
	wl_list_remove(&watch.frame.link);
	umms_player_destroy(player);
	umms_engines_finish();
	umms_config_finish(&config);
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/cues/text", test_text);
	g_test_add_func("/cues/text-not-markup", test_text_not_markup);
	g_test_add_func("/cues/text-margin", test_text_margin);
	g_test_add_func("/cues/text-placed", test_text_placed);
	g_test_add_func("/cues/text-placed-order", test_text_placed_order);
	g_test_add_func("/cues/ass", test_ass);
	g_test_add_func("/cues/frames", test_frames);
	return g_test_run();
}
