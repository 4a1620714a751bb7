/*
 * The helpers of the screen subtitle tests (subtitles-screen.h): captures
 * of the headless screen judged by colour, the clip shown and moved.
 */
#include <string.h>

#include "subtitles-screen.h"

const char *subs_renderer = "pixman";

bool
subs_is(uint32_t rgb, enum subs_colour c)
{
	int r = (int)(rgb >> 16 & 0xff), g = (int)(rgb >> 8 & 0xff), b = (int)(rgb & 0xff);
	switch (c) {
	case SUBS_WHITE:
		return r > 120 && g > 120 && b > 120;
	case SUBS_RED:
		return r > 170 && g < 80 && b < 80;
	case SUBS_GREEN:
		return g > 170 && r < 80 && b < 80;
	case SUBS_YELLOW:
		return r > 170 && g > 120 && b < 80;
	case SUBS_MAGENTA:
		return r > 170 && g < 80 && b > 170;
	case SUBS_NOT_BLUE:
		/* The picture is about 0, 0, 128. */
		return r > 40 || g > 40 || b < 90 || b > 170;
	}
	return false;
}

static bool
is_colour(uint32_t rgb, const void *data)
{
	return subs_is(rgb, *(const enum subs_colour *)data);
}

/* Pixels of @c in the screen's rectangle @x0, @y0 to @x1, @y1 (not included). */
int
subs_count_box(const struct umms_test_image *image, int x0, int y0, int x1, int y1,
	enum subs_colour c)
{
	return (int)umms_test_image_count(image, x0, y0, x1 - x0, y1 - y0, is_colour, &c);
}

int
subs_count(const struct umms_test_image *image, int y0, int y1, enum subs_colour c)
{
	return subs_count_box(image, 0, y0, SUBS_SCREEN_W, y1, c);
}

struct look {
	int area;     /* pixels of the colour in the subtitle area */
	int outside;  /* pixels that are not the picture's blue above it */
	int top;      /* pixels of the colour at the top */
	int below;    /* pixels that are not the picture's blue in the subtitle area */
};

static struct look
look(struct umms_test *t, const char *what, enum subs_colour c, bool save)
{
	g_autofree char *path = g_strdup_printf("%s/%s.png", umms_test_tmpdir(), what);
	g_autoptr(GVariant) r = umms_test_call_ok(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1,
		"Capture", g_variant_new("(s)", path));
	struct umms_test_image *image = umms_test_image_load(path);
	g_assert_cmpint(umms_test_image_width(image), ==, SUBS_SCREEN_W);
	g_assert_cmpint(umms_test_image_height(image), ==, SUBS_SCREEN_H);
	struct look l = {
		subs_count(image, SUBS_AREA_Y, SUBS_SCREEN_H, c),
		subs_count(image, 0, SUBS_AREA_Y, SUBS_NOT_BLUE),
		subs_count(image, 0, SUBS_TOP_Y, c),
		subs_count(image, SUBS_AREA_Y, SUBS_SCREEN_H, SUBS_NOT_BLUE),
	};
	if (save) {
		g_autofree char *saved = umms_test_image_save_for_diagnosis(image, what);
		g_test_message("%s: %d subtitle pixels, %d off the picture above the subtitle "
			"area (%s)", what, l.area, l.outside, saved);
	}
	umms_test_image_free(image);
	return l;
}

/*
 * Waits (frames reach the screen at its next vblank) until the subtitle
 * area shows at least @min pixels of @c (@min 0: none at all), then checks
 * nothing but the picture is above it.
 */
void
subs_expect(struct umms_test *t, const char *what, enum subs_colour c, int min)
{
	struct look l = { 0, 0 };
	for (int i = 0; i < 40; i++) {
		bool last = i == 39;
		l = look(t, what, c, last);
		if ((min > 0 ? l.area >= min : l.area == 0) && l.outside == 0)
			break;
		if (l.outside > 0)
			look(t, what, c, true);
		umms_test_sleep(50);
	}
	g_test_message("%s: %d subtitle pixels", what, l.area);
	if (min > 0)
		g_assert_cmpint(l.area, >=, min);
	else
		g_assert_cmpint(l.area, ==, 0);
	g_assert_cmpint(l.outside, ==, 0);
}

/*
 * Waits until the top of the picture shows at least @min pixels of @c
 * (a caption placed there), then checks nothing but the picture is in
 * the subtitle area, where captions without a place go.
 */
void
subs_expect_top(struct umms_test *t, const char *what, enum subs_colour c, int min)
{
	struct look l = { 0, 0, 0, 0 };
	for (int i = 0; i < 40; i++) {
		l = look(t, what, c, i == 39);
		if (l.top >= min && l.below == 0)
			break;
		umms_test_sleep(50);
	}
	g_test_message("%s: %d caption pixels at the top", what, l.top);
	g_assert_cmpint(l.top, >=, min);
	g_assert_cmpint(l.below, ==, 0);
}

/* A counter of RenderStats: "subpictures" (images drawn) or "redraws" (screens drawn). */
uint64_t
subs_render_stat(struct umms_test *t, const char *name)
{
	g_autoptr(GVariant) stats = umms_test_get(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1,
		"RenderStats");
	uint64_t v = 0;
	g_assert_true(g_variant_lookup(stats, name, "t", &v));
	return v;
}

uint64_t
subs_subpictures(struct umms_test *t)
{
	return subs_render_stat(t, "subpictures");
}

/* Paused, on screen; @play: played instead (from 0), for media not seekable yet. */
char *
subs_show(struct umms_test *t, const char *clip, bool play)
{
	g_autofree char *r = g_strdup_printf("display.renderer=%s", subs_renderer);
	const char *const overrides[] = { "display.enabled=true", "display.headless=true", r,
		"display.mode=640x480", "display.compositor=false", "display.input=false", NULL };
	umms_test_restart(t, overrides);
	char *player = umms_test_open(t->bus, clip);
	umms_test_player_do(t->bus, player, "Pause", NULL);
	g_autoptr(GVariant) v = umms_test_call_ok(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1,
		"ShowPlayer", g_variant_new("(o)", player));
	if (play)
		umms_test_player_do(t->bus, player, "Play", NULL);
	/* Sanitizer builds on a busy machine take seconds to start an MPEG-TS playing. */
	for (int i = 0; i < 400; i++) {
		g_autoptr(GVariant) path = umms_test_get(t->bus, SUBS_DISPLAY, SUBS_DISPLAY1,
			"VideoPath");
		if (strcmp(g_variant_get_string(path, NULL), "composited") == 0)
			return player;
		umms_test_sleep(50);
	}
	g_error("the player's video never reached the screen");
}

void
subs_seek(struct umms_test *t, const char *player, double seconds)
{
	umms_test_player_do(t->bus, player, "SetPosition", g_variant_new("(x)", US(seconds)));
}

/*
 * Plays on from where the player is until Position reaches @from s and
 * pauses there; true if it stopped short of @until s. A busy machine may
 * see the position too late and pause past @until, or past the end (then
 * it stopped): the caller starts over from a seek, what it checks is
 * judged by where the picture stands, never by how long it took.
 */
bool
subs_play_into(struct umms_test *t, const char *player, double from, double until)
{
	umms_test_player_do(t->bus, player, "Play", NULL);
	gint64 end = g_get_monotonic_time() + (gint64)UMMS_TEST_TIMEOUT_MS * 1000;
	for (;;) {
		g_autofree char *state = umms_test_get_string(t->bus, player, "State");
		if (strcmp(state, "stopped") == 0) {
			g_test_message("played to the end, not paused at %.2f s", from);
			return false;
		}
		int64_t seen = umms_test_get_int64(t->bus, player, "Position");
		if (seen >= US(from)) {
			g_test_message("at %.3f s: pause", seen / 1e6);
			break;
		}
		if (g_get_monotonic_time() > end)
			g_error("%s never played up to %.2f s", player, from);
		umms_test_sleep(10);
	}
	umms_test_player_do(t->bus, player, "Pause", NULL);
	int64_t at = umms_test_get_int64(t->bus, player, "Position");
	bool in = at >= US(from) && at < US(until);
	if (!in)
		g_test_message("paused at %.3f s, not between %.2f s and %.2f s: again",
			at / 1e6, from, until);
	return in;
}

void
subs_select_subtitle(struct umms_test *t, const char *player, int index)
{
	umms_test_player_do(t->bus, player, "SelectTrack",
		g_variant_new("(si)", "subtitle", index));
	g_assert_cmpint(umms_test_get_int32(t->bus, player, "CurrentSubtitle"), ==, index);
}

/* SubtitleTracks' kinds, in order: @kinds is NULL-terminated. */
void
subs_assert_kinds(struct umms_test *t, const char *player, const char *const *kinds)
{
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, player, UMMS_PLAYER, "SubtitleTracks");
	gsize n = g_variant_n_children(tracks);
	g_assert_cmpuint(n, ==, g_strv_length((char **)kinds));
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		const char *kind = NULL;
		g_assert_true(g_variant_lookup(track, "kind", "&s", &kind));
		g_assert_cmpstr(kind, ==, kinds[i]);
	}
}

