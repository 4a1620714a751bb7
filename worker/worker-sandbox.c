#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "worker-sandbox.h"

#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "error.h"
#include "log.h"
#include "landlock.h"
#include "sandbox.h"

void
umms_worker_sandbox_init(struct umms_worker_sandbox *sb, const struct umms_config *config)
{
	*sb = (struct umms_worker_sandbox){
		.enabled = config->engine.sandbox,
		.hardware = true,
		.audio = config->engine.audio_output != UMMS_AUDIO_NONE,
		.landlock = config->engine.landlock,
		.allow = (const char *const *)config->engine.sandbox_elements,
	};
}

void
umms_worker_sandbox_free_settings(GArray *settings)
{
	if (!settings)
		return;
	for (guint i = 0; i < settings->len; i++)
		g_free(g_array_index(settings, struct umms_ipc_message, i).payload);
	g_array_free(settings, TRUE);
}

void
umms_worker_sandbox_finish(struct umms_worker_sandbox *sb)
{
	g_clear_error(&sb->error);
	umms_worker_sandbox_free_settings(umms_worker_sandbox_take_settings(sb));
}

bool
umms_worker_sandbox_rank(struct umms_worker_sandbox *sb, GError **error)
{
	if (sb->ranked || !sb->enabled)
		return true;
	gint64 start = g_get_monotonic_time();
	if (!umms_sandbox_rank_plugins(sb->allow, error))
		return false;
	sb->ranked = true;
	umms_debug("worker: plugin ranks in %.0f ms",
		(double)(g_get_monotonic_time() - start) / 1000);
	return true;
}

/* Linux's character device majors of DRM, V4L2 and DVB nodes. */
#define DRM_MAJOR 226
#define V4L2_MAJOR 81
#define DVB_MAJOR 212

static bool
is_node(const char *path, unsigned want_major)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == want_major;
}

/* Whether V4L2 node @path is a memory-to-memory device (a codec), not a camera. */
static bool
is_m2m(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct v4l2_capability cap = { 0 };
	bool m2m = false;
	if (ioctl(fd, VIDIOC_QUERYCAP, &cap) == 0) {
		uint32_t caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
			cap.capabilities;
		m2m = caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE);
	}
	close(fd);
	return m2m;
}

/*
 * The nodes a hardware decoder opens read-write itself: render nodes
 * (VA-API) and V4L2 memory-to-memory devices (v4l2*dec), not cameras.
 */
static void
add_decoder_nodes(GPtrArray *nodes)
{
	static const struct {
		const char *folder, *prefix;
		unsigned major;
	} kinds[] = {
		{ "/dev/dri", "renderD", DRM_MAJOR },
		{ "/dev", "video", V4L2_MAJOR },
	};
	for (size_t k = 0; k < G_N_ELEMENTS(kinds); k++) {
		g_autoptr(GDir) dir = g_dir_open(kinds[k].folder, 0, NULL);
		const char *name;
		while (dir && (name = g_dir_read_name(dir))) {
			if (!g_str_has_prefix(name, kinds[k].prefix))
				continue;
			char *path = g_build_filename(kinds[k].folder, name, NULL);
			if (is_node(path, kinds[k].major) &&
					(kinds[k].major != V4L2_MAJOR || is_m2m(path)))
				g_ptr_array_add(nodes, path);
			else
				g_free(path);
		}
	}
}

/*
 * The capture device a v4l2:// URI names, as v4l2src reads it (the rest
 * of the URI; /dev/video0 when empty), if it is a V4L2 node: the URI is
 * the client's, and names no other file.
 */
static void
add_capture_node(GPtrArray *nodes, const char *uri)
{
	g_autofree char *scheme = uri ? g_uri_parse_scheme(uri) : NULL;
	if (!scheme || g_ascii_strcasecmp(scheme, "v4l2") != 0 || !g_str_has_prefix(uri + 4, "://"))
		return;
	const char *device = uri + strlen("v4l2://");
	if (!*device)
		device = "/dev/video0";
	if (is_node(device, V4L2_MAJOR))
		g_ptr_array_add(nodes, g_strdup(device));
}

/*
 * The tuner a dvb:// URI names (ummsd put its adapter and frontend in the
 * query, engines/gstreamer/gst-dvb.c): its frontend, demux and dvr nodes,
 * which dvbsrc opens read-write. No other DVB node. True when there is one.
 */
static bool
add_dvb_nodes(GPtrArray *nodes, const char *uri)
{
	g_autofree char *scheme = uri ? g_uri_parse_scheme(uri) : NULL;
	if (!scheme || g_ascii_strcasecmp(scheme, "dvb") != 0)
		return false;
	g_autoptr(GUri) parsed = g_uri_parse(uri, G_URI_FLAGS_ENCODED_QUERY, NULL);
	const char *query = parsed ? g_uri_get_query(parsed) : NULL;
	g_autoptr(GHashTable) params = query ? g_uri_parse_params(query, -1, "&",
		G_URI_PARAMS_NONE, NULL) : NULL;
	const char *adapter = params ? g_hash_table_lookup(params, "adapter") : "0";
	const char *frontend = params ? g_hash_table_lookup(params, "frontend") : "0";
	if (!adapter)
		adapter = "0";
	if (!frontend)
		frontend = "0";
	/* Numbers only, as dvbbasebin takes them (0 to 16): no path in the URI. */
	if (strlen(adapter) > 2 || strlen(frontend) > 2 ||
			strspn(adapter, "0123456789") != strlen(adapter) ||
			strspn(frontend, "0123456789") != strlen(frontend))
		return false;
	bool any = false;
	static const char *const kinds[] = { "frontend", "demux", "dvr" };
	for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
		char *path = g_strdup_printf("/dev/dvb/adapter%s/%s%s", adapter, kinds[i],
			frontend);
		if (is_node(path, DVB_MAJOR)) {
			g_ptr_array_add(nodes, path);
			any = true;
		} else {
			g_free(path);
		}
	}
	return any;
}

bool
umms_worker_sandbox_enter(struct umms_worker_sandbox *sb, int sock, int file,
	const char *uri, int media_fd, GError **error)
{
	if (sb->error) {
		*error = g_error_copy(sb->error);
		return false;
	}
	if (sb->entered || !sb->enabled)
		return true;
	g_autoptr(GError) local = NULL;
	const int keep[] = { sock, file };
	/* Capture is the media itself, whether hardware decoders are allowed or not. */
	g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func(g_free);
	add_capture_node(nodes, uri);
	bool dvb = add_dvb_nodes(nodes, uri);
	if (sb->hardware)
		add_decoder_nodes(nodes);
	guint n_nodes = nodes->len;
	g_ptr_array_add(nodes, NULL);
	struct umms_sandbox_policy policy = {
		.network = umms_ipc_uri_is_network(uri),
		.audio = sb->audio,
		.devices = n_nodes > 0,
		.dvb = dvb,
		.device_paths = (const char *const *)nodes->pdata,
		.max_fds = 1024,
		.keep_fds = keep,
		.n_keep = file >= 0 ? 2 : 1,
		.landlock = sb->landlock && umms_landlock_abi() > 0,
		.media_fds = &media_fd,
		.n_media = media_fd >= 0 ? 1 : 0,
	};
	/* ummsd said it once already (umms_proxy_landlock). */
	if (!policy.landlock)
		umms_debug("worker: no Landlock (%s): every readable file can be opened",
			sb->landlock ? "the kernel has none" : "[engine] landlock = false");
	gint64 start = g_get_monotonic_time();
	if (!umms_worker_sandbox_rank(sb, &local) || !umms_sandbox_enter(&policy, &local)) {
		/* Part of it may be in force: this worker serves nothing more. */
		sb->error = g_error_new(UMMS_ERROR, UMMS_ERROR_FAILED,
			"the engine's sandbox could not be set up: %s", local->message);
		umms_warn("worker: %s", sb->error->message);
		*error = g_error_copy(sb->error);
		return false;
	}
	sb->entered = true;
	umms_debug("worker: sandboxed (network %d, audio %d, devices %u, Landlock %d) "
		"in %.1f ms", policy.network, policy.audio, n_nodes, policy.landlock,
		(double)(g_get_monotonic_time() - start) / 1000);
	return true;
}

static bool
is_setting(uint32_t type)
{
	return type == UMMS_IPC_SET_VOLUME || type == UMMS_IPC_SET_VIDEO_OUTPUT ||
		type == UMMS_IPC_SET_VIDEO_DMABUF || type == UMMS_IPC_SET_VIDEO_DELAY ||
		type == UMMS_IPC_SET_SUBTITLE_DELAY || type == UMMS_IPC_SET_HARDWARE_CODECS ||
		type == UMMS_IPC_SET_BLOCKED || type == UMMS_IPC_SET_VIDEO_SIZE;
}

void
umms_worker_sandbox_keep(struct umms_worker_sandbox *sb, const struct umms_ipc_message *message)
{
	if (sb->entered || !sb->enabled || !is_setting(message->header.type))
		return;
	if (!sb->settings)
		sb->settings = g_array_new(FALSE, TRUE, sizeof(struct umms_ipc_message));
	struct umms_ipc_message copy = { .header = message->header };
	copy.payload = g_memdup2(message->payload, message->header.length);
	g_array_append_val(sb->settings, copy);
}

GArray *
umms_worker_sandbox_take_settings(struct umms_worker_sandbox *sb)
{
	GArray *settings = sb->settings;
	sb->settings = NULL;
	return settings;
}
