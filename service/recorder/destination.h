/*
 * Where recordings may be written: only under the configured recording
 * directories ([recording] directories, default
 * $XDG_DATA_HOME/umms/recordings). A relative destination is taken inside
 * the first; an absolute one must lie inside one of them once every
 * symbolic link in it is resolved; ".." is refused outright. Anything else
 * is org.umms.Error.AccessDenied, so no client can make ummsd write over
 * another file of the user's.
 */
#ifndef UMMS_SERVICE_DESTINATION_H
#define UMMS_SERVICE_DESTINATION_H

#include <glib.h>

/*
 * The file to write for @destination, or NULL with AccessDenied (outside
 * @dirs, ".."), InvalidArgument (empty, a folder, not .mkv/.mka/.webm/.ts)
 * or the error making the folder. Creates missing folders inside the
 * recording directory. g_free the result.
 */
char *umms_destination_resolve(const char *const *dirs, const char *destination,
	GError **error);

/* "matroska" or "mpegts", from the file's extension; NULL if neither. */
const char *umms_destination_container(const char *path);

#endif
