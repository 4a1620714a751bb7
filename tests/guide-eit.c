/*
 * The guide's C API (service/guide/guide.h) as the EIT reader and the DVB
 * scan use it: a guide of the test's own on the test bus, EIT sections put
 * in, versions repeated and changed, an event moved, an IPTV channel tied
 * to the service its stream's EIT names (test-guide.c registers it).
 */
#include <glib.h>

#include "guide-tests.h"
#include "guide.h"

struct counted {
	struct wl_listener listener;
	unsigned n;
};

static void
count_signal(struct wl_listener *listener, void *data)
{
	(void)data;
	struct counted *counted = wl_container_of(listener, counted, listener);
	counted->n++;
}

struct seen {
	int64_t id;
	char *title;
};

/* The first two programmes into seen[0] and seen[1]. */
static bool
collect(const struct umms_guide_programme *p, void *data)
{
	struct seen *seen = data;
	for (int i = 0; i < 2; i++) {
		if (!seen[i].title) {
			seen[i].id = p->id;
			seen[i].title = g_strdup(p->title);
			return true;
		}
	}
	return false;
}

void
guide_test_eit(struct umms_test *t, gconstpointer data)
{
	(void)data;
	(void)t;
	struct umms_config config;
	umms_config_init(&config);
	config.recording.database = g_build_filename(umms_test_tmpdir(), "eit.db", NULL);
	g_autoptr(GDBusConnection) conn = umms_test_connect();
	GError *error = NULL;
	struct umms_guide *guide = umms_guide_create(&config, conn, &error);
	g_assert_no_error(error);
	struct counted changed = { .listener.notify = count_signal };
	struct counted now_next = { .listener.notify = count_signal };
	wl_signal_add(&umms_guide_get_events(guide)->changed, &changed.listener);
	wl_signal_add(&umms_guide_get_events(guide)->now_next, &now_next.listener);

	struct umms_guide_channel ch = { .name = "vidtv", .uri = "dvb://vidtv",
		.source = "dvb-scan", .dvb = { 0x2000, 1, 0x880 } };
	g_assert_true(umms_guide_put_channel(guide, &ch, &error));
	g_assert_cmpint(ch.id, >, 0);

	int64_t now = g_get_real_time() / G_TIME_SPAN_SECOND * G_TIME_SPAN_SECOND;
	struct umms_guide_eit_event events[2] = {
		{ .event_id = 1, .start_us = now - 600 * G_TIME_SPAN_SECOND,
			.duration_us = 1200 * G_TIME_SPAN_SECOND, .running_status = 4,
			.title = "Now on", .rating_raw = 0x09, .rating_country = "GBR", .min_age = 12 },
		{ .event_id = 2, .start_us = now + 600 * G_TIME_SPAN_SECOND,
			.duration_us = 600 * G_TIME_SPAN_SECOND, .title = "Next up",
			.rating_raw = -1, .min_age = -1 },
	};
	struct umms_guide_eit eit = { .dvb = ch.dvb, .table_id = 0x4e, .version = 1,
		.present_following = true, .events = events, .n_events = 2 };
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	/* A burst of sections: one emission, once the loop is idle. */
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	g_assert_cmpuint(changed.n, ==, 0);
	umms_test_sleep(100);
	g_assert_cmpuint(changed.n, ==, 1);
	g_assert_cmpuint(now_next.n, ==, 1);

	struct seen seen[2] = { 0 };
	int64_t from = now - 3600 * G_TIME_SPAN_SECOND;
	umms_guide_for_each_programme(guide, ch.id, from, -1, collect, seen);
	g_assert_cmpstr(seen[0].title, ==, "Now on");
	g_assert_cmpstr(seen[1].title, ==, "Next up");
	struct umms_guide_programme p;
	g_assert_true(umms_guide_get_programme(guide, seen[0].id, &p));
	g_assert_cmpint(p.channel, ==, ch.id);
	g_assert_cmpint(p.event_id, ==, 1);
	g_assert_cmpint(p.min_age, ==, 12);
	g_assert_cmpstr(p.rating, ==, "9");
	g_assert_cmpstr(p.rating_system, ==, "DVB:GBR");

	/* Version 2 moves "Next up" later: the same programme, moved; said once. */
	events[1].start_us += 300 * G_TIME_SPAN_SECOND;
	eit.version = 2;
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	umms_test_sleep(100);
	g_assert_cmpuint(changed.n, ==, 2);
	g_assert_cmpuint(now_next.n, ==, 2);
	g_assert_true(umms_guide_get_programme(guide, seen[1].id, &p));
	g_assert_cmpint(p.start_us, ==, events[1].start_us);
	g_assert_cmpstr(p.title, ==, "Next up");
	/* Version 2 again: nothing. */
	g_assert_true(umms_guide_put_eit(guide, &eit, &error));
	umms_test_sleep(100);
	g_assert_cmpuint(changed.n, ==, 2);

	/* An IPTV channel whose stream's EIT names service 1/2/3: linked once said. */
	struct umms_guide_channel iptv = { .name = "IPTV", .uri = "udp://239.1.1.1:5000",
		.dvb = { -1, -1, -1 } };
	g_assert_true(umms_guide_put_channel(guide, &iptv, &error));
	struct umms_guide_eit_event other = { .event_id = 7, .start_us = now,
		.duration_us = 60 * G_TIME_SPAN_SECOND, .title = "Streamed", .rating_raw = -1,
		.min_age = -1 };
	struct umms_guide_eit eit2 = { .dvb = { 1, 2, 3 }, .table_id = 0x4e, .version = 0,
		.present_following = true, .events = &other, .n_events = 1 };
	g_assert_true(umms_guide_put_eit(guide, &eit2, &error));
	struct seen streamed[2] = { 0 };
	umms_guide_for_each_programme(guide, 0, now, now + 1, collect, streamed);
	g_assert_cmpstr(streamed[0].title, ==, "Streamed");
	g_assert_true(umms_guide_get_programme(guide, streamed[0].id, &p));
	g_assert_cmpint(p.channel, ==, 0);
	int64_t linked = -1;
	g_assert_true(umms_guide_link_service(guide, "udp://239.1.1.1:5000", &eit2.dvb, &linked,
		&error));
	g_assert_cmpint(linked, ==, iptv.id);
	g_assert_true(umms_guide_get_programme(guide, streamed[0].id, &p));
	g_assert_cmpint(p.channel, ==, iptv.id);
	g_assert_true(umms_guide_link_service(guide, "udp://nobody", &eit2.dvb, &linked, &error));
	g_assert_cmpint(linked, ==, 0);
	g_free(streamed[0].title);
	g_free(streamed[1].title);

	wl_list_remove(&changed.listener.link);
	wl_list_remove(&now_next.listener.link);
	umms_guide_destroy(guide);
	g_free(seen[0].title);
	g_free(seen[1].title);
	umms_config_finish(&config);
}

