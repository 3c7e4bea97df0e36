/* spall2spaa - its reader, common/readers/spall.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return spall_read(argc, argv);
}
