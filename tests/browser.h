/*
 * Real web browsers on ummsd's headless screen, for the tests of web pages
 * (test-browser): pages served over HTTP from the test program itself, a
 * browser started on ummsd's compositor (WAYLAND_DISPLAY=umms-0) and killed
 * with every process it made, and the screen read back with
 * Display1.Capture until it shows what the test waits for.
 *
 * Browsers (tools/install-deps): cog (WPE WebKit, software rendering; its
 * page may be transparent, showing the video under it) and Chromium
 * (--ozone-platform=wayland, no GPU; it paints its window opaque). Each
 * runs in a process group of its own, with a HOME, cache and profile in
 * the test's scratch folder, its output in a log printed if the test
 * fails. A test that aborts leaves no browser behind either: the browser
 * dies with the program (PR_SET_PDEATHSIG), and its helper processes with
 * the browser, whose socket to ummsd and bus are gone too.
 */
#ifndef UMMS_TESTS_BROWSER_H
#define UMMS_TESTS_BROWSER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness.h"
#include "image.h"

/* ---- pages ---------------------------------------------------------------------------- */

/*
 * An HTTP server on 127.0.0.1 (a free port) in the test program, answering
 * from its thread-default main context (so while the test waits with
 * umms_test_sleep() or browser_wait_screen()): GET of the files in
 * tests/web/, of /umms-video.js (web/umms-video.js) and of pages added with
 * pages_add(). Anything else is 404; only GET and HEAD are answered.
 */
struct pages;

struct pages *pages_start(void);
/* Serves @body as @path ("/name.html"), text/html unless it ends in .js or .css. */
void pages_add(struct pages *pages, const char *path, const char *body);
/*
 * What a page sent with GET /note?name=NAME&text=TEXT (its last under
 * @name), taken: NULL if none came since. Caller frees.
 */
char *pages_take_note(struct pages *pages, const char *name);
/* The page's address: "http://127.0.0.1:PORT@path"; caller frees. */
char *pages_url(struct pages *pages, const char *path);
/* The origin pages are served from: "http://127.0.0.1:PORT". */
const char *pages_origin(struct pages *pages);
void pages_stop(struct pages *pages);

/* ---- browsers ---------------------------------------------------------------------------- */

enum browser_kind {
	BROWSER_COG,
	BROWSER_CHROMIUM,
};

struct browser;

/*
 * Starts @kind showing @url on ummsd's screen, with @extra_args (NULL or
 * NULL-terminated) before the URL: for cog, "--bg-color=#00000000" makes
 * the page's transparent parts show what is under the window.
 */
struct browser *browser_start(enum browser_kind kind, const char *url,
	const char *const *extra_args);
/* The browser's first process (its process group has the same id). */
pid_t browser_pid(const struct browser *browser);
/*
 * Kills the browser's whole process group (SIGTERM, SIGKILL after 3 s)
 * and waits until no process of it is left (fails the test after 10 s).
 */
void browser_kill(struct browser *browser);
/* Kills it if it still runs, frees it. NULL does nothing. */
void browser_free(struct browser *browser);

/* ---- the screen ---------------------------------------------------------------------------- */

/* What ummsd's screen shows now (Display1.Capture), @width × @height checked. */
struct umms_test_image *browser_capture(struct umms_test *t, const char *what, int width,
	int height);

/* Whether @image is what the test waits for. */
typedef bool (*screen_check_fn)(const struct umms_test_image *image, const void *data);

/*
 * Captures the screen until @check says yes, and returns that capture;
 * after @timeout_ms fails the test naming @what (the last capture saved).
 * Reports in the test log how long it took.
 */
struct umms_test_image *browser_wait_screen(struct umms_test *t, int width, int height,
	screen_check_fn check, const void *data, unsigned timeout_ms, const char *what);

/* A pixel a check wants: (x, y) within 12 per channel of @rgb (0xRRGGBB). */
struct screen_point {
	int x, y;
	uint32_t rgb;
};

/* A screen_check_fn: @data is an array of struct screen_point ended by one with x < 0. */
bool screen_points_match(const struct umms_test_image *image, const void *data);

#endif
