/* dtrace2spaa - its reader, common/readers/dtrace.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return dtrace_read(argc, argv);
}
