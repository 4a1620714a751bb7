/*
 * gen-clips: vobsub.mkv and pgs.mkv, the blue picture of the other subtitle
 * clips (gen-clips-subs.c) with a DVD (VobSub) or Blu-ray (PGS) bitmap
 * subtitle track, written by the tests' own writers (spu-gen.h): no
 * GStreamer element encodes either.
 */
#include <string.h>

#include "gen-clips.h"
#include "spu-gen.h"

#define BITMAP_SECONDS 4
#define BITMAP_FPS GEN_BLUE_FPS
#define BITMAP_WIDTH GEN_BLUE_WIDTH
#define BITMAP_HEIGHT GEN_BLUE_HEIGHT

static bool
push(GstElement *src, const uint8_t *data, size_t size, unsigned ms, GError **error)
{
	if (size == 0) {
		g_set_error(error, GEN_ERROR, 0, "a subtitle does not fit its buffer");
		return false;
	}
	GstBuffer *buffer = gst_buffer_new_memdup(data, size);
	GST_BUFFER_PTS(buffer) = (GstClockTime)ms * GST_MSECOND;
	GstFlowReturn ret;
	g_signal_emit_by_name(src, "push-buffer", buffer, &ret);
	gst_buffer_unref(buffer);
	return ret == GST_FLOW_OK;
}

/* Runs @description, whose appsrc "spu" gets @fill's buffers, into job->tmp. */
static bool
write_clip(const struct job *job, const char *description, GstCaps *caps,
	bool (*fill)(GstElement *src, GError **error), GError **error)
{
	bool ok = false;
	GstElement *pipeline = launch(description, error);
	if (!pipeline)
		return false;
	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "spu");
	if (!src) {
		g_set_error(error, GEN_ERROR, 0, "pipeline has no element \"spu\"");
		goto out;
	}
	g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
	if (!fill(src, error))
		goto out;
	GstFlowReturn ret;
	g_signal_emit_by_name(src, "end-of-stream", &ret);
	ok = set_on(pipeline, "sink", "location", job->tmp, error) &&
		run_pipeline(pipeline, error);
out:
	if (src)
		gst_object_unref(src);
	gst_object_unref(pipeline);
	return ok;
}

/* ---- vobsub.mkv ----------------------------------------------------------- */

/* The VobSub box, yellow (palette entry 1), in the picture's pixels. */
static const struct spu_box vobsub_box = { 64, 160, 96, 40, 4 };

/* The idx-style private data Matroska keeps a VobSub track's palette in (RGB). */
static const char vobsub_idx[] =
	"# VobSub index file, v7 (do not modify this line!)\n"
	"size: 320x240\n"
	"palette: 000000, ffff00, 808080, ffffff, 000000, 000000, 000000, 000000, "
	"000000, 000000, 000000, 000000, 000000, 000000, 000000, 000000\n";

static bool
fill_vobsub(GstElement *src, GError **error)
{
	uint8_t spu[8192];
	size_t size = spu_dvd_write(spu, sizeof(spu), &vobsub_box, 1, 1000);
	return push(src, spu, size, 1000, error);
}

/*
 * vobsub.mkv: the blue picture with a VobSub track (S_VOBSUB, its palette
 * in the codec private data): an opaque yellow 96x40 box at 64,160 from
 * 1 s to 2 s (the unit's own stop command), inside a transparent margin
 * of 4 pixels.
 */
bool
make_vobsub_mkv(const struct job *job, GError **error)
{
	g_autofree char *video = gen_blue_h264_branch(BITMAP_SECONDS);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux. appsrc name=spu ! queue ! mux.subtitle_%%u", video);
	GstBuffer *idx = gst_buffer_new_memdup(vobsub_idx, sizeof(vobsub_idx) - 1);
	GstCaps *caps = gst_caps_new_simple("subpicture/x-dvd", "codec_data", GST_TYPE_BUFFER,
		idx, NULL);
	gst_buffer_unref(idx);
	bool ok = write_clip(job, description, caps, fill_vobsub, error);
	gst_caps_unref(caps);
	return ok;
}

/* ---- pgs.mkv -------------------------------------------------------------- */

/* The PGS box, magenta, in the picture's pixels. */
static const struct spu_box pgs_box = { 176, 152, 96, 48, 4 };
/* BT.601 limited range magenta (255, 0, 255): Y, Cr, Cb. */
static const uint8_t pgs_magenta[3] = { 106, 222, 202 };

static bool
fill_pgs(GstElement *src, GError **error)
{
	uint8_t set[8192];
	size_t size = spu_pgs_write(set, sizeof(set), BITMAP_WIDTH, BITMAP_HEIGHT, 0, &pgs_box,
		pgs_magenta);
	if (!push(src, set, size, 1000, error))
		return false;
	size = spu_pgs_write(set, sizeof(set), BITMAP_WIDTH, BITMAP_HEIGHT, 1, NULL, NULL);
	return push(src, set, size, 2000, error);
}

/* An EBML size at @p (at most @room bytes): its value and width; false if it is none. */
static bool
read_vint(const uint8_t *p, size_t room, uint64_t *value, size_t *width)
{
	size_t w = 1;
	while (w <= 8 && !(p[0] & (0x80 >> (w - 1))))
		w++;
	if (w > 4 || w > room)
		return false;
	uint64_t v = p[0] & ((0x80u >> (w - 1)) - 1);
	for (size_t i = 1; i < w; i++)
		v = v << 8 | p[i];
	*value = v;
	*width = w;
	return true;
}

/* A placeholder private data: the room "S_HDMV/PGS" takes beyond "S_VOBSUB". */
#define PGS_PRIVATE_SIZE 8

/*
 * matroskamux (1.22) takes no PGS: the track goes in as VobSub with a
 * private data of PGS_PRIVATE_SIZE bytes, and its CodecID element and
 * the CodecPrivate element after it are written again, in the same
 * bytes, as "S_HDMV/PGS" and a shorter private data.
 */
static bool
mark_pgs(const char *path, GError **error)
{
	g_autofree uint8_t *data = NULL;
	gsize size = 0;
	if (!g_file_get_contents(path, (char **)&data, &size, error))
		return false;
	static const char vobsub[] = "S_VOBSUB", pgs[] = "S_HDMV/PGS";
	uint8_t *at = NULL;
	for (gsize i = 0; i + 2 + sizeof(vobsub) - 1 <= size && !at; i++) {
		if (data[i] == 0x86 && memcmp(data + i + 2, vobsub, sizeof(vobsub) - 1) == 0)
			at = data + i;
	}
	uint64_t id_size = 0, priv_size = 0;
	size_t id_width = 0, priv_width = 0;
	size_t room = at ? (size_t)(data + size - at) : 0;
	if (!at || !read_vint(at + 1, room - 1, &id_size, &id_width) || id_width != 1 ||
			2 + id_size + 2 > room || at[2 + id_size] != 0x63 ||
			at[3 + id_size] != 0xa2 ||
			!read_vint(at + 4 + id_size, room - 4 - id_size, &priv_size, &priv_width) ||
			priv_size != PGS_PRIVATE_SIZE ||
			id_size + priv_size < sizeof(pgs) - 1) {
		g_set_error(error, GEN_ERROR, 0, "%s: no VobSub track to make PGS", path);
		return false;
	}
	size_t total = 2 + id_size + 2 + priv_width + priv_size;
	uint64_t new_priv = id_size + priv_size - (sizeof(pgs) - 1);
	uint8_t *p = at;
	*p++ = 0x86;
	*p++ = 0x80 | (sizeof(pgs) - 1);
	memcpy(p, pgs, sizeof(pgs) - 1);
	p += sizeof(pgs) - 1;
	*p++ = 0x63;
	*p++ = 0xa2;
	/* The size in as many bytes as before: its marker bit, then the value. */
	for (size_t i = 0; i < priv_width; i++)
		p[i] = (uint8_t)(new_priv >> (8 * (priv_width - 1 - i)));
	p[0] |= (uint8_t)(0x80 >> (priv_width - 1));
	p += priv_width;
	memset(p, 0, new_priv);
	p += new_priv;
	g_assert((size_t)(p - at) == total);
	return g_file_set_contents(path, (const char *)data, (gssize)size, error);
}

/*
 * pgs.mkv: the blue picture with a PGS track (S_HDMV/PGS): an opaque
 * magenta 96x48 box at 176,152 from 1 s (an epoch's first display set) to
 * 2 s (a display set without objects), inside a transparent margin of 4
 * pixels.
 */
bool
make_pgs_mkv(const struct job *job, GError **error)
{
	g_autofree char *video = gen_blue_h264_branch(BITMAP_SECONDS);
	g_autofree char *description = g_strdup_printf(
		"matroskamux name=mux ! filesink name=sink "
		"%s ! mux. appsrc name=spu ! queue ! mux.subtitle_%%u", video);
	static const uint8_t placeholder[PGS_PRIVATE_SIZE];
	GstBuffer *priv = gst_buffer_new_memdup(placeholder, sizeof(placeholder));
	GstCaps *caps = gst_caps_new_simple("subpicture/x-dvd", "codec_data", GST_TYPE_BUFFER,
		priv, NULL);
	gst_buffer_unref(priv);
	bool ok = write_clip(job, description, caps, fill_pgs, error) &&
		mark_pgs(job->tmp, error);
	gst_caps_unref(caps);
	return ok;
}
