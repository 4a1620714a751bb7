/* A source of raw video in dma-buf memory, for tests (dmabuf-src.h). */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gst/allocators/allocators.h>
#include <gst/base/base.h>
#include <gst/video/video.h>

#include "dmabuf-src.h"

#define FPS 10
#define FRAMES (10 * FPS)
#define STRIDE (UMMS_TEST_DMABUF_W * 4)
#define SIZE ((gsize)STRIDE * UMMS_TEST_DMABUF_H)

typedef struct {
	GstPushSrc parent;
	GstAllocator *allocator;
	unsigned frame;
} UmmsDmabufSrc;

typedef struct {
	GstPushSrcClass parent_class;
} UmmsDmabufSrcClass;

static GType umms_dmabuf_src_get_type(void);
static void uri_handler_init(gpointer iface, gpointer data);
G_DEFINE_TYPE_WITH_CODE(UmmsDmabufSrc, umms_dmabuf_src, GST_TYPE_PUSH_SRC,
	G_IMPLEMENT_INTERFACE(GST_TYPE_URI_HANDLER, uri_handler_init))

#define CAPS "video/x-raw, format = (string) BGRx, width = (int) 64, height = (int) 48, " \
	"framerate = (fraction) 10/1, pixel-aspect-ratio = (fraction) 1/1"

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC,
	GST_PAD_ALWAYS, GST_STATIC_CAPS(CAPS));

/* A frame in a memfd of its own, all UMMS_TEST_DMABUF_RGB, as dma-buf memory. */
static GstFlowReturn
dmabuf_src_create(GstPushSrc *push, GstBuffer **out)
{
	UmmsDmabufSrc *self = (UmmsDmabufSrc *)push;
	if (self->frame >= FRAMES)
		return GST_FLOW_EOS;
	int fd = memfd_create("umms-test-dmabuf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)SIZE) < 0) {
		if (fd >= 0)
			close(fd);
		return GST_FLOW_ERROR;
	}
	guint32 *pixels = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pixels == MAP_FAILED) {
		close(fd);
		return GST_FLOW_ERROR;
	}
	for (gsize i = 0; i < SIZE / 4; i++)
		pixels[i] = GUINT32_TO_LE(0xff000000u | UMMS_TEST_DMABUF_RGB);
	munmap(pixels, SIZE);
	GstBuffer *buffer = gst_buffer_new();
	gst_buffer_append_memory(buffer, gst_dmabuf_allocator_alloc(self->allocator, fd, SIZE));
	gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
	gint stride[GST_VIDEO_MAX_PLANES] = { STRIDE };
	gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_BGRx,
		UMMS_TEST_DMABUF_W, UMMS_TEST_DMABUF_H, 1, offset, stride);
	GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(self->frame, GST_SECOND, FPS);
	GST_BUFFER_DURATION(buffer) = GST_SECOND / FPS;
	self->frame++;
	*out = buffer;
	return GST_FLOW_OK;
}

static gboolean
dmabuf_src_start(GstBaseSrc *base)
{
	((UmmsDmabufSrc *)base)->frame = 0;
	return TRUE;
}

static gboolean
dmabuf_src_query(GstBaseSrc *base, GstQuery *query)
{
	if (GST_QUERY_TYPE(query) == GST_QUERY_DURATION) {
		GstFormat format;
		gst_query_parse_duration(query, &format, NULL);
		if (format == GST_FORMAT_TIME) {
			gst_query_set_duration(query, format, (gint64)FRAMES * GST_SECOND / FPS);
			return TRUE;
		}
	}
	return GST_BASE_SRC_CLASS(umms_dmabuf_src_parent_class)->query(base, query);
}

static void
dmabuf_src_finalize(GObject *object)
{
	gst_object_unref(((UmmsDmabufSrc *)object)->allocator);
	G_OBJECT_CLASS(umms_dmabuf_src_parent_class)->finalize(object);
}

static void
umms_dmabuf_src_class_init(UmmsDmabufSrcClass *klass)
{
	GstElementClass *element = GST_ELEMENT_CLASS(klass);
	gst_element_class_add_static_pad_template(element, &src_template);
	gst_element_class_set_static_metadata(element, "dma-buf video source (umms tests)",
		"Source/Video", "Raw video in dma-buf memory, as hardware decoders give it", "umms");
	G_OBJECT_CLASS(klass)->finalize = dmabuf_src_finalize;
	GST_BASE_SRC_CLASS(klass)->start = dmabuf_src_start;
	GST_BASE_SRC_CLASS(klass)->query = dmabuf_src_query;
	GST_PUSH_SRC_CLASS(klass)->create = dmabuf_src_create;
}

static void
umms_dmabuf_src_init(UmmsDmabufSrc *self)
{
	self->allocator = gst_dmabuf_allocator_new();
	gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
}

static GstURIType
uri_get_type(GType type)
{
	return GST_URI_SRC;
}

static const gchar *const *
uri_get_protocols(GType type)
{
	static const gchar *const protocols[] = { "umms-dmabuf", NULL };
	return protocols;
}

static gchar *
uri_get_uri(GstURIHandler *handler)
{
	return g_strdup(UMMS_TEST_DMABUF_URI);
}

static gboolean
uri_set_uri(GstURIHandler *handler, const gchar *uri, GError **error)
{
	return g_str_has_prefix(uri, "umms-dmabuf://");
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

bool
umms_test_dmabuf_src_register(GstPlugin *plugin)
{
	return gst_element_register(plugin, "ummsdmabufsrc", GST_RANK_PRIMARY,
		umms_dmabuf_src_get_type());
}
