/* chrome2spaa's own main, linked into any2spaa as chrome2spaa_main (see any2spaa.c). */
int chrome2spaa_main(int argc, char **argv);
#define main chrome2spaa_main
#include "../../common/readers/chrome.c"
