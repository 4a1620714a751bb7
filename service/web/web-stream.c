/*
 * The bytes of a WebSocket on their way into libsoup. libsoup 3.2 bounds a
 * frame (max-incoming-payload-size, and then drops the connection without
 * a close frame) but joins a fragmented message without any bound, so this
 * input stream reads the frames' headers first: a data frame that would
 * make its message larger than web.max-message-bytes never reaches libsoup
 * (neither do the data frames after it), and the session is told, to close
 * the socket with 1009. Control frames still pass, so the peer's answer to
 * that close is read and the close handshake completes. It also notes when
 * the last frame came (pongs included), for the keepalive.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_DBUS

#include <string.h>

#include "log.h"
#include "web-private.h"

/* The longest frame header: 2 bytes, 8 of length, 4 of mask. */
#define HEADER_MAX 14
/* Bytes read from the socket at a time. */
#define CHUNK 4096
/* RFC 6455 5.5: a control frame's payload. */
#define CONTROL_MAX 125

#define UMMS_TYPE_WEB_INPUT (umms_web_input_get_type())
G_DECLARE_FINAL_TYPE(UmmsWebInput, umms_web_input, UMMS, WEB_INPUT, GInputStream)

struct _UmmsWebInput {
	GInputStream parent;
	GInputStream *base;        /* pollable */
	uint64_t max_message;
	GByteArray *ready;         /* passed, not yet read by libsoup */
	guint8 header[HEADER_MAX];
	unsigned header_len;
	uint64_t payload_left;     /* of the frame being passed or dropped */
	bool in_payload, passing;
	uint64_t message_bytes;    /* of the data message in progress */
	bool refused, eof;
	int64_t last_frame;        /* monotonic µs */
	umms_web_refused_fn refused_fn;
	gpointer refused_data;
};

static void umms_web_input_pollable_init(GPollableInputStreamInterface *iface);

G_DEFINE_TYPE_WITH_CODE(UmmsWebInput, umms_web_input, G_TYPE_INPUT_STREAM,
	G_IMPLEMENT_INTERFACE(G_TYPE_POLLABLE_INPUT_STREAM, umms_web_input_pollable_init))

static void
refuse(UmmsWebInput *in, unsigned short code, const char *reason)
{
	if (in->refused)
		return;
	in->refused = true;
	umms_info("web: %s", reason);
	if (in->refused_fn)
		in->refused_fn(in->refused_data, code, reason);
}

/* A whole header is in: decides whether its frame passes. */
static void
header_done(UmmsWebInput *in)
{
	const guint8 *h = in->header;
	unsigned opcode = h[0] & 0x0f;
	bool control = opcode & 0x08;
	uint64_t length = h[1] & 0x7f;
	if (length == 126)
		length = (uint64_t)h[2] << 8 | h[3];
	else if (length == 127) {
		length = 0;
		for (int i = 0; i < 8; i++)
			length = length << 8 | h[2 + i];
	}
	in->last_frame = g_get_monotonic_time();
	bool pass;
	if (control) {
		pass = length <= CONTROL_MAX;
		if (!pass)
			refuse(in, SOUP_WEBSOCKET_CLOSE_PROTOCOL_ERROR,
				"a control frame longer than 125 bytes");
	} else if (in->refused) {
		pass = false;
	} else {
		if (opcode != 0)
			in->message_bytes = 0;
		pass = length <= in->max_message - in->message_bytes;
		if (pass)
			in->message_bytes += length;
		else
			refuse(in, SOUP_WEBSOCKET_CLOSE_TOO_BIG,
				"message too big (web.max-message-bytes)");
	}
	if (pass)
		g_byte_array_append(in->ready, in->header, in->header_len);
	in->passing = pass;
	in->payload_left = length;
	in->in_payload = length > 0;
	in->header_len = 0;
}

static unsigned
header_needed(const guint8 *h, unsigned have)
{
	if (have < 2)
		return 2;
	unsigned length = h[1] & 0x7f;
	return 2 + (length == 126 ? 2 : length == 127 ? 8 : 0) + (h[1] & 0x80 ? 4 : 0);
}

/* Runs @n bytes from the socket through the frame parser into ready. */
static void
scan(UmmsWebInput *in, const guint8 *data, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (in->in_payload) {
			size_t take = (size_t)MIN(in->payload_left, (uint64_t)(n - i));
			if (in->passing)
				g_byte_array_append(in->ready, data + i, (guint)take);
			i += take;
			in->payload_left -= take;
			in->in_payload = in->payload_left > 0;
			continue;
		}
		in->header[in->header_len++] = data[i++];
		if (in->header_len == header_needed(in->header, in->header_len))
			header_done(in);
	}
}

static gssize
pull(UmmsWebInput *in, void *buffer, gsize count, bool blocking, GCancellable *cancellable,
	GError **error)
{
	for (;;) {
		if (in->ready->len > 0) {
			gsize n = MIN(count, in->ready->len);
			memcpy(buffer, in->ready->data, n);
			g_byte_array_remove_range(in->ready, 0, (guint)n);
			return (gssize)n;
		}
		if (in->eof)
			return 0;
		guint8 chunk[CHUNK];
		gssize got = blocking ?
			g_input_stream_read(in->base, chunk, sizeof(chunk), cancellable, error) :
			g_pollable_input_stream_read_nonblocking(G_POLLABLE_INPUT_STREAM(in->base),
				chunk, sizeof(chunk), cancellable, error);
		if (got < 0)
			return -1;
		if (got == 0)
			in->eof = true;
		else
			scan(in, chunk, (size_t)got);
	}
}

static gssize
input_read(GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
	GError **error)
{
	return pull(UMMS_WEB_INPUT(stream), buffer, count, true, cancellable, error);
}

static gssize
input_read_nonblocking(GPollableInputStream *stream, void *buffer, gsize count, GError **error)
{
	return pull(UMMS_WEB_INPUT(stream), buffer, count, false, NULL, error);
}

static gboolean
input_close(GInputStream *stream, GCancellable *cancellable, GError **error)
{
	/* The socket is closed with the GIOStream (umms_web_stream). */
	return TRUE;
}

static gboolean
input_can_poll(GPollableInputStream *stream)
{
	return TRUE;
}

static gboolean
input_is_readable(GPollableInputStream *stream)
{
	UmmsWebInput *in = UMMS_WEB_INPUT(stream);
	return in->ready->len > 0 || in->eof ||
		g_pollable_input_stream_is_readable(G_POLLABLE_INPUT_STREAM(in->base));
}

static GSource *
input_create_source(GPollableInputStream *stream, GCancellable *cancellable)
{
	UmmsWebInput *in = UMMS_WEB_INPUT(stream);
	g_autoptr(GSource) child = in->ready->len > 0 || in->eof ? g_timeout_source_new(0) :
		g_pollable_input_stream_create_source(G_POLLABLE_INPUT_STREAM(in->base), NULL);
	return g_pollable_source_new_full(stream, child, cancellable);
}

static void
umms_web_input_pollable_init(GPollableInputStreamInterface *iface)
{
	iface->can_poll = input_can_poll;
	iface->is_readable = input_is_readable;
	iface->create_source = input_create_source;
	iface->read_nonblocking = input_read_nonblocking;
}

static void
umms_web_input_finalize(GObject *object)
{
	UmmsWebInput *in = UMMS_WEB_INPUT(object);
	g_object_unref(in->base);
	g_byte_array_unref(in->ready);
	G_OBJECT_CLASS(umms_web_input_parent_class)->finalize(object);
}

static void
umms_web_input_class_init(UmmsWebInputClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = umms_web_input_finalize;
	G_INPUT_STREAM_CLASS(klass)->read_fn = input_read;
	G_INPUT_STREAM_CLASS(klass)->close_fn = input_close;
}

static void
umms_web_input_init(UmmsWebInput *in)
{
	in->ready = g_byte_array_new();
	in->last_frame = g_get_monotonic_time();
}

/* ---- the GIOStream libsoup is given: this input, the socket's output ---- */

#define UMMS_TYPE_WEB_STREAM (umms_web_stream_get_type())
G_DECLARE_FINAL_TYPE(UmmsWebStream, umms_web_stream, UMMS, WEB_STREAM, GIOStream)

struct _UmmsWebStream {
	GIOStream parent;
	GIOStream *base;
	UmmsWebInput *input;
};

G_DEFINE_TYPE(UmmsWebStream, umms_web_stream, G_TYPE_IO_STREAM)

static GInputStream *
stream_get_input(GIOStream *stream)
{
	return G_INPUT_STREAM(UMMS_WEB_STREAM(stream)->input);
}

static GOutputStream *
stream_get_output(GIOStream *stream)
{
	return g_io_stream_get_output_stream(UMMS_WEB_STREAM(stream)->base);
}

static gboolean
stream_close(GIOStream *stream, GCancellable *cancellable, GError **error)
{
	return g_io_stream_close(UMMS_WEB_STREAM(stream)->base, cancellable, error);
}

/* Closing a socket does not block: done at once, not in a thread. */
static void
stream_close_async(GIOStream *stream, int priority, GCancellable *cancellable,
	GAsyncReadyCallback callback, gpointer data)
{
	GTask *task = g_task_new(stream, cancellable, callback, data);
	GError *error = NULL;
	if (stream_close(stream, cancellable, &error))
		g_task_return_boolean(task, TRUE);
	else
		g_task_return_error(task, error);
	g_object_unref(task);
}

static gboolean
stream_close_finish(GIOStream *stream, GAsyncResult *result, GError **error)
{
	return g_task_propagate_boolean(G_TASK(result), error);
}

static void
umms_web_stream_finalize(GObject *object)
{
	UmmsWebStream *s = UMMS_WEB_STREAM(object);
	g_object_unref(s->input);
	g_object_unref(s->base);
	G_OBJECT_CLASS(umms_web_stream_parent_class)->finalize(object);
}

static void
umms_web_stream_class_init(UmmsWebStreamClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = umms_web_stream_finalize;
	GIOStreamClass *io = G_IO_STREAM_CLASS(klass);
	io->get_input_stream = stream_get_input;
	io->get_output_stream = stream_get_output;
	io->close_fn = stream_close;
	io->close_async = stream_close_async;
	io->close_finish = stream_close_finish;
}

static void
umms_web_stream_init(UmmsWebStream *s)
{
}

GIOStream *
umms_web_stream_new(GIOStream *base, uint64_t max_message)
{
	UmmsWebStream *s = g_object_new(UMMS_TYPE_WEB_STREAM, NULL);
	s->base = g_object_ref(base);
	s->input = g_object_new(UMMS_TYPE_WEB_INPUT, NULL);
	s->input->base = g_object_ref(g_io_stream_get_input_stream(base));
	s->input->max_message = max_message;
	return G_IO_STREAM(s);
}

void
umms_web_stream_watch(GIOStream *stream, umms_web_refused_fn fn, gpointer data)
{
	UmmsWebInput *in = UMMS_WEB_STREAM(stream)->input;
	in->refused_fn = fn;
	in->refused_data = data;
}

int64_t
umms_web_stream_last_frame(GIOStream *stream)
{
	return UMMS_WEB_STREAM(stream)->input->last_frame;
}
