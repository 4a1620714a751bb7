/*
 * DVB channels in ummsd: the channel scan (dvb-scan.c) and the channel
 * list it writes, which dvb:// URIs are resolved against (dvb-channels.c).
 *
 * A channel's URI is dvb://NAME, NAME being the service's name from the
 * SDT, percent-encoded (g_uri_escape_string: "dvb://Das%20Erste"); a name
 * a scan finds twice gets the service id after a '-' the second time
 * ("dvb://News-1234"). The tuning (delivery system, frequency, modulation,
 * service id …) is kept in the channel list, a DVBv5 channel file
 * (libdvbv5's format, the one dvbv5-scan writes; [dvb] channels), never
 * in the URI a client gives: ummsd resolves the name, picks a free tuner
 * that can receive the channel (Resources1 Tuners) and hands the engine
 * dvb://NAME?adapter=…&frontend=…&delsys=…&frequency=…&program-numbers=SID
 * (engines/gstreamer/gst-dvb.c), whose worker gets that tuner's nodes.
 */
#ifndef UMMS_SERVICE_DVB_H
#define UMMS_SERVICE_DVB_H

#include <stdbool.h>
#include <stdint.h>
#include <gio/gio.h>

#include "config.h"

struct umms_dvb_frontend;

/* A channel of the channel list, as a scan found it or a lookup read it. */
struct umms_dvb_channel {
	char *name;             /* unique in the list: the URI's NAME, unescaped */
	char *uri;              /* "dvb://NAME" */
	char *number;           /* the logical channel number (NIT), or NULL */
	char *provider;         /* or NULL */
	unsigned delsys;        /* fe_delivery_system: SYS_DVBT … */
	int onid, tsid, sid;
	/* dvbbasebin's settings, "delsys=3&frequency=474000000&…&program-numbers=SID" */
	char *tuning;
};

void umms_dvb_channel_free(struct umms_dvb_channel *channel);

/* [dvb] channels, or $XDG_STATE_HOME/umms/dvb-channels.conf (g_free). */
char *umms_dvb_channels_path(const struct umms_config *config);

/* Whether @uri is a dvb:// URI. */
bool umms_dvb_is_uri(const char *uri);

/*
 * The channel @uri (dvb://NAME) names in the channel list @path. False
 * with NOT_FOUND (no such channel, or no list: scan first) or
 * INVALID_ARGUMENT (not a dvb://NAME URI).
 */
struct umms_dvb_channel *umms_dvb_lookup(const char *path, const char *uri, GError **error);

/* The URI the engine opens for @channel on @fe (g_free). */
char *umms_dvb_engine_uri(const struct umms_dvb_channel *channel,
	const struct umms_dvb_frontend *fe);

/*
 * Scans with @fe (a thread of its own: libdvbv5 tunes and reads tables
 * for seconds) every transponder of @initial (a DVBv5 initial tuning file,
 * as dtv-scan-tables ships; [dvb] scan-file when the caller gave none),
 * writes what it found to the channel list @channels (replacing it) and
 * calls @callback on the caller's main context. A frontend another program
 * holds fails with BUSY.
 */
void umms_dvb_scan(const struct umms_dvb_frontend *fe, const char *initial,
	const char *channels, GCancellable *cancellable, GAsyncReadyCallback callback,
	void *data);
/* struct umms_dvb_channel * (free func set), in the order found; NULL with @error. */
GPtrArray *umms_dvb_scan_finish(GAsyncResult *result, GError **error);

#endif
