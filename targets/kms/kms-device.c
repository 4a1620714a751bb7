/*
 * Opening a KMS device and learning what it offers (kms-device.h).
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DISPLAY

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "error.h"
#include "kms-device.h"
#include "log.h"

/* ---- properties ---------------------------------------------------------- */

/* Fills @ids[i] with the id of property @names[i] of the object (0 if absent). */
static void
find_props(int fd, uint32_t object, uint32_t type, const char *const *names, uint32_t **ids,
	size_t n, uint64_t *values)
{
	for (size_t i = 0; i < n; i++)
		*ids[i] = 0;
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, object, type);
	if (!props)
		return;
	for (uint32_t p = 0; p < props->count_props; p++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[p]);
		if (!prop)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (strcmp(prop->name, names[i]) == 0) {
				*ids[i] = prop->prop_id;
				if (values)
					values[i] = props->prop_values[p];
			}
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(props);
}

static bool
load_plane(struct umms_kms_device *device, drmModePlane *plane)
{
	struct umms_kms_plane *p = &device->planes[device->n_planes];
	struct umms_kms_plane_props *pr = &p->props;
	uint32_t type_id = 0;
	const char *names[] = { "FB_ID", "CRTC_ID", "SRC_X", "SRC_Y", "SRC_W", "SRC_H",
		"CRTC_X", "CRTC_Y", "CRTC_W", "CRTC_H", "zpos", "type" };
	uint32_t *ids[] = { &pr->fb_id, &pr->crtc_id, &pr->src_x, &pr->src_y, &pr->src_w,
		&pr->src_h, &pr->crtc_x, &pr->crtc_y, &pr->crtc_w, &pr->crtc_h, &pr->zpos, &type_id };
	uint64_t values[G_N_ELEMENTS(names)] = { 0 };
	find_props(device->fd, plane->plane_id, DRM_MODE_OBJECT_PLANE, names, ids,
		G_N_ELEMENTS(names), values);
	if (!type_id || !pr->fb_id || !pr->crtc_id || !pr->crtc_w)
		return false;
	p->id = plane->plane_id;
	p->type = (enum umms_kms_plane_type)values[G_N_ELEMENTS(names) - 1];
	p->has_zpos = pr->zpos != 0;
	/* Without zpos, the order is the type's: primary under overlays under the cursor. */
	p->zpos = p->has_zpos ? values[10] : p->type == UMMS_KMS_PLANE_PRIMARY ? 0 :
		p->type == UMMS_KMS_PLANE_OVERLAY ? 1 : 2;
	p->n_formats = plane->count_formats;
	p->formats = g_memdup2(plane->formats, plane->count_formats * sizeof(uint32_t));
	device->n_planes++;
	return true;
}

static void
load_planes(struct umms_kms_device *device)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(device->fd);
	if (!res)
		return;
	device->planes = g_new0(struct umms_kms_plane, res->count_planes);
	for (uint32_t i = 0; i < res->count_planes; i++) {
		drmModePlane *plane = drmModeGetPlane(device->fd, res->planes[i]);
		if (!plane)
			continue;
		if (plane->possible_crtcs & (1u << device->crtc_index))
			load_plane(device, plane);
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(res);
}

static void
load_writeback(struct umms_kms_device *device, drmModeRes *res)
{
	for (int i = 0; i < res->count_connectors && !device->writeback_id; i++) {
		drmModeConnector *conn = drmModeGetConnector(device->fd, res->connectors[i]);
		if (!conn)
			continue;
		if (conn->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
			uint32_t formats_id = 0;
			uint64_t values[4] = { 0 };
			const char *names[] = { "CRTC_ID", "WRITEBACK_FB_ID",
				"WRITEBACK_OUT_FENCE_PTR", "WRITEBACK_PIXEL_FORMATS" };
			uint32_t *ids[] = { &device->writeback_props.crtc_id,
				&device->writeback_props.fb_id,
				&device->writeback_props.out_fence_ptr, &formats_id };
			find_props(device->fd, conn->connector_id, DRM_MODE_OBJECT_CONNECTOR, names,
				ids, 4, values);
			drmModePropertyBlobRes *blob = formats_id ?
				drmModeGetPropertyBlob(device->fd, (uint32_t)values[3]) : NULL;
			if (blob && device->writeback_props.fb_id && device->writeback_props.crtc_id) {
				device->writeback_id = conn->connector_id;
				device->n_writeback_formats = blob->length / sizeof(uint32_t);
				device->writeback_formats = g_memdup2(blob->data, blob->length);
			}
			if (blob)
				drmModeFreePropertyBlob(blob);
		}
		drmModeFreeConnector(conn);
	}
}

/* ---- connector, CRTC, mode ------------------------------------------------- */

static char *
connector_name(const drmModeConnector *conn)
{
	const char *type = drmModeGetConnectorTypeName(conn->connector_type);
	return g_strdup_printf("%s-%u", type ? type : "Unknown", conn->connector_type_id);
}

/* A CRTC the connector can drive: its encoder's current one, else the first possible. */
static int
pick_crtc(int fd, drmModeRes *res, drmModeConnector *conn)
{
	for (int e = 0; e < conn->count_encoders; e++) {
		drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoders[e]);
		if (!enc)
			continue;
		int found = -1;
		for (int c = 0; c < res->count_crtcs && found < 0; c++) {
			if (enc->crtc_id == res->crtcs[c] || (!enc->crtc_id && (enc->possible_crtcs & (1u << c))))
				found = c;
		}
		drmModeFreeEncoder(enc);
		if (found >= 0)
			return found;
	}
	return -1;
}

static bool
take_connector(struct umms_kms_device *device, drmModeRes *res, const char *wanted)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *conn = drmModeGetConnector(device->fd, res->connectors[i]);
		if (!conn)
			continue;
		char *name = connector_name(conn);
		bool ok = conn->connection == DRM_MODE_CONNECTED && conn->count_modes > 0 &&
			conn->connector_type != DRM_MODE_CONNECTOR_WRITEBACK &&
			(!wanted || strcmp(wanted, name) == 0);
		int crtc = ok ? pick_crtc(device->fd, res, conn) : -1;
		if (crtc >= 0) {
			device->connector_id = conn->connector_id;
			device->connector_name = name;
			device->crtc_index = crtc;
			device->crtc_id = res->crtcs[crtc];
			/* Preferred mode first. */
			device->n_modes = conn->count_modes;
			device->modes = g_new(drmModeModeInfo, conn->count_modes);
			int n = 0;
			for (int m = 0; m < conn->count_modes; m++) {
				if (conn->modes[m].type & DRM_MODE_TYPE_PREFERRED)
					device->modes[n++] = conn->modes[m];
			}
			for (int m = 0; m < conn->count_modes; m++) {
				if (!(conn->modes[m].type & DRM_MODE_TYPE_PREFERRED))
					device->modes[n++] = conn->modes[m];
			}
			drmModeFreeConnector(conn);
			return true;
		}
		g_free(name);
		drmModeFreeConnector(conn);
	}
	return false;
}

static void
load_output_props(struct umms_kms_device *device)
{
	const char *conn_names[] = { "CRTC_ID", "link-status", "left margin", "top margin",
		"right margin", "bottom margin" };
	uint32_t *conn_ids[] = { &device->connector_props.crtc_id,
		&device->connector_props.link_status, &device->connector_props.margin[0],
		&device->connector_props.margin[1], &device->connector_props.margin[2],
		&device->connector_props.margin[3] };
	find_props(device->fd, device->connector_id, DRM_MODE_OBJECT_CONNECTOR, conn_names,
		conn_ids, G_N_ELEMENTS(conn_names), NULL);
	const char *crtc_names[] = { "MODE_ID", "ACTIVE" };
	uint32_t *crtc_ids[] = { &device->crtc_props.mode_id, &device->crtc_props.active };
	find_props(device->fd, device->crtc_id, DRM_MODE_OBJECT_CRTC, crtc_names, crtc_ids, 2, NULL);
}

/* ---- modes ----------------------------------------------------------------- */

double
umms_kms_mode_refresh(const drmModeModeInfo *mode)
{
	if (!mode->htotal || !mode->vtotal)
		return mode->vrefresh;
	double hz = mode->clock * 1000.0 / ((double)mode->htotal * mode->vtotal);
	if (mode->flags & DRM_MODE_FLAG_INTERLACE)
		hz *= 2;
	if (mode->flags & DRM_MODE_FLAG_DBLSCAN)
		hz /= 2;
	return hz;
}

char *
umms_kms_mode_describe(const drmModeModeInfo *mode)
{
	return g_strdup_printf("%ux%u@%.2f", mode->hdisplay, mode->vdisplay,
		umms_kms_mode_refresh(mode));
}

bool
umms_kms_device_find_mode(struct umms_kms_device *device, const char *text,
	drmModeModeInfo *out, GError **error)
{
	unsigned w = 0, h = 0;
	double hz = 0;
	char tail = 0;
	int n = sscanf(text, "%ux%u@%lf%c", &w, &h, &hz, &tail);
	if (n < 2 || n == 4 || (n == 2 && strchr(text, '@'))) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"mode \"%s\": expected WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", text);
		return false;
	}
	/* The closest rate among modes of that size: 23.976 and 24 stay apart. */
	int best = -1;
	double best_diff = 0;
	for (int i = 0; i < device->n_modes; i++) {
		const drmModeModeInfo *m = &device->modes[i];
		if (m->hdisplay != w || m->vdisplay != h)
			continue;
		double diff = n == 3 ? fabs(umms_kms_mode_refresh(m) - hz) : 0;
		if (best < 0 || diff < best_diff) {
			best = i;
			best_diff = diff;
		}
	}
	if (best < 0 || best_diff > 0.01) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"mode %s: %s has no such mode", text, device->connector_name);
		return false;
	}
	*out = device->modes[best];
	return true;
}

int
umms_kms_match_refresh(const drmModeModeInfo *modes, int n, const drmModeModeInfo *current,
	double fps)
{
	static const double multiples[] = { 1.0, 2.0, 2.5 };
	if (fps <= 0)
		return -1;
	for (size_t k = 0; k < G_N_ELEMENTS(multiples); k++) {
		double want = fps * multiples[k];
		/* The current mode wins a tie: no switch for nothing. */
		if (fabs(umms_kms_mode_refresh(current) - want) < 0.005 * multiples[k]) {
			for (int i = 0; i < n; i++) {
				if (memcmp(&modes[i], current, sizeof(*current)) == 0)
					return i;
			}
		}
		for (int i = 0; i < n; i++) {
			if (modes[i].hdisplay != current->hdisplay ||
					modes[i].vdisplay != current->vdisplay ||
					(modes[i].flags & DRM_MODE_FLAG_INTERLACE))
				continue;
			if (fabs(umms_kms_mode_refresh(&modes[i]) - want) < 0.005 * multiples[k])
				return i;
		}
	}
	return -1;
}

/* ---- the device ---------------------------------------------------------- */

static bool
try_device(struct umms_kms_device *device, const char *path, const char *connector,
	GError **error)
{
	if (device->opener.open) {
		device->fd = device->opener.open(device->opener.data, path, error);
		if (device->fd < 0)
			return false;
	} else if ((device->fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "%s: %s", path,
			g_strerror(errno));
		return false;
	}
	device->path = g_strdup(path);
	drmVersion *version = drmGetVersion(device->fd);
	device->driver = g_strdup(version ? version->name : "unknown");
	if (version)
		drmFreeVersion(version);
	if (drmSetClientCap(device->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) != 0 ||
			drmSetClientCap(device->fd, DRM_CLIENT_CAP_ATOMIC, 1) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s (%s): no atomic modesetting", path, device->driver);
		return false;
	}
	drmSetClientCap(device->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1);
	drmModeRes *res = drmModeGetResources(device->fd);
	if (!res) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"%s (%s): not a display device", path, device->driver);
		return false;
	}
	if (connector && !*connector)
		connector = NULL;
	bool found = take_connector(device, res, connector);
	if (found)
		load_writeback(device, res);
	drmModeFreeResources(res);
	if (!found) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND, connector ?
			"%s (%s): no connected connector named %s" :
			"%s (%s): no screen connected", path, device->driver, connector);
		return false;
	}
	/* Opening as the only client makes us master; anyone else holding it is a display server. */
	if (!drmIsMaster(device->fd) && drmSetMaster(device->fd) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"%s: device busy: held by another display server", path);
		return false;
	}
	load_output_props(device);
	load_planes(device);
	return true;
}

static void
device_reset(struct umms_kms_device *device)
{
	if (device->fd >= 0 && device->opener.close)
		device->opener.close(device->opener.data, device->fd);
	else if (device->fd >= 0)
		close(device->fd);
	for (int i = 0; i < device->n_planes; i++)
		g_free(device->planes[i].formats);
	g_free(device->planes);
	g_free(device->modes);
	g_free(device->path);
	g_free(device->driver);
	g_free(device->connector_name);
	g_free(device->writeback_formats);
	*device = (struct umms_kms_device){ .fd = -1, .opener = device->opener };
}

struct umms_kms_device *
umms_kms_device_open(const char *path, const char *connector, const char *mode,
	const struct umms_kms_opener *opener, GError **error)
{
	struct umms_kms_device *device = g_new0(struct umms_kms_device, 1);
	device->fd = -1;
	if (opener)
		device->opener = *opener;
	if (path && *path) {
		if (!try_device(device, path, connector, error))
			goto fail;
	} else {
		GError *first = NULL;
		bool ok = false;
		for (int i = 0; i < 16 && !ok; i++) {
			g_autofree char *card = g_strdup_printf("/dev/dri/card%d", i);
			if (access(card, F_OK) != 0)
				continue;
			GError *err = NULL;
			ok = try_device(device, card, connector, &err);
			if (!ok) {
				umms_debug("%s", err->message);
				if (!first || err->code == UMMS_ERROR_NO_RESOURCE)
					g_clear_error(&first), first = err;
				else
					g_error_free(err);
				device_reset(device);
			}
		}
		if (!ok) {
			if (first)
				g_propagate_error(error, first);
			else
				g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
					"no display device (/dev/dri/card*)");
			goto fail;
		}
		g_clear_error(&first);
	}
	if (mode && *mode) {
		if (!umms_kms_device_find_mode(device, mode, &device->mode, error))
			goto fail;
	} else {
		device->mode = device->modes[0];
	}
	char *desc = umms_kms_mode_describe(&device->mode);
	umms_info("display: %s (%s), %s, %s, %d planes%s", device->path, device->driver,
		device->connector_name, desc, device->n_planes,
		device->writeback_id ? ", writeback" : "");
	g_free(desc);
	return device;
fail:
	umms_kms_device_close(device);
	return NULL;
}

void
umms_kms_device_close(struct umms_kms_device *device)
{
	if (!device)
		return;
	device_reset(device);
	g_free(device);
}

bool
umms_kms_fourcc_name(uint32_t fourcc, char buf[5])
{
	bool printable = true;
	for (int i = 0; i < 4; i++) {
		char c = (char)((fourcc >> (8 * i)) & 0xff);
		printable &= c >= ' ' && c <= '~';
		buf[i] = c >= ' ' && c <= '~' ? c : '?';
	}
	buf[4] = 0;
	return printable;
}

bool
umms_kms_plane_has_format(const struct umms_kms_plane *plane, uint32_t format)
{
	for (uint32_t i = 0; i < plane->n_formats; i++) {
		if (plane->formats[i] == format)
			return true;
	}
	return false;
}

const char *
umms_kms_plane_type_name(enum umms_kms_plane_type type)
{
	switch (type) {
	case UMMS_KMS_PLANE_PRIMARY:
		return "primary";
	case UMMS_KMS_PLANE_CURSOR:
		return "cursor";
	case UMMS_KMS_PLANE_OVERLAY:
		break;
	}
	return "overlay";
}
