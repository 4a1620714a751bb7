/*
 * The due-frame queue (core.h): shows waiting for the time ummsd gave
 * them, for a library that takes frames when it draws (libumms-client-gl).
 */
#include <string.h>

#include "core.h"

static void
drop_at(struct umms_core_queue *queue, int index)
{
	struct umms_core_show *show = &queue->pending[index];
	umms_core_video_skip(queue->video, show->buffer, show->serial);
	umms_core_subpicture_unref(show->subpicture);
	memmove(&queue->pending[index], &queue->pending[index + 1],
		(size_t)(queue->n_pending - index - 1) * sizeof(queue->pending[0]));
	queue->n_pending--;
}

/* The index of the newest show due by @when_ns; -1 if none is. */
static int
newest_due(const struct umms_core_queue *queue, int64_t when_ns)
{
	int newest = -1;
	for (int i = 0; i < queue->n_pending; i++) {
		if (queue->pending[i].due_ns <= when_ns)
			newest = i;
	}
	return newest;
}

void
umms_core_queue_push(struct umms_core_queue *queue, struct umms_core_buffer *buffer,
	uint32_t serial, int64_t due_ns)
{
	if (queue->n_pending == UMMS_CORE_MAX_PENDING)
		drop_at(queue, 0);
	queue->pending[queue->n_pending++] = (struct umms_core_show){
		.buffer = buffer, .serial = serial, .due_ns = due_ns,
		.geometry = queue->video->geometry,
		.subpicture = umms_core_subpicture_ref(queue->video->subpicture),
	};
	/* No take can have the ones before a show due by now any more. */
	for (int i = newest_due(queue, umms_core_now_ns()) - 1; i >= 0; i--)
		drop_at(queue, i);
}

bool
umms_core_queue_take(struct umms_core_queue *queue, int64_t target_ns,
	struct umms_core_show *show)
{
	int take = newest_due(queue, target_ns);
	if (take < 0)
		return false;
	/* Too late: a newer frame is due. */
	for (int i = take - 1; i >= 0; i--)
		drop_at(queue, i);
	*show = queue->pending[0];
	memmove(&queue->pending[0], &queue->pending[1],
		(size_t)(queue->n_pending - 1) * sizeof(queue->pending[0]));
	queue->n_pending--;
	return true;
}

void
umms_core_queue_clear(struct umms_core_queue *queue)
{
	for (int i = 0; i < queue->n_pending; i++)
		umms_core_subpicture_unref(queue->pending[i].subpicture);
	queue->n_pending = 0;
}
