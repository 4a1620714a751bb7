/* EIT sections between a worker and ummsd (ipc.h, UMMS_IPC_EIT). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_ENGINE

#include <string.h>

#include "eit.h"
#include "ipc.h"
#include "log.h"

void
umms_ipc_put_eit(struct umms_ipc_writer *w, const struct umms_eit *eit)
{
	umms_ipc_put_u32(w, (uint32_t)eit->onid);
	umms_ipc_put_u32(w, (uint32_t)eit->tsid);
	umms_ipc_put_u32(w, (uint32_t)eit->sid);
	umms_ipc_put_u32(w, (uint32_t)eit->table_id);
	umms_ipc_put_u32(w, (uint32_t)eit->version);
	umms_ipc_put_u32(w, (uint32_t)eit->section_number);
	umms_ipc_put_u32(w, (uint32_t)eit->n_events);
	for (size_t i = 0; i < eit->n_events; i++) {
		const struct umms_eit_event *e = &eit->events[i];
		umms_ipc_put_u32(w, (uint32_t)e->event_id);
		umms_ipc_put_i64(w, e->start_us);
		umms_ipc_put_i64(w, e->duration_us);
		umms_ipc_put_u32(w, (uint32_t)e->running_status);
		umms_ipc_put_string(w, e->title ? e->title : "");
		umms_ipc_put_string(w, e->sub_title);
		umms_ipc_put_string(w, e->description);
		umms_ipc_put_string(w, e->categories);
		umms_ipc_put_string(w, e->series_id);
		umms_ipc_put_string(w, e->rating_country);
		umms_ipc_put_i32(w, e->rating_raw);
	}
}

bool
umms_ipc_send_eit(int sock, const struct umms_eit *eit, GError **error)
{
	struct umms_ipc_writer w;
	umms_ipc_writer_init(&w);
	umms_ipc_put_eit(&w, eit);
	bool ok = true;
	if (w.data->len + sizeof(struct umms_ipc_header) > UMMS_IPC_MAX_MESSAGE)
		umms_warn("EIT: service %d's table 0x%02x section %d is too large to pass on",
			eit->sid, (unsigned)eit->table_id, eit->section_number);
	else
		ok = umms_ipc_send(sock, UMMS_IPC_EIT, 0, &w, false, error);
	umms_ipc_writer_finish(&w);
	return ok;
}

/* A string of at most @max bytes (NULL allowed unless @required); false: malformed. */
static bool
get_bounded(struct umms_ipc_reader *r, char **out, size_t max, bool required)
{
	*out = umms_ipc_get_string(r);
	if (r->failed)
		return false;
	if (!*out)
		return !required;
	return strlen(*out) <= max;
}

static void
free_events(struct umms_eit_event *events, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		g_free(events[i].title);
		g_free(events[i].sub_title);
		g_free(events[i].description);
		g_free(events[i].categories);
		g_free(events[i].series_id);
		g_free(events[i].rating_country);
	}
	g_free(events);
}

/* MJD 0 to 65535 (EN 300 468's 16-bit date), as µs since 1970. */
#define MJD_UNIX_DAYS 40587
#define EARLIEST_US (-(int64_t)MJD_UNIX_DAYS * 86400 * G_USEC_PER_SEC)
#define LATEST_US ((int64_t)(65536 - MJD_UNIX_DAYS) * 86400 * G_USEC_PER_SEC)
#define LONGEST_US ((int64_t)(99 * 3600 + 59 * 60 + 59) * G_USEC_PER_SEC)

static bool
get_event(struct umms_ipc_reader *r, struct umms_eit_event *e)
{
	uint32_t id = umms_ipc_get_u32(r);
	e->start_us = umms_ipc_get_i64(r);
	e->duration_us = umms_ipc_get_i64(r);
	uint32_t running = umms_ipc_get_u32(r);
	if (r->failed || id > 0xffff || running > 7 || e->start_us < EARLIEST_US ||
			e->start_us >= LATEST_US || e->duration_us < 0 ||
			e->duration_us > LONGEST_US)
		return false;
	e->event_id = (int)id;
	e->running_status = (int)running;
	if (!get_bounded(r, &e->title, UMMS_EIT_MAX_TITLE, true) ||
			!get_bounded(r, &e->sub_title, UMMS_EIT_MAX_TITLE, false) ||
			!get_bounded(r, &e->description, UMMS_EIT_MAX_TEXT, false) ||
			!get_bounded(r, &e->categories, UMMS_EIT_MAX_SHORT, false) ||
			!get_bounded(r, &e->series_id, UMMS_EIT_MAX_SHORT, false) ||
			!get_bounded(r, &e->rating_country, 3, false))
		return false;
	if (e->rating_country) {
		if (strlen(e->rating_country) != 3)
			return false;
		for (int i = 0; i < 3; i++) {
			if (!g_ascii_islower(e->rating_country[i]))
				return false;
		}
	}
	e->rating_raw = umms_ipc_get_i32(r);
	if (r->failed || e->rating_raw < -1 || e->rating_raw > 0xff)
		return false;
	/* Worked out here again, not taken from the worker. */
	e->min_age = e->rating_raw >= 0x01 && e->rating_raw <= 0x0f ? e->rating_raw + 3 : -1;
	return true;
}

bool
umms_ipc_get_eit(struct umms_ipc_reader *r, struct umms_eit *eit)
{
	memset(eit, 0, sizeof(*eit));
	uint32_t onid = umms_ipc_get_u32(r), tsid = umms_ipc_get_u32(r);
	uint32_t sid = umms_ipc_get_u32(r), table = umms_ipc_get_u32(r);
	uint32_t version = umms_ipc_get_u32(r), section = umms_ipc_get_u32(r);
	uint32_t n = umms_ipc_get_u32(r);
	if (r->failed || onid > 0xffff || tsid > 0xffff || sid > 0xffff || table < 0x4e ||
			table > 0x6f || version > 31 || section > 0xff || n > UMMS_EIT_MAX_EVENTS) {
		r->failed = true;
		return false;
	}
	struct umms_eit_event *events = g_new0(struct umms_eit_event, n ? n : 1);
	for (uint32_t i = 0; i < n; i++) {
		if (!get_event(r, &events[i])) {
			free_events(events, i + 1);
			r->failed = true;
			return false;
		}
	}
	eit->onid = (int)onid;
	eit->tsid = (int)tsid;
	eit->sid = (int)sid;
	eit->table_id = (int)table;
	eit->version = (int)version;
	eit->section_number = (int)section;
	eit->present_following = table == 0x4e || table == 0x4f;
	eit->events = events;
	eit->n_events = n;
	return true;
}
