/*
 * A test's own GLES 2 context, target and program for libumms-client-gl's
 * frames (egl-util.h).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <gbm.h>
#include <glib.h>

#include "egl-util.h"

void
umms_test_egl_setup(struct umms_test_egl *egl, const char *card, int width, int height)
{
	*egl = (struct umms_test_egl){ .fd = -1, .width = width, .height = height };
	if (card) {
		egl->fd = open(card, O_RDWR | O_CLOEXEC);
		g_assert_cmpint(egl->fd, >=, 0);
		egl->gbm = gbm_create_device(egl->fd);
		g_assert_nonnull(egl->gbm);
		egl->display = eglGetPlatformDisplay(EGL_PLATFORM_GBM_KHR, egl->gbm, NULL);
	} else {
		egl->display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA,
			EGL_DEFAULT_DISPLAY, NULL);
	}
	g_assert_true(egl->display != EGL_NO_DISPLAY);
	g_assert_true(eglInitialize(egl->display, NULL, NULL));
	g_assert_true(eglBindAPI(EGL_OPENGL_ES_API));
	const EGLint config_attribs[] = {
		EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE,
	};
	EGLConfig config;
	EGLint n = 0;
	g_assert_true(eglChooseConfig(egl->display, config_attribs, &config, 1, &n) && n == 1);
	/* An application's usual GLES 2 context. */
	const EGLint attribs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	egl->context = eglCreateContext(egl->display, config, EGL_NO_CONTEXT, attribs);
	g_assert_true(egl->context != EGL_NO_CONTEXT);
	g_assert_true(eglMakeCurrent(egl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, egl->context));
	g_test_message("GL: %s, %s", glGetString(GL_VERSION), glGetString(GL_RENDERER));

	glGenTextures(1, &egl->target);
	glBindTexture(GL_TEXTURE_2D, egl->target);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
		NULL);
	glGenFramebuffers(1, &egl->fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, egl->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, egl->target, 0);
	g_assert_cmphex(glCheckFramebufferStatus(GL_FRAMEBUFFER), ==, GL_FRAMEBUFFER_COMPLETE);
}

void
umms_test_egl_finish(struct umms_test_egl *egl)
{
	glDeleteFramebuffers(1, &egl->fbo);
	glDeleteTextures(1, &egl->target);
	eglMakeCurrent(egl->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	eglDestroyContext(egl->display, egl->context);
	if (egl->gbm) {
		eglTerminate(egl->display);
		gbm_device_destroy(egl->gbm);
		close(egl->fd);
	}
}

static GLuint
compile(GLenum type, int n, const char **sources)
{
	GLuint shader = glCreateShader(type);
	glShaderSource(shader, n, sources, NULL);
	glCompileShader(shader);
	GLint ok = 0;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetShaderInfoLog(shader, sizeof(log), NULL, log);
		g_error("shader does not compile: %s", log);
	}
	return shader;
}

/* The library's snippet, then the application's main(): the picture over the target. */
static void
build_program(struct umms_test_gl_program *program, const struct umms_gl_frame *frame)
{
	static const char *vertex =
		"attribute vec2 pos;\n"
		"varying vec2 uv;\n"
		"void main()\n"
		"{\n"
		"	gl_Position = vec4(pos, 0.0, 1.0);\n"
		/* Row 0 of the picture at the framebuffer's row 0: read back top row first. */
		"	uv = pos * 0.5 + 0.5;\n"
		"}\n";
	const char *fragment[] = {
		frame->shader,
		"varying vec2 uv;\n"
		"void main()\n"
		"{\n",
		program->subtitled ? "	gl_FragColor = umms_sample_subtitled(uv);\n}\n" :
			"	gl_FragColor = umms_sample(uv);\n}\n",
	};
	umms_test_gl_program_finish(program);
	GLuint vs = compile(GL_VERTEX_SHADER, 1, &vertex);
	GLuint fs = compile(GL_FRAGMENT_SHADER, (int)G_N_ELEMENTS(fragment), fragment);
	program->program = glCreateProgram();
	glAttachShader(program->program, vs);
	glAttachShader(program->program, fs);
	glBindAttribLocation(program->program, 0, "pos");
	glLinkProgram(program->program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	GLint ok = 0;
	glGetProgramiv(program->program, GL_LINK_STATUS, &ok);
	g_assert_true(ok);
	program->shader_id = frame->shader_id;
}

void
umms_test_egl_draw(struct umms_test_egl *egl, struct umms_test_gl_program *program,
	const struct umms_gl_frame *frame, uint8_t *pixels)
{
	if (!program->program || frame->shader_id != program->shader_id)
		build_program(program, frame);
	glBindFramebuffer(GL_FRAMEBUFFER, egl->fbo);
	glViewport(0, 0, egl->width, egl->height);
	glClearColor(0.5f, 0.5f, 0.5f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	umms_gl_frame_bind(frame, program->program, 0);
	static const GLfloat quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
	glBindBuffer(GL_ARRAY_BUFFER, 0);
	glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
	glEnableVertexAttribArray(0);
	glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
	glReadPixels(0, 0, egl->width, egl->height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
	g_assert_cmpint(glGetError(), ==, GL_NO_ERROR);
}

const struct umms_gl_frame *
umms_test_egl_draw_update(struct umms_test_egl *egl, struct umms_test_gl_program *program,
	struct umms_gl *gl, uint8_t *pixels)
{
	const struct umms_gl_frame *frame = umms_gl_update(gl, 0);
	if (frame)
		umms_test_egl_draw(egl, program, frame, pixels);
	return frame;
}

void
umms_test_gl_program_finish(struct umms_test_gl_program *program)
{
	if (program->program)
		glDeleteProgram(program->program);
	program->program = 0;
	program->shader_id = 0;
}

static const uint8_t *
pixel(const struct umms_test_egl *egl, const uint8_t *pixels, int x, int y)
{
	g_assert_true(x >= 0 && x < egl->width && y >= 0 && y < egl->height);
	return &pixels[((size_t)y * (size_t)egl->width + (size_t)x) * 4];
}

void
umms_test_egl_assert_rgb(const struct umms_test_egl *egl, const uint8_t *pixels, int x, int y,
	uint32_t rgb, int tolerance, const char *what)
{
	const uint8_t *p = pixel(egl, pixels, x, y);
	int want[3] = { (int)(rgb >> 16) & 0xff, (int)(rgb >> 8) & 0xff, (int)rgb & 0xff };
	for (int c = 0; c < 3; c++) {
		if (abs(p[c] - want[c]) > tolerance)
			g_error("%s at (%d, %d): %02x%02x%02x, expected %06x", what, x, y, p[0],
				p[1], p[2], rgb);
	}
}

uint8_t
umms_test_egl_alpha(const struct umms_test_egl *egl, const uint8_t *pixels, int x, int y)
{
	return pixel(egl, pixels, x, y)[3];
}
