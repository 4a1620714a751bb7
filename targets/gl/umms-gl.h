/*
 * libumms-client-gl: a umms player's video as GL textures in your own EGL
 * context, for applications that already draw with OpenGL ES (browser and
 * game engines, Qt Quick, a TV launcher).
 *
 * The library connects to ummsd's video socket (protocol umms_video_v1),
 * receives the player's frames, turns the one you ask for into textures of
 * your context, and answers ummsd for every frame (presented, discarded,
 * released), so the player's clock, lip sync and Stats stay right. You draw
 * the textures yourself, with a GLSL ES 1.00 snippet the library gives you
 * (`vec4 umms_sample(vec2 uv)`), which hides the frame's format: RGB or YUV,
 * one to three planes, the crop.
 *
 * Use (error checks left out):
 *
 *	// your EGL context current:
 *	struct umms_gl *gl = umms_gl_create(NULL, NULL, 0, &listener, app);
 *	// ready(path): drive the player over D-Bus (org.umms.Player1 at path)
 *	// in your loop: poll umms_gl_get_fd(gl); readable: umms_gl_dispatch(gl)
 *	// each frame you draw, context current:
 *	const struct umms_gl_frame *frame = umms_gl_update(gl, next_vsync_ns);
 *	if (frame) {
 *		if (frame->shader_id != my_shader_id)
 *			rebuild_program(frame->shader);  // snippet + your main()
 *		umms_gl_frame_bind(frame, program, 0);
 *		draw_quad();                        // main() calls umms_sample(uv)
 *	}
 *	eglSwapBuffers(...);
 *	// with the context current again:
 *	umms_gl_destroy(gl);
 *
 * Threading: one thread. Call every function from the thread that owns the
 * EGL context you use with the library, never concurrently. The library
 * makes no context current and creates none.
 *
 * Which context: umms_gl_create(), umms_gl_update(), umms_gl_frame_bind()
 * and umms_gl_destroy() need your EGL context current (the same one, or one
 * sharing its textures, every time): create reads its EGL display's dma-buf
 * formats (with no context current, no dma-buf format is announced), update
 * uploads and imports into it, destroy deletes the textures and EGLImages
 * the library made in it. umms_gl_get_fd(), umms_gl_dispatch(),
 * umms_gl_roundtrip(), umms_gl_presented() and the getters need no context.
 * umms_gl_update() leaves your GL state as it found it (active texture
 * unit, that unit's GL_TEXTURE_2D binding, unpack alignment and row
 * length); umms_gl_frame_bind() changes what it says it changes.
 *
 * Frames, and what is counted:
 *
 *  - Shared memory (memfd) frames are uploaded into textures the library
 *    owns and reuses from frame to frame (glTexImage2D when the size or
 *    format changes, glTexSubImage2D otherwise); ummsd's memory is released
 *    right after the upload. Each such frame is reported to ummsd as
 *    presented with the `copied` flag: ummsd counts it in the player's D-Bus
 *    Stats "copies" (an upload is a copy; it is never hidden).
 *  - dma-buf frames are imported without a copy as EGLImages (one per plane,
 *    or one external image), cached per buffer for as long as ummsd uses
 *    the buffer, and bound to textures; reported with `zero_copy`. The
 *    buffer is released to ummsd when another frame replaces it.
 *  - A frame that arrived but was replaced by a newer one before any
 *    umms_gl_update() took it is released and reported `discarded` (Stats
 *    "frames-discarded"): it never reached the screen.
 *
 * Presentation: by default umms_gl_update() reports the frame it takes as
 * presented at @target_ns (the time you said it will be on screen), at once.
 * With UMMS_GL_MANUAL_PRESENTED, you call umms_gl_presented() after your
 * swap with the time the frame really reached the screen (from
 * EGL_ANDROID_get_frame_timestamps, wp_presentation, a page flip); a frame
 * you never reported before the next update took a newer one is reported
 * discarded. Either way ummsd uses the time for lip sync.
 *
 * Formats ummsd sends: by default the library announces XRGB8888 and
 * ARGB8888 (and NV12, YUV420 after them); ummsd then converts to XRGB8888 in
 * its decoding thread with the stream's own colorimetry (exact colours),
 * and you upload 4 bytes a pixel. UMMS_GL_YUV announces only NV12 and
 * YUV420: frames arrive as decoders make them, 1.5 bytes a pixel, and the
 * snippet converts them. The protocol carries no colour matrix, so the
 * snippet assumes BT.709 for pictures 720 rows high or more and BT.601
 * below, limited range (16-235/240), as most broadcast and web video is.
 * dma-buf formats are announced for what the current EGL display imports
 * (eglQueryDmaBufFormatsEXT and eglQueryDmaBufModifiersEXT, where EGL has
 * them).
 *
 * Subtitles (ummsd with umms_video_manager_v1 version 4): the subtitles
 * of the player's subtitle track come as an image ummsd rendered, in a
 * second texture the frame names (subtitle_texture, 0 for none) with
 * where it goes over the picture (subtitle_rect). It is uploaded once per
 * image (counted in umms_gl_get_subtitle_counts), not per frame: while a
 * cue stands, frames name the same texture and subtitle_serial. Draw it by
 * calling umms_sample_subtitled(uv) instead of umms_sample(uv) in your
 * shader (both are in the snippet), or draw it yourself. An application
 * that draws its own captions turns the images off and asks for the text
 * (umms_gl_set_subtitles).
 */
#ifndef UMMS_GL_H
#define UMMS_GL_H

#include <stdbool.h>
#include <stdint.h>
#include <GLES2/gl2.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(UMMS_GL_BUILD)
#define UMMS_GL_EXPORT __attribute__((visibility("default")))
#else
#define UMMS_GL_EXPORT
#endif

struct umms_gl;

enum umms_gl_flags {
	/* Ask for YUV frames (NV12 or YUV420, ummsd picks) instead of XRGB8888. */
	UMMS_GL_YUV = 1 << 0,
	/* Ask for YUV420 (I420) only: a software decoder's frames, unconverted. */
	UMMS_GL_I420 = 1 << 1,
	/* You report presentation with umms_gl_presented() (see above). */
	UMMS_GL_MANUAL_PRESENTED = 1 << 2,
};

struct umms_gl_listener {
	/* The player exists; control it at this D-Bus object path (org.umms.Player1). */
	void (*ready)(void *data, struct umms_gl *gl, const char *path);
	/* There is no player to show (no such path, or none could be made). */
	void (*failed)(void *data, struct umms_gl *gl, const char *reason);
	/* The picture's shape changed: @width x @height with square pixels. */
	void (*size)(void *data, struct umms_gl *gl, int width, int height);
	/* The media ended. */
	void (*end_of_stream)(void *data, struct umms_gl *gl);
	/*
	 * Playback failed: @name is an org.umms.Error.* name
	 * (org.umms.Error.NotFound once the player was destroyed; no more
	 * frames come then, the last one stays usable).
	 */
	void (*error)(void *data, struct umms_gl *gl, const char *name, const char *message);
};

/* How umms_sample() reads the textures: changes only with the format. */
enum umms_gl_layout {
	UMMS_GL_LAYOUT_RGBA,      /* one RGBA texture */
	UMMS_GL_LAYOUT_NV12,      /* Y (one channel), CbCr (two channels) */
	UMMS_GL_LAYOUT_YUV420,    /* Y, Cb, Cr (one channel each) */
	UMMS_GL_LAYOUT_EXTERNAL,  /* one GL_TEXTURE_EXTERNAL_OES: the driver converts */
};

/*
 * The frame to draw, owned by the library: valid until the next
 * umms_gl_update() or umms_gl_destroy(). Its textures belong to the
 * library: sample them, never delete or modify them.
 */
struct umms_gl_frame {
	uint32_t format;          /* memfd: a wl_shm format; dma-buf: a DRM fourcc */
	bool dmabuf;
	enum umms_gl_layout layout;
	int width, height;        /* the frame in pixels (the first plane's texture) */
	/* The picture inside it, in pixels; draw it crop_width * par_n / par_d wide. */
	int crop_x, crop_y, crop_width, crop_height;
	unsigned par_n, par_d;
	int n_textures;
	GLuint textures[3];       /* per plane (see layout) */
	GLenum target;            /* GL_TEXTURE_2D or GL_TEXTURE_EXTERNAL_OES */
	/*
	 * GLSL ES 1.00 fragment shader source to put at the very start of your
	 * fragment shader (it may begin with an #extension directive, and it
	 * sets a default float precision). It declares uniforms named umms_*
	 * and defines
	 *
	 *	vec4 umms_sample(vec2 uv);
	 *
	 * which returns the picture's colour (RGB, alpha premultiplied; 1.0
	 * for opaque formats) at @uv: (0, 0) is the picture's top-left corner,
	 * (1, 1) its bottom-right; the crop is applied inside. Rows go down
	 * from v = 0: drawing into a framebuffer with y up, flip v.
	 * The uniforms: umms_tex0, umms_tex1, umms_tex2 (samplers, as the
	 * layout needs), umms_crop (vec4), umms_yuv_matrix (mat3) and
	 * umms_yuv_offset (vec3), all set by umms_gl_frame_bind().
	 *
	 * It also defines
	 *
	 *	vec4 umms_subtitles(vec2 uv);         // the subtitles at uv (premultiplied), 0 outside
	 *	vec4 umms_sample_subtitled(vec2 uv);  // the picture with them blended over it
	 *
	 * with the uniforms umms_sub_tex (sampler2D) and umms_sub_rect (vec4),
	 * set by umms_gl_frame_bind() as well (no subtitles: a rectangle of no
	 * size, and umms_subtitles() is 0). Unused, the compiler drops them.
	 */
	const char *shader;
	/* Differs whenever shader does: rebuild your program when it changes. */
	unsigned shader_id;
	uint32_t serial;          /* ummsd's show serial */
	int64_t due_ns;           /* when ummsd wanted it on screen, CLOCK_MONOTONIC */
	/*
	 * Subtitles to draw over this frame's picture: an RGBA texture of the
	 * library's (alpha premultiplied; its bytes are B, G, R, A as ummsd
	 * sent them, so sample it .bgra, as the snippet does), or 0 for none.
	 * subtitle_rect is where it goes in the picture's coordinates (those
	 * of umms_sample: x, y of its top-left corner, width, height; it may
	 * reach outside 0..1: cut it). The same subtitle_serial, the same
	 * image: it was not uploaded again.
	 */
	GLuint subtitle_texture;
	uint32_t subtitle_serial;
	GLfloat subtitle_rect[4];
};

/*
 * Connects to ummsd's video socket (@name, else $UMMS_DISPLAY, else umms-0;
 * in $XDG_RUNTIME_DIR unless absolute), announces the formats (see above,
 * @flags) and attaches to the player at D-Bus path @player_path, or creates
 * a player owned by this connection when @player_path is NULL (destroyed
 * with it). Call it with your EGL context current (its display's dma-buf
 * formats are announced). Returns NULL with errno set when ummsd is not
 * there (ENOENT, ECONNREFUSED: the socket) or speaks an older
 * umms_video_manager_v1 than version 3 (EPROTONOSUPPORT). A player that
 * cannot be shown is reported later through the listener's failed.
 * @listener may be NULL; it is kept (not copied).
 */
UMMS_GL_EXPORT struct umms_gl *umms_gl_create(const char *name, const char *player_path,
	uint32_t flags, const struct umms_gl_listener *listener, void *data);
/*
 * Releases everything: ummsd's buffers, textures and EGLImages (your
 * context must be current), the connection (an owned player goes with it).
 * NULL is a no-op.
 */
UMMS_GL_EXPORT void umms_gl_destroy(struct umms_gl *gl);

/* ummsd's socket: poll it for reading, then call umms_gl_dispatch(). */
UMMS_GL_EXPORT int umms_gl_get_fd(struct umms_gl *gl);
/*
 * Handles what ummsd sent (frames, events) without blocking; listener
 * callbacks run from here. Returns -1 once ummsd is gone (frames already
 * taken stay usable), else 0.
 */
UMMS_GL_EXPORT int umms_gl_dispatch(struct umms_gl *gl);
/* Blocks until ummsd has handled everything sent so far. -1 if gone. */
UMMS_GL_EXPORT int umms_gl_roundtrip(struct umms_gl *gl);

/* The player's D-Bus object path, or NULL before ready. */
UMMS_GL_EXPORT const char *umms_gl_get_path(struct umms_gl *gl);

/*
 * With your context current: takes the newest frame due by @target_ns
 * (CLOCK_MONOTONIC ns: when what you draw now will be on screen, e.g. your
 * next vsync; 0: now), discards the older ones, uploads or imports it and
 * returns it. Frames not due yet wait. Returns the frame taken before when
 * there is no newer one, NULL until the first frame (or if its memory
 * could not be read: an upload failure is reported discarded), and NULL
 * once parental control blocked the player, until its next frame: draw
 * nothing of it then.
 */
UMMS_GL_EXPORT const struct umms_gl_frame *umms_gl_update(struct umms_gl *gl, int64_t target_ns);

/*
 * UMMS_GL_MANUAL_PRESENTED only: the frame the last umms_gl_update() took
 * reached the screen at @when_ns (CLOCK_MONOTONIC). Once per frame; later
 * calls for the same frame do nothing.
 */
UMMS_GL_EXPORT void umms_gl_presented(struct umms_gl *gl, int64_t when_ns);

/*
 * With your context current: makes @program current (glUseProgram), binds
 * the frame's textures to units @first_unit, @first_unit + 1... and, where
 * @program samples subtitles, the subtitle texture (or none) to the unit
 * after them (leaving @first_unit active), and sets the snippet's
 * uniforms of @program. The program must have been built with
 * frame->shader.
 */
UMMS_GL_EXPORT void umms_gl_frame_bind(const struct umms_gl_frame *frame, GLuint program,
	unsigned first_unit);

/* What became of the frames ummsd sent, for the curious (and for tests). */
struct umms_gl_counts {
	unsigned received;    /* shows ummsd sent */
	unsigned uploaded;    /* memfd frames copied into textures */
	unsigned imported;    /* dma-buf buffers imported as EGLImages */
	unsigned presented;   /* reported presented */
	unsigned discarded;   /* replaced before they were taken, or unreadable */
	unsigned textures;    /* GL textures the library holds now */
	unsigned images;      /* EGLImages the library holds now */
	unsigned buffers;     /* ummsd buffers known now */
};
UMMS_GL_EXPORT void umms_gl_get_counts(struct umms_gl *gl, struct umms_gl_counts *counts);

/*
 * Which subtitles you get. @images (the default: true): frames name the
 * subtitle image (see umms_gl_frame); false: they name none from now on,
 * the frame taken already included. @cue (default NULL): called from
 * umms_gl_dispatch() with the text of the cue that stands whenever it
 * changes ("" when none does; UTF-8, lines separated by newlines), for an
 * application that draws its own captions. Per player: other applications
 * showing the same player choose for themselves. Nothing happens with an
 * ummsd older than umms_video_manager_v1 version 4.
 */
UMMS_GL_EXPORT void umms_gl_set_subtitles(struct umms_gl *gl, bool images,
	void (*cue)(void *data, struct umms_gl *gl, const char *text));

struct umms_gl_subtitle_counts {
	unsigned received;    /* subtitle images ummsd sent */
	unsigned refused;     /* of them, refused unread: sizes beyond their memory */
	unsigned uploaded;    /* uploaded into the subtitle texture (once per image) */
};
UMMS_GL_EXPORT void umms_gl_get_subtitle_counts(struct umms_gl *gl,
	struct umms_gl_subtitle_counts *counts);

#ifdef __cplusplus
}
#endif

#endif
