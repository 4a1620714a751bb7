/*
 * A GStreamer plugin for tests/test-isolation.c only: ummsfaultsrc, the
 * source of umms-fault:// URIs. It makes raw video (320x240 at 25 frames/s,
 * so playbin plays it as it is) and, at its Nth frame (?after=N, default
 * 25: one second in), misbehaves as the URI's host says:
 *
 *   umms-fault://crash  raises SIGSEGV (its default action: the process dies)
 *   umms-fault://hang   blocks the process's main loop (the default main
 *                       context) for good, as a wedged demuxer callback would
 *   umms-fault://leak   from then on keeps 16 MB more of touched memory per
 *                       frame, without bound
 *   umms-fault://open?path=P  tries to open P (an absolute path) for
 *                       reading and fails playback with an error that says
 *                       what came of it: "open P: opened" or "open P:
 *                       <strerror>" (what a sandboxed worker may read)
 *
 * "&live" after the count makes it a live source, in real time even where
 * nothing syncs to the clock (a recording's muxer and file).
 *
 * It exists to be played in an engine worker process; played inside the
 * test's own process it would take the test down, as it should.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <gst/gst.h>

#define PACKAGE "umms-tests"

enum fault { FAULT_CRASH, FAULT_HANG, FAULT_LEAK, FAULT_OPEN };

typedef struct {
	GstBin parent;
	char *uri;
	char *path;             /* FAULT_OPEN */
	enum fault fault;
	guint after;
	guint frames;
	GstPad *ghost;
	GstElement *source;
} UmmsTestFaultSrc;

typedef struct {
	GstBinClass parent_class;
} UmmsTestFaultSrcClass;

GType umms_test_fault_src_get_type(void);
static void uri_handler_init(gpointer iface, gpointer data);

G_DEFINE_TYPE_WITH_CODE(UmmsTestFaultSrc, umms_test_fault_src, GST_TYPE_BIN,
	G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, uri_handler_init))

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw"));

static gboolean
hang_forever(gpointer data)
{
	for (;;)
		g_usleep(G_USEC_PER_SEC);
	return G_SOURCE_REMOVE;
}

static GstPadProbeReturn
frame_probe(GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
	UmmsTestFaultSrc *self = data;
	guint n = ++self->frames;
	if (n < self->after)
		return GST_PAD_PROBE_OK;
	switch (self->fault) {
	case FAULT_OPEN: {
		if (n != self->after)
			break;
		int fd = open(self->path, O_RDONLY | O_CLOEXEC);
		int err = errno;
		if (fd >= 0)
			close(fd);
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ,
			("open %s: %s", self->path, fd >= 0 ? "opened" : g_strerror(err)), (NULL));
		return GST_PAD_PROBE_DROP;
	}
	case FAULT_CRASH:
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		break;
	case FAULT_HANG:
		if (n == self->after)
			g_main_context_invoke(NULL, hang_forever, NULL);
		break;
	case FAULT_LEAK: {
		gsize size = 16 << 20;
		char *block = g_malloc(size);
		memset(block, (int)n, size);
		/* Kept for good: the point. */
		static GPtrArray *kept;
		if (!kept)
			kept = g_ptr_array_new();
		g_ptr_array_add(kept, block);
		break;
	}
	}
	return GST_PAD_PROBE_OK;
}

static void
umms_test_fault_src_init(UmmsTestFaultSrc *self)
{
	self->after = 25;
	GstElement *source = gst_element_factory_make("videotestsrc", NULL);
	GstElement *filter = gst_element_factory_make("capsfilter", NULL);
	GstCaps *caps = gst_caps_from_string(
		"video/x-raw,format=I420,width=320,height=240,framerate=25/1");
	g_object_set(filter, "caps", caps, NULL);
	gst_caps_unref(caps);
	self->source = source;
	gst_bin_add_many(GST_BIN(self), source, filter, NULL);
	gst_element_link(source, filter);
	GstPad *pad = gst_element_get_static_pad(filter, "src");
	gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, frame_probe, self, NULL);
	self->ghost = gst_ghost_pad_new_from_template("src", pad,
		gst_static_pad_template_get(&src_template));
	gst_object_unref(pad);
	gst_element_add_pad(GST_ELEMENT(self), self->ghost);
}

static void
finalize(GObject *object)
{
	g_free(((UmmsTestFaultSrc *)object)->uri);
	g_free(((UmmsTestFaultSrc *)object)->path);
	G_OBJECT_CLASS(umms_test_fault_src_parent_class)->finalize(object);
}

static void
umms_test_fault_src_class_init(UmmsTestFaultSrcClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = finalize;
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	gst_element_class_set_static_metadata(element_class, "umms test fault source",
		"Source/Video", "Raw video that ends in a crash, a hang or a leak", "umms");
	gst_element_class_add_static_pad_template(element_class, &src_template);
}

static GstURIType
uri_get_type(GType type)
{
	return GST_URI_SRC;
}

static const gchar *const *
uri_get_protocols(GType type)
{
	static const gchar *const protocols[] = { "umms-fault", NULL };
	return protocols;
}

static gchar *
uri_get_uri(GstURIHandler *handler)
{
	return g_strdup(((UmmsTestFaultSrc *)handler)->uri);
}

static gboolean
uri_set_uri(GstURIHandler *handler, const gchar *uri, GError **error)
{
	UmmsTestFaultSrc *self = (UmmsTestFaultSrc *)handler;
	GUri *parsed = g_uri_parse(uri, G_URI_FLAGS_NONE, error);
	if (!parsed)
		return FALSE;
	const char *host = g_uri_get_host(parsed);
	gboolean ok = TRUE;
	if (g_strcmp0(host, "crash") == 0)
		self->fault = FAULT_CRASH;
	else if (g_strcmp0(host, "hang") == 0)
		self->fault = FAULT_HANG;
	else if (g_strcmp0(host, "leak") == 0)
		self->fault = FAULT_LEAK;
	else if (g_strcmp0(host, "open") == 0)
		self->fault = FAULT_OPEN;
	else
		ok = FALSE;
	const char *query = g_uri_get_query(parsed);
	/* "after=N", "path=P" and a bare "live", joined by '&'. */
	g_auto(GStrv) params = query ? g_strsplit(query, "&", -1) : NULL;
	gboolean live = FALSE;
	g_free(self->path);
	self->path = NULL;
	for (guint i = 0; params && params[i]; i++) {
		const char *p = params[i];
		if (g_str_has_prefix(p, "after="))
			self->after = MAX(1, (guint)g_ascii_strtoull(p + 6, NULL, 10));
		else if (g_str_has_prefix(p, "path="))
			self->path = g_uri_unescape_string(p + 5, NULL);
		else if (strcmp(p, "live") == 0)
			live = TRUE;
	}
	g_object_set(self->source, "is-live", live, NULL);
	g_uri_unref(parsed);
	if (ok && self->fault == FAULT_OPEN && (!self->path || self->path[0] != '/'))
		ok = FALSE;
	if (!ok) {
		g_set_error(error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI, "no such fault: %s", uri);
		return FALSE;
	}
	g_free(self->uri);
	self->uri = g_strdup(uri);
	return TRUE;
}

static void
uri_handler_init(gpointer iface, gpointer data)
{
	GstURIHandlerInterface *handler = iface;
	handler->get_type = uri_get_type;
	handler->get_protocols = uri_get_protocols;
	handler->get_uri = uri_get_uri;
	handler->set_uri = uri_set_uri;
}

static gboolean
plugin_init(GstPlugin *plugin)
{
	return gst_element_register(plugin, "ummsfaultsrc", GST_RANK_PRIMARY,
		umms_test_fault_src_get_type());
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, ummstestfault,
	"Sources that crash, hang or leak (umms tests)", plugin_init, "1.0", "LGPL",
	"umms", "https://example.invalid/umms")
