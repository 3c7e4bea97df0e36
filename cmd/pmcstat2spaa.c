/* pmcstat2spaa - its reader, common/readers/pmcstat.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return pmcstat_read(argc, argv);
}
