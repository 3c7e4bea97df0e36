/* safari2spaa's own main, linked into any2spaa as safari2spaa_main (see any2spaa.c). */
int safari2spaa_main(int argc, char **argv);
#define main safari2spaa_main
#include "../../common/readers/safari.c"
