/*
 * The GLSL ES 1.00 snippets behind umms_gl_frame.shader, one per way of
 * sampling a frame, and umms_gl_frame_bind(), which sets their uniforms.
 * YUV is converted with our own matrix: the protocol carries no
 * colorimetry, so BT.709 from 720 rows up, BT.601 below, limited range
 * (umms-gl.h).
 */
#include "gl-private.h"

#define PRECISION \
	"#ifdef GL_FRAGMENT_PRECISION_HIGH\n" \
	"precision highp float;\n" \
	"#else\n" \
	"precision mediump float;\n" \
	"#endif\n"

/* The picture's (0..1) coordinates into the frame's, inside the crop. */
#define CROP \
	"uniform vec4 umms_crop;\n" \
	"vec2 umms_uv(vec2 uv)\n" \
	"{\n" \
	"	return umms_crop.xy + uv * umms_crop.zw;\n" \
	"}\n"

/* rgb = M (yuv - offset), clamped. */
#define YUV \
	"uniform mat3 umms_yuv_matrix;\n" \
	"uniform vec3 umms_yuv_offset;\n" \
	"vec4 umms_yuv(vec3 s)\n" \
	"{\n" \
	"	return vec4(clamp(umms_yuv_matrix * (s - umms_yuv_offset), 0.0, 1.0), 1.0);\n" \
	"}\n"

#define SAMPLE_RGB(expression) \
	PRECISION CROP \
	"uniform sampler2D umms_tex0;\n" \
	"vec4 umms_sample(vec2 uv)\n" \
	"{\n" \
	"	vec4 c = texture2D(umms_tex0, umms_uv(uv));\n" \
	"	return " expression ";\n" \
	"}\n"

/*
 * Subtitles over the picture, in every snippet: umms_sub_rect is where the
 * image goes in the picture's (0..1) coordinates (no size: none), its
 * texture holds B, G, R, A bytes as uploaded (swapped here), alpha
 * premultiplied; blended OVER the picture.
 */
#define SUBTITLES \
	"uniform sampler2D umms_sub_tex;\n" \
	"uniform vec4 umms_sub_rect;\n" \
	"vec4 umms_subtitles(vec2 uv)\n" \
	"{\n" \
	"	if (umms_sub_rect.z <= 0.0 || umms_sub_rect.w <= 0.0)\n" \
	"		return vec4(0.0);\n" \
	"	vec2 s = (uv - umms_sub_rect.xy) / umms_sub_rect.zw;\n" \
	"	if (s.x < 0.0 || s.y < 0.0 || s.x > 1.0 || s.y > 1.0)\n" \
	"		return vec4(0.0);\n" \
	"	return texture2D(umms_sub_tex, s).bgra;\n" \
	"}\n" \
	"vec4 umms_sample_subtitled(vec2 uv)\n" \
	"{\n" \
	"	vec4 s = umms_subtitles(uv);\n" \
	"	return s + umms_sample(uv) * (1.0 - s.a);\n" \
	"}\n"

static const char *const snippets[GL_SNIPPETS] = {
	[GL_SNIPPET_RGBX] = SAMPLE_RGB("vec4(c.rgb, 1.0)") SUBTITLES,
	[GL_SNIPPET_RGBA] = SAMPLE_RGB("c") SUBTITLES,
	[GL_SNIPPET_BGRX] = SAMPLE_RGB("vec4(c.bgr, 1.0)") SUBTITLES,
	[GL_SNIPPET_BGRA] = SAMPLE_RGB("c.bgra") SUBTITLES,
	[GL_SNIPPET_NV12] = PRECISION CROP YUV
		"uniform sampler2D umms_tex0;\n"
		"uniform sampler2D umms_tex1;\n"
		"vec4 umms_sample(vec2 uv)\n"
		"{\n"
		"	vec2 t = umms_uv(uv);\n"
		"	return umms_yuv(vec3(texture2D(umms_tex0, t).r, texture2D(umms_tex1, t).rg));\n"
		"}\n"
		SUBTITLES,
	[GL_SNIPPET_NV12_LA] = PRECISION CROP YUV
		"uniform sampler2D umms_tex0;\n"
		"uniform sampler2D umms_tex1;\n"
		"vec4 umms_sample(vec2 uv)\n"
		"{\n"
		"	vec2 t = umms_uv(uv);\n"
		"	return umms_yuv(vec3(texture2D(umms_tex0, t).r, texture2D(umms_tex1, t).ra));\n"
		"}\n"
		SUBTITLES,
	[GL_SNIPPET_YUV420] = PRECISION CROP YUV
		"uniform sampler2D umms_tex0;\n"
		"uniform sampler2D umms_tex1;\n"
		"uniform sampler2D umms_tex2;\n"
		"vec4 umms_sample(vec2 uv)\n"
		"{\n"
		"	vec2 t = umms_uv(uv);\n"
		"	return umms_yuv(vec3(texture2D(umms_tex0, t).r, texture2D(umms_tex1, t).r,\n"
		"		texture2D(umms_tex2, t).r));\n"
		"}\n"
		SUBTITLES,
	[GL_SNIPPET_EXTERNAL] = "#extension GL_OES_EGL_image_external : require\n"
		PRECISION CROP
		"uniform samplerExternalOES umms_tex0;\n"
		"vec4 umms_sample(vec2 uv)\n"
		"{\n"
		"	return texture2D(umms_tex0, umms_uv(uv));\n"
		"}\n"
		SUBTITLES,
};

static const enum umms_gl_layout layouts[GL_SNIPPETS] = {
	[GL_SNIPPET_RGBX] = UMMS_GL_LAYOUT_RGBA,
	[GL_SNIPPET_RGBA] = UMMS_GL_LAYOUT_RGBA,
	[GL_SNIPPET_BGRX] = UMMS_GL_LAYOUT_RGBA,
	[GL_SNIPPET_BGRA] = UMMS_GL_LAYOUT_RGBA,
	[GL_SNIPPET_NV12] = UMMS_GL_LAYOUT_NV12,
	[GL_SNIPPET_NV12_LA] = UMMS_GL_LAYOUT_NV12,
	[GL_SNIPPET_YUV420] = UMMS_GL_LAYOUT_YUV420,
	[GL_SNIPPET_EXTERNAL] = UMMS_GL_LAYOUT_EXTERNAL,
};

void
gl_frame_set_snippet(struct umms_gl_frame *frame, enum gl_snippet snippet)
{
	frame->layout = layouts[snippet];
	frame->shader = snippets[snippet];
	frame->shader_id = (unsigned)snippet + 1;
}

/*
 * The 8-bit limited-range Y'CbCr → R'G'B' matrix of BT.601 or BT.709, for
 * samples s in 0..1 (code / 255): rgb = m * (s - offset), m column-major.
 * Y' = (255 s - 16) / 219, Cb, Cr = (255 s - 128) / 224; then
 * R = Y' + 2 (1 - Kr) Cr, B = Y' + 2 (1 - Kb) Cb, G = (Y' - Kr R - Kb B) / Kg.
 */
static void
yuv_matrix(bool bt709, GLfloat m[9], GLfloat offset[3])
{
	double kr = bt709 ? 0.2126 : 0.299, kb = bt709 ? 0.0722 : 0.114;
	double kg = 1.0 - kr - kb;
	double y = 255.0 / 219.0, c = 255.0 / 224.0;
	/* Columns: what Y', Cb and Cr each add to R, G, B. */
	const double columns[3][3] = {
		{ y, y, y },
		{ 0.0, -c * 2.0 * kb * (1.0 - kb) / kg, c * 2.0 * (1.0 - kb) },
		{ c * 2.0 * (1.0 - kr), -c * 2.0 * kr * (1.0 - kr) / kg, 0.0 },
	};
	for (int col = 0; col < 3; col++) {
		for (int row = 0; row < 3; row++)
			m[col * 3 + row] = (GLfloat)columns[col][row];
	}
	offset[0] = (GLfloat)(16.0 / 255.0);
	offset[1] = offset[2] = (GLfloat)(128.0 / 255.0);
}

void
umms_gl_frame_bind(const struct umms_gl_frame *frame, GLuint program, unsigned first_unit)
{
	static const char *const samplers[GL_MAX_TEX] = { "umms_tex0", "umms_tex1", "umms_tex2" };
	glUseProgram(program);
	for (int i = frame->n_textures - 1; i >= 0; i--) {
		glActiveTexture(GL_TEXTURE0 + first_unit + (unsigned)i);
		glBindTexture(frame->target, frame->textures[i]);
		GLint location = glGetUniformLocation(program, samplers[i]);
		if (location >= 0)
			glUniform1i(location, (GLint)(first_unit + (unsigned)i));
	}
	GLint crop = glGetUniformLocation(program, "umms_crop");
	if (crop >= 0 && frame->width > 0 && frame->height > 0)
		glUniform4f(crop, (GLfloat)frame->crop_x / (GLfloat)frame->width,
			(GLfloat)frame->crop_y / (GLfloat)frame->height,
			(GLfloat)frame->crop_width / (GLfloat)frame->width,
			(GLfloat)frame->crop_height / (GLfloat)frame->height);
	/* Subtitles: their texture on the unit after the frame's (even none: no unit shared). */
	GLint sub = glGetUniformLocation(program, "umms_sub_tex");
	if (sub >= 0) {
		unsigned unit = first_unit + (unsigned)frame->n_textures;
		glActiveTexture(GL_TEXTURE0 + unit);
		glBindTexture(GL_TEXTURE_2D, frame->subtitle_texture);
		glUniform1i(sub, (GLint)unit);
		glActiveTexture(GL_TEXTURE0 + first_unit);
	}
	GLint rect = glGetUniformLocation(program, "umms_sub_rect");
	if (rect >= 0) {
		static const GLfloat none[4] = { 0 };
		glUniform4fv(rect, 1, frame->subtitle_texture ? frame->subtitle_rect : none);
	}
	GLint matrix = glGetUniformLocation(program, "umms_yuv_matrix");
	GLint offset = glGetUniformLocation(program, "umms_yuv_offset");
	if (matrix >= 0 && offset >= 0) {
		GLfloat m[9], o[3];
		yuv_matrix(frame->crop_height >= 720, m, o);
		glUniformMatrix3fv(matrix, 1, GL_FALSE, m);
		glUniform3fv(offset, 1, o);
	}
}
