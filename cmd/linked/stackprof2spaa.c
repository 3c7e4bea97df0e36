/* stackprof2spaa's own main, linked into any2spaa as stackprof2spaa_main (see any2spaa.c). */
int stackprof2spaa_main(int argc, char **argv);
#define main stackprof2spaa_main
#include "../../common/readers/stackprof.c"
