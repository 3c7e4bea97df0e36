/* chrome2spaa - its reader, common/readers/chrome.c, as a command. */
#include "cli.h"
#include "readers/readers.h"

int main(int argc, char **argv)
{
	cli_init(argc, argv);
	return chrome_read(argc, argv);
}
