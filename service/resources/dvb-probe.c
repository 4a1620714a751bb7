/* The DVB frontends found at start (dvb-probe.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdvbv5/dvb-fe.h>

#include "dvb-probe.h"
#include "log.h"

static void
frontend_free(struct umms_dvb_frontend *fe)
{
	g_free(fe->path);
	g_free(fe->name);
	g_ptr_array_unref(fe->systems);
	g_array_unref(fe->system_ids);
	g_free(fe);
}

/* libdvbv5 logs through this: its messages go to our debug log, not stderr. */
static void
umms_dvb_log_cb(int level, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *text = g_strdup_vprintf(format, args);
	va_end(args);
	umms_debug("libdvbv5: %s", text);
}

/* The number after @prefix in @name ("adapter12" → 12), -1 when it is not that. */
static int
numbered(const char *name, const char *prefix)
{
	if (!g_str_has_prefix(name, prefix))
		return -1;
	const char *digits = name + strlen(prefix);
	if (!*digits || strlen(digits) > 4 || strspn(digits, "0123456789") != strlen(digits))
		return -1;
	return atoi(digits);
}

static int
compare_numbers(gconstpointer a, gconstpointer b)
{
	return *(const int *)a - *(const int *)b;
}

/* The numbers of the entries of @dir called PREFIX<n>, sorted. */
static GArray *
list_numbered(const char *dir, const char *prefix)
{
	GArray *numbers = g_array_new(FALSE, FALSE, sizeof(int));
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	const char *name;
	while (d && (name = g_dir_read_name(d))) {
		int n = numbered(name, prefix);
		if (n >= 0)
			g_array_append_val(numbers, n);
	}
	g_array_sort(numbers, compare_numbers);
	return numbers;
}

static void
probe_frontend(struct umms_dvb_probe *probe, const char *dir, int adapter, int frontend)
{
	char path[64];
	snprintf(path, sizeof(path), "%s/adapter%d/frontend%d", dir, adapter, frontend);
	/*
	 * libdvbv5 opens /dev/dvb/adapterN/frontendM itself; another folder
	 * (a test's) cannot be probed through it.
	 */
	if (strcmp(dir, "/dev/dvb") != 0)
		return;
	/* Read-only: a frontend another program tunes can still be asked. */
	struct dvb_v5_fe_parms *parms = dvb_fe_open_flags(adapter, frontend, 0, 0, umms_dvb_log_cb,
		O_RDONLY | O_NONBLOCK);
	if (!parms) {
		umms_debug("dvb: %s cannot be opened", path);
		return;
	}
	struct umms_dvb_frontend *fe = g_new0(struct umms_dvb_frontend, 1);
	fe->path = g_strdup(path);
	fe->adapter = (unsigned)adapter;
	fe->frontend = (unsigned)frontend;
	fe->name = g_strndup(parms->info.name, sizeof(parms->info.name));
	fe->systems = g_ptr_array_new_with_free_func(g_free);
	fe->system_ids = g_array_new(FALSE, FALSE, sizeof(unsigned));
	for (int i = 0; i < parms->num_systems && i < MAX_DELIVERY_SYSTEMS; i++) {
		unsigned system = parms->systems[i];
		const char *name = system < G_N_ELEMENTS(delivery_system_name) ?
			delivery_system_name[system] : NULL;
		g_ptr_array_add(fe->systems, name ? g_strdup(name) :
			g_strdup_printf("%u", system));
		g_array_append_val(fe->system_ids, system);
	}
	dvb_fe_close(parms);
	GString *systems = g_string_new(NULL);
	for (guint i = 0; i < fe->systems->len; i++)
		g_string_append_printf(systems, "%s%s", i ? ", " : "",
			(const char *)fe->systems->pdata[i]);
	umms_info("dvb: tuner %s: %s (%s)", fe->path, fe->name, systems->str);
	g_string_free(systems, TRUE);
	g_ptr_array_add(probe->frontends, fe);
}

void
umms_dvb_probe_run(struct umms_dvb_probe *probe, const char *dir)
{
	probe->frontends = g_ptr_array_new_with_free_func((GDestroyNotify)frontend_free);
	if (!dir)
		dir = "/dev/dvb";
	g_autoptr(GArray) adapters = list_numbered(dir, "adapter");
	for (guint i = 0; i < adapters->len; i++) {
		int adapter = g_array_index(adapters, int, i);
		g_autofree char *folder = g_strdup_printf("%s/adapter%d", dir, adapter);
		g_autoptr(GArray) frontends = list_numbered(folder, "frontend");
		for (guint k = 0; k < frontends->len; k++)
			probe_frontend(probe, dir, adapter, g_array_index(frontends, int, k));
	}
}

void
umms_dvb_probe_finish(struct umms_dvb_probe *probe)
{
	if (probe->frontends)
		g_ptr_array_unref(probe->frontends);
	probe->frontends = NULL;
}

bool
umms_dvb_frontend_tunes(const struct umms_dvb_frontend *fe, unsigned system)
{
	for (guint i = 0; i < fe->system_ids->len; i++) {
		if (g_array_index(fe->system_ids, unsigned, i) == system)
			return true;
	}
	return false;
}
