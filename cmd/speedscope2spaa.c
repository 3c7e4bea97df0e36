/* speedscope2spaa - its reader, common/readers/speedscope.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return speedscope_read(argc, argv);
}
