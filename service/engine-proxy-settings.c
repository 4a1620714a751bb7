/*
 * The settings an engine in a worker is told (engine-proxy-private.h):
 * kept in the proxy, sent now, and sent again to a fresh worker by
 * engine-proxy.c's send_settings.
 */
#include <math.h>

#include "engine-proxy-private.h"
#include "ipc.h"

void
umms_proxy_set_volume(struct umms_engine *base, double volume, bool mute)
{
	struct proxy *proxy = proxy_from(base);
	proxy->volume = isfinite(volume) ? volume : 1.0;
	proxy->mute = mute;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_f64(&w, proxy->volume);
	umms_ipc_put_u8(&w, mute);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VOLUME, &w);
}

bool
umms_proxy_set_video_output(struct umms_engine *base, bool wanted, const uint32_t *formats,
	size_t n, GError **error)
{
	struct proxy *proxy = proxy_from(base);
	n = MIN(n, UMMS_IPC_MAX_FORMATS);
	const struct umms_engine_impl *real = umms_engines_list()[0];
	if (wanted && real->check_video_output && !real->check_video_output(formats, n, error))
		return false;
	proxy->video_wanted = wanted;
	g_free(proxy->formats);
	proxy->formats = wanted ? g_memdup2(formats, n * sizeof(*formats)) : NULL;
	proxy->n_formats = wanted ? n : 0;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, wanted);
	umms_ipc_put_u32(&w, (uint32_t)proxy->n_formats);
	for (size_t i = 0; i < proxy->n_formats; i++)
		umms_ipc_put_u32(&w, proxy->formats[i]);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_OUTPUT, &w);
	return true;
}

void
umms_proxy_set_video_dmabuf(struct umms_engine *base, bool any,
	const struct umms_frame_dmabuf_format *formats, size_t n)
{
	struct proxy *proxy = proxy_from(base);
	n = MIN(n, UMMS_IPC_MAX_FORMATS);
	proxy->dmabuf_set = true;
	proxy->dmabuf_any = any;
	g_free(proxy->dmabuf);
	proxy->dmabuf = g_memdup2(formats, n * sizeof(*formats));
	proxy->n_dmabuf = n;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, any);
	umms_ipc_put_u32(&w, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		umms_ipc_put_u32(&w, formats[i].format);
		umms_ipc_put_u64(&w, formats[i].modifier);
	}
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_DMABUF, &w);
}

void
umms_proxy_set_video_size(struct umms_engine *base, unsigned max_width, unsigned max_height)
{
	struct proxy *proxy = proxy_from(base);
	proxy->max_width = MIN(max_width, UMMS_IPC_MAX_VIDEO_SIZE);
	proxy->max_height = MIN(max_height, UMMS_IPC_MAX_VIDEO_SIZE);
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u32(&w, proxy->max_width);
	umms_ipc_put_u32(&w, proxy->max_height);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_VIDEO_SIZE, &w);
}

/* A request whose one argument is a 64-bit integer. */
static void
send_i64(struct proxy *proxy, uint32_t type, int64_t value)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_i64(&w, value);
	umms_proxy_send_request(proxy, type, &w);
}

void
umms_proxy_set_video_delay(struct umms_engine *base, int64_t ns)
{
	struct proxy *proxy = proxy_from(base);
	proxy->video_delay = ns;
	send_i64(proxy, UMMS_IPC_SET_VIDEO_DELAY, ns);
}

void
umms_proxy_set_subtitle_delay(struct umms_engine *base, int64_t us)
{
	struct proxy *proxy = proxy_from(base);
	proxy->subtitle_delay = us;
	send_i64(proxy, UMMS_IPC_SET_SUBTITLE_DELAY, us);
}

void
umms_proxy_set_hardware_codecs(struct umms_engine *base, const char *const *codecs)
{
	struct proxy *proxy = proxy_from(base);
	g_strfreev(proxy->codecs);
	proxy->codecs = codecs ? g_strdupv((char **)codecs) : NULL;
	if (proxy->codecs && g_strv_length(proxy->codecs) > UMMS_IPC_MAX_CODECS)
		proxy->codecs[UMMS_IPC_MAX_CODECS] = (g_free(proxy->codecs[UMMS_IPC_MAX_CODECS]), NULL);
	proxy->codecs_set = true;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	int n = proxy->codecs ? (int)g_strv_length(proxy->codecs) : -1;
	umms_ipc_put_i32(&w, n);
	for (int i = 0; i < n; i++)
		umms_ipc_put_string(&w, proxy->codecs[i]);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_HARDWARE_CODECS, &w);
}

void
umms_proxy_set_blocked(struct umms_engine *base, bool blocked)
{
	struct proxy *proxy = proxy_from(base);
	proxy->blocked = blocked;
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, blocked);
	umms_proxy_send_request(proxy, UMMS_IPC_SET_BLOCKED, &w);
}

