/*
 * Sandboxed children for the sandbox tests (test-sandbox.c,
 * test-sandbox-gst.c): each case forks a child that enters the sandbox and
 * reports over a pipe what its calls returned, as "name value" lines (an
 * errno, 0 for success); the parent asserts them. A child that hangs is
 * killed at its deadline and fails the case. Children leave with _exit():
 * LeakSanitizer cannot run in the sandbox.
 */
#ifndef UMMS_TESTS_SANDBOX_CHILD_H
#define UMMS_TESTS_SANDBOX_CHILD_H

#include <stddef.h>

#include <glib.h>

#include "sandbox.h"

typedef void (*child_func)(int out, const void *data);

/* Child: one "name value" line. */
void child_report(int out, const char *name, long value);
/* Child: the errno of a call that returned @ret, 0 for success. */
long child_result(long ret);
/* Child: enters the sandbox keeping only the pipe, or leaves with status 2. */
void child_enter(int out, struct umms_sandbox_policy policy);
/* 256 descriptors, nothing else limited, no network. */
extern const struct umms_sandbox_policy child_default_policy;

/*
 * Parent: runs @func in a child, which must exit 0 within @timeout_s, and
 * returns its report (name → value).
 */
GHashTable *child_run(child_func func, const void *data, unsigned timeout_s);
/* Parent: the value the child reported for @name, which it must have. */
int child_value(GHashTable *values, const char *name);

/* Parent: what the child must have reported, name by name. */
struct expect {
	const char *name;
	int value;
};

void child_expect(GHashTable *values, const struct expect *expect, size_t n);
#define EXPECT(values, ...) child_expect(values, (const struct expect[]){ __VA_ARGS__ }, \
	sizeof((const struct expect[]){ __VA_ARGS__ }) / sizeof(struct expect))

#endif
