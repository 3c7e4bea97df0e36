/* folded2spaa - its reader, common/readers/folded.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return folded_read(argc, argv);
}
