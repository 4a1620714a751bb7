/* Reading cue lists back in the caption decoder tests (cue-check.h). */
#include "cue-check.h"

GArray *
cue_check_active(struct umms_cues *cues, int64_t position)
{
	GArray *active = g_array_new(FALSE, TRUE, sizeof(struct umms_cue));
	g_array_set_clear_func(active, (GDestroyNotify)umms_cue_clear);
	umms_cues_active(cues, position, active);
	return active;
}

char *
cue_check_text(struct umms_cues *cues, int64_t position, bool markup)
{
	GArray *active = cue_check_active(cues, position);
	g_assert_cmpuint(active->len, <=, 1);
	const struct umms_cue *cue = active->len ? &g_array_index(active, struct umms_cue, 0) : NULL;
	char *s = g_strdup(cue ? (markup ? cue->markup : cue->plain) : "");
	g_array_unref(active);
	return s;
}
