/* Recording destinations kept inside the recording directories (destination.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "destination.h"
#include "error.h"

const char *
umms_destination_container(const char *path)
{
	static const struct { const char *ext, *container; } table[] = {
		{ ".mkv", "matroska" }, { ".mka", "matroska" }, { ".webm", "matroska" },
		{ ".ts", "mpegts" }, { ".m2ts", "mpegts" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(table); i++) {
		if (g_str_has_suffix(path, table[i].ext))
			return table[i].container;
	}
	return NULL;
}

/* @path, every link resolved, for the part that exists; the rest appended as it is. */
static char *
resolve_existing(const char *path)
{
	char *real = realpath(path, NULL);
	if (real) {
		char *out = g_strdup(real);
		free(real);
		return out;
	}
	g_autofree char *parent = g_path_get_dirname(path);
	g_autofree char *base = g_path_get_basename(path);
	if (strcmp(parent, path) == 0)
		return g_strdup(path);
	g_autofree char *resolved = resolve_existing(parent);
	return g_build_filename(resolved, base, NULL);
}

static bool
inside(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	return strncmp(dir, path, n) == 0 && (path[n] == '/' || dir[n - 1] == '/');
}

char *
umms_destination_resolve(const char *const *dirs, const char *destination, GError **error)
{
	if (!dirs || !dirs[0]) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
			"no recording directory is configured ([recording] directories)");
		return NULL;
	}
	if (!destination || !*destination || g_str_has_suffix(destination, "/")) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"destination \"%s\": name a file", destination ? destination : "");
		return NULL;
	}
	g_auto(GStrv) parts = g_strsplit(destination, "/", -1);
	for (char **part = parts; *part; part++) {
		if (strcmp(*part, "..") == 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"destination \"%s\": \"..\" is not allowed", destination);
			return NULL;
		}
	}
	if (!umms_destination_container(destination)) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
			"destination \"%s\": end it in .mkv (Matroska) or .ts (MPEG-TS)", destination);
		return NULL;
	}
	g_autofree char *wanted = g_path_is_absolute(destination) ? g_strdup(destination) :
		g_build_filename(dirs[0], destination, NULL);
	if (g_mkdir_with_parents(dirs[0], 0700) != 0) {
		g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
			"cannot make the recording directory %s: %s", dirs[0], g_strerror(errno));
		return NULL;
	}
	g_autofree char *real = resolve_existing(wanted);
	for (const char *const *dir = dirs; *dir; dir++) {
		g_autofree char *real_dir = resolve_existing(*dir);
		if (!inside(real_dir, real))
			continue;
		g_autofree char *parent = g_path_get_dirname(real);
		if (g_mkdir_with_parents(parent, 0700) != 0) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
				"cannot make %s: %s", parent, g_strerror(errno));
			return NULL;
		}
		if (g_file_test(real, G_FILE_TEST_IS_DIR)) {
			g_set_error(error, UMMS_ERROR, UMMS_ERROR_INVALID_ARGUMENT,
				"destination \"%s\" is a folder", destination);
			return NULL;
		}
		return g_steal_pointer(&real);
	}
	g_autofree char *all = g_strjoinv(", ", (char **)dirs);
	g_set_error(error, UMMS_ERROR, UMMS_ERROR_ACCESS_DENIED,
		"destination \"%s\" is outside the recording directories (%s)", destination, all);
	return NULL;
}
