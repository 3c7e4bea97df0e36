/* pprof2spaa - its reader, common/readers/pprof.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return pprof_read(argc, argv);
}
