/*
 * The plane ladder (kms-ladder.h).
 */
#include <drm_fourcc.h>
#include <stdio.h>
#include <glib.h>

#include "kms-ladder.h"

const char *
umms_kms_rung_name(enum umms_kms_rung rung)
{
	switch (rung) {
	case UMMS_KMS_RUNG_OVERLAY:
		return "overlay";
	case UMMS_KMS_RUNG_PRIMARY:
		return "primary";
	case UMMS_KMS_RUNG_COMPOSITE:
		break;
	}
	return "composited";
}

/* Whether @s is stacked above @v: a higher zpos, or the same one by type and a later place. */
static bool
stacked_above(const struct umms_kms_plane *planes, int s, int v)
{
	if (planes[s].zpos != planes[v].zpos)
		return planes[s].zpos > planes[v].zpos;
	return !planes[s].has_zpos && !planes[v].has_zpos && planes[s].type == planes[v].type &&
		s > v;
}

/* The lowest overlay above plane @v that takes ARGB8888, other than @v; -1: none. */
static int
sub_plane_above(const struct umms_kms_ladder_input *in, int v)
{
	int best = -1;
	for (int i = 0; i < in->n_planes; i++) {
		const struct umms_kms_plane *p = &in->planes[i];
		if (i == v || p->type != UMMS_KMS_PLANE_OVERLAY ||
				!umms_kms_plane_has_format(p, DRM_FORMAT_ARGB8888) ||
				!stacked_above(in->planes, i, v))
			continue;
		if (best < 0 || stacked_above(in->planes, best, i))
			best = i;
	}
	return best;
}

int
umms_kms_ladder_build(const struct umms_kms_ladder_input *in,
	struct umms_kms_layout_choice out[UMMS_KMS_LADDER_MAX], char **skipped)
{
	GString *why = g_string_new(NULL);
	char fmt[5];
	umms_kms_fourcc_name(in->video_format, fmt);
	int primary = -1;
	for (int i = 0; i < in->n_planes && primary < 0; i++) {
		if (in->planes[i].type == UMMS_KMS_PLANE_PRIMARY &&
				umms_kms_plane_has_format(&in->planes[i], DRM_FORMAT_XRGB8888))
			primary = i;
	}
	int n = 0;
	if (primary < 0) {
		g_string_append(why, "no primary plane takes XR24\n");
		goto out;
	}

	/* 1. Overlays that take the format, lowest first. */
	int order[UMMS_KMS_LADDER_MAX];
	int n_overlays = 0;
	if (in->video_below_ui)
		g_string_append(why, "overlay planes: the UI is drawn over the video\n");
	for (int i = 0; i < in->n_planes && !in->video_below_ui; i++) {
		const struct umms_kms_plane *p = &in->planes[i];
		if (p->type != UMMS_KMS_PLANE_OVERLAY)
			continue;
		if (!umms_kms_plane_has_format(p, in->video_format)) {
			g_string_append_printf(why, "plane %u (overlay): no %s\n", p->id, fmt);
			continue;
		}
		if (p->zpos < in->planes[primary].zpos) {
			g_string_append_printf(why, "plane %u (overlay): under the primary plane\n",
				p->id);
			continue;
		}
		if (n_overlays == UMMS_KMS_LADDER_MAX - 2)
			break;
		/* Insertion by zpos, stable. */
		int at = n_overlays++;
		while (at > 0 && in->planes[order[at - 1]].zpos > p->zpos) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = i;
	}
	for (int k = 0; k < n_overlays; k++) {
		int sub = in->subpicture ? sub_plane_above(in, order[k]) : -1;
		if (in->subpicture && sub < 0) {
			g_string_append_printf(why, "plane %u (overlay): no AR24 plane above it for "
				"the subtitles\n", in->planes[order[k]].id);
			continue;
		}
		out[n] = (struct umms_kms_layout_choice){ .rung = UMMS_KMS_RUNG_OVERLAY,
			.video_plane = order[k], .primary_plane = primary, .sub_plane = sub };
		int len = snprintf(out[n].why, sizeof(out[n].why), "%s on overlay plane %u (zpos %llu)",
			fmt, in->planes[order[k]].id, (unsigned long long)in->planes[order[k]].zpos);
		if (sub >= 0 && len > 0 && (size_t)len < sizeof(out[n].why))
			snprintf(out[n].why + len, sizeof(out[n].why) - (size_t)len,
				", subtitles on %u", in->planes[sub].id);
		n++;
	}

	/* 2. The primary plane alone, when the picture is all there is to see. */
	if (!in->covers_output)
		g_string_append(why, "primary plane for the video: the picture leaves bars\n");
	else if (in->ui_visible)
		g_string_append(why, "primary plane for the video: the UI must show\n");
	else if (!umms_kms_plane_has_format(&in->planes[primary], in->video_format))
		g_string_append_printf(why, "primary plane for the video: no %s\n", fmt);
	else if (in->subpicture && sub_plane_above(in, primary) < 0)
		g_string_append(why, "primary plane for the video: no AR24 overlay for the "
			"subtitles\n");
	else {
		int sub = in->subpicture ? sub_plane_above(in, primary) : -1;
		out[n] = (struct umms_kms_layout_choice){ .rung = UMMS_KMS_RUNG_PRIMARY,
			.video_plane = primary, .primary_plane = primary, .sub_plane = sub };
		int len = snprintf(out[n].why, sizeof(out[n].why),
			"%s on the primary plane %u, full screen", fmt, in->planes[primary].id);
		if (sub >= 0 && len > 0 && (size_t)len < sizeof(out[n].why))
			snprintf(out[n].why + len, sizeof(out[n].why) - (size_t)len,
				", subtitles on %u", in->planes[sub].id);
		n++;
	}

	/* 3. Composition: always. */
	out[n] = (struct umms_kms_layout_choice){ .rung = UMMS_KMS_RUNG_COMPOSITE,
		.video_plane = -1, .primary_plane = primary, .sub_plane = -1 };
	snprintf(out[n].why, sizeof(out[n].why), "%s%s drawn into the primary plane %u",
		fmt, in->subpicture ? " and subtitles" : "", in->planes[primary].id);
	n++;
out:
	if (skipped)
		*skipped = g_string_free(why, FALSE);
	else
		g_string_free(why, TRUE);
	return n;
}
