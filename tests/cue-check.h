/*
 * What the caption decoder tests (test-captions, test-captions708) read
 * back from a cue list (engines/cues.h).
 */
#ifndef UMMS_TESTS_CUE_CHECK_H
#define UMMS_TESTS_CUE_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "cues.h"

/* The cues active at @position µs (struct umms_cue, cleared with the array). */
GArray *cue_check_active(struct umms_cues *cues, int64_t position);
/*
 * The text of the one cue active at @position (asserted: at most one),
 * plain or, with @markup, its markup; "" when none. Free it.
 */
char *cue_check_text(struct umms_cues *cues, int64_t position, bool markup);

#endif
