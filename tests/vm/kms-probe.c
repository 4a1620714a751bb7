/*
 * kms-probe: checks, inside the KMS test VM (tests/vm/run-vm), that the KMS
 * device is what umms's KMS code relies on, and prints what it measured.
 *
 * - The driver is vkms, with atomic modesetting, universal planes and
 *   writeback connectors.
 * - A connected Virtual connector with a preferred mode, a writeback
 *   connector that writes XRGB8888, and an overlay plane that takes XRGB8888.
 * - One atomic commit puts a pattern on the primary plane, another on an
 *   overlay plane at an offset and a third, in a udmabuf made from a memfd
 *   (the way frames in memfd reach a plane), on a second overlay; the CRTC
 *   drives Virtual-1 and Writeback-1 together (tests/vm/vkms-clone.patch).
 *   The writeback buffer must then hold every plane's pixels, each where it
 *   was put, pixel for pixel.
 *
 * Usage: kms-probe [DEVICE] (default /dev/dri/card0). Exit status 0 when
 * every check passed. It is also the template for KMS tests in the VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/udmabuf.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#define ARRAY_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

/* Under TCG a commit takes milliseconds; a fence not signalled in 10 s never will be. */
#define FENCE_TIMEOUT_MS 10000

enum plane_prop {
	PLANE_TYPE,
	PLANE_FB_ID,
	PLANE_CRTC_ID,
	PLANE_SRC_X,
	PLANE_SRC_Y,
	PLANE_SRC_W,
	PLANE_SRC_H,
	PLANE_CRTC_X,
	PLANE_CRTC_Y,
	PLANE_CRTC_W,
	PLANE_CRTC_H,
	PLANE_PROP_COUNT,
};
static const char *const plane_prop_names[PLANE_PROP_COUNT] = {
	[PLANE_TYPE] = "type",
	[PLANE_FB_ID] = "FB_ID",
	[PLANE_CRTC_ID] = "CRTC_ID",
	[PLANE_SRC_X] = "SRC_X",
	[PLANE_SRC_Y] = "SRC_Y",
	[PLANE_SRC_W] = "SRC_W",
	[PLANE_SRC_H] = "SRC_H",
	[PLANE_CRTC_X] = "CRTC_X",
	[PLANE_CRTC_Y] = "CRTC_Y",
	[PLANE_CRTC_W] = "CRTC_W",
	[PLANE_CRTC_H] = "CRTC_H",
};

enum crtc_prop {
	CRTC_MODE_ID,
	CRTC_ACTIVE,
	CRTC_PROP_COUNT,
};
static const char *const crtc_prop_names[CRTC_PROP_COUNT] = {
	[CRTC_MODE_ID] = "MODE_ID",
	[CRTC_ACTIVE] = "ACTIVE",
};

enum writeback_prop {
	WB_CRTC_ID,
	WB_FB_ID,
	WB_OUT_FENCE_PTR,
	WB_PIXEL_FORMATS,
	WB_PROP_COUNT,
};
static const char *const writeback_prop_names[WB_PROP_COUNT] = {
	[WB_CRTC_ID] = "CRTC_ID",
	[WB_FB_ID] = "WRITEBACK_FB_ID",
	[WB_OUT_FENCE_PTR] = "WRITEBACK_OUT_FENCE_PTR",
	[WB_PIXEL_FORMATS] = "WRITEBACK_PIXEL_FORMATS",
};

struct plane {
	uint32_t id;
	uint32_t props[PLANE_PROP_COUNT];
};

/* An XRGB8888 framebuffer the CPU can write and read. */
struct buffer {
	uint32_t width, height;
	uint32_t stride;		/* bytes */
	uint32_t handle;		/* GEM handle */
	uint32_t fb_id;
	uint32_t *pixels;
	size_t size;
	int memfd;			/* a udmabuf's memory, or -1 for a dumb buffer */
};

/* Where a plane's buffer goes on the CRTC, and the pattern it holds. */
struct placement {
	const char *what;
	struct buffer *buffer;
	int32_t x, y;
	uint8_t tag;
	uint64_t pixels_seen;
};

struct probe {
	int fd;
	uint32_t crtc_id;
	uint32_t crtc_props[CRTC_PROP_COUNT];
	uint32_t connector_id;
	uint32_t connector_crtc_prop;
	drmModeModeInfo mode;
	uint32_t writeback_id;
	uint32_t writeback_props[WB_PROP_COUNT];
	uint64_t writeback_formats_blob;
	struct plane primary;
	struct plane overlays[2];
	int overlay_count;		/* overlays that take XRGB8888, up to two kept */
};

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * The pattern: red says which buffer a pixel came from, green and blue its
 * place in that buffer, so a misplaced plane, a wrong stride or an offset
 * applied twice all change pixels.
 */
static uint32_t
pattern(uint8_t tag, uint32_t x, uint32_t y)
{
	return (uint32_t)tag << 16 | (y & 0xff) << 8 | (x & 0xff);
}

static void
buffer_fill(struct buffer *buf, uint8_t tag)
{
	for (uint32_t y = 0; y < buf->height; y++) {
		uint32_t *row = buf->pixels + y * (buf->stride / 4);

		for (uint32_t x = 0; x < buf->width; x++)
			row[x] = pattern(tag, x, y);
	}
}

static bool
add_framebuffer(struct buffer *buf, int fd)
{
	uint32_t handles[4] = { buf->handle };
	uint32_t strides[4] = { buf->stride };
	uint32_t offsets[4] = { 0 };

	if (drmModeAddFB2(fd, buf->width, buf->height, DRM_FORMAT_XRGB8888, handles, strides,
			offsets, &buf->fb_id, 0) != 0) {
		fprintf(stderr, "kms-probe: cannot make an XRGB8888 framebuffer of %ux%u: %s\n",
			buf->width, buf->height, strerror(errno));
		return false;
	}
	return true;
}

static void
buffer_finish(struct buffer *buf, int fd)
{
	if (buf->fb_id)
		drmModeRmFB(fd, buf->fb_id);
	if (buf->pixels)
		munmap(buf->pixels, buf->size);
	if (buf->handle) {
		if (buf->memfd >= 0) {
			drmCloseBufferHandle(fd, buf->handle);
		} else {
			struct drm_mode_destroy_dumb destroy = { .handle = buf->handle };

			drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
		}
	}
	if (buf->memfd >= 0)
		close(buf->memfd);
	*buf = (struct buffer){ .memfd = -1 };
}

static bool
buffer_init_dumb(struct buffer *buf, int fd, uint32_t width, uint32_t height)
{
	struct drm_mode_create_dumb create = { .width = width, .height = height, .bpp = 32 };
	struct drm_mode_map_dumb map = { 0 };

	*buf = (struct buffer){ .width = width, .height = height, .memfd = -1 };
	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0) {
		fprintf(stderr, "kms-probe: cannot create a %ux%u dumb buffer: %s\n", width, height,
			strerror(errno));
		return false;
	}
	buf->handle = create.handle;
	buf->stride = create.pitch;
	buf->size = create.size;
	map.handle = create.handle;
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) != 0) {
		fprintf(stderr, "kms-probe: cannot map a dumb buffer: %s\n", strerror(errno));
		goto error;
	}
	buf->pixels = mmap(NULL, buf->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, map.offset);
	if (buf->pixels == MAP_FAILED) {
		buf->pixels = NULL;
		fprintf(stderr, "kms-probe: cannot map a dumb buffer: %s\n", strerror(errno));
		goto error;
	}
	if (!add_framebuffer(buf, fd))
		goto error;
	return true;

error:
	buffer_finish(buf, fd);
	return false;
}

/* A memfd, sealed against shrinking as udmabuf requires, imported through PRIME. */
static bool
buffer_init_udmabuf(struct buffer *buf, int fd, uint32_t width, uint32_t height)
{
	long page = sysconf(_SC_PAGESIZE);
	int udmabuf = -1, dmabuf = -1;

	*buf = (struct buffer){ .width = width, .height = height, .stride = width * 4 };
	buf->size = ((size_t)buf->stride * height + page - 1) / page * page;
	buf->memfd = memfd_create("kms-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (buf->memfd < 0 || ftruncate(buf->memfd, buf->size) != 0 ||
			fcntl(buf->memfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		fprintf(stderr, "kms-probe: cannot make a sealed memfd: %s\n", strerror(errno));
		goto error;
	}
	buf->pixels = mmap(NULL, buf->size, PROT_READ | PROT_WRITE, MAP_SHARED, buf->memfd, 0);
	if (buf->pixels == MAP_FAILED) {
		buf->pixels = NULL;
		fprintf(stderr, "kms-probe: cannot map a memfd: %s\n", strerror(errno));
		goto error;
	}
	udmabuf = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (udmabuf < 0) {
		fprintf(stderr, "kms-probe: cannot open /dev/udmabuf: %s\n", strerror(errno));
		goto error;
	}
	struct udmabuf_create create = {
		.memfd = buf->memfd,
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.size = buf->size,
	};
	dmabuf = ioctl(udmabuf, UDMABUF_CREATE, &create);
	if (dmabuf < 0) {
		fprintf(stderr, "kms-probe: UDMABUF_CREATE failed: %s\n", strerror(errno));
		goto error;
	}
	if (drmPrimeFDToHandle(fd, dmabuf, &buf->handle) != 0) {
		fprintf(stderr, "kms-probe: vkms does not import a udmabuf: %s\n", strerror(errno));
		goto error;
	}
	/* The GEM handle holds the dma-buf from here. */
	close(dmabuf);
	close(udmabuf);
	if (!add_framebuffer(buf, fd))
		goto error_buffer;
	return true;

error:
	if (dmabuf >= 0)
		close(dmabuf);
	if (udmabuf >= 0)
		close(udmabuf);
error_buffer:
	buffer_finish(buf, fd);
	return false;
}

/* Looks every name up among an object's properties; values may be NULL. */
static bool
find_props(int fd, uint32_t object_id, uint32_t object_type, const char *const *names,
	size_t count, uint32_t *ids, uint64_t *values)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, object_id, object_type);
	bool ok = true;

	if (!props) {
		fprintf(stderr, "kms-probe: cannot read the properties of object %u: %s\n",
			object_id, strerror(errno));
		return false;
	}
	for (size_t i = 0; i < count; i++) {
		ids[i] = 0;
		for (uint32_t j = 0; j < props->count_props && !ids[i]; j++) {
			drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[j]);

			if (prop && strcmp(prop->name, names[i]) == 0) {
				ids[i] = prop->prop_id;
				if (values)
					values[i] = props->prop_values[j];
			}
			drmModeFreeProperty(prop);
		}
		if (!ids[i]) {
			fprintf(stderr, "kms-probe: object %u has no property %s\n", object_id,
				names[i]);
			ok = false;
		}
	}
	drmModeFreeObjectProperties(props);
	return ok;
}

static bool
open_device(struct probe *probe, const char *path)
{
	drmVersion *version;

	probe->fd = open(path, O_RDWR | O_CLOEXEC);
	if (probe->fd < 0) {
		fprintf(stderr, "kms-probe: cannot open %s: %s\n", path, strerror(errno));
		return false;
	}
	version = drmGetVersion(probe->fd);
	if (!version) {
		fprintf(stderr, "kms-probe: %s is not a DRM device\n", path);
		return false;
	}
	printf("kms-probe: %s: driver %s %d.%d.%d (%s)\n", path, version->name,
		version->version_major, version->version_minor, version->version_patchlevel,
		version->desc);
	bool is_vkms = strcmp(version->name, "vkms") == 0;
	drmFreeVersion(version);
	if (!is_vkms) {
		fprintf(stderr, "kms-probe: the driver is not vkms\n");
		return false;
	}
	/* Writeback connectors are only listed to atomic clients. */
	static const struct { uint64_t cap; const char *name; } caps[] = {
		{ DRM_CLIENT_CAP_UNIVERSAL_PLANES, "universal planes" },
		{ DRM_CLIENT_CAP_ATOMIC, "atomic" },
		{ DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, "writeback connectors" },
	};
	for (size_t i = 0; i < ARRAY_LENGTH(caps); i++) {
		if (drmSetClientCap(probe->fd, caps[i].cap, 1) != 0) {
			fprintf(stderr, "kms-probe: the client cap %s is refused: %s\n",
				caps[i].name, strerror(errno));
			return false;
		}
	}
	return true;
}

static bool
writeback_takes_xrgb8888(struct probe *probe)
{
	drmModePropertyBlobRes *blob = drmModeGetPropertyBlob(probe->fd,
		probe->writeback_formats_blob);
	bool found = false;

	if (!blob)
		return false;
	const uint32_t *formats = blob->data;
	printf("kms-probe: writeback formats:");
	for (size_t i = 0; i < blob->length / sizeof(uint32_t); i++) {
		printf(" %.4s", (const char *)&formats[i]);
		found = found || formats[i] == DRM_FORMAT_XRGB8888;
	}
	printf("\n");
	drmModeFreePropertyBlob(blob);
	return found;
}

/* The Virtual connector, its preferred mode and CRTC, and the writeback connector. */
static bool
find_outputs(struct probe *probe)
{
	drmModeRes *res = drmModeGetResources(probe->fd);
	uint32_t possible_crtcs = 0;
	bool ok = false;

	if (!res) {
		fprintf(stderr, "kms-probe: cannot read the KMS resources: %s\n", strerror(errno));
		return false;
	}
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *conn = drmModeGetConnector(probe->fd, res->connectors[i]);

		if (!conn)
			continue;
		const char *type = drmModeGetConnectorTypeName(conn->connector_type);
		drmModeModeInfo *preferred = NULL;
		for (int m = 0; m < conn->count_modes; m++) {
			if (conn->modes[m].type & DRM_MODE_TYPE_PREFERRED)
				preferred = &conn->modes[m];
		}
		printf("kms-probe: connector %s-%u (id %u): %s, %d modes%s%s\n",
			type ? type : "?", conn->connector_type_id, conn->connector_id,
			conn->connection == DRM_MODE_CONNECTED ? "connected" : "not connected",
			conn->count_modes, preferred ? ", preferred " : "",
			preferred ? preferred->name : "");
		if (conn->connector_type == DRM_MODE_CONNECTOR_WRITEBACK && !probe->writeback_id) {
			probe->writeback_id = conn->connector_id;
		} else if (conn->connector_type == DRM_MODE_CONNECTOR_VIRTUAL &&
				conn->connection == DRM_MODE_CONNECTED && preferred &&
				!probe->connector_id) {
			probe->connector_id = conn->connector_id;
			probe->mode = *preferred;
			for (int e = 0; e < conn->count_encoders; e++) {
				drmModeEncoder *enc = drmModeGetEncoder(probe->fd, conn->encoders[e]);

				if (enc) {
					possible_crtcs |= enc->possible_crtcs;
					printf("kms-probe: encoder %u: possible CRTCs 0x%x, "
						"possible clones 0x%x\n", enc->encoder_id,
						enc->possible_crtcs, enc->possible_clones);
				}
				drmModeFreeEncoder(enc);
			}
		}
		drmModeFreeConnector(conn);
	}
	if (!probe->connector_id) {
		fprintf(stderr, "kms-probe: no connected Virtual connector with a preferred mode\n");
		goto out;
	}
	if (!probe->writeback_id) {
		fprintf(stderr, "kms-probe: no writeback connector\n");
		goto out;
	}
	for (int i = 0; i < res->count_crtcs && !probe->crtc_id; i++) {
		if (possible_crtcs & (1u << i))
			probe->crtc_id = res->crtcs[i];
	}
	if (!probe->crtc_id) {
		fprintf(stderr, "kms-probe: no CRTC drives the Virtual connector\n");
		goto out;
	}
	printf("kms-probe: CRTC %u, mode %ux%u@%u\n", probe->crtc_id, probe->mode.hdisplay,
		probe->mode.vdisplay, probe->mode.vrefresh);

	uint32_t conn_prop[1];
	static const char *const conn_prop_names[1] = { "CRTC_ID" };
	uint64_t wb_values[WB_PROP_COUNT];
	if (!find_props(probe->fd, probe->crtc_id, DRM_MODE_OBJECT_CRTC, crtc_prop_names,
			CRTC_PROP_COUNT, probe->crtc_props, NULL) ||
			!find_props(probe->fd, probe->connector_id, DRM_MODE_OBJECT_CONNECTOR,
				conn_prop_names, 1, conn_prop, NULL) ||
			!find_props(probe->fd, probe->writeback_id, DRM_MODE_OBJECT_CONNECTOR,
				writeback_prop_names, WB_PROP_COUNT, probe->writeback_props,
				wb_values))
		goto out;
	probe->connector_crtc_prop = conn_prop[0];
	probe->writeback_formats_blob = wb_values[WB_PIXEL_FORMATS];
	if (!writeback_takes_xrgb8888(probe)) {
		fprintf(stderr, "kms-probe: the writeback connector does not write XRGB8888\n");
		goto out;
	}
	ok = true;
out:
	drmModeFreeResources(res);
	return ok;
}

static bool
plane_takes_xrgb8888(const drmModePlane *plane)
{
	for (uint32_t i = 0; i < plane->count_formats; i++) {
		if (plane->formats[i] == DRM_FORMAT_XRGB8888)
			return true;
	}
	return false;
}

static bool
find_planes(struct probe *probe)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(probe->fd);
	drmModeRes *kms = drmModeGetResources(probe->fd);
	int counts[3] = { 0 };		/* by DRM_PLANE_TYPE_ */
	uint32_t crtc_mask = 0;
	bool ok = false;

	if (!res || !kms) {
		fprintf(stderr, "kms-probe: cannot read the planes: %s\n", strerror(errno));
		goto out;
	}
	for (int i = 0; i < kms->count_crtcs; i++) {
		if (kms->crtcs[i] == probe->crtc_id)
			crtc_mask = 1u << i;
	}
	for (uint32_t i = 0; i < res->count_planes; i++) {
		drmModePlane *plane = drmModeGetPlane(probe->fd, res->planes[i]);
		struct plane found = { .id = res->planes[i] };
		uint64_t values[PLANE_PROP_COUNT];

		if (!plane)
			continue;
		if (!(plane->possible_crtcs & crtc_mask) ||
				!find_props(probe->fd, found.id, DRM_MODE_OBJECT_PLANE,
					plane_prop_names, PLANE_PROP_COUNT, found.props, values)) {
			drmModeFreePlane(plane);
			continue;
		}
		uint64_t type = values[PLANE_TYPE];
		if (type < ARRAY_LENGTH(counts))
			counts[type]++;
		if (type == DRM_PLANE_TYPE_PRIMARY && !probe->primary.id &&
				plane_takes_xrgb8888(plane))
			probe->primary = found;
		if (type == DRM_PLANE_TYPE_OVERLAY && plane_takes_xrgb8888(plane) &&
				probe->overlay_count < (int)ARRAY_LENGTH(probe->overlays))
			probe->overlays[probe->overlay_count++] = found;
		drmModeFreePlane(plane);
	}
	printf("kms-probe: planes on the CRTC: %d primary, %d overlay, %d cursor\n",
		counts[DRM_PLANE_TYPE_PRIMARY], counts[DRM_PLANE_TYPE_OVERLAY],
		counts[DRM_PLANE_TYPE_CURSOR]);
	if (!probe->primary.id) {
		fprintf(stderr, "kms-probe: no primary plane takes XRGB8888\n");
		goto out;
	}
	if (probe->overlay_count < 2) {
		fprintf(stderr, "kms-probe: %d overlay planes take XRGB8888, 2 wanted\n",
			probe->overlay_count);
		goto out;
	}
	ok = true;
out:
	drmModeFreeResources(kms);
	drmModeFreePlaneResources(res);
	return ok;
}

static void
add_plane(drmModeAtomicReq *req, const struct probe *probe, const struct plane *plane,
	const struct placement *place)
{
	const struct buffer *buf = place->buffer;
	const struct { enum plane_prop prop; uint64_t value; } values[] = {
		{ PLANE_FB_ID, buf->fb_id },
		{ PLANE_CRTC_ID, probe->crtc_id },
		{ PLANE_SRC_X, 0 },
		{ PLANE_SRC_Y, 0 },
		/* 16.16 fixed point */
		{ PLANE_SRC_W, (uint64_t)buf->width << 16 },
		{ PLANE_SRC_H, (uint64_t)buf->height << 16 },
		{ PLANE_CRTC_X, (uint64_t)place->x },
		{ PLANE_CRTC_Y, (uint64_t)place->y },
		{ PLANE_CRTC_W, buf->width },
		{ PLANE_CRTC_H, buf->height },
	};
	for (size_t i = 0; i < ARRAY_LENGTH(values); i++)
		drmModeAtomicAddProperty(req, plane->id, plane->props[values[i].prop],
			values[i].value);
}

/*
 * One commit: a mode on the CRTC, the three planes, Virtual-1 and
 * Writeback-1 both on the CRTC. Returns the writeback's out-fence in *fence.
 */
static bool
commit(struct probe *probe, struct placement *places, const struct buffer *writeback,
	int32_t *fence)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t mode_blob = 0;
	bool ok = false;

	*fence = -1;
	if (drmModeCreatePropertyBlob(probe->fd, &probe->mode, sizeof(probe->mode),
			&mode_blob) != 0) {
		fprintf(stderr, "kms-probe: cannot make a mode blob: %s\n", strerror(errno));
		goto out;
	}
	drmModeAtomicAddProperty(req, probe->crtc_id, probe->crtc_props[CRTC_MODE_ID], mode_blob);
	drmModeAtomicAddProperty(req, probe->crtc_id, probe->crtc_props[CRTC_ACTIVE], 1);
	drmModeAtomicAddProperty(req, probe->connector_id, probe->connector_crtc_prop,
		probe->crtc_id);
	drmModeAtomicAddProperty(req, probe->writeback_id, probe->writeback_props[WB_CRTC_ID],
		probe->crtc_id);
	drmModeAtomicAddProperty(req, probe->writeback_id, probe->writeback_props[WB_FB_ID],
		writeback->fb_id);
	drmModeAtomicAddProperty(req, probe->writeback_id,
		probe->writeback_props[WB_OUT_FENCE_PTR], (uint64_t)(uintptr_t)fence);
	add_plane(req, probe, &probe->primary, &places[0]);
	add_plane(req, probe, &probe->overlays[0], &places[1]);
	add_plane(req, probe, &probe->overlays[1], &places[2]);

	double start = now_ms();
	int ret = drmModeAtomicCommit(probe->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	if (ret != 0) {
		/* Without tests/vm/vkms-clone.patch this is EINVAL (the clone check). */
		fprintf(stderr, "kms-probe: the commit routing Virtual-1 and Writeback-1 to the "
			"CRTC failed: %s\n", strerror(-ret));
		goto out;
	}
	printf("kms-probe: commit (modeset, 3 planes, Virtual-1 + Writeback-1) took %.1f ms\n",
		now_ms() - start);
	if (*fence < 0) {
		fprintf(stderr, "kms-probe: the commit gave no writeback fence\n");
		goto out;
	}
	struct pollfd pfd = { .fd = *fence, .events = POLLIN };
	ret = poll(&pfd, 1, FENCE_TIMEOUT_MS);
	if (ret != 1) {
		fprintf(stderr, "kms-probe: the writeback fence was not signalled in %d ms\n",
			FENCE_TIMEOUT_MS);
		goto out;
	}
	printf("kms-probe: writeback fence signalled %.1f ms after the commit began\n",
		now_ms() - start);
	ok = true;
out:
	if (mode_blob)
		drmModeDestroyPropertyBlob(probe->fd, mode_blob);
	drmModeAtomicFree(req);
	return ok;
}

/* The pixel every plane put at (x, y): the last placement covering it wins. */
static uint32_t
expected_pixel(struct placement *places, size_t count, uint32_t x, uint32_t y,
	struct placement **from)
{
	for (size_t i = count; i-- > 0;) {
		struct placement *p = &places[i];
		int64_t bx = (int64_t)x - p->x, by = (int64_t)y - p->y;

		if (bx >= 0 && by >= 0 && bx < p->buffer->width && by < p->buffer->height) {
			*from = p;
			return pattern(p->tag, bx, by);
		}
	}
	*from = NULL;
	return 0;
}

static bool
check_writeback(const struct buffer *writeback, struct placement *places, size_t count)
{
	uint64_t wrong = 0;

	for (uint32_t y = 0; y < writeback->height; y++) {
		const uint32_t *row = writeback->pixels + y * (writeback->stride / 4);

		for (uint32_t x = 0; x < writeback->width; x++) {
			struct placement *from;
			uint32_t want = expected_pixel(places, count, x, y, &from);
			/* X is undefined in XRGB8888. */
			uint32_t got = row[x] & 0xffffff;

			if (got == want) {
				if (from)
					from->pixels_seen++;
				continue;
			}
			if (wrong++ < 5)
				fprintf(stderr, "kms-probe: writeback pixel (%u,%u) is %06" PRIx32
					", %s put %06" PRIx32 " there\n", x, y, got,
					from ? from->what : "no plane", want);
		}
	}
	for (size_t i = 0; i < count; i++) {
		struct placement *p = &places[i];

		printf("kms-probe: writeback shows %" PRIu64 " pixels of the %s (%ux%u at %d,%d)\n",
			p->pixels_seen, p->what, p->buffer->width, p->buffer->height, p->x, p->y);
	}
	if (wrong) {
		fprintf(stderr, "kms-probe: %" PRIu64 " of %u writeback pixels are wrong\n", wrong,
			writeback->width * writeback->height);
		return false;
	}
	printf("kms-probe: all %u writeback pixels are right\n",
		writeback->width * writeback->height);
	return true;
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/dri/card0";
	struct probe probe = { .fd = -1 };
	struct buffer background = { .memfd = -1 }, overlay = { .memfd = -1 };
	struct buffer udmabuf = { .memfd = -1 }, writeback = { .memfd = -1 };
	int32_t fence = -1;
	bool ok = false;

	/* Lines in the order they were written, when both go to one pipe. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!open_device(&probe, path) || !find_outputs(&probe) || !find_planes(&probe))
		goto out;

	/* Sizes and places that are not multiples of 256, so the pattern cannot repeat
	 * in step with a misplaced plane. */
	uint32_t width = probe.mode.hdisplay, height = probe.mode.vdisplay;
	if (!buffer_init_dumb(&background, probe.fd, width, height) ||
			!buffer_init_dumb(&overlay, probe.fd, 300, 200) ||
			!buffer_init_udmabuf(&udmabuf, probe.fd, 160, 120) ||
			!buffer_init_dumb(&writeback, probe.fd, width, height))
		goto out;
	struct placement places[] = {
		{ "primary plane", &background, 0, 0, 0x20, 0 },
		{ "overlay plane", &overlay, 123, 77, 0xa0, 0 },
		{ "udmabuf overlay plane", &udmabuf, (int32_t)width - 160 - 31,
			(int32_t)height - 120 - 45, 0xe0, 0 },
	};
	for (size_t i = 0; i < ARRAY_LENGTH(places); i++)
		buffer_fill(places[i].buffer, places[i].tag);
	/* What no plane would put there: untouched pixels show as wrong. */
	for (size_t i = 0; i < writeback.size / 4; i++)
		writeback.pixels[i] = 0x00555555;

	if (!commit(&probe, places, &writeback, &fence) ||
			!check_writeback(&writeback, places, ARRAY_LENGTH(places)))
		goto out;
	ok = true;
out:
	if (fence >= 0)
		close(fence);
	buffer_finish(&writeback, probe.fd);
	buffer_finish(&udmabuf, probe.fd);
	buffer_finish(&overlay, probe.fd);
	buffer_finish(&background, probe.fd);
	if (probe.fd >= 0)
		close(probe.fd);
	printf("kms-probe: %s\n", ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
