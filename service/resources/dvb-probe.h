/*
 * The DVB tuners the machine has, found at start with libdvbv5 on
 * /dev/dvb/adapterN/frontendM: the frontend's name and the delivery
 * systems it tunes (DVB-T, DVB-T2, DVB-C, DVB-S/S2, ISDB-T, ATSC…). Each
 * frontend is a pool of one unit ("tuner:/dev/dvb/adapter0/frontend0"),
 * held by the player or recording that plays a dvb:// channel on it.
 */
#ifndef UMMS_SERVICE_DVB_PROBE_H
#define UMMS_SERVICE_DVB_PROBE_H

#include <stdbool.h>
#include <glib.h>

struct umms_dvb_frontend {
	char *path;                /* "/dev/dvb/adapter0/frontend0" */
	unsigned adapter, frontend;
	char *name;                /* FE_GET_INFO's: "Dummy demod for DVB-T/T2/C/S/S2" */
	GPtrArray *systems;        /* char *: libdvbv5's names, "DVBT", "DVBC/ANNEX_A" … */
	GArray *system_ids;        /* unsigned: the kernel's fe_delivery_system values */
};

struct umms_dvb_probe {
	GPtrArray *frontends;      /* struct umms_dvb_frontend *, never NULL */
};

/*
 * Every frontend under @dir (NULL: "/dev/dvb"), adapters and frontends
 * in the order of their numbers. Never fails: what cannot be opened is
 * left out, and said at debug level.
 */
void umms_dvb_probe_run(struct umms_dvb_probe *probe, const char *dir);
void umms_dvb_probe_finish(struct umms_dvb_probe *probe);
/* Whether @fe tunes delivery system @system (fe_delivery_system). */
bool umms_dvb_frontend_tunes(const struct umms_dvb_frontend *fe, unsigned system);

#endif
