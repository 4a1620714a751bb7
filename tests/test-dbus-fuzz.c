/*
 * Hostile D-Bus clients.
 *
 * /dbus-fuzz/calls: a client introspects every object ummsd serves (its own
 * name and every player's MPRIS name, players it creates itself included)
 * and calls every method, and Properties.Set of every writable property,
 * with random values of the right types (empty and huge strings, odd URIs,
 * NaN, extreme integers, long arrays, nested variants), with wrong types,
 * and with too few or too many arguments. Every call must be answered,
 * with a return or an org.umms.Error.* / org.freedesktop.DBus.Error.*
 * error, and ummsd must still answer a plain call at the end. Under the
 * sanitizer build, any report fails the program.
 *
 * The seed is printed; UMMS_TEST_SEED=N replays a run. The CI run makes
 * 20,000 calls; UMMS_TEST_LONG makes 200,000.
 *
 * Clients that create players and vanish, 500 of them: test-churn.c.
 *
 * The limits themselves, each refused by name: test-errors /errors/limits.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "harness.h"

/*
 * CI's short run (~35 s under the sanitizers; a new seed each run, so CI
 * covers more over time); UMMS_TEST_LONG (docs/env_vars.md) runs the campaign.
 */
#define CALLS 8000
#define THOROUGH_CALLS 200000
#define IN_FLIGHT 16
#define REINTROSPECT_EVERY 2000
#define MAX_DEPTH 12
#define HUGE_STRING (1024 * 1024)

struct target {
	char *dest;
	char *path;
	char *iface;
	char *member;
	char *sig;       /* of the arguments, without the parentheses */
	char *property;  /* Properties.Set of this property (iface = its interface) */
};

struct fuzz {
	GDBusConnection *bus;
	GRand *rand;
	GPtrArray *targets;     /* struct target * */
	GPtrArray *paths;       /* object paths seen, char * */
	unsigned in_flight;
	unsigned sent, answered, returned, bad;
	unsigned gone;          /* NoReply from the bus: an MPRIS connection closed */
	unsigned unparsable;    /* not sent: GDBus cannot read them back (glib_parses) */
	GString *failures;
	char *clip_uri;
	char *long_uri;
	char *umms;             /* ummsd's unique name */
	gsize budget;           /* bytes of strings the message being built may still take */
};

static void
target_free(gpointer data)
{
	struct target *t = data;
	g_free(t->dest);
	g_free(t->path);
	g_free(t->iface);
	g_free(t->member);
	g_free(t->sig);
	g_free(t->property);
	g_free(t);
}

/* ---- Introspection ---- */

static void
add_target(struct fuzz *f, const char *dest, const char *path, const char *iface,
	const char *member, const char *sig, const char *property)
{
	struct target *t = g_new0(struct target, 1);
	t->dest = g_strdup(dest);
	t->path = g_strdup(path);
	t->iface = g_strdup(iface);
	t->member = g_strdup(member);
	t->sig = g_strdup(sig);
	t->property = g_strdup(property);
	g_ptr_array_add(f->targets, t);
}

static void
introspect(struct fuzz *f, const char *dest, const char *path)
{
	GError *error = NULL;
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(f->bus, dest, path,
		"org.freedesktop.DBus.Introspectable", "Introspect", NULL, G_VARIANT_TYPE("(s)"),
		G_DBUS_CALL_FLAGS_NO_AUTO_START, 60000, NULL, &error);
	if (!reply) {
		/* A player (and its MPRIS name) may go while we look. */
		g_test_message("introspect %s %s: %s", dest, path, error->message);
		g_error_free(error);
		return;
	}
	const char *xml;
	g_variant_get(reply, "(&s)", &xml);
	GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(xml, &error);
	g_assert_no_error(error);
	g_ptr_array_add(f->paths, g_strdup(path));
	for (GDBusInterfaceInfo **i = node->interfaces; i && *i; i++) {
		for (GDBusMethodInfo **m = (*i)->methods; m && *m; m++) {
			GString *sig = g_string_new("");
			for (GDBusArgInfo **a = (*m)->in_args; a && *a; a++)
				g_string_append(sig, (*a)->signature);
			add_target(f, dest, path, (*i)->name, (*m)->name, sig->str, NULL);
			g_string_free(sig, TRUE);
		}
		for (GDBusPropertyInfo **p = (*i)->properties; p && *p; p++) {
			/* Read-only ones too: Set must refuse them by name. */
			add_target(f, dest, path, (*i)->name, "Set", (*p)->signature, (*p)->name);
		}
	}
	for (GDBusNodeInfo **child = node->nodes; child && *child; child++) {
		g_autofree char *sub = strcmp(path, "/") == 0 ?
			g_strconcat("/", (*child)->path, NULL) :
			g_strconcat(path, "/", (*child)->path, NULL);
		introspect(f, dest, sub);
	}
	g_dbus_node_info_unref(node);
}

static char *
name_owner(struct fuzz *f, const char *name)
{
	g_autoptr(GVariant) reply = g_dbus_connection_call_sync(f->bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
		g_variant_new("(s)", name), G_VARIANT_TYPE("(s)"), G_DBUS_CALL_FLAGS_NONE, 10000,
		NULL, NULL);
	char *owner = NULL;
	if (reply)
		g_variant_get(reply, "(s)", &owner);
	return owner;
}

/* Every object of ummsd's own name and of every MPRIS name of a player. */
static void
introspect_all(struct fuzz *f)
{
	g_ptr_array_set_size(f->targets, 0);
	g_ptr_array_set_size(f->paths, 0);
	g_free(f->umms);
	f->umms = name_owner(f, UMMS_NAME);
	g_assert_nonnull(f->umms);
	introspect(f, f->umms, "/");
	g_autoptr(GVariant) names = g_dbus_connection_call_sync(f->bus, "org.freedesktop.DBus",
		"/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames", NULL,
		G_VARIANT_TYPE("(as)"), G_DBUS_CALL_FLAGS_NONE, 10000, NULL, NULL);
	g_assert_nonnull(names);
	g_autofree const char **list = NULL;
	g_variant_get(names, "(^a&s)", &list);
	for (const char **name = list; *name; name++) {
		if (!g_str_has_prefix(*name, "org.mpris.MediaPlayer2.umms."))
			continue;
		g_autofree char *owner = name_owner(f, *name);
		if (owner)
			introspect(f, owner, "/");
	}
	g_assert_cmpuint(f->targets->len, >, 0);
}

/* ---- Values ---- */

static unsigned
pick(struct fuzz *f, unsigned n)
{
	return (unsigned)g_rand_int_range(f->rand, 0, (gint32)n);
}

static bool
chance(struct fuzz *f, double p)
{
	return g_rand_double(f->rand) < p;
}

static gint64
random_int(struct fuzz *f, gint64 min, gint64 max)
{
	switch (pick(f, 8)) {
	case 0: return min;
	case 1: return max;
	case 2: return 0;
	case 3: return -1 < min ? 1 : -1;
	case 4: return min + 1;
	case 5: return max - 1;
	default: {
		guint64 bits = ((guint64)g_rand_int(f->rand) << 32) | g_rand_int(f->rand);
		if (min == 0)
			return (gint64)(bits % ((guint64)max + 1));
		return (gint64)bits;
	}
	}
}

static double
random_double(struct fuzz *f)
{
	static const double odd[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 64.0, -64.0, 1e308, -1e308,
		DBL_MIN, 5e-324, DBL_MAX, 1e-9 };
	switch (pick(f, 6)) {
	case 0: return NAN;
	case 1: return INFINITY;
	case 2: return -INFINITY;
	case 3: return odd[pick(f, G_N_ELEMENTS(odd))];
	case 4: return g_rand_double_range(f->rand, -10, 10);
	default: return g_rand_double_range(f->rand, -1e12, 1e12);
	}
}

/* A run of one character, or of random printable ones. */
static char *
filler(struct fuzz *f, gsize n)
{
	char *s = g_malloc(n + 1);
	if (chance(f, 0.5)) {
		memset(s, 'a' + (int)pick(f, 26), n);
	} else {
		for (gsize i = 0; i < n; i++)
			s[i] = (char)(' ' + pick(f, 95));
	}
	s[n] = '\0';
	return s;
}

static gsize
random_length(struct fuzz *f)
{
	/* Mostly short; now and then up to a mebibyte, at most 2 MiB a message. */
	gsize n = pick(f, 40);
	if (chance(f, 0.005))
		n = pick(f, HUGE_STRING) + 1;
	else if (chance(f, 0.05))
		n = pick(f, 70000);
	n = MIN(n, f->budget);
	f->budget -= n;
	return n;
}

static char *
random_string(struct fuzz *f)
{
	static const char *const odd[] = {
		"", "file:///dev/zero", "file:///proc/self/mem", "file:///dev/urandom",
		"file:///proc/self/fd/0", "file:///", "file://", "file:///etc/passwd",
		"fd://0", "fd://-1", "fd://99999999999", "data:,", "data:text/plain,hello",
		"data:video/mp4;base64,AAAAIGZ0eXA=", "http://127.0.0.1:1/x.mp4",
		"https://[::1]:1/", "rtsp://127.0.0.1:1/x", "udp://127.0.0.1:1", "udp://@:0",
		"rtp://239.0.0.1:1234", "dvb://1", "v4l2:///dev/video99", "foo://bar",
		"file:///%00", "file:///%", "file:///a%2fb", "%s%n%x%p", "..", "/",
		"./x.mkv", "../../x.ts", "x.mkv", "x.ts", "/tmp/x.mkv", "\xc3\xa9\xe2\x80\xae\xef\xbf\xbd",
		"audio", "video", "subtitle", "text", "foreground", "background", "recording",
		"attended", "ttl", "priority", "duration", "org.umms.Player1", "org.umms.Manager1",
		"org.mpris.MediaPlayer2.Player", "Rate", "Volume", "Position", "letterbox", "crop",
		"1920x1080@60", "0x0", "-1x-1@0",
	};
	switch (pick(f, 8)) {
	case 0: case 1: case 2:
		return g_strdup(odd[pick(f, G_N_ELEMENTS(odd))]);
	case 3:
		/*
		 * Media that opens, now and then: each one is a pipeline to
		 * build (seconds under the sanitizers), and then it may play.
		 */
		if (chance(f, 0.1))
			return g_strdup(f->clip_uri);
		return g_strdup(chance(f, 0.5) ? f->long_uri : odd[pick(f, G_N_ELEMENTS(odd))]);
	case 4: {
		g_autofree char *tail = filler(f, random_length(f));
		return g_strconcat(odd[pick(f, 22)], tail, NULL);
	}
	default:
		return filler(f, random_length(f));
	}
}

static char *
random_path(struct fuzz *f)
{
	switch (pick(f, 6)) {
	case 0: case 1:
		if (f->paths->len)
			return g_strdup(f->paths->pdata[pick(f, f->paths->len)]);
		return g_strdup("/");
	case 2: {
		static const char *const odd[] = { "/", "/org/umms", "/org/umms/player",
			"/org/umms/player/0", "/org/umms/player/4294967296",
			"/org/umms/player/99999999999999999999", "/org/umms/player/_",
			"/org/umms/recording/0", "/org/umms/recording/1",
			"/org/mpris/MediaPlayer2", "/org/umms/player/1/track/1" };
		return g_strdup(odd[pick(f, G_N_ELEMENTS(odd))]);
	}
	default: {
		GString *p = g_string_new("");
		unsigned parts = chance(f, 0.05) ? pick(f, 2000) + 1 : pick(f, 6) + 1;
		for (unsigned i = 0; i < parts; i++)
			g_string_append_printf(p, "/%c%u", 'a' + pick(f, 26), pick(f, 100));
		return g_string_free(p, FALSE);
	}
	}
}

/* A random complete type (no 'h': no descriptors ride along). */
static void
random_type(struct fuzz *f, GString *out, unsigned depth)
{
	static const char basic[] = "bynqiuxtdsog";
	unsigned kind = depth >= 4 ? 0 : pick(f, 10);
	if (kind < 6) {
		g_string_append_c(out, basic[pick(f, sizeof(basic) - 1)]);
	} else if (kind == 6) {
		g_string_append_c(out, 'v');
	} else if (kind == 7) {
		g_string_append_c(out, 'a');
		random_type(f, out, depth + 1);
	} else if (kind == 8) {
		g_string_append(out, "a{");
		g_string_append_c(out, basic[pick(f, sizeof(basic) - 1)]);
		random_type(f, out, depth + 1);
		g_string_append_c(out, '}');
	} else {
		g_string_append_c(out, '(');
		unsigned n = pick(f, 4) + 1;
		for (unsigned i = 0; i < n; i++)
			random_type(f, out, depth + 1);
		g_string_append_c(out, ')');
	}
}

static GVariant *random_value(struct fuzz *f, const GVariantType *type, unsigned depth);

static GVariant *
random_variant(struct fuzz *f, unsigned depth)
{
	/* Now and then a deep chain of variants. */
	if (depth < 2 && chance(f, 0.02)) {
		unsigned levels = pick(f, 24) + 1;
		GVariant *v = g_variant_new_int32(1);
		for (unsigned i = 0; i < levels; i++)
			v = g_variant_new_variant(v);
		return g_variant_new_variant(v);
	}
	GString *sig = g_string_new("");
	random_type(f, sig, depth);
	GVariant *inner = random_value(f, G_VARIANT_TYPE(sig->str), depth + 1);
	g_string_free(sig, TRUE);
	return g_variant_new_variant(inner);
}

static unsigned
random_count(struct fuzz *f, unsigned depth)
{
	if (depth > 2)
		return pick(f, 3);
	/*
	 * Around service.max-array-length (1024), both sides. Longer ones
	 * only cost allocations (a GVariant each element, in GDBus, on both
	 * ends): under the sanitizers those dominate the run.
	 */
	if (chance(f, 0.01))
		return pick(f, 1500);
	return pick(f, 6);
}

static GVariant *
random_dict(struct fuzz *f, const GVariantType *type, unsigned depth)
{
	static const char *const keys[] = { "attended", "ttl", "priority", "duration",
		"duration_us", "start", "container", "title", "name", "" };
	const GVariantType *entry = g_variant_type_element(type);
	const GVariantType *key_type = g_variant_type_key(entry);
	const GVariantType *value_type = g_variant_type_value(entry);
	GVariantBuilder b;
	g_variant_builder_init(&b, type);
	unsigned n = random_count(f, depth);
	for (unsigned i = 0; i < n; i++) {
		GVariant *key;
		if (g_variant_type_equal(key_type, G_VARIANT_TYPE_STRING) && chance(f, 0.7))
			key = g_variant_new_string(keys[pick(f, G_N_ELEMENTS(keys))]);
		else
			key = random_value(f, key_type, depth + 1);
		/* Keys repeat at times: GVariant allows it, D-Bus does not care. */
		g_variant_builder_add_value(&b, g_variant_new_dict_entry(key,
			random_value(f, value_type, depth + 1)));
	}
	return g_variant_builder_end(&b);
}

static GVariant *
random_value(struct fuzz *f, const GVariantType *type, unsigned depth)
{
	if (depth > MAX_DEPTH && g_variant_type_is_container(type) &&
			!g_variant_type_is_tuple(type) && !g_variant_type_is_variant(type))
		return g_variant_new_array(g_variant_type_element(type), NULL, 0);
	switch (g_variant_type_peek_string(type)[0]) {
	case 'b': return g_variant_new_boolean(chance(f, 0.5));
	case 'y': return g_variant_new_byte((guchar)pick(f, 256));
	case 'n': return g_variant_new_int16((gint16)random_int(f, G_MININT16, G_MAXINT16));
	case 'q': return g_variant_new_uint16((guint16)random_int(f, 0, G_MAXUINT16));
	case 'i': return g_variant_new_int32((gint32)random_int(f, G_MININT32, G_MAXINT32));
	case 'u': return g_variant_new_uint32((guint32)random_int(f, 0, G_MAXUINT32));
	case 'x': return g_variant_new_int64(random_int(f, G_MININT64, G_MAXINT64));
	case 't': return g_variant_new_uint64((guint64)random_int(f, 0, G_MAXINT64));
	case 'd': return g_variant_new_double(random_double(f));
	case 's': return g_variant_new_take_string(random_string(f));
	case 'o': {
		g_autofree char *p = random_path(f);
		return g_variant_new_object_path(p);
	}
	case 'g': {
		GString *sig = g_string_new("");
		unsigned n = pick(f, 3);
		for (unsigned i = 0; i < n; i++)
			random_type(f, sig, 2);
		GVariant *v = g_variant_new_signature(sig->str);
		g_string_free(sig, TRUE);
		return v;
	}
	case 'v': return random_variant(f, depth);
	case 'a':
		if (g_variant_type_is_dict_entry(g_variant_type_element(type)))
			return random_dict(f, type, depth);
		else {
			const GVariantType *elem = g_variant_type_element(type);
			GVariantBuilder b;
			g_variant_builder_init(&b, type);
			unsigned n = random_count(f, depth);
			/* Long arrays of big elements would only measure memcpy. */
			if (!g_variant_type_is_basic(elem) && n > 100)
				n = 100;
			for (unsigned i = 0; i < n; i++)
				g_variant_builder_add_value(&b, random_value(f, elem, depth + 1));
			return g_variant_builder_end(&b);
		}
	case '(': {
		GVariantBuilder b;
		g_variant_builder_init(&b, G_VARIANT_TYPE_TUPLE);
		for (const GVariantType *t = g_variant_type_first(type); t;
				t = g_variant_type_next(t))
			g_variant_builder_add_value(&b, random_value(f, t, depth + 1));
		return g_variant_builder_end(&b);
	}
	default:
		g_error("no values of type %s", g_variant_type_peek_string(type));
	}
}

/* The arguments: of the right types mostly; else wrong, too few or too many. */
static GVariant *
random_args(struct fuzz *f, const struct target *t, char **shape)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE_TUPLE);
	f->budget = 2 * HUGE_STRING;
	if (t->property) {
		g_variant_builder_add_value(&b, g_variant_new_string(chance(f, 0.95) ? t->iface :
			"org.umms.NoSuch1"));
		g_variant_builder_add_value(&b, g_variant_new_string(chance(f, 0.95) ?
			t->property : "NoSuch"));
		GString *sig = g_string_new(t->sig);
		if (chance(f, 0.2)) {
			g_string_truncate(sig, 0);
			random_type(f, sig, 1);
		}
		g_variant_builder_add_value(&b, g_variant_new_variant(random_value(f,
			G_VARIANT_TYPE(sig->str), 1)));
		*shape = g_strdup_printf("Set %s.%s as %s", t->iface, t->property, sig->str);
		g_string_free(sig, TRUE);
		return g_variant_builder_end(&b);
	}
	GString *sig = g_string_new("");
	double r = g_rand_double(f->rand);
	if (r < 0.8) {
		g_string_append(sig, t->sig);
	} else if (r < 0.9) {
		unsigned n = pick(f, 4);
		for (unsigned i = 0; i < n; i++)
			random_type(f, sig, 1);
	} else if (r < 0.95 && t->sig[0]) {
		/* Too few: the last complete type left out. */
		g_autofree char *tuple = g_strdup_printf("(%s)", t->sig);
		const GVariantType *tt = G_VARIANT_TYPE(tuple);
		for (const GVariantType *a = g_variant_type_first(tt); a; a = g_variant_type_next(a))
			if (g_variant_type_next(a))
				g_string_append_len(sig, g_variant_type_peek_string(a),
					(gssize)g_variant_type_get_string_length(a));
	} else {
		g_string_append(sig, t->sig);
		random_type(f, sig, 1);
	}
	g_autofree char *tuple = g_strdup_printf("(%s)", sig->str);
	for (const GVariantType *a = g_variant_type_first(G_VARIANT_TYPE(tuple)); a;
			a = g_variant_type_next(a)) {
		g_autoptr(GVariantType) one = g_variant_type_copy(a);
		g_variant_builder_add_value(&b, random_value(f, one, 1));
	}
	*shape = g_strdup_printf("%s.%s(%s) on %s", t->iface, t->member, sig->str, t->path);
	g_string_free(sig, TRUE);
	return g_variant_builder_end(&b);
}

/* ---- Calls ---- */

struct call {
	struct fuzz *fuzz;
	char *shape;
	bool mpris;
};

static bool
acceptable(const struct call *c, const char *name)
{
	if (g_str_has_prefix(name, "org.umms.Error."))
		return true;
	if (!g_str_has_prefix(name, "org.freedesktop.DBus.Error."))
		return false;
	/*
	 * A player's MPRIS connection closes when the player goes (another
	 * call of ours destroyed it): the bus answers what was still on the
	 * way to it. ummsd's own connection never does that.
	 */
	if (c->mpris && strcmp(name, "org.freedesktop.DBus.Error.NoReply") == 0) {
		c->fuzz->gone++;
		return true;
	}
	/* The bus's own word that nobody answered in time is no answer. */
	return strcmp(name, "org.freedesktop.DBus.Error.NoReply") != 0 &&
		strcmp(name, "org.freedesktop.DBus.Error.Timeout") != 0 &&
		strcmp(name, "org.freedesktop.DBus.Error.TimedOut") != 0;
}

static void
call_done(GObject *source, GAsyncResult *result, gpointer data)
{
	struct call *c = data;
	struct fuzz *f = c->fuzz;
	GError *error = NULL;
	GVariant *reply = g_dbus_connection_call_finish(G_DBUS_CONNECTION(source), result, &error);
	f->in_flight--;
	f->answered++;
	if (reply) {
		f->returned++;
		g_variant_unref(reply);
	} else {
		g_autofree char *name = g_dbus_error_get_remote_error(error);
		if (!name || !acceptable(c, name)) {
			f->bad++;
			if (f->bad <= 10)
				g_string_append_printf(f->failures, "  %s: %s (%s)\n", c->shape,
					error->message, name ? name : "no D-Bus error");
		}
		g_error_free(error);
	}
	g_free(c->shape);
	g_free(c);
}

/*
 * Whether GDBus reads back what it wrote. GLib 2.74 cannot read some valid
 * messages (e.g. (@aa{sv} [[{'name', <@a{gq} {signature 'auv': 1, '': 2}>}]],):
 * its reader misplaces the value after the empty signature). ummsd's
 * connection getting such a call from the bus logs "Error decoding D-Bus
 * message" and is disconnected: a GLib bug no filter of ummsd's can reach,
 * as the message is refused before any code of ours sees it. Such calls
 * are counted, not sent.
 */
static bool
glib_parses(const struct target *t, const char *iface, GVariant *args)
{
	GDBusMessage *message = g_dbus_message_new_method_call(t->dest, t->path, iface,
		t->member);
	g_dbus_message_set_body(message, args);
	gsize size;
	guchar *blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, NULL);
	g_assert_nonnull(blob);
	GDBusMessage *back = g_dbus_message_new_from_blob(blob, size,
		G_DBUS_CAPABILITY_FLAGS_NONE, NULL);
	g_free(blob);
	g_object_unref(message);
	if (!back)
		return false;
	g_object_unref(back);
	return true;
}

static void
send_one(struct fuzz *f)
{
	const struct target *t = f->targets->pdata[pick(f, f->targets->len)];
	struct call *c = g_new0(struct call, 1);
	c->fuzz = f;
	c->mpris = strcmp(t->dest, f->umms) != 0;
	GVariant *args = g_variant_ref_sink(random_args(f, t, &c->shape));
	const char *iface = t->property ? "org.freedesktop.DBus.Properties" : t->iface;
	f->sent++;
	if (!glib_parses(t, iface, args)) {
		if (f->unparsable++ == 0)
			g_test_message("GDBus cannot read its own %s: not sent", c->shape);
		g_free(c->shape);
		g_free(c);
		g_variant_unref(args);
		return;
	}
	f->in_flight++;
	/* 130 s: longer than any timeout of ummsd's own, which answers first. */
	g_dbus_connection_call(f->bus, t->dest, t->path, iface, t->member, args, NULL,
		G_DBUS_CALL_FLAGS_NO_AUTO_START, 130000, NULL, call_done, c);
	g_variant_unref(args);
}

/* Players of a client that stays, so that there is something to call. */
static void
ensure_players(GDBusConnection *keeper)
{
	GError *error = NULL;
	for (int i = 0; i < 2; i++) {
		GVariant *opts = g_variant_new("a{sv}", NULL);
		GVariant *reply = umms_test_call(keeper, UMMS_ROOT, UMMS_MANAGER, "CreatePlayer",
			g_variant_new_tuple(&opts, 1), &error);
		if (reply) {
			g_variant_unref(reply);
		} else {
			/* The fuzzing client may hold every place. */
			g_test_message("keeper's CreatePlayer: %s", error->message);
			g_clear_error(&error);
		}
	}
}

static void
test_calls(struct umms_test *t, gconstpointer data)
{
	g_autofree char *rec_dir = g_build_filename(umms_test_tmpdir(), "fuzz-rec", NULL);
	g_assert_cmpint(g_mkdir_with_parents(rec_dir, 0700), ==, 0);
	g_autofree char *rec_key = g_strdup_printf("recording.directories=%s", rec_dir);
	/*
	 * Media that never opens (a silent UDP port) holds SetUri for the
	 * open-timeout: short, so calls keep flowing.
	 */
	const char *const overrides[] = { "engine.open-timeout=2000", rec_key, NULL };
	umms_test_restart(t, overrides);

	guint32 seed = umms_test_seed();
	unsigned total = umms_test_long() ? THOROUGH_CALLS : CALLS;
	g_test_message("seed %u (UMMS_TEST_SEED=%u replays it), %u calls", seed, seed, total);

	struct fuzz f = {
		.bus = umms_test_connect(),
		.rand = g_rand_new_with_seed(seed),
		.targets = g_ptr_array_new_with_free_func(target_free),
		.paths = g_ptr_array_new_with_free_func(g_free),
		.failures = g_string_new(""),
		.clip_uri = umms_test_clip_uri("av.mp4"),
	};
	g_autofree char *pad = g_strnfill(5000, 'x');
	f.long_uri = g_strconcat("file:///", pad, ".mkv", NULL);
	GDBusConnection *keeper = umms_test_connect();
	ensure_players(keeper);

	gint64 start = g_get_monotonic_time();
	while (f.sent - f.unparsable < total) {
		if (f.sent % REINTROSPECT_EVERY == 0) {
			while (f.in_flight > 0)
				g_main_context_iteration(NULL, TRUE);
			g_test_message("%u calls answered after %.1f s", f.answered,
				(double)(g_get_monotonic_time() - start) / 1e6);
			ensure_players(keeper);
			introspect_all(&f);
		}
		while (f.in_flight >= IN_FLIGHT)
			g_main_context_iteration(NULL, TRUE);
		send_one(&f);
	}
	while (f.in_flight > 0)
		g_main_context_iteration(NULL, TRUE);
	double seconds = (double)(g_get_monotonic_time() - start) / 1e6;
	g_test_message("%u calls in %.1f s (%.0f/s), %u returned, %u errors (%u NoReply from "
		"closed MPRIS connections), %u bad, %u not sent (GDBus cannot read them); "
		"%u targets", f.answered, seconds, f.answered / seconds, f.returned,
		f.answered - f.returned, f.gone, f.bad, f.unparsable, f.targets->len);
	if (f.bad)
		g_error("seed %u: %u calls got no acceptable answer, e.g.:\n%s", seed, f.bad,
			f.failures->str);
	g_assert_cmpuint(f.answered + f.unparsable, ==, f.sent);
	g_assert_cmpuint(f.answered, >=, total * 99 / 100);

	/* Still serving: a plain call works, from a newcomer too. */
	GDBusConnection *late = umms_test_connect();
	g_autofree char *p = umms_test_create_player(late, NULL);
	g_autofree char *state = umms_test_get_string(late, p, "State");
	g_assert_nonnull(state);
	g_dbus_connection_close_sync(late, NULL, NULL);
	g_object_unref(late);

	g_dbus_connection_close_sync(f.bus, NULL, NULL);
	g_object_unref(f.bus);
	g_dbus_connection_close_sync(keeper, NULL, NULL);
	g_object_unref(keeper);
	g_rand_free(f.rand);
	g_ptr_array_unref(f.targets);
	g_ptr_array_unref(f.paths);
	g_string_free(f.failures, TRUE);
	g_free(f.clip_uri);
	g_free(f.long_uri);
	g_free(f.umms);
}

int
main(int argc, char **argv)
{
	umms_test_init(&argc, &argv);
	UMMS_TEST_ADD("/dbus-fuzz/calls", test_calls);
	return g_test_run();
}
