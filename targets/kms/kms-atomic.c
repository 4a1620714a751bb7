/*
 * The sticky atomic request (kms-atomic.h).
 */
#include <errno.h>
#include <string.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "error.h"
#include "kms-atomic.h"

struct umms_kms_atomic {
	int fd;
	drmModeAtomicReq *req;
	char *failure;      /* the first thing that went wrong */
	GArray *blobs;      /* uint32_t ids made for this request */
};

struct umms_kms_atomic *
umms_kms_atomic_create(int fd)
{
	struct umms_kms_atomic *atomic = g_new0(struct umms_kms_atomic, 1);
	atomic->fd = fd;
	atomic->req = drmModeAtomicAlloc();
	atomic->blobs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	if (!atomic->req)
		atomic->failure = g_strdup("out of memory");
	return atomic;
}

void
umms_kms_atomic_destroy(struct umms_kms_atomic *atomic)
{
	if (!atomic)
		return;
	for (guint i = 0; i < atomic->blobs->len; i++)
		drmModeDestroyPropertyBlob(atomic->fd, g_array_index(atomic->blobs, uint32_t, i));
	g_array_unref(atomic->blobs);
	if (atomic->req)
		drmModeAtomicFree(atomic->req);
	g_free(atomic->failure);
	g_free(atomic);
}

void
umms_kms_atomic_add(struct umms_kms_atomic *atomic, uint32_t object, uint32_t prop,
	uint64_t value)
{
	if (atomic->failure)
		return;
	if (!prop)
		atomic->failure = g_strdup_printf("object %u lacks a property the request needs",
			object);
	else if (drmModeAtomicAddProperty(atomic->req, object, prop, value) < 0)
		atomic->failure = g_strdup_printf("object %u property %u: %s", object, prop,
			g_strerror(errno));
}

uint32_t
umms_kms_atomic_blob(struct umms_kms_atomic *atomic, const void *data, size_t size)
{
	if (atomic->failure)
		return 0;
	uint32_t id = 0;
	if (drmModeCreatePropertyBlob(atomic->fd, data, size, &id) != 0) {
		atomic->failure = g_strdup_printf("property blob: %s", g_strerror(errno));
		return 0;
	}
	g_array_append_val(atomic->blobs, id);
	return id;
}

bool
umms_kms_atomic_commit(struct umms_kms_atomic *atomic, uint32_t flags, void *user_data,
	const char *what, GError **error)
{
	if (atomic->failure) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "%s: %s", what, atomic->failure);
		return false;
	}
	if (drmModeAtomicCommit(atomic->fd, atomic->req, flags, user_data) != 0) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, err == EBUSY ? UMMS_ERROR_NO_RESOURCE :
			UMMS_ERROR_NOT_SUPPORTED, "%s: %s", what, g_strerror(err));
		return false;
	}
	return true;
}

GArray *
umms_kms_atomic_keep_blobs(struct umms_kms_atomic *atomic)
{
	GArray *kept = atomic->blobs;
	atomic->blobs = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	return kept;
}
