/*
 * An atomic request that fails sticky: properties are added without
 * checking each call; the first failure is remembered and the commit then
 * fails without touching the device. Blobs made for the request (a mode)
 * are destroyed with it unless kept (umms_kms_atomic_keep_blobs) because
 * the commit that used them succeeded.
 */
#ifndef UMMS_TARGETS_KMS_ATOMIC_H
#define UMMS_TARGETS_KMS_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct umms_kms_atomic;

struct umms_kms_atomic *umms_kms_atomic_create(int fd);
void umms_kms_atomic_destroy(struct umms_kms_atomic *atomic);

/* Adds object.property = value; a 0 property id (absent property) fails the request. */
void umms_kms_atomic_add(struct umms_kms_atomic *atomic, uint32_t object, uint32_t prop,
	uint64_t value);
/* A property blob for the request (e.g. MODE_ID); 0 and a failed request if it cannot. */
uint32_t umms_kms_atomic_blob(struct umms_kms_atomic *atomic, const void *data, size_t size);

/*
 * drmModeAtomicCommit with @flags (DRM_MODE_ATOMIC_*); false with @error
 * naming @what and the errno (or the add that failed first).
 */
bool umms_kms_atomic_commit(struct umms_kms_atomic *atomic, uint32_t flags, void *user_data,
	const char *what, GError **error);

/* The blobs outlive the request: the committed state uses them. Returns their ids. */
GArray *umms_kms_atomic_keep_blobs(struct umms_kms_atomic *atomic);

#endif
