/*
 * What a recording recorded, for parental control (recorder.h
 * umms_recorder_find_rating): the guide's channel whose URI it records and
 * the highest rating of the programmes its window covered, worked out at
 * each change of its state (and again when asked while it records), kept
 * in its row. Recording blocked content is allowed; playing the file back
 * is judged by this.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include "guide.h"
#include "log.h"
#include "recorder-private.h"

struct highest {
	int min_age;
	char *system, *rating;
};

static void
consider(struct highest *h, const struct umms_guide_programme *p)
{
	if (!p->rating || !*p->rating)
		return;
	bool take = p->min_age > h->min_age || (h->min_age < 0 && !h->system);
	if (!take)
		return;
	g_free(h->system);
	g_free(h->rating);
	h->system = g_strdup(p->rating_system);
	h->rating = g_strdup(p->rating);
	h->min_age = p->min_age;
}

static bool
consider_cb(const struct umms_guide_programme *p, void *data)
{
	consider(data, p);
	return true;
}

void
recorder_rate(struct job *j)
{
	struct umms_recorder *rec = j->rec;
	if (!rec->guide || !j->uri || j->state == SCHEDULED)
		return;
	int64_t channel = umms_guide_find_channel_by_uri(rec->guide, j->uri);
	if (!channel)
		channel = j->channel;
	if (!channel)
		return;
	int64_t now = g_get_real_time();
	int64_t from = j->start_us > 0 ? j->start_us : now;
	int64_t to = j->duration_us > 0 ? j->start_us + j->duration_us : now;
	if (j->state == RECORDING && to > now)
		to = now;
	if (to <= from)
		to = from + 1;
	struct highest h = { .min_age = j->min_age };
	h.system = g_strdup(j->rating_system);
	h.rating = g_strdup(j->rating);
	struct umms_guide_programme p;
	if (umms_guide_programme_at(rec->guide, channel, from, &p, NULL))
		consider(&h, &p);
	umms_guide_for_each_programme(rec->guide, channel, from, to, consider_cb, &h);
	j->rated_channel = channel;
	g_free(j->rating_system);
	g_free(j->rating);
	j->rating_system = h.system;
	j->rating = h.rating;
	j->min_age = h.min_age;
}

bool
umms_recorder_find_rating(struct umms_recorder *recorder, const char *path,
	struct umms_recorder_rating *out)
{
	*out = (struct umms_recorder_rating){ .min_age = -1 };
	if (!recorder || !path)
		return false;
	for (guint i = 0; i < recorder->jobs->len; i++) {
		struct job *j = recorder->jobs->pdata[i];
		for (guint k = 0; k < j->parts->len; k++) {
			if (strcmp(j->parts->pdata[k], path) != 0)
				continue;
			/* Still recording: what it covered up to now. */
			if (j->state == RECORDING) {
				recorder_rate(j);
				recorder_save(j);
			}
			out->channel = j->rated_channel;
			out->rating_system = g_strdup(j->rating_system);
			out->rating = g_strdup(j->rating);
			out->min_age = j->min_age;
			return true;
		}
	}
	return false;
}

void
umms_recorder_rating_clear(struct umms_recorder_rating *rating)
{
	g_clear_pointer(&rating->rating_system, g_free);
	g_clear_pointer(&rating->rating, g_free);
}
