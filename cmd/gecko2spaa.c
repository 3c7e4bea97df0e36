/* gecko2spaa - its reader, common/readers/gecko.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return gecko_read(argc, argv);
}
