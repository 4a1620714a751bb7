#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sys/stat.h>

#include "error.h"
#include "subpicture.h"

static guint64 next_serial = 1;

struct umms_subpicture *
umms_subpicture_create(int width, int height, int picture_width, int picture_height,
	GError **error)
{
	if (width < 1 || height < 1 || width > UMMS_SUBPICTURE_MAX_SIDE ||
			height > UMMS_SUBPICTURE_MAX_SIDE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a subtitle image of %dx%d pixels is not 1 to %d pixels a side",
			width, height, UMMS_SUBPICTURE_MAX_SIDE);
		return NULL;
	}
	uint32_t stride = (uint32_t)width * 4;
	size_t size = (size_t)stride * (size_t)height;
	int fd = memfd_create("umms-subpicture", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"no memory for a subtitle image: %s", g_strerror(err));
		return NULL;
	}
	void *data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED) {
		int err = errno;
		close(fd);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot map a subtitle image: %s", g_strerror(err));
		return NULL;
	}
	struct umms_subpicture *subpicture = g_new0(struct umms_subpicture, 1);
	subpicture->refs = 1;
	subpicture->serial = (uint64_t)__atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
	subpicture->fd = fd;
	subpicture->size = size;
	subpicture->data = data;
	subpicture->stride = stride;
	subpicture->width = width;
	subpicture->height = height;
	subpicture->picture_width = picture_width;
	subpicture->picture_height = picture_height;
	return subpicture;
}

bool
umms_subpicture_seal(struct umms_subpicture *subpicture, GError **error)
{
	/*
	 * Linux before 6.7 counts every shared mapping as writable, and
	 * F_SEAL_WRITE fails while one exists: unmap ours, seal, and map the
	 * sealed pixels again privately, read-only.
	 */
	munmap(subpicture->data, subpicture->size);
	subpicture->data = NULL;
	if (fcntl(subpicture->fd, F_ADD_SEALS,
			F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot seal a subtitle image: %s", g_strerror(err));
		return false;
	}
	void *data = mmap(NULL, subpicture->size, PROT_READ, MAP_PRIVATE, subpicture->fd, 0);
	if (data == MAP_FAILED) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot map a sealed subtitle image: %s", g_strerror(err));
		return false;
	}
	subpicture->data = data;
	return true;
}

struct umms_subpicture *
umms_subpicture_adopt(int fd, uint32_t stride, int x, int y, int width, int height,
	int picture_width, int picture_height, GError **error)
{
	if (width < 1 || height < 1 || width > UMMS_SUBPICTURE_MAX_SIDE ||
			height > UMMS_SUBPICTURE_MAX_SIDE || stride != (uint32_t)width * 4 ||
			picture_width < 1 || picture_height < 1) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a subtitle image of %dx%d pixels, stride %u, is not one", width, height,
			stride);
		return NULL;
	}
	size_t size = (size_t)stride * (size_t)height;
	int seals = fcntl(fd, F_GET_SEALS);
	int needed = F_SEAL_SHRINK | F_SEAL_WRITE;
	struct stat st;
	if (seals < 0 || (seals & needed) != needed || fstat(fd, &st) < 0 ||
			(size_t)st.st_size < size) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"a subtitle image is not in a sealed memfd of %zu bytes", size);
		return NULL;
	}
	void *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED) {
		int err = errno;
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"cannot map a subtitle image: %s", g_strerror(err));
		return NULL;
	}
	struct umms_subpicture *subpicture = g_new0(struct umms_subpicture, 1);
	subpicture->refs = 1;
	subpicture->serial = (uint64_t)__atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
	subpicture->fd = fd;
	subpicture->size = size;
	subpicture->data = data;
	subpicture->stride = stride;
	subpicture->x = x;
	subpicture->y = y;
	subpicture->width = width;
	subpicture->height = height;
	subpicture->picture_width = picture_width;
	subpicture->picture_height = picture_height;
	return subpicture;
}

struct umms_subpicture *
umms_subpicture_ref(struct umms_subpicture *subpicture)
{
	g_assert(g_atomic_int_get(&subpicture->refs) > 0);
	g_atomic_int_inc(&subpicture->refs);
	return subpicture;
}

void
umms_subpicture_unref(struct umms_subpicture *subpicture)
{
	if (!subpicture || !g_atomic_int_dec_and_test(&subpicture->refs))
		return;
	if (subpicture->data)
		munmap(subpicture->data, subpicture->size);
	close(subpicture->fd);
	g_free(subpicture);
}
