/* bpftrace2spaa - its reader, common/readers/bpftrace.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return bpftrace_read(argc, argv);
}
