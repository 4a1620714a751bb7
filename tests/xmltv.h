/*
 * XMLTV guide files as a user's would be, written by the tests that fill
 * the programme guide (parental-block, recorder-schedule). Times are UTC.
 */
#ifndef UMMS_TESTS_XMLTV_H
#define UMMS_TESTS_XMLTV_H

#include <stdint.h>
#include <glib.h>

/* <tv> with its channels: @channels holds id, display name, id, ..., NULL. */
GString *umms_test_xmltv_begin(const char *const *channels);
/* One <programme> of @channel from @start_us to @stop_us (µs, whole seconds), @inner after its title (NULL: nothing). */
void umms_test_xmltv_programme(GString *xml, const char *channel, int64_t start_us,
	int64_t stop_us, const char *title, const char *inner);
/* Ends and frees @xml, written as @name.xml in the test's folder: its path. */
char *umms_test_xmltv_finish(GString *xml, const char *name);

#endif
