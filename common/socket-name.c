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
