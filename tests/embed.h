/*
 * wl-embed (tests/wl-embed.c) as the compositor tests drive it: an
 * application window with a umms player embedded through libumms-client,
 * in a compositor of compositor.h. Every failure fails the test.
 */
#ifndef UMMS_TESTS_EMBED_H
#define UMMS_TESTS_EMBED_H

#include <gio/gio.h>

#include "compositor.h"
#include "image.h"

/* wl-embed's colours: its window, and the frame 4 px around the video rectangle. */
#define UMMS_TEST_EMBED_UI 0x808080u
#define UMMS_TEST_EMBED_FRAME 0xffff00u

struct umms_test_embed {
	GSubprocess *process;
	GOutputStream *in;
	GAsyncQueue *lines;
	GThread *reader;
	char *path;                /* its player's D-Bus object */
};

/*
 * Runs wl-embed with @args (NULL-terminated, may be NULL) in @compositor
 * and returns once it printed its player's path.
 */
struct umms_test_embed *umms_test_embed_start(struct umms_test_compositor *compositor,
	const char *const *args);
/* The same, with its client side of the Wayland protocol (WAYLAND_DEBUG) written to @trace. */
struct umms_test_embed *umms_test_embed_start_traced(struct umms_test_compositor *compositor,
	const char *const *args, const char *trace);
/* The next line starting with @prefix (others are skipped); fails after @ms. */
char *umms_test_embed_wait(struct umms_test_embed *e, const char *prefix, unsigned ms);
void umms_test_embed_send(struct umms_test_embed *e, const char *command);
/* Sends a command and waits until it is committed. */
void umms_test_embed_command(struct umms_test_embed *e, const char *command);
/* quit, then asserts a clean exit (no crash, no sanitizer report). */
void umms_test_embed_free(struct umms_test_embed *e);
/*
 * The video rectangle of a wl-embed window in @image (x, y, width, height):
 * inside its yellow frame. False if no frame is on screen.
 */
bool umms_test_embed_find_rect(const struct umms_test_image *image, int rect[4]);
/* The same, with the frame drawn in @frame (0xRRGGBB) by the compositor. */
bool umms_test_embed_find_rect_of(const struct umms_test_image *image, uint32_t frame,
	int rect[4]);

#endif
