/* perf2spaa - its reader, common/readers/perf.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return perf_read(argc, argv);
}
