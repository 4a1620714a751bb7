/*
 * The resource manager's policy (service/resources/resources.h) as tables
 * of scenarios, and how decoder pools are counted from what probing found
 * (hardware.h, at the end): pools of configured sizes (no hardware needed), holders at
 * priorities, and what each step must give: a grant or NoResource with its
 * message, and the holders told they lost or got back a unit.
 *
 * A step is one line:
 *   pool KIND N          the pool of KIND has N units
 *   + NAME PRIO KIND     NAME (at PRIO) asks for a unit: then "ok" or an
 *                        error message fragment after " => "
 *   - NAME KIND          NAME gives a unit back
 *   x NAME               NAME goes (dies)
 *   holders KIND A,B     who holds KIND now, in grant order ("" none)
 *   waiting KIND A,B     who waits for KIND
 *   told EVENTS          what holders were told since the last "told":
 *                        "lost:a:decoder:h264:c restored:a:decoder:h264"
 *   choose NAME PRIO CODECS COSTS => I   the codec policy picks track I of
 *                        CODECS ("h264,vp9") with COSTS ("h264=1,vp9=3")
 */
#include <stdlib.h>
#include <string.h>
#include <glib.h>

#include "config.h"
#include "engine.h"
#include "error.h"
#include "hardware.h"
#include "resources.h"

#define MAX_HOLDERS 8

struct world {
	struct umms_resources *r;
	struct umms_resource_holder holders[MAX_HOLDERS];
	char names[MAX_HOLDERS][16];
	char prios[MAX_HOLDERS][16];
	int n;
	GString *told;
};

/* Holders find their world through a table: tests are single-threaded. */
static struct world *current;

static void
lost(struct umms_resource_holder *h, const char *kind, const char *by)
{
	g_string_append_printf(current->told, "%slost:%s:%s:%s", current->told->len ? " " : "",
		h->name, kind, by);
}

static void
restored(struct umms_resource_holder *h, const char *kind)
{
	g_string_append_printf(current->told, "%srestored:%s:%s", current->told->len ? " " : "",
		h->name, kind);
}

static const struct umms_resource_holder_impl impl = { lost, restored };

static struct umms_resource_holder *
holder(struct world *w, const char *name, const char *prio)
{
	for (int i = 0; i < w->n; i++) {
		if (strcmp(w->names[i], name) == 0)
			return &w->holders[i];
	}
	g_assert_nonnull(prio);
	g_assert_cmpint(w->n, <, MAX_HOLDERS);
	int i = w->n++;
	g_strlcpy(w->names[i], name, sizeof(w->names[i]));
	g_strlcpy(w->prios[i], prio, sizeof(w->prios[i]));
	w->holders[i] = (struct umms_resource_holder){ .impl = &impl, .name = w->names[i],
		.priority = w->prios[i], .rank = umms_resources_rank(NULL, prio) };
	g_assert_cmpint(w->holders[i].rank, >, 0);
	return &w->holders[i];
}

/* "a,b" of the holders (or waiting) of @kind, from the manager's own description. */
static char *
names_of(struct world *w, const char *kind, const char *field)
{
	g_autoptr(GVariant) pools = umms_resources_describe(w->r, kind);
	GString *out = g_string_new(NULL);
	GVariantIter iter;
	GVariant *pool;
	g_variant_iter_init(&iter, pools);
	while ((pool = g_variant_iter_next_value(&iter))) {
		const char *k = NULL;
		g_variant_lookup(pool, "kind", "&s", &k);
		if (strcmp(k, kind) == 0) {
			g_autoptr(GVariant) list = g_variant_lookup_value(pool, field, NULL);
			for (gsize i = 0; i < g_variant_n_children(list); i++) {
				const char *name, *prio;
				g_variant_get_child(list, i, "(&s&s)", &name, &prio);
				g_string_append_printf(out, "%s%s", i ? "," : "", name);
			}
		}
		g_variant_unref(pool);
	}
	return g_string_free(out, FALSE);
}

static void
run(const char *const *steps)
{
	struct world w = { .r = umms_resources_create(), .told = g_string_new(NULL) };
	current = &w;
	for (const char *const *step = steps; *step; step++) {
		g_test_message("%s", *step);
		g_auto(GStrv) f = g_strsplit(*step, " ", 5);
		guint n = g_strv_length(f);
		if (strcmp(f[0], "pool") == 0) {
			umms_resources_set_pool(w.r, f[1], (unsigned)atoi(f[2]), NULL);
		} else if (strcmp(f[0], "+") == 0) {
			g_autofree char *rest = g_strdup(*step);
			char *expect = strstr(rest, " => ");
			g_assert_nonnull(expect);
			expect += 4;
			g_autoptr(GError) error = NULL;
			bool ok = umms_resources_acquire(w.r, holder(&w, f[1], f[2]), f[3], &error);
			if (strcmp(expect, "ok") == 0) {
				g_assert_no_error(error);
				g_assert_true(ok);
			} else {
				g_assert_false(ok);
				g_assert_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE);
				if (!strstr(error->message, expect))
					g_error("%s: \"%s\" does not say \"%s\"", *step, error->message,
						expect);
			}
		} else if (strcmp(f[0], "-") == 0) {
			umms_resources_release(w.r, holder(&w, f[1], NULL), f[2]);
		} else if (strcmp(f[0], "x") == 0) {
			umms_resources_forget(w.r, holder(&w, f[1], NULL));
		} else if (strcmp(f[0], "holders") == 0 || strcmp(f[0], "waiting") == 0) {
			g_autofree char *got = names_of(&w, f[1], f[0]);
			g_assert_cmpstr(got, ==, n > 2 ? f[2] : "");
		} else if (strcmp(f[0], "choose") == 0) {
			g_auto(GStrv) c = g_strsplit(*step, " ", 7);
			g_assert_cmpuint(g_strv_length(c), ==, 7);
			g_auto(GStrv) codecs = g_strsplit(c[3], ",", -1);
			g_autofree char *why = NULL;
			int got = umms_resources_choose(w.r, holder(&w, c[1], c[2]),
				(const char *const *)codecs, (int)g_strv_length(codecs), c[4], &why);
			g_test_message("  %s", why);
			g_assert_cmpint(got, ==, atoi(c[6]));
		} else if (strcmp(f[0], "told") == 0) {
			const char *want = strlen(*step) > 5 ? *step + 5 : "";
			g_assert_cmpstr(w.told->str, ==, want);
			g_string_truncate(w.told, 0);
		} else {
			g_error("bad step %s", *step);
		}
	}
	/* Every scenario ends with nobody told anything unchecked. */
	g_assert_cmpstr(w.told->str, ==, "");
	for (int i = 0; i < w.n; i++)
		umms_resources_forget(w.r, &w.holders[i]);
	g_string_free(w.told, TRUE);
	umms_resources_destroy(w.r);
	current = NULL;
}

/* ---- the scenarios ------------------------------------------------------------ */

static const char *const preempt_order[] = {
	"pool decoder:h264 2",
	"+ a background decoder:h264 => ok",
	"+ b foreground decoder:h264 => ok",
	"holders decoder:h264 a,b",
	/* Full: a recording takes from the lowest rank, the background one. */
	"+ c recording decoder:h264 => ok",
	"told lost:a:decoder:h264:c",
	"holders decoder:h264 b,c",
	"waiting decoder:h264 a",
	/* Another recording: the foreground one goes next. */
	"+ d recording decoder:h264 => ok",
	"told lost:b:decoder:h264:d",
	"waiting decoder:h264 a,b",
	/* Nothing lower is left: refused, naming who holds it. */
	"+ e recording decoder:h264 => no free decoder:h264: 2 of 2, held by c (recording), d (recording)",
	"+ f background decoder:h264 => held by c (recording), d (recording)",
	"told",
	NULL
};

static const char *const restore_order[] = {
	"pool decoder:h264 1",
	"+ a background decoder:h264 => ok",
	"+ b foreground decoder:h264 => ok",
	"told lost:a:decoder:h264:b",
	"+ c recording decoder:h264 => ok",
	"told lost:b:decoder:h264:c",
	"waiting decoder:h264 a,b",
	/* Freed: the highest waiting rank gets it back first. */
	"- c decoder:h264",
	"told restored:b:decoder:h264",
	"holders decoder:h264 b",
	"- b decoder:h264",
	"told restored:a:decoder:h264",
	"holders decoder:h264 a",
	"waiting decoder:h264",
	NULL
};

static const char *const equal_ranks[] = {
	"pool plane 1",
	"+ a foreground plane => ok",
	/* The same rank never preempts. */
	"+ b foreground plane => no free plane: 1 of 1, held by a (foreground)",
	"pool plane 2",
	"+ b foreground plane => ok",
	/* A higher rank takes the newest of equals; the oldest loss comes back first. */
	"+ c recording plane => ok",
	"told lost:b:plane:c",
	"+ d recording plane => ok",
	"told lost:a:plane:d",
	"waiting plane b,a",
	"- c plane",
	"told restored:b:plane",
	"- d plane",
	"told restored:a:plane",
	NULL
};

static const char *const death[] = {
	"pool tuner 1",
	"pool decoder:hevc 1",
	"+ a foreground tuner => ok",
	"+ a foreground decoder:hevc => ok",
	"+ b recording tuner => ok",
	"told lost:a:tuner:b",
	/* The recording dies holding its tuner: the one who lost it gets it back. */
	"x b",
	"told restored:a:tuner",
	/* a dies: nothing is left held, nobody waits. */
	"x a",
	"holders tuner",
	"holders decoder:hevc",
	"waiting tuner",
	"+ c background decoder:hevc => ok",
	NULL
};

static const char *const missing[] = {
	"+ a recording tuner => no tuner on this machine",
	"pool decoder:av1 0",
	"+ a recording decoder:av1 => no decoder:av1 on this machine",
	/* A waiting holder that asks again is served when it can be. */
	"pool decoder:vp9 1",
	"+ b background decoder:vp9 => ok",
	"+ c foreground decoder:vp9 => ok",
	"told lost:b:decoder:vp9:c",
	"+ b background decoder:vp9 => held by c (foreground)",
	"waiting decoder:vp9 b",
	/* Giving up a wait: not restored later. */
	"- b decoder:vp9",
	"- c decoder:vp9",
	"told",
	"holders decoder:vp9",
	NULL
};

static const char *const resize[] = {
	"pool plane 2",
	"+ a background plane => ok",
	"+ b recording plane => ok",
	/* The device has fewer units after all: the lowest rank gives its up. */
	"pool plane 1",
	"told lost:a:plane:a smaller pool",
	"holders plane b",
	"pool plane 3",
	"told restored:a:plane",
	"holders plane b,a",
	NULL
};

static const char *const codec_policy[] = {
	/* No hardware pool: the lowest cost; equal costs keep the stream's order. */
	"choose a foreground h264,vp9 h264=1,vp9=3 => 0",
	"choose a foreground h264,vp9 h264=5,vp9=3 => 1",
	"choose a foreground av1,vp9 h264=1 => 0",
	/* A free hardware decoder wins over a lower cost. */
	"pool decoder:vp9 1",
	"choose a foreground h264,vp9 h264=1,vp9=3 => 1",
	/* Held by a higher rank: not for us; held by a lower one: we could take it. */
	"+ r recording decoder:vp9 => ok",
	"choose a foreground h264,vp9 h264=1,vp9=3 => 0",
	"- r decoder:vp9",
	"+ b background decoder:vp9 => ok",
	"choose a foreground h264,vp9 h264=1,vp9=3 => 1",
	/* Our own unit counts as ours. */
	"choose b background h264,vp9 h264=1,vp9=3 => 1",
	"told",
	NULL
};

static void
test_scenario(gconstpointer data)
{
	run(data);
}

static void
test_rank(void)
{
	g_assert_cmpint(umms_resources_rank(NULL, "recording"), >, umms_resources_rank(NULL,
		"foreground"));
	g_assert_cmpint(umms_resources_rank(NULL, "foreground"), >, umms_resources_rank(NULL,
		"background"));
	/* Configured otherwise: a foreground viewer outranks recordings. */
	const char *order = "foreground, recording, background";
	g_assert_cmpint(umms_resources_rank(order, "foreground"), >, umms_resources_rank(order,
		"recording"));
	g_assert_cmpint(umms_resources_rank(order, "unknown"), ==, -1);
}

/*
 * How decoder pools are counted from what was found (hardware.h), without
 * hardware: what VA-API decodes, the V4L2 decoder devices, the engine's
 * Hardware-class elements ("element:codec:plugin"), [resources] decoders.
 */
struct pool_case {
	const char *va;          /* codecs VA-API decodes, "h264,hevc", or NULL: no driver */
	const char *v4l2;        /* decoder devices: "h264+fwht;h264" (two devices; "sl:" stateless) */
	const char *elements;    /* "nvh264dec:h264:nvcodec,vah264dec:h264:va" */
	const char *config;      /* "h264=0,fwht=2" */
	const char *expect;      /* "decoder:h264=3(va-api,v4l2,gstreamer) …", by kind */
};

static const struct pool_case pool_cases[] = {
	/* Nothing found, nothing configured: no pools, so no hardware is plugged. */
	{ NULL, NULL, NULL, NULL, "" },
	/* NVDEC alone (no VA-API driver): one unit per plugin and codec. */
	{ NULL, NULL, "nvh264dec:h264:nvcodec,nvh264sldec:h264:nvcodec,nvh265dec:hevc:nvcodec",
		NULL, "decoder:h264=1(gstreamer) decoder:hevc=1(gstreamer)" },
	/* Another vendor's plugin beside it, and an element of no plugin: one more each. */
	{ NULL, NULL, "nvh264dec:h264:nvcodec,vendorh264dec:h264:vendor,mine:h264:", NULL,
		"decoder:h264=3(gstreamer)" },
	/* ... and decoders.h264=0: no pool for it, whatever was found. */
	{ NULL, NULL, "nvh264dec:h264:nvcodec", "h264=0", "" },
	/* VA-API's elements are VA-API's unit, not one more each. */
	{ "h264", NULL, "vah264dec:h264:va,vaapih264dec:h264:vaapi", NULL,
		"decoder:h264=1(va-api)" },
	/* Everything at once, added up; two V4L2 devices, one also FWHT. */
	{ "h264", "h264+fwht;h264", "nvh264dec:h264:nvcodec,v4l2h264dec:h264:video4linux2,"
		"v4l2fwhtdec:fwht:video4linux2", NULL,
		"decoder:fwht=1(v4l2) decoder:h264=4(va-api,v4l2,gstreamer)" },
	/*
	 * vicodec: a stateful and a stateless FWHT decoder node. video4linux2
	 * drives only the first, and no v4l2codecs element decodes FWHT: one unit.
	 */
	{ NULL, "fwht;sl:fwht", "v4l2fwhtdec:fwht:video4linux2", NULL, "decoder:fwht=1(v4l2)" },
	/* Stateless nodes with v4l2codecs' elements: one unit each, beside the stateful one. */
	{ NULL, "h264;sl:h264;sl:h264", "v4l2h264dec:h264:video4linux2,"
		"v4l2slh264dec:h264:v4l2codecs", NULL, "decoder:h264=3(v4l2)" },
	/* v4l2codecs' element alone, no node probed: one unit, not another plugin's. */
	{ NULL, NULL, "v4l2slh264dec:h264:v4l2codecs", NULL, "decoder:h264=1(v4l2)" },
	/* V4L2 elements with no device probed (another machine's registry): one each. */
	{ NULL, NULL, "v4l2h264dec:h264:video4linux2", NULL, "decoder:h264=1(v4l2)" },
	/* Configured where nothing was found: the number, source "configured". */
	{ NULL, NULL, NULL, "vp9=2", "decoder:vp9=2(configured)" },
	/* A codec with no key of its own still gets its pool. */
	{ NULL, NULL, "nvjpegdec:jpeg:nvcodec", NULL, "decoder:jpeg=1(gstreamer)" },
};

static void
device_free(gpointer data)
{
	struct umms_v4l2_device *d = data;
	g_free(d->path);
	g_free(d->card);
	g_free(d->driver);
	g_ptr_array_unref(d->codecs);
	g_ptr_array_unref(d->formats);
	g_ptr_array_unref(d->sizes);
	g_free(d);
}

static void
test_pool_counts(void)
{
	for (size_t c = 0; c < G_N_ELEMENTS(pool_cases); c++) {
		const struct pool_case *pc = &pool_cases[c];
		struct umms_config config;
		umms_config_init(&config);
		g_auto(GStrv) settings = g_strsplit(pc->config ? pc->config : "", ",", -1);
		for (char **set = settings; *set && **set; set++) {
			g_autofree char *key = g_strdup_printf("resources.decoders.%s", *set);
			*strchr(key, '=') = 0;
			g_assert_true(umms_config_set(&config, key, strchr(*set, '=') + 1, NULL));
		}
		struct umms_hardware hw = { 0 };
		hw.va.codecs = g_array_new(FALSE, FALSE, sizeof(struct umms_va_codec));
		g_auto(GStrv) va = g_strsplit(pc->va ? pc->va : "", ",", -1);
		for (char **codec = va; *codec && **codec; codec++) {
			struct umms_va_codec entry = { .codec = g_intern_string(*codec) };
			g_array_append_val(hw.va.codecs, entry);
		}
		if (pc->va) {
			hw.va.driver = g_strdup("test");
			hw.va.device = g_strdup("/dev/dri/renderD128");
		}
		hw.v4l2.devices = g_ptr_array_new_with_free_func(device_free);
		g_auto(GStrv) devices = g_strsplit(pc->v4l2 ? pc->v4l2 : "", ";", -1);
		for (guint i = 0; devices[i] && *devices[i]; i++) {
			struct umms_v4l2_device *d = g_new0(struct umms_v4l2_device, 1);
			d->path = g_strdup_printf("/dev/video%u", i);
			d->card = g_strdup("test");
			d->driver = g_strdup("test");
			d->m2m = true;
			d->codecs = g_ptr_array_new_with_free_func(g_free);
			d->formats = g_ptr_array_new_with_free_func(g_free);
			d->sizes = g_ptr_array_new_with_free_func(g_free);
			d->stateless = g_str_has_prefix(devices[i], "sl:");
			g_auto(GStrv) codecs = g_strsplit(devices[i] + (d->stateless ? 3 : 0), "+", -1);
			for (char **codec = codecs; *codec; codec++)
				g_ptr_array_add(d->codecs, g_strdup(*codec));
			g_ptr_array_add(hw.v4l2.devices, d);
		}
		hw.elements = g_ptr_array_new_with_free_func(
			(GDestroyNotify)umms_engine_decoder_free);
		g_auto(GStrv) elements = g_strsplit(pc->elements ? pc->elements : "", ",", -1);
		for (char **e = elements; *e && **e; e++) {
			g_auto(GStrv) parts = g_strsplit(*e, ":", 3);
			struct umms_engine_decoder *d = g_new0(struct umms_engine_decoder, 1);
			d->element = g_strdup(parts[0]);
			d->codec = g_strdup(parts[1]);
			d->plugin = g_strdup(parts[2]);
			g_ptr_array_add(hw.elements, d);
		}
		hw.decoder_codecs = g_ptr_array_new_with_free_func(g_free);

		struct umms_resources *r = umms_resources_create();
		umms_hardware_make_pools(&hw, &config, r);
		g_autoptr(GVariant) pools = umms_resources_describe(r, "decoder:");
		GString *got = g_string_new(NULL);
		for (gsize i = 0; i < g_variant_n_children(pools); i++) {
			g_autoptr(GVariant) p = g_variant_get_child_value(pools, i);
			const char *kind = NULL, *source = NULL;
			guint32 total = 0;
			g_variant_lookup(p, "kind", "&s", &kind);
			g_variant_lookup(p, "source", "&s", &source);
			g_variant_lookup(p, "total", "u", &total);
			g_string_append_printf(got, "%s%s=%u(%s)", i ? " " : "", kind, total, source);
		}
		g_test_message("case %zu: %s", c, got->str);
		g_assert_cmpstr(got->str, ==, pc->expect);
		/* What the engine is told it may decode in hardware: the codecs with a pool. */
		g_assert_cmpuint(hw.decoder_codecs->len, ==, g_variant_n_children(pools));
		g_string_free(got, TRUE);
		umms_resources_destroy(r);
		umms_hardware_finish(&hw);
		umms_config_finish(&config);
	}
}

static void
test_v4l2_codecs(void)
{
	/* Stateful and stateless formats alike; raw formats are no codec. */
	g_assert_cmpstr(umms_v4l2_codec_name(0x34363248 /* H264 */), ==, "h264");
	g_assert_cmpstr(umms_v4l2_codec_name(0x34363253 /* S264 */), ==, "h264");
	g_assert_cmpstr(umms_v4l2_codec_name(0x54485746 /* FWHT */), ==, "fwht");
	g_assert_cmpstr(umms_v4l2_codec_name(0x48574653 /* SFWH */), ==, "fwht");
	g_assert_cmpstr(umms_v4l2_codec_name(0x30395056 /* VP90 */), ==, "vp9");
	g_assert_null(umms_v4l2_codec_name(0x56595559 /* YUYV */));
	/* The stateless API's formats (parsed frames), told apart. */
	g_assert_true(umms_v4l2_codec_stateless(0x48574653 /* SFWH */));
	g_assert_true(umms_v4l2_codec_stateless(0x34363253 /* S264 */));
	g_assert_false(umms_v4l2_codec_stateless(0x54485746 /* FWHT */));
	g_assert_false(umms_v4l2_codec_stateless(0x34363248 /* H264 */));
}

int
main(int argc, char *argv[])
{
	g_test_init(&argc, &argv, NULL);
	g_test_add_func("/resources/pool-counts", test_pool_counts);
	g_test_add_func("/resources/v4l2-codecs", test_v4l2_codecs);
	g_test_add_data_func("/resources/preempt-order", preempt_order, test_scenario);
	g_test_add_data_func("/resources/restore-order", restore_order, test_scenario);
	g_test_add_data_func("/resources/equal-ranks", equal_ranks, test_scenario);
	g_test_add_data_func("/resources/death", death, test_scenario);
	g_test_add_data_func("/resources/missing", missing, test_scenario);
	g_test_add_data_func("/resources/resize", resize, test_scenario);
	g_test_add_data_func("/resources/codec-policy", codec_policy, test_scenario);
	g_test_add_func("/resources/rank", test_rank);
	return g_test_run();
}
