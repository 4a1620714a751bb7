/*
 * DVB teletext subtitles. The tests' teletext writer (teletext-gen.h)
 * checked against GStreamer's own teletext decoder, directly and through
 * the MPEG-TS clip made with it (teletext.ts); then that clip through
 * ummsd: its teletext stream is a subtitle track of kind "teletext" with
 * the language and page of its PMT, that page's text goes out on
 * Player1.SubtitleCue at its time, again after a seek back, and the pages
 * beside it (an ordinary one, another subtitle page) never do.
 */
#include <string.h>

#include <gst/app/app.h>

#include "harness.h"
#include "teletext.h"
#include "teletext-gen.h"

/* ---- the writer against teletextdec ---------------------------------------- */

struct decoded {
	GstClockTime pts;
	char *text;
};

static void
decoded_free(gpointer data)
{
	struct decoded *d = data;
	g_free(d->text);
	g_free(d);
}

/* Runs @description (an appsink named "sink" at its end) to EOS: the texts it took. */
static GPtrArray *
run_to_texts(GstElement *pipeline, GstElement *sink)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(decoded_free);
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	GstSample *sample;
	while ((sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND))) {
		GstBuffer *buffer = gst_sample_get_buffer(sample);
		GstMapInfo map;
		g_assert_true(gst_buffer_map(buffer, &map, GST_MAP_READ));
		struct decoded *d = g_new0(struct decoded, 1);
		d->pts = GST_BUFFER_PTS(buffer);
		d->text = g_strndup((const char *)map.data, map.size);
		gst_buffer_unmap(buffer, &map);
		g_ptr_array_add(out, d);
		gst_sample_unref(sample);
	}
	g_assert_true(gst_app_sink_is_eos(GST_APP_SINK(sink)));
	gst_element_set_state(pipeline, GST_STATE_NULL);
	return out;
}

static GstElement *
decoder_pipeline(const char *source, unsigned page, GstElement **sink)
{
	g_autofree char *description = g_strdup_printf("%s ! teletextdec name=dec page=%u "
		"subtitles-mode=true ! text/x-raw,format=utf-8 ! appsink name=sink sync=false",
		source, page);
	GError *error = NULL;
	GstElement *pipeline = gst_parse_launch(description, &error);
	g_assert_no_error(error);
	*sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
	/* Its default line template is "%s\\n", a backslash and an n. */
	GstElement *decoder = gst_bin_get_by_name(GST_BIN(pipeline), "dec");
	g_object_set(decoder, "subtitles-template", "%s\n", NULL);
	gst_object_unref(decoder);
	return pipeline;
}

static void
push(GstElement *src, const uint8_t *pes, unsigned ms)
{
	GstBuffer *buffer = gst_buffer_new_memdup(pes, TTX_PES_SIZE);
	GST_BUFFER_PTS(buffer) = (GstClockTime)ms * GST_MSECOND;
	g_assert_cmpint(gst_app_src_push_buffer(GST_APP_SRC(src), buffer), ==, GST_FLOW_OK);
}

/* Hamming 8/4: the standard's codes for 0 and 15, any two at least 4 bits apart. */
static void
test_hamming(void)
{
	g_assert_cmphex(ttx_hamming84(0x0), ==, 0x15);
	g_assert_cmphex(ttx_hamming84(0x1), ==, 0x02);
	g_assert_cmphex(ttx_hamming84(0xf), ==, 0xea);
	for (unsigned a = 0; a < 16; a++) {
		for (unsigned b = a + 1; b < 16; b++) {
			unsigned diff = (unsigned)(ttx_hamming84(a) ^ ttx_hamming84(b));
			g_assert_cmpint(__builtin_popcount(diff), >=, 4);
		}
	}
	g_assert_cmphex(ttx_odd_parity('A'), ==, 0xc1);
	g_assert_cmphex(ttx_odd_parity('C'), ==, 0x43);
}

/*
 * Pages from the writer, one PES every 40 ms as broadcasters send them,
 * read back by teletextdec: the subtitle page's lines, its blank page,
 * nothing of a page on another number.
 */
static void
test_writer(void)
{
	GstElement *sink;
	GstElement *pipeline = decoder_pipeline(
		"appsrc name=src format=time caps=application/x-teletext", 888, &sink);
	GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	g_assert_cmpint(gst_element_set_state(pipeline, GST_STATE_PLAYING), !=,
		GST_STATE_CHANGE_FAILURE);
	uint8_t filler[TTX_PES_SIZE], pes[TTX_PES_SIZE];
	uint8_t header[1][TTX_PACKET_SIZE];
	ttx_filler_header(header[0], 8);
	g_assert_true(ttx_pes_payload(filler, (const uint8_t (*)[TTX_PACKET_SIZE])header, 1));
	const char *const lines[] = { "Hello teletext", "Line two, 42." };
	const char *const other[] = { "NOT THIS ONE" };
	for (unsigned ms = 0; ms < 2000; ms += 40) {
		const uint8_t *data = filler;
		if (ms == 200 || ms == 1000 || ms == 1400) {
			g_assert_true(ms == 200 ? ttx_subtitle_pes(pes, 889, other, 1) :
				ttx_subtitle_pes(pes, 888, ms == 1000 ? lines : NULL,
				ms == 1000 ? 2 : 0));
			data = pes;
		}
		push(src, data, ms);
	}
	g_assert_cmpint(gst_app_src_end_of_stream(GST_APP_SRC(src)), ==, GST_FLOW_OK);
	GPtrArray *texts = run_to_texts(pipeline, sink);
	g_assert_cmpuint(texts->len, ==, 2);
	struct decoded *page = g_ptr_array_index(texts, 0);
	struct decoded *blank = g_ptr_array_index(texts, 1);
	/* Told with the PES after the one that completed it. */
	g_assert_cmpuint(page->pts, ==, 1040 * GST_MSECOND);
	g_assert_cmpstr(page->text, ==, "Hello teletext\nLine two, 42.\n");
	g_assert_cmpuint(blank->pts, ==, 1440 * GST_MSECOND);
	g_assert_cmpstr(blank->text, ==, "\n");
	g_ptr_array_unref(texts);
	gst_object_unref(src);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
}

/* teletext.ts read back by tsdemux and teletextdec, page by page. */
static void
test_clip(void)
{
	static const struct {
		unsigned page;
		const char *const texts[5];
	} pages[] = {
		{ 888, { "TELETEXT ONE\nSECOND LINE\n", "\n", "<b>TELETEXT</b> TWO\n", "\n",
			NULL } },
		{ 100, { "NOT A SUBTITLE\n", NULL } },
		{ 889, { "OTHER PAGE\n", NULL } },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(pages); i++) {
		g_autofree char *source = g_strdup_printf("filesrc location=%s ! tsdemux ! "
			"application/x-teletext", umms_test_clip("teletext.ts"));
		GstElement *sink;
		GstElement *pipeline = decoder_pipeline(source, pages[i].page, &sink);
		GPtrArray *texts = run_to_texts(pipeline, sink);
		guint n = g_strv_length((char **)pages[i].texts);
		g_assert_cmpuint(texts->len, ==, n);
		for (guint j = 0; j < n; j++) {
			struct decoded *d = g_ptr_array_index(texts, j);
			g_assert_cmpstr(d->text, ==, pages[i].texts[j]);
		}
		g_ptr_array_unref(texts);
		gst_object_unref(sink);
		gst_object_unref(pipeline);
	}
}

/* ---- through ummsd ---------------------------------------------------------- */

/* The next SubtitleCue: its start, end and text (its markup, @markup non-NULL). */
static void
next_cue(struct umms_test_signals *signals, int64_t *start, int64_t *end, char **text,
	char **markup)
{
	g_autoptr(GVariant) cue = umms_test_signals_wait(signals, "SubtitleCue", 5000);
	g_variant_get(cue, "(xxsss)", start, end, text, markup, NULL);
	g_test_message("cue %" G_GINT64_FORMAT "–%" G_GINT64_FORMAT " µs: %s", *start, *end, *text);
}

static void
test_track(struct umms_test *t, gconstpointer data)
{
	g_autofree char *p = umms_test_open(t->bus, "teletext.ts");
	g_autoptr(GVariant) tracks = umms_test_get(t->bus, p, UMMS_PLAYER, "SubtitleTracks");
	g_assert_cmpuint(g_variant_n_children(tracks), ==, 1);
	g_autoptr(GVariant) track = g_variant_get_child_value(tracks, 0);
	const char *kind = NULL, *codec = NULL;
	g_assert_true(g_variant_lookup(track, "kind", "&s", &kind));
	g_assert_cmpstr(kind, ==, "teletext");
	g_assert_true(g_variant_lookup(track, "codec", "&s", &codec));
	g_assert_cmpstr(codec, ==, "teletext");
	/* From the PMT's teletext descriptor: German, page 888. */
	const char *language = NULL, *description = NULL;
	g_assert_true(g_variant_lookup(track, "language", "&s", &language));
	g_assert_cmpstr(language, ==, "de");
	g_assert_true(g_variant_lookup(track, "codec-description", "&s", &description));
	g_assert_cmpstr(description, ==, "Teletext subtitles, page 888");
	g_assert_cmpint(umms_test_get_int32(t->bus, p, "CurrentSubtitle"), ==, 0);

	/* MPEG-TS timelines start where the muxer began (mpegtsmux: 0.125 s). */
	int64_t origin = umms_test_get_int64(t->bus, p, "Position");
	g_assert_cmpint(origin, >=, 0);
	g_assert_cmpint(origin, <, US(1.0));
	struct umms_test_signals *signals = umms_test_signals_watch(t->bus, p);
	umms_test_player_do(t->bus, p, "Play", NULL);
	int64_t start, end;
	char *text;
	/* Page 888 from 1 s (told 40 ms late) until its blank page; page 100 never. */
	next_cue(signals, &start, &end, &text, NULL);
	g_assert_cmpstr(text, ==, "TELETEXT ONE\nSECOND LINE");
	g_assert_cmpint(start - origin, >=, US(1.0));
	g_assert_cmpint(start - origin, <=, US(1.1));
	/* It ends with the blank page (which is no cue of its own). */
	g_assert_cmpint(end - origin, >=, US(2.0));
	g_assert_cmpint(end - origin, <=, US(2.1));
	g_free(text);
	char *markup;
	next_cue(signals, &start, &end, &text, &markup);
	/* Its characters as they are, escaped in the markup, in its colour (green). */
	g_assert_cmpstr(text, ==, "<b>TELETEXT</b> TWO");
	g_assert_cmpstr(markup, ==,
		"<span foreground=\"#00FF00\">&lt;b&gt;TELETEXT&lt;/b&gt; TWO</span>");
	g_free(markup);
	g_assert_cmpint(start - origin, >=, US(3.0));
	g_assert_cmpint(start - origin, <=, US(3.1));
	g_free(text);

	/*
	 * A seek back, before page 100 (0.48 s): teletextdec, back on page 100
	 * after the flush, is set to the subtitle page again.
	 */
	umms_test_player_do(t->bus, p, "SetPosition", g_variant_new("(x)", origin + US(0.2)));
	next_cue(signals, &start, &end, &text, NULL);
	g_assert_cmpstr(text, ==, "TELETEXT ONE\nSECOND LINE");
	g_assert_cmpint(start - origin, >=, US(1.0));
	g_assert_cmpint(start - origin, <=, US(1.1));
	g_free(text);
	umms_test_signals_free(signals);
}

/*
 * The rows and colours of a subtitle page, read from its packets
 * (engines/teletext.h), for a page out of teletextdec with as many lines:
 * rows 1 and 3 in green, the bottom rows in white, other pages ignored,
 * pages matched in order by their count of lines; hostile bytes.
 */
static void
test_rows(void)
{
	uint8_t pes[TTX_PES_SIZE];
	struct umms_teletext_rows *rows = umms_teletext_rows_create();
	struct umms_teletext_layout layout = { 0 };
	const char *const two[] = { "TOP", "NEXT" };
	g_assert_true(ttx_subtitle_pes_at(pes, 888, two, 2, 1, TTX_GREEN));
	g_assert_cmpint(umms_teletext_find_subtitle_page(pes, sizeof(pes)), ==, 888);
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	g_assert_true(umms_teletext_rows_take(rows, 2, &layout));
	g_assert_cmpuint(layout.n, ==, 2);
	g_assert_cmpuint(layout.row[0], ==, 1);
	g_assert_cmpuint(layout.row[1], ==, 3);
	g_assert_cmpuint(layout.colour[0], ==, TTX_GREEN);
	g_assert_cmpstr(umms_teletext_colour(layout.colour[1]), ==, "#00FF00");
	g_assert_false(umms_teletext_rows_take(rows, 2, &layout));

	/* Another subtitle page: not ours. */
	g_assert_true(ttx_subtitle_pes_at(pes, 889, two, 2, 1, TTX_RED));
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	g_assert_false(umms_teletext_rows_take(rows, 2, &layout));

	/* One line, then two at the bottom, then the blank page: told in that order. */
	const char *const one[] = { "ONE" };
	g_assert_true(ttx_subtitle_pes(pes, 888, one, 1));
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	g_assert_true(ttx_subtitle_pes(pes, 888, two, 2));
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	g_assert_true(ttx_subtitle_pes(pes, 888, NULL, 0));
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	/* The page with one line was not told: dropped for the one with two. */
	g_assert_true(umms_teletext_rows_take(rows, 2, &layout));
	g_assert_cmpuint(layout.row[0], ==, 19);
	g_assert_cmpuint(layout.row[1], ==, 21);
	g_assert_cmpuint(layout.colour[0], ==, TTX_WHITE);
	g_assert_true(umms_teletext_rows_take(rows, 0, &layout));
	g_assert_cmpuint(layout.n, ==, 0);

	/* After a seek, nothing begun before it counts. */
	g_assert_true(ttx_subtitle_pes(pes, 888, one, 1));
	umms_teletext_rows_feed(rows, 888, pes, sizeof(pes));
	umms_teletext_rows_reset(rows);
	g_assert_false(umms_teletext_rows_take(rows, 1, &layout));

	/* Hostile: cut anywhere, any bytes; never read past the end. */
	g_assert_true(ttx_subtitle_pes_at(pes, 888, two, 2, 1, TTX_GREEN));
	for (size_t size = 0; size < sizeof(pes); size += 7) {
		uint8_t *cut = g_memdup2(pes, size);
		umms_teletext_rows_feed(rows, 888, cut, size);
		umms_teletext_find_subtitle_page(cut, size);
		g_free(cut);
	}
	GRand *rand = g_rand_new_with_seed(7);
	for (int i = 0; i < 200; i++) {
		uint8_t noise[TTX_PES_SIZE];
		for (size_t b = 0; b < sizeof(noise); b++)
			noise[b] = (uint8_t)g_rand_int(rand);
		noise[0] = 0x10;
		umms_teletext_rows_feed(rows, 888, noise, sizeof(noise));
		umms_teletext_rows_take(rows, (unsigned)i % 3, &layout);
		g_assert_cmpuint(layout.n, <=, UMMS_TELETEXT_TEXT_ROWS);
	}
	g_rand_free(rand);
	umms_teletext_rows_destroy(rows);
}

int
main(int argc, char *argv[])
{
	umms_test_init(&argc, &argv);
	g_test_add_func("/teletext/hamming", test_hamming);
	g_test_add_func("/teletext/writer", test_writer);
	g_test_add_func("/teletext/rows", test_rows);
	g_test_add_func("/teletext/clip", test_clip);
	UMMS_TEST_ADD("/teletext/track", test_track);
	return g_test_run();
}
