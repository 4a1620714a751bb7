/*
 * The messages between ummsd and its engine workers (worker/ipc.h): what
 * goes in comes out, over a real socketpair with real fds, and anything
 * cut short, over a bound or out of range is refused rather than read.
 */
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <gio/gio.h>

#include "error.h"
#include "harness.h"
#include "ipc.h"

static void
pair(int fds[2])
{
	g_assert_cmpint(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds), ==, 0);
}

static void
test_values(void)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_u8(&w, 1);
	umms_ipc_put_u32(&w, 0xdeadbeef);
	umms_ipc_put_i64(&w, -5);
	umms_ipc_put_f64(&w, 1.5);
	umms_ipc_put_string(&w, "héllo");
	umms_ipc_put_string(&w, NULL);
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	g_assert_true(umms_ipc_get_bool(&r));
	g_assert_cmphex(umms_ipc_get_u32(&r), ==, 0xdeadbeef);
	g_assert_cmpint(umms_ipc_get_i64(&r), ==, -5);
	g_assert_cmpfloat(umms_ipc_get_f64(&r), ==, 1.5);
	g_autofree char *s = umms_ipc_get_string(&r);
	g_assert_cmpstr(s, ==, "héllo");
	g_assert_null(umms_ipc_get_string(&r));
	g_assert_true(umms_ipc_reader_done(&r));

	/* One byte short: every later read fails, and stays failed. */
	umms_ipc_reader_init(&r, w.data->data, 4);
	g_assert_true(umms_ipc_get_bool(&r));
	g_assert_cmpuint(umms_ipc_get_u32(&r), ==, 0);
	g_assert_true(r.failed);
	g_assert_false(umms_ipc_reader_done(&r));
	umms_ipc_writer_finish(&w);

	/* A string longer than what follows, not UTF-8, with a NUL, or a bool of 2. */
	const uint8_t bad[][9] = {
		{ 200, 0, 0, 0, 'a', 'b', 'c', 'd', 'e' },
		{ 5, 0, 0, 0, 'a', 0xff, 'c', 'd', 'e' },
		{ 5, 0, 0, 0, 'a', 0, 'c', 'd', 'e' },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
		umms_ipc_reader_init(&r, bad[i], sizeof(bad[i]));
		g_assert_null(umms_ipc_get_string(&r));
		g_assert_true(r.failed);
	}
	const uint8_t two = 2;
	umms_ipc_reader_init(&r, &two, 1);
	umms_ipc_get_bool(&r);
	g_assert_true(r.failed);
	/* NaN is never a rate or a volume. */
	double nan = NAN;
	umms_ipc_reader_init(&r, &nan, sizeof(nan));
	umms_ipc_get_f64(&r);
	g_assert_true(r.failed);
}

static void
test_media_info(void)
{
	struct umms_media_info in, out;
	umms_media_info_init(&in);
	umms_media_info_init(&out);
	in.container = g_strdup("matroska");
	in.duration = 5000000;
	in.seekable = true;
	struct umms_track *video = umms_track_create();
	g_free(video->codec);
	video->codec = g_strdup("h264");
	video->width = 320;
	video->height = 240;
	video->fps_n = 25;
	g_ptr_array_add(in.tracks[UMMS_TRACK_VIDEO], video);
	for (int i = 0; i < 2; i++) {
		struct umms_track *audio = umms_track_create();
		audio->language = g_strdup(i ? "de" : "en");
		audio->channels = 2;
		g_ptr_array_add(in.tracks[UMMS_TRACK_AUDIO], audio);
	}
	in.current[UMMS_TRACK_VIDEO] = 0;
	in.current[UMMS_TRACK_AUDIO] = 1;
	in.buffering = 100;
	GVariantDict tags;
	g_variant_dict_init(&tags, NULL);
	g_variant_dict_insert(&tags, "title", "s", "A title");
	g_variant_unref(in.metadata);
	in.metadata = g_variant_ref_sink(g_variant_dict_end(&tags));
	in.decoder = g_strdup("avdec_h264");

	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_media_info(&w, &in);
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	g_assert_true(umms_ipc_get_media_info(&r, &out));
	g_assert_true(umms_ipc_reader_done(&r));
	g_assert_cmpstr(out.container, ==, "matroska");
	g_assert_cmpint(out.duration, ==, 5000000);
	g_assert_true(out.seekable);
	g_assert_cmpuint(out.tracks[UMMS_TRACK_AUDIO]->len, ==, 2);
	struct umms_track *de = g_ptr_array_index(out.tracks[UMMS_TRACK_AUDIO], 1);
	g_assert_cmpstr(de->language, ==, "de");
	g_assert_cmpint(out.current[UMMS_TRACK_AUDIO], ==, 1);
	g_assert_cmpint(out.current[UMMS_TRACK_SUBTITLE], ==, -1);
	const char *title = NULL;
	g_assert_true(g_variant_lookup(out.metadata, "title", "&s", &title));
	g_assert_cmpstr(title, ==, "A title");
	g_assert_cmpstr(out.decoder, ==, "avdec_h264");

	/* Every prefix of it is refused, and leaves nothing behind. */
	for (guint n = 0; n < w.data->len; n++) {
		umms_ipc_reader_init(&r, w.data->data, n);
		g_assert_false(umms_ipc_get_media_info(&r, &out));
		g_assert_cmpuint(out.tracks[UMMS_TRACK_AUDIO]->len, ==, 0);
	}
	/* A current track out of range: no video tracks, the first one current. */
	umms_ipc_writer_finish(&w);
	umms_ipc_writer_init(&w);
	umms_ipc_put_string(&w, NULL);
	umms_ipc_put_i64(&w, -1);
	umms_ipc_put_u8(&w, 0);
	umms_ipc_put_u8(&w, 0);
	umms_ipc_put_u32(&w, 0);
	umms_ipc_put_i32(&w, 0);
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	g_assert_false(umms_ipc_get_media_info(&r, &out));
	/* Too many tracks. */
	umms_ipc_writer_finish(&w);
	umms_ipc_writer_init(&w);
	umms_ipc_put_string(&w, NULL);
	umms_ipc_put_i64(&w, -1);
	umms_ipc_put_u8(&w, 0);
	umms_ipc_put_u8(&w, 0);
	umms_ipc_put_u32(&w, UMMS_IPC_MAX_TRACKS + 1);
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	g_assert_false(umms_ipc_get_media_info(&r, &out));
	umms_ipc_writer_finish(&w);
	umms_media_info_finish(&in);
	umms_media_info_finish(&out);
}

static void
test_socket(void)
{
	int fds[2];
	pair(fds);
	int memfd = memfd_create("ipc-test", MFD_CLOEXEC);
	g_assert_cmpint(ftruncate(memfd, 4096), ==, 0);

	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	struct umms_ipc_frame f = {
		.frame_id = 7, .width = 64, .height = 32, .crop_width = 64, .crop_height = 32,
		.par_n = 1, .par_d = 1, .n_planes = 2, .memory_id = 99, .position = 40000,
	};
	f.planes[0].fd_index = (uint32_t)umms_ipc_put_fd(&w, memfd);
	f.planes[0].stride = 64;
	f.planes[1].fd_index = (uint32_t)umms_ipc_put_fd(&w, memfd);
	f.planes[1].offset = 2048;
	f.planes[1].stride = 64;
	g_assert_cmpint(w.n_fds, ==, 1); /* the same fd goes once */
	umms_ipc_put_frame(&w, &f);
	GError *error = NULL;
	g_assert_true(umms_ipc_send(fds[0], UMMS_IPC_FRAME, 0, &w, true, &error));
	g_assert_no_error(error);
	umms_ipc_writer_finish(&w);

	struct umms_ipc_message message;
	bool again = false;
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, 1);
	g_assert_cmpuint(message.header.type, ==, UMMS_IPC_FRAME);
	g_assert_cmpint(message.n_fds, ==, 1);
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, message.payload, message.header.length);
	struct umms_ipc_frame got;
	g_assert_true(umms_ipc_get_frame(&r, message.n_fds, &got));
	g_assert_true(umms_ipc_reader_done(&r));
	g_assert_cmpuint(got.memory_id, ==, 99);
	g_assert_cmpuint(got.planes[1].offset, ==, 2048);
	/* The same memory, under another fd. */
	struct stat a, b;
	g_assert_cmpint(fstat(memfd, &a), ==, 0);
	g_assert_cmpint(fstat(message.fds[0], &b), ==, 0);
	g_assert_cmpuint(a.st_ino, ==, b.st_ino);
	/* An fd index past the fds that came is refused. */
	umms_ipc_reader_init(&r, message.payload, message.header.length);
	g_assert_false(umms_ipc_get_frame(&r, 0, &got));
	umms_ipc_message_clear(&message);

	/* Nothing waiting. */
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, 0);
	g_assert_true(again);

	/* A datagram shorter than a header, and one whose length lies. */
	uint8_t junk[20] = { 0 };
	g_assert_cmpint(send(fds[0], junk, 3, 0), ==, 3);
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, -1);
	g_assert_error(error, UMMS_ERROR, UMMS_ERROR_FAILED);
	g_clear_error(&error);
	struct umms_ipc_header header = { .type = UMMS_IPC_PONG, .length = 100 };
	memcpy(junk, &header, sizeof(header));
	g_assert_cmpint(send(fds[0], junk, sizeof(junk), 0), ==, (ssize_t)sizeof(junk));
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, -1);
	g_clear_error(&error);

	/* Over the size limit: refused by the sender, cut (MSG_TRUNC) at the receiver. */
	umms_ipc_writer_init(&w);
	g_autofree char *big = g_malloc0(UMMS_IPC_MAX_MESSAGE + 16);
	g_byte_array_append(w.data, (const guint8 *)big, UMMS_IPC_MAX_MESSAGE);
	g_assert_false(umms_ipc_send(fds[0], UMMS_IPC_INFO, 0, &w, true, &error));
	g_clear_error(&error);
	umms_ipc_writer_finish(&w);
	g_assert_cmpint(send(fds[0], big, UMMS_IPC_MAX_MESSAGE + 16, 0), ==,
		UMMS_IPC_MAX_MESSAGE + 16);
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, -1);
	g_clear_error(&error);

	/* The peer gone: 0, not again. */
	close(fds[0]);
	g_assert_cmpint(umms_ipc_receive(fds[1], &message, &again, &error), ==, 0);
	g_assert_false(again);
	close(fds[1]);
	close(memfd);
}

static void
test_error(void)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	g_autoptr(GError) in = g_error_new(UMMS_ERROR, UMMS_ERROR_NOT_FOUND, "no such file");
	g_autoptr(GError) foreign = g_error_new(G_IO_ERROR, G_IO_ERROR_BUSY, "busy");
	umms_ipc_put_error(&w, in);
	umms_ipc_put_error(&w, foreign);
	umms_ipc_put_u32(&w, UMMS_ERROR_N_CODES);
	umms_ipc_put_string(&w, "a code out of range");
	struct umms_ipc_reader r;
	umms_ipc_reader_init(&r, w.data->data, w.data->len);
	g_autoptr(GError) out = umms_ipc_get_error(&r);
	g_assert_error(out, UMMS_ERROR, UMMS_ERROR_NOT_FOUND);
	g_assert_cmpstr(out->message, ==, "no such file");
	g_autoptr(GError) mapped = umms_ipc_get_error(&r);
	g_assert_error(mapped, UMMS_ERROR, UMMS_ERROR_FAILED);
	g_assert_null(umms_ipc_get_error(&r));
	g_assert_true(r.failed);
	umms_ipc_writer_finish(&w);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/ipc/values", test_values);
	g_test_add_func("/ipc/media-info", test_media_info);
	g_test_add_func("/ipc/socket", test_socket);
	g_test_add_func("/ipc/error", test_error);
	return g_test_run();
}
