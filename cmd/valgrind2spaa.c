/* valgrind2spaa - its reader, common/readers/valgrind.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return valgrind_read(argc, argv);
}
