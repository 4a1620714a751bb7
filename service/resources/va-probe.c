/* VA-API probing (va-probe.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <va/va.h>
#include <va/va_drm.h>

#include "log.h"
#include "va-probe.h"

static const char *
profile_codec(VAProfile profile)
{
	switch (profile) {
	case VAProfileH264ConstrainedBaseline:
	case VAProfileH264Main:
	case VAProfileH264High:
		return "h264";
	case VAProfileHEVCMain:
	case VAProfileHEVCMain10:
		return "hevc";
	case VAProfileVP8Version0_3:
		return "vp8";
	case VAProfileVP9Profile0:
	case VAProfileVP9Profile2:
		return "vp9";
	case VAProfileAV1Profile0:
		return "av1";
	case VAProfileMPEG2Simple:
	case VAProfileMPEG2Main:
		return "mpeg2";
	default:
		return NULL;
	}
}

static void
query(struct umms_va_probe *probe, VADisplay display, VAProfile profile, const char *codec)
{
	int n = vaMaxNumEntrypoints(display);
	g_autofree VAEntrypoint *entrypoints = g_new0(VAEntrypoint, (gsize)MAX(n, 1));
	if (vaQueryConfigEntrypoints(display, profile, entrypoints, &n) != VA_STATUS_SUCCESS)
		return;
	bool decodes = false;
	for (int i = 0; i < n; i++)
		decodes |= entrypoints[i] == VAEntrypointVLD;
	if (!decodes)
		return;
	struct umms_va_codec entry = { .codec = codec };
	VAConfigID config;
	if (vaCreateConfig(display, profile, VAEntrypointVLD, NULL, 0, &config) ==
			VA_STATUS_SUCCESS) {
		VAConfigAttrib attribs[2] = { { .type = VAConfigAttribMaxPictureWidth },
			{ .type = VAConfigAttribMaxPictureHeight } };
		if (vaGetConfigAttributes(display, profile, VAEntrypointVLD, attribs, 2) ==
				VA_STATUS_SUCCESS) {
			if (attribs[0].value != VA_ATTRIB_NOT_SUPPORTED)
				entry.max_width = (int)attribs[0].value;
			if (attribs[1].value != VA_ATTRIB_NOT_SUPPORTED)
				entry.max_height = (int)attribs[1].value;
		}
		vaDestroyConfig(display, config);
	}
	for (guint i = 0; i < probe->codecs->len; i++) {
		struct umms_va_codec *e = &g_array_index(probe->codecs, struct umms_va_codec, i);
		if (strcmp(e->codec, codec) == 0) {
			e->max_width = MAX(e->max_width, entry.max_width);
			e->max_height = MAX(e->max_height, entry.max_height);
			return;
		}
	}
	g_array_append_val(probe->codecs, entry);
}

/* Probes one render node; false (with the reason kept) when it has no usable driver. */
static bool
probe_device(struct umms_va_probe *probe, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		g_free(probe->why_none);
		probe->why_none = g_strdup_printf("cannot open %s: %s", path, g_strerror(errno));
		return false;
	}
	VADisplay display = vaGetDisplayDRM(fd);
	int major, minor;
	/* libva prints its driver search on stderr at info level: errors only. */
	if (display)
		vaSetInfoCallback(display, NULL, NULL);
	if (!display || vaInitialize(display, &major, &minor) != VA_STATUS_SUCCESS) {
		g_free(probe->why_none);
		probe->why_none = g_strdup_printf("no VA-API driver for %s", path);
		if (display)
			vaTerminate(display);
		close(fd);
		return false;
	}
	probe->device = g_strdup(path);
	probe->driver = g_strdup(vaQueryVendorString(display));
	int n = vaMaxNumProfiles(display);
	g_autofree VAProfile *profiles = g_new0(VAProfile, (gsize)MAX(n, 1));
	if (vaQueryConfigProfiles(display, profiles, &n) == VA_STATUS_SUCCESS) {
		for (int i = 0; i < n; i++) {
			const char *codec = profile_codec(profiles[i]);
			if (codec)
				query(probe, display, profiles[i], codec);
		}
	}
	vaTerminate(display);
	close(fd);
	return true;
}

void
umms_va_probe_run(struct umms_va_probe *probe, const char *device)
{
	*probe = (struct umms_va_probe){ .codecs = g_array_new(FALSE, FALSE,
		sizeof(struct umms_va_codec)) };
	if (device && *device) {
		probe_device(probe, device);
	} else {
		g_autoptr(GDir) dir = g_dir_open("/dev/dri", 0, NULL);
		const char *name;
		g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func(g_free);
		while (dir && (name = g_dir_read_name(dir))) {
			if (g_str_has_prefix(name, "renderD"))
				g_ptr_array_add(nodes, g_build_filename("/dev/dri", name, NULL));
		}
		g_ptr_array_sort(nodes, (GCompareFunc)g_strcmp0);
		for (guint i = 0; i < nodes->len && !probe->driver; i++)
			probe_device(probe, g_ptr_array_index(nodes, i));
		if (!probe->driver && !probe->why_none)
			probe->why_none = g_strdup("no render node (/dev/dri/renderD*)");
	}
	if (probe->driver) {
		g_clear_pointer(&probe->why_none, g_free);
		umms_info("VA-API: %s on %s, %u codecs decoded", probe->driver, probe->device,
			probe->codecs->len);
	} else {
		umms_info("VA-API: none (%s): software decoding", probe->why_none);
	}
}

void
umms_va_probe_finish(struct umms_va_probe *probe)
{
	g_free(probe->device);
	g_free(probe->driver);
	g_free(probe->why_none);
	if (probe->codecs)
		g_array_unref(probe->codecs);
	*probe = (struct umms_va_probe){ 0 };
}

const struct umms_va_codec *
umms_va_probe_find(const struct umms_va_probe *probe, const char *codec)
{
	for (guint i = 0; i < probe->codecs->len; i++) {
		const struct umms_va_codec *e = &g_array_index(probe->codecs, struct umms_va_codec, i);
		if (strcmp(e->codec, codec) == 0)
			return e;
	}
	return NULL;
}
