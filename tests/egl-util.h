/*
 * A test as an application of libumms-client-gl: its own GLES 2 context
 * (EGL on Mesa: the surfaceless display, llvmpipe, or the GBM device of a
 * KMS card), an RGBA texture it draws into through a framebuffer, its
 * program (the library's snippet, then a main() sampling the picture over
 * the whole target), and the pixels read back with glReadPixels.
 */
#ifndef UMMS_TESTS_EGL_UTIL_H
#define UMMS_TESTS_EGL_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <EGL/egl.h>
#include <GLES2/gl2.h>

#include "umms-gl.h"

struct gbm_device;

struct umms_test_egl {
	int fd;                  /* the card of a GBM display; -1 when surfaceless */
	struct gbm_device *gbm;
	EGLDisplay display;
	EGLContext context;
	/* What is drawn into: an RGBA texture of width x height, through fbo. */
	GLuint fbo, target;
	int width, height;
};

/* The application's program, made anew when the frames' snippet changes. */
struct umms_test_gl_program {
	bool subtitled;          /* draws umms_sample_subtitled(), else umms_sample() */
	GLuint program;          /* 0 until the first frame is drawn */
	unsigned shader_id;      /* the snippet it was made with */
};

/*
 * Makes a GLES 2 context current, on Mesa's surfaceless display (@card
 * NULL) or on the GBM device of @card ("/dev/dri/card0"), and the target of
 * @width x @height. Asserts every step.
 */
void umms_test_egl_setup(struct umms_test_egl *egl, const char *card, int width, int height);

/*
 * Destroys the target and the context. A GBM display is terminated and its
 * card closed; the surfaceless one is not terminated (Mesa 22.3 leaks its
 * driver's allocations then, as demo/umms-gl.c says).
 */
void umms_test_egl_finish(struct umms_test_egl *egl);

/*
 * Draws @frame over the whole target with @program (made for the frame's
 * snippet if need be) and reads the target back into @pixels (width x
 * height RGBA): the picture's row y at row y. Asserts no GL error.
 */
void umms_test_egl_draw(struct umms_test_egl *egl, struct umms_test_gl_program *program,
	const struct umms_gl_frame *frame, uint8_t *pixels);

/*
 * An application frame: the newest frame of @gl due now (umms_gl_update),
 * drawn as umms_test_egl_draw() does; NULL, and nothing drawn, if none.
 */
const struct umms_gl_frame *umms_test_egl_draw_update(struct umms_test_egl *egl,
	struct umms_test_gl_program *program, struct umms_gl *gl, uint8_t *pixels);

/* Deletes the program, if made: the next draw makes it again. */
void umms_test_gl_program_finish(struct umms_test_gl_program *program);

/*
 * Fails the test unless the red, green and blue of (@x, @y) in @pixels (as
 * read back from @egl's target) are each within @tolerance of @rgb's.
 */
void umms_test_egl_assert_rgb(const struct umms_test_egl *egl, const uint8_t *pixels, int x,
	int y, uint32_t rgb, int tolerance, const char *what);

/* The alpha of (@x, @y) in @pixels, as read back from @egl's target. */
uint8_t umms_test_egl_alpha(const struct umms_test_egl *egl, const uint8_t *pixels, int x,
	int y);

#endif
