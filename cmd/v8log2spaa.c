/* v8log2spaa - its reader, common/readers/v8log.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return v8log_read(argc, argv);
}
