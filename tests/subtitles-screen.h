/*
 * What test-subtitles-screen.c and test-captions-screen.c share: ummsd on
 * the headless screen (640x480, drawn by subs_renderer), a clip shown on
 * it paused, moved by seeks and short plays, and the screen read back with
 * Display1.Capture and judged by colour. The clips (tests/gen-clips*.c)
 * show one dark blue picture, 320x240 at 2x; subtitles belong in its
 * lower part, the subtitle area, and nowhere else.
 */
#ifndef UMMS_TESTS_SUBTITLES_SCREEN_H
#define UMMS_TESTS_SUBTITLES_SCREEN_H

#include <stdbool.h>
#include <stdint.h>

#include "harness.h"
#include "image.h"

#define SUBS_DISPLAY "/org/umms/display/0"
#define SUBS_DISPLAY1 "org.umms.Display1"

#define SUBS_SCREEN_W 640
#define SUBS_SCREEN_H 480
/* The subtitle area: the picture's rows from 150 of 240 down (on screen: 2x). */
#define SUBS_AREA_Y 300
/* The top of the picture: its rows down to 80 of 240, where a caption placed on top goes. */
#define SUBS_TOP_Y 160

/* Attempts at pausing inside a stretch of a few tenths of a second. */
#define SUBS_TRIES 10

enum subs_colour { SUBS_WHITE, SUBS_RED, SUBS_GREEN, SUBS_YELLOW, SUBS_MAGENTA, SUBS_NOT_BLUE };

/* The screen's renderer ("gles2" or "pixman"; "pixman" unless set by main). */
extern const char *subs_renderer;

/* Whether the screen's pixel @rgb (0xRRGGBB) looks @c (SUBS_NOT_BLUE: not the picture). */
bool subs_is(uint32_t rgb, enum subs_colour c);
/* Pixels of @c in the screen's rectangle @x0, @y0 to @x1, @y1 (not included). */
int subs_count_box(const struct umms_test_image *image, int x0, int y0, int x1, int y1,
	enum subs_colour c);
/* Pixels of @c in the screen's rows @y0 to @y1 (not included). */
int subs_count(const struct umms_test_image *image, int y0, int y1, enum subs_colour c);

/*
 * Waits (frames reach the screen at its next vblank) until the subtitle
 * area shows at least @min pixels of @c (@min 0: none at all), then checks
 * nothing but the picture is above it. @what names the capture.
 */
void subs_expect(struct umms_test *t, const char *what, enum subs_colour c, int min);
/*
 * Waits until the top of the picture shows at least @min pixels of @c
 * (a caption placed there), then checks nothing but the picture is in
 * the subtitle area, where captions without a place go.
 */
void subs_expect_top(struct umms_test *t, const char *what, enum subs_colour c, int min);

/* A counter of RenderStats: "subpictures" (images drawn) or "redraws" (screens drawn). */
uint64_t subs_render_stat(struct umms_test *t, const char *name);
/* RenderStats' "subpictures". */
uint64_t subs_subpictures(struct umms_test *t);

/*
 * ummsd restarted on the headless screen, @clip opened and shown on it,
 * paused; @play: played instead (from 0), for media not seekable yet.
 * Returns the player's path (free it).
 */
char *subs_show(struct umms_test *t, const char *clip, bool play);
/* SetPosition to @seconds. */
void subs_seek(struct umms_test *t, const char *player, double seconds);
/*
 * Plays on from where the player is until Position reaches @from s and
 * pauses there; true if it stopped short of @until s. A busy machine may
 * see the position too late and pause past @until, or past the end (then
 * it stopped): the caller starts over from a seek (up to SUBS_TRIES
 * times), what it checks is judged by where the picture stands, never by
 * how long it took.
 */
bool subs_play_into(struct umms_test *t, const char *player, double from, double until);
/* SelectTrack("subtitle", @index) (-1: off), checked in CurrentSubtitle. */
void subs_select_subtitle(struct umms_test *t, const char *player, int index);
/* SubtitleTracks' kinds, in order: @kinds is NULL-terminated. */
void subs_assert_kinds(struct umms_test *t, const char *player, const char *const *kinds);

#endif
