/*
 * Subtitles as images (core.h): ummsd's subpicture events, checked against
 * the size of their memory before anything maps them, and handed to the
 * shows that follow, reference counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

/* The protocol's bound on either side (base/subpicture.h). */
#define SUB_MAX_SIDE 8192

struct umms_core_subpicture *
umms_core_subpicture_ref(struct umms_core_subpicture *sub)
{
	if (sub)
		sub->refs++;
	return sub;
}

void
umms_core_subpicture_unref(struct umms_core_subpicture *sub)
{
	if (!sub || --sub->refs > 0)
		return;
	if (sub->data)
		munmap(sub->data, sub->size);
	if (sub->fd >= 0)
		close(sub->fd);
	free(sub);
}

const void *
umms_core_subpicture_map(struct umms_core_subpicture *sub)
{
	if (!sub->data && sub->fd >= 0) {
		/* Its size was checked: every row lies inside the memory. */
		void *data = mmap(NULL, sub->size, PROT_READ, MAP_SHARED, sub->fd, 0);
		if (data == MAP_FAILED)
			return NULL;
		sub->data = data;
	}
	return sub->data;
}

/* Why an image of these sizes in @size bytes of memory cannot be drawn; NULL if it can. */
static const char *
refuse(size_t size, uint32_t stride, int width, int height, int picture_width,
	int picture_height)
{
	if (width < 1 || height < 1 || width > SUB_MAX_SIDE || height > SUB_MAX_SIDE)
		return "has no usable size";
	if (picture_width < 1 || picture_height < 1)
		return "is for a picture of no size";
	if (stride < (uint32_t)width * 4)
		return "has rows shorter than its width";
	if (size == 0 || (uint64_t)stride * (uint64_t)height > size)
		return "lies beyond the end of its memory";
	return NULL;
}

void
umms_core_video_set_subpicture(struct umms_core_video *video, int fd, uint32_t serial, int x,
	int y, int width, int height, uint32_t stride, int picture_width, int picture_height)
{
	umms_core_subpicture_unref(video->subpicture);
	video->subpicture = NULL;
	if (fd < 0)
		return;
	off_t end = lseek(fd, 0, SEEK_END);
	size_t size = end > 0 ? (size_t)end : 0;
	const char *why = refuse(size, stride, width, height, picture_width, picture_height);
	if (why) {
		fprintf(stderr, "umms: subtitle image %u (%dx%d, stride %u, %zu bytes) %s: "
			"not drawn\n", serial, width, height, stride, size, why);
		video->counts.subpictures_refused++;
		close(fd);
		return;
	}
	struct umms_core_subpicture *sub = calloc(1, sizeof(*sub));
	if (!sub) {
		close(fd);
		return;
	}
	*sub = (struct umms_core_subpicture){ .refs = 1, .serial = serial, .fd = fd,
		.size = size, .stride = stride, .x = x, .y = y, .width = width, .height = height,
		.picture_width = picture_width, .picture_height = picture_height };
	video->subpicture = sub;
	video->counts.subpictures++;
}
