/*
 * Subtitle images in libumms-client-gl (umms-gl.h): the subpicture of the
 * frame taken, uploaded once per serial into a texture of ours and named
 * in the frame with where it goes; the snippet's umms_sample_subtitled()
 * blends it. A cue standing over many frames is uploaded once.
 */
#include "gl-private.h"

#define GLES3_UNPACK_ROW_LENGTH 0x0CF2

/* Uploads @sub's pixels (B, G, R, A bytes: the snippet swaps them) into our texture. */
static bool
upload(struct umms_gl *gl, struct umms_core_subpicture *sub)
{
	const uint8_t *data = umms_core_subpicture_map(sub);
	if (!data)
		return false;
	/* The application's state, given back as it was. */
	GLint bound = 0, alignment = 4, row_length = 0;
	bool has_row_length = gl->gles_version >= 3 || gl->unpack_subimage;
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
	glGetIntegerv(GL_UNPACK_ALIGNMENT, &alignment);
	if (has_row_length)
		glGetIntegerv(GLES3_UNPACK_ROW_LENGTH, &row_length);
	if (!gl->sub_tex)
		gl->sub_tex = gl_new_texture(gl, GL_TEXTURE_2D);
	glBindTexture(GL_TEXTURE_2D, gl->sub_tex);
	glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
	if (row_length)
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, 0);
	if (sub->stride == (uint32_t)sub->width * 4) {
		glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, sub->width, sub->height, 0, GL_RGBA,
			GL_UNSIGNED_BYTE, data);
	} else {
		/* Every row lies inside the memory (core-sub.c checked stride × height). */
		glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, sub->width, sub->height, 0, GL_RGBA,
			GL_UNSIGNED_BYTE, NULL);
		for (int y = 0; y < sub->height; y++)
			glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, sub->width, 1, GL_RGBA,
				GL_UNSIGNED_BYTE, data + (size_t)y * sub->stride);
	}
	glBindTexture(GL_TEXTURE_2D, (GLuint)bound);
	glPixelStorei(GL_UNPACK_ALIGNMENT, alignment);
	if (row_length)
		glPixelStorei(GLES3_UNPACK_ROW_LENGTH, row_length);
	gl->sub_counts.uploaded++;
	return true;
}

void
gl_subtitles_update(struct umms_gl *gl, struct umms_core_subpicture *sub)
{
	struct umms_gl_frame *frame = &gl->frame;
	frame->subtitle_texture = 0;
	frame->subtitle_serial = 0;
	for (int i = 0; i < 4; i++)
		frame->subtitle_rect[i] = 0;
	if (!sub || !gl->sub_images)
		return;
	if (sub->serial != gl->sub_serial || !gl->sub_tex) {
		gl->sub_serial = 0;
		if (!upload(gl, sub))
			return;
		gl->sub_serial = sub->serial;
	}
	frame->subtitle_texture = gl->sub_tex;
	frame->subtitle_serial = sub->serial;
	frame->subtitle_rect[0] = (GLfloat)sub->x / (GLfloat)sub->picture_width;
	frame->subtitle_rect[1] = (GLfloat)sub->y / (GLfloat)sub->picture_height;
	frame->subtitle_rect[2] = (GLfloat)sub->width / (GLfloat)sub->picture_width;
	frame->subtitle_rect[3] = (GLfloat)sub->height / (GLfloat)sub->picture_height;
}

void
gl_subtitles_finish(struct umms_gl *gl)
{
	gl_delete_texture(gl, &gl->sub_tex);
	gl->sub_serial = 0;
}

void
gl_video_cue(struct umms_core_video *video, const char *text)
{
	struct umms_gl *gl = video->data;
	if (gl->cue)
		gl->cue(gl->data, gl, text);
}

void
umms_gl_set_subtitles(struct umms_gl *gl, bool images,
	void (*cue)(void *data, struct umms_gl *gl, const char *text))
{
	gl->sub_images = images;
	gl->cue = cue;
	if (!images) {
		/* Not drawn from now on, even on the frame taken already. */
		struct umms_gl_frame *frame = &gl->frame;
		frame->subtitle_texture = 0;
		frame->subtitle_serial = 0;
		for (int i = 0; i < 4; i++)
			frame->subtitle_rect[i] = 0;
		gl->sub_serial = 0;
	}
	umms_core_video_set_subtitles(gl->video,
		(images ? UMMS_VIDEO_PLAYER_V1_SUBTITLES_IMAGE : 0) |
		(cue ? UMMS_VIDEO_PLAYER_V1_SUBTITLES_TEXT : 0));
}

void
umms_gl_get_subtitle_counts(struct umms_gl *gl, struct umms_gl_subtitle_counts *counts)
{
	*counts = gl->sub_counts;
	counts->received = gl->video->counts.subpictures;
	counts->refused = gl->video->counts.subpictures_refused;
}
