/* pstats2spaa - its reader, common/readers/pstats.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return pstats_read(argc, argv);
}
