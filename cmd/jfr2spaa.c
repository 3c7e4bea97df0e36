/* jfr2spaa - its reader, common/readers/jfr.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return jfr_read(argc, argv);
}
