/* afperf2spaa - placeholder until its issue lands. */
#include "cli.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	die(EXIT_USAGE, "not implemented yet");
}
