/*
 * A DRM/KMS device driven with the atomic API only: the card, the one
 * connector/CRTC/mode ummsd shows on, the property ids of every object it
 * sets (looked up once, at start), and the planes with their formats.
 *
 * umms_kms_device_open() fails with a sentence a person can act on: no
 * device, no connected screen, no atomic support, or "device busy: held by
 * another display server" when another process is DRM master.
 */
#ifndef UMMS_TARGETS_KMS_DEVICE_H
#define UMMS_TARGETS_KMS_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>
#include <xf86drmMode.h>

#include "kms.h"

enum umms_kms_plane_type {
	UMMS_KMS_PLANE_OVERLAY = DRM_PLANE_TYPE_OVERLAY,
	UMMS_KMS_PLANE_PRIMARY = DRM_PLANE_TYPE_PRIMARY,
	UMMS_KMS_PLANE_CURSOR = DRM_PLANE_TYPE_CURSOR,
};

/* Plane properties ummsd sets, by id (0: the plane has none). */
struct umms_kms_plane_props {
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
	uint32_t zpos;
};

struct umms_kms_plane {
	uint32_t id;
	enum umms_kms_plane_type type;
	uint32_t *formats;       /* DRM fourccs */
	uint32_t n_formats;
	bool has_zpos;
	uint64_t zpos;           /* its current (or only) zpos; by type otherwise */
	struct umms_kms_plane_props props;
};

struct umms_kms_device {
	int fd;
	struct umms_kms_opener opener;  /* how fd was opened, to close it */
	char *path;
	char *driver;
	uint32_t crtc_id;
	int crtc_index;
	uint32_t connector_id;
	char *connector_name;       /* "HDMI-A-1", "Virtual-1" */
	drmModeModeInfo *modes;     /* the connector's, preferred first */
	int n_modes;
	drmModeModeInfo mode;       /* in use */
	struct {
		uint32_t crtc_id, link_status;
		uint32_t margin[4];      /* left, top, right, bottom: TV margin properties */
	} connector_props;
	struct {
		uint32_t mode_id, active;
	} crtc_props;
	struct umms_kms_plane *planes;
	int n_planes;
	/* A writeback connector on the same CRTC, or 0. */
	uint32_t writeback_id;
	struct {
		uint32_t crtc_id, fb_id, out_fence_ptr;
	} writeback_props;
	uint32_t *writeback_formats;
	uint32_t n_writeback_formats;
};

/*
 * Opens @path (NULL: the first card with a connected connector) with
 * @opener (NULL: open()), takes a connector (@connector names one, NULL:
 * the first connected) and a mode (@mode "WxH" or "WxH@Hz", NULL: the
 * preferred one). Nothing is committed.
 */
struct umms_kms_device *umms_kms_device_open(const char *path, const char *connector,
	const char *mode, const struct umms_kms_opener *opener, GError **error);
void umms_kms_device_close(struct umms_kms_device *device);

/* Finds a mode: "WxH" or "WxH@Hz" (Hz may have decimals: 23.976). */
bool umms_kms_device_find_mode(struct umms_kms_device *device, const char *text,
	drmModeModeInfo *out, GError **error);
/* "1920x1080@60.00": mode names for people and D-Bus; free with g_free. */
char *umms_kms_mode_describe(const drmModeModeInfo *mode);
/* The refresh rate in Hz from the timings (exact, not the rounded vrefresh). */
double umms_kms_mode_refresh(const drmModeModeInfo *mode);

/*
 * Refresh-rate matching: among @modes of @current's size, the one whose
 * rate shows @fps frames per second evenly: the same rate first, then
 * twice it, then 2.5 times (24 fps on 60 Hz is what matching avoids).
 * Rates must agree within 0.005 Hz per frame of the multiple, so 23.976
 * and 24 are told apart. -1 if none does; @current itself if it matches.
 */
int umms_kms_match_refresh(const drmModeModeInfo *modes, int n, const drmModeModeInfo *current,
	double fps);

/*
 * A fourcc as its four letters ("XR24") in @buf; false if it has bytes
 * that are not printable ASCII (each shown as '?').
 */
bool umms_kms_fourcc_name(uint32_t fourcc, char buf[5]);

bool umms_kms_plane_has_format(const struct umms_kms_plane *plane, uint32_t format);
const char *umms_kms_plane_type_name(enum umms_kms_plane_type type);

#endif
