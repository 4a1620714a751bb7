#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "error.h"
#include "frame.h"
#include "ipc.h"

G_STATIC_ASSERT(sizeof(struct umms_ipc_header) == 16);
G_STATIC_ASSERT(UMMS_FRAME_MAX_PLANES == 4);

/* ---- writing ------------------------------------------------------------- */

void
umms_ipc_writer_init(struct umms_ipc_writer *w)
{
	w->data = g_byte_array_sized_new(256);
	w->n_fds = 0;
}

void
umms_ipc_writer_finish(struct umms_ipc_writer *w)
{
	if (w->data)
		g_byte_array_unref(w->data);
	w->data = NULL;
	w->n_fds = 0;
}

static void
put(struct umms_ipc_writer *w, const void *v, size_t n)
{
	g_byte_array_append(w->data, v, (guint)n);
}

void umms_ipc_put_u8(struct umms_ipc_writer *w, uint8_t v) { put(w, &v, sizeof(v)); }
void umms_ipc_put_u32(struct umms_ipc_writer *w, uint32_t v) { put(w, &v, sizeof(v)); }
void umms_ipc_put_i32(struct umms_ipc_writer *w, int32_t v) { put(w, &v, sizeof(v)); }
void umms_ipc_put_u64(struct umms_ipc_writer *w, uint64_t v) { put(w, &v, sizeof(v)); }
void umms_ipc_put_i64(struct umms_ipc_writer *w, int64_t v) { put(w, &v, sizeof(v)); }
void umms_ipc_put_f64(struct umms_ipc_writer *w, double v) { put(w, &v, sizeof(v)); }

void
umms_ipc_put_string(struct umms_ipc_writer *w, const char *s)
{
	if (!s) {
		umms_ipc_put_u32(w, UINT32_MAX);
		return;
	}
	/* What cannot go whole goes valid: cut at a character, bad bytes replaced. */
	g_autofree char *valid = g_utf8_make_valid(s, -1);
	size_t n = strlen(valid);
	if (n > UMMS_IPC_MAX_STRING) {
		const char *end = g_utf8_find_prev_char(valid, valid + UMMS_IPC_MAX_STRING + 1);
		n = end ? (size_t)(end - valid) : 0;
	}
	umms_ipc_put_u32(w, (uint32_t)n);
	put(w, valid, n);
}

int
umms_ipc_put_fd(struct umms_ipc_writer *w, int fd)
{
	for (int i = 0; i < w->n_fds; i++) {
		if (w->fds[i] == fd)
			return i;
	}
	if (w->n_fds >= UMMS_IPC_MAX_FDS || fd < 0)
		return -1;
	w->fds[w->n_fds] = fd;
	return w->n_fds++;
}

/* ---- reading ------------------------------------------------------------- */

void
umms_ipc_reader_init(struct umms_ipc_reader *r, const void *data, size_t length)
{
	r->data = data;
	r->length = length;
	r->offset = 0;
	r->failed = false;
}

static bool
get(struct umms_ipc_reader *r, void *v, size_t n)
{
	if (r->failed || r->length - r->offset < n) {
		r->failed = true;
		memset(v, 0, n);
		return false;
	}
	memcpy(v, r->data + r->offset, n);
	r->offset += n;
	return true;
}

#define GETTER(name, type) \
	type name(struct umms_ipc_reader *r) { type v; get(r, &v, sizeof(v)); return v; }
GETTER(umms_ipc_get_u8, uint8_t)
GETTER(umms_ipc_get_u32, uint32_t)
GETTER(umms_ipc_get_i32, int32_t)
GETTER(umms_ipc_get_u64, uint64_t)
GETTER(umms_ipc_get_i64, int64_t)

double
umms_ipc_get_f64(struct umms_ipc_reader *r)
{
	double v;
	if (get(r, &v, sizeof(v)) && isnan(v)) {
		r->failed = true;
		v = 0;
	}
	return v;
}

bool
umms_ipc_get_bool(struct umms_ipc_reader *r)
{
	uint8_t v = umms_ipc_get_u8(r);
	if (v > 1)
		r->failed = true;
	return v == 1;
}

char *
umms_ipc_get_string(struct umms_ipc_reader *r)
{
	uint32_t n = umms_ipc_get_u32(r);
	if (r->failed || n == UINT32_MAX)
		return NULL;
	if (n > UMMS_IPC_MAX_STRING || r->length - r->offset < n) {
		r->failed = true;
		return NULL;
	}
	const char *s = (const char *)r->data + r->offset;
	if (memchr(s, '\0', n) || !g_utf8_validate(s, (gssize)n, NULL)) {
		r->failed = true;
		return NULL;
	}
	r->offset += n;
	return g_strndup(s, n);
}

bool
umms_ipc_reader_done(const struct umms_ipc_reader *r)
{
	return !r->failed && r->offset == r->length;
}

/* ---- the socket ---------------------------------------------------------- */

bool
umms_ipc_send(int sock, uint32_t type, uint32_t id, const struct umms_ipc_writer *w,
	bool nonblocking, GError **error)
{
	size_t length = w ? w->data->len : 0;
	if (length + sizeof(struct umms_ipc_header) > UMMS_IPC_MAX_MESSAGE) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"message %u of %zu bytes is over the limit", type, length);
		return false;
	}
	struct umms_ipc_header header = { .type = type, .id = id, .length = (uint32_t)length };
	struct iovec iov[2] = {
		{ .iov_base = &header, .iov_len = sizeof(header) },
		{ .iov_base = w ? w->data->data : NULL, .iov_len = length },
	};
	union {
		char buf[CMSG_SPACE(sizeof(int) * UMMS_IPC_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = length ? 2 : 1 };
	if (w && w->n_fds > 0) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)w->n_fds);
		struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)w->n_fds);
		memcpy(CMSG_DATA(cmsg), w->fds, sizeof(int) * (size_t)w->n_fds);
	}
	int flags = MSG_NOSIGNAL | (nonblocking ? MSG_DONTWAIT : 0);
	ssize_t sent;
	do
		sent = sendmsg(sock, &msg, flags);
	while (sent < 0 && errno == EINTR);
	if (sent < 0) {
		int saved = errno;
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "%s", saved == EAGAIN ?
			"its socket is full" : g_strerror(saved));
		errno = saved;
		return false;
	}
	return true;
}

void
umms_ipc_message_clear(struct umms_ipc_message *message)
{
	for (int i = 0; i < message->n_fds; i++) {
		if (message->fds[i] >= 0)
			close(message->fds[i]);
	}
	message->n_fds = 0;
	g_clear_pointer(&message->payload, g_free);
}

int
umms_ipc_receive(int sock, struct umms_ipc_message *message, bool *again, GError **error)
{
	memset(message, 0, sizeof(*message));
	if (again)
		*again = false;
	uint8_t *buf = g_malloc(UMMS_IPC_MAX_MESSAGE);
	struct iovec iov = { .iov_base = buf, .iov_len = UMMS_IPC_MAX_MESSAGE };
	union {
		char buf[CMSG_SPACE(sizeof(int) * UMMS_IPC_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf, .msg_controllen = sizeof(control.buf),
	};
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && again) {
		g_free(buf);
		*again = true;
		return 0;
	}
	if (n < 0) {
		int saved = errno;
		g_free(buf);
		if (saved == ECONNRESET)
			return 0;
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "%s", g_strerror(saved));
		return -1;
	}
	/* Take every fd first, so that a bad message still closes them. */
	for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS)
			continue;
		size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *data = CMSG_DATA(cmsg);
		for (size_t i = 0; i < count; i++) {
			int fd;
			memcpy(&fd, data + i * sizeof(int), sizeof(int));
			if (message->n_fds < UMMS_IPC_MAX_FDS)
				message->fds[message->n_fds++] = fd;
			else
				close(fd);
		}
	}
	if (n == 0 && message->n_fds == 0) {
		g_free(buf);
		return 0;
	}
	const char *bad = NULL;
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		bad = "a message over the size or fd limit";
	else if ((size_t)n < sizeof(struct umms_ipc_header))
		bad = "a message shorter than its header";
	if (!bad) {
		memcpy(&message->header, buf, sizeof(message->header));
		if (message->header.length != (size_t)n - sizeof(struct umms_ipc_header) ||
				message->header.reserved != 0)
			bad = "a message whose length does not match its header";
	}
	if (bad) {
		g_free(buf);
		umms_ipc_message_clear(message);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED, "%s", bad);
		return -1;
	}
	message->payload = g_memdup2(buf + sizeof(struct umms_ipc_header), message->header.length);
	g_free(buf);
	return 1;
}

/* ---- compound values ----------------------------------------------------- */

void
umms_ipc_put_status(struct umms_ipc_writer *w, const struct umms_ipc_status *s)
{
	umms_ipc_put_u32(w, s->state);
	umms_ipc_put_i64(w, s->position);
	umms_ipc_put_i64(w, s->taken_ns);
	umms_ipc_put_f64(w, s->rate);
	umms_ipc_put_u8(w, s->has_range);
	umms_ipc_put_i64(w, s->range_start);
	umms_ipc_put_i64(w, s->range_end);
	umms_ipc_put_u64(w, s->decoded);
	umms_ipc_put_u64(w, s->presented);
	umms_ipc_put_u64(w, s->dropped);
	umms_ipc_put_u64(w, s->copies);
	umms_ipc_put_u64(w, s->dmabuf);
	umms_ipc_put_u64(w, s->audio_buffers);
	umms_ipc_put_u64(w, s->audio_bytes);
}

bool
umms_ipc_get_status(struct umms_ipc_reader *r, struct umms_ipc_status *s)
{
	s->state = umms_ipc_get_u32(r);
	s->position = umms_ipc_get_i64(r);
	s->taken_ns = umms_ipc_get_i64(r);
	s->rate = umms_ipc_get_f64(r);
	s->has_range = umms_ipc_get_bool(r);
	s->range_start = umms_ipc_get_i64(r);
	s->range_end = umms_ipc_get_i64(r);
	s->decoded = umms_ipc_get_u64(r);
	s->presented = umms_ipc_get_u64(r);
	s->dropped = umms_ipc_get_u64(r);
	s->copies = umms_ipc_get_u64(r);
	s->dmabuf = umms_ipc_get_u64(r);
	s->audio_buffers = umms_ipc_get_u64(r);
	s->audio_bytes = umms_ipc_get_u64(r);
	/* enum umms_engine_state: IDLE, PAUSED, PLAYING. */
	if (s->state > 2 || !isfinite(s->rate) || s->position < -1)
		r->failed = true;
	return !r->failed;
}

void
umms_ipc_put_error(struct umms_ipc_writer *w, const GError *error)
{
	bool ours = error->domain == UMMS_ERROR && error->code >= 0 &&
		error->code < UMMS_ERROR_N_CODES;
	umms_ipc_put_u32(w, ours ? (uint32_t)error->code : UMMS_ERROR_FAILED);
	umms_ipc_put_string(w, error->message);
}

GError *
umms_ipc_get_error(struct umms_ipc_reader *r)
{
	uint32_t code = umms_ipc_get_u32(r);
	g_autofree char *text = umms_ipc_get_string(r);
	if (r->failed || code >= UMMS_ERROR_N_CODES || !text) {
		r->failed = true;
		return NULL;
	}
	return g_error_new_literal(UMMS_ERROR, (gint)code, text);
}

static void
put_track(struct umms_ipc_writer *w, const struct umms_track *t)
{
	umms_ipc_put_string(w, t->codec);
	umms_ipc_put_string(w, t->codec_description);
	umms_ipc_put_string(w, t->language);
	umms_ipc_put_i32(w, t->bitrate);
	umms_ipc_put_i32(w, t->width);
	umms_ipc_put_i32(w, t->height);
	umms_ipc_put_i32(w, t->fps_n);
	umms_ipc_put_i32(w, t->fps_d);
	umms_ipc_put_i32(w, t->par_n);
	umms_ipc_put_i32(w, t->par_d);
	umms_ipc_put_i32(w, t->channels);
	umms_ipc_put_i32(w, t->rate);
	umms_ipc_put_u8(w, t->external);
}

static struct umms_track *
get_track(struct umms_ipc_reader *r)
{
	struct umms_track *t = umms_track_create();
	g_free(t->codec);
	t->codec = umms_ipc_get_string(r);
	t->codec_description = umms_ipc_get_string(r);
	t->language = umms_ipc_get_string(r);
	t->bitrate = umms_ipc_get_i32(r);
	t->width = umms_ipc_get_i32(r);
	t->height = umms_ipc_get_i32(r);
	t->fps_n = umms_ipc_get_i32(r);
	t->fps_d = umms_ipc_get_i32(r);
	t->par_n = umms_ipc_get_i32(r);
	t->par_d = umms_ipc_get_i32(r);
	t->channels = umms_ipc_get_i32(r);
	t->rate = umms_ipc_get_i32(r);
	t->external = umms_ipc_get_bool(r);
	/* What the player divides by or shows must be sane. */
	if (t->fps_d <= 0 || t->par_n <= 0 || t->par_d <= 0 || t->fps_n < 0 ||
			t->width < 0 || t->height < 0 || t->channels < 0 || t->rate < 0)
		r->failed = true;
	return t;
}

void
umms_ipc_put_media_info(struct umms_ipc_writer *w, const struct umms_media_info *info)
{
	umms_ipc_put_string(w, info->container);
	umms_ipc_put_i64(w, info->duration);
	umms_ipc_put_u8(w, info->seekable);
	umms_ipc_put_u8(w, info->live);
	for (int k = 0; k < UMMS_TRACK_KINDS; k++) {
		guint n = MIN(info->tracks[k]->len, UMMS_IPC_MAX_TRACKS);
		umms_ipc_put_u32(w, n);
		for (guint i = 0; i < n; i++)
			put_track(w, g_ptr_array_index(info->tracks[k], i));
		umms_ipc_put_i32(w, info->current[k] < (int)n ? info->current[k] : -1);
	}
	umms_ipc_put_i32(w, info->buffering);
	/* The tags in GVariant's serialised form; too many to send: none. */
	gsize size = g_variant_get_size(info->metadata);
	if (size > UMMS_IPC_MAX_MESSAGE / 2) {
		umms_ipc_put_u32(w, 0);
	} else {
		umms_ipc_put_u32(w, (uint32_t)size);
		put(w, g_variant_get_data(info->metadata), size);
	}
	umms_ipc_put_string(w, info->decoder);
	umms_ipc_put_u8(w, info->decoder_hardware);
}

bool
umms_ipc_get_media_info(struct umms_ipc_reader *r, struct umms_media_info *info)
{
	umms_media_info_reset(info);
	info->container = umms_ipc_get_string(r);
	info->duration = umms_ipc_get_i64(r);
	info->seekable = umms_ipc_get_bool(r);
	info->live = umms_ipc_get_bool(r);
	if (info->duration < -1)
		r->failed = true;
	for (int k = 0; k < UMMS_TRACK_KINDS && !r->failed; k++) {
		uint32_t n = umms_ipc_get_u32(r);
		if (n > UMMS_IPC_MAX_TRACKS) {
			r->failed = true;
			break;
		}
		for (uint32_t i = 0; i < n && !r->failed; i++)
			g_ptr_array_add(info->tracks[k], get_track(r));
		info->current[k] = umms_ipc_get_i32(r);
		if (info->current[k] < -1 || info->current[k] >= (int)n)
			r->failed = true;
	}
	info->buffering = umms_ipc_get_i32(r);
	if (info->buffering < 0 || info->buffering > 100)
		r->failed = true;
	uint32_t size = umms_ipc_get_u32(r);
	if (!r->failed && (size > r->length - r->offset)) {
		r->failed = true;
	} else if (!r->failed && size > 0) {
		/* Untrusted bytes: GVariant reads them safely, and we want a{sv}. */
		GBytes *bytes = g_bytes_new(r->data + r->offset, size);
		r->offset += size;
		GVariant *tags = g_variant_new_from_bytes(G_VARIANT_TYPE("a{sv}"), bytes, FALSE);
		g_bytes_unref(bytes);
		g_variant_unref(info->metadata);
		info->metadata = g_variant_ref_sink(g_variant_get_normal_form(tags));
		g_variant_unref(tags);
	}
	info->decoder = umms_ipc_get_string(r);
	info->decoder_hardware = umms_ipc_get_bool(r);
	if (r->failed)
		umms_media_info_reset(info);
	return !r->failed;
}

void
umms_ipc_put_frame(struct umms_ipc_writer *w, const struct umms_ipc_frame *f)
{
	umms_ipc_put_u64(w, f->frame_id);
	umms_ipc_put_u32(w, f->kind);
	umms_ipc_put_u32(w, f->format);
	umms_ipc_put_i32(w, f->width);
	umms_ipc_put_i32(w, f->height);
	umms_ipc_put_i32(w, f->crop_x);
	umms_ipc_put_i32(w, f->crop_y);
	umms_ipc_put_i32(w, f->crop_width);
	umms_ipc_put_i32(w, f->crop_height);
	umms_ipc_put_u32(w, f->par_n);
	umms_ipc_put_u32(w, f->par_d);
	umms_ipc_put_u64(w, f->modifier);
	umms_ipc_put_u32(w, f->n_planes);
	for (uint32_t i = 0; i < f->n_planes && i < 4; i++) {
		umms_ipc_put_u32(w, f->planes[i].fd_index);
		umms_ipc_put_u32(w, f->planes[i].offset);
		umms_ipc_put_u32(w, f->planes[i].stride);
	}
	umms_ipc_put_u64(w, f->memory_id);
	umms_ipc_put_i64(w, f->present_ns);
	umms_ipc_put_i64(w, f->position);
	umms_ipc_put_u8(w, f->has_subpicture);
	if (f->has_subpicture) {
		umms_ipc_put_u32(w, f->subpicture.fd_index);
		umms_ipc_put_u64(w, f->subpicture.serial);
		umms_ipc_put_u32(w, f->subpicture.stride);
		umms_ipc_put_i32(w, f->subpicture.x);
		umms_ipc_put_i32(w, f->subpicture.y);
		umms_ipc_put_i32(w, f->subpicture.width);
		umms_ipc_put_i32(w, f->subpicture.height);
		umms_ipc_put_i32(w, f->subpicture.picture_width);
		umms_ipc_put_i32(w, f->subpicture.picture_height);
	}
}

bool
umms_ipc_get_frame(struct umms_ipc_reader *r, int n_fds, struct umms_ipc_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->frame_id = umms_ipc_get_u64(r);
	f->kind = umms_ipc_get_u32(r);
	f->format = umms_ipc_get_u32(r);
	f->width = umms_ipc_get_i32(r);
	f->height = umms_ipc_get_i32(r);
	f->crop_x = umms_ipc_get_i32(r);
	f->crop_y = umms_ipc_get_i32(r);
	f->crop_width = umms_ipc_get_i32(r);
	f->crop_height = umms_ipc_get_i32(r);
	f->par_n = umms_ipc_get_u32(r);
	f->par_d = umms_ipc_get_u32(r);
	f->modifier = umms_ipc_get_u64(r);
	f->n_planes = umms_ipc_get_u32(r);
	if (f->kind > UMMS_FRAME_DMABUF || f->n_planes < 1 || f->n_planes > 4) {
		r->failed = true;
		return false;
	}
	for (uint32_t i = 0; i < f->n_planes; i++) {
		f->planes[i].fd_index = umms_ipc_get_u32(r);
		f->planes[i].offset = umms_ipc_get_u32(r);
		f->planes[i].stride = umms_ipc_get_u32(r);
		if (f->planes[i].fd_index >= (uint32_t)n_fds)
			r->failed = true;
	}
	f->memory_id = umms_ipc_get_u64(r);
	f->present_ns = umms_ipc_get_i64(r);
	f->position = umms_ipc_get_i64(r);
	f->has_subpicture = umms_ipc_get_bool(r);
	if (f->has_subpicture) {
		f->subpicture.fd_index = umms_ipc_get_u32(r);
		f->subpicture.serial = umms_ipc_get_u64(r);
		f->subpicture.stride = umms_ipc_get_u32(r);
		f->subpicture.x = umms_ipc_get_i32(r);
		f->subpicture.y = umms_ipc_get_i32(r);
		f->subpicture.width = umms_ipc_get_i32(r);
		f->subpicture.height = umms_ipc_get_i32(r);
		f->subpicture.picture_width = umms_ipc_get_i32(r);
		f->subpicture.picture_height = umms_ipc_get_i32(r);
		if (f->subpicture.fd_index >= (uint32_t)n_fds)
			r->failed = true;
	}
	return !r->failed;
}

bool
umms_ipc_uri_is_network(const char *uri)
{
	g_autofree char *scheme = uri ? g_uri_parse_scheme(uri) : NULL;
	return !scheme || (g_ascii_strcasecmp(scheme, "file") != 0 &&
		g_ascii_strcasecmp(scheme, "v4l2") != 0 && g_ascii_strcasecmp(scheme, "dvb") != 0);
}
