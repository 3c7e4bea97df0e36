/* stackprof2spaa - its reader, common/readers/stackprof.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return stackprof_read(argc, argv);
}
