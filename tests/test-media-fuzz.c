/*
 * Mutated media (issue 15): clips damaged by zzuf, played through the API.
 *
 * /media-fuzz/clips: short clips with sound in MP4 (plain and fragmented),
 * Matroska, WebM and MPEG-TS (gen-clips-fuzz.c) are mutated by the zzuf
 * command (random bits flipped; now and then only past the headers, or
 * only in them) and played by PARALLEL players at once, each through
 * SetUri and Play, as a client would. Every clip must end within
 * CLIP_LIMIT_US of its SetUri in Eos or in a named error,
 * org.umms.Error.*, by the SetUri or Play reply or by the Error signal;
 * any other answer (the bus's NoReply or Timeout: nobody answered) or no
 * end at all fails the test, and so does a sanitizer report. Afterwards
 * ummsd still plays a good clip, and the descriptors and memory of the
 * process it runs in (this one: ummsd is in-process) are back where they
 * were after a warm-up round of the unmutated sources.
 *
 * The seed is printed; UMMS_TEST_SEED=N replays a campaign (from the same
 * generated sources: the muxers write dates, so rebuilt ones differ). Each
 * failing clip is printed with its zzuf command line and kept in a folder
 * the failure names. The CI run plays CLIPS clips; UMMS_TEST_LONG plays
 * THOROUGH_CLIPS.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer's runtime (sanitizer/allocator_interface.h, not shipped with GCC 12). */
size_t __sanitizer_get_current_allocated_bytes(void);
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

#define CLIPS 120
#define THOROUGH_CLIPS 2000
#define PARALLEL 4
/* From SetUri to Eos or a named error. */
#define CLIP_LIMIT_US (15 * G_USEC_PER_SEC)
/* A player is replaced by a new one after this many clips. */
#define CLIPS_PER_PLAYER 8
/* Slack of the resource check: descriptors, and bytes of memory. */
#define FD_SLACK 2
#define MEMORY_SLACK (8 * 1024 * 1024)

static const char *const sources[] = {
	"fuzz-h264-aac.mp4", "fuzz-fragmented.mp4", "fuzz-h264-opus.mkv",
	"fuzz-h264-vorbis.mkv", "fuzz-vp8-vorbis.webm", "fuzz-vp9-opus.webm",
	"fuzz-h264-aac.ts", "fuzz-mpeg2-mp2.ts", "fuzz-mpeg2-ac3.ts",
};

enum phase { IDLE, OPENING, STARTING, PLAYING };

struct campaign;

struct slot {
	struct campaign *c;
	unsigned number;
	char *player;
	guint subscription;
	unsigned clips_played;   /* by this player */
	/* The clip in play. */
	unsigned generation;     /* tells answers to an abandoned clip from current ones */
	enum phase phase;
	unsigned index;
	char *path;
	char *zzuf;              /* how it was made: the zzuf command line */
	gint64 start;
	guint timer;
	char *signalled;         /* "Eos" or the Error signal's name, once one came */
	char *signal_message;
};

struct campaign {
	GDBusConnection *bus;
	GRand *rand;
	guint32 seed;
	unsigned total, started, finished;
	struct slot slots[PARALLEL];
	const char *workdir;     /* clips in play */
	char *keepdir;           /* failing clips, made on the first failure */
	unsigned eos, failed, destroys_pending;
	unsigned bad_destroys;   /* DestroyPlayer calls that failed */
	GHashTable *errors;      /* error name -> count (GUINT_TO_POINTER) */
	gint64 max_us;
	unsigned max_index;
	GString *failures;
	bool warmup;             /* unmutated sources, one each */
	bool strict;             /* ... and each must end in Eos */
};

/* ---- GStreamer's own warnings ---- */

/*
 * Damaged streams make GStreamer's plugins warn and fail their own checks
 * (g_warning, g_return_if_fail: matroskademux casts a NULL pad parent on a
 * mutated WebM, for one). A service lives on after those (nothing makes them
 * fatal there), so the campaign does too: a warning or critical whose
 * innermost caller outside GLib is a GStreamer plugin, or GStreamer's core
 * called by a plugin or one of its threads, is counted and listed. One
 * from any other caller (ummsd's code, or GStreamer's core called by it)
 * stays fatal, as g_test_init() and G_DEBUG=fatal-criticals make it.
 */
static GMutex gst_warnings_lock;
static GString *gst_warnings;
static unsigned gst_warning_count;

enum caller { CALLER_GLIB, CALLER_GST_CORE, CALLER_GST_PLUGIN, CALLER_US, CALLER_OTHER };

static enum caller
caller_of(void *address)
{
	Dl_info info, ours;
	if (!dladdr(address, &info) || !info.dli_fname)
		return CALLER_OTHER;
	if (dladdr((void *)caller_of, &ours) && ours.dli_fbase == info.dli_fbase)
		return CALLER_US;
	const char *base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	if (g_str_has_prefix(base, "libglib-2.0.so") || g_str_has_prefix(base, "libgobject-2.0.so"))
		return CALLER_GLIB;
	if (strstr(info.dli_fname, "/gstreamer-1.0/"))
		return CALLER_GST_PLUGIN;
	if (g_str_has_prefix(base, "libgst"))
		return CALLER_GST_CORE;
	return CALLER_OTHER;
}

/* Whether the message being logged comes from GStreamer on its own. */
static bool
logged_by_gstreamer(void)
{
	void *frames[64];
	int n = backtrace(frames, G_N_ELEMENTS(frames));
	int i = 0;
	/* This writer, then GLib's logging. */
	while (i < n && caller_of(frames[i]) != CALLER_GLIB)
		i++;
	bool core = false;
	for (; i < n; i++) {
		switch (caller_of(frames[i])) {
		case CALLER_GLIB:
			break;
		case CALLER_GST_PLUGIN:
			return true;
		case CALLER_GST_CORE:
			core = true;
			break;
		case CALLER_US:
			/* Ours, or GStreamer's core called by ours. */
			return false;
		case CALLER_OTHER:
			/* GStreamer's core on a thread of its own, or another library. */
			if (!core)
				return false;
			break;
		}
	}
	return core;
}

static GLogWriterOutput
log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
	GLogWriterOutput out = g_log_writer_default(level, fields, n_fields, data);
	if (!(level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL)))
		return out;
	if (!logged_by_gstreamer())
		abort();
	const char *message = "", *domain = "";
	for (gsize i = 0; i < n_fields; i++) {
		if (strcmp(fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
			message = fields[i].value;
		if (strcmp(fields[i].key, "GLIB_DOMAIN") == 0 && fields[i].length < 0)
			domain = fields[i].value;
	}
	g_mutex_lock(&gst_warnings_lock);
	if (gst_warning_count++ < 10)
		g_string_append_printf(gst_warnings, "  %s: %s\n", domain, message);
	g_mutex_unlock(&gst_warnings_lock);
	return out;
}

/* ---- Mutation ---- */

static unsigned
pick(struct campaign *c, unsigned n)
{
	return (unsigned)g_rand_int_range(c->rand, 0, (gint32)n);
}

static gsize
file_size(const char *path)
{
	GStatBuf st;
	g_assert_cmpint(g_stat(path, &st), ==, 0);
	return (gsize)st.st_size;
}

/*
 * The next clip: a source, and how zzuf damages it, all drawn from the
 * campaign's generator in clip order, so a seed names the same clips
 * whichever player finishes first.
 */
static void
make_clip(struct campaign *c, struct slot *s)
{
	const char *source = c->warmup ? sources[s->index % G_N_ELEMENTS(sources)] :
		sources[pick(c, G_N_ELEMENTS(sources))];
	const char *in = umms_test_clip(source);
	g_autofree char *name = g_strdup_printf("%u-%s", s->index, source);
	g_free(s->path);
	s->path = g_build_filename(c->workdir, name, NULL);
	g_free(s->zzuf);
	if (c->warmup) {
		g_autofree char *data = NULL;
		gsize length;
		g_assert_true(g_file_get_contents(in, &data, &length, NULL));
		g_assert_true(g_file_set_contents(s->path, data, (gssize)length, NULL));
		s->zzuf = g_strdup_printf("(unmutated %s)", source);
		return;
	}
	gsize size = file_size(in);
	guint32 zseed = g_rand_int(c->rand);
	/* Bit ratios from one flip a clip to about one a hundred bytes. */
	static const char *const ratios[] = { "0.00001", "0.0001", "0.0005", "0.001", "0.002",
		"0.004", "0.01" };
	const char *ratio = ratios[pick(c, G_N_ELEMENTS(ratios))];
	g_autofree char *range = NULL;
	switch (pick(c, 10)) {
	case 0: case 1: case 2:
		/* Headers spared: only what lies past the first part. */
		range = g_strdup_printf("%" G_GSIZE_FORMAT "-", size * (pick(c, 40) + 5) / 100);
		break;
	case 3: case 4:
		/* Only the first bytes, where the headers are. */
		range = g_strdup_printf("0-%u", 64 + pick(c, 4096));
		break;
	default:
		break;
	}
	s->zzuf = g_strdup_printf("zzuf -s %u -r %s%s%s < %s > %s", zseed, ratio,
		range ? " -b " : "", range ? range : "", in, s->path);

	g_autofree char *seed_arg = g_strdup_printf("%u", zseed);
	const char *argv[] = { "zzuf", "-s", seed_arg, "-r", ratio, range ? "-b" : NULL, range,
		NULL };
	GError *error = NULL;
	GSubprocessLauncher *launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
	g_subprocess_launcher_set_stdin_file_path(launcher, in);
	g_subprocess_launcher_set_stdout_file_path(launcher, s->path);
	GSubprocess *zzuf = g_subprocess_launcher_spawnv(launcher, argv, &error);
	g_assert_no_error(error);
	g_assert_true(g_subprocess_wait_check(zzuf, NULL, &error));
	g_assert_no_error(error);
	g_object_unref(zzuf);
	g_object_unref(launcher);
}

/* ---- Players ---- */

static void slot_next(struct slot *s);

static void
signal_cb(GDBusConnection *bus, const char *sender, const char *path, const char *iface,
	const char *member, GVariant *params, gpointer data)
{
	struct slot *s = data;
	/*
	 * Signals before SetUri's answer belong to the clip before: Error
	 * comes only after the method that started the failing change
	 * returned, and ummsd's messages arrive in order.
	 */
	if (s->phase != STARTING && s->phase != PLAYING)
		return;
	if (s->signalled)
		return;
	if (strcmp(member, "Eos") == 0) {
		s->signalled = g_strdup("Eos");
	} else if (strcmp(member, "Error") == 0) {
		const char *name, *message;
		g_variant_get(params, "(&s&s)", &name, &message);
		s->signalled = g_strdup(name);
		s->signal_message = g_strdup(message);
	} else {
		return;
	}
	if (s->phase == PLAYING)
		slot_next(s);
}

static void
slot_new_player(struct slot *s)
{
	struct campaign *c = s->c;
	g_free(s->player);
	s->player = umms_test_create_player(c->bus, NULL);
	s->subscription = g_dbus_connection_signal_subscribe(c->bus, NULL, UMMS_PLAYER, NULL,
		s->player, NULL, G_DBUS_SIGNAL_FLAGS_NONE, signal_cb, s, NULL);
	s->clips_played = 0;
}

static void
destroyed(GObject *source, GAsyncResult *result, gpointer data)
{
	struct campaign *c = data;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	c->destroys_pending--;
	if (reply) {
		g_variant_unref(reply);
		return;
	}
	c->bad_destroys++;
	g_string_append_printf(c->failures, "  DestroyPlayer: %s\n", error->message);
	g_test_message("FAILED DestroyPlayer: %s", error->message);
	g_error_free(error);
}

static void
slot_drop_player(struct slot *s)
{
	struct campaign *c = s->c;
	if (!s->player)
		return;
	g_dbus_connection_signal_unsubscribe(c->bus, s->subscription);
	c->destroys_pending++;
	g_dbus_connection_call(c->bus, UMMS_NAME, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", s->player), G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE,
		30000, NULL, destroyed, c);
	g_clear_pointer(&s->player, g_free);
}

/* ---- Ends ---- */

static void
count_error(struct campaign *c, const char *name)
{
	gpointer n = g_hash_table_lookup(c->errors, name);
	g_hash_table_insert(c->errors, g_strdup(name), GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
}

static void
fail_clip(struct slot *s, const char *what)
{
	struct campaign *c = s->c;
	c->failed++;
	if (!c->keepdir) {
		GError *error = NULL;
		c->keepdir = g_dir_make_tmp("umms-media-fuzz-XXXXXX", &error);
		g_assert_no_error(error);
	}
	g_autofree char *base = g_path_get_basename(s->path);
	g_autofree char *kept = g_build_filename(c->keepdir, base, NULL);
	g_assert_cmpint(g_rename(s->path, kept), ==, 0);
	if (c->failed <= 20)
		g_string_append_printf(c->failures, "  clip %u: %s\n    (%s)\n    kept as %s\n",
			s->index, what, s->zzuf, kept);
	g_test_message("FAILED clip %u: %s; %s", s->index, what, s->zzuf);
}

/*
 * The clip in @s ended: in Eos or the named error @name (a reply's or the
 * signal's), or with @failure. Records it and starts the next.
 */
static void
slot_end(struct slot *s, const char *name, const char *failure)
{
	struct campaign *c = s->c;
	gint64 took = g_get_monotonic_time() - s->start;
	g_clear_handle_id(&s->timer, g_source_remove);
	c->finished++;
	if (took > c->max_us) {
		c->max_us = took;
		c->max_index = s->index;
	}
	g_autofree char *late = NULL;
	if (!failure && took > CLIP_LIMIT_US)
		failure = late = g_strdup_printf("ended (%s) only after %.1f s", name, took / 1e6);
	if (!failure && strcmp(name, "Eos") != 0 && !g_str_has_prefix(name, "org.umms.Error."))
		failure = late = g_strdup_printf("ended in %s, not a named error", name);
	if (failure) {
		fail_clip(s, failure);
		/* A fresh player for the next clip; this one is not trusted. */
		slot_drop_player(s);
	} else {
		if (strcmp(name, "Eos") == 0)
			c->eos++;
		else
			count_error(c, name);
		g_unlink(s->path);
	}
	if (c->warmup && c->strict && !failure && strcmp(name, "Eos") != 0)
		g_error("unmutated %s ended in %s", s->path, name);
	s->phase = IDLE;
	s->generation++;
	g_clear_pointer(&s->signalled, g_free);
	g_clear_pointer(&s->signal_message, g_free);
	if (s->player && ++s->clips_played >= CLIPS_PER_PLAYER)
		slot_drop_player(s);
}

struct pending {
	struct slot *slot;
	unsigned generation;
};

static struct pending *
pending_new(struct slot *s)
{
	struct pending *p = g_new(struct pending, 1);
	*p = (struct pending){ s, s->generation };
	return p;
}

/* The answer to SetUri or Play: NULL when it returned, else @error's name. */
static char *
answer(GObject *source, GAsyncResult *result, char **message)
{
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	if (reply) {
		g_variant_unref(reply);
		return NULL;
	}
	char *name = g_dbus_error_get_remote_error(error);
	*message = g_strdup(error->message);
	g_error_free(error);
	return name ? name : g_strdup("(no D-Bus error name)");
}

/*
 * The answer to @method for a slot: its slot when the call succeeded and
 * the slot still plays the clip it was made for; NULL when the clip moved
 * on, or it ended here (a named error ends it, anything else fails it).
 */
static struct slot *
slot_answered(GObject *source, GAsyncResult *result, struct pending *p, const char *method)
{
	struct slot *s = p->slot;
	g_autofree char *message = NULL;
	g_autofree char *name = answer(source, result, &message);
	bool current = p->generation == s->generation;
	g_free(p);
	if (!current)
		return NULL;
	if (name) {
		g_autofree char *what = g_strdup_printf("%s: %s: %s", method, name, message);
		slot_end(s, name, g_str_has_prefix(name, "org.umms.Error.") ? NULL : what);
		slot_next(s);
		return NULL;
	}
	return s;
}

static void
played(GObject *source, GAsyncResult *result, gpointer data)
{
	struct slot *s = slot_answered(source, result, data, "Play");
	if (!s)
		return;
	s->phase = PLAYING;
	if (s->signalled)
		slot_next(s);
}

static void
opened(GObject *source, GAsyncResult *result, gpointer data)
{
	struct slot *s = slot_answered(source, result, data, "SetUri");
	if (!s)
		return;
	s->phase = STARTING;
	g_dbus_connection_call(s->c->bus, UMMS_NAME, s->player, UMMS_PLAYER, "Play", NULL,
		G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE, 60000, NULL, played, pending_new(s));
}

static gboolean
too_long(gpointer data)
{
	struct slot *s = data;
	s->timer = 0;
	static const char *const phases[] = { "idle", "SetUri", "Play", "playing" };
	g_autofree char *what = g_strdup_printf("no end within %d s (waiting for %s)",
		(int)(CLIP_LIMIT_US / G_USEC_PER_SEC), phases[s->phase]);
	slot_end(s, NULL, what);
	slot_next(s);
	return G_SOURCE_REMOVE;
}

/* The slot's clip ended (or it has none yet): the next one, if any is left. */
static void
slot_next(struct slot *s)
{
	struct campaign *c = s->c;
	if (s->phase == PLAYING || s->phase == STARTING) {
		/* An end signalled, and Play has returned. */
		slot_end(s, s->signalled, NULL);
	}
	if (c->started >= c->total)
		return;
	s->index = c->started++;
	if (!s->player)
		slot_new_player(s);
	make_clip(c, s);
	g_autofree char *uri = g_filename_to_uri(s->path, NULL, NULL);
	s->phase = OPENING;
	s->start = g_get_monotonic_time();
	s->timer = g_timeout_add(CLIP_LIMIT_US / 1000, too_long, s);
	g_dbus_connection_call(c->bus, UMMS_NAME, s->player, UMMS_PLAYER, "SetUri",
		g_variant_new("(s)", uri), G_VARIANT_TYPE("()"), G_DBUS_CALL_FLAGS_NONE, 60000, NULL,
		opened, pending_new(s));
}

/* Plays @total clips, @parallel at a time; returns when all ended and players are gone. */
static void
campaign_run(struct campaign *c, unsigned total, unsigned parallel)
{
	c->total = total;
	c->started = c->finished = 0;
	for (unsigned i = 0; i < parallel; i++) {
		c->slots[i].c = c;
		c->slots[i].number = i;
		slot_next(&c->slots[i]);
	}
	while (c->finished < c->total)
		g_main_context_iteration(NULL, TRUE);
	for (unsigned i = 0; i < PARALLEL; i++)
		slot_drop_player(&c->slots[i]);
	while (c->destroys_pending > 0)
		g_main_context_iteration(NULL, TRUE);
}

/* ---- Resources ---- */

static long
rss_kib(void)
{
	g_autofree char *statm = NULL;
	g_assert_true(g_file_get_contents("/proc/self/statm", &statm, NULL, NULL));
	long pages = 0, resident = 0;
	g_assert_cmpint(sscanf(statm, "%ld %ld", &pages, &resident), ==, 2);
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * Bytes the program holds in live allocations: AddressSanitizer's count
 * under it, else glibc's. RSS is no measure of what is held: under the
 * sanitizer it keeps freed memory in quarantine (RSS grows by 170 MiB over
 * 60 clips), and malloc keeps freed pages for reuse.
 */
static gint64
memory_bytes(void)
{
#if UNDER_ASAN
	return (gint64)__sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 info = mallinfo2();
	return (gint64)(info.uordblks + info.hblkhd);
#endif
}

/* Waits until no player is left and the descriptors are at most @fds + FD_SLACK. */
static void
wait_settled(GDBusConnection *bus, unsigned fds)
{
	gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	while ((umms_test_player_count(bus) > 0 || umms_test_fd_count() > fds + FD_SLACK) &&
			g_get_monotonic_time() < end)
		umms_test_sleep(50);
}

/*
 * Waits until no player is left and the descriptors have stayed the same
 * for 2 s (at most 20 s in all): the baseline, taken once the workers of
 * the destroyed players are gone and the next spare has started.
 */
static void
wait_baseline(GDBusConnection *bus)
{
	gint64 end = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;
	unsigned fds = umms_test_fd_count(), same = 0;
	while (g_get_monotonic_time() < end && same < 40) {
		umms_test_sleep(50);
		unsigned now = umms_test_fd_count();
		same = now == fds && umms_test_player_count(bus) == 0 ? same + 1 : 0;
		fds = now;
	}
}

/* ---- The test ---- */

/* ummsd's unique name on the bus. */
static char *
name_owner(GDBusConnection *bus)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
		g_variant_new("(s)", UMMS_NAME), G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 10000,
		NULL, &error);
	g_assert_no_error(error);
	char *owner;
	g_variant_get(reply, "(s)", &owner);
	return owner;
}

static void
log_counts(struct campaign *c, const char *what, double seconds)
{
	GString *line = g_string_new("");
	g_string_append_printf(line, "%s: %u clips in %.1f s, %u parallel: %u Eos", what,
		c->finished, seconds, PARALLEL, c->eos);
	GHashTableIter iter;
	gpointer name, count;
	g_hash_table_iter_init(&iter, c->errors);
	while (g_hash_table_iter_next(&iter, &name, &count))
		g_string_append_printf(line, ", %u %s", GPOINTER_TO_UINT(count), (char *)name);
	g_string_append_printf(line, ", %u failed; longest %.2f s (clip %u)", c->failed,
		c->max_us / 1e6, c->max_index);
	g_test_message("%s", line->str);
	g_string_free(line, TRUE);
}

static void
test_clips(struct umms_test *t, gconstpointer data)
{
	g_autofree char *workdir = g_build_filename(umms_test_tmpdir(), "media-fuzz", NULL);
	g_assert_cmpint(g_mkdir_with_parents(workdir, 0700), ==, 0);
	struct campaign c = {
		.bus = t->bus,
		.seed = umms_test_seed(),
		.workdir = workdir,
		.errors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.failures = g_string_new(""),
		.strict = true,
	};
	c.rand = g_rand_new_with_seed(c.seed);
	unsigned total = umms_test_long() ? THOROUGH_CLIPS : CLIPS;
	g_test_message("seed %u (UMMS_TEST_SEED=%u replays it), %u clips", c.seed, c.seed, total);

	/*
	 * Warm-up: every source unmutated, to Eos, with the service's default
	 * time limits (under the sanitizers on a busy machine a good clip can
	 * take seconds to open; the first one alone, as it loads GStreamer's
	 * plugins). Then once more in the service of the campaign; then the
	 * baseline.
	 */
	c.warmup = true;
	gint64 start = g_get_monotonic_time();
	campaign_run(&c, 1, 1);
	campaign_run(&c, 2 * G_N_ELEMENTS(sources), PARALLEL);
	log_counts(&c, "warm-up (unmutated)", (g_get_monotonic_time() - start) / 1e6);
	g_assert_cmpuint(c.eos, ==, 1 + 2 * G_N_ELEMENTS(sources));
	g_assert_cmpuint(c.failed, ==, 0);
	/*
	 * GStreamer that neither opens a damaged file, nor plays it, nor says
	 * why is given up by ummsd after these, so that a clip ends inside
	 * its limit: opening, Play, then nothing arriving while playing, each
	 * at most 4 s (a good clip too slow for them ends in a named error):
	 * with 5 s, a clip that used all three ended after 15 s on a loaded
	 * machine.
	 */
	umms_test_restart(t, (const char *const[]){ "engine.open-timeout=4000",
		"engine.answer-timeout=4000", NULL });
	g_autofree char *owner = name_owner(t->bus);
	c.strict = false;
	campaign_run(&c, G_N_ELEMENTS(sources), PARALLEL);
	g_assert_cmpuint(c.failed, ==, 0);
	wait_baseline(t->bus);
	unsigned fds = umms_test_fd_count();
	long rss = rss_kib();
	gint64 memory = memory_bytes();

	c.warmup = false;
	c.eos = c.failed = 0;
	c.max_us = 0;
	g_hash_table_remove_all(c.errors);
	start = g_get_monotonic_time();
	campaign_run(&c, total, PARALLEL);
	double seconds = (g_get_monotonic_time() - start) / 1e6;
	log_counts(&c, "mutated", seconds);
	g_mutex_lock(&gst_warnings_lock);
	if (gst_warning_count)
		g_test_message("GStreamer's plugins warned %u times (not fatal), e.g.:\n%s",
			gst_warning_count, gst_warnings->str);
	g_mutex_unlock(&gst_warnings_lock);
	if (c.failed || c.bad_destroys)
		g_error("seed %u: %u of %u clips failed, %u DestroyPlayer calls failed "
			"(UMMS_TEST_SEED=%u replays the campaign; the clips are kept in %s):\n%s",
			c.seed, c.failed, c.finished, c.bad_destroys, c.seed, c.keepdir,
			c.failures->str);
	g_assert_cmpuint(c.finished, ==, total);

	/* The same ummsd, and it plays a good clip. */
	g_autofree char *now_owner = name_owner(t->bus);
	g_assert_cmpstr(now_owner, ==, owner);
	g_autofree char *p = umms_test_open(t->bus, "av.mp4");
	umms_test_player_do(t->bus, p, "Play", NULL);
	umms_test_wait_position(t->bus, p, US(0.2), false, 10000);
	g_variant_unref(umms_test_call_ok(t->bus, UMMS_ROOT, UMMS_MANAGER, "DestroyPlayer",
		g_variant_new("(o)", p)));

	/* Back to the baseline: no player, descriptors and memory. */
	wait_settled(t->bus, fds);
	g_assert_cmpuint(umms_test_player_count(t->bus), ==, 0);
	unsigned fds_after = umms_test_fd_count();
	gint64 memory_after = memory_bytes();
	g_test_message("after the warm-up -> after %u mutated clips: fds %u -> %u; RSS %ld -> "
		"%ld KiB (%+ld); %s %" G_GINT64_FORMAT " -> %" G_GINT64_FORMAT " KiB (%+"
		G_GINT64_FORMAT ")", c.finished, fds, fds_after, rss, rss_kib(), rss_kib() - rss,
		UNDER_ASAN ? "allocated (ASan's count)" : "allocated (mallinfo2)", memory / 1024,
		memory_after / 1024, (memory_after - memory) / 1024);
	g_assert_cmpuint(fds_after, <=, fds + FD_SLACK);
	g_assert_cmpint(memory_after, <=, memory + MEMORY_SLACK);

	g_rand_free(c.rand);
	g_hash_table_unref(c.errors);
	g_string_free(c.failures, TRUE);
	for (unsigned i = 0; i < PARALLEL; i++) {
		g_free(c.slots[i].path);
		g_free(c.slots[i].zzuf);
	}
	g_free(c.keepdir);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	gst_warnings = g_string_new("");
	g_log_set_always_fatal(G_LOG_FATAL_MASK);
	g_log_set_writer_func(log_writer, NULL, NULL);
	UMMS_TEST_ADD("/media-fuzz/clips", test_clips);
	return g_test_run();
}
