/*
 * zwp_linux_dmabuf_v1, version 4: feedback (a sealed format table and
 * tranches of indices into it), params objects and the wl_buffers they
 * make. Contract in dmabuf.h.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dmabuf.h"
#include "error.h"
#include "linux-dmabuf-unstable-v1-protocol.h"
#include "log.h"

#define DMABUF_VERSION 4
#define MAX_PLANES 4
/* The table is indexed by 16-bit numbers. */
#define MAX_TABLE_ENTRIES 65536
/* 2 KiB of indices per tranche_formats event: well under libwayland's 4 KiB message limit. */
#define INDICES_PER_EVENT 1024

/* ---- feedback as sent ------------------------------------------------------ */

/* One row of the format table, as the protocol lays it out. */
struct table_entry {
	uint32_t format;
	uint32_t pad;
	uint64_t modifier;
};
G_STATIC_ASSERT(sizeof(struct table_entry) == 16);

struct tranche_state {
	dev_t device;
	uint32_t flags;                 /* zwp_linux_dmabuf_feedback_v1 tranche_flags */
	uint16_t *indices;
	size_t n_indices;
};

/* A feedback ready to send: the table (in memory and as a sealed memfd) and the tranches. */
struct feedback_state {
	dev_t main_device;
	struct table_entry *table;
	size_t n_table;
	int table_fd;
	struct tranche_state *tranches;
	size_t n_tranches;
};

struct umms_dmabuf {
	struct wl_display *display;
	struct wl_global *global;
	struct feedback_state *feedback;   /* the default one */
	struct wl_list resources;          /* zwp_linux_dmabuf_v1 (wl_resource_get_link) */
	struct wl_list feedbacks;          /* feedback_object.link */
	struct wl_list params;             /* params_object.link */
};

/*
 * A zwp_linux_dmabuf_feedback_v1. Every one answers the default feedback
 * today. Per-surface feedback would add here the wl_surface (with a destroy
 * listener that falls back to the default) and the feedback_state to send,
 * NULL meaning the default, and have umms_dmabuf_set_feedback resend only
 * the objects following the default.
 */
struct feedback_object {
	struct umms_dmabuf *dmabuf;        /* NULL once the global is gone */
	struct wl_resource *resource;
	struct wl_list link;               /* umms_dmabuf.feedbacks */
};

struct params_object {
	struct umms_dmabuf *dmabuf;        /* NULL once the global is gone */
	struct wl_resource *resource;
	struct wl_list link;               /* umms_dmabuf.params */
	bool used;
	bool set[MAX_PLANES];
	int fds[MAX_PLANES];
	uint32_t offsets[MAX_PLANES], strides[MAX_PLANES];
	uint64_t modifier;                 /* the same for every plane */
};

static void
feedback_state_destroy(struct feedback_state *state)
{
	if (!state)
		return;
	for (size_t i = 0; i < state->n_tranches; i++)
		g_free(state->tranches[i].indices);
	g_free(state->tranches);
	g_free(state->table);
	if (state->table_fd >= 0)
		close(state->table_fd);
	g_free(state);
}

static guint
entry_hash(gconstpointer key)
{
	const struct table_entry *entry = key;
	return g_int64_hash(&entry->modifier) * 31u + entry->format;
}

static gboolean
entry_equal(gconstpointer a, gconstpointer b)
{
	const struct table_entry *x = a, *y = b;
	return x->format == y->format && x->modifier == y->modifier;
}

/* The table as a memfd sealed against any change: every client maps the same one. */
static int
write_table(const struct table_entry *table, size_t n_table, GError **error)
{
	int fd = memfd_create("umms-dmabuf-formats", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"cannot create the dma-buf format table: memfd_create: %s",
			g_strerror(errno));
		return -1;
	}
	const char *data = (const char *)table;
	size_t size = n_table * sizeof(*table), done = 0;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
				"cannot write the dma-buf format table: %s",
				n < 0 ? g_strerror(errno) : "short write");
			goto error_fd;
		}
		done += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"cannot seal the dma-buf format table: %s", g_strerror(errno));
		goto error_fd;
	}
	return fd;

error_fd:
	close(fd);
	return -1;
}

static struct feedback_state *
feedback_state_create(const struct umms_dmabuf_feedback *feedback, GError **error)
{
	if (!feedback || feedback->n_tranches == 0 || !feedback->tranches) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"dma-buf feedback without tranches");
		return NULL;
	}
	size_t total = 0;
	for (size_t i = 0; i < feedback->n_tranches; i++) {
		const struct umms_dmabuf_tranche *tranche = &feedback->tranches[i];
		if (tranche->n_formats == 0 || !tranche->formats) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"dma-buf feedback tranche %zu has no formats", i);
			return NULL;
		}
		total += tranche->n_formats;
	}

	struct feedback_state *state = g_new0(struct feedback_state, 1);
	state->main_device = feedback->main_device;
	state->table_fd = -1;
	/* Sized for every pair up front: the hash table keys point into it. */
	state->table = g_new0(struct table_entry, total);
	state->tranches = g_new0(struct tranche_state, feedback->n_tranches);
	state->n_tranches = feedback->n_tranches;
	GHashTable *index_of = g_hash_table_new(entry_hash, entry_equal);

	for (size_t i = 0; i < feedback->n_tranches; i++) {
		const struct umms_dmabuf_tranche *tranche = &feedback->tranches[i];
		struct tranche_state *out = &state->tranches[i];
		out->device = tranche->device;
		out->flags = tranche->scanout ? ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT : 0;
		out->indices = g_new(uint16_t, tranche->n_formats);
		for (size_t j = 0; j < tranche->n_formats; j++) {
			struct table_entry key = {
				.format = tranche->formats[j].format,
				.modifier = tranche->formats[j].modifier,
			};
			gpointer value;
			size_t index;
			if (g_hash_table_lookup_extended(index_of, &key, NULL, &value)) {
				index = GPOINTER_TO_SIZE(value);
			} else {
				if (state->n_table == MAX_TABLE_ENTRIES) {
					g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
						"dma-buf feedback has over %d format and modifier pairs",
						MAX_TABLE_ENTRIES);
					goto error_state;
				}
				index = state->n_table++;
				state->table[index] = key;
				g_hash_table_insert(index_of, &state->table[index],
					GSIZE_TO_POINTER(index));
			}
			/* A pair listed twice in one tranche is sent once. */
			bool seen = false;
			for (size_t k = 0; k < out->n_indices && !seen; k++)
				seen = out->indices[k] == index;
			if (!seen)
				out->indices[out->n_indices++] = (uint16_t)index;
		}
	}

	state->table_fd = write_table(state->table, state->n_table, error);
	if (state->table_fd < 0)
		goto error_state;
	g_hash_table_destroy(index_of);
	return state;

error_state:
	g_hash_table_destroy(index_of);
	feedback_state_destroy(state);
	return NULL;
}

static void
send_device(struct wl_resource *resource, dev_t device, bool main)
{
	struct wl_array array = { .size = sizeof(device), .alloc = 0, .data = &device };
	if (main)
		zwp_linux_dmabuf_feedback_v1_send_main_device(resource, &array);
	else
		zwp_linux_dmabuf_feedback_v1_send_tranche_target_device(resource, &array);
}

static void
feedback_send(struct wl_resource *resource, const struct feedback_state *state)
{
	zwp_linux_dmabuf_feedback_v1_send_format_table(resource, state->table_fd,
		(uint32_t)(state->n_table * sizeof(struct table_entry)));
	send_device(resource, state->main_device, true);
	for (size_t i = 0; i < state->n_tranches; i++) {
		const struct tranche_state *tranche = &state->tranches[i];
		send_device(resource, tranche->device, false);
		zwp_linux_dmabuf_feedback_v1_send_tranche_flags(resource, tranche->flags);
		for (size_t done = 0; done < tranche->n_indices; done += INDICES_PER_EVENT) {
			size_t n = MIN(tranche->n_indices - done, (size_t)INDICES_PER_EVENT);
			struct wl_array array = {
				.size = n * sizeof(uint16_t),
				.alloc = 0,
				.data = &tranche->indices[done],
			};
			zwp_linux_dmabuf_feedback_v1_send_tranche_formats(resource, &array);
		}
		zwp_linux_dmabuf_feedback_v1_send_tranche_done(resource);
	}
	zwp_linux_dmabuf_feedback_v1_send_done(resource);
}

/* Before version 4: the table as format (versions 1, 2) or modifier (3) events. */
static void
send_legacy_formats(struct wl_resource *resource, const struct feedback_state *state)
{
	int version = wl_resource_get_version(resource);
	for (size_t i = 0; i < state->n_table; i++) {
		const struct table_entry *entry = &state->table[i];
		if (version >= ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION) {
			zwp_linux_dmabuf_v1_send_modifier(resource, entry->format,
				(uint32_t)(entry->modifier >> 32), (uint32_t)entry->modifier);
			continue;
		}
		bool sent = false;
		for (size_t j = 0; j < i && !sent; j++)
			sent = state->table[j].format == entry->format;
		if (!sent)
			zwp_linux_dmabuf_v1_send_format(resource, entry->format);
	}
}

/* ---- wl_buffer ------------------------------------------------------------- */

static void
buffer_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct wl_buffer_interface buffer_impl = {
	.destroy = buffer_handle_destroy,
};

static void
buffer_resource_destroy(struct wl_resource *resource)
{
	struct umms_dmabuf_buffer *buffer = wl_resource_get_user_data(resource);
	wl_signal_emit_mutable(&buffer->events.destroy, buffer);
	for (int i = 0; i < buffer->n_planes; i++)
		close(buffer->fds[i]);
	g_free(buffer);
}

struct umms_dmabuf_buffer *
umms_dmabuf_buffer_from_resource(struct wl_resource *resource)
{
	if (!resource || !wl_resource_instance_of(resource, &wl_buffer_interface, &buffer_impl))
		return NULL;
	return wl_resource_get_user_data(resource);
}

/* Makes the wl_buffer (@id 0: a new server-side id) and moves the planes' fds into it. */
static struct umms_dmabuf_buffer *
buffer_create(struct wl_client *client, uint32_t id, struct params_object *params, int n_planes,
	int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	struct wl_resource *resource = wl_resource_create(client, &wl_buffer_interface, 1, id);
	if (!resource)
		return NULL;
	struct umms_dmabuf_buffer *buffer = g_new0(struct umms_dmabuf_buffer, 1);
	buffer->width = width;
	buffer->height = height;
	buffer->format = format;
	buffer->modifier = params->modifier;
	buffer->flags = flags;
	buffer->n_planes = n_planes;
	for (int i = 0; i < MAX_PLANES; i++) {
		buffer->fds[i] = -1;
		if (i >= n_planes)
			continue;
		buffer->fds[i] = params->fds[i];
		buffer->offsets[i] = params->offsets[i];
		buffer->strides[i] = params->strides[i];
		params->fds[i] = -1;
		params->set[i] = false;
	}
	buffer->resource = resource;
	wl_signal_init(&buffer->events.destroy);
	wl_resource_set_implementation(resource, &buffer_impl, buffer, buffer_resource_destroy);
	return buffer;
}

/* ---- zwp_linux_buffer_params_v1 ----------------------------------------- */

/* Planes of the common fourccs in their plain layouts; 0: not known here, any count goes. */
static int
expected_planes(uint32_t format, uint64_t modifier)
{
	/* Other modifiers may add planes of their own (compression metadata). */
	if (modifier != DRM_FORMAT_MOD_LINEAR && modifier != DRM_FORMAT_MOD_INVALID)
		return 0;
	switch (format) {
	case DRM_FORMAT_XRGB8888:
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
	case DRM_FORMAT_RGBX8888:
	case DRM_FORMAT_RGBA8888:
	case DRM_FORMAT_BGRX8888:
	case DRM_FORMAT_BGRA8888:
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_XRGB2101010:
	case DRM_FORMAT_ARGB2101010:
	case DRM_FORMAT_XBGR2101010:
	case DRM_FORMAT_ABGR2101010:
	case DRM_FORMAT_YUYV:
	case DRM_FORMAT_UYVY:
		return 1;
	case DRM_FORMAT_NV12:
	case DRM_FORMAT_NV21:
	case DRM_FORMAT_P010:
		return 2;
	case DRM_FORMAT_YUV420:
	case DRM_FORMAT_YVU420:
		return 3;
	default:
		return 0;
	}
}

static void
params_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
params_resource_destroy(struct wl_resource *resource)
{
	struct params_object *params = wl_resource_get_user_data(resource);
	for (int i = 0; i < MAX_PLANES; i++) {
		if (params->set[i])
			close(params->fds[i]);
	}
	wl_list_remove(&params->link);
	g_free(params);
}

static void
params_handle_add(struct wl_client *client, struct wl_resource *resource, int32_t fd,
	uint32_t plane_idx, uint32_t offset, uint32_t stride,
	uint32_t modifier_hi, uint32_t modifier_lo)
{
	struct params_object *params = wl_resource_get_user_data(resource);
	uint64_t modifier = ((uint64_t)modifier_hi << 32) | modifier_lo;
	if (params->used) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
			"params already used to create a buffer");
		goto error_fd;
	}
	if (plane_idx >= MAX_PLANES) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_IDX,
			"plane index %u is over %d", plane_idx, MAX_PLANES - 1);
		goto error_fd;
	}
	if (params->set[plane_idx]) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_PLANE_SET,
			"plane %u was already set", plane_idx);
		goto error_fd;
	}
	for (int i = 0; i < MAX_PLANES; i++) {
		if (params->set[i] && params->modifier != modifier) {
			wl_resource_post_error(resource,
				ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_FORMAT,
				"plane %u has modifier 0x%" PRIx64 ", plane %d 0x%" PRIx64,
				plane_idx, modifier, i, params->modifier);
			goto error_fd;
		}
	}
	params->set[plane_idx] = true;
	params->fds[plane_idx] = fd;
	params->offsets[plane_idx] = offset;
	params->strides[plane_idx] = stride;
	params->modifier = modifier;
	return;

error_fd:
	close(fd);
}

static bool
table_has(const struct feedback_state *state, uint32_t format, uint64_t modifier, bool any_modifier)
{
	for (size_t i = 0; i < state->n_table; i++) {
		if (state->table[i].format == format &&
				(any_modifier || state->table[i].modifier == modifier))
			return true;
	}
	return false;
}

/* The size of a dma-buf (or memfd), or -1 where it cannot be told. */
static off_t
fd_size(int fd)
{
	off_t size = lseek(fd, 0, SEEK_END);
	if (size < 0)
		return -1;
	/* The client shares this file position. */
	lseek(fd, 0, SEEK_SET);
	return size;
}

enum check_result {
	CHECK_OK,
	CHECK_FAILED,       /* not a client bug: `failed` (create) or invalid_wl_buffer */
	CHECK_POSTED,       /* a protocol error was posted */
};

#define POST(code, ...) \
	do { \
		wl_resource_post_error(params->resource, \
			ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_##code, __VA_ARGS__); \
		return CHECK_POSTED; \
	} while (0)

/* The checks the protocol names for create and create_immed; *n_planes on CHECK_OK. */
static enum check_result
params_check(struct params_object *params, int32_t width, int32_t height, uint32_t format,
	uint32_t flags, int *n_planes)
{
	int n = 0;
	while (n < MAX_PLANES && params->set[n])
		n++;
	for (int i = n; i < MAX_PLANES; i++) {
		if (params->set[i])
			POST(INCOMPLETE, "plane %d was added but plane %d was not", i, n);
	}
	if (n == 0)
		POST(INCOMPLETE, "no planes were added");

	const struct feedback_state *table = params->dmabuf->feedback;
	/* Versions 1 and 2 heard of formats only, never of modifiers. */
	bool any_modifier = wl_resource_get_version(params->resource) <
		ZWP_LINUX_DMABUF_V1_MODIFIER_SINCE_VERSION;
	if (!table_has(table, format, params->modifier, any_modifier))
		POST(INVALID_FORMAT, "format 0x%08x with modifier 0x%" PRIx64 " is not supported",
			format, params->modifier);
	int expected = expected_planes(format, params->modifier);
	if (expected != 0 && n != expected)
		POST(INCOMPLETE, "format 0x%08x takes %d planes, not %d", format, expected, n);

	if (width <= 0 || height <= 0)
		POST(INVALID_DIMENSIONS, "width %d, height %d: both must be over 0", width, height);

	for (int i = 0; i < n; i++) {
		/* The first plane spans the height; others may be subsampled: one row at least. */
		uint64_t rows = i == 0 ? (uint64_t)height : 1;
		uint64_t end = (uint64_t)params->offsets[i] + (uint64_t)params->strides[i] * rows;
		if ((uint64_t)params->offsets[i] + params->strides[i] > UINT32_MAX || end > UINT32_MAX)
			POST(OUT_OF_BOUNDS, "plane %d: offset %u + stride %u * %" PRIu64
				" rows overflows 32 bits", i, params->offsets[i], params->strides[i], rows);
		off_t size = fd_size(params->fds[i]);
		if (size >= 0 && end > (uint64_t)size)
			POST(OUT_OF_BOUNDS, "plane %d: offset %u + stride %u * %" PRIu64
				" rows is past the end of its dma-buf (%jd bytes)", i,
				params->offsets[i], params->strides[i], rows, (intmax_t)size);
	}

	uint32_t known = ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_Y_INVERT |
		ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_INTERLACED |
		ZWP_LINUX_BUFFER_PARAMS_V1_FLAGS_BOTTOM_FIRST;
	if (flags & ~known) {
		umms_debug("dma-buf buffer refused: unknown flags 0x%x", flags & ~known);
		return CHECK_FAILED;
	}
	*n_planes = n;
	return CHECK_OK;
}

#undef POST

static void
params_create_common(struct wl_client *client, struct wl_resource *resource, uint32_t id,
	int32_t width, int32_t height, uint32_t format, uint32_t flags, bool immediate)
{
	struct params_object *params = wl_resource_get_user_data(resource);
	if (params->used) {
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_ALREADY_USED,
			"params already used to create a buffer");
		return;
	}
	params->used = true;

	enum check_result result = CHECK_FAILED;
	int n_planes = 0;
	if (params->dmabuf)
		result = params_check(params, width, height, format, flags, &n_planes);
	else
		umms_debug("dma-buf buffer refused: the global is gone");
	if (result == CHECK_POSTED)
		return;

	struct umms_dmabuf_buffer *buffer = NULL;
	if (result == CHECK_OK) {
		buffer = buffer_create(client, id, params, n_planes, width, height, format, flags);
		if (!buffer) {
			wl_resource_post_no_memory(resource);
			return;
		}
	}
	if (immediate && !buffer)
		wl_resource_post_error(resource, ZWP_LINUX_BUFFER_PARAMS_V1_ERROR_INVALID_WL_BUFFER,
			"the dma-buf buffer cannot be used");
	else if (!buffer)
		zwp_linux_buffer_params_v1_send_failed(resource);
	else if (!immediate)
		zwp_linux_buffer_params_v1_send_created(resource, buffer->resource);
}

static void
params_handle_create(struct wl_client *client, struct wl_resource *resource,
	int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	params_create_common(client, resource, 0, width, height, format, flags, false);
}

static void
params_handle_create_immed(struct wl_client *client, struct wl_resource *resource,
	uint32_t buffer_id, int32_t width, int32_t height, uint32_t format, uint32_t flags)
{
	params_create_common(client, resource, buffer_id, width, height, format, flags, true);
}

static const struct zwp_linux_buffer_params_v1_interface params_impl = {
	.destroy = params_handle_destroy,
	.add = params_handle_add,
	.create = params_handle_create,
	.create_immed = params_handle_create_immed,
};

/* ---- zwp_linux_dmabuf_feedback_v1 ----------------------------------------- */

static void
feedback_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct zwp_linux_dmabuf_feedback_v1_interface feedback_impl = {
	.destroy = feedback_handle_destroy,
};

static void
feedback_resource_destroy(struct wl_resource *resource)
{
	struct feedback_object *object = wl_resource_get_user_data(resource);
	wl_list_remove(&object->link);
	g_free(object);
}

static void
feedback_object_create(struct wl_client *client, struct wl_resource *parent, uint32_t id)
{
	struct umms_dmabuf *dmabuf = wl_resource_get_user_data(parent);
	struct wl_resource *resource = wl_resource_create(client,
		&zwp_linux_dmabuf_feedback_v1_interface, wl_resource_get_version(parent), id);
	if (!resource) {
		wl_resource_post_no_memory(parent);
		return;
	}
	struct feedback_object *object = g_new0(struct feedback_object, 1);
	object->resource = resource;
	object->dmabuf = dmabuf;
	wl_resource_set_implementation(resource, &feedback_impl, object,
		feedback_resource_destroy);
	if (!dmabuf) {
		wl_list_init(&object->link);
		return;
	}
	wl_list_insert(&dmabuf->feedbacks, &object->link);
	feedback_send(resource, dmabuf->feedback);
}

/* ---- zwp_linux_dmabuf_v1 --------------------------------------------------- */

static void
dmabuf_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static void
dmabuf_handle_create_params(struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct umms_dmabuf *dmabuf = wl_resource_get_user_data(resource);
	struct wl_resource *params_resource = wl_resource_create(client,
		&zwp_linux_buffer_params_v1_interface, wl_resource_get_version(resource), id);
	if (!params_resource) {
		wl_resource_post_no_memory(resource);
		return;
	}
	struct params_object *params = g_new0(struct params_object, 1);
	params->dmabuf = dmabuf;
	params->resource = params_resource;
	for (int i = 0; i < MAX_PLANES; i++)
		params->fds[i] = -1;
	if (dmabuf)
		wl_list_insert(&dmabuf->params, &params->link);
	else
		wl_list_init(&params->link);
	wl_resource_set_implementation(params_resource, &params_impl, params,
		params_resource_destroy);
}

static void
dmabuf_handle_get_default_feedback(struct wl_client *client, struct wl_resource *resource,
	uint32_t id)
{
	feedback_object_create(client, resource, id);
}

static void
dmabuf_handle_get_surface_feedback(struct wl_client *client, struct wl_resource *resource,
	uint32_t id, struct wl_resource *surface)
{
	/* The default feedback for now: see struct feedback_object. */
	feedback_object_create(client, resource, id);
}

static const struct zwp_linux_dmabuf_v1_interface dmabuf_impl = {
	.destroy = dmabuf_handle_destroy,
	.create_params = dmabuf_handle_create_params,
	.get_default_feedback = dmabuf_handle_get_default_feedback,
	.get_surface_feedback = dmabuf_handle_get_surface_feedback,
};

static void
dmabuf_resource_destroy(struct wl_resource *resource)
{
	wl_list_remove(wl_resource_get_link(resource));
}

static void
dmabuf_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct umms_dmabuf *dmabuf = data;
	struct wl_resource *resource = wl_resource_create(client, &zwp_linux_dmabuf_v1_interface,
		(int)version, id);
	if (!resource) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &dmabuf_impl, dmabuf, dmabuf_resource_destroy);
	wl_list_insert(&dmabuf->resources, wl_resource_get_link(resource));
	if (version < ZWP_LINUX_DMABUF_V1_GET_DEFAULT_FEEDBACK_SINCE_VERSION)
		send_legacy_formats(resource, dmabuf->feedback);
}

struct umms_dmabuf *
umms_dmabuf_create(struct wl_display *display, const struct umms_dmabuf_feedback *feedback,
	GError **error)
{
	struct umms_dmabuf *dmabuf = g_new0(struct umms_dmabuf, 1);
	dmabuf->display = display;
	wl_list_init(&dmabuf->resources);
	wl_list_init(&dmabuf->feedbacks);
	wl_list_init(&dmabuf->params);
	dmabuf->feedback = feedback_state_create(feedback, error);
	if (!dmabuf->feedback)
		goto error_dmabuf;
	/* No device (the headless screen): feedback could name none, version 3 at most. */
	dmabuf->global = wl_global_create(display, &zwp_linux_dmabuf_v1_interface,
		feedback->main_device ? DMABUF_VERSION : 3, dmabuf, dmabuf_bind);
	if (!dmabuf->global) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"cannot create the zwp_linux_dmabuf_v1 global");
		goto error_feedback;
	}
	umms_debug("zwp_linux_dmabuf_v1: %zu format and modifier pairs in %zu tranches",
		dmabuf->feedback->n_table, dmabuf->feedback->n_tranches);
	return dmabuf;

error_feedback:
	feedback_state_destroy(dmabuf->feedback);
error_dmabuf:
	g_free(dmabuf);
	return NULL;
}

void
umms_dmabuf_destroy(struct umms_dmabuf *dmabuf)
{
	if (!dmabuf)
		return;
	wl_global_destroy(dmabuf->global);

	/* What clients hold stays, inert. */
	struct wl_resource *resource, *tmp;
	wl_resource_for_each_safe(resource, tmp, &dmabuf->resources) {
		wl_list_remove(wl_resource_get_link(resource));
		wl_list_init(wl_resource_get_link(resource));
		wl_resource_set_user_data(resource, NULL);
	}
	struct feedback_object *object, *object_tmp;
	wl_list_for_each_safe(object, object_tmp, &dmabuf->feedbacks, link) {
		wl_list_remove(&object->link);
		wl_list_init(&object->link);
		object->dmabuf = NULL;
	}
	struct params_object *params, *params_tmp;
	wl_list_for_each_safe(params, params_tmp, &dmabuf->params, link) {
		wl_list_remove(&params->link);
		wl_list_init(&params->link);
		params->dmabuf = NULL;
	}
	feedback_state_destroy(dmabuf->feedback);
	g_free(dmabuf);
}

bool
umms_dmabuf_set_feedback(struct umms_dmabuf *dmabuf, const struct umms_dmabuf_feedback *feedback,
	GError **error)
{
	struct feedback_state *state = feedback_state_create(feedback, error);
	if (!state)
		return false;
	feedback_state_destroy(dmabuf->feedback);
	dmabuf->feedback = state;
	struct feedback_object *object;
	wl_list_for_each(object, &dmabuf->feedbacks, link)
		feedback_send(object->resource, state);
	return true;
}
