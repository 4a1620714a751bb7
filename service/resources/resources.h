/*
 * The resource manager: ummsd, not each application, owns the scarce
 * hardware (hardware decoders per codec, overlay planes, tuners) and
 * applies one policy when players compete for it.
 *
 * Pools: each kind of unit ("decoder:h264", "plane", "tuner") is a pool of
 * a number of units, set from what the hardware reports (VA-API probing,
 * the KMS device's planes) or from the configuration where it cannot
 * (`[resources] decoders.h264 = 2`, `tuners`, `planes`).
 *
 * Holders (players) ask for units with their priority rank: a higher rank
 * preempts a lower one when the pool is full. The preempted holder is told
 * (lost), falls back (software decoding, composited video) or pauses when
 * no fallback exists, and waits: when a unit frees, the highest waiting
 * rank gets it back (restored). Among equal ranks the newest grant is
 * preempted first and the oldest loss restored first. A request nobody
 * can satisfy fails with org.umms.Error.NoResource naming what is missing
 * and who holds it. A holder that goes releases everything (forget).
 *
 * Pure bookkeeping, on the main loop: no hardware is touched here, so the
 * policy is tested with tables of scenarios (tests/test-resources.c).
 */
#ifndef UMMS_SERVICE_RESOURCES_H
#define UMMS_SERVICE_RESOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

struct umms_resources;
struct umms_resource_holder;

struct umms_resource_holder_impl {
	/* @kind was taken for a higher priority (@by names who): fall back or pause. */
	void (*lost)(struct umms_resource_holder *holder, const char *kind, const char *by);
	/* @kind, lost earlier, is the holder's again. */
	void (*restored)(struct umms_resource_holder *holder, const char *kind);
};

/* Embedded in what holds units (a player); filled in by its owner. */
struct umms_resource_holder {
	const struct umms_resource_holder_impl *impl;
	const char *name;          /* "/org/umms/player/3": in errors and on D-Bus */
	const char *priority;      /* "recording", "foreground", "background" */
	int rank;                  /* higher preempts lower (umms_resources_rank) */
};

/* A pool's description, for org.umms.Resources1. */
struct umms_resource_pool_info {
	bool hardware;             /* probed from a device, not only configured */
	int max_width, max_height; /* decoders: the largest picture, 0 unknown */
	const char *source;        /* "va-api", "v4l2", "gstreamer", "kms", "configured" */
	/*
	 * More fields for Resources1 (a{sv}: "elements", "devices", a capture
	 * device's "name", "formats", "sizes"), or NULL. A floating reference
	 * is sunk; the pool keeps its own.
	 */
	GVariant *details;
};

struct umms_resources *umms_resources_create(void);
/* Every holder must have been forgotten first. NULL: no-op. */
void umms_resources_destroy(struct umms_resources *r);

/*
 * The rank of a priority name in @order ("recording,foreground,background",
 * highest first; NULL: that order); -1 if it is not in it.
 */
int umms_resources_rank(const char *order, const char *priority);

/*
 * Creates or resizes the pool of @kind to @total units. Shrinking takes
 * units from the lowest ranks first, which are told (lost).
 */
void umms_resources_set_pool(struct umms_resources *r, const char *kind, unsigned total,
	const struct umms_resource_pool_info *info);
/* The pool's size, 0 when there is none. */
unsigned umms_resources_total(struct umms_resources *r, const char *kind);
/* Its units nobody holds. */
unsigned umms_resources_free(struct umms_resources *r, const char *kind);

/*
 * One unit of @kind for @holder: true if it holds one now (already, free,
 * or taken from a lower rank, which is told). False with NoResource
 * otherwise; the holder does not wait then.
 */
bool umms_resources_acquire(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind, GError **error);
/* Gives a unit back (or stops waiting for one); the best waiting holder gets it. */
void umms_resources_release(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind);
/* The holder goes: everything it holds or waits for is released. */
void umms_resources_forget(struct umms_resources *r, struct umms_resource_holder *holder);
bool umms_resources_holds(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind);
/* Whether @holder holds a unit of @kind or could take one now (free, or from a lower rank). */
bool umms_resources_can_take(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind);
/* Whether @holder lost a unit of @kind and waits to get it back. */
bool umms_resources_waits(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *kind);

/*
 * The codec-selection policy: which of @n video tracks (their codecs) to
 * play. A track whose codec has a hardware decoder @holder holds or could
 * take (free, or held by a lower rank) comes first; then the lowest cost
 * in @costs ("h264=1,vp9=3": relative power to decode in software; codecs
 * not named cost 10); ties keep the earlier track. *@why (g_free) says why,
 * for the log and Player1.Decoder.
 */
int umms_resources_choose(struct umms_resources *r, struct umms_resource_holder *holder,
	const char *const *codecs, int n, const char *costs, char **why);

/*
 * The pools whose kind starts with @prefix ("decoder:", "plane", "tuner")
 * as aa{sv}: kind, total, free, hardware, source, max-width, max-height,
 * the pool's details, holders (a(ss): name, priority), waiting (a(ss)).
 */
GVariant *umms_resources_describe(struct umms_resources *r, const char *prefix);

#endif
