/* The channel list and dvb:// URIs (dvb.h). */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <string.h>

#include <libdvbv5/dvb-file.h>
#include <libdvbv5/dvb-v5-std.h>

#include "dvb-private.h"
#include "dvb-probe.h"
#include "dvb.h"
#include "error.h"
#include "log.h"

void
umms_dvb_channel_free(struct umms_dvb_channel *channel)
{
	if (!channel)
		return;
	g_free(channel->name);
	g_free(channel->uri);
	g_free(channel->number);
	g_free(channel->provider);
	g_free(channel->tuning);
	g_free(channel);
}

char *
umms_dvb_channels_path(const struct umms_config *config)
{
	if (config->dvb.channels && *config->dvb.channels)
		return g_strdup(config->dvb.channels);
	return g_build_filename(g_get_user_state_dir(), "umms", "dvb-channels.conf", NULL);
}

bool
umms_dvb_is_uri(const char *uri)
{
	return uri && g_ascii_strncasecmp(uri, "dvb://", strlen("dvb://")) == 0;
}

char *
umms_dvb_uri_for(const char *name)
{
	g_autofree char *escaped = g_uri_escape_string(name, NULL, FALSE);
	return g_strconcat("dvb://", escaped, NULL);
}

/* A tuning property of libdvbv5's and the dvbbasebin setting it becomes. */
static const struct {
	uint32_t cmd;
	const char *key;
} settings[] = {
	{ DTV_DELIVERY_SYSTEM, "delsys" },
	{ DTV_FREQUENCY, "frequency" },
	{ DTV_BANDWIDTH_HZ, "bandwidth-hz" },
	{ DTV_MODULATION, "modulation" },
	{ DTV_CODE_RATE_HP, "code-rate-hp" },
	{ DTV_CODE_RATE_LP, "code-rate-lp" },
	{ DTV_INNER_FEC, "code-rate-hp" },
	{ DTV_GUARD_INTERVAL, "guard" },
	{ DTV_TRANSMISSION_MODE, "trans-mode" },
	{ DTV_HIERARCHY, "hierarchy" },
	{ DTV_INVERSION, "inversion" },
	{ DTV_SYMBOL_RATE, "symbol-rate" },
	{ DTV_PILOT, "pilot" },
	{ DTV_ROLLOFF, "rolloff" },
	{ DTV_STREAM_ID, "stream-id" },
	{ DTV_POLARIZATION, "polarity" },
};

char *
umms_dvb_entry_tuning(const struct dvb_entry *entry, unsigned *delsys)
{
	GString *tuning = g_string_new(NULL);
	*delsys = 0;
	for (unsigned i = 0; i < entry->n_props && i < DTV_MAX_COMMAND; i++) {
		uint32_t cmd = entry->props[i].cmd, value = entry->props[i].u.data;
		const char *key = NULL;
		for (size_t k = 0; k < G_N_ELEMENTS(settings) && !key; k++) {
			if (settings[k].cmd == cmd)
				key = settings[k].key;
		}
		if (!key)
			continue;
		if (cmd == DTV_DELIVERY_SYSTEM)
			*delsys = value;
		if (cmd == DTV_STREAM_ID && value > 65535)
			continue;   /* NO_STREAM_ID_FILTER */
		if (cmd == DTV_POLARIZATION) {
			static const char *const polarities[] = { NULL, "H", "V", "L", "R" };
			if (value < G_N_ELEMENTS(polarities) && polarities[value])
				g_string_append_printf(tuning, "%spolarity=%s",
					tuning->len ? "&" : "", polarities[value]);
			continue;
		}
		/* The kernel's symbol rate is in Bd, dvbbasebin's in kBd. */
		if (cmd == DTV_SYMBOL_RATE)
			value /= 1000;
		g_string_append_printf(tuning, "%s%s=%u", tuning->len ? "&" : "", key, value);
	}
	g_string_append_printf(tuning, "%sprogram-numbers=%u", tuning->len ? "&" : "",
		entry->service_id);
	return g_string_free(tuning, FALSE);
}

/* The NAME of dvb://NAME (unescaped, g_free), NULL when @uri is not one. */
static char *
uri_name(const char *uri)
{
	if (!umms_dvb_is_uri(uri))
		return NULL;
	const char *name = uri + strlen("dvb://");
	if (!*name || strpbrk(name, "?#/"))
		return NULL;
	return g_uri_unescape_string(name, NULL);
}

struct umms_dvb_channel *
umms_dvb_lookup(const char *path, const char *uri, GError **error)
{
	g_autofree char *name = uri_name(uri);
	if (!name) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"not a DVB channel: \"%s\" (dvb://NAME, a name a channel scan found)", uri);
		return NULL;
	}
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"no DVB channel %s: no channel list (%s): scan first (Resources1.ScanTuner)",
			name, path);
		return NULL;
	}
	struct dvb_file *file = dvb_read_file(path);
	if (!file) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_FAILED,
			"the DVB channel list %s cannot be read", path);
		return NULL;
	}
	struct umms_dvb_channel *channel = NULL;
	for (struct dvb_entry *e = file->first_entry; e && !channel; e = e->next) {
		if (!e->channel || strcmp(e->channel, name) != 0)
			continue;
		channel = g_new0(struct umms_dvb_channel, 1);
		channel->name = g_strdup(name);
		channel->uri = umms_dvb_uri_for(name);
		channel->number = e->vchannel && *e->vchannel ? g_strdup(e->vchannel) : NULL;
		channel->onid = e->network_id;
		channel->tsid = e->transport_id;
		channel->sid = e->service_id;
		channel->tuning = umms_dvb_entry_tuning(e, &channel->delsys);
	}
	dvb_file_free(file);
	if (!channel)
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NOT_FOUND,
			"no DVB channel %s in %s", name, path);
	return channel;
}

char *
umms_dvb_engine_uri(const struct umms_dvb_channel *channel, const struct umms_dvb_frontend *fe)
{
	return g_strdup_printf("%s?adapter=%u&frontend=%u&%s", channel->uri, fe->adapter,
		fe->frontend, channel->tuning);
}
