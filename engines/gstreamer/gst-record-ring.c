/*
 * A ring's files through its owner (gst-record.h: umms_gst_record_ring_io):
 * hlssink2's signals for its segments, its playlist and their deletion,
 * answered with streams of our own instead of files it would open by name.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gst/gst.h>

#include "gst-record-ring.h"
#include "log.h"

/* The longest playlist taken: hlssink2's of 86400 files of a second is about 2 MiB. */
#define PLAYLIST_MAX (8u << 20)

/* One hlssink2's: its owner's calls, and whether a playlist could not be written. */
struct hook {
	const struct umms_gst_record_ring_io *io;
	gint failed;
};

/*
 * One output stream: a segment's descriptor written to (fd >= 0), or the
 * playlist gathered and handed to io->playlist when closed.
 */
G_DECLARE_FINAL_TYPE(UmmsRingStream, umms_ring_stream, UMMS, RING_STREAM, GOutputStream)

struct _UmmsRingStream {
	GOutputStream parent;
	int fd;
	GByteArray *text;
	struct hook *hook;
};

G_DEFINE_TYPE(UmmsRingStream, umms_ring_stream, G_TYPE_OUTPUT_STREAM)

static gssize
ring_stream_write(GOutputStream *stream, const void *buffer, gsize count,
	GCancellable *cancellable, GError **error)
{
	UmmsRingStream *s = UMMS_RING_STREAM(stream);
	if (s->text) {
		if (s->text->len + count > PLAYLIST_MAX) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "playlist over %u bytes",
				PLAYLIST_MAX);
			return -1;
		}
		g_byte_array_append(s->text, buffer, (guint)count);
		return (gssize)count;
	}
	for (;;) {
		ssize_t n = write(s->fd, buffer, count);
		if (n >= 0)
			return n;
		if (errno != EINTR) {
			int code = errno;
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(code), "%s",
				g_strerror(code));
			return -1;
		}
	}
}

static gboolean
ring_stream_close(GOutputStream *stream, GCancellable *cancellable, GError **error)
{
	UmmsRingStream *s = UMMS_RING_STREAM(stream);
	/*
	 * hlssink2 closes it by letting it go, errors unheard: a playlist not
	 * written makes it fail when it asks for the next one.
	 */
	if (s->text) {
		const struct umms_gst_record_ring_io *io = s->hook->io;
		if (!io->playlist(io->data, (const char *)s->text->data, s->text->len))
			g_atomic_int_set(&s->hook->failed, 1);
		g_byte_array_set_size(s->text, 0);
	}
	if (s->fd >= 0 && close(s->fd) != 0 && errno != EINTR) {
		s->fd = -1;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s", g_strerror(errno));
		return FALSE;
	}
	s->fd = -1;
	return TRUE;
}

static void
ring_stream_finalize(GObject *object)
{
	UmmsRingStream *s = UMMS_RING_STREAM(object);
	if (s->fd >= 0)
		close(s->fd);
	if (s->text)
		g_byte_array_unref(s->text);
	G_OBJECT_CLASS(umms_ring_stream_parent_class)->finalize(object);
}

static void
umms_ring_stream_class_init(UmmsRingStreamClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = ring_stream_finalize;
	G_OUTPUT_STREAM_CLASS(klass)->write_fn = ring_stream_write;
	G_OUTPUT_STREAM_CLASS(klass)->close_fn = ring_stream_close;
}

static void
umms_ring_stream_init(UmmsRingStream *s)
{
	s->fd = -1;
}

/* @location's segment number, as umms_gst_record_ring_connect names them; false if not one. */
static bool
segment_index(const char *location, unsigned *index)
{
	int end = 0;
	return location && sscanf(location, UMMS_GST_RING_PREFIX "%5u" UMMS_GST_RING_SUFFIX "%n",
		index, &end) == 1 && end > 0 && location[end] == '\0' &&
		strlen(location) == strlen(UMMS_GST_RING_PREFIX "00000" UMMS_GST_RING_SUFFIX);
}

/* Streaming thread: a new segment. NULL makes hlssink2 fail (an error on the bus). */
static GOutputStream *
fragment_cb(GstElement *sink, const char *location, gpointer data)
{
	const struct umms_gst_record_ring_io *io = ((struct hook *)data)->io;
	unsigned index;
	if (!segment_index(location, &index)) {
		umms_warn("recording: hlssink2 asked for a segment named %s", location);
		return NULL;
	}
	int fd = io->fragment(io->data, index);
	if (fd < 0)
		return NULL;
	UmmsRingStream *s = g_object_new(umms_ring_stream_get_type(), NULL);
	s->fd = fd;
	return G_OUTPUT_STREAM(s);
}

/* NULL: the last one could not be written, which makes hlssink2 fail. */
static GOutputStream *
playlist_cb(GstElement *sink, const char *location, gpointer data)
{
	struct hook *hook = data;
	if (g_atomic_int_get(&hook->failed))
		return NULL;
	UmmsRingStream *s = g_object_new(umms_ring_stream_get_type(), NULL);
	s->text = g_byte_array_new();
	s->hook = hook;
	return G_OUTPUT_STREAM(s);
}

static void
delete_cb(GstElement *sink, const char *location, gpointer data)
{
	const struct umms_gst_record_ring_io *io = ((struct hook *)data)->io;
	unsigned index;
	/* hlssink2's own handler would delete by name: ours instead. */
	g_signal_stop_emission_by_name(sink, "delete-fragment");
	if (segment_index(location, &index))
		io->remove(io->data, index);
}

void
umms_gst_record_ring_connect(GstElement *hlssink2, const struct umms_gst_record_ring_io *io)
{
	/* Names only: the playlist lists them as they are, beside itself. */
	g_object_set(hlssink2, "location", UMMS_GST_RING_PREFIX "%05d" UMMS_GST_RING_SUFFIX,
		"playlist-location", "live.m3u8", NULL);
	struct hook *hook = g_new0(struct hook, 1);
	hook->io = io;
	g_object_set_data_full(G_OBJECT(hlssink2), "umms-ring-hook", hook, g_free);
	g_signal_connect(hlssink2, "get-fragment-stream", G_CALLBACK(fragment_cb), hook);
	g_signal_connect(hlssink2, "get-playlist-stream", G_CALLBACK(playlist_cb), hook);
	g_signal_connect(hlssink2, "delete-fragment", G_CALLBACK(delete_cb), hook);
}
