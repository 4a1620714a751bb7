/*
 * The resource manager (resources.h): pools, grants, preemption by rank,
 * restoration.
 */
#define UMMS_LOG_SCOPE UMMS_SCOPE_CORE

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "resources.h"

struct grant {
	struct umms_resource_holder *holder;
	uint64_t seq;              /* when granted (holders) or lost (waiting) */
};

struct pool {
	char *kind;
	unsigned total;
	struct umms_resource_pool_info info;
	char *source;
	GVariant *details;         /* a{sv} or NULL: info.details, referenced */
	GArray *holders;           /* struct grant, one per unit in use */
	GArray *waiting;           /* struct grant: lost, to be restored */
};

struct umms_resources {
	GHashTable *pools;         /* kind → struct pool */
	uint64_t seq;
};

static void
pool_free(gpointer data)
{
	struct pool *p = data;
	g_free(p->kind);
	g_free(p->source);
	if (p->details)
		g_variant_unref(p->details);
	g_array_unref(p->holders);
	g_array_unref(p->waiting);
	g_free(p);
}

struct umms_resources *
umms_resources_create(void)
{
	struct umms_resources *r = g_new0(struct umms_resources, 1);
	r->pools = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, pool_free);
	return r;
}

void
umms_resources_destroy(struct umms_resources *r)
{
	if (!r)
		return;
	g_hash_table_destroy(r->pools);
	g_free(r);
}

int
umms_resources_rank(const char *order, const char *priority)
{
	g_auto(GStrv) names = g_strsplit(order ? order : "recording,foreground,background", ",",
		-1);
	guint n = g_strv_length(names);
	for (guint i = 0; i < n; i++) {
		if (strcmp(g_strstrip(names[i]), priority) == 0)
			return (int)(n - i);
	}
	return -1;
}

static struct pool *
pool_get(struct umms_resources *r, const char *kind)
{
	return g_hash_table_lookup(r->pools, kind);
}

static int
find(GArray *list, struct umms_resource_holder *holder)
{
	for (guint i = 0; i < list->len; i++) {
		if (g_array_index(list, struct grant, i).holder == holder)
			return (int)i;
	}
	return -1;
}

/* The grant to take: the lowest rank below @rank, the newest among equals; -1 none. */
static int
victim(struct pool *p, int rank)
{
	int best = -1;
	for (guint i = 0; i < p->holders->len; i++) {
		struct grant *g = &g_array_index(p->holders, struct grant, i);
		if (g->holder->rank >= rank)
			continue;
		struct grant *b = best >= 0 ? &g_array_index(p->holders, struct grant, best) : NULL;
		if (!b || g->holder->rank < b->holder->rank ||
				(g->holder->rank == b->holder->rank && g->seq > b->seq))
			best = (int)i;
	}
	return best;
}

/* Takes grant @i away: the holder waits for it back (told by tell_lost). */
static struct grant
preempt(struct umms_resources *r, struct pool *p, guint i, const char *by)
{
	struct grant g = g_array_index(p->holders, struct grant, i);
	g_array_remove_index(p->holders, i);
	g.seq = ++r->seq;
	g_array_append_val(p->waiting, g);
	umms_info("resources: %s lost its %s to %s", g.holder->name, p->kind, by);
	return g;
}

/*
 * The loser of @g hears of it once the pool is as it will stay: a holder
 * that asks then what it may still take (umms_resources_can_take) must not
 * find the unit free between the loss and the taker's grant.
 */
static void
tell_lost(struct pool *p, const struct grant *g, const char *by)
{
	if (g->holder->impl && g->holder->impl->lost)
		g->holder->impl->lost(g->holder, p->kind, by);
}

/* Free units go to the waiting holders: the highest rank, the oldest loss first. */
static void
restore(struct umms_resources *r, struct pool *p)
{
	while (p->holders->len < p->total && p->waiting->len > 0) {
		guint best = 0;
		for (guint i = 1; i < p->waiting->len; i++) {
			struct grant *g = &g_array_index(p->waiting, struct grant, i);
			struct grant *b = &g_array_index(p->waiting, struct grant, best);
			if (g->holder->rank > b->holder->rank ||
					(g->holder->rank == b->holder->rank && g->seq < b->seq))
				best = i;
		}
		struct grant g = g_array_index(p->waiting, struct grant, best);
		g_array_remove_index(p->waiting, best);
		g.seq = ++r->seq;
		g_array_append_val(p->holders, g);
		umms_info("resources: %s has its %s back", g.holder->name, p->kind);
		if (g.holder->impl && g.holder->impl->restored)
			g.holder->impl->restored(g.holder, p->kind);
	}
}

void
umms_resources_set_pool(struct umms_resources *r, const char *kind, unsigned total,
	const struct umms_resource_pool_info *info)
{
	struct pool *p = pool_get(r, kind);
	if (!p) {
		p = g_new0(struct pool, 1);
		p->kind = g_strdup(kind);
		p->holders = g_array_new(FALSE, FALSE, sizeof(struct grant));
		p->waiting = g_array_new(FALSE, FALSE, sizeof(struct grant));
		g_hash_table_insert(r->pools, p->kind, p);
	}
	if (info) {
		g_free(p->source);
		p->source = g_strdup(info->source ? info->source : "configured");
		p->info = *info;
		p->info.source = p->source;
		GVariant *old = p->details;
		p->details = info->details ? g_variant_ref_sink(info->details) : NULL;
		p->info.details = p->details;
		if (old)
			g_variant_unref(old);
	} else if (!p->source) {
		p->source = g_strdup("configured");
		p->info.source = p->source;
	}
	p->total = total;
	while (p->holders->len > p->total) {
		struct grant lost = preempt(r, p, (guint)victim(p, G_MAXINT), "a smaller pool");
		tell_lost(p, &lost, "a smaller pool");
	}
	restore(r, p);
}

unsigned
umms_resources_total(struct umms_resources *r, const char *kind)
{
	struct pool *p = pool_get(r, kind);
	return p ? p->total : 0;
}

unsigned
umms_resources_free(struct umms_resources *r, const char *kind)
{
	struct pool *p = pool_get(r, kind);
	return p ? p->total - MIN(p->total, p->holders->len) : 0;
}

static void
no_resource(struct pool *p, const char *kind, GError **error)
{
	if (!p || p->total == 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
			"no %s on this machine", kind);
		return;
	}
	GString *who = g_string_new(NULL);
	for (guint i = 0; i < p->holders->len; i++) {
		struct grant *g = &g_array_index(p->holders, struct grant, i);
		g_string_append_printf(who, "%s%s (%s)", i ? ", " : "", g->holder->name,
			g->holder->priority);
	}
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_NO_RESOURCE,
		"no free %s: %u of %u, held by %s", kind, p->total, p->total, who->str);
	g_string_free(who, TRUE);
}

bool
umms_resources_acquire(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind, GError **error)
{
	struct pool *p = pool_get(r, kind);
	if (!p || p->total == 0) {
		no_resource(p, kind, error);
		return false;
	}
	if (find(p->holders, holder) >= 0)
		return true;
	struct grant lost = { 0 };
	if (p->holders->len >= p->total) {
		int v = victim(p, holder->rank);
		if (v < 0) {
			no_resource(p, kind, error);
			return false;
		}
		lost = preempt(r, p, (guint)v, holder->name);
	}
	/* After the preemption, which added to the waiting list. */
	int w = find(p->waiting, holder);
	if (w >= 0)
		g_array_remove_index(p->waiting, (guint)w);
	struct grant g = { holder, ++r->seq };
	g_array_append_val(p->holders, g);
	umms_debug("resources: %s holds a %s (%s)", holder->name, kind, holder->priority);
	if (lost.holder)
		tell_lost(p, &lost, holder->name);
	return true;
}

void
umms_resources_release(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind)
{
	struct pool *p = pool_get(r, kind);
	if (!p)
		return;
	int i = find(p->waiting, holder);
	if (i >= 0)
		g_array_remove_index(p->waiting, (guint)i);
	i = find(p->holders, holder);
	if (i < 0)
		return;
	g_array_remove_index(p->holders, (guint)i);
	umms_debug("resources: %s gave back a %s", holder->name, kind);
	restore(r, p);
}

void
umms_resources_forget(struct umms_resources *r, struct umms_resource_holder *holder)
{
	GHashTableIter iter;
	gpointer value;
	g_hash_table_iter_init(&iter, r->pools);
	/* Released pool by pool: a restoration may not touch the table itself. */
	g_autoptr(GPtrArray) kinds = g_ptr_array_new();
	while (g_hash_table_iter_next(&iter, NULL, &value)) {
		struct pool *p = value;
		if (find(p->holders, holder) >= 0 || find(p->waiting, holder) >= 0)
			g_ptr_array_add(kinds, p->kind);
	}
	for (guint i = 0; i < kinds->len; i++)
		umms_resources_release(r, holder, g_ptr_array_index(kinds, i));
}

bool
umms_resources_holds(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind)
{
	struct pool *p = pool_get(r, kind);
	return p && find(p->holders, holder) >= 0;
}

bool
umms_resources_waits(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind)
{
	struct pool *p = pool_get(r, kind);
	return p && find(p->waiting, holder) >= 0;
}

static GVariant *
describe_grants(GArray *list)
{
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("a(ss)"));
	for (guint i = 0; i < list->len; i++) {
		struct grant *g = &g_array_index(list, struct grant, i);
		g_variant_builder_add(&b, "(ss)", g->holder->name, g->holder->priority);
	}
	return g_variant_builder_end(&b);
}

static int
compare_kinds(gconstpointer a, gconstpointer b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

GVariant *
umms_resources_describe(struct umms_resources *r, const char *prefix)
{
	g_autoptr(GPtrArray) kinds = g_ptr_array_new();
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, r->pools);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		if (g_str_has_prefix(key, prefix))
			g_ptr_array_add(kinds, key);
	}
	g_ptr_array_sort(kinds, compare_kinds);
	GVariantBuilder b;
	g_variant_builder_init(&b, G_VARIANT_TYPE("aa{sv}"));
	for (guint i = 0; i < kinds->len; i++) {
		struct pool *p = pool_get(r, g_ptr_array_index(kinds, i));
		GVariantDict d;
		g_variant_dict_init(&d, NULL);
		g_variant_dict_insert(&d, "kind", "s", p->kind);
		g_variant_dict_insert(&d, "total", "u", p->total);
		g_variant_dict_insert(&d, "free", "u", p->total - MIN(p->total, p->holders->len));
		g_variant_dict_insert(&d, "hardware", "b", p->info.hardware);
		g_variant_dict_insert(&d, "source", "s", p->info.source ? p->info.source : "");
		if (p->info.max_width > 0) {
			g_variant_dict_insert(&d, "max-width", "i", p->info.max_width);
			g_variant_dict_insert(&d, "max-height", "i", p->info.max_height);
		}
		if (p->details) {
			GVariantIter it;
			const char *field;
			GVariant *value;
			g_variant_iter_init(&it, p->details);
			while (g_variant_iter_next(&it, "{&sv}", &field, &value)) {
				g_variant_dict_insert_value(&d, field, value);
				g_variant_unref(value);
			}
		}
		g_variant_dict_insert_value(&d, "holders", describe_grants(p->holders));
		g_variant_dict_insert_value(&d, "waiting", describe_grants(p->waiting));
		g_variant_builder_add_value(&b, g_variant_dict_end(&d));
	}
	return g_variant_builder_end(&b);
}

static int
codec_cost(const char *costs, const char *codec)
{
	g_auto(GStrv) pairs = g_strsplit(costs ? costs : "", ",", -1);
	for (char **pair = pairs; *pair; pair++) {
		char *eq = strchr(*pair, '=');
		if (!eq)
			continue;
		*eq = 0;
		if (strcmp(g_strstrip(*pair), codec) == 0)
			return atoi(eq + 1);
	}
	return 10;
}

bool
umms_resources_can_take(struct umms_resources *r, struct umms_resource_holder *holder, const char *kind)
{
	struct pool *p = pool_get(r, kind);
	if (!p || p->total == 0)
		return false;
	return find(p->holders, holder) >= 0 || p->holders->len < p->total ||
		victim(p, holder->rank) >= 0;
}

int
umms_resources_choose(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *const *codecs, int n, const char *costs, char **why)
{
	int best = -1;
	bool best_hw = false;
	int best_cost = 0;
	for (int i = 0; i < n; i++) {
		g_autofree char *kind = g_strdup_printf("decoder:%s", codecs[i]);
		bool hw = umms_resources_can_take(r, holder, kind);
		int cost = codec_cost(costs, codecs[i]);
		if (best < 0 || (hw && !best_hw) || (hw == best_hw && cost < best_cost)) {
			best = i;
			best_hw = hw;
			best_cost = cost;
		}
	}
	if (best >= 0 && why) {
		*why = best_hw ? g_strdup_printf("video track %d (%s): a hardware decoder:%s", best,
				codecs[best], codecs[best]) :
			g_strdup_printf("video track %d (%s): no hardware decoder for any track, "
				"the lowest cost (%d)", best, codecs[best], best_cost);
	}
	return best;
}
