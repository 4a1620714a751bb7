/*
 * What test-guide.c and its parts (guide-util.c: helpers over Guide1;
 * guide-bulk.c: 50 × 1,000 programmes; guide-eit.c: the C API) share.
 */
#ifndef UMMS_TESTS_GUIDE_TESTS_H
#define UMMS_TESTS_GUIDE_TESTS_H

#include <stdint.h>
#include <gio/gio.h>

#include "harness.h"

#define GUIDE1 "org.umms.Guide1"

/* @content written to a file of the test's folder; its path (g_free). */
char *guide_test_write(const char *name, const char *content, gssize length);
/* A service with a database @name of its own, XMLTV local times in London, and @extra. */
void guide_test_fresh(struct umms_test *t, const char *name, const char *extra);
/* Guide1.@method(@path), asserted to succeed: its a{sv} result. */
GVariant *guide_test_import(struct umms_test *t, const char *method, const char *path);
/* The u @key of an import's result (asserted present). */
guint32 guide_test_count(GVariant *result, const char *key);
/* ListChannels: aa{sv}. */
GVariant *guide_test_channels(struct umms_test *t);
/* The channel named @name in @list; fails the test if none. */
GVariant *guide_test_channel_named(GVariant *list, const char *name);
/* The "id" of a channel or programme. */
int64_t guide_test_id(GVariant *dict);
/* The as @key of @dict joined with '|'; "" if none. */
char *guide_test_joined(GVariant *dict, const char *key);
/* GetNowNext(@channel, @at): "now/next" titles ("-": none); their ids (may be NULL). */
char *guide_test_now_next(struct umms_test *t, int64_t channel, int64_t at,
	int64_t *now_id, int64_t *next_id);
/* GetSchedule: aa{sv}. */
GVariant *guide_test_schedule(struct umms_test *t, int64_t channel, int64_t from, int64_t to);
/* A UTC date and time in µs since 1970. */
int64_t guide_test_utc(int year, int month, int day, int hour, int minute, int second);

/* The cases in files of their own. */
void guide_test_xmltv_bulk(struct umms_test *t, gconstpointer data);
void guide_test_eit(struct umms_test *t, gconstpointer data);

#endif
