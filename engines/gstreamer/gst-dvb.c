/*
 * dvb:// in the engine: a bin of ours, "ummsdvbsrc", the dvb:// source
 * (ranked above GStreamer's dvbbasebin, whose own handler reads a
 * channels.conf from a file named by an environment variable or in the
 * user's folder, neither of which a sandboxed worker has), holding a
 * dvbbasebin tuned as ummsd says.
 *
 * ummsd (service/dvb/) resolves the channel a client names, picks a free
 * tuner and hands the engine the URI with the tuning in its query:
 *
 *   dvb://NAME?adapter=0&frontend=0&delsys=3&frequency=474000000&program-numbers=2176…
 *
 * each key a dvbbasebin property, each value a number (an enum's by its
 * value: GStreamer's DVB enums are the kernel's), or for polarity one of
 * H, V, L, R. A key we do not know, a value that is not that, or a URI
 * without a frequency (a client's dvb:// that ummsd did not resolve) is
 * refused: nothing of the URI reaches dvbbasebin unchecked. Its "src"
 * pad, the programs asked for with the PAT, SDT, NIT and EIT, is ours.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <stdlib.h>
#include <string.h>

#include "gst-private.h"
#include "log.h"

#define FACTORY_NAME "ummsdvbsrc"

/* dvbbasebin's properties the query may set. */
static const char *const settable[] = {
	"adapter", "frontend", "delsys", "frequency", "bandwidth-hz", "modulation",
	"code-rate-hp", "code-rate-lp", "guard", "trans-mode", "hierarchy", "inversion",
	"symbol-rate", "polarity", "program-numbers", "pilot", "rolloff", "stream-id",
	"diseqc-source", "lnb-slof", "lnb-lof1", "lnb-lof2", "interleaving",
	NULL,
};

#define UMMS_TYPE_DVB_SRC umms_dvb_src_get_type()
G_DECLARE_FINAL_TYPE(UmmsDvbSrc, umms_dvb_src, UMMS, DVB_SRC, GstBin)

struct _UmmsDvbSrc {
	GstBin parent;
	GstElement *dvb;          /* dvbbasebin, or NULL when GStreamer has none */
	GstPad *src;
	char *uri;
};

static void uri_handler_init(gpointer iface, gpointer data);

G_DEFINE_TYPE_WITH_CODE(UmmsDvbSrc, umms_dvb_src, GST_TYPE_BIN,
	G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, uri_handler_init))

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src",
	GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/mpegts, systemstream = (boolean) true"));

static bool
is_number(const char *value, bool sign)
{
	if (sign && *value == '-')
		value++;
	size_t n = strspn(value, "0123456789");
	return n > 0 && n <= 10 && value[n] == '\0';
}

/* Sets @key of @dvb to @value after checking it against the property; false with @error. */
static bool
set_setting(GstElement *dvb, const char *key, const char *value, GError **error)
{
	if (!g_strv_contains(settable, key)) {
		g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
			"dvb://: no setting \"%s\"", key);
		return false;
	}
	GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(dvb), key);
	if (!spec)
		goto bad;
	if (strcmp(key, "polarity") == 0) {
		if (strlen(value) != 1 || !strchr("HVLRhvlr", value[0]))
			goto bad;
		g_object_set(dvb, key, value, NULL);
		return true;
	}
	if (strcmp(key, "program-numbers") == 0) {
		g_auto(GStrv) numbers = g_strsplit(value, ":", 0);
		for (char **n = numbers; *n; n++) {
			if (!is_number(*n, false) || strtoul(*n, NULL, 10) > 65535)
				goto bad;
		}
		g_object_set(dvb, key, value, NULL);
		return true;
	}
	if (!is_number(value, G_IS_PARAM_SPEC_INT(spec)))
		goto bad;
	GValue v = G_VALUE_INIT;
	g_value_init(&v, spec->value_type);
	if (G_IS_PARAM_SPEC_ENUM(spec)) {
		GEnumClass *klass = G_PARAM_SPEC_ENUM(spec)->enum_class;
		long n = strtol(value, NULL, 10);
		if (n < 0 || n > G_MAXINT || !g_enum_get_value(klass, (int)n))
			goto bad;
		g_value_set_enum(&v, (int)n);
	} else if (G_IS_PARAM_SPEC_UINT(spec)) {
		unsigned long n = strtoul(value, NULL, 10);
		if (n > G_MAXUINT)
			goto bad;
		g_value_set_uint(&v, (unsigned)n);
	} else if (G_IS_PARAM_SPEC_INT(spec)) {
		long n = strtol(value, NULL, 10);
		if (n < G_MININT || n > G_MAXINT)
			goto bad;
		g_value_set_int(&v, (int)n);
	} else {
		g_value_unset(&v);
		goto bad;
	}
	/* Out of the property's range: refused here, not clamped by GObject with a warning. */
	if (g_param_value_validate(spec, &v)) {
		g_value_unset(&v);
		goto bad;
	}
	g_object_set_property(G_OBJECT(dvb), key, &v);
	g_value_unset(&v);
	return true;
bad:
	g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
		"dvb://: \"%s\" is no value for %s", value, key);
	return false;
}

static bool
apply_uri(UmmsDvbSrc *self, const char *uri, GError **error)
{
	if (!self->dvb) {
		g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
			"no dvbbasebin (gstreamer1.0-plugins-bad): DVB is not played");
		return false;
	}
	g_autoptr(GUri) parsed = g_uri_parse(uri, G_URI_FLAGS_ENCODED_QUERY, error);
	if (!parsed)
		return false;
	const char *query = g_uri_get_query(parsed);
	g_autoptr(GHashTable) params = query ? g_uri_parse_params(query, -1, "&",
		G_URI_PARAMS_NONE, error) : NULL;
	if (query && !params)
		return false;
	if (!params || !g_hash_table_contains(params, "frequency")) {
		g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
			"%s: no tuning (a dvb:// channel is tuned by ummsd)", uri);
		return false;
	}
	GHashTableIter iter;
	const char *key, *value;
	g_hash_table_iter_init(&iter, params);
	while (g_hash_table_iter_next(&iter, (gpointer *)&key, (gpointer *)&value)) {
		if (!set_setting(self->dvb, key, value, error))
			return false;
	}
	return true;
}

static GstURIType
get_type(GType type)
{
	return GST_URI_SRC;
}

static const char *const *
get_protocols(GType type)
{
	static const char *const protocols[] = { "dvb", NULL };
	return protocols;
}

static char *
get_uri(GstURIHandler *handler)
{
	return g_strdup(UMMS_DVB_SRC(handler)->uri);
}

static gboolean
set_uri(GstURIHandler *handler, const char *uri, GError **error)
{
	UmmsDvbSrc *self = UMMS_DVB_SRC(handler);
	if (GST_STATE(self) > GST_STATE_READY) {
		g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
			"dvb://: the URI cannot change while playing");
		return FALSE;
	}
	if (!apply_uri(self, uri, error))
		return FALSE;
	g_free(self->uri);
	self->uri = g_strdup(uri);
	umms_debug("dvb: tuning %s", uri);
	return TRUE;
}

static void
uri_handler_init(gpointer iface, gpointer data)
{
	GstURIHandlerInterface *handler = iface;
	handler->get_type = get_type;
	handler->get_protocols = get_protocols;
	handler->get_uri = get_uri;
	handler->set_uri = set_uri;
}

static void
umms_dvb_src_init(UmmsDvbSrc *self)
{
	self->dvb = gst_element_factory_make("dvbbasebin", NULL);
	GstPad *target = NULL;
	if (self->dvb) {
		gst_bin_add(GST_BIN(self), self->dvb);
		target = gst_element_get_static_pad(self->dvb, "src");
	}
	GstPadTemplate *templ = gst_static_pad_template_get(&src_template);
	self->src = target ? gst_ghost_pad_new_from_template("src", target, templ) :
		gst_ghost_pad_new_no_target_from_template("src", templ);
	gst_object_unref(templ);
	if (target)
		gst_object_unref(target);
	gst_element_add_pad(GST_ELEMENT(self), self->src);
	/* A live source: playbin and the recorder treat it as one. */
	GST_OBJECT_FLAG_SET(self, GST_ELEMENT_FLAG_SOURCE);
}

static void
finalize(GObject *object)
{
	UmmsDvbSrc *self = UMMS_DVB_SRC(object);
	g_free(self->uri);
	G_OBJECT_CLASS(umms_dvb_src_parent_class)->finalize(object);
}

static void
umms_dvb_src_class_init(UmmsDvbSrcClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = finalize;
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	gst_element_class_add_static_pad_template(element_class, &src_template);
	gst_element_class_set_static_metadata(element_class, "umms DVB source",
		"Source/Video", "A DVB channel as ummsd tuned it, by dvbbasebin", "umms");
}

void
gst_dvb_register(void)
{
	GstElementFactory *dvb = gst_element_factory_find("dvbbasebin");
	if (!dvb) {
		umms_debug("no dvbbasebin (gstreamer1.0-plugins-bad): dvb:// is not played");
		return;
	}
	gst_object_unref(dvb);
	if (!gst_element_register(NULL, FACTORY_NAME, GST_RANK_PRIMARY, UMMS_TYPE_DVB_SRC))
		umms_warn("dvb: cannot register %s", FACTORY_NAME);
}
