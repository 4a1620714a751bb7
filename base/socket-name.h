/*
 * The name of ummsd's video socket (umms_video_v1), as every side finds it:
 * the one place the environment variable UMMS_DISPLAY is read (as
 * WAYLAND_DISPLAY names a compositor's socket), and WAYLAND_DISPLAY by a
 * program of ours that chooses its compositor (demo/umms-kiosk). ummsd's config module uses
 * it for the default of [video] socket; libumms-client and
 * libumms-client-gl when the application names none. And the two variables
 * of libseat's that ummsd's session looks at before libseat does, to know
 * what libseat would do, and whether XDG_RUNTIME_DIR is there for the
 * video socket at all. docs/env_vars.md.
 */
#ifndef UMMS_COMMON_SOCKET_NAME_H
#define UMMS_COMMON_SOCKET_NAME_H

/* @name, or $UMMS_DISPLAY when @name is NULL; "umms-0" when that is unset or empty. */
const char *umms_socket_name(const char *name);
/*
 * The compositor a shell connects to: $WAYLAND_DISPLAY, else ummsd's own
 * (ummsd --drm serves Wayland clients on its video socket).
 */
const char *umms_compositor_socket_name(void);

/* Where libseat looks for seatd: $SEATD_SOCK, else /run/seatd.sock. */
const char *umms_seatd_socket_name(void);
/* The backend libseat is told to use ($LIBSEAT_BACKEND), or NULL: libseat picks. */
const char *umms_libseat_backend(void);

/*
 * $XDG_RUNTIME_DIR, where libwayland puts a socket given by name; NULL
 * when unset or empty (libwayland then serves none).
 */
const char *umms_runtime_dir(void);

#endif
