/* The video socket's name (socket-name.h). */
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
