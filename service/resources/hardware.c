/* The hardware ummsd shares out, found and made into pools (hardware.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "engine.h"
#include "hardware.h"
#include "log.h"

/* Who counts an element's units: a probe, or nobody (NULL: one unit per element). */
static const char *
element_family(const struct umms_engine_decoder *d)
{
	if (strcmp(d->plugin, "va") == 0 || strcmp(d->plugin, "vaapi") == 0)
		return "va-api";
	if (strcmp(d->plugin, "video4linux2") == 0)
		return "v4l2";
	if (strcmp(d->plugin, "v4l2codecs") == 0)
		return "v4l2-stateless";
	return NULL;
}

void
umms_hardware_probe(struct umms_hardware *hw, const struct umms_config *config)
{
	umms_va_probe_run(&hw->va, config->resources.va_device);
	umms_v4l2_probe_run(&hw->v4l2, NULL);
	umms_dvb_probe_run(&hw->dvb, NULL);
	hw->elements = g_ptr_array_new_with_free_func((GDestroyNotify)umms_engine_decoder_free);
	hw->decoder_codecs = g_ptr_array_new_with_free_func(g_free);
	for (const struct umms_engine_impl *const *impl = umms_engines_list(); *impl; impl++) {
		if ((*impl)->list_hardware_decoders)
			(*impl)->list_hardware_decoders(hw->elements);
	}
	for (guint i = 0; i < hw->elements->len; i++) {
		const struct umms_engine_decoder *d = hw->elements->pdata[i];
		umms_info("hardware decoder %s (%s) for %s", d->element,
			*d->plugin ? d->plugin : "no plugin", d->codec);
	}
}

void
umms_hardware_finish(struct umms_hardware *hw)
{
	umms_va_probe_finish(&hw->va);
	umms_v4l2_probe_finish(&hw->v4l2);
	umms_dvb_probe_finish(&hw->dvb);
	if (hw->elements)
		g_ptr_array_unref(hw->elements);
	if (hw->decoder_codecs)
		g_ptr_array_unref(hw->decoder_codecs);
	*hw = (struct umms_hardware){ 0 };
}

bool
umms_hardware_has_element(const struct umms_hardware *hw, const char *codec)
{
	for (guint i = 0; i < hw->elements->len; i++) {
		const struct umms_engine_decoder *d = hw->elements->pdata[i];
		if (strcmp(d->codec, codec) == 0)
			return true;
	}
	return false;
}

static void
add_codec(GPtrArray *codecs, const char *codec)
{
	if (!g_ptr_array_find_with_equal_func(codecs, codec, g_str_equal, NULL))
		g_ptr_array_add(codecs, g_strdup(codec));
}

static GVariant *
strv_variant(GPtrArray *list)
{
	return g_variant_new_strv((const char *const *)list->pdata, (gssize)list->len);
}

/* The decoder pool of @codec; @configured: decoders.CODEC, -1 for auto. */
static void
make_decoder_pool(struct umms_hardware *hw, struct umms_resources *r, const char *codec,
	int configured)
{
	const struct umms_va_codec *va = umms_va_probe_find(&hw->va, codec);
	unsigned va_units = va ? 1 : 0;
	unsigned va_elements = 0, v4l2_elements = 0, stateless_elements = 0, other_units = 0;
	g_autoptr(GPtrArray) elements = g_ptr_array_new();
	g_autoptr(GPtrArray) plugins = g_ptr_array_new();
	g_autoptr(GPtrArray) devices = g_ptr_array_new();
	for (guint i = 0; i < hw->elements->len; i++) {
		const struct umms_engine_decoder *d = hw->elements->pdata[i];
		if (strcmp(d->codec, codec) != 0)
			continue;
		g_ptr_array_add(elements, d->element);
		const char *family = element_family(d);
		/*
		 * One unit per plugin and codec: NVDEC's nvh264dec and
		 * nvh264sldec are one engine. An element no plugin registered
		 * (the program's own) is one unit by itself.
		 */
		if (family) {
			if (strcmp(family, "va-api") == 0)
				va_elements++;
			else if (strcmp(family, "v4l2") == 0)
				v4l2_elements++;
			else
				stateless_elements++;
		} else if (!*d->plugin || !g_ptr_array_find_with_equal_func(plugins, d->plugin,
				g_str_equal, NULL)) {
			other_units++;
			g_ptr_array_add(plugins, d->plugin);
		}
	}
	/* Elements of a family whose probe found nothing (another device): one unit. */
	if (!va_units && va_elements)
		va_units = 1;
	/*
	 * V4L2: stateful decoder nodes count (video4linux2's elements drive
	 * them; with no element listed, what the probe found is all we know).
	 * A stateless node counts only where v4l2codecs has an element for the
	 * codec: video4linux2 cannot drive it, and GStreamer 1.22 has no
	 * stateless FWHT decoder, so vicodec's second decoder node is no unit.
	 */
	bool stateless = stateless_elements > 0;
	unsigned v4l2_units = umms_v4l2_probe_count(&hw->v4l2, codec, false);
	if (!v4l2_units)
		v4l2_units = v4l2_elements;
	if (stateless) {
		unsigned nodes = umms_v4l2_probe_count(&hw->v4l2, codec, true);
		v4l2_units += nodes ? nodes : 1;
	}
	int max_width = va ? va->max_width : 0, max_height = va ? va->max_height : 0;
	if (va)
		g_ptr_array_add(devices, hw->va.device);
	for (guint i = 0; i < hw->v4l2.devices->len; i++) {
		const struct umms_v4l2_device *d = hw->v4l2.devices->pdata[i];
		if (!umms_v4l2_device_decodes(d, codec, false) &&
				!(stateless && umms_v4l2_device_decodes(d, codec, true)))
			continue;
		g_ptr_array_add(devices, d->path);
		if (d->max_width * d->max_height > max_width * max_height) {
			max_width = d->max_width;
			max_height = d->max_height;
		}
	}
	unsigned found = va_units + v4l2_units + other_units;
	unsigned total = configured >= 0 ? (unsigned)configured : found;
	if (total == 0)
		return;
	GString *source = g_string_new(NULL);
	if (va_units)
		g_string_append(source, "va-api");
	if (v4l2_units)
		g_string_append_printf(source, "%sv4l2", source->len ? "," : "");
	if (other_units)
		g_string_append_printf(source, "%sgstreamer", source->len ? "," : "");
	if (!found)
		g_string_append(source, "configured");
	GVariantDict details;
	g_variant_dict_init(&details, NULL);
	g_variant_dict_insert_value(&details, "elements", strv_variant(elements));
	g_variant_dict_insert_value(&details, "devices", strv_variant(devices));
	struct umms_resource_pool_info info = { .hardware = found > 0,
		.max_width = max_width, .max_height = max_height, .source = source->str,
		.details = g_variant_dict_end(&details) };
	g_autofree char *kind = g_strdup_printf("decoder:%s", codec);
	umms_resources_set_pool(r, kind, total, &info);
	umms_info("resources: %s: %u unit%s (%s)", kind, total, total == 1 ? "" : "s",
		source->str);
	g_string_free(source, TRUE);
	add_codec(hw->decoder_codecs, codec);
}

static void
make_capture_pool(struct umms_resources *r, const struct umms_v4l2_device *d)
{
	GVariantDict details;
	g_variant_dict_init(&details, NULL);
	g_variant_dict_insert(&details, "device", "s", d->path);
	g_variant_dict_insert(&details, "name", "s", d->card);
	g_variant_dict_insert(&details, "driver", "s", d->driver);
	g_variant_dict_insert_value(&details, "formats", strv_variant(d->formats));
	g_variant_dict_insert_value(&details, "sizes", strv_variant(d->sizes));
	struct umms_resource_pool_info info = { .hardware = true, .max_width = d->max_width,
		.max_height = d->max_height, .source = "v4l2",
		.details = g_variant_dict_end(&details) };
	g_autofree char *kind = g_strdup_printf("capture:%s", d->path);
	umms_resources_set_pool(r, kind, 1, &info);
}

char *
umms_hardware_tuner_kind(const struct umms_dvb_frontend *fe)
{
	return g_strdup_printf("tuner:%s", fe->path);
}

static void
make_tuner_pool(struct umms_resources *r, const struct umms_dvb_frontend *fe)
{
	GVariantDict details;
	g_variant_dict_init(&details, NULL);
	g_variant_dict_insert(&details, "device", "s", fe->path);
	g_variant_dict_insert(&details, "name", "s", fe->name);
	g_variant_dict_insert(&details, "adapter", "u", fe->adapter);
	g_variant_dict_insert(&details, "frontend", "u", fe->frontend);
	g_variant_dict_insert_value(&details, "delivery-systems", strv_variant(fe->systems));
	struct umms_resource_pool_info info = { .hardware = true, .source = "dvb",
		.details = g_variant_dict_end(&details) };
	g_autofree char *kind = umms_hardware_tuner_kind(fe);
	umms_resources_set_pool(r, kind, 1, &info);
}

void
umms_hardware_make_pools(struct umms_hardware *hw, const struct umms_config *config,
	struct umms_resources *r)
{
	/* The configurable codecs, then any other one something decodes. */
	g_autoptr(GPtrArray) codecs = g_ptr_array_new_with_free_func(g_free);
	for (int i = 0; i < UMMS_RESOURCE_CODECS; i++)
		add_codec(codecs, umms_resource_codecs[i]);
	for (guint i = 0; i < hw->va.codecs->len; i++)
		add_codec(codecs, g_array_index(hw->va.codecs, struct umms_va_codec, i).codec);
	for (guint i = 0; i < hw->v4l2.devices->len; i++) {
		const struct umms_v4l2_device *d = hw->v4l2.devices->pdata[i];
		for (guint k = 0; d->m2m && k < d->codecs->len; k++)
			add_codec(codecs, d->codecs->pdata[k]);
	}
	for (guint i = 0; i < hw->elements->len; i++)
		add_codec(codecs, ((const struct umms_engine_decoder *)hw->elements->pdata[i])->codec);
	for (guint i = 0; i < codecs->len; i++) {
		int configured = -1;
		for (int k = 0; k < UMMS_RESOURCE_CODECS; k++) {
			if (strcmp(umms_resource_codecs[k], codecs->pdata[i]) == 0)
				configured = config->resources.decoders[k];
		}
		make_decoder_pool(hw, r, codecs->pdata[i], configured);
	}
	for (guint i = 0; i < hw->v4l2.devices->len; i++) {
		const struct umms_v4l2_device *d = hw->v4l2.devices->pdata[i];
		if (!d->m2m)
			make_capture_pool(r, d);
	}
	/* A table of hardware made by hand (the tests') may have no DVB probe. */
	for (guint i = 0; hw->dvb.frontends && i < hw->dvb.frontends->len; i++)
		make_tuner_pool(r, hw->dvb.frontends->pdata[i]);
}

char *
umms_hardware_capture_kind(const char *uri)
{
	if (!uri || !g_str_has_prefix(uri, "v4l2://"))
		return NULL;
	const char *device = uri + strlen("v4l2://");
	/* v4l2src's default device when the URI names none. */
	return g_strdup_printf("capture:%s", *device ? device : "/dev/video0");
}
