#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ummsctl.h"

/* The track keys print_track() knows; any other key is shown as key=value. */
static const char *const track_keys[] = {
	"codec", "codec-description", "width", "height", "framerate", "par-n", "par-d",
	"channels", "rate", "bitrate", "language", "external", NULL,
};

char *
umms_ctl_format_time(gint64 us, bool fraction)
{
	if (us < 0)
		return g_strdup("-:--:--");
	gint64 s = us / G_USEC_PER_SEC;
	int min = (int)(s / 60 % 60), sec = (int)(s % 60);
	if (fraction)
		return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d.%03d", s / 3600, min, sec,
			(int)(us % G_USEC_PER_SEC / 1000));
	return g_strdup_printf("%" G_GINT64_FORMAT ":%02d:%02d", s / 3600, min, sec);
}

/* Digits with at most one '.', at least one digit: no sign, space, exponent. */
static bool
parse_seconds(const char *text, bool allow_fraction, double *value)
{
	int digits = 0, dots = 0;
	for (const char *p = text; *p; p++) {
		if (g_ascii_isdigit(*p))
			digits++;
		else if (*p == '.')
			dots++;
		else
			return false;
	}
	if (digits == 0 || dots > (allow_fraction ? 1 : 0))
		return false;
	*value = g_ascii_strtod(text, NULL);
	return true;
}

bool
umms_ctl_parse_seek(const char *text, gint64 *us, bool *relative)
{
	bool negative = text[0] == '-';
	*relative = negative || text[0] == '+';
	g_auto(GStrv) parts = g_strsplit(text + (*relative ? 1 : 0), ":", -1);
	guint n = g_strv_length(parts);
	if (n < 1 || n > 3)
		return false;

	double seconds = 0;
	for (guint i = 0; i < n; i++) {
		double value;
		if (!parse_seconds(parts[i], i == n - 1, &value))
			return false;
		/* The fields after the first are minutes and seconds. */
		if (i > 0 && value >= 60)
			return false;
		seconds = seconds * 60 + value;
	}
	/* About 31 years: far beyond any media, far within gint64 µs. */
	if (seconds > 1e9)
		return false;
	*us = (gint64)(seconds * G_USEC_PER_SEC + 0.5);
	if (negative)
		*us = -*us;
	return true;
}

bool
umms_ctl_parse_double(const char *text, double *value)
{
	char *end;
	if (!text[0] || g_ascii_isspace(text[0]))
		return false;
	errno = 0;
	double v = g_ascii_strtod(text, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*value = v;
	return true;
}

bool
umms_ctl_parse_bool(const char *text, bool *value)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };
	for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
		if (g_ascii_strcasecmp(text, yes[i]) == 0) {
			*value = true;
			return true;
		}
		if (g_ascii_strcasecmp(text, no[i]) == 0) {
			*value = false;
			return true;
		}
	}
	return false;
}

static const char *
or_empty(const char *text)
{
	return text ? text : "";
}

static const char *
yes_no(gboolean value)
{
	return value ? "yes" : "no";
}

/* A value as a person reads it: strings without quotes, the rest as GVariant text. */
static char *
format_value(GVariant *value)
{
	if (g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
		return g_variant_dup_string(value, NULL);
	return g_variant_print(value, FALSE);
}

void
umms_ctl_print_summary(UmmsPlayer1 *player, const char *path)
{
	g_autofree char *position = umms_ctl_format_time(umms_player1_get_position(player), false);
	g_autofree char *duration = umms_ctl_format_time(umms_player1_get_duration(player), false);
	printf("%s  %-7s  %s/%s  %s\n", path, or_empty(umms_player1_get_state(player)),
		position, duration, or_empty(umms_player1_get_uri(player)));
}

static int
lookup_int(GVariantDict *dict, const char *key)
{
	gint32 value;
	return g_variant_dict_lookup(dict, key, "i", &value) ? value : 0;
}

static const char *
lookup_string(GVariantDict *dict, const char *key)
{
	const char *value;
	return g_variant_dict_lookup(dict, key, "&s", &value) ? value : "";
}

/*
 * "video 0*: h264 320x240 25 fps par 1/1 (H.264 (High Profile))": kind,
 * index, '*' when current, then whatever the track has of codec, geometry or
 * channels, bitrate, language, description, "external", other keys.
 */
static void
print_track(const char *kind, gsize index, bool current, GVariant *track)
{
	g_auto(GVariantDict) dict;
	g_variant_dict_init(&dict, track);
	g_autoptr(GString) line = g_string_new(NULL);
	const char *codec = lookup_string(&dict, "codec");
	g_string_append_printf(line, "  %s %" G_GSIZE_FORMAT "%s: %s", kind, index,
		current ? "*" : "", codec[0] ? codec : "unknown");

	int width = lookup_int(&dict, "width"), height = lookup_int(&dict, "height");
	if (width > 0 && height > 0)
		g_string_append_printf(line, " %dx%d", width, height);
	double fps;
	if (g_variant_dict_lookup(&dict, "framerate", "d", &fps) && fps > 0)
		g_string_append_printf(line, " %g fps", fps);
	int par_n = lookup_int(&dict, "par-n"), par_d = lookup_int(&dict, "par-d");
	if (par_n > 0 && par_d > 0)
		g_string_append_printf(line, " par %d/%d", par_n, par_d);
	int channels = lookup_int(&dict, "channels"), rate = lookup_int(&dict, "rate");
	if (channels > 0)
		g_string_append_printf(line, " %d ch", channels);
	if (rate > 0)
		g_string_append_printf(line, " %d Hz", rate);
	int bitrate = lookup_int(&dict, "bitrate");
	if (bitrate > 0)
		g_string_append_printf(line, " %d kb/s", (bitrate + 500) / 1000);
	const char *language = lookup_string(&dict, "language");
	if (language[0])
		g_string_append_printf(line, " %s", language);
	const char *description = lookup_string(&dict, "codec-description");
	if (description[0])
		g_string_append_printf(line, " (%s)", description);
	gboolean external;
	if (g_variant_dict_lookup(&dict, "external", "b", &external) && external)
		g_string_append(line, " external");

	GVariantIter iter;
	const char *key;
	GVariant *value;
	g_variant_iter_init(&iter, track);
	while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
		if (!g_strv_contains(track_keys, key)) {
			g_autofree char *text = format_value(value);
			g_string_append_printf(line, " %s=%s", key, text);
		}
		g_variant_unref(value);
	}
	printf("%s\n", line->str);
}

static gsize
print_tracks(const char *kind, GVariant *tracks, int current)
{
	gsize n = tracks ? g_variant_n_children(tracks) : 0;
	for (gsize i = 0; i < n; i++) {
		g_autoptr(GVariant) track = g_variant_get_child_value(tracks, i);
		print_track(kind, i, current >= 0 && (gsize)current == i, track);
	}
	return n;
}

/* "Title:" then "  key=value" for each entry of an a{sv}, "  none" for none. */
static void
print_dict(const char *title, GVariant *dict)
{
	GVariantIter iter;
	const char *key;
	GVariant *value;
	bool any = false;

	printf("%s:\n", title);
	if (dict) {
		g_variant_iter_init(&iter, dict);
		while (g_variant_iter_next(&iter, "{&sv}", &key, &value)) {
			g_autofree char *text = format_value(value);
			printf("  %s=%s\n", key, text);
			g_variant_unref(value);
			any = true;
		}
	}
	if (!any)
		printf("  none\n");
}

void
umms_ctl_print_info(UmmsPlayer1 *player, const char *path)
{
	gint64 position = umms_player1_get_position(player);
	gint64 duration = umms_player1_get_duration(player);
	g_autofree char *position_text = umms_ctl_format_time(position, true);
	g_autofree char *duration_text = umms_ctl_format_time(duration, true);

	printf("Player:           %s\n", path);
	printf("Uri:              %s\n", or_empty(umms_player1_get_uri(player)));
	printf("State:            %s\n", or_empty(umms_player1_get_state(player)));
	printf("Position:         %s (%" G_GINT64_FORMAT " µs)\n", position_text, position);
	printf("Duration:         %s (%" G_GINT64_FORMAT " µs)\n", duration_text, duration);
	printf("Rate:             %g\n", umms_player1_get_rate(player));
	printf("Volume:           %g\n", umms_player1_get_volume(player));
	printf("Mute:             %s\n", yes_no(umms_player1_get_mute(player)));
	printf("Seekable:         %s\n", yes_no(umms_player1_get_seekable(player)));
	printf("IsLive:           %s\n", yes_no(umms_player1_get_is_live(player)));
	printf("HasVideo:         %s\n", yes_no(umms_player1_get_has_video(player)));
	printf("HasAudio:         %s\n", yes_no(umms_player1_get_has_audio(player)));
	printf("CanFullscreen:    %s\n", yes_no(umms_player1_get_can_fullscreen(player)));
	printf("Container:        %s\n", or_empty(umms_player1_get_container(player)));
	printf("Decoder:          %s\n", or_empty(umms_player1_get_decoder(player)));
	printf("Engine:           %s\n", or_empty(umms_player1_get_engine(player)));
	printf("Priority:         %s\n", or_empty(umms_player1_get_priority(player)));
	printf("Attended:         %s\n", yes_no(umms_player1_get_attended(player)));
	printf("BufferingPercent: %d\n", umms_player1_get_buffering_percent(player));
	printf("SubtitleDelay:    %g ms\n",
		(double)umms_player1_get_subtitle_delay(player) / 1000.0);
	GVariant *window = umms_player1_get_timeshift_window(player);
	gint64 start = -1, end = -1;
	if (window)
		g_variant_get(window, "(xx)", &start, &end);
	if (!umms_player1_get_timeshift_enabled(player)) {
		printf("Timeshift:        off\n");
	} else if (start < 0) {
		printf("Timeshift:        on, starting\n");
	} else {
		g_autofree char *from = umms_ctl_format_time(start, false);
		g_autofree char *to = umms_ctl_format_time(end, false);
		printf("Timeshift:        on, window %s to %s\n", from, to);
	}
	if (umms_player1_get_blocked(player)) {
		const char *rating = or_empty(umms_player1_get_block_rating(player));
		printf("Blocked:          yes (%s%s%s)\n", or_empty(umms_player1_get_block_reason(player)),
			*rating ? ", " : "", rating);
	} else {
		printf("Blocked:          no\n");
	}

	printf("Tracks:\n");
	gsize n = print_tracks("video", umms_player1_get_video_tracks(player),
		umms_player1_get_current_video(player));
	n += print_tracks("audio", umms_player1_get_audio_tracks(player),
		umms_player1_get_current_audio(player));
	n += print_tracks("subtitle", umms_player1_get_subtitle_tracks(player),
		umms_player1_get_current_subtitle(player));
	if (n == 0)
		printf("  none\n");
	print_dict("Metadata", umms_player1_get_metadata(player));
	print_dict("Stats", umms_player1_get_stats(player));
}

/* "path (priority), …" of an a(ss), or "-". */
static char *
holders_text(GVariant *list)
{
	if (!list || g_variant_n_children(list) == 0)
		return g_strdup("-");
	GString *out = g_string_new(NULL);
	for (gsize i = 0; i < g_variant_n_children(list); i++) {
		const char *name, *priority;
		g_variant_get_child(list, i, "(&s&s)", &name, &priority);
		g_string_append_printf(out, "%s%s (%s)", i ? ", " : "", name, priority);
	}
	return g_string_free(out, FALSE);
}

/* "  label: a, b" of the pool's as field @field, when it has a non-empty one. */
static void
print_list(GVariant *pool, const char *field, const char *label)
{
	g_autoptr(GVariant) list = g_variant_lookup_value(pool, field, G_VARIANT_TYPE("as"));
	if (!list || g_variant_n_children(list) == 0)
		return;
	g_autofree const char **items = g_variant_get_strv(list, NULL);
	g_autofree char *text = g_strjoinv(" ", (char **)items);
	printf("    %s: %s\n", label, text);
}

void
umms_ctl_print_resources(GVariant *decoders, GVariant *captures, GVariant *planes,
	GVariant *tuners, const char *va)
{
	printf("%-20s %5s %5s  %-10s %-11s %s\n", "KIND", "TOTAL", "FREE", "SOURCE", "MAX SIZE",
		"HOLDERS / WAITING");
	GVariant *const groups[] = { decoders, captures, planes, tuners };
	unsigned pools = 0;
	for (size_t g = 0; g < G_N_ELEMENTS(groups); g++) {
		GVariantIter iter;
		GVariant *pool;
		g_variant_iter_init(&iter, groups[g]);
		while ((pool = g_variant_iter_next_value(&iter))) {
			const char *kind = "", *source = "";
			guint32 total = 0, free_units = 0;
			gint32 w = 0, h = 0;
			g_variant_lookup(pool, "kind", "&s", &kind);
			g_variant_lookup(pool, "source", "&s", &source);
			g_variant_lookup(pool, "total", "u", &total);
			g_variant_lookup(pool, "free", "u", &free_units);
			g_variant_lookup(pool, "max-width", "i", &w);
			g_variant_lookup(pool, "max-height", "i", &h);
			g_autoptr(GVariant) holders = g_variant_lookup_value(pool, "holders", NULL);
			g_autoptr(GVariant) waiting = g_variant_lookup_value(pool, "waiting", NULL);
			g_autofree char *held = holders_text(holders);
			g_autofree char *waits = holders_text(waiting);
			g_autofree char *size = w > 0 ? g_strdup_printf("%dx%d", w, h) : g_strdup("-");
			printf("%-20s %5u %5u  %-10s %-11s %s / %s\n", kind, total, free_units, source,
				size, held, waits);
			const char *name = NULL;
			if (g_variant_lookup(pool, "name", "&s", &name))
				printf("    name: %s\n", name);
			print_list(pool, "elements", "elements");
			print_list(pool, "devices", "devices");
			print_list(pool, "formats", "formats");
			print_list(pool, "sizes", "sizes");
			g_variant_unref(pool);
			pools++;
		}
	}
	if (!pools)
		printf("(no hardware units: none probed, none configured in [resources])\n");
	printf("VA-API: %s\n", va);
}

/* What --help says of the commands (ummsctl.c keeps the table they run from). */
const char umms_ctl_commands_help[] =
	"Commands:\n"
	"  play [URI|PATH]      open URI or PATH in a new player, play it and print the\n"
	"                       player's path; without an argument, resume the player\n"
	"  pause                pause the player\n"
	"  play-pause           pause the player if it is playing, else play it\n"
	"  stop                 stop the player\n"
	"  seek OFFSET          +S or -S: move by S seconds (+10, -1.5);\n"
	"                       S, M:SS or H:MM:SS: go to that position\n"
	"  rate R               set the playback rate (2, 0.5, -1)\n"
	"  volume V             set the volume, 0.0 to 1.0\n"
	"  mute on|off          mute or unmute\n"
	"  timeshift on|off     time-shift a live player: pause and seek back in what\n"
	"                       it recorded ([recording] timeshift-window)\n"
	"  track KIND INDEX     select video, audio or subtitle track INDEX\n"
	"                       (subtitles: -1 or off for none)\n"
	"  subtitles on|off|N   show subtitles (the external file if added, else the\n"
	"                       media's first track), hide them, or show track N\n"
	"  subtitles URI|PATH   add an external subtitle file (SRT, WebVTT, SSA/ASS…)\n"
	"                       and show it; \"\" removes it\n"
	"  subtitle-delay [MS]  show subtitles MS milliseconds later (negative:\n"
	"                       earlier); without MS, print the delay\n"
	"  step [N]             step N video frames (default 1; negative: backwards)\n"
	"  list                 list the players: path, state, position/duration, URI\n"
	"  info                 show every property of the player\n"
	"  destroy              destroy the player\n"
	"  wait                 wait for the player's end of stream (exit 0) or error (exit 1);\n"
	"                       returns at once if it is stopped\n"
	"  version              print ummsd's version\n"
	"  show                 show the player on the screen ummsd drives (--drm, --headless)\n"
	"  capture FILE         write what that screen shows to FILE as PNG\n"
	"  place PLAYER X Y W H place PLAYER's video at X,Y (W by H) relative to the newest\n"
	"                       window on ummsd's screen, in its units (Display1.PlacePlayer;\n"
	"                       --clip X,Y,W,H, --z N, --over, --hidden)\n"
	"  unplace PLAYER       take that video off the screen again\n"
	"  resources            the hardware ummsd shares out: decoders, capture devices,\n"
	"                       planes, tuners, who holds them and who waits\n"
	"  record URI|PATH DEST [SECONDS]  record it now (no transcoding) into DEST\n"
	"                       (.mkv or .ts, inside the recording directories), for\n"
	"                       SECONDS or until it ends; prints the recording's path\n"
	"  schedule URI|PATH DEST START DURATION  record it unattended at START\n"
	"                       (+SECONDS or 2026-12-03T20:00) for DURATION (seconds,\n"
	"                       M:SS, H:MM:SS): kept across restarts of ummsd\n"
	"  recordings           every recording: state, size, file; a progress bar\n"
	"                       for running ones\n"
	"  delete-recording N|PATH  forget recording N (/org/umms/recording/N) and\n"
	"                       remove its files; a running one stops first\n"
	"  channels             the guide's channels: id, number, name, groups, URI\n"
	"  guide [CHANNEL]      now and next on every channel; with CHANNEL (its\n"
	"                       number, name or id), its programmes for the next day\n"
	"  search WORDS         programmes whose title or description has every word\n"
	"                       (accents and case ignored)\n"
	"  import-m3u FILE      read channels from an M3U playlist (tvg-id, group-title…)\n"
	"  import-xmltv FILE    read programmes (and channels) from an XMLTV file\n"
	"  record-programme ID [SECONDS|BEFORE,AFTER]  record programme ID of the guide\n"
	"                       (its channel, its times, padded by SECONDS); moves with it\n"
	"  series add KEY=VALUE...  record every upcoming programme that matches:\n"
	"                       title=PATTERN (* and ?), series-id=ID, channel=N,\n"
	"                       new-only=yes|no (default yes: an episode once),\n"
	"                       padding=SECONDS[,AFTER]; prints the rule's id\n"
	"  series list          the series rules\n"
	"  series remove ID     no more recordings for rule ID (scheduled ones stay)\n"
	"  parental status      parental control: on or off, thresholds, locked channels\n"
	"  parental enable|disable, block-unrated on|off, threshold SCHEME AGE|none,\n"
	"                       lock-channel ID, unlock-channel ID, set-pin: change it\n"
	"                       (the PIN from --pin, else asked for; set-pin's new one\n"
	"                       from --new-pin, else asked for)\n"
	"  parental unlock PLAYER programme|channel|time [SECONDS]  let PLAYER show what\n"
	"                       is blocked: this programme, this channel, or SECONDS\n"
	"  entitlements list    every entitled item: its terms, plays, whether valid\n"
	"  entitlements get ITEM  the item (URI, PATH, or prefix ending in *) or the one\n"
	"                       covering the URI ITEM\n"
	"  entitlements grant ITEM [--max-plays N] [--not-before T] [--not-after T]\n"
	"                       [--window SECONDS]  entitle ITEM (T: +SECONDS or\n"
	"                       2026-12-24T20:00); plays start anew\n"
	"  entitlements revoke ITEM  refuse ITEM from now on (playing ones stop)\n"
	"\n"
	"The player is the one given with --player, else the newest playing player,\n"
	"else the newest player. Exit status: 0 on success, 1 when ummsd reports an\n"
	"error, 2 for a usage error.";
