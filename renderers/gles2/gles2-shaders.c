/*
 * The gles2 renderer's shaders: one vertex shader, fragment shaders built
 * from one source with a #define per kind and flag, compiled when first
 * used; and the YUV → RGB matrices (ITU-T H.273 quantisation, Kr/Kb of
 * BT.601, BT.709 and BT.2020 non-constant luminance).
 */
#include "gles2-private.h"

static const char vertex_source[] =
	"attribute vec2 a_pos;\n"
	"attribute vec2 a_tex;\n"
	"varying vec2 v_tex;\n"
	"void main()\n"
	"{\n"
	"	gl_Position = vec4(a_pos, 0.0, 1.0);\n"
	"	v_tex = a_tex;\n"
	"}\n";

static const char fragment_source[] =
	"#ifdef GL_FRAGMENT_PRECISION_HIGH\n"
	"precision highp float;\n"
	"#else\n"
	"precision mediump float;\n"
	"#endif\n"
	"varying vec2 v_tex;\n"
	"#ifdef EXTERNAL\n"
	"uniform samplerExternalOES tex0;\n"
	"#else\n"
	"uniform sampler2D tex0;\n"
	"#endif\n"
	"uniform sampler2D tex1;\n"
	"uniform sampler2D tex2;\n"
	"uniform mat3 matrix;\n"
	"uniform vec3 offset;\n"
	"#ifdef LA\n"
	"#define TWO(t) ((t).ra)\n"
	"#else\n"
	"#define TWO(t) ((t).rg)\n"
	"#endif\n"
	/* A 16-bit little-endian sample from its two bytes. */
	"#define U16(v) (dot((v), vec2(255.0, 65280.0)) / 65535.0)\n"
	"vec4 yuv(vec3 s)\n"
	"{\n"
	"	return vec4(clamp(matrix * (s - offset), 0.0, 1.0), 1.0);\n"
	"}\n"
	"void main()\n"
	"{\n"
	"#if defined(RGBA) || defined(EXTERNAL)\n"
	"	vec4 c = texture2D(tex0, v_tex);\n"
	"#ifdef SWAP_RB\n"
	"	c = c.bgra;\n"
	"#endif\n"
	"#ifdef OPAQUE\n"
	"	c.a = 1.0;\n"
	"#endif\n"
	"	gl_FragColor = c;\n"
	"#elif defined(NV12)\n"
	"	gl_FragColor = yuv(vec3(texture2D(tex0, v_tex).r, TWO(texture2D(tex1, v_tex))));\n"
	"#elif defined(YUV420)\n"
	"	gl_FragColor = yuv(vec3(texture2D(tex0, v_tex).r, texture2D(tex1, v_tex).r,\n"
	"		texture2D(tex2, v_tex).r));\n"
	"#elif defined(YUYV)\n"
	"	vec4 c = texture2D(tex1, v_tex);\n"
	"	gl_FragColor = yuv(vec3(texture2D(tex0, v_tex).r, c.g, c.a));\n"
	"#elif defined(P010)\n"
	"	vec4 c = texture2D(tex1, v_tex);\n"
	/* Not U16(TWO(...)): Mesa's preprocessor gives 0 for that nesting. */
	"	vec2 y = TWO(texture2D(tex0, v_tex));\n"
	"	gl_FragColor = yuv(vec3(U16(y), U16(c.rg), U16(c.ba)));\n"
	"#endif\n"
	"}\n";

static const char *const kind_defines[GLES2_SHADER_KINDS] = {
	[GLES2_SHADER_RGBA] = "#define RGBA 1\n",
	[GLES2_SHADER_EXTERNAL] = "#extension GL_OES_EGL_image_external : require\n"
		"#define EXTERNAL 1\n",
	[GLES2_SHADER_NV12] = "#define NV12 1\n",
	[GLES2_SHADER_YUV420] = "#define YUV420 1\n",
	[GLES2_SHADER_YUYV] = "#define YUYV 1\n",
	[GLES2_SHADER_P010] = "#define P010 1\n",
};

static GLuint
compile(struct gles2_renderer *r, GLenum type, int n, const char **sources, GError **error)
{
	GLuint shader = glCreateShader(type);
	glShaderSource(shader, n, sources, NULL);
	glCompileShader(shader);
	GLint ok = GL_FALSE;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetShaderInfoLog(shader, sizeof(log), NULL, log);
		g_set_error(error, UMMS_GLES2_ERROR, 0, "GLES2 %s shader does not compile: %s",
			type == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
		glDeleteShader(shader);
		return 0;
	}
	r->objects++;
	return shader;
}

static bool
build(struct gles2_renderer *r, struct gles2_program *p, enum gles2_shader_kind kind,
	unsigned flags, GError **error)
{
	const char *sources[6];
	int n = 0;
	sources[n++] = kind_defines[kind];
	sources[n++] = (flags & GLES2_SHADER_SWAP_RB) ? "#define SWAP_RB 1\n" : "";
	sources[n++] = (flags & GLES2_SHADER_OPAQUE) ? "#define OPAQUE 1\n" : "";
	sources[n++] = (flags & GLES2_SHADER_LA) ? "#define LA 1\n" : "";
	sources[n++] = fragment_source;

	const char *vs = vertex_source;
	GLuint vert = compile(r, GL_VERTEX_SHADER, 1, &vs, error);
	if (!vert)
		return false;
	GLuint frag = compile(r, GL_FRAGMENT_SHADER, n, sources, error);
	if (!frag)
		goto err_vert;

	GLuint program = glCreateProgram();
	glAttachShader(program, vert);
	glAttachShader(program, frag);
	glBindAttribLocation(program, 0, "a_pos");
	glBindAttribLocation(program, 1, "a_tex");
	glLinkProgram(program);
	/* Flagged for deletion: they go with the program. */
	glDeleteShader(vert);
	glDeleteShader(frag);
	r->objects -= 2;
	GLint ok = GL_FALSE;
	glGetProgramiv(program, GL_LINK_STATUS, &ok);
	if (!ok) {
		char log[1024] = "";
		glGetProgramInfoLog(program, sizeof(log), NULL, log);
		g_set_error(error, UMMS_GLES2_ERROR, 0, "GLES2 program does not link: %s", log);
		glDeleteProgram(program);
		return false;
	}
	r->objects++;
	p->program = program;
	static const char *const names[GLES2_MAX_TEX] = { "tex0", "tex1", "tex2" };
	for (int i = 0; i < GLES2_MAX_TEX; i++)
		p->u_tex[i] = glGetUniformLocation(program, names[i]);
	p->u_matrix = glGetUniformLocation(program, "matrix");
	p->u_offset = glGetUniformLocation(program, "offset");
	glUseProgram(program);
	for (int i = 0; i < GLES2_MAX_TEX; i++)
		if (p->u_tex[i] >= 0)
			glUniform1i(p->u_tex[i], i);
	return true;

err_vert:
	glDeleteShader(vert);
	r->objects--;
	return false;
}

bool
umms_gles2_shaders_init(struct gles2_renderer *r, GError **error)
{
	r->shaders.external = r->has.gl_egl_image_external;
	/* Check that the simplest program builds: a driver that cannot is unusable. */
	return umms_gles2_shaders_get(r, GLES2_SHADER_RGBA, 0, error) != NULL;
}

void
umms_gles2_shaders_finish(struct gles2_renderer *r)
{
	for (int k = 0; k < GLES2_SHADER_KINDS; k++) {
		for (int f = 0; f < GLES2_SHADER_FLAGS; f++) {
			struct gles2_program *p = &r->shaders.programs[k][f];
			if (p->program) {
				glDeleteProgram(p->program);
				r->objects--;
			}
			*p = (struct gles2_program){ 0 };
		}
	}
}

const struct gles2_program *
umms_gles2_shaders_get(struct gles2_renderer *r, enum gles2_shader_kind kind, unsigned flags,
	GError **error)
{
	g_assert(kind < GLES2_SHADER_KINDS && flags < GLES2_SHADER_FLAGS);
	if (kind == GLES2_SHADER_EXTERNAL && !r->shaders.external) {
		g_set_error(error, UMMS_GLES2_ERROR, 0,
			"GL_OES_EGL_image_external is missing: no external images");
		return NULL;
	}
	struct gles2_program *p = &r->shaders.programs[kind][flags];
	if (!p->program && !build(r, p, kind, flags, error))
		return NULL;
	return p;
}

void
umms_gles2_color_matrix(enum umms_color_matrix matrix, enum umms_color_range range, int bits,
	float m[9], float offset[3])
{
	double kr, kb;
	switch (matrix) {
	case UMMS_COLOR_BT709:
		kr = 0.2126, kb = 0.0722;
		break;
	case UMMS_COLOR_BT2020:
		kr = 0.2627, kb = 0.0593;
		break;
	case UMMS_COLOR_BT601:
	default:
		kr = 0.299, kb = 0.114;
		break;
	}
	double kg = 1.0 - kr - kb;

	/* A sample s of the texture is the code D = s * norm: 8-bit planes are
	 * normalised by 255, P010's 10 bits sit at the top of 16 (D = raw / 64,
	 * s = raw / 65535). H.273: limited Y = (D - 16k) / 219k, C = (D - 128k) / 224k;
	 * full Y = D / (2^n - 1), C = (D - 2^(n-1)) / (2^n - 1); k = 2^(n-8). */
	double norm = bits == 8 ? 255.0 : 65535.0 / 64.0;
	double k = (double)(1 << (bits - 8));
	double y_off, c_off, y_scale, c_scale;
	if (range == UMMS_COLOR_RANGE_FULL) {
		double max = (double)((1 << bits) - 1);
		y_off = 0.0;
		c_off = (double)(1 << (bits - 1));
		y_scale = c_scale = norm / max;
	} else {
		y_off = 16.0 * k;
		c_off = 128.0 * k;
		y_scale = norm / (219.0 * k);
		c_scale = norm / (224.0 * k);
	}
	offset[0] = (float)(y_off / norm);
	offset[1] = offset[2] = (float)(c_off / norm);

	/* R = Y + 2(1-Kr) Pr; B = Y + 2(1-Kb) Pb; G = (Y - Kr R - Kb B) / Kg. */
	double rows[3][3] = {
		{ 1.0, 0.0, 2.0 * (1.0 - kr) },
		{ 1.0, -2.0 * kb * (1.0 - kb) / kg, -2.0 * kr * (1.0 - kr) / kg },
		{ 1.0, 2.0 * (1.0 - kb), 0.0 },
	};
	double scale[3] = { y_scale, c_scale, c_scale };
	/* Column-major: m[col * 3 + row]. */
	for (int row = 0; row < 3; row++)
		for (int col = 0; col < 3; col++)
			m[col * 3 + row] = (float)(rows[row][col] * scale[col]);
}
