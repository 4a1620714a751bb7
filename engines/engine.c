#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include "engine.h"
#include "gstreamer/gst-engine.h"
#include "error.h"
#include "log.h"

static const struct umms_engine_impl *const engines[] = {
	&umms_gst_engine_impl,
	NULL,
};

bool
umms_engine_error_is_lost(const GError *error)
{
	return error && (g_error_matches(error, UMMS_ERROR, UMMS_ERROR_ENGINE_CRASHED) ||
		g_error_matches(error, UMMS_ERROR, UMMS_ERROR_ENGINE_HUNG));
}

void
umms_engine_init(struct umms_engine *engine, const struct umms_engine_impl *impl)
{
	engine->impl = impl;
	engine->state = UMMS_ENGINE_IDLE;
	umms_media_info_init(&engine->info);
	wl_signal_init(&engine->events.settled);
	wl_signal_init(&engine->events.info);
	wl_signal_init(&engine->events.eos);
	wl_signal_init(&engine->events.error);
	wl_signal_init(&engine->events.frame);
	wl_signal_init(&engine->events.subtitle_cue);
	wl_signal_init(&engine->events.destroy);
	wl_signal_init(&engine->events.eit);
}

void
umms_engine_finish(struct umms_engine *engine)
{
	wl_signal_emit_mutable(&engine->events.destroy, engine);
	g_assert(wl_list_empty(&engine->events.settled.listener_list));
	g_assert(wl_list_empty(&engine->events.info.listener_list));
	g_assert(wl_list_empty(&engine->events.eos.listener_list));
	g_assert(wl_list_empty(&engine->events.error.listener_list));
	g_assert(wl_list_empty(&engine->events.frame.listener_list));
	umms_media_info_finish(&engine->info);
}

void
umms_engine_decoder_free(struct umms_engine_decoder *decoder)
{
	if (!decoder)
		return;
	g_free(decoder->element);
	g_free(decoder->codec);
	g_free(decoder->plugin);
	g_free(decoder);
}

bool
umms_engines_init(const struct umms_config *config, GError **error)
{
	for (const struct umms_engine_impl *const *impl = engines; *impl; impl++) {
		if ((*impl)->init && !(*impl)->init(config, error))
			return false;
	}
	return true;
}

void
umms_engines_finish(void)
{
	for (const struct umms_engine_impl *const *impl = engines; *impl; impl++) {
		if ((*impl)->finish)
			(*impl)->finish();
	}
}

const struct umms_engine_impl *const *
umms_engines_list(void)
{
	return engines;
}

const struct umms_engine_impl *
umms_engines_select(const char *uri, GError **error)
{
	GError *first = NULL;
	for (const struct umms_engine_impl *const *impl = engines; *impl; impl++) {
		GError *reason = NULL;
		if ((*impl)->probe_uri(uri, &reason)) {
			g_clear_error(&first);
			umms_debug("%s: engine %s", uri, (*impl)->name);
			return *impl;
		}
		if (!first)
			first = reason;
		else
			g_error_free(reason);
	}
	if (!first)
		first = g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_SUPPORTED,
			"no engine can play %s", uri);
	g_propagate_error(error, first);
	return NULL;
}
