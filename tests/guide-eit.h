/* The guide's C API test (guide-eit.c), run by test-guide.c. */
#ifndef UMMS_TESTS_GUIDE_EIT_H
#define UMMS_TESTS_GUIDE_EIT_H

#include "harness.h"

void umms_test_guide_eit(struct umms_test *t, gconstpointer data);

#endif
