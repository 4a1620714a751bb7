/*
 * Inside the gles2 renderer: the state shared by gles2.c (EGL, targets,
 * frames), gles2-images.c (uploads, dma-buf imports, their cache) and
 * gles2-shaders.c (programs, colour matrices). Not installed.
 */
#ifndef UMMS_RENDERERS_GLES2_PRIVATE_H
#define UMMS_RENDERERS_GLES2_PRIVATE_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>

#include "renderer.h"
#include "gles2.h"

#define GLES2_MAX_TEX 3

/* What a fragment shader samples and how (bits of a program key). */
enum gles2_shader_kind {
	GLES2_SHADER_RGBA,      /* one texture, rgba as sampled */
	GLES2_SHADER_EXTERNAL,  /* one external-OES texture, converted by the driver */
	GLES2_SHADER_NV12,      /* Y (.r), CbCr (.rg, or .ra for luminance-alpha) */
	GLES2_SHADER_YUV420,    /* Y, Cb, Cr (.r each) */
	GLES2_SHADER_YUYV,      /* Y from a 2-channel texture of full width, CbCr from
	                         * an RGBA texture of half width (.g, .a) */
	GLES2_SHADER_P010,      /* 16-bit little-endian samples split in two bytes:
	                         * Y (lo, hi) in a 2-channel texture, CbCr (lo, hi, lo, hi)
	                         * in an RGBA texture; bilinear on bytes stays linear */
	GLES2_SHADER_KINDS,
};

enum gles2_shader_flag {
	GLES2_SHADER_SWAP_RB = 1 << 0,  /* sampled .bgra (BGRA upload not supported) */
	GLES2_SHADER_OPAQUE = 1 << 1,   /* alpha forced to 1 */
	GLES2_SHADER_LA = 1 << 2,       /* two-channel planes are luminance-alpha (.ra) */
	GLES2_SHADER_FLAGS = 1 << 3,
};

struct gles2_program {
	GLuint program;
	GLint u_tex[GLES2_MAX_TEX];
	GLint u_matrix, u_offset;
};

struct gles2_shaders {
	struct gles2_program programs[GLES2_SHADER_KINDS][GLES2_SHADER_FLAGS];
	bool external;  /* GL_OES_EGL_image_external */
};

/* An image's GL textures: uploaded (memory) or imported (dma-buf), cached by id. */
struct gles2_image {
	uint64_t id;
	uint32_t format;
	uint64_t modifier;
	int width, height;
	bool dmabuf;
	bool external;
	enum gles2_shader_kind kind;
	unsigned flags;
	int n_tex;
	GLuint tex[GLES2_MAX_TEX];
	EGLImageKHR images[GLES2_MAX_TEX];
	int tex_width[GLES2_MAX_TEX], tex_height[GLES2_MAX_TEX];
	GLenum tex_format[GLES2_MAX_TEX];
	uint64_t last_used;
};

/* A dma-buf target's renderbuffer and framebuffer, cached by id. */
struct gles2_target {
	uint64_t id;
	int width, height;
	EGLImageKHR image;
	GLuint renderbuffer, framebuffer;
	uint64_t last_used;
};

enum gles2_nv12_path {
	GLES2_NV12_PLANES,    /* one EGLImage per plane, our shader */
	GLES2_NV12_EXTERNAL,  /* one external-OES EGLImage, the driver's conversion */
};

struct gles2_renderer {
	struct umms_renderer base;
	struct umms_renderer_stats stats;

	struct gbm_device *gbm;
	EGLDisplay display;
	EGLContext context;
	int gles_version;

	struct {
		bool dmabuf_import, dmabuf_modifiers, dmabuf_export, image_base;
		bool gl_egl_image, gl_egl_image_external;
		bool bgra_texture, bgra_read, texture_rg, unpack_subimage, texture_image;
		bool surfaceless, no_config, dmabuf_query;
	} has;

	PFNEGLCREATEIMAGEKHRPROC create_image;
	PFNEGLDESTROYIMAGEKHRPROC destroy_image;
	PFNGLEGLIMAGETARGETTEXTURE2DOESPROC image_target_texture;
	PFNGLEGLIMAGETARGETRENDERBUFFERSTORAGEOESPROC image_target_renderbuffer;
	PFNEGLEXPORTDMABUFIMAGEQUERYMESAPROC export_query;
	PFNEGLEXPORTDMABUFIMAGEMESAPROC export_dmabuf;
	PFNEGLQUERYDMABUFFORMATSEXTPROC query_formats;

	struct gles2_shaders shaders;

	/* Caches by id; entries with id 0 live for one draw or frame. */
	GHashTable *images;   /* uint64 id → gles2_image */
	GHashTable *targets;  /* uint64 id → gles2_target */
	struct gles2_image scratch;  /* memory images without id */
	uint64_t use_clock;

	/* The memory target's texture, remade when the size changes. */
	struct {
		GLuint texture, framebuffer;
		int width, height;
		uint8_t *pixels;
		size_t pixels_size;
		/* The memory the texture's pixels were last read back into (NULL: none):
		 * a damaged repaint keeps the rest only for the same memory. */
		const void *last_data;
		uint32_t last_stride;
	} mem;

	/* The frame being drawn. */
	bool in_frame;
	struct umms_render_target target;
	struct gles2_target *frame_target;  /* dma-buf target */
	bool frame_target_owned;            /* id 0: destroyed at end() */
	bool partial;                       /* repainting damage[] only (scissored) */
	int damage[4];                      /* x, y, width, height in target pixels */

	GArray *dmabuf_formats;  /* uint32 fourccs EGL imports; NULL: not known */
	GArray *import_formats;  /* umms_render_format: what draw() imports (dmabuf_formats()) */

	enum gles2_nv12_path nv12_path;
	char description[512];

	unsigned objects;  /* live GL objects and EGLImages we own */
};

GQuark umms_gles2_error_quark(void);
#define UMMS_GLES2_ERROR umms_gles2_error_quark()

/* gles2-shaders.c */
bool umms_gles2_shaders_init(struct gles2_renderer *r, GError **error);
void umms_gles2_shaders_finish(struct gles2_renderer *r);
const struct gles2_program *umms_gles2_shaders_get(struct gles2_renderer *r,
	enum gles2_shader_kind kind, unsigned flags, GError **error);
/* rgb = matrix * (sample - offset); column-major for glUniformMatrix3fv. */
void umms_gles2_color_matrix(enum umms_color_matrix matrix, enum umms_color_range range,
	int bits, float m[9], float offset[3]);

/* gles2-images.c */
struct gles2_image *umms_gles2_image_get(struct gles2_renderer *r,
	const struct umms_render_image *image, GError **error);
void umms_gles2_image_release(struct gles2_renderer *r, struct gles2_image *img);
void umms_gles2_images_forget(struct gles2_renderer *r, uint64_t id);
bool umms_gles2_format_supported(struct gles2_renderer *r, const struct umms_render_image *image);
void umms_gles2_images_finish(struct gles2_renderer *r);
EGLImageKHR umms_gles2_import_dmabuf(struct gles2_renderer *r, uint32_t fourcc, int width,
	int height, uint64_t modifier, int n_planes, const int *fds, const uint32_t *offsets,
	const uint32_t *strides, const EGLint *extra, GError **error);
void umms_gles2_update_cached(struct gles2_renderer *r);
/* Fills r->import_formats: each format we draw, linear, whose planes EGL imports. */
void umms_gles2_list_import_formats(struct gles2_renderer *r);

/* gles2-probe.c: picks r->nv12_path and writes r->description. */
void umms_gles2_probe_nv12(struct gles2_renderer *r);

/* gles2.c */
void umms_gles2_delete_texture(struct gles2_renderer *r, GLuint *tex);
void umms_gles2_delete_egl_image(struct gles2_renderer *r, EGLImageKHR *image);
GLuint umms_gles2_new_texture(struct gles2_renderer *r, GLenum target);

#endif
