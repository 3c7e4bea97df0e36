/* afperf2spaa - its reader, common/readers/afperf.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return afperf_read(argc, argv);
}
