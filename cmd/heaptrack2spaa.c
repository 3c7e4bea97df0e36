/* heaptrack2spaa - its reader, common/readers/heaptrack.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return heaptrack_read(argc, argv);
}
