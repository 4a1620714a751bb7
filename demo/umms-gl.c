/*
 * umms-gl: a video on a turning quad, drawn with OpenGL ES, to read top to
 * bottom. It shows how an application that renders with GL (a game or
 * browser engine, Qt Quick, a TV launcher) gets each video frame as a
 * texture of its own EGL context with libumms-client-gl (targets/gl/umms-gl.h).
 *
 *   umms-gl [--headless] [--frames N] [--png FILE] [--yuv] FILE-OR-URI
 *   umms-gl [--headless] [--frames N] [--png FILE] [--yuv] --player PATH
 *
 * Where it draws: into an xdg_toplevel window (wl_egl_window) when a Wayland
 * compositor is reachable (libwayland finds it through WAYLAND_DISPLAY);
 * without one, or with --headless, into a framebuffer object of a
 * surfaceless EGL context (EGL_MESA_platform_surfaceless: Mesa's llvmpipe
 * draws it on the CPU, no GPU or display needed). --frames N stops after N
 * frames with video, --png FILE then writes the last one as a PNG.
 *
 * The player: by default the library asks ummsd for a new player owned by
 * our connection (it goes when we exit) and we open FILE-OR-URI on it over
 * D-Bus (SetUri, then Play on org.umms.Player1 at the path the library
 * gives us). With --player PATH we show a player someone else drives
 * (ummsctl, umms-play...), by its D-Bus object path.
 *
 * Numbered comments (1. to 6.) follow what happens in order.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <png.h>
#include <wayland-client.h>
#include <wayland-egl.h>

#include "umms-gl.h"
#include "xdg-shell-client-protocol.h"

#define SERVICE "org.umms.Service1"
#define PLAYER "org.umms.Player1"
#define HEADLESS_WIDTH 640
#define HEADLESS_HEIGHT 360

struct app {
	GMainLoop *main_loop;
	int status;
	GDBusConnection *bus;
	const char *uri;               /* what we open, or NULL with --player */
	char *path;                    /* the player's D-Bus object path, once ready */

	/* EGL: the display, our context, and where we draw. */
	EGLDisplay egl_display;
	EGLContext context;
	EGLSurface egl_surface;        /* the window's; EGL_NO_SURFACE headless */
	GLuint fbo, fbo_texture;       /* headless: what we draw into */
	int width, height;

	/* The window (NULL headless). */
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;
	struct wl_egl_window *native;
	bool configured;

	/* The video and how we draw it. */
	struct umms_gl *gl;
	GLuint program;
	unsigned shader_id;            /* the library's snippet the program was built with */
	unsigned frames, max_frames;   /* frames drawn with video; 0: no limit */
	const char *png;
	guint umms_watch, wayland_watch, timer; /* main-loop sources; 0 once removed */
};

static void
quit(struct app *app, int status)
{
	if (status)
		app->status = status;
	g_main_loop_quit(app->main_loop);
}

/* ---- D-Bus: driving the player ---------------------------------------------- */

static void
play_done(GObject *bus, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (!reply) {
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-gl: %s\n", error->message);
		g_error_free(error);
		quit(data, 1);
		return;
	}
	g_variant_unref(reply);
}

/* 3. The media is open (SetUri replied): play it. */
static void
uri_set(GObject *bus, GAsyncResult *result, gpointer data)
{
	struct app *app = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(bus), result, &error);
	if (!reply) {
		g_dbus_error_strip_remote_error(error);
		fprintf(stderr, "umms-gl: cannot open %s: %s\n", app->uri, error->message);
		g_error_free(error);
		quit(app, 1);
		return;
	}
	g_variant_unref(reply);
	g_dbus_connection_call(app->bus, SERVICE, app->path, PLAYER, "Play", NULL, NULL,
		G_DBUS_CALL_FLAGS_NONE, -1, NULL, play_done, app);
}

/* ---- libumms-client-gl: the player's life ------------------------------------ */

/* 2. The player exists: open the media on it (unless someone else drives it). */
static void
on_ready(void *data, struct umms_gl *gl, const char *path)
{
	struct app *app = data;
	app->path = g_strdup(path);
	printf("player %s\n", path);
	fflush(stdout);
	if (!app->uri)
		return;
	/* 30 s: SetUri replies once the media is open, slow on a network. */
	g_dbus_connection_call(app->bus, SERVICE, path, PLAYER, "SetUri",
		g_variant_new("(s)", app->uri), NULL, G_DBUS_CALL_FLAGS_NONE, 30000, NULL,
		uri_set, app);
}

static void
on_failed(void *data, struct umms_gl *gl, const char *reason)
{
	fprintf(stderr, "umms-gl: no player: %s\n", reason);
	quit(data, 1);
}

static void
on_end_of_stream(void *data, struct umms_gl *gl)
{
	struct app *app = data;
	/* With --frames we wait for them (a paused last frame is still drawn). */
	if (!app->max_frames)
		quit(app, 0);
}

static void
on_error(void *data, struct umms_gl *gl, const char *name, const char *message)
{
	fprintf(stderr, "umms-gl: playback failed: %s (%s)\n", message, name);
	quit(data, 1);
}

static const struct umms_gl_listener gl_listener = {
	.ready = on_ready,
	.failed = on_failed,
	.end_of_stream = on_end_of_stream,
	.error = on_error,
};

/* ---- drawing ------------------------------------------------------------------ */

/*
 * The quad turns about its vertical axis: rotated in x/z, then a little
 * perspective (w grows with depth). uv (0, 0) is the picture's top-left,
 * as umms_sample() wants it; pos.y goes up, so v is flipped.
 */
static const char vertex_source[] =
	"attribute vec2 pos;\n"
	"uniform float angle;\n"
	"uniform vec2 scale;\n"
	"varying vec2 uv;\n"
	"void main()\n"
	"{\n"
	"	vec2 p = pos * scale;\n"
	"	float x = p.x * cos(angle), z = p.x * sin(angle);\n"
	"	gl_Position = vec4(x, p.y, 0.0, 1.0 + 0.3 * z);\n"
	"	uv = vec2(pos.x * 0.5 + 0.5, 0.5 - pos.y * 0.5);\n"
	"}\n";

/*
 * Ours: only main(). umms_sample_subtitled() comes from the library's
 * snippet, put first: the picture with the player's subtitles over it
 * (umms_sample() is the picture alone).
 */
static const char fragment_main[] =
	"varying vec2 uv;\n"
	"void main()\n"
	"{\n"
	"	gl_FragColor = umms_sample_subtitled(uv);\n"
	"}\n";

static GLuint
compile(GLenum type, int n, const char *const *sources)
{
	GLuint shader = glCreateShader(type);
	glShaderSource(shader, n, sources, NULL);
	glCompileShader(shader);
	GLint ok = GL_FALSE;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetShaderInfoLog(shader, sizeof(log), NULL, log);
		fprintf(stderr, "umms-gl: shader does not compile: %s\n", log);
		glDeleteShader(shader);
		return 0;
	}
	return shader;
}

/*
 * 5. A program for this frame's snippet: it changes only when the frame's
 * format does (RGB, NV12, YUV420...), so this runs once or twice a video.
 */
static bool
build_program(struct app *app, const struct umms_gl_frame *frame)
{
	const char *vertex[] = { vertex_source };
	const char *fragment[] = { frame->shader, fragment_main };
	GLuint vs = compile(GL_VERTEX_SHADER, 1, vertex);
	GLuint fs = compile(GL_FRAGMENT_SHADER, 2, fragment);
	if (app->program)
		glDeleteProgram(app->program);
	app->program = glCreateProgram();
	glAttachShader(app->program, vs);
	glAttachShader(app->program, fs);
	glBindAttribLocation(app->program, 0, "pos");
	glLinkProgram(app->program);
	glDeleteShader(vs);
	glDeleteShader(fs);
	GLint ok = GL_FALSE;
	glGetProgramiv(app->program, GL_LINK_STATUS, &ok);
	if (!ok)
		return false;
	app->shader_id = frame->shader_id;
	return true;
}

static bool write_png(struct app *app);

/* 4. One frame of ours, about 60 times a second. */
static gboolean
draw(gpointer data)
{
	struct app *app = data;
	/* The window's events (configure, close) and the video's, without waiting. */
	if (app->display && wl_display_dispatch_pending(app->display) < 0) {
		quit(app, 1);
		app->timer = 0;
		return G_SOURCE_REMOVE;
	}
	if (app->display && !app->configured)
		return G_SOURCE_CONTINUE;

	glBindFramebuffer(GL_FRAMEBUFFER, app->fbo);   /* 0: the window */
	glViewport(0, 0, app->width, app->height);
	glClearColor(0.1f, 0.1f, 0.12f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);

	/* The newest frame due now, as textures of our context (or the last one again). */
	const struct umms_gl_frame *frame = umms_gl_update(app->gl, 0);
	if (frame && frame->shader_id != app->shader_id && !build_program(app, frame)) {
		quit(app, 1);
		app->timer = 0;
		return G_SOURCE_REMOVE;
	}
	if (frame) {
		/* Binds the textures, sets the snippet's uniforms (crop, colour matrix). */
		umms_gl_frame_bind(frame, app->program, 0);
		/* The picture's shape (crop, pixel aspect), fitted in 75% of ours. */
		double picture = (double)frame->crop_width * frame->par_n / frame->par_d /
			frame->crop_height;
		double ours = (double)app->width / app->height;
		float sx = 0.75f, sy = 0.75f;
		if (picture > ours)
			sy = (float)(0.75 * ours / picture);
		else
			sx = (float)(0.75 * picture / ours);
		glUniform2f(glGetUniformLocation(app->program, "scale"), sx, sy);
		/* To and fro, a quarter turn wide, every 4 s at 60 frames a second. */
		glUniform1f(glGetUniformLocation(app->program, "angle"),
			(float)(0.7 * sin(app->frames * 2.0 * G_PI / 240.0)));
		static const GLfloat quad[] = { -1, -1, 1, -1, -1, 1, 1, 1 };
		glBindBuffer(GL_ARRAY_BUFFER, 0);
		glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
		glEnableVertexAttribArray(0);
		glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
		app->frames++;
	}

	/* The last one: read back before the swap (after it, the back buffer is undefined). */
	bool last = app->max_frames && app->frames >= app->max_frames;
	if (last && app->png && !write_png(app))
		app->status = 1;
	if (app->egl_surface != EGL_NO_SURFACE) {
		eglSwapBuffers(app->egl_display, app->egl_surface);
		wl_display_flush(app->display);
	}
	if (last) {
		quit(app, 0);
		app->timer = 0;
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

/* --png: what we drew last, read back. GL's rows go up, PNG's down. */
static bool
write_png(struct app *app)
{
	size_t row = (size_t)app->width * 4;
	uint8_t *pixels = g_malloc(row * (size_t)app->height);
	glReadPixels(0, 0, app->width, app->height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
	FILE *file = fopen(app->png, "wb");
	if (!file) {
		fprintf(stderr, "umms-gl: cannot write %s\n", app->png);
		g_free(pixels);
		return false;
	}
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	bool ok = false;
	if (setjmp(png_jmpbuf(png)) == 0) {
		png_init_io(png, file);
		png_set_IHDR(png, info, (png_uint_32)app->width, (png_uint_32)app->height, 8,
			PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
			PNG_FILTER_TYPE_DEFAULT);
		png_write_info(png, info);
		for (int y = app->height - 1; y >= 0; y--)
			png_write_row(png, pixels + (size_t)y * row);
		png_write_end(png, NULL);
		ok = true;
	}
	png_destroy_write_struct(&png, &info);
	ok = fclose(file) == 0 && ok;
	g_free(pixels);
	if (ok)
		printf("wrote %s (%dx%d)\n", app->png, app->width, app->height);
	else
		fprintf(stderr, "umms-gl: writing %s failed\n", app->png);
	return ok;
}

/* ---- the window ---------------------------------------------------------------- */

static void
wm_base_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = { .ping = wm_base_ping };

static void
registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
	uint32_t version)
{
	struct app *app = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		app->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(app->wm_base, &wm_base_listener, app);
	}
}

static void
registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

static void
xdg_surface_configure(void *data, struct xdg_surface *xdg_surface, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	app->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

/* The compositor's size (0: ours to choose); the EGL window follows it. */
static void
toplevel_configure(void *data, struct xdg_toplevel *toplevel, int32_t width, int32_t height,
	struct wl_array *states)
{
	struct app *app = data;
	if (width > 0 && height > 0 && (width != app->width || height != app->height)) {
		app->width = width;
		app->height = height;
		if (app->native)
			wl_egl_window_resize(app->native, width, height, 0, 0);
	}
}

static void
toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	quit(data, 0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

/* 1a. A window to draw into, and an EGL display on the compositor's connection. */
static bool
open_window(struct app *app)
{
	struct wl_registry *registry = wl_display_get_registry(app->display);
	wl_registry_add_listener(registry, &registry_listener, app);
	wl_display_roundtrip(app->display);
	wl_registry_destroy(registry);
	if (!app->compositor || !app->wm_base) {
		fprintf(stderr, "umms-gl: the compositor lacks wl_compositor or xdg_wm_base\n");
		return false;
	}
	app->width = 960;
	app->height = 540;
	app->surface = wl_compositor_create_surface(app->compositor);
	app->xdg_surface = xdg_wm_base_get_xdg_surface(app->wm_base, app->surface);
	xdg_surface_add_listener(app->xdg_surface, &xdg_surface_listener, app);
	app->toplevel = xdg_surface_get_toplevel(app->xdg_surface);
	xdg_toplevel_add_listener(app->toplevel, &toplevel_listener, app);
	xdg_toplevel_set_title(app->toplevel, "umms-gl");
	xdg_toplevel_set_app_id(app->toplevel, "org.umms.Gl");
	wl_surface_commit(app->surface);
	wl_display_roundtrip(app->display);
	app->native = wl_egl_window_create(app->surface, app->width, app->height);
	app->egl_display = eglGetPlatformDisplay(EGL_PLATFORM_WAYLAND_KHR, app->display, NULL);
	return app->egl_display != EGL_NO_DISPLAY;
}

static gboolean
wayland_readable(int fd, GIOCondition condition, gpointer data)
{
	struct app *app = data;
	if (wl_display_dispatch(app->display) < 0) {
		fprintf(stderr, "umms-gl: lost the compositor\n");
		quit(app, 1);
		app->wayland_watch = 0;
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

/* ---- EGL --------------------------------------------------------------------------- */

/* 1b. An OpenGL ES 2 context, current: on the window, or surfaceless into an FBO. */
static bool
setup_egl(struct app *app)
{
	if (!app->display) {
		/* No window: Mesa's surfaceless platform (llvmpipe without a GPU). */
		app->egl_display = eglGetPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA,
			EGL_DEFAULT_DISPLAY, NULL);
		app->width = HEADLESS_WIDTH;
		app->height = HEADLESS_HEIGHT;
	}
	if (app->egl_display == EGL_NO_DISPLAY ||
			!eglInitialize(app->egl_display, NULL, NULL) || !eglBindAPI(EGL_OPENGL_ES_API)) {
		fprintf(stderr, "umms-gl: no EGL display (is Mesa's libEGL installed?)\n");
		return false;
	}
	const EGLint config_attribs[] = {
		EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
		EGL_SURFACE_TYPE, app->display ? EGL_WINDOW_BIT : 0,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8,
		EGL_NONE,
	};
	EGLConfig config;
	EGLint n = 0;
	if (!eglChooseConfig(app->egl_display, config_attribs, &config, 1, &n) || n < 1) {
		fprintf(stderr, "umms-gl: no EGL config for OpenGL ES 2\n");
		return false;
	}
	const EGLint context_attribs[] = { EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE };
	app->context = eglCreateContext(app->egl_display, config, EGL_NO_CONTEXT, context_attribs);
	if (app->context == EGL_NO_CONTEXT) {
		fprintf(stderr, "umms-gl: no OpenGL ES 2 context: EGL error %#x\n", eglGetError());
		return false;
	}
	if (app->display)
		app->egl_surface = eglCreatePlatformWindowSurface(app->egl_display, config,
			app->native, NULL);
	if (!eglMakeCurrent(app->egl_display, app->egl_surface, app->egl_surface, app->context)) {
		fprintf(stderr, "umms-gl: the context cannot be made current: EGL error %#x\n",
			eglGetError());
		return false;
	}
	if (app->display) {
		/* Our timer paces drawing: a swap must not wait for the compositor. */
		eglSwapInterval(app->egl_display, 0);
		return true;
	}
	/* Headless: a texture-backed framebuffer is our screen. */
	glGenTextures(1, &app->fbo_texture);
	glBindTexture(GL_TEXTURE_2D, app->fbo_texture);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, app->width, app->height, 0, GL_RGBA,
		GL_UNSIGNED_BYTE, NULL);
	glGenFramebuffers(1, &app->fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, app->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D,
		app->fbo_texture, 0);
	return glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
}

/* Ctrl-C or SIGTERM: leave through the clean-up below, like closing the window. */
static gboolean
on_signal(gpointer data)
{
	quit(data, 0);
	return G_SOURCE_CONTINUE;
}

static gboolean
umms_readable(int fd, GIOCondition condition, gpointer data)
{
	struct app *app = data;
	/* Frames and events: the frames wait for our next umms_gl_update(). */
	if (umms_gl_dispatch(app->gl) < 0) {
		fprintf(stderr, "umms-gl: ummsd went away\n");
		quit(app, 1);
		app->umms_watch = 0;
		return G_SOURCE_REMOVE;
	}
	return G_SOURCE_CONTINUE;
}

int
main(int argc, char *argv[])
{
	struct app app = { .egl_display = EGL_NO_DISPLAY, .egl_surface = EGL_NO_SURFACE };
	gboolean headless = FALSE, yuv = FALSE;
	gint frames = 0;
	g_autofree char *png = NULL, *player = NULL;
	GOptionEntry entries[] = {
		{ "headless", 0, 0, G_OPTION_ARG_NONE, &headless, "Draw off screen (surfaceless EGL)", NULL },
		{ "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Stop after N frames with video", "N" },
		{ "png", 0, 0, G_OPTION_ARG_FILENAME, &png, "Write the last frame as a PNG", "FILE" },
		{ "yuv", 0, 0, G_OPTION_ARG_NONE, &yuv, "Ask for YUV frames (converted by our shader)", NULL },
		{ "player", 0, 0, G_OPTION_ARG_STRING, &player, "Show this player (D-Bus path)", "PATH" },
		{ NULL },
	};
	g_autoptr(GOptionContext) options = g_option_context_new("[FILE-OR-URI]");
	g_option_context_add_main_entries(options, entries, NULL);
	g_autoptr(GError) error = NULL;
	if (!g_option_context_parse(options, &argc, &argv, &error) || frames < 0 ||
			(!player && argc != 2) || (player && argc != 1)) {
		fprintf(stderr, "usage: umms-gl [--headless] [--frames N] [--png FILE] [--yuv] "
			"FILE-OR-URI | --player PATH\n");
		return 2;
	}
	app.max_frames = (unsigned)frames;
	app.png = png;
	g_autofree char *uri = NULL;
	if (!player) {
		/* ummsd takes URIs: a file name becomes file:///absolute/path. */
		g_autofree char *absolute = g_canonicalize_filename(argv[1], NULL);
		uri = g_uri_is_valid(argv[1], G_URI_FLAGS_NONE, NULL) ? g_strdup(argv[1]) :
			g_filename_to_uri(absolute, NULL, NULL);
		app.uri = uri;
	}
	app.bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, &error);
	if (!app.bus) {
		fprintf(stderr, "umms-gl: no session bus: %s\n", error->message);
		return 1;
	}

	/* 1. Where we draw: a window if there is a compositor, else off screen. */
	if (!headless && !(app.display = wl_display_connect(NULL)))
		printf("no Wayland compositor: drawing off screen\n");
	if ((app.display && !open_window(&app)) || !setup_egl(&app))
		return 1;
	printf("GL: %s on %s, %dx%d%s\n", glGetString(GL_VERSION), glGetString(GL_RENDERER),
		app.width, app.height, app.display ? "" : " (headless)");

	/* 2. The video: our context is current, so the library learns what EGL imports. */
	app.gl = umms_gl_create(NULL, player, yuv ? UMMS_GL_YUV : 0, &gl_listener, &app);
	if (!app.gl) {
		perror("umms-gl: cannot reach ummsd's video socket (is ummsd running?)");
		return 1;
	}

	/* 3. One main loop: D-Bus replies, ummsd's socket, the compositor's, our timer. */
	app.main_loop = g_main_loop_new(NULL, FALSE);
	app.umms_watch = g_unix_fd_add(umms_gl_get_fd(app.gl), G_IO_IN | G_IO_ERR | G_IO_HUP,
		umms_readable, &app);
	if (app.display)
		app.wayland_watch = g_unix_fd_add(wl_display_get_fd(app.display),
			G_IO_IN | G_IO_ERR | G_IO_HUP, wayland_readable, &app);
	app.timer = g_timeout_add(16, draw, &app);
	guint sigint = g_unix_signal_add(SIGINT, on_signal, &app);
	guint sigterm = g_unix_signal_add(SIGTERM, on_signal, &app);
	g_main_loop_run(app.main_loop);
	g_source_remove(sigint);
	g_source_remove(sigterm);

	/* 6. Everything goes, GL objects first, while our context is still current. */
	guint sources[] = { app.umms_watch, app.wayland_watch, app.timer };
	for (size_t i = 0; i < G_N_ELEMENTS(sources); i++) {
		if (sources[i])
			g_source_remove(sources[i]);
	}
	umms_gl_destroy(app.gl);
	if (app.program)
		glDeleteProgram(app.program);
	if (app.fbo) {
		glDeleteFramebuffers(1, &app.fbo);
		glDeleteTextures(1, &app.fbo_texture);
	}
	eglMakeCurrent(app.egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	if (app.egl_surface != EGL_NO_SURFACE)
		eglDestroySurface(app.egl_display, app.egl_surface);
	eglDestroyContext(app.egl_display, app.context);
	if (app.display) {
		/*
		 * The Wayland EGL display is terminated before its connection
		 * goes (Mesa's exit handler would use it otherwise). The
		 * surfaceless one is not: terminating it makes Mesa 22.3 unload
		 * its driver and leave 240 bytes behind, which LeakSanitizer
		 * reports under tools/test; it is the process's one display,
		 * gone at exit anyway.
		 */
		eglTerminate(app.egl_display);
		wl_egl_window_destroy(app.native);
		xdg_toplevel_destroy(app.toplevel);
		xdg_surface_destroy(app.xdg_surface);
		wl_surface_destroy(app.surface);
		xdg_wm_base_destroy(app.wm_base);
		wl_compositor_destroy(app.compositor);
		wl_display_disconnect(app.display);
	}
	g_main_loop_unref(app.main_loop);
	g_object_unref(app.bus);
	g_free(app.path);
	return app.status;
}
