/* ghcprof2spaa - its reader, common/readers/ghcprof.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return ghcprof_read(argc, argv);
}
