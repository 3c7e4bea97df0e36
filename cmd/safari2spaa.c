/* safari2spaa - its reader, common/readers/safari.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return safari_read(argc, argv);
}
