/* V4L2 probing (v4l2-probe.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/videodev2.h>

#include "log.h"
#include "v4l2-probe.h"

#define FOURCC(a, b, c, d) ((unsigned)(a) | ((unsigned)(b) << 8) | ((unsigned)(c) << 16) | \
	((unsigned)(d) << 24))

/*
 * Stateful formats (a whole stream: the driver parses it, GStreamer's
 * video4linux2 plugin drives the node) and stateless ones (one parsed
 * frame at a time, with its headers as controls: the v4l2codecs plugin).
 */
static const struct {
	unsigned fourcc;
	const char *codec;
	bool stateless;
} codecs[] = {
	{ FOURCC('H', '2', '6', '4'), "h264", false },
	{ FOURCC('A', 'V', 'C', '1'), "h264", false },
	{ FOURCC('S', '2', '6', '4'), "h264", true },
	{ FOURCC('H', 'E', 'V', 'C'), "hevc", false },
	{ FOURCC('S', '2', '6', '5'), "hevc", true },
	{ FOURCC('V', 'P', '8', '0'), "vp8", false },
	{ FOURCC('V', 'P', '8', 'F'), "vp8", true },
	{ FOURCC('V', 'P', '9', '0'), "vp9", false },
	{ FOURCC('V', 'P', '9', 'F'), "vp9", true },
	{ FOURCC('A', 'V', '0', '1'), "av1", false },
	{ FOURCC('A', 'V', '1', 'F'), "av1", true },
	{ FOURCC('M', 'P', 'G', '2'), "mpeg2", false },
	{ FOURCC('M', 'G', '2', 'S'), "mpeg2", true },
	{ FOURCC('F', 'W', 'H', 'T'), "fwht", false },
	{ FOURCC('S', 'F', 'W', 'H'), "fwht", true },
};

static int
codec_index(unsigned fourcc)
{
	for (size_t i = 0; i < G_N_ELEMENTS(codecs); i++) {
		if (codecs[i].fourcc == fourcc)
			return (int)i;
	}
	return -1;
}

const char *
umms_v4l2_codec_name(unsigned fourcc)
{
	int i = codec_index(fourcc);
	return i >= 0 ? codecs[i].codec : NULL;
}

bool
umms_v4l2_codec_stateless(unsigned fourcc)
{
	int i = codec_index(fourcc);
	return i >= 0 && codecs[i].stateless;
}

static int
xioctl(int fd, unsigned long request, void *arg)
{
	int ret;
	do {
		ret = ioctl(fd, request, arg);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

static void
device_free(struct umms_v4l2_device *d)
{
	g_free(d->path);
	g_free(d->card);
	g_free(d->driver);
	g_ptr_array_unref(d->codecs);
	g_ptr_array_unref(d->formats);
	g_ptr_array_unref(d->sizes);
	g_free(d);
}

static void
add_unique(GPtrArray *list, char *text)
{
	if (g_ptr_array_find_with_equal_func(list, text, g_str_equal, NULL))
		g_free(text);
	else
		g_ptr_array_add(list, text);
}

/* The sizes of @fourcc, added to the device's list and its largest. */
static void
enum_sizes(struct umms_v4l2_device *d, int fd, unsigned fourcc)
{
	for (unsigned i = 0;; i++) {
		struct v4l2_frmsizeenum size = { .index = i, .pixel_format = fourcc };
		if (xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) < 0)
			return;
		unsigned w, h;
		if (size.type == V4L2_FRMSIZE_TYPE_DISCRETE) {
			w = size.discrete.width;
			h = size.discrete.height;
			add_unique(d->sizes, g_strdup_printf("%ux%u", w, h));
		} else {
			w = size.stepwise.max_width;
			h = size.stepwise.max_height;
			add_unique(d->sizes, g_strdup_printf("%ux%u-%ux%u", size.stepwise.min_width,
				size.stepwise.min_height, w, h));
		}
		if ((int)w * (int)h > d->max_width * d->max_height) {
			d->max_width = (int)w;
			d->max_height = (int)h;
		}
		if (size.type != V4L2_FRMSIZE_TYPE_DISCRETE)
			return;
	}
}

static char *
fourcc_text(unsigned fourcc)
{
	char text[5] = { (char)(fourcc & 0xff), (char)((fourcc >> 8) & 0xff),
		(char)((fourcc >> 16) & 0xff), (char)((fourcc >> 24) & 0x7f), 0 };
	return g_strchomp(g_strdup(text));
}

/* The formats of queue @type: decoders keep compressed ones, capture devices all. */
static void
enum_formats(struct umms_v4l2_device *d, int fd, unsigned type)
{
	for (unsigned i = 0;; i++) {
		struct v4l2_fmtdesc desc = { .index = i, .type = type };
		if (xioctl(fd, VIDIOC_ENUM_FMT, &desc) < 0)
			return;
		if (d->m2m) {
			const char *codec = umms_v4l2_codec_name(desc.pixelformat);
			if (!(desc.flags & V4L2_FMT_FLAG_COMPRESSED) || !codec)
				continue;
			/* A node is one or the other (vicodec's: /dev/videoN each). */
			d->stateless = umms_v4l2_codec_stateless(desc.pixelformat);
			add_unique(d->codecs, g_strdup(codec));
		} else {
			add_unique(d->formats, fourcc_text(desc.pixelformat));
		}
		enum_sizes(d, fd, desc.pixelformat);
	}
}

static struct umms_v4l2_device *
probe_device(const char *path)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		umms_debug("V4L2: cannot open %s: %s", path, g_strerror(errno));
		return NULL;
	}
	struct v4l2_capability cap = { 0 };
	if (xioctl(fd, VIDIOC_QUERYCAP, &cap) < 0) {
		umms_debug("V4L2: %s: VIDIOC_QUERYCAP: %s", path, g_strerror(errno));
		close(fd);
		return NULL;
	}
	/* What this node does, not what the whole driver does. */
	unsigned caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps :
		cap.capabilities;
	struct umms_v4l2_device *d = g_new0(struct umms_v4l2_device, 1);
	d->path = g_strdup(path);
	d->card = g_strndup((const char *)cap.card, sizeof(cap.card));
	d->driver = g_strndup((const char *)cap.driver, sizeof(cap.driver));
	d->codecs = g_ptr_array_new_with_free_func(g_free);
	d->formats = g_ptr_array_new_with_free_func(g_free);
	d->sizes = g_ptr_array_new_with_free_func(g_free);
	if (caps & (V4L2_CAP_VIDEO_M2M | V4L2_CAP_VIDEO_M2M_MPLANE)) {
		d->m2m = true;
		/* Compressed in on OUTPUT: a decoder (an encoder's are on CAPTURE). */
		enum_formats(d, fd, caps & V4L2_CAP_VIDEO_M2M_MPLANE ?
			V4L2_BUF_TYPE_VIDEO_OUTPUT_MPLANE : V4L2_BUF_TYPE_VIDEO_OUTPUT);
	} else if (caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)) {
		unsigned type = caps & V4L2_CAP_VIDEO_CAPTURE ? V4L2_BUF_TYPE_VIDEO_CAPTURE :
			V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
		enum_formats(d, fd, type);
		/*
		 * No ENUM_FRAMESIZES (an analogue input without a scaler: the
		 * size follows its standard): the size it captures now.
		 */
		struct v4l2_format format = { .type = type };
		if (d->sizes->len == 0 && xioctl(fd, VIDIOC_G_FMT, &format) == 0) {
			unsigned w = type == V4L2_BUF_TYPE_VIDEO_CAPTURE ? format.fmt.pix.width :
				format.fmt.pix_mp.width;
			unsigned h = type == V4L2_BUF_TYPE_VIDEO_CAPTURE ? format.fmt.pix.height :
				format.fmt.pix_mp.height;
			g_ptr_array_add(d->sizes, g_strdup_printf("%ux%u", w, h));
			d->max_width = (int)w;
			d->max_height = (int)h;
		}
	}
	close(fd);
	if (d->m2m ? d->codecs->len == 0 : d->formats->len == 0) {
		umms_debug("V4L2: %s (%s) is neither a decoder nor a capture device", path,
			d->card);
		device_free(d);
		return NULL;
	}
	return d;
}

static gint
compare_nodes(gconstpointer a, gconstpointer b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	long nx = strtol(x + strlen("video"), NULL, 10), ny = strtol(y + strlen("video"), NULL, 10);
	return nx < ny ? -1 : nx > ny;
}

void
umms_v4l2_probe_run(struct umms_v4l2_probe *probe, const char *dir)
{
	probe->devices = g_ptr_array_new_with_free_func((GDestroyNotify)device_free);
	if (!dir)
		dir = "/dev";
	g_autoptr(GDir) folder = g_dir_open(dir, 0, NULL);
	g_autoptr(GPtrArray) nodes = g_ptr_array_new_with_free_func(g_free);
	const char *name;
	while (folder && (name = g_dir_read_name(folder))) {
		if (g_str_has_prefix(name, "video") && g_ascii_isdigit(name[strlen("video")]))
			g_ptr_array_add(nodes, g_strdup(name));
	}
	g_ptr_array_sort(nodes, compare_nodes);
	for (guint i = 0; i < nodes->len; i++) {
		g_autofree char *path = g_build_filename(dir, nodes->pdata[i], NULL);
		struct umms_v4l2_device *d = probe_device(path);
		if (!d)
			continue;
		g_ptr_array_add(probe->devices, d);
		GPtrArray *list = d->m2m ? d->codecs : d->formats;
		GString *what = g_string_new(NULL);
		for (guint k = 0; k < list->len; k++)
			g_string_append_printf(what, "%s%s", k ? "," : "", (char *)list->pdata[k]);
		umms_info("V4L2: %s (%s): %s %s, up to %dx%d", d->path, d->card,
			d->m2m ? (d->stateless ? "decodes (stateless)" : "decodes") : "captures",
			what->str, d->max_width, d->max_height);
		g_string_free(what, TRUE);
	}
}

void
umms_v4l2_probe_finish(struct umms_v4l2_probe *probe)
{
	if (probe->devices)
		g_ptr_array_unref(probe->devices);
	*probe = (struct umms_v4l2_probe){ 0 };
}

bool
umms_v4l2_device_decodes(const struct umms_v4l2_device *d, const char *codec, bool stateless)
{
	return d->m2m && d->stateless == stateless &&
		g_ptr_array_find_with_equal_func(d->codecs, codec, g_str_equal, NULL);
}

unsigned
umms_v4l2_probe_count(const struct umms_v4l2_probe *probe, const char *codec, bool stateless)
{
	unsigned n = 0;
	for (guint i = 0; i < probe->devices->len; i++)
		n += umms_v4l2_device_decodes(probe->devices->pdata[i], codec, stateless);
	return n;
}
