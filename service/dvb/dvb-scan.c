/*
 * The channel scan (dvb.h): libdvbv5 tunes each transponder of the
 * initial tuning file, reads its PAT, PMT, SDT and NIT, and keeps its
 * services, as dvbv5-scan does. On a thread of its own (GTask): tuning and
 * reading tables take up to seconds per transponder.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <libdvbv5/dvb-demux.h>
#include <libdvbv5/dvb-fe.h>
#include <libdvbv5/dvb-file.h>
#include <libdvbv5/dvb-scan.h>

#include "dvb-private.h"
#include "dvb-probe.h"
#include "dvb.h"
#include "error.h"
#include "log.h"

/* How long a transponder may take to lock, in 50 ms steps. */
#define LOCK_STEPS 40

struct scan {
	unsigned adapter, frontend;
	GArray *systems;          /* unsigned: what the frontend tunes */
	char *initial, *channels;
	GCancellable *cancellable;
};

static void
scan_free(struct scan *scan)
{
	g_array_unref(scan->systems);
	g_free(scan->initial);
	g_free(scan->channels);
	g_clear_object(&scan->cancellable);
	g_free(scan);
}

static void
umms_dvb_log_cb(int level, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	umms_debug("libdvbv5: %s", g_strchomp(text));
}

/* libdvbv5's check_frontend: 0 once the frontend locks, -1 if it does not in time. */
static int
check_frontend(void *data, struct dvb_v5_fe_parms *parms)
{
	struct scan *scan = data;
	for (int i = 0; i < LOCK_STEPS; i++) {
		if (g_cancellable_is_cancelled(scan->cancellable)) {
			parms->abort = 1;
			return -1;
		}
		uint32_t status = 0;
		if (dvb_fe_get_stats(parms) == 0 &&
				dvb_fe_retrieve_stats(parms, DTV_STATUS, &status) == 0 &&
				(status & FE_HAS_LOCK))
			return 0;
		g_usleep(50 * 1000);
	}
	return -1;
}

static bool
tunes(const struct scan *scan, unsigned system)
{
	for (guint i = 0; i < scan->systems->len; i++) {
		if (g_array_index(scan->systems, unsigned, i) == system)
			return true;
	}
	return false;
}

/* Names unique in the list: a second "News" becomes "News-SID"; no name, the SID. */
static void
name_channels(struct dvb_file *file)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	for (struct dvb_entry *e = file->first_entry; e; e = e->next) {
		if (!e->channel || !*e->channel || g_utf8_validate(e->channel, -1, NULL) == FALSE ||
				g_hash_table_contains(seen, e->channel)) {
			g_autofree char *valid = e->channel ? g_utf8_make_valid(e->channel, -1) : NULL;
			char *unique = valid && *valid ? g_strdup_printf("%s-%u", valid, e->service_id) :
				g_strdup_printf("%u", e->service_id);
			free(e->channel);
			/* libdvbv5 frees it with free(). */
			e->channel = strdup(unique);
			g_free(unique);
		}
		if (e->channel)
			g_hash_table_add(seen, e->channel);
	}
}

static GPtrArray *
channels_of(struct dvb_file *file)
{
	GPtrArray *channels = g_ptr_array_new_with_free_func((GDestroyNotify)umms_dvb_channel_free);
	for (struct dvb_entry *e = file->first_entry; e; e = e->next) {
		if (!e->channel)
			continue;
		struct umms_dvb_channel *c = g_new0(struct umms_dvb_channel, 1);
		c->name = g_strdup(e->channel);
		c->uri = umms_dvb_uri_for(e->channel);
		c->number = e->vchannel && *e->vchannel ? g_utf8_make_valid(e->vchannel, -1) : NULL;
		c->onid = e->network_id;
		c->tsid = e->transport_id;
		c->sid = e->service_id;
		c->tuning = umms_dvb_entry_tuning(e, &c->delsys);
		g_ptr_array_add(channels, c);
	}
	return channels;
}

static GPtrArray *
run(struct scan *scan, GError **error)
{
	struct dvb_file *initial = dvb_read_file_format(scan->initial, SYS_UNDEFINED, FILE_DVBV5);
	if (!initial) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"%s is no DVBv5 initial tuning file", scan->initial);
		return NULL;
	}
	struct dvb_v5_fe_parms *parms = dvb_fe_open_flags((int)scan->adapter,
		(int)scan->frontend, 0, 0, umms_dvb_log_cb, O_RDWR);
	if (!parms) {
		dvb_file_free(initial);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"the tuner /dev/dvb/adapter%u/frontend%u cannot be opened (busy?)",
			scan->adapter, scan->frontend);
		return NULL;
	}
	int dmx = dvb_dmx_open((int)scan->adapter, (int)scan->frontend);
	if (dmx < 0) {
		dvb_fe_close(parms);
		dvb_file_free(initial);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"the demux /dev/dvb/adapter%u/demux%u cannot be opened",
			scan->adapter, scan->frontend);
		return NULL;
	}
	struct dvb_file *found = NULL;
	unsigned tried = 0, locked = 0;
	for (struct dvb_entry *e = initial->first_entry; e; e = e->next) {
		uint32_t system = 0, frequency = 0;
		dvb_retrieve_entry_prop(e, DTV_DELIVERY_SYSTEM, &system);
		dvb_retrieve_entry_prop(e, DTV_FREQUENCY, &frequency);
		if (!tunes(scan, system)) {
			umms_info("dvb scan: %u skipped: the tuner has no delivery system %u",
				frequency, system);
			continue;
		}
		tried++;
		struct dvb_v5_descriptors *tables = dvb_scan_transponder(parms, e, dmx,
			check_frontend, scan, 0, 1);
		if (parms->abort) {
			dvb_scan_free_handler_table(tables);
			break;
		}
		if (!tables) {
			umms_info("dvb scan: nothing at %u", frequency);
			continue;
		}
		locked++;
		dvb_store_channel(&found, parms, tables, 0, 1);
		dvb_scan_free_handler_table(tables);
	}
	dvb_dmx_close(dmx);
	bool cancelled = parms->abort != 0;
	uint32_t current = parms->current_sys;
	dvb_fe_close(parms);
	dvb_file_free(initial);
	if (cancelled) {
		if (found)
			dvb_file_free(found);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "the scan was cancelled");
		return NULL;
	}
	umms_info("dvb scan: %u transponder%s tried, %u locked", tried, tried == 1 ? "" : "s",
		locked);
	if (!found) {
		/* Nothing found writes nothing: the list a previous scan made stays. */
		return g_ptr_array_new_with_free_func((GDestroyNotify)umms_dvb_channel_free);
	}
	name_channels(found);
	g_autofree char *dir = g_path_get_dirname(scan->channels);
	if (g_mkdir_with_parents(dir, 0700) != 0 ||
			dvb_write_file_format(scan->channels, found, current, FILE_DVBV5) != 0) {
		dvb_file_free(found);
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"the channel list %s cannot be written", scan->channels);
		return NULL;
	}
	GPtrArray *channels = channels_of(found);
	dvb_file_free(found);
	return channels;
}

static void
scan_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	GError *error = NULL;
	GPtrArray *channels = run(data, &error);
	if (channels)
		g_task_return_pointer(task, channels, (GDestroyNotify)g_ptr_array_unref);
	else
		g_task_return_error(task, error);
}

void
umms_dvb_scan(const struct umms_dvb_frontend *fe, const char *initial, const char *channels,
	GCancellable *cancellable, GAsyncReadyCallback callback, void *data)
{
	struct scan *scan = g_new0(struct scan, 1);
	scan->adapter = fe->adapter;
	scan->frontend = fe->frontend;
	scan->systems = g_array_copy(fe->system_ids);
	scan->initial = g_strdup(initial);
	scan->channels = g_strdup(channels);
	scan->cancellable = cancellable ? g_object_ref(cancellable) : NULL;
	GTask *task = g_task_new(NULL, cancellable, callback, data);
	g_task_set_task_data(task, scan, (GDestroyNotify)scan_free);
	g_task_run_in_thread(task, scan_thread);
	g_object_unref(task);
}

GPtrArray *
umms_dvb_scan_finish(GAsyncResult *result, GError **error)
{
	return g_task_propagate_pointer(G_TASK(result), error);
}
