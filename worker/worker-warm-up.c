/* A spare worker's warm-up (worker-warm-up.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>
#include <gst/gst.h>

#include "log.h"
#include "source.h"
#include "worker-warm-up.h"

static GPtrArray *
warm_up_list(void)
{
	GPtrArray *list = g_ptr_array_new_with_free_func(gst_object_unref);
	GList *features = gst_registry_get_feature_list(gst_registry_get(),
		GST_TYPE_ELEMENT_FACTORY);
	for (GList *l = features; l; l = l->next) {
		const char *klass = gst_element_factory_get_metadata(l->data,
			GST_ELEMENT_METADATA_KLASS);
		if (gst_plugin_feature_get_rank(l->data) < GST_RANK_PRIMARY || !klass ||
				strstr(klass, "Hardware") ||
				!(strstr(klass, "Demuxer") || strstr(klass, "Parser") ||
				strstr(klass, "Decoder")))
			continue;
		g_ptr_array_add(list, gst_object_ref(l->data));
	}
	gst_plugin_feature_list_free(features);
	return list;
}

static gboolean
warm_up_cb(gpointer data)
{
	struct umms_worker_warm_up *w = data;
	if (w->next >= w->list->len) {
		umms_debug("worker: warmed up %u elements in %.0f ms", w->list->len,
			(double)(g_get_monotonic_time() - w->start) / 1000);
		umms_source_forget(&w->source);
		return G_SOURCE_REMOVE;
	}
	GstPluginFeature *feature = gst_plugin_feature_load(w->list->pdata[w->next++]);
	if (feature) {
		GType type = gst_element_factory_get_element_type(GST_ELEMENT_FACTORY(feature));
		if (type)
			g_type_class_unref(g_type_class_ref(type));
		gst_object_unref(feature);
	}
	return G_SOURCE_CONTINUE;
}

void
umms_worker_warm_up_start(struct umms_worker_warm_up *w)
{
	umms_worker_warm_up_stop(w);
	w->list = warm_up_list();
	w->next = 0;
	w->start = g_get_monotonic_time();
	w->source = g_idle_source_new();
	g_source_set_priority(w->source, G_PRIORITY_LOW);
	g_source_set_callback(w->source, warm_up_cb, w, NULL);
	g_source_attach(w->source, NULL);
}

void
umms_worker_warm_up_stop(struct umms_worker_warm_up *w)
{
	umms_source_clear(&w->source);
	if (w->list)
		g_ptr_array_free(w->list, TRUE);
	w->list = NULL;
}
