/* ghcprof2spaa's own main, linked into any2spaa as ghcprof2spaa_main (see any2spaa.c). */
int ghcprof2spaa_main(int argc, char **argv);
#define main ghcprof2spaa_main
#include "../../common/readers/ghcprof.c"
