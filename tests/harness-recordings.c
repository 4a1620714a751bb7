/*
 * The harness's readers of recordings and of worker processes
 * (umms_test_recording_*, umms_test_proc_status, harness.h), shared by the
 * recorder, capture, recorder-worker and worker-sandbox tests.
 */
#include <string.h>

#include "harness.h"

#define RECORDING1 "org.umms.Recording1"

char *
umms_test_recording_string(struct umms_test *t, const char *path, const char *property)
{
	g_autoptr(GVariant) v = umms_test_get(t->bus, path, RECORDING1, property);
	return g_variant_dup_string(v, NULL);
}

void
umms_test_recording_wait(struct umms_test *t, const char *path, const char *state,
	unsigned ms)
{
	for (unsigned i = 0; i < ms / 50; i++) {
		g_autofree char *now = umms_test_recording_string(t, path, "State");
		if (strcmp(now, state) == 0)
			return;
		umms_test_sleep(50);
	}
	g_autofree char *now = umms_test_recording_string(t, path, "State");
	g_autofree char *error = umms_test_recording_string(t, path, "Error");
	g_error("%s stayed %s (%s), never %s", path, now, error, state);
}

char *
umms_test_proc_status(pid_t pid, const char *field)
{
	g_autofree char *path = g_strdup_printf("/proc/%d/status", (int)pid);
	g_autofree char *text = NULL;
	g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
	g_autofree char *key = g_strdup_printf("\n%s:", field);
	const char *at = strstr(text, key);
	g_assert_nonnull(at);
	at += strlen(key);
	while (*at == ' ' || *at == '\t')
		at++;
	return g_strndup(at, strcspn(at, "\n"));
}
