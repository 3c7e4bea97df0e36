/* instruments2spaa - its reader, common/readers/instruments.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return instruments_read(argc, argv);
}
