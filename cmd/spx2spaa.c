/* spx2spaa - its reader, common/readers/spx.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return spx_read(argc, argv);
}
