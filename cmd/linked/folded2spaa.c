/* folded2spaa's own main, linked into any2spaa as folded2spaa_main (see any2spaa.c). */
int folded2spaa_main(int argc, char **argv);
#define main folded2spaa_main
#include "../../common/readers/folded.c"
