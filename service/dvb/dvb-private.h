/* What dvb-channels.c and dvb-scan.c share. */
#ifndef UMMS_SERVICE_DVB_PRIVATE_H
#define UMMS_SERVICE_DVB_PRIVATE_H

struct dvb_entry;

/* "dvb://" and @name percent-encoded (g_free). */
char *umms_dvb_uri_for(const char *name);
/* dvbbasebin's settings for @entry (dvb.h's tuning; g_free); its delivery system in @delsys. */
char *umms_dvb_entry_tuning(const struct dvb_entry *entry, unsigned *delsys);

#endif
