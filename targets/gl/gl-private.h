/*
 * Inside libumms-client-gl: the connection and frame queue (gl.c), buffers
 * turned into textures (gl-textures.c: uploads, dma-buf imports, the formats
 * the EGL display takes) and the GLSL snippets with their uniforms
 * (gl-shaders.c). Not installed.
 */
#ifndef UMMS_GL_PRIVATE_H
#define UMMS_GL_PRIVATE_H

#include <stddef.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <wayland-client.h>

#include "core.h"
#include "umms-gl.h"
#include "umms-video-v1-client-protocol.h"

#define GL_MAX_PLANES UMMS_CORE_MAX_PLANES
#define GL_MAX_TEX 3
#define GL_MAX_DMABUF_FORMATS 64

/* DRM fourccs are wl_shm formats, except wl_shm's two oldest. */
#define GL_FOURCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | \
	((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define GL_DRM_XRGB8888 GL_FOURCC('X', 'R', '2', '4')
#define GL_DRM_ARGB8888 GL_FOURCC('A', 'R', '2', '4')
#define GL_DRM_NV12 GL_FOURCC('N', 'V', '1', '2')
#define GL_DRM_YUV420 GL_FOURCC('Y', 'U', '1', '2')
#define GL_DRM_R8 GL_FOURCC('R', '8', ' ', ' ')
#define GL_DRM_GR88 GL_FOURCC('G', 'R', '8', '8')
#define GL_MOD_INVALID 0x00ffffffffffffffULL
#define GL_MOD_LINEAR 0ULL

/* The shapes of umms_sample(), one snippet each (gl-shaders.c). */
enum gl_snippet {
	GL_SNIPPET_RGBX,        /* RGBA texture, alpha ignored */
	GL_SNIPPET_RGBA,
	GL_SNIPPET_BGRX,        /* B and R swapped in the texture (no BGRA uploads) */
	GL_SNIPPET_BGRA,
	GL_SNIPPET_NV12,        /* Y .r, CbCr .rg */
	GL_SNIPPET_NV12_LA,     /* Y .r, CbCr .ra (luminance-alpha textures) */
	GL_SNIPPET_YUV420,      /* Y, Cb, Cr .r each */
	GL_SNIPPET_EXTERNAL,    /* samplerExternalOES */
	GL_SNIPPETS,
};

/* One piece of frame memory ummsd announced (the core's, and what we made of it). */
struct gl_buffer {
	struct umms_core_buffer base;   /* first: the core allocates and frees it */
	/* memfd: mapped once, whole, read-only. */
	void *map;
	size_t map_size;
	/* dma-buf: imported once (EGLImages, textures), on first use. */
	bool import_tried, external;
	int n_images;
	EGLImageKHR images[GL_MAX_TEX];
	GLuint textures[GL_MAX_TEX];
};

/* A show: ummsd asks for a buffer's frame at a time, with the geometry then. */
struct gl_show {
	struct gl_buffer *buffer;
	uint32_t serial;
	int64_t due_ns;
	int crop_x, crop_y, crop_width, crop_height;
	unsigned par_n, par_d;
};

struct umms_gl {
	struct umms_core core;               /* ummsd's socket and manager */
	struct umms_core_video *video;       /* the player */
	struct umms_core_queue queue;        /* shows received, not taken yet */
	uint32_t flags;
	const struct umms_gl_listener *listener;
	void *data;

	/* Buffers gone during dispatch whose GL objects wait for a current context. */
	struct wl_list dead;                 /* gl_buffer.base.link */
	bool context;                        /* the application's context is current (destroy) */

	/* The frame taken by the last update. */
	struct umms_gl_frame frame;
	bool have_frame;
	struct gl_buffer *on_screen;         /* dma-buf frame held until replaced */
	struct gl_buffer *frame_buffer;      /* dma-buf frame: whose textures frame names */
	bool answered;                       /* presented/discarded sent for frame.serial */

	/* GL, learnt from the application's context at the first update. */
	bool gl_probed;
	int gles_version;
	bool bgra_texture, texture_rg, unpack_subimage, image_external;
	PFNGLEGLIMAGETARGETTEXTURE2DOESPROC image_target_texture;
	EGLDisplay egl_display;
	bool dmabuf_import;
	PFNEGLCREATEIMAGEKHRPROC create_image;
	PFNEGLDESTROYIMAGEKHRPROC destroy_image;
	uint32_t dmabuf_formats[GL_MAX_DMABUF_FORMATS]; /* what EGL imports */
	int n_dmabuf_formats;

	/* memfd frames: textures reused frame after frame. */
	GLuint upload_tex[GL_MAX_TEX];
	int upload_width[GL_MAX_TEX], upload_height[GL_MAX_TEX];
	GLenum upload_internal[GL_MAX_TEX];

	struct umms_gl_counts counts;

	/* Subtitles (gl-subtitles.c): the texture of the last image uploaded. */
	bool sub_images;                     /* images drawn (umms_gl_set_subtitles) */
	void (*cue)(void *data, struct umms_gl *gl, const char *text);
	GLuint sub_tex;
	uint32_t sub_serial;                 /* the image in sub_tex, 0: none */
	struct umms_gl_subtitle_counts sub_counts;
};

/* gl-textures.c */
/* Before attaching: tells ummsd the dma-buf formats the current EGL display imports. */
void gl_announce_dmabuf(struct umms_gl *gl);
/* What the application's context can do (once, context current). */
void gl_probe(struct umms_gl *gl);
/* Uploads a memfd show into the upload textures and fills gl->frame; false if unreadable. */
bool gl_upload(struct umms_gl *gl, const struct gl_show *show);
/* Imports a dma-buf show (cached per buffer) and fills gl->frame; false if refused. */
bool gl_import(struct umms_gl *gl, const struct gl_show *show);
/* A buffer's EGLImages and textures (context current). */
void gl_buffer_unimport(struct umms_gl *gl, struct gl_buffer *buffer);
void gl_textures_finish(struct umms_gl *gl);
GLuint gl_new_texture(struct umms_gl *gl, GLenum target);
void gl_delete_texture(struct umms_gl *gl, GLuint *texture);

/* gl-subtitles.c */
/* Context current: @sub (NULL: none) into the frame, uploaded unless its serial is there. */
void gl_subtitles_update(struct umms_gl *gl, struct umms_core_subpicture *sub);
void gl_subtitles_finish(struct umms_gl *gl);
/* The core's cue event, to the application's callback. */
void gl_video_cue(struct umms_core_video *video, const char *text);

/* gl-shaders.c */
/* Fills frame->layout, shader, shader_id for @snippet. */
void gl_frame_set_snippet(struct umms_gl_frame *frame, enum gl_snippet snippet);

#endif
