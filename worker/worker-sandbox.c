#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "worker-sandbox.h"

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

/* A device a hardware decoder would open read-write: a render node, a V4L2 codec. */
static bool
any_device(const char *folder, const char *prefix)
{
	g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
	const char *name;
	while (dir && (name = g_dir_read_name(dir)))
		if (g_str_has_prefix(name, prefix))
			return true;
	return false;
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
	struct umms_sandbox_policy policy = {
		.network = umms_ipc_uri_is_network(uri),
		.audio = sb->audio,
		.devices = sb->hardware && (any_device("/dev/dri", "renderD") ||
			any_device("/dev", "video")),
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
	umms_debug("worker: sandboxed (network %d, audio %d, devices %d, Landlock %d) "
		"in %.1f ms", policy.network, policy.audio, policy.devices, policy.landlock,
		(double)(g_get_monotonic_time() - start) / 1000);
	return true;
}

static bool
is_setting(uint32_t type)
{
	return type == UMMS_IPC_SET_VOLUME || type == UMMS_IPC_SET_VIDEO_OUTPUT ||
		type == UMMS_IPC_SET_VIDEO_DMABUF || type == UMMS_IPC_SET_VIDEO_DELAY ||
		type == UMMS_IPC_SET_SUBTITLE_DELAY || type == UMMS_IPC_SET_HARDWARE_CODECS;
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
