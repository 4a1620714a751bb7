/* ummsd: everything lives in the library, so tests can run it in-process. */
#include "server.h"

int
main(int argc, char *argv[])
{
	return umms_main(argc, argv);
}
