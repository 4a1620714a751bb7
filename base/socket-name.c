/* The sockets' names, as the environment gives them (socket-name.h). */
#include <stdlib.h>

#include "socket-name.h"

const char *
umms_socket_name(const char *name)
{
	if (!name)
		name = getenv("UMMS_DISPLAY");
	return name && *name ? name : "umms-0";
}

const char *
umms_compositor_socket_name(void)
{
	const char *name = getenv("WAYLAND_DISPLAY");
	return name && *name ? name : umms_socket_name(NULL);
}

const char *
umms_seatd_socket_name(void)
{
	const char *name = getenv("SEATD_SOCK");
	return name && *name ? name : "/run/seatd.sock";
}

const char *
umms_libseat_backend(void)
{
	const char *name = getenv("LIBSEAT_BACKEND");
	return name && *name ? name : NULL;
}

const char *
umms_runtime_dir(void)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	return dir && *dir ? dir : NULL;
}
