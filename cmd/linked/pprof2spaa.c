/* pprof2spaa's own main, linked into any2spaa as pprof2spaa_main (see any2spaa.c). */
int pprof2spaa_main(int argc, char **argv);
#define main pprof2spaa_main
#include "../../common/readers/pprof.c"
